"""The recomputed bbob-biobj indicator on RS_on_bbob-biobj (logged with the archive of all
non-dominated solutions): equal to what the COCO logger wrote, and cocopp's aRT from it."""
from __future__ import annotations

import subprocess
import sys

import polars as pl
import pytest

from conftest import SHARED, shared_or_skip

pytest.importorskip("cocoex", reason="coco-experiment (pip install '.[biobj]') computes ideal and nadir points")

DATA = SHARED / "data" / "generated" / "RS_on_bbob-biobj.tgz"
CLI = [sys.executable, "-m", "pipeline.cli"]


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    shared_or_skip()
    path = tmp_path_factory.mktemp("rs-biobj") / "store"
    r = subprocess.run(CLI + ["ingest", str(DATA), "--store", str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    r = subprocess.run(CLI + ["biobj", "recompute", "--store", str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "recomputed the indicator of 2475 runs" in r.stderr
    return path


def test_every_logged_solution_is_in_the_archive_table(store):
    from pipeline.store import Store

    st = Store(store)
    a = st.archive().collect()
    runs = st.runs().collect()
    assert a["run_id"].n_unique() == runs.height == 2475
    assert a.filter(pl.col("x").list.len() != pl.col("run_id").replace_strict(
        runs["run_id"], runs["dimension"])).height == 0


def test_recomputed_indicator_equals_the_logged_one_at_every_logged_evaluation(store):
    from pipeline.api import Analysis
    from pipeline.store import Store

    st = Store(store)
    logged = Analysis(st, all_instances=True).events().collect()
    rec = Analysis(st, all_instances=True, indicator="recomputed").events().collect()
    assert rec["run_id"].n_unique() == logged["run_id"].n_unique() == 2475
    # the recomputed value in force at each .dat/.tdat record: the last archive change at or before it
    j = logged.sort("evaluations").join_asof(
        rec.sort("evaluations").select("run_id", "evaluations", recomputed="best_delta"),
        on="evaluations", by="run_id", strategy="backward", check_sortedness=False)
    assert j["recomputed"].null_count() == 0
    rel = ((pl.col("recomputed") - pl.col("best_delta")).abs() / pl.col("best_delta").abs())
    worst = j.select(rel.max()).item()
    assert worst <= 1e-9, j.with_columns(rel=rel).sort("rel", descending=True).head(3)
    # and every archive change that hit a new logged target shows in the .dat at that evaluation
    assert rec.join(logged.filter(pl.col("trigger") != 2).select("run_id", "evaluations"),
                    on=["run_id", "evaluations"], how="semi").height == logged.filter(pl.col("trigger") != 2).height


def test_art_of_the_recomputed_indicator_matches_cocopp(store, tmp_path):
    out = tmp_path / "X.csv"
    r = subprocess.run(CLI + ["art", "--store", str(store), "--indicator", "recomputed", "--out", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    res = subprocess.run([sys.executable, str(SHARED / "tools" / "parity.py"), "art", str(out),
                          str(SHARED / "oracle" / "RS_on_bbob-biobj.art.csv")], capture_output=True, text=True)
    assert "PARITY OK" in res.stdout, res.stdout[-2000:]


def test_biobj_function_groups_are_the_folders_the_logger_wrote(store):
    from pipeline.measures.groups import groups_frame
    from pipeline.store import Store

    runs = Store(store).runs().collect()
    folders = runs.select("function", folder=pl.col("info_file").str.extract(r"([^/]+)_hyp\.info$")).unique()
    groups = groups_frame("bbob-biobj").collect()
    j = folders.join(groups, on="function", how="left")
    assert j.height == 55 and j["group"].null_count() == 0
    assert (j["group"] == j["folder"]).all()


def test_auc_reads_either_indicator_and_both_agree_here(store, tmp_path):
    outs = {}
    for ind in ("logged", "recomputed"):
        outs[ind] = tmp_path / f"auc-{ind}.csv"
        r = subprocess.run(CLI + ["auc", "--store", str(store), "--indicator", ind, "--out", str(outs[ind])],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
    a, b = (pl.read_csv(outs[k]).sort("function", "dimension") for k in ("logged", "recomputed"))
    assert a.height == 165 and a.select("function", "dimension").equals(b.select("function", "dimension"))
    assert (a["auc"] - b["auc"]).abs().max() < 1e-12
