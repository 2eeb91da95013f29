"""Average runtime (aRT, seed 000, "Averaging Runtime"), with its dispersion and a bootstrap interval.

The aRT of a problem (suite, algorithm, function, dimension) and a target is

    aRT = (sum of the hitting times of the successful trials
           + sum of the evaluations of the unsuccessful trials) / number of successful trials,

infinite without a successful trial: the expected runtime of the conceptual restart algorithm
(`pipeline.measures.restarts`). Sums and counts weigh the trials by their instance-balancing weight
(cocopp's balanced columns, `pipeline.hits.spec.instance_weights`). The dispersion of cocopp's aRT tables is the
10th-90th percentiles of simulated restart runtimes (`restarts.art_dispersion`); a percentile bootstrap
interval of the aRT is `uncertainty.art_confidence`.

`art_spec` states the measure in Polars; `art` computes it with its dispersion in one pass over the
trials (`pipeline.measures._kernels.restarts.art_one_pass`), equal to `art_spec` joined with
`restarts.art_dispersion_spec` (tests/test_kernels.py).

Examples
--------
Three trials of one problem: two reach the target after 30 and 50 evaluations, the third stops after
200 without reaching it: aRT = (30 + 50 + 200) / 2.

>>> import polars as pl
>>> from pipeline.measures.art import art
>>> hits = pl.LazyFrame({"suite": "bbob", "algorithm": "A", "function": 1, "dimension": 2,
...                      "target": 1e-1, "trial": [1, 2, 3], "weight": 1, "evaluations": [100, 80, 200],
...                      "hit": [30, 50, None], "success": [True, True, False]})
>>> art(hits).select("art", "successes", "runs").collect().row(0)
(140.0, 2, 3)
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import polars as pl

from ._kernels import restarts as kernel
from .restarts import art_dispersion
from .runtime import PROBLEM
from ..vocabulary import PROBLEM_TARGET
from .uncertainty import art_confidence

#: the columns of `art` after the `PROBLEM_TARGET` columns
ART_SCHEMA = {"art": pl.Float64, "successes": pl.Int64, "runs": pl.Int64, "success_rate": pl.Float64,
              "trials": pl.UInt32, "mean_success_runtime": pl.Float64, "median_success_runtime": pl.Float64,
              "median_unsuccessful_evaluations": pl.Float64}
#: rows by problem, then from the easiest target to the hardest
ORDER = dict(by=[*PROBLEM, "target"], descending=[False] * 4 + [True])


def art_spec(hits: pl.LazyFrame) -> pl.LazyFrame:
    """The aRT of every (problem, target), as the seed defines it (the module).

    Parameters
    ----------
    hits : polars.LazyFrame
        First hitting times (`pipeline.hits.spec.hitting_times`): the `PROBLEM_TARGET` columns, weight, evaluations,
        hit and success.

    Returns
    -------
    polars.LazyFrame
        The `PROBLEM_TARGET` columns and `ART_SCHEMA`: art, successes and runs (weighted), success_rate,
        trials (unweighted), mean_success_runtime (weighted), median_success_runtime and
        median_unsuccessful_evaluations (of the trials), sorted as `ORDER`.
    """
    w = pl.col("weight")
    cost = pl.when(pl.col("success")).then(pl.col("hit")).otherwise(pl.col("evaluations")).cast(pl.Float64)
    g = hits.group_by(PROBLEM_TARGET).agg(
        total=(cost * w).sum(),
        successes=(pl.col("success").cast(pl.Int64) * w).sum(),
        runs=w.sum(),
        trials=pl.len(),
        succ_total=(pl.col("hit").fill_null(0).cast(pl.Float64) * w).sum(),
        median_success_runtime=pl.col("hit").filter(pl.col("success")).cast(pl.Float64).median(),
        median_unsuccessful_evaluations=pl.col("evaluations").filter(~pl.col("success")).median().cast(pl.Float64),
    )
    return g.with_columns(
        art=pl.when(pl.col("successes") > 0).then(pl.col("total") / pl.col("successes")).otherwise(math.inf),
        success_rate=pl.col("successes") / pl.col("runs"),
        mean_success_runtime=pl.when(pl.col("successes") > 0).then(pl.col("succ_total") / pl.col("successes")),
    ).select(*PROBLEM_TARGET, *ART_SCHEMA).sort(**ORDER)


def art(hits: pl.LazyFrame, dispersion: bool = False, percentiles: Sequence[float] = (10, 50, 90),
        samples: int = 1000, seed: int = 1, confidence: float | None = None) -> pl.LazyFrame:
    """The aRT of every (problem, target), with its dispersion and a bootstrap interval when asked.

    Parameters
    ----------
    hits : polars.LazyFrame
        First hitting times (`pipeline.hits.spec.hitting_times`).
    dispersion : bool
        Add the percentiles of simulated restart runtimes (`restarts.art_dispersion`).
    percentiles : sequence of float
        The percentiles of the dispersion.
    samples : int
        Simulated restarts (and bootstrap samples) per (problem, target).
    seed : int
        Seed of the draws (one generator per suite, algorithm and dimension).
    confidence : float, optional
        Add art_low and art_high, the bootstrap interval at this level (`uncertainty.art_confidence`).

    Returns
    -------
    polars.LazyFrame
        The columns of `art_spec`, then p10, p50, p90 (null without success) with `dispersion`, then
        art_low, art_high with `confidence`; sorted as `ORDER`.

    Examples
    --------
    >>> import polars as pl
    >>> hits = pl.LazyFrame({"suite": "bbob", "algorithm": "A", "function": 1, "dimension": 2,
    ...                      "target": [1.0, 1.0, 1e-8, 1e-8], "trial": [1, 2, 1, 2], "weight": 1,
    ...                      "evaluations": 100, "hit": [10, 30, 90, None],
    ...                      "success": [True, True, True, False]})
    >>> art(hits, dispersion=True, samples=10).select("target", "art", "p10", "p90").collect().rows()
    [(1.0, 20.0, 10.0, 30.0), (1e-08, 190.0, 90.0, 290.0)]
    """
    if confidence:
        a = art_spec(hits)
        if dispersion:
            a = a.join(art_dispersion(hits, percentiles, samples, seed), on=PROBLEM_TARGET, how="left")
        return a.join(art_confidence(hits, confidence, samples, seed), on=PROBLEM_TARGET, how="left").sort(**ORDER)
    names = kernel.percentile_names(percentiles) if dispersion else []
    h = hits.select([c for c in hits.collect_schema().names() if c not in ("instance", "final_delta")])  # unread

    def one_pass(df: pl.DataFrame) -> pl.DataFrame:
        out = kernel.art_one_pass(df, dispersion, percentiles, samples, seed)
        if out is not None:
            return out.cast(schema)
        a = art_spec(df.lazy())  # nulls where the kernel wants numbers
        if dispersion:
            a = a.join(art_dispersion(df.lazy(), percentiles, samples, seed), on=PROBLEM_TARGET, how="left")
        return a.sort(**ORDER).collect()

    sch = h.collect_schema()
    schema = pl.Schema({**{c: sch[c] for c in PROBLEM_TARGET}, **ART_SCHEMA, **{n: pl.Float64 for n in names}})
    return h.map_batches(one_pass, schema=schema, streamable=False)
