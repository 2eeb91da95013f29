"""Performance profiles (the measure "performance_profile", `pipeline.measures.solver_profiles`): the fraction
of problems each algorithm solved within a ratio of the least work, a step line per algorithm, a panel per
tolerance, the ratio on OptiProfiler's log2 axis; `steps` also draws the data profiles (`charts.data_profile`)."""
from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import polars as pl

from . import theme


def panels(data: pl.DataFrame) -> tuple[pl.DataFrame, list[str]]:
    """`data` with the column panel naming each row's (suite, tolerance) ("bbob, tau = 1e-3"), and the panels
    in their order: by suite, from the loosest tolerance."""
    pairs = sorted(set(data.select("suite", "tolerance").iter_rows()), key=lambda p: (p[0], -p[1]))
    names = {p: f"{p[0]}, tau = {theme.fmt_number(p[1])}" for p in pairs}
    key = pl.struct("suite", "tolerance")
    named = data.with_columns(panel=key.map_elements(lambda r: names[r["suite"], r["tolerance"]],
                                                     return_dtype=pl.String))
    return named, list(names.values())


def steps(data: pl.DataFrame, *, x: str, title: str, settings: Sequence[str] | str | None, columns: int,
          width: int, height: int) -> alt.FacetChart:
    """Each (suite, algorithm, tolerance)'s profile as a step line from its least ratio, a panel per
    (suite, tolerance) from the loosest tolerance; `x` the axis title."""
    table, order = panels(data.sort("suite", "quantity", "algorithm", "tolerance", "ratio"))
    pick = theme.highlight(bind_legend=True)  # a click on the legend or the report's search box
    lines = alt.Chart(theme.data(table)).mark_line(interpolate="step-after", clip=True).add_params(pick).encode(
        opacity=theme.faded(pick),
        x=alt.X("ratio:Q", scale=alt.Scale(type="log", base=2), title=x,
                axis=alt.Axis(grid=False, labelOverlap="greedy")),
        y=alt.Y("fraction:Q", scale=alt.Scale(domain=[0, 1]), title="fraction of problems"),
        color=alt.Color("algorithm:N", title="algorithm"),
        tooltip=["algorithm:N", alt.Tooltip("tolerance:Q", format=".0e"), alt.Tooltip("ratio:Q", format=".4g"),
                 alt.Tooltip("fraction:Q", format=".3f"), "problems:Q"],
    ).properties(width=width, height=height)
    return lines.facet(facet=alt.Facet("panel:N", title=None, sort=order), columns=columns).properties(
        title=theme.title(title, settings))


def chart(data: pl.DataFrame, *, settings: Sequence[str] | str | None = None, title: str = "Performance profiles",
          columns: int = 5, width: int = 160, height: int = 130) -> alt.FacetChart:
    """The fraction of problems solved within each ratio to the least work (log2), per tolerance."""
    return steps(data, x="work / least work", title=title, settings=settings,
                 columns=columns, width=width, height=height)
