"""The interactive views of a report (issue 12): the ECDF explorer (every dimension and function
group in one chart, chosen by drop-downs, with the background algorithms in grey) and the ranking
of the compared algorithms (mean rank of per-function auc with the Nemenyi critical difference and
its cliques, and the Glicko-2 ratings of games between trials, seeded so that a rebuilt report is
byte-identical). The search box and the highlighting across charts are in
static/report.js (it keeps every chart's Vega view in `window.__views`).
"""
from __future__ import annotations

import polars as pl

from ..charts.ecdf import ecdf_explorer
from ..charts.ranking import critical_difference_chart
from .context import Context
from .figures import Figure, Note, Page, Section
from .measures import Measures


#: many lines: 10 points per decade, fractions in steps of 1/50 (the chart's size stays small)
COARSE = dict(resolution=0.1, quantum=0.02)


def explorer_spec(ctx: Context, m: Measures, suite: str):
    """The explorer chart of a suite (a Future or Deferred of its spec; made once, shared by the views
    that show it), or None without data. Lines are coarse (`COARSE`) with many algorithms."""
    from .pages import ecdf_subtitle

    cache = m.__dict__.setdefault("_explorers", {})
    if suite not in cache:
        keep = pl.col("suite") == suite
        steps = m.ecdf.filter(keep)
        many = len(ctx.algorithms) + len(ctx.background) > ctx.settings.max_detail
        # the columns the explorer shows (with many algorithms, not the counts of problems, functions, trials)
        summ = m.ecdf_summary.filter(keep).drop("suite", "solvable_fraction", *(
            ("problems", "functions", "trials") if many else ()))
        if summ.height == 0:
            cache[suite] = None
        else:
            back = f"; {len(ctx.background)} background algorithm(s) thin and grey" if ctx.background else ""
            cache[suite] = ctx.runner.chart(ecdf_explorer, steps, summ, palette=ctx.palette,
                                            reference=ctx.reference_of(suite),
                                            background=ctx.background or None, group_labels=dict(ctx.groups(suite)),
                                            title=f"Runtime ECDFs, {suite}", settings=ecdf_subtitle(ctx, suite) + back,
                                            **(COARSE if many else {}))
    return cache[suite]


def _subset(values, keep: dict[str, str]):
    """The rows of a spec's table (rows, or CSV text) whose columns take the given values (compared as text);
    a table without those columns as it is."""
    import io

    if isinstance(values, str):
        df = pl.read_csv(io.StringIO(values), infer_schema_length=0)
        if not set(keep) <= set(df.columns):
            return values
        return df.filter(*[pl.col(k) == v for k, v in keep.items()]).write_csv()
    if not values or not all(isinstance(r, dict) and set(keep) <= set(r) for r in values[:1]):
        return values
    return [r for r in values if all(str(r[k]) == v for k, v in keep.items())]


def _table_name(values) -> str:
    """A content-hash name of a table (as the charts name theirs)."""
    import hashlib
    import json

    return "data-" + hashlib.sha256(json.dumps(values, sort_keys=True).encode()).hexdigest()[:32]


class Fixed:
    """The spec of an explorer chart with its dimension (and optionally its function group) fixed: the
    drop-down of a fixed choice is removed, and its tables hold only the rows of that choice (renamed by
    their content), so that a page of such charts holds the explorer's tables once in all."""

    def __init__(self, explorer, dimension: int, group: str | None, title: str):
        self.explorer, self.dimension, self.group, self.title = explorer, dimension, group, title

    def result(self) -> dict:
        """The spec (waits for the explorer's)."""
        import json

        spec = dict(self.explorer.result())
        keep = {"dimension": str(self.dimension), **({"group": self.group} if self.group is not None else {})}
        tables, renamed = {}, {}
        for name, values in spec.get("datasets", {}).items():
            sub = _subset(values, keep)
            new = name if sub is values else _table_name(sub)
            tables[new], renamed[name] = sub, new
        text = json.dumps({k: v for k, v in spec.items() if k != "datasets"})
        for old, new in renamed.items():
            text = text.replace(json.dumps(old), json.dumps(new))
        spec = {**json.loads(text), "datasets": tables}
        for p in spec.get("params", []):
            if p.get("name") == "dimension_shown" or (self.group is not None and p.get("name") == "group_shown"):
                p["value"] = self.dimension if p["name"] == "dimension_shown" else self.group
                p.pop("bind", None)
        if isinstance(spec.get("title"), dict):
            spec["title"]["text"] = self.title
        return spec


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
    from .figures import slug

    if len(ctx.algorithms) < 2 or not ctx.has_pairs:  # nothing to compare: said in the overview's notes
        return []
    from ..measures import ranking

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
    if notes:
        sections.insert(0, Section("ranking", "Not ranked" if sections else "Ranking", [Note(n) for n in notes],
                                   columns=1))
    return [Page("ranking", "Ranking of the compared algorithms", sections, nav="Ranking")]


def _ranking_sections(ctx: Context, ranks: pl.DataFrame, glicko: pl.DataFrame | None, tag: str, name: str,
                      cl: pl.DataFrame) -> list[Section]:
    """The critical-difference chart and the tables of ranks, cliques and Glicko-2 ratings of one suite's
    ranking (`tag` and `name` tell the suite's ids and titles apart)."""
    from .pages import frame_table

    s = ctx.settings
    chart = ctx.runner.chart(critical_difference_chart, ranks, palette=ctx.palette,
                             title=f"Mean rank of auc (1 = best){name}",
                             settings="per dimension (0: over all dimensions); intervals of half the Nemenyi "
                                      f"critical difference at α = {s.alpha:g}")
    fig = Figure.later(f"ranking-cd{tag}", f"Critical difference{name}", chart,
                       "Mean rank of each algorithm's area under the ECDF per problem, best at the top; two "
                       "algorithms differ significantly (Nemenyi) when their bars do not overlap. Choose the "
                       "dimension in the drop-down.", kind="ranking")
    show = ranks.select("dimension", "rank", "algorithm", pl.col("score").alias("mean rank"), "problems",
                        pl.col("friedman_p").alias("Friedman p"),
                        pl.col("critical_difference").alias("critical difference"))
    cliques = cl.select("dimension", "clique", "low", "high", "algorithms")
    glicko_block = Note(f"Glicko-2 ratings are left out above {s.max_detail} compared algorithms (every pair of "
                        f"algorithms plays per function and target: {len(ctx.algorithms)} algorithms make "
                        f"{len(ctx.algorithms) * (len(ctx.algorithms) - 1) // 2} pairs); the mean ranks above "
                        "order them all.")
    if glicko is not None:
        g = glicko.select("dimension", "rank", "algorithm", pl.col("score").alias("rating"), "deviation", "volatility")
        glicko_block = frame_table(
            f"ranks-glicko2{tag}", f"Glicko-2 ratings{name}", g,
            "Per dimension, 25 rounds: in each, one trial of every algorithm is drawn per (function, target) and "
            "every pair plays a game won by the faster trial; the games of a round are one rating period (as "
            f"IOHanalyzer ranks algorithms; seed {s.seed}).")
    return [
        Section(f"ranking-cd{tag}", f"Critical difference{name}", [fig], columns=1),
        Section(f"ranking-tables{tag}", f"Ranks and cliques{name}", [
            frame_table(f"ranks-auc{tag}", f"Mean ranks of auc{name}", show, "Dimension 0: over all dimensions."),
            frame_table(f"cliques{tag}", f"Cliques{name}", cliques,
                        "Runs of algorithms, ordered by mean rank, within the critical difference of each other: "
                        "the bars of a critical-difference diagram."),
            glicko_block], columns=1),
    ]
