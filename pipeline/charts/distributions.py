"""Runtime and precision distributions of single algorithms drawn as cocopp's pprldistr: the ECDF of
the trials' runtimes (evaluations / dimension) to reach each of a few targets, and the ECDF of
the best precision reached within fixed budgets. The steps are `pipeline.measures.distributions`'
(`Analysis.runtime_distribution`, `Analysis.precision_distribution`).
"""
from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import polars as pl

from ..conventions import PRECISION_FLOOR, group_label_expr
from . import theme
from .ecdf import dodge

#: budget colours cycle through these; the final precisions are black and thick
CYCLE = tuple(c for c in theme.SEQUENTIAL if c != "#000000")
FINAL_COLOUR = "#000000"


def _panel(df: pl.DataFrame) -> pl.DataFrame:
    return df.with_columns(panel=pl.format("{} {}-D" + theme.PANEL_BREAK + "{}", pl.col("algorithm"), pl.col("dimension"),
                                           group_label_expr(pl.col("group"))))


def runtime_ecdf_chart(steps: pl.DataFrame, summary: pl.DataFrame, *, title: str = "ECDF of runtimes per target",
                       settings: Sequence[str] | str | None = None, columns: int = 3, width: int = 220,
                       height: int = 170, configured: bool = True) -> alt.FacetChart:
    """A line per target (hardest thick), a panel per (algorithm, dimension, group); a vertical
    rule at the largest evaluations / dimension of a trial; functions solved beside the line ends."""
    key = ["suite", "algorithm", "dimension", "group", "target"]
    summ = _panel(summary)
    start = summ.select(*key, x=pl.lit(0.0), fraction=pl.lit(0.0))
    x_lo = min(float(steps["x"].min()) if steps.height else 1.0, 1.0)
    lo, hi = theme.pow10_domain(x_lo, float(summ["max_x"].max()) * 5)  # room right of the ends for the counts
    end = summ.select(*key, x=pl.col("max_x"), fraction=pl.col("final_fraction"))
    lines = pl.concat([start.with_columns(x=pl.lit(lo)), steps.select(*key, "x", "fraction"), end], how="vertical_relaxed")
    lines = _panel(lines.sort(*key, "x")).with_columns(
        target_label=pl.col("target").map_elements(theme.fmt_number, return_dtype=pl.String),
        hardest=pl.col("target") == pl.col("target").min())
    summ = summ.with_columns(target_label=pl.col("target").map_elements(theme.fmt_number, return_dtype=pl.String),
                             solved=pl.format("{}/{}", "functions_solved", "functions"))
    summ = pl.concat([g.with_columns(label_y=pl.Series(dodge(g["final_fraction"].to_list(), 11 / height)))
                      for g in summ.partition_by("panel", maintain_order=True)]) if summ.height else summ
    table = pl.concat([lines.with_columns(kind=pl.lit("line")), summ.with_columns(kind=pl.lit("end"))],
                      how="diagonal_relaxed")
    labels = summ.sort("target", descending=True)["target_label"].unique(maintain_order=True).to_list()
    col = theme.ordinal_colour("target_label", labels, title="target")
    pick = theme.highlight(field="target_label", bind_legend=True)
    x = alt.X("x:Q", scale=theme.log_scale((lo, hi), nice=False),
              axis=theme.log_axis("evaluations / dimension", values=theme.pow10_ticks(lo, hi, most=5)))
    y = alt.Y("fraction:Q", scale=alt.Scale(domain=[0, 1]), axis=alt.Axis(title="fraction of trials", tickCount=5))
    faded = theme.faded(pick, 1, 0.15)
    lines_l = theme.Chart().transform_filter("datum.kind == 'line'").mark_line(interpolate="step-after").encode(
        x=x, y=y, color=col, detail=alt.Detail("target_label:N"), opacity=faded,
        strokeWidth=theme.when("datum.hardest", 3, 1.6, alt.StrokeWidthValue),
        tooltip=[theme.tip("target_label:N", title="target"), theme.tip("x:Q", format=".3~g"),
                 theme.tip("fraction:Q", format=".3f")]).add_params(pick)
    budget = theme.Chart().transform_filter("datum.kind == 'end'").transform_aggregate(
        max_x="max(max_x)", groupby=["panel"]).mark_rule(color="#999", strokeDash=[3, 3]).encode(x=alt.X("max_x:Q"))
    ends = theme.Chart().transform_filter("datum.kind == 'end'").mark_text(align="left", dx=4, fontSize=9).encode(
        x=alt.X("max_x:Q"), y=alt.Y("label_y:Q"), text=alt.Text("solved:N"), color=col,
        tooltip=[theme.tip("target_label:N", title="target"), theme.tip("solved:N", title="functions solved"),
                 theme.tip("final_fraction:Q", format=".3f")])
    panels = summ.sort("algorithm", "dimension", "group")["panel"].unique(maintain_order=True).to_list()
    chart = theme.layer(budget, lines_l, ends, width=width, height=height).facet(
        facet=theme.panel_facet("panel", panels), columns=columns, data=theme.data(table))
    return theme.finish(chart, title, settings, configured)


def precision_ecdf_chart(steps: pl.DataFrame, *, budget_order: Sequence[str] | None = None,
                         title: str = "ECDF of best precision at fixed budgets",
                         settings: Sequence[str] | str | None = None, floor: float = PRECISION_FLOOR,
                         columns: int = 3, width: int = 220, height: int = 170, configured: bool = True
                         ) -> alt.FacetChart:
    """A line per budget (column `budget`, labels such as '10 x D' or 'final'), a panel per
    (algorithm, dimension, group); x = best precision reached (log; values below `floor` at it)."""
    key = ["suite", "algorithm", "dimension", "group", "budget"]
    hi = theme.pow10_domain(floor, float(steps["x"].max()) if steps.height else 1e2)[1]
    first = steps.group_by(key).agg(fraction=pl.col("fraction").min()).with_columns(x=pl.lit(floor), fraction=pl.lit(0.0))
    # a step function rising from 0 at the floor; extend flat to the right edge
    last = steps.group_by(key).agg(fraction=pl.col("fraction").max()).with_columns(x=pl.lit(hi))
    t = _panel(pl.concat([first, steps.select(*key, "x", "fraction"), last], how="diagonal_relaxed")
               .sort(*key, "x", maintain_order=True))
    order = list(budget_order) if budget_order else t["budget"].unique(maintain_order=True).to_list()
    col = alt.Color("budget:N", sort=order, legend=alt.Legend(title="budget"), scale=alt.Scale(
        domain=order, range=[FINAL_COLOUR if b == "final" else CYCLE[i % len(CYCLE)] for i, b in enumerate(order)]))
    pick = theme.highlight(field="budget", bind_legend=True)
    x = alt.X("x:Q", scale=theme.log_scale((floor, hi), nice=False),
              axis=theme.log_axis("best precision Δf reached", values=theme.pow10_ticks(floor, hi, most=6)))
    y = alt.Y("fraction:Q", scale=alt.Scale(domain=[0, 1]), axis=alt.Axis(title="fraction of trials", tickCount=5))
    lines = theme.Chart().mark_line(interpolate="step-after").encode(
        x=x, y=y, color=col, detail=alt.Detail("budget:N"), opacity=theme.faded(pick, 1, 0.15),
        strokeWidth=theme.when("datum.budget == 'final'", 3, 1.6, alt.StrokeWidthValue),
        tooltip=[theme.tip("budget:N"), theme.tip("x:Q", title="precision", format=".2e"),
                 theme.tip("fraction:Q", format=".3f")]).add_params(pick)
    panels = t.sort("algorithm", "dimension", "group")["panel"].unique(maintain_order=True).to_list()
    chart = theme.layer(lines, width=width, height=height).facet(
        facet=theme.panel_facet("panel", panels), columns=columns,
        data=theme.data(t.select("panel", "budget", "x", "fraction"), 4))
    return theme.finish(chart, title, settings, configured)
