"""The views of a report, each a function `view(ctx, measures) -> list[Page]` (`views.VIEWS` lists them
in navigation order, with the interactive views and the tracked parameters).

A new view (issue 12's interactive pages) is a function appended to `views.VIEWS`; the navigation bar,
the settings banner and the chart embedding come with the templates. The views follow cocopp's
output for one, two and many algorithms (seed 000 for the measures):

- overview: the data sets, and the runtime ECDFs over all functions per dimension (pprldmany),
  with the reference algorithm (cocopp: best 2009 on bbob), and beside them the performance and data
  profiles of the compared algorithms (OptiProfiler's, issue 47);
- ECDFs: per function group and per function, per dimension (pprldmany per group/function);
- scaling: aRT / dimension versus dimension of all algorithms per function (ppfigs);
- tables: aRT ratios to the reference with dispersion and rank-sum tests (pptables), pairwise tests;
- pairwise: for pairs of algorithms, aRT scatter (ppscatter), runtime-ratio ECDFs (pprldistr2), aRT
  ratio versus target (ppfig2), the EAF difference (of the archives on bbob-biobj) and the log-ratio
  profile (issue 47);
- one page per algorithm: scaling per target (ppfigdim), runtime and precision ECDFs per group
  (pprldistr), aRT loss (pplogloss), convergence, aRT table (pptable);
- settings: everything the report was made with.
"""
from __future__ import annotations

import dataclasses

import polars as pl

from ..charts import pairs, theme
from ..charts.scaling import LABEL_ROWS
from ..conventions import function_title, is_biobjective
from ..recipes.inputs import settings_lines
from ..recipes.kinds import KINDS
from ..selection import ranges
from ..measures.significance import FAMILY_TEXT
from ..tables import to_html
from ..tables.render import unreachable_text
from .context import Context
from .ecdfs import ECDF_CAPTION, Fixed, ecdf_figure, explorer_spec
from .figures import Figure, Legend, Note, Page, Section, Table, frame_table, unique_slugs
from .measures import Measures
from .provenance import provenance_table, reference_choices


# -- shared pieces --------------------------------------------------------------------------------
#: the dimensions cocopp draws one algorithm's ECDFs in (genericsettings.rldDimsOfInterest)
SINGLE_DIMENSIONS = (5, 20)


def single_dimensions(dims: list[int]) -> list[int]:
    """The dimensions of one algorithm's ECDF figures: 5 and 20 where present, else the largest."""
    return [d for d in SINGLE_DIMENSIONS if d in dims] or dims[-1:]


#: the target of the scaling figure of all algorithms (cocopp's ppfigs)
SCALING_TARGET = 1e-8


def kind_figure(ctx: Context, id: str, title: str, kind: str, analysis, caption: str = "", **options) -> Figure:
    """A figure of a chart kind of `pipeline.recipes.kinds.KINDS`, made by the runner."""
    return Figure.later(id, title, ctx.runner.chart(KINDS[kind], analysis, **options), caption, kind=kind)


def kind_chart(kind: str, analysis, **options):
    """The chart of a kind by name (a function of the module: the report's workers receive it by name, where a
    registered measure's recipe, made in `recipes.kinds`, cannot be sent)."""
    return KINDS[kind](analysis, **options)


#: the budgets and levels of the report's attainment charts (a 10 x 10 grid a panel)
EAF_POINTS = 10


def eaf_figures(ctx: Context, suite: str, algs: list[str], tag: str) -> list[Figure]:
    """The EAF of one algorithm, or the EAF difference of two, per dimension of `single_dimensions` that every
    one of them has data in (issue 47); on bbob-biobj, where every one has archived points there, those of
    the archives (`biobj_eaf_figures`)."""
    have = ctx.problems.filter((pl.col("suite") == suite) & pl.col("algorithm").is_in(algs))
    dims = [d for d in single_dimensions(ctx.dimensions(suite))
            if have.filter(pl.col("dimension") == d)["algorithm"].n_unique() == len(algs)]
    an = ctx.compared.select(suite=suite, algorithm=algs)
    if is_biobjective(suite) and (archived := archived_dimensions(an, algs, dims)):
        return biobj_eaf_figures(ctx, an, suite, algs, tag, archived)
    if len(algs) == 1:
        return [Figure.later(f"eaf-{suite}-{d}-{tag}", f"Attainment, {algs[0]}, {d}-D", ctx.runner.chart(
            kind_chart, "eaf", an.select(dimension=[d]), points=EAF_POINTS),
            "Empirical attainment function: the fraction of trials whose best so far is at or below each level "
            "within each budget, grey from none to every trial (levels and budgets log-spaced over the data).",
            kind="eaf") for d in dims]
    a, b = algs
    return [Figure.later(f"eaf-diff-{suite}-{d}-{tag}", f"Attainment difference, {a} - {b}, {d}-D", ctx.runner.chart(
        kind_chart, "eaf-diff", an.select(dimension=[d]), left=a, right=b, points=EAF_POINTS),
        f"EAF of {a} minus EAF of {b}: red where {a} attains a (budget, level) in more trials, blue where {b} "
        "does, white where they agree.", kind="eaf-diff") for d in dims]


def archived_dimensions(an, algs: list[str], dims: list[int]) -> list[int]:
    """The dimensions of `dims` in which every one of `algs` has archived non-dominated points (bbob-biobj)."""
    runs = an.select(dimension=dims).runs().select("run_id", "algorithm", "dimension")
    found = (an.selection.store.archive().select("run_id").unique().join(runs, on="run_id")
             .group_by("dimension").agg(pl.col("algorithm").n_unique()).collect())
    return sorted(found.filter(pl.col("algorithm") == len(algs))["dimension"].to_list())


#: the attainment surfaces of the report's bbob-biobj pages: the best, the median and the worst of the runs
BIOBJ_PERCENTILES = [1.0, 50.0, 100.0]


def biobj_eaf_figures(ctx: Context, an, suite: str, algs: list[str], tag: str, dims: list[int]) -> list[Figure]:
    """The attainment surfaces of one algorithm's archives, or the EAF difference of two, per dimension."""
    space = "objectives normalised as COCO does (ideal point 0, nadir 1), the instances pooled"
    if len(algs) == 1:
        return [Figure.later(f"biobj-eaf-{suite}-{d}-{tag}", f"Attainment surfaces, {algs[0]}, {d}-D", ctx.runner.chart(
            kind_chart, "biobj-eaf", an.select(dimension=[d]), percentiles=BIOBJ_PERCENTILES),
            "Attainment surfaces of the runs' final archives of non-dominated points, a panel per function: what "
            f"at least one run attains (light), half of them, and every run (black); {space}.",
            kind="biobj-eaf") for d in dims]
    a, b = algs
    return [Figure.later(f"biobj-eaf-diff-{suite}-{d}-{tag}", f"Attainment difference, {a} - {b}, {d}-D",
                         ctx.runner.chart(kind_chart, "biobj-eaf-diff", an.select(dimension=[d]), left=a, right=b),
                         f"EAF of {a}'s final archives minus that of {b}'s, a panel per function: red where {a} "
                         f"attains a point of objective space in more runs, blue where {b} does; {space}.",
                         kind="biobj-eaf-diff") for d in dims]


#: the caption of the report's profiles: their definition (pipeline.measures.solver_profiles)
PROFILE_CAPTION = (
    "On each problem (function, dimension, instance, repetition: the k-th trials of the algorithms meet) that every "
    "compared algorithm ran, f0 is the worst first recorded precision of the compared algorithms and f_L the best "
    "precision any of them reached; a trial converges at tolerance tau when f0 - f >= (1 - tau)(f0 - f_L), f its "
    "best precision so far, and its work is the evaluations of its first record that passes. Tolerances "
    "tau = 10^-1 .. 10^-10, a panel each (OptiProfiler 2.0.0's default). ")
PROFILE_KINDS = {
    "performance-profile": ("Performance profiles", "the fraction of problems an algorithm solved within alpha "
                            "times the least work of any compared algorithm on each (Dolan and Moré 2002), alpha on "
                            "a log2 axis."),
    "data-profile": ("Data profiles", "the fraction of problems an algorithm solved within kappa simplex gradients, "
                     "kappa = work / (n + 1) with n the dimension (Moré and Wild 2009), on a log2 axis."),
}


def profile_figures(ctx: Context, suite: str) -> list[Figure]:
    """The performance and data profiles of a suite's compared algorithms, as OptiProfiler 2.0.0 defines them
    (issue 47); none with fewer than two algorithms (a lone algorithm's profiles say nothing) or without an
    instance of a problem that every one of them ran (nothing to profile)."""
    an = ctx.compared.select(suite=suite)
    keys = ["function", "dimension", "instance"]
    runs = an.runs().select("algorithm", *keys).unique().collect()
    n = runs["algorithm"].n_unique()
    if n < 2 or not runs.group_by(keys).agg(pl.col("algorithm").n_unique() == n)["algorithm"].any():
        return []
    return [Figure.later(f"{kind}-{suite}", f"{title}, {suite}", ctx.runner.chart(kind_chart, kind, an),
                         f"{title}: {what} " + PROFILE_CAPTION, kind=kind)
            for kind, (title, what) in PROFILE_KINDS.items()]


def log_ratio_figures(ctx: Context, an, suite: str, a: str, b: str, tag: str) -> list[Figure]:
    """The log-ratio profile of a pair, beside the performance and data profiles of the overview (issue 47);
    none without an instance of a problem that both ran."""
    keys = ["function", "dimension", "instance"]
    runs = an.runs().select("algorithm", *keys).unique().collect()
    if not runs.group_by(keys).agg(pl.col("algorithm").n_unique() == 2)["algorithm"].any():
        return []
    return [Figure.later(f"log-ratio-profile-{suite}-{tag}", f"Log-ratio profile, {a} and {b}, {suite}",
                         ctx.runner.chart(kind_chart, "log-ratio-profile", an, a_name=a, b_name=b),
                         f"Log-ratio profile: log2 of {a}'s work over {b}'s on each problem both ran, sorted; below "
                         f"0 {a} needed less work, above 0 {b} did; the problems only one of them solved at the ends "
                         "(OptiProfiler 2.0.0). " + PROFILE_CAPTION, kind="log-ratio-profile")]


def legend(ctx: Context, suite: str | None = None) -> Legend:
    """The report's colours of the algorithms (the references last), of one suite's algorithms when given."""
    refs = ctx.reference_names if suite is None else [ctx.reference_of(suite)]
    shown = None if suite is None else {*ctx.algorithms_of(suite), *refs}
    return Legend([(a, c, m, a in refs) for a, (c, m) in ctx.palette.items() if shown is None or a in shown])


def _by_dimension(df: pl.DataFrame, suite: str) -> list[tuple[int, pl.DataFrame]]:
    part = df.filter(pl.col("suite") == suite)
    return [(d, part.filter(pl.col("dimension") == d)) for d in sorted(part["dimension"].unique().to_list())]


#: how the instances of a reference set are written (its logs name instance 0: the reference's runs are the
#: best of several algorithms per problem, over no instance of their own)
NO_INSTANCES = "none, a reference set"


def instances_text(values) -> str:
    """The instances of a data set in ranges ("1-5, 71-80"); a reference set's lone instance 0 as `NO_INSTANCES`."""
    values = list(values)
    return NO_INSTANCES if values == [0] else ranges(values)


# -- views ----------------------------------------------------------------------------------------
def overview(ctx: Context, m: Measures) -> list[Page]:
    """Data sets, the ECDFs over all functions per dimension, and the performance and data profiles."""
    rec = ctx.record
    ds = pl.DataFrame(rec["data_sets"]).select(
        "suite", "algorithm", "source", "data_format", "coco_version", "trials", "functions",
        pl.col("dimensions").list.eval(pl.element().cast(pl.String)).list.join(", "),
        pl.col("instances").map_elements(lambda v: instances_text(v.to_list()), return_dtype=pl.String))
    sections = [Section("data", "Data", [frame_table(
        "data-sets", "Data sets", ds,
        "Each data set as read from its logs: the COCO log format and COCO version, the trials, functions, "
        "dimensions and instances shown.")], columns=1)]
    if ctx.notes:
        sections[0].blocks += [Note(n) for n in ctx.notes]
    if ctx.many:
        sections[0].blocks.append(Note(many_note(ctx)))
    for suite in ctx.suites:
        if ctx.many:  # the explorer's chart and tables, at one dimension and all functions
            explorer = explorer_spec(ctx, m, suite)
            figs = [Figure.later(f"ecdf-{suite}-{d}-all", f"All functions, {d}-D",
                                 Fixed(explorer, d, "all", f"All functions, {d}-D"),
                                 "Runtime ECDFs over all functions; click a legend entry to highlight an algorithm.",
                                 kind="ecdf") for d in ctx.dimensions(suite)] if explorer is not None else []
        else:
            figs = [ecdf_figure(ctx, m, suite, d, "all", "All functions") for d in ctx.dimensions(suite)]
        intro = (f"Runtime ECDFs of all algorithms over all functions of {suite}, one chart per dimension"
                 + (f"; the reference {ctx.reference_label_of(suite)} thick and grey." if ctx.reference_of(suite)
                    else ".") + " " + ECDF_CAPTION)
        sections.append(Section(f"ecdf-all-{suite}", f"ECDFs over all functions, {suite}",
                                [f for f in figs if f], intro=intro, columns=1 if ctx.many else 2))
        if not ctx.many and (profiles := profile_figures(ctx, suite)):
            sections.append(Section(f"profiles-{suite}", f"Performance and data profiles, {suite}", profiles,
                                    columns=1))
    return [Page("index", "Overview", sections, nav="Overview")]


def ecdf_page(ctx: Context, suite: str, dim: int) -> str:
    """The slug of the page of a suite's runtime ECDFs in one dimension ("ecdf-5d"; with several suites
    "ecdf-bbob-5d")."""
    return f"ecdf-{suite}-{dim}d" if len(ctx.suites) > 1 else f"ecdf-{dim}d"


def ecdfs(ctx: Context, m: Measures) -> list[Page]:
    """ECDFs per function group and per function, a page per dimension (of 29 charts on bbob, not 29 per
    dimension on one page: as cocopp draws its ECDFs per dimension); with many algorithms one page, a
    chart per dimension whose drop-down steps through the groups and functions (see `MANY_RULES`)."""
    if ctx.many:
        return [_ecdfs_many(ctx, m)]
    pages = []
    for suite in ctx.suites:
        for d in ctx.dimensions(suite):
            groups = [ecdf_figure(ctx, m, suite, d, g, label) for g, label in ctx.groups(suite)]
            funcs = [ecdf_figure(ctx, m, suite, d, f"f{f}", function_title(suite, f), compact=True)
                     for f in ctx.functions(suite)]
            section = Section(f"ecdf-{suite}-{d}", "Function groups, then each function",
                              [f for f in groups if f] + [legend(ctx, suite)] + [f for f in funcs if f], columns=3,
                              intro="Colours as in the legend; click a line to highlight an algorithm, double-click "
                                    "to clear. " + ECDF_CAPTION)
            where = f"{suite}, {d}-D" if len(ctx.suites) > 1 else f"{d}-D"
            pages.append(Page(ecdf_page(ctx, suite, d), f"Runtime ECDFs per function group and function, {suite}, "
                              f"{d}-D", [section], nav=where, menu="ECDFs"))
    return pages


def _ecdfs_many(ctx: Context, m: Measures) -> Page:
    sections = [Section("ecdf-rules", "Many algorithms", [Note(many_note(ctx))], columns=1)]
    for suite in ctx.suites:
        explorer = explorer_spec(ctx, m, suite)
        for d in ctx.dimensions(suite) if explorer is not None else []:
            fig = Figure.later(f"ecdf-{suite}-{d}", f"ECDFs, {suite}, {d}-D",
                               Fixed(explorer, d, None, f"Runtime ECDFs, {suite}, {d}-D"),
                               f"Runtime ECDFs in {d}-D: choose all functions, a function group or one function in "
                               "the drop-down; click a legend entry to highlight an algorithm.", kind="ecdf")
            sections.append(Section(f"ecdf-{suite}-{d}", f"{suite}, {d}-D", [fig], columns=1))
    return Page("ecdf", "Runtime ECDFs per function group and function", sections, nav="ECDFs")


def many_note(ctx: Context) -> str:
    """The rules the report follows with more compared algorithms than `max_detail` (`MANY_RULES`)."""
    return MANY_RULES.format(n=len(ctx.algorithms), k=ctx.settings.max_detail, pairs=ctx.settings.max_pairs)


#: what the report shows with more compared algorithms than `Settings.max_detail` (stated on the pages)
MANY_RULES = (
    "This report compares {n} algorithms, more than max_detail = {k}, so it summarises: the ECDFs per function "
    "group and function are one chart per dimension with a drop-down instead of a chart per group and function "
    "(lines thinned to 10 points a decade and fractions in steps of 0.02); there is no page per algorithm; the aRT "
    "tables and the pairwise rank-sum tests hold the {k} algorithms of best mean rank of auc over all dimensions "
    "(the Ranking page ranks them all; click a table's title to open it), without Glicko-2 ratings (every pair "
    "of algorithms would play); the Pairwise pages and their rank-sum tests compare every pair of the three best "
    "ranked algorithms (at most {pairs} pairs); "
    "the overview's ECDFs are those of the Explore page at each dimension. Algorithms to compare "
    "against an archive are best given with --background ARCHIVE: the archive is drawn in grey behind them.")


def scaling(ctx: Context, m: Measures) -> list[Page]:
    """aRT / dimension versus dimension per function, all algorithms at one target (ppfigs)."""
    sections = []
    for suite in ctx.suites:
        a = ctx.analysis.select(suite=suite)
        fig = kind_figure(ctx, f"scaling-{suite}", f"Scaling, {suite}", "scaling", a, reference=ctx.reference_of(suite),
                          palette=ctx.palette, target=SCALING_TARGET, background=ctx.background or None,
                          caption=f"aRT / dimension to reach Δf = {theme.fmt_number(SCALING_TARGET)} versus "
                                  "dimension, per function, log-log; k/n at the top of a panel, above a dimension, in "
                                  "the colour of its algorithm: k of n trials succeeded there (in at most "
                                  f"{LABEL_ROWS} rows a panel; every algorithm's in the tooltips); "
                                  "a cross: no success, at the median evaluations / dimension of the trials.")
        sections.append(Section(f"scaling-{suite}", suite, [fig], columns=1))
    return [Page("scaling", "Scaling with dimension", sections, nav="Scaling")]


#: a table of more HTML than this is closed until its title is clicked (the browser lays out only the open
#: ones: a page of closed tables shows its first screen at once)
OPEN_TABLE_LIMIT = 1_000_000


def _table(ctx: Context, id: str, title: str, html: str) -> Table:
    """A table of the tables page: closed with many algorithms or when large (`OPEN_TABLE_LIMIT`)."""
    big = len(html) > OPEN_TABLE_LIMIT
    return Table(id, title + (" (large: click to open)" if big else ""), html, collapsed=ctx.many or big)


def table_page(ctx: Context, suite: str, dim: int) -> str:
    """The slug of the page of a suite's tables in one dimension ("tables-5d"; with several suites
    "tables-bbob-5d")."""
    return f"tables-{suite}-{dim}d" if len(ctx.suites) > 1 else f"tables-{dim}d"


def tests_note(ctx: Context, *tables: pl.DataFrame | None) -> Note:
    """The family of the page's rank-sum tests, its correction and alpha (the same for the aRT table's markers and
    the pairwise tests), and the pairs of `tables` (pairwise tests, aRT table) whose trial counts put alpha out
    of reach."""
    s = ctx.settings
    text = (f"Two-sided rank-sum tests, {s.correction.capitalize()}-corrected within one family: {FAMILY_TEXT}; "
            f"α = {s.alpha:g}. The aRT table's markers and the pairwise tests correct the same family.")
    return Note(" ".join([text, *[u for t in tables if t is not None and (u := unreachable_text(t))]]))


def tables(ctx: Context, m: Measures) -> list[Page]:
    """The aRT table of all algorithms and the pairwise tests, a page per dimension (as cocopp's pptables;
    a page of every dimension was 100 screens long with 20 algorithms)."""
    rule = [Section("tables-rule", "Many algorithms", [Note(
        f"The tables hold the {len(m.table_algorithms)} algorithms of best mean rank of auc over all dimensions "
        f"(of {len(ctx.algorithms)} compared; see the Ranking page): {', '.join(m.table_algorithms)}.")],
        columns=1)] if ctx.many else []
    pages = []
    for suite in ctx.suites:
        arts = dict(_by_dimension(m.art_table, suite))
        tests = dict(_by_dimension(m.pairwise, suite)) if m.pairwise is not None else {}
        for d in [d for d in ctx.dimensions(suite) if d in arts or d in tests]:  # not the reference's others
            sections = [*rule, Section(f"tests-{suite}", "Tests", [tests_note(ctx, tests.get(d), arts.get(d))], columns=1)]
            if d in arts:
                sections.append(Section(f"art-{suite}", "aRT table", [
                    _table(ctx, f"art-{suite}-{d}", f"aRT, {suite}, {d}-D", to_html(arts[d]))], columns=1))
            if d in tests:
                sections.append(Section(f"pairwise-tests-{suite}", "Pairwise rank-sum tests", [
                    _table(ctx, f"pairwise-{suite}-{d}", f"Pairwise tests, {suite}, {d}-D", to_html(tests[d]))],
                    columns=1))
            where = f"{suite}, {d}-D" if len(ctx.suites) > 1 else f"{d}-D"
            pages.append(Page(table_page(ctx, suite, d), f"aRT table and tests, {suite}, {d}-D", sections, nav=where,
                              menu="Tables"))
    return pages


def pair_page(a_id: str, b_id: str) -> str:
    """The slug of the page comparing two algorithms (of `unique_slugs`), e.g. "pair-direct-nm"."""
    return f"pair-{a_id}-{b_id}"


def pairwise(ctx: Context, m: Measures) -> list[Page]:
    """Two algorithms compared, under one menu: the rank-sum tests of every pair (a heat map per dimension),
    and a page per pair (as cocopp's output for two algorithms): aRT scatter, runtime-ratio ECDF and aRT ratio."""
    if len(ctx.algorithms) < 2 or not ctx.has_pairs:  # nothing to compare: said in the overview's notes
        return []
    pages = []
    ids = unique_slugs(ctx.algorithms)
    for a, b in ctx.pairs():
        figs = []
        pair_id = f"{ids[a]}-{ids[b]}"
        for suite in ctx.suites:
            an = ctx.compared.select(suite=suite, algorithm=[a, b])
            art = m.art.filter((pl.col("suite") == suite) & pl.col("algorithm").is_in([a, b]))
            if set(art["algorithm"].unique()) != {a, b}:
                continue
            pair = dict(a_name=a, b_name=b)
            sub = settings_lines(an, targets=list(ctx.ecdf_targets(suite)))
            figs += [
                Figure.later(f"scatter-{suite}-{pair_id}", f"aRT scatter, {b} against {a}",
                             ctx.runner.chart(pairs.scatter_chart, art, a, b, settings=sub),
                             f"aRT / dimension of {b} (y) against {a} (x), one point per dimension and target; on "
                             "the upper or right edge: no success (cocopp's ppscatter).", kind="scatter"),
                kind_figure(ctx, f"ratio-ecdf-{suite}-{pair_id}", f"Runtime ratios, {b} / {a}", "ratio-ecdf", an, **pair,
                            **ctx.few_targets(suite, 4),
                            caption=f"ECDF of the runtime ratios {b} / {a} over all pairs of trials per problem, a "
                                    f"line per target, over all functions per dimension; left of 0: {b} faster "
                                    "(cocopp's pprldistr2)."),
                Figure.later(f"art-ratio-{suite}-{pair_id}", f"aRT ratio, {b} / {a}",
                             ctx.runner.chart(pairs.art_ratio_chart, art, a, b, settings=sub),
                             f"aRT of {b} divided by the aRT of {a} versus target, one line per dimension; below 1: "
                             f"{b} is faster (cocopp's ppfig2).", kind="art-ratio"),
                *eaf_figures(ctx, suite, [a, b], pair_id),
                *log_ratio_figures(ctx, an, suite, a, b, pair_id),
            ]
        pages.append(Page(pair_page(ids[a], ids[b]), f"{a} and {b} compared",
                          [Section(f"pair-{pair_id}", "aRT scatter, runtime ratios, aRT ratios, attainment, log-ratio profile",
                                   figs,
                                   columns=1)],
                          nav=f"{a} and {b}",
                          menu="Pairwise"))
    tests = m.pairwise
    every_pair = tests is None or tests.select("algorithm_a", "algorithm_b").n_unique() <= len(ctx.pairs())
    if tests is not None and not every_pair:  # many pairs: the heat maps of the pairs of the pair pages
        both = [*ctx.pairs(), *[(b, a) for a, b in ctx.pairs()]]
        keep = pl.DataFrame(both, schema={"algorithm_a": tests.schema["algorithm_a"],
                                          "algorithm_b": tests.schema["algorithm_b"]}, orient="row")
        tests = tests.join(keep, on=["algorithm_a", "algorithm_b"], how="semi", maintain_order="left")
    if tests is not None and tests.height:
        heat = []
        for (suite, dim), t in sorted(tests.partition_by("suite", "dimension", as_dict=True).items()):
            heat.append(Figure.later(
                f"ranksum-heat-{suite}-{dim}", f"Rank-sum tests, {suite}, {dim}-D",
                ctx.runner.chart(pairs.pairwise_heatmap, t, title=f"Pairwise rank-sum tests, {suite}, {dim}-D",
                                 settings=f"two-sided rank-sum (Mann-Whitney U), {t['correction'][0]} correction within "
                                          f"{t['family'][0]}, α = {t['alpha'][0]:g}"),
                "Per pair of algorithms, function and target: -log10 of the corrected p-value, blue where the first "
                "algorithm of the pair has the better ranks, red where the second has; outlined: significant."
                + ("" if every_pair else " The pairs compared on their pages (the Tables pages hold the tests of every "
                                         "pair)."),
                kind="ranksum-heatmap"))
        pages.insert(0, Page("pairwise", "Rank-sum tests of every pair",
                             [Section("ranksum-tests", "Tests", [tests_note(ctx, tests)], columns=1),
                              Section("ranksum-heat", "A heat map per dimension", heat, columns=1)],
                             nav="Rank-sum tests", menu="Pairwise"))
    return pages


def algorithms(ctx: Context, m: Measures) -> list[Page]:
    """One page per algorithm (cocopp's output for one algorithm): scaling (ppfigdim), runtime and
    precision ECDFs (pprldistr), aRT loss against the reference (pplogloss), convergence, aRT table
    (pptable). Its ECDFs per group with the reference are those of the ECDF pages."""
    pages = []
    ids = unique_slugs(ctx.algorithms)
    for alg in ctx.algorithms if len(ctx.algorithms) <= ctx.settings.max_detail else []:
        sections = []
        for suite in ctx.suites:
            ref = [ctx.reference_of(suite)] if ctx.reference_of(suite) else []
            one = ctx.compared.select(suite=suite, algorithm=[alg])
            dims = [d for d in single_dimensions(ctx.dimensions(suite)) if d in set(
                ctx.problems.filter((pl.col("algorithm") == alg) & (pl.col("suite") == suite))["dimension"])]
            if not dims:
                continue
            groups = [*ctx.groups(suite, [alg]), ("all", "All functions")]  # those holding its functions
            sections.append(Section(f"scaling-{suite}", f"Scaling with dimension, {suite}", [kind_figure(
                ctx, f"scaling-{suite}-{ids[alg]}", f"Scaling, {alg}", "scaling", one, **ctx.few_targets(suite, 5),
                caption="aRT / dimension versus dimension, a line per target; k/n at the top of a panel, above "
                        "a dimension: k of n trials succeeded at the hardest target; a cross: no success, at the "
                        "median evaluations / dimension (ppfigdim).")],
                columns=1))
            names = [g for g, _ in groups]
            dist = [
                kind_figure(ctx, f"rt-ecdf-{suite}-{ids[alg]}", f"Runtime ECDFs, {alg}", "rt-ecdf", one, group=names,
                            dimension=dims, **ctx.few_targets(suite, 4),
                            caption="ECDF of the trials' runtimes to reach each of a few targets, per function "
                                    "group and dimension (cocopp's pprldistr, left); k/n at a line's end: k of the n "
                                    "functions of the panel solved at that target by at least one trial."),
                kind_figure(ctx, f"precision-ecdf-{suite}-{ids[alg]}", f"Precision ECDFs, {alg}", "precision-ecdf", one,
                            group=names, dimension=dims,
                            caption="ECDF of the best precision Δf the trials reached within budgets of k x "
                                    "dimension evaluations and at their end (cocopp's pprldistr, right)."),
            ]
            if ref and ctx.problems.filter((pl.col("suite") == suite) & (pl.col("algorithm") == ref[0])).height:
                dist.append(kind_figure(
                    ctx, f"logloss-{suite}-{ids[alg]}", f"aRT loss, {alg}", "logloss",
                    ctx.analysis.select(suite=suite, algorithm=[alg, *ref]), reference=ref[0], group=names,
                    dimension=dims, palette=ctx.palette,
                    caption=f"aRT loss ratio against {ctx.reference_label_of(suite)} versus budget (cocopp's "
                            "pplogloss)."))
            sections.append(Section(f"distributions-{suite}", f"Runtime and precision distributions, {suite}",
                                    dist, columns=1))
            sections.append(Section(f"convergence-{suite}", f"Convergence, {suite}", [
                kind_figure(ctx, f"convergence-{suite}-{d}-{ids[alg]}", f"Convergence, {alg}, {d}-D", "convergence", one,
                            dimension=d, palette=ctx.palette,
                            caption=f"Median best precision Δf versus evaluations / dimension in {d}-D, with the "
                                    "band between the 25th and 75th percentiles of the trials, a panel per function.")
                for d in dims], columns=1))
            if attained := eaf_figures(ctx, suite, [alg], ids[alg]):
                sections.append(Section(f"eaf-{suite}", f"Attainment, {suite}", attained, columns=1))
            t = m.algorithm_table(alg).filter(pl.col("suite") == suite)
            sections.append(Section(f"art-{suite}", f"aRT table, {suite}",
                                    [Table(f"art-{suite}-{d}-{ids[alg]}", f"aRT, {alg}, {suite}, {d}-D", to_html(g))
                                     for d, g in _by_dimension(t, suite)], columns=1))
        pages.append(Page(f"alg-{ids[alg]}", alg, sections, nav=alg, menu="Algorithms"))
    return pages


def reference_text(record: dict) -> str:
    """The reference of a report in words: its name (and the name it was asked by), per suite when the
    suites have different ones, "none" without."""
    def one(alg, label):
        return f"{label} ({alg})" if alg and label and label != alg else (alg or "none")

    refs, labels = record.get("references"), record.get("reference_labels") or {}
    if not refs or len(set(refs.values())) <= 1:
        ref, label = record.get("reference"), record.get("reference_label")
        return one(ref, label) if isinstance(ref, str) or ref is None else ", ".join(ref)
    return "; ".join(f"{su}: {one(alg, labels.get(su))}" for su, alg in refs.items())


def settings_page(ctx: Context, m: Measures) -> list[Page]:
    """The settings, the versions and the data sets, in full."""
    s, rec = ctx.settings, ctx.record
    values = [(f.name, s.__dict__[f.name]) for f in dataclasses.fields(s) if f.name != "record"]
    unset = {"algorithms": "all but the reference", "suites": "all", "functions": "all", "dimensions": "all",
             "reference": "each suite's default (its packaged set, e.g. best2009 on bbob)", "max_budget": "none",
             "targets": "each suite's standard set", "table_targets": "cocopp's table targets",
             "sources": "none (a store)"}
    kv = pl.DataFrame({"setting": [k for k, _ in values],
                       "value": [unset.get(k, "") if v is None else ", ".join(map(str, v)) if isinstance(v, list)
                                 else str(v) for k, v in values]})
    resolved = pl.DataFrame({
        "item": ["algorithms", "reference", "suites", "pairs compared"],
        "value": [", ".join(rec["algorithms"]), reference_text(rec), ", ".join(rec["suites"]),
                  "; ".join(f"{a} / {b}" for a, b in ctx.pairs()) or "none"]})
    per_suite = pl.DataFrame([
        {"suite": su, "dimensions": ", ".join(map(str, rec["dimensions"][su])),
         "functions": ", ".join(map(str, rec["functions"][su])),
         "ECDF targets": ", ".join(theme.fmt_number(t) for t in rec["ecdf_targets"][su]),
         "table targets": ", ".join(theme.fmt_number(t) for t in rec["table_targets"][su])} for su in rec["suites"]])
    inst = pl.DataFrame([{"data": k, "instances": NO_INSTANCES if list(v) == [0] else ", ".join(map(str, v))}
                         for k, v in rec["instances"].items()])
    ds = pl.DataFrame(rec["data_sets"])
    vers = pl.DataFrame({"software": list(rec["versions"]), "version": list(rec["versions"].values())})
    how = ("Rebuild this report exactly with `cocopipe report --settings settings.json --out DIR` (with the same "
           "data: the store or the sources recorded here).")
    sections = [
        Section("settings", "Settings", [frame_table("settings-table", "Settings", kv)], intro=how, columns=1),
        Section("selection", "Selection", [frame_table("selection-table", "Resolved selection", resolved),
                                           frame_table("suites-table", "Per suite", per_suite)], columns=1),
        Section("instances", "Instances", [frame_table("instances-table", "Instances per data set", inst)], columns=1),
        Section("data-sets", "Data sets", [frame_table(
            "data-sets-full", "Data sets", ds, "COCO log format and version, content hash of each source; for a "
            "data set of a COCO data archive (archive:NAME), its name in the archive, URL and sha256.")],
            columns=1),
        Section("versions", "Versions", [frame_table("versions-table", "Software", vers)], columns=1),
    ]
    for i, ref in enumerate(ctx.reference_names):
        suites = [su for su in rec["suites"] if ctx.reference_of(su) == ref]
        made_of = provenance_table(reference_choices(ref, suites, getattr(ctx.analysis, "store", None)))
        if made_of.height:
            sections.append(Section("reference-made-of" + (f"-{i}" if i else ""), f"Reference algorithm {ref}", [
                frame_table("reference-choices" + (f"-{i}" if i else ""), "The algorithms it is made of", made_of,
                            "Per function and dimension, the algorithm whose data the reference takes, in the order "
                            "of the targets, each up to the hardest target it provides (seed 000, \"best 2009\").")],
                columns=1))
    return [Page("settings", "Settings", sections, nav="Settings")]

