"""aRT, hitting times and simulated restarts on hand-made trials whose answers are computed by hand."""
from __future__ import annotations

import math
from unittest import mock

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings, strategies as st
from polars.testing import assert_frame_equal

from pipeline.hits import spec, targets
from pipeline.hits.budget import Budget, cut
from pipeline.measures import restarts, runtime


def frames(trials, suite="bbob", alg="A", function=1, dim=2):
    """runs/events from [(instance, [(evals, best_delta), ...], total_evaluations)]."""
    runs, events = [], []
    for i, (inst, recs, total) in enumerate(trials):
        runs.append(dict(run_id=i, suite=suite, algorithm=alg, function=function, dimension=dim, instance=inst,
                         trial=i, evaluations=total, final_delta=min(b for _, b in recs)))
        events += [dict(run_id=i, evaluations=e, best_delta=b, trigger=3) for e, b in recs]
    return pl.LazyFrame(runs), pl.LazyFrame(events)


def art_of(trials, tlist, **kw):
    runs, ev = frames(trials, **kw)
    h = spec.hitting_times(runs, ev, targets.frame(tlist), exact=kw.pop("exact", False) if False else False)
    return runtime.art(h).collect().sort("target", descending=True)


def test_three_trials_one_failure():
    # trial 1 hits 1e-1 at 30 (of 100 evaluations), trial 2 at 50, trial 3 never (stops at 200)
    trials = [(1, [(1, 10.0), (30, 0.05), (100, 0.01)], 100), (2, [(1, 5.0), (50, 0.1)], 80), (3, [(1, 3.0), (200, 0.5)], 200)]
    a = art_of(trials, [1e-1])
    row = a.row(0, named=True)
    assert row["art"] == pytest.approx((30 + 50 + 200) / 2)
    assert (row["successes"], row["runs"], row["success_rate"]) == (2, 3, 2 / 3)
    assert row["mean_success_runtime"] == 40 and row["median_success_runtime"] == 40


def test_tie_at_the_target_and_hit_at_the_last_evaluation():
    # best_delta exactly equal to the target reaches it; a hit at the very last evaluation counts
    trials = [(1, [(1, 5.0), (7, 1.0)], 7), (2, [(1, 5.0), (9, 0.5)], 9)]
    a = art_of(trials, [1.0])
    assert a["art"][0] == pytest.approx(8.0) and a["successes"][0] == 2


def test_no_success_is_infinite():
    a = art_of([(1, [(1, 5.0), (10, 2.0)], 10)], [1.0])
    assert math.isinf(a["art"][0]) and a["successes"][0] == 0


def test_biobj_target_zero_and_negative_targets():
    trials = [(1, [(1, 1.0), (20, 0.0), (40, -2e-5)], 40), (2, [(1, 1.0), (30, 1e-6)], 30)]
    a = art_of(trials, [-1e-5, 0.0, 1e-5], suite="bbob-biobj").sort("target")
    assert a["art"].to_list() == [pytest.approx(40 + 30), pytest.approx((20 + 30) / 1), pytest.approx((20 + 30) / 2)]
    assert a["successes"].to_list() == [1, 1, 2]


def test_repeated_instances_are_balanced_like_cocopp():
    # instance 1 three times, instance 2 once: instance 2's trial counts three times (lcm / repetitions)
    trials = [(1, [(1, 1.0), (10, 0.0)], 10)] * 3 + [(2, [(1, 1.0), (100, 0.5)], 100)]
    a = art_of(trials, [0.1])
    assert a["runs"][0] == 6 and a["successes"][0] == 3
    assert a["art"][0] == pytest.approx((3 * 10 + 3 * 100) / 3)


def test_budget_cut_by_hand():
    runs, ev = frames([(1, [(1, 10.0), (30, 0.05), (100, 0.01)], 100), (2, [(1, 5.0), (50, 0.1)], 80)])
    r, e = cut(runs, ev, Budget.parse("20x"))  # 40 evaluations in 2-D
    h = spec.hitting_times(r, e, targets.frame([1e-1]))
    a = runtime.art(h).collect()
    assert a["art"][0] == pytest.approx((30 + 40) / 1)
    assert r.collect().sort("run_id")["final_delta"].to_list() == [0.05, 5.0]


def test_fixed_budget_by_hand():
    runs, ev = frames([(1, [(1, 10.0), (30, 0.05), (100, 0.01)], 100)])
    v = runtime.fixed_budget(runs, ev, [0.5, 10, 50]).collect().sort("budget")
    assert v["best_delta"].to_list() == [None, 10.0, 0.05]


# -- properties ---------------------------------------------------------------------------------
trial = st.tuples(st.integers(1, 3), st.lists(st.tuples(st.integers(1, 1000), st.floats(1e-9, 1e3)), min_size=1, max_size=8))


def to_trials(raw):
    out = []
    for inst, recs in raw:
        recs = sorted({e: b for e, b in recs}.items())
        best, mono = math.inf, []
        for e, b in recs:
            best = min(best, b)
            mono.append((e, best))
        out.append((inst, mono, mono[-1][0] + 5))
    return out


@settings(max_examples=60, deadline=None)
@given(st.lists(trial, min_size=1, max_size=6))
def test_art_at_least_mean_successful_runtime_and_monotone_in_target(raw):
    a = art_of(to_trials(raw), [100.0, 1.0, 1e-2, 1e-4, 1e-8])  # easiest to hardest
    arts = a["art"].to_list()
    for row in a.iter_rows(named=True):
        if row["successes"]:
            assert row["art"] >= row["mean_success_runtime"] - 1e-9
    assert all(x <= y + 1e-9 for x, y in zip(arts, arts[1:]))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 10_000), min_size=1, max_size=15))
def test_simulated_runtimes_with_all_successes_are_the_trial_runtimes(hits_):
    trials = [(i + 1, [(h, 0.0)], h + 10) for i, h in enumerate(hits_)]
    runs, ev = frames(trials)
    h = spec.hitting_times(runs, ev, targets.frame([1e-8]))
    sim = restarts.simulated_runtimes(h, samples=len(hits_), first_deterministic=True).collect()
    assert sorted(sim["runtime"].to_list()) == sorted(float(x) for x in hits_)


def test_simulated_restarts_are_seeded_and_match_the_expected_runtime():
    trials = [(1, [(1, 5.0), (10, 0.0)], 10), (2, [(1, 5.0)], 100), (3, [(1, 5.0)], 100), (4, [(1, 5.0), (30, 0.0)], 30)]
    runs, ev = frames(trials)
    h = spec.hitting_times(runs, ev, targets.frame([1e-8]))
    s1 = restarts.simulated_runtimes(h, samples=20000, seed=3).collect()["runtime"].to_numpy()
    s2 = restarts.simulated_runtimes(h, samples=20000, seed=3).collect()["runtime"].to_numpy()
    assert np.array_equal(s1, s2)
    # expected runtime of the restart algorithm = aRT (seed 000, "Simulated Restarts and Runtimes")
    art = runtime.art(h).collect()["art"][0]
    assert art == pytest.approx((10 + 100 + 100 + 30) / 2)
    assert s1.mean() == pytest.approx(art, rel=0.03)
    d = restarts.art_dispersion(h, samples=1000, seed=3).collect()
    assert d["p10"][0] <= d["p50"][0] <= d["p90"][0]


def test_art_confidence_interval_contains_the_estimate_and_narrows_with_more_trials():
    from pipeline.measures.uncertainty import art_confidence

    def ci(copies):
        base = [(1, [(1, 5.0), (10, 0.0)], 10), (2, [(1, 5.0)], 100), (3, [(1, 5.0), (30, 0.0)], 30),
                (4, [(1, 5.0), (50, 0.0)], 50)]
        trials = [(i + 1, recs, tot) for i, (_, recs, tot) in enumerate(base * copies)]
        runs, ev = frames(trials)
        h = spec.hitting_times(runs, ev, targets.frame([1e-8]))
        a = runtime.art(h).collect()["art"][0]
        c = art_confidence(h, samples=2000, seed=2).collect().row(0, named=True)
        return a, c["art_low"], c["art_high"]

    a1, lo1, hi1 = ci(1)
    a4, lo4, hi4 = ci(4)
    assert lo1 <= a1 <= hi1 and lo4 <= a4 <= hi4 and a1 == pytest.approx(a4)
    assert hi4 - lo4 < hi1 - lo1


def test_group_percentiles_by_hand_and_as_numpy_per_group():
    # groups 0: [4, 1, 3, 2] -> 10th 1.3, median 2.5, 90th 3.7; group 1 empty -> NaN; group 2: [5] -> 5
    sg = np.array([0, 0, 0, 0, 2])
    rt = np.array([4.0, 1.0, 3.0, 2.0, 5.0])
    p = restarts.group_percentiles(sg, rt, 3, (10, 50, 90))
    assert np.allclose(p[:, 0], [1.3, 2.5, 3.7]) and np.isnan(p[:, 1]).all() and (p[:, 2] == 5.0).all()
    rng = np.random.default_rng(5)
    size = rng.integers(0, 9, 40)
    sg = np.repeat(np.arange(40), size)
    rt = rng.exponential(100.0, len(sg)).round()  # ties included
    got = restarts.group_percentiles(sg, rt, 40, (10, 37.5, 90))
    for g in np.flatnonzero(size):
        assert np.allclose(got[:, g], np.percentile(rt[sg == g], [10, 37.5, 90]), rtol=0, atol=1e-9)


@given(st.lists(st.tuples(st.integers(0, 3), st.sampled_from([1e-8, 1.0, 100.0]), st.integers(-2, 4)), max_size=40))
@settings(max_examples=60, deadline=None)
def test_trial_order_is_the_lexicographic_order(rows):
    # by group, target, trial; repeated trial numbers keep their positions (as np.lexsort)
    g = np.array([r[0] for r in rows], np.int64)
    t = np.array([r[1] for r in rows], float)
    k = np.array([r[2] for r in rows], np.int64)
    assert restarts.trial_order(g, t, k).tolist() == np.lexsort((k, t, g)).tolist()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(1, 3), st.booleans(), st.integers(1, 500)), max_size=40),
       st.integers(1, 120), st.integers(0, 2 ** 31))
def test_restart_percentiles_equal_the_simulation_bit_for_bit(trials, samples, seed):
    # trials (group, repetitions, success, cost): whole groups read from the sorted trials, the others
    # simulated, drawing from the generator exactly what simulating every group draws
    trials = sorted(trials, key=lambda t: t[0])
    gid = np.repeat([t[0] for t in trials], [t[1] for t in trials]).astype(np.int64)
    success = np.repeat([t[2] for t in trials], [t[1] for t in trials]).astype(bool)
    cost = np.repeat([float(t[3]) for t in trials], [t[1] for t in trials])
    pcts = (0, 10, 37.5, 50, 90, 100)
    for first_deterministic in (True, False):
        sg, rt = restarts.simulate(gid, cost, success, 4, samples, np.random.default_rng(seed), first_deterministic)
        want = restarts.group_percentiles(sg, rt, 4, pcts)
        got = restarts.restart_percentiles(gid, cost, success, 4, samples, np.random.default_rng(seed), pcts,
                                           first_deterministic)
        assert np.array_equal(got, want, equal_nan=True)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(-2, 4)), min_size=1, max_size=12),
       st.lists(st.sampled_from([1e-8, 0.01, 1.0, 100.0]), min_size=1, max_size=4, unique=True), st.booleans(),
       st.booleans())
def test_trial_order_of_trial_blocks_is_the_lexicographic_order(trials, levels, with_tie, shuffle):
    # rows as the cache gives them (a block per trial, the same targets ascending in each), or shuffled
    # (then the general sort): by group, target, trial, then tie (or position)
    ts = np.array(sorted(levels))
    run = np.repeat(np.arange(len(trials)) * 7 + 3, len(ts))
    g = np.repeat([x[0] for x in trials], len(ts)).astype(np.int64)
    k = np.repeat([x[1] for x in trials], len(ts)).astype(np.int64)
    t = np.tile(ts, len(trials))
    if shuffle:
        perm = np.random.default_rng(len(trials)).permutation(len(run))
        run, g, k, t = run[perm], g[perm], k[perm], t[perm]
    tie = -run if with_tie else None  # constant over each trial's rows, as run_id
    want = np.lexsort((k, t, g)) if tie is None else np.lexsort((tie, k, t, g))
    assert restarts.trial_order(g, t, k, tie, run=run).tolist() == want.tolist()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 3), st.sampled_from([1, 2]), st.integers(1, 3), st.integers(0, 3),
                          st.integers(1, 5000), st.integers(1, 6000)), min_size=1, max_size=30),
       st.integers(1, 150), st.booleans())
def test_art_table_equals_the_aggregation_and_the_dispersion(rows, samples, deterministic):
    # (function, dimension index, instance, weight, evaluations, hit) of one trial each; hits beyond the
    # evaluations fail; rows in no order, repeated trial numbers, weights 0..3
    dims = {1: 2, 2: 5}
    hits = pl.DataFrame(
        [dict(run_id=i, suite="bbob", algorithm="A" if i % 3 else "B", function=f, dimension=dims[d],
              instance=inst, trial=i % 4, evaluations=ev, final_delta=0.0, weight=w, target=[1.0, 1e-3][i % 2],
              hit=h if h <= ev else None, success=h <= ev) for i, (f, d, inst, w, ev, h) in enumerate(rows)],
        schema_overrides={"function": pl.Int32, "dimension": pl.Int32, "instance": pl.Int32, "trial": pl.Int32})
    want = runtime.art(hits.lazy()).join(
        restarts.art_dispersion(hits.lazy(), samples=samples, seed=4, first_deterministic=deterministic),
        on=restarts.GROUP, how="left").sort(*runtime.PROBLEM, "target", descending=[False] * 4 + [True]).collect()
    got = restarts.art_table(hits, True, samples=samples, seed=4, first_deterministic=deterministic)
    assert_frame_equal(got, want, check_exact=True)
    assert_frame_equal(restarts.art_table(hits), runtime.art(hits.lazy()).collect(), check_exact=True)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(1, 10 ** 6), st.booleans()), min_size=1, max_size=40),
       st.integers(1, 60), st.integers(0, 2 ** 16), st.sampled_from([1, 3, 4_000_000]))
def test_restart_sums_by_running_sums_are_the_draws_added_one_by_one(trials, samples, seed, max_draws):
    # integer-valued costs: a sample's sum of draws as a difference of running sums is, bit for bit, the
    # sum the draws added one by one give (and the generator draws the same numbers)
    trials = sorted(trials)
    gid = np.array([t[0] for t in trials])
    gid = np.unique(gid, return_inverse=True)[1].ravel()
    cost = np.array([float(t[1]) for t in trials])
    success = np.array([t[2] for t in trials])
    ng = int(gid.max()) + 1
    got = restarts.simulate(gid, cost, success, ng, samples, np.random.default_rng(seed), True, max_draws)
    rng = np.random.default_rng(seed)
    with mock.patch.object(restarts, "_exact_sums", lambda values, draws: False):
        want = restarts.simulate(gid, cost, success, ng, samples, rng, True, max_draws)
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
    assert restarts._exact_sums(cost, 10) and not restarts._exact_sums(cost + 0.5, 10)
    assert not restarts._exact_sums(np.array([2.0 ** 50]), 10)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.sampled_from([0.0, -0.0, 1.0, 3.0, 2.5, -2.0, 2.0 ** 41, math.inf,
                                                              math.nan, 7.0])), min_size=1, max_size=30),
       st.booleans())
def test_values_sorted_within_groups_are_the_lexicographic_order(rows, as_int):
    # one integer sort where the values allow it, else the lexicographic sort: the same values, bit for bit
    rows = sorted(rows, key=lambda r: r[0])
    gid = np.array([r[0] for r in rows])
    values = np.array([r[1] for r in rows])
    if as_int:
        values = np.nan_to_num(values, nan=4.0, posinf=5.0).astype(np.int64)
    want = values[np.lexsort((values, gid))]
    got = restarts._sorted_within(gid, values)
    assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
