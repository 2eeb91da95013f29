"""The virtual best solver (VBS) of a portfolio of algorithms and each algorithm's Shapley value, its
contribution to the VBS's ECDF.

As IOHanalyzer
0.1.8 defines them (R/stats.R `get_shapley_values`, `get_marg_contrib_ecdf`, on `generate_data.ECDF_raw`).
A cell c is a (suite, function, dimension, target, budget), the budgets those given or `points` integers
log-spaced from 1 to the problem's longest run. F_i(c) is algorithm i's ECDF there: the fraction of its
runs on (function, dimension) whose first hitting time of the target is at most the budget.

- The virtual best solver at c: max_i F_i(c), and the first algorithm by name attaining it.
- The value of a coalition S: v(S) = sum_c max_{i in S} F_i(c) (v of none 0), the area under its VBS's ECDF.
- The Shapley value of i: its marginal contribution v(P + i) - v(P), P the algorithms before it, averaged
  over the orderings of the portfolio, divided by v(all) (IOHanalyzer's `normalize = TRUE`): the values sum
  to 1.

`method="exact"` (default) computes it in closed form for any number of algorithms: v is a sum over cells
of max-games, whose Shapley values are known: with a cell's values sorted a_(1) >= ... >= a_(n) and
a_(n+1) = 0, the algorithm of rank k gets sum_{j >= k} (a_(j) - a_(j+1)) / j (for each level t <= a_i, i is
first among the m(t) algorithms reaching t in a random ordering with probability 1 / m(t)); n log n per
cell, no enumeration of the 2^n coalitions. `method="sampled"` averages the marginal contributions over
`permutations` orderings drawn uniformly with `seed` (an unbiased estimate, its error shrinking as one over
the square root of their number). IOHanalyzer instead samples `group_size` orderings for each of the
first `max_perm_size` positions of the algorithm (10 by default), which leaves out the later positions of
portfolios of more than ten; cocopipe's sampled values estimate the Shapley value itself. Tests:
`tests/test_portfolio.py` (the exact values equal the enumeration of all 120 orderings of five algorithms;
the sampled ones converge to them).

Both read the cells of one (suite, dimension) at a time (`_parts`): the hitting times and the (algorithm,
cell) fractions of the whole selection are never held at once (at 200 algorithms, 14 million hits and 29
million fractions); what is kept of each part (the contributions per cell, or its fractions as a matrix) is
added as the whole table would add it, so the values are the same to the last bit.

Declared here: the measures "vbs" and "shapley", their facade methods, commands and chart kinds (drawn by
`pipeline.charts.portfolio`).


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


def contributions(cells: pl.LazyFrame) -> pl.DataFrame:
    """Each algorithm's exact Shapley contributions at the cells (suite, algorithm, phi: a list, the closed
    form of the module's docstring), and the VBS's fractions at them (suite, algorithm None, phi)."""
    import polars as pl

    j = pl.int_range(1, pl.len() + 1).over(list(CELL))
    nxt = pl.col("fraction").shift(-1).over(list(CELL)).fill_null(0.0)
    ranked = (cells.select(*CELL, "algorithm", "fraction").sort(*CELL, "fraction", "algorithm",
                                                               descending=[False] * 5 + [True, False])
              .with_columns(seg=(pl.col("fraction") - nxt) / j))
    phi = ranked.with_columns(phi=pl.col("seg").reverse().cum_sum().reverse().over(list(CELL)))
    values = phi.group_by("suite", "algorithm").agg("phi")
    best = cells.group_by(list(CELL)).agg(phi=pl.col("fraction").max()).group_by("suite").agg("phi")
    return pl.concat([values, best.select("suite", algorithm=pl.lit(None, pl.String), phi="phi")]).collect()


def exact(cells: pl.LazyFrame | list[pl.DataFrame]) -> pl.LazyFrame:
    """Exact Shapley values per (suite, algorithm), normalised by v(all): from the cells, or from the
    `contributions` of parts of them (each sum over every cell, as `ordered_sum` adds them)."""
    import polars as pl

    parts = [contributions(cells)] if isinstance(cells, pl.LazyFrame) else cells
    sums = (pl.concat(parts).group_by("suite", "algorithm").agg(pl.col("phi").list.explode(keep_nulls=False, empty_as_null=False))
            .select("suite", "algorithm", value=pl.col("phi").list.eval(pl.element().sort().cum_sum().last())
                    .list.first().fill_null(0.0)))
    total = sums.filter(pl.col("algorithm").is_null()).select("suite", total="value")
    values = sums.filter(pl.col("algorithm").is_not_null())
    return _normalised(values.lazy(), total.lazy())


def _normalised(values: pl.LazyFrame, total: pl.LazyFrame) -> pl.LazyFrame:
    """Shapley values divided by v(all) of their suite (0 where v(all) is 0), sorted by suite and name."""
    import polars as pl

    return (values.join(total, on="suite")
            .select("suite", "algorithm", shapley=pl.when(pl.col("total") > 0)
                    .then(pl.col("value") / pl.col("total")).otherwise(0.0), vbs_area=pl.col("total"))
            .sort("suite", "algorithm"))


def sampled(cells: pl.LazyFrame | list[pl.DataFrame], permutations: int, seed: int) -> pl.LazyFrame:
    """Shapley values estimated on `permutations` orderings drawn uniformly with `seed` per suite: from the
    cells, or from the `wide` tables of parts of them."""
    import numpy as np
    import polars as pl

    from .generators import block_rng
    from .sums import ordered_sum

    table = pl.concat([wide(cells)] if isinstance(cells, pl.LazyFrame) else cells, how="diagonal_relaxed")
    rows, totals = [], [pl.DataFrame(schema={"suite": pl.String, "m": pl.Float64})]
    for (suite,), part in table.group_by("suite", maintain_order=True):
        names = sorted(c for c in part.columns if c not in CELL)
        part = part.fill_null(0.0).sort(list(CELL))
        f = part.select(names).to_numpy().T  # algorithms x cells
        totals.append(part.select(suite=pl.lit(suite), m=pl.max_horizontal(names)))
        del part
        rng, total = block_rng(seed, (suite, "shapley")), np.zeros(len(names))
        for _ in range(permutations):
            order = rng.permutation(len(names))
            best = np.maximum.accumulate(f[order], axis=0)
            gain = np.diff(best, axis=0, prepend=0.0).sum(axis=1)
            total[order] += gain
        rows += [(suite, n, v / permutations) for n, v in zip(names, total)]
    values = pl.LazyFrame(rows, schema={"suite": pl.String, "algorithm": pl.String, "value": pl.Float64},
                          orient="row")
    vbs_area = pl.concat(totals).lazy().group_by("suite").agg(total=ordered_sum(pl.col("m")))
    return _normalised(values, vbs_area)


def wide(cells: pl.LazyFrame) -> pl.DataFrame:
    """The cells' fractions a column per algorithm (CELL columns first; null: no runs of it there)."""
    return (cells.select(*CELL, "algorithm", "fraction").collect()
            .pivot(on="algorithm", index=list(CELL), values="fraction"))


# -- the declarations -----------------------------------------------------------------------------------------
GRID = [Param("budgets", None, (NONE, Items(Interval(float, 0, None, "neither"))),
              "Budgets in evaluations (default: `points` integers log-spaced from 1 to the longest run)."),
        Param("points", 20, (Interval(int, 1, 1000),), "Budgets of the default grid.")]


def _cells(inputs: Inputs, s) -> pl.LazyFrame:
    from .eaf import budget_grid

    return ecdf_cells(inputs.hits(), budget_grid(inputs.runs(), inputs, s))


def _parts(inputs: Inputs) -> list[Inputs]:
    """The inputs of each (suite, dimension) of the selection, in order (none selected: the inputs): the
    cells of one at a time, a sixth of the hitting times and (algorithm, cell) fractions of six dimensions."""
    import dataclasses

    keys = inputs.runs().select("suite", "dimension").unique().sort("suite", "dimension").collect()
    return [dataclasses.replace(inputs, selection=inputs.selection.narrow(suite=(suite,), dimension=(d,)))
            for suite, d in keys.iter_rows()] or [inputs]


def _vbs(inputs: Inputs, s) -> pl.LazyFrame:
    import polars as pl

    return pl.concat([vbs(_cells(part, s)).collect() for part in _parts(inputs)]).lazy()


register(Measure(
    name="vbs", summary="The virtual best solver: the best ECDF value of any algorithm per target and budget.",
    seed="IOHanalyzer get_shapley_values (docs/measures.md)", inputs=("runs", "hits"), keys=CELL,
    descending=(False, False, False, True, False), groupable=False, settings=settings_class("vbs", GRID),
    spec=_vbs, columns=(*CELL, "fraction", "algorithm", "algorithms"), charts=("vbs",), command="vbs"))


def _shapley(inputs: Inputs, s) -> pl.LazyFrame:
    """Exact or sampled, from the cells of each (suite, dimension) in turn (`_parts`)."""
    import polars as pl

    if s.method == "exact":
        table = exact([contributions(_cells(part, s)) for part in _parts(inputs)])
    else:
        table = sampled([wide(_cells(part, s)) for part in _parts(inputs)], s.permutations, s.seed)
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
