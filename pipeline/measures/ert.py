"""IOHprofiler's expected running time (ERT), as IOHanalyzer defines it and IOHinspector 0.0.8 computes
it (`metrics/fixed_target.py aggregate_running_time`).

    ERT(target) = (sum of the hitting times of the successful runs + sum of what each unsuccessful
                   run is charged) / (successful runs)

An unsuccessful run is charged its own length (IOHanalyzer; `Analysis.ert` by default: the run's last
logged evaluation), or one `eval_max` for all (IOHinspector's `eval_max`, whose own default is the
largest evaluation count in the data handed to it, after its monotonic load the last improvement of
any run). cocopp's aRT (seed 000, pipeline.measures.art) also charges each unsuccessful run its own
evaluations, but balances instances. Targets are precisions, or logged values where no optimum is
known (`pipeline.measures.values`; tests/test_ioh_parity.py, tests/test_ioh_real.py).

Examples
--------
Two runs: one reaches the target after 30 evaluations, the other does not; with eval_max = 100,
ERT = (30 + 100) / 1.

>>> import polars as pl
>>> from pipeline.measures.ert import ert
>>> hits = pl.LazyFrame({"suite": "bbob", "algorithm": "A", "function": 1, "dimension": 2,
...                      "target": 1e-8, "hit": [30, None], "success": [True, False]})
>>> ert(hits, 100).select("ert", "successes", "runs").collect().row(0)
(130.0, 1, 2)
"""
from __future__ import annotations

import math

import polars as pl

from .runtime import PROBLEM


def ert(hits: pl.LazyFrame, eval_max: float | pl.Expr) -> pl.LazyFrame:
    """ERT per (suite, algorithm, function, dimension, target): unweighted (every run counts once).

    Parameters
    ----------
    hits : polars.LazyFrame
        First hitting times (`pipeline.hits.spec.hitting_times`).
    eval_max : float or polars.Expr
        What an unsuccessful run is charged (an expression: per row, e.g. the problem's largest evaluations).

    Returns
    -------
    polars.LazyFrame
        suite, algorithm, function, dimension, target, ert (inf without success), successes and runs,
        by problem, then from the easiest target to the hardest.
    """
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
