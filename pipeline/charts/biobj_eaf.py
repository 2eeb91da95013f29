"""The EAF of bbob-biobj runs as the EAF literature draws it (López-Ibáñez, Paquete and Stützle 2010;
moocore's `eafplot` and `eafdiffplot`): `chart` draws the attainment surfaces (the measure "biobj_eaf",
kind "biobj-eaf") as steps in objective space, darker for higher levels; `diff_chart` the difference of two
algorithms' EAFs (the measure "biobj_eaf_diff", kind "biobj-eaf-diff") as a diverging map of rectangles, red
where left attains more often, blue where right does. A panel per (function, dimension, instances, budget)."""
from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import polars as pl

from . import theme


def _panel(data: pl.DataFrame, with_algorithm: bool) -> pl.Expr:
    """The panel's title: [algorithm: ]f function, dimension-D, instances, budget (final: the final archives)."""
    budget = pl.when(pl.col("budget").is_null()).then(pl.lit("final")).otherwise(
        pl.format("{} evaluations", pl.col("budget").cast(pl.Int64)))
    text = pl.format("f{}, {}-D, instances {}, {}", "function", "dimension", "instances", budget)
    return pl.format("{}: {}", "algorithm", text) if with_algorithm else text


def _title(data: pl.DataFrame, axis: str) -> str:
    """f1 or f2, normalised or raw as the table's space says."""
    spaces = data["space"].unique().to_list() if data.height else ["normalised"]
    return f"{axis} ({'normalised' if spaces == ['normalised'] else 'raw'})"


def _layout(chart: alt.Chart, title: str, settings, columns: int) -> alt.FacetChart:
    subtitle = [settings] if isinstance(settings, str) else list(settings or [])
    return chart.facet(facet=alt.Facet("panel:N", title=None, sort=None), columns=columns).properties(
        title=alt.TitleParams(title, subtitle=subtitle, anchor="start", font=theme.FONT))


def closed(data: pl.DataFrame) -> pl.DataFrame:
    """Each surface (sorted by panel, level, f1) with its two open ends drawn to the chart's edge: a point
    above its first (at the largest f2 drawn) and one right of its last (at the largest f1), in drawing order."""
    body = data.with_row_index("order").with_columns(pl.col("order").cast(pl.Int64) * 2 + 1)
    top, right = (body[c].max() * 1.05 + 1e-12 if body.height else 1.0 for c in ("f2", "f1"))
    first = body.unique(["panel", "level"], keep="first").with_columns(f2=pl.lit(top), order=pl.col("order") - 1)
    last = body.unique(["panel", "level"], keep="last").with_columns(f1=pl.lit(right), order=pl.col("order") + 1)
    return pl.concat([first, body, last]).sort("order")


def chart(data: pl.DataFrame, *, settings: Sequence[str] | str | None = None,
          title: str = "Attainment surfaces", columns: int = 3, width: int = 220, height: int = 180) -> alt.FacetChart:
    """The attainment surfaces per (algorithm, problem, budget) as steps, grey from the lowest level to black."""
    frame = closed(data.with_columns(panel=_panel(data, True)).sort("panel", "level", "f1"))
    lines = alt.Chart(theme.data(frame)).mark_line(interpolate="step-after", strokeWidth=1.5).encode(
        x=alt.X("f1:Q", title=_title(data, "f1"), scale=alt.Scale(zero=False)),
        y=alt.Y("f2:Q", title=_title(data, "f2"), scale=alt.Scale(zero=False)),
        color=alt.Color("percentile:Q", title="attained by % of runs",
                        scale=alt.Scale(domain=[0, 100], range=["#d9d9d9", "#000000"])),
        detail="level:N", order="order:Q",
        tooltip=["algorithm:N", alt.Tooltip("percentile:Q", format=".1f"), alt.Tooltip("f1:Q", format=".4g"),
                 alt.Tooltip("f2:Q", format=".4g"), "runs:Q"],
    ).properties(width=width, height=height)
    return _layout(lines, title, settings, columns)


def diff_chart(data: pl.DataFrame, *, settings: Sequence[str] | str | None = None, title: str | None = None,
               columns: int = 3, width: int = 220, height: int = 180) -> alt.FacetChart:
    """EAF_left - EAF_right per (problem, budget) as rectangles, diverging from -1 (blue) to 1 (red); the
    rectangles open to the right or above end at the chart's largest finite coordinate."""
    a, b = (data[c][0] if data.height else c for c in ("left", "right"))
    frame = data.with_columns(panel=_panel(data, False))
    finite = [v for c in ("f1_min", "f1_max", "f2_min", "f2_max") for v in frame[c].to_list() if v != float("inf")]
    edge = max(finite) * 1.05 if finite else 1.0
    frame = frame.with_columns(
        f1_max=pl.when(pl.col("f1_max").is_infinite()).then(pl.lit(edge)).otherwise("f1_max"),
        f2_max=pl.when(pl.col("f2_max").is_infinite()).then(pl.lit(edge)).otherwise("f2_max"))
    rects = alt.Chart(theme.data(frame)).mark_rect(stroke=None).encode(
        x=alt.X("f1_min:Q", title=_title(data, "f1"), scale=alt.Scale(zero=False)), x2="f1_max:Q",
        y=alt.Y("f2_min:Q", title=_title(data, "f2"), scale=alt.Scale(zero=False)), y2="f2_max:Q",
        color=alt.Color("difference:Q", title=f"EAF {a} - EAF {b}",
                        scale=alt.Scale(scheme="redblue", reverse=True, domain=[-1, 1], domainMid=0)),
        tooltip=[alt.Tooltip("eaf_left:Q", title=f"EAF {a}", format=".3f"),
                 alt.Tooltip("eaf_right:Q", title=f"EAF {b}", format=".3f"), alt.Tooltip("difference:Q", format=".3f")],
    ).properties(width=width, height=height)
    return _layout(rects, title or f"Attainment difference: {a} - {b}", settings, columns)
