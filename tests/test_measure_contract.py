"""The contract every registered measure keeps (as scikit-learn's `check_estimator` checks every estimator):
an empty selection gives no row and the declared columns; threads, any group size and Ray give the same
rows in the same order, and so does the stream of parts; settings round-trip and a bad one is refused with
the declared text; the measure is reachable on the facade and documented; its chart kinds draw."""
from __future__ import annotations

import subprocess
import sys

import polars as pl
import pytest

from conftest import ROOT
from pipeline.api import Analysis
from pipeline.binding import describe
from pipeline.commands._common import flat
from pipeline.ingest import ingest
from pipeline.measures import catalog
from pipeline.measures.registry import InvalidSetting, load
from pipeline.store import Store

MEASURES = load()
NAMES = list(MEASURES)
TARGETS = [10.0, 1e-1, 1e-8]
#: settings that keep each measure small here (the others: their defaults)
SETTINGS = {"art": dict(dispersion=True, samples=20, confidence=0.9), "simulated_runtimes": dict(samples=5),
            "ecdf.band": dict(replicates=5), "ecdf.steps": dict(samples=10), "glicko2": dict(rounds=3),
            "fixed_budget": dict(budgets=(10, 100)), "fixed_budget_ecdf": dict(budgets=(10, 100))}


def compute(a: Analysis, name: str) -> pl.DataFrame:
    """The measure `name` of `a`, with this module's targets and settings."""
    args = (TARGETS,) if MEASURES[name].targets else ()
    return a.measure(name, *args, **SETTINGS.get(name, {})).collect()


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Store:
    st = Store(tmp_path_factory.mktemp("contract") / "s", create=True)
    ingest([ROOT / "data" / "sample", ROOT / "tests" / "fixtures" / "biobj_eaf" / "logs"], st)
    return st


@pytest.fixture(scope="module")
def ray_local():
    """A local Ray instance of two CPUs for the module."""
    ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'cocopipe[ray]')")
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


#: the measures of archived bbob-biobj points: their selection is the two algorithms of tests/fixtures/biobj_eaf
ARCHIVED = [n for n, m in MEASURES.items() if "archive" in m.inputs]


def small(store: Store, name: str | None = None, **plan) -> Analysis:
    if name in ARCHIVED:
        pytest.importorskip("cocoex", reason="coco-experiment (pip install '.[biobj]') gives ideal and nadir points")
        return Analysis(store, algorithm=["GAUSS", "UNIFORM"], function=[1, 10], dimension=2, **plan)
    return Analysis(store, algorithm=["DIRECT", "NM", "RS"], function=[1, 2], dimension=[2, 5], **plan)


@pytest.mark.parametrize("name", NAMES)
def test_an_empty_selection_gives_no_row_and_the_declared_columns(name, store, tmp_path):
    declared = list(MEASURES[name].columns_of(MEASURES[name].configure(**SETTINGS.get(name, {}))))
    for a in (Analysis(Store(tmp_path / "empty", create=True)), Analysis(store, function=1, dimension=40)):
        out = compute(a, name)
        assert out.height == 0 and (out.columns == declared or not declared), (name, out.columns)


@pytest.mark.distributed
@pytest.mark.parametrize("name", NAMES)
def test_an_empty_selection_on_ray_is_empty_as_on_threads(name, store, tmp_path, ray_local):
    # the symptom: Analysis(store, executor="ray").art() on an empty selection raised
    for a in (Analysis(Store(tmp_path / "empty", create=True), executor="ray"),
              Analysis(store, function=1, dimension=40, executor="ray")):
        out = compute(a, name)
        assert out.height == 0 and out.columns == compute(Analysis(a.selection), name).columns


@pytest.mark.parametrize("name", NAMES)
def test_every_group_size_gives_the_same_rows_in_the_same_order(name, store):
    whole = compute(small(store, name, group_size=None), name)
    assert whole.height > 0, name
    assert compute(small(store, name, group_size=1), name).equals(whole)
    streamed = list(small(store, name, group_size=1).stream(name, *((TARGETS,) if MEASURES[name].targets else ()),
                                                       **SETTINGS.get(name, {})))
    assert pl.concat(streamed, how="vertical_relaxed").equals(whole)


@pytest.mark.distributed
@pytest.mark.parametrize("name", NAMES)
def test_ray_gives_the_rows_of_the_threads(name, store, ray_local):
    here = compute(small(store, name, group_size=1), name)
    there = small(store, name, group_size=1, executor="ray")
    assert compute(there, name).equals(here)
    args = (TARGETS,) if MEASURES[name].targets else ()
    parts = list(there.stream(name, *args, **SETTINGS.get(name, {})))
    assert pl.concat(parts, how="vertical_relaxed").equals(here)
    if MEASURES[name].groupable:  # a part per algorithm (group size 1), each a task: never the whole at once
        assert len(parts) == 3


def test_parts_appended_to_a_csv_are_the_whole_table(store, tmp_path):
    from pipeline.commands._common import write_parts, write_table

    a = small(store, group_size=1)
    write_parts(a.stream("art", TARGETS), str(tmp_path / "parts.csv"))
    write_table(a.art(TARGETS).collect(), str(tmp_path / "whole.csv"))
    assert (tmp_path / "parts.csv").read_bytes() == (tmp_path / "whole.csv").read_bytes()
    assert len(list(a.stream("art", TARGETS))) == 3


class Bad:
    """A value no constraint takes, with a stable repr."""

    def __repr__(self) -> str:
        return "<bad>"


@pytest.mark.parametrize("name", NAMES)
def test_settings_round_trip_and_a_bad_one_is_refused_with_the_declared_text(name):
    m = MEASURES[name]
    s = m.configure(**SETTINGS.get(name, {}))
    assert m.configure(**s.asdict()) == s
    with pytest.raises(AttributeError):
        s.seed = 2  # frozen
    for p in m.settings.params:
        with pytest.raises(InvalidSetting) as info:
            m.configure(**{p.name: Bad()})
        assert str(info.value) == f"{p.name} <bad>: expected {p.accepts}" and info.value.setting == p.name
    with pytest.raises(InvalidSetting, match="unknown setting 'nonsense'"):
        m.configure(nonsense=1)


def test_constraints_say_what_they_take():
    art = MEASURES["art"]
    with pytest.raises(InvalidSetting, match=r"^samples 0: expected an integer >= 1$"):
        art.configure(samples=0)
    with pytest.raises(InvalidSetting, match=r"^confidence 1.5: expected None or a number in \(0, 1\)$"):
        art.configure(confidence=1.5)
    with pytest.raises(InvalidSetting, match="^mode 'fast': expected one of simulated, exact, trials$"):
        MEASURES["ecdf.steps"].configure(mode="fast")
    assert MEASURES["ecdf.steps"].configure(max_x="budget").max_x == "budget"
    with pytest.raises(InvalidSetting, match="dispersion 1: expected true or false"):
        art.configure(dispersion=1)  # a number is no flag


@pytest.mark.parametrize("name", NAMES)
def test_the_measure_is_on_the_facade_and_documented(name, store):
    m = MEASURES[name]
    method = Analysis(store)
    for part in name.split("."):
        method = getattr(method, part)
    assert callable(method)
    docs = (ROOT / "docs" / "measures.md").read_text()
    assert f"| **{name}**: {m.summary} |" in docs
    assert m.summary and m.seed and m.summary in describe(m)


@pytest.mark.parametrize("name", [n for n, m in MEASURES.items() if m.kernel])
def test_the_declared_kernel_twin_exists(name):
    # "module:function" of pipeline.measures: the readable definition a property test holds the fast path to
    import importlib

    module, function = MEASURES[name].kernel.split(":")
    assert callable(getattr(importlib.import_module(f"pipeline.measures.{module}"), function))


def test_the_index_of_the_docs_is_written_from_the_registry():
    r = subprocess.run([sys.executable, str(ROOT / "docs" / "make_measures.py"), "--check"], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.parametrize(("name", "kind"), [(n, k) for n, m in MEASURES.items() for k in m.charts])
def test_its_chart_kinds_draw(name, kind, store):
    from pipeline.recipes import KIND_NAMES, kinds

    assert kind in KIND_NAMES
    two = ["GAUSS", "UNIFORM"] if name in ARCHIVED else ["DIRECT", "NM"]
    spec = kinds.chart(kind, small(store, name).select(algorithm=two)).to_dict()  # pairs need two
    assert spec.get("datasets") or spec.get("data"), (name, kind)


def test_the_catalogue_copies_its_modules_constants():
    from pipeline.hits.spec import PROBLEM
    from pipeline.measures import ecdf, profiles
    from pipeline.vocabulary import TABLE_CELL

    assert catalog.PROBLEM == tuple(PROBLEM) and catalog.MODES == ecdf.MODES
    assert catalog.TRANSFORMS == tuple(profiles.TRANSFORMS) and catalog.PROFILE_STEP_KEYS == tuple(profiles.STEP_KEYS)
    assert catalog.TEST_KEY == tuple(TABLE_CELL) and catalog.ECDF_SUMMARY == tuple(ecdf.SUMMARY_SCHEMA)
    assert catalog.PROFILE_RULES == profiles.RULES


def test_declaring_the_measures_loads_no_library():
    code = ("import sys; from pipeline.measures.registry import load; load(); "
            "print(sorted(m for m in ('polars', 'numpy', 'scipy') if m in sys.modules))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0 and r.stdout.strip() == "[]", r.stdout + r.stderr


def test_a_declared_command_offers_the_settings_as_options(store):
    # art declared again with a command: its settings become options, checked as declared, one-line errors
    import dataclasses

    from typer.testing import CliRunner

    from pipeline.cli import build_app
    from pipeline.measures import registry

    registry.register(dataclasses.replace(MEASURES["art"], name="art_again", command="art-again", handwritten=None))
    try:
        app, run = build_app(), CliRunner()
        args = ["art-again", "--store", str(store.path), "-f", "1", "-d", "2", "--targets", "1e-8"]
        r = run.invoke(app, [*args, "--dispersion", "--samples", "10", "--confidence", "0.9", "-o", "-"])
        assert r.exit_code == 0, r.output
        want = Analysis(store, function=1, dimension=2).art([1e-8], dispersion=True, samples=10, confidence=0.9)
        assert r.output.splitlines() == flat(want.collect()).write_csv().splitlines()  # as every CSV is written
        r = run.invoke(app, [*args, "--samples", "0"])
        assert r.exit_code == 1 and r.output.strip() == "error: --samples 0: expected an integer >= 1"
    finally:
        registry.REGISTRY.pop("art_again")
