"""Small multiples whose panels each have their own y range (cocopp draws a figure per function for
ppfigdim and ppfigs): a grid of layered panels, not a facet, so that every range is given
explicitly (a facet computes each cell's range from its data, and warns where a layer of a cell
has none), padded so that the marks at its ends stay inside, with axis titles on the outer
panels only.
"""
from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence

import altair as alt
import polars as pl

from . import theme

#: pixels between a panel's edges and its outermost marks (a point and a label above it)
PADDING = 16


def y_range(values: Sequence[float]) -> tuple[float, float]:
    """Whole powers of ten around the positive finite values drawn in a panel ((1, 10) without any)."""
    vals = [v for v in values if v is not None and v > 0 and v != float("inf")]
    return theme.pow10_domain(min(vals), max(vals)) if vals else (1.0, 10.0)


def log_y(domain: tuple[float, float], title: str | None, padding: int = PADDING) -> tuple[alt.Scale, alt.Axis]:
    """The scale and axis of a panel's log y: its explicit range padded, labels at up to five powers of ten."""
    return (theme.log_scale(domain, nice=False, padding=padding),
            theme.log_axis(title, values=theme.pow10_ticks(*domain, most=5)))


def edges(i: int, n: int, columns: int) -> tuple[bool, bool]:
    """(bottom, left): whether panel i of n, `columns` a row, has no panel below it / is first in its row."""
    return i + columns >= n, i % columns == 0


def grid(field: str, panels: Sequence[tuple[object, str]], panel: Callable[[object, bool, bool], alt.LayerChart], *,
         columns: int, data: pl.DataFrame, width: int, height: int, digits: int = 5) -> alt.ConcatChart:
    """One chart of panels, `columns` a row: `panels` are (value of `field`, label) pairs, and
    `panel(value, bottom, left)` makes the layer chart of the rows of `data` where `field` has that
    value (its encodings shared by its layers), each panel with a table of its rows (`theme.data`,
    `digits`): the browser filters no panel's rows out of the whole table, once per layer (24 panels
    of 5 layers made 120 passes over it); the panels share the colour and shape scales (one legend)
    and one highlight selection."""
    charts = []
    rows = data.partition_by(field, as_dict=True, maintain_order=True)  # one pass, not a filter per panel
    for i, (value, label) in enumerate(panels):
        bottom, left = edges(i, len(panels), columns)
        charts.append(theme.with_properties(
            panel(value, bottom, left), width=width, height=height,
            data=theme.data(rows.get((value,), data.clear()), digits),
            title=alt.TitleParams(label, fontSize=11, anchor="middle", offset=2)))
    with warnings.catch_warnings():  # the panels' identical selections merge into one, as intended
        warnings.filterwarnings("ignore", message="Automatically deduplicated selection parameter")
        return alt.ConcatChart(concat=charts, columns=columns, spacing=12,
                               resolve=theme.independent(color="shared", shape="shared"))
