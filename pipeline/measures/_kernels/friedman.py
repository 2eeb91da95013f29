"""The ranking's statistics (`pipeline.measures.ranking`) without scipy.stats: the Friedman test and the
studentized range quantile of the Nemenyi critical difference. Loading scipy.stats cost the report's main
process, which ranks, 0.7 s of its wall time (benchmarks/RESULTS.md); scipy.special, which these need, is
loaded already. tests/test_kernels.py holds them equal to `scipy.stats.friedmanchisquare` (to the bit) and
to `scipy.stats.studentized_range.ppf` with infinite degrees of freedom (to 1e-12, relative).
"""
from __future__ import annotations

import math

import numpy as np
from scipy import special


def friedman(blocks: np.ndarray) -> tuple[float, float]:
    """The Friedman test of the k columns (treatments) of `blocks` over its n rows (blocks), as
    `scipy.stats.friedmanchisquare(*blocks.T)`: the statistic from the average ranks within each block with
    scipy's correction for ties, the p-value the upper tail of chi-squared with k - 1 degrees of freedom.
    The ranks, their sums and the tie term are exact half-integers, and the statistic is scipy's expression
    of them: equal to the bit. NaN in `blocks` gives NaN for both (scipy's default policy).

    Examples
    --------
    >>> friedman(np.array([[1.0, 2.0, 3.0], [1.0, 3.0, 2.0]]))
    (3.0, 0.22313016014842982)
    """
    x = np.asarray(blocks, dtype=np.float64)
    n, k = x.shape
    if k < 3:
        raise ValueError(f"the Friedman test needs 3 treatments or more, got {k}")
    if np.isnan(x).any():
        return math.nan, math.nan
    below = (x[:, None, :] < x[:, :, None]).sum(axis=2)  # [block, treatment]: treatments of the block below it
    equal = (x[:, None, :] == x[:, :, None]).sum(axis=2)  # ... equal to it (itself included)
    ranks = below + (equal + 1) / 2  # the average rank, 1 = smallest
    ties = np.sum(equal * equal - 1.0)  # sum over groups of equal values of t (t^2 - 1): t elements of t^2 - 1
    c = 1 - ties / (k * (k * k - 1) * n)
    ssbn = np.sum(np.sum(ranks, axis=0) ** 2)
    with np.errstate(divide="ignore", invalid="ignore"):  # every block all ties: c = 0, NaN as scipy's
        statistic = (12.0 / (k * n * (k + 1)) * ssbn - 3 * n * (k + 1)) / c
    return float(statistic), float(special.chdtrc(float(k - 1), statistic))


#: the integration grid in z of `range_cdf`: the integrand is below 1e-31 beyond |z| = 12, and the trapezoidal
#: rule on a smooth integrand decaying so fast is exact to rounding at this step
_Z = np.arange(-12.0, 12.0 + 1 / 64, 1 / 64)
_PHI = np.exp(-_Z * _Z / 2) / math.sqrt(2 * math.pi)
_CDF = special.ndtr(_Z)


def range_cdf(q: float, k: int) -> float:
    """P(range of k independent standard normal values <= q): k ∫ φ(z) [Φ(z + q) - Φ(z)]^(k-1) dz, the
    integral scipy's `studentized_range` evaluates for infinite degrees of freedom (Lund and Lund 1983)."""
    if q <= 0:
        return 0.0
    inner = np.clip(special.ndtr(_Z + q) - _CDF, 0.0, 1.0)
    return float(min(1.0, k * np.sum(_PHI * inner ** (k - 1)) / 64))


def range_ppf(p: float, k: int) -> float:
    """The `p`-quantile of the range of k standard normal values, `scipy.stats.studentized_range.ppf(p, k,
    inf)` (`range_cdf` inverted by bisection to the last bits)."""
    if not (0 < p < 1) or k < 2:
        raise ValueError(f"the studentized range quantile needs 0 < p < 1 and k >= 2, got p = {p}, k = {k}")
    lo, hi = 0.0, 1.0
    while range_cdf(hi, k) < p:
        lo, hi = hi, hi * 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if mid in (lo, hi):
            break
        if range_cdf(mid, k) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2
