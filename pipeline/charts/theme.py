"""One look for every chart: colour-blind-safe colours, one colour and marker per algorithm,
log axes labelled at powers of ten, titles with a subtitle of the settings that matter.
"""
from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Sequence

import altair as alt
import numpy as np
import polars as pl
from altair.utils.schemapi import Undefined, UndefinedType

#: Okabe-Ito colours ordered for lines on white (the yellow, weakest on white, comes last)
COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442")
#: how strongly a name's hash favours each colour (`palette`): the strongest colours on white most,
#: the yellow least
COLOUR_WEIGHTS = (1.0, 1.0, 1.0, 0.9, 0.9, 0.8, 0.7, 0.35)
#: Vega-Lite point shapes (the diamond is the reference's); (colour, shape) pairs repeat only after
#: len(COLOURS) * len(SHAPES) algorithms
STAR = "M0,-1L0.24,-0.33L0.95,-0.31L0.38,0.12L0.59,0.81L0,0.4L-0.59,0.81L-0.38,0.12L-0.95,-0.31L-0.24,-0.33Z"
SHAPES = ("circle", "square", "triangle-up", STAR, "triangle-down", "cross", "triangle-right", "triangle-left",
          "wedge")
#: how strongly a name's hash favours each shape (the plain ones most; "cross" least: crosses also
#: mark the median budgets)
SHAPE_WEIGHTS = (1.0, 1.0, 1.0, 0.6, 0.6, 0.1, 0.3, 0.3, 0.2)
#: the reference algorithm (cocopp's "best 2009"): a thick light-grey line behind the others
REFERENCE_COLOUR = "#BDBDBD"
REFERENCE_WIDTH = 6
#: background algorithms (e.g. a whole archive behind a new algorithm): thin, lighter than the reference
BACKGROUND_COLOUR = "#D4D4D4"
BACKGROUND_WIDTH = 0.8
#: opacity of the algorithms not highlighted (click or search)
DIMMED = 0.15
#: ordered colours for ordinal series such as targets, budgets or dimensions (light to dark hue steps)
SEQUENTIAL = ("#56B4E9", "#009E73", "#E69F00", "#CC79A7", "#D55E00", "#0072B2", "#000000")

WIDTH, HEIGHT = 360, 240
#: Liberation Sans first: vl-convert (SVG, PNG, PDF) carries it in memory, so static charts look the same on every
#: machine; a system font it reopens for every text it measures (the paper's 66 figures of one algorithm: 24 s of
#: vl-convert with DejaVu Sans, 7.6 s with Liberation Sans, same specs). Browsers take the first font they have.
FONT = "Liberation Sans, Arial, Helvetica, DejaVu Sans, sans-serif"

Palette = dict[str, tuple[str, str]]


def _preference(name: str, kind: str, options: Sequence[str], weights: Sequence[float] | None = None) -> list[str]:
    """The options in the order a name prefers them, the same in every report and process: weighted
    rendezvous hashing (each option scores -ln(u) / weight, u in (0, 1) a hash of kind, name and option;
    the smallest first), so that the options of larger weight come first for more names."""
    def score(i: int) -> float:
        h = int.from_bytes(hashlib.sha256(f"{kind}\0{name}\0{options[i]}".encode()).digest()[:8], "big")
        return -math.log((h + 0.5) / 2.0 ** 64) / (weights[i] if weights else 1.0)

    return [options[i] for i in sorted(range(len(options)), key=score)]


#: colours hard to tell apart in a line chart (the two oranges, the two blues): algorithms of one family
#: do not share a marker
FAMILIES = ({"#D55E00", "#E69F00"}, {"#0072B2", "#56B4E9"})


def _family(colour: str) -> set[str]:
    """The colours that look like `colour` (itself included)."""
    return next((f for f in FAMILIES if colour in f), {colour})


def _shape(name: str, colour: str, used: Sequence[tuple[str, str]]) -> str:
    """The marker a name prefers among those least used with `colour` or a colour like it."""
    shapes = _preference(name, "shape", SHAPES, SHAPE_WEIGHTS)
    family = _family(colour)
    taken = [s for c, s in used if c in family]
    return min(shapes, key=lambda s: (taken.count(s), shapes.index(s)))


def palette(algorithms: Iterable[str], reference: str | Sequence[str] | None = None,
            fixed: dict[str, tuple[str, str | None]] | None = None) -> Palette:
    """{algorithm: (colour, shape)} in the order given, each algorithm's colour and marker chosen by
    its name, so that it keeps them from one report to the next whatever else is shown: its first
    choice of colour (a hash of the name ranks the colours, `_preference`), unless an algorithm
    before it in name order took that one; then its next choice among the least used colours (up
    to len(COLOURS) algorithms get a colour each), and a marker not yet used with that colour or one
    like it (`FAMILIES`: the two oranges, the two blues).
    `fixed` entries {algorithm: (colour, marker or None)} (e.g. the report's settings) are kept and
    taken first; reference algorithms get the reference grey and a diamond."""
    refs = {reference} if isinstance(reference, str) else set(reference or ())
    names = list(dict.fromkeys(algorithms))
    chosen: Palette = {}
    used: list[tuple[str, str]] = []
    for alg, (c, s) in (fixed or {}).items():
        chosen[alg] = (c, s or _shape(alg, c, used))
        used.append(chosen[alg])
    chosen.update({a: (REFERENCE_COLOUR, "diamond") for a in names if a in refs and a not in chosen})
    for alg in sorted(a for a in names if a not in chosen):
        uses = {c: sum(u == c for u, _ in used) for c in COLOURS}
        least = min(uses.values())
        colour = next(c for c in _preference(alg, "colour", COLOURS, COLOUR_WEIGHTS) if uses[c] == least)
        chosen[alg] = (colour, _shape(alg, colour, used))
        used.append(chosen[alg])
    return {a: chosen[a] for a in names}


def extend(pal: Palette | None, algorithms: Iterable[str], reference: str | Sequence[str] | None = None) -> Palette:
    """A palette covering `algorithms`: the given one, with new algorithms appended after its entries
    (their colours chosen as `palette` does, besides the given ones)."""
    pal = dict(pal or {})
    missing = [a for a in dict.fromkeys(algorithms) if a not in pal]
    if missing:
        pal.update(palette([*pal, *missing], reference, fixed=pal))
    return pal


_TYPES = {"N": "nominal", "Q": "quantitative", "O": "ordinal", "T": "temporal"}


def typed(shorthand: str) -> dict[str, str]:
    """A channel's "name:T" shorthand as the keywords `field` and `type` (Altair parses a shorthand
    again each time a chart is written, about 50 µs a channel)."""
    name, kind = shorthand.rsplit(":", 1)
    return {"field": name, "type": _TYPES[kind]}


def tip(shorthand: str, **kw) -> alt.Tooltip:
    """`alt.Tooltip(shorthand, **kw)` with the field and type given as such (see `typed`)."""
    return alt.Tooltip(**typed(shorthand), **kw)


def colour(pal: Palette, field: str = "algorithm", legend: bool | alt.Legend = True, **kw) -> alt.Color:
    """Colour encoding of `field` with the palette's colours."""
    leg = alt.Legend(title=None, symbolStrokeWidth=2) if legend is True else (legend or None)
    return alt.Color(field=field, type="nominal", scale=alt.Scale(domain=list(pal), range=[c for c, _ in pal.values()]),
                     legend=leg, **kw)


def shape(pal: Palette, field: str = "algorithm", legend: bool | alt.Legend = True) -> alt.Shape:
    """Shape encoding of `field` with the palette's markers."""
    leg = alt.Legend(title=None) if legend is True else (legend or None)
    return alt.Shape(field=field, type="nominal", scale=alt.Scale(domain=list(pal), range=[s for _, s in pal.values()]),
                     legend=leg)


def ordinal_colour(field: str, domain: Sequence, title: str | None = None, legend: bool = True) -> alt.Color:
    """Colour encoding of an ordered series (targets, budgets, dimensions) with the theme's colours."""
    rng = [SEQUENTIAL[i % len(SEQUENTIAL)] for i in range(len(domain))]
    return alt.Color(field=field, type="nominal", scale=alt.Scale(domain=list(domain), range=rng), sort=list(domain),
                     legend=alt.Legend(title=title) if legend else None)


# -- axes -----------------------------------------------------------------------------------------
#: the superscript of each character of a written exponent
SUPERSCRIPTS = {"-": "\u207b", "\u2212": "\u207b", "0": "\u2070", "1": "\u00b9", "2": "\u00b2", "3": "\u00b3", "4": "\u2074",
                "5": "\u2075", "6": "\u2076", "7": "\u2077", "8": "\u2078", "9": "\u2079"}


def _superscript_expr(text: str) -> str:
    """A Vega expression writing the characters of `text` (an expression) as superscripts."""
    for plain, sup in SUPERSCRIPTS.items():
        text = f"replace({text}, regexp('{plain}', 'g'), '{sup}')"
    return text


#: labels only at powers of ten, all in one format for a paper: 10⁻², 10⁰, 10³, 10⁷ (no mix of 0.1, 1000
#: and 1e5)
POW10_LABEL = ("abs(log(datum.value) / LN10 - round(log(datum.value) / LN10)) > 1e-6 ? '' : "
               "'10' + " + _superscript_expr("format(round(log(datum.value) / LN10), 'd')"))


def pow10_ticks(lo: float, hi: float, most: int = 9) -> list[float]:
    """Powers of ten from lo to hi, every k-th so that at most `most` remain."""
    a, b = math.floor(math.log10(lo) + 1e-9), math.ceil(math.log10(hi) - 1e-9)
    step = max(1, math.ceil((b - a + 1) / most))
    return [10.0 ** k for k in range(a, b + 1) if (k - a) % step == 0]


POW10_TEST = "abs(log(datum.value) / LN10 - round(log(datum.value) / LN10)) < 1e-6"


def log_axis(title: str, domain: Sequence[float] | None = None, **kw) -> alt.Axis:
    """An axis of a log scale labelled (and grid-lined) at powers of ten only; with the domain
    given, ticks are exactly its powers of ten."""
    if domain is not None and "values" not in kw:
        kw["values"] = pow10_ticks(*domain)
    elif "values" not in kw:
        kw.setdefault("gridOpacity", {"condition": {"test": POW10_TEST, "value": 1}, "value": 0})
        kw.setdefault("tickOpacity", {"condition": {"test": POW10_TEST, "value": 1}, "value": 0.4})
    return alt.Axis(title=title, labelExpr=POW10_LABEL, **kw)


def log_scale(domain: Sequence[float] | None = None, **kw) -> alt.Scale:
    """A base-10 log scale (optionally with a fixed domain)."""
    return alt.Scale(type="log", base=10, **({"domain": list(domain)} if domain is not None else {}), **kw)


def pow10_domain(lo: float, hi: float) -> tuple[float, float]:
    """The smallest range of whole powers of ten around [lo, hi] (positive values)."""
    lo, hi = max(lo, 1e-300), max(hi, lo)
    return 10.0 ** math.floor(math.log10(lo) + 1e-9), 10.0 ** math.ceil(math.log10(hi) - 1e-9)


# -- data ---------------------------------------------------------------------------------------
def dataset_name(text: str) -> str:
    """The name of a table in a spec's top-level `datasets`, from its text (JSON rows or CSV): a pure
    function of the content ("data-" and the first 32 hex digits of its SHA-256), so identical
    tables of the layers of a chart, or of the charts of a page, share one entry."""
    return "data-" + hashlib.sha256(text.encode()).hexdigest()[:32]


class Dataset(alt.NamedData):
    """A table referenced by name (`{"name": ...}`), its values put once into the top-level
    `datasets` of the spec when the chart is turned into one (`to_dict`, any nesting).

    Altair deep-copies a chart's inline values in every method call (`encode`, `properties`,
    layering, ...); this object is immutable and shared instead, so building a chart costs the
    same whatever the size of its data, and the values are never subject to Altair's data
    transformers (no row limit: callers keep tables small, e.g. by thinning)."""

    def __init__(self, values: list[dict] | str, format: alt.DataFormat | UndefinedType = Undefined,
                 name: str | None = None):
        """`values` rows (or CSV text with its `format`); `name` by default from their JSON text."""
        if name is None:
            name = dataset_name(values if isinstance(values, str) else json.dumps(values, sort_keys=True, default=str))
        super().__init__(name=name, format=format)
        object.__setattr__(self, "_values", values)

    @property
    def values(self) -> list[dict] | str:
        """The rows (or the CSV text) of the table."""
        return self._values

    def __deepcopy__(self, memo=None) -> Dataset:
        return self

    def copy(self, deep=True, ignore=None) -> Dataset:
        """The same object: it is never changed."""
        return self

    def to_dict(self, validate: bool = True, *, ignore: list[str] | None = None,
                context: dict | None = None) -> dict:
        """The reference `{"name": ...}` (and format); the values go into `context["datasets"]`,
        which Altair writes into the top-level spec."""
        if context is not None:
            context.setdefault("datasets", {})[self.name] = self._values
        return super().to_dict(validate=validate, ignore=ignore, context=context)

    def __reduce__(self):
        return (type(self), (self._values, self.format, self.name))


def _rounded(df: pl.DataFrame, digits: int) -> pl.DataFrame:
    """Floats rounded to `digits` significant digits, inf/NaN as null; temporals and objects as text. Column by
    column on the Series (a query on a chart's table of a few hundred rows cost twice as much in its planning:
    a report makes about a thousand of them)."""
    if not any(t.is_float() or t.is_temporal() or t == pl.Object for t in df.schema.values()):
        return df
    columns = []
    for name, dtype in df.schema.items():
        s = df.get_column(name)
        if dtype.is_float():
            if s.has_nulls() or not np.isfinite(s.to_numpy()).all():
                s = s.set(~s.is_finite(), None)
            s = s.round_sig_figs(digits)
        elif dtype.is_temporal() or dtype == pl.Object:
            s = s.cast(pl.String)
        columns.append(s)
    return pl.DataFrame(columns)


#: tables larger than this (characters of JSON rows) go into a spec as CSV text (`data`)
COMPACT_ABOVE = 16_000


def _csv_parse(df: pl.DataFrame) -> dict[str, str] | None:
    """How Vega-Lite parses the columns of `df` back from CSV (numbers, booleans; text as it is), or None
    when CSV cannot carry the table exactly (nested values, text columns with nulls or empty text: CSV
    cannot tell them apart)."""
    parse = {}
    for name, dtype in df.schema.items():
        if dtype.is_numeric() or dtype == pl.Null:
            parse[name] = "number"
        elif dtype == pl.Boolean:
            parse[name] = "boolean"
        elif dtype != pl.String or df[name].null_count() or (df[name] == "").any():
            return None
    return parse


#: significant digits of the numbers of a chart's tables (`data`)
DIGITS = 5


def data(df: pl.DataFrame, digits: int | None = DIGITS) -> Dataset:
    """The table for a spec (in the top-level `datasets`, referenced by a name that is a function of its
    content): floats rounded to `digits` significant digits, inf/NaN as null, so that the spec stays
    small and valid JSON. A table of more than `COMPACT_ABOVE` characters of JSON rows goes as CSV text
    (about a third of the size: the column names once, not in every row) with a format that parses its
    numbers and booleans back, when CSV carries it exactly; the chart drawn is the same. `digits` None: `df`
    is rounded already (`_rounded`: the parts of a table rounded once)."""
    df = _rounded(df, digits) if digits is not None else df
    text = df.write_json()
    if len(text) > COMPACT_ABOVE and (parse := _csv_parse(df)) is not None:
        csv = df.write_csv()
        return Dataset(csv, format=alt.DataFormat(type="csv", parse=parse), name=dataset_name(csv))
    return Dataset(df.to_dicts(), name=dataset_name(text))


def csv_data(df: pl.DataFrame, digits: int = 4) -> Dataset:
    """The table as CSV text (about a third of the JSON rows' size, for tables of many rows):
    floats rounded to `digits` significant digits, numbers parsed back as numbers."""
    parse = {name: "number" for name, dtype in df.schema.items() if dtype.is_numeric()}
    text = _rounded(df, digits).write_csv(float_scientific=None)
    return Dataset(text, format=alt.DataFormat(type="csv", parse=parse))


# -- titles and settings -----------------------------------------------------------------------
def fmt_number(v: float) -> str:
    """A short number as the log axes label it: 1e-08 -> 1e-8, 0.001 -> 1e-3, 100.0 -> 100, 1e4 -> 1e4."""
    if v == 0 or (1e-2 <= abs(v) < 1e4):
        return f"{v:g}"
    m, e = f"{v:.0e}".split("e")
    return f"{m}e{int(e)}"


def fmt_targets(targets: Sequence[float]) -> str:
    """Targets in a subtitle: '51 targets 1e2..1e-8' or '1e1, 1e-1, 1e-8'."""
    ts = sorted({float(t) for t in targets}, reverse=True)
    if len(ts) <= 5:
        return "targets " + ", ".join(fmt_number(t) for t in ts)
    return f"{len(ts)} targets {fmt_number(ts[0])}..{fmt_number(ts[-1])}"


def title(text: str, settings: Sequence[str] | str | None = None) -> alt.TitleParams:
    """A title with the settings as subtitle (one line per entry)."""
    sub = [settings] if isinstance(settings, str) else [s for s in (settings or []) if s]
    return alt.TitleParams(text=text, subtitle=sub or alt.Undefined, anchor="start")


#: the name of the theme in Altair's registry (`alt.theme.enable(THEME)` themes charts made elsewhere)
THEME = "cocopipe"


@alt.theme.register(THEME, enable=False)
def theme_config() -> alt.theme.ThemeConfig:
    """The theme's configuration: fonts readable at column width, grids, no view border."""
    return {"config": _configured().config.to_dict()}


def _configured() -> alt.Chart:
    """An empty chart with the theme's configuration."""
    return (
        alt.Chart().configure(font=FONT, padding=8)
        .configure_view(stroke="#888", strokeWidth=0.8)
        .configure_axis(grid=True, gridColor="#e3e3e3", domainColor="#666", tickColor="#666", labelFontSize=11,
                        titleFontSize=12, titleFontWeight="normal", labelColor="#222", titleColor="#222",
                        labelOverlap="greedy")  # narrow panels: drop a label rather than overprint it
        .configure_legend(labelFontSize=11, titleFontSize=11, symbolSize=70, labelLimit=220, orient="right")
        .configure_title(fontSize=13, subtitleFontSize=10, subtitleColor="#555", fontWeight="bold",
                         anchor="start", offset=6)
        .configure_header(labelFontSize=11, titleFontSize=11, labelFontWeight="bold")
        .configure_point(size=45, filled=True)
        .configure_line(strokeWidth=1.8)
    )


_CONFIG: list = []


def with_properties(chart: alt.TopLevelMixin, **props) -> alt.TopLevelMixin:
    """`chart.properties(**props)` without validating each property: a shallow copy (a new chart
    object sharing the parts of `chart`: the layers of a layer chart are `Chart`s, whose copy shares
    them too) with `props` set. The finished spec is validated as a whole by `export.spec`."""
    new = chart.copy(deep=False)
    for key, value in props.items():
        setattr(new, key, value)
    return new


def configure(chart: alt.TopLevelMixin) -> alt.TopLevelMixin:
    """`chart` with the registered theme's configuration (`theme_config`) in its spec: the spec does not
    depend on the theme enabled in Altair."""
    if not _CONFIG:
        _CONFIG.append(alt.Config.from_dict(theme_config()["config"]))
    return with_properties(chart, config=_CONFIG[0].copy(deep=True))


def finish(chart: alt.TopLevelMixin, text: str, settings: Sequence[str] | str | None = None,
           configured: bool = True) -> alt.TopLevelMixin:
    """Set the title with settings subtitle and (unless `configured` is False, e.g. to layer or
    concatenate further) the theme configuration."""
    chart = with_properties(chart, title=title(text, settings))
    return configure(chart) if configured else chart


def message(text: str, heading: str, settings: Sequence[str] | str | None = None, width: int = 320,
            height: int = 60, configured: bool = True) -> alt.TopLevelMixin:
    """A chart holding one line of text instead of marks: what the data leave nothing to draw, said where the
    chart would be (a chart of no rows has no panel, and Vega sizes it without bound)."""
    chart = alt.Chart(alt.Data(values=[{"text": text}])).mark_text(align="left", baseline="middle", x=0,
                                                                    y=height / 2).encode(text="text:N")
    return finish(chart.properties(width=width, height=height), heading, settings, configured)


class Chart(alt.Chart):
    """`alt.Chart` whose deep copy shares its parts (a new chart object, the same encodings, marks
    and data). Altair deep-copies every layer each time a layer, facet or concatenated chart is
    built or copied, and changes only the copies' own properties (name, params, data) afterwards;
    every Altair method copies what it changes, so sharing is safe and costs nothing (change a
    chart with Altair's methods, not by assigning to a nested part of a copy)."""

    def __deepcopy__(self, memo=None) -> Chart:
        return self.copy(deep=False)


def layer(*layers: alt.TopLevelMixin, **props) -> alt.LayerChart:
    """`alt.layer(*layers).properties(**props)` in one construction (Altair deep-copies every layer
    each time a layer chart is built or copied)."""
    return alt.LayerChart(layer=list(layers), **props)


#: the line break of a panel's label (`panel_facet`)
PANEL_BREAK = " | "


def panel_facet(field: str, sort: Sequence[str]) -> alt.Facet:
    """A facet of small multiples by `field` (in the order `sort`), each panel's label cut to the
    panel's width (which report.js changes), PANEL_BREAK in a label starting a new line: a long
    label never widens its column beyond its panel."""
    return alt.Facet(field=field, type="nominal", sort=list(sort), title=None,
                     header=alt.Header(labelLimit=alt.ExprRef(expr="child_width"),
                                       labelExpr=f"split(datum.value, {json.dumps(PANEL_BREAK)})"))


def independent(**scales: str) -> alt.Resolve:
    """What `.resolve_scale(**scales)` sets (e.g. y="independent"), for a chart's constructor."""
    return alt.Resolve(scale=alt.ScaleResolveMap(**scales))


class _Selection(alt.TopLevelSelectionParameter):
    """A selection parameter whose `to_dict` does not validate it on its own: Altair turns it into a
    dict each time a layer or facet chart lifts it (with a full schema validation, milliseconds
    each); the finished spec is validated as a whole by `export.spec`. (A top-level selection
    parameter, so that lifting keeps this class; its `views` are set only when lifted.)"""

    def to_dict(self, validate: bool = False, **kw) -> dict:
        return super().to_dict(validate=False, **kw)


def selection(param: alt.Parameter) -> alt.Parameter:
    """The selection `param` (from `alt.selection_point` / `alt.selection_interval`) with a
    `_Selection` inside: the same spec, lifted into layer and facet charts without re-validation."""
    param.param = _Selection(**param.param.to_dict(validate=False))  # validated with the whole spec
    return param


def highlight(name: str = "pick", field: str = "algorithm", bind_legend: bool = False) -> alt.Parameter:
    """A click selection of one series (shift-click adds, double-click clears), optionally bound to the
    legend; the report's search box sets it through the Vega view API."""
    return selection(alt.selection_point(name=name, fields=[field], on="click",
                                         bind="legend" if bind_legend else alt.Undefined, clear="dblclick"))


def when(pick: alt.Parameter | str, on: float, off: float, channel: type = alt.OpacityValue) -> alt.SchemaBase:
    """A conditional value as a typed channel (what `alt.condition(pick, alt.value(on),
    alt.value(off))` means, without Altair parsing a dict on every `encode`): `on` where the
    selection `pick` holds (or the expression, given as a string, is true), `off` elsewhere."""
    cond = {"test": pick} if isinstance(pick, str) else {"param": pick.name}
    return channel(off, condition={**cond, "value": on})


def faded(pick: alt.Parameter, on: float = 1.0, off: float = DIMMED) -> alt.OpacityValue:
    """Opacity `on` (1) for the highlighted algorithms (all when none is), `off` (dimmed) for the others."""
    return when(pick, on, off)
