"""IOHprofiler's expected running time (ERT), as IOHinspector 0.0.8 computes it
(`metrics/fixed_target.py aggregate_running_time`).

    ERT(target) = (sum of the hitting times of the successful runs + (unsuccessful runs) x eval_max)
                  / (successful runs)

with one `eval_max` for every unsuccessful run: by default the largest evaluation count in the data
handed to it (after IOHinspector's monotonic load: the last improvement of any run), else the value
given. cocopp's aRT (seed 000, pipeline.measures.runtime.art) charges each unsuccessful run its own
evaluations instead (its budget), and balances instances. The two agree when every run of a problem
has the same budget B, instances are balanced and eval_max = B; they differ by design otherwise
(tests/test_ioh_parity.py tests both).
"""
from __future__ import annotations

import math

import polars as pl

from .runtime import PROBLEM


def ert(hits: pl.LazyFrame, eval_max: float | pl.Expr) -> pl.LazyFrame:
    """ERT per (suite, algorithm, function, dimension, target) from `pipeline.hits.spec.hitting_times` rows:
    unweighted (every run counts once), unsuccessful runs charged `eval_max`."""
    cap = eval_max if isinstance(eval_max, pl.Expr) else pl.lit(float(eval_max))
    cost = pl.when(pl.col("success")).then(pl.col("hit").cast(pl.Float64)).otherwise(cap)
    return (
        hits.group_by([*PROBLEM, "target"])
        .agg(total=cost.sum(), successes=pl.col("success").sum(), runs=pl.len())
        .with_columns(ert=pl.when(pl.col("successes") > 0).then(pl.col("total") / pl.col("successes"))
                      .otherwise(math.inf))
        .select(*PROBLEM, "target", "ert", "successes", "runs")
        .sort(*PROBLEM, pl.col("target"), descending=[False] * 4 + [True])
    )
