"""Area under the runtime ECDF per problem, and its budgets (seed 000, "Empirical Distribution Functions";
seed 003, "Empirical Distribution Functions": the area under the ECDF as an aggregate of the runtimes).

The area (issue "analyses"): for each (algorithm, function, dimension), the ECDF of the trials' own
first hitting times over the targets (no simulated restarts), a hit counting only when <= B,
drawn over x = log10(evaluations / dimension) from 0 to log10(B / dimension) (hits below one
evaluation per dimension count at x = 0), divided by that width, so that auc lies in [0, 1].
Default B per function and dimension: the smallest budget among the algorithms compared, an
algorithm's budget being the largest evaluation count among its trials that did not reach the
final target; an algorithm whose trials all reached it sets no limit; if none sets one, B is the
largest evaluation count of any trial.

Examples
--------
Two trials in 2-D with a budget of 200 evaluations (x from 0 to 2): one reaches the target after
20 evaluations (x = 1, half of the width left), the other never does.

>>> import polars as pl
>>> from pipeline.measures.auc import auc
>>> hits = pl.LazyFrame({"suite": "bbob", "algorithm": "A", "function": 1, "dimension": 2,
...                      "target": 1.0, "weight": 1, "hit": [20, None], "success": [True, False]})
>>> budgets = pl.LazyFrame({"suite": ["bbob"], "function": [1], "dimension": [2], "budget": [200.0]})
>>> auc(hits, budgets).select("auc").collect().item()
0.25
"""
from __future__ import annotations

import polars as pl

from ..hits.budget import Budget
from .groups import groups_frame
from .runtime import PROBLEM
from .sums import ordered_mean, ordered_sum

FINAL_TARGET = 1e-8


def default_budgets(runs: pl.LazyFrame, final_target: float = FINAL_TARGET) -> pl.LazyFrame:
    """B per (suite, function, dimension), comparable for every algorithm present there (the module).

    Parameters
    ----------
    runs : polars.LazyFrame
        Trials: suite, algorithm, function, dimension, evaluations and final_delta.
    final_target : float
        A trial that ends above this precision did not reach the final target.

    Returns
    -------
    polars.LazyFrame
        suite, function, dimension and budget (evaluations).
    """
    key = ["suite", "function", "dimension"]
    per_alg = runs.group_by([*key, "algorithm"]).agg(
        limit=pl.col("evaluations").filter(pl.col("final_delta") > final_target).max(),
        longest=pl.col("evaluations").max(),
    )
    return per_alg.group_by(key).agg(
        budget=pl.coalesce(pl.col("limit").min(), pl.col("longest").max()).cast(pl.Float64)
    )


def budgets(runs: pl.LazyFrame, max_budget: Budget | None = None) -> pl.LazyFrame:
    """B per (suite, function, dimension): the budget cut when one is given, else `default_budgets`.

    Parameters
    ----------
    runs : polars.LazyFrame
        Trials (as `default_budgets`).
    max_budget : Budget, optional
        The budget cut (`Budget.parse("1000")`, `Budget.parse("100x")`: N times the dimension).

    Returns
    -------
    polars.LazyFrame
        suite, function, dimension and budget (evaluations).
    """
    if max_budget is None:
        return default_budgets(runs)
    value, per_dim = max_budget
    return runs.select("suite", "function", "dimension").unique().with_columns(
        budget=(pl.lit(value) * pl.col("dimension") if per_dim else pl.lit(value)).cast(pl.Float64))


def auc(hits: pl.LazyFrame, budgets: pl.LazyFrame) -> pl.LazyFrame:
    """Area under the ECDF of first hitting times per (suite, algorithm, function, dimension).

    Trials weigh by their instance-balancing weight: the area is the weighted sum over the hits
    within B of (width - x), divided by width times the summed weight of all (trial, target) rows.
    Only the successful rows are joined to the budgets (a filter on `hit` too, which reaches the scan
    of a cached frame: the others are never read twice).

    Parameters
    ----------
    hits : polars.LazyFrame
        First hitting times (`pipeline.hits.spec.hitting_times`).
    budgets : polars.LazyFrame
        suite, function, dimension and budget (evaluations), as `budgets` gives them.

    Returns
    -------
    polars.LazyFrame
        suite, algorithm, function, dimension, budget and auc (in [0, 1]), sorted by problem.
    """
    key = ["suite", "function", "dimension"]
    dim = pl.col("dimension").cast(pl.Float64)
    width = (pl.col("budget") / dim).log10()
    x = (pl.col("hit").cast(pl.Float64) / dim).log10().clip(lower_bound=0.0)
    w = pl.col("weight").cast(pl.Float64)
    total = hits.group_by(PROBLEM).agg(total=w.sum())
    area = (
        hits.filter(pl.col("hit").is_not_null() & pl.col("success")).join(budgets, on=key, how="inner")
        .filter(pl.col("hit") <= pl.col("budget"))
        .group_by(PROBLEM).agg(area=ordered_sum((width - x).clip(lower_bound=0.0) * w))
    )
    return (
        total.join(budgets, on=key, how="inner").join(area, on=PROBLEM, how="left")
        .select(*PROBLEM, "budget", auc=pl.col("area").fill_null(0.0) / (pl.col("total") * width))
        .sort(PROBLEM)
    )


def means_by_group(aucs: pl.LazyFrame) -> pl.LazyFrame:
    """Mean auc per function group and over all functions ("all") per (suite, algorithm, dimension),
    with the number of functions averaged; the same bits on every run (`sums.ordered_mean`)."""
    keys = ["suite", "algorithm", "dimension"]
    mean = ordered_mean(pl.col("auc"))
    allf = aucs.group_by(keys).agg(auc=mean, functions=pl.len()).with_columns(group=pl.lit("all"))
    g = groups_frame().select("suite", "function", "group")
    per = aucs.join(g, on=["suite", "function"]).group_by([*keys, "group"]).agg(auc=mean, functions=pl.len())
    return pl.concat([p.select(*keys, "group", "auc", "functions") for p in (per, allf)]).sort(keys + ["group"])
