"""Simulated restarts (seed 000, "Simulated Restarts and Runtimes" and "Bootstrapping Runtimes").

A simulated run of the conceptual restart algorithm on a problem (suite, algorithm, function,
dimension) and a target draws trials uniformly with replacement until a successful one comes up; its
runtime is the evaluations of the unsuccessful trials drawn plus the hitting time of the successful
one. Its expectation is the aRT (`pipeline.measures.art`); cocopp draws such runtimes for the
dispersion of its aRT tables (`toolsstats.drawSP`) and for its runtime ECDFs (`pprldmany`).

The trials of a problem weigh by their instance-balancing weight: a trial of weight w is drawn as w
trials, as cocopp repeats trials in its balanced columns. With `first_deterministic` (cocopp's
`randint_derandomized`), sample j of a (problem, target) with N trials starts with trial j mod N and
the sample size is the smallest multiple of N not below `samples`: with every trial successful the
samples are the trials' runtimes, each as often. Otherwise each sample starts with a trial drawn
uniformly. After an unsuccessful start, the number K of further unsuccessful trials is geometric,
P(K = k) = p (1 - p)^k with p the fraction of successful trials, each of them drawn uniformly among the
unsuccessful trials, and the run ends with a successful trial drawn uniformly among those.

`draw_restarts` states the draws in Polars, in the order they take numbers from the generator;
`simulated_runtimes` and `art_dispersion` compute the same draws with numpy
(`pipeline.measures._kernels.restarts`, equal to the definition: tests/test_kernels.py).

Examples
--------
Two trials of one problem: one reaches the target after 10 evaluations, the other stops after 100
without reaching it. Half the samples start with the successful trial (runtime 10); the others restart
after 100 evaluations, as often as the draws say.

>>> import polars as pl
>>> from pipeline.measures.restarts import simulated_runtimes
>>> hits = pl.LazyFrame({"suite": "bbob", "algorithm": "A", "function": 1, "dimension": 2,
...                      "target": 1.0, "trial": [1, 2], "weight": 1, "evaluations": [10, 100],
...                      "hit": [10, None], "success": [True, False]})
>>> rt = simulated_runtimes(hits, samples=4, seed=1).collect()
>>> rt["runtime"].to_list()[::2], all(r % 100 == 10 for r in rt["runtime"])
([10.0, 10.0], True)
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from ._kernels import restarts as kernel
from .generators import BLOCK, block_rng
from ..vocabulary import PROBLEM_TARGET

#: the key of a row of the measures of this module: a problem and a target


def balanced_trials(hits: pl.LazyFrame) -> pl.LazyFrame:
    """The trials simulated restarts draw from: each trial as often as its instance-balancing weight.

    Parameters
    ----------
    hits : polars.LazyFrame
        First hitting times (`pipeline.hits.spec.hitting_times`): the `PROBLEM_TARGET` columns, trial, weight,
        evaluations, hit and success.

    Returns
    -------
    polars.LazyFrame
        The `PROBLEM_TARGET` columns, trial, `cost` (the hit of a successful trial, the evaluations of an
        unsuccessful one) and success, ordered by (problem, target, trial), trials of one number in
        their order in `hits`. A weight below 1 counts once.
    """
    cost = pl.when(pl.col("success")).then(pl.col("hit")).otherwise(pl.col("evaluations")).cast(pl.Float64)
    trials = hits.select(*PROBLEM_TARGET, "trial", "success", cost=cost, copies=pl.col("weight").clip(lower_bound=1))
    trials = trials.sort(*PROBLEM_TARGET, "trial", maintain_order=True)
    return trials.select(pl.exclude("copies").gather(pl.int_range(pl.len()).repeat_by("copies").explode()))


def draw_restarts(trials: pl.DataFrame, samples: int, rng: np.random.Generator,
                  first_deterministic: bool = True) -> pl.DataFrame:
    """Simulated restart runtimes of every (problem, target) of `trials`, drawn from one generator.

    The draws, in the order they take numbers from `rng` (the module states the rule): the first
    trial of every sample (only without `first_deterministic`), then for the samples whose first
    trial failed the number of further failures, then the successful trial that ends each, then the
    failures one after the other.

    Parameters
    ----------
    trials : polars.DataFrame
        `balanced_trials`, grouped by (problem, target) in the order the draws go through them.
    samples : int
        Samples per (problem, target) (with `first_deterministic`, rounded up to a multiple of its trials).
    rng : numpy.random.Generator
        The generator of the draws.
    first_deterministic : bool
        Whether sample j starts with trial j mod N (cocopp's default) instead of a random trial.

    Returns
    -------
    polars.DataFrame
        The `PROBLEM_TARGET` columns, sample (0, 1, ...) and runtime, per (problem, target) in the order of
        `trials`; no rows for a (problem, target) without a successful trial. The runtimes are sums of
        the trials' costs: exact for whole numbers of evaluations.
    """
    t = trials.with_columns(group=pl.struct(PROBLEM_TARGET).rle_id().cast(pl.Int64)).with_columns(
        position=pl.int_range(pl.len(), dtype=pl.Int64).over("group"),
        success_rank=(pl.col("success").cast(pl.Int64).cum_sum() - 1).over("group"),
        failure_rank=((~pl.col("success")).cast(pl.Int64).cum_sum() - 1).over("group"))
    groups = t.group_by("group", maintain_order=True).agg(
        *[pl.col(c).first() for c in PROBLEM_TARGET], n=pl.len().cast(pl.Int64),
        successes=pl.col("success").sum().cast(pl.Int64)).filter(pl.col("successes") > 0)
    n = pl.col("n")
    size = ((samples / n).ceil() * n).cast(pl.Int64) if first_deterministic else pl.lit(samples, pl.Int64)
    runs = groups.with_columns(sample=pl.int_ranges(0, size)).explode("sample")
    first = (runs["sample"] % runs["n"] if first_deterministic
             else pl.Series(rng.integers(0, runs["n"].to_numpy())))
    runs = runs.with_columns(first=first).join(
        t.select("group", first="position", cost="cost", started="success"), on=["group", "first"], how="left",
        maintain_order="left")
    failed = runs.filter(~pl.col("started")).with_row_index("run")
    if failed.height:
        failed = failed.with_columns(further=pl.Series(rng.geometric((failed["successes"] / failed["n"]).to_numpy()) - 1),
                                     ending=pl.Series(rng.integers(0, failed["successes"].to_numpy())))
        ends = failed.join(t.filter("success").select("group", ending="success_rank", end_cost="cost"),
                           on=["group", "ending"], how="left", maintain_order="left")
        draws = failed.select("run", "group", failures=n - pl.col("successes"),
                              draw=pl.int_ranges(0, "further")).explode("draw").drop_nulls("draw")
        draws = draws.with_columns(failure_rank=(pl.lit(pl.Series(rng.random(draws.height))) * pl.col("failures")).cast(pl.Int64))
        drawn = draws.join(t.filter(~pl.col("success")).select("group", "failure_rank", "cost"),
                           on=["group", "failure_rank"], how="left").group_by("run").agg(restarts=pl.col("cost").sum())
        extra = ends.join(drawn, on="run", how="left").select(
            "group", "sample", extra=pl.col("end_cost") + pl.col("restarts").fill_null(0.0))
        runs = runs.join(extra, on=["group", "sample"], how="left", maintain_order="left")
    else:
        runs = runs.with_columns(extra=pl.lit(None, pl.Float64))
    return runs.select(*PROBLEM_TARGET, pl.col("sample").cast(pl.Int32), runtime=pl.col("cost") + pl.col("extra").fill_null(0.0))


def art_dispersion_spec(hits: pl.LazyFrame, percentiles: Sequence[float] = (10, 50, 90), samples: int = 1000,
                        seed: int = 1, first_deterministic: bool = True) -> pl.LazyFrame:
    """The definition of `art_dispersion`: percentiles of `draw_restarts`, one generator per block.

    Parameters and Returns as `art_dispersion`.
    """
    names = kernel.percentile_names(percentiles)

    def run(df: pl.DataFrame) -> pl.DataFrame:
        trials = balanced_trials(df.lazy()).collect()
        drawn = [draw_restarts(b, samples, block_rng(seed, b.select(BLOCK).row(0)), first_deterministic)
                 for b in trials.partition_by(BLOCK, maintain_order=True)]
        runtimes = pl.concat(drawn) if drawn else draw_restarts(trials, samples, block_rng(seed, ()))
        q = runtimes.group_by(PROBLEM_TARGET).agg(pl.col("runtime").quantile(p / 100, "linear").alias(name)
                                         for p, name in zip(percentiles, names))
        return trials.select(PROBLEM_TARGET).unique().join(q, on=PROBLEM_TARGET, how="left").sort(PROBLEM_TARGET)

    sch = hits.collect_schema()
    return hits.map_batches(run, schema=pl.Schema({**{c: sch[c] for c in PROBLEM_TARGET}, **{n: pl.Float64 for n in names}}),
                            streamable=False)


def simulated_runtimes(hits: pl.LazyFrame, samples: int = 1000, seed: int = 1,
                       first_deterministic: bool = True) -> pl.LazyFrame:
    """Simulated restart runtimes of every (problem, target), all drawn from one generator.

    Parameters
    ----------
    hits : polars.LazyFrame
        First hitting times (`pipeline.hits.spec.hitting_times`).
    samples : int
        Samples per (problem, target).
    seed : int
        Seed of the generator.
    first_deterministic : bool
        Whether sample j starts with trial j mod N (cocopp's default).

    Returns
    -------
    polars.LazyFrame
        One row per (problem, target, sample): the `PROBLEM_TARGET` columns, sample and runtime, as
        `draw_restarts(balanced_trials(hits), samples, numpy.random.default_rng(seed))` draws them.
    """
    def run(df: pl.DataFrame) -> pl.DataFrame:
        keys, gid, cost, success = kernel.flat_trials(df)
        sg, rt = kernel.simulate(gid, cost, success, keys.height, samples, np.random.default_rng(seed),
                                 first_deterministic)
        starts = np.concatenate([[0], np.flatnonzero(np.diff(sg)) + 1]) if len(sg) else np.array([], int)
        sample = np.arange(len(sg)) - np.repeat(starts, np.diff(np.append(starts, len(sg))))
        return keys[sg].with_columns(sample=pl.Series(sample, dtype=pl.Int32), runtime=pl.Series(rt, dtype=pl.Float64))

    sch = hits.collect_schema()
    schema = pl.Schema({**{c: sch[c] for c in PROBLEM_TARGET}, "sample": pl.Int32, "runtime": pl.Float64})
    return hits.map_batches(run, schema=schema, streamable=False)


def art_dispersion(hits: pl.LazyFrame, percentiles: Sequence[float] = (10, 50, 90), samples: int = 1000,
                   seed: int = 1, first_deterministic: bool = True) -> pl.LazyFrame:
    """Percentiles of simulated restart runtimes per (problem, target): the dispersion of cocopp's aRT tables.

    Each (suite, algorithm, dimension) draws from its own generator (`generators.block_rng`), so that
    the percentiles of an algorithm do not depend on what else is selected.

    Parameters
    ----------
    hits : polars.LazyFrame
        First hitting times (`pipeline.hits.spec.hitting_times`).
    percentiles : sequence of float
        Percentiles in [0, 100] (linear interpolation between samples, as `numpy.percentile`).
    samples, seed, first_deterministic
        As `simulated_runtimes`.

    Returns
    -------
    polars.LazyFrame
        The `PROBLEM_TARGET` columns and a column per percentile (p10, p50, p90; null without a successful
        trial), sorted by (problem, target), equal to `art_dispersion_spec`.

    Examples
    --------
    Every trial successful: the samples are the trials' runtimes.

    >>> import polars as pl
    >>> hits = pl.LazyFrame({"suite": "bbob", "algorithm": "A", "function": 1, "dimension": 2,
    ...                      "target": 1.0, "trial": [1, 2, 3, 4], "weight": 1,
    ...                      "evaluations": 100, "hit": [10, 20, 30, 40], "success": True})
    >>> art_dispersion(hits, (0, 50, 100), samples=8).select("p0", "p50", "p100").collect().row(0)
    (10.0, 25.0, 40.0)
    """
    names = kernel.percentile_names(percentiles)

    def run(df: pl.DataFrame) -> pl.DataFrame:
        keys, gid, cost, success = kernel.flat_trials(df)
        values = kernel.block_percentiles(keys, gid, cost, success, samples, seed, percentiles, first_deterministic)
        return keys.with_columns(pl.Series(name, v).fill_nan(None) for name, v in zip(names, values))

    sch = hits.collect_schema()
    schema = pl.Schema({**{c: sch[c] for c in PROBLEM_TARGET}, **{n: pl.Float64 for n in names}})
    return hits.map_batches(run, schema=schema, streamable=False)
