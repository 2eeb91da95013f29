"""The empirical attainment function, its difference and its area (`pipeline.measures.eaf`): on hand-made
trials answered by hand, through the facade, the commands and the charts the registry gives them; and
parity with moocore 0.3.2 (`eaf`, `eafdiff`) and IOHinspector 0.0.8 (`get_discritized_eaf_single_objective`)
on real IOHprofiler logs (tests/fixtures/eaf/eaf_oracle.csv, eafdiff_oracle.csv, made by
tests/fixtures/eaf/make_eaf_oracle.py)."""
from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from conftest import ROOT
from logs import write_new2
from pipeline.api import Analysis, open_store
from pipeline.ingest import ingest
from pipeline.measures.registry import InvalidSetting
from pipeline.store import Store

FIXTURES = Path(__file__).resolve().parent / "fixtures"
#: (algorithm, [(instance, .dat records (evaluations, precision))]); the longest run is B2's, 200 evaluations
TRIALS = {"A": [(1, [(1, 10.0), (10, 1.0), (100, 0.01)]), (2, [(1, 5.0), (50, 0.1)])],
          "B": [(1, [(1, 1.0), (20, 0.5)]), (2, [(1, 100.0), (200, 1e-3)])]}
GRID = dict(budgets=[1, 10, 100], levels=[1.0, 0.1])


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Store:
    root = tmp_path_factory.mktemp("eaf")
    for alg, runs in TRIALS.items():
        write_new2(root / "logs" / alg, alg=alg, runs=[{"instance": i, "dat": recs} for i, recs in runs])
    st = Store(root / "store", create=True)
    ingest([root / "logs"], st)
    return st


def test_the_eaf_is_the_fraction_of_runs_at_or_below_each_level_within_each_budget(store):
    # A at 1: 10 and 5; at 10: 1 and 5; at 100: 0.01 and 0.1 (0.1 attains the level 0.1: weak dominance)
    # B at 1, 10 and 100: 1 (at 1) and 100 (B2 reaches 1e-3 only at 200)
    table = Analysis(store).eaf(**GRID).collect()
    assert table.select("algorithm", "budget", "level", "eaf").rows() == [
        ("A", 1.0, 1.0, 0.0), ("A", 1.0, 0.1, 0.0), ("A", 10.0, 1.0, 0.5), ("A", 10.0, 0.1, 0.0),
        ("A", 100.0, 1.0, 1.0), ("A", 100.0, 0.1, 1.0),
        ("B", 1.0, 1.0, 0.5), ("B", 1.0, 0.1, 0.0), ("B", 10.0, 1.0, 0.5), ("B", 10.0, 0.1, 0.0),
        ("B", 100.0, 1.0, 0.5), ("B", 100.0, 0.1, 0.0)]
    assert set(table["runs"]) == {2} and set(table["quantity"]) == {"precision"}


def test_before_its_first_record_a_run_attains_nothing(store):
    table = Analysis(store, algorithm="A").eaf(budgets=[0.5], levels=[1e9]).collect()
    assert table["eaf"].to_list() == [0.0]


def test_the_default_grid_spans_one_to_the_longest_run_and_the_worst_first_record_to_the_best(store):
    table = Analysis(store).eaf(points=3).collect()
    # budgets: round(10 ** (0, log10(200) / 2, log10(200))) = 1, 14, 200, shared by both algorithms
    assert sorted(set(table["budget"])) == [1.0, 14.0, 200.0]
    # levels: the worst first record (100, B2's) to the best reached (1e-3), log-spaced: 100, 0.316, 1e-3
    levels = sorted(set(table["level"]), reverse=True)
    assert levels[0] == 100.0 and levels[2] == pytest.approx(1e-3) and levels[1] == pytest.approx(10 ** -0.5)
    assert table.filter(pl.col("budget") == 200.0, pl.col("level") == levels[2])["eaf"].to_list() == [0.0, 0.5]


def test_the_difference_is_left_minus_right_on_the_shared_grid(store):
    table = Analysis(store).eaf_diff(**GRID).collect()
    assert table.select("left", "right").unique().rows() == [("A", "B")]
    assert table.select("budget", "level", "difference").rows() == [
        (1.0, 1.0, -0.5), (1.0, 0.1, 0.0), (10.0, 1.0, 0.0), (10.0, 0.1, 0.0), (100.0, 1.0, 0.5), (100.0, 0.1, 1.0)]
    swapped = Analysis(store).eaf_diff(left="B", right="A", **GRID).collect()
    assert swapped["difference"].to_list() == [-d for d in table["difference"]]


def test_a_difference_of_an_algorithm_with_itself_is_refused(store):
    with pytest.raises(InvalidSetting, match="right 'A': expected an algorithm other than left 'A'"):
        Analysis(store).eaf_diff(left="A", right="A")


def test_one_algorithm_alone_has_no_difference(store):
    table = Analysis(store, algorithm="A").eaf_diff(**GRID).collect()
    assert table.height == 0 and "difference" in table.columns


def _norm(d: float) -> float:
    """IOHinspector's normalised value between 1e-2 and 1e2, log scale."""
    return 1 - min(max((math.log10(d) + 2) / 4, 0.0), 1.0)


def test_the_area_is_the_mean_over_runs_of_the_normalised_best_so_far_over_the_budgets(store):
    # B = 200 (the longest run of the problem); A1 holds 10 on [1, 10), 1 on [10, 100), 0.01 on [100, 200]
    a1_lin = _norm(10) * 9 + _norm(1) * 90 + _norm(0.01) * 100
    a2_lin = _norm(5) * 49 + _norm(0.1) * 150
    lin = Analysis(store).eaf_area(lower=1e-2, upper=1e2, log_budget=False).collect().filter(algorithm="A")
    assert lin["area"].item() == pytest.approx((a1_lin + a2_lin) / 2 / 199, rel=1e-12)
    assert lin["budget"].item() == 200.0
    g = math.log10
    a1_log = _norm(10) * (g(10) - 0) + _norm(1) * (g(100) - g(10)) + _norm(0.01) * (g(200) - g(100))
    a2_log = _norm(5) * g(50) + _norm(0.1) * (g(200) - g(50))
    log = Analysis(store).eaf_area(lower=1e-2, upper=1e2).collect().filter(algorithm="A")
    assert log["area"].item() == pytest.approx((a1_log + a2_log) / 2 / g(200), rel=1e-12)


def test_the_area_is_the_volume_under_the_eaf(store):
    # the midpoint sum of the EAF on a fine grid of log budgets and log levels tends to the area
    n = 400
    budgets = [10 ** (math.log10(200) * (i + 0.5) / n) for i in range(n)]
    levels = [10 ** (2 - 4 * (j + 0.5) / n) for j in range(n)]
    eaf = Analysis(store, algorithm="B").eaf(budgets=budgets, levels=levels).collect()
    area = Analysis(store, algorithm="B").eaf_area(lower=1e-2, upper=1e2).collect()
    assert area["budget"].item() == 200.0  # B2's length: B alone has the longest run
    area = area["area"].item()
    assert eaf["eaf"].mean() == pytest.approx(area, abs=5e-3)


def test_the_commands_from_the_registry_write_the_tables(store, tmp_path):
    out = tmp_path / "diff.csv"
    r = subprocess.run([sys.executable, "-m", "pipeline.cli", "eaf-diff", "--store", str(store.path), "--left", "B",
                        "--right", "A", "--points", "2", "--out", str(out)], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert out.read_text().splitlines()[0] == ("suite,function,dimension,quantity,budget,level,left,right,"
                                               "eaf_left,eaf_right,difference")


@pytest.mark.parametrize("kind", ["eaf", "eaf-diff"])
def test_the_charts_draw_the_grid_as_filled_steps(store, kind):
    from pipeline.recipes import kinds

    spec = kinds.chart(kind, Analysis(store), **GRID).to_dict()
    assert spec["spec"]["mark"]["type"] == "rect"
    assert {"x2", "y2"} <= set(spec["spec"]["encoding"])


# -- parity on real IOHprofiler data ----------------------------------------------------------------------------
REAL = FIXTURES / "ioh" / "real"
ORACLE = pl.read_csv(FIXTURES / "eaf" / "eaf_oracle.csv")
DIFF = pl.read_csv(FIXTURES / "eaf" / "eafdiff_oracle.csv")


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    out = {}
    for name in ORACLE["data"].unique().sort():
        st = Store(tmp_path_factory.mktemp(name), create=True)
        ingest([REAL / name], st)
        out[name] = st.path
    return out


@pytest.mark.parity
def test_the_eaf_equals_moocore_and_iohinspector_on_real_ioh_logs(real):
    """Every grid point of every (data, algorithm, problem); IOHinspector's level t = 0 (its upper bound) is
    attained by every run whatever its value (its normalisation clips at 0), moocore and cocopipe count the
    runs at or below 100 there."""
    checked = 0
    for (data, f, d), o in ORACLE.group_by("data", "function", "dimension", maintain_order=True):
        got = open_store(real[data], function=f, dimension=d).eaf(
            budgets=sorted(set(o["budget"])), levels=sorted(set(o["level"]))).collect()
        assert set(got["quantity"]) == {"value"}
        joined = o.join(got.select("algorithm", "budget", "level", "eaf"), on=["algorithm", "budget", "level"])
        assert joined.height == o.height
        assert joined["eaf"].to_list() == pytest.approx(joined["moocore"].to_list(), abs=1e-12)
        inner = joined.filter(pl.col("t") > 0)
        assert inner["eaf"].to_list() == pytest.approx(inner["iohinspector"].to_list(), abs=1e-12)
        checked += joined.height
    assert checked == ORACLE.height == 1680


@pytest.mark.parity
def test_the_eaf_difference_equals_moocore_eafdiff_on_real_ioh_logs(real):
    for (data, f, d), o in DIFF.group_by("data", "function", "dimension", maintain_order=True):
        got = open_store(real[data], function=f, dimension=d).eaf_diff(
            budgets=sorted(set(o["budget"])), levels=sorted(set(o["level"]))).collect()
        assert got.select("left", "right").unique().rows() == [(o["left"][0], o["right"][0])]
        joined = o.join(got.select("budget", "level", "difference"), on=["budget", "level"])
        assert joined.height == o.height
        assert joined["difference"].to_list() == pytest.approx(joined["moocore_diff"].to_list(), abs=1e-12)
    assert DIFF["moocore_diff"].abs().max() > 0.5  # the pairs differ: the comparison is not of zeros


def test_on_maximised_values_a_level_is_attained_at_or_above_it(tmp_path):
    """IOHdata's sample, PBO f19 maximised without a known optimum: the EAF on raw values, levels as given."""
    st = Store(tmp_path / "s", create=True)
    ingest([REAL / "iohdata_sample_data"], st)
    a = Analysis(st, function=19)
    table = a.eaf(budgets=[100, 16001], levels=[20.0, 30.0, 32.0]).collect()
    assert set(table["quantity"]) == {"value"} and sorted(set(table["level"])) == [20.0, 30.0, 32.0]
    runs = st.runs().filter(pl.col("function") == 19).select("run_id", "algorithm").collect()
    events = st.events().join(runs.lazy(), on="run_id").collect()
    for alg, budget, lvl, frac in table.select("algorithm", "budget", "level", "eaf").iter_rows():
        best = (events.filter(pl.col("algorithm") == alg, pl.col("evaluations") <= budget)
                .group_by("run_id").agg(best=pl.col("measured").max()))
        attained = best.filter(pl.col("best") >= lvl).height
        assert frac == attained / runs.filter(pl.col("algorithm") == alg).height, (alg, budget, lvl)
    assert 0 < table["eaf"].mean() < 1
