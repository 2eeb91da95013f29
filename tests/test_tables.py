"""aRT tables and significance tests on hand-made trials whose numbers are computed by hand."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import polars as pl
from polars.testing import assert_frame_equal
import pytest
from scipy.stats import mannwhitneyu

from pipeline.api import Analysis
from pipeline.measures import restarts
from pipeline.measures.art import art_spec
from pipeline.measures import significance
from pipeline.measures._kernels import ranksum
from pipeline.tables import art_table, markers, pairwise_table, to_markdown


class FrameStore:
    """A store stand-in serving hand-made runs and events."""

    path = Path("/nonexistent/hand-made-store")  # no manifest: nothing read from disk

    def __init__(self, runs: list[dict], events: list[dict]):
        self._runs = pl.DataFrame(runs).with_columns(pl.col("function", "dimension", "instance", "trial").cast(pl.Int32))
        if "source_id" not in self._runs.columns:  # the trials' source, as a store's runs have it
            self._runs = self._runs.with_columns(source_id=pl.lit("hand-made"))
        self._events = pl.DataFrame(events).with_columns(pl.col("trigger").cast(pl.Int8))

    def runs(self) -> pl.LazyFrame:
        return self._runs.lazy()

    def events(self) -> pl.LazyFrame:
        return self._events.lazy()


def build(spec: dict[tuple[str, int], list[tuple[list[tuple[int, float]], int]]], dim: int = 2, suite: str = "bbob"):
    """A FrameStore from {(algorithm, function): [(records [(evaluations, best precision)], evaluations)]}."""
    runs, events, rid = [], [], 0
    for (alg, f), trials in spec.items():
        for i, (recs, total) in enumerate(trials):
            runs.append(dict(run_id=rid, suite=suite, algorithm=alg, function=f, dimension=dim, instance=i + 1, trial=i,
                             evaluations=total, final_delta=min(b for _, b in recs)))
            events += [dict(run_id=rid, suite=suite, algorithm=alg, evaluations=e, best_delta=b, trigger=3) for e, b in recs]
            rid += 1
    return FrameStore(runs, events)


def success(hit: int) -> tuple[list[tuple[int, float]], int]:
    """A trial that reaches every table target (1e-9) at evaluation `hit` and stops there."""
    return [(1, 100.0), (hit, 1e-9)], hit


def failure(final: float, total: int) -> tuple[list[tuple[int, float]], int]:
    """A trial that stops after `total` evaluations at precision `final`."""
    return [(1, 100.0), (total, final)], total


FAST = [10 + i for i in range(15)]
SLOW = [1000 + 10 * i for i in range(15)]


# -- the numbers of the table -------------------------------------------------------------------
@pytest.fixture
def hand():
    # R (reference): 1.0 at 20 and 30; 1e-2 (and 1e-8) only by trial 0 at 40; trial 1 stops at 100 (0.5)
    # A: 1.0 at 10 and 15, never 1e-2 (finals 0.5, 0.2, 3.0 after 50, 60, 70 evaluations)
    # B: 1.0 at 5 and 7, 1e-2 and 1e-10 by trial 0 at 9 (1e-12); trial 1 stops at 20 (0.3)
    spec = {
        ("R", 1): [([(1, 100.0), (20, 0.5), (40, 1e-9)], 40), ([(1, 100.0), (30, 0.5)], 100)],
        ("A", 1): [([(1, 100.0), (10, 0.5)], 50), ([(1, 100.0), (15, 0.2)], 60), ([(1, 100.0), (70, 3.0)], 70)],
        ("B", 1): [([(1, 100.0), (5, 0.5), (9, 1e-12)], 9), ([(1, 100.0), (7, 0.3)], 20)],
    }
    return Analysis(build(spec))


def cell(df: pl.DataFrame, alg: str, target: float) -> dict:
    rows = df.filter(pl.col("algorithm") == alg, (pl.col("target") - target).abs() <= 1e-12 * target)
    assert rows.height == 1
    return rows.row(0, named=True)


def test_cells_by_hand(hand):
    df = art_table(hand, reference="R", targets=[1.0, 1e-2, 1e-10])
    r1, a1, b1 = cell(df, "R", 1.0), cell(df, "A", 1.0), cell(df, "B", 1.0)
    # aRT and ratio
    assert r1["role"] == "reference" and r1["art"] == 25.0 and r1["value"] == 25.0
    assert a1["art"] == pytest.approx((10 + 15 + 70) / 2) and a1["ref_art"] == 25.0
    assert a1["value"] == pytest.approx(47.5 / 25) and a1["value_kind"] == "ratio"
    assert cell(df, "R", 1e-2)["art"] == pytest.approx(140.0)
    b2 = cell(df, "B", 1e-2)
    assert b2["value"] == pytest.approx((9 + 20) / 140)
    # dispersion: all trials successful -> simulated restarts are the trials' runtimes, 500 times each
    assert (b1["p10"], b1["p90"]) == (5.0, 7.0)
    assert (b1["disp_lo"], b1["disp_hi"]) == (pytest.approx(5 / 25), pytest.approx(7 / 25))
    assert (r1["p10"], r1["p90"]) == (20.0, 30.0)
    # reference infinite: absolute aRT
    b3 = cell(df, "B", 1e-10)
    assert b3["value_kind"] == "absolute" and b3["value"] == pytest.approx(29.0) and math.isinf(b3["ref_art"])
    # successes and #succ (trials reaching 1e-8)
    assert (a1["successes"], a1["trials"]) == (2, 3)
    assert (a1["succ"], a1["succ_trials"], a1["succ_target"]) == (0, 3, 1e-8)
    assert (r1["succ"], r1["succ_trials"]) == (1, 2) and (b1["succ"], b1["succ_trials"]) == (1, 2)
    # median final precision (and evaluations) where the target was not reached
    a2 = cell(df, "A", 1e-2)
    assert math.isinf(a2["art"]) and a2["median_final_delta"] == 0.5 and a2["median_evaluations"] == 60
    assert a1["median_final_delta"] is None and b3["median_final_delta"] is None
    # the best per column (the reference is not compared)
    assert b1["best"] and not a1["best"] and not r1["best"]
    assert b2["best"] and not a2["best"]


def test_cells_equal_the_measures(hand):
    df = art_table(hand, targets=[1.0, 1e-2], samples=200, seed=3)
    m = hand.art([1.0, 1e-2], dispersion=True, samples=200, seed=3).collect()
    j = df.join(m, on=["suite", "algorithm", "function", "dimension", "target"], suffix="_m")
    assert j.height == m.height == 6
    for c in ("art", "successes", "runs", "trials", "p10", "p50", "p90"):
        assert j[c].to_list() == j[f"{c}_m"].to_list(), c
    assert df["reference"].is_null().all() and (df["value_kind"] == "absolute").all()
    assert df["value"].to_list() == df["art"].to_list()


def test_reference_frame(hand):
    ref = pl.LazyFrame({"function": [1, 1], "dimension": [2, 2], "target": [1.0, 1e-2], "art": [50.0, math.inf]})
    df = art_table(hand.select(algorithm=["A", "B"]), reference=ref, targets=[1.0, 1e-2], reference_name="best2009")
    a1 = cell(df, "A", 1.0)
    assert a1["value"] == pytest.approx(47.5 / 50) and a1["reference"] == "best2009"
    assert cell(df, "best2009", 1.0)["role"] == "reference"
    assert cell(df, "B", 1e-2)["value_kind"] == "absolute"
    assert df["p_ref"].is_null().all()  # no trials of the reference: no test against it


def test_biobj_uses_biobj_table_targets():
    spec = {("A", 1): [success(10), success(12)], ("B", 1): [success(30), success(35)]}
    df = art_table(Analysis(build(spec, suite="bbob-biobj")))
    assert sorted(df["target"].unique().to_list(), reverse=True) == [1.0, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5]
    assert df["succ_target"].unique().to_list() == [1e-5]


# -- significance -------------------------------------------------------------------------------
@pytest.fixture
def sep():
    """fast and twin identical, slow fully separated from them, on three functions."""
    spec = {}
    for f in (1, 2, 3):
        spec[("fast", f)] = [success(h) for h in FAST]
        spec[("twin", f)] = [success(h) for h in FAST]
        spec[("slow", f)] = [success(h) for h in SLOW]
    return Analysis(build(spec))


def scipy_p(x, y) -> float:
    return float(mannwhitneyu(x, y, alternative="two-sided").pvalue)


def test_separated_pair_is_marked(sep):
    a = sep.select(algorithm=["fast", "slow"])
    df = art_table(a, targets=[1.0])
    p = scipy_p(1 / np.array(SLOW), 1 / np.array(FAST))
    fast = df.filter(pl.col("algorithm") == "fast")
    assert fast["best"].all() and fast.height == 3
    assert fast["p_best"].to_list() == [pytest.approx(p)] * 3
    # Bonferroni: times the number of functions tested (3)
    assert fast["tests"].to_list() == [3, 3, 3]
    assert fast["p_best_corrected"].to_list() == [pytest.approx(3 * p)] * 3
    assert 1e-5 < 3 * p <= 1e-4 and fast["best_marker"].to_list() == ["★4"] * 3
    slow = df.filter(pl.col("algorithm") == "slow")
    assert slow["p_best"].is_null().all() and not slow["best"].any()


def test_identical_pair_is_not_marked(sep):
    df = art_table(sep.select(algorithm=["fast", "twin"]), targets=[1.0])
    assert df["best"].all()  # a tie: both are the best
    assert df.filter(pl.col("p_best").is_not_null())["p_best"].to_list() == [1.0] * 3
    assert (df["best_marker"].fill_null("") == "").all()
    pw = pairwise_table(sep.select(algorithm=["fast", "twin"]), targets=[1.0])
    assert pw["p_value"].to_list() == [1.0] * 3 and pw["better"].is_null().all() and not pw["significant"].any()


def test_pairwise_p_values_equal_scipy(sep):
    pw = pairwise_table(sep, targets=[1.0, 1e-3], family=())  # one family: every test made
    assert pw.height == 3 * 2 * 3 and (pw["tests"] == pw.height).all() and (pw["family"] == "all").all()
    p = scipy_p(1 / np.array(FAST), 1 / np.array(SLOW))
    fs = pw.filter(pl.col("algorithm_a") == "fast", pl.col("algorithm_b") == "slow")
    assert fs["p_value"].to_list() == [pytest.approx(p, rel=1e-12)] * 6
    assert fs["statistic"].to_list() == [225.0] * 6  # every 1/runtime of fast ranks above slow's
    assert fs["better"].to_list() == ["fast"] * 6 and fs["significant"].all()
    assert fs["p_corrected"].to_list() == [pytest.approx(min(1, 18 * p))] * 6
    assert fs["marker"].to_list() == [markers.marker("*", 18 * p)] * 6
    holm = pairwise_table(sep, targets=[1.0, 1e-3], correction="holm", family=())
    assert holm["p_corrected"].to_list() == pytest.approx(significance.holm(holm["p_value"].to_numpy()).tolist())


def two_dimensions(spec: dict) -> Analysis:
    """The trials of `spec` in 2-D and again in 3-D, as one analysis."""
    stores = [build(spec, dim=d) for d in (2, 3)]
    runs, events = ([t.with_columns(run_id=pl.col("run_id") + 1000 * i).to_dicts() for i, t in enumerate(tables)]
                    for tables in ([s._runs for s in stores], [s._events for s in stores]))
    return Analysis(FrameStore(runs[0] + runs[1], events[0] + events[1]))


@pytest.mark.parametrize("correction", ["bonferroni", "holm"])
def test_pairwise_family_is_cocopps(sep, correction):
    """By default a family is cocopp's: the functions of a dimension for one pair and target (3 here), the
    family the aRT table's markers correct; the other pairs, targets and dimensions do not count."""
    spec = {(alg, f): [success(h) for h in hits] for f in (1, 2, 3)
            for alg, hits in (("fast", FAST), ("twin", FAST), ("slow", SLOW))}
    every = two_dimensions(spec)
    pw = pairwise_table(every, targets=[1.0, 1e-3], correction=correction)
    assert pw.height == 2 * 3 * 2 * 3 and (pw["tests"] == 3).all()
    assert (pw["family"] == significance.FAMILY_TEXT).all()
    p = scipy_p(1 / np.array(FAST), 1 / np.array(SLOW))
    fs = pw.filter(pl.col("algorithm_a") == "fast", pl.col("algorithm_b") == "slow")
    assert fs["p_corrected"].to_list() == [pytest.approx(3 * p)] * 12 and fs["significant"].all()
    table = art_table(every.select(algorithm=["fast", "slow"]), targets=[1.0], correction=correction)
    fast = table.filter(pl.col("algorithm") == "fast")
    assert fast["p_best_corrected"].to_list() == [pytest.approx(3 * p)] * 6  # the same family, the same value
    # a test's corrected p does not change when fewer algorithms, dimensions or targets are selected
    def pairs(df: pl.DataFrame) -> pl.DataFrame:  # the pair whatever the order of the selection
        ab = pl.concat_list("algorithm_a", "algorithm_b").list.sort()
        return df.select("dimension", "function", "target", "p_corrected", lo=ab.list.first(), hi=ab.list.last())

    subsets = (every.select(algorithm=["fast", "slow"]), every.select(dimension=[3]),
               every.select(algorithm=["slow", "fast", "twin"]))
    for sub in subsets:
        for targets in ([1.0, 1e-3], [1e-3]):
            got = pairs(pairwise_table(sub, targets=targets, correction=correction))
            j = got.join(pairs(pw), on=["dimension", "function", "target", "lo", "hi"], suffix="_all")
            assert j.height == got.height > 0
            assert j["p_corrected"].to_list() == pytest.approx(j["p_corrected_all"].to_list(), rel=1e-12)


@pytest.mark.parametrize("correction", ["bonferroni", "holm"])
def test_unreachable_alpha_is_flagged(correction):
    """Two trials against fifteen: the smallest two-sided p is 2 / C(17, 2) = 0.0147, times the 5 functions of the
    family 0.074 (Holm's smallest corrected p too): no test of that pair can be significant, which the table says;
    15 against 15 reaches alpha."""
    spec = {}
    for f in (1, 2, 3, 4, 5):
        spec[("fast", f)] = [success(h) for h in FAST]
        spec[("slow", f)] = [success(h) for h in SLOW]
        spec[("few", f)] = [success(5), success(6)]
    pw = pairwise_table(Analysis(build(spec)), targets=[1.0], correction=correction)
    few = pw.filter((pl.col("algorithm_a") == "few") | (pl.col("algorithm_b") == "few"))
    assert few["p_min"].to_list() == [pytest.approx(2 / 136)] * 10 and not few["alpha_reachable"].any()
    assert not few["significant"].any()
    both = pw.filter(pl.col("algorithm_a") == "fast", pl.col("algorithm_b") == "slow")
    assert both["alpha_reachable"].all() and both["significant"].all()
    assert both["p_min"].to_list() == [pytest.approx(scipy_p(1 / np.array(FAST), 1 / np.array(SLOW)))] * 5
    caption = to_markdown(pw)
    assert "No test can be significant at α = 0.05" in caption
    assert "fast against few (15 against 2 trials" in caption and "few against slow (2 against 15 trials" in caption
    assert "fast against slow" not in caption.split("No test can be significant")[1]
    # the aRT table's tests against a reference of the store: the same bound, the same sentence in its caption
    table = art_table(Analysis(build(spec)), reference="fast", targets=[1.0], correction=correction)
    few = table.filter(pl.col("algorithm") == "few")
    assert few["ref_p_min"].to_list() == [pytest.approx(2 / 136)] * 5 and not few["ref_alpha_reachable"].any()
    slow = table.filter(pl.col("algorithm") == "slow")
    assert slow["ref_alpha_reachable"].all() and (slow["ref_trials"] == 15).all()
    assert "few against fast (2 against 15 trials" in to_markdown(table)
    assert significance.smallest_p(5, 15) == pytest.approx(2 / math.comb(20, 5))
    assert significance.smallest_p(5, 15) * 24 < 0.05 <= significance.smallest_p(5, 15) * 1512


def test_test_against_the_reference(sep):
    df = art_table(sep, reference="slow", targets=[1.0])
    fast = df.filter(pl.col("algorithm") == "fast")
    p = scipy_p(1 / np.array(FAST), 1 / np.array(SLOW))
    assert fast["p_ref"].to_list() == [pytest.approx(p)] * 3 and fast["ref_direction"].to_list() == [1] * 3
    assert fast["ref_tests"].to_list() == [3] * 3 and fast["ref_marker"].to_list() == ["↓4"] * 3
    assert fast["value"].to_list() == [pytest.approx(np.mean(FAST) / np.mean(SLOW))] * 3
    assert df.filter(pl.col("role") == "reference")["algorithm"].unique().to_list() == ["slow"]


def test_unsuccessful_trials_rank_by_precision_at_fe_umin():
    # x: hit at 10; unsuccessful, precision 0.5 after 30 of 50 evaluations. y: hit at 40 (> FE_umin = 50? no: 40 <= 50)
    # and unsuccessful with 60 evaluations, precision 2.0 after 50.
    traj = {0: [(1, 9.0), (10, 1e-9)], 1: [(1, 9.0), (30, 0.5), (50, 0.5)], 2: [(1, 9.0), (40, 1e-9)],
            3: [(1, 9.0), (50, 2.0), (60, 1.5)]}

    def at(ids):
        def f(fe):
            return np.array([min([b for e, b in traj[i] if e <= fe], default=np.inf) for i in ids])
        return f

    x, y, fe = significance.test_data([10, np.nan], [10, 50], at([0, 1]), [40, np.nan], [40, 60], at([2, 3]))
    assert fe == 50
    assert x.tolist() == [pytest.approx(0.1), -0.5] and y.tolist() == [pytest.approx(1 / 40), -2.0]
    res = significance.compare([10, np.nan], [10, 50], at([0, 1]), [40, np.nan], [40, 60], at([2, 3]))
    assert res.p_value == pytest.approx(scipy_p(x, y)) and res.direction == 1


def test_late_success_counts_as_unsuccessful():
    # a success after FE_umin evaluations is ranked by its precision at FE_umin, like cocopp
    at = lambda prec: (lambda fe: np.array(prec))  # noqa: E731
    x, y, fe = significance.test_data([100.0], [100], at([0.3]), [np.nan], [20], at([0.7]))
    assert fe == 20 and x.tolist() == [-0.3] and y.tolist() == [-0.7]


def test_all_unsuccessful_best_by_final_precision_is_marked():
    # no algorithm reaches 1e-3; good stops at precision 1e-2 .. , bad at 1e1 ..: ranks separated
    spec = {("good", 1): [failure(1e-2 * (1 + i / 10), 1000) for i in range(15)],
            ("bad", 1): [failure(10.0 * (1 + i / 10), 1000) for i in range(15)]}
    df = art_table(Analysis(build(spec)), targets=[1e-3])
    good = cell(df, "good", 1e-3)
    assert math.isinf(good["art"]) and not good["best"]  # no finite aRT: nothing bold
    assert good["p_best"] == pytest.approx(scipy_p(-10.0 * (1 + np.arange(15) / 10), -1e-2 * (1 + np.arange(15) / 10)))
    assert good["best_marker"].startswith("★")
    assert good["median_final_delta"] == pytest.approx(1e-2 * 1.7)


def test_holm_and_bonferroni_by_hand():
    p = np.array([0.01, 0.04, 0.03, 0.005])
    assert significance.bonferroni(p).tolist() == pytest.approx([0.04, 0.16, 0.12, 0.02])
    assert significance.holm(p).tolist() == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert significance.holm(np.array([0.5, 0.9])).tolist() == [1.0, 1.0]


def test_holm_in_the_table():
    # three functions with different separations: Holm adjusts within (dimension, target)
    spec = {}
    for f, shift in ((1, 0), (2, 8), (3, 12)):
        spec[("a", f)] = [success(h) for h in FAST]
        spec[("b", f)] = [success(h + shift) for h in FAST]
    df = art_table(Analysis(build(spec)), targets=[1.0], correction="holm")
    best = df.filter(pl.col("p_best").is_not_null()).sort("function")
    assert best["p_best_corrected"].to_list() == pytest.approx(significance.holm(best["p_best"].to_numpy()).tolist())
    assert (best["correction"] == "holm").all() and (best["tests"] == 3).all()


def test_markers():
    assert markers.marker("★", 0.06) == "" and markers.marker("★", 0.049) == "★" and markers.marker("★", 0.01) == "★2"
    assert markers.marker("★", 0.0099) == "★2" and markers.marker("★", 0.001) == "★3" and markers.marker("★", 1e-30) == "★9"
    assert markers.marker("★", None) == ""


def test_bad_arguments(hand):
    with pytest.raises(ValueError, match="correction"):
        art_table(hand, correction="sidak")
    with pytest.raises(ValueError, match="not an algorithm"):
        art_table(hand, reference="nope")
    with pytest.raises(ValueError, match="lacks columns"):
        art_table(hand, reference=pl.LazyFrame({"function": [1]}))


def test_dispersion_matches_restarts_module(hand):
    df = art_table(hand, targets=[1.0], samples=100, seed=7)
    h = hand.hits([1.0])
    d = restarts.art_dispersion(h, (10, 50, 90), 100, 7).collect()
    a = art_spec(h).collect()
    j = df.join(d, on=["suite", "algorithm", "function", "dimension", "target"], suffix="_d").join(
        a, on=["suite", "algorithm", "function", "dimension", "target"], suffix="_a")
    assert j["p10"].to_list() == j["p10_d"].to_list() and j["p90"].to_list() == j["p90_d"].to_list()
    assert j["art"].to_list() == j["art_a"].to_list()


# -- all pairs at once ----------------------------------------------------------------------------
from hypothesis import given, settings, strategies as st  # noqa: E402

samples = st.lists(st.one_of(st.lists(st.integers(0, 6).map(float), min_size=1, max_size=18),  # many ties
                             st.lists(st.floats(-1e3, 1e3), min_size=1, max_size=12)),  # mostly distinct, small: exact
                   min_size=1, max_size=7)


@settings(max_examples=150, deadline=None)
@given(samples)
def test_all_pairs_equal_scipy(groups):
    u, p = ranksum.ranksum_matrix(groups)
    for i, x in enumerate(groups):
        for j, y in enumerate(groups):
            r = mannwhitneyu(x, y, alternative="two-sided")
            assert u[i, j] == r.statistic
            assert p[i, j] == pytest.approx(r.pvalue, rel=1e-12, abs=0)


@settings(max_examples=60, deadline=None)
@given(samples, st.data())
def test_pair_counts_of_some_rows_are_those_rows(groups, data):
    values = np.concatenate([np.asarray(g, float) for g in groups])
    labels = np.repeat(np.arange(len(groups)), [len(g) for g in groups])
    perm = np.random.default_rng(0).permutation(len(values))  # the trials need not come sorted
    rows = data.draw(st.lists(st.integers(0, len(groups) - 1), min_size=1, unique=True))
    u, t = ranksum.pair_counts(values[perm], labels[perm], len(groups))
    ur, tr = ranksum.pair_counts(values[perm], labels[perm], len(groups), rows)
    assert np.array_equal(u[rows], ur) and np.array_equal(t[rows], tr)


def test_pair_counts_by_hand():
    # x = 1, 2, 2; y = 2, 3: x above y in no pair, 2 ties -> U_x = 1; pooled ties: 2 three times -> 27 - 3 = 24
    u, t = ranksum.pair_counts(np.array([1.0, 2, 2, 2, 3]), np.array([0, 0, 0, 1, 1]), 2)
    assert u[0, 1] == 1.0 and u[1, 0] == 5.0 and t[0, 1] == t[1, 0] == 24.0


def test_exact_p_values_depend_on_sizes_and_u_only():
    # 3 vs 4 trials without ties: P(U <= 0) = P(U >= 12) = 1 / C(7, 3) = 1/35 for each tail
    assert ranksum.exact_table(3, 4)[0] == pytest.approx(2 / 35, rel=1e-12)
    assert ranksum.exact_p([3], [4], [12.0])[0] == pytest.approx(2 / 35, rel=1e-12)


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 9), st.integers(1, 40), st.data())
def test_exact_table_is_scipys_exact_p_value_to_the_bit(n1, n2, data):
    # the table is computed without scipy.stats (its 0.7 s import): each U's p-value must be the very
    # float scipy's exact test gives for samples of these sizes (no ties) with that U
    x = np.asarray(data.draw(st.lists(st.integers(0, 10**6), min_size=n1, max_size=n1, unique=True)), float)
    y = np.asarray(data.draw(st.lists(st.integers(0, 10**6).filter(lambda v: v not in set(x)), min_size=n2,
                                      max_size=n2, unique=True)), float) + 0.5  # no ties with x either
    r = mannwhitneyu(x, y, alternative="two-sided", method="exact")
    assert ranksum.exact_table(n1, n2)[int(r.statistic)] == r.pvalue
    assert ranksum.exact_table(n2, n1)[n1 * n2 - int(r.statistic)] == r.pvalue  # the other way round


def _samples_with_u(n1: int, n2: int, us: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Samples x (one row per U) and y of sizes n1, n2 without ties, x's U against y being `us`."""
    c = np.clip(us[:, None] - n2 * np.arange(n1)[None, :], 0, n2)  # x_i just below the c_i-th y, sum c_i = U
    x = c - 0.5 + np.arange(n1)[None, :] / (2.0 * n1 + 2)
    return x, np.broadcast_to(np.arange(n2, dtype=float), (len(us), n2))


def test_exact_table_of_every_u_is_scipys():
    for n1, n2 in ((8, 60), (3, 200), (1, 1), (2, 3), (9, 8)):
        x, y = _samples_with_u(n1, n2, np.arange(n1 * n2 + 1))
        expected = mannwhitneyu(x, y, alternative="two-sided", method="exact", axis=1).pvalue
        assert np.array_equal(ranksum.exact_table(n1, n2), expected), (n1, n2)


def test_exact_table_is_scipys_where_the_counts_leave_uint64():
    # 8 vs 3000 trials: the counts of the middle U exceed 2^64 and continue as floats, as in scipy
    us = np.array([0, 1, 5000, 11999, 12000, 12001, 23999, 24000])
    x, y = _samples_with_u(8, 3000, us)
    expected = mannwhitneyu(x, y, alternative="two-sided", method="exact", axis=1).pvalue
    assert ranksum._u_counts(8, 3000, 12000).dtype == np.float64
    assert np.array_equal(ranksum.exact_table(8, 3000)[us], expected)


def _per_pair(analysis, targets):
    """The pairwise tests one pair at a time (significance.compare on each pair's own FE_umin)."""
    from pipeline.tables.art import table_targets
    from tables_reference import Trajectories, trial_groups

    tt = table_targets(analysis.suites(), targets)
    traj = Trajectories(analysis.events())
    out = {}
    for (_s, _d, f, t), g in trial_groups(analysis.hits(tt.lazy()).collect()):
        algs = sorted(g)
        for i, x in enumerate(algs):
            for y in algs[i + 1:]:
                a, b = g[x], g[y]
                r = significance.compare(a.hit, a.evals, a.prec(traj), b.hit, b.evals, b.prec(traj))
                out[(f, t, x, y)] = (r.statistic, r.p_value, r.direction, r.consistent)
    return out


def mixed_budgets(seed: int = 5) -> Analysis:
    """Algorithms whose unsuccessful trials stop after different budgets (FE_umin 60, 80, 120 and
    none), late successes, equal runtimes across algorithms, 3 to 10 trials (exact and normal p-values)."""
    rng = np.random.default_rng(seed)
    spec = {}
    for f in (1, 2):
        for alg, budget, n, ok in (("a", 60, 10, 0.6), ("b", 80, 9, 0.5), ("c", 120, 4, 0.5), ("d", 200, 6, 1.0),
                                   ("e", 90, 10, 0.3), ("f", 1000, 3, 1.0)):
            trials = []
            for _ in range(n):
                if rng.random() < ok:
                    trials.append(success(int(rng.integers(5, 15)) * 10))  # ties across algorithms
                else:
                    trials.append(([(1, 100.0), (budget // 2, float(rng.choice([0.5, 2.0, 3.0]))),
                                    (budget, float(rng.uniform(1e-3, 0.4)))], budget))
            spec[(alg, f)] = trials
    return Analysis(build(spec))


def test_pairwise_table_equals_the_tests_pair_by_pair():
    a = mixed_budgets()
    targets = [1.0, 1e-3]
    want = _per_pair(a, targets)
    pw = pairwise_table(a, targets=targets)
    assert pw.height == len(want) == 2 * 2 * 15
    want = {(f, round(t, 12), x, y): v for (f, t, x, y), v in want.items()}
    for r in pw.iter_rows(named=True):
        u, p, d, cons = want[(r["function"], round(r["target"], 12), r["algorithm_a"], r["algorithm_b"])]
        assert r["statistic"] == u
        assert r["p_value"] == pytest.approx(p, rel=1e-12, abs=0)
        assert r["better"] == (r["algorithm_a"] if d > 0 else r["algorithm_b"] if d < 0 else None)
        assert r["consistent"] == cons


def test_pairwise_table_from_hits_at_hand():
    a = mixed_budgets()
    want = pairwise_table(a, targets=[1.0, 1e-3])
    assert_frame_equal(pairwise_table(a, targets=[1.0, 1e-3], hits=a.hits().collect()), want)
    # hits at hand that lack a table target are not used: the table targets are read
    assert_frame_equal(pairwise_table(a, targets=[1.0, 1e-3], hits=a.hits([1.0]).collect()), want)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.floats(0, 1)), min_size=1, max_size=40),
       st.sampled_from(significance.CORRECTIONS))
def test_corrections_per_family_equal_correct(rows, method):
    df = pl.DataFrame(rows, schema={"fam": pl.Int64, "p": pl.Float64}, orient="row")
    got = significance.correct_frame(df, "p", "pc", ["fam"], method)
    for _, g in got.with_row_index().group_by("fam"):
        assert g["pc"].to_list() == significance.correct(g["p"].to_numpy(), method).tolist()
        assert (g["family_size"] == g.height).all()
    whole = significance.correct_frame(df, "p", "pc", [], method)
    assert whole["pc"].to_list() == significance.correct(df["p"].to_numpy(), method).tolist()


def test_marker_expression_equals_marker():
    ps = [0.2, 0.05, 0.0499, 0.011, 0.01, 0.0099, 1e-3, 2e-5, 1e-12, 0.0]
    assert markers.markers("*", np.array(ps)).to_list() == [markers.marker("*", p) for p in ps]
    assert markers.markers("★", np.array(ps), alpha=0.01).to_list() == [markers.marker("★", p, 0.01) for p in ps]
    assert markers.markers("*", np.array([np.nan])).to_list() == [""]


@pytest.mark.parametrize("reference", [None, "d", "e"])
def test_art_table_tests_equal_the_tests_pair_by_pair(reference):
    # the best against each other algorithm and each against the reference, one significance.compare per pair
    from pipeline.tables.art import table_targets
    from tables_reference import Trajectories, trial_groups

    a = mixed_budgets(seed=9)
    targets = [1.0, 1e-3]
    df = art_table(a, reference=reference, targets=targets, samples=50)
    traj = Trajectories(a.events())
    art = {(r["function"], r["target"], r["algorithm"]): r["art"] for r in df.iter_rows(named=True)}
    tested = 0
    for (_, _, f, t), g in trial_groups(a.hits(table_targets(["bbob"], targets).lazy()).collect()):
        algs = sorted(x for x in g if x != reference)
        rows = {r["algorithm"]: r for r in df.filter((pl.col("function") == f) & (pl.col("target") == t)).iter_rows(named=True)}

        def test(x, y):
            return significance.compare(g[x].hit, g[x].evals, g[x].prec(traj), g[y].hit, g[y].evals, g[y].prec(traj))

        best = min(algs, key=lambda x: (art[(f, t, x)], algs.index(x)))
        res = [test(x, best) for x in algs if x != best]
        p_best = 1.0 if any(r.direction >= 0 for r in res) else max(r.p_marked for r in res)
        assert rows[best]["p_best"] == pytest.approx(p_best, rel=1e-12, abs=0)
        assert all(rows[x]["p_best"] is None for x in algs if x != best)
        for x in algs if reference else []:
            r = test(x, reference)
            assert rows[x]["p_ref"] == pytest.approx(r.p_value, rel=1e-12, abs=0)
            assert (rows[x]["ref_direction"], rows[x]["ref_consistent"]) == (r.direction, r.consistent)
            tested += 1
        tested += len(res)
    assert tested == 2 * 2 * (5 if reference is None else 4 + 5)  # (function, target) x tests of each


def test_precision_lookup_equals_trajectories_on_shuffled_records():
    # run 0: .dat (trigger 1) and .tdat (trigger 2) records, the .dat ones better (ignored); run 1: only
    # .dat records, precision not monotone; run 2: algorithm B, one record; run 3: no record at all
    from tables_reference import Trajectories

    runs = [dict(run_id=r, suite="bbob", algorithm=alg, function=1, dimension=2, instance=r + 1, trial=r,
                 evaluations=100, final_delta=0.1) for r, alg in enumerate("AABB")]
    events = [dict(run_id=0, suite="bbob", algorithm="A", evaluations=e, best_delta=b, trigger=t)
              for e, b, t in [(1, 9.0, 2), (5, 1e-3, 1), (10, 4.0, 2), (10, 3.0, 2), (50, 0.5, 2), (7, 1e-4, 1)]]
    events += [dict(run_id=1, suite="bbob", algorithm="A", evaluations=e, best_delta=b, trigger=1)
               for e, b in [(3, 2.0), (20, 5.0), (40, 1.0), (2, 8.0)]]
    events += [dict(run_id=2, suite="bbob", algorithm="B", evaluations=30, best_delta=0.2, trigger=3)]
    rng = np.random.default_rng(1)
    a = Analysis(FrameStore(runs, [events[i] for i in rng.permutation(len(events))]))
    fes = [0.0, 1.0, 2.0, 9.5, 10.0, 30.0, 45.0, 1e6]
    q = pl.DataFrame([(alg, r, fe) for r, alg in enumerate("AABB") for fe in fes],
                     schema={"algorithm": pl.String, "run_id": pl.Int64, "fe": pl.Float64}, orient="row")
    got = ranksum.precision_at(a.store.events(), q, chunk=1).sort("run_id", "fe")
    traj = Trajectories(a.events())
    want = [traj.at([r], fe)[0] for r in range(4) for fe in fes]
    assert got["prec"].to_list() == want
    assert want[:8] == [np.inf, 9.0, 9.0, 9.0, 3.0, 3.0, 3.0, 0.5]  # run 0: .tdat records only
    assert want[8:16] == [np.inf, np.inf, 8.0, 2.0, 2.0, 2.0, 1.0, 1.0]  # run 1: running minimum
