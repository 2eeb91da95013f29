"""aRT tables as cocopp's pptable / pptables lay them out, in long format, and the pairwise tests.

`art_table` gives one row per (suite, dimension, function, algorithm, target) with the aRT
(`pipeline.measures.art`), its ratio to a reference aRT, the 10th-90th percentile dispersion of
simulated restarts, success counts, the median final precision where a target was not reached, the
best algorithm of each column, and the rank-sum tests of `pipeline.measures.significance` (best against
all others, each against a reference algorithm) corrected for the number of functions tested, with
their markers. `pairwise_table` lays out the tests of every pair of algorithms.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from ..conventions import is_biobjective
from ..hits import targets as tg
from ..measures import art as art_m, significance, table_stats
from ..vocabulary import PROBLEM, TABLE_CELL
from .markers import marker, markers

#: the target cocopp counts #succ at (testbedsettings `pptable_ftarget`)
SUCC_TARGET = 1e-8
SUCC_TARGET_BIOBJ = 1e-5



def check_tests(correction: str, alpha: float) -> None:
    """`InvalidSetting` for a correction or a level the declarations (`catalog.CORRECTION`, `catalog.ALPHA`) refuse."""
    from ..measures.catalog import ALPHA, CORRECTION

    CORRECTION.check(correction)
    ALPHA.check(alpha)

def _tkey(col: str = "target") -> pl.Expr:
    """A join key for targets that ignores last-digit float differences (10**-7 vs 1e-7)."""
    return pl.col(col).cast(pl.Float64).round_sig_figs(9).alias("_tkey")


def table_targets(suites: Sequence[str], targets: str | Sequence[float] | None = None) -> pl.DataFrame:
    """(suite, target): cocopp's table targets per suite (TABLE, TABLE_BIOBJ), or the given ones."""
    rows = []
    for s in suites:
        ts = tg.parse(targets) if targets is not None else (tg.TABLE_BIOBJ if is_biobjective(s) else tg.TABLE)
        rows += [(s, float(t)) for t in ts]
    return pl.DataFrame(rows, schema={"suite": pl.String, "target": pl.Float64}, orient="row").unique(maintain_order=True)


def _succ_target(suite: str, succ_target: float | None) -> float:
    if succ_target is not None:
        return float(succ_target)
    return SUCC_TARGET_BIOBJ if is_biobjective(suite) else SUCC_TARGET


def algorithm_order(analysis, present: Sequence[str]) -> list[str]:
    """Algorithms in the order of the selection (--algorithm), else alphabetical."""
    sel = analysis.filters.get("algorithm")
    if sel:
        sel = [sel] if isinstance(sel, str) else list(sel)
        return [a for a in sel if a in set(present)] + sorted(set(present) - set(sel))
    return sorted(set(present))


# -- the aRT table ----------------------------------------------------------------------------
def _reference_frame(reference: pl.LazyFrame | pl.DataFrame) -> pl.DataFrame:
    ref = reference.collect() if isinstance(reference, pl.LazyFrame) else reference
    missing = {"function", "dimension", "target", "art"} - set(ref.columns)
    if missing:
        raise ValueError(f"reference aRT frame lacks columns {sorted(missing)} (needs function, dimension, target, art)")
    return ref.with_columns(pl.col("function").cast(pl.Int32), pl.col("dimension").cast(pl.Int32),
                            pl.col("target").cast(pl.Float64), pl.col("art").cast(pl.Float64))


def _store_algorithms(analysis) -> list[str]:
    return analysis.select(algorithm=None).algorithms()


def art_table(analysis, *, reference: str | pl.LazyFrame | pl.DataFrame | None = None,
              targets: str | Sequence[float] | None = None, correction: str = "bonferroni",
              reference_name: str | None = None, succ_target: float | None = None, samples: int = 1000,
              seed: int = 1, alpha: float = significance.ALPHA) -> pl.DataFrame:
    """The aRT table of an `Analysis` in long format: one row per (suite, dimension, function,
    algorithm, target); `role` is "reference" for the reference's own rows.

    `reference`: None for absolute aRTs; the name of an algorithm of the store (its aRT divides
    the others' and each algorithm is tested against it); or a frame with columns function,
    dimension, target, art (optionally suite, successes, trials), e.g. a reference set, named by
    `reference_name`. `targets`: a target name or list (default per suite: TABLE, TABLE_BIOBJ).
    `correction`: bonferroni or holm, over the functions tested per (suite, dimension, target).

    Columns: art (in evaluations), ref_art, value (art / ref_art, or art where the reference's
    aRT is infinite or without reference; `value_kind` says which), p10/p50/p90 (simulated restart
    runtimes) and disp_lo/disp_hi (p10, p90 on the scale of `value`), successes / runs (instance-
    balanced) and trials, median_final_delta and median_evaluations (set where no trial reached
    the target), succ / succ_trials (#succ: trials reaching `succ_target`), best (smallest finite
    aRT of the column), p_best / p_best_corrected / best_marker (best against every other
    algorithm, the largest p-value, 1 when one ranks at least as well), p_ref / ref_direction (+1
    better, -1 worse than the reference) / ref_consistent / p_ref_corrected / ref_marker, tests /
    ref_tests (number of tests in the correction family), ref_trials / ref_p_min / ref_alpha_reachable (the
    reference's trials, the smallest p-value the two trial counts allow, and whether the corrected p-value of
    the test against the reference can fall below alpha at all: `significance.with_reachable`), and the
    settings.
    """
    check_tests(correction, alpha)
    ref_alg, ref_frame, ref_label = _reference_of(analysis, reference, reference_name)
    ana = _with_reference_algorithm(analysis, ref_alg)
    suites = ana.suites()
    if not suites:
        raise ValueError("no data in the selection")
    tt = table_targets(suites, targets)
    st = pl.DataFrame({"suite": suites, "succ_target": [_succ_target(s, succ_target) for s in suites]})
    tf = pl.concat([tt, st.rename({"succ_target": "target"})]).unique()
    hits = ana.hits(tf.lazy()).collect()
    if hits.height == 0:
        raise ValueError("no trials for these targets in the selection")
    th = hits.join(tt, on=["suite", "target"], how="semi")
    a = _art_rows(ana, hits, th, st, ref_alg, samples, seed)
    a = _with_reference_art(a, ref_alg, ref_frame, ref_label)
    a = table_stats.with_best(_with_values(a), pl.col("role") == "algorithm")  # best per column of the compared
    a = _with_tests(a, ana, th, ref_alg, correction, alpha)
    return _laid_out(a, analysis, ref_label, correction, alpha, samples)


#: the columns of `art_table`, in order
COLUMNS = ["suite", "dimension", "function", "algorithm", "role", "target", "art", "ref_art", "reference", "value",
           "value_kind", "p10", "p50", "p90", "disp_lo", "disp_hi", "successes", "runs", "trials", "success_rate",
           "median_final_delta", "median_evaluations", "succ_target", "succ", "succ_trials", "best", "p_best",
           "p_best_corrected", "best_marker", "tests", "p_ref", "ref_direction", "ref_consistent", "p_ref_corrected",
           "ref_marker", "ref_tests", "ref_trials", "ref_p_min", "ref_alpha_reachable", "correction", "alpha", "samples"]


def _reference_of(analysis, reference, reference_name: str | None
                  ) -> tuple[str | None, pl.DataFrame | None, str | None]:
    """(the reference algorithm of the store, or the reference aRT frame, and the reference's label)."""
    ref_alg, ref_frame = None, None
    if isinstance(reference, str):
        if reference not in set(_store_algorithms(analysis)):
            raise ValueError(f"reference {reference!r} is not an algorithm of the store with data in the selection "
                             "(give a reference aRT frame with columns function, dimension, target, art for "
                             "other references)")
        ref_alg = reference
    elif reference is not None:
        ref_frame = _reference_frame(reference)
    return ref_alg, ref_frame, ref_alg or (reference_name or "reference" if ref_frame is not None else None)


def _with_reference_algorithm(analysis, ref_alg: str | None):
    """The analysis with the reference algorithm among the selected ones."""
    sel = analysis.filters.get("algorithm")
    if ref_alg and sel:
        sel = [sel] if isinstance(sel, str) else list(sel)
        if ref_alg not in sel:
            return analysis.select(algorithm=[*sel, ref_alg])
    return analysis


def _art_rows(ana, hits: pl.DataFrame, th: pl.DataFrame, st: pl.DataFrame, ref_alg: str | None, samples: int,
              seed: int) -> pl.DataFrame:
    """aRT, dispersion and trials per (problem, target) of the table targets `th`, with the final medians where
    the target was not reached, #succ at the success targets `st`, and the role."""
    a = art_m.art(th.lazy(), dispersion=True, percentiles=(10, 50, 90), samples=samples, seed=seed).collect()
    per_problem, succ = pl.collect_all([ana.final_medians(), table_stats.successes_at(hits.lazy(), st.lazy())])
    a = a.join(per_problem, on=PROBLEM, how="left").join(succ, on=PROBLEM, how="left")
    reached = pl.col("successes") > 0
    return a.with_columns(
        median_final_delta=pl.when(reached).then(None).otherwise(pl.col("median_final_delta")),
        median_evaluations=pl.when(reached).then(None).otherwise(pl.col("median_evaluations")),
        role=pl.when(pl.col("algorithm") == (ref_alg or "")).then(pl.lit("reference")).otherwise(pl.lit("algorithm")),
    )


def _with_reference_art(a: pl.DataFrame, ref_alg: str | None, ref_frame: pl.DataFrame | None, ref_label: str | None
                        ) -> pl.DataFrame:
    """`a` with the reference's aRT (`ref_art`) of each cell; a reference frame's own rows added for display."""
    if ref_alg:
        r = a.filter(pl.col("role") == "reference").select("suite", "function", "dimension", _tkey(), ref_art="art")
        return a.with_columns(_tkey()).join(r, on=["suite", "function", "dimension", "_tkey"], how="left").drop("_tkey")
    if ref_frame is None:
        return a.with_columns(ref_art=pl.lit(None, pl.Float64))
    ref_frame = ref_frame.with_columns(pl.col("function").cast(a.schema["function"]),
                                       pl.col("dimension").cast(a.schema["dimension"]))
    on = ["function", "dimension", "_tkey"] + (["suite"] if "suite" in ref_frame.columns else [])
    r = ref_frame.select(*[c for c in on if c != "_tkey"], _tkey(), ref_art=pl.col("art").cast(pl.Float64))
    a = a.with_columns(_tkey()).join(r.unique(on, keep="first"), on=on, how="left").drop("_tkey")
    rr = ref_frame.with_columns(_tkey())
    rows = a.select(*TABLE_CELL, "target", _tkey()).unique().join(rr.drop("target"), on=on, how="inner")
    rows = rows.select(
        *TABLE_CELL, "target", algorithm=pl.lit(ref_label), role=pl.lit("reference"), art=pl.col("art").cast(pl.Float64),
        successes=pl.col("successes").cast(pl.Int64) if "successes" in rr.columns else pl.lit(None, pl.Int64),
        trials=pl.col("trials").cast(pl.Int64) if "trials" in rr.columns else pl.lit(None, pl.Int64),
    ).with_columns(ref_art=pl.col("art"))
    return pl.concat([a, rows], how="diagonal_relaxed")


def _with_values(a: pl.DataFrame) -> pl.DataFrame:
    """`a` with the value shown (aRT / reference aRT where that is finite, else the aRT) and its dispersion."""
    ratio = pl.col("ref_art").is_not_null() & pl.col("ref_art").is_finite() & (pl.col("ref_art") > 0) & (
        pl.col("role") == "algorithm")
    denom = pl.when(ratio).then(pl.col("ref_art")).otherwise(1.0)
    return a.with_columns(
        value=pl.col("art") / denom, value_kind=pl.when(ratio).then(pl.lit("ratio")).otherwise(pl.lit("absolute")),
        disp_lo=pl.col("p10") / denom, disp_hi=pl.col("p90") / denom,
    )


def _laid_out(a: pl.DataFrame, analysis, ref_label: str | None, correction: str, alpha: float, samples: int
              ) -> pl.DataFrame:
    """The rows in cocopp's order (per cell: the reference, then the algorithms in the selection's order, targets
    easy to hard) with the settings, every column of `COLUMNS`."""
    order = algorithm_order(analysis, a["algorithm"].unique().to_list())
    a = a.with_columns(
        reference=pl.lit(ref_label, pl.String), correction=pl.lit(correction), alpha=pl.lit(alpha),
        samples=pl.lit(samples), _o=pl.col("algorithm").replace_strict(order, list(range(len(order))), default=len(order)),
        _r=pl.col("role") != "reference",
    ).sort("suite", "dimension", "function", "_r", "_o", "algorithm", "target",
           descending=[False, False, False, False, False, False, True]).drop("_o", "_r")
    for c in COLUMNS:
        if c not in a.columns:
            a = a.with_columns(pl.lit(None).alias(c))
    return a.select(COLUMNS)


def _events_of(analysis) -> pl.LazyFrame:
    """The records the tests read the precisions at FE_umin from (the queried runs of some algorithms are
    read at a time): the store's own records (no need to match them to the selected trials first) unless
    a budget cut or the recomputed indicator changes them."""
    if analysis.max_budget is None and analysis.indicator == "logged":
        return analysis.store.events()
    return analysis.events()


def _with_tests(a: pl.DataFrame, ana, hits: pl.DataFrame, ref_alg: str | None, correction: str, alpha: float
                ) -> pl.DataFrame:
    """`a` with the best-versus-others and versus-reference tests (`significance.best_and_reference`),
    corrected for the functions tested per (suite, dimension, target) (and algorithm against the
    reference), and their markers."""
    order = algorithm_order(ana, hits["algorithm"].unique().to_list())
    final = ana.final_medians().select(*PROBLEM, medf="median_final_delta").collect()
    best, ref = significance.best_and_reference(hits, _events_of(ana), a, final, order, ref_alg)
    fam = ["suite", "dimension", "target"]
    b = significance.correct_frame(best, "p_best", "p_best_corrected", fam, correction).rename({"family_size": "tests"})
    b = b.with_columns(best_marker=pl.col("p_best_corrected").map_elements(
        lambda p: marker("★", p, alpha), return_dtype=pl.String))
    a = a.join(b, on=[*TABLE_CELL, "target", "algorithm"], how="left")
    if ref is not None:
        r = significance.correct_frame(ref, "p_ref", "p_ref_corrected", [*fam, "algorithm"], correction)
        n = a.select(*TABLE_CELL, "target", "algorithm", "trials")
        r = r.join(n, on=[*TABLE_CELL, "target", "algorithm"], how="left").join(
            n.filter(pl.col("algorithm") == ref_alg).drop("algorithm").rename({"trials": "ref_trials"}),
            on=[*TABLE_CELL, "target"], how="left")
        r = significance.with_reachable(r.with_columns(pl.col("trials", "ref_trials").fill_null(0)), "trials",
                                        "ref_trials", [*fam, "algorithm"], correction, alpha).drop("trials").rename(
            {"family_size": "ref_tests", "p_min": "ref_p_min", "alpha_reachable": "ref_alpha_reachable"})
        r = r.with_columns(ref_marker=pl.struct("p_ref_corrected", "ref_direction", "ref_consistent").map_elements(
            lambda v: marker("↓" if v["ref_direction"] > 0 else "↑", v["p_ref_corrected"], alpha)
            if v["ref_consistent"] and v["ref_direction"] != 0 else "", return_dtype=pl.String))
        a = a.join(r, on=[*TABLE_CELL, "target", "algorithm"], how="left")
    return a


# -- pairwise tests ----------------------------------------------------------------------------------
def _table_hits(hits: pl.DataFrame, tt: pl.DataFrame, cols: list[str]) -> pl.DataFrame:
    """The rows of `hits` at the table targets `tt` (suite, target): a filter per suite, no join."""
    keep = pl.lit(False)
    for (suite,), part in tt.group_by(["suite"], maintain_order=True):
        keep = keep | ((pl.col("suite") == suite) & pl.col("target").is_in(part["target"].implode()))
    return hits.filter(keep).select(cols)


def family_name(family: Sequence[str]) -> str:
    """The name of a family of pairwise tests (the `family` column): `significance.FAMILY_TEXT` for cocopp's,
    "all" for every test made, else "per " and its columns."""
    if tuple(family) == significance.PAIR_FAMILY:
        return significance.FAMILY_TEXT
    return f"per {', '.join(family)}" if family else "all"


def pairwise_table(analysis, targets: str | Sequence[float] | None = None, correction: str = "bonferroni", *,
                   alpha: float = significance.ALPHA, family: Sequence[str] = significance.PAIR_FAMILY,
                   chunk: int = 16,
                   threads: int | None = None, hits: pl.DataFrame | None = None) -> pl.DataFrame:
    """Rank-sum tests for every pair of algorithms per (suite, dimension, function, target).

    Columns: algorithm_a, algorithm_b, trials_a/b, art_a/b (instance-balanced), statistic (U of a),
    p_value (two-sided, as scipy.stats.mannwhitneyu on cocopp's test data), better (the algorithm
    with the better ranks, null on a tie), consistent (the better-ranked one also has the smaller
    aRT, cocopp's rule), p_corrected (Bonferroni or Holm within each family of `tests` tests: the rows of equal
    `family` columns, by default cocopp's `significance.PAIR_FAMILY`, the functions of a dimension per pair
    and target, so that a test's corrected p-value does not depend on the other algorithms, dimensions and
    targets selected; all tests made with `family=()`), family (its name), p_min and alpha_reachable (the
    smallest p-value the trial counts allow, and whether the corrected p can fall below alpha at all:
    `significance.with_reachable`), significant (p_corrected < alpha and consistent), marker. Algorithm a
    comes before b in the selection's order.

    The tests are `significance.pairwise_tests`': the (problem, target) groups on `threads` threads (default:
    as many as Polars' thread pool), the records behind the precisions at FE_umin read per group of `chunk`
    algorithms. `hits`: the
    first hitting times of this selection already at hand (e.g. `analysis.hits().collect()`, every
    standard target, shared with other measures), from which the table targets are taken when it
    has them all, instead of reading them again.
    """
    check_tests(correction, alpha)
    suites = analysis.suites()
    if not suites:
        raise ValueError("no data in the selection")
    tt = table_targets(suites, targets)
    cols = [*TABLE_CELL, "target", "algorithm", "run_id", "trial", "hit", "evaluations", "success", "weight"]
    given = _table_hits(hits, tt, cols) if hits is not None else None
    if given is not None and tt.join(given.select("suite", "target").unique(), on=["suite", "target"],
                                     how="anti").height == 0:
        hits = given
    elif analysis.executor == "local":  # the table targets' hits are small: one read, no groups of algorithms
        hits = analysis.hits(tt.lazy()).select(cols).collect()
    else:
        hits = analysis.per_algorithm(lambda part: part.hits(tt.lazy()).select(cols)).collect()
    order = algorithm_order(analysis, hits["algorithm"].unique().to_list())
    df = significance.pairwise_tests(hits, _events_of(analysis), order, chunk=chunk, threads=threads)
    df = significance.correct_frame(df, "p_value", "p_corrected", list(family), correction)
    df = significance.with_reachable(df, "trials_a", "trials_b", list(family), correction, alpha).rename(
        {"family_size": "tests"})
    df = df.with_columns(family=pl.lit(family_name(family)))
    sig = (pl.col("p_corrected") < alpha) & pl.col("consistent") & pl.col("better").is_not_null()
    df = df.with_columns(significant=sig, correction=pl.lit(correction), alpha=pl.lit(alpha))
    pc = df["p_corrected"].to_numpy()
    return df.with_columns(marker=markers("*", np.where(df["significant"].to_numpy(), pc, np.nan), alpha))

