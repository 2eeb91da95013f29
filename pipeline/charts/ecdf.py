"""ECDF of runtimes of several algorithms in one chart, as cocopp's pprldmany (seed 000,
"Empirical Distribution Functions"): step lines over x = evaluations / dimension on a log axis,
the reference algorithm as a thick light-grey line behind, a dot beyond the budgets at each
algorithm's final fraction (solved pairs with any budget), a cross at the median of the trials'
maximal evaluations, algorithm names beside the dots.

Input: the step table of `Analysis.ecdf()` (suite, algorithm, dimension, group, x, fraction) and
the summary of `Analysis.ecdf_summary()` (final_fraction, max_x, median_max_evaluations, ...), both
for one (dimension, group). Target-free runtime profiles have the same step table and use it too.
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import altair as alt
import polars as pl

from . import theme

_ZOOMS = itertools.count(1)

#: thinning resolution of the step lines: steps closer than this in log10(x) are merged
RESOLUTION = 0.02


def thin(steps: pl.DataFrame, resolution: float = RESOLUTION, by: Sequence[str] = ("algorithm",), log: bool = True
         ) -> pl.DataFrame:
    """Steps merged per `resolution` in log10(x) (or x with `log=False`): each bin keeps its
    largest x and fraction, so the line never rises earlier than the data and the last step is
    kept exactly."""
    by = list(by)
    pos = pl.col("x").log10() if log else pl.col("x")
    return (
        steps.with_columns(_bin=(pos / resolution).floor())
        .group_by(*by, "_bin").agg(pl.col("x").max(), pl.col("fraction").max())
        .drop("_bin").sort(*by, "x")
    )


def value_at(steps: pl.DataFrame, points: pl.DataFrame, by: Sequence[str] = ("algorithm",)) -> pl.DataFrame:
    """The step function's value at each point's `x` (0 before the first step), as `fraction`."""
    by = list(by)
    s = steps.select(*by, "x", "fraction").sort("x")
    p = points.with_row_index("_i").sort("x")
    out = p.join_asof(s, on="x", by=by, strategy="backward", check_sortedness=False)
    return out.sort("_i").drop("_i").with_columns(pl.col("fraction").fill_null(0.0))


def dodge(values: Sequence[float], gap: float, lo: float = -0.02, hi: float = 1.02) -> list[float]:
    """Label heights near `values` (any order) at least `gap` apart, kept within [lo, hi] when room."""
    order = sorted(range(len(values)), key=lambda i: -values[i])
    ys = [0.0] * len(values)
    prev = math.inf
    for i in order:
        prev = min(min(values[i], hi), prev - gap)
        ys[i] = prev
    bottom = lo
    for i in reversed(order):  # push up from the bottom when labels ran below lo
        if ys[i] < bottom:
            ys[i] = bottom
        bottom = ys[i] + gap
    return ys


def prepare(steps: pl.DataFrame, summary: pl.DataFrame, resolution: float = RESOLUTION, gap: float = 0.05
            ) -> tuple[pl.DataFrame, pl.DataFrame, tuple[float, float]]:
    """Line points and end marks of one (dimension, group): lines (algorithm, x, fraction) from a
    zero at the left edge to each algorithm's max_x; ends (algorithm, final_fraction, max_x,
    dot_x, cross_x, cross_fraction, label_y, rank, ...); and the x domain."""
    keys = steps.select("dimension", "group").unique()
    if keys.height > 1:
        raise ValueError(f"an ECDF chart shows one dimension and group, got {keys.height}: "
                         + ", ".join(f"{d}-D {g}" for d, g in keys.sort("dimension", "group").rows()))
    summ = summary.join(keys, on=["dimension", "group"], how="semi") if keys.height else summary
    if summ.height == 0:
        raise ValueError("ECDF chart: no ECDF summary for the steps given")
    steps = steps.join(summ.select("algorithm", "max_x"), on="algorithm", how="inner")
    cut = steps.filter(pl.col("x") <= pl.col("max_x")).drop("max_x")
    lo_x = min([v for v in [cut["x"].min(), 1.0] if v is not None])
    x_lo, _ = theme.pow10_domain(lo_x, lo_x)
    x_end = float(summ["max_x"].max())
    _, x_hi = theme.pow10_domain(x_end, x_end * 2)
    thinned = thin(cut, resolution)
    start = summ.select("algorithm", x=pl.lit(x_lo), fraction=pl.lit(0.0))
    last = value_at(thinned, summ.select("algorithm", x=pl.col("max_x")))
    lines = pl.concat([start, thinned, last.select("algorithm", "x", "fraction")], how="vertical_relaxed")
    lines = lines.unique(["algorithm", "x"], keep="last", maintain_order=True).sort("algorithm", "x")
    cross = value_at(thinned, summ.select("algorithm", x=pl.col("median_max_evaluations")))
    ends = summ.join(cross.rename({"x": "cross_x", "fraction": "cross_fraction"}), on="algorithm", how="left")
    ends = ends.sort("final_fraction", "algorithm", descending=[True, False]).with_row_index("rank", offset=1)
    ends = ends.with_columns(dot_x=pl.lit(x_hi), label_y=pl.Series(dodge(ends["final_fraction"].to_list(), gap)))
    return lines, ends, (x_lo, x_hi)


def ecdf_chart(steps: pl.DataFrame, summary: pl.DataFrame, *, palette: theme.Palette | None = None,
               reference: str | Sequence[str] | None = None, title: str = "ECDF of runtimes",
               settings: Sequence[str] | str | None = None, y_title: str = "fraction of function-target pairs",
               width: int = theme.WIDTH, height: int = theme.HEIGHT, labels: bool = True, legend: bool = False,
               zoom: bool = True, configured: bool = True) -> alt.LayerChart:
    """Runtime ECDFs of the algorithms of one dimension and function group in one chart.

    `palette` maps algorithms to (colour, shape) (theme.palette; missing ones are added);
    `reference` names the reference algorithm(s) of the table, drawn thick and light grey.
    `labels` writes algorithm names beside the final dots (ordered by final fraction);
    `legend` adds a colour legend instead (click on it highlights an algorithm); `zoom` lets a
    browser zoom the x axis (leave it off for charts to be concatenated)."""
    refs = [reference] if isinstance(reference, str) else list(reference or [])
    lines, ends, (x_lo, x_hi) = prepare(steps, summary, gap=13 / height)
    algs = ends["algorithm"].to_list()
    pal = theme.extend(palette, algs, refs)
    pal = {a: pal[a] for a in algs}  # the legend in order of final fraction
    pick = theme.highlight(bind_legend=legend)
    x = alt.X("x:Q", scale=theme.log_scale((x_lo, x_hi)), axis=theme.log_axis("evaluations / dimension", (x_lo, x_hi)))
    y = alt.Y("fraction:Q", scale=alt.Scale(domain=[0, 1], nice=False), axis=alt.Axis(title=y_title, tickCount=5))
    col = theme.colour(pal, legend=legend)
    shp = theme.shape(pal, legend=False)
    faded = alt.condition(pick, alt.value(1.0), alt.value(0.2))
    tip_line = [alt.Tooltip("algorithm:N"), alt.Tooltip("x:Q", title="evaluations / dimension", format=".3~g"),
                alt.Tooltip("fraction:Q", format=".3f")]
    is_ref = lines["algorithm"].is_in(refs)
    layers = []
    if is_ref.any():
        layers.append(alt.Chart(theme.data(lines.filter(is_ref))).mark_line(
            interpolate="step-after", strokeWidth=theme.REFERENCE_WIDTH, strokeCap="butt").encode(
            x=x, y=y, color=col, detail="algorithm:N", opacity=faded, tooltip=tip_line))
    main = alt.Chart(theme.data(lines.filter(~is_ref))).mark_line(interpolate="step-after").encode(
        x=x, y=y, color=col, detail="algorithm:N", opacity=faded, tooltip=tip_line)
    if zoom:  # wheel / drag zooms the x axis in a browser (Altair cannot lift it out of concatenations)
        main = main.add_params(alt.selection_interval(bind="scales", encodings=["x"], name=f"zoom{next(_ZOOMS)}"))
    layers.append(main)
    dots = alt.Chart(theme.data(ends)).encode(color=col, opacity=faded)
    end_tip = [alt.Tooltip("algorithm:N"), alt.Tooltip("final_fraction:Q", title="final fraction", format=".3f"),
               alt.Tooltip("max_x:Q", title="budget / dimension", format=".3~g"),
               alt.Tooltip("median_max_evaluations:Q", title="median max evaluations / dimension", format=".3~g"),
               *[alt.Tooltip(f"{c}:Q") for c in ("problems", "functions", "trials") if c in ends.columns]]
    layers.append(dots.mark_point(size=70, filled=True, stroke="white", strokeWidth=0.6, clip=False).encode(
        x=alt.X("dot_x:Q", scale=theme.log_scale((x_lo, x_hi))), y=alt.Y("final_fraction:Q"), shape=shp,
        tooltip=end_tip))
    crosses = ends.filter(~pl.col("algorithm").is_in(refs))
    layers.append(alt.Chart(theme.data(crosses)).transform_filter("isValid(datum.cross_x)").mark_point(
        shape="cross", size=110, filled=True, angle=45, stroke="white", strokeWidth=0.5).encode(
        color=col, opacity=faded,
        x=alt.X("cross_x:Q", scale=theme.log_scale((x_lo, x_hi))), y=alt.Y("cross_fraction:Q"),
        tooltip=[alt.Tooltip("algorithm:N"),
                 alt.Tooltip("median_max_evaluations:Q", title="median max evaluations / dimension", format=".3~g")]))
    if labels:  # names beside the plot at dodged heights, joined to their dots by a thin line
        layers.append(dots.mark_rule(strokeWidth=0.8, clip=False).encode(
            x=alt.X("dot_x:Q", scale=theme.log_scale((x_lo, x_hi))), y=alt.Y("final_fraction:Q"),
            x2=alt.value(width + 14), y2=alt.Y2("label_y:Q")))
        layers.append(dots.mark_text(align="left", baseline="middle", dx=0, fontSize=11, clip=False).encode(
            x=alt.value(width + 16), y=alt.Y("label_y:Q"), text="algorithm:N", tooltip=end_tip).add_params(pick))
    elif not legend:
        layers[-1] = layers[-1].add_params(pick)
    else:
        layers[0] = layers[0].add_params(pick)
    chart = alt.layer(*layers).properties(width=width, height=height).resolve_scale(shape="independent")
    return theme.finish(chart, title, settings, configured)
