"""aRT loss ratio against a reference algorithm versus budget, as cocopp's pplogloss.

For a budget B (evaluations = x * dimension) and a function, f_t is the hardest target of the
grid whose aRT for the algorithm is at most B; the loss ratio is the algorithm's aRT for f_t, or
B when the reference reached a harder target within B, divided by the reference's aRT for f_t
(cocopp: "the aRT to reach f_t for the given algorithm or the budget, if the best algorithm
reached a better target within the budget, divided by the aRT of the best algorithm to reach
f_t"; cocopp takes f_t among the data set's own targets, here from the target grid, the 51 bbob
targets by default, which stop at 100: `pipeline.paper.build.loss_targets` gives cocopp's). The
reference's harder target counts where it reached it in fewer than B evaluations, as in cocopp.
Where the reference never reached f_t its aRT is the largest finite aRT of the function and
dimension. Budgets at which the algorithm reached no target give no ratio. Per (dimension,
group, budget): the geometric mean over functions, the quartiles and the 10-90 % range.

Examples
--------
Algorithm A reaches target 1 in 10 evaluations, the reference R in 20; within a budget of 10
evaluations / dimension in 1-D, A is twice as fast:

>>> import polars as pl
>>> art = pl.LazyFrame({"suite": "bbob", "algorithm": ["A", "R"], "function": 1, "dimension": 1,
...                     "target": 1.0, "art": [10.0, 20.0]})
>>> loss_ratios(art, "R", [10.0]).select("algorithm", "x", "p50", "functions").collect().rows()
[('A', 10.0, 0.5, 1)]
"""
from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from ..vocabulary import FUNCTION_DIMENSION, FUNCTION_GROUP

#: the rows of a loss-ratio summary: an algorithm in a dimension and function group, at a budget
LOSS_KEY = ["suite", "algorithm", "dimension", FUNCTION_GROUP, "x"]


def _best_within(art: pl.LazyFrame, budgets: Sequence[float], strict: bool = False) -> pl.LazyFrame:
    """Per (algorithm, function, dimension, budget x): the hardest target reached within x * dimension
    evaluations (`target`; `strict`: in fewer), its aRT and the budget in evaluations (`limit`)."""
    b = pl.LazyFrame({"x": [float(v) for v in budgets]})
    within = art.join(b, how="cross").with_columns(limit=pl.col("x") * pl.col("dimension"))
    within = within.filter(pl.col("art") < pl.col("limit") if strict else pl.col("art") <= pl.col("limit"))
    return within.group_by("algorithm", *FUNCTION_DIMENSION, "x").agg(
        pl.col("target").min(), pl.col("limit").first(), pl.col("art").sort_by("target").first())


def function_ratios(art: pl.LazyFrame, reference: str, budgets: Sequence[float]) -> pl.LazyFrame:
    """The loss ratio (`loss`) per (suite, algorithm, function, dimension, budget x) of every algorithm of `art`
    but the reference; budgets at which the algorithm reached no target give no row."""
    key = list(FUNCTION_DIMENSION)
    best = _best_within(art, budgets)
    ref_best = _best_within(art.filter(pl.col("algorithm") == reference), budgets, strict=True).select(
        *key, "x", ref_target="target")  # cocopp: the reference's aRT of a harder target below the budget
    ref = art.filter(pl.col("algorithm") == reference).select(*key, "target", ref_art="art")
    cap = art.group_by(key).agg(cap=pl.col("art").filter(pl.col("art").is_finite()).max())
    loss = (best.filter(pl.col("algorithm") != reference)
            .join(ref_best, on=[*key, "x"], how="left").join(ref, on=[*key, "target"], how="left")
            .join(cap, on=key, how="left")
            .with_columns(numerator=pl.when(pl.col("ref_target") < pl.col("target")).then("limit").otherwise("art"),
                          ref_art=pl.when(pl.col("ref_art").is_finite()).then("ref_art").otherwise("cap"))
            .with_columns(loss=pl.col("numerator") / pl.col("ref_art")))
    return loss


def loss_ratios(art: pl.LazyFrame, reference: str, budgets: Sequence[float], groups: pl.LazyFrame | None = None
                ) -> pl.LazyFrame:
    """Loss ratios per (algorithm, function, dimension, budget) summarised per (suite, algorithm,
    dimension, group, budget): columns x (budget / dimension), geomean, p10, p25, p50, p75, p90,
    functions, min, max. `art` holds the algorithms and the reference (`Analysis.art()` rows);
    `groups`: (suite, function, group) rows, None: every function in "all"."""
    loss = function_ratios(art, reference, budgets)
    g = groups if groups is not None else loss.select("suite", "function").unique().with_columns(
        pl.lit("all").alias(FUNCTION_GROUP))
    fn = loss.collect_schema()["function"]
    loss = loss.join(g.select("suite", pl.col("function").cast(fn), FUNCTION_GROUP), on=["suite", "function"],
                     how="inner")
    q = {f"p{p}": pl.col("loss").quantile(p / 100, "linear") for p in (10, 25, 50, 75, 90)}
    return (loss.filter(pl.col("loss").is_finite() & (pl.col("loss") > 0))
            .group_by(LOSS_KEY)
            .agg(geomean=10 ** pl.col("loss").log10().mean(),
                 **q, functions=pl.len(), min=pl.col("loss").min(), max=pl.col("loss").max())
            .sort("algorithm", "dimension", FUNCTION_GROUP, "x"))
