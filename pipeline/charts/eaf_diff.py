"""The difference of two algorithms' EAFs (`Analysis.eaf_diff`, the measure "eaf_diff"), as a diverging map
(López-Ibáñez, Paquete and Stützle 2010; moocore's `eafdiffplot`): EAF_left - EAF_right on each (budget, level)
as filled steps, red where left attains more often, blue where right does, white where they agree."""
from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import polars as pl

from . import theme
from .eaf import boxes, level_title, panel


def chart(data: pl.DataFrame, *, settings: Sequence[str] | str | None = None, title: str | None = None,
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
