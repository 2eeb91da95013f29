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
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import altair as alt
import polars as pl

from . import theme

_ZOOMS = itertools.count(1)

#: opacity of the confidence band and of the per-instance lines (highlighted), and of both dimmed
BAND_OPACITY, INSTANCE_OPACITY, DIMMED_BAND = 0.2, 0.35, 0.04
#: stroke width of the per-instance lines
INSTANCE_WIDTH = 0.6

#: thinning resolution of the step lines: steps closer than this in log10(x) are merged
RESOLUTION = 0.02


#: the ECDFs' y axis: the problems are (function, target, instance) triples, as the captions say
Y_TITLE = ["fraction of problems", "(function, target, instance)"]


def thin(steps: pl.DataFrame, resolution: float = RESOLUTION, by: Sequence[str] = ("algorithm",), log: bool = True
         ) -> pl.DataFrame:
    """Steps merged per `resolution` in log10(x) (or x with `log=False`): each bin keeps its
    largest x and fraction, so the line never rises earlier than the data and the last step is
    kept exactly; steps that do not rise are dropped."""
    by = list(by)
    pos = pl.col("x").log10() if log else pl.col("x")
    return (
        steps.with_columns(_bin=(pos / resolution).floor())
        .group_by(*by, "_bin").agg(pl.col("x").max(), pl.col("fraction").max())
        .drop("_bin").sort(*by, "x")
        # a step that does not rise adds nothing to a step-after line (the last point is kept)
        .filter((pl.col("fraction") != pl.col("fraction").shift(1).over(by)).fill_null(True)
                | (pl.col("x") == pl.col("x").max().over(by)))
    )


def value_at(steps: pl.DataFrame, points: pl.DataFrame, by: Sequence[str] = ("algorithm",)) -> pl.DataFrame:
    """The step function's value at each point's `x` (0 before the first step), as `fraction` (lazy in, lazy out)."""
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


def label_gap(height: int) -> float:
    """The least distance of the names beside an ECDF chart's dots, as a fraction of its y axis (13 px)."""
    return 13 / height


#: what `prepare` gives a chart: its line points, its end marks and its x domain
Prepared = tuple[pl.DataFrame, pl.DataFrame, tuple[float, float]]


def prepare(steps: pl.DataFrame, summary: pl.DataFrame, resolution: float = RESOLUTION, gap: float = 0.05,
            x_range: tuple[float, float] | None = None) -> Prepared:
    """Line points and end marks of one (dimension, group): lines (algorithm, x, fraction) from a
    zero at the left edge to each algorithm's max_x; ends (algorithm, final_fraction, max_x,
    dot_x, cross_x, cross_fraction, label_y, rank, ...); and the x domain: whole powers of ten
    around the data, and around `x_range` when given (one range for several charts)."""
    keys = steps.select("dimension", "group").unique()
    if keys.height > 1:
        raise ValueError(f"an ECDF chart shows one dimension and group, got {keys.height}: "
                         + ", ".join(f"{d}-D {g}" for d, g in keys.sort("dimension", "group").rows()))
    summ = summary.join(keys, on=["dimension", "group"], how="semi") if keys.height else summary
    if summ.height == 0:
        raise ValueError("ECDF chart: no ECDF summary for the steps given")
    one = pl.lit(0).alias(_CHART)  # every row of the summary is the one chart's
    (lines, ends, domain), = prepare_all(steps.with_columns(one), summ.with_columns(one), resolution, gap, x_range,
                                         key=(_CHART,)).values()
    return lines, ends.drop(_CHART), domain


#: the key `prepare` gives the rows of its one chart
_CHART = "_chart"


def prepare_all(steps: pl.DataFrame, summary: pl.DataFrame, resolution: float = RESOLUTION, gap: float = 0.05,
                x_range: tuple[float, float] | None = None, key: Sequence[str] = ("dimension", "group")
                ) -> dict[tuple, Prepared]:
    """`prepare` of every chart of the tables at once (the charts of a page in one query): {its `key`
    values: (lines, ends, x domain)} of every chart of `summary`, each what `prepare` gives for that
    chart's rows (`prepare` is this function for one chart)."""
    key = list(key)
    by = [*key, "algorithm"]
    summ = summary.lazy()
    cut = (steps.lazy().join(summ.select(*by, "max_x"), on=by, how="inner")
           .filter(pl.col("x") <= pl.col("max_x")).drop("max_x"))
    thinned, spans = pl.collect_all([
        thin(cut, resolution, by=by),
        summ.group_by(key).agg(x_end=pl.col("max_x").max()).join(cut.group_by(key).agg(lo=pl.col("x").min()),
                                                                on=key, how="left")])
    domains = {}
    for *k, x_end, lo in spans.select(*key, "x_end", "lo").rows():  # decades around each chart's data
        lo_x = min([v for v in [lo, 1.0] if v is not None])
        x_lo, _ = theme.pow10_domain(lo_x, lo_x)
        _, x_hi = theme.pow10_domain(float(x_end), float(x_end) * 2)
        if x_range is not None:
            x_lo, x_hi = min(x_lo, x_range[0]), max(x_hi, x_range[1])
        domains[tuple(k)] = (x_lo, x_hi)
    dom = pl.DataFrame([(*k, lo, hi) for k, (lo, hi) in domains.items()], orient="row",
                       schema={**{c: summary.schema[c] for c in key}, "x_lo": pl.Float64, "x_hi": pl.Float64}).lazy()
    start = summ.join(dom, on=key).select(*by, x=pl.col("x_lo"), fraction=pl.lit(0.0))
    at = value_at(thinned.lazy(), pl.concat([summ.select(*by, x=pl.col("max_x")),
                                             summ.select(*by, x=pl.col("median_max_evaluations"))],
                                            how="vertical_relaxed"), by=by)
    last, cross = at.head(summary.height), at.tail(summary.height)
    lines = pl.concat([start, thinned.lazy().select(*by, "x", "fraction"), last.select(*by, "x", "fraction")],
                      how="vertical_relaxed")
    lines = lines.unique([*by, "x"], keep="last", maintain_order=True).sort(*by, "x")
    ends = (summ.join(cross.rename({"x": "cross_x", "fraction": "cross_fraction"}), on=by, how="left")
            .sort(*key, "final_fraction", "algorithm", descending=[*[False] * len(key), True, False])
            .with_columns(rank=pl.int_range(1, pl.len() + 1, dtype=pl.get_index_type()).over(key)))
    ends = ends.join(dom, on=key, maintain_order="left").with_columns(dot_x=pl.col("x_hi")).drop("x_lo", "x_hi")
    lines, ends = pl.collect_all([lines, ends])
    lines = lines.partition_by(key, as_dict=True, include_key=False, maintain_order=True)
    ends = ends.select("rank", pl.exclude("rank", "dot_x"), "dot_x").partition_by(key, as_dict=True, maintain_order=True)
    return {k: (lines[k], e.with_columns(label_y=pl.Series(dodge(e["final_fraction"].to_list(), gap), dtype=pl.Float64)),
                domains[k]) for k, e in ends.items()}


def ecdf_range(steps: pl.DataFrame, summary: pl.DataFrame) -> tuple[float, float]:
    """The x range `prepare` gives the ECDFs of all the (dimension, group) of the tables at once:
    from the power of ten at or below the first step (at most 1) to the one above twice the
    largest max_x (the plotted range's end)."""
    lo = steps["x"].min() if steps.height else None
    lo = min([v for v in [lo, 1.0] if v is not None])
    x_end = float(summary["max_x"].max()) if summary.height else 1.0
    return theme.pow10_domain(lo, lo)[0], theme.pow10_domain(x_end, x_end * 2)[1]


def _cut(table: pl.DataFrame, summary: pl.DataFrame) -> pl.DataFrame:
    """Rows of the algorithms of `summary` up to each one's `max_x` (the plotted range)."""
    return (table.join(summary.select("algorithm", "max_x"), on="algorithm", how="inner")
            .filter(pl.col("x") <= pl.col("max_x")).drop("max_x"))


def band_points(band: pl.DataFrame, summary: pl.DataFrame, x_lo: float, resolution: float = RESOLUTION
                ) -> pl.DataFrame:
    """Points of the confidence band (`Analysis.ecdf_band` rows of one dimension and group): per
    algorithm (algorithm, x, fraction, low, high) from zeros at `x_lo` to the algorithm's max_x,
    thinned as the step lines (the last step of each bin of `resolution` in log10(x), the same
    points as `thin` where the estimate rises), rows where nothing changes dropped."""
    vals = ["fraction", "low", "high"]
    summary = summary.join(band.select("algorithm").unique(), on="algorithm", how="semi")
    cut = _cut(band.select("algorithm", "x", *vals), summary).sort("algorithm", "x")
    binned = (cut.with_columns(_bin=(pl.col("x").log10() / resolution).floor())
              .group_by("algorithm", "_bin").agg(pl.all().sort_by("x").last()).drop("_bin").sort("algorithm", "x"))
    ends = summary.select("algorithm", x=pl.col("max_x")).sort("x")
    last = (ends.join_asof(binned.sort("x"), on="x", by="algorithm", strategy="backward", check_sortedness=False)
            .with_columns(pl.col(v).fill_null(0.0) for v in vals))
    start = summary.select("algorithm", x=pl.lit(x_lo), **{v: pl.lit(0.0) for v in vals})
    pts = pl.concat([start, binned, last.select("algorithm", "x", *vals)], how="vertical_relaxed")
    pts = pts.unique(["algorithm", "x"], keep="last", maintain_order=True).sort("algorithm", "x")
    changed = pl.any_horizontal([pl.col(v).ne_missing(pl.col(v).shift(1).over("algorithm")) for v in vals])
    return pts.filter(changed | (pl.col("x") == pl.col("x").max().over("algorithm")))


def instance_lines(instances: pl.DataFrame, summary: pl.DataFrame, x_lo: float, resolution: float = RESOLUTION
                   ) -> pl.DataFrame:
    """Step lines of every instance alone (`Analysis.ecdf_per_instance` rows of one dimension and
    group): (algorithm, instance, x, fraction) from a zero at `x_lo` to the algorithm's max_x,
    thinned as the aggregate's lines."""
    by = ["algorithm", "instance"]
    thinned = thin(_cut(instances.select(*by, "x", "fraction"), summary), resolution, by=by)
    pairs = instances.select(by).unique().join(summary.select("algorithm", "max_x"), on="algorithm")
    last = value_at(thinned, pairs.select(*by, x=pl.col("max_x")), by=by)
    start = pairs.select(*by, x=pl.lit(x_lo), fraction=pl.lit(0.0))
    lines = pl.concat([start, thinned, last.select(*by, "x", "fraction")], how="vertical_relaxed")
    return lines.unique([*by, "x"], keep="last", maintain_order=True).sort(*by, "x")


def band_text(level: float, replicates: int, seed: int) -> str:
    """The band in a subtitle: level, replicates, how they are drawn, seed."""
    return (f"band: {level * 100:g} % bootstrap interval, {replicates} replicates resampling the trials "
            f"within each problem, seed {seed}")


@dataclass(frozen=True)
class _Look:
    """The scales, encodings, highlight and tooltips the layers of one ECDF chart share."""
    x: alt.X
    y: alt.Y
    x_domain: tuple[float, float]
    y_title: str | list[str]
    col: alt.Color
    shp: alt.Shape
    pick: alt.Parameter
    faded: alt.OpacityValue
    detail: alt.Detail
    where: dict[str, str]
    tip_line: list


def _look(pal: theme.Palette, legend: bool, domain: tuple[float, float], y_title: str | list[str],
          keys: pl.DataFrame) -> _Look:
    """What the layers of a chart of the (dimension, group) `keys` share, over the x `domain`."""
    pick = theme.highlight(bind_legend=legend)
    x = alt.X(**theme.typed("x:Q"), scale=theme.log_scale(domain), axis=theme.log_axis("evaluations / dimension", domain))
    y = alt.Y(**theme.typed("fraction:Q"), scale=alt.Scale(domain=[0, 1], nice=False),
              axis=alt.Axis(title=y_title, tickCount=5))
    where = ({"dimension": str(keys["dimension"][0]), "group": repr(str(keys["group"][0]))} if keys.height == 1
             else {})
    tip_line = [theme.tip("algorithm:N"), *[theme.tip(f"{k}:N") for k in where],
                theme.tip("x:Q", title="evaluations / dimension", format=".3~g"),
                theme.tip("fraction:Q", format=".3f")]
    return _Look(x=x, y=y, x_domain=domain, y_title=y_title, col=theme.colour(pal, legend=legend),
                 shp=theme.shape(pal, legend=False), pick=pick, faded=theme.faded(pick),
                 detail=alt.Detail(**theme.typed("algorithm:N")), where=where, tip_line=tip_line)


def _split_background(steps: pl.DataFrame, summary: pl.DataFrame, back: list[str],
                      x_range: tuple[float, float] | None) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame | None]:
    """The steps and summary without the `back` algorithms, and the line points of those (or None)."""
    if not back:
        return steps, summary, None
    is_back = pl.col("algorithm").is_in(back)
    b_steps, b_summ = steps.filter(is_back), summary.filter(is_back)
    steps, summary = steps.filter(~is_back), summary.filter(~is_back)
    return steps, summary, (prepare(b_steps, b_summ, x_range=x_range)[0] if b_summ.height else None)


def _widened(ends: pl.DataFrame, domain: tuple[float, float], back_lines: pl.DataFrame | None
             ) -> tuple[pl.DataFrame, tuple[float, float]]:
    """The ends and x domain widened to the background lines (one x domain for both), dots at its end."""
    if back_lines is None:
        return ends, domain
    top = float(back_lines["x"].max()) * 2
    x_lo, x_hi = min(domain[0], float(back_lines["x"].min())), max(domain[1], theme.pow10_domain(top, top)[1])
    return ends.with_columns(dot_x=pl.lit(x_hi)), (x_lo, x_hi)


def _background_layer(back_lines: pl.DataFrame, look: _Look) -> alt.Chart:
    """The background algorithms' lines, thin and light grey."""
    return theme.Chart(theme.data(back_lines)).transform_calculate(background="true", **look.where).mark_line(
        interpolate="step-after", strokeWidth=theme.BACKGROUND_WIDTH, color=theme.BACKGROUND_COLOUR).encode(
        x=look.x, y=look.y, detail=look.detail, tooltip=[*look.tip_line, theme.tip("background:N")])


def _band_layer(band: pl.DataFrame, on_chart: pl.DataFrame, look: _Look, quiet: alt.Color) -> alt.Chart:
    """The confidence band of each algorithm, an area in its colour."""
    pts = band_points(band, on_chart, look.x_domain[0])
    y_low = alt.Y("low:Q", scale=alt.Scale(domain=[0, 1], nice=False), axis=alt.Axis(title=look.y_title, tickCount=5))
    return theme.Chart(theme.data(pts)).transform_calculate(**look.where).mark_area(
        interpolate="step-after").encode(
        x=look.x, y=y_low, y2=alt.Y2("high:Q"), color=quiet, opacity=theme.faded(look.pick, BAND_OPACITY, DIMMED_BAND),
        tooltip=[*look.tip_line, theme.tip("low:Q", format=".3f"), theme.tip("high:Q", format=".3f")])


def _instance_layer(instances: pl.DataFrame, on_chart: pl.DataFrame, look: _Look, quiet: alt.Color) -> alt.Chart:
    """The step lines of every instance alone, thin and faint."""
    per = instance_lines(instances, on_chart, look.x_domain[0])
    return theme.Chart(theme.data(per)).transform_calculate(**look.where).mark_line(
        interpolate="step-after", strokeWidth=INSTANCE_WIDTH).encode(
        x=look.x, y=look.y, color=quiet, detail=[look.detail, alt.Detail("instance:N")],
        opacity=theme.faded(look.pick, INSTANCE_OPACITY, DIMMED_BAND),
        tooltip=[*look.tip_line[:1], theme.tip("instance:N"), *look.tip_line[1:]])


def _line_layers(lines: pl.DataFrame, refs: list[str], look: _Look, zoom: bool) -> list[alt.Chart]:
    """The reference algorithms' thick lines (if any), then the other algorithms' lines (zoomable)."""
    is_ref = lines["algorithm"].is_in(refs)
    layers = []
    if is_ref.any():
        layers.append(theme.Chart(theme.data(lines.filter(is_ref))).transform_calculate(**look.where).mark_line(
            interpolate="step-after", strokeWidth=theme.REFERENCE_WIDTH, strokeCap="butt").encode(
            x=look.x, y=look.y, color=look.col, detail=look.detail, opacity=look.faded, tooltip=look.tip_line))
    main = theme.Chart(theme.data(lines.filter(~is_ref))).transform_calculate(**look.where).mark_line(
        interpolate="step-after").encode(
        x=look.x, y=look.y, color=look.col, detail=look.detail, opacity=look.faded, tooltip=look.tip_line)
    if zoom:  # wheel / drag zooms the x axis in a browser (Altair cannot lift it out of concatenations)
        main = main.add_params(theme.selection(
            alt.selection_interval(bind="scales", encodings=["x"], name=f"zoom{next(_ZOOMS)}")))
    return [*layers, main]


def _end_layers(ends: pl.DataFrame, refs: list[str], look: _Look, labels: bool) -> list[alt.Chart]:
    """The final dots beyond the budgets, the crosses at the median maximal evaluations, and with `labels`
    the algorithm names beside the plot at dodged heights, joined to their dots by a thin line."""
    scale = theme.log_scale(look.x_domain)
    dots = theme.Chart(theme.data(ends)).encode(color=look.col, opacity=look.faded)
    end_tip = [theme.tip("algorithm:N"), theme.tip("final_fraction:Q", title="final fraction", format=".3f"),
               theme.tip("max_x:Q", title="budget / dimension", format=".3~g"),
               theme.tip("median_max_evaluations:Q", title="median max evaluations / dimension", format=".3~g"),
               *[theme.tip(f"{c}:Q") for c in ("instance_targets", "functions", "trials") if c in ends.columns]]
    layers = [dots.mark_point(size=70, filled=True, stroke="white", strokeWidth=0.6, clip=False).encode(
        x=alt.X(**theme.typed("dot_x:Q"), scale=scale), y=alt.Y(**theme.typed("final_fraction:Q")),
        shape=look.shp, tooltip=end_tip)]
    crosses = ends.filter(~pl.col("algorithm").is_in(refs))
    layers.append(theme.Chart(theme.data(crosses)).transform_filter("isValid(datum.cross_x)").mark_point(
        shape="cross", size=110, filled=True, angle=45, stroke="white", strokeWidth=0.5).encode(
        color=look.col, opacity=look.faded,
        x=alt.X(**theme.typed("cross_x:Q"), scale=scale), y=alt.Y(**theme.typed("cross_fraction:Q")),
        tooltip=[theme.tip("algorithm:N"),
                 theme.tip("median_max_evaluations:Q", title="median max evaluations / dimension", format=".3~g")]))
    if labels:  # pixel offsets from the dots at the right edge, so that they follow the plot's width
        dot_x = alt.X(**theme.typed("dot_x:Q"), scale=scale)
        layers.append(dots.mark_rule(strokeWidth=0.8, clip=False, x2Offset=14).encode(
            x=dot_x, y=alt.Y(**theme.typed("final_fraction:Q")), x2=alt.X2(field="dot_x"), y2=alt.Y2(field="label_y")))
        layers.append(dots.mark_text(align="left", baseline="middle", dx=16, fontSize=11, clip=False).encode(
            x=dot_x, y=alt.Y(**theme.typed("label_y:Q")), text=alt.Text(**theme.typed("algorithm:N")),
            tooltip=end_tip))
    return layers


def ecdf_chart(steps: pl.DataFrame, summary: pl.DataFrame, *, palette: theme.Palette | None = None,
               reference: str | Sequence[str] | None = None, title: str = "ECDF of runtimes",
               settings: Sequence[str] | str | None = None, y_title: str | list[str] = Y_TITLE,
               width: int = theme.WIDTH, height: int = theme.HEIGHT, labels: bool = True, legend: bool = False,
               zoom: bool = True, background: Sequence[str] | None = None, band: pl.DataFrame | None = None,
               instances: pl.DataFrame | None = None, band_settings: str | None = None,
               x_range: tuple[float, float] | None = None, prepared: Prepared | None = None,
               configured: bool = True) -> alt.LayerChart:
    """Runtime ECDFs of the algorithms of one dimension and function group in one chart.

    `palette` maps algorithms to (colour, shape) (theme.palette; missing ones are added);
    `reference` names the reference algorithm(s) of the table, drawn thick and light grey.
    `labels` writes algorithm names beside the final dots (ordered by final fraction);
    `legend` adds a colour legend instead (click on it highlights an algorithm); `zoom` lets a
    browser zoom the x axis (leave it off for charts to be concatenated). `background` names
    algorithms of the table drawn as thin light-grey lines behind all others, without dots,
    labels or legend entries (e.g. a whole archive behind a new algorithm). `band`: the rows of
    `Analysis.ecdf_band` (columns as `steps` plus `low`, `high`), drawn as an area in each
    algorithm's colour under its line, `band_settings` (e.g. `band_text(...)`) added to the
    subtitle; `instances`: the rows of `Analysis.ecdf_per_instance` (plus `instance`), thin faint
    lines per (algorithm, instance). Both follow the highlight of the algorithms. `x_range`: an x
    range to draw at least (`ecdf_range`: one for the ECDFs of a suite, as cocopp draws every
    ECDF from 1 to its x limit), widened to the data. `prepared`: what `prepare` gives for the steps and
    summary of the algorithms other than the background ones with `gap=label_gap(height)` (from
    `prepare_all`, the charts of a page at once); then `steps` need only hold the background's."""
    refs = [reference] if isinstance(reference, str) else list(reference or [])
    back = [a for a in dict.fromkeys(background or []) if a not in set(refs)]
    steps, summary, back_lines = _split_background(steps, summary, back, x_range)
    if prepared is None:
        prepared = prepare(steps, summary, gap=label_gap(height), x_range=x_range)
        keys = steps.select("dimension", "group").unique()
    else:
        keys = summary.select("dimension", "group").unique()
    lines, ends, domain = prepared
    ends, domain = _widened(ends, domain, back_lines)
    algs = ends["algorithm"].to_list()
    pal = theme.extend(palette, algs, refs)
    pal = {a: pal[a] for a in algs}  # the legend in order of final fraction
    look = _look(pal, legend, domain, y_title, keys)
    layers = [] if back_lines is None else [_background_layer(back_lines, look)]
    # band and instance lines drawn first share the colour legend: its symbols stay the lines' strokes
    first = len(layers)  # the first layer with the colour legend
    quiet = (theme.colour(pal, legend=alt.Legend(title=None, symbolStrokeWidth=2, symbolType="stroke",
                                                  symbolOpacity=1)) if legend else look.col)
    on_chart = summary.filter(~pl.col("algorithm").is_in(back)) if band is not None or instances is not None else None
    if band is not None and band.height:
        layers.append(_band_layer(band.join(keys, on=["dimension", "group"], how="semi"), on_chart, look, quiet))
    if instances is not None and instances.height:
        layers.append(_instance_layer(instances.join(keys, on=["dimension", "group"], how="semi"), on_chart, look,
                                      quiet))
    if band_settings and (band is not None or instances is not None):
        settings = [settings] if isinstance(settings, str) else list(settings or [])
        settings.append(band_settings)
    layers += _line_layers(lines, refs, look, zoom)
    layers += _end_layers(ends, refs, look, labels)
    # the highlight on the names (the last layer), else on the last layer, else, bound to the legend, on the
    # first layer with the colour legend (Vega-Lite merges legends)
    at = first if legend and not labels else len(layers) - 1
    layers[at] = layers[at].add_params(look.pick)
    chart = theme.layer(*layers, width=width, height=height, resolve=theme.independent(shape="independent"))
    return theme.finish(chart, title, settings, configured)


def _part(table: pl.DataFrame | None, dimension, group) -> pl.DataFrame | None:
    """The rows of one (dimension, group) of a table, or None."""
    if table is None:
        return None
    return table.filter((pl.col("dimension") == dimension) & (pl.col("group") == group))


def _side_by_side(charts: list[alt.LayerChart], columns: int) -> alt.TopLevelMixin:
    """One chart, or several side by side sharing one highlight selection (the same palette), configured."""
    if len(charts) == 1:
        return theme.configure(charts[0])
    with warnings.catch_warnings():  # the charts' identical selections merge into one, as intended
        warnings.filterwarnings("ignore", message="Automatically deduplicated selection parameter")
        both = alt.concat(*charts, columns=columns, resolve=theme.independent(color="independent",
                                                                             shape="independent"))
    return theme.configure(both)


def ecdf_grid(steps: pl.DataFrame, summary: pl.DataFrame, *, title: str = "ECDF of runtimes",
              settings: Sequence[str] = (), counts: bool = True, bands: pl.DataFrame | None = None,
              instances: pl.DataFrame | None = None, columns: int = 2, **options) -> alt.TopLevelMixin:
    """One `ecdf_chart` per (dimension, group) of `summary`, titled "`title`, {d}-D, {group}", side by
    side on one x axis (`ecdf_range` of all) in `columns`; `counts`: the first line of `settings`
    starts with the dimension, group and number of functions of its chart; `bands` and `instances`
    hold every chart's rows; the other `options` are `ecdf_chart`'s."""
    keys = summary.select("dimension", "group").unique().sort("dimension", "group").rows()
    x_range = ecdf_range(steps, summary)  # one x axis for all the charts
    charts = []
    for d, g in keys:
        u = _part(summary, d, g)
        label = "all functions" if g == "all" else g
        lines = list(settings)
        if counts:
            n = u["functions"].max()
            lines[0] = f"{d}-D, {label} ({n} function{'s' if n != 1 else ''}); " + lines[0]
        charts.append(ecdf_chart(_part(steps, d, g), u, title=f"{title}, {d}-D, {label}", settings=lines,
                                 zoom=len(keys) == 1, band=_part(bands, d, g), instances=_part(instances, d, g),
                                 x_range=x_range, configured=False, **options))
    return _side_by_side(charts, columns)


def quantize(lines: pl.DataFrame, quantum: float, by: Sequence[str] = ("algorithm",)) -> pl.DataFrame:
    """Line points with fractions rounded down to multiples of `quantum` (never above the data),
    points that then do not rise dropped (the first and last of each line kept)."""
    by = list(by)
    q = lines.with_columns(fraction=(pl.col("fraction") / quantum + 1e-9).floor() * quantum)
    keep = ((pl.col("fraction") != pl.col("fraction").shift(1).over(by)).fill_null(True)
            | (pl.col("x") == pl.col("x").max().over(by)))
    return q.sort(*by, "x").filter(keep)


def explorer_tables(steps: pl.DataFrame, summary: pl.DataFrame, resolution: float = RESOLUTION,
                    quantum: float | None = None, gap: float = 0.05
                    ) -> tuple[pl.DataFrame, pl.DataFrame, tuple[float, float]]:
    """`prepare` for every (dimension, group) of the table at once: lines and ends with their
    dimension and group, and one x domain for all; `quantum`: fractions rounded down to its multiples."""
    key = ["dimension", "group"]
    by = [*key, "algorithm"]
    summ = summary.join(steps.select(key).unique(), on=key, how="semi")
    if summ.height == 0:
        raise ValueError("ECDF explorer: no ECDF steps with a summary")
    cut = (steps.lazy().join(summ.lazy().select(*by, "max_x"), on=by, how="inner")
           .filter(pl.col("x") <= pl.col("max_x")).drop("max_x"))
    thinned, lows = pl.collect_all([thin(cut, resolution, by=by), cut.group_by(key).agg(lo=pl.col("x").min())])
    ranges = summ.group_by(key).agg(x_end=pl.col("max_x").max()).join(lows, on=key, how="left")
    x_lo, x_hi = {}, {}
    for d, g, x_end, lo in ranges.select(*key, "x_end", "lo").rows():  # as `prepare`, per (dimension, group)
        lo = min([v for v in [lo, 1.0] if v is not None])
        x_lo[(d, g)] = theme.pow10_domain(lo, lo)[0]
        x_hi[(d, g)] = theme.pow10_domain(float(x_end), float(x_end) * 2)[1]
    domain = pl.DataFrame([(d, g, v) for (d, g), v in x_lo.items()], schema={"dimension": summ.schema["dimension"],
                                                                            "group": summ.schema["group"],
                                                                            "x_lo": pl.Float64}, orient="row")
    start = summ.join(domain, on=key).select(*by, x=pl.col("x_lo"), fraction=pl.lit(0.0))
    at = value_at(thinned, pl.concat([summ.select(*by, x=pl.col("max_x")),
                                      summ.select(*by, x=pl.col("median_max_evaluations"))], how="vertical_relaxed"),
                  by=by)
    last, cross = at.head(summ.height), at.tail(summ.height)
    lines = pl.concat([start, thinned.select(*by, "x", "fraction"), last.select(*by, "x", "fraction")],
                      how="vertical_relaxed")
    lines = lines.unique([*by, "x"], keep="last", maintain_order=True).sort(*by, "x")
    if quantum:
        lines = quantize(lines, quantum, by=by)
    ends = (summ.join(cross.select(*by, cross_x="x", cross_fraction="fraction"), on=by, how="left")
            .sort(*key, "final_fraction", "algorithm", descending=[False, False, True, False])
            .with_columns(rank=pl.int_range(1, pl.len() + 1).over(key)))
    ends = pl.concat([e.with_columns(label_y=pl.Series(dodge(e["final_fraction"].to_list(), gap), dtype=pl.Float64))
                      for e in ends.partition_by(key, maintain_order=True)])
    lo, hi = min(x_lo.values()), max(x_hi.values())
    return lines, ends.with_columns(dot_x=pl.lit(hi)), (lo, hi)


def _group_order(g: str) -> tuple:
    """'all' first, then cocopp's groups, then f1, f2, ... in numeric order."""
    is_f = g.startswith("f") and g[1:].isdigit()
    return (g != "all", is_f, int(g[1:]) if is_f else 0, g)


def ecdf_explorer(steps: pl.DataFrame, summary: pl.DataFrame, *, palette: theme.Palette | None = None,
                  reference: str | Sequence[str] | None = None, background: Sequence[str] | None = None,
                  group_labels: dict[str, str] | None = None, title: str = "ECDF of runtimes",
                  settings: Sequence[str] | str | None = None, y_title: str | list[str] = Y_TITLE,
                  width: int = 520, height: int = 320, resolution: float = 0.05, quantum: float | None = 0.005,
                  configured: bool = True, x_range: tuple[float, float] | None = None
                  ) -> alt.LayerChart:
    """Runtime ECDFs of every (dimension, function group) of the table in ONE chart: two drop-downs
    (parameters `dimension_shown` and `group_shown` bound to select inputs) choose what is drawn;
    a click on a legend entry or a line highlights an algorithm (shift-click: several, double-click:
    none), the wheel and drag zoom and pan the x axis, tooltips give the values. `background`
    algorithms are thin grey lines behind, the reference thick and grey. A static export (SVG, PNG,
    PDF) shows the initial choice: the smallest dimension, all functions. `x_range`: an x range to
    include (one for several charts). The lines are thinned to
    `resolution` in log10(x) and `quantum` in fraction (never above the data) and carried as CSV."""
    refs = [reference] if isinstance(reference, str) else list(reference or [])
    back = [a for a in dict.fromkeys(background or []) if a not in set(refs)]
    lines, ends, (x_lo, x_hi) = explorer_tables(steps, summary, resolution, quantum)
    if x_range is not None:  # one x range with the other ECDFs of the suite
        x_lo, x_hi = min(x_lo, x_range[0]), max(x_hi, x_range[1])
        ends = ends.with_columns(dot_x=pl.lit(x_hi))
    lines = lines.select("algorithm", "dimension", "group", "x", "fraction")
    dims = sorted(ends["dimension"].unique().to_list())
    groups = sorted(ends["group"].unique().to_list(), key=_group_order)
    labels = [(group_labels or {}).get(g, "all functions" if g == "all" else g) for g in groups]
    fg = ends.filter(~pl.col("algorithm").is_in(back))
    order = (fg.group_by("algorithm").agg(pl.col("final_fraction").mean()).sort("final_fraction", "algorithm",
                                                                                  descending=[True, False]))
    algs = order["algorithm"].to_list()
    pal = theme.extend(palette, algs, refs)
    pal = {a: pal[a] for a in algs}
    dim_p = alt.param(name="dimension_shown", value=dims[0],
                      bind=alt.binding_select(options=dims, labels=[f"{d}-D" for d in dims], name="dimension "))
    grp_p = alt.param(name="group_shown", value=groups[0],
                      bind=alt.binding_select(options=groups, labels=labels, name="functions "))
    shown = "datum.dimension == dimension_shown && datum.group == group_shown"
    pick = theme.highlight(bind_legend=True)
    faded = theme.faded(pick)
    scale = theme.log_scale((x_lo, x_hi))
    x = alt.X("x:Q", scale=scale, axis=theme.log_axis("evaluations / dimension", (x_lo, x_hi)))
    y = alt.Y("fraction:Q", scale=alt.Scale(domain=[0, 1], nice=False), axis=alt.Axis(title=y_title, tickCount=5))
    leg = alt.Legend(title=None, symbolStrokeWidth=2, symbolLimit=0, columns=min(8, 1 + (len(pal) - 1) // 40),
                     labelLimit=140)  # at most 40 entries a column
    col = theme.colour(pal, legend=leg)
    tip = [theme.tip("algorithm:N"), theme.tip("dimension:Q"), theme.tip("group:N", title="functions"),
           theme.tip("x:Q", title="evaluations / dimension", format=".3~g"), theme.tip("fraction:Q", format=".3f")]
    is_back, is_ref = pl.col("algorithm").is_in(back), pl.col("algorithm").is_in(refs)
    layers = []
    if back:
        layers.append(theme.Chart(theme.csv_data(lines.filter(is_back))).transform_filter(shown).mark_line(
            interpolate="step-after", strokeWidth=theme.BACKGROUND_WIDTH, color=theme.BACKGROUND_COLOUR).encode(
            x=x, y=y, detail=alt.Detail("algorithm:N"), tooltip=tip))
    if refs:
        layers.append(theme.Chart(theme.csv_data(lines.filter(is_ref))).transform_filter(shown).mark_line(
            interpolate="step-after", strokeWidth=theme.REFERENCE_WIDTH, strokeCap="butt").encode(
            x=x, y=y, color=col, detail=alt.Detail("algorithm:N"), opacity=faded, tooltip=tip))
    layers.append(theme.Chart(theme.csv_data(lines.filter(~is_back & ~is_ref))).transform_filter(shown).mark_line(
        interpolate="step-after").encode(x=x, y=y, color=col, detail=alt.Detail("algorithm:N"), opacity=faded,
                                         tooltip=tip)
        .add_params(theme.selection(alt.selection_interval(bind="scales", encodings=["x"], name="zoom"))))
    first = 1 if back else 0  # a legend binding works from the first layer with the colour legend
    layers[first] = layers[first].add_params(pick)
    end_tip = [theme.tip("algorithm:N"), theme.tip("dimension:Q"), theme.tip("group:N", title="functions"),
               theme.tip("final_fraction:Q", title="final fraction", format=".3f"),
               theme.tip("max_x:Q", title="budget / dimension", format=".3~g"),
               *[theme.tip(f"{c}:Q") for c in ("instance_targets", "functions", "trials") if c in ends.columns]]
    layers.append(theme.Chart(theme.data(fg)).transform_filter(shown).mark_point(
        size=60, filled=True, stroke="white", strokeWidth=0.6, clip=False).encode(
        x=alt.X("dot_x:Q", scale=scale), y=alt.Y("final_fraction:Q"), color=col, opacity=faded,
        shape=theme.shape(pal, legend=False), tooltip=end_tip))
    crosses = fg.filter(~pl.col("algorithm").is_in(refs))
    layers.append(theme.Chart(theme.data(crosses)).transform_filter(f"{shown} && isValid(datum.cross_x)").mark_point(
        shape="cross", size=100, filled=True, angle=45, stroke="white", strokeWidth=0.5).encode(
        x=alt.X("cross_x:Q", scale=scale), y=alt.Y("cross_fraction:Q"), color=col, opacity=faded,
        tooltip=[theme.tip("algorithm:N"), theme.tip("median_max_evaluations:Q",
                                                         title="median max evaluations / dimension", format=".3~g")]))
    layers[0] = layers[0].add_params(dim_p, grp_p)  # lifted to the top by the layer chart
    chart = theme.layer(*layers, width=width, height=height, resolve=theme.independent(shape="independent"))
    return theme.finish(chart, title, settings, configured)
