"""Convergence graphs: best precision reached versus evaluations / dimension, the median over
trials as a line and a quantile range as a band, one colour per algorithm, a panel per function
(seed 003, "Displaying results": display all data, summarise with the median and quantiles,
which are invariant under the log transformation). All runs as thin lines on request.
"""
from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import numpy as np
import polars as pl

from . import panels, theme

#: precisions are drawn down to this value (0 cannot be shown on a log axis)
FLOOR = 1e-9


def budget_grid(max_x: float, per_decade: int = 5, start: float = 1.0) -> list[float]:
    """Budgets / dimension 10^(k / per_decade) from `start` up to and including the first >= max_x."""
    n = int(np.ceil(np.log10(max(max_x, start) / start) * per_decade - 1e-9))
    return [float(start * 10 ** (k / per_decade)) for k in range(n + 1)]


def _drop_flat(df: pl.DataFrame, by: list[str], values: list[str]) -> pl.DataFrame:
    """Rows of a step table (sorted by x within `by`) that change a value, plus each series' last
    row: the same step-after graph with fewer points."""
    changed = pl.any_horizontal([pl.col(v).ne_missing(pl.col(v).shift(1).over(by)) for v in values])
    last = pl.int_range(pl.len()).over(by) == pl.len().over(by) - 1
    return df.filter(changed | last)


def convergence_chart(summary: pl.DataFrame, *, runs: pl.DataFrame | None = None, band: tuple[str, str] = ("q25", "q75"),
                      palette: theme.Palette | None = None, title: str = "Convergence: best precision reached",
                      settings: Sequence[str] | str | None = None, floor: float = FLOOR, columns: int = 6,
                      width: int = 140, height: int = 110, configured: bool = True) -> alt.ConcatChart:
    """Median best precision (line) and the `band` quantiles (area) of `Analysis.fixed_budget(...,
    per_dimension=True)` per (algorithm, function) of one dimension; `runs` (summary=False rows)
    adds every trial as a thin line. Precisions below `floor` are drawn at it."""
    dims = summary["dimension"].unique().to_list()
    if len(dims) != 1:
        raise ValueError(f"a convergence chart shows one dimension, got {sorted(dims)}")
    lo_q, hi_q = band
    clip = {c: pl.col(c).clip(lower_bound=floor) for c in ("median", lo_q, hi_q)}
    t = summary.filter(pl.col("runs_with_data") > 0).with_columns(**clip, kind=pl.lit("summary"))
    t = _drop_flat(t.sort("algorithm", "function", "budget"), ["algorithm", "function"], ["median", lo_q, hi_q])
    parts = [t]
    if runs is not None:
        parts.append(runs.filter(pl.col("best_delta").is_not_null()).select(
            "suite", "algorithm", "function", "dimension", "budget", "run_id", kind=pl.lit("run"),
            median=pl.col("best_delta").clip(lower_bound=floor)).sort("run_id", "budget")
            .pipe(_drop_flat, ["run_id"], ["median"]))
    t = pl.concat(parts, how="diagonal_relaxed").with_columns(function_label=pl.format("f{}", pl.col("function")))
    algs = t["algorithm"].unique(maintain_order=True).to_list()
    pal = theme.extend(palette, sorted(algs))
    pal = {a: pal[a] for a in pal if a in set(algs)}
    col = theme.colour(pal, legend=alt.Legend(title=None, symbolStrokeWidth=2, symbolType="stroke",
                                                       symbolOpacity=1))
    pick = theme.highlight(bind_legend=True)
    lo, hi = theme.pow10_domain(float(t["budget"].min()), float(t["budget"].max()))
    x_scale = theme.log_scale((lo, hi), nice=False)
    tip = [theme.tip("algorithm:N"), theme.tip("function_label:N", title="function"),
           theme.tip("budget:Q", title="evaluations / dimension", format=".3~g"),
           theme.tip("median:Q", format=".3e"), theme.tip(f"{lo_q}:Q", format=".3e"),
           theme.tip(f"{hi_q}:Q", format=".3e"), theme.tip("runs_with_data:Q", title="trials")]
    # each function's range: around every median, band and trial drawn
    drawn = t.select("function", y=pl.concat_list([c for c in ("median", lo_q, hi_q) if c in t.columns])).explode("y")
    ranges = {f: panels.y_range(g["y"].to_list()) for (f,), g in drawn.group_by("function")}

    y_scale = panels.log_y(padding=4)

    def panel(y_outer: dict) -> alt.LayerChart:
        y_axis = panels.y_axis("best precision Δf", y_outer)
        x = alt.X("budget:Q", scale=x_scale, axis=theme.log_axis("evaluations / dimension",
                                                                 values=theme.pow10_ticks(lo, hi, most=4)))
        y = alt.Y("median:Q", scale=y_scale, axis=y_axis)
        layers = []
        if runs is not None:
            layers.append(theme.Chart().transform_filter("datum.kind == 'run'").mark_line(
                interpolate="step-after", strokeWidth=0.6).encode(
                x=x, y=y, color=col, detail=alt.Detail("run_id:N"), opacity=theme.faded(pick, 0.35, 0.03)))
        summ = theme.Chart().transform_filter("datum.kind == 'summary'")
        layers += [
            summ.mark_area(interpolate="step-after").encode(
                x=x, y=alt.Y(f"{lo_q}:Q", scale=y_scale, axis=y_axis), y2=alt.Y2(f"{hi_q}:Q"), color=col,
                opacity=theme.faded(pick, 0.2, 0.03)),
            summ.mark_line(interpolate="step-after").encode(
                x=x, y=y, color=col, opacity=theme.faded(pick, 1, 0.15), tooltip=tip
            ).add_params(pick),
        ]
        return theme.layer(*layers)

    funcs = t.select("function", "function_label").unique().sort("function").rows()
    cols = [c for c in ("kind", "algorithm", "function", "budget", "run_id", "median", lo_q, hi_q, "runs_with_data",
                        "function_label") if c in t.columns]
    chart = panels.grid("function", "function_label", funcs, panel, columns=columns, data=t.select(cols),
                        ranges=ranges, x=("budget", lo), digits=4, width=width, height=height)
    return theme.finish(chart, title, settings, configured)
