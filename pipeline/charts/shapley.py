"""The Shapley values (`Analysis.shapley`, the measure "shapley"): each algorithm's share of the virtual
best solver's ECDF area as a bar, largest first, a panel per suite."""
from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import polars as pl

from . import theme


def chart(data: pl.DataFrame, *, settings: Sequence[str] | str | None = None,
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
