"""Area under the ECDF and rankings: parity with the shared oracle, hand-computed cases, properties."""
from __future__ import annotations

import csv
import subprocess
import sys

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings, strategies as st

from conftest import SHARED, shared_or_skip
from pipeline.api import Analysis
from pipeline.ingest import ingest
from pipeline.hits import spec, targets
from pipeline.measures import auc, glicko, ranking
from pipeline.measures._kernels import glicko2 as glicko_kernel
from pipeline.store import Store
from test_measures_hand import frames

FOUR = ["real/DIRECT_posik_noiseless.tgz", "real/BrentSTEPqi_Posik.tgz", "generated/NM_on_bbob.tgz",
        "generated/RS_on_bbob.tgz"]


def parity(mode, ours, oracle):
    return subprocess.run([sys.executable, str(SHARED / "tools" / "parity.py"), mode, str(ours), str(oracle)],
                          capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def shared4(tmp_path_factory):
    shared_or_skip()
    st_ = Store(tmp_path_factory.mktemp("shared4"), create=True)
    ingest([SHARED / "data" / p for p in FOUR], st_)
    return st_


def cli(*args):
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *map(str, args)], capture_output=True, text=True)


def test_auc_parity(shared4, tmp_path):
    out = tmp_path / "auc.csv"
    r = cli("auc", "--store", shared4.path, "--out", out, "--by-group")
    assert r.returncode == 0, r.stderr
    assert "PARITY OK" in parity("auc", out, SHARED / "oracle" / "bbob-shared4.auc.csv")
    groups = pl.read_csv(tmp_path / "auc.groups.csv")
    assert set(groups["group"]) >= {"all"}


@pytest.mark.parametrize("dim", [2, 3, 5, 10])
def test_rank_parity(shared4, tmp_path, dim):
    ours = tmp_path / "rank.csv"
    assert cli("rank", "--store", shared4.path, "--by", "auc", "--dimension", dim, "--out", ours).returncode == 0
    with open(SHARED / "oracle" / "bbob-shared4.rank.csv") as fh:
        rows = [r for r in csv.DictReader(fh) if int(r["dimension"]) == dim]
    ref = tmp_path / "ref.csv"
    with open(ref, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    assert "PARITY OK" in parity("rank", ours, ref)


def test_auc_a_group_of_algorithms_at_a_time_is_the_auc_of_all_at_once(shared4):
    """The areas of groups end at the budgets of all the algorithms (NM's and RS's budgets are not DIRECT's)."""
    at_once = Analysis(shared4, group_size=None).auc().collect()
    for size in (1, 3):
        assert Analysis(shared4, group_size=size).auc().collect().equals(at_once)
    alone = Analysis(shared4, algorithm="NM", group_size=None).auc().collect()
    assert not alone.equals(at_once.filter(pl.col("algorithm") == "NM"))  # its own budgets: other areas


def test_the_auc_of_a_cut_selection_is_the_area_of_the_whole_trials_up_to_the_cut(shared4):
    from pipeline.hits.budget import Budget

    cut = Budget.parse("300")
    whole = Analysis(shared4, dimension=[2, 5])
    up_to = auc.auc(whole.hits(), auc.budgets(whole.runs(), cut)).collect()
    assert Analysis(shared4, dimension=[2, 5], max_budget="300").auc().collect().equals(up_to)
    assert set(up_to["budget"]) == {300.0}


def test_auc_by_hand():
    # 2-D, budget 200: width log10(200 / 2) = 2; hits at 2 and 20 evaluations give areas 2 and 1; a failure 0
    runs, ev = frames([(1, [(2, 0.5)], 50), (2, [(1, 5.0), (20, 0.5)], 60), (3, [(1, 5.0)], 70)])
    h = spec.hitting_times(runs, ev, targets.frame([1.0]))
    b = pl.LazyFrame({"suite": ["bbob"], "function": [1], "dimension": [2], "budget": [200.0]},
                     schema_overrides={"function": pl.Int64, "dimension": pl.Int64})
    got = auc.auc(h, b).collect()
    assert got["auc"][0] == pytest.approx((2 + 1 + 0) / (3 * 2))


def test_default_budget_rule():
    runs = pl.LazyFrame(dict(suite=["bbob"] * 4, algorithm=["A", "A", "B", "B"], function=[1] * 4, dimension=[2] * 4,
                             evaluations=[100, 300, 50, 400], final_delta=[1e-9, 1.0, 1e-9, 1e-9]))
    # A's budget: its unsuccessful trial (300); B solved everything and sets no limit
    assert auc.default_budgets(runs).collect()["budget"].to_list() == [300.0]
    runs2 = runs.with_columns(final_delta=pl.lit(1e-9))
    assert auc.default_budgets(runs2).collect()["budget"].to_list() == [400.0]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 500), st.booleans()), min_size=1, max_size=8), st.integers(1, 400))
def test_auc_never_decreases_when_hitting_times_decrease(trials, shift):
    b = pl.LazyFrame({"suite": ["bbob"], "function": [1], "dimension": [2], "budget": [1000.0]},
                     schema_overrides={"function": pl.Int64, "dimension": pl.Int64})

    def value(ts):
        rs = [(i + 1, [(1, 5.0)] + ([(t, 0.5)] if ok else []), 600) for i, (t, ok) in enumerate(ts)]
        runs, ev = frames(rs)
        return auc.auc(spec.hitting_times(runs, ev, targets.frame([1.0])), b).collect()["auc"][0]

    faster = [(max(1, t - shift), ok) for t, ok in trials]
    assert value(faster) >= value(trials) - 1e-12


def test_three_algorithms_with_known_dominance_are_ranked_by_both_methods():
    runs, events = [], []
    rid = 0
    for alg, speed in (("fast", 1), ("mid", 5), ("slow", 25)):
        for f in range(1, 5):
            for inst in range(1, 6):
                hit = speed * (10 + inst)
                runs.append(dict(run_id=rid, suite="bbob", algorithm=alg, function=f, dimension=2, instance=inst,
                                 trial=inst - 1, evaluations=hit, final_delta=0.0))
                events += [dict(run_id=rid, evaluations=1, best_delta=10.0, trigger=3),
                           dict(run_id=rid, evaluations=hit, best_delta=0.0, trigger=3)]
                rid += 1
    r, e = pl.LazyFrame(runs), pl.LazyFrame(events)
    h = spec.hitting_times(r, e, targets.frame(targets.BBOB))
    a = auc.auc(h, auc.default_budgets(r.with_columns(evaluations=pl.lit(1000))))
    by_auc = ranking.rank_by_auc(a)
    assert by_auc.sort("rank")["algorithm"].to_list() == ["fast", "mid", "slow"]
    assert by_auc["friedman_p"][0] < 0.05
    # 4 functions, 3 algorithms: CD = 2.343 sqrt(12/24) = 1.657 > 2 - 1, so only fast-slow (2 apart) differ
    assert by_auc["critical_difference"][0] == pytest.approx(2.3437 * 0.5 ** 0.5, rel=1e-3)
    assert ranking.cliques(by_auc)["algorithms"].to_list() == [["fast", "mid"], ["mid", "slow"]]
    by_glicko = ranking.glicko2(h)
    assert by_glicko.sort("rank")["algorithm"].to_list() == ["fast", "mid", "slow"]
    assert (by_glicko["deviation"] > 0).all()


def test_nemenyi_critical_difference_matches_demsars_table():
    # Demšar (2006), Table 5a: q_0.05 = 2.343 for k = 3 and 2.569 for k = 4; CD = q sqrt(k(k+1)/(6N))
    assert ranking.nemenyi_cd(3, 10) == pytest.approx(2.343 * (3 * 4 / 60) ** 0.5, rel=1e-3)
    assert ranking.nemenyi_cd(4, 14) == pytest.approx(2.569 * (4 * 5 / 84) ** 0.5, rel=1e-3)
    assert ranking.nemenyi_cd(4, 56) < ranking.nemenyi_cd(4, 14)  # more problems, finer resolution


def test_cliques_join_algorithms_within_the_critical_difference():
    # mean ranks 1.0, 1.5, 2.9, 3.2 with CD 1.0: {a, b} and {c, d} are cliques, b and c differ
    r = pl.DataFrame({"algorithm": ["a", "b", "c", "d"], "score": [1.0, 1.5, 2.9, 3.2],
                      "critical_difference": [1.0] * 4})
    c = ranking.cliques(r)
    assert c["algorithms"].to_list() == [["a", "b"], ["c", "d"]]
    assert c["low"].to_list() == [1.0, 2.9] and c["high"].to_list() == [1.5, 3.2]
    # with CD 1.5, b and c (1.4 apart) join too, b and d (1.7 apart) do not: three overlapping cliques
    c = ranking.cliques(r.with_columns(critical_difference=pl.lit(1.5)))
    assert c["algorithms"].to_list() == [["a", "b"], ["b", "c"], ["c", "d"]]
    # far apart: no clique at all
    assert ranking.cliques(r.with_columns(critical_difference=pl.lit(0.1))).height == 0


def test_glicko2_period_matches_glickmans_example():
    import numpy as np

    r, rd = np.array([1500, 1400, 1550, 1700.0]), np.array([200, 30, 100, 300.0])
    games, score = np.zeros((4, 4)), np.zeros((4, 4))
    for j, o in ((1, 1), (2, 0), (3, 0)):
        games[0, j] = games[j, 0] = 1
        score[0, j], score[j, 0] = o, 1 - o
    mu, phi, sig = glicko.period((r - 1500) / glicko.SCALE, rd / glicko.SCALE, np.full(4, 0.06), score, games)
    assert 1500 + glicko.SCALE * mu[0] == pytest.approx(1464.06, abs=0.01)
    assert glicko.SCALE * phi[0] == pytest.approx(151.52, abs=0.01)
    assert sig[0] == pytest.approx(0.05999, abs=1e-5)


def test_measures_per_group_of_algorithms_equal_the_whole(shared4):
    whole = (Analysis(shared4, group_size=None).art(dispersion=False).collect()
             .sort("algorithm", "function", "dimension", "target"))
    parts = Analysis(shared4, group_size=1).art(dispersion=False).collect().sort("algorithm", "function", "dimension", "target")
    assert whole.equals(parts)


def test_art_dispersion_does_not_depend_on_the_selection_nor_its_grouping(shared4):
    # one generator per (suite, algorithm, dimension): an algorithm's p10/p50/p90 are the same alone,
    # among others, computed in one group or in groups of one (balanced over the workers)
    key = ["algorithm", "function", "dimension", "target"]
    whole = Analysis(shared4, group_size=None).art(dispersion=True, samples=30).collect().sort(key)
    parts = Analysis(shared4, group_size=1).art(dispersion=True, samples=30).collect().sort(key)
    assert whole.equals(parts)
    alg = whole["algorithm"].unique().sort()[1]
    alone = Analysis(shared4).select(algorithm=[alg]).art(dispersion=True, samples=30).collect().sort(key)
    assert alone.equals(whole.filter(pl.col("algorithm") == alg))
    assert whole["p90"].drop_nulls().len() > 0 and (whole["p10"] <= whole["p90"]).all()
    # so do the bootstrap intervals of aRT
    conf = [Analysis(shared4, group_size=c).art(dispersion=False, confidence=0.9, samples=30).collect().sort(key)
            for c in (None, 1)]
    assert conf[0].equals(conf[1]) and conf[0]["art_high"].drop_nulls().len() > 0
    # and the bootstrap bands of the ECDF
    band = Analysis(shared4).ecdf_band(replicates=20).collect()
    alone = Analysis(shared4).select(algorithm=[alg]).ecdf_band(replicates=20).collect()
    assert alone.equals(band.filter(pl.col("algorithm") == alg)) and alone.height > 0


def test_info_lists_what_the_store_holds(shared4):
    r = cli("info", "--store", shared4.path, "--out", "-")
    assert r.returncode == 0
    lines = r.stdout.strip().splitlines()
    assert lines[0].startswith("suite,algorithm,runs") and len(lines) == 5


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 9), st.integers(1, 6), st.integers(0, 2 ** 31))
def test_glicko2_round_period_equals_the_matrix_form(k, nprob, seed):
    # one round: on each problem, the players present draw one runtime; wins summed over problems
    import numpy as np

    rng = np.random.default_rng(seed)
    n = k + 2
    mu, phi, sigma = rng.normal(0, 1, n), rng.uniform(0.2, 2, n), rng.uniform(0.03, 0.09, n)
    g = 1 / np.sqrt(1 + 3 * phi ** 2 / np.pi ** 2)
    score, games, wins = np.zeros((n, n)), np.zeros((n, n)), np.zeros(n)
    for _ in range(nprob):
        sel = np.sort(rng.choice(n, size=k, replace=False))  # two players sit each problem out
        d = rng.integers(0, 5, (k, 1)).astype(float)
        d[d == 4] = np.inf  # unsuccessful draws tie with each other
        win = (d[:, None, 0] < d[None, :, 0]) + 0.5 * (d[:, None, 0] == d[None, :, 0])
        np.fill_diagonal(win, 0)
        score[np.ix_(sel, sel)] += win
        games[np.ix_(sel, sel)] += 1
        codes = np.where(np.isinf(d[:, 0]), 4, d[:, 0]).astype(np.int64)  # runtimes as ordered integer codes
        wins += glicko_kernel.round_wins(codes, sel, np.zeros(k, np.int64), np.arange(k), (1, k), g, n)
    np.fill_diagonal(games, 0)
    want = glicko.period(mu, phi, sigma, score, games)
    got = glicko_kernel.round_period(mu, phi, sigma, wins, games)
    for w, x in zip(want, got):
        assert np.allclose(x, w, rtol=1e-8, atol=0)  # the volatility's iteration stops at 1e-6


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 9), st.integers(1, 8), st.integers(0, 2 ** 31))
def test_round_wins_by_sorting_equal_all_pairs(k, rows, seed):
    # rows = problems, each with the players present on it (the rest of the row is padding)
    import numpy as np

    rng = np.random.default_rng(seed)
    d = rng.integers(0, 5, (rows, k)).astype(float)
    d[d == 4] = np.inf
    present = rng.random((rows, k)) < 0.7
    g = rng.uniform(0.5, 1, k)
    brute = np.zeros(k)
    for r in range(rows):
        for i in np.flatnonzero(present[r]):
            for j in np.flatnonzero(present[r]):
                if i != j:
                    brute[i] += g[j] * ((d[r, j] > d[r, i]) + 0.5 * (d[r, j] == d[r, i]))
    # the players present on each row, ascending from the left, runtimes as ordered integer codes
    row, player = np.nonzero(present)
    col = np.arange(len(row)) - np.searchsorted(row, row)
    codes = np.where(np.isinf(d), 4, d).astype(np.int64)[row, player]
    got = glicko_kernel.round_wins(codes, player, row, row * k + col, (rows, k), g, k)
    assert np.allclose(got, brute, rtol=1e-12)


def test_glicko2_stays_finite_with_many_algorithms():
    # 60 algorithms in four families of very different speed, each family winning on a different
    # quarter of the problems: a period per problem let the volatility run away here
    import numpy as np

    rng = np.random.default_rng(5)
    rows = []
    for f in range(1, 25):
        for alg in range(60):
            family = alg % 4
            fast = (f - 1) % 4 == family
            for _trial in range(5):
                hit = rng.lognormal(2 if fast else 6 + family, 0.5)
                rows.append(dict(dimension=2, algorithm=f"A{alg:02d}", function=f, target=1.0, hit=hit))
    r = ranking.glicko2(pl.LazyFrame(rows), rounds=10)
    assert r["score"].is_finite().all() and r["score"].abs().max() < 5000
    assert r["volatility"].max() < 1 and r["deviation"].max() < 350


def test_glicko2_does_not_depend_on_the_order_of_the_rows(shared4):
    h = Analysis(shared4, dimension=2).hits().collect()
    a = ranking.glicko2(h.lazy(), rounds=5)
    b = ranking.glicko2(h.sample(fraction=1.0, shuffle=True, seed=3).lazy(), rounds=5)
    assert a.equals(b)


@pytest.mark.parametrize("by_dimension", [True, False])
def test_glicko2_equals_the_reference_implementation_on_real_data(shared4, by_dimension):
    # the vectorised rating reproduces the first (per-problem) implementation, draws included
    from glicko2_reference import glicko2_reference

    h = Analysis(shared4).hits().collect().lazy()
    got, want = ranking.glicko2(h, rounds=4, seed=7, by_dimension=by_dimension), glicko2_reference(
        h, rounds=4, seed=7, by_dimension=by_dimension)
    assert got["algorithm"].to_list() == want["algorithm"].to_list()
    for c in ("score", "deviation", "volatility"):
        assert np.allclose(got[c].to_numpy(), want[c].to_numpy(), rtol=1e-12, atol=1e-9), c


def test_glicko2_equals_the_reference_with_missing_algorithms_ties_and_failures():
    # 12 algorithms, some absent from some problems (a problem with one algorithm plays no game),
    # runtimes on a coarse grid (ties) and unsuccessful trials (null)
    from glicko2_reference import glicko2_reference

    rng = np.random.default_rng(11)
    rows = []
    for dim in (2, 5):
        for f in range(1, 7):
            for target in (1.0, 1e-2, 1e-5):
                present = range(12) if f != 3 else [4]
                for alg in present:
                    if (alg + f) % 5 == 0:
                        continue
                    for _trial in range(rng.integers(1, 6)):
                        hit = None if rng.random() < 0.3 else float(rng.integers(1, 6) * 10 ** (alg % 3))
                        rows.append(dict(dimension=dim, algorithm=f"A{alg:02d}", function=f, target=target, hit=hit))
    h = pl.LazyFrame(rows, schema_overrides={"hit": pl.Float64})
    for by_dimension in (True, False):
        got, want = ranking.glicko2(h, rounds=6, by_dimension=by_dimension), glicko2_reference(
            h, rounds=6, by_dimension=by_dimension)
        assert got["algorithm"].to_list() == want["algorithm"].to_list()
        for c in ("score", "deviation", "volatility"):
            assert np.allclose(got[c].to_numpy(), want[c].to_numpy(), rtol=1e-12, atol=1e-9), c


def test_glicko2_equals_the_reference_with_runtimes_too_large_for_one_key():
    # runtimes near 3e16 evaluations: the cells still fit one integer key with them, the rounds'
    # (problem, runtime, player) key does not, so the draws are sorted row by row instead
    from glicko2_reference import glicko2_reference

    rng = np.random.default_rng(3)
    rows = [dict(dimension=2, algorithm=f"A{alg:02d}", function=f, target=target,
                 hit=None if rng.random() < 0.2 else int(rng.integers(1, 3 * 10 ** 16 // 8)) * 8)
            for f in range(1, 5) for target in (1.0, 1e-2, 1e-5) for alg in range(12) for _ in range(3)]
    rows[0]["hit"] = 3 * 10 ** 16  # 144 cells x (3e16 + 2) < 2^62 <= 12 problems x 13 x (3e16 + 2)
    h = pl.LazyFrame(rows, schema_overrides={"hit": pl.Int64})
    got, want = ranking.glicko2(h, rounds=5), glicko2_reference(h, rounds=5)
    assert got["algorithm"].to_list() == want["algorithm"].to_list()
    for c in ("score", "deviation", "volatility"):
        assert np.allclose(got[c].to_numpy(), want[c].to_numpy(), rtol=1e-12, atol=1e-9), c
