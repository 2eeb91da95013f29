"""First hitting times (pipeline.hits): the definition by hand, the hit rule, and the fast path and the
store's cache equal to the definition on random small logs."""
from __future__ import annotations

import math
import tempfile
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from polars.testing import assert_frame_equal

from logs import write_new2
from pipeline.conventions import reached, reaches, record_key, target_level
from pipeline.hits import _kernel, cache, spec, targets
from pipeline.hits.budget import Budget, cut, cut_hits
from pipeline.ingest import ingest
from pipeline.measures.catalog import parse_budgets
from pipeline.store import Store

KEY = ["run_id", "target"]


def frames(trials, suite="bbob"):
    """runs/events from [(instance, [(evals, best_delta), ...], total_evaluations)]."""
    runs, events = [], []
    for i, (inst, recs, total) in enumerate(trials):
        runs.append(dict(run_id=i, suite=suite, algorithm="A", function=1, dimension=2, instance=inst, trial=i,
                         evaluations=total, final_delta=min(b for _, b in recs)))
        events += [dict(run_id=i, evaluations=e, best_delta=b, trigger=3) for e, b in recs]
    return pl.LazyFrame(runs), pl.LazyFrame(events)


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
    compat = spec.hitting_times(runs, events, t).collect()["hit"][0]
    exact = spec.hitting_times(runs, events, t, exact=True).collect()["hit"][0]
    assert (compat, exact) == (13, 11)


def test_cocopp_tolerance_on_the_last_record():
    """cocopp counts a precision within 1e-9 relative above a target as reaching it, except on the last
    .dat record when the previous record is less than two grid steps above (readalign.HMultiReader)."""
    t = 10 ** (7 / 5)
    near = 25.1188643150958  # printed value of 10^(7/5), a few ulps above it
    runs, _ = frames([(1, [(1, 50.0)], 50)])
    ev = lambda recs: pl.LazyFrame(dict(run_id=[0] * len(recs), evaluations=[e for e, _ in recs],  # noqa: E731
                                        best_delta=[b for _, b in recs], trigger=[1] * len(recs)))
    hit = lambda recs: spec.hitting_times(runs, ev(recs), targets.frame([t])).collect()["hit"][0]  # noqa: E731
    assert hit([(1, 39.81), (5, near), (9, 1.0)]) == 5  # not the last record: tolerance applies
    assert hit([(1, 39.81), (5, near)]) is None  # last record, previous one grid step above: strict
    assert hit([(1, 100.0), (5, near)]) == 5  # last record met from two steps above: tolerance applies


def test_budget_is_parsed_once_into_evaluations_or_a_multiple_of_the_dimension():
    assert Budget.parse("100x") == Budget(100.0, True) and Budget.parse(" 1e3 ") == Budget(1000.0, False)
    assert Budget.parse(None) is None and Budget.parse("") is None and Budget.parse(50) == Budget(50.0)
    assert str(Budget.parse("100X")) == "100x" and str(Budget.parse("2.5")) == "2.5"
    with pytest.raises(ValueError, match=r"budget 'ten': expected evaluations \(1000\) or a multiple"):
        Budget.parse("ten")
    with pytest.raises(ValueError, match="budget '-1x' must be positive"):
        Budget.parse("-1x")
    assert parse_budgets("10x, 100X,") == [Budget(10.0, True), Budget(100.0, True)]
    assert parse_budgets("1e3") == [Budget(1000.0)]
    # the numbers checked by the measures' declared budgets (issue 45): the words of `a.fixed_budget([0])`
    for bad, message in (("10x,100", "all in evaluations or all as multiples"), (" , ", r"^budgets ' , ': expected a list"),
                         ("1,x", r"^budgets '1,x': expected a list of numbers > 0$"),
                         ("0", r"^budgets \[0\]: expected a list of numbers > 0$"),
                         ("10x,-5x", r"^budgets \[10, -5\]: expected a list of numbers > 0$")):
        with pytest.raises(ValueError, match=message):
            parse_budgets(bad)
    runs, ev = frames([(1, [(1, 10.0), (30, 0.05), (100, 0.01)], 100), (2, [(1, 5.0), (50, 0.1)], 80)])
    r, e = cut(runs, ev, Budget.parse("20x"))  # 40 evaluations in 2-D
    assert r.collect().sort("run_id").select("evaluations", "final_delta").rows() == [(40, 0.05), (40, 5.0)]
    assert e.collect().sort("run_id", "evaluations")["evaluations"].to_list() == [1, 30, 1]
    h = cut_hits(spec.hitting_times(runs, ev, targets.frame([0.1, 0.01])), Budget.parse("20x")).collect()
    assert h.sort("run_id", "target")["hit"].to_list() == [None, 30, None, None]


VALUES = [-1e300, -5e-5, -1e-5, -1e-4 * (1 - 5e-10), -1e-9, 0.0, 1e-300, 1e-9, 1e-9 * (1 + 5e-10), 1.0,
          1.0 * (1 + 2e-9), 3.7, 1e300, math.inf]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(VALUES), min_size=1, max_size=6), st.sampled_from(VALUES))
def test_the_hit_rule_as_an_order_is_the_hit_rule(precisions, target):
    # `record_key(p) <= target_level(t)` (the as-of joins) decides as `reached(p, t)` (cocopp's is_close),
    # in Polars and on numbers alike; an infinite precision is close to every target, as in cocopp
    df = pl.DataFrame({"p": precisions}, schema={"p": pl.Float64})
    as_order = df.select(record_key(pl.col("p")) <= target_level(pl.lit(target)))["p"].to_list()
    as_rule = df.select(reached(pl.col("p"), target))["p"].to_list()
    on_numbers = [bool(reaches(p, target)) for p in precisions]
    assert as_rule == on_numbers
    assert [a or math.isinf(p) for a, p in zip(as_order, precisions)] == as_rule


def _runs_strategy(suite: str):
    """Trials of one problem: (instance, .dat records, .tdat records), values on the suite's standard
    targets (printed with 10 digits, as loggers do: some bit for bit, the others within 1e-9) and within
    1e-9 on either side of them, other values, repeated values and values that rise (logs that disagree
    with themselves)."""
    ts = targets.default(suite)
    def near(ts):
        return st.tuples(st.sampled_from(ts), st.sampled_from([1 - 3e-10, 1 + 3e-10])).map(lambda x: x[0] * x[1])

    values = st.one_of(st.sampled_from(ts), near(ts), st.sampled_from([150.0, 3.7, 0.5, 1e-9, 0.0]),
                       near([t for t in ts if t < 0]) if suite == "bbob-biobj" else st.nothing(),
                       st.sampled_from([-2e-4, -3e-6]) if suite == "bbob-biobj" else st.nothing())
    records = st.lists(st.tuples(st.integers(1, 60), values), min_size=1, max_size=7).map(
        lambda recs: sorted(dict(recs).items()))  # evaluations ascending, one record per count
    return st.lists(st.tuples(st.integers(1, 3), records, records), min_size=1, max_size=4)


@st.composite
def logs(draw):
    suite = draw(st.sampled_from(["bbob", "bbob-biobj"]))
    trials = draw(_runs_strategy(suite))
    asked = draw(st.one_of(st.none(), st.lists(st.sampled_from(targets.default(suite)), min_size=1, max_size=5,
                                               unique=True)))
    budget = draw(st.sampled_from([None, Budget.parse("3x"), Budget.parse("20"), Budget.parse("1000")]))
    return suite, trials, asked, budget, draw(st.booleans())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(logs())
def test_fast_path_and_cache_equal_the_definition_on_random_logs(log):
    """Random small logs (.dat and .tdat records, both hit rules, with and without a budget cut, negative
    and positive targets, repeated values, targets equal to records): the numpy fast path gives the hits
    of the as-of join, and the store's cache the rows of the definition, budget cut and all."""
    suite, trials, asked, budget, exact = log
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_new2(root / "exp", suite=suite,
                   runs=[{"instance": i, "dat": dat, "tdat": tdat} for i, dat, tdat in trials])
        store = Store(root / "store", create=True)
        summary = ingest([root / "exp"], store)
        assert not summary.problems, summary.problems
        runs, events = store.runs(), store.events()
        ts = targets.default(suite) if asked is None else tuple(asked)
        frame = targets.frame(None, [suite]) if asked is None else targets.frame(asked)

        definition = spec.hitting_times(runs, events, frame, exact).collect().sort(KEY)
        fast = _kernel.first_hits(runs.collect(), events.collect(), {suite: ts}, exact)
        assert fast is not None
        assert fast.sort(KEY).equals(definition.select(KEY + ["hit"])), (fast, definition)

        cut_runs, _ = cut(store.scan("runs", commits=True), events, budget)  # the cache is keyed by commit
        want = cut_hits(spec.hitting_times(cut_runs, events, frame, exact), budget).collect().sort(KEY)
        cached = cache.hits(store, cut_runs, frame.collect(), exact, budget)
        assert cached is not None and any(cache.folder(store, exact).glob("*.parquet"))
        assert_frame_equal(cached.collect().sort(KEY), want)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.sampled_from([0.0, 1e-9, 1e-3, 0.5, 1.0, 2.0, math.inf]), min_size=1, max_size=9),
                min_size=1, max_size=5), st.integers(1, 4))
def test_running_min_is_the_running_minimum_of_each_run(runs, passes):
    # records above the best so far (an old logger's last line, several in a row) take the run's best so far
    best = np.array([b for run in runs for b in run])
    new_run = np.array([i == 0 for run in runs for i in range(len(run))])
    want = np.concatenate([np.minimum.accumulate(run) for run in runs])
    assert _kernel.running_min(best, new_run, passes).tolist() == want.tolist()


grid = st.sampled_from([0.0, 1e-8, 1e-8 * (1 + 5e-10), 0.001, 10 ** -2.8, 10 ** -2.6, 1.0, 1.0 + 1e-10, 3.7, 100.0])


@settings(max_examples=80, deadline=None)
@given(st.lists(st.lists(st.tuples(st.integers(1, 50), grid, st.sampled_from([1, 2, 3])), max_size=8), min_size=1,
                max_size=6), st.booleans(), st.booleans(), st.booleans())
def test_first_hits_equal_the_as_of_join_on_records_in_any_order(raw, exact, biobj, runs_reversed):
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
    want = spec.hitting_times(runs.lazy(), events.lazy(), targets.frame(ts), exact=exact).select(
        "run_id", "target", "hit").collect().sort("run_id", "target")
    got = _kernel.first_hits(runs.select("run_id", "suite"), events, {suite: ts}, exact)
    assert got.equals(want)


def test_both_as_of_matches_give_the_cached_hits_of_every_shared_set(stores, monkeypatch):
    # where each run's keys strictly decrease (every shared set), the first step at or below a level is
    # the one the ranked match finds
    for name, store in stores.items():
        if not isinstance(store, Store):
            continue
        runs = store.runs().select("run_id", "suite").collect()
        events = store.events().select("run_id", "evaluations", "best_delta", "trigger").collect()
        ts = {s: targets.default(s) for s in runs["suite"].unique()}
        for exact in (False, True):
            fast = _kernel.first_hits(runs, events, ts, exact)
            with monkeypatch.context() as m:
                m.setattr(_kernel, "_asof_decreasing", _kernel._asof_ranked)
                assert _kernel.first_hits(runs, events, ts, exact).equals(fast), name
