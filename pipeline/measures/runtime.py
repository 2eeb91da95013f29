"""Fixed-target and fixed-budget measures from first hitting times and records: aRT (seed 000).

All functions take and return LazyFrames. `runs` and `events` have the store's columns; first
hitting times come from `pipeline.hits` (with the instance-balancing weights).
"""
from __future__ import annotations

import math

import polars as pl

from ..hits.spec import PROBLEM, RUN_COLS


def art(hits: pl.LazyFrame) -> pl.LazyFrame:
    """Average runtime per (suite, algorithm, function, dimension, target), seed 000 "Averaging Runtime".

    aRT = (sum of hitting times of successful trials + sum of evaluations of unsuccessful ones)
    / number of successes; infinite without success. Sums and counts use instance-balancing weights.
    """
    w = pl.col("weight")
    cost = pl.when(pl.col("success")).then(pl.col("hit")).otherwise(pl.col("evaluations")).cast(pl.Float64)
    g = hits.group_by([*PROBLEM, "target"]).agg(
        total=(cost * w).sum(),
        successes=(pl.col("success").cast(pl.Int64) * w).sum(),
        runs=w.sum(),
        trials=pl.len(),
        succ_total=(pl.col("hit").fill_null(0).cast(pl.Float64) * w).sum(),
        median_success_runtime=pl.col("hit").filter(pl.col("success")).cast(pl.Float64).median(),
        max_evaluations_unsuccessful=pl.col("evaluations").filter(~pl.col("success")).median().cast(pl.Float64),
    )
    return g.with_columns(
        art=pl.when(pl.col("successes") > 0).then(pl.col("total") / pl.col("successes")).otherwise(math.inf),
        success_rate=pl.col("successes") / pl.col("runs"),
        mean_success_runtime=pl.when(pl.col("successes") > 0).then(pl.col("succ_total") / pl.col("successes")),
    ).select(*PROBLEM, "target", "art", "successes", "runs", "success_rate", "trials", "mean_success_runtime",
             "median_success_runtime", pl.col("max_evaluations_unsuccessful").alias("median_unsuccessful_evaluations")
             ).sort(*PROBLEM, pl.col("target"), descending=[False] * 4 + [True])


def fixed_budget(runs: pl.LazyFrame, events: pl.LazyFrame, budgets: list[float], per_dimension: bool = False
                 ) -> pl.LazyFrame:
    """Best precision each run reached within each budget (null before its first record)."""
    b = pl.LazyFrame({"budget": [float(x) for x in budgets]})
    pairs = runs.select(RUN_COLS).join(b, how="cross").with_columns(
        limit=(pl.col("budget") * pl.col("dimension") if per_dimension else pl.col("budget")).cast(pl.Float64)
    ).sort("limit")
    steps = (
        events.select("run_id", "evaluations", "best_delta").sort("run_id", "evaluations")
        .with_columns(best_delta=pl.col("best_delta").cum_min().over("run_id"),
                      ev=pl.col("evaluations").cast(pl.Float64))
        .sort("ev")
    )
    out = pairs.join_asof(steps.select("run_id", "ev", "best_delta"), left_on="limit", right_on="ev", by="run_id",
                          strategy="backward", check_sortedness=False)
    return out.drop("ev").rename({"limit": "budget_evaluations"})


def fixed_budget_summary(values: pl.LazyFrame, quantiles: tuple[float, ...] = (0.1, 0.25, 0.75, 0.9)
                         ) -> pl.LazyFrame:
    """Median and quantiles of the best precision at each budget per problem."""
    aggs = [pl.col("best_delta").quantile(q, "linear").alias(f"q{int(round(q * 100)):02d}") for q in quantiles]
    return (
        values.group_by([*PROBLEM, "budget"])
        .agg(pl.col("budget_evaluations").first(), pl.col("best_delta").median().alias("median"), *aggs,
             runs=pl.len(), runs_with_data=pl.col("best_delta").is_not_null().sum())
        .sort(*PROBLEM, "budget")
    )
