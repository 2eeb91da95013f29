"""Sums of floats that give the same bits on every run."""
from __future__ import annotations

import polars as pl


def ordered_sum(terms: pl.Expr) -> pl.Expr:
    """The sum of `terms`, added one after the other in ascending order.

    Polars adds the terms of a group as partial sums whose split depends on the order and the chunks in
    which the rows arrive (from a parallel join, say), so a float `sum()` may change in its last bits from
    one run to the next. Sorted and added in sequence, the sum is the same whatever the arrival, so that a
    table, and a report rebuilt from its settings, are the same byte for byte.

    Examples
    --------
    >>> import polars as pl
    >>> from pipeline.measures.sums import ordered_sum
    >>> pl.DataFrame({"g": [1, 1, 2], "v": [0.5, 0.25, 1.0]}).group_by("g").agg(ordered_sum(pl.col("v"))).sort("g").rows()
    [(1, 0.75), (2, 1.0)]
    """
    return terms.sort().cum_sum().last()


def ordered_mean(terms: pl.Expr) -> pl.Expr:
    """The mean of the non-null `terms`, their sum taken by `ordered_sum`.

    Examples
    --------
    >>> import polars as pl
    >>> from pipeline.measures.sums import ordered_mean
    >>> pl.DataFrame({"v": [0.5, None, 0.25]}).select(ordered_mean(pl.col("v"))).item()
    0.375
    """
    return ordered_sum(terms) / terms.count()
