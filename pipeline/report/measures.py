"""The measures a report shows, computed once for all its pages (each page takes slices)."""
from __future__ import annotations

import functools

import polars as pl

from ..measures import ecdf as ecdf_measure
from ..tables import art_table, pairwise_table
from .context import Context


class Measures:
    """Lazily computed, cached tables of one report."""

    def __init__(self, ctx: Context):
        self.ctx = ctx
        c, s = ctx, ctx.settings
        # the tables take long: they start at once (in a worker when the runner has some)
        self._art = c.runner.submit(art_table, c.analysis if c.reference else c.compared, c.reference,
                                    targets=s.table_targets, correction=s.correction, samples=s.table_samples,
                                    seed=s.seed, alpha=s.alpha)
        self._pairwise = (c.runner.submit(pairwise_table, c.compared, s.table_targets, s.correction, alpha=s.alpha)
                          if len(c.algorithms) > 1 else None)

    def _targets(self, which) -> pl.LazyFrame:
        rows = [(s, float(t)) for s in self.ctx.suites for t in which(s)]
        return pl.LazyFrame(rows, schema={"suite": pl.String, "target": pl.Float64}, orient="row")

    @functools.cached_property
    def hits(self) -> pl.DataFrame:
        """First hitting times of the ECDF targets, every shown algorithm (reference and background included)."""
        return self.ctx.with_background.hits(self._targets(self.ctx.ecdf_targets)).collect()

    @functools.cached_property
    def ecdf(self) -> pl.DataFrame:
        """ECDF steps of every group level (fN, cocopp groups, all) per (suite, algorithm, dimension)."""
        s = self.ctx.settings
        return ecdf_measure.ecdf(self.hits.lazy(), None, s.mode, s.ecdf_samples, s.seed, s.max_budget).collect()

    @functools.cached_property
    def ecdf_summary(self) -> pl.DataFrame:
        """The ECDF summary (final fraction, max_x, median maximal evaluations) per group level."""
        return ecdf_measure.ecdf_summary(self.hits.lazy(), None, self.ctx.settings.max_budget).collect()

    def ecdf_slice(self, suite: str, dimension: int, group: str, algorithms=None) -> tuple[pl.DataFrame, pl.DataFrame]:
        """Steps and summary of one (suite, dimension, group), optionally of some algorithms."""
        steps, summ = self._ecdf_parts.get((suite, dimension, group), (self.ecdf.clear(), self.ecdf_summary.clear()))
        if algorithms is not None:
            keep = pl.col("algorithm").is_in(list(algorithms))
            steps, summ = steps.filter(keep), summ.filter(keep)
        return steps, summ

    @functools.cached_property
    def _ecdf_parts(self) -> dict:
        steps = self.ecdf.partition_by("suite", "dimension", "group", as_dict=True)
        summ = self.ecdf_summary.partition_by("suite", "dimension", "group", as_dict=True)
        return {k: (steps.get(k, self.ecdf.clear()), v) for k, v in summ.items()}

    @functools.cached_property
    def art(self) -> pl.DataFrame:
        """aRT at the ECDF targets of every compared algorithm (for the two-algorithm figures)."""
        return self.ctx.compared.art(self._targets(self.ctx.ecdf_targets)).collect()

    @functools.cached_property
    def art_table(self) -> pl.DataFrame:
        """The aRT table of all compared algorithms (pptables): ratios to the reference and tests
        against it when there is one, the best algorithm of each column tested against the others."""
        return self._art.result()

    def algorithm_table(self, algorithm: str) -> pl.DataFrame:
        """One algorithm's rows of the aRT table (pptable), with the reference's rows; the marks of
        the best algorithm among several are left out."""
        t = self.art_table.filter((pl.col("algorithm") == algorithm) | (pl.col("role") == "reference"))
        return t.with_columns(best=pl.lit(False), best_marker=pl.lit(""), p_best=pl.lit(None, pl.Float64))

    @functools.cached_property
    def pairwise(self) -> pl.DataFrame | None:
        """Rank-sum tests of every pair of compared algorithms (None with one algorithm)."""
        return None if self._pairwise is None else self._pairwise.result()
