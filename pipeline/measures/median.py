"""Median runtime per target: the median, over the trials that reached a target, of their runtimes (seed
000, "Runtime": a successful trial's runtime is its first hitting time, in evaluations), with the count of
those successes and of all trials. cocopp's tables show such medians beside aRT.

Declared here, once (`registry.Measure`): the facade's `Analysis.median_runtime`, the command
`cocopipe median-runtime`, its docs entry and its chart kind ("median", `pipeline.charts.median`) all come
from this declaration.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .registry import Inputs, Measure, register, settings_class

if TYPE_CHECKING:
    import polars as pl

#: a row per (problem, target), from the easiest target to the hardest
KEYS = ("suite", "algorithm", "function", "dimension", "target")
DESCENDING = (False, False, False, False, True)


def median_runtime(hits: pl.LazyFrame) -> pl.LazyFrame:
    """The median runtime of the successful trials per (problem, target).

    Parameters
    ----------
    hits : polars.LazyFrame
        First hitting times (`pipeline.hits.spec.hitting_times`): a row per (trial, target), `hit` the
        evaluations of its first hit and `success` whether it is within the budget.

    Returns
    -------
    polars.LazyFrame
        `KEYS`, median (null when no trial reached the target; the mean of the two middle runtimes of an
        even count), successes and trials (every trial counts once), sorted by problem, then from the
        easiest target to the hardest.

    Examples
    --------
    >>> import polars as pl
    >>> hits = pl.LazyFrame({"suite": "bbob", "algorithm": "A", "function": 1, "dimension": 2, "target": 1.0,
    ...                      "hit": [10, 30, None], "success": [True, True, False]})
    >>> median_runtime(hits).collect().select("median", "successes", "trials").row(0)
    (20.0, 2, 3)
    """
    import polars as pl

    success = pl.col("success").fill_null(False) & pl.col("hit").is_not_null()
    return (
        hits.group_by(list(KEYS))
        .agg(median=pl.col("hit").filter(success).cast(pl.Float64).median(),
             successes=success.sum().cast(pl.Int64), trials=pl.len().cast(pl.Int64))
        .sort(list(KEYS), descending=list(DESCENDING))
    )


def _spec(inputs: Inputs, settings) -> pl.LazyFrame:
    return median_runtime(inputs.hits())


register(Measure(
    name="median_runtime", summary="Median runtime of the successful trials per problem and target, and their count.",
    seed="seed 000, Runtime (cocopp's tables show medians)", inputs=("hits",), keys=KEYS, descending=DESCENDING,
    balance=True, settings=settings_class("median_runtime", []), spec=_spec,
    columns=(*KEYS, "median", "successes", "trials"), charts=("median",), command="median-runtime"))
