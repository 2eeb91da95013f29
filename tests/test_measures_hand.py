"""aRT, hitting times and simulated restarts on hand-made trials whose answers are computed by hand."""
from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings, strategies as st

from pipeline.hits import spec, targets
from pipeline.hits.budget import Budget, cut
from pipeline.measures import restarts, runtime
from pipeline.measures.art import art


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
    return art(h).collect().sort("target", descending=True)


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
    a = art(h).collect()
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


def test_simulated_runtimes_give_no_row_for_a_target_no_trial_reached():
    """Two trials reach 1 (at 10 and 30 evaluations), none reaches 1e-8: rows for 1 only (no inf rows)."""
    trials = [(1, [(1, 5.0), (10, 0.5)], 100), (2, [(1, 5.0), (30, 0.5)], 100)]
    runs, ev = frames(trials)
    h = spec.hitting_times(runs, ev, targets.frame([1.0, 1e-8]))
    sim = restarts.simulated_runtimes(h, samples=4).collect()
    assert sim["target"].unique().to_list() == [1.0] and sim.height == 4
    assert sorted(sim["runtime"].unique().to_list()) == [10.0, 30.0]


def test_simulated_restarts_are_seeded_and_match_the_expected_runtime():
    trials = [(1, [(1, 5.0), (10, 0.0)], 10), (2, [(1, 5.0)], 100), (3, [(1, 5.0)], 100), (4, [(1, 5.0), (30, 0.0)], 30)]
    runs, ev = frames(trials)
    h = spec.hitting_times(runs, ev, targets.frame([1e-8]))
    s1 = restarts.simulated_runtimes(h, samples=20000, seed=3).collect()["runtime"].to_numpy()
    s2 = restarts.simulated_runtimes(h, samples=20000, seed=3).collect()["runtime"].to_numpy()
    assert np.array_equal(s1, s2)
    # expected runtime of the restart algorithm = aRT (seed 000, "Simulated Restarts and Runtimes")
    expected = art(h).collect()["art"][0]
    assert expected == pytest.approx((10 + 100 + 100 + 30) / 2)
    assert s1.mean() == pytest.approx(expected, rel=0.03)
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
        a = art(h).collect()["art"][0]
        c = art_confidence(h, samples=2000, seed=2).collect().row(0, named=True)
        return a, c["art_low"], c["art_high"]

    a1, lo1, hi1 = ci(1)
    a4, lo4, hi4 = ci(4)
    assert lo1 <= a1 <= hi1 and lo4 <= a4 <= hi4 and a1 == pytest.approx(a4)
    assert hi4 - lo4 < hi1 - lo1


