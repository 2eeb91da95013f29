"""Fast paths of the rank-sum tests (`pipeline.measures.significance`): the U statistics of all pairs of
algorithms of a (problem, target) from one sort of their pooled scores, the p-values as scipy computes
them, and the precisions at FE_umin looked up in the records by binary search; equal to the test of
each pair on its own (`significance.compare`; tests/test_kernels.py, tests/test_tables.py).
"""
from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import polars as pl
from scipy import special
from threadpoolctl import threadpool_limits

from ...hits._kernel import running_min


def pair_counts(values: np.ndarray, labels: np.ndarray, k: int, rows: Sequence[int] | None = None
                ) -> tuple[np.ndarray, np.ndarray]:
    """U statistics and tie terms of all pairs of algorithms, from the pooled sorted scores of their trials.

    `values[i]` is the score of a trial of algorithm `labels[i]` (0 <= label < k; no NaN). For each
    algorithm a of `rows` (default all) and each algorithm b: `u[a, b]`, the U of a against b
    (pairs of trials where a's score is higher, ties counting 1/2), and `ties[a, b]`, the sum of
    t^3 - t over the groups of equal scores of the two samples pooled (scipy's tie term); the
    diagonal compares a sample with a copy of itself. Shapes (len(rows), k).

    With the scores sorted once into blocks of equal scores and `c[j, a]` the trials of algorithm a
    in block j, twice the pairs where a's trial ranks below b's plus the pairs of equal scores are
    sum_j c[j, b] (2 x a's trials in the blocks before j + c[j, a]): one matrix product for all
    pairs. The cross terms of the tie term (x y^2 + x^2 y per block, x and y the counts of the two
    samples in it) are two more. The counts are small integers, exact in the products (single
    precision while every sum stays below 2^24, else double).
    """
    values, labels = np.asarray(values), np.asarray(labels, np.int64)
    rows = np.arange(k) if rows is None else np.asarray(rows, np.int64)
    m = len(values)
    order = np.argsort(values, kind="stable")
    v = values[order]
    new = np.ones(m, bool)
    if m:
        np.not_equal(v[1:], v[:-1], out=new[1:])
    block = np.cumsum(new) - 1  # block of equal scores of each sorted trial
    nb = int(block[-1]) + 1 if m else 0
    n = np.bincount(labels, minlength=k)
    exact = np.float32 if 2 * int(n.max(initial=0)) ** 3 + 2 < 1 << 24 else np.float64
    c = np.bincount(block * k + labels[order], minlength=nb * k).reshape(nb, k).astype(exact)
    r = c[:, rows]
    ranked = np.cumsum(r, axis=0)
    ranked -= r
    ranked *= 2
    ranked += r  # [j, a]: 2 x a's trials in blocks before j + a's trials in block j
    twice_below = (c.T @ ranked).T.astype(np.float64)  # [a, b]: 2 (pairs a < b) + (pairs a = b)
    c2 = c * c
    cross = (c.T @ (r * r) + c2.T @ r).T.astype(np.float64)
    t_alg = (c2 * c - c).sum(axis=0, dtype=np.float64)  # t^3 - t of each sample alone
    u = n[rows, None] * n[None, :] - twice_below / 2
    ties = t_alg[rows, None] + t_alg[None, :] + 3.0 * cross
    diag = np.flatnonzero(rows < k)
    u[diag, rows] = n[rows] ** 2 / 2
    ties[diag, rows] = 8 * t_alg[rows] + 6 * n[rows]
    return u, ties


def ranksum_p(u: np.ndarray, n1: np.ndarray, n2: np.ndarray, ties: np.ndarray) -> np.ndarray:
    """Two-sided p-values of the normal approximation with tie and continuity corrections, computed
    as `scipy.stats.mannwhitneyu(method="asymptotic")` does (same operations, same rounding)."""
    u, n1, n2, ties = (np.asarray(v, float) for v in (u, n1, n2, ties))
    nn = n1 * n2
    big = np.maximum(u, nn - u)
    n = n1 + n2
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.sqrt(nn / 12 * ((n + 1) - ties / (n * (n - 1))))
        big -= nn / 2
        big -= 0.5
        big /= s
    p = special.ndtr(-big)
    p *= 2
    return np.clip(p, 0.0, 1.0, out=p)


def exact_wanted(n1: np.ndarray, n2: np.ndarray, ties: np.ndarray) -> np.ndarray:
    """Where scipy's method="auto" computes the exact p-value: a sample of at most 8 and no ties."""
    return ((np.asarray(n1) <= 8) | (np.asarray(n2) <= 8)) & (np.asarray(ties) == 0)


def _u_counts(n1: int, n2: int, maxu: int) -> np.ndarray:
    """How many of the C(n1 + n2, n1) orderings of two samples of sizes n1 <= n2 without ties give
    each U in 0..maxu: scipy's recurrence (`scipy.stats._mannwhitneyu._MWU.build_u_freqs_array`,
    Löffler's algorithm) with its integer and floating-point steps, so that the p-values are its own."""
    sigma = np.zeros(maxu + 1, dtype=int)
    for d in np.arange(1, n1 + 1):
        sigma[np.arange(d, maxu + 1, d)] += d
    for d in np.arange(n2 + 1, n2 + n1 + 1):
        sigma[np.arange(d, maxu + 1, d)] -= d
    sigma = sigma[1:]
    counts = np.zeros(maxu + 1, dtype=np.uint64)
    counts[0] = 1
    is_uint, uint_max = True, np.iinfo(np.uint64).max
    for u in np.arange(1, maxu + 1):
        value = np.dot(counts[:u], sigma[u - 1::-1]) / u
        if value > uint_max and is_uint:  # beyond uint64: floats from here on, as scipy
            counts, is_uint = counts.astype(float), False
        counts[u] = value
    return counts


def exact_table(n1: int, n2: int) -> np.ndarray:
    """scipy's exact two-sided p-value for samples of sizes n1, n2 without ties, for every U in
    0..n1 n2 (it depends on nothing else), computed as `scipy.stats.mannwhitneyu(method="exact")`
    does (twice the survival function at max(U, n1 n2 - U), summed from the left, clipped to 1;
    tests/test_tables.py holds it equal), without loading scipy.stats (0.7 s of imports)."""
    a, b = min(n1, n2), max(n1, n2)
    nn = a * b
    us = np.arange(nn + 1)
    left = nn - np.maximum(us, nn - us)  # the complement of max(U, nn - U), at most nn // 2
    cdf = np.cumsum(_u_counts(a, b, nn // 2) / special.binom(a + b, a))
    return np.clip(cdf[left] * 2, 0.0, 1.0)


def exact_p(n1: np.ndarray, n2: np.ndarray, u: np.ndarray, cache: dict | None = None) -> np.ndarray:
    """scipy's exact two-sided p-values for samples of sizes n1, n2 (no ties) with U of x `u`,
    looked up in `exact_table` (kept in `cache` between calls): the tables of the sizes present
    laid end to end, each test one index into them."""
    n1, n2 = np.asarray(n1, np.int64).reshape(-1), np.asarray(n2, np.int64).reshape(-1)
    u = np.asarray(u, float).reshape(-1)
    cache = {} if cache is None else cache
    if not len(u):
        return np.empty(0)
    width = int(n2.max()) + 1
    key = n1 * width + n2
    seen = np.zeros(int(key.max()) + 1, bool)
    seen[key] = True
    sizes = np.flatnonzero(seen)  # the (n1, n2) present, as keys
    tables = []
    for kk in sizes:
        a, b = divmod(int(kk), width)
        if (a, b) not in cache:
            cache[(a, b)] = exact_table(a, b)
        tables.append(cache[(a, b)])
    start = np.zeros(len(seen), np.int64)
    start[sizes] = np.cumsum([0] + [len(t) for t in tables[:-1]])
    return np.concatenate(tables)[start[key] + np.rint(u).astype(np.int64)]


def ranksum_matrix(samples: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """U (of row against column) and two-sided p-values of every pair of samples, equal to
    `scipy.stats.mannwhitneyu(x, y, alternative="two-sided")` (method "auto") on each pair; the
    diagonal compares a sample with itself. NaN in a sample gives NaN for its pairs, as scipy."""
    k = len(samples)
    samples = [np.asarray(s, float).reshape(-1) for s in samples]
    values = np.concatenate(samples) if k else np.zeros(0)
    labels = np.repeat(np.arange(k), [len(s) for s in samples])
    bad = np.array([bool(np.isnan(s).any()) for s in samples], bool)
    ok = ~np.isnan(values)
    u, ties = pair_counts(values[ok], labels[ok], k)
    n = np.array([len(s) for s in samples], float)
    n1, n2 = n[:, None] * np.ones(k), np.ones(k)[:, None] * n[None, :]
    p = ranksum_p(u, n1, n2, ties)
    ex = exact_wanted(n1, n2, ties)
    p[ex] = exact_p(n1[ex], n2[ex], u[ex])
    nan = bad[:, None] | bad[None, :]
    u[nan], p[nan] = np.nan, np.nan
    return u, p


def _pair_p(u: np.ndarray, n1: np.ndarray, n2: np.ndarray, ties: np.ndarray, nan_pair: np.ndarray, cache) -> np.ndarray:
    """Two-sided rank-sum p-values of pairs with U statistics `u` (as scipy: exact where it would be),
    and U = NaN, p = 1 for the pairs with a NaN sample (`u` is changed in place)."""
    p = ranksum_p(u, n1, n2, ties)
    exact = exact_wanted(n1, n2, ties)
    if exact.any():
        p[exact] = exact_p(n1[exact], n2[exact], u[exact], cache)
    u[nan_pair], p[nan_pair] = np.nan, 1.0
    return p


def _dense_scores(success: np.ndarray, value: np.ndarray) -> np.ndarray:
    """Scores ordered as cocopp's test data: every success above every other trial (by `value`
    within each kind); the values themselves where that order already holds."""
    if not success.any() or success.all() or value[~success].max() < value[success].min():
        return value
    late = np.unique(value[~success], return_inverse=True)[1].reshape(-1)
    succ = np.unique(value[success], return_inverse=True)[1].reshape(-1)
    out = np.empty(len(value))
    out[~success] = late
    out[success] = succ + late.max() + 1
    return out


def _scores_at(cell: np.ndarray, fe: np.ndarray, start: np.ndarray, n: np.ndarray, hit: np.ndarray, prec_of
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The trials of the cells `cell[t]` (trials `start[c]` to `start[c] + n[c]` of the trial arrays) scored at
    FE_umin `fe[t]`, one row per test padded to the most trials: (reached the target by fe, the score
    within its kind: 1/hit, or minus the precision at fe from `prec_of(trial indices, fe)`, and which
    entries are trials). Reached trials rank above all others, each kind by its score: the order of
    cocopp's test data (`_dense_scores`)."""
    counts = n[cell]
    j = np.arange(int(counts.max(initial=0)))
    real = j[None, :] < counts[:, None]
    idx = start[cell][:, None] + np.where(real, j[None, :], 0)
    h = hit[idx]
    fe2 = np.broadcast_to(fe[:, None], idx.shape)
    with np.errstate(invalid="ignore"):
        success = real & (h <= fe2)
    score = np.zeros(idx.shape)
    np.divide(1.0, h, out=score, where=success)
    late = real & ~success
    if late.any():
        score[late] = -prec_of(idx[late], fe2[late])
    return success, score, real


def _pair_terms(sx, vx, mx, sy, vy, my) -> tuple[np.ndarray, np.ndarray]:
    """U of x against y (pairs of trials where x's ranks higher, ties 1/2) and scipy's tie term of the two
    samples pooled (sum of t^3 - t over its groups of equal scores), per row of padded scores (`_scores_at`):
    each row's pooled trials sorted once (reached ones above the others, each kind by score; the padding
    last), U from the average ranks of x's trials, R_x - n_x (n_x + 1) / 2."""
    s, v, m = (np.concatenate(a, axis=1) for a in ((sx, sy), (vx, vy), (mx, my)))
    rows, width = s.shape
    kind = np.where(m, s.astype(np.int8), 2)
    o = np.argsort(np.where(m, v, 0.0), axis=1, kind="stable")
    o = np.take_along_axis(o, np.argsort(np.take_along_axis(kind, o, 1), axis=1, kind="stable"), 1)
    ks, vs = np.take_along_axis(kind, o, 1), np.take_along_axis(v, o, 1)
    new = np.ones((rows, width), bool)
    new[:, 1:] = (ks[:, 1:] != ks[:, :-1]) | (vs[:, 1:] != vs[:, :-1])
    starts = np.flatnonzero(new)  # blocks of equal scores, numbered across the rows
    block = np.cumsum(new.reshape(-1)) - 1
    size = np.diff(np.r_[starts, new.size])
    rank = (starts % width + (size + 1) / 2)[block].reshape(rows, width)  # 1-based average ranks
    in_x = np.take_along_axis(np.concatenate((mx, np.zeros_like(my)), axis=1), o, 1)
    nx = mx.sum(axis=1)
    u = np.where(in_x, rank, 0.0).sum(axis=1) - nx * (nx + 1) / 2
    real = ks.reshape(-1)[starts] < 2
    ties = np.bincount(starts // width, weights=np.where(real, size ** 3 - size, 0).astype(float), minlength=rows)
    return u, ties


def _pivot_batch(tx: np.ndarray, tp: np.ndarray, fe: np.ndarray, start: np.ndarray, n: np.ndarray, hit: np.ndarray,
                 prec_of, cache: dict, cells_per_step: int = 1 << 20) -> tuple[np.ndarray, np.ndarray]:
    """U of x against y and the two-sided p-value of every test t of the cells x = `tx[t]` and y = `tp[t]` on
    FE_umin `fe[t]` (U NaN and p 1 where a sample holds NaN, as `significance.ranksum`), in steps of tests
    whose pooled trials stay under `cells_per_step`."""
    u_all, p_all = np.empty(len(tx)), np.empty(len(tx))
    step = max(1, cells_per_step // (int(n.max(initial=1)) * 2))
    for a in range(0, len(tx), step):
        sl = slice(a, a + step)
        sx, vx, mx = _scores_at(tx[sl], fe[sl], start, n, hit, prec_of)
        sy, vy, my = _scores_at(tp[sl], fe[sl], start, n, hit, prec_of)
        bad = (np.isnan(vx) & mx).any(axis=1) | (np.isnan(vy) & my).any(axis=1)  # scipy: NaN, no test
        u, ties = _pair_terms(sx, vx, mx, sy, vy, my)
        nx, ny = n[tx[sl]].astype(float), n[tp[sl]].astype(float)
        p_all[sl] = _pair_p(u, nx, ny, ties, bad, cache)
        u_all[sl] = u
    return u_all, p_all


def _levels(g: np.ndarray, umin: np.ndarray, ngroups: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The levels of every group: its distinct FE_umin ascending (`levels`, group gi's from
    `start[gi]`), and the number of levels up to each (group, algorithm) row's own FE_umin."""
    o = np.lexsort((umin, g))
    gs, us = g[o], umin[o]
    new = np.ones(len(o), bool)
    new[1:] = (gs[1:] != gs[:-1]) | (us[1:] != us[:-1])
    level = np.cumsum(new) - 1  # global level of each row
    start = np.searchsorted(gs[new], np.arange(ngroups))
    count = np.empty(len(o), np.int64)
    count[o] = level - start[gs] + 1
    return us[new], start, count


def _group_counts(lab: np.ndarray, nlev: np.ndarray, rows: np.ndarray, score: np.ndarray, success: np.ndarray,
                  x: np.ndarray, y: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rank-sum counts of the pairs (x, y) of algorithms of one (problem, target).

    `lab`: algorithm of each trial (ascending), `nlev[a]`: the levels (distinct FE_umin of the group,
    ascending) up to algorithm a's own FE_umin, trial i's scores at levels 0, 1, ... in
    `score[rows[i]:rows[i + 1]]` (`success`: reached the target by that level's FE_umin), `n[a]` its
    trials. The test of a against b uses FE_umin = min of theirs: the pairs are counted together per
    level, each algorithm whose FE_umin is the level against all those of that level or above.
    Returns U of x against y, the tie term of the pair (`pair_counts`), and whether either
    sample holds NaN at the pair's FE_umin (no test, as scipy)."""
    k = len(n)
    ntl = np.repeat(nlev, n)  # levels of each trial
    u_all, t_all, nan_all = np.zeros((k, k)), np.zeros((k, k)), np.zeros((k, k), bool)
    for j in range(int(nlev.max())):
        pivots = np.flatnonzero(nlev == j + 1)
        if not len(pivots) or (nlev > j).sum() < 2:
            continue
        member = ntl > j
        at = rows[:-1][member] + j
        sc, lb, ok_ = score[at], lab[member], success[at]
        bad = np.zeros(k, bool)
        nan = np.isnan(sc)
        if nan.any():  # scipy gives NaN for samples with NaN: no test
            bad[np.unique(lb[nan])] = True
            keep = ~bad[lb]
            sc, lb, ok_ = sc[keep], lb[keep], ok_[keep]
        u, ties = pair_counts(_dense_scores(ok_, sc), lb, k, pivots)
        u_all[pivots], t_all[pivots], nan_all[pivots] = u, ties, bad[pivots][:, None] | bad[None, :]
    first = nlev[x] <= nlev[y]  # x's FE_umin is the pair's: its row holds the pair
    u = np.where(first, u_all[x, y], (n[x] * n[y]).astype(float) - u_all[y, x])
    return u, np.where(first, t_all[x, y], t_all[y, x]), np.where(first, nan_all[x, y], nan_all[y, x])


def sorted_trials(h: pl.DataFrame) -> pl.DataFrame:
    """`h` sorted by group g, algorithm a, trial, run_id: one stable sort of (g, a, trial) as one
    integer where the run ids already ascend among the rows equal in those (as the hits come),
    else polars' sort by the four columns."""
    cols = [h[c] for c in ("g", "a", "trial", "run_id")]
    if h.height and not any(c.has_nulls() for c in cols):
        g, a, trial, run = (c.to_numpy() for c in cols)
        low = int(trial.min())
        ab, tb = int(a.max()).bit_length(), (int(trial.max()) - low).bit_length()
        if min(g.min(), a.min()) >= 0 and int(g.max()).bit_length() + ab + tb <= 62:
            key = (g << (ab + tb)) | (a << tb) | (trial.astype(np.int64) - low)
            o = np.argsort(key, kind="stable")
            key, run = key[o], run[o]
            same = key[1:] == key[:-1]
            if not (run[1:][same] <= run[:-1][same]).any():
                return h[o]
    return h.sort("g", "a", "trial", "run_id")


def _record_table(events: pl.LazyFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The records `tests/tables_reference.Trajectories` reads (budget-triggered ones, or all of runs without any), one
    block per run, evaluations ascending in each, with the running minimum of the precision: (run
    id of each block, block starts, evaluations, best precision so far)."""
    ev = events.select("run_id", "evaluations", "best_delta", "trigger").collect()
    runs, evals = ev["run_id"].to_numpy(), ev["evaluations"].to_numpy()
    new = np.r_[True, runs[1:] != runs[:-1]] if len(runs) else np.zeros(0, bool)
    block = np.cumsum(new) - 1
    if len(runs) and (len(np.unique(runs[new])) < new.sum() or (np.diff(evals)[~new[1:]] < 0).any()):
        ev = ev.sort("run_id", "evaluations")  # the store's order is not one block per run, ascending
        runs, evals = ev["run_id"].to_numpy(), ev["evaluations"].to_numpy()
        new = np.r_[True, runs[1:] != runs[:-1]]
        block = np.cumsum(new) - 1
    best = ev["best_delta"].cast(pl.Float64).to_numpy()
    tdat = (ev["trigger"].to_numpy() & 2) != 0
    starts = np.flatnonzero(new)
    if len(runs):
        has_t = np.logical_or.reduceat(tdat, starts)
        keep = tdat | ~has_t[block]
        if not keep.all():
            runs, evals, best, block = runs[keep], evals[keep], best[keep], block[keep]
            new = np.r_[True, block[1:] != block[:-1]]
            starts = np.flatnonzero(new)
        best = running_min(best, new)
    return runs[starts], starts, evals, best


def precision_at(events: pl.LazyFrame, queries: pl.DataFrame, chunk: int = 16) -> pl.DataFrame:
    """`significance.precisions_spec`: (run_id, fe, prec), each queried run's best precision after `fe`
    evaluations, from the `events` of the queried runs (with their algorithm), read per group of `chunk`
    algorithms so that memory stays bounded (only the queried runs' records; two groups at a time, one
    read while the other is searched); each query one binary search in the records of its run
    (`_record_table`)."""
    algs = queries["algorithm"].unique().sort().to_list()

    def part_of(i: int) -> pl.DataFrame:
        part = algs[i:i + chunk]
        q = queries.filter(pl.col("algorithm").is_in(part)).select("run_id", pl.col("fe").cast(pl.Float64))
        asked = q["run_id"].unique()
        block_run, starts, evals, best = _record_table(
            events.filter(pl.col("algorithm").is_in(part), pl.col("run_id").is_in(asked.implode())))
        prec = np.full(q.height, np.inf)
        if len(evals):
            by_id = np.argsort(block_run)
            qrun, fe = q["run_id"].to_numpy(), q["fe"].to_numpy()
            pos = np.minimum(np.searchsorted(block_run[by_id], qrun), len(by_id) - 1)
            blk = by_id[pos]  # block of each query's run
            found = block_run[blk] == qrun
            low = int(evals.min())
            span = int(evals.max()) - low + 2  # (block, evaluations) as one sorted integer key
            keys = np.repeat(np.arange(len(starts)), np.diff(np.append(starts, len(evals)))) * span + (evals - low)
            last = np.clip(np.floor(fe) - low, -1, span - 2).astype(np.int64)  # the last record with evaluations <= fe
            j = np.searchsorted(keys, blk * span + last, side="right") - 1
            ok = found & (j >= starts[blk])
            prec[ok] = best[j[ok]]
        return q.with_columns(prec=pl.Series(prec))

    with ThreadPoolExecutor(2) as pool:
        out = list(pool.map(part_of, range(0, len(algs), chunk)))
    schema = {"run_id": queries.schema["run_id"], "fe": pl.Float64, "prec": pl.Float64}
    return pl.concat(out) if out else pl.DataFrame(schema=schema)


def precision_of(events: pl.LazyFrame, alg: np.ndarray, run: np.ndarray, fe: np.ndarray, order: list[str], chunk: int
                  ) -> np.ndarray:
    """The best precision of each run `run[i]` (of algorithm `order[alg[i]]`) after `fe[i]` evaluations
    (`precision_at`, asked once per distinct (run, fe))."""
    if not len(run):
        return np.empty(0)
    urun, rinv = np.unique(run, return_inverse=True)
    ufe, finv = np.unique(fe, return_inverse=True)
    key = rinv.reshape(-1) * len(ufe) + finv.reshape(-1)
    ukey, first, inv = np.unique(key, return_index=True, return_inverse=True)
    q = pl.DataFrame({"algorithm": pl.Series(order, dtype=pl.String).gather(alg[first]), "run_id": run[first],
                      "fe": fe[first]})
    q = q.sort("algorithm", maintain_order=True)  # precision_at answers group by group of algorithms, in order
    prec = precision_at(events, q, chunk)
    got = np.searchsorted(urun, prec["run_id"].to_numpy()) * len(ufe) + np.searchsorted(ufe, prec["fe"].to_numpy())
    vals = np.empty(len(ukey))
    vals[np.searchsorted(ukey, got)] = prec["prec"].to_numpy()
    return vals[inv.reshape(-1)]


# -- the tests of every algorithm of a (problem, target) against one (the best, or the reference) ---------
def pivot_tests(trials: pl.DataFrame, cells: pl.DataFrame, pivots: dict[int, list[int]], exclude: int,
                events: pl.LazyFrame, order: list[str], chunk: int = 16):
    """The tests of `significance.best_and_reference`: for every group gi (a (problem, target)) of
    `pivots` and each of its pivots (algorithm indices in `order`), the tests of the group's other
    algorithms (not `exclude`) against the pivot, each on the pair's own FE_umin (`_pivot_batch`).

    `trials`: g, o (algorithm index), algorithm, run_id, hitf (NaN where not reached), sorted by (g, o);
    `cells`: one row per (g, o) in that order with trials, umin (FE_umin), art_u and avg (cocopp's
    unbalanced aRT and average evaluations). Yields (gi, pivot, others, p, direction, consistent)."""
    pv = pl.DataFrame([(g, p) for g, ps in pivots.items() for p in ps], schema={"g": pl.Int64, "p": pl.Int64},
                      orient="row").join(cells.select("g", p="o", up="umin"), on=["g", "p"])
    # the precisions needed: of the late trials of both algorithms of each test at its FE_umin
    pairs = (cells.select("g", "o", "umin").join(pv, on="g").filter(pl.col("o") != pl.col("p"))
             .select("g", "o", "p", fe=pl.min_horizontal("umin", "up")).filter(pl.col("fe").is_finite()))
    q = (pl.concat([pairs.select("g", "o", "fe"), pairs.select("g", o="p", fe="fe")]).unique()
         .join(trials.select("g", "o", "algorithm", "run_id", "hitf"), on=["g", "o"])
         .filter(~(pl.col("hitf") <= pl.col("fe"))).select("algorithm", "run_id", "fe").unique())
    prec = precision_at(events, q, chunk).sort("run_id", "fe")
    ufe, urun = np.unique(prec["fe"].to_numpy()), np.unique(prec["run_id"].to_numpy())
    nfe = max(len(ufe), 1)
    pkeys = np.searchsorted(urun, prec["run_id"].to_numpy()) * nfe + np.searchsorted(ufe, prec["fe"].to_numpy())
    pvals = prec["prec"].to_numpy()

    ngroups = int(cells["g"].max()) + 1 if cells.height else 0
    pbounds = np.searchsorted(cells["g"].to_numpy(), np.arange(ngroups + 1))
    h_hit, h_run = trials["hitf"].to_numpy(), trials["run_id"].to_numpy()
    p_o, p_umin, p_n = cells["o"].to_numpy(), cells["umin"].to_numpy(), cells["trials"].to_numpy()
    art_u, avg = cells["art_u"].to_numpy(), cells["avg"].to_numpy()
    start = np.r_[0, np.cumsum(p_n)[:-1]]  # each cell's first trial (both sorted by (g, o))

    def prec_of(idx: np.ndarray, fe: np.ndarray) -> np.ndarray:
        return pvals[np.searchsorted(pkeys, np.searchsorted(urun, h_run[idx]) * nfe + np.searchsorted(ufe, fe))]

    # every test at once: (group, pivot) in order, the group's other algorithms (not `exclude`) ascending
    heads, tx, tp = [], [], []
    for gi in sorted(pivots):
        ps_, pe_ = pbounds[gi], pbounds[gi + 1]
        algs = p_o[ps_:pe_]
        for pivot in pivots[gi]:
            others = np.flatnonzero((algs != pivot) & (algs != exclude)) + ps_
            heads.append((gi, pivot, len(tx)))
            tx.extend(others.tolist())
            tp.extend([ps_ + int(np.searchsorted(algs, pivot))] * len(others))
    tx, tp = np.asarray(tx, np.int64), np.asarray(tp, np.int64)
    fe = np.minimum(p_umin[tx], p_umin[tp])  # each test on the pair's own FE_umin
    u, p = _pivot_batch(tx, tp, fe, start, p_n, h_hit, prec_of, {})
    d = np.where(np.isnan(u), 0, np.sign(u - p_n[tx] * p_n[tp] / 2)).astype(np.int64)
    xb, xw = np.where(d > 0, tx, tp), np.where(d > 0, tp, tx)
    cons = (d == 0) | ((art_u[xb] <= art_u[xw]) & (np.isinf(art_u[xb]) | (avg[xb] < avg[xw])))
    for i, (gi, pivot, a) in enumerate(heads):
        sl = slice(a, heads[i + 1][2] if i + 1 < len(heads) else len(tx))
        yield gi, pivot, p_o[tx[sl]], p[sl], d[sl], cons[sl]


# -- the tests of every pair of algorithms of every (problem, target) ---------------------------------------
class _PairTests:
    """The tests of each (problem, target) group, written into its slice of the output columns (`__call__`)."""

    def __init__(self, cells: pl.DataFrame, gkeys: pl.DataFrame, order: list[str], plev: np.ndarray,
                 bounds: np.ndarray, rstart: np.ndarray, score: np.ndarray, success: np.ndarray):
        names = sorted(order)
        nidx = {x: i for i, x in enumerate(names)}
        self.pbounds = np.searchsorted(cells["g"].to_numpy(), np.arange(gkeys.height + 1))
        self.bounds, self.rstart, self.score, self.success, self.plev = bounds, rstart, score, success, plev
        self.pa, self.pn = cells["a"].to_numpy(), cells["trials"].to_numpy()
        self.norder = len(order)
        self.rank_name = np.array([nidx[x] for x in order], np.int64)
        self.in_name_order = order == names  # the selection's order is the names' (no --algorithm): pairs in order
        self.kmax = int(np.diff(self.pbounds).max(initial=0))
        self.upper = np.triu_indices(self.kmax, 1)  # pairs (x, y), x before y in the selection's order
        self.art_u, self.avg, self.umin = cells["art_u"].to_numpy(), cells["avg"].to_numpy(), cells["umin"].to_numpy()
        sizes = np.diff(self.pbounds)
        self.sizes = np.where(sizes >= 2, sizes * (sizes - 1) // 2, 0)  # pairs per group
        self.offsets = np.r_[0, np.cumsum(self.sizes)]
        total = int(self.offsets[-1])
        if total == 0:
            raise ValueError("pairwise tests need two algorithms with trials on the same problem in the selection")
        # the output's columns of numbers, filled group by group (numpy's large arrays: few page faults)
        self.gcols = {c: gkeys[c].cast(pl.Float64 if c == "target" else gkeys[c].dtype)
                      for c in ("dimension", "function", "target")}
        self.gvals = {c: v.to_numpy() for c, v in self.gcols.items() if not v.has_nulls()}
        self.art = cells["art"].to_numpy() if not cells["art"].has_nulls() else None
        self.pa32 = self.pa.astype(np.uint32)
        self.tested = {
            "u": np.empty(total), "p": np.empty(total), "better": np.empty(total, np.int64),
            "consistent": np.empty(total, bool), "alg_a": np.empty(total, np.uint32), "alg_b": np.empty(total, np.uint32),
            "trials_a": np.empty(total, np.int64), "trials_b": np.empty(total, np.int64),
            **{c: np.empty(total, v.dtype) for c, v in self.gvals.items()},
            **({"art_a": np.empty(total), "art_b": np.empty(total)} if self.art is not None else
               {"ra": np.empty(total, np.int32), "rb": np.empty(total, np.int32)})}  # rows of cells: art gathered after
        self.cache: dict = {}  # scipy's exact p-values per pair of sample sizes

    def __call__(self, gi: int) -> None:
        """The tests of group gi in (a, b) name order: rows of `cells` of a and b, U of a, p, the
        better-ranked algorithm (order index, -1 on a tie), cocopp's consistency rule."""
        ps_, pe_ = self.pbounds[gi], self.pbounds[gi + 1]
        if pe_ - ps_ < 2:
            return
        s, e = self.bounds[gi], self.bounds[gi + 1]
        pn, rstart, k = self.pn, self.rstart, pe_ - ps_
        x, y = self._pairs_of(ps_, k)
        u, t, nan = _group_counts(np.repeat(np.arange(k), pn[ps_:pe_]), self.plev[ps_:pe_],
                                  rstart[s:e + 1] - rstart[s], self.score[rstart[s]:rstart[e]],
                                  self.success[rstart[s]:rstart[e]], x, y, pn[ps_:pe_])
        ra, rb = ps_ + x, ps_ + y
        u[nan] = 0.0
        p = _pair_p(u, pn[ra].astype(float), pn[rb].astype(float), t, nan, self.cache)
        self._write(slice(self.offsets[gi], self.offsets[gi + 1]), gi, ra, rb, u, p)

    def _pairs_of(self, first: int, k: int) -> tuple[np.ndarray, np.ndarray]:
        """The pairs (x, y) of the k algorithms of a group (cells from row `first`), x before y in the selection's
        order, in (a, b) name order."""
        x, y = self.upper
        if k < self.kmax:
            keep = y < k
            x, y = x[keep], y[keep]
        if not self.in_name_order:  # the pairs put in (a, b) name order
            algs = self.pa[first:first + k]
            key = self.rank_name[algs[x]] * self.norder + self.rank_name[algs[y]]
            if len(key) > 1 and not (key[1:] > key[:-1]).all():
                o = np.argsort(key)
                x, y = x[o], y[o]
        return x, y

    def _write(self, sl: slice, g, ra: np.ndarray, rb: np.ndarray, u: np.ndarray, p: np.ndarray) -> None:
        """The tests of cells `ra` against `rb` (U of a, p) into the output's rows `sl`, of group(s) `g`: the
        better-ranked algorithm (order index, -1 on a tie), cocopp's consistency rule, the pair's columns."""
        pa, pn, art_u, avg, tested = self.pa, self.pn, self.art_u, self.avg, self.tested
        ta, tb = pn[ra], pn[rb]
        d = np.where(np.isnan(u), 0, np.sign(u - ta.astype(float) * tb.astype(float) / 2))
        best, worst = np.where(d > 0, ra, rb), np.where(d > 0, rb, ra)
        tested["u"][sl], tested["p"][sl] = u, p
        tested["better"][sl] = np.where(d == 0, -1, pa[best])
        tested["consistent"][sl] = (d == 0) | ((art_u[best] <= art_u[worst]) & (np.isinf(art_u[best]) | (avg[best] < avg[worst])))
        tested["alg_a"][sl], tested["alg_b"][sl] = self.pa32[ra], self.pa32[rb]
        tested["trials_a"][sl], tested["trials_b"][sl] = ta, tb
        if self.art is not None:
            tested["art_a"][sl], tested["art_b"][sl] = self.art[ra], self.art[rb]
        else:
            tested["ra"][sl], tested["rb"][sl] = ra, rb
        for c, v in self.gvals.items():
            tested[c][sl] = v[g]

    def all_at_once(self, start: np.ndarray, hit: np.ndarray, prec_of) -> None:
        """The tests of every group at once (`_pivot_batch`: each pair's pooled trials sorted once), written as
        `__call__` writes each group's: for groups of few algorithms, where a call per group cost more in
        numpy's overhead than in the tests."""
        groups = np.flatnonzero(self.sizes)
        pairs = [self._pairs_of(self.pbounds[gi], self.pbounds[gi + 1] - self.pbounds[gi]) for gi in groups]
        ra = np.concatenate([x + self.pbounds[gi] for gi, (x, _) in zip(groups, pairs)])
        rb = np.concatenate([y + self.pbounds[gi] for gi, (_, y) in zip(groups, pairs)])
        u, p = _pivot_batch(ra, rb, np.minimum(self.umin[ra], self.umin[rb]), start, self.pn, hit, prec_of, self.cache)
        self._write(slice(None), np.repeat(np.arange(len(self.sizes)), self.sizes), ra, rb, u, p)


#: groups of at most this many algorithms are tested all at once (`_PairTests.all_at_once`), larger ones one by one
BATCH_ALGORITHMS = 16


def group_pairs(trials: pl.DataFrame, cells: pl.DataFrame, gkeys: pl.DataFrame, events: pl.LazyFrame,
                   order: list[str], chunk: int = 16, threads: int | None = None) -> pl.DataFrame:
    """The tests of `significance.pairwise_tests`: every pair of algorithms of every (problem, target) group g of
    `gkeys` (g, suite, dimension, function, target), all pairs of a group at once.

    `trials`: g, a (algorithm index in `order`), run_id, hitf (NaN where not reached), sorted by (g, a,
    trial); `cells`: one row per (g, a) in that order with trials, umin (FE_umin), art_u, avg and art
    (balanced). Each group's levels are the distinct FE_umin of its algorithms, ascending (inf last);
    each trial is scored at every level up to its algorithm's own (one row per (trial, level)), and the
    pairs are counted together per level (`_group_counts`). The groups are tested on `threads` threads
    (default: as many as Polars' thread pool, the CPUs unless limited), the records behind the precisions read per
    group of `chunk` algorithms. Where no group has more than `BATCH_ALGORITHMS` algorithms, every pair of every
    group is tested at once instead (`_PairTests.all_at_once`), with the same results."""
    ngroups = gkeys.height
    g_arr, a_arr = trials["g"].to_numpy(), trials["a"].to_numpy()
    hit_arr, run_arr = trials["hitf"].to_numpy(), trials["run_id"].to_numpy()
    bounds = np.searchsorted(g_arr, np.arange(ngroups + 1))
    pg, pumin, pn = cells["g"].to_numpy(), cells["umin"].to_numpy(), cells["trials"].to_numpy()
    if np.diff(np.searchsorted(pg, np.arange(ngroups + 1))).max(initial=0) <= BATCH_ALGORITHMS:
        tests = _PairTests(cells, gkeys, order, None, bounds, None, None, None)
        tests.all_at_once(np.r_[0, np.cumsum(pn)[:-1]], hit_arr,
                          lambda idx, fe: precision_of(events, a_arr[idx], run_arr[idx], fe, order, chunk))
        return _tested_frame(tests, gkeys, order, cells)
    levels, lstart, plev = _levels(pg, pumin, ngroups)
    tlev = np.repeat(plev, pn)  # levels of each trial (trials and cells are both in (g, a) order)
    rstart = np.r_[0, np.cumsum(tlev)]  # each trial's first row in the (trial, level) arrays
    fe = levels[np.repeat(lstart[g_arr] - rstart[:-1], tlev) + np.arange(rstart[-1])]
    trial = np.repeat(np.arange(len(g_arr)), tlev)
    success = hit_arr[trial] <= fe
    late = np.flatnonzero(~success)
    score = 1.0 / hit_arr[trial]
    score[late] = -precision_of(events, a_arr[trial[late]], run_arr[trial[late]], fe[late], order, chunk)
    del fe, trial, late

    tests = _PairTests(cells, gkeys, order, plev, bounds, rstart, score, success)
    # groups on threads (numpy releases the GIL in the large array operations); the matrix products
    # of the counts on one BLAS thread each (BLAS threads on matrices this small cost more than
    # they give, and would compete with the groups' threads)
    workers = max(1, min(threads or pl.thread_pool_size(), ngroups))  # Polars' threads: 1 in a report's workers
    with threadpool_limits(1, user_api="blas"), ThreadPoolExecutor(workers) as pool:
        for _ in pool.map(tests, range(ngroups)):
            pass
    return _tested_frame(tests, gkeys, order, cells)


def _tested_frame(tests: _PairTests, gkeys: pl.DataFrame, order: list[str], cells: pl.DataFrame) -> pl.DataFrame:
    """The output of `group_pairs` from the columns its tests wrote."""
    tested, gcols, gvals = tests.tested, tests.gcols, tests.gvals
    G = np.repeat(np.arange(gkeys.height, dtype=np.uint32), tests.sizes)
    names = pl.Series(order, dtype=pl.String)
    ra, rb = tested.get("ra"), tested.get("rb")
    better = pl.Series(tested["better"].astype(np.uint32)).set(pl.Series(tested["better"] < 0), None)  # null on a tie
    return pl.DataFrame({
        "suite": gkeys["suite"].gather(G),
        **{c: pl.Series(c, tested[c], dtype=v.dtype) if c in gvals else v.gather(G) for c, v in gcols.items()},
        "algorithm_a": names.gather(tested["alg_a"]), "algorithm_b": names.gather(tested["alg_b"]),
        "trials_a": tested["trials_a"], "trials_b": tested["trials_b"],
        "art_a": tested["art_a"] if tests.art is not None else cells["art"].gather(ra),
        "art_b": tested["art_b"] if tests.art is not None else cells["art"].gather(rb),
        "statistic": tested["u"], "p_value": tested["p"], "better": names.gather(better),
        "consistent": tested["consistent"],
    })
