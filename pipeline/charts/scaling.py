"""Scaling with dimension, as cocopp's ppfigdim (one algorithm, a line per target) and ppfigs
(several algorithms, one target): aRT / dimension versus dimension, log-log, one panel per
function (seed 000, "Averaging Runtime"). Where only some trials succeeded the success count
k/n of the hardest target shown is written at the panel's top above its dimension (rows by series,
neighbouring dimensions a row apart, in the series' colour: never over a marker; at most `LABEL_ROWS` rows,
the k/n of further series, with many algorithms, in the tooltips only); where no trial succeeded a cross
marks the median evaluations of the (unsuccessful) trials / dimension.
"""
from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import polars as pl

from . import panels, theme


#: pixels between rows of k/n labels at a panel's top
LABEL_ROW = 10
#: at most this many rows of k/n labels a panel (with many algorithms the others are in the tooltips only)
LABEL_ROWS = 4


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
    t = t.select("suite", "algorithm", "function", "function_label", "dimension", "target", "target_label",
                 "series", "art", "art_per_dimension", "successes", "runs", "success_rate", "label",
                 "unsuccessful", "hardest").sort("algorithm", "function", "target", "dimension")
    # the k/n labels of a panel in rows from its top: a row per series, and of those every other dimension
    # a row lower (neighbouring dimensions are close on the log axis), only the rows used
    labelled = pl.col("hardest") & pl.col("label").is_not_null()
    series_rank = pl.col("series").rank("dense").over("function", labelled)
    parity = (pl.col("dimension").rank("dense") - 1) % 2
    key = (series_rank * 2 + parity).cast(pl.Int64)
    t = t.with_columns(_key=pl.when(labelled).then(key))
    t = t.with_columns(label_row=(pl.col("_key").rank("dense").over("function") - 1).cast(pl.Int32)).drop("_key")
    # rows beyond LABEL_ROWS: no label in the panel (its k/n stays in the tooltip's successes and runs)
    shown = pl.col("label_row") < LABEL_ROWS
    return t.with_columns(label=pl.when(shown).then("label"), label_row=pl.when(shown).then("label_row"))


def _above_labels(lo: float, hi: float, rows: int, height: int) -> float:
    """The top of a panel's y range raised so that its `rows` rows of k/n labels (the first in the scale's
    padding) lie above what it draws, in a panel `height` px tall."""
    room = LABEL_ROW * max(rows - 1, 0)
    if not room:
        return hi
    plot = max(height - 2 * panels.PADDING - room, height / 4)  # px left to the range [lo, hi]
    return hi * (hi / lo) ** (room / plot)


def _series_look(t: pl.DataFrame, series: str, palette: theme.Palette | None, refs: list[str], back: list[str]
                 ) -> tuple[alt.Color, alt.Shape]:
    """The colour and shape encodings of the series: an ordinal scale of the targets (one algorithm), or the
    palette of the algorithms drawn in front (one target)."""
    if series == "target":
        if t["algorithm"].n_unique() > 1:
            raise ValueError("scaling chart by target: give one algorithm (or series='algorithm')")
        domain = [theme.fmt_number(v) for v in sorted(t["target"].unique().to_list(), reverse=True)]
        col = theme.ordinal_colour("series", domain, title="target")
        shp = alt.Shape("series:N", scale=alt.Scale(domain=domain, range=list(theme.SHAPES[:len(domain)])),
                        legend=alt.Legend(title="target"))
        return col, shp
    if series == "algorithm":
        if t["target"].n_unique() > 1:
            raise ValueError("scaling chart by algorithm: give one target (or series='target')")
        fg = t.filter(~pl.col("algorithm").is_in(back))
        pal = theme.extend(palette, fg["algorithm"].unique(maintain_order=True).to_list(), refs)
        pal = {a: pal[a] for a in pal if a in set(fg["algorithm"])}
        return theme.colour(pal, "series"), theme.shape(pal, "series")
    raise ValueError(f"series {series!r}: expected 'target' or 'algorithm'")


def scaling_chart(art: pl.DataFrame, *, series: str = "target", palette: theme.Palette | None = None,
                  reference: str | Sequence[str] | None = None, title: str = "Scaling with dimension",
                  settings: Sequence[str] | str | None = None, columns: int = 6, width: int = 140,
                  height: int = 110, background: Sequence[str] | None = None, configured: bool = True
                  ) -> alt.ConcatChart:
    """aRT / dimension versus dimension per function: `series="target"` draws one line per target
    (one algorithm), `series="algorithm"` one line per algorithm (one target), the reference thick
    and grey; `background` algorithms thin and light grey behind, without points or legend
    entries. A panel per function (`columns` a row), each with its own aRT range as cocopp's
    ppfigdim and ppfigs draw a figure per function, given explicitly (whole decades around what
    the panel draws, padded so that points, crosses and k/n labels stay inside); the dimensions
    on one log axis for all. Click a legend entry or a point to highlight a series (shift-click:
    several); tooltips give the values."""
    refs = [reference] if isinstance(reference, str) else list(reference or [])
    back = [a for a in dict.fromkeys(background or []) if a not in set(refs)]
    t = scaling_table(art, series)
    col, shp = _series_look(t, series, palette, refs, back)
    dims = sorted(t["dimension"].unique().to_list())
    x_scale = theme.log_scale((dims[0], dims[-1]), nice=False, padding=panels.PADDING)
    pick = theme.highlight(field="series", bind_legend=True)
    faded = theme.faded(pick)
    tip = [theme.tip("algorithm:N"), theme.tip("function_label:N", title="function"),
           theme.tip("dimension:Q"), theme.tip("target:Q", format=".0e"),
           theme.tip("art:Q", title="aRT", format=".4~g"),
           theme.tip("art_per_dimension:Q", title="aRT / dimension", format=".4~g"),
           theme.tip("successes:Q", format=".4~g"), theme.tip("runs:Q", format=".4~g")]
    cross_tip = [*tip[:4], theme.tip("unsuccessful:Q", title="median evaluations / dimension (no success)",
                                     format=".4~g")]
    is_back = f"indexof({back!r}, datum.algorithm) >= 0" if back else "false"
    is_ref = f"indexof({list(refs)!r}, datum.algorithm) >= 0" if refs else "false"
    fore = f"!({is_back})"  # everything but the background
    # each function's range: around every aRT / dimension and every cross drawn (none of the background)
    drawn = t.select("function", pl.col("art_per_dimension").alias("y")).vstack(
        t.filter(pl.col("hardest") & ~pl.col("algorithm").is_in(back)).select("function", pl.col("unsuccessful").alias("y")))
    ranges = {f: panels.y_range(g["y"].to_list()) for (f,), g in drawn.group_by("function")}
    rows = {f: int(n) + 1 for f, n in t.filter(pl.col("label_row").is_not_null())
            .group_by("function").agg(pl.col("label_row").max()).rows()}  # rows of k/n labels per panel

    ranges = {f: (lo, _above_labels(lo, hi, rows.get(f, 1), height)) for f, (lo, hi) in ranges.items()}
    y_scale = panels.log_y()

    def panel(y_outer: dict) -> alt.LayerChart:
        y_ax = panels.y_axis("aRT / dimension", y_outer)
        shared = dict(x=alt.X("dimension:Q", scale=x_scale, axis=alt.Axis(title="dimension", values=dims, format="d")),
                      y=alt.Y("art_per_dimension:Q", scale=y_scale, axis=y_ax), color=col, opacity=faded,
                      tooltip=tip)  # inherited by the panel's layers
        layers = []
        if back:
            layers.append(theme.Chart().transform_filter(is_back).mark_line(
                strokeWidth=theme.BACKGROUND_WIDTH, color=theme.BACKGROUND_COLOUR).encode(
                color=alt.ColorValue(theme.BACKGROUND_COLOUR), opacity=alt.OpacityValue(1),
                detail=alt.Detail("algorithm:N")))
        if refs:
            layers.append(theme.Chart().transform_filter(f"{fore} && {is_ref}").mark_line(
                strokeWidth=theme.REFERENCE_WIDTH, strokeCap="round").encode(detail=alt.Detail("series:N")))
        layers += [
            theme.Chart().transform_filter(f"{fore} && !({is_ref})").mark_line().encode(detail=alt.Detail("series:N")),
            theme.Chart().transform_filter(f"{fore} && isValid(datum.art_per_dimension)").mark_point(
                size=40, filled=True).encode(shape=shp).add_params(pick),
            theme.Chart().transform_filter(f"{fore} && datum.hardest && isValid(datum.unsuccessful)").mark_point(
                shape="cross", angle=45, size=90, filled=True).encode(
                y=alt.Y("unsuccessful:Q", scale=y_scale, axis=y_ax), tooltip=cross_tip),
            # k/n along the panel's top edge above their dimension, a row per series: never over a marker
            theme.Chart().transform_filter(f"{fore} && datum.hardest && isValid(datum.label)").mark_text(
                align="center", baseline="top", fontSize=9).encode(
                text=alt.Text("label:N"), y=alt.YValue(1), tooltip=tip,
                yOffset=alt.YOffset("label_row:Q", scale=alt.Scale(domain=[0, 1], range=[0, LABEL_ROW]))),
        ]
        return theme.layer(*layers, encoding=alt.SharedEncoding(**shared))

    funcs = t.select("function", "function_label").unique().sort("function").rows()
    chart = panels.grid("function", "function_label", funcs, panel, columns=columns, data=t, ranges=ranges,
                        x=("dimension", dims[0]), width=width, height=height)
    return theme.finish(chart, title, settings, configured)
