"""A budget cut: the experiment as if every trial had stopped after B evaluations (issue "budget cut").

B is a number of evaluations ("1000") or a multiple of the dimension ("100x"). `Budget.parse` reads
that text once, where it is given (the CLI, the facade); everything below takes a `Budget` or None.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import polars as pl


class Budget(NamedTuple):
    """A budget of `value` evaluations, or of `value` times the dimension (`per_dimension`, "Nx").

    Parameters
    ----------
    value : float
        Evaluations, or multiples of the dimension.
    per_dimension : bool
        `value` is a multiple of the dimension.

    Examples
    --------
    >>> Budget.parse("100x")
    Budget(value=100.0, per_dimension=True)
    >>> str(Budget.parse("1e4"))
    '10000'
    """

    value: float
    per_dimension: bool = False

    @classmethod
    def parse(cls, spec: str | float | Budget | None) -> Budget | None:
        """A budget from its text or a number.

        Parameters
        ----------
        spec : str, float, Budget or None
            '1000' (evaluations), '100x' (times the dimension), a number of evaluations, or None (or '')
            for no budget.

        Returns
        -------
        Budget or None

        Raises
        ------
        ValueError
            For text that is neither, or a budget that is not positive.

        Examples
        --------
        >>> Budget.parse("1e3"), Budget.parse(None)
        (Budget(value=1000.0, per_dimension=False), None)
        >>> Budget.parse("-2x")
        Traceback (most recent call last):
        ...
        ValueError: budget '-2x' must be positive
        """
        if spec is None or spec == "" or isinstance(spec, Budget):
            return spec or None
        if isinstance(spec, str):
            text = spec.strip().lower()
            per_dimension = text.endswith("x")
            try:
                value = float(text[:-1] if per_dimension else text)
            except ValueError as exc:
                raise ValueError(f"budget {spec!r}: expected evaluations (1000) or a multiple of the dimension "
                                 "(100x)") from exc
        else:
            value, per_dimension = float(spec), False
        if not value > 0:
            raise ValueError(f"budget {spec!r} must be positive")
        if math.isinf(value):
            raise ValueError(f"budget {spec!r} must be finite")
        return cls(value, per_dimension)

    def limit(self) -> pl.Expr:
        """B in evaluations, for each row of a frame with a `dimension` column.

        Examples
        --------
        >>> import polars as pl
        >>> pl.DataFrame({"dimension": [2, 5]}).select(Budget.parse("100x").limit())["literal"].to_list()
        [200.0, 500.0]
        """
        return pl.lit(self.value) * pl.col("dimension").cast(pl.Float64) if self.per_dimension else pl.lit(self.value)

    def __str__(self) -> str:
        value = int(self.value) if self.value.is_integer() and self.value < 1e15 else self.value
        return f"{value}{'x' if self.per_dimension else ''}"


def cut(runs: pl.LazyFrame, events: pl.LazyFrame, budget: Budget | None) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """The trials and their records as if every trial had stopped at the budget (None: as they are).

    evaluations -> min(evaluations, B); only records at or before B are kept, so targets count as
    reached only when hit by B; final_delta -> the best precision reached by B.
    """
    if budget is None:
        return runs, events
    limit = runs.select("run_id", limit=budget.limit())
    kept = events.join(limit, on="run_id").filter(pl.col("evaluations") <= pl.col("limit")).drop("limit")
    best = kept.group_by("run_id").agg(best_by_budget=pl.col("best_delta").min())
    first = events.group_by("run_id").agg(first_delta=pl.col("best_delta").sort_by("evaluations").first())
    trials = (
        runs.with_columns(_limit=budget.limit())
        .join(best, on="run_id", how="left")
        .join(first, on="run_id", how="left")
        .with_columns(
            evaluations=pl.min_horizontal(pl.col("evaluations").cast(pl.Float64), pl.col("_limit")).floor().cast(pl.Int64),
            final_delta=pl.coalesce("best_by_budget", "first_delta"),
        )
        .drop("_limit", "best_by_budget", "first_delta")
    )
    return trials, kept


def cut_hits(hits: pl.LazyFrame, budget: Budget | None) -> pl.LazyFrame:
    """First hitting times of trials cut at the budget: a target counts as reached only if its first
    hitting time is <= B (as ../shared/tools/cocopp_oracle_cut.py cuts cocopp's own hitting times)."""
    if budget is None:
        return hits
    return hits.with_columns(hit=pl.when(pl.col("hit") <= budget.limit()).then(pl.col("hit"))).with_columns(
        success=pl.col("hit").is_not_null())
