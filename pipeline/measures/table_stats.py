"""What cocopp's aRT tables (pptable, pptables) show beside the aRT: the median final precision and
evaluations of the problems where a target was not reached, the trials reaching the table's
success target (#succ), and the best algorithm of each cell.

Examples
--------
>>> import polars as pl
>>> runs = pl.LazyFrame({"suite": "bbob", "algorithm": "A", "function": 1, "dimension": 2,
...                      "final_delta": [1e-3, 1e-1, 1.0], "evaluations": [10, 20, 40]})
>>> final_medians(runs).select("median_final_delta", "median_evaluations").collect().rows()
[(0.1, 20.0)]
"""
from __future__ import annotations

import polars as pl

from ..vocabulary import PROBLEM, TABLE_CELL


def final_medians(runs: pl.LazyFrame) -> pl.LazyFrame:
    """Per problem: the median final precision (`median_final_delta`) and evaluations
    (`median_evaluations`) of its trials."""
    return runs.group_by(PROBLEM).agg(
        median_final_delta=pl.col("final_delta").median(),
        median_evaluations=pl.col("evaluations").cast(pl.Float64).median(),
    )


def successes_at(hits: pl.LazyFrame, succ_targets: pl.LazyFrame) -> pl.LazyFrame:
    """Per problem: its suite's success target (`succ_targets`: suite, succ_target), the trials
    reaching it (`succ`) and the trials (`succ_trials`)."""
    return (hits.join(succ_targets, left_on=["suite", "target"], right_on=["suite", "succ_target"], how="semi")
            .group_by(PROBLEM).agg(succ_target=pl.col("target").first(),
                                   succ=pl.col("success").sum().cast(pl.Int64), succ_trials=pl.len().cast(pl.Int64)))


def with_best(table: pl.LazyFrame | pl.DataFrame, compared: pl.Expr) -> pl.LazyFrame | pl.DataFrame:
    """`table` (aRT rows) with `best`: the row's aRT is finite and the smallest of its cell (function,
    dimension, target) among the rows where `compared` holds (the reference's rows take no part)."""
    smallest = pl.col("art").filter(compared).min().over([*TABLE_CELL, "target"])
    return table.with_columns(best=compared & pl.col("art").is_finite() & (pl.col("art") == smallest))
