"""Two algorithms compared, as cocopp's comp2 figures: aRT scatter per function (ppscatter),
ECDF of runtime ratios over trial pairs (pprldistr2) and aRT ratio versus target (ppfig2).
Algorithm `a` is the baseline (x axis, denominator), `b` the one compared with it.
"""
from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import polars as pl

from . import theme
from ..vocabulary import FUNCTION_TARGET
from .ecdf import dodge

#: pixels between a panel's edges and the marks at its domain's ends
EDGE_PADDING = 6


def _check_pair(df: pl.DataFrame, a: str, b: str) -> None:
    have = set(df["algorithm"].unique())
    missing = [x for x in (a, b) if x not in have]
    if missing:
        raise ValueError(f"algorithm {missing[0]!r} not in the data (have: {', '.join(sorted(have))})")


def paired_art(art: pl.DataFrame, a: str, b: str) -> pl.DataFrame:
    """aRT of `a` and `b` side by side per (suite, function, dimension, target), with
    `ratio` = aRT_b / aRT_a where both are finite and the success rates."""
    _check_pair(art, a, b)
    cols = ["art", "success_rate", "successes", "runs"]
    left = art.filter(pl.col("algorithm") == a).select(*FUNCTION_TARGET, *[pl.col(c).alias(f"{c}_a") for c in cols])
    right = art.filter(pl.col("algorithm") == b).select(*FUNCTION_TARGET, *[pl.col(c).alias(f"{c}_b") for c in cols])
    both = left.join(right, on=FUNCTION_TARGET, how="inner")
    finite = pl.col("art_a").is_finite() & pl.col("art_b").is_finite()
    return both.with_columns(ratio=pl.when(finite).then(pl.col("art_b") / pl.col("art_a"))).sort(FUNCTION_TARGET)


# -- scatter ------------------------------------------------------------------------------------
def scatter_table(art: pl.DataFrame, a: str, b: str) -> tuple[pl.DataFrame, tuple[float, float]]:
    """Points (x = aRT_a / dimension, y = aRT_b / dimension) and the common log domain; an
    infinite aRT (no success) is drawn at the domain's upper edge, flagged in `solved`."""
    p = paired_art(art, a, b)
    dim = pl.col("dimension").cast(pl.Float64)
    p = p.with_columns(xa=pl.col("art_a") / dim, yb=pl.col("art_b") / dim).filter(
        pl.col("xa").is_finite() | pl.col("yb").is_finite())
    finite = pl.concat([p["xa"], p["yb"]]).filter(pl.concat([p["xa"], p["yb"]]).is_finite())
    lo, hi = theme.pow10_domain(float(finite.min()) if len(finite) else 1.0, float(finite.max()) * 10 if len(finite) else 10.0)
    edge = hi
    solved = (pl.when(pl.col("xa").is_finite() & pl.col("yb").is_finite()).then(pl.lit("both"))
              .when(pl.col("xa").is_finite()).then(pl.lit(f"{a} only")).otherwise(pl.lit(f"{b} only")))
    p = p.with_columns(solved=solved, x=pl.when(pl.col("xa").is_finite()).then("xa").otherwise(edge),
                       y=pl.when(pl.col("yb").is_finite()).then("yb").otherwise(edge),
                       function_label=pl.format("f{}", pl.col("function")))
    return p, (lo, hi)


def scatter_chart(art: pl.DataFrame, a: str, b: str, *, title: str | None = None,
                  settings: Sequence[str] | str | None = None, columns: int = 6, size: int = 150,
                  configured: bool = True) -> alt.FacetChart:
    """aRT / dimension of `b` (y) against `a` (x) per function, one point per (dimension, target),
    coloured by dimension; points on the upper or right edge: no success by that algorithm."""
    t, (lo, hi) = scatter_table(art, a, b)
    dims = sorted(t["dimension"].unique().to_list())
    dom = (lo, hi)
    ticks = theme.pow10_ticks(*dom, most=5)
    # the points of no success are on the upper and right edges: padded inside the panel
    x = alt.X("x:Q", scale=theme.log_scale(dom, nice=False, padding=EDGE_PADDING),
              axis=theme.log_axis(f"{a}: aRT / dimension", values=ticks))
    y = alt.Y("y:Q", scale=theme.log_scale(dom, nice=False, padding=EDGE_PADDING),
              axis=theme.log_axis(f"{b}: aRT / dimension", values=ticks))
    col = theme.ordinal_colour("dimension", dims, title="dimension")
    shp = alt.Shape("solved:N", scale=alt.Scale(domain=["both", f"{a} only", f"{b} only"],
                                                range=["circle", "triangle-left", "triangle-down"]),
                    legend=alt.Legend(title="solved by"))
    pick = theme.highlight(field="dimension", bind_legend=True)
    tip = [theme.tip("function_label:N", title="function"), theme.tip("dimension:Q"),
           theme.tip("target:Q", format=".1e"), theme.tip("art_a:Q", title=f"aRT {a}", format=".4~g"),
           theme.tip("art_b:Q", title=f"aRT {b}", format=".4~g"), theme.tip("ratio:Q", format=".3~g")]
    diag = theme.Chart().mark_rule(color="#888", strokeDash=[4, 3]).encode(
        x=alt.XDatum(lo), y=alt.YDatum(lo), x2=alt.X2Datum(hi), y2=alt.Y2Datum(hi))
    pts = theme.Chart().mark_point(size=22, filled=True, opacity=0.75).encode(
        x=x, y=y, color=col, shape=shp, tooltip=tip,
        opacity=theme.faded(pick, 0.8, 0.08)).add_params(pick)
    funcs = t.select("function", "function_label").unique().sort("function")["function_label"].to_list()
    cols = ["function_label", "dimension", "target", "x", "y", "solved", "art_a", "art_b", "ratio"]
    chart = theme.layer(diag, pts, width=size, height=size).facet(
        facet=theme.panel_facet("function_label", funcs), columns=columns, data=theme.data(t.select(cols), 4))
    return theme.finish(chart, title or f"aRT of {b} versus {a}", settings, configured)


# -- ratio ECDF ---------------------------------------------------------------------------------
def ratio_ecdf_chart(steps: pl.DataFrame, a: str, b: str, *, clip: float = 4.0, title: str | None = None,
                     settings: Sequence[str] | str | None = None, columns: int = 3, width: int = 220,
                     height: int = 170, configured: bool = True) -> alt.FacetChart:
    """ECDF of log10 runtime ratios b / a, a line per target, a panel per (dimension, group);
    left of 0: b faster. Beside each line's end: functions solved in at least one trial (a:b)."""
    t = steps.with_columns(
        target_label=pl.col("target").map_elements(theme.fmt_number, return_dtype=pl.String),
        solved=pl.format("{}:{}", pl.col("functions_a").fill_null(0), pl.col("functions_b").fill_null(0)),
        panel=pl.format("{}-D {}", pl.col("dimension"), pl.col("group")),
    )
    # a flat start at -clip and an end at +clip for each line
    gk = ["panel", "dimension", "group", "target", "target_label", "solved"]
    first = t.group_by(gk).agg(pl.col("fraction").filter(pl.col("x") <= -clip).max().fill_null(0.0).alias("fraction"))
    last = t.filter(pl.col("x") <= clip).group_by(gk).agg(pl.col("fraction").max()).sort(gk)
    last = pl.concat([g.with_columns(label_y=pl.Series(dodge(g["fraction"].to_list(), 10 / height)))
                      for g in last.partition_by("panel", maintain_order=True)]) if last.height else last
    t = pl.concat([first.with_columns(x=pl.lit(-clip)),
                   t.filter((pl.col("x") > -clip) & (pl.col("x") < clip)).select(*gk, "x", "fraction"),
                   last.with_columns(x=pl.lit(clip))], how="diagonal_relaxed").sort(*gk, "x")
    labels = t.sort("target", descending=True)["target_label"].unique(maintain_order=True).to_list()
    col = theme.ordinal_colour("target_label", labels, title="target")
    pick = theme.highlight(field="target_label", bind_legend=True)
    # right of +clip: room for the counts of functions solved, inside the panel
    x = alt.X("x:Q", scale=alt.Scale(domain=[-clip, clip * 1.45], nice=False),
              axis=alt.Axis(title=f"log10(runtime {b} / runtime {a})", values=list(range(-int(clip), int(clip) + 1)),
                            labelFlush=False))
    y = alt.Y("fraction:Q", scale=alt.Scale(domain=[0, 1]), axis=alt.Axis(title="fraction of trial pairs", tickCount=5))
    zero = theme.Chart().mark_rule(color="#666").encode(x=alt.XDatum(0))
    lines = theme.Chart().mark_line(interpolate="step-after").encode(
        x=x, y=y, color=col, detail=alt.Detail("target_label:N"), opacity=theme.faded(pick, 1, 0.15),
        tooltip=[theme.tip("target_label:N", title="target"), theme.tip("solved:N", title=f"functions solved {a}:{b}"),
                 theme.tip("x:Q", format=".2f"),
                 theme.tip("fraction:Q", format=".3f")]).add_params(pick)
    counts = theme.Chart().transform_filter(f"datum.x == {clip}").mark_text(
        align="left", dx=4, fontSize=9).encode(x=x, y=alt.Y("label_y:Q"), color=col, text=alt.Text("solved:N"),
                                               tooltip=[theme.tip("solved:N", title=f"functions solved {a}:{b}")])
    panels = t.sort("dimension", "group")["panel"].unique(maintain_order=True).to_list()
    chart = theme.layer(zero, lines, counts, width=width, height=height).facet(
        facet=theme.panel_facet("panel", panels), columns=columns,
        data=theme.data(t.select("panel", "target_label", "solved", "x", "fraction", "label_y"), 4))
    return theme.finish(chart, title or f"ECDF of runtime ratios {b} / {a}", settings, configured)


# -- aRT ratio versus target --------------------------------------------------------------------
def art_ratio_chart(art: pl.DataFrame, a: str, b: str, *, title: str | None = None,
                    settings: Sequence[str] | str | None = None, columns: int = 6, width: int = 150,
                    height: int = 120, configured: bool = True) -> alt.FacetChart:
    """aRT_b / aRT_a versus target (easy to hard, left to right), a line per dimension, a panel
    per function; below 1: b faster. Targets where either has no success are left out."""
    t = paired_art(art, a, b).filter(pl.col("ratio").is_not_null()).with_columns(
        function_label=pl.format("f{}", pl.col("function")))
    dims = sorted(t["dimension"].unique().to_list())
    col = theme.ordinal_colour("dimension", dims, title="dimension")
    pick = theme.highlight(field="dimension", bind_legend=True)
    ts = t["target"]
    dom = theme.pow10_domain(float(ts.filter(ts > 0).min()), float(ts.max())) if (ts > 0).any() else (1e-8, 1e2)
    x = alt.X("target:Q", scale=alt.Scale(type="log", domain=[dom[1], dom[0]], nice=False, padding=EDGE_PADDING),
              axis=theme.log_axis("target precision", dom))
    rs = t["ratio"].filter(t["ratio"] > 0)
    y_dom = theme.pow10_domain(min(float(rs.min()), 1.0), max(float(rs.max()), 1.0)) if len(rs) else (0.1, 10.0)
    y = alt.Y("ratio:Q", scale=theme.log_scale(y_dom, nice=False, padding=EDGE_PADDING),
              axis=theme.log_axis(f"aRT {b} / aRT {a}", values=theme.pow10_ticks(*y_dom, most=6)))
    one = theme.Chart().mark_rule(color="#666").encode(y=alt.YDatum(1))
    lines = theme.Chart().mark_line(point=alt.OverlayMarkDef(size=14, filled=True)).encode(
        x=x, y=y, color=col, opacity=theme.faded(pick, 1, 0.15),
        tooltip=[theme.tip("function_label:N", title="function"), theme.tip("dimension:Q"),
                 theme.tip("target:Q", format=".1e"), theme.tip("ratio:Q", format=".3~g"),
                 theme.tip("art_a:Q", title=f"aRT {a}", format=".4~g"),
                 theme.tip("art_b:Q", title=f"aRT {b}", format=".4~g")]).add_params(pick)
    funcs = t.select("function", "function_label").unique().sort("function")["function_label"].to_list()
    cols = ["function_label", "dimension", "target", "ratio", "art_a", "art_b"]
    chart = theme.layer(one, lines, width=width, height=height).facet(
        facet=theme.panel_facet("function_label", funcs), columns=columns, data=theme.data(t.select(cols), 4))
    return theme.finish(chart, title or f"aRT ratio {b} / {a} versus target", settings, configured)


def evidence_table(tests: pl.DataFrame, clip: float = 10.0) -> pl.DataFrame:
    """Rank-sum tests (`pipeline.tables.pairwise_table`) as signed evidence: -log10 of the corrected
    p-value, positive where algorithm_a has the better ranks, negative where algorithm_b has, 0 on a tie;
    clipped to +-`clip`."""
    ev = (-pl.col("p_corrected").clip(lower_bound=10.0 ** -clip).log10()).clip(0.0, clip)
    sign = (pl.when(pl.col("better") == pl.col("algorithm_a")).then(1.0)
            .when(pl.col("better") == pl.col("algorithm_b")).then(-1.0).otherwise(0.0))
    return tests.select(
        "suite", "dimension", "function", "target", "algorithm_a", "algorithm_b", "p_corrected", "better", "significant",
        pair=pl.col("algorithm_a") + " vs " + pl.col("algorithm_b"), evidence=ev * sign,
    )


def pairwise_heatmap(tests: pl.DataFrame, *, title: str | None = None, settings: Sequence[str] | str | None = None,
                     clip: float = 6.0) -> alt.Chart:
    """Heat map of the pairwise rank-sum tests of one dimension: per pair of algorithms a panel,
    functions across, targets down, the colour -log10(corrected p) signed by the winner (blue: the
    first algorithm of the pair better, red: the second), significant cells outlined."""
    df = evidence_table(tests, clip)
    base = theme.Chart(theme.data(df)).encode(
        x=alt.X("function:O", title="function"),
        y=alt.Y("target:O", sort="descending", title="target precision", axis=alt.Axis(format=".0e")),
        tooltip=[theme.tip("pair:N"), theme.tip("function:Q"), theme.tip("target:Q", format=".0e"),
                 theme.tip("better:N"), theme.tip("p_corrected:Q", format=".2e", title="corrected p"),
                 theme.tip("significant:N")],
    )
    cells = base.mark_rect().encode(color=alt.Color(
        "evidence:Q", scale=alt.Scale(scheme="redblue", domain=[-clip, clip]),
        title=["-log10 p,", "signed by winner"]))
    marks = base.transform_filter("datum.significant").mark_rect(fill=None, stroke="black", strokeWidth=1)
    chart = theme.layer(cells, marks, width=alt.Step(14), height=alt.Step(12)).facet(
        row=alt.Row("pair:N", title=None, header=alt.Header(labelAngle=0, labelAlign="left")))
    return theme.finish(chart, title or "Pairwise rank-sum tests", settings)
