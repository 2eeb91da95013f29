"""Fixed-budget measures from the records (seed 000): the best precision within given budgets.

aRT is in `pipeline.measures.art`, first hitting times in `pipeline.hits`. All functions take and
return LazyFrames; `runs` and `events` have the store's columns.
"""
from __future__ import annotations

import polars as pl

from ..hits.spec import PROBLEM, RUN_COLS


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


def fixed_budget_summary(values: pl.LazyFrame, quantiles: tuple[float, ...] = (0.1, 0.25, 0.75, 0.9),
                         by: tuple[str, ...] = ()) -> pl.LazyFrame:
    """Median and quantiles of the best precision (or value) at each budget per problem (and `by` columns)."""
    aggs = [pl.col("best_delta").quantile(q, "linear").alias(f"q{int(round(q * 100)):02d}") for q in quantiles]
    return (
        values.group_by([*PROBLEM, *by, "budget"])
        .agg(pl.col("budget_evaluations").first(), pl.col("best_delta").median().alias("median"), *aggs,
             runs=pl.len(), runs_with_data=pl.col("best_delta").is_not_null().sum())
        .sort(*PROBLEM, "budget")
    )
