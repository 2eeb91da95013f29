"""Uncertainty of aRT: bootstrap confidence intervals, resampling trials within each problem
(seeded), the trials of a problem being its (function, dimension) runs for one target."""
from __future__ import annotations

import numpy as np
import polars as pl

from .restarts import GROUP, _flat


def art_confidence(hits: pl.LazyFrame, level: float = 0.95, samples: int = 1000, seed: int = 1) -> pl.LazyFrame:
    """Columns art_low / art_high: the percentile bootstrap interval of aRT per (problem, target).

    Each bootstrap sample draws the problem's N trials with replacement and recomputes aRT
    (inf when the sample holds no success, so an upper bound may be inf)."""
    lo_q, hi_q = (1 - level) / 2 * 100, (1 + level) / 2 * 100

    def run(df: pl.DataFrame) -> pl.DataFrame:
        keys, gid, cost, success = _flat(df)
        rng = np.random.default_rng(seed)
        n = np.bincount(gid, minlength=keys.height)
        start = np.concatenate([[0], np.cumsum(n)[:-1]])
        low, high = np.full(keys.height, np.nan), np.full(keys.height, np.nan)
        for size in np.unique(n):  # groups of equal trial counts at once
            g = np.flatnonzero(n == size)
            idx = start[g, None, None] + rng.integers(0, size, (len(g), samples, size))
            total = cost[idx].sum(axis=2)
            succ = success[idx].sum(axis=2)
            with np.errstate(divide="ignore", invalid="ignore"):
                art = np.where(succ > 0, total / succ, np.inf)
            low[g], high[g] = np.percentile(art, [lo_q, hi_q], axis=1, method="inverted_cdf")
        return keys.with_columns(art_low=pl.Series(low), art_high=pl.Series(high))

    sch = hits.collect_schema()
    schema = pl.Schema({**{c: sch[c] for c in GROUP}, "art_low": pl.Float64, "art_high": pl.Float64})
    return hits.map_batches(run, schema=schema, streamable=False)
