"""Tracked parameters of IOHprofiler runs (the store's `params` table): their values per record, and
their quantiles over runs at given budgets (the value of a run's last record at or before the budget).

Examples
--------
A step size logged by two runs: at budget 10 the runs' last values are 0.5 and 0.3.

>>> import polars as pl
>>> from pipeline.measures.params import at_budgets, quantiles, values
>>> runs = pl.LazyFrame({"run_id": [1, 2], "suite": "bbob", "algorithm": "A", "function": 1,
...                      "dimension": 2, "instance": [1, 2], "trial": [1, 2]})
>>> params = pl.LazyFrame({"run_id": [1, 1, 2], "evaluations": [1, 8, 3], "name": "sigma",
...                        "value": [1.0, 0.5, 0.3]})
>>> q = quantiles(at_budgets(values(runs, params), [10]), qs=(0.5,)).collect()
>>> q.select("median", "mean", "runs").row(0)
(0.4, 0.4, 2)
"""
from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from .runtime import PROBLEM

#: names ioh gives the positions (store_positions=True): x0, x1, ...
POSITION = r"^x\d+$"


def params_table(store) -> pl.LazyFrame | None:
    """The `params` table of a store, or of the stores a report reads together (its data and a
    packaged reference); None when none has one."""
    parts = [s.scan("params") for s in getattr(store, "stores", [store]) if hasattr(s, "scan")]
    return pl.concat(parts) if parts else None


def values(runs: pl.LazyFrame, params: pl.LazyFrame, names: Sequence[str] | None = None,
           positions: bool = False) -> pl.LazyFrame:
    """Per-record values of the parameters with the run's problem, instance and trial.

    Parameters
    ----------
    runs : polars.LazyFrame
        Trials: run_id, suite, algorithm, function, dimension, instance, trial.
    params : polars.LazyFrame
        The store's `params` table: run_id, evaluations, name, value.
    names : sequence of str, optional
        The parameters to keep (default: every tracked parameter but the positions).
    positions : bool
        Keep the positions x0, x1, ... too (when `names` is not given).

    Returns
    -------
    polars.LazyFrame
        suite, algorithm, function, dimension, instance, trial, run_id, evaluations, name, value.
    """
    p = params.select("run_id", "evaluations", "name", "value")
    if names:
        p = p.filter(pl.col("name").is_in(list(names)))
    elif not positions:
        p = p.filter(~pl.col("name").str.contains(POSITION))
    return (runs.select(*PROBLEM, "instance", "trial", "run_id").join(p, on="run_id")
            .sort(*PROBLEM, "trial", "name", "evaluations"))


def at_budgets(values: pl.LazyFrame, budgets: Sequence[float], per_dimension: bool = False) -> pl.LazyFrame:
    """Each run's value of each parameter at each budget: that of its last record at or before the budget.

    Parameters
    ----------
    values : polars.LazyFrame
        As `values` gives them.
    budgets : sequence of float
        Budgets (evaluations, or times the dimension with `per_dimension`).
    per_dimension : bool
        Whether the budgets are multiples of the dimension.

    Returns
    -------
    polars.LazyFrame
        The problem, run_id, name, budget, budget_evaluations and value (null before the run's first record).
    """
    b = pl.LazyFrame({"budget": [float(x) for x in budgets]})
    runs = values.select(*PROBLEM, "run_id", "name").unique()
    pairs = runs.join(b, how="cross").with_columns(
        budget_evaluations=(pl.col("budget") * pl.col("dimension") if per_dimension else pl.col("budget"))
        .cast(pl.Float64)).sort("budget_evaluations")
    steps = values.select("run_id", "name", "value", ev=pl.col("evaluations").cast(pl.Float64)).sort("ev")
    return pairs.join_asof(steps, left_on="budget_evaluations", right_on="ev", by=["run_id", "name"],
                           strategy="backward", check_sortedness=False).drop("ev")


def quantiles(at: pl.LazyFrame, qs: Sequence[float] = (0.1, 0.25, 0.5, 0.75, 0.9)) -> pl.LazyFrame:
    """Quantiles (linear interpolation), mean and counts of the values over runs per (problem, name, budget).

    Parameters
    ----------
    at : polars.LazyFrame
        As `at_budgets` gives it.
    qs : sequence of float
        Quantiles in [0, 1] (0.5 is named median, others q10, q25, ...).

    Returns
    -------
    polars.LazyFrame
        The problem, name, budget, budget_evaluations, the quantiles, mean, runs and runs_with_data.
    """
    v = pl.col("value").drop_nulls().drop_nans()
    aggs = [v.quantile(q, "linear").alias("median" if q == 0.5 else f"q{round(q * 100):02d}") for q in qs]
    return (at.group_by(*PROBLEM, "name", "budget")
            .agg(pl.col("budget_evaluations").first(), *aggs, mean=v.mean(), runs=pl.len(),
                 runs_with_data=v.len())
            .sort(*PROBLEM, "name", "budget"))
