"""aRT tables as cocopp's pptable / pptables make them, in long format, and pairwise tests.

`art_table` gives one row per (suite, dimension, function, algorithm, target) with the aRT, its
ratio to a reference aRT, the 10th-90th percentile dispersion of simulated restarts, success
counts, the median final precision where a target was not reached, the best algorithm of each
column, and rank-sum tests (best against all others, each against a reference algorithm),
corrected for the number of functions tested. `pairwise_table` tests every pair of algorithms.
"""
from __future__ import annotations

import importlib
import math
import os
import sys
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import polars as pl

from ..conventions import is_biobjective
from ..hits import targets as tg
from ..hits._kernel import running_min
from ..measures import restarts, runtime
from . import stats

KEY = ["suite", "dimension", "function"]
#: the target cocopp counts #succ at (testbedsettings `pptable_ftarget`)
SUCC_TARGET = 1e-8
SUCC_TARGET_BIOBJ = 1e-5


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


def art_table(analysis, reference: str | pl.LazyFrame | pl.DataFrame | None = None,
              targets: str | Sequence[float] | None = None, correction: str = "bonferroni", *,
              reference_name: str | None = None, succ_target: float | None = None, samples: int = 1000,
              seed: int = 1, alpha: float = stats.ALPHA) -> pl.DataFrame:
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
    ref_tests (number of tests in the correction family), and the settings.
    """
    if correction not in stats.CORRECTIONS:
        raise ValueError(f"correction {correction!r}: expected one of {', '.join(stats.CORRECTIONS)}")
    ref_alg, ref_frame = None, None
    if isinstance(reference, str):
        if reference not in set(_store_algorithms(analysis)):
            raise ValueError(f"reference {reference!r} is not an algorithm of the store with data in the selection "
                             "(give a reference aRT frame with columns function, dimension, target, art for "
                             "other references)")
        ref_alg = reference
    elif reference is not None:
        ref_frame = _reference_frame(reference)
    ref_label = ref_alg or (reference_name or "reference" if ref_frame is not None else None)

    ana = analysis
    sel = analysis.filters.get("algorithm")
    if ref_alg and sel:
        sel = [sel] if isinstance(sel, str) else list(sel)
        if ref_alg not in sel:
            ana = analysis.select(algorithm=[*sel, ref_alg])
    suites = ana.suites()
    if not suites:
        raise ValueError("no data in the selection")
    tt = table_targets(suites, targets)
    st = pl.DataFrame({"suite": suites, "succ_target": [_succ_target(s, succ_target) for s in suites]})
    tf = pl.concat([tt, st.rename({"succ_target": "target"})]).unique()
    hits = ana.hits(tf.lazy()).collect()
    if hits.height == 0:
        raise ValueError("no trials for these targets in the selection")

    # aRT, dispersion, trials per (problem, target)
    th = hits.join(tt, on=["suite", "target"], how="semi")
    a = runtime.art(th.lazy()).collect()
    disp = restarts.art_dispersion(th.lazy(), (10, 50, 90), samples, seed).collect()
    a = a.join(disp, on=restarts.GROUP, how="left")
    per_problem = ana.runs().group_by(runtime.PROBLEM).agg(
        median_final_delta=pl.col("final_delta").median(),
        median_evaluations=pl.col("evaluations").cast(pl.Float64).median(),
    ).collect()
    succ = (
        hits.join(st, left_on=["suite", "target"], right_on=["suite", "succ_target"], how="semi")
        .group_by(runtime.PROBLEM).agg(succ_target=pl.col("target").first(), succ=pl.col("success").sum().cast(pl.Int64),
                                       succ_trials=pl.len().cast(pl.Int64))
    )
    a = a.join(per_problem, on=runtime.PROBLEM, how="left").join(succ, on=runtime.PROBLEM, how="left")
    reached = pl.col("successes") > 0
    a = a.with_columns(
        median_final_delta=pl.when(reached).then(None).otherwise(pl.col("median_final_delta")),
        median_evaluations=pl.when(reached).then(None).otherwise(pl.col("median_evaluations")),
        role=pl.when(pl.col("algorithm") == (ref_alg or "")).then(pl.lit("reference")).otherwise(pl.lit("algorithm")),
    )

    # reference aRT
    if ref_alg:
        r = a.filter(pl.col("role") == "reference").select("suite", "function", "dimension", _tkey(), ref_art="art")
        a = a.with_columns(_tkey()).join(r, on=["suite", "function", "dimension", "_tkey"], how="left").drop("_tkey")
    elif ref_frame is not None:
        ref_frame = ref_frame.with_columns(pl.col("function").cast(a.schema["function"]),
                                           pl.col("dimension").cast(a.schema["dimension"]))
        on = ["function", "dimension", "_tkey"] + (["suite"] if "suite" in ref_frame.columns else [])
        r = ref_frame.select(*[c for c in on if c != "_tkey"], _tkey(), ref_art=pl.col("art").cast(pl.Float64))
        a = a.with_columns(_tkey()).join(r.unique(on, keep="first"), on=on, how="left").drop("_tkey")
        # the reference's own rows, for display
        rr = ref_frame.with_columns(_tkey())
        rows = a.select(*KEY, "target", _tkey()).unique().join(rr.drop("target"), on=on, how="inner")
        rows = rows.select(
            *KEY, "target", algorithm=pl.lit(ref_label), role=pl.lit("reference"), art=pl.col("art").cast(pl.Float64),
            successes=pl.col("successes").cast(pl.Int64) if "successes" in rr.columns else pl.lit(None, pl.Int64),
            trials=pl.col("trials").cast(pl.Int64) if "trials" in rr.columns else pl.lit(None, pl.Int64),
        ).with_columns(ref_art=pl.col("art"))
        a = pl.concat([a, rows], how="diagonal_relaxed")
    else:
        a = a.with_columns(ref_art=pl.lit(None, pl.Float64))

    ratio = pl.col("ref_art").is_not_null() & pl.col("ref_art").is_finite() & (pl.col("ref_art") > 0) & (
        pl.col("role") == "algorithm")
    denom = pl.when(ratio).then(pl.col("ref_art")).otherwise(1.0)
    a = a.with_columns(
        value=pl.col("art") / denom, value_kind=pl.when(ratio).then(pl.lit("ratio")).otherwise(pl.lit("absolute")),
        disp_lo=pl.col("p10") / denom, disp_hi=pl.col("p90") / denom,
    )
    # best per column among the compared algorithms
    is_alg = pl.col("role") == "algorithm"
    col = [*KEY, "target"]
    min_art = pl.col("art").filter(is_alg).min().over(col)
    a = a.with_columns(best=is_alg & pl.col("art").is_finite() & (pl.col("art") == min_art))

    a = _significance(a, ana, hits, tt, ref_alg, correction, alpha)
    order = algorithm_order(analysis, a["algorithm"].unique().to_list())
    a = a.with_columns(
        reference=pl.lit(ref_label, pl.String), correction=pl.lit(correction), alpha=pl.lit(alpha),
        samples=pl.lit(samples), _o=pl.col("algorithm").replace_strict(order, list(range(len(order))), default=len(order)),
        _r=pl.col("role") != "reference",
    ).sort("suite", "dimension", "function", "_r", "_o", "algorithm", "target",
           descending=[False, False, False, False, False, False, True]).drop("_o", "_r")
    cols = ["suite", "dimension", "function", "algorithm", "role", "target", "art", "ref_art", "reference", "value",
            "value_kind", "p10", "p50", "p90", "disp_lo", "disp_hi", "successes", "runs", "trials", "success_rate",
            "median_final_delta", "median_evaluations", "succ_target", "succ", "succ_trials", "best", "p_best",
            "p_best_corrected", "best_marker", "tests", "p_ref", "ref_direction", "ref_consistent", "p_ref_corrected",
            "ref_marker", "ref_tests", "correction", "alpha", "samples"]
    for c in cols:
        if c not in a.columns:
            a = a.with_columns(pl.lit(None).alias(c))
    return a.select(cols)


def _pair_p(u: np.ndarray, n1: np.ndarray, n2: np.ndarray, ties: np.ndarray, nan_pair: np.ndarray, cache) -> np.ndarray:
    """Two-sided rank-sum p-values of pairs with U statistics `u` (as scipy: exact where it would be),
    and U = NaN, p = 1 for the pairs with a NaN sample (`u` is changed in place)."""
    p = stats.ranksum_p(u, n1, n2, ties)
    exact = stats.exact_wanted(n1, n2, ties)
    if exact.any():
        p[exact] = stats.exact_p(n1[exact], n2[exact], u[exact], cache)
    u[nan_pair], p[nan_pair] = np.nan, 1.0
    return p


def _part_scores(part: np.ndarray, alg: np.ndarray, hit: np.ndarray, fe: float, prec_of, k: int):
    """The trials of the algorithms in `part` scored at FE_umin `fe` (1/hit when the target was hit
    by fe, else minus the precision reached at fe): (members, local index of every algorithm, label
    of each trial, members with a NaN sample (no test, as scipy), trials kept, dense scores)."""
    mask = part[alg]
    h = hit[mask]
    success = ~np.isnan(h) & (h <= fe)
    value = np.empty(len(h))
    value[success] = 1.0 / h[success]
    if (~success).any():
        value[~success] = -prec_of(fe, np.flatnonzero(mask)[~success])
    members = np.flatnonzero(part)
    local = np.full(k, -1, np.int64)
    local[members] = np.arange(len(members))
    lab = local[alg[mask]]
    bad = np.zeros(len(members), bool)
    nan = np.isnan(value)
    if nan.any():  # scipy gives NaN for samples with NaN: no test
        bad[np.unique(lab[nan])] = True
    ok = ~bad[lab]
    return members, local, lab, bad, ok, _dense_scores(success[ok], value[ok])


def _pivot_tests(alg: np.ndarray, hit: np.ndarray, umin: np.ndarray, n: np.ndarray, prec_of, pivot: int,
                 cache: dict) -> tuple[np.ndarray, np.ndarray]:
    """Rank-sum tests of every algorithm of one (problem, target) against the algorithm `pivot`.

    Arguments as `_group_tests`. The test of x against the pivot uses FE_umin = min(umin[x],
    umin[pivot]): the algorithms of umin >= umin[pivot] are scored together at umin[pivot], the
    others with the pivot at their own umin. Returns U of x against the pivot and the two-sided
    p-value per algorithm x (NaN U and p = 1 where a sample holds NaN, as `stats.ranksum`; the
    pivot's own entries are meaningless)."""
    k = len(umin)
    u_out, p_out = np.full(k, np.nan), np.ones(k)
    up = umin[pivot]
    for fe in np.unique(umin[umin <= up]):
        part = umin >= fe if fe == up else umin == fe
        part[pivot] = True
        if part.sum() < 2:
            continue
        members, local, lab, bad, ok, scores = _part_scores(part, alg, hit, fe, prec_of, k)
        u, ties = stats.pair_counts(scores, lab[ok], len(members), [local[pivot]])
        others = members[members != pivot]
        nx, npv = n[others].astype(float), np.full(len(others), float(n[pivot]))
        u_x = nx * npv - u[0, local[others]]  # U of x against the pivot
        t = ties[0, local[others]]
        p = _pair_p(u_x, nx, npv, t, bad[local[others]] | bad[local[pivot]], cache)
        u_out[others], p_out[others] = u_x, p
    return u_out, p_out


def _significance(a: pl.DataFrame, ana, hits: pl.DataFrame, tt: pl.DataFrame, ref_alg: str | None,
                  correction: str, alpha: float, chunk: int = 16) -> pl.DataFrame:
    """Add the best-versus-others and versus-reference tests (cocopp's compall.pptables, pptable).

    The best algorithm of a (problem, target) has the smallest aRT (the best median final
    precision where no aRT is finite; the first in the selection's order on a tie). Each test is
    that of `stats.compare` on the pair (its own FE_umin, scipy's p-value, cocopp's consistency
    rule), computed per (problem, target) for all algorithms against the best or the reference at
    once (`_pivot_tests`)."""
    th = hits.join(tt, on=["suite", "target"], how="semi")
    order = algorithm_order(ana, th["algorithm"].unique().to_list())
    oidx = {x: i for i, x in enumerate(order)}
    ref_o = oidx.get(ref_alg, -1)
    h = th.select(
        *KEY, "target", "algorithm", "run_id", "success",
        o=pl.col("algorithm").replace_strict(oidx, return_dtype=pl.Int64),
        hitf=pl.col("hit").cast(pl.Float64).fill_null(float("nan")), evf=pl.col("evaluations").cast(pl.Float64),
    ).sort(*KEY, "target", "o")
    h = h.with_columns(g=pl.struct(*KEY, "target").rle_id().cast(pl.Int64))
    # per (problem, target, algorithm): trials, FE_umin, unbalanced aRT and average evaluations (cocopp's test)
    cost = pl.when(pl.col("success")).then(pl.col("hitf")).otherwise(pl.col("evf"))
    per = h.group_by("g", "o", maintain_order=True).agg(
        *[pl.col(c).first() for c in (*KEY, "target", "algorithm")],
        trials=pl.len().cast(pl.Int64), umin=pl.col("evf").filter(~pl.col("success")).min().fill_null(math.inf),
        cost=cost.sum(), succ=pl.col("success").sum(),
    ).with_columns(
        art_u=pl.when(pl.col("succ") > 0).then(pl.col("cost") / pl.col("succ")).otherwise(math.inf),
        avg=pl.col("cost") / pl.col("trials"),
    )
    medf = ana.runs().group_by(*KEY, "algorithm").agg(medf=pl.col("final_delta").median()).collect()
    per = (per.join(a.select(*KEY, "target", "algorithm", "art"), on=[*KEY, "target", "algorithm"], how="left",
                    maintain_order="left")
           .join(medf, on=[*KEY, "algorithm"], how="left", maintain_order="left")
           .with_columns(pl.col("art").fill_null(math.inf), pl.col("medf").fill_null(math.inf)))
    # the best of each (problem, target) among two or more compared algorithms
    cand = per.filter(pl.col("o") != ref_o)
    finite = pl.col("art").is_finite().any().over("g")
    best = (cand.filter(pl.len().over("g") >= 2)
            .with_columns(_key=pl.when(finite).then(pl.col("art")).otherwise(pl.col("medf")))
            .sort("g", "_key", "o").group_by("g", maintain_order=True).agg(best=pl.col("o").first()))
    pivots = [best.select("g", p="best")]
    if ref_alg:
        pivots.append(per.filter(pl.col("o") == ref_o).select("g", p="o"))
    # precisions needed: late trials of both algorithms of each test at its FE_umin
    pv = pl.concat(pivots).join(per.select("g", p="o", up="umin"), on=["g", "p"])
    pairs = (per.select("g", "o", "umin").join(pv, on="g").filter(pl.col("o") != pl.col("p"))
             .select("g", "o", "p", fe=pl.min_horizontal("umin", "up")).filter(pl.col("fe").is_finite()))
    q = (pl.concat([pairs.select("g", "o", "fe"), pairs.select("g", o="p", fe="fe")]).unique()
         .join(h.select("g", "o", "algorithm", "run_id", "hitf"), on=["g", "o"])
         .filter(~(pl.col("hitf") <= pl.col("fe"))).select("algorithm", "run_id", "fe").unique())
    prec = _precision_at(ana, q, chunk).sort("run_id", "fe")
    ufe, urun = np.unique(prec["fe"].to_numpy()), np.unique(prec["run_id"].to_numpy())
    nfe = max(len(ufe), 1)
    pkeys = np.searchsorted(urun, prec["run_id"].to_numpy()) * nfe + np.searchsorted(ufe, prec["fe"].to_numpy())
    pvals = prec["prec"].to_numpy()

    ngroups = int(per["g"].max()) + 1 if per.height else 0
    bounds = np.searchsorted(h["g"].to_numpy(), np.arange(ngroups + 1))
    pbounds = np.searchsorted(per["g"].to_numpy(), np.arange(ngroups + 1))
    h_o, h_hit, h_run = h["o"].to_numpy(), h["hitf"].to_numpy(), h["run_id"].to_numpy()
    p_o, p_umin, p_n = per["o"].to_numpy(), per["umin"].to_numpy(), per["trials"].to_numpy()
    art_u, avg = per["art_u"].to_numpy(), per["avg"].to_numpy()
    best_of = dict(zip(*best.select("g", "best").to_numpy().T.tolist())) if best.height else {}
    keys = per.select(*KEY, "target").rows()
    cache: dict = {}
    best_rows, ref_rows = [], []

    def tests(s, e, ps_, pe_, pivot):
        """(x order indices, U of x against the pivot, p, direction of x, consistent) of the group."""
        runs = h_run[s:e]

        def prec_of(fe, idx):
            return pvals[np.searchsorted(pkeys, np.searchsorted(urun, runs[idx]) * nfe + np.searchsorted(ufe, fe))]

        algs = p_o[ps_:pe_]
        piv = int(np.searchsorted(algs, pivot))
        u, p = _pivot_tests(np.searchsorted(algs, h_o[s:e]), h_hit[s:e], p_umin[ps_:pe_], p_n[ps_:pe_], prec_of,
                            piv, cache)
        others = np.flatnonzero((algs != pivot) & (algs != ref_o))
        n = p_n[ps_:pe_].astype(float)
        d = np.where(np.isnan(u[others]), 0, np.sign(u[others] - n[others] * n[piv] / 2)).astype(np.int64)
        xb, xw = np.where(d > 0, others, piv) + ps_, np.where(d > 0, piv, others) + ps_
        cons = (d == 0) | ((art_u[xb] <= art_u[xw]) & (np.isinf(art_u[xb]) | (avg[xb] < avg[xw])))
        return algs[others], p[others], d, cons

    for gi in range(ngroups):
        s, e, ps_, pe_ = bounds[gi], bounds[gi + 1], pbounds[gi], pbounds[gi + 1]
        key = keys[ps_]
        if gi in best_of:
            _, p, d, cons = tests(s, e, ps_, pe_, best_of[gi])
            # another algorithm ranking at least as well as the best gives 1; else the largest p of consistent tests
            pb = 1.0 if (d >= 0).any() else float(np.where(cons, p, 1.0).max())
            best_rows.append((*key, order[best_of[gi]], pb))
        if ref_alg and ref_o in p_o[ps_:pe_]:
            xs, p, d, cons = tests(s, e, ps_, pe_, ref_o)
            ref_rows += [(*key, order[x], float(pp), int(dd), bool(cc)) for x, pp, dd, cc in zip(xs, p, d, cons)]

    fam = ["suite", "dimension", "target"]
    schema_b = {"suite": pl.String, "dimension": a.schema["dimension"], "function": a.schema["function"],
                "target": pl.Float64, "algorithm": pl.String, "p_best": pl.Float64}
    b = stats.correct_frame(pl.DataFrame(best_rows, schema=schema_b, orient="row"), "p_best", "p_best_corrected",
                            fam, correction).rename({"family_size": "tests"})
    b = b.with_columns(best_marker=pl.col("p_best_corrected").map_elements(
        lambda p: stats.marker("★", p, alpha), return_dtype=pl.String))
    a = a.join(b, on=[*KEY, "target", "algorithm"], how="left")
    if ref_alg:
        schema_r = {**{k: v for k, v in schema_b.items() if k != "p_best"}, "p_ref": pl.Float64,
                    "ref_direction": pl.Int64, "ref_consistent": pl.Boolean}
        fam_r = [*fam, "algorithm"]
        r = stats.correct_frame(pl.DataFrame(ref_rows, schema=schema_r, orient="row"), "p_ref", "p_ref_corrected",
                                fam_r, correction).rename({"family_size": "ref_tests"})
        r = r.with_columns(ref_marker=pl.struct("p_ref_corrected", "ref_direction", "ref_consistent").map_elements(
            lambda v: stats.marker("↓" if v["ref_direction"] > 0 else "↑", v["p_ref_corrected"], alpha)
            if v["ref_consistent"] and v["ref_direction"] != 0 else "", return_dtype=pl.String))
        a = a.join(r, on=[*KEY, "target", "algorithm"], how="left")
    return a


# -- pairwise tests -----------------------------------------------------------------------------
def _record_table(events: pl.LazyFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The records `tests/tables_reference.Trajectories` reads (budget-triggered ones, or all of runs without any), one
    block per run, evaluations ascending in each, with the running minimum of the precision: (run
    id of each block, block starts, evaluations, best precision so far)."""
    ev = events.select("run_id", "evaluations", "best_delta", "trigger").collect()
    runs, evals = ev["run_id"].to_numpy(), ev["evaluations"].to_numpy()
    new = np.r_[True, runs[1:] != runs[:-1]] if len(runs) else np.zeros(0, bool)
    block = np.cumsum(new) - 1
    if len(runs) and (len(np.unique(runs[new])) < new.sum() or (np.diff(evals)[~new[1:]] < 0).any()):
        ev = ev.sort("run_id", "evaluations")  # the store's order is not one block per run, ascending
        runs, evals = ev["run_id"].to_numpy(), ev["evaluations"].to_numpy()
        new = np.r_[True, runs[1:] != runs[:-1]]
        block = np.cumsum(new) - 1
    best = ev["best_delta"].cast(pl.Float64).to_numpy()
    tdat = (ev["trigger"].to_numpy() & 2) != 0
    starts = np.flatnonzero(new)
    if len(runs):
        has_t = np.logical_or.reduceat(tdat, starts)
        keep = tdat | ~has_t[block]
        if not keep.all():
            runs, evals, best, block = runs[keep], evals[keep], best[keep], block[keep]
            new = np.r_[True, block[1:] != block[:-1]]
            starts = np.flatnonzero(new)
        best = running_min(best, new)
    return runs[starts], starts, evals, best


def _events_of(analysis, algorithms: list[str]) -> pl.LazyFrame:
    """The records of some algorithms of the selection, for looking up queried runs: the store's
    own records (no need to match them to the selected trials first) unless a budget cut or the
    recomputed indicator changes them."""
    if analysis.max_budget is None and analysis.indicator == "logged":
        return analysis.store.events().filter(pl.col("algorithm").is_in(algorithms))
    return analysis.select(algorithm=algorithms).events()


def _precision_at(analysis, queries: pl.DataFrame, chunk: int = 16) -> pl.DataFrame:
    """(run_id, fe, prec): each run's best precision after `fe` evaluations, as `tests/tables_reference.Trajectories.at`
    (budget-triggered records, or all records of runs without any; inf before the first record),
    read per group of `chunk` algorithms so that memory stays bounded (only the queried runs' records;
    two groups at a time, one read while the other is searched); each query one binary search
    in the records of its run (`_record_table`)."""
    algs = queries["algorithm"].unique().sort().to_list()

    def part_of(i: int) -> pl.DataFrame:
        part = algs[i:i + chunk]
        q = queries.filter(pl.col("algorithm").is_in(part)).select("run_id", pl.col("fe").cast(pl.Float64))
        asked = q["run_id"].unique()
        block_run, starts, evals, best = _record_table(_events_of(analysis, part).filter(pl.col("run_id").is_in(asked.implode())))
        prec = np.full(q.height, np.inf)
        if len(evals):
            by_id = np.argsort(block_run)
            qrun, fe = q["run_id"].to_numpy(), q["fe"].to_numpy()
            pos = np.minimum(np.searchsorted(block_run[by_id], qrun), len(by_id) - 1)
            blk = by_id[pos]  # block of each query's run
            found = block_run[blk] == qrun
            low = int(evals.min())
            span = int(evals.max()) - low + 2  # (block, evaluations) as one sorted integer key
            keys = np.repeat(np.arange(len(starts)), np.diff(np.append(starts, len(evals)))) * span + (evals - low)
            last = np.clip(np.floor(fe) - low, -1, span - 2).astype(np.int64)  # the last record with evaluations <= fe
            j = np.searchsorted(keys, blk * span + last, side="right") - 1
            ok = found & (j >= starts[blk])
            prec[ok] = best[j[ok]]
        return q.with_columns(prec=pl.Series(prec))

    with ThreadPoolExecutor(2) as pool:
        out = list(pool.map(part_of, range(0, len(algs), chunk)))
    schema = {"run_id": queries.schema["run_id"], "fe": pl.Float64, "prec": pl.Float64}
    return pl.concat(out) if out else pl.DataFrame(schema=schema)


def _dense_scores(success: np.ndarray, value: np.ndarray) -> np.ndarray:
    """Scores ordered as cocopp's test data: every success above every other trial (by `value`
    within each kind); the values themselves where that order already holds."""
    if not success.any() or success.all() or value[~success].max() < value[success].min():
        return value
    late = np.unique(value[~success], return_inverse=True)[1].reshape(-1)
    succ = np.unique(value[success], return_inverse=True)[1].reshape(-1)
    out = np.empty(len(value))
    out[~success] = late
    out[success] = succ + late.max() + 1
    return out


def _levels(g: np.ndarray, umin: np.ndarray, ngroups: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The levels of every group: its distinct FE_umin ascending (`levels`, group gi's from
    `start[gi]`), and the number of levels up to each (group, algorithm) row's own FE_umin."""
    o = np.lexsort((umin, g))
    gs, us = g[o], umin[o]
    new = np.ones(len(o), bool)
    new[1:] = (gs[1:] != gs[:-1]) | (us[1:] != us[:-1])
    level = np.cumsum(new) - 1  # global level of each row
    start = np.searchsorted(gs[new], np.arange(ngroups))
    count = np.empty(len(o), np.int64)
    count[o] = level - start[gs] + 1
    return us[new], start, count


def _precision_of(analysis, alg: np.ndarray, run: np.ndarray, fe: np.ndarray, order: list[str], chunk: int
                  ) -> np.ndarray:
    """The best precision of each run `run[i]` (of algorithm `order[alg[i]]`) after `fe[i]` evaluations
    (`_precision_at`, asked once per distinct (run, fe))."""
    if not len(run):
        return np.empty(0)
    urun, rinv = np.unique(run, return_inverse=True)
    ufe, finv = np.unique(fe, return_inverse=True)
    key = rinv.reshape(-1) * len(ufe) + finv.reshape(-1)
    ukey, first, inv = np.unique(key, return_index=True, return_inverse=True)
    q = pl.DataFrame({"algorithm": pl.Series(order, dtype=pl.String).gather(alg[first]), "run_id": run[first],
                      "fe": fe[first]})
    q = q.sort("algorithm", maintain_order=True)  # _precision_at answers group by group of algorithms, in order
    prec = _precision_at(analysis, q, chunk)
    got = np.searchsorted(urun, prec["run_id"].to_numpy()) * len(ufe) + np.searchsorted(ufe, prec["fe"].to_numpy())
    vals = np.empty(len(ukey))
    vals[np.searchsorted(ukey, got)] = prec["prec"].to_numpy()
    return vals[inv.reshape(-1)]


def _group_counts(lab: np.ndarray, nlev: np.ndarray, rows: np.ndarray, score: np.ndarray, success: np.ndarray,
                  x: np.ndarray, y: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rank-sum counts of the pairs (x, y) of algorithms of one (problem, target).

    `lab`: algorithm of each trial (ascending), `nlev[a]`: the levels (distinct FE_umin of the group,
    ascending) up to algorithm a's own FE_umin, trial i's scores at levels 0, 1, ... in
    `score[rows[i]:rows[i + 1]]` (`success`: reached the target by that level's FE_umin), `n[a]` its
    trials. The test of a against b uses FE_umin = min of theirs: the pairs are counted together per
    level, each algorithm whose FE_umin is the level against all those of that level or above.
    Returns U of x against y, the tie term of the pair (`stats.pair_counts`), and whether either
    sample holds NaN at the pair's FE_umin (no test, as scipy)."""
    k = len(n)
    ntl = np.repeat(nlev, n)  # levels of each trial
    u_all, t_all, nan_all = np.zeros((k, k)), np.zeros((k, k)), np.zeros((k, k), bool)
    for j in range(int(nlev.max())):
        pivots = np.flatnonzero(nlev == j + 1)
        if not len(pivots) or (nlev > j).sum() < 2:
            continue
        member = ntl > j
        at = rows[:-1][member] + j
        sc, lb, ok_ = score[at], lab[member], success[at]
        bad = np.zeros(k, bool)
        nan = np.isnan(sc)
        if nan.any():  # scipy gives NaN for samples with NaN: no test
            bad[np.unique(lb[nan])] = True
            keep = ~bad[lb]
            sc, lb, ok_ = sc[keep], lb[keep], ok_[keep]
        u, ties = stats.pair_counts(_dense_scores(ok_, sc), lb, k, pivots)
        u_all[pivots], t_all[pivots], nan_all[pivots] = u, ties, bad[pivots][:, None] | bad[None, :]
    first = nlev[x] <= nlev[y]  # x's FE_umin is the pair's: its row holds the pair
    u = np.where(first, u_all[x, y], (n[x] * n[y]).astype(float) - u_all[y, x])
    return u, np.where(first, t_all[x, y], t_all[y, x]), np.where(first, nan_all[x, y], nan_all[y, x])


def _sorted_trials(h: pl.DataFrame) -> pl.DataFrame:
    """`h` sorted by group g, algorithm a, trial, run_id: one stable sort of (g, a, trial) as one
    integer where the run ids already ascend among the rows equal in those (as the hits come),
    else polars' sort by the four columns."""
    cols = [h[c] for c in ("g", "a", "trial", "run_id")]
    if h.height and not any(c.has_nulls() for c in cols):
        g, a, trial, run = (c.to_numpy() for c in cols)
        low = int(trial.min())
        ab, tb = int(a.max()).bit_length(), (int(trial.max()) - low).bit_length()
        if min(g.min(), a.min()) >= 0 and int(g.max()).bit_length() + ab + tb <= 62:
            key = (g << (ab + tb)) | (a << tb) | (trial.astype(np.int64) - low)
            o = np.argsort(key, kind="stable")
            key, run = key[o], run[o]
            same = key[1:] == key[:-1]
            if not (run[1:][same] <= run[:-1][same]).any():
                return h[o]
    return h.sort("g", "a", "trial", "run_id")


def _import_soon(name: str) -> None:
    """Start importing module `name` on a thread of its own (polars' reads meanwhile leave the GIL)."""
    if name not in sys.modules:
        threading.Thread(target=importlib.import_module, args=(name,), daemon=True).start()


def _table_hits(hits: pl.DataFrame, tt: pl.DataFrame, cols: list[str]) -> pl.DataFrame:
    """The rows of `hits` at the table targets `tt` (suite, target): a filter per suite, no join."""
    keep = pl.lit(False)
    for (suite,), part in tt.group_by(["suite"], maintain_order=True):
        keep = keep | ((pl.col("suite") == suite) & pl.col("target").is_in(part["target"].implode()))
    return hits.filter(keep).select(cols)


def pairwise_table(analysis, targets: str | Sequence[float] | None = None, correction: str = "bonferroni", *,
                   alpha: float = stats.ALPHA, family: Sequence[str] = (), chunk: int = 16,
                   threads: int | None = None, hits: pl.DataFrame | None = None) -> pl.DataFrame:
    """Rank-sum tests for every pair of algorithms per (suite, dimension, function, target).

    Columns: algorithm_a, algorithm_b, trials_a/b, art_a/b (instance-balanced), statistic (U of a),
    p_value (two-sided, as scipy.stats.mannwhitneyu on cocopp's test data), better (the algorithm
    with the better ranks, null on a tie), consistent (the better-ranked one also has the smaller
    aRT, cocopp's rule), p_corrected (Bonferroni or Holm over all `tests` made, or within groups
    of equal `family` columns, e.g. ("suite", "dimension", "target")), significant (p_corrected <
    alpha and consistent), marker. Algorithm a comes before b in the selection's order.

    All pairs of a (problem, target) are tested at once from the pooled sorted scores
    (`stats.pair_counts`), with p-values computed as scipy computes them, the (problem, target)
    groups on `threads` threads (default: the number of CPUs); the
    records behind the precisions at FE_umin are read per group of `chunk` algorithms. `hits`: the
    first hitting times of this selection already at hand (e.g. `analysis.hits().collect()`, every
    standard target, shared with other measures), from which the table targets are taken when it
    has them all, instead of reading them again.
    """
    if correction not in stats.CORRECTIONS:
        raise ValueError(f"correction {correction!r}: expected one of {', '.join(stats.CORRECTIONS)}")
    _import_soon("scipy.stats")  # for the exact p-values: its second of imports while the hits are read
    suites = analysis.suites()
    if not suites:
        raise ValueError("no data in the selection")
    tt = table_targets(suites, targets)
    cols = [*KEY, "target", "algorithm", "run_id", "trial", "hit", "evaluations", "success", "weight"]
    given = _table_hits(hits, tt, cols) if hits is not None else None
    if given is not None and tt.join(given.select("suite", "target").unique(), on=["suite", "target"],
                                     how="anti").height == 0:
        hits = given
    elif analysis.executor == "local":  # the table targets' hits are small: one read, no groups of algorithms
        hits = analysis.hits(tt.lazy()).select(cols).collect()
    else:
        hits = analysis.per_algorithm(lambda part: part.hits(tt.lazy()).select(cols)).collect()
    order = algorithm_order(analysis, hits["algorithm"].unique().to_list())
    names = sorted(order)
    oidx = {x: i for i, x in enumerate(order)}
    nidx = {x: i for i, x in enumerate(names)}
    # (problem, target) groups numbered in (suite, dimension, function, descending target) order
    gkeys = (hits.select(*KEY, "target").unique().sort(*KEY, "target", descending=[False, False, False, True])
             .with_row_index("g").with_columns(pl.col("g").cast(pl.Int64)))
    h = hits.join(gkeys, on=[*KEY, "target"]).with_columns(
        a=pl.col("algorithm").replace_strict(oidx, return_dtype=pl.Int64),
        hitf=pl.col("hit").cast(pl.Float64).fill_null(float("nan")),
        evf=pl.col("evaluations").cast(pl.Float64),
    )
    h = _sorted_trials(h)
    # per (problem, target, algorithm): trials, FE_umin, unbalanced aRT and average evaluations (cocopp's test)
    cost = pl.when(pl.col("success")).then(pl.col("hitf")).otherwise(pl.col("evf"))
    per = h.group_by("g", "a", maintain_order=True).agg(
        *[pl.col(c).first() for c in (*KEY, "target")],
        trials=pl.len().cast(pl.Int64),
        umin=pl.col("evf").filter(~pl.col("success")).min().fill_null(math.inf),
        cost=cost.sum(), succ=pl.col("success").sum(),
    ).with_columns(
        art_u=pl.when(pl.col("succ") > 0).then(pl.col("cost") / pl.col("succ")).otherwise(math.inf),
        avg=pl.col("cost") / pl.col("trials"),
    )
    bal = runtime.art(hits.lazy()).select(*KEY, "target", "algorithm", "art").collect().with_columns(
        a=pl.col("algorithm").replace_strict(oidx, return_dtype=pl.Int64))
    per = per.join(bal.drop("algorithm"), on=[*KEY, "target", "a"], how="left", maintain_order="left")
    del hits, bal
    # every (problem, target) group's levels: the distinct FE_umin of its algorithms, ascending (inf
    # last); each trial scored at every level up to its algorithm's own, one row per (trial, level)
    g_arr, a_arr = h["g"].to_numpy(), h["a"].to_numpy()
    hit_arr, run_arr = h["hitf"].to_numpy(), h["run_id"].to_numpy()
    ngroups = int(per["g"].max()) + 1 if per.height else 0
    bounds = np.searchsorted(g_arr, np.arange(ngroups + 1))
    pg = per["g"].to_numpy()
    pbounds = np.searchsorted(pg, np.arange(ngroups + 1))
    pa, pumin, pn = per["a"].to_numpy(), per["umin"].to_numpy(), per["trials"].to_numpy()
    levels, lstart, plev = _levels(pg, pumin, ngroups)
    tlev = np.repeat(plev, pn)  # levels of each trial (h and per are both in (g, a) order)
    rstart = np.r_[0, np.cumsum(tlev)]  # each trial's first row in the (trial, level) arrays
    fe = levels[np.repeat(lstart[g_arr] - rstart[:-1], tlev) + np.arange(rstart[-1])]
    trial = np.repeat(np.arange(len(g_arr)), tlev)
    success = hit_arr[trial] <= fe
    late = np.flatnonzero(~success)
    score = 1.0 / hit_arr[trial]
    score[late] = -_precision_of(analysis, a_arr[trial[late]], run_arr[trial[late]], fe[late], order, chunk)
    del h, fe, trial, late

    rank_name = np.array([nidx[x] for x in order], np.int64)
    in_name_order = order == names  # the selection's order is the names' (no --algorithm): pairs already in order
    kmax = int(np.diff(pbounds).max(initial=0))
    upper = np.triu_indices(kmax, 1)  # pairs (x, y), x before y in the selection's order
    art_u, avg = per["art_u"].to_numpy(), per["avg"].to_numpy()
    # every group's tests written into its slice of the columns (pairs per group known beforehand)
    sizes = np.diff(pbounds)
    sizes = np.where(sizes >= 2, sizes * (sizes - 1) // 2, 0)
    offsets = np.r_[0, np.cumsum(sizes)]
    total = int(offsets[-1])
    if total == 0:
        raise ValueError("pairwise tests need two algorithms with trials on the same problem in the selection")
    # the output's columns of numbers, filled group by group (numpy's large arrays: few page faults)
    gcols = {c: gkeys[c].cast(pl.Float64 if c == "target" else gkeys[c].dtype) for c in ("dimension", "function", "target")}
    gvals = {c: v.to_numpy() for c, v in gcols.items() if not v.has_nulls()}
    art = per["art"].to_numpy() if not per["art"].has_nulls() else None
    pa32 = pa.astype(np.uint32)
    tested = {"u": np.empty(total),
              "p": np.empty(total), "better": np.empty(total, np.int64), "consistent": np.empty(total, bool),
              "alg_a": np.empty(total, np.uint32), "alg_b": np.empty(total, np.uint32),
              "trials_a": np.empty(total, np.int64), "trials_b": np.empty(total, np.int64),
              **{c: np.empty(total, v.dtype) for c, v in gvals.items()},
              **({"art_a": np.empty(total), "art_b": np.empty(total)} if art is not None else
                 {"ra": np.empty(total, np.int32), "rb": np.empty(total, np.int32)})}  # rows of per: art gathered after

    def tests(gi: int) -> None:
        """The tests of group gi in (a, b) name order: rows of `per` of a and b, U of a, p, the
        better-ranked algorithm (order index, -1 on a tie), cocopp's consistency rule."""
        ps_, pe_ = pbounds[gi], pbounds[gi + 1]
        if pe_ - ps_ < 2:
            return
        s, e = bounds[gi], bounds[gi + 1]
        algs = pa[ps_:pe_]  # order index of the group's algorithms, ascending
        k = len(algs)
        x, y = upper
        if k < kmax:
            keep = y < k
            x, y = x[keep], y[keep]
        if not in_name_order:  # the pairs put in (a, b) name order
            key = rank_name[algs[x]] * len(order) + rank_name[algs[y]]
            if len(key) > 1 and not (key[1:] > key[:-1]).all():
                o = np.argsort(key)
                x, y = x[o], y[o]
        u, t, nan = _group_counts(np.repeat(np.arange(k), pn[ps_:pe_]), plev[ps_:pe_], rstart[s:e + 1] - rstart[s],
                                  score[rstart[s]:rstart[e]], success[rstart[s]:rstart[e]], x, y, pn[ps_:pe_])
        ra, rb = ps_ + x, ps_ + y
        u[nan] = 0.0
        ta, tb = pn[ra], pn[rb]
        na, nb = ta.astype(float), tb.astype(float)
        p = _pair_p(u, na, nb, t, nan, cache)
        d = np.where(np.isnan(u), 0, np.sign(u - na * nb / 2))
        best, worst = np.where(d > 0, ra, rb), np.where(d > 0, rb, ra)
        sl = slice(offsets[gi], offsets[gi + 1])
        tested["u"][sl], tested["p"][sl] = u, p
        tested["better"][sl] = np.where(d == 0, -1, pa[best])
        tested["consistent"][sl] = (d == 0) | ((art_u[best] <= art_u[worst]) & (np.isinf(art_u[best]) | (avg[best] < avg[worst])))
        tested["alg_a"][sl], tested["alg_b"][sl] = pa32[ra], pa32[rb]
        tested["trials_a"][sl], tested["trials_b"][sl] = ta, tb
        if art is not None:
            tested["art_a"][sl], tested["art_b"][sl] = art[ra], art[rb]
        else:
            tested["ra"][sl], tested["rb"][sl] = ra, rb
        for c, v in gvals.items():
            tested[c][sl] = v[gi]

    cache: dict = {}  # scipy's exact p-values per pair of sample sizes
    # groups on threads (numpy releases the GIL in the large array operations); the matrix products
    # of the counts on one BLAS thread each (BLAS threads on matrices this small cost more than
    # they give, and would compete with the groups' threads)
    from threadpoolctl import threadpool_limits

    workers = max(1, min(threads or os.cpu_count() or 1, ngroups))
    importlib.import_module("scipy.stats")  # imported whole before the threads need it (no two threads importing it)
    with threadpool_limits(1, user_api="blas"), ThreadPoolExecutor(workers) as pool:
        for _ in pool.map(tests, range(ngroups)):
            pass
    G = np.repeat(np.arange(ngroups, dtype=np.uint32), sizes)
    names = pl.Series(order, dtype=pl.String)
    ra, rb = tested.get("ra"), tested.get("rb")
    better = pl.Series(tested["better"].astype(np.uint32)).set(pl.Series(tested["better"] < 0), None)  # null on a tie
    df = pl.DataFrame({
        "suite": gkeys["suite"].gather(G),
        **{c: pl.Series(c, tested[c], dtype=v.dtype) if c in gvals else v.gather(G) for c, v in gcols.items()},
        "algorithm_a": names.gather(tested["alg_a"]), "algorithm_b": names.gather(tested["alg_b"]),
        "trials_a": tested["trials_a"], "trials_b": tested["trials_b"],
        "art_a": tested["art_a"] if art is not None else per["art"].gather(ra),
        "art_b": tested["art_b"] if art is not None else per["art"].gather(rb),
        "statistic": tested["u"], "p_value": tested["p"], "better": names.gather(better),
        "consistent": tested["consistent"],
    })
    del G, ra, rb, better, tested
    df = stats.correct_frame(df, "p_value", "p_corrected", list(family), correction).rename({"family_size": "tests"})
    df = df.with_columns(family=pl.lit(",".join(family) if family else "all"))
    sig = (pl.col("p_corrected") < alpha) & pl.col("consistent") & pl.col("better").is_not_null()
    df = df.with_columns(significant=sig, correction=pl.lit(correction), alpha=pl.lit(alpha))
    pc = df["p_corrected"].to_numpy()
    return df.with_columns(marker=stats.markers("*", np.where(df["significant"].to_numpy(), pc, np.nan), alpha))

