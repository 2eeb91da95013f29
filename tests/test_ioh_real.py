"""Parity with IOHinspector 0.0.8 on real public IOHprofiler logs without a known optimum
(tests/fixtures/ioh/real, oracle real_oracle.csv made by tests/fixtures/ioh/make_real_oracle.py):
targets are logged values, ERT (each unsuccessful run charged its own length, IOHanalyzer's definition),
fixed-budget statistics, fixed-budget ECDF and AOCC on values, every output saying `quantity = value`.
IOHexperimenter's ioh_data.zip, 2021 and 2023 (layout of ioh < 0.3, which IOHinspector does not read) is measured by IOHinspector
on its `cocopipe export`, loaded run by run: IOHinspector 0.0.8's loader drops a record equal to the record
before it even across runs, so 3 of f0's 4 runs (every value 0) would be empty and its successes 1, not 4."""
from __future__ import annotations

import json
import math
from pathlib import Path

import polars as pl
import pytest

from pipeline.api import open_store

REAL = Path(__file__).resolve().parent / "fixtures" / "ioh" / "real"
ORACLE = pl.read_csv(REAL.parent / "real_oracle.csv")
#: data set: every run's length, or by (algorithm, dimension) where they differ (MA-BBOB's)
SETS = {"iohinspector_SO_Data": 1000, "iohinspector_test_data": 100, "iohexperimenter_temp": 10,
        "iohdata_MABBOB_Baselines": {("ACA", 2): 4000, ("ACA", 5): 10000, ("PSS", 2): 369, ("PSS", 5): 9963,
                             ("ERADS_QuantumFluxUltraRefined", 2): 4000,
                             ("ERADS_QuantumFluxUltraRefined", 5): 10000},
        "iohexperimenter_ioh_data": 10000, "iohexperimenter_ioh_data_2023": 10000}
#: the problems a data set has: the 2023 ioh_data.zip's last .dat ends within a line (the logging stopped there)
#: IOHexperimenter's temp3-1 holds a .dat whose json was never written (its test did not close the logger)
PROBLEMS = {"iohexperimenter_ioh_data_2023": [("data_f61_Name/IOHprofiler_f61_DIM5.dat", 13, "truncated record")],
            "iohexperimenter_temp": [("temp3-1/data_f2_Ellipsoid/IOHprofiler_f2_DIM5.dat", None,
                                      "IOHprofiler data file without the IOHprofiler_*.json that names it "
                                      "(the logger was not closed?)")]}
#: where a data set lies below REAL when it is not the folder of its name
PATHS = {"iohexperimenter_ioh_data": "iohexperimenter_ioh_data/ioh_data.zip"}


def _length(data: str, algorithm: str, dimension: int) -> int:
    """Every run's length in a data set for an algorithm and dimension."""
    lengths = SETS[data]
    return lengths[algorithm, dimension] if isinstance(lengths, dict) else lengths


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    from pipeline.ingest import ingest
    from pipeline.store import Store

    out = {}
    for name in SETS:
        st = Store(tmp_path_factory.mktemp(name), create=True)
        summary = ingest([REAL / PATHS.get(name, name)], st)
        assert [(p.file, p.line, p.message) for p in summary.problems] == PROBLEMS.get(name, [])
        out[name] = st.path
    return out


def _groups(measure: str):
    o = ORACLE.filter(pl.col("measure") == measure)
    return list(o.group_by("data", "algorithm", "function", "dimension", maintain_order=True))


def test_every_real_set_is_ingested_with_its_runs(stores):
    """Every run of the json files is read; none has a known optimum (suite unknown_suite; IOHexperimenter's
    ioh_data.zip: "No suite"; both of its versions' 8 runs checked in test_ioh_old.py)."""
    for name, path in stores.items():
        runs = open_store(path).select().selection.store.runs().collect()
        assert runs["final_delta"].null_count() == runs.height
        if name.startswith("iohexperimenter_ioh_data"):
            assert runs.height == 8 and set(runs["suite"]) == {"No suite" if name == "iohexperimenter_ioh_data"
                                                               else "unknown_suite"}
            continue
        announced = sum(p.read_text().count('"instance"') for p in (REAL / name).rglob("*.json"))
        assert runs.height == announced
        assert set(runs["suite"]) == {"unknown_suite"}


def test_mabbob_baselines_are_read_whole(stores):
    """IOHdata's MA-BBOB baselines (cut to 5 runs of each algorithm and dimension): 3 algorithms on
    ManyAffine (f100) in 2-D and 5-D, every run as long as the json says (2000 * dimension, PSS stopping early), its best
    value the json's `best.y`."""
    runs = open_store(stores["iohdata_MABBOB_Baselines"]).values().runs().collect()
    assert runs.height == 30 and set(runs["function"]) == {100} and set(runs["function_name"]) == {"ManyAffine"}
    assert sorted(runs.group_by("algorithm", "dimension").len().rows()) == [
        (a, d, 5) for a in ("ACA", "ERADS_QuantumFluxUltraRefined", "PSS") for d in (2, 5)]
    assert all(r["last_evaluation"] == _length("iohdata_MABBOB_Baselines", r["algorithm"], r["dimension"])
               for r in runs.iter_rows(named=True))
    logged = open_store(stores["iohdata_MABBOB_Baselines"]).select().selection.store.runs().collect()
    bests = sorted(json.loads(p.read_text())["scenarios"][i]["runs"][j]["best"]["y"]
                   for p in (REAL / "iohdata_MABBOB_Baselines").rglob("*.json") for i in range(2) for j in range(5))
    assert sorted(logged["best_y"]) == bests


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
        assert a["budget"][0] == _length(data, alg, d) and a["quantity"][0] == "value"
        assert a["aocc"][0] == pytest.approx(g["value"][0], rel=1e-9, abs=1e-12), (alg, f)


@pytest.fixture(scope="module")
def f19(tmp_path_factory):
    """IOHdata's sample in the layout of ioh < 0.3, PBO f19: maximised, no optimum known."""
    from pipeline.ingest import ingest
    from pipeline.store import Store

    st = Store(tmp_path_factory.mktemp("f19"), create=True)
    summary = ingest([REAL / "iohdata_sample_data"], st)
    assert not summary.problems, summary.problems
    return st.path


def test_maximised_values_equal_iohinspector_on_the_export(f19):
    """IOHinspector reads no log of ioh < 0.3: its oracle read `cocopipe export` of the same runs
    (make_real_oracle.py, eval_max = each algorithm's run length); cocopipe's numbers on the original
    layout, with its defaults (each run charged its own length, AOCC's budget the algorithm's longest
    run), are its numbers."""
    lengths = {"RLS": 16000, "self_GA": 16001}
    runs = open_store(f19, function=19).values().runs().collect()
    assert dict(runs.group_by("algorithm").agg(pl.col("last_evaluation").max()).rows()) == lengths
    checked = 0
    for (_, alg, f, _d), g in _groups("ERT-max"):
        got = open_store(f19, algorithm=alg, function=f).ert(g["x"].to_list()).collect()
        got = dict(zip(got["target"], got["ert"]))
        for t, want in zip(g["x"], g["value"]):
            assert got[t] == pytest.approx(want, rel=1e-12) or (math.isinf(want) and math.isinf(got[t])), (alg, t)
            checked += 1
    for (_, alg, f, _d), g in _groups("ECDF-max"):
        got = open_store(f19, algorithm=alg, function=f).fixed_budget_ecdf(
            g["x"].to_list(), lower=16.0, upper=32.0, log=False).collect()
        got = dict(zip(got["budget"], got["fraction"]))
        assert [got[b] for b in g["x"]] == pytest.approx(g["value"].to_list(), rel=1e-9, abs=1e-12)
        checked += len(g)
    for stat in ("mean", "median", "min", "max"):
        for (_, alg, f, _d), g in _groups(f"FB-{stat}-max"):
            v = open_store(f19, algorithm=alg, function=f).fixed_budget(g["x"].to_list(), summary=False).collect()
            got = v.group_by("budget").agg(v=getattr(pl.col("best_delta"), stat)())
            got = dict(zip(got["budget"], got["v"]))
            assert [got[b] for b in g["x"]] == pytest.approx(g["value"].to_list(), rel=1e-9)
            checked += len(g)
    for (_, alg, f, _d), g in _groups("AOCC-max"):
        a = open_store(f19, function=f).aocc(lower=16.0, upper=32.0, log=False).collect()
        a = a.filter(pl.col("algorithm") == alg)
        assert a["quantity"][0] == "value" and a["budget"][0] == lengths[alg]
        assert a["aocc"][0] == pytest.approx(g["value"][0], rel=1e-9)
        checked += 1
    assert checked > 80
