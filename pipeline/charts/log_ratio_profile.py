"""The log-ratio profile of two algorithms (the measure "log_ratio_profile", `pipeline.measures.
solver_profiles`): log2 of a's work over b's per problem, sorted, as bars (below 0: a needed less work,
coloured as a; above: b), the problems only one solved at +-1.1 times the largest ratio, a panel per
tolerance, as OptiProfiler draws it."""
from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import polars as pl

from . import theme
from .performance_profile import tolerance_panel


def chart(data: pl.DataFrame, *, settings: Sequence[str] | str | None = None, title: str = "Log-ratio profile",
          columns: int = 5, width: int = 160, height: int = 130) -> alt.FacetChart:
    """log2(work a / work b) per problem in increasing order, per (suite, tolerance); the tooltip names the
    problem, both works and who solved it."""
    drawn = data.filter(pl.col("value").is_not_null()).with_columns(
        better=pl.when(pl.col("value") < 0).then(pl.lit("a less work")).otherwise(pl.lit("b less work")))
    base = alt.Chart(theme.data(drawn)).transform_calculate(panel=f"datum.suite + ', ' + {tolerance_panel()}")
    bars = base.mark_bar().encode(
        x=alt.X("position:Q", title="problems, sorted"),
        y=alt.Y("value:Q", title="log2(work a / work b)"),
        color=alt.Color("better:N", title=None, scale=alt.Scale(domain=["a less work", "b less work"],
                                                                range=list(theme.COLOURS[:2]))),
        tooltip=["function:Q", "dimension:Q", "instance:Q", "repetition:Q", "work_a:Q", "work_b:Q", "solved:N",
                 alt.Tooltip("log_ratio:Q", format=".3f")],
    ).properties(width=width, height=height)
    order = sorted({(s, -t) for s, t in data.select("suite", "tolerance").iter_rows()})
    panels = [f"{s}, tau = {-t:.0e}" for s, t in order]
    return bars.facet(facet=alt.Facet("panel:N", title=None, sort=panels), columns=columns).properties(
        title=theme.title(title, settings))
