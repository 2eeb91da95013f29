"""The virtual best solver (VBS) of a portfolio of algorithms and each algorithm's Shapley value, its
contribution to the VBS's ECDF, as IOHanalyzer 0.1.8 defines them (R/stats.R `get_shapley_values`,
`get_marg_contrib_ecdf`, on `generate_data.ECDF_raw`). docs/measures.md holds the formulas.

A cell c is a (suite, function, dimension, target, budget): a target of the hitting times and a budget of
the grid (`points` budgets log-spaced from 1 to the longest run of the problem, or those given). The ECDF of
algorithm i at c is F_i(c), the fraction of its runs on (function, dimension) that reached the target within
the budget. The value of a coalition S of algorithms is the area under its VBS's ECDF over the cells:

    v(S) = sum_c max_{i in S} F_i(c),      v({}) = 0

The VBS at c is max_i F_i(c) and the algorithm attaining it. The Shapley value of i is its marginal
contribution v(P u {i}) - v(P) averaged over the orderings of the portfolio, P the algorithms before i,
divided by v(all) (IOHanalyzer's `normalize = TRUE`). Since v is a sum of maxima, its Shapley values are
the sums over the cells of those of the game max_{i in S} a_i, which have a closed form: with the values
sorted a_(1) >= ... >= a_(n), a_(n + 1) = 0, the algorithm of rank k gets sum_{j >= k} (a_(j) - a_(j+1)) / j
(at each level t <= a_i, i is the first of the m(t) algorithms reaching t in a random ordering with
probability 1 / m(t)). `method="exact"` computes that, for any number of algorithms, in n log n a cell;
`method="sampled"` averages over `permutations` orderings drawn with `seed` (uniform, unstratified:
IOHanalyzer draws `group_size` orderings for each of the first `max_perm_size` positions instead).

Declared here: the measures "vbs" and "shapley", their facade methods, commands and chart kinds ("vbs":
`pipeline.charts.vbs`, "shapley": `pipeline.charts.shapley`).

Examples
--------
Two algorithms on one cell with F = 0.8 and 0.5: the VBS is 0.8; A adds 0.8 first and 0.3 second, B 0.5
first and 0 second: Shapley values (0.55, 0.25) / 0.8.

>>> import polars as pl
>>> cells = pl.LazyFrame({"suite": "s", "algorithm": ["A", "B"], "function": 1, "dimension": 2,
...                       "target": 1.0, "budget": 10.0, "fraction": [0.8, 0.5]})
>>> exact(cells).collect().select("algorithm", "shapley").rows()
[('A', 0.6875), ('B', 0.3125)]
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..vocabulary import PROBLEM
from .registry import NONE, Interval, Items, Measure, Options, Param, register, settings_class

if TYPE_CHECKING:
    import polars as pl

    from .registry import Inputs

#: a cell of the value function: (suite, function, dimension, target, budget)
CELL = ("suite", "function", "dimension", "target", "budget")


def ecdf_cells(hits: pl.LazyFrame, budgets: pl.LazyFrame) -> pl.LazyFrame:
    """F_i(c) per (algorithm, cell): the fraction of the algorithm's runs of the problem that hit the
    target within the budget (PROBLEM, target, budget, fraction, runs; every algorithm on every budget)."""
    import polars as pl

    reached = pl.col("success").fill_null(False) & pl.col("hit").is_not_null()
    n = hits.group_by(*PROBLEM, "target").agg(runs=pl.len().cast(pl.Int64))
    counts = (hits.filter(reached).group_by(*PROBLEM, "target", "hit").agg(k=pl.len()).sort("hit")
              .with_columns(reached=pl.col("k").cum_sum().over([*PROBLEM, "target"]),
                            hit=pl.col("hit").cast(pl.Float64)).sort("hit"))
    grid = n.join(budgets, on=["suite", "function", "dimension"]).sort("budget")
    by = [*PROBLEM, "target"]
    out = grid.join_asof(counts.select(*by, "hit", "reached"), left_on="budget", right_on="hit", by=by,
                         strategy="backward", check_sortedness=False)
    return out.select(*PROBLEM, "target", "budget", fraction=pl.col("reached").fill_null(0) / pl.col("runs"),
                      runs="runs")


def vbs(cells: pl.LazyFrame) -> pl.LazyFrame:
    """The VBS per cell: its fraction (the largest F_i) and the first algorithm by name attaining it."""
    import polars as pl

    return (cells.sort("algorithm").group_by(list(CELL))
            .agg(fraction=pl.col("fraction").max(),
                 algorithm=pl.col("algorithm").filter(pl.col("fraction") == pl.col("fraction").max()).first(),
                 algorithms=pl.len().cast(pl.Int64))
            .sort(*CELL, descending=[False, False, False, True, False]))


def exact(cells: pl.LazyFrame) -> pl.LazyFrame:
    """Exact Shapley values per (suite, algorithm), normalised by v(all) (the module's closed form)."""
    import polars as pl

    j = pl.int_range(1, pl.len() + 1).over(list(CELL))
    nxt = pl.col("fraction").shift(-1).over(list(CELL)).fill_null(0.0)
    ranked = (cells.select(*CELL, "algorithm", "fraction").sort(*CELL, "fraction", "algorithm",
                                                               descending=[False] * 5 + [True, False])
              .with_columns(seg=(pl.col("fraction") - nxt) / j))
    phi = ranked.with_columns(phi=pl.col("seg").reverse().cum_sum().reverse().over(list(CELL)))
    from .sums import ordered_sum

    return _normalised(phi.group_by("suite", "algorithm").agg(value=ordered_sum(pl.col("phi"))), cells)


def _normalised(values: pl.LazyFrame, cells: pl.LazyFrame) -> pl.LazyFrame:
    """Shapley values divided by v(all) of their suite (0 where v(all) is 0), sorted by suite and name."""
    import polars as pl

    from .sums import ordered_sum

    total = (cells.group_by(list(CELL)).agg(m=pl.col("fraction").max())
             .group_by("suite").agg(total=ordered_sum(pl.col("m"))))
    return (values.join(total, on="suite")
            .select("suite", "algorithm", shapley=pl.when(pl.col("total") > 0)
                    .then(pl.col("value") / pl.col("total")).otherwise(0.0), vbs_area=pl.col("total"))
            .sort("suite", "algorithm"))


def sampled(cells: pl.LazyFrame, permutations: int, seed: int) -> pl.LazyFrame:
    """Shapley values estimated on `permutations` orderings drawn uniformly with `seed` per suite."""
    import numpy as np
    import polars as pl

    from .generators import block_rng

    table = cells.select(*CELL, "algorithm", "fraction").collect()
    rows = []
    for (suite,), part in table.group_by("suite", maintain_order=True):
        wide = part.pivot(on="algorithm", index=list(CELL), values="fraction").fill_null(0.0).sort(list(CELL))
        names = sorted(c for c in wide.columns if c not in CELL)
        f = wide.select(names).to_numpy().T  # algorithms x cells
        rng, total = block_rng(seed, (suite, "shapley")), np.zeros(len(names))
        for _ in range(permutations):
            order = rng.permutation(len(names))
            best = np.maximum.accumulate(f[order], axis=0)
            gain = np.diff(best, axis=0, prepend=0.0).sum(axis=1)
            total[order] += gain
        rows += [(suite, n, v / permutations) for n, v in zip(names, total)]
    values = pl.LazyFrame(rows, schema={"suite": pl.String, "algorithm": pl.String, "value": pl.Float64},
                          orient="row")
    return _normalised(values, cells)


# -- the declarations -----------------------------------------------------------------------------------------
GRID = [Param("budgets", None, (NONE, Items(Interval(float, 0, None, "neither"))),
              "Budgets in evaluations (default: `points` integers log-spaced from 1 to the longest run)."),
        Param("points", 20, (Interval(int, 1, 1000),), "Budgets of the default grid.")]


def _cells(inputs: Inputs, s) -> pl.LazyFrame:
    from .eaf import budget_grid

    return ecdf_cells(inputs.hits(), budget_grid(inputs.runs(), inputs, s))


register(Measure(
    name="vbs", summary="The virtual best solver: the best ECDF value of any algorithm per target and budget.",
    seed="IOHanalyzer get_shapley_values (docs/measures.md)", inputs=("runs", "hits"), keys=(), groupable=False,
    settings=settings_class("vbs", GRID), spec=lambda i, s: vbs(_cells(i, s)),
    columns=(*CELL, "fraction", "algorithm", "algorithms"), charts=("vbs",), command="vbs"))


def _shapley(inputs: Inputs, s) -> pl.LazyFrame:
    import polars as pl

    cells = _cells(inputs, s)
    table = exact(cells) if s.method == "exact" else sampled(cells, s.permutations, s.seed)
    return table.with_columns(method=pl.lit(s.method),
                              permutations=pl.lit(s.permutations if s.method == "sampled" else None, pl.Int64))


register(Measure(
    name="shapley", summary="Shapley value of each algorithm's contribution to the virtual best solver's ECDF.",
    seed="IOHanalyzer get_shapley_values (docs/measures.md)", inputs=("runs", "hits"), keys=(), groupable=False,
    settings=settings_class("shapley", [
        Param("method", "exact", (Options(("exact", "sampled")),),
              "exact (closed form, any number of algorithms) or sampled orderings."),
        Param("permutations", 1000, (Interval(int, 1, 10 ** 7),), "Orderings drawn when sampled."),
        Param("seed", 1, (Interval(int, 0, None),), "Seed of the sampled orderings."), *GRID]),
    spec=_shapley, columns=("suite", "algorithm", "shapley", "vbs_area", "method", "permutations"),
    charts=("shapley",), command="shapley"))
