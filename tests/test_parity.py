"""Parity with cocopp 2.9.1: runs, aRT and the 100 x dimension budget cut for every shared data set."""
from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import NAMES, SHARED, shared_or_skip
from pipeline.api import Analysis



def parity(mode: str, ours, oracle) -> str:
    res = subprocess.run([sys.executable, str(SHARED / "tools" / "parity.py"), mode, str(ours), str(oracle)],
                         capture_output=True, text=True)
    return res.stdout




@pytest.mark.parametrize("name", NAMES)
def test_runs_parity(stores, name, tmp_path):
    a = Analysis(stores[name])
    csv = tmp_path / "runs.csv"
    a.runs().collect().drop("best_x").write_csv(csv)  # a list (IOHprofiler json only): no CSV column
    out = parity("runs", csv, SHARED / "oracle" / f"{name}.runs.csv")
    assert "PARITY OK" in out, out


@pytest.mark.parametrize("name", NAMES)
def test_art_parity(stores, name, tmp_path):
    csv = tmp_path / "art.csv"
    Analysis(stores[name]).art(dispersion=False).collect().write_csv(csv)
    out = parity("art", csv, SHARED / "oracle" / f"{name}.art.csv")
    assert "PARITY OK" in out, out


@pytest.mark.parametrize("name", [n for n in NAMES if (SHARED / "oracle" / f"{n}.art_cut100x.csv").exists()])
def test_budget_cut_parity(stores, name, tmp_path):
    csv = tmp_path / "cut.csv"
    Analysis(stores[name], max_budget="100x").art(dispersion=False).collect().write_csv(csv)
    out = parity("art", csv, SHARED / "oracle" / f"{name}.art_cut100x.csv")
    assert "PARITY OK" in out, out


def test_cut_above_every_budget_changes_nothing(stores):
    st = stores["NM_on_bbob"]
    full = Analysis(st).art(dispersion=False).collect()
    cut = Analysis(st, max_budget="1e12").art(dispersion=False).collect()
    assert full.equals(cut)


def test_cli_end_to_end(tmp_path):
    shared_or_skip()
    src = SHARED / "data" / "real" / "DIRECT_posik_noiseless.tgz"
    store = tmp_path / "store"
    cli = [sys.executable, "-m", "pipeline.cli"]
    r = subprocess.run(cli + ["ingest", str(src), "--store", str(store)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "720 runs read, 0 runs skipped" in r.stderr
    for cmd, mode in (("runs", "runs"), ("art", "art")):
        out = tmp_path / f"{cmd}.csv"
        r = subprocess.run(cli + [cmd, "--store", str(store), "--out", str(out)], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        assert "PARITY OK" in parity(mode, out, SHARED / "oracle" / f"DIRECT_posik_noiseless.{mode}.csv")
