"""The private kernels of the measures (`pipeline.measures._kernels`) equal the readable definitions in the
public modules beside them, on random small tables of hitting times: trials with hits and misses,
instance weights, repeated trial numbers, several problems and algorithms, rows in any order."""
from __future__ import annotations

import warnings
from unittest import mock

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings, strategies as st
from polars.testing import assert_frame_equal

from pipeline.measures import art as art_m, ecdf as E, ranking, restarts, significance
from pipeline.measures._kernels import ranksum, restarts as kr
from pipeline.vocabulary import PROBLEM_TARGET

TARGETS = [10.0, 1.0, 1e-2, 1e-8]
HIT_SCHEMA = {"run_id": pl.Int64, "suite": pl.String, "algorithm": pl.String, "function": pl.Int32,
              "dimension": pl.Int32, "instance": pl.Int32, "trial": pl.Int32, "evaluations": pl.Int64,
              "final_delta": pl.Float64, "weight": pl.Int64, "target": pl.Float64, "hit": pl.Int64,
              "success": pl.Boolean}


@st.composite
def hit_tables(draw, max_trials: int = 14, suites=("bbob",), algorithms="AB", functions=(1, 2),
               dimensions=(2, 5)) -> pl.DataFrame:
    """First hitting times of random trials: each trial a problem, an instance, a (possibly repeated)
    trial number, a weight, its evaluations and its hits of the targets (harder ones later; a hit beyond
    the evaluations is a miss); rows in random order."""
    targets = sorted(draw(st.lists(st.sampled_from(TARGETS), min_size=1, max_size=3, unique=True)), reverse=True)
    trials = draw(st.lists(st.tuples(
        st.sampled_from(suites), st.sampled_from(algorithms), st.sampled_from(functions),
        st.sampled_from(dimensions), st.integers(1, 3), st.integers(1, 4), st.sampled_from([1, 1, 2, 3]),
        st.integers(1, 400), st.lists(st.integers(1, 500), min_size=len(targets), max_size=len(targets))),
        min_size=1, max_size=max_trials))
    rows = []
    for run_id, (suite, alg, f, d, inst, trial, w, ev, hs) in enumerate(trials):
        for t, h in zip(targets, sorted(hs)):
            rows.append((run_id, suite, alg, f, d, inst, trial, ev, 0.0, w, t, h if h <= ev else None, h <= ev))
    df = pl.DataFrame(rows, schema=HIT_SCHEMA, orient="row")
    return df.sample(fraction=1.0, shuffle=True, seed=draw(st.integers(0, 2 ** 16)))


# -- simulated restarts and aRT ---------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(hit_tables(), st.integers(1, 40), st.integers(0, 2 ** 16), st.booleans())
def test_simulated_runtimes_are_the_draws_of_the_definition(hits, samples, seed, first_deterministic):
    got = restarts.simulated_runtimes(hits.lazy(), samples, seed, first_deterministic).collect()
    want = restarts.draw_restarts(restarts.balanced_trials(hits.lazy()).collect(), samples,
                                  np.random.default_rng(seed), first_deterministic)
    assert_frame_equal(got, want, check_exact=True)


@settings(max_examples=60, deadline=None)
@given(hit_tables(), st.integers(1, 40), st.integers(0, 2 ** 16), st.booleans())
def test_dispersion_is_the_percentiles_of_the_definition(hits, samples, seed, first_deterministic):
    pct = (0, 10, 37.5, 50, 90, 100)
    got = restarts.art_dispersion(hits.lazy(), pct, samples, seed, first_deterministic).collect()
    want = restarts.art_dispersion_spec(hits.lazy(), pct, samples, seed, first_deterministic).collect()
    assert_frame_equal(got, want, check_exact=True)


@settings(max_examples=60, deadline=None)
@given(hit_tables(), st.integers(1, 40), st.integers(0, 2 ** 16))
def test_art_in_one_pass_is_the_definition(hits, samples, seed):
    want = art_m.art_spec(hits.lazy()).join(restarts.art_dispersion_spec(hits.lazy(), (10, 50, 90), samples, seed),
                                            on=PROBLEM_TARGET, how="left").sort(**art_m.ORDER).collect()
    got = art_m.art(hits.lazy(), dispersion=True, samples=samples, seed=seed).collect()
    assert_frame_equal(got, want, check_exact=True)
    assert_frame_equal(art_m.art(hits.lazy()).collect(), art_m.art_spec(hits.lazy()).collect(), check_exact=True)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([1, 2]), st.sampled_from([1, 2]), st.integers(1, 3), st.integers(0, 3),
                          st.integers(1, 5000), st.integers(1, 6000)), min_size=1, max_size=30),
       st.integers(1, 150), st.booleans())
def test_art_in_one_pass_with_weights_of_zero_and_random_first_trials(rows, samples, deterministic):
    # (function, dimension index, instance, weight, evaluations, hit) of one trial each; hits beyond the
    # evaluations fail; rows in no order, repeated trial numbers, weights 0..3 (0 counts once in the draws)
    dims = {1: 2, 2: 5}
    hits = pl.DataFrame(
        [dict(run_id=i, suite="bbob", algorithm="A" if i % 3 else "B", function=f, dimension=dims[d],
              instance=inst, trial=i % 4, evaluations=ev, final_delta=0.0, weight=w, target=[1.0, 1e-3][i % 2],
              hit=h if h <= ev else None, success=h <= ev) for i, (f, d, inst, w, ev, h) in enumerate(rows)],
        schema_overrides={"function": pl.Int32, "dimension": pl.Int32, "instance": pl.Int32, "trial": pl.Int32})
    want = art_m.art_spec(hits.lazy()).join(
        restarts.art_dispersion_spec(hits.lazy(), samples=samples, seed=4, first_deterministic=deterministic),
        on=PROBLEM_TARGET, how="left").sort(**art_m.ORDER).collect()
    got = kr.art_one_pass(hits, True, samples=samples, seed=4, first_deterministic=deterministic)
    assert_frame_equal(got, want, check_exact=True, check_dtypes=False)


def test_art_with_nulls_is_the_definition():
    # a null weight: the kernel declines, the definition answers
    hits = pl.DataFrame([(0, "bbob", "A", 1, 2, 1, 1, 50, 0.0, None, 1.0, 20, True),
                         (1, "bbob", "A", 1, 2, 2, 2, 60, 0.0, 1, 1.0, None, False)], schema=HIT_SCHEMA, orient="row")
    assert kr.art_one_pass(hits) is None
    assert_frame_equal(art_m.art(hits.lazy()).collect(), art_m.art_spec(hits.lazy()).collect(), check_exact=True)


# -- the kernels' own steps ------------------------------------------------------------------------------
@given(st.lists(st.tuples(st.integers(0, 3), st.sampled_from([1e-8, 1.0, 100.0]), st.integers(-2, 4)), max_size=40))
@settings(max_examples=60, deadline=None)
def test_trial_order_is_the_lexicographic_order(rows):
    # by group, target, trial; repeated trial numbers keep their positions (as np.lexsort)
    g = np.array([r[0] for r in rows], np.int64)
    t = np.array([r[1] for r in rows], float)
    k = np.array([r[2] for r in rows], np.int64)
    assert kr.trial_order(g, t, k).tolist() == np.lexsort((k, t, g)).tolist()


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
    assert kr.trial_order(g, t, k, tie, run=run).tolist() == want.tolist()


def test_group_percentiles_by_hand_and_as_numpy_per_group():
    # groups 0: [4, 1, 3, 2] -> 10th 1.3, median 2.5, 90th 3.7; group 1 empty -> NaN; group 2: [5] -> 5
    sg = np.array([0, 0, 0, 0, 2])
    rt = np.array([4.0, 1.0, 3.0, 2.0, 5.0])
    p = kr.group_percentiles(sg, rt, 3, (10, 50, 90))
    assert np.allclose(p[:, 0], [1.3, 2.5, 3.7]) and np.isnan(p[:, 1]).all() and (p[:, 2] == 5.0).all()
    rng = np.random.default_rng(5)
    size = rng.integers(0, 9, 40)
    sg = np.repeat(np.arange(40), size)
    rt = rng.exponential(100.0, len(sg)).round()  # ties included
    got = kr.group_percentiles(sg, rt, 40, (10, 37.5, 90))
    for g in np.flatnonzero(size):
        assert np.allclose(got[:, g], np.percentile(rt[sg == g], [10, 37.5, 90]), rtol=0, atol=1e-9)


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
        sg, rt = kr.simulate(gid, cost, success, 4, samples, np.random.default_rng(seed), first_deterministic)
        want = kr.group_percentiles(sg, rt, 4, pcts)
        got = kr.restart_percentiles(gid, cost, success, 4, samples, np.random.default_rng(seed), pcts,
                                     first_deterministic)
        assert np.array_equal(got, want, equal_nan=True)


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
    got = kr.simulate(gid, cost, success, ng, samples, np.random.default_rng(seed), True, max_draws)
    rng = np.random.default_rng(seed)
    with mock.patch.object(kr, "_exact_sums", lambda values, draws: False):
        want = kr.simulate(gid, cost, success, ng, samples, rng, True, max_draws)
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
    assert kr._exact_sums(cost, 10) and not kr._exact_sums(cost + 0.5, 10)
    assert not kr._exact_sums(np.array([2.0 ** 50]), 10)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.sampled_from([0.0, -0.0, 1.0, 3.0, 2.5, -2.0, 2.0 ** 41, np.inf,
                                                              np.nan, 7.0])), min_size=1, max_size=30),
       st.booleans())
def test_values_sorted_within_groups_are_the_lexicographic_order(rows, as_int):
    # one integer sort where the values allow it, else the lexicographic sort: the same values, bit for bit
    rows = sorted(rows, key=lambda r: r[0])
    gid = np.array([r[0] for r in rows])
    values = np.array([r[1] for r in rows])
    if as_int:
        values = np.nan_to_num(values, nan=4.0, posinf=5.0).astype(np.int64)
    want = values[np.lexsort((values, gid))]
    got = kr._sorted_within(gid, values)
    assert got.dtype == want.dtype and got.tobytes() == want.tobytes()


@pytest.mark.parametrize("samples", [1, 7, 100])
def test_all_successful_samples_are_the_trials(samples):
    # with a deterministic first trial and every trial successful, the samples are the trials, each as often
    hits = pl.DataFrame([(i, "bbob", "A", 1, 2, 1, i, 100, 0.0, 1, 1.0, h, True) for i, h in enumerate([5, 9, 7])],
                        schema=HIT_SCHEMA, orient="row")
    rt = restarts.draw_restarts(restarts.balanced_trials(hits.lazy()).collect(), samples, np.random.default_rng(0))
    assert sorted(rt["runtime"].to_list()) == sorted([5.0, 9.0, 7.0] * -(-samples // 3))


# -- runtime ECDFs ---------------------------------------------------------------------------------------
def assert_same_steps(got: pl.DataFrame, want: pl.DataFrame, *values: str) -> None:
    """The same rows (keys and x exactly), and `values` equal up to the order of the sums behind them."""
    assert_frame_equal(got.drop(values), want.drop(values), check_exact=True)
    for v in values:
        assert np.allclose(got[v].to_numpy(), want[v].to_numpy(), rtol=1e-12, atol=1e-15), v


ecdf_hits = hit_tables(max_trials=16, suites=("bbob", "bbob-biobj"), functions=(1, 2, 6))


@settings(max_examples=50, deadline=None)
@given(ecdf_hits, st.sampled_from(E.MODES), st.integers(1, 30), st.integers(0, 2 ** 16),
       st.sampled_from([None, "all", "f2", ["f1", "all"]]), st.sampled_from([None, "budget", 60.0]))
def test_ecdf_tables_are_the_definition(hits, mode, samples, seed, group, max_x):
    if group is not None and group != "all" and not set(["f1", "f2"][:1 if group == ["f1", "all"] else 2]) & {
            f"f{f}" for f in hits["function"]}:
        group = None  # a group the selection lacks is an error (tested in test_ecdf.py)
    if group == "f2" and 2 not in set(hits["function"]):
        group = None
    kw = dict(group=group, mode=mode, max_x=max_x if mode != "exact" or max_x != 60.0 else "budget")
    got = E.ecdf(hits.lazy(), samples=samples, seed=seed, **kw).collect()
    want = E.ecdf_spec(hits.lazy(), samples=samples, seed=seed, **kw).collect()
    assert_same_steps(got, want, "fraction")
    got = E.ecdf_summary(hits.lazy(), **kw).collect()
    want = E.ecdf_summary_spec(hits.lazy(), **kw).collect()
    assert_same_steps(got, want, "final_fraction", "solvable_fraction", "median_max_evaluations")


# -- rank-sum tests ----------------------------------------------------------------------------------------
@st.composite
def records(draw, hits: pl.DataFrame) -> pl.DataFrame:
    """Records of the runs of `hits` (some without any): evaluations, precisions that need not fall, and
    .dat (1), .tdat (2) or both (3) triggers, in random order."""
    runs = hits.select("run_id", "algorithm").unique().sort("run_id").rows()
    rows = []
    for run_id, alg in runs:
        for e, b, t in draw(st.lists(st.tuples(st.integers(1, 500), st.sampled_from([1e-9, 1e-3, 0.5, 2.0, 7.0]),
                                               st.sampled_from([1, 2, 3])), max_size=6)):
            rows.append((run_id, alg, e, b, t))
    ev = pl.DataFrame(rows, schema={"run_id": pl.Int64, "algorithm": pl.String, "evaluations": pl.Int64,
                                    "best_delta": pl.Float64, "trigger": pl.Int8}, orient="row")
    return ev.sample(fraction=1.0, shuffle=True, seed=draw(st.integers(0, 99)))


tested_hits = hit_tables(max_trials=18, algorithms="ABC", functions=(1,), dimensions=(2, 3))


@settings(max_examples=60, deadline=None)
@given(tested_hits, st.data())
def test_precisions_looked_up_are_the_definition(hits, data):
    events = data.draw(records(hits))
    fes = data.draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 7.0, 99.5, 250.0, 600.0]), min_size=1, max_size=4))
    q = hits.select("algorithm", "run_id").unique().join(pl.DataFrame({"fe": fes}), how="cross")
    got = ranksum.precision_at(events.lazy(), q, chunk=data.draw(st.integers(1, 3))).sort("run_id", "fe")
    want = significance.precisions_spec(events.lazy(), q).sort("run_id", "fe")
    assert_frame_equal(got, want, check_exact=True)


@settings(max_examples=60, deadline=None)
@given(tested_hits, st.data())
def test_pairwise_tests_are_the_tests_pair_by_pair(hits, data):
    events = data.draw(records(hits))
    order = data.draw(st.permutations(sorted(hits["algorithm"].unique())))
    want = significance.pairwise_tests_spec(hits, events.lazy(), order)
    with mock.patch.object(ranksum, "BATCH_ALGORITHMS", data.draw(st.sampled_from([0, 16]))):  # group by group, all at once
        if want.height == 0:
            with pytest.raises(ValueError, match="two algorithms"):
                significance.pairwise_tests(hits, events.lazy(), order)
            return
        got = significance.pairwise_tests(hits, events.lazy(), order, chunk=data.draw(st.integers(1, 3)),
                                          threads=data.draw(st.sampled_from([1, 2])))
    assert_same_steps(got.select(want.columns), want, "p_value")


@settings(max_examples=60, deadline=None)
@given(tested_hits, st.data())
def test_best_and_reference_tests_are_the_tests_pair_by_pair(hits, data):
    events = data.draw(records(hits)).lazy()
    algorithms = sorted(hits["algorithm"].unique())
    order = data.draw(st.permutations(algorithms))
    reference = data.draw(st.sampled_from([None, *algorithms]))
    aRT = art_m.art(hits.lazy()).collect()
    final = hits.unique("run_id").group_by("suite", "dimension", "function", "algorithm").agg(
        medf=pl.col("final_delta").median())
    best, ref = significance.best_and_reference(hits, events, aRT, final, order, reference)

    def test(g: pl.DataFrame, x: str, y: str) -> significance.TestResult:
        def trials(a):
            t = g.filter(pl.col("algorithm") == a).sort("trial", "run_id")
            runs = t["run_id"].to_list()
            prec = lambda fe: significance.precisions_spec(events, pl.DataFrame({"run_id": runs, "fe": float(fe)}))  # noqa
            return (t["hit"].cast(pl.Float64).fill_null(np.nan).to_numpy(), t["evaluations"].cast(pl.Float64).to_numpy(),
                    lambda fe: prec(fe)["prec"].to_numpy())
        return significance.compare(*trials(x), *trials(y))

    best_rows = {r[:5]: r[5] for r in best.rows()}
    ref_rows = {r[:5]: r[5:] for r in ref.rows()} if ref is not None else {}
    art_of = {r[:5]: r[5] for r in aRT.select("suite", "dimension", "function", "target", "algorithm", "art").rows()}
    for key, g in hits.group_by("suite", "dimension", "function", "target"):
        algs = [a for a in order if a in set(g["algorithm"]) and a != reference]
        if len(algs) >= 2:
            arts = {a: art_of[(*key, a)] for a in algs}
            if not any(np.isfinite(v) for v in arts.values()):
                medf = {r[3]: r[4] for r in final.rows()}
                arts = {a: medf[a] for a in algs}
            b = min(algs, key=lambda a: (arts[a], algs.index(a)))
            res = [test(g, x, b) for x in algs if x != b]
            p_best = 1.0 if any(r.direction >= 0 for r in res) else max(r.p_marked for r in res)
            assert best_rows.pop((*key, b)) == pytest.approx(p_best, rel=1e-12, abs=0)
        if reference in set(g["algorithm"]):
            for x in algs:
                r = test(g, x, reference)
                p, d, c = ref_rows.pop((*key, x))
                assert (p, d, c) == (pytest.approx(r.p_value, rel=1e-12, abs=0), r.direction, r.consistent)
    assert not best_rows and not ref_rows


# -- Glicko-2 ----------------------------------------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(hit_tables(max_trials=24, algorithms="ABCD", functions=(1, 2)), st.integers(1, 6), st.integers(0, 2 ** 16),
       st.booleans())
def test_glicko2_ratings_are_the_definition(hits, rounds, seed, by_dimension):
    # the same draws and games; the rating periods from the games counted by sorting (the kernel) or from
    # the matrix of their scores (the definition) agree up to the volatility's iteration, which stops at 1e-6
    got = ranking.glicko2(hits.lazy(), rounds, seed, by_dimension)
    want = ranking.glicko2_spec(hits.lazy(), rounds, seed, by_dimension)
    keys = (["dimension"] if by_dimension else []) + ["algorithm"]
    got, want = got.sort(keys), want.sort(keys)
    assert got.select(keys).equals(want.select(keys))
    for c in ("score", "deviation", "volatility"):
        assert np.allclose(got[c].to_numpy(), want[c].to_numpy(), rtol=1e-8, atol=1e-9), c


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 25), st.integers(3, 9), st.booleans(), st.data())
def test_friedman_test_is_scipys_to_the_bit(blocks, treatments, tied, data):
    """The ranking's Friedman test without scipy.stats: scipy's statistic and p-value, ties (and blocks
    all tied: NaN) included."""
    from scipy import stats

    from pipeline.measures._kernels.friedman import friedman

    values = st.integers(0, 2).map(float) if tied else st.floats(0, 1)
    x = np.array(data.draw(st.lists(st.lists(values, min_size=treatments, max_size=treatments),
                                    min_size=blocks, max_size=blocks)))
    with warnings.catch_warnings():  # scipy warns of blocks all tied (a division by zero)
        warnings.simplefilter("ignore")
        want = stats.friedmanchisquare(*x.T)
    got = friedman(x)
    np.testing.assert_equal(got, (float(want.statistic), float(want.pvalue)))


@pytest.mark.parametrize("alpha", [0.01, 0.05, 0.1])
@pytest.mark.parametrize("k", [2, 3, 4, 5, 7, 10, 20, 50, 100, 200])
def test_studentized_range_quantile_is_scipys(k, alpha):
    """The Nemenyi critical difference's quantile without scipy.stats: scipy's studentized range quantile
    with infinite degrees of freedom (k = 2: sqrt(2) times the normal quantile of (1 + p) / 2)."""
    from scipy import stats

    from pipeline.measures._kernels.friedman import range_ppf

    assert range_ppf(1 - alpha, k) == pytest.approx(stats.studentized_range.ppf(1 - alpha, k, np.inf), rel=1e-12)
    if k == 2:
        assert range_ppf(1 - alpha, 2) == pytest.approx(2 ** 0.5 * stats.norm.ppf(1 - alpha / 2), rel=1e-12)
