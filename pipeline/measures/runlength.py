"""Runlength-based target values from a reference algorithm (seed 000, "Runlength-based Target Values").

For a reference budget b (times the dimension n), the target of a (function, dimension) is the
smallest precision f the reference reaches with aRT(f) <= max(1, b n), made one grid step harder:
(1 + 1e-9) f / 10^0.2 (cocopp `pproc.RunlengthBasedTargetValues`). Budgets are taken in increasing
order; with a factor > 1 a target not smaller than the previous one is replaced by the previous one
divided by the factor ("not chosen before", cocopp's default 10^0.04); targets are at least 1e-8.
The precisions f are the reference's targets on its recording grid 10^(k/5) from its first record
down to 1e-8: cocopp aligns the reference on the grid values its records reach, and the smallest
grid value with aRT <= b n is always one of them.

Examples
--------
On f1 in 2-D, cocopp's reference best2009 (shipped with cocopipe) reaches 10^0.8 within 2 evaluations and
1e-8 within 20: the targets of budgets 1 and 10 (times the dimension) are one grid step harder.

>>> from pipeline.measures.runlength import runlength_targets
>>> from pipeline.selection import open_reference
>>> best2009 = open_reference("best2009", "bbob").narrow(function=(1,), dimension=(2,))
>>> runlength_targets(best2009, [1.0, 10.0]).select("budget_per_dimension", "target").collect().rows()
[(1.0, 3.981071709516045), (10.0, 1e-08)]
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import polars as pl

from ..conventions import is_biobjective
from .art import art as average_runtime

#: the step to the next more difficult target (cocopp `step_to_next_difficult_target`)
STEP = 10 ** 0.2
#: cocopp's default factor of the "not chosen before" rule (`force_different_targets_factor`)
DISTINCT_FACTOR = 10 ** 0.04
SMALLEST_TARGET = 1e-8
OUT_SCHEMA = {"suite": pl.String, "function": pl.Int32, "dimension": pl.Int32, "budget_per_dimension": pl.Float64,
              "target": pl.Float64}


def log_uniform_budgets(count: int = 31, low: float = 0.5, high: float = 50.0) -> list[float]:
    """`count` budgets (times the dimension) log-uniform in [low, high]: cocopp's ECDF budgets (31).

    Examples
    --------
    >>> [round(b, 9) for b in log_uniform_budgets(3)]
    [0.5, 5.0, 50.0]
    """
    return [float(b) for b in np.logspace(np.log10(low), np.log10(high), count)]


def parse_budgets(spec: str | int | Sequence[float]) -> int | list[float]:
    """Budgets from the CLI: a count ('31') or a comma-separated list of budgets per dimension.

    Examples
    --------
    >>> parse_budgets("31"), parse_budgets("0.5, 2, 10")
    (31, [0.5, 2.0, 10.0])
    """
    if isinstance(spec, int):
        return spec
    if not isinstance(spec, str):
        return [float(b) for b in spec]
    parts = [p.strip() for p in spec.split(",") if p.strip()]
    try:
        if len(parts) == 1 and parts[0].isdigit():
            return int(parts[0])
        values = [float(p) for p in parts]
    except ValueError as exc:
        raise ValueError(f"budgets {spec!r}: expected a count (31) or budgets per dimension v1,v2,...") from exc
    if not values or not all(v > 0 and math.isfinite(v) for v in values):
        raise ValueError(f"budgets {spec!r}: budgets must be positive numbers")
    return values


def reference_grid(reference) -> pl.LazyFrame:
    """The reference's grid targets 10^(k/5) (10^(k/10) on bbob-biobj) from its first recorded precision down to 1e-8, per
    (suite, function, dimension), with their rank `row` (0 = the easiest, cocopp's `ds.target[0]`)."""
    runs, events = reference.runs(), reference.events()
    first = (events.filter((pl.col("trigger") & 1) == 1).group_by("run_id")
             .agg(pl.col("best_delta").sort_by("evaluations").first()))
    tops = (runs.join(first, on="run_id").group_by("suite", "function", "dimension")
            .agg(top=pl.col("best_delta").max()).collect())
    rows = []
    for s, f, d, top in tops.iter_rows():
        if not top > 0:
            continue
        n = 10 if is_biobjective(s) else 5  # cocopp's testbed `number_of_points`
        low = round(math.log10(SMALLEST_TARGET) * n)
        k_top = min(math.ceil(math.log10(top) * n), math.ceil(math.log10(top - 1e-12 if top >= 2e-12 else top / 2) * n))
        # Python's float power (the C library's pow), not np.power: numpy 2.4's vectorised power can differ
        # in the last bit, and cocopp's published targets are the correctly rounded 10^(k/n)
        rows += [(s, f, d, i, 10.0 ** (k / n)) for i, k in enumerate(range(k_top, low - 1, -1))]
    return pl.LazyFrame(rows, schema={"suite": pl.String, "function": pl.Int32, "dimension": pl.Int32,
                                      "row": pl.Int64, "target": pl.Float64}, orient="row")


def _not_chosen_before(targets: np.ndarray, factor: float) -> np.ndarray:
    """cocopp's rule, budget by budget: a target not smaller than the previous is the previous / factor."""
    out = targets.astype(float).copy()
    if factor > 1:
        for i in range(1, len(out)):
            if out[i] >= out[i - 1]:
                out[i] = out[i - 1] / factor
    return out


def runlength_targets(reference, budgets: int | Sequence[float] = 31, *, factor: float | None = None,
                      unique: bool | None = None, smallest_target: float = SMALLEST_TARGET,
                      times_dimension: bool = True) -> pl.LazyFrame:
    """Runlength-based targets of a reference (the module).

    Parameters
    ----------
    reference : Analysis
        The reference's trials, one algorithm per suite (e.g. `reference.open_reference("best2009")`).
    budgets : int or sequence of float
        A count N (N budgets log-uniform in 0.5..50, cocopp's ECDF setting with N = 31: no
        distinct-target rule, duplicate targets removed, each kept with its smallest budget) or a list
        of budgets per dimension (by default cocopp's "not chosen before" rule with factor 10^0.04,
        every budget kept).
    factor : float, optional
        The factor of the "not chosen before" rule (cocopp's tables use 10^0.2).
    unique : bool, optional
        Remove duplicate targets.
    smallest_target : float
        The smallest target.
    times_dimension : bool
        Whether the budgets are multiples of the dimension.

    Returns
    -------
    polars.LazyFrame
        suite, function, dimension, budget_per_dimension, target.
    """
    if isinstance(budgets, int):
        if budgets < 1:
            raise ValueError(f"budgets: expected a positive count, got {budgets}")
        values = log_uniform_budgets(budgets)
        factor = 1.0 if factor is None else factor
        unique = True if unique is None else unique
    else:
        values = sorted(float(b) for b in budgets)
        if not values or not all(b > 0 and math.isfinite(b) for b in values):
            raise ValueError(f"budgets {list(budgets)!r}: expected positive numbers")
        factor = DISTINCT_FACTOR if factor is None else factor
        unique = False if unique is None else unique
    if not (math.isfinite(factor) and factor > 0):
        raise ValueError(f"factor {factor!r}: expected a number > 0 (10^0.2 or, as cocopp reads it, 10^-0.2)")
    if factor < 1:
        factor = 1 / factor  # as cocopp: 10**-0.2 means 10**0.2
    algs = reference.runs().group_by("suite").agg(pl.col("algorithm").unique()).collect()
    several = [f"{s}: {', '.join(sorted(a))}" for s, a in algs.iter_rows() if len(a) > 1]
    if several:
        raise ValueError(f"the reference must hold one algorithm per suite, not {'; '.join(several)}")
    grid = reference_grid(reference)
    art = (average_runtime(reference.hits(grid.drop("row")))
           .select("suite", "function", "dimension", "target", "art")
           .join(grid, on=["suite", "function", "dimension", "target"]))
    b = pl.LazyFrame({"budget_per_dimension": values, "order": list(range(len(values)))})
    dim = pl.col("dimension").cast(pl.Float64)
    limit = pl.max_horizontal(pl.lit(1.0), pl.col("budget_per_dimension") * (dim if times_dimension else 1.0))
    keys = ["suite", "function", "dimension"]
    reached = (art.join(b, how="cross").filter(pl.col("art") <= limit)
               .group_by(*keys, "order").agg(pl.col("target").min()))
    easiest = grid.filter(pl.col("row") == 0).select(*keys, easiest="target")
    raw = (
        grid.select(keys).unique().join(b, how="cross")
        .join(reached, on=[*keys, "order"], how="left").join(easiest, on=keys)
        .sort(*keys, "order").collect()
    )
    parts = []
    for _, g in raw.group_by(keys, maintain_order=True):
        # numpy, not polars expressions, so the floating-point operations are cocopp's, in its order
        reached_t = g["target"].to_numpy(allow_copy=True).astype(float)
        t = np.where(np.isnan(reached_t), g["easiest"].to_numpy(), (1 + 1e-9) * reached_t / STEP)
        t = _not_chosen_before(t, factor)
        t[t < smallest_target] = smallest_target
        parts.append(g.with_columns(target=pl.Series(t)))
    out = pl.concat(parts) if parts else raw
    if unique:
        out = out.sort(*keys, "order").unique([*keys, "target"], keep="first", maintain_order=True)
    return (out.select([pl.col(c).cast(t) for c, t in OUT_SCHEMA.items()])
            .sort(*keys, "budget_per_dimension").lazy())


def target_frame(reference, budgets: int | Sequence[float] = 31, **options) -> pl.LazyFrame:
    """Runlength-based targets as a targets frame for hits/aRT/ECDF: suite, function, dimension, target."""
    return (runlength_targets(reference, budgets, **options)
            .select("suite", "function", "dimension", "target").unique(maintain_order=True))
