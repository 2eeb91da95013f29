"""The empirical attainment function (`Analysis.eaf`, the measure "eaf"), as the EAF literature draws it
(López-Ibáñez, Paquete and Stützle 2010; moocore's `eafplot`): the fraction of runs attaining each
(budget, level) as filled steps, grey from none to every run, budget and level on log scales, a panel per
(algorithm, function, dimension) (`chart`, kind "eaf"); and the difference of two algorithms' EAFs
(`Analysis.eaf_diff`, the measure "eaf_diff"; moocore's `eafdiffplot`) as a diverging map: EAF_left -
EAF_right on each (budget, level) as filled steps, red where left attains more often, blue where right does,
white where they agree (`diff_chart`, kind "eaf-diff")."""
from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import polars as pl

from . import theme

#: the EAF's steps drawn (none, then up to each quarter, then every run: between the attainment surfaces)
STEPS = [0.0, 0.25, 0.5, 0.75, 1.0]


def boxes(data: pl.DataFrame, by: Sequence[str], x: str = "budget", y: str = "level") -> pl.DataFrame:
    """Each grid point as the box it holds its value on, for drawing: from its budget to the next (the last
    as wide as the one before) and from its level to the next larger (the largest as high as the one
    below), x2 and y2 the far corners; the grid is each panel's (`by`)."""
    def ends(frame: pl.DataFrame, col: str, keys: list[str]) -> pl.DataFrame:
        values = frame.select(*keys, col).unique().sort(*keys, col)
        nxt = pl.col(col).shift(-1).over(keys)
        ratio = (pl.col(col) / pl.col(col).shift(1)).over(keys)
        return values.with_columns(nxt.fill_null(pl.col(col) * ratio.fill_null(10.0)).alias(f"{col}2"))

    keys = list(by)
    return (data.join(ends(data, x, keys), on=[*keys, x], how="left", maintain_order="left")
            .join(ends(data, y, keys), on=[*keys, y], how="left", maintain_order="left"))


def panel(data: pl.DataFrame, with_algorithm: bool = True) -> pl.DataFrame:
    """The panel's title per row: algorithm, f function, dimension-D."""
    text = pl.format("f{}, {}-D", pl.col("function"), pl.col("dimension"))
    return data.with_columns(panel=pl.format("{}: {}", pl.col("algorithm"), text) if with_algorithm else text)


def level_title(data: pl.DataFrame) -> str:
    """'precision' or 'value', as the table's quantity says."""
    kinds = data["quantity"].unique().to_list() if "quantity" in data.columns else ["precision"]
    return "value" if kinds == ["value"] else "precision"


def chart(data: pl.DataFrame, *, settings: Sequence[str] | str | None = None,
          title: str = "Empirical attainment function", columns: int = 4, width: int = 200,
          height: int = 150) -> alt.FacetChart:
    """The EAF per (algorithm, function, dimension) as filled grey steps; the tooltip gives the point."""
    by = ["suite", "algorithm", "function", "dimension", "quantity"]
    frame = panel(boxes(data.filter(pl.col("level") > 0), [c for c in by if c in data.columns]))
    logged = level_title(data)
    rects = alt.Chart(theme.data(frame)).mark_rect(stroke=None).encode(
        x=alt.X("budget:Q", scale=alt.Scale(type="log"), title="evaluations"), x2="budget2:Q",
        y=alt.Y("level:Q", scale=alt.Scale(type="log"), title=logged), y2="level2:Q",
        color=alt.Color("eaf:Q", title="fraction of runs",
                        scale=alt.Scale(type="threshold", domain=[1e-9, *STEPS[1:]],
                                        range=["#ffffff", "#f0f0f0", "#d0d0d0", "#a0a0a0", "#707070", "#303030"])),
        tooltip=["algorithm:N", "budget:Q", alt.Tooltip("level:Q", format=".3g"), alt.Tooltip("eaf:Q", format=".3f"),
                 "runs:Q"],
    ).properties(width=width, height=height)
    subtitle = [settings] if isinstance(settings, str) else list(settings or [])
    return rects.facet(facet=alt.Facet("panel:N", title=None, sort=None), columns=columns).properties(
        title=alt.TitleParams(title, subtitle=subtitle, anchor="start", font=theme.FONT))


def diff_chart(data: pl.DataFrame, *, settings: Sequence[str] | str | None = None, title: str | None = None,
          columns: int = 4, width: int = 200, height: int = 150) -> alt.FacetChart:
    """EAF_left - EAF_right per (function, dimension), diverging from -1 (blue) to 1 (red)."""
    by = [c for c in ("suite", "function", "dimension", "quantity") if c in data.columns]
    frame = panel(boxes(data.filter(pl.col("level") > 0), by), with_algorithm=False)
    a, b = (data[c][0] if data.height else c for c in ("left", "right"))
    rects = alt.Chart(theme.data(frame)).mark_rect(stroke=None).encode(
        x=alt.X("budget:Q", scale=alt.Scale(type="log"), title="evaluations"), x2="budget2:Q",
        y=alt.Y("level:Q", scale=alt.Scale(type="log"), title=level_title(data)), y2="level2:Q",
        color=alt.Color("difference:Q", title=f"EAF {a} - EAF {b}",
                        scale=alt.Scale(scheme="redblue", reverse=True, domain=[-1, 1], domainMid=0)),
        tooltip=["budget:Q", alt.Tooltip("level:Q", format=".3g"), alt.Tooltip("eaf_left:Q", title=f"EAF {a}", format=".3f"),
                 alt.Tooltip("eaf_right:Q", title=f"EAF {b}", format=".3f"), alt.Tooltip("difference:Q", format=".3f")],
    ).properties(width=width, height=height)
    subtitle = [settings] if isinstance(settings, str) else list(settings or [])
    return rects.facet(facet=alt.Facet("panel:N", title=None, sort=None), columns=columns).properties(
        title=alt.TitleParams(title or f"EAF difference: {a} - {b}", subtitle=subtitle, anchor="start",
                              font=theme.FONT))
