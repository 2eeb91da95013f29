"""Performance, data and log-ratio profiles (`pipeline.measures.solver_profiles`): hand-made logs answered by
hand, and OptiProfiler 2.0.0's own computation on the same histories of real COCO and IOHprofiler data
(tests/fixtures/solver_profiles: `make_oracle.py` made `oracle.csv` in a scratch venv); the facade, the
commands and the charts the registry gives them."""
from __future__ import annotations

import csv
import hashlib
import importlib.util
import math
import subprocess
import sys

import polars as pl
import pytest

from conftest import ROOT
from logs import write_new2
from pipeline.api import Analysis
from pipeline.ingest import ingest
from pipeline.recipes import kinds
from pipeline.store import Store

FIXTURES = ROOT / "tests" / "fixtures" / "solver_profiles"

# bbob f1, 2-D. instance 1: f0 = max(100, 10) = 100, fL = 0.01; instance 2: f0 = 50, fL = 0.1.
#   tau 0.1:  thresholds 10.009 and 5.09: A passes at 4 and 30, B at 1 and 6
#   tau 0.01: thresholds 1.0099 and 0.599: A passes at 4 and never, B at 9 and 6
A = [(1, [(1, 100.0), (4, 1.0), (20, 0.01)]), (2, [(1, 50.0), (30, 5.0)])]
B = [(1, [(1, 10.0), (9, 0.5)]), (2, [(1, 40.0), (6, 0.1)])]


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Store:
    root = tmp_path_factory.mktemp("solver_profiles")
    for name, trials in (("A", A), ("B", B)):
        write_new2(root / name, alg=name, runs=[{"instance": i, "dat": recs} for i, recs in trials])
    # f2 in 5-D only A ran: not a problem of the profiles
    write_new2(root / "A", alg="A", function=2, dim=5, runs=[{"instance": 1, "dat": [(1, 3.0), (2, 1.0)]}])
    st = Store(root / "store", create=True)
    ingest([root / "A", root / "B"], st)
    return st


def steps(table: pl.DataFrame, tolerance: float) -> dict[str, list[tuple]]:
    t = table.filter(pl.col("tolerance") == tolerance)
    return {a: t.filter(pl.col("algorithm") == a).select("ratio", "fraction").rows() for a in ("A", "B")}


def test_the_performance_profile_of_two_algorithms_on_two_problems(store):
    table = Analysis(store).performance_profile(max_tol_order=2).collect()
    # tau 0.1: least work 1 and 6, A's ratios 4 and 5, B's 1 and 1
    assert steps(table, 0.1) == {"A": [(4.0, 0.5), (5.0, 1.0)], "B": [(1.0, 1.0)]}
    # tau 0.01: least work 4 and 6, A's ratios 1 and failed, B's 9 / 4 and 1
    assert steps(table, 0.01) == {"A": [(1.0, 0.5)], "B": [(1.0, 0.5), (2.25, 1.0)]}
    assert set(table["problems"]) == {2} and set(table["quantity"]) == {"precision"}
    assert table["tolerance"].unique(maintain_order=True).to_list() == [0.1, 0.01]


def test_the_data_profile_counts_simplex_gradients(store):
    # n + 1 = 3 evaluations a simplex gradient
    table = Analysis(store).data_profile(max_tol_order=2).collect()
    assert steps(table, 0.1) == {"A": [(4 / 3, 0.5), (10.0, 1.0)], "B": [(1 / 3, 0.5), (2.0, 1.0)]}
    assert steps(table, 0.01) == {"A": [(4 / 3, 0.5)], "B": [(2.0, 0.5), (3.0, 1.0)]}


def test_the_log_ratio_profile_sorts_the_problems_and_puts_one_sided_failures_beyond(store):
    table = Analysis(store).log_ratio_profile(max_tol_order=2).collect()
    loose = table.filter(pl.col("tolerance") == 0.1)
    assert loose.select("instance", "work_a", "work_b", "solved").rows() == [(1, 4, 1, "both"), (2, 30, 6, "both")]
    assert loose["value"].to_list() == pytest.approx([2.0, math.log2(5)])
    tight = table.filter(pl.col("tolerance") == 0.01)
    # instance 1: log2(4 / 9); instance 2: only b solved, drawn at 1.1 times the largest |log ratio|
    assert tight.select("instance", "solved", "position").rows() == [(1, "both", 1), (2, "b", 2)]
    assert tight["value"].to_list() == pytest.approx([math.log2(4 / 9), -1.1 * math.log2(4 / 9)])
    assert tight["log_ratio"][1] is None


def test_the_log_ratio_profile_takes_two_algorithms(tmp_path):
    for name, trials in (("A", A), ("B", B), ("C", A)):
        write_new2(tmp_path / name, alg=name, runs=[{"instance": i, "dat": recs} for i, recs in trials])
    st = Store(tmp_path / "store", create=True)
    ingest([tmp_path / n for n in "ABC"], st)
    # without names: A and B, the first two alphabetically
    assert Analysis(st).log_ratio_profile(max_tol_order=1).collect().select("work_a", "work_b").rows() == [(4, 1),
                                                                                                          (30, 6)]
    named = Analysis(st).log_ratio_profile(a_name="B", b_name="A", max_tol_order=1).collect()
    assert named.select("instance", "work_a", "work_b").rows() == [(2, 6, 30), (1, 1, 4)]
    with pytest.raises(ValueError, match="'Z'"):
        Analysis(st).log_ratio_profile(a_name="A", b_name="Z").collect()
    with pytest.raises(ValueError, match="two algorithms"):
        Analysis(st).log_ratio_profile(a_name="A", b_name="A").collect()


def test_a_budget_cut_makes_later_passes_failures(store):
    # at 10 evaluations A never passes on instance 2 and fL is computed from the cut records
    table = Analysis(store, max_budget="10").performance_profile(max_tol_order=1).collect()
    assert steps(table, 0.1)["A"] == [(4.0, 0.5)]


def test_a_bad_tolerance_order_is_refused():
    from pipeline.measures.registry import InvalidSetting, get

    with pytest.raises(InvalidSetting, match=r"max_tol_order 17: expected an integer in \[1, 16\]"):
        get("performance_profile").configure(max_tol_order=17)


# -- OptiProfiler on the same histories ---------------------------------------------------------------------
def _oracle_module():
    spec = importlib.util.spec_from_file_location("solver_profiles_oracle", FIXTURES / "make_oracle.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def oracle():
    module = _oracle_module()
    with open(FIXTURES / "oracle.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    return module, rows, module.analyses()


def test_the_histories_are_those_optiprofiler_was_given(oracle):
    module, _, analyses = oracle
    text = module.histories(analyses).write_csv()
    assert hashlib.sha256(text.encode()).hexdigest() == (FIXTURES / "histories.sha256").read_text().strip()


@pytest.mark.parametrize("profile", ["performance", "data"])
def test_performance_and_data_profiles_equal_optiprofilers(oracle, profile):
    module, rows, analyses = oracle
    compared = 0
    for (name, quantity), a in analyses.items():
        table = a.measure(f"{profile}_profile", max_tol_order=len(module.TOLERANCES)).collect()
        mine = {(r["suite"], r["algorithm"], r["tolerance"], r["ratio"]): r["fraction"] for r in table.iter_rows(named=True)}
        theirs = {(r["suite"], r["algorithm"], float(r["tolerance"]), float(r["x"])): float(r["y"]) for r in rows
                  if (r["dataset"], r["quantity"], r["profile"]) == (name, quantity, profile)}
        assert set(mine) == set(theirs), (name, set(mine) ^ set(theirs))
        for k, y in theirs.items():
            assert mine[k] == pytest.approx(y, rel=1e-12, abs=1e-15), (name, k)
        compared += len(theirs)
    assert compared > 500


def test_log_ratio_profiles_equal_optiprofilers(oracle):
    module, rows, analyses = oracle
    for (name, quantity), a in analyses.items():
        pair = sorted(a.algorithms())[:2]
        table = a.select(algorithm=pair).log_ratio_profile(max_tol_order=len(module.TOLERANCES)).collect()
        for tau in module.TOLERANCES:
            t = table.filter(pl.col("tolerance") == tau)
            finite = t["log_ratio"].drop_nulls().abs()
            m = float(finite.max()) if finite.len() and finite.max() > 0 else 2.0 ** -52
            neither = t.filter(pl.col("solved") == "neither").height
            mine = sorted(t["value"].drop_nulls().to_list() + [1.1 * m] * neither + [-1.1 * m] * neither)
            theirs = [float(r["y"]) for r in rows if (r["dataset"], r["quantity"], r["profile"]) ==
                      (name, quantity, "log_ratio") and float(r["tolerance"]) == tau]
            assert mine == pytest.approx(theirs, rel=1e-12, abs=1e-12), (name, tau)
            assert t["value"].drop_nulls().to_list() == sorted(t["value"].drop_nulls().to_list())


# -- the command and the charts the registry gives them -----------------------------------------------------
def test_the_commands_write_the_tables(store, tmp_path):
    for command in ("performance-profile", "data-profile", "log-ratio-profile"):
        out = tmp_path / f"{command}.csv"
        r = subprocess.run([sys.executable, "-m", "pipeline.cli", command, "--store", str(store.path),
                            "--max-tol-order", "2", "--out", str(out)],
                           capture_output=True, text=True, cwd=ROOT)
        assert r.returncode == 0, r.stderr
        assert pl.read_csv(out).height > 0


@pytest.mark.parametrize("kind", ["performance-profile", "data-profile", "log-ratio-profile"])
def test_the_charts_draw_a_panel_per_tolerance(store, kind):
    spec = kinds.chart(kind, Analysis(store, algorithm=["A", "B"]), max_tol_order=2).to_dict()
    assert spec["facet"]["field"] == "panel"
    assert spec["facet"]["sort"] == ["bbob, tau = 0.1", "bbob, tau = 0.01"]
    rows = next(iter(spec["datasets"].values()))
    assert {r["panel"] for r in rows} == {"bbob, tau = 0.1", "bbob, tau = 0.01"}
