"""The charts of the solver profiles (`pipeline.measures.solver_profiles`), as OptiProfiler draws them: the
performance profiles (the fraction of problems each algorithm solved within a ratio of the least work) and
the data profiles (within a budget in simplex gradients, evaluations / (n + 1)) as a step line per algorithm,
a panel per tolerance, on a log2 axis; the log-ratio profile of two algorithms as bars (log2 of a's work over
b's per problem, sorted; below 0 a needed less work, coloured as a; the problems only one solved at +-1.1
times the largest ratio). The kinds "performance-profile", "data-profile" and "log-ratio-profile" are drawn
by `performance_profile_chart`, `data_profile_chart` and `log_ratio_profile_chart`."""
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


def performance_profile_chart(data: pl.DataFrame, *, settings: Sequence[str] | str | None = None,
                              title: str = "Performance profiles",
          columns: int = 5, width: int = 160, height: int = 130) -> alt.FacetChart:
    """The fraction of problems solved within each ratio to the least work (log2), per tolerance."""
    return steps(data, x="work / least work", title=title, settings=settings,
                 columns=columns, width=width, height=height)


def data_profile_chart(data: pl.DataFrame, *, settings: Sequence[str] | str | None = None,
                       title: str = "Data profiles",
          columns: int = 5, width: int = 160, height: int = 130) -> alt.FacetChart:
    """The fraction of problems solved within each budget of simplex gradients (log2), per tolerance."""
    return steps(data, x="simplex gradients, evals / (n + 1)", title=title, settings=settings,
                 columns=columns, width=width, height=height)


def log_ratio_profile_chart(data: pl.DataFrame, *, settings: Sequence[str] | str | None = None,
                            title: str = "Log-ratio profile",
          columns: int = 5, width: int = 160, height: int = 130) -> alt.FacetChart:
    """log2(work a / work b) per problem in increasing order, per (suite, tolerance); the tooltip names the
    problem, both works and who solved it."""
    drawn, order = panels(data.filter(pl.col("value").is_not_null()))
    a, b = (data[c][0] if data.height else c for c in ("a", "b"))
    legend = [f"{a} less work", f"{b} less work"]
    drawn = drawn.with_columns(better=pl.when(pl.col("value") < 0).then(pl.lit(legend[0])).otherwise(pl.lit(legend[1])))
    bars = alt.Chart(theme.data(drawn)).mark_bar().encode(
        x=alt.X("position:Q", title="problems, sorted"),
        y=alt.Y("value:Q", title="log2 work ratio"),
        color=alt.Color("better:N", title=None, scale=alt.Scale(domain=legend, range=list(theme.COLOURS[:2]))),
        tooltip=["function:Q", "dimension:Q", "instance:Q", "repetition:Q", "work_a:Q", "work_b:Q", "solved:N",
                 alt.Tooltip("log_ratio:Q", format=".3f")],
    ).properties(width=width, height=height)
    return bars.facet(facet=alt.Facet("panel:N", title=None, sort=order), columns=columns).properties(
        title=theme.title(title, settings))
