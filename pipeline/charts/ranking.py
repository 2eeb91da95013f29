"""Rankings of many algorithms: mean ranks of per-function auc with the Nemenyi critical
difference (a critical-difference view after Demšar 2006, sec. 3.2.2, drawn as intervals: two
algorithms differ significantly when their intervals of half the critical difference around the
mean ranks do not overlap), one dimension at a time chosen by a drop-down.
"""
from __future__ import annotations

import altair as alt
import polars as pl

from . import theme


def rank_table(ranking: pl.DataFrame) -> pl.DataFrame:
    """Rows of the chart from `pipeline.measures.ranking.rank_by_auc` (per dimension or over all):
    the interval `low`..`high` of half the critical difference around each mean rank `score`."""
    if "dimension" not in ranking.columns:
        ranking = ranking.with_columns(dimension=pl.lit(0))
    half = pl.col("critical_difference").fill_null(0.0) / 2
    return ranking.with_columns(low=pl.col("score") - half, high=pl.col("score") + half,
                                dimensions=dimension_text(pl.col("dimension"))).sort("dimension", "rank")


def dimension_text(dimension: pl.Expr) -> pl.Expr:
    """A ranking's dimension for people: "5-D", or "all" for the ranking over all dimensions (dimension 0)."""
    return pl.when(dimension == 0).then(pl.lit("all")).otherwise(dimension.cast(pl.String) + "-D")


def critical_difference_chart(ranking: pl.DataFrame, *, palette: theme.Palette | None = None,
                              title: str = "Mean ranks with the critical difference",
                              settings=None, width: int = 420, row: int = 14, configured: bool = True) -> alt.LayerChart:
    """Mean rank (1 = best) per algorithm with the interval of half the Nemenyi critical difference,
    algorithms from the best down; a drop-down chooses the dimension; a click on a point (or the
    report's search box) highlights algorithms, tooltips give rank, score, problems, Friedman p."""
    t = rank_table(ranking)
    dims = sorted(t["dimension"].unique().to_list())
    n = int(t.group_by("dimension").len()["len"].max())
    pal = theme.extend(palette, t.sort("score")["algorithm"].unique(maintain_order=True).to_list())
    pal = {a: pal[a] for a in pal if a in set(t["algorithm"])}
    dim_p = alt.param(name="rank_dimension", value=dims[0],
                      bind=alt.binding_select(options=dims, labels=[f"{d}-D" if d else "all" for d in dims],
                                              name="dimension "))
    pick = theme.highlight()
    faded = theme.faded(pick)
    y = alt.Y("algorithm:N", sort=alt.EncodingSortField("score", order="ascending"), title=None,
              axis=alt.Axis(labelLimit=200))
    x = alt.X("score:Q", title="mean rank of auc per problem (1 = best)", scale=alt.Scale(zero=False))
    tip = [theme.tip("algorithm:N"), theme.tip("dimensions:N", title="dimension"), theme.tip("rank:Q"),
           theme.tip("score:Q", title="mean rank", format=".3f"), theme.tip("problems:Q"),
           theme.tip("critical_difference:Q", title="critical difference", format=".3f"),
           theme.tip("friedman_p:Q", title="Friedman p", format=".2e")]
    base = theme.Chart(theme.data(t)).transform_filter("datum.dimension == rank_dimension")
    col = theme.colour(pal, legend=False)
    bars = base.mark_rule(strokeWidth=2).encode(y=y, x=alt.X("low:Q"), x2=alt.X2("high:Q"), color=col, opacity=faded,
                                                tooltip=tip)
    dots = base.mark_point(size=50, filled=True).encode(y=y, x=x, color=col, shape=theme.shape(pal, legend=False),
                                                        opacity=faded, tooltip=tip).add_params(pick)
    chart = theme.layer(bars, dots, width=width, height=max(120, row * n)).add_params(dim_p)
    return theme.finish(chart, title, settings, configured)
