"""The median runtime per target (`Analysis.median_runtime`, the measure "median_runtime"): median runtime /
dimension of the successful trials versus the target, from the easiest target (left) to the hardest, a
line per algorithm, a panel per (function, dimension); a target no trial reached has no point."""
from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import polars as pl

from . import theme


def chart(data: pl.DataFrame, *, settings: Sequence[str] | str | None = None, title: str = "Median runtime per target",
          columns: int = 6, width: int = 140, height: int = 110) -> alt.FacetChart:
    """Median runtime / dimension (log) versus target (log, hardest to the right) per (function, dimension);
    the tooltip gives the median, the successes and the trials."""
    base = alt.Chart(data).transform_filter("isValid(datum.median)").transform_calculate(
        per_dimension="datum.median / datum.dimension", panel="'f' + datum.function + ', ' + datum.dimension + '-D'")
    lines = base.mark_line(point=True).encode(
        x=alt.X("target:Q", scale=alt.Scale(type="log", reverse=True), title="target",
                axis=alt.Axis(format="~e", labelOverlap="greedy", grid=False)),
        y=alt.Y("per_dimension:Q", scale=alt.Scale(type="log"), title="median runtime / dimension"),
        color=alt.Color("algorithm:N", title="algorithm"),
        tooltip=["algorithm:N", "target:Q", "median:Q", "successes:Q", "trials:Q"],
    ).properties(width=width, height=height)
    subtitle = [settings] if isinstance(settings, str) else list(settings or [])
    return lines.facet(facet=alt.Facet("panel:N", title=None, sort=None), columns=columns).properties(
        title=alt.TitleParams(title, subtitle=subtitle, anchor="start", font=theme.FONT))
