"""The markers of significant tests in the tables: cocopp's stars and arrows, followed by k where p <= 10^-k."""
from __future__ import annotations

import math

import numpy as np
import polars as pl

from ..measures.significance import ALPHA


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
