"""Distributions of single trials, as cocopp's pprldistr and pprldistr2 (seed 000, "Empirical
Distribution Functions"; the fixed-budget view of seed 003): the ECDF of the trials' own runtimes to
reach a target, of the best precision reached within a budget, and of the runtime ratios of two
algorithms over pairs of trials. Unlike `ecdf`, no simulated restarts: each trial counts once, with
cocopp's instance balancing (`weight`) where the runtimes are concerned.

Each function takes and gives LazyFrames and is grouped by function groups through a (suite, function,
group) frame (`groups.membership`; None: every function in the group "all"). The steps are exact: a
chart thins them for drawing.

Examples
--------
Two trials of one algorithm in 2-D, one reaching the target after 20 evaluations, the other not:
half of the trials at x = 10 evaluations / dimension.

>>> import polars as pl
>>> hits = pl.LazyFrame({"suite": "bbob", "algorithm": "A", "function": 1, "dimension": 2, "target": 1.0,
...                      "hit": [20, None], "evaluations": [20, 50], "success": [True, False], "weight": 1})
>>> steps, summary = runtime_distribution(hits)
>>> steps.select("x", "fraction").collect().rows()
[(10.0, 0.5)]
>>> summary.select("final_fraction", "functions_solved", "max_x").collect().rows()
[(0.5, 1, 25.0)]
"""
from __future__ import annotations

import numpy as np
import polars as pl

from ..conventions import PRECISION_FLOOR
from ..vocabulary import FUNCTION_GROUP, FUNCTION_TARGET

#: cocopp pprldistr's targets and budgets (multiples of the dimension)
RT_TARGETS = (1e1, 1e-1, 1e-4, 1e-8)
BUDGETS = (0.5, 1.2, 3, 10, 100, 1000, 1e4, 1e5, 1e6, 1e7)
#: what a runtime distribution is per, and a precision distribution
RUNTIME_KEY = ["suite", "algorithm", "dimension", FUNCTION_GROUP, "target"]
PRECISION_KEY = ["suite", "algorithm", "dimension", FUNCTION_GROUP, "budget"]
#: what a runtime-ratio distribution is per
RATIO_KEY = [FUNCTION_GROUP, "dimension", "target"]


def in_groups(frame: pl.LazyFrame, groups: pl.LazyFrame | None = None) -> pl.LazyFrame:
    """`frame`'s rows with their function group (a row per group a function is in); `groups`: (suite,
    function, group) rows, None: every function in "all"."""
    g = groups if groups is not None else frame.select("suite", "function").unique().with_columns(
        pl.lit("all").alias(FUNCTION_GROUP))
    fn = frame.collect_schema()["function"]
    return frame.join(g.select("suite", pl.col("function").cast(fn), FUNCTION_GROUP), on=["suite", "function"],
                      how="inner")


def _lazy(frame: pl.LazyFrame | pl.DataFrame | None) -> pl.LazyFrame | None:
    return frame.lazy() if isinstance(frame, pl.DataFrame) else frame


def runtime_distribution(hits: pl.LazyFrame, groups: pl.LazyFrame | None = None
                         ) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """ECDF of the trials' runtimes per (suite, algorithm, dimension, group, target): the steps (x =
    evaluations / dimension, fraction of the weighted trials x functions) and a summary with
    `final_fraction`, `functions_solved` (functions with a success), `functions` and `max_x` (the
    largest evaluations / dimension of a trial)."""
    key = RUNTIME_KEY
    h = in_groups(hits, _lazy(groups)).with_columns(x=pl.col("hit").cast(pl.Float64) / pl.col("dimension"),
                                                     evx=pl.col("evaluations").cast(pl.Float64) / pl.col("dimension"))
    summ = h.group_by(key).agg(
        W=pl.col("weight").sum(), won=(pl.col("weight") * pl.col("success")).sum(),
        functions_solved=pl.col("function").filter("success").n_unique(), functions=pl.col("function").n_unique(),
        max_x=pl.col("evx").max(),
    ).with_columns(final_fraction=pl.col("won") / pl.col("W"))
    steps = (h.filter("success").group_by(*key, "x").agg(w=pl.col("weight").sum()).sort(*key, "x")
             .with_columns(c=pl.col("w").cum_sum().over(key)).join(summ.select(*key, "W"), on=key, maintain_order="left")
             .with_columns(fraction=pl.col("c") / pl.col("W")).select(*key, "x", "fraction"))
    return steps, summ.drop("W", "won").sort(key)


def precision_distribution(values: pl.LazyFrame, groups: pl.LazyFrame | None = None,
                           floor: float = PRECISION_FLOOR) -> pl.LazyFrame:
    """ECDF of the best precision reached per (suite, algorithm, dimension, group, budget) from
    `Analysis.fixed_budget(..., summary=False)` rows (precision in `best_delta`, null = no record yet:
    never counted, but in the trials counted); precisions below `floor` count at it."""
    key = PRECISION_KEY
    v = in_groups(values, _lazy(groups)).with_columns(x=pl.col("best_delta").clip(lower_bound=floor))
    n = v.group_by(key).agg(n=pl.len())
    return (v.filter(pl.col("x").is_not_null()).group_by(*key, "x").agg(k=pl.len()).sort(*key, "x")
            .with_columns(c=pl.col("k").cum_sum().over(key)).join(n, on=key, maintain_order="left")
            .with_columns(fraction=pl.col("c") / pl.col("n")).select(*key, "x", "fraction"))


def runtime_ratios(hits: pl.LazyFrame, a: str, b: str, groups: pl.LazyFrame | None = None, clip: float = 4.0
                   ) -> pl.LazyFrame:
    """ECDF of log10(runtime_b / runtime_a) over all pairs of trials of `a` and `b` per (function,
    dimension, target), aggregated per (group, dimension, target) (cocopp pprldistr2): pairs where
    both failed are left out, a pair where only `a` failed counts at the left end (x = -clip), where
    only `b` failed never. Columns group, dimension, target, x, fraction, pairs, functions_a,
    functions_b (functions with at least one success)."""
    h = in_groups(hits, _lazy(groups)).select(
        "algorithm", FUNCTION_GROUP, *FUNCTION_TARGET,
        rt=pl.when("success").then(pl.col("hit").cast(pl.Float64)).otherwise(np.inf))
    ha = h.filter(pl.col("algorithm") == a).drop("algorithm").rename({"rt": "rt_a"})
    hb = h.filter(pl.col("algorithm") == b).drop("algorithm").rename({"rt": "rt_b"})
    pairs = (ha.join(hb, on=[FUNCTION_GROUP, *FUNCTION_TARGET], how="inner")
             .filter(pl.col("rt_a").is_finite() | pl.col("rt_b").is_finite()))
    lr = (pl.col("rt_b") / pl.col("rt_a")).log10()
    pairs = pairs.with_columns(x=pl.when(pl.col("rt_a").is_infinite()).then(-clip).otherwise(lr.clip(-clip, None)))
    gk = RATIO_KEY
    solved = h.group_by("algorithm", *gk, "function").agg(ok=pl.col("rt").is_finite().any())
    nf = solved.group_by("algorithm", *gk).agg(n=pl.col("ok").sum())
    tot = pairs.group_by(gk).agg(pairs=pl.len())
    steps = (pairs.filter(pl.col("x").is_finite()).group_by(*gk, "x").agg(k=pl.len()).sort(*gk, "x")
             .with_columns(c=pl.col("k").cum_sum().over(gk)).join(tot, on=gk, maintain_order="left")
             .with_columns(fraction=pl.col("c") / pl.col("pairs")).select(*gk, "x", "fraction", "pairs"))
    for alg, name in ((a, "functions_a"), (b, "functions_b")):
        steps = steps.join(nf.filter(pl.col("algorithm") == alg).select(*gk, pl.col("n").alias(name)), on=gk,
                           how="left")
    return steps.sort(*gk, "x")
