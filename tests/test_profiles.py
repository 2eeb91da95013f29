"""Target-free runtime profiles (seed 004): a hand-made log computed on paper, the profile function,
the parameter rules, properties, the CLI, and every shared data set."""
from __future__ import annotations

import math
import subprocess
import sys

import polars as pl
import pytest
from hypothesis import given, settings, strategies as st
from polars.testing import assert_frame_equal

from conftest import SHARED, shared_or_skip
from logs import write_new2
from pipeline.api import open_store
from pipeline.ingest import ingest
from pipeline.hits import spec
from pipeline.measures import profiles as pr
from pipeline.store import Store


def cli(*args):
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *map(str, args)], capture_output=True, text=True)


# -- a hand-made log ---------------------------------------------------------------------------
# bbob, dimension 2, defaults: T = log10, f_inf = eps = 1e-8 (bbob's final target), delta = 0,
# f0 = max of the trials' first values. Then P(f) = (log10 f0 - log10 f) / (log10 f0 + 8).
#   f1, m = 2 trials, f0 = max(100, 10) = 100, P(f) = (2 - log10 f) / 10:
#     A: (1, 100) (4, 1) (10, 1e-3)   -> P = 0, 0.2, 0.5
#     B: (1, 10) (6, 1e-9)            -> P = 0.1, 1 (1e-9 <= f_inf)
#   f2, m = 1 trial, f0 = 1e-3, P(f) = (-3 - log10 f) / 5:
#     C: (1, 1e-3) (3, 1e-5) (8, 1e-7) -> P = 0, 0.4, 0.8
# Aggregate over n = 2 functions: a rise of an f1 trial weighs 1/(2*2), of the f2 trial 1/(1*2).
# Seed 004's construction, records taken by increasing t (x = t / 2):
#   t=1  x=0.5: A stays 0, B rises 0.1 -> +0.025, C stays 0   value 0.025
#   t=3  x=1.5: C rises 0.4           -> +0.2                 value 0.225
#   t=4  x=2  : A rises 0.2           -> +0.05                value 0.275
#   t=6  x=3  : B rises 0.9           -> +0.225               value 0.5
#   t=8  x=4  : C rises 0.4           -> +0.2                 value 0.7
#   t=10 x=5  : A rises 0.3           -> +0.075               value 0.775
# check: 0.775 = (1/2) * ((0.5 + 1)/2 + 0.8). Per function: f1 (weight 1/2 per trial rise):
#   0.5 -> 0.05, 2 -> 0.15, 3 -> 0.6, 5 -> 0.75; f2: 1.5 -> 0.4, 4 -> 0.8.
# f1 and f2 are both in "separ", whose table equals "all".
ALL = [(0.5, 0.025), (1.5, 0.225), (2.0, 0.275), (3.0, 0.5), (4.0, 0.7), (5.0, 0.775)]
F1 = [(0.5, 0.05), (2.0, 0.15), (3.0, 0.6), (5.0, 0.75)]
F2 = [(1.5, 0.4), (4.0, 0.8)]


@pytest.fixture(scope="module")
def hand(tmp_path_factory):
    root = tmp_path_factory.mktemp("hand") / "ALG"
    write_new2(root, function=1, runs=[{"instance": 1, "dat": [(1, 100.0), (4, 1.0), (10, 1e-3)]},
                                       {"instance": 2, "dat": [(1, 10.0), (6, 1e-9)]}])
    write_new2(root, function=2, info_name="bbobexp_f2.info",
               runs=[{"instance": 1, "dat": [(1, 1e-3), (3, 1e-5), (8, 1e-7)]}])
    st_ = Store(root.parent / "store", create=True)
    ingest([root], st_)
    return st_


def steps_of(df: pl.DataFrame, group: str) -> list[tuple[float, float]]:
    return [(r["x"], r["value"]) for r in df.filter(pl.col("group") == group).sort("x").iter_rows(named=True)]


def assert_steps(got, expected):
    assert [x for x, _ in got] == [x for x, _ in expected]
    assert [v for _, v in got] == pytest.approx([v for _, v in expected], abs=1e-12)


def test_hand_made_profile_by_seed_004_construction(hand):
    df = open_store(hand.path).profile().collect()
    assert df.columns == ["suite", "algorithm", "dimension", "group", "x", "value"]
    assert set(df["group"]) == {"f1", "f2", "separ", "all"}
    assert_steps(steps_of(df, "all"), ALL)
    assert_steps(steps_of(df, "separ"), ALL)
    assert_steps(steps_of(df, "f1"), F1)
    assert_steps(steps_of(df, "f2"), F2)


def test_hand_made_parameters_and_run_profiles(hand):
    a = open_store(hand.path)
    p = pr.parameters(a.runs(), a.events()).collect()
    assert p.select("function", "f0", "delta", "f_inf", "eps").rows() == [(1, 100.0, 0.0, 1e-8, 1e-8),
                                                                           (2, 1e-3, 0.0, 1e-8, 1e-8)]
    rp = pr.run_profiles(a.runs(), a.events(), p.lazy()).collect()
    per_run = rp.group_by("run_id").agg(pl.col("value").sort_by("evaluations")).sort("run_id")["value"].to_list()
    assert per_run == [pytest.approx(v, abs=1e-12) for v in ([0, 0.2, 0.5], [0.1, 1.0], [0, 0.4, 0.8])]


def test_hand_made_summary_and_group_selection(hand):
    a = open_store(hand.path)
    s = a.profile_summary(group=["all", "f2"]).collect().sort("group")
    assert s["group"].to_list() == ["all", "f2"]
    assert s["final_value"].to_list() == pytest.approx([0.775, 0.8])
    assert s.select("start_x", "max_x", "functions", "trials").rows() == [(0.5, 5.0, 2, 3), (0.5, 4.0, 1, 1)]
    with pytest.raises(ValueError, match="group separable"):
        a.profile(group="separable")


def test_hand_made_linear_observed_parameters(hand):
    # linear T, f_inf observed: f1 -> f_inf = 1e-9, f0 = 100, P = (100 - f) / (100 - 1e-9):
    #   A: 0, 99/(100-1e-9), (100-1e-3)/(100-1e-9); B: 90/(100-1e-9), 1.
    #   f2 -> f_inf = 1e-7, f0 = 1e-3: C: 0, (1e-3-1e-5)/(1e-3-1e-7), 1.
    # eps has no effect with linear T. Aggregate final = (1/2)((A_end + 1)/2 + 1).
    a = open_store(hand.path)
    df = a.profile(group="all", transform="linear", f_inf="observed", eps=0.5).collect()
    d = 100 - 1e-9
    a_end = (100 - 1e-3) / d
    assert df["value"][-1] == pytest.approx(0.5 * ((a_end + 1) / 2 + 1))
    # x = 0.5: only B rises (to 90/d) -> 90/d / 4
    assert df["x"][0] == 0.5 and df["value"][0] == pytest.approx(90 / d / 4)


def test_hand_made_improvement_rules(hand):
    # delta "first-improvement": f1: A improves 100 -> 1 (99), B 10 -> 1e-9 (10 - 1e-9): 99; f2: 1e-3 - 1e-5.
    # eps "improvement": half the smallest best-so-far improvement: f1: 1 - 1e-3 (A) vs 99 and 10 - 1e-9;
    # f2: 1e-5 - 1e-7.
    a = open_store(hand.path)
    s = pr.Settings(delta="first-improvement", eps="improvement")
    p = pr.parameters(a.runs(), a.events(), s).collect()
    assert p["delta"].to_list() == pytest.approx([99.0, 1e-3 - 1e-5])
    assert p["eps"].to_list() == pytest.approx([(1 - 1e-3) / 2, (1e-5 - 1e-7) / 2])
    # with delta > 0 the trial starting at f0 already scores: P(f0) > 0
    rp = pr.run_profiles(a.runs(), a.events(), p.lazy()).collect()
    assert rp.filter(pl.col("evaluations") == 1)["value"].min() > 0


def test_parameters_given_as_numbers_and_frames(hand):
    a = open_store(hand.path)
    f0 = pl.DataFrame({"function": [1, 2], "f0": [1e3, 1e-2]})
    p = pr.parameters(a.runs(), a.events(), pr.Settings(f0=f0, f_inf="1e-6", eps=1e-6)).collect()
    assert p.select("f0", "f_inf", "eps").rows() == [(1e3, 1e-6, 1e-6), (1e-2, 1e-6, 1e-6)]
    with pytest.raises(ValueError, match="f_inf 'best'"):
        pr.parameters(a.runs(), a.events(), pr.Settings(f_inf="best"))
    with pytest.raises(ValueError, match="eps must be > 0"):
        a.profile(eps=0).collect()
    with pytest.raises(ValueError, match="a frame needs"):
        pr.parameters(a.runs(), a.events(), pr.Settings(f0=pl.DataFrame({"f0": [1e3]})))
    with pytest.raises(ValueError, match="f0 missing"):
        a.profile(f0=pl.DataFrame({"function": [1], "f0": [1e3]})).collect()


# -- the profile function ----------------------------------------------------------------------
def P(f, f0=100.0, delta=0.0, f_inf=1e-8, eps=1e-8, transform="log10"):
    e = pr.profile_value(pl.lit(f), pl.lit(f0), pl.lit(delta), pl.lit(f_inf), pl.lit(eps), transform)
    return pl.select(e).item()


def test_profile_function_cases():
    assert P(100.0) == 0 and P(1e3) == 0  # at or above f0 + delta
    assert P(1e-8) == 1 and P(-1.0) == 1  # at or below f_inf (biobj precisions can be negative)
    assert P(1e-3) == pytest.approx(0.5)  # log10: (2 + 3) / (2 + 8)
    assert P(100.0, delta=900.0) == pytest.approx((3 - 2) / (3 + 8))  # f0 + delta = 1000
    assert P(40.0, f0=100.0, f_inf=20.0, transform="linear") == pytest.approx(0.75)  # (80 - 20) / 80
    # eps shifts away from zero before T: (T0 - T(f - f_inf + eps)) / (T0 - T(eps))
    t0 = math.log10(100 - 1 + 1)
    assert P(11.0, f_inf=1.0, eps=1.0) == pytest.approx((t0 - math.log10(11)) / (t0 - 0))
    assert P(1e-8, f0=1e-9) == 1  # no room (f0 + delta <= f_inf): reaching f_inf counts 1


# -- properties --------------------------------------------------------------------------------
record = st.tuples(st.integers(1, 50), st.floats(1e-10, 1e4))
trial = st.lists(record, min_size=1, max_size=6)
problem_set = st.lists(st.lists(trial, min_size=1, max_size=3), min_size=1, max_size=3)


def frames(functions, dim=2):
    """runs/events of functions 1..n: functions = [[trial records (eval increment, best_delta)]]."""
    runs, events, rid = [], [], 0
    for f, trials in enumerate(functions, start=1):
        for j, recs in enumerate(trials):
            t = 0
            for inc, v in recs:
                t += inc
                events.append(dict(run_id=rid, evaluations=t, best_delta=v, trigger=3))
            runs.append(dict(run_id=rid, suite="bbob", algorithm="A", function=f, dimension=dim, instance=j + 1,
                             trial=j, evaluations=t, final_delta=min(v for _, v in recs)))
            rid += 1
    schema = {"function": pl.Int32, "dimension": pl.Int32}
    return (pl.LazyFrame(runs).with_columns(pl.col(c).cast(t) for c, t in schema.items()),
            pl.LazyFrame(events))


rules = st.sampled_from([pr.Settings(), pr.Settings(transform="linear", f_inf="observed"),
                         pr.Settings(f_inf="observed", eps="improvement", delta="first-improvement")])


@settings(max_examples=40, deadline=None)
@given(problem_set, rules)
def test_run_profiles_never_decrease_and_stay_in_0_1(functions, s):
    runs, events = frames(functions)
    rp = pr.checked_run_profiles(runs, events, s).collect().sort("run_id", "evaluations")
    assert rp["value"].is_between(0.0, 1.0).all()
    assert rp.select((pl.col("value").diff().over("run_id") >= 0) | pl.col("value").diff().over("run_id").is_null()
                     ).to_series().all()
    steps = pr.profile(runs, events, "all", s).collect()
    assert steps["value"].is_between(0.0, 1.0).all() and (steps["value"].diff().drop_nulls() > 0).all()
    # the final value is the mean over functions of the mean over trials of the trials' final values
    finals = rp.group_by("run_id", "function").agg(pl.col("value").max())
    expected = finals.group_by("function").agg(pl.col("value").mean())["value"].mean()
    assert (steps["value"][-1] if steps.height else 0.0) == pytest.approx(expected, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(problem_set, st.data(), rules)
def test_copies_of_one_functions_trials_leave_the_aggregate_unchanged(functions, data, s):
    k = data.draw(st.integers(0, len(functions) - 1))
    doubled = [trials * 2 if i == k else trials for i, trials in enumerate(functions)]
    one = pr.profile(*frames(functions), "all", s).collect()
    two = pr.profile(*frames(doubled), "all", s).collect()
    assert one["x"].to_list() == two["x"].to_list()
    assert one["value"].to_list() == pytest.approx(two["value"].to_list(), abs=1e-12)


@settings(max_examples=15, deadline=None)
@given(problem_set)
def test_default_profile_is_the_ecdf_of_dense_log_uniform_targets(functions):
    # with f_inf = eps = 1e-8 and T = log10, P(f) is the fraction of log-uniform targets between
    # f0 and 1e-8 that f reaches: the trials' ECDF over N such targets per function (seed 000's
    # first hitting times, no restarts) is within 1/N of the profile at every x.
    n = 1000
    runs, events = frames(functions)
    p = pr.parameters(runs, events).collect()
    grid = pl.DataFrame({"k": range(n)}).with_columns(u=(pl.col("k") + 0.5) / n)
    tg = p.join(grid, how="cross").select("function", target=10 ** (pl.col("f0").log10()
                                                                    - pl.col("u") * (pl.col("f0").log10() + 8)))
    hits = spec.hitting_times(runs, events, tg.lazy(), exact=True).collect()
    steps = pr.profile(runs, events, "all").collect()
    xs = sorted({e / 2 for e in events.collect()["evaluations"]})
    for x in xs:
        ecdf = hits.group_by("function").agg(((pl.col("hit") <= x * 2) & pl.col("success")).mean())["hit"].mean()
        below = steps.filter(pl.col("x") <= x)["value"]
        assert (below[-1] if below.len() else 0.0) == pytest.approx(ecdf, abs=1.0 / n + 1e-9)


# -- command line and every shared data set ----------------------------------------------------
def test_cli_hand_made(hand, tmp_path):
    out = tmp_path / "p.csv"
    r = cli("profile", "--store", hand.path, "--group", "all", "--dimension", 2, "--out", out)
    assert r.returncode == 0, r.stderr
    assert_steps([(x, v) for x, v in pl.read_csv(out).select("x", "value").rows()], ALL)
    # a budget cut at 4 evaluations = 2x keeps the records up to t = 4
    r = cli("profile", "--store", hand.path, "--group", "all", "--max-budget", "2x", "--out", out)
    assert r.returncode == 0, r.stderr
    assert_steps([(x, v) for x, v in pl.read_csv(out).select("x", "value").rows()], ALL[:3])


@pytest.mark.parametrize("args, message", [(["--group", "separable"], "group separable"),
                                           (["--f0", "high"], "f0 'high'"),
                                           (["--transform", "log"], "transform 'log'"),
                                           (["--dimension", 7], "no dimension 7 in the store")])
def test_cli_bad_input_is_one_line(hand, args, message):
    r = cli("profile", "--store", hand.path, *args)
    assert r.returncode == 1 and message in r.stderr and len(r.stderr.strip().splitlines()) == 1


@pytest.fixture(scope="module")
def shared_store(tmp_path_factory):
    shared_or_skip()
    st_ = Store(tmp_path_factory.mktemp("shared") / "store", create=True)
    ingest([SHARED / "data" / "generated", SHARED / "data" / "real"], st_)
    return st_


def test_every_shared_data_set(shared_store, tmp_path):
    out, summ = tmp_path / "p.parquet", tmp_path / "s.parquet"
    for args, path in (([], out), (["--summary"], summ)):
        r = cli("profile", "--store", shared_store.path, *args, "--out", path)
        assert r.returncode == 0, r.stderr
    df, s = pl.read_parquet(out), pl.read_parquet(summ)
    assert set(df["suite"]) == {"bbob", "bbob-noisy", "bbob-biobj", "bbob-constrained", "bbob-mixint"}
    assert df["value"].is_between(0.0, 1.0).all() and df.select(pl.col("x") > 0).to_series().all()
    keys = ["suite", "algorithm", "dimension", "group"]
    rises = df.sort(*keys, "x").select((pl.col("value").diff().over(keys) > 0) | pl.col("value").diff().over(keys)
                                       .is_null(), (pl.col("x").diff().over(keys) > 0) | pl.col("x").diff().over(keys)
                                       .is_null())
    assert rises.to_series(0).all() and rises.to_series(1).all()
    # every (suite, algorithm, dimension) has an "all" group; the summary's final value is the last step
    assert s.filter(pl.col("group") == "all").height == s.select("suite", "algorithm", "dimension").unique().height
    last = df.group_by(keys).agg(last=pl.col("value").sort_by("x").last())
    both = s.join(last, on=keys, how="inner")
    assert both.height == last.height
    assert (both["final_value"] - both["last"]).abs().max() < 1e-9
    # equal weight per function: "all" is the mean of the per-function final values
    f = s.filter(pl.col("group").str.contains(r"^f\d+$")).group_by("suite", "algorithm", "dimension").agg(
        mean=pl.col("final_value").mean())
    a = s.filter(pl.col("group") == "all").join(f, on=["suite", "algorithm", "dimension"])
    assert (a["final_value"] - a["mean"]).abs().max() < 1e-9


def test_profiles_computed_per_group_of_algorithms_equal_the_whole(shared_store):
    a = open_store(shared_store.path, dimension=[2, 3])
    assert len(a.algorithms()) > 2
    for method in ("profile", "profile_summary"):
        whole = getattr(a.select(group_size=None), method)().collect()
        parts = getattr(a.select(group_size=2), method)().collect()
        keys = ["suite", "algorithm", "dimension", "group"] + (["x"] if "x" in whole.columns else [])
        assert_frame_equal(parts.sort(keys), whole.sort(keys), check_exact=False, rel_tol=1e-12, abs_tol=1e-12)
