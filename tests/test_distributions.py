"""The measures the charts and tables draw, moved out of them: distributions of single trials (cocopp's
pprldistr and pprldistr2), loss ratios (pplogloss), the mean auc per function group and the aRT
table's statistics, each on a tiny hand-made frame answered by hand."""
from __future__ import annotations

import math

import polars as pl
import pytest

from pipeline.measures import auc, distributions as dist, logloss, table_stats


def _hits(rows):
    """(function, algorithm, hit or None, evaluations, weight) rows in 2-D, target 1."""
    return pl.LazyFrame([("bbob", a, f, 2, 1.0, h, e, h is not None, w) for f, a, h, e, w in rows],
                        schema={"suite": pl.String, "algorithm": pl.String, "function": pl.Int64, "dimension": pl.Int64,
                                "target": pl.Float64, "hit": pl.Int64, "evaluations": pl.Int64, "success": pl.Boolean,
                                "weight": pl.Int64}, orient="row")


def test_runtime_distribution_counts_each_weighted_trial_once():
    # f1: a hit at 4 evaluations and a failure after 10; f2: hits at 2 and 6 -> x = hit / 2 = 2, 1, 3
    hits = _hits([(1, "A", 4, 4, 1), (1, "A", None, 10, 1), (2, "A", 2, 2, 1), (2, "A", 6, 6, 1)])
    steps, summary = dist.runtime_distribution(hits)
    assert steps.select("x", "fraction").collect().rows() == [(1.0, 0.25), (2.0, 0.5), (3.0, 0.75)]
    assert summary.select("group", "final_fraction", "functions_solved", "functions", "max_x").collect().rows() == [
        ("all", 0.75, 2, 2, 5.0)]


def test_runtime_distribution_per_function_group_and_weight():
    # the trial of f1 weighs 3 (instance balancing), the one of f6 1; groups separ (f1) and lcond (f6)
    hits = _hits([(1, "A", 2, 2, 3), (6, "A", None, 8, 1)])
    groups = pl.LazyFrame({"suite": ["bbob", "bbob", "bbob"], "function": [1, 6, 1],
                           "group": ["separ", "lcond", "all"]})
    steps, summary = dist.runtime_distribution(hits, groups)
    assert steps.select("group", "x", "fraction").collect().rows() == [("all", 1.0, 1.0), ("separ", 1.0, 1.0)]
    assert summary.select("group", "final_fraction").collect().rows() == [("all", 1.0), ("lcond", 0.0), ("separ", 1.0)]


def test_precision_distribution_floors_and_keeps_trials_without_records():
    values = pl.LazyFrame({"suite": "bbob", "algorithm": "A", "function": 1, "dimension": 2, "budget": 10.0,
                           "best_delta": [1e-10, 1e-3, None, 1e-1]})
    got = dist.precision_distribution(values, floor=1e-8).select("x", "fraction").collect().rows()
    assert got == [(1e-8, 0.25), (1e-3, 0.5), (1e-1, 0.75)]  # the trial with no record counts in the 4


def test_runtime_ratios_over_pairs_of_trials():
    # a: 10 and a failure; b: 20 and 5 -> pairs log10(20/10), log10(5/10), and two with a failed: at -clip
    hits = _hits([(1, "a", 10, 10, 1), (1, "a", None, 30, 1), (1, "b", 20, 20, 1), (1, "b", 5, 5, 1)])
    got = dist.runtime_ratios(hits, "a", "b", clip=4.0).collect()
    assert got["x"].to_list() == pytest.approx([-4.0, math.log10(0.5), math.log10(2.0)])
    assert got["fraction"].to_list() == [0.5, 0.75, 1.0]
    assert got.select("pairs", "functions_a", "functions_b").unique().rows() == [(4, 1, 1)]


def test_runtime_ratios_leave_out_pairs_both_failed_and_b_failed_never_counts():
    hits = _hits([(1, "a", 10, 10, 1), (1, "a", None, 30, 1), (1, "b", None, 40, 1)])
    got = dist.runtime_ratios(hits, "a", "b").collect()
    assert got.select("x", "fraction", "pairs", "functions_b").rows() == []  # (10, fail): no finite x


def test_loss_ratios_on_hand_made_arts():
    # one function in 2-D; the algorithm reaches 1 at aRT 10, 0.1 at 100; the reference reaches 1 at 5,
    # 0.1 at 20 and 0.01 at 40.
    rows = [("A", 1.0, 10.0), ("A", 0.1, 100.0), ("A", 0.01, math.inf),
            ("R", 1.0, 5.0), ("R", 0.1, 20.0), ("R", 0.01, 40.0)]
    art = pl.LazyFrame([("bbob", a, 1, 2, t, v) for a, t, v in rows],
                       schema=["suite", "algorithm", "function", "dimension", "target", "art"], orient="row")
    t = logloss.loss_ratios(art, "R", [5.0, 50.0, 100.0]).collect()  # budgets 10, 100, 200 evaluations
    got = dict(zip(t["x"], t["geomean"]))
    # B=10: A reaches 1 (aRT 10), R reached 0.1 within 10? no (20 > 10) -> 10 / 5
    # B=100: A reaches 0.1 (aRT 100), R reached 0.01 within 100 (40) -> budget 100 / R's aRT for 0.1 (20)
    # B=200: the same targets -> 200 / 20
    assert got == pytest.approx({5.0: 2.0, 50.0: 5.0, 100.0: 10.0})
    assert t["functions"].to_list() == [1, 1, 1]


def test_auc_means_by_group():
    aucs = pl.LazyFrame({"suite": "bbob", "algorithm": "A", "dimension": 2, "function": [1, 2, 6],
                         "auc": [0.2, 0.4, 0.9]})
    got = auc.means_by_group(aucs).select("group", "auc", "functions").collect().rows()
    assert [(g, round(v, 12), n) for g, v, n in got] == [("all", 0.5, 3), ("lcond", 0.9, 1), ("separ", 0.3, 2)]


def test_table_statistics():
    runs = pl.LazyFrame({"suite": "bbob", "algorithm": "A", "function": 1, "dimension": 2,
                         "final_delta": [1e-3, 1e-1, 1.0, 10.0], "evaluations": [10, 20, 40, 80]})
    assert table_stats.final_medians(runs).select("median_final_delta", "median_evaluations").collect().rows() == [
        (pytest.approx(0.55), 30.0)]
    hits = _hits([(1, "A", 4, 4, 1), (1, "A", None, 10, 1)])
    hits = pl.concat([hits, hits.with_columns(target=pl.lit(1e-8), hit=None, success=False)])
    succ = table_stats.successes_at(hits, pl.LazyFrame({"suite": ["bbob"], "succ_target": [1e-8]})).collect()
    assert succ.select("succ_target", "succ", "succ_trials").rows() == [(1e-8, 0, 2)]
    cells = pl.DataFrame({"suite": "bbob", "dimension": 2, "function": 1, "target": 1.0,
                          "algorithm": ["A", "B", "ref"], "art": [5.0, 7.0, 1.0], "role": ["a", "a", "reference"]})
    assert table_stats.with_best(cells, pl.col("role") == "a")["best"].to_list() == [True, False, False]
