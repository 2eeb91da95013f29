"""Parity with IOHinspector 0.0.8 on real public IOHprofiler logs without a known optimum
(tests/fixtures/ioh/real, oracle real_oracle.csv made by tests/fixtures/ioh/make_real_oracle.py):
targets are logged values, ERT (each unsuccessful run charged its own length, IOHanalyzer's definition),
fixed-budget statistics, fixed-budget ECDF and AOCC on values, every output saying `quantity = value`."""
from __future__ import annotations

import math
from pathlib import Path

import polars as pl
import pytest

from pipeline.api import open_store

REAL = Path(__file__).resolve().parent / "fixtures" / "ioh" / "real"
ORACLE = pl.read_csv(REAL.parent / "real_oracle.csv")
SETS = {"iohinspector_SO_Data": 1000, "iohinspector_test_data": 100}


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    from pipeline.ingest import ingest
    from pipeline.store import Store

    out = {}
    for name in SETS:
        st = Store(tmp_path_factory.mktemp(name), create=True)
        summary = ingest([REAL / name], st)
        assert not summary.problems, summary.problems
        out[name] = st.path
    return out


def _groups(measure: str):
    o = ORACLE.filter(pl.col("measure") == measure)
    return list(o.group_by("data", "algorithm", "function", "dimension", maintain_order=True))


def test_every_real_set_is_ingested_with_its_runs(stores):
    """Every run of the json files is read; none has a known optimum (suite unknown_suite)."""
    for name, path in stores.items():
        runs = open_store(path).select().selection.store.runs().collect()
        announced = sum(p.read_text().count('"instance"') for p in (REAL / name).rglob("*.json"))
        assert runs.height == announced
        assert runs["final_delta"].null_count() == runs.height
        assert set(runs["suite"]) == {"unknown_suite"}


def test_ert_on_values_equals_iohinspector(stores):
    checked = 0
    for (data, alg, f, d), g in _groups("ERT"):
        got = open_store(stores[data], algorithm=alg, function=f, dimension=d).ert(g["x"].to_list()).collect()
        assert set(got["quantity"]) == {"value"}
        got = dict(zip(got["target"], got["ert"]))
        for t, want in zip(g["x"], g["value"]):
            assert got[t] == pytest.approx(want, rel=1e-12) or (math.isinf(want) and math.isinf(got[t])), (alg, f, t)
            checked += 1
    assert checked > 100


def test_ert_successes_equal_iohinspector(stores):
    for (data, alg, f, d), g in _groups("successes"):
        got = open_store(stores[data], algorithm=alg, function=f, dimension=d).ert(g["x"].to_list()).collect()
        got = dict(zip(got["target"], got["successes"]))
        assert [got[t] for t in g["x"]] == [int(v) for v in g["value"]]


@pytest.mark.parametrize("stat", ["mean", "median", "min", "max"])
def test_fixed_budget_values_equal_iohinspector(stores, stat):
    for (data, alg, f, d), g in _groups(f"FB-{stat}"):
        values = open_store(stores[data], algorithm=alg, function=f, dimension=d).fixed_budget(
            g["x"].to_list(), summary=False).collect()
        assert set(values["quantity"]) == {"value"}
        got = values.group_by("budget").agg(v=getattr(pl.col("best_delta"), stat)())
        got = dict(zip(got["budget"], got["v"]))
        for b, want in zip(g["x"], g["value"]):
            assert got[b] == pytest.approx(want, rel=1e-9), (alg, f, b, stat)


def test_fixed_budget_ecdf_on_values_equals_iohinspector(stores):
    for (data, alg, f, d), g in _groups("ECDF"):
        got = open_store(stores[data], algorithm=alg, function=f, dimension=d).fixed_budget_ecdf(
            g["x"].to_list(), lower=1e-8, upper=1e2).collect()
        got = dict(zip(got["budget"], got["fraction"]))
        for b, want in zip(g["x"], g["value"]):
            assert got[b] == pytest.approx(want, rel=1e-9, abs=1e-12), (alg, f, b)


def test_aocc_on_values_equals_iohinspector(stores):
    """The default budget is each algorithm's longest run: here every run's length, IOHinspector's eval_max."""
    for (data, alg, f, d), g in _groups("AOCC"):
        a = open_store(stores[data], function=f, dimension=d).aocc(lower=1e-8, upper=1e2).collect()
        a = a.filter(pl.col("algorithm") == alg)
        assert a["budget"][0] == SETS[data] and a["quantity"][0] == "value"
        assert a["aocc"][0] == pytest.approx(g["value"][0], rel=1e-9, abs=1e-12), (alg, f)
