"""IOHprofiler's fixed-budget measures on precisions: the normalised value, the fixed-budget ECDF and
the area over the convergence curve (AOCC), as IOHinspector 0.0.8 defines them (`metrics/utils.py
transform_fval`, `metrics/ecdf.py get_data_ecdf`, `metrics/aocc.py get_aocc`).

Normalised value of a precision d (IOHinspector's `eaf` column, minimisation), bounds [lower, upper]:
    v(d) = 1 - clip((log10 d - log10 lower) / (log10 upper - log10 lower), 0, 1)     (log=True)
    v(d) = 1 - clip((d - lower) / (upper - lower), 0, 1)                              (log=False)
with IOHinspector's defaults lower = 1e-8, upper = 1e8, log. It is the fraction of log-uniformly spread
targets in [lower, upper] that d reaches. On a maximised problem IOHinspector normalises raw values y
to clip((y - lb) / (ub - lb), 0, 1): with precisions d = y_opt - y that is v(d) with lower = y_opt - ub,
upper = y_opt - lb, linear (e.g. OneMax, n = 16: lb = 0, ub = 16 is lower = 0, upper = 16).

Fixed-budget ECDF at budget b: the mean over runs of v(best precision reached within b evaluations),
0 before a run's first record (IOHinspector fills a run with no record yet with an infinite value).

AOCC with budget B: the mean over runs of (1/B) * integral from 0 to B of v(best precision so far),
the value before the first record being that of the first record (IOHinspector adds a point
(0, the run's smallest value)). It equals the area under the fixed-budget ECDF over [0, B] / B,
evaluations on a linear scale. Runs weigh the same (no instance balancing, as IOHinspector).

cocopipe's `auc` (pipeline.measures.auc) differs: it is the area under the runtime ECDF of the
first hitting times of the 51 bbob targets (1e2 .. 1e-8), over x = log10(evaluations / dimension)
on a log scale, divided by its width; AOCC integrates over linear evaluations and counts a continuum
of targets in [lower, upper]. Both lie in [0, 1] and grow with performance.

Examples
--------
One run with budget 100: its precision is 1 (normalised value 1/2 between 1e-8 and 1e8) from the first
evaluation, and 1e-8 (value 1) from evaluation 50 on: AOCC = (1/2 * 50 + 1 * 50) / 100.

>>> import polars as pl
>>> from pipeline.measures.aocc import aocc
>>> runs = pl.LazyFrame({"run_id": [1], "suite": "bbob", "algorithm": "A", "function": 1, "dimension": 2})
>>> events = pl.LazyFrame({"run_id": 1, "evaluations": [1, 50], "best_delta": [1.0, 1e-8]})
>>> budget = pl.LazyFrame({"suite": ["bbob"], "function": [1], "dimension": [2], "budget": [100.0]})
>>> aocc(runs, events, budget).select("aocc").collect().item()
0.75
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import polars as pl

from .runtime import PROBLEM
from ..selection import oriented
from .sums import ordered_mean, ordered_sum

#: IOHinspector's default bounds of `transform_fval`
LOWER, UPPER = 1e-8, 1e8


def normalised(delta: pl.Expr, lower: float = LOWER, upper: float = UPPER, log: bool = True) -> pl.Expr:
    """IOHinspector's normalised value of precisions (the module).

    Parameters
    ----------
    delta : polars.Expr
        Precisions.
    lower, upper : float
        The bounds: 1 at or below `lower`, 0 at or above `upper`.
    log : bool
        Normalise log10 of the precisions (else the precisions).

    Returns
    -------
    polars.Expr
        Values in [0, 1]; a null precision (before a run's first record) counts as 0.
    """
    if log:
        lo = math.log10(lower if lower > 0 else LOWER)
        frac = (delta.log10() - lo) / (math.log10(upper) - lo)
    else:
        frac = (delta - lower) / (upper - lower)
    return (1.0 - frac.clip(0.0, 1.0)).fill_null(0.0)


def normalised_value(best: pl.Expr, maximize: pl.Expr, lower: float = LOWER, upper: float = UPPER,
                     log: bool = True) -> pl.Expr:
    """IOHinspector's `transform_fval` of a logged value given oriented (`pipeline.selection.oriented`).

    Minimised: 1 - clip((f(y) - f(lower)) / (f(upper) - f(lower)), 0, 1); maximised: clip(...) without
    the 1 -; f = log10 (a lower bound <= 0 taken as 1e-8, as IOHinspector does) or the identity. A null
    value (before a run's first record) counts as 0.
    """
    y = oriented(best, maximize)
    if log:
        lo = math.log10(lower if lower > 0 else LOWER)
        frac = ((y.log10() - lo) / (math.log10(upper) - lo)).clip(0.0, 1.0)
    else:
        frac = ((y - lower) / (upper - lower)).clip(0.0, 1.0)
    return pl.when(maximize).then(frac).otherwise(1.0 - frac).fill_null(0.0)


def _steps(runs: pl.LazyFrame, events: pl.LazyFrame) -> pl.LazyFrame:
    """Each run's records with the best precision so far (run_id, evaluations, best), by evaluations."""
    return (events.join(runs.select("run_id"), on="run_id", how="semi")
            .select("run_id", "evaluations", "best_delta").sort("run_id", "evaluations")
            .with_columns(best=pl.col("best_delta").cum_min().over("run_id")).drop("best_delta"))


def fixed_budget_ecdf(runs: pl.LazyFrame, events: pl.LazyFrame, budgets: Sequence[float], lower: float = LOWER,
                      upper: float = UPPER, log: bool = True, values: bool = False) -> pl.LazyFrame:
    """Mean normalised best precision at each budget over the runs: IOHinspector's `get_data_ecdf` per problem.

    Parameters
    ----------
    runs : polars.LazyFrame
        Trials: run_id, suite, algorithm, function, dimension.
    events : polars.LazyFrame
        Records: run_id, evaluations, best_delta.
    budgets : sequence of float
        Budgets (evaluations).
    lower, upper, log
        As `normalised`.
    values : bool
        The runs' `best_delta` are oriented logged values (runs hold `maximize`): `normalised_value`.

    Returns
    -------
    polars.LazyFrame
        suite, algorithm, function, dimension, budget, fraction and runs.
    """
    b = pl.LazyFrame({"budget": sorted(float(x) for x in budgets)})
    extra = ["maximize"] if values else []
    v = (normalised_value(pl.col("best"), pl.col("maximize"), lower, upper, log) if values
         else normalised(pl.col("best"), lower, upper, log))
    pairs = runs.select("run_id", *PROBLEM, *extra).join(b, how="cross").sort("budget")
    steps = _steps(runs, events).with_columns(ev=pl.col("evaluations").cast(pl.Float64)).sort("ev")
    at = pairs.join_asof(steps.select("run_id", "ev", "best"), left_on="budget", right_on="ev", by="run_id",
                         strategy="backward", check_sortedness=False)
    return (at.group_by(*PROBLEM, "budget").agg(fraction=ordered_mean(v), runs=pl.len())
            .sort(*PROBLEM, "budget"))


def aocc(runs: pl.LazyFrame, events: pl.LazyFrame, budget: pl.LazyFrame, lower: float = LOWER,
         upper: float = UPPER, log: bool = True, values: bool = False) -> pl.LazyFrame:
    """AOCC per (suite, algorithm, function, dimension): the mean over runs of each run's area (the module).

    Parameters
    ----------
    runs, events
        As `fixed_budget_ecdf`.
    budget : polars.LazyFrame
        budget (B, evaluations) per suite, function, dimension (as `auc.budgets` gives them) and, when
        it has the column, per algorithm.
    lower, upper, log
        As `normalised`.
    values : bool
        As `fixed_budget_ecdf`.

    Returns
    -------
    polars.LazyFrame
        suite, algorithm, function, dimension, budget, aocc and runs, sorted by problem.
    """
    key = [c for c in PROBLEM if c in budget.collect_schema().names()]
    extra = ["maximize"] if values else []
    steps = (_steps(runs, events).join(runs.select("run_id", *key, *extra), on="run_id")
             .join(budget, on=key).filter(pl.col("evaluations") <= pl.col("budget"))
             .sort("run_id", "evaluations"))  # joins keep no order; the areas below read each run in order
    v = (normalised_value(pl.col("best"), pl.col("maximize"), lower, upper, log) if values
         else normalised(pl.col("best"), lower, upper, log))
    t = pl.col("evaluations").cast(pl.Float64)
    nxt = t.shift(-1).over("run_id").fill_null(pl.col("budget"))
    first = pl.int_range(pl.len()).over("run_id") == 0
    area = steps.with_columns(v=v).select(
        "run_id", a=pl.col("v") * (nxt - t) + pl.when(first).then(pl.col("v") * t).otherwise(0.0),
        budget="budget").group_by("run_id").agg(area=(ordered_sum(pl.col("a")) / pl.col("budget").first()))
    return (runs.select("run_id", *PROBLEM).join(area, on="run_id")
            .group_by(PROBLEM).agg(aocc=ordered_mean(pl.col("area")), runs=pl.len())
            .join(budget, on=key).select(*PROBLEM, "budget", "aocc", "runs").sort(PROBLEM))
