"""The facade's measures not declared in the registry (yet): distributions of single trials (cocopp's
pprldistr, pprldistr2), aRT loss ratios (pplogloss), the mean areas per group. `Analysis` takes them from
`Unregistered`; each computes with its measure module's functions on the analysis's selection, in this
process (the engine's executor and group size are not theirs). The tables' medians and the figures'
crosses are declared (`final_medians`, `median_max_evaluations` in `measures/catalog.py`).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import polars as pl

from .measures import auc as auc_m, distributions as dist, groups as grp, logloss as logloss_m

#: what `targets` may be: a target set's name (bbob, biobj, table, scaling, runlength), numbers, "v1,v2",
#: a frame with a column `target` (and key columns), or None for each suite's standard set
Targets = str | Sequence[float] | pl.LazyFrame | pl.DataFrame | None
#: what `group` may be: names of function groups ("all", "separ", "f3"), None for every level, or a frame of
#: (suite, function, group) rows
Group = str | Sequence[str] | pl.LazyFrame | pl.DataFrame | None


class Distribution(NamedTuple):
    """An ECDF of single trials: its steps and the summary of each line."""

    steps: pl.LazyFrame
    summary: pl.LazyFrame


class Unregistered:
    """The measures of `Analysis` that no declaration makes: they read its `runs`, `hits`, `art`, `auc`,
    `fixed_budget` and `algorithms`."""

    # -- distributions of single trials, loss ratios, the tables' statistics ----------------------------
    def group_members(self, group: Group = "all") -> pl.LazyFrame:
        """(suite, function, group) rows of the function groups named by `group` ("all", a cocopp group
        such as "separ", "fN", a list of them, or None: every level) among the selected functions; a
        frame of such rows is taken as it is.

        Examples
        --------
        >>> from pipeline.api import open_store
        >>> a = open_store("cocopipe-store", algorithm="NM", function=1, dimension=5)
        >>> a.group_members(["separ", "f1"]).collect().sort("group").rows()
        [('bbob', 1, 'f1'), ('bbob', 1, 'separ')]
        """
        if isinstance(group, pl.DataFrame | pl.LazyFrame):
            return group.lazy()
        levels, names = grp.select_levels(group)
        m = grp.membership(self.runs().select("suite", "function"), levels)
        return m if names is None else m.filter(pl.col("group").is_in(sorted(names)))

    def runtime_distribution(self, targets: Targets = None, *, group: Group = "all") -> Distribution:
        """ECDF of the trials' own runtimes per (algorithm, dimension, group, target), cocopp's pprldistr
        (`pipeline.measures.distributions.runtime_distribution`): its steps and summary.

        Examples
        --------
        >>> from pipeline.api import open_store
        >>> a = open_store("cocopipe-store", algorithm="NM", function=1, dimension=5)
        >>> a.runtime_distribution([1e-8]).summary.collect().select("final_fraction", "functions_solved").row(0)
        (1.0, 1)
        """
        steps, summary = dist.runtime_distribution(self.hits(targets), self.group_members(group))
        return Distribution(steps, summary)

    def precision_distribution(self, budgets: Sequence[float], *, final: bool = True, group: Group = "all",
                               floor: float = dist.PRECISION_FLOOR) -> pl.LazyFrame:
        """ECDF of the best precision reached within `budgets` (multiples of the dimension), and at the end
        of the trials (`final`: budget inf), per (algorithm, dimension, group, budget), cocopp's pprldistr
        (`pipeline.measures.distributions.precision_distribution`).

        Examples
        --------
        >>> from pipeline.api import open_store
        >>> a = open_store("cocopipe-store", algorithm="NM", function=1, dimension=5)
        >>> a.precision_distribution([10, 100]).collect()["budget"].unique().sort().to_list()
        [10.0, 100.0, inf]
        """
        v = self.fixed_budget([float(b) for b in budgets], per_dimension=True, summary=False, quantity="precision")
        if final:
            fin = self.runs().select("suite", "algorithm", "function", "dimension", "run_id",
                                     best_delta="final_delta", budget=pl.lit(float("inf")))
            v = pl.concat([v, fin], how="diagonal_relaxed")
        return dist.precision_distribution(v, self.group_members(group), floor)

    def runtime_ratios(self, a: str, b: str, targets: Targets = None, *, group: Group = "all", clip: float = 4.0
                       ) -> pl.LazyFrame:
        """ECDF of log10(runtime b / runtime a) over the pairs of trials of two algorithms, cocopp's
        pprldistr2 (`pipeline.measures.distributions.runtime_ratios`).

        Examples
        --------
        >>> from pipeline.api import open_store
        >>> a = open_store("cocopipe-store", algorithm=["DIRECT", "NM"], dimension=5)
        >>> round(a.runtime_ratios("DIRECT", "NM", [1e-8]).collect()["fraction"].max(), 3)
        0.92
        """
        missing = [x for x in (a, b) if x not in set(self.algorithms())]
        if missing:
            raise ValueError(f"algorithm {missing[0]!r} not in the selection (have: {', '.join(self.algorithms())})")
        return dist.runtime_ratios(self.hits(targets), a, b, self.group_members(group), clip)

    def loss_ratios(self, reference_art: pl.LazyFrame | pl.DataFrame, reference: str, budgets: Sequence[float], *,
                    targets: Targets = None, group: Group = "all", art: pl.DataFrame | None = None) -> pl.LazyFrame:
        """aRT loss ratios against the algorithm `reference` of `reference_art` (`Analysis.art` rows, of this
        store or another) versus budget, cocopp's pplogloss (`pipeline.measures.logloss`); `art`: this
        selection's aRTs at `targets` when already at hand.

        Examples
        --------
        >>> from pipeline.api import open_store
        >>> a = open_store("cocopipe-store", algorithm="NM", dimension=5)
        >>> ref = open_store("cocopipe-store", algorithm="DIRECT", dimension=5).art().collect()
        >>> [(x, round(g, 2), n) for x, g, n in a.loss_ratios(ref, "DIRECT", [10, 100]).collect()
        ...  .select("x", "geomean", "functions").rows()]
        [(10.0, 9.2, 10), (100.0, 6.72, 15)]
        """
        ref = reference_art.lazy().filter(pl.col("algorithm") == reference).collect()
        if not ref.height:
            raise ValueError(f"reference {reference!r} not in the aRT table")
        own = art if art is not None else self.art(targets).collect()
        both = pl.concat([own, ref], how="vertical_relaxed").lazy()
        return logloss_m.loss_ratios(both, reference, budgets, self.group_members(group))

    def auc_by_group(self, aucs: pl.LazyFrame | pl.DataFrame | None = None, *, targets: Targets = None
                     ) -> pl.LazyFrame:
        """Mean auc per function group and over all functions (`pipeline.measures.auc.means_by_group`) of
        `aucs` (`Analysis.auc` rows; None: computed at `targets`).

        Examples
        --------
        >>> from pipeline.api import open_store
        >>> a = open_store("cocopipe-store", algorithm=["DIRECT", "NM"], dimension=5)
        >>> [(alg, round(v, 3)) for alg, v in a.auc_by_group().filter(pl.col("group") == "all")
        ...  .select("algorithm", "auc").collect().rows()]
        [('DIRECT', 0.18), ('NM', 0.181)]
        """
        return auc_m.means_by_group(self.auc(targets) if aucs is None else aucs.lazy())
