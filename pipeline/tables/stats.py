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
from scipy.stats import mannwhitneyu

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
    `family` columns; all rows when empty), and `family_size`, the number of tests in it."""
    if df.height == 0:
        return df.with_columns(pl.lit(None, pl.Float64).alias(out), family_size=pl.lit(None, pl.Int64))
    idx = df.with_row_index("_i")
    parts = idx.partition_by(family, maintain_order=True) if family else [idx]
    fixed = []
    for g in parts:
        vals = g[p].cast(pl.Float64).to_numpy()
        fixed.append(g.select("_i", pl.Series(out, correct(vals, method)),
                              pl.lit(len(vals), pl.Int64).alias("family_size")))
    return idx.join(pl.concat(fixed), on="_i").sort("_i").drop("_i")


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


def threshold_text(alpha: float = ALPHA) -> str:
    """The thresholds of the markers, for captions."""
    return f"corrected p < {alpha:g}; followed by k when p ≤ 10^-k (k ≥ 2)"
