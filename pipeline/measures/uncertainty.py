"""Uncertainty of aRT and of the runtime ECDF by the bootstrap (seed 000, "Bootstrapping Runtimes"; seed
001, "Bootstrapping"): the trials of each (function, dimension) resampled with replacement, seeded, one
generator per (suite, algorithm, dimension) (`generators.block_rng`), so that an interval does not
depend on what else is selected.

Examples
--------
Three trials reach the target after 10, 20 and 30 evaluations, a fourth stops after 100: aRT = 160 / 3;
the 90% percentile interval of 200 resamplings of the four trials:

>>> import polars as pl
>>> from pipeline.measures.uncertainty import art_confidence
>>> hits = pl.LazyFrame({"suite": "bbob", "algorithm": "A", "function": 1, "dimension": 2, "target": 1.0,
...                      "trial": [1, 2, 3, 4], "weight": 1, "evaluations": 100, "hit": [10, 20, 30, None],
...                      "success": [True, True, True, False]})
>>> art_confidence(hits, 0.9, samples=200).select("art_low", "art_high").collect().row(0)
(15.0, 130.0)
"""
from __future__ import annotations

import numpy as np
import polars as pl

from ._kernels.restarts import block_codes, by_block, flat_trials
from .ecdf import STEP_SCHEMA, check, ecdf_table
from .generators import block_rng
from ..vocabulary import PROBLEM_TARGET
from ..hits.spec import instance_weights


def art_confidence(hits: pl.LazyFrame, level: float = 0.95, samples: int = 1000, seed: int = 1) -> pl.LazyFrame:
    """The percentile bootstrap interval of the aRT of every (problem, target).

    Each bootstrap sample draws the problem's N trials (repeated by their weight) with replacement and
    recomputes the aRT (inf when the sample holds no success, so an upper bound may be inf).

    Parameters
    ----------
    hits : polars.LazyFrame
        First hitting times (`pipeline.hits.spec.hitting_times`).
    level : float
        The confidence level.
    samples : int
        Bootstrap samples.
    seed : int
        Seed of the resampling.

    Returns
    -------
    polars.LazyFrame
        The `PROBLEM_TARGET` columns, art_low and art_high.
    """
    lo_q, hi_q = (1 - level) / 2 * 100, (1 + level) / 2 * 100

    def intervals(gid: np.ndarray, cost: np.ndarray, success: np.ndarray, ngroups: int,
                  rng: np.random.Generator) -> np.ndarray:
        n = np.bincount(gid, minlength=ngroups)
        start = np.concatenate([[0], np.cumsum(n)[:-1]])
        out = np.full((2, ngroups), np.nan)
        for size in np.unique(n):  # groups of equal trial counts at once
            g = np.flatnonzero(n == size)
            idx = start[g, None, None] + rng.integers(0, size, (len(g), samples, size))
            total = cost[idx].sum(axis=2)
            succ = success[idx].sum(axis=2)
            with np.errstate(divide="ignore", invalid="ignore"):
                art = np.where(succ > 0, total / succ, np.inf)
            out[:, g] = np.percentile(art, [lo_q, hi_q], axis=1, method="inverted_cdf")
        return out

    def run(df: pl.DataFrame) -> pl.DataFrame:
        keys, gid, cost, success = flat_trials(df)
        low, high = by_block(keys, gid, cost, success, seed, intervals)
        return keys.with_columns(art_low=pl.Series(low), art_high=pl.Series(high))

    sch = hits.collect_schema()
    schema = pl.Schema({**{c: sch[c] for c in PROBLEM_TARGET}, "art_low": pl.Float64, "art_high": pl.Float64})
    return hits.map_batches(run, schema=schema, streamable=False)


# -- ECDFs ----------------------------------------------------------------------------------------------
_SEP = "\x1f"  # joins an algorithm's name and a replicate or instance number into one ECDF "algorithm"
_TRIAL = ["suite", "algorithm", "function", "dimension"]


def _resampled_hits(hits: pl.DataFrame, replicates: int, seed: int) -> pl.DataFrame:
    """`replicates` bootstrap copies of the hitting times, each drawing the trials of every (suite,
    algorithm, function, dimension) with replacement, a trial keeping all its targets; copy b is the
    algorithm "NAME<sep>b". Instance-balancing weights are recomputed for the trials drawn. The draws
    come from one generator per (suite, algorithm, dimension) (`generators.block_rng`)."""
    trials = hits.select(*_TRIAL, "run_id", "instance").unique().sort(*_TRIAL, "run_id")
    size = trials.group_by(_TRIAL, maintain_order=True).agg(n=pl.len())
    n = size["n"].to_numpy().astype(np.int64)
    start = np.concatenate([[0], np.cumsum(n)[:-1]])
    # one generator per (suite, algorithm, dimension): a band does not depend on what else is selected
    u = np.empty((replicates, len(trials)))
    code, names = block_codes(trials)
    order = np.argsort(code, kind="stable")  # each block's trials in their order: one sort, not a scan per block
    stops = np.cumsum(np.bincount(code, minlength=len(names)))
    for b, key in enumerate(names):
        cols = order[stops[b - 1] if b else 0:stops[b]]
        u[:, cols] = block_rng(seed, key).random((replicates, len(cols)))
    per_copy = np.repeat(start, n) + (u * np.repeat(n, n)).astype(np.int64)
    drawn = trials[per_copy.ravel()].with_columns(
        copy=pl.Series(np.repeat(np.arange(replicates), len(trials)), dtype=pl.Int64),
        new_id=pl.int_range(pl.len(), dtype=pl.Int64),
    )
    drawn = drawn.with_columns(algorithm=pl.col("algorithm") + _SEP + pl.col("copy").cast(pl.String))
    weights = instance_weights(drawn.lazy().select("new_id", *_TRIAL, "instance")).collect()
    rows = (hits.drop("weight", "algorithm", "instance").join(drawn.select("run_id", "new_id", "algorithm", "instance"),
                                                              on="run_id")
            .join(weights.select("new_id", "weight"), on="new_id")
            .with_columns(run_id=pl.col("new_id"), trial=pl.col("new_id").cast(hits.schema["trial"])))
    return rows.select(hits.columns)


def _split(steps: pl.DataFrame, name: str) -> pl.DataFrame:
    """Undo the joined names: algorithm and the copy or instance number as column `name`."""
    parts = pl.col("algorithm").str.split_exact(_SEP, 1)
    return steps.with_columns(parts.struct.field("field_0").alias("algorithm"),
                              parts.struct.field("field_1").cast(pl.Int64).alias(name))


def ecdf_band(hits: pl.LazyFrame, group=None, *, mode: str = "trials", level: float = 0.95, replicates: int = 100,
              samples: int = 100, seed: int = 1, max_budget=None, max_x=None) -> pl.LazyFrame:
    """Bootstrap confidence band of the runtime ECDF (issue "analyses", "Uncertainty").

    The percentile interval at `level` of the ECDF over `replicates` resamplings of the trials within
    each (function, dimension), evaluated at every step of the estimate; every replicate is computed in
    one pass (each as its own algorithm). Where a skewed bootstrap distribution leaves the estimate
    outside the percentile interval, the band is widened to include it.

    Parameters
    ----------
    hits, group, mode, samples, seed, max_budget, max_x
        As `ecdf.ecdf` (`seed` also seeds the resampling).
    level : float
        The confidence level.
    replicates : int
        Bootstrap replicates (at least 2).

    Returns
    -------
    polars.LazyFrame
        The step table of `ecdf.ecdf` with low and high.
    """
    from .checked import BAND_LEVEL, REPLICATES

    check(mode, max_budget, max_x, samples)
    BAND_LEVEL.check(level)
    REPLICATES.check(replicates)
    key = ["suite", "algorithm", "dimension", "group"]
    settings = dict(mode=mode, samples=samples, seed=seed, max_budget=max_budget, max_x=max_x)

    def build(df: pl.DataFrame) -> pl.DataFrame:
        est = ecdf_table(df, group, **settings)
        if est.height == 0:
            return est.with_columns(low=pl.lit(None, pl.Float64), high=pl.lit(None, pl.Float64))
        copies = _split(ecdf_table(_resampled_hits(df, replicates, seed), group, **settings), "copy")
        grid = est.select(*key, "x").join(pl.DataFrame({"copy": np.arange(replicates)}), how="cross").sort("x")
        at = grid.join_asof(copies.sort("x").rename({"fraction": "value"}), on="x", by=[*key, "copy"],
                            strategy="backward", check_sortedness=False).with_columns(pl.col("value").fill_null(0.0))
        q = at.group_by(*key, "x").agg(low=pl.col("value").quantile((1 - level) / 2, "linear"),
                                      high=pl.col("value").quantile((1 + level) / 2, "linear"))
        out = est.join(q, on=[*key, "x"], how="left")
        return out.with_columns(low=pl.min_horizontal("low", "fraction"), high=pl.max_horizontal("high", "fraction")
                                ).sort(*key, "x")

    schema = pl.Schema({**STEP_SCHEMA, "low": pl.Float64, "high": pl.Float64})
    return hits.map_batches(build, schema=schema, streamable=False)


def ecdf_per_instance(hits: pl.LazyFrame, group=None, *, mode: str = "trials", samples: int = 100, seed: int = 1,
                      max_budget=None, max_x=None) -> pl.LazyFrame:
    """The runtime ECDF of each instance alone (to draw faintly behind the aggregate).

    Parameters as `ecdf.ecdf`. Returns its step table with `instance`.
    """
    check(mode, max_budget, max_x, samples)

    def build(df: pl.DataFrame) -> pl.DataFrame:
        joined = df.with_columns(algorithm=pl.col("algorithm") + _SEP + pl.col("instance").cast(pl.String))
        return _split(ecdf_table(joined, group, mode=mode, samples=samples, seed=seed, max_budget=max_budget,
                                 max_x=max_x), "instance")

    return hits.map_batches(build, schema=pl.Schema({**STEP_SCHEMA, "instance": pl.Int64}), streamable=False)
