"""The median runtime per target (`pipeline.measures.median`) on four hand-made trials answered by hand,
through the facade, the command and the chart the registry gives it."""
from __future__ import annotations

import json
import subprocess
import sys

import polars as pl
import pytest

from conftest import ROOT
from logs import write_new2
from pipeline.api import Analysis
from pipeline.ingest import ingest
from pipeline.store import Store

#: (instance, .dat records (evaluations, best precision)): first hits of 1e-1 at 30, 50, never, 90; of 1e-3
#: never, 70, never, 120; of 1e-8 never
TRIALS = [(1, [(1, 10.0), (30, 0.05), (100, 0.01)]), (2, [(1, 5.0), (50, 0.1), (70, 1e-4)]),
          (3, [(1, 3.0), (200, 0.5)]), (4, [(1, 2.0), (90, 0.02), (120, 5e-4)])]


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Store:
    root = tmp_path_factory.mktemp("median")
    write_new2(root / "logs", alg="A", runs=[{"instance": i, "dat": recs} for i, recs in TRIALS])
    st = Store(root / "store", create=True)
    ingest([root / "logs"], st)
    return st


def rows(frame: pl.DataFrame) -> list[tuple]:
    return frame.select("target", "median", "successes", "trials").rows()


def test_the_median_of_the_successful_runtimes_per_target(store):
    # 1e-1: median of 30, 50, 90; 1e-3: of 70 and 120 (the mean of the two); 1e-8: no success, no median
    table = Analysis(store).median_runtime([1e-1, 1e-3, 1e-8]).collect()
    assert rows(table) == [(1e-1, 50.0, 3, 4), (1e-3, 95.0, 2, 4), (1e-8, None, 0, 4)]
    assert table.select("suite", "algorithm", "function", "dimension").unique().rows() == [("bbob", "A", 1, 2)]


def test_a_budget_cut_leaves_out_the_later_hits(store):
    # at 60 evaluations trial 4 has not reached 1e-1 (90) and trial 2 not 1e-3 (70)
    table = Analysis(store, max_budget="60").median_runtime([1e-1, 1e-3]).collect()
    assert rows(table) == [(1e-1, 40.0, 2, 4), (1e-3, None, 0, 4)]


def test_an_empty_selection_gives_no_row_and_the_columns(store, tmp_path):
    empty = Analysis(Store(tmp_path / "empty", create=True)).median_runtime([1e-1]).collect()
    assert empty.height == 0
    assert empty.columns == ["suite", "algorithm", "function", "dimension", "target", "median", "successes", "trials"]


def test_the_command_from_the_registry_writes_the_table(store, tmp_path):
    out = tmp_path / "median.csv"
    r = subprocess.run([sys.executable, "-m", "pipeline.cli", "median-runtime", "--store", str(store.path),
                        "--targets", "0.1,0.001", "--out", str(out)], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert out.read_text().splitlines() == ["suite,algorithm,function,dimension,target,median,successes,trials",
                                            "bbob,A,1,2,0.1,50.0,3,4", "bbob,A,1,2,0.001,95.0,2,4"]


def test_the_chart_draws_the_medians(store):
    from pipeline.recipes import KIND_NAMES, kinds

    assert "median" in KIND_NAMES
    spec = kinds.chart("median", Analysis(store), targets=[1e-1, 1e-3, 1e-8]).to_dict()
    data = [row for rows_ in spec["datasets"].values() for row in rows_]
    assert sorted((r["target"], r["median"]) for r in data) == [(1e-8, None), (1e-3, 95.0), (1e-1, 50.0)]
    assert json.dumps(spec)  # a Vega-Lite specification, as `cocopipe chart median` writes it
