"""The measures a report shows, computed once for all its pages (each page takes slices).

Memory stays bounded however many algorithms a report holds: the hitting times, ECDF step tables
and areas under the ECDF are computed an algorithm at a time (each algorithm's measures are
independent of the others'; they run in the runner's worker processes, and the progress counts
them), and each group's step table is cut at the plotted
range and thinned to `RESOLUTION` in log10(x) at once, at most 100 points a decade, which is finer
than any chart draws (`pipeline.charts.ecdf.thin`: 0.02 and coarser; thinning keeps each bin's last
step, so a thinned line never rises earlier than the data).
"""
from __future__ import annotations

import functools

import polars as pl

from ..charts.ecdf import thin
from ..tables import art_table, pairwise_table
from .context import Context

#: steps of the report's ECDF tables are merged to this resolution in log10(evaluations / dimension)
RESOLUTION = 0.01
STEP_KEYS = ["suite", "algorithm", "dimension", "group"]


def thin_steps(steps: pl.DataFrame, summary: pl.DataFrame, resolution: float = RESOLUTION) -> pl.DataFrame:
    """Steps cut at each line's plotted range (summary's max_x) and thinned to `resolution` in log10(x):
    per bin the last x and the largest fraction; steps that do not rise are dropped (a line's last is kept)."""
    cut = (steps.join(summary.select(*STEP_KEYS, "max_x"), on=STEP_KEYS, how="inner")
           .filter(pl.col("x") <= pl.col("max_x")).drop("max_x"))
    return thin(cut, resolution, by=STEP_KEYS).select(steps.columns)


def group_tables(analyses: list, *, targets: pl.DataFrame, mode: str, samples: int, seed: int,
                 budgets: pl.DataFrame | None, resolution: float = RESOLUTION) -> dict[str, pl.DataFrame]:
    """The ECDF steps (thinned), ECDF summary and auc per problem of the algorithms of `analyses` (one
    per store, each its own algorithms'), through the facade (`Analysis.ecdf`, `Analysis.auc`: auc only
    with `budgets`, those of all compared algorithms); each analysis reads its hitting times once for
    both ECDF tables (`pipeline.execution.KeptTrials`)."""
    parts = []
    for a in analyses:
        summary = a.ecdf.summary(targets, mode=mode).collect()
        steps = a.ecdf.steps(targets, mode=mode, samples=samples, seed=seed).collect()
        part = {"steps": thin_steps(steps, summary, resolution), "summary": summary}
        if budgets is not None:
            part["auc"] = a.auc(targets, budgets=budgets).collect()
        parts.append(part)
    return {k: pl.concat([p[k] for p in parts], how="vertical_relaxed") for k in parts[0]}


def glicko(analysis, targets, seed: int) -> pl.DataFrame:
    """Glicko-2 ratings of the algorithms of `analysis` (one suite) per dimension (`Analysis.glicko2`)."""
    return analysis.glicko2(targets, seed=seed).collect().drop("suite")


def best_ranked(ranks: pl.DataFrame) -> list[str]:
    """The algorithms of `ranks` best first by mean rank of auc over all dimensions (ties by name)."""
    best = ranks.filter(pl.col("dimension") == 0).sort("score", "algorithm")["algorithm"] if ranks.height else []
    return pl.Series(best, dtype=pl.String).unique(maintain_order=True).to_list()


def table_algorithms(ctx: Context, ranked: list[str]) -> list[str]:
    """The algorithms of the aRT table and the pairwise tests: every compared one, or with more than
    `max_detail` of them the `max_detail` best of `ranked` (every one first when `ranked` is empty), in
    the compared order."""
    if not ctx.many:
        return list(ctx.algorithms)
    best = set((ranked or ctx.algorithms)[:ctx.settings.max_detail])
    return [a for a in ctx.algorithms if a in best]


def pair_algorithms(ctx: Context) -> list[str]:
    """The algorithms of the pairwise rank-sum tests: every compared one, or with many those of the
    compared pairs (`Context.pairs`: the best ranked, once the context has the ranking)."""
    if not ctx.many:
        return list(ctx.algorithms)
    names = {a for p in ctx.pairs() for a in p}
    return [a for a in ctx.algorithms if a in names]


class Measures:
    """Lazily computed, cached tables of one report."""

    def __init__(self, ctx: Context):
        self.ctx = ctx
        self._art = self._pairwise = None
        #: the algorithms of the aRT table (`start_tables`; with many algorithms the best ranked)
        self.table_algorithms: list[str] | None = None
        # the tables take long: they start at once (in a worker when the runner has some), unless the
        # best ranked algorithms are to be chosen first (many algorithms); then the ECDF groups
        if not ctx.many:
            self.start_tables(ctx.algorithms)
        # Glicko-2 plays every pair of algorithms: only up to max_detail of them; within each suite
        self._glicko = {} if ctx.many else {
            suite: ctx.runner.submit(glicko, self.one_store(algs).select(suite=suite), ctx.settings.targets,
                                     ctx.settings.seed)
            for suite in ctx.suites if len(algs := ctx.algorithms_of(suite)) > 1 and ctx.has_pairs}
        self._groups = self._start_groups()

    def one_store(self, algorithms: list[str]):
        """The compared `algorithms` as one Analysis: of their store alone when one store holds them all
        (it reads that store's hitting-time cache), else of the report's union of stores."""
        parts = self.ctx.parts(algorithms)
        return parts[0] if len(parts) == 1 else self.ctx.compared.select(algorithm=list(algorithms))

    # -- ECDFs and auc, by groups of algorithms ---------------------------------------------------------------
    def _targets(self, which) -> pl.DataFrame:
        rows = [(s, float(t)) for s in self.ctx.suites for t in which(s)]
        return pl.DataFrame(rows, schema={"suite": pl.String, "target": pl.Float64}, orient="row")

    def _start_groups(self) -> list:
        c, s = self.ctx, self.ctx.settings
        budgets = c.compared.auc_budgets()
        targets = self._targets(self.ctx.ecdf_targets)
        algs = sorted(c.all_shown)
        # an algorithm at a time (its measures do not depend on the others': each problem's simulated restarts
        # draw from a generator of its own): the workers share the work, and the progress counts algorithms
        return [c.runner.submit(group_tables, parts, targets=targets, mode=s.mode, samples=s.ecdf_samples,
                                seed=s.seed, budgets=budgets)
                for part in c.plan.groups(algs) for alg in part if (parts := c.covered(alg))]

    @functools.cached_property
    def _tables(self) -> dict[str, pl.DataFrame]:
        parts, n = [], len(self._groups)
        for i, f in enumerate(self._groups):
            self.ctx.progress("measures", i, n, "ECDFs and auc, algorithms done")
            parts.append(f.result())
        self.ctx.progress("measures", n, n, "ECDFs and auc, algorithms done")
        self._groups = []
        return {k: pl.concat([p[k] for p in parts], how="vertical_relaxed") for k in parts[0]}

    @property
    def ecdf(self) -> pl.DataFrame:
        """ECDF steps (thinned) of every group level (fN, cocopp groups, all) per (suite, algorithm,
        dimension), every shown algorithm (reference and background included)."""
        return self._tables["steps"]

    @property
    def ecdf_summary(self) -> pl.DataFrame:
        """The ECDF summary (final fraction, max_x, median maximal evaluations) per group level."""
        return self._tables["summary"]

    @property
    def aucs(self) -> pl.DataFrame:
        """Area under the ECDF of first hitting times per problem of the compared algorithms (the ranking's
        input, `Analysis.auc`)."""
        return self._tables["auc"].filter(pl.col("algorithm").is_in(self.ctx.algorithms))

    def ecdf_slice(self, suite: str, dimension: int, group: str) -> tuple[pl.DataFrame, pl.DataFrame]:
        """Steps and summary of one (suite, dimension, group)."""
        return self._ecdf_parts.get((suite, dimension, group), (self.ecdf.clear(), self.ecdf_summary.clear()))

    @functools.cached_property
    def _ecdf_parts(self) -> dict:
        steps = self.ecdf.partition_by("suite", "dimension", "group", as_dict=True)
        summ = self.ecdf_summary.partition_by("suite", "dimension", "group", as_dict=True)
        return {k: (steps.get(k, self.ecdf.clear()), v) for k, v in summ.items()}

    # -- aRT ------------------------------------------------------------------------------------
    @functools.cached_property
    def art(self) -> pl.DataFrame:
        """aRT at the ECDF targets of the algorithms of the compared pairs (the two-algorithm figures)."""
        algs = sorted({a for p in self.ctx.pairs() for a in p})
        return self.one_store(algs).art(self._targets(self.ctx.ecdf_targets).lazy()).collect()

    def start_tables(self, algorithms: list[str], pairs: list[str] | None = None) -> None:
        """Start the aRT table of `algorithms` and the pairwise tests of `pairs` (default: the same;
        all compared ones, or the best ranked when there are many: `table_algorithms`, `pair_algorithms`)."""
        pairs = algorithms if pairs is None else pairs
        c, s = self.ctx, self.ctx.settings
        self.table_algorithms = list(algorithms)
        self._art, self._pairwise = [], []
        for suite in c.suites:  # a table per suite, with its reference (the tests correct within a suite)
            algs = [a for a in algorithms if a in set(c.algorithms_of(suite))]
            targets = list(c.table_targets(suite))
            if algs:
                ref = c.reference_of(suite)
                shown = c.analysis.select(suite=suite, algorithm=[*algs, *([ref] if ref else [])],
                                          function=c.functions(suite, algs))
                self._art.append(c.runner.submit(art_table, shown, reference=ref, targets=targets,
                                                 correction=s.correction, samples=s.table_samples, seed=s.seed,
                                                 alpha=s.alpha))
            mine = [a for a in pairs if a in set(c.algorithms_of(suite))]
            if any(c.comparable(x, y) for i, x in enumerate(mine) for y in mine[i + 1:]):
                self._pairwise.append(c.runner.submit(pairwise_table, self.one_store(mine).select(suite=suite),
                                                      targets, s.correction, alpha=s.alpha))

    @functools.cached_property
    def ranks(self) -> pl.DataFrame:
        """Mean rank of auc per dimension and over all dimensions (dimension 0) of the compared
        algorithms of each suite (column suite), with the Friedman test and the Nemenyi critical
        difference (`measures.ranking`)."""
        alpha, parts, aucs = self.ctx.settings.alpha, [], self.aucs
        for suite in self.ctx.suites:  # the areas computed already, ranked through the facade (`Analysis.rank`)
            one = self.ctx.compared.select(suite=suite)
            per = one.rank(aucs=aucs, alpha=alpha).collect()
            over = one.rank(aucs=aucs, alpha=alpha, overall=True).collect()
            parts += [per.select(pl.exclude("suite"), "suite"),
                      over.drop("suite").with_columns(dimension=pl.lit(0, pl.Int64), suite=pl.lit(suite))]
        return pl.concat(parts, how="diagonal_relaxed")

    def start_ranked(self) -> list[str]:
        """The step that must come before the views with many algorithms: the ranking (`ranks`), given to
        the context (`Context.set_ranking`), then the tables of the best ranked started. Returns the
        compared algorithms best first."""
        best = best_ranked(self.ranks)
        self.ctx.set_ranking(best)
        if self._art is None:
            self.start_tables(table_algorithms(self.ctx, best), pair_algorithms(self.ctx))
        return best

    @functools.cached_property
    def glicko(self) -> pl.DataFrame | None:
        """Glicko-2 ratings per dimension of the compared algorithms of each suite (column suite; None with
        one algorithm in every suite, or more than max_detail)."""
        if not self._glicko:
            return None
        return pl.concat([f.result().with_columns(suite=pl.lit(s)) for s, f in self._glicko.items()],
                         how="diagonal_relaxed")

    def _tables_started(self) -> None:
        if self._art is None:
            raise RuntimeError("the tables of many algorithms are asked for before the ranking: "
                               "call Measures.start_ranked first")

    @functools.cached_property
    def art_table(self) -> pl.DataFrame:
        """The aRT table (pptables) of `table_algorithms`: ratios to the reference and tests against it
        when there is one, the best algorithm of each column tested against the others."""
        self._tables_started()
        table = pl.concat([f.result() for f in self._art], how="diagonal_relaxed")
        compared = self.ctx.problems.filter(pl.col("algorithm").is_in(self.ctx.algorithms))
        return table.join(compared.select("suite", "dimension", "function").unique(),  # not the reference's others
                          on=["suite", "dimension", "function"], how="semi", maintain_order="left")

    def algorithm_table(self, algorithm: str) -> pl.DataFrame:
        """One algorithm's rows of the aRT table (pptable), with the reference's rows; the marks of
        the best algorithm among several are left out."""
        t = self.art_table.filter((pl.col("algorithm") == algorithm) | (pl.col("role") == "reference"))
        return t.with_columns(best=pl.lit(False), best_marker=pl.lit(""), p_best=pl.lit(None, pl.Float64))

    @functools.cached_property
    def pairwise(self) -> pl.DataFrame | None:
        """Rank-sum tests of every pair of `pair_algorithms` (None with one algorithm)."""
        self._tables_started()
        parts = [f.result() for f in self._pairwise]
        return pl.concat(parts, how="diagonal_relaxed") if parts else None
