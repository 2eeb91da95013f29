"""Every ready query in queries/ runs on a store of all shared data, and its result equals the same
answer computed independently with Polars (raw tables or the notebook API), not with the SQL."""
from __future__ import annotations

import math

import polars as pl
import pytest

from pipeline.api import Analysis
from pipeline.query import run_sql
from test_query import QUERIES, build_shared_store

PROBLEM = ["suite", "algorithm", "function", "dimension"]
CHECKS = {}


def check(name):
    def deco(fn):
        CHECKS[name] = fn
        return fn
    return deco


@pytest.fixture(scope="session")
def qstore(tmp_path_factory):
    return build_shared_store(tmp_path_factory)


@pytest.fixture(scope="session")
def art_all(qstore) -> pl.DataFrame:
    """aRT at the default targets of every suite, from the notebook API."""
    return Analysis(qstore).art(dispersion=False).collect()


@pytest.fixture(scope="session")
def hits_all(qstore) -> pl.DataFrame:
    return Analysis(qstore).hits().collect()


def references(qstore) -> list[str]:
    """Reference-algorithm data sets: those with instance 0."""
    return qstore.runs().filter(pl.col("instance") == 0).select("algorithm").unique().collect()["algorithm"].to_list()


def close(a: pl.Series, b: pl.Series, rtol: float = 1e-9) -> bool:
    a, b = a.cast(pl.Float64), b.cast(pl.Float64)
    both_null = a.is_null() & b.is_null()
    same = (a == b) | ((a - b).abs() <= rtol * b.abs()) | (a.is_nan() & b.is_nan())
    return bool((both_null | same.fill_null(False)).all())


def same_rows(got: pl.DataFrame, want: pl.DataFrame, key: list[str], cols: list[str]) -> None:
    """Same keys, and the same values in `cols` (numbers to a relative 1e-9)."""
    assert got.height == want.height, (got.height, want.height)
    assert got.select(key).unique().height == got.height
    j = got.join(want, on=key, how="inner", suffix="_w", nulls_equal=True)
    assert j.height == want.height, "keys differ"
    for c in cols:
        if got.schema[c].is_numeric():
            assert close(j[c], j[f"{c}_w"]), c
        else:
            assert j[c].cast(pl.String).fill_null("<null>").equals(
                j[f"{c}_w"].cast(pl.String).fill_null("<null>"), check_names=False), c


# -- the checks, one per file ----------------------------------------------------------------------
@check("best_algorithm_per_problem")
def _(got, qstore, art_all, hits_all):
    refs = references(qstore)
    solved = art_all.filter((pl.col("target") == 1e-8) & (pl.col("successes") > 0) & ~pl.col("algorithm").is_in(refs))
    rows = []
    for (suite, f, d), g in solved.group_by("suite", "function", "dimension"):
        g = g.sort("art", "algorithm")
        rows.append(dict(suite=suite, function=f, dimension=d, best_algorithm=g["algorithm"][0], best_art=g["art"][0],
                         success_rate=g["success_rate"][0], solvers=g.height,
                         second_over_best=g["art"][1] / g["art"][0] if g.height > 1 else None))
    want = pl.DataFrame(rows, schema_overrides={"second_over_best": pl.Float64})
    assert want.height > 50
    same_rows(got, want, ["suite", "function", "dimension"],
              ["best_algorithm", "best_art", "success_rate", "solvers", "second_over_best"])
    assert got["best_algorithm"].n_unique() >= 3


@check("unsolved_within_budget")
def _(got, qstore, art_all, hits_all):
    # from the raw tables: a trial solves when a target-triggered (.dat) record within 1e5 x dimension
    # has a precision of at most 1e-8 (cocopp's 1e-9 relative tolerance aside)
    runs = qstore.runs().filter(pl.col("instance") != 0, ~pl.col("suite").str.contains("biobj")).collect()
    ev = qstore.events().filter((pl.col("trigger") & 1) == 1).select("run_id", "evaluations", "best_delta").collect()
    solved = (ev.join(runs.select("run_id", "dimension"), on="run_id")
              .filter(pl.col("evaluations") <= 1e5 * pl.col("dimension"), pl.col("best_delta") <= 1e-8 * (1 + 1e-9))
              .select("run_id").unique())
    per = runs.with_columns(solved=pl.col("run_id").is_in(solved["run_id"].implode())).group_by(
        "suite", "function", "dimension").agg(algorithms=pl.col("algorithm").n_unique(), trials=pl.len(),
                                              best_final_delta=pl.col("final_delta").min(), solved=pl.col("solved").any())
    want = per.filter(~pl.col("solved")).drop("solved")
    assert want.height > 100 and set(want["suite"]) >= {"bbob", "bbob-noisy", "bbob-mixint", "bbob-constrained"}
    same_rows(got, want, ["suite", "function", "dimension"], ["algorithms", "trials", "best_final_delta"])


@check("art_ratio")
def _(got, qstore, art_all, hits_all):
    targets = [1e1, 1e-1, 1e-3, 1e-5]

    def one(alg):
        return (Analysis(qstore, suite="bbob", algorithm=alg).art(targets).collect()
                .select("function", "dimension", "target", "art", "success_rate"))

    j = one("NM").join(one("BrentSTEPqi"), on=["function", "dimension", "target"], suffix="_b")
    want = j.select(
        "function", "dimension", "target", art_a="art", art_b="art_b", success_rate_a="success_rate",
        success_rate_b="success_rate_b",
        ratio=pl.when((pl.col("success_rate") > 0) & (pl.col("success_rate_b") > 0)).then(pl.col("art") / pl.col("art_b")),
        faster=pl.when((pl.col("success_rate") == 0) & (pl.col("success_rate_b") == 0)).then(pl.lit("neither"))
        .when(pl.col("art") < pl.col("art_b")).then(pl.lit("A")).when(pl.col("art_b") < pl.col("art")).then(pl.lit("B"))
        .otherwise(pl.lit("tie")))
    assert want.height == 4 * 118  # BrentSTEPqi ran 118 of the (function, dimension) pairs NM ran
    same_rows(got, want, ["function", "dimension", "target"],
              ["art_a", "art_b", "success_rate_a", "success_rate_b", "ratio", "faster"])
    assert set(got["faster"]) == {"A", "B", "neither"}


@check("stopped_before_budget")
def _(got, qstore, art_all, hits_all):
    runs = qstore.runs().filter(pl.col("instance") != 0).collect()
    runs = runs.with_columns(budget=pl.col("last_evaluation").max().over("suite", "algorithm", "dimension"))
    want = runs.filter(pl.col("final_delta") > pl.col("precision").fill_null(0),
                       pl.col("last_evaluation") < 0.5 * pl.col("budget"))
    want = want.with_columns(budget_used=pl.col("last_evaluation") / pl.col("budget"))
    assert want.height > 100
    same_rows(got, want.select(got.columns), ["run_id"], ["budget", "budget_used", "last_evaluation", "final_delta"])
    assert got["budget_used"].is_sorted()


@check("slow_instances")
def _(got, qstore, art_all, hits_all):
    h = hits_all.filter(pl.col("target") == 1e-5)
    per = h.group_by(*PROBLEM, "instance").agg(
        trials=pl.len(), successes=pl.col("success").sum(),
        cost=pl.when(pl.col("success")).then(pl.col("hit")).otherwise(pl.col("evaluations")).sum())
    per = per.with_columns(art_instance=pl.when(pl.col("successes") > 0).then(pl.col("cost") / pl.col("successes")))
    med = per.group_by(PROBLEM).agg(instances=pl.len(), median_art=pl.col("art_instance").fill_null(math.inf).median())
    med = med.filter(pl.col("instances") >= 3, pl.col("median_art") < math.inf)
    want = per.join(med, on=PROBLEM).filter(
        (pl.col("successes") == 0) | (pl.col("art_instance") >= 10 * pl.col("median_art"))
    ).with_columns(ratio_to_median=pl.col("art_instance") / pl.col("median_art"))
    assert want.height > 20 and want["ratio_to_median"].drop_nulls().len() > 0
    same_rows(got, want.select(got.columns), [*PROBLEM, "instance"],
              ["trials", "successes", "art_instance", "median_art", "instances", "ratio_to_median"])


@check("scaling_degrades")
def _(got, qstore, art_all, hits_all):
    a = art_all.filter(pl.col("target") == 1e-8).sort(*PROBLEM)
    g = ["suite", "algorithm", "function"]
    s = a.with_columns(dimension_to=pl.col("dimension").shift(-1).over(g), art_to=pl.col("art").shift(-1).over(g),
                       successes_to=pl.col("successes").shift(-1).over(g)).filter(pl.col("dimension_to").is_not_null())
    rows = []
    for r in s.iter_rows(named=True):
        exponent = (math.log(r["art_to"] / r["art"]) / math.log(r["dimension_to"] / r["dimension"])
                    if r["successes"] > 0 and r["successes_to"] > 0 else None)
        lost = r["successes"] > 0 and r["successes_to"] == 0
        if lost or (exponent is not None and exponent > 2):
            rows.append(dict(suite=r["suite"], algorithm=r["algorithm"], function=r["function"],
                             dimension_from=r["dimension"], dimension_to=r["dimension_to"], art_from=r["art"],
                             art_to=r["art_to"], exponent=exponent, lost_success=lost))
    want = pl.DataFrame(rows, schema_overrides={"exponent": pl.Float64})
    assert want["lost_success"].sum() > 10 and (~want["lost_success"]).sum() > 10
    same_rows(got, want, ["suite", "algorithm", "function", "dimension_from"],
              ["dimension_to", "art_from", "art_to", "exponent", "lost_success"])


@check("data_provenance")
def _(got, qstore, art_all, hits_all):
    runs = qstore.runs().collect()
    want = runs.group_by("source", "suite", "algorithm", "data_format", "coco_version").agg(
        trials=pl.len(), functions=pl.col("function").n_unique(), min_dimension=pl.col("dimension").min(),
        max_dimension=pl.col("dimension").max(), dimensions=pl.col("dimension").n_unique(),
        instances=pl.col("instance").n_unique(), reference_set=pl.col("instance").min() == 0,
        unfinalized_trials=(~pl.col("finalized")).sum())
    assert want.height == 16  # one per shared data set
    same_rows(got, want, ["source", "suite", "algorithm", "data_format", "coco_version"],
              [c for c in want.columns if c not in ("source", "suite", "algorithm", "data_format", "coco_version")])
    by_name = {r["source"]: r for r in got.iter_rows(named=True)}
    assert by_name["NM_on_bbob"]["coco_version"] == "2.8.2" and by_name["NM_on_bbob"]["data_format"] == "bbob-new2"
    assert by_name["DIRECT_posik_noiseless"]["coco_version"] is None and by_name["best2009-bbob"]["reference_set"]


@check("success_rates_per_suite")
def _(got, qstore, art_all, hits_all):
    final = hits_all.filter(pl.col("target") > 0).group_by("suite").agg(final_target=pl.col("target").min())
    h = hits_all.join(final, on="suite")
    want = h.group_by("suite", "algorithm").agg(
        trials=pl.col("run_id").n_unique(),
        solved_trials=((pl.col("target") == pl.col("final_target")) & pl.col("success")).sum(),
        targets_reached=pl.col("success").mean(), final_target=pl.col("final_target").first(),
    ).with_columns(success_rate=pl.col("solved_trials") / pl.col("trials"))
    assert dict(final.iter_rows()) == {"bbob": 1e-8, "bbob-biobj": 1e-5, "bbob-noisy": 1e-8, "bbob-mixint": 1e-8,
                                       "bbob-constrained": 1e-8, "bbob-largescale": 1e-8}
    same_rows(got, want.select(got.columns), ["suite", "algorithm"],
              ["trials", "solved_trials", "success_rate", "targets_reached", "final_target"])


@check("fixed_budget_precision")
def _(got, qstore, art_all, hits_all):
    refs = references(qstore)
    want = (Analysis(qstore, all_instances=True).fixed_budget([100], per_dimension=True).collect()
            .filter(~pl.col("algorithm").is_in(refs))
            .select(*PROBLEM, trials="runs", trials_with_record="runs_with_data", median_precision="median"))
    runs = qstore.runs().filter(~pl.col("algorithm").is_in(refs)).collect()
    ev = qstore.events().select("run_id", "evaluations", "best_delta").collect()
    best = (ev.join(runs.select("run_id", *PROBLEM), on="run_id").filter(pl.col("evaluations") <= 100 * pl.col("dimension"))
            .group_by("run_id", *PROBLEM).agg(pl.col("best_delta").min()).group_by(PROBLEM)
            .agg(best_precision=pl.col("best_delta").min()))
    want = want.join(best, on=PROBLEM, how="left")
    assert want.height > 1000
    same_rows(got, want, PROBLEM, ["trials", "trials_with_record", "median_precision", "best_precision"])


@check("unfinished_trials")
def _(got, qstore, art_all, hits_all):
    runs = qstore.runs().collect()
    want = runs.filter(~pl.col("finalized") | (pl.col("info_evaluations") != pl.col("last_evaluation")))
    want = want.with_columns(reason=pl.when(~pl.col("finalized")).then(pl.lit("unfinalized"))
                             .otherwise(pl.lit("evaluations differ")))
    assert want.height == 12 and set(want["algorithm"]) == {"BrentSTEPqi"}
    same_rows(got, want.select(got.columns), ["run_id"], ["reason", "last_evaluation", "final_delta", "data_file"])


@check("problems_solved")
def _(got, qstore, art_all, hits_all):
    a = art_all.filter(pl.col("target") == 1e-8)
    want = a.group_by("suite", "algorithm", "dimension").agg(
        functions=pl.len(), solved_once=(pl.col("successes") > 0).sum(),
        solved_always=(pl.col("successes") == pl.col("runs")).sum(),
        median_art_solved=pl.col("art").filter(pl.col("successes") > 0).median())
    same_rows(got, want, ["suite", "algorithm", "dimension"],
              ["functions", "solved_once", "solved_always", "median_art_solved"])
    nm = got.filter(algorithm="NM", dimension=2)
    assert nm["functions"].item() == 24 and 0 < nm["solved_once"].item() <= 24


# -- the test --------------------------------------------------------------------------------------
QUERY_FILES = sorted(QUERIES.glob("*.sql"))


def test_at_least_ten_ready_queries():
    assert len(QUERY_FILES) >= 10
    assert {f.stem for f in QUERY_FILES} == set(CHECKS), "every query file needs an independent check"


@pytest.mark.parametrize("path", QUERY_FILES, ids=[f.stem for f in QUERY_FILES])
def test_query_file(path, qstore, art_all, hits_all):
    text = path.read_text()
    header = text.split("\n\n")[0]
    for field in ("-- Question:", "-- Tables:", "-- Run:", "cocopipe query queries/" + path.name):
        assert field in header, f"{path.name}: header lacks {field!r}"
    got = run_sql(qstore, str(path)).collect()
    assert got.height > 0, path.name
    CHECKS[path.stem](got, qstore, art_all, hits_all)
