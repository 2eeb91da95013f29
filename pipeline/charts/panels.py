"""Small multiples whose panels each have their own y range (cocopp draws a figure per function for
ppfigdim and ppfigs): one facet of layered panels, a panel per value of a field, `columns` a row. Each
panel's y range is whole decades around what it draws, given by two invisible points of its own
(`RANGE`: a facet's independent scales take their domains from each cell's rows), padded so that the
marks at its ends stay inside; axis titles are written on the outer panels only. A facet rather than
a concatenation of panels: one view specification for all, which Altair builds and a browser draws
about twice as fast (a concatenation of 24 panels of 4 layers is 96 views to compile and lay out).
"""
from __future__ import annotations

import json
from collections.abc import Callable, Sequence

import altair as alt
import polars as pl

from . import theme

#: pixels between a panel's edges and its outermost marks (a point and a label above it)
PADDING = 16
#: the column of a panel's range rows: the lower and upper ends of its y range
RANGE = "panel_range"
#: font size of the axis titles of the outer panels
TITLE_SIZE = 12
#: vega-embed's log level that reports errors only (vega.Error)
LOG_ERRORS = 1


def y_range(values: Sequence[float]) -> tuple[float, float]:
    """Whole powers of ten around the positive finite values drawn in a panel ((1, 10) without any)."""
    vals = [v for v in values if v is not None and v > 0 and v != float("inf")]
    return theme.pow10_domain(min(vals), max(vals)) if vals else (1.0, 10.0)


def log_y(padding: int = PADDING) -> alt.Scale:
    """The scale of the panels' log y: no domain (each panel's comes from its range rows, exactly decades:
    not made nice), padded."""
    return theme.log_scale(nice=False, padding=padding)


def y_axis(title: str, y_outer: dict) -> alt.Axis:
    """The panels' log y axis: labelled and grid-lined at powers of ten, three to five of them (every other
    decade or more in a panel of many), `title` on the outer panels (`outer`)."""
    return theme.log_axis(title, tickCount=3, **y_outer)


def outer(labels: Sequence[str], label: str, size: float = TITLE_SIZE) -> dict:
    """Axis properties that write its title on the panels whose `label` is one of `labels` (the outer
    ones) and nowhere else (size 0, no padding): a facet's panels share one axis specification. (The x
    axis of the panels needs none: a facet draws it below the last row only.)"""
    test = f"indexof({json.dumps(list(labels))}, parent[{json.dumps(label)}]) >= 0"
    return dict(titleFontSize=alt.ExprRef(expr=f"{test} ? {size} : 0"),
                titlePadding=alt.ExprRef(expr=f"{test} ? 4 : 0"))


def grid(field: str, label: str, panels: Sequence[tuple[object, str]],
         panel: Callable[[dict], alt.LayerChart], *, columns: int, data: pl.DataFrame,
         ranges: dict[object, tuple[float, float]], x: tuple[str, float], width: int, height: int,
         digits: int = 5) -> alt.FacetChart:
    """One chart of panels, `columns` a row: `panels` are (value of `field`, its `label` in `data`)
    pairs in order; `panel(y_outer)` makes the layer chart every panel draws (its y scale `log_y`, its y
    axis `y_axis(title, y_outer)`: the title on the first panel of each row);
    `ranges` give each panel's y range, drawn as two invisible points at x = `x[1]` of field `x[0]`. The
    panels share the colour and shape scales (one legend) and one highlight selection."""
    labels = [lab for _, lab in panels]
    left = labels[::columns]  # the first panel of each row
    ends = pl.DataFrame({field: [v for v, _ in panels for _ in (0, 1)], label: [lab for lab in labels for _ in (0, 1)],
                         x[0]: [x[1]] * (2 * len(panels)), RANGE: [float(e) for v, _ in panels for e in ranges[v]]},
                        schema_overrides={field: data.schema[field], x[0]: data.schema[x[0]]})
    rows = pl.concat([data, ends], how="diagonal_relaxed")
    layers = panel(outer(left, label))
    marks = theme.Chart().transform_filter(f"isValid(datum.{RANGE})").mark_point(size=1, filled=True).encode(
        x=alt.X(f"{x[0]}:Q"), y=alt.Y(f"{RANGE}:Q"), opacity=alt.OpacityValue(0), tooltip=alt.TooltipValue(None))
    inner = theme.with_properties(layers, layer=[*layers.layer, marks], width=width, height=height)
    facet = alt.Facet(field=label, type="nominal", sort=labels, title=None, header=alt.Header(labelPadding=2))
    # a layer without rows in a panel (no crosses where every trial succeeded) makes Vega warn of an infinite
    # extent of its field: harmless here, the panel's range rows give its range; vega-embed logs errors only
    return alt.FacetChart(data=theme.data(rows, digits), spec=inner, facet=facet, columns=columns, spacing=12,
                          resolve=alt.Resolve(scale=alt.ScaleResolveMap(y="independent", color="shared",
                                                                        shape="shared")),
                          usermeta={"embedOptions": {"logLevel": LOG_ERRORS}})
