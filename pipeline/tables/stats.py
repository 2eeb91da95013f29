"""Rank-sum tests between algorithms on cocopp's test data, and multiple-testing corrections
(seed 003, "Statistical Analysis": rank-sum test, two-sided, Bonferroni correction).

The data tested are those of cocopp's `toolsstats.significancetest`: per target, FE_umin is the
smallest number of evaluations of an unsuccessful trial of either algorithm (infinite when all
trials of both succeeded). A trial that reached the target within FE_umin evaluations scores
1 / runtime; every other trial scores its precision at FE_umin, negated and shifted below zero,
so it ranks behind every successful trial and, among unsuccessful ones, by the precision it had
reached after FE_umin evaluations (larger scores are better). The two score vectors go into
`scipy.stats.mannwhitneyu(..., alternative="two-sided")`, one score per trial (no instance
balancing, as in cocopp).
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl
from scipy import special

#: significance level of the markers
ALPHA = 0.05
CORRECTIONS = ("bonferroni", "holm")


def fe_umin(hits: Sequence[np.ndarray], evaluations: Sequence[np.ndarray]) -> float:
    """Smallest evaluations of an unsuccessful trial (hit is NaN) over all data sets; inf if none."""
    fe = math.inf
    for h, e in zip(hits, evaluations):
        uns = np.isnan(h)
        if uns.any():
            fe = min(fe, float(np.min(e[uns])))
    return fe


def test_data(hit_x: np.ndarray, evals_x: np.ndarray, prec_x: Callable[[float], np.ndarray],
              hit_y: np.ndarray, evals_y: np.ndarray, prec_y: Callable[[float], np.ndarray]
              ) -> tuple[np.ndarray, np.ndarray, float]:
    """The two score vectors cocopp's `significancetest` ranks, and FE_umin.

    `hit_*`: runtime to the target per trial (NaN if not reached), `evals_*`: the trial's
    evaluations, `prec_*(fe)`: each trial's best precision after `fe` evaluations (inf before
    its first record).
    """
    hit_x, hit_y = np.asarray(hit_x, float), np.asarray(hit_y, float)
    evals_x, evals_y = np.asarray(evals_x, float), np.asarray(evals_y, float)
    fe = fe_umin((hit_x, hit_y), (evals_x, evals_y))
    fvals = None
    if math.isfinite(fe):
        fvals = (np.asarray(prec_x(fe), float), np.asarray(prec_y(fe), float))
        finite = [v[np.isfinite(v)] for v in fvals]
        offset = 1.01 * min(0.0, *(float(v.min()) for v in finite if len(v)))
    out = []
    for j, h in enumerate((hit_x, hit_y)):
        late = np.isnan(h) | (h > fe)
        v = np.empty(len(h))
        v[~late] = 1.0 / h[~late]
        if late.any():
            v[late] = -fvals[j][late] + offset  # <= 0: behind every success; smaller precision is better
        out.append(v)
    return out[0], out[1], fe


@dataclass(frozen=True)
class TestResult:
    """One rank-sum test: U of x, two-sided p-value, which side ranks better (+1 x, -1 y, 0 tie),
    and whether the better-ranked side also has the smaller aRT (cocopp's consistency rule)."""

    statistic: float
    p_value: float
    direction: int
    consistent: bool

    @property
    def p_marked(self) -> float:
        """The p-value used for markers: 1 when the ranks and the aRTs disagree (cocopp)."""
        return self.p_value if self.consistent else 1.0


def ranksum(x: np.ndarray, y: np.ndarray) -> tuple[float, float, int]:
    """scipy's two-sided Mann-Whitney U test: (U of x, p, +1 if x ranks higher / -1 lower / 0)."""
    from scipy.stats import mannwhitneyu  # imported when needed: scipy.stats takes a second to import

    x, y = np.asarray(x, float), np.asarray(y, float)
    r = mannwhitneyu(x, y, alternative="two-sided")
    u, p = float(r.statistic), float(r.pvalue)
    if not math.isfinite(p):
        p = 1.0
    mid = len(x) * len(y) / 2
    return u, min(p, 1.0), (u > mid) - (u < mid)


def _art_avg(hit: np.ndarray, evals: np.ndarray) -> tuple[float, float]:
    """Unbalanced aRT and average evaluations (cocopp's detERT / detAverageEvals in its test)."""
    succ = ~np.isnan(hit)
    cost = float(np.where(succ, hit, evals).sum())
    return (cost / succ.sum() if succ.any() else math.inf), cost / len(hit)


def compare(hit_x, evals_x, prec_x, hit_y, evals_y, prec_y) -> TestResult:
    """Rank-sum test of algorithm x against y on one target (larger scores are better).

    As in cocopp, a difference only counts (`consistent`) when the better-ranked algorithm also has
    an aRT not larger than the other's and, when its aRT is finite, fewer average evaluations
    (aRT and averages over the raw trials, as cocopp computes them in the test). cocopp 2.9.1
    means the same but checks "aRT is infinite" with `is np.inf`, which is never true for its numpy
    values, so it also asks for fewer average evaluations when both aRTs are infinite (only
    precisions after the same FE_umin evaluations are compared then); we follow the intent.
    The score vectors themselves rank exactly as cocopp's (tests/test_tables_render.py).
    """
    x, y, _ = test_data(hit_x, evals_x, prec_x, hit_y, evals_y, prec_y)
    u, p, d = ranksum(x, y)
    consistent = True
    if d != 0:
        sx = _art_avg(np.asarray(hit_x, float), np.asarray(evals_x, float))
        sy = _art_avg(np.asarray(hit_y, float), np.asarray(evals_y, float))
        (art_b, avg_b), (art_w, avg_w) = (sx, sy) if d > 0 else (sy, sx)
        consistent = art_b <= art_w and (math.isinf(art_b) or avg_b < avg_w)
    return TestResult(u, p, d, consistent)


# -- all pairs at once ------------------------------------------------------------------------
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


def exact_table(n1: int, n2: int) -> np.ndarray:
    """scipy's exact two-sided p-value for samples of sizes n1, n2 without ties, for every U in
    0..n1 n2 (it depends on nothing else): one vectorised mannwhitneyu call on samples built to
    have each U (x_i just below the c_i-th smallest y, sum of c_i = U)."""
    from scipy.stats import mannwhitneyu

    us = np.arange(n1 * n2 + 1)
    c = np.clip(us[:, None] - n2 * np.arange(n1)[None, :], 0, n2)  # c_i in 0..n2, row sums = U
    x = c - 0.5 + np.arange(n1)[None, :] / (2.0 * n1 + 2)  # distinct, between the y's
    y = np.broadcast_to(np.arange(n2, dtype=float), (len(us), n2))
    return np.asarray(mannwhitneyu(x, y, alternative="two-sided", method="exact", axis=1).pvalue, float)


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


# -- multiple testing ------------------------------------------------------------------------
def bonferroni(p: np.ndarray) -> np.ndarray:
    """min(1, m p) over a family of m p-values."""
    p = np.asarray(p, float)
    return np.minimum(1.0, p * len(p))


def holm(p: np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values: max over j <= i of min(1, (m - j + 1) p_(j))."""
    p = np.asarray(p, float)
    m = len(p)
    if m == 0:
        return p
    order = np.argsort(p, kind="stable")
    adj = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    out = np.empty(m)
    out[order] = adj
    return out


def correct(p: np.ndarray, method: str = "bonferroni") -> np.ndarray:
    """Corrected p-values of one family of tests."""
    if method == "bonferroni":
        return bonferroni(p)
    if method == "holm":
        return holm(p)
    raise ValueError(f"correction {method!r}: expected one of {', '.join(CORRECTIONS)}")


def correct_frame(df: pl.DataFrame, p: str, out: str, family: list[str], method: str) -> pl.DataFrame:
    """Add `out`, the p-values of column `p` corrected within each family (rows with equal
    `family` columns; all rows when empty), and `family_size`, the number of tests in it
    (`correct` per family, vectorised: Holm sorts each family by p once)."""
    if method not in CORRECTIONS:
        raise ValueError(f"correction {method!r}: expected one of {', '.join(CORRECTIONS)}")
    if df.height == 0:
        return df.with_columns(pl.lit(None, pl.Float64).alias(out), family_size=pl.lit(None, pl.Int64))
    over = (lambda e: e.over(family)) if family else (lambda e: e)
    m = over(pl.len()).cast(pl.Int64)
    pv = pl.col(p).cast(pl.Float64)
    if method == "bonferroni":
        return df.with_columns(pl.min_horizontal(pl.lit(1.0), pv * m).alias(out), family_size=m)
    idx = df.select(pl.int_range(pl.len(), dtype=pl.Int64).alias("_i"), *[pl.col(c) for c in family], pv.alias("_p"))
    idx = idx.sort([*family, "_p"], nulls_last=True)
    j = over(pl.int_range(pl.len(), dtype=pl.Int64))
    adj = idx.select("_i", _adj=over(((m - j) * pl.col("_p")).cum_max()), _m=m)
    order = adj["_i"].to_numpy()
    vals, sizes = np.empty(df.height), np.empty(df.height, np.int64)
    vals[order] = np.minimum(1.0, adj["_adj"].to_numpy())
    sizes[order] = adj["_m"].to_numpy()
    return df.with_columns(pl.Series(out, vals), pl.Series("family_size", sizes))


def stars(p: float | None, alpha: float = ALPHA) -> int:
    """cocopp's marker level: 0 if p >= alpha, else k = -ceil(log10 p) (1 <= k <= 9): 10^-(k+1) < p <= 10^-k."""
    if p is None or not (p < alpha):
        return 0
    if p <= 0:
        return 9
    return int(min(9, max(1, -math.ceil(math.log10(p)))))


def marker(symbol: str, p: float | None, alpha: float = ALPHA) -> str:
    """`symbol` for p < alpha, followed by k when p <= 10^-k with k >= 2 (cocopp's convention)."""
    k = stars(p, alpha)
    if k == 0:
        return ""
    return symbol + (str(k) if k > 1 else "")


def markers(symbol: str, p: np.ndarray, alpha: float = ALPHA) -> pl.Series:
    """`marker` of every p-value of an array (NaN: no marker), as a String series."""
    p = np.asarray(p, float)
    limits = np.array([float(f"1e-{j}") for j in range(9, 1, -1)])  # 1e-9 ... 1e-2, ascending
    k = (len(limits) + 1 - np.searchsorted(limits, p, side="left")).astype(np.uint32)  # 1 + #{j >= 2: p <= 1e-j}
    k[~(p < alpha)] = 0
    text = [""] + [symbol + (str(j) if j > 1 else "") for j in range(1, 10)]
    return pl.Series("marker", text, dtype=pl.String).gather(k)  # the ten texts, looked up


def threshold_text(alpha: float = ALPHA) -> str:
    """The thresholds of the markers, for captions."""
    return f"corrected p < {alpha:g}; followed by k when p ≤ 10^-k (k ≥ 2)"
