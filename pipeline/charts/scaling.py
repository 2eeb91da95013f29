"""Scaling with dimension, as cocopp's ppfigdim (one algorithm, a line per target) and ppfigs
(several algorithms, one target): aRT / dimension versus dimension, log-log, one panel per
function (seed 000, "Averaging Runtime"). Where only some trials succeeded the success count
k/n is written beside the point of the hardest target shown; where no trial succeeded a cross
marks the median evaluations of the (unsuccessful) trials / dimension.
"""
from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import polars as pl

from . import theme


def scaling_table(art: pl.DataFrame, series: str = "target") -> pl.DataFrame:
    """Rows of the chart from `Analysis.art()`: aRT / dimension (null without success),
    `label` (k/n where 0 < k < n), `unsuccessful` (median evaluations / dimension where k = 0),
    `hardest` (the series' hardest target: the one annotated), `series` (target or algorithm)."""
    dim = pl.col("dimension").cast(pl.Float64)
    hardest = pl.col("target") == pl.col("target").min().over("algorithm")
    t = art.with_columns(
        art_per_dimension=pl.when(pl.col("art").is_finite()).then(pl.col("art") / dim),
        unsuccessful=pl.when(pl.col("successes") == 0).then(pl.col("median_unsuccessful_evaluations") / dim),
        label=pl.when((pl.col("successes") > 0) & (pl.col("successes") < pl.col("runs")))
        .then(pl.format("{}/{}", pl.col("successes").round(0).cast(pl.Int64), pl.col("runs").round(0).cast(pl.Int64))),
        hardest=hardest,
        target_label=pl.col("target").map_elements(theme.fmt_number, return_dtype=pl.String),
        function_label=pl.format("f{}", pl.col("function")),
    )
    t = t.with_columns(series=pl.col("target_label") if series == "target" else pl.col("algorithm"))
    return t.select("suite", "algorithm", "function", "function_label", "dimension", "target", "target_label",
                    "series", "art", "art_per_dimension", "successes", "runs", "success_rate", "label",
                    "unsuccessful", "hardest").sort("algorithm", "function", "target", "dimension")


def scaling_chart(art: pl.DataFrame, *, series: str = "target", palette: theme.Palette | None = None,
                  reference: str | Sequence[str] | None = None, title: str = "Scaling with dimension",
                  settings: Sequence[str] | str | None = None, columns: int = 5, width: int = 150,
                  height: int = 120, background: Sequence[str] | None = None, configured: bool = True
                  ) -> alt.FacetChart:
    """aRT / dimension versus dimension per function: `series="target"` draws one line per target
    (one algorithm), `series="algorithm"` one line per algorithm (one target), the reference thick
    and grey; `background` algorithms thin and light grey behind all, without points or legend
    entries. Panels have their own aRT scale; dimensions on a shared log axis. Click a legend entry
    or a point to highlight a series (shift-click: several); tooltips give the values."""
    refs = [reference] if isinstance(reference, str) else list(reference or [])
    back = [a for a in dict.fromkeys(background or []) if a not in set(refs)]
    t = scaling_table(art, series)
    if series == "target":
        if t["algorithm"].n_unique() > 1:
            raise ValueError("scaling chart by target: give one algorithm (or series='algorithm')")
        domain = [theme.fmt_number(v) for v in sorted(t["target"].unique().to_list(), reverse=True)]
        col = theme.ordinal_colour("series", domain, title="target")
        shp = alt.Shape("series:N", scale=alt.Scale(domain=domain, range=list(theme.SHAPES[:len(domain)])),
                        legend=alt.Legend(title="target"))
    elif series == "algorithm":
        if t["target"].n_unique() > 1:
            raise ValueError("scaling chart by algorithm: give one target (or series='target')")
        fg = t.filter(~pl.col("algorithm").is_in(back))
        pal = theme.extend(palette, fg["algorithm"].unique(maintain_order=True).to_list(), refs)
        pal = {a: pal[a] for a in pal if a in set(fg["algorithm"])}
        col, shp = theme.colour(pal, "series"), theme.shape(pal, "series")
    else:
        raise ValueError(f"series {series!r}: expected 'target' or 'algorithm'")
    dims = sorted(t["dimension"].unique().to_list())
    x = alt.X("dimension:Q", scale=theme.log_scale((dims[0], dims[-1]), nice=False, padding=8),
              axis=alt.Axis(title="dimension", values=dims, format="d", grid=True))
    y_axis = theme.log_axis("aRT / dimension")
    y = alt.Y("art_per_dimension:Q", scale=alt.Scale(type="log"), axis=y_axis)
    pick = theme.highlight(field="series", bind_legend=True)
    faded = theme.faded(pick)
    tip = [theme.tip("algorithm:N"), theme.tip("function_label:N", title="function"),
           theme.tip("dimension:Q"), theme.tip("target:Q", format=".0e"),
           theme.tip("art:Q", title="aRT", format=".4~g"), theme.tip("art_per_dimension:Q", title="aRT / dimension", format=".4~g"),
           theme.tip("successes:Q", format=".4~g"), theme.tip("runs:Q", format=".4~g")]
    is_back = f"indexof({back!r}, datum.algorithm) >= 0" if back else "false"
    layers = []
    if back:
        layers.append(theme.Chart().transform_filter(is_back).mark_line(
            strokeWidth=theme.BACKGROUND_WIDTH, color=theme.BACKGROUND_COLOUR).encode(
            x=x, y=y, detail=alt.Detail("algorithm:N"), tooltip=tip))
    base = theme.Chart().encode(x=x, color=col, opacity=faded)
    if back:
        base = base.transform_filter(f"!({is_back})")
    is_ref = f"indexof({list(refs)!r}, datum.algorithm) >= 0" if refs else "false"
    if refs:
        layers.append(base.transform_filter(is_ref).mark_line(strokeWidth=theme.REFERENCE_WIDTH, strokeCap="round")
                      .encode(y=y, detail=alt.Detail("series:N"), tooltip=tip))
    zoom = theme.selection(alt.selection_interval(bind="scales", encodings=["y"], name="scaling_zoom"))
    layers += [
        base.transform_filter(f"!({is_ref})").mark_line().encode(y=y, detail=alt.Detail("series:N"), tooltip=tip),
        base.transform_filter("isValid(datum.art_per_dimension)").mark_point(size=40, filled=True)
        .encode(y=y, shape=shp, tooltip=tip).add_params(pick, zoom),
        base.transform_filter("datum.hardest && isValid(datum.unsuccessful)").mark_point(
            shape="cross", angle=45, size=90, filled=True).encode(
            y=alt.Y("unsuccessful:Q", scale=alt.Scale(type="log"), axis=y_axis),
            tooltip=[*tip[:4], theme.tip("unsuccessful:Q", title="median evaluations / dimension (no success)",
                                           format=".4~g")]),
        base.transform_filter("datum.hardest && isValid(datum.label)").mark_text(
            dx=4, dy=-7, align="left", fontSize=9).encode(y=y, text=alt.Text("label:N")),
    ]
    funcs = t.select("function", "function_label").unique().sort("function")["function_label"].to_list()
    chart = theme.layer(*layers, width=width, height=height).facet(
        facet=alt.Facet("function_label:N", sort=funcs, title=None), columns=columns, data=theme.data(t),
        resolve=theme.independent(y="independent"))
    return theme.finish(chart, title, settings, configured)
