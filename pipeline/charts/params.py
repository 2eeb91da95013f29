"""Convergence-style chart of a tracked parameter (e.g. an ES's step size): the median over runs versus
evaluations as a line, the 25th-75th percentile band as an area, one colour per algorithm, a panel per
(function, dimension)."""
from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import polars as pl

from . import theme


def parameter_chart(summary: pl.DataFrame, *, name: str, palette: theme.Palette | None = None,
                    settings: Sequence[str] | str | None = None, columns: int = 4, width: int = 150,
                    height: int = 120, configured: bool = True) -> alt.FacetChart:
    """`measures.params.quantiles` rows of one parameter `name` (columns budget_evaluations, median, q25,
    q75, runs_with_data) drawn over evaluations (log), values on a log axis when all are positive."""
    t = (summary.filter((pl.col("name") == name) & (pl.col("runs_with_data") > 0))
         .with_columns(panel=pl.format("f{} {}-D", "function", "dimension")))
    if not t.height:
        raise ValueError(f"no values of the parameter {name!r} in the selection")
    algs = sorted(t["algorithm"].unique().to_list())
    pal = theme.extend(palette, algs)
    col = theme.colour({a: pal[a] for a in pal if a in set(algs)})
    positive = bool((t["q25"] > 0).all())
    scale = alt.Scale(type="log") if positive else alt.Scale(zero=False)
    lo, hi = theme.pow10_domain(float(t["budget_evaluations"].min()), float(t["budget_evaluations"].max()))
    x = alt.X("budget_evaluations:Q", scale=theme.log_scale((lo, hi), nice=False),
              axis=theme.log_axis("evaluations", values=theme.pow10_ticks(lo, hi, most=5)))
    y = alt.Y("median:Q", scale=scale, title=name)
    tip = [theme.tip("algorithm:N"), theme.tip("panel:N", title="problem"),
           theme.tip("budget_evaluations:Q", title="evaluations", format=".3~g"),
           theme.tip("median:Q", format=".3e"), theme.tip("q25:Q", format=".3e"), theme.tip("q75:Q", format=".3e"),
           theme.tip("runs_with_data:Q", title="runs")]
    layers = [
        theme.Chart().mark_area(interpolate="step-after", opacity=0.2).encode(
            x=x, y=alt.Y("q25:Q", scale=scale, title=name), y2=alt.Y2("q75:Q"), color=col),
        theme.Chart().mark_line(interpolate="step-after").encode(x=x, y=y, color=col, tooltip=tip),
    ]
    panels = t.select("function", "dimension", "panel").unique().sort("function", "dimension")["panel"].to_list()
    cols = ["algorithm", "panel", "budget_evaluations", "median", "q25", "q75", "runs_with_data"]
    chart = theme.layer(*layers, width=width, height=height).facet(
        facet=alt.Facet("panel:N", sort=panels, title=None), columns=columns, data=theme.data(t.select(cols), 4),
        resolve=theme.independent(y="independent"))
    return theme.finish(chart, f"Tracked parameter {name}: median and 25-75% band over runs", settings, configured)
