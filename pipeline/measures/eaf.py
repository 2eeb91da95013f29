"""The empirical attainment function (EAF) of single-objective runs, its difference between two algorithms
and the area under it (López-Ibáñez, Paquete and Stützle 2010, "Exploratory analysis of stochastic local
search algorithms in biobjective optimization"; for one objective against evaluations as IOHinspector 0.0.8
draws it, `metrics/eaf.py`, and moocore 0.3's `eaf`, `eafdiff`). docs/measures.md holds the formulas.

A run r attains the point (b, v), a budget b in evaluations and a level v (a precision, or on runs
without a known optimum a logged value), when some record of r at or before evaluation b is at or below v:
best_r(b) <= v, best_r(b) the best so far at b (nothing is attained before a run's first record). This is
weak dominance of (b, v) by a point (evaluations, best so far) of the run, the 2-D attainment of moocore.

    EAF(b, v) = (1 / n) * #{runs r : best_r(b) <= v}                      (n the runs of the problem)
    difference(b, v) = EAF_left(b, v) - EAF_right(b, v)
    area = (1 / n) * sum_r  integral over g(b) in [g(1), g(B)] of v_norm(best_r(b))  / (g(B) - g(1))

with g = log10 (or the identity, `log_budget=False`), B the budget cut or the problem's longest run, and
v_norm IOHinspector's normalised value (`pipeline.measures.aocc.normalised`, bounds lower, upper): the
fraction of levels spread log-uniformly (or uniformly) in [lower, upper] that best_r(b) attains. So the area
is the volume under the EAF over that rectangle, normalised to [0, 1]; with a linear budget it is
IOHinspector's AOCC but for the first record's interval (AOCC gives it the first record's value).

Declared here (`registry.Measure`): the measures "eaf", "eaf_diff" and "eaf_area", their facade methods,
commands and chart kinds ("eaf": `pipeline.charts.eaf`, "eaf-diff": `pipeline.charts.eaf.diff_chart`).

Examples
--------
Two runs; at 10 evaluations one is at 1.0, the other at 0.1; at 100 both are at 0.1 or better.

>>> import polars as pl
>>> runs = pl.LazyFrame({"run_id": [1, 2], "suite": "s", "algorithm": "A", "function": 1, "dimension": 2})
>>> events = pl.LazyFrame({"run_id": [1, 1, 2], "evaluations": [1, 50, 10], "best_delta": [1.0, 0.01, 0.1]})
>>> grid = pl.LazyFrame({"suite": "s", "function": 1, "dimension": 2, "budget": [10.0, 100.0]})
>>> levels = pl.LazyFrame({"suite": "s", "function": 1, "dimension": 2, "level": [0.1, 0.01]})
>>> eaf(runs, events, grid, levels).collect().select("budget", "level", "eaf").rows()
[(10.0, 0.1, 0.5), (10.0, 0.01, 0.0), (100.0, 0.1, 1.0), (100.0, 0.01, 0.5)]
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ..vocabulary import PROBLEM
from .registry import (BOOL, NONE, TEXT, Check, Inputs, Interval, Items, Measure, Param, register,
                       settings_class)

if TYPE_CHECKING:
    import polars as pl

#: the problems a grid is shared by (every algorithm of the problem on the same budgets and levels)
CELL = ("suite", "function", "dimension")
#: the bounds of the normalised value of the area (IOHinspector's `get_discritized_eaf_single_objective`)
LOWER, UPPER = 1e-8, 1e2


def best_at(runs: pl.LazyFrame, events: pl.LazyFrame, budgets: pl.LazyFrame) -> pl.LazyFrame:
    """Each run's best so far at each budget of its problem (run_id, PROBLEM, budget, best; best null
    before the run's first record)."""
    import polars as pl

    steps = (events.join(runs.select("run_id"), on="run_id", how="semi").sort("run_id", "evaluations")
             .select("run_id", ev=pl.col("evaluations").cast(pl.Float64),
                     best=pl.col("best_delta").cum_min().over("run_id")).sort("ev"))
    pairs = runs.select("run_id", *PROBLEM).join(budgets, on=list(CELL)).sort("budget")
    return pairs.join_asof(steps, left_on="budget", right_on="ev", by="run_id", strategy="backward",
                           check_sortedness=False).drop("ev")


def eaf(runs: pl.LazyFrame, events: pl.LazyFrame, budgets: pl.LazyFrame, levels: pl.LazyFrame) -> pl.LazyFrame:
    """The EAF per (problem, budget, level): the fraction of the problem's runs attaining (budget, level).

    Parameters
    ----------
    runs : polars.LazyFrame
        Trials: run_id, suite, algorithm, function, dimension.
    events : polars.LazyFrame
        Records: run_id, evaluations, best_delta (precisions, or oriented values: smaller is better).
    budgets, levels : polars.LazyFrame
        The grid per (suite, function, dimension): a column budget (evaluations), a column level.

    Returns
    -------
    polars.LazyFrame
        PROBLEM, budget, level, eaf and runs, sorted by problem, budget, then level from the largest.
    """
    import polars as pl

    at = best_at(runs, events, budgets)
    n = at.group_by(*PROBLEM, "budget").agg(runs=pl.len())
    counts = (at.filter(pl.col("best").is_not_null()).group_by(*PROBLEM, "budget", "best").agg(k=pl.len())
              .sort("best").with_columns(attained=pl.col("k").cum_sum().over([*PROBLEM, "budget"])).sort("best"))
    grid = n.join(levels, on=list(CELL)).sort("level")
    by = [*PROBLEM, "budget"]
    out = grid.join_asof(counts.select(*by, "best", "attained"), left_on="level", right_on="best", by=by,
                         strategy="backward", check_sortedness=False)
    return (out.select(*PROBLEM, "budget", "level", eaf=pl.col("attained").fill_null(0) / pl.col("runs"),
                       runs=pl.col("runs").cast(pl.Int64))
            .sort(*PROBLEM, "budget", "level", descending=[False] * 5 + [True]))


def area(runs: pl.LazyFrame, events: pl.LazyFrame, limits: pl.LazyFrame, lower: float = LOWER,
         upper: float = UPPER, log: bool = True, log_budget: bool = True) -> pl.LazyFrame:
    """The area under the EAF per problem (the module's formula), budgets 1 .. B (limits: budget per CELL).

    Returns PROBLEM, budget (B), area and runs, sorted by problem; area is null where B <= 1.
    """
    import polars as pl

    from .aocc import normalised
    from .sums import ordered_mean, ordered_sum

    g = (lambda e: e.log10()) if log_budget else (lambda e: e)
    b = pl.col("budget")
    steps = (events.join(runs.select("run_id", *PROBLEM).join(limits, on=list(CELL)), on="run_id")
             .sort("run_id", "evaluations")
             .with_columns(best=pl.col("best_delta").cum_min().over("run_id"),
                           ev=pl.col("evaluations").cast(pl.Float64).clip(1.0, None))
             .filter(pl.col("ev") <= b))
    nxt = pl.col("ev").shift(-1).over("run_id").fill_null(b)
    per_run = (steps.with_columns(v=normalised(pl.col("best"), lower, upper, log))
               .group_by("run_id").agg(a=ordered_sum(pl.col("v") * (g(nxt) - g(pl.col("ev"))))))
    width = g(b) - g(pl.lit(1.0))
    return (runs.select("run_id", *PROBLEM).join(limits, on=list(CELL)).join(per_run, on="run_id", how="left")
            .group_by(PROBLEM).agg(budget=b.first(), area=ordered_mean(pl.col("a").fill_null(0.0) / width),
                                        runs=pl.len().cast(pl.Int64))
            .with_columns(area=pl.when(pl.col("budget") > 1).then(pl.col("area")))
            .sort(PROBLEM))


# -- the grid -------------------------------------------------------------------------------------------------
def spaced(low: float, high: float, n: int, log: bool) -> list[float]:
    """n numbers from low to high, evenly spaced (on a log scale when `log`)."""
    if n == 1 or low == high:
        return [float(high)]
    if log:
        a, z = math.log10(low), math.log10(high)
        return [10 ** (a + (z - a) * i / (n - 1)) for i in range(n)]
    return [low + (high - low) * i / (n - 1) for i in range(n)]


def longest(runs: pl.LazyFrame, inputs: Inputs) -> pl.LazyFrame:
    """B per CELL: the budget cut when there is one, else the longest run of the problem (any algorithm)."""
    import polars as pl

    from . import auc

    if inputs.selection.max_budget is not None:
        return auc.budgets(runs, inputs.selection.max_budget)
    return runs.group_by(list(CELL)).agg(budget=pl.col("last_evaluation").max().cast(pl.Float64))


def budget_grid(runs: pl.LazyFrame, inputs: Inputs, s) -> pl.LazyFrame:
    """The budgets per CELL: those given, else `points` integers log-spaced from 1 to B (IOHinspector's
    `get_sequence(..., cast_to_int=True)`: rounded, repeats dropped)."""
    import polars as pl

    cells = longest(runs, inputs).collect()
    rows = []
    for *cell, high in cells.iter_rows():
        grid = (sorted(set(float(x) for x in s.budgets)) if s.budgets is not None
                else sorted({float(round(x)) for x in spaced(1.0, max(high, 1.0), s.points, True)}))
        rows += [(*cell, x) for x in grid]
    schema = {**dict(zip(CELL, cells.dtypes[:3])), "budget": pl.Float64}
    return pl.LazyFrame(rows, schema=schema, orient="row")


def level_grid(runs: pl.LazyFrame, events: pl.LazyFrame, s, values: bool) -> pl.LazyFrame:
    """The levels per CELL (oriented on values): those given, else `points` levels from the worst first
    record of any run to the best value reached (`values.default_targets`; precisions floored at 1e-8)."""
    import polars as pl

    from ..conventions import PRECISION_FLOOR
    from . import values as values_m

    if s.levels is not None:
        if values:
            return values_m.given_targets(runs, s.levels).rename({"target": "level"})
        cells = runs.select(*CELL).unique()
        return cells.join(pl.LazyFrame({"level": [float(x) for x in s.levels]}), how="cross")
    if not values:
        runs = runs.with_columns(maximize=pl.lit(False))
        events = events.with_columns(best_delta=pl.col("best_delta").clip(PRECISION_FLOOR, None))
    return values_m.default_targets(runs, events, s.points).rename({"target": "level"})


def raw(table: pl.LazyFrame, runs: pl.LazyFrame, values: bool) -> pl.LazyFrame:
    """The table with its level as a raw value (values) and the quantity column after the problem's."""
    import polars as pl

    from ..selection import oriented
    from .values import QUANTITY

    names = table.collect_schema().names()
    key = [c for c in PROBLEM if c in names]
    if values:
        sense = runs.group_by(list(CELL)).agg(maximize=pl.col("maximize").any())
        table = (table.join(sense, on=list(CELL), how="left", maintain_order="left")
                 .with_columns(level=oriented(pl.col("level"), pl.col("maximize"))).drop("maximize"))
    return table.with_columns(pl.lit("value" if values else "precision").alias(QUANTITY)).select(
        *key, QUANTITY, *[c for c in names if c not in key])


# -- the declarations -------------------------------------------------------------------------------------------
GRID = [
    Param("budgets", None, (NONE, Items(Interval(float, 0, None, "neither"))),
          "Budgets in evaluations (default: `points` integers log-spaced from 1 to the longest run)."),
    Param("levels", None, (NONE, Items(Interval(float))),
          "Levels: precisions, or raw values (default: `points` from the worst first record to the best reached)."),
    Param("points", 20, (Interval(int, 1, 1000),), "Budgets and levels of the default grid."),
]


def _inputs(inputs: Inputs, s, algorithms=None):
    import polars as pl

    runs, events, values = inputs.runs(), inputs.records(), inputs.selection.quantity == "value"
    grid_b, grid_l = budget_grid(runs, inputs, s), level_grid(runs, events, s, values)
    if algorithms is not None:
        runs = runs.filter(pl.col("algorithm").is_in(list(algorithms)))
    return runs, events, grid_b, grid_l, values


def _eaf(inputs: Inputs, s) -> pl.LazyFrame:
    runs, events, grid_b, grid_l, values = _inputs(inputs, s)
    return raw(eaf(runs, events, grid_b, grid_l), runs, values)


COLUMNS = (*PROBLEM, "quantity", "budget", "level", "eaf", "runs")
register(Measure(
    name="eaf", summary="Empirical attainment function: fraction of runs reaching each level within each budget.",
    seed="López-Ibáñez et al. 2010; IOHinspector, moocore (docs/measures.md)", inputs=("runs", "records"),
    keys=(), groupable=False, quantities=True, targets=False, settings=settings_class("eaf", GRID), spec=_eaf,
    columns=COLUMNS, charts=("eaf",), command="eaf"))


def _pair(inputs: Inputs, s) -> tuple[str, str] | None:
    """The two algorithms compared: left and right, else the first two of the selection by name (None: fewer)."""
    if s.left is not None and s.right is not None:
        return s.left, s.right
    names = sorted(inputs.runs().select("algorithm").unique().collect()["algorithm"].to_list())
    rest = [n for n in names if n not in (s.left, s.right)]
    picked = [x for x in (s.left, s.right) if x is not None] + rest
    return (picked[0], picked[1]) if len(picked) >= 2 else None


DIFF_COLUMNS = (*CELL, "quantity", "budget", "level", "left", "right", "eaf_left", "eaf_right", "difference")


def _eaf_diff(inputs: Inputs, s) -> pl.LazyFrame:
    import polars as pl

    pair = _pair(inputs, s)
    if pair is None:
        schema = {**dict.fromkeys(CELL, pl.String), "quantity": pl.String, "budget": pl.Float64,
                  "level": pl.Float64, "left": pl.String, "right": pl.String, "eaf_left": pl.Float64,
                  "eaf_right": pl.Float64,
                  "difference": pl.Float64}
        schema.update(function=pl.Int32, dimension=pl.Int32)
        return pl.LazyFrame(schema=schema)
    runs, events, grid_b, grid_l, values = _inputs(inputs, s, pair)
    table = eaf(runs, events, grid_b, grid_l)
    on = [*CELL, "budget", "level"]
    side = [table.filter(pl.col("algorithm") == name).select(*on, pl.col("eaf").alias(col))
            for name, col in zip(pair, ("eaf_left", "eaf_right"))]
    both = (side[0].join(side[1], on=on, maintain_order="left")
            .with_columns(left=pl.lit(pair[0]), right=pl.lit(pair[1]),
                          difference=pl.col("eaf_left") - pl.col("eaf_right")))
    return raw(both, runs, values).select(DIFF_COLUMNS)


register(Measure(
    name="eaf_diff", summary="Difference of the empirical attainment functions of two algorithms (left minus right).",
    seed="López-Ibáñez et al. 2010; moocore eafdiff (docs/measures.md)", inputs=("runs", "records"), keys=(),
    groupable=False, quantities=True, targets=False,
    settings=settings_class("eaf_diff", [
        Param("left", None, (NONE, TEXT), "The first algorithm (default: the first of the selection by name)."),
        Param("right", None, (NONE, TEXT), "The second algorithm (default: the next of the selection by name)."),
        *GRID], (Check("right", lambda s: s.left is None or s.right != s.left,
                       lambda s: f"an algorithm other than left {s.left!r}"),)),
    spec=_eaf_diff, columns=DIFF_COLUMNS, charts=("eaf-diff",), command="eaf-diff"))


def _eaf_area(inputs: Inputs, s) -> pl.LazyFrame:
    runs = inputs.runs()
    table = area(runs, inputs.records(), longest(runs, inputs), s.lower, s.upper, s.log, s.log_budget)
    from .values import labelled, to_raw

    return to_raw(table, runs, []) if inputs.selection.quantity == "value" else labelled(table)


register(Measure(
    name="eaf_area", summary="Area under the empirical attainment function per problem, normalised to [0, 1].",
    seed="IOHinspector's EAF and AOCC (docs/measures.md)", inputs=("runs", "records"), keys=(), groupable=False,
    quantities=True, targets=False,
    settings=settings_class("eaf_area", [
        Param("lower", LOWER, (Interval(float),), "The level at which the normalised value is 1."),
        Param("upper", UPPER, (Interval(float),), "The level at which the normalised value is 0."),
        Param("log", True, (BOOL,), "Levels on a log scale."),
        Param("log_budget", True, (BOOL,), "Budgets on a log scale.")],
        (Check("lower", lambda s: not s.log or s.lower > 0, lambda s: "a number > 0 on a log scale (log=True)"),
         Check("upper", lambda s: s.upper > s.lower, lambda s: f"a number > lower {s.lower!r}"))),
    spec=_eaf_area, columns=(*PROBLEM, "quantity", "budget", "area", "runs")))

