"""The charts of the portfolio measures (`pipeline.measures.portfolio`): the virtual best solver ("vbs",
`vbs_chart`) per (function, dimension), the best fraction of runs of any algorithm reaching each target within
each budget, as filled steps over (budget, target), light to dark, the tooltip naming the algorithm that gives
it; the Shapley values ("shapley", `shapley_chart`), each algorithm's share of the virtual best solver's ECDF
area as a bar, largest first, a panel per suite."""
from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import polars as pl

from . import theme
from .eaf import boxes, panel


def vbs_chart(data: pl.DataFrame, *, settings: Sequence[str] | str | None = None,
          title: str = "Virtual best solver", columns: int = 4, width: int = 200, height: int = 150) -> alt.FacetChart:
    """VBS fraction per (budget, target) and (function, dimension)."""
    frame = panel(boxes(data.filter(pl.col("target") > 0), ["suite", "function", "dimension"], y="target"),
                  with_algorithm=False)
    rects = alt.Chart(theme.data(frame)).mark_rect(stroke=None).encode(
        x=alt.X("budget:Q", scale=alt.Scale(type="log"), title="evaluations"), x2="budget2:Q",
        y=alt.Y("target:Q", scale=alt.Scale(type="log"), title="target precision"), y2="target2:Q",
        color=alt.Color("fraction:Q", title="VBS fraction", scale=alt.Scale(scheme="greys", domain=[0, 1])),
        tooltip=["budget:Q", alt.Tooltip("target:Q", format=".3g"), alt.Tooltip("fraction:Q", format=".3f"),
                 "algorithm:N"],
    ).properties(width=width, height=height)
    subtitle = [settings] if isinstance(settings, str) else list(settings or [])
    return rects.facet(facet=alt.Facet("panel:N", title=None, sort=None), columns=columns).properties(
        title=alt.TitleParams(title, subtitle=subtitle, anchor="start", font=theme.FONT))


def shapley_chart(data: pl.DataFrame, *, settings: Sequence[str] | str | None = None,
          title: str = "Shapley values: contributions to the virtual best solver", width: int = 360) -> alt.FacetChart:
    """A bar per algorithm (its Shapley value), sorted from the largest; the tooltip gives the method."""
    height = max(60, 16 * data["algorithm"].n_unique()) if data.height else 60
    bars = alt.Chart(theme.data(data)).mark_bar().encode(
        x=alt.X("shapley:Q", title="Shapley value (share of the VBS's ECDF area)"),
        y=alt.Y("algorithm:N", sort="-x", title=None),
        tooltip=["algorithm:N", alt.Tooltip("shapley:Q", format=".4f"), "method:N", "permutations:Q"],
    ).properties(width=width, height=height)
    subtitle = [settings] if isinstance(settings, str) else list(settings or [])
    return bars.facet(row=alt.Row("suite:N", title=None)).properties(
        title=alt.TitleParams(title, subtitle=subtitle, anchor="start", font=theme.FONT))
