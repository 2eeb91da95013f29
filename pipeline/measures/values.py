"""Measures on logged values (IOHprofiler runs whose optimum is unknown), as IOHanalyzer and
IOHinspector compute them: a target is a value of `raw_y`, reached by the first record whose value is
at or below it (at or above it when the log says `maximization`); no optimum is needed.

The selection (`Selection(quantity="value")`) hands these runs to the measures with `best_delta` the
*oriented* value (`pipeline.selection.oriented`: raw_y, or -raw_y when maximising), so that every
measure of precisions reads them unchanged; this module makes the targets and turns oriented numbers
back into raw values for the output, which says `quantity = "value"`.

Default targets (no `--targets`): per (suite, function, dimension), over the selected runs of every
algorithm, `DEFAULT_TARGETS` values from the worst first record of a run (the easiest target) to the
best value any run reached (the hardest), evenly spaced on a log scale when every value is positive and
minimised, else on a linear scale.

Examples
--------
Two minimised runs: first records 100 and 10, best values 1 and 0.01; three default targets are 100, 1
and 0.01 (log scale).

>>> import polars as pl
>>> runs = pl.LazyFrame({"run_id": [1, 2], "suite": "s", "function": 1, "dimension": 2, "maximize": False})
>>> events = pl.LazyFrame({"run_id": [1, 1, 2, 2], "evaluations": [1, 5, 1, 9],
...                        "best_delta": [100.0, 1.0, 10.0, 0.01]})
>>> [round(t, 9) for t in default_targets(runs, events, 3).collect()["target"]]
[100.0, 1.0, 0.01]
"""
from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from ..selection import oriented

#: how many targets a default set of value targets holds
DEFAULT_TARGETS = 10
#: the column every measure that reads both says which its numbers are about
QUANTITY = "quantity"


def default_targets(runs: pl.LazyFrame, events: pl.LazyFrame, n: int = DEFAULT_TARGETS) -> pl.LazyFrame:
    """Oriented value targets per (suite, function, dimension) taken from the data (the module).

    Parameters
    ----------
    runs : polars.LazyFrame
        Value runs: run_id, suite, function, dimension, maximize.
    events : polars.LazyFrame
        Their records: run_id, evaluations, best_delta (oriented values).
    n : int
        Targets per problem.

    Returns
    -------
    polars.LazyFrame
        suite, function, dimension, target (oriented: compare with `best_delta`), easiest first.
    """
    key = ["suite", "function", "dimension"]
    per_run = (events.sort("run_id", "evaluations").group_by("run_id")
               .agg(first=pl.col("best_delta").first(), best=pl.col("best_delta").min())
               .join(runs.select("run_id", *key, "maximize"), on="run_id"))
    bounds = per_run.group_by(key).agg(easy=pl.col("first").max(), hard=pl.col("best").min(),
                                       maximize=pl.col("maximize").any())
    i = pl.int_range(n, dtype=pl.Int64).cast(pl.Float64) / max(n - 1, 1)
    geometric = ~pl.col("maximize") & (pl.col("hard") > 0)
    target = pl.when(geometric).then(pl.col("easy") * (pl.col("hard") / pl.col("easy")) ** pl.col("i")) \
        .otherwise(pl.col("easy") + (pl.col("hard") - pl.col("easy")) * pl.col("i"))
    return (bounds.with_columns(i=pl.lit(None)).with_columns(i=i.implode()).explode("i")
            .with_columns(target=pl.when(pl.col("i") == 1.0).then(pl.col("hard")).otherwise(target))
            .select(*key, "target").unique(maintain_order=True)
            .sort(*key, pl.col("target"), descending=[False] * 3 + [True]))


def given_targets(runs: pl.LazyFrame, values: Sequence[float]) -> pl.LazyFrame:
    """Raw value targets given by the user, oriented per (suite, function, dimension) of the runs."""
    key = ["suite", "function", "dimension"]
    problems = runs.group_by(key).agg(maximize=pl.col("maximize").any())
    t = pl.LazyFrame({"raw": [float(v) for v in values]})
    return problems.join(t, how="cross").select(*key, target=oriented(pl.col("raw"), pl.col("maximize")))


def to_raw(table: pl.LazyFrame, runs: pl.LazyFrame, columns: Sequence[str]) -> pl.LazyFrame:
    """A measure's table on oriented values with `columns` turned back into raw values (by each
    (suite, algorithm, function, dimension)'s `maximize`) and `quantity = "value"`."""
    key = ["suite", "algorithm", "function", "dimension"]
    sense = runs.group_by(key).agg(maximize=pl.col("maximize").any())
    names = table.collect_schema().names()
    return (table.join(sense, on=key, how="left", maintain_order="left")
            .with_columns([oriented(pl.col(c), pl.col("maximize")) for c in columns])
            .drop("maximize").with_columns(pl.lit("value").alias(QUANTITY))
            .select(*key, QUANTITY, *[c for c in names if c not in key]))


def labelled(table: pl.LazyFrame) -> pl.LazyFrame:
    """A measure's table on precisions with `quantity = "precision"` after the problem's columns."""
    key = ["suite", "algorithm", "function", "dimension"]
    names = table.collect_schema().names()
    return table.with_columns(pl.lit("precision").alias(QUANTITY)).select(
        *[c for c in key if c in names], QUANTITY, *[c for c in names if c not in key])
