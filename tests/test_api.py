"""The public API as documented: `pipeline`'s exports (the examples of the docstrings run in
tests/test_docs.py), a frozen `Selection` under a thin `Analysis`, measures that know nothing of groups of
algorithms."""
from __future__ import annotations

import dataclasses
import importlib
import inspect
import subprocess
import sys

import pytest

import pipeline
from conftest import ROOT
from logs import write_new2
from pipeline.api import Analysis
from pipeline.hits.budget import Budget
from pipeline.selection import Selection, SelectionError, open_reference
from pipeline.store import Store


def test_the_package_exports_the_api_lazily():
    code = ("import sys, pipeline; assert 'polars' not in sys.modules; "
            "print(pipeline.open_store('data/refalgs', algorithm='best2019-bbob-largescale').art().collect().height)")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0 and int(r.stdout) > 0, r.stderr
    assert sorted(pipeline.__all__) == ["Analysis", "Budget", "Selection", "Store", "ingest", "open_reference",
                                        "open_store"]
    assert pipeline.Analysis is Analysis and pipeline.Selection is Selection and pipeline.Budget is Budget
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        pipeline.nothing  # noqa: B018


def test_ingest_is_the_package_and_its_function(tmp_path):
    write_new2(tmp_path / "exp", runs=[{"instance": 1, "dat": [(1, 5.0), (3, 1e-9)]}])
    store = pipeline.Store(tmp_path / "store", create=True)
    assert pipeline.ingest([tmp_path / "exp"], store).runs == 1
    assert pipeline.ingest.ingest is importlib.import_module("pipeline.ingest").ingest
    assert pipeline.open_store(store.path).hits([1.0]).collect()["hit"].to_list() == [3]


def test_a_selection_is_frozen_and_narrowed_into_another():
    sel = open_reference("best2009")
    assert (sel.suite, sel.algorithm, sel.max_budget, sel.all_instances, sel.exact) == (
        ("bbob",), ("best2009-bbob",), None, False, False)
    with pytest.raises(dataclasses.FrozenInstanceError):
        sel.suite = ("bbob-noisy",)
    two = sel.narrow(function=[1, 2], dimension=5)
    cut = two.narrow(max_budget=Budget.parse("2x"))
    assert (two.function, two.dimension, str(cut.max_budget)) == ((1, 2), (5,), "2x") and sel.function is None
    evaluations = [sel.runs().collect().sort("function")["evaluations"].to_list() for sel in (two, cut)]
    assert evaluations == [[12, 95], [10, 10]]  # cut at 2 x 5 evaluations
    assert two.algorithms() == ["best2009-bbob"] and two.suites() == ["bbob"]
    with pytest.raises(TypeError, match="a Budget"):
        sel.narrow(max_budget="100x")  # parsed once, where it is given: not below
    with pytest.raises(TypeError, match="exact 'loose': True or False"):
        sel.narrow(exact="loose")
    with pytest.raises(SelectionError, match="no function 99 in the store .*: it holds functions 1-24"):
        sel.narrow(function=99).check()


def test_the_facade_is_a_selection_and_a_plan(tmp_path):
    write_new2(tmp_path / "exp", runs=[{"instance": 1, "dat": [(1, 5.0), (3, 1e-9)]}])
    store = Store(tmp_path / "store", create=True)
    pipeline.ingest([tmp_path / "exp"], store)
    a = Analysis(store, max_budget="1x", exact=True, group_size=None)
    assert a.selection == Selection(store, max_budget=Budget(1.0, True), exact=True)
    assert (a.max_budget, a.exact, a.all_instances, a.executor, a.plan.group_size) == (Budget(1.0, True), True, False,
                                                                                        "local", None)
    b = a.select(max_budget=None, algorithm="ALG", group_size=4)
    assert (b.max_budget, b.filters["algorithm"], b.exact, b.plan.group_size) == (None, ("ALG",), True, 4)
    assert Analysis(b.selection, suite="bbob").selection == b.selection.narrow(suite=("bbob",))
    hits = a.hits([1.0]).collect()  # reached after 3 evaluations, beyond the budget of 1 x 2: not reached
    assert hits.select("evaluations", "hit", "success").rows() == [(2, None, False)]
    assert b.hits([1.0]).collect()["hit"].to_list() == [3]
    with pytest.raises(ValueError, match="executor 'spark'"):
        a.select(executor="spark")


def test_no_measure_of_the_facade_takes_a_group_size():
    """How many algorithms are computed at a time is an execution setting (`group_size`), not a
    measure's argument."""
    measures = [name for name, f in inspect.getmembers(Analysis, inspect.isfunction) if not name.startswith("_")]
    assert {"art", "ecdf", "ecdf_summary", "ecdf_band", "profile", "hits"} <= set(measures)
    grouped = [name for name in measures
               if {"chunk", "group_size"} & set(inspect.signature(getattr(Analysis, name)).parameters)]
    assert not grouped
