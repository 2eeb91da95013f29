"""aRT, hitting times and simulated restarts on hand-made trials whose answers are computed by hand."""
from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings, strategies as st

from pipeline.measures import restarts, runtime, targets
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
    h = runtime.hitting_times(runs, ev, targets.frame(tlist), exact=kw.pop("exact", False) if False else False)
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


def test_cocopp_reads_hits_from_dat_records_only():
    """Why cocopp is wrong by seed 000 on DIRECT (2009), f5 2-D: the 2009 logger wrote a .dat record only
    when f - fopt fell strictly below a target, so a trial whose precision equals 10 exactly at evaluation
    11 (in its .tdat) is first seen by cocopp at the next .dat record (evaluation 13, precision 1).
    By seed 000 the runtime to reach a target is the first evaluation at which it is reached; the default
    reproduces cocopp, `exact=True` the definition."""
    runs, _ = frames([(1, [(1, 55.0)], 19)])
    events = pl.LazyFrame(dict(run_id=[0] * 5, evaluations=[1, 5, 11, 13, 19], best_delta=[55.0, 15.0, 10.0, 1.0, 0.0],
                               trigger=[3, 1, 2, 1, 3]))
    t = targets.frame([10.0])
    compat = runtime.hitting_times(runs, events, t).collect()["hit"][0]
    exact = runtime.hitting_times(runs, events, t, exact=True).collect()["hit"][0]
    assert (compat, exact) == (13, 11)


def test_cocopp_tolerance_on_the_last_record():
    """cocopp counts a precision within 1e-9 relative above a target as reaching it, except on the last
    .dat record when the previous record is less than two grid steps above (readalign.HMultiReader)."""
    t = 10 ** (7 / 5)
    near = 25.1188643150958  # printed value of 10^(7/5), a few ulps above it
    runs, _ = frames([(1, [(1, 50.0)], 50)])
    ev = lambda recs: pl.LazyFrame(dict(run_id=[0] * len(recs), evaluations=[e for e, _ in recs],  # noqa: E731
                                        best_delta=[b for _, b in recs], trigger=[1] * len(recs)))
    hit = lambda recs: runtime.hitting_times(runs, ev(recs), targets.frame([t])).collect()["hit"][0]  # noqa: E731
    assert hit([(1, 39.81), (5, near), (9, 1.0)]) == 5  # not the last record: tolerance applies
    assert hit([(1, 39.81), (5, near)]) is None  # last record, previous one grid step above: strict
    assert hit([(1, 100.0), (5, near)]) == 5  # last record met from two steps above: tolerance applies


def test_budget_cut_by_hand():
    runs, ev = frames([(1, [(1, 10.0), (30, 0.05), (100, 0.01)], 100), (2, [(1, 5.0), (50, 0.1)], 80)])
    r, e = runtime.cut(runs, ev, "20x")  # 40 evaluations in 2-D
    h = runtime.hitting_times(r, e, targets.frame([1e-1]))
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
    h = runtime.hitting_times(runs, ev, targets.frame([1e-8]))
    sim = restarts.simulated_runtimes(h, samples=len(hits_), first_deterministic=True).collect()
    assert sorted(sim["runtime"].to_list()) == sorted(float(x) for x in hits_)


def test_simulated_restarts_are_seeded_and_match_the_expected_runtime():
    trials = [(1, [(1, 5.0), (10, 0.0)], 10), (2, [(1, 5.0)], 100), (3, [(1, 5.0)], 100), (4, [(1, 5.0), (30, 0.0)], 30)]
    runs, ev = frames(trials)
    h = runtime.hitting_times(runs, ev, targets.frame([1e-8]))
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
        h = runtime.hitting_times(runs, ev, targets.frame([1e-8]))
        a = art(h).collect()["art"][0]
        c = art_confidence(h, samples=2000, seed=2).collect().row(0, named=True)
        return a, c["art_low"], c["art_high"]

    a1, lo1, hi1 = ci(1)
    a4, lo4, hi4 = ci(4)
    assert lo1 <= a1 <= hi1 and lo4 <= a4 <= hi4 and a1 == pytest.approx(a4)
    assert hi4 - lo4 < hi1 - lo1


grid = st.sampled_from([0.0, 1e-8, 1e-8 * (1 + 5e-10), 0.001, 10 ** -2.8, 10 ** -2.6, 1.0, 1.0 + 1e-10, 3.7, 100.0])


@settings(max_examples=80, deadline=None)
@given(st.lists(st.lists(st.tuples(st.integers(1, 50), grid, st.sampled_from([1, 2, 3])), max_size=8), min_size=1,
                max_size=6), st.booleans(), st.booleans(), st.booleans())
def test_first_hits_equal_the_as_of_join(raw, exact, biobj, runs_reversed):
    # records at and within 1e-9 of targets, ties of evaluations, .dat/.tdat triggers, runs without
    # records; records in no order, or in order of evaluations within runs given last to first
    suite = "bbob-biobj" if biobj else "bbob"
    if runs_reversed:
        raw = [sorted(recs, key=lambda r: r[0]) for recs in raw]
    runs = pl.DataFrame({"run_id": [10 * i + 7 for i in range(len(raw))], "suite": suite,
                         "algorithm": "A", "function": 1, "dimension": 2, "instance": list(range(1, len(raw) + 1)),
                         "trial": list(range(len(raw))), "evaluations": 60, "final_delta": 0.0})
    events = pl.DataFrame([dict(run_id=10 * i + 7, evaluations=e, best_delta=b, trigger=t)
                           for i, recs in (reversed(list(enumerate(raw))) if runs_reversed else enumerate(raw))
                           for e, b, t in recs],
                          schema={"run_id": pl.Int64, "evaluations": pl.Int64, "best_delta": pl.Float64,
                                  "trigger": pl.Int8})
    ts = targets.default(suite)
    want = runtime.hitting_times(runs.lazy(), events.lazy(), targets.frame(ts), exact=exact).select(
        "run_id", "target", "hit").collect().sort("run_id", "target")
    got = runtime.first_hits(runs.select("run_id", "suite"), events, {suite: ts}, exact)
    assert got.equals(want)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.sampled_from([0.0, 1e-9, 1e-3, 0.5, 1.0, 2.0, math.inf]), min_size=1, max_size=9),
                min_size=1, max_size=5), st.integers(1, 4))
def test_running_min_is_the_running_minimum_of_each_run(runs, passes):
    # records above the best so far (an old logger's last line, several in a row) take the run's best so far
    best = np.array([b for run in runs for b in run])
    new_run = np.array([i == 0 for run in runs for i in range(len(run))])
    want = np.concatenate([np.minimum.accumulate(run) for run in runs])
    assert runtime.running_min(best, new_run, passes).tolist() == want.tolist()


def test_both_as_of_matches_give_the_cached_hits_of_every_shared_set(stores, monkeypatch):
    # where each run's keys strictly decrease (every shared set), the first step at or below a level is
    # the one the ranked match finds
    from pipeline.store.store import Store

    for name, store in stores.items():
        if not isinstance(store, Store):
            continue
        runs = store.runs().select("run_id", "suite").collect()
        events = store.events().select("run_id", "evaluations", "best_delta", "trigger").collect()
        ts = {s: targets.default(s) for s in runs["suite"].unique()}
        for exact in (False, True):
            fast = runtime.first_hits(runs, events, ts, exact)
            with monkeypatch.context() as m:
                m.setattr(runtime, "_asof_decreasing", runtime._asof_ranked)
                assert runtime.first_hits(runs, events, ts, exact).equals(fast), name
