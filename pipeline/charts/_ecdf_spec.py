"""A fast path of `ecdf.ecdf_chart` for the report's ECDFs: the very spec Altair writes for the chart (as the
report's workers take it: names canonical, `report.runner.chart_spec`), assembled as dicts, the parts every
chart of a page shares (axes, scales, tooltips, selections) made by Altair once and reused. Altair spent about
6 ms on each of the 180 ECDFs of a four-algorithm report building the chart and writing it (a copy at every
method, a runtime Protocol check at every leaf of `to_dict`): a third of the workers' time (benchmarks/RESULTS.md).

`ecdf_chart` stays the definition: `spec` takes only the configurations the report draws (a `prepare`d chart
without background algorithms, bands, per-instance lines or legend, not configured), else returns None for the
caller to go through Altair; tests/test_charts_ecdf_fast.py holds the two equal, to the byte of the JSON.
"""
from __future__ import annotations

import functools
import inspect

import altair as alt
import polars as pl

from . import theme
from .ecdf import ecdf_chart

#: the marks of the layers, as `ecdf_chart` sets them (`_line_layers`, `_end_layers`)
_REF_LINE = {"type": "line", "interpolate": "step-after", "strokeCap": "butt", "strokeWidth": theme.REFERENCE_WIDTH}
_LINE = {"type": "line", "interpolate": "step-after"}
_DOTS = {"type": "point", "clip": False, "filled": True, "size": 70, "stroke": "white", "strokeWidth": 0.6}
_CROSSES = {"type": "point", "angle": 45, "filled": True, "shape": "cross", "size": 110, "stroke": "white",
            "strokeWidth": 0.5}
_RULE = {"type": "rule", "clip": False, "strokeWidth": 0.8, "x2Offset": 14}
_TEXT = {"type": "text", "align": "left", "baseline": "middle", "clip": False, "dx": 16, "fontSize": 11}
_END_COUNTS = ("instance_targets", "functions", "trials")


def _fresh(value):
    """A copy of nested dicts and lists (a spec's parts are never shared between its places, nor with a cache)."""
    if isinstance(value, dict):
        return {k: _fresh(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_fresh(v) for v in value]
    return value


@functools.lru_cache(maxsize=64)
def _shared(domain: tuple[float, float], y_title: str | tuple[str, ...], palette: tuple, where: tuple[str, ...],
            counts: tuple[str, ...]) -> dict:
    """The parts of the charts of a page, as Altair writes them (`ecdf._look`, `_end_layers`)."""
    pal = {a: tuple(v) for a, v in palette}
    scale = theme.log_scale(domain)
    tip_line = [theme.tip("algorithm:N"), *[theme.tip(f"{k}:N") for k in where],
                theme.tip("x:Q", title="evaluations / dimension", format=".3~g"), theme.tip("fraction:Q", format=".3f")]
    end_tip = [theme.tip("algorithm:N"), theme.tip("final_fraction:Q", title="final fraction", format=".3f"),
               theme.tip("max_x:Q", title="budget / dimension", format=".3~g"),
               theme.tip("median_max_evaluations:Q", title="median max evaluations / dimension", format=".3~g"),
               *[theme.tip(f"{c}:Q") for c in counts]]
    cross_tip = [theme.tip("algorithm:N"),
                 theme.tip("median_max_evaluations:Q", title="median max evaluations / dimension", format=".3~g")]
    y_axis_title = list(y_title) if isinstance(y_title, tuple) else y_title
    parts = {
        "x": alt.X(**theme.typed("x:Q"), scale=scale, axis=theme.log_axis("evaluations / dimension", domain)),
        "y": alt.Y(**theme.typed("fraction:Q"), scale=alt.Scale(domain=[0, 1], nice=False),
                   axis=alt.Axis(title=y_axis_title, tickCount=5)),
        "color": theme.colour(pal, legend=False), "shape": theme.shape(pal, legend=False),
        "detail": alt.Detail(**theme.typed("algorithm:N")), "opacity": theme.faded(theme.highlight()),
        "dot_x": alt.X(**theme.typed("dot_x:Q"), scale=scale), "cross_x": alt.X(**theme.typed("cross_x:Q"), scale=scale),
        "final_fraction": alt.Y(**theme.typed("final_fraction:Q")), "cross_fraction": alt.Y(**theme.typed("cross_fraction:Q")),
        "label_y": alt.Y(**theme.typed("label_y:Q")), "x2": alt.X2(field="dot_x"), "y2": alt.Y2(field="label_y"),
        "text": alt.Text(**theme.typed("algorithm:N")),
    }
    out = {k: v.to_dict(validate=False) for k, v in parts.items()}
    out.update(tip_line=[t.to_dict(validate=False) for t in tip_line], end_tip=[t.to_dict(validate=False) for t in end_tip],
               cross_tip=[t.to_dict(validate=False) for t in cross_tip],
               pick=theme.highlight().param.to_dict(validate=False),
               resolve=theme.independent(shape="independent").to_dict(validate=False))
    return out


@functools.cache
def _zoom() -> dict:
    """The x zoom of a chart alone (`ecdf._line_layers`), named as `runner.canonical_names` names it."""
    return theme.selection(alt.selection_interval(bind="scales", encodings=["x"], name="zoom1")).param.to_dict(
        validate=False)


#: `ecdf_chart`'s parameters and their defaults (`spec` takes the same)
_PARAMETERS = inspect.signature(ecdf_chart)


def spec(steps: pl.DataFrame, summary: pl.DataFrame, **options) -> dict | None:
    """The spec of `ecdf_chart(steps, summary, **options)` without its configuration (`config`), names canonical
    and the tables last (`datasets`), as `runner.chart_spec` gives it; None for what it does not take (see the
    module), which the caller makes with Altair."""
    o = _PARAMETERS.bind(steps, summary, **options)
    o.apply_defaults()
    o = o.arguments
    reference, background, prepared = o["reference"], o["background"], o["prepared"]
    if o["band"] is not None or o["instances"] is not None or o["legend"] or o["configured"]:
        return None
    refs = [reference] if isinstance(reference, str) else list(reference or [])
    back = [a for a in dict.fromkeys(background or []) if a not in set(refs)]
    if back or prepared is None:
        return None
    keys = set(zip(summary["dimension"].to_list(), summary["group"].to_list()))
    if len(keys) != 1:
        return None
    (dimension, group), = keys
    where = {"dimension": str(dimension), "group": repr(str(group))}
    lines, ends, domain = prepared
    algs = ends["algorithm"].to_list()
    pal = theme.extend(o["palette"], algs, refs)
    pal = {a: pal[a] for a in algs}  # the legend in order of final fraction
    y_key = tuple(o["y_title"]) if isinstance(o["y_title"], list) else o["y_title"]
    p = _shared(tuple(domain), y_key, tuple((a, tuple(v)) for a, v in pal.items()), tuple(where),
                tuple(c for c in _END_COUNTS if c in ends.columns))
    datasets: dict = {}

    def data(df: pl.DataFrame) -> dict:  # of a table rounded already (its rows' rounding does not depend on the others)
        d = theme.data(df, digits=None)
        datasets.setdefault(d.name, d.values)
        return {"name": d.name, **({"format": d.format.to_dict(validate=False)} if d.format is not alt.Undefined else {})}

    calculate = [{"calculate": v, "as": k} for k, v in where.items()]

    def line(df: pl.DataFrame, mark: dict) -> dict:
        return {"data": data(df), "mark": dict(mark),
                "encoding": {"color": _fresh(p["color"]), "detail": _fresh(p["detail"]), "opacity": _fresh(p["opacity"]),
                             "tooltip": _fresh(p["tip_line"]), "x": _fresh(p["x"]), "y": _fresh(p["y"])},
                "transform": _fresh(calculate)}

    lines, ends = theme._rounded(lines, theme.DIGITS), theme._rounded(ends, theme.DIGITS)  # as `theme.data` rounds
    is_ref = lines["algorithm"].is_in(refs)
    layers = []
    if is_ref.any():
        layers.append(line(lines.filter(is_ref), _REF_LINE))
    layers.append(line(lines.filter(~is_ref), _LINE))
    main = len(layers) - 1
    ends_data = data(ends)
    base = {"color": p["color"], "opacity": p["opacity"]}
    layers.append({"data": ends_data, "mark": dict(_DOTS), "encoding": _fresh({
        **base, "shape": p["shape"], "tooltip": p["end_tip"], "x": p["dot_x"], "y": p["final_fraction"]})})
    layers.append({"data": data(ends.filter(~pl.col("algorithm").is_in(refs))), "mark": dict(_CROSSES),
                   "encoding": _fresh({**base, "tooltip": p["cross_tip"], "x": p["cross_x"], "y": p["cross_fraction"]}),
                   "transform": [{"filter": "isValid(datum.cross_x)"}]})
    if o["labels"]:
        layers.append({"data": dict(ends_data), "mark": dict(_RULE), "encoding": _fresh({
            **base, "x": p["dot_x"], "x2": p["x2"], "y": p["final_fraction"], "y2": p["y2"]})})
        layers.append({"data": dict(ends_data), "mark": dict(_TEXT), "encoding": _fresh({
            **base, "text": p["text"], "tooltip": p["end_tip"], "x": p["dot_x"], "y": p["label_y"]})})
    params = []
    hosts = ([main] if o["zoom"] else []) + [len(layers) - 1]  # the zoom on the lines, the highlight on the last layer
    for i, (host, param) in enumerate(zip(hosts, [_zoom()] * o["zoom"] + [p["pick"]]), 1):
        layer = layers[host]
        layers[host] = {**{k: layer[k] for k in ("data", "mark", "encoding")}, "name": f"view_{i}",
                        **{k: v for k, v in layer.items() if k not in ("data", "mark", "encoding")}}
        params.append({**_fresh(param), "views": [f"view_{i}"]})
    return {"layer": layers, "height": o["height"], "params": params, "resolve": _fresh(p["resolve"]),
            "title": theme.title(o["title"], o["settings"]).to_dict(validate=False), "width": o["width"],
            "$schema": alt.SCHEMA_URL,
            "datasets": datasets}

