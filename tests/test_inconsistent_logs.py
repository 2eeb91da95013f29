"""Logs that disagree with themselves (issue 21 item 7): cocopp's reading by default, seed 000's under
`exact`, the disagreeing records counted per trial and reported at ingest."""
from __future__ import annotations

import shutil
import subprocess
import sys

import numpy as np
import polars as pl
import pytest

import inconsistent_logs
from conftest import ROOT, SHARED, shared_or_skip
from logs import drop_columns, write_new2
from pipeline.api import Analysis
from pipeline.ingest import ingest
from pipeline.hits import targets as tg
from pipeline.store import Store

GRID = {round(t, 3): t for t in tg.default("bbob")}  # the standard targets, bit for bit
T = [GRID[0.631], GRID[0.398], GRID[0.251], GRID[0.158]]  # 10^(-1/5) .. 10^(-4/5)
# A: the second record rises above the first (EvoSpace-PSO-GA's f14 3-D, trial 5, at other values)
A = [(1, 0.174), (193, 0.646), (275, 0.189), (357, 0.104)]
B = [(1, 50.0), (10, 5.0), (20, 0.5), (30, 0.3), (40, 0.2), (50, 0.01)]
FAST = [(1, 50.0), (10, 0.01)]  # leaves every level above 0.01 at once


def store_of(tmp_path, runs, name="A") -> Store:
    st = Store(tmp_path / f"store-{name}", create=True)
    summary = ingest([write_new2(tmp_path / name, runs=runs)], st)
    assert summary.runs == len(runs)
    return st


def hits(st: Store, instance: int, exact: bool, cache: bool, targets=T) -> list[int | None]:
    """The trial's hits of the targets, largest target first."""
    h = Analysis(st, exact=exact, cache=cache).hits(list(targets)).filter(pl.col("instance") == instance)
    return h.sort("target", descending=True).collect()["hit"].to_list()


def test_the_aligner_leaves_a_record_the_next_one_rises_above_while_another_trial_holds_the_level():
    """cocopp's rows (level of the grid 10^(k/5) at or above what they hold): 63.1 (A@1, B@1); at the
    level 39.8 B moves to 5: row 6.31; at 3.98 B moves to 0.5: row 0.631, still holding A's first
    record; at 0.398 A's next record (0.646) lies above the level: the reader leaves A's first record
    for the first at or below 0.398 (0.189, rows 0.398 and 0.251), then 0.104 (row 0.158). Each record
    counts with the lowest row that held it (0.646: none)."""
    from pipeline import alignment

    a, b, fast = (np.array([v for _, v in t]) for t in (A, B, FAST))
    level = {k: float(np.power(10.0, k / 5)) for k in range(-5, 3)}  # as cocopp computes them
    assert alignment.dat_values([a, b], 5)[0].tolist() == [level[-1], np.inf, level[-3], level[-4]]
    assert alignment.dat_values([b, a], 5)[1].tolist() == [level[-1], np.inf, level[-3], level[-4]]
    # beside a trial that leaves every level above 0.01 at once, A is the worst trial: the level drops
    # below A's first value (row 0.251) before A's next record is looked at
    assert alignment.dat_values([a, fast], 5)[0].tolist() == [level[-3], np.inf, np.inf, level[-4]]


@pytest.mark.parametrize("cache", [True, False])
def test_cocopp_reading_by_default_seed_000_under_exact(tmp_path, cache):
    """Seed 000: the first hitting time is the first evaluation at which the best-so-far reaches the
    target (A: evaluation 1 for 0.631 .. 0.251). cocopp 2.9.1 reads 0.398 and 0.251 at evaluation
    275, once trial B holds the aligner's level above A's first value (see the test above)."""
    st = store_of(tmp_path, [{"instance": 1, "dat": A}, {"instance": 2, "dat": B}])
    assert hits(st, 1, exact=False, cache=cache) == [1, 275, 275, 357]
    assert hits(st, 1, exact=True, cache=cache) == [1, 1, 1, 357]
    assert hits(st, 2, exact=False, cache=cache) == hits(st, 2, exact=True, cache=cache) == [20, 30, 40, 50]
    other = store_of(tmp_path, [{"instance": 1, "dat": A}, {"instance": 2, "dat": FAST}], "fast")
    assert hits(other, 1, exact=False, cache=cache) == [1, 1, 1, 357]


def test_final_value_from_the_last_records_and_hits_from_the_dat(tmp_path):
    """The .tdat dips to 0.01 at evaluation 3, then rises to 2 (EvoSpace-PSO-GA f16 20-D): cocopp's
    final value is the smaller of the last .dat (1.0) and last .tdat (2.0) records; its hits read the
    .dat alone, seed 000's every record."""
    st = store_of(tmp_path, [{"instance": 1, "dat": [(1, 10.0), (5, 1.0)], "tdat": [(1, 10.0), (3, 0.01), (8, 2.0)]}])
    run = st.runs().collect().row(0, named=True)
    assert (run["final_delta"], run["evaluations"], run["inconsistent_records"]) == (1.0, 8, 2)
    assert hits(st, 1, exact=False, cache=True, targets=[1.0, 0.01]) == [5, None]
    assert hits(st, 1, exact=True, cache=True, targets=[1.0, 0.01]) == [3, 3]


def test_final_target_hit_read_from_the_dat(tmp_path):
    # the .tdat reaches 1e-9 at evaluation 3, the .dat at 7: cocopp's maxevals is the .dat's hit
    st = store_of(tmp_path, [{"instance": 1, "dat": [(1, 10.0), (7, 1e-9)], "tdat": [(1, 10.0), (3, 1e-9), (7, 1e-9)]}])
    assert st.runs().collect()["evaluations"].to_list() == [7]


def test_inconsistent_records_count_rises_and_two_values_at_one_evaluation_count():
    # the merged records of two trials as the ingest sorts them (the larger precision first at one count):
    # trial 0: .tdat 33.47 and .dat 0.174 at evaluation 1 (the larger disagrees), then 0.646 and 0.189
    # above 0.174; trial 1: consistent
    from pipeline.ingest import consistency

    seq = np.array([0, 0, 0, 0, 0, 1, 1, 1])
    evals = np.array([1, 1, 193, 275, 357, 1, 5, 5])
    best = np.array([33.47, 0.174, 0.646, 0.189, 0.104, 9.0, 2.0, 2.0])
    assert consistency.inconsistent_records(seq, evals, best, 3).tolist() == [3, 1, 0]
    assert consistency.inconsistent_records(seq[5:6], evals[5:6], best[5:6], 2).tolist() == [0, 0]


def cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *map(str, args)], capture_output=True, text=True,
                          cwd=ROOT)


def test_ingest_reports_them_and_runs_lists_them(tmp_path):
    root = write_new2(tmp_path / "logs", runs=[{"instance": 1, "dat": A}, {"instance": 2, "dat": B}])
    write_new2(root, function=2, runs=[{"instance": 1, "dat": B}])
    r = cli("ingest", root, "--store", tmp_path / "st")
    assert r.returncode == 0, r.stderr
    note = next(ln for ln in r.stderr.splitlines() if ln.startswith("note:"))
    assert "logs: 1 of 3 runs (1 of 2 data sets: f1 2-D) log records that disagree with themselves (2 records" in note
    assert "--exact-hits" in note
    out = tmp_path / "runs.csv"
    assert cli("runs", "--store", tmp_path / "st", "--out", out).returncode == 0
    got = pl.read_csv(out).sort("function", "instance")
    assert got.select("function", "instance", "inconsistent_records").rows() == [(1, 1, 2), (1, 2, 0), (2, 1, 0)]
    r = cli("ingest", write_new2(tmp_path / "fine", runs=[{"instance": 1, "dat": B}]), "--store", tmp_path / "st2")
    assert r.returncode == 0 and "note:" not in r.stderr


def test_stores_written_before_the_count_read_it_as_null(tmp_path):
    """Runs files of schema 1.0.0 (no inconsistent_records) beside new ones: read with nulls, and the
    replay still reads cocopp's hits where the count is unknown."""
    st = store_of(tmp_path, [{"instance": 1, "dat": A}, {"instance": 2, "dat": B}])
    want = Analysis(st).art(list(T), dispersion=False).collect()
    shutil.rmtree(st.path / "_cache")
    drop_columns(st.path, "runs", ["inconsistent_records"])
    new = ingest([write_new2(tmp_path / "B", alg="B", runs=[{"instance": 1, "dat": B}])], st)
    assert new.runs == 1
    runs = st.runs().collect()
    assert runs.filter(pl.col("algorithm") == "ALG")["inconsistent_records"].null_count() == 2
    assert runs.filter(pl.col("algorithm") == "B")["inconsistent_records"].to_list() == [0]
    for cache in (True, False):
        got = Analysis(st, algorithm="ALG", cache=cache).art(list(T), dispersion=False).collect()
        assert got.equals(want)


@pytest.mark.parametrize("name", list(inconsistent_logs.KEEP))
@pytest.mark.parametrize("cache", [True, False])
def test_parity_with_cocopp_on_shared_logs_edited_to_disagree(name, cache, tmp_path, monkeypatch):
    """tests/fixtures/make_inconsistent_fixture.py: cocopp 2.9.1's numbers for the same edited logs."""
    shared_or_skip()
    archive = next(p for kind in ("real", "generated") for p in (SHARED / "data" / kind).glob(f"{name}.t*gz"))
    folder = inconsistent_logs.make(archive, tmp_path / name, inconsistent_logs.KEEP[name])
    st = Store(tmp_path / "store", create=True)
    ingest([folder], st)
    monkeypatch.setenv("COCOPIPE_HITS_CACHE", "1" if cache else "0")
    a = Analysis(st)
    fixtures = ROOT / "tests" / "fixtures"
    for mode, frame in (("runs", a.runs().collect().drop("best_x")), ("art", a.art(dispersion=False).collect())):
        oracle = pl.read_csv(fixtures / f"inconsistent_cocopp.{mode}.csv").filter(pl.col("algorithm") == name)
        ours, ref = tmp_path / f"ours.{mode}.csv", tmp_path / f"ref.{mode}.csv"
        frame.drop("best_x", strict=False).write_csv(ours)  # a list (IOHprofiler json only): no CSV column
        oracle.write_csv(ref)
        res = subprocess.run([sys.executable, str(SHARED / "tools" / "parity.py"), mode, str(ours), str(ref)],
                             capture_output=True, text=True)
        assert "PARITY OK" in res.stdout, res.stdout
    assert a.runs().collect()["inconsistent_records"].sum() > 0


@pytest.mark.parametrize("path", ["first_hits", "hitting_times"])
def test_hits_equal_cocopps_on_random_data_sets_whose_precision_rises(path):
    """tests/fixtures/make_alignment_fixture.py: cocopp's hits of small random bbob and bbob-biobj data
    sets (values that rise, land on the levels of its grid or within 1e-9 of them, reach 0, go
    negative), where they differ from the first record that reaches the target."""
    import json

    from pipeline.hits import _kernel, spec

    sets = json.loads((ROOT / "tests" / "fixtures" / "alignment_cocopp.json").read_text())
    assert {s["suite"] for s in sets} == {"bbob", "bbob-biobj"}
    for s in sets:
        n = len(s["trials"])
        runs = pl.DataFrame({"run_id": range(n), "suite": s["suite"], "algorithm": "A", "function": 1, "dimension": 2,
                             "instance": range(1, n + 1), "trial": range(n), "evaluations": 10_000,
                             "final_delta": 0.0}, schema_overrides={"function": pl.Int32, "dimension": pl.Int32,
                                                                    "instance": pl.Int32, "trial": pl.Int32})
        events = pl.DataFrame([{"run_id": i, "evaluations": e, "best_delta": v, "trigger": 3}
                               for i, t in enumerate(s["trials"]) for e, v in t],
                              schema={"run_id": pl.Int64, "evaluations": pl.Int64, "best_delta": pl.Float64,
                                      "trigger": pl.Int8})
        ts = tg.default(s["suite"])
        if path == "first_hits":
            got = _kernel.first_hits(runs, events, {s["suite"]: ts})
        else:
            got = spec.hitting_times(runs.lazy(), events.lazy(), tg.frame(ts)).select(
                "run_id", "target", "hit").collect()
        by = {(r, t): h for r, t, h in got.rows()}
        want = [[by[(i, t)] for i in range(n)] for t in ts]
        assert want == [[None if h is None else int(h) for h in row] for row in s["hits"]], s
