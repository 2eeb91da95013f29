"""The log-ratio profile of two algorithms (the measure "log_ratio_profile", `pipeline.measures.
solver_profiles`): log2 of a's work over b's per problem, sorted, as bars (below 0: a needed less work,
coloured as a; above: b, each named), the problems only one solved at +-1.1 times the largest ratio, a panel per
tolerance, as OptiProfiler draws it."""
from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import polars as pl

from . import theme
from .performance_profile import panels


def chart(data: pl.DataFrame, *, settings: Sequence[str] | str | None = None, title: str = "Log-ratio profile",
          columns: int = 5, width: int = 160, height: int = 130) -> alt.FacetChart:
    """log2(work a / work b) per problem in increasing order, per (suite, tolerance); the tooltip names the
    problem, both works and who solved it."""
    drawn, order = panels(data.filter(pl.col("value").is_not_null()))
    a, b = (data[c][0] if data.height else c for c in ("a", "b"))
    legend = [f"{a} less work", f"{b} less work"]
    drawn = drawn.with_columns(better=pl.when(pl.col("value") < 0).then(pl.lit(legend[0])).otherwise(pl.lit(legend[1])))
    bars = alt.Chart(theme.data(drawn)).mark_bar().encode(
        x=alt.X("position:Q", title="problems, sorted"),
        y=alt.Y("value:Q", title=f"log2(work {a} / work {b})"),
        color=alt.Color("better:N", title=None, scale=alt.Scale(domain=legend, range=list(theme.COLOURS[:2]))),
        tooltip=["function:Q", "dimension:Q", "instance:Q", "repetition:Q", "work_a:Q", "work_b:Q", "solved:N",
                 alt.Tooltip("log_ratio:Q", format=".3f")],
    ).properties(width=width, height=height)
    return bars.facet(facet=alt.Facet("panel:N", title=None, sort=order), columns=columns).properties(
        title=theme.title(title, settings))
