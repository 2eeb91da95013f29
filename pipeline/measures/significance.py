"""Rank-sum tests between algorithms on cocopp's test data, and multiple-testing corrections (seed 003,
"Statistical Analysis": the rank-sum test, two-sided, with a Bonferroni correction; cocopp's
`toolsstats.significancetest`, which its aRT tables `pptable` and `compall.pptables` mark).

The data tested are those of cocopp's `significancetest`: per target, FE_umin is the smallest number
of evaluations of an unsuccessful trial of either algorithm (infinite when all trials of both
succeeded). A trial that reached the target within FE_umin evaluations scores 1 / runtime; every other
trial scores its precision at FE_umin, negated and shifted below zero, so it ranks behind every
successful trial and, among unsuccessful ones, by the precision it had reached after FE_umin
evaluations (larger scores are better). The two score vectors go into
`scipy.stats.mannwhitneyu(..., alternative="two-sided")`, one score per trial (no instance balancing,
as in cocopp). A difference counts (`TestResult.consistent`) only where the better-ranked algorithm also
has the smaller aRT (`compare`).

`compare` states the test of one pair (`pairwise_tests_spec` every pair that way). `pairwise_tests` and
`best_and_reference` make all the tests of a table at once (`pipeline.measures._kernels.ranksum`: the U
statistics of all pairs from one sort of the pooled scores, the p-values as scipy computes them),
equal to `compare` on each pair (tests/test_kernels.py; tests/test_tables.py holds them to the per-run
reference tests/tables_reference.py).

Examples
--------
x reaches the target after 10 and 20 evaluations, y after 30, 40 and 50: every score of x ranks above
every score of y (U = 6 of 6 pairs), and scipy's exact p-value is 2 / C(5, 2) = 0.2.

>>> import numpy as np
>>> from pipeline.measures.significance import compare
>>> never = lambda fe: np.array([])  # no trial is late: no precision is read
>>> r = compare([10, 20], [10, 20], never, [30, 40, 50], [30, 40, 50], never)
>>> r.statistic, round(r.p_value, 12), r.direction, r.consistent
(6.0, 0.2, 1, True)
"""
from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from ._kernels import ranksum as kernel
from .art import art
from .checked import CORRECTION, CORRECTIONS  # noqa: F401 - the declared corrections, named here too
from ..vocabulary import TABLE_CELL

#: significance level of the markers
ALPHA = 0.05
#: cocopp's family of tests, corrected together: the functions of a dimension, for one target (and one pair of
#: algorithms in the pairwise tests); the aRT tables and the pairwise tests of a report correct the same family
PAIR_FAMILY = ("suite", "dimension", "target", "algorithm_a", "algorithm_b")
#: how the pages, captions and CSVs name `PAIR_FAMILY`
FAMILY_TEXT = "the functions of a dimension, per pair of algorithms and target (cocopp's family)"


# -- the test of one pair --------------------------------------------------------------------------------
def fe_umin(hits: Sequence[np.ndarray], evaluations: Sequence[np.ndarray]) -> float:
    """Smallest evaluations of an unsuccessful trial (hit is NaN) over all data sets; inf if none."""
    fe = math.inf
    for h, e in zip(hits, evaluations):
        uns = np.isnan(h)
        if uns.any():
            fe = min(fe, float(np.min(e[uns])))
    return fe


def test_data(hit_x: np.ndarray, evals_x: np.ndarray, prec_x: Callable[[float], np.ndarray],
              hit_y: np.ndarray, evals_y: np.ndarray, prec_y: Callable[[float], np.ndarray]
              ) -> tuple[np.ndarray, np.ndarray, float]:
    """The two score vectors cocopp's `significancetest` ranks, and FE_umin (the module).

    Parameters
    ----------
    hit_x, hit_y : numpy.ndarray
        Runtime to the target per trial (NaN if not reached).
    evals_x, evals_y : numpy.ndarray
        The trials' evaluations.
    prec_x, prec_y : callable
        `prec(fe)`: each trial's best precision after `fe` evaluations (inf before its first record).

    Returns
    -------
    (numpy.ndarray, numpy.ndarray, float)
        The scores of x and y (larger is better), and FE_umin.
    """
    hit_x, hit_y = np.asarray(hit_x, float), np.asarray(hit_y, float)
    evals_x, evals_y = np.asarray(evals_x, float), np.asarray(evals_y, float)
    fe = fe_umin((hit_x, hit_y), (evals_x, evals_y))
    fvals = None
    if math.isfinite(fe):
        fvals = (np.asarray(prec_x(fe), float), np.asarray(prec_y(fe), float))
        finite = [v[np.isfinite(v)] for v in fvals]
        offset = 1.01 * min([0.0, *(float(v.min()) for v in finite if len(v))])
    out = []
    for j, h in enumerate((hit_x, hit_y)):
        late = np.isnan(h) | (h > fe)
        v = np.empty(len(h))
        v[~late] = 1.0 / h[~late]
        if late.any():
            v[late] = -fvals[j][late] + offset  # <= 0: behind every success; smaller precision is better
        out.append(v)
    return out[0], out[1], fe


@dataclass(frozen=True)
class TestResult:
    """One rank-sum test: U of x, two-sided p-value, which side ranks better (+1 x, -1 y, 0 tie),
    and whether the better-ranked side also has the smaller aRT (cocopp's consistency rule)."""

    statistic: float
    p_value: float
    direction: int
    consistent: bool

    @property
    def p_marked(self) -> float:
        """The p-value used for markers: 1 when the ranks and the aRTs disagree (cocopp)."""
        return self.p_value if self.consistent else 1.0


def ranksum(x: np.ndarray, y: np.ndarray) -> tuple[float, float, int]:
    """scipy's two-sided Mann-Whitney U test: (U of x, p, +1 if x ranks higher / -1 lower / 0).

    Examples
    --------
    >>> u, p, d = ranksum([3.0, 4.0], [1.0, 2.0])
    >>> u, round(p, 6), d
    (4.0, 0.333333, 1)
    """
    from scipy.stats import mannwhitneyu  # scipy.stats takes about 0.7 s to load: not with the measures

    x, y = np.asarray(x, float), np.asarray(y, float)
    r = mannwhitneyu(x, y, alternative="two-sided")
    u, p = float(r.statistic), float(r.pvalue)
    if not math.isfinite(p):
        p = 1.0
    mid = len(x) * len(y) / 2
    return u, min(p, 1.0), (u > mid) - (u < mid)


def _art_avg(hit: np.ndarray, evals: np.ndarray) -> tuple[float, float]:
    """Unbalanced aRT and average evaluations (cocopp's detERT / detAverageEvals in its test)."""
    succ = ~np.isnan(hit)
    cost = float(np.where(succ, hit, evals).sum())
    return (cost / succ.sum() if succ.any() else math.inf), cost / len(hit)


def compare(hit_x, evals_x, prec_x, hit_y, evals_y, prec_y) -> TestResult:
    """Rank-sum test of algorithm x against y on one target (`test_data` scores, larger are better).

    Parameters are those of `test_data`. As in cocopp, a difference only counts (`consistent`) when
    the better-ranked algorithm also has an aRT not larger than the other's and, when its aRT is finite, fewer average evaluations
    (aRT and averages over the raw trials, as cocopp computes them in the test). cocopp 2.9.1
    means the same but checks "aRT is infinite" with `is np.inf`, which is never true for its numpy
    values, so it also asks for fewer average evaluations when both aRTs are infinite (only
    precisions after the same FE_umin evaluations are compared then); we follow the intent.
    The score vectors themselves rank exactly as cocopp's (tests/test_tables_render.py).

    Returns
    -------
    TestResult
        U of x, the two-sided p-value, the direction and cocopp's consistency.
    """
    x, y, _ = test_data(hit_x, evals_x, prec_x, hit_y, evals_y, prec_y)
    u, p, d = ranksum(x, y)
    consistent = True
    if d != 0:
        sx = _art_avg(np.asarray(hit_x, float), np.asarray(evals_x, float))
        sy = _art_avg(np.asarray(hit_y, float), np.asarray(evals_y, float))
        (art_b, avg_b), (art_w, avg_w) = (sx, sy) if d > 0 else (sy, sx)
        consistent = art_b <= art_w and (math.isinf(art_b) or avg_b < avg_w)
    return TestResult(u, p, d, consistent)


# -- multiple testing ------------------------------------------------------------------------------------
def bonferroni(p: np.ndarray) -> np.ndarray:
    """min(1, m p) over a family of m p-values.

    Examples
    --------
    >>> bonferroni([0.01, 0.04, 0.5]).tolist()
    [0.03, 0.12, 1.0]
    """
    p = np.asarray(p, float)
    return np.minimum(1.0, p * len(p))


def holm(p: np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values: max over j <= i of min(1, (m - j + 1) p_(j)).

    Examples
    --------
    >>> holm([0.01, 0.04, 0.03]).tolist()
    [0.03, 0.06, 0.06]
    """
    p = np.asarray(p, float)
    m = len(p)
    if m == 0:
        return p
    order = np.argsort(p, kind="stable")
    adj = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    out = np.empty(m)
    out[order] = adj
    return out


def correct(p: np.ndarray, method: str = "bonferroni") -> np.ndarray:
    """Corrected p-values of one family of tests: `bonferroni` or `holm` (`method`)."""
    if method == "bonferroni":
        return bonferroni(p)
    CORRECTION.check(method)
    return holm(p)


def correct_frame(df: pl.DataFrame, p: str, out: str, family: list[str], method: str) -> pl.DataFrame:
    """`correct` within each family of tests of a frame.

    Parameters
    ----------
    df : polars.DataFrame
        One row per test.
    p : str
        The column of p-values.
    out : str
        The column to add: the corrected p-values.
    family : list of str
        Rows with equal `family` columns form a family (all rows when empty).
    method : str
        One of `CORRECTIONS`.

    Returns
    -------
    polars.DataFrame
        `df` with `out` and family_size (the number of tests in the row's family).
    """
    CORRECTION.check(method)
    if df.height == 0:
        return df.with_columns(pl.lit(None, pl.Float64).alias(out), family_size=pl.lit(None, pl.Int64))
    over = (lambda e: e.over(family)) if family else (lambda e: e)
    m = over(pl.len()).cast(pl.Int64)
    pv = pl.col(p).cast(pl.Float64)
    if method == "bonferroni":
        return df.with_columns(pl.min_horizontal(pl.lit(1.0), pv * m).alias(out), family_size=m)
    idx = df.select(pl.int_range(pl.len(), dtype=pl.Int64).alias("_i"), *[pl.col(c) for c in family], pv.alias("_p"))
    idx = idx.sort([*family, "_p"], nulls_last=True)
    j = over(pl.int_range(pl.len(), dtype=pl.Int64))
    adj = idx.select("_i", _adj=over(((m - j) * pl.col("_p")).cum_max()), _m=m)
    order = adj["_i"].to_numpy()
    vals, sizes = np.empty(df.height), np.empty(df.height, np.int64)
    vals[order] = np.minimum(1.0, adj["_adj"].to_numpy())
    sizes[order] = adj["_m"].to_numpy()
    return df.with_columns(pl.Series(out, vals), pl.Series("family_size", sizes))


def smallest_p(n_a: int, n_b: int) -> float:
    """The smallest two-sided p-value `ranksum` gives with n_a against n_b trials (every trial of one side
    ranked above every trial of the other); 1 without trials.

    >>> round(smallest_p(5, 15), 7), smallest_p(2, 2)
    (0.000129, 0.3333333333333333)
    """
    return _smallest_p(int(n_a), int(n_b))


@functools.lru_cache(maxsize=4096)
def _smallest_p(n_a: int, n_b: int) -> float:
    if n_a < 1 or n_b < 1:
        return 1.0
    return ranksum(np.arange(n_a, dtype=float) + n_b, np.arange(n_b, dtype=float))[1]


def with_reachable(df: pl.DataFrame, n_a: str, n_b: str, family: list[str], method: str, alpha: float
                   ) -> pl.DataFrame:
    """`df` (tests corrected by `correct_frame`: family_size) with p_min, the smallest p-value its trial counts
    (columns `n_a`, `n_b`) allow, and alpha_reachable: whether the corrected p-value can fall below `alpha` at all.

    Bonferroni multiplies p_min by the family's size; Holm's corrected p is at least the row's p_min and at least
    the family's size times the family's smallest p_min."""
    p_min = pl.Series("p_min", [smallest_p(a, b) for a, b in zip(df[n_a], df[n_b])], pl.Float64)
    df = df.with_columns(p_min)
    m = pl.col("family_size").cast(pl.Float64)
    if method == "bonferroni":
        bound = m * pl.col("p_min")
    else:
        least = pl.col("p_min").min().over(family) if family else pl.col("p_min").min()
        bound = pl.max_horizontal(pl.col("p_min"), m * least)
    return df.with_columns(alpha_reachable=bound < alpha)


# -- the precision of a trial at FE_umin --------------------------------------------------------------------
def precisions_spec(events: pl.LazyFrame, queries: pl.DataFrame) -> pl.DataFrame:
    """Each queried run's best precision after `fe` evaluations, as cocopp's `DataSet.funvals` reads it.

    The records are the budget-triggered (.tdat) ones, or all records of a run without any; the best
    precision after fe evaluations is the smallest of the records at or before fe (inf before the first).

    Parameters
    ----------
    events : polars.LazyFrame
        Records: run_id, evaluations, best_delta, trigger (bit 2: a budget-triggered record).
    queries : polars.DataFrame
        run_id and fe (evaluations).

    Returns
    -------
    polars.DataFrame
        run_id, fe and prec, one row per query, in the order of `queries`.
    """
    budget = (pl.col("trigger") & 2) != 0
    records = (events.select("run_id", "evaluations", "best_delta", "trigger")
               .filter(budget | ~budget.any().over("run_id"))
               .group_by("run_id", "evaluations").agg(best=pl.col("best_delta").cast(pl.Float64).min())
               .sort("run_id", "evaluations").with_columns(best=pl.col("best").cum_min().over("run_id"))
               .select("run_id", "best", fe=pl.col("evaluations").cast(pl.Float64)).sort("fe").collect())
    q = queries.select("run_id", pl.col("fe").cast(pl.Float64)).with_row_index("_q")
    return (q.sort("fe").join_asof(records, on="fe", by="run_id", strategy="backward", check_sortedness=False)
            .sort("_q").select("run_id", "fe", prec=pl.col("best").fill_null(math.inf)))


# -- the tests of a table ------------------------------------------------------------------------------------
def _cells(trials: pl.DataFrame, alg: str) -> pl.DataFrame:
    """Per (problem, target) group g and algorithm `alg` of `trials` (g, alg, the `TABLE_CELL` columns, target,
    success, hitf and evf: hit and evaluations as floats): trials, umin (FE_umin alone: the smallest
    evaluations of an unsuccessful trial, inf if none), and art_u and avg, the unbalanced aRT and average
    evaluations of cocopp's consistency rule."""
    cost = pl.when(pl.col("success")).then(pl.col("hitf")).otherwise(pl.col("evf"))
    return trials.group_by("g", alg, maintain_order=True).agg(
        *[pl.col(c).first() for c in (*TABLE_CELL, "target", "algorithm")],
        trials=pl.len().cast(pl.Int64),
        umin=pl.col("evf").filter(~pl.col("success")).min().fill_null(math.inf),
        cost=cost.sum(), succ=pl.col("success").sum(),
    ).with_columns(
        art_u=pl.when(pl.col("succ") > 0).then(pl.col("cost") / pl.col("succ")).otherwise(math.inf),
        avg=pl.col("cost") / pl.col("trials"),
    )


def _numbers(alg: str, index: dict[str, int]) -> list[pl.Expr]:
    """The algorithm's index as `alg`, and hit (NaN where not reached) and evaluations as floats."""
    return [pl.col("algorithm").replace_strict(index, return_dtype=pl.Int64).alias(alg),
            pl.col("hit").cast(pl.Float64).fill_null(float("nan")).alias("hitf"),
            pl.col("evaluations").cast(pl.Float64).alias("evf")]


def best_and_reference(hits: pl.DataFrame, events: pl.LazyFrame, art_of: pl.DataFrame, final: pl.DataFrame,
                       order: Sequence[str], reference: str | None = None, chunk: int = 16
                       ) -> tuple[pl.DataFrame, pl.DataFrame | None]:
    """The tests of cocopp's aRT tables: the best algorithm of each (problem, target) against every other,
    and every algorithm against the reference.

    The best of a (problem, target) compared among two or more algorithms (the reference not counted)
    has the smallest aRT, or where no aRT is finite the best median final precision, the first in
    `order` on a tie. Each test is `compare` on the pair, on its own FE_umin. p_best is 1 where another
    algorithm ranks at least as well as the best, else the largest p-value of the consistent tests
    (cocopp's `compall.pptables`).

    Parameters
    ----------
    hits : polars.DataFrame
        First hitting times of the table targets: `TABLE_CELL` columns, target, algorithm, run_id, hit,
        evaluations, success.
    events : polars.LazyFrame
        The records of the trials (with their algorithm), for their precisions at FE_umin.
    art_of : polars.DataFrame
        The aRT (`art.art`) per (`TABLE_CELL`, target, algorithm).
    final : polars.DataFrame
        medf, the median final precision per (`TABLE_CELL`, algorithm).
    order : sequence of str
        The algorithms in the order of the selection.
    reference : str, optional
        The reference algorithm.
    chunk : int
        Records are read for groups of this many algorithms at a time.

    Returns
    -------
    (polars.DataFrame, polars.DataFrame or None)
        The best: `TABLE_CELL`, target, algorithm and p_best; with a reference, every other algorithm:
        `TABLE_CELL`, target, algorithm, p_ref, ref_direction (+1: better than the reference, -1: worse) and
        ref_consistent.
    """
    order = list(order)
    index = {x: i for i, x in enumerate(order)}
    ref_o = index.get(reference, -1)
    trials = (hits.select(*TABLE_CELL, "target", "algorithm", "run_id", "success", *_numbers("o", index))
              .sort(*TABLE_CELL, "target", "o"))
    trials = trials.with_columns(g=pl.struct(*TABLE_CELL, "target").rle_id().cast(pl.Int64))
    cells = (_cells(trials, "o").join(art_of.select(*TABLE_CELL, "target", "algorithm", "art"),
                                      on=[*TABLE_CELL, "target", "algorithm"], how="left", maintain_order="left")
             .join(final, on=[*TABLE_CELL, "algorithm"], how="left", maintain_order="left")
             .with_columns(pl.col("art").fill_null(math.inf), pl.col("medf").fill_null(math.inf)))
    compared = cells.filter(pl.col("o") != ref_o)
    finite = pl.col("art").is_finite().any().over("g")
    best = (compared.filter(pl.len().over("g") >= 2)
            .with_columns(_key=pl.when(finite).then(pl.col("art")).otherwise(pl.col("medf")))
            .sort("g", "_key", "o").group_by("g", maintain_order=True).agg(best=pl.col("o").first()))
    best_of = dict(zip(*best.select("g", "best").to_numpy().T.tolist())) if best.height else {}
    pivots = {g: [b] for g, b in best_of.items()}
    if reference:
        for g in cells.filter(pl.col("o") == ref_o)["g"].to_list():
            pivots.setdefault(g, []).append(ref_o)
    keys = cells.group_by("g", maintain_order=True).agg(*[pl.col(c).first() for c in (*TABLE_CELL, "target")]).rows()
    best_rows, ref_rows = [], []
    for gi, pivot, others, p, d, cons in kernel.pivot_tests(trials, cells, pivots, ref_o, events, order, chunk):
        key = keys[gi][1:]
        if pivot != ref_o:
            # another algorithm ranking at least as well as the best gives 1; else the largest p of consistent tests
            pb = 1.0 if (d >= 0).any() else float(np.where(cons, p, 1.0).max())
            best_rows.append((*key, order[pivot], pb))
        else:
            ref_rows += [(*key, order[x], float(pp), int(dd), bool(cc)) for x, pp, dd, cc in zip(others, p, d, cons)]
    schema = {"suite": pl.String, "dimension": hits.schema["dimension"], "function": hits.schema["function"],
              "target": pl.Float64, "algorithm": pl.String}
    best = pl.DataFrame(best_rows, schema={**schema, "p_best": pl.Float64}, orient="row")
    if not reference:
        return best, None
    return best, pl.DataFrame(ref_rows, schema={**schema, "p_ref": pl.Float64, "ref_direction": pl.Int64,
                                                "ref_consistent": pl.Boolean}, orient="row")


def pairwise_tests(hits: pl.DataFrame, events: pl.LazyFrame, order: Sequence[str], *, chunk: int = 16,
             threads: int | None = None) -> pl.DataFrame:
    """The rank-sum test of every pair of algorithms per (suite, dimension, function, target).

    Parameters
    ----------
    hits : polars.DataFrame
        First hitting times of the targets tested: `TABLE_CELL` columns, target, algorithm, run_id, trial,
        hit, evaluations, success and weight.
    events : polars.LazyFrame
        The records of the trials (with their algorithm), for their precisions at FE_umin.
    order : sequence of str
        The algorithms in the order of the selection: a pair (a, b) has a before b.
    chunk : int
        Records are read for groups of this many algorithms at a time.
    threads : int, optional
        Threads testing the (problem, target) groups (default: as many as Polars' thread pool: the CPUs,
        unless POLARS_MAX_THREADS limits it, as in a report's workers).

    Returns
    -------
    polars.DataFrame
        `TABLE_CELL` columns, target, algorithm_a, algorithm_b, trials_a/b, art_a/b (instance-balanced aRT),
        statistic (U of a), p_value (two-sided), better (the better-ranked algorithm, null on a tie) and
        consistent (cocopp's rule): `compare` on every pair (`pairwise_tests_spec`), sorted by (`TABLE_CELL`, target
        descending), the pairs of a group in the order of the names.
    """
    order = list(order)
    index = {x: i for i, x in enumerate(order)}
    # (problem, target) groups numbered in (suite, dimension, function, descending target) order
    gkeys = (hits.select(*TABLE_CELL, "target").unique().sort(*TABLE_CELL, "target", descending=[False, False, False, True])
             .with_row_index("g").with_columns(pl.col("g").cast(pl.Int64)))
    trials = kernel.sorted_trials(hits.join(gkeys, on=[*TABLE_CELL, "target"]).with_columns(*_numbers("a", index)))
    balanced = art(hits.lazy()).select(*TABLE_CELL, "target", "algorithm", "art").collect()
    cells = _cells(trials, "a").join(balanced, on=[*TABLE_CELL, "target", "algorithm"], how="left", maintain_order="left")
    return kernel.group_pairs(trials, cells, gkeys, events, order, chunk, threads)


def pairwise_tests_spec(hits: pl.DataFrame, events: pl.LazyFrame, order: Sequence[str]) -> pl.DataFrame:
    """The definition of `pairwise_tests`: `compare` on each pair, one pair at a time.

    Parameters and Returns as `pairwise_tests`."""
    order = list(order)
    balanced = art(hits.lazy()).select(*TABLE_CELL, "target", "algorithm", "art").collect()
    by_trial = hits.sort("trial", "run_id").group_by(*TABLE_CELL, "target", "algorithm", maintain_order=True).agg(
        "run_id", hit=pl.col("hit").cast(pl.Float64).fill_null(float("nan")), evals=pl.col("evaluations").cast(pl.Float64))

    def precision(runs: list[int]) -> Callable[[float], np.ndarray]:
        """The precisions of these runs after fe evaluations."""
        return lambda fe: precisions_spec(events, pl.DataFrame({"run_id": runs, "fe": float(fe)}))["prec"].to_numpy()

    rows = []
    for key, g in by_trial.sort(*TABLE_CELL, pl.col("target"), descending=[False] * 3 + [True]).group_by(
            *TABLE_CELL, "target", maintain_order=True):
        t = {r["algorithm"]: r for r in g.iter_rows(named=True)}
        for a, b in sorted((a, b) for a in t for b in t if order.index(a) < order.index(b)):
            r = compare(t[a]["hit"], t[a]["evals"], precision(t[a]["run_id"]),
                        t[b]["hit"], t[b]["evals"], precision(t[b]["run_id"]))
            rows.append((*key, a, b, len(t[a]["hit"]), len(t[b]["hit"]), r.statistic, r.p_value,
                         a if r.direction > 0 else b if r.direction < 0 else None, r.consistent))
    schema = {**{c: hits.schema[c] for c in TABLE_CELL}, "target": pl.Float64, "algorithm_a": pl.String,
              "algorithm_b": pl.String, "trials_a": pl.Int64, "trials_b": pl.Int64, "statistic": pl.Float64,
              "p_value": pl.Float64, "better": pl.String, "consistent": pl.Boolean}
    out = pl.DataFrame(rows, schema=schema, orient="row")
    on = [*TABLE_CELL, "target"]
    return (out.join(balanced.select(*on, algorithm_a="algorithm", art_a="art"), on=[*on, "algorithm_a"], how="left",
                     maintain_order="left")
            .join(balanced.select(*on, algorithm_b="algorithm", art_b="art"), on=[*on, "algorithm_b"], how="left",
                  maintain_order="left"))
