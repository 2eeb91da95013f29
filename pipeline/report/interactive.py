"""The interactive views of a report (issue 12): the ECDF explorer (every dimension and function
group in one chart, chosen by drop-downs, with the background algorithms in grey; made by
`ecdfs.explorer_spec`) and the ranking of the compared algorithms (mean rank of per-function auc
with the Nemenyi critical difference and its cliques, and the Glicko-2 ratings of games between
trials, seeded so that a rebuilt report is byte-identical). The search box and the highlighting
across charts are in static/report.js (it keeps every chart's Vega view in `window.__views`).
"""
from __future__ import annotations

import polars as pl

from ..charts.ranking import critical_difference_chart, dimension_text
from ..measures import ranking
from ..recipes.kinds import KINDS
from .context import Context
from .ecdfs import explorer_spec
from .figures import Figure, Note, Page, Section, frame_table, slug
from .measures import Measures


def explore(ctx: Context, m: Measures) -> list[Page]:
    """One ECDF chart per suite carrying every dimension and function group."""
    sections = []
    for suite in ctx.suites:
        chart = explorer_spec(ctx, m, suite)
        if chart is None:
            continue
        caption = ("Choose the dimension and the functions (all, a group, or one function) in the drop-downs; "
                   "click a legend entry or a line to highlight an algorithm (shift-click: several, double-click: "
                   "none); the wheel and dragging zoom and pan the evaluations axis; hover for the values.")
        sections.append(Section(f"explore-{suite}", suite, [Figure.later(f"explore-{suite}", f"ECDF explorer, {suite}",
                                                                         chart, caption, kind="ecdf")], columns=1))
    return [Page("explore", "Explore the runtime ECDFs", sections, nav="Explore")]


def ranking_view(ctx: Context, m: Measures) -> list[Page]:
    """The compared algorithms of each suite ranked: mean rank of auc per dimension and over all
    (Friedman test, Nemenyi critical difference, cliques), and the Glicko-2 ratings."""
    if len(ctx.algorithms) < 2 or not ctx.has_pairs:  # nothing to compare: said in the overview's notes
        return []
    glicko = m.glicko
    ranks = m.ranks
    several = len(ctx.suites) > 1
    sections, notes = [], []
    for suite in ctx.suites:
        tag, name = (f"-{slug(suite)}", f", {suite}") if several else ("", "")
        if len(ctx.algorithms_of(suite)) < 2:
            notes.append(f"{suite}: one compared algorithm, nothing to rank.")
            continue
        r = ranks.filter(pl.col("suite") == suite).drop("suite")
        if r.height == 0:
            notes.append(f"No problem{f' of {suite}' if several else ''} has data of every compared algorithm: "
                         "no ranking.")
            continue
        sections += _ranking_sections(ctx, r, None if glicko is None else glicko.filter(pl.col("suite") == suite),
                                      tag, name, ranking.cliques(r))
        sections.append(_shapley_section(ctx, suite, tag, name))
    if notes:
        sections.insert(0, Section("ranking", "Not ranked" if sections else "Ranking", [Note(n) for n in notes],
                                   columns=1))
    return [Page("ranking", "Ranking of the compared algorithms", sections, nav="Ranking")]


def shapley_chart(analysis, targets: list[float]):
    """The chart kind "shapley" of `analysis` (a function of the module: the report's workers receive it by name)."""
    return KINDS["shapley"](analysis, targets=targets)


def _shapley_section(ctx: Context, suite: str, tag: str, name: str) -> Section:
    """Each compared algorithm's Shapley value: its share of the virtual best solver's ECDF (issue 47)."""
    chart = ctx.runner.chart(shapley_chart, ctx.compared.select(suite=suite), list(ctx.ecdf_targets(suite)))
    return Section(f"ranking-shapley{tag}", f"Contributions to the virtual best solver{name}", [Figure.later(
        f"ranking-shapley{tag}", f"Shapley values{name}", chart,
        "Each algorithm's Shapley value: its marginal contribution to the area under the virtual best solver's "
        "ECDF (the best fraction of trials of any algorithm reaching each target within each of 20 budgets, "
        "per function and dimension), averaged over every order of the portfolio, as a share of that area "
        "(IOHanalyzer's definition, computed exactly).", kind="shapley")], columns=1)


def _ranking_sections(ctx: Context, ranks: pl.DataFrame, glicko: pl.DataFrame | None, tag: str, name: str,
                      cl: pl.DataFrame) -> list[Section]:
    """The critical-difference chart and the tables of ranks, cliques and Glicko-2 ratings of one suite's
    ranking (`tag` and `name` tell the suite's ids and titles apart)."""
    s = ctx.settings
    chart = ctx.runner.chart(critical_difference_chart, ranks, palette=ctx.palette,
                             title=f"Mean rank of auc (1 = best){name}",
                             settings="per dimension and over all dimensions; intervals of half the Nemenyi "
                                      f"critical difference at α = {s.alpha:g}")
    fig = Figure.later(f"ranking-cd{tag}", f"Critical difference{name}", chart,
                       "Mean rank of each algorithm's area under the ECDF per problem, best at the top; two "
                       "algorithms differ significantly (Nemenyi) when their bars do not overlap. Choose the "
                       "dimension in the drop-down.", kind="ranking")
    dim = dimension_text(pl.col("dimension")).alias("dimension")  # "all" over all dimensions
    show = ranks.select(dim, "rank", "algorithm", pl.col("score").alias("mean rank"), "problems",
                        pl.col("friedman_p").alias("Friedman p"),
                        pl.col("critical_difference").alias("critical difference"))
    cliques = cl.select(dim, "clique", "low", "high", "algorithms")
    glicko_block = Note(f"Glicko-2 ratings are left out above {s.max_detail} compared algorithms (every pair of "
                        f"algorithms plays per function and target: {len(ctx.algorithms)} algorithms make "
                        f"{len(ctx.algorithms) * (len(ctx.algorithms) - 1) // 2} pairs); the mean ranks above "
                        "order them all.")
    if glicko is not None:
        g = glicko.select(dim, "rank", "algorithm", pl.col("score").alias("rating"), "deviation", "volatility")
        glicko_block = frame_table(
            f"ranks-glicko2{tag}", f"Glicko-2 ratings{name}", g,
            "Per dimension, 25 rounds: in each, one trial of every algorithm is drawn per (function, target) and "
            "every pair plays a game won by the faster trial; the games of a round are one rating period (as "
            f"IOHanalyzer ranks algorithms; seed {s.seed}).")
    return [
        Section(f"ranking-cd{tag}", f"Critical difference{name}", [fig], columns=1),
        Section(f"ranking-tables{tag}", f"Ranks and cliques{name}", [
            frame_table(f"ranks-auc{tag}", f"Mean ranks of auc{name}", show, "Per dimension, and over all dimensions (all)."),
            frame_table(f"cliques{tag}", f"Cliques{name}", cliques,
                        "Runs of algorithms, ordered by mean rank, within the critical difference of each other: "
                        "the bars of a critical-difference diagram."),
            glicko_block], columns=1),
    ]
