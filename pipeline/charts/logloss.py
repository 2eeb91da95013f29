"""aRT loss ratio against a reference algorithm versus budget, drawn as cocopp's pplogloss: the
geometric mean over functions (line), the 25-75 % band and the 10-90 % range per (dimension, group,
budget), from `pipeline.measures.logloss` (`Analysis.loss_ratios`), which states the measure.
"""
from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import numpy as np
import polars as pl

from ..conventions import group_label_expr
from . import theme


def logloss_chart(table: pl.DataFrame, reference: str, *, palette: theme.Palette | None = None,
                  title: str | None = None, settings: Sequence[str] | str | None = None, columns: int = 3,
                  width: int = 220, height: int = 170, configured: bool = True) -> alt.FacetChart:
    """Geometric mean loss ratio (line) with the 25-75 % band and 10/90 % ticks per budget, one
    colour per algorithm, a panel per (dimension, group); 1 = as fast as the reference."""
    heading = title or f"aRT loss ratio versus {reference}"
    if not table.height:
        return theme.message(f"No finite aRT loss ratio: no target of the grid reached by both the algorithm and "
                             f"{reference} within the budgets.", heading, settings, configured=configured)
    t = table.with_columns(panel=pl.format("{}-D {}", pl.col("dimension"), group_label_expr(pl.col("group"))))
    algs = t["algorithm"].unique(maintain_order=True).to_list()
    pal = theme.extend(palette, algs)
    pal = {a: pal[a] for a in pal if a in set(algs)}
    col = theme.colour(pal, legend=alt.Legend(title=None, symbolStrokeWidth=2, symbolType="stroke",
                                                       symbolOpacity=1))
    pick = theme.highlight(bind_legend=True)
    faded = theme.faded(pick, 1, 0.12)
    xs = t["x"]
    lo, hi = theme.pow10_domain(float(xs.min()), float(xs.max()))
    x = alt.X("x:Q", scale=theme.log_scale((lo, hi), nice=False, padding=6),
              axis=theme.log_axis("budget: evaluations / dimension", values=theme.pow10_ticks(lo, hi, most=6)))
    drawn = pl.concat([t[c] for c in ("p10", "p25", "geomean", "p75", "p90")])
    drawn = drawn.filter(drawn.is_finite() & (drawn > 0))
    y_dom = theme.pow10_domain(min(float(drawn.min()), 1.0), max(float(drawn.max()), 1.0)) if len(drawn) else (0.1, 10)
    y_scale = theme.log_scale(y_dom, nice=False, padding=6)  # one range for every panel, the points inside
    y_axis = theme.log_axis(f"aRT loss ratio vs {reference}", values=theme.pow10_ticks(*y_dom, most=6))
    y = alt.Y("geomean:Q", scale=y_scale, axis=y_axis)
    tip = [theme.tip("algorithm:N"), theme.tip("x:Q", title="budget / dimension", format=".3~g"),
           theme.tip("geomean:Q", title="geometric mean", format=".3~g"), theme.tip("p50:Q", title="median", format=".3~g"),
           theme.tip("p10:Q", format=".3~g"), theme.tip("p90:Q", format=".3~g"), theme.tip("functions:Q")]
    one = theme.Chart().mark_rule(color="#666").encode(y=alt.YDatum(1))
    # every layer with the one colour legend (layers without it made Vega-Lite warn of conflicting legends)
    band = theme.Chart().mark_area(opacity=0.15).encode(
        x=x, y=alt.Y("p25:Q", scale=y_scale, axis=y_axis), y2=alt.Y2("p75:Q"), color=col,
        opacity=theme.faded(pick, 0.18, 0.03))
    whisk = theme.Chart().mark_rule(strokeWidth=1).encode(
        x=x, y=alt.Y("p10:Q", scale=y_scale, axis=y_axis), y2=alt.Y2("p90:Q"), color=col, opacity=faded)
    line = theme.Chart().mark_line(point=alt.OverlayMarkDef(filled=True, size=30)).encode(
        x=x, y=y, color=col, opacity=faded, tooltip=tip).add_params(pick)
    panels = t.sort("dimension", "group")["panel"].unique(maintain_order=True).to_list()
    chart = theme.layer(one, band, whisk, line, width=width, height=height).facet(
        facet=theme.panel_facet("panel", panels), columns=columns, data=theme.data(t))
    return theme.finish(chart, heading, settings, configured)


def budgets_grid(max_x: float, per_decade: int = 2, start: float = 1.0) -> list[float]:
    """Budgets / dimension from `start` to `max_x`, `per_decade` per factor ten."""
    k = np.arange(0, int(np.ceil(np.log10(max(max_x, start) / start) * per_decade)) + 1)
    vals = start * 10 ** (k / per_decade)
    return [float(v) for v in vals if v <= max_x * 1.000001]
