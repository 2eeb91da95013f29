"""Hostile input to the COCO readers and the ingest (issue 28): bad dimensions, nan/inf records, huge
.info lines, empty names, duplicate trials across sources, unread sources and the exit status, FIFOs and
folders nested deeper than Python's recursion limit."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from logs import write_new2
from pipeline.ingest import ingest, parse_source, read_source
from pipeline.store import Store

TWO_RUNS = [{"instance": 1, "dat": [(1, 5.0), (3, 2.0), (7, 0.5)]}, {"instance": 2, "dat": [(1, 4.0), (5, 1.0)]}]


def cli(*args, cwd=None):
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *map(str, args)], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=120)


def edit(root: Path, old: str, new: str, *names: str) -> None:
    """Replace `old` by `new` (once) in the named files of a write_new2 experiment."""
    for name in names:
        p = root / name
        text = p.read_text()
        assert old in text, (old, name)
        p.write_text(text.replace(old, new, 1))


DAT, TDAT, INFO = "data_f1/bbobexp_f1_DIM2.dat", "data_f1/bbobexp_f1_DIM2.tdat", "bbobexp_f1.info"


# item 4: dimensions and functions that cannot be, nan/inf in records


@pytest.mark.parametrize("field", ["DIM = 0", "DIM = -3", "funcId = 0"])
def test_impossible_dimension_or_function_is_named_and_its_runs_skipped(tmp_path, field):
    root = write_new2(tmp_path / "A", runs=TWO_RUNS)
    edit(root, "DIM = 2" if "DIM" in field else "funcId = 1", field, INFO)
    res = parse_source(read_source(root))
    assert [(p.file, p.line, p.action) for p in res.problems] == [(INFO, 3, "2 run(s) skipped")]
    assert "must be 1 or more" in res.problems[0].message
    assert res.runs.height == 0 and res.runs_skipped == 2


@pytest.mark.parametrize("record, why", [
    ("nan 0 +2.000000000e+00", "evaluations nan"),
    ("3 nan +2.000000000e+00", "g-evaluations nan"),
    ("inf 0 +2.000000000e+00", "evaluations inf out of range"),
    ("3 inf +2.000000000e+00", "evaluations inf out of range"),
    ("1e400 0 +2.000000000e+00", "evaluations inf out of range"),
])
def test_nan_or_inf_evaluations_are_named_and_left_out_alone(tmp_path, record, why):
    """The record is named with file and line and skipped; the records after it are kept (an evaluation
    count of inf does not make every later record 'decrease')."""
    root = write_new2(tmp_path / "A", runs=TWO_RUNS)
    edit(root, "3 0 +2.000000000e+00", record, DAT)
    res = parse_source(read_source(root))
    assert [(p.file, p.line, p.action) for p in res.problems] == [(DAT, 3, "line skipped")]
    assert why in res.problems[0].message
    first = res.runs.sort("trial")["run_id"][0]
    ev = res.events.filter(pl.col("run_id") == first).sort("evaluations")
    assert ev["evaluations"].to_list() == [1, 3, 7]  # 3 from the .tdat, which holds the record intact
    assert ev.filter(pl.col("evaluations") == 3)["trigger"].to_list() == [2]
    assert ev["best_delta"].is_finite().all()


def test_nan_precision_never_becomes_a_precision(tmp_path):
    root = write_new2(tmp_path / "A", runs=TWO_RUNS)
    edit(root, "3 0 +2.000000000e+00", "3 0 nan", DAT, TDAT)
    res = parse_source(read_source(root))
    assert {(p.file, p.line) for p in res.problems} == {(DAT, 3), (TDAT, 3)}
    assert not res.events["best_delta"].is_nan().any()
    assert res.runs.height == 2


# item 5: a huge .info line


def test_huge_info_header_line_counts_its_runs_as_skipped(tmp_path):
    root = write_new2(tmp_path / "A", runs=TWO_RUNS)
    write_new2(root, function=2, runs=TWO_RUNS + [{"instance": 3, "dat": [(1, 4.0)]}], info_name=INFO)
    text = (root / INFO).read_text().splitlines()
    text[3] = text[3] + ", comment = '" + "x" * (5 << 20) + "'"  # the second entry's header: 5 MB
    (root / INFO).write_text("\n".join(text) + "\n")
    res = parse_source(read_source(root))
    named = [(p.file, p.line, p.action) for p in res.problems]
    assert named == [(INFO, 4, "line skipped"), (INFO, 6, "3 run(s) skipped")]
    assert res.runs["function"].to_list() == [1, 1]  # never read under the first entry's header
    assert res.runs_skipped == 3


def test_huge_info_data_line_counts_its_runs_as_skipped(tmp_path):
    root = write_new2(tmp_path / "A", runs=TWO_RUNS)
    edit(root, "1:7|5.0e-01", "1:7|5.0e-01" + ", 9:1|1.0e+00" * 400_000, INFO)
    res = parse_source(read_source(root))
    assert [(p.file, p.line, p.action) for p in res.problems] == [(INFO, 3, "400002 run(s) skipped")]
    assert res.runs.height == 0 and res.runs_skipped == 400_002


# item 17: empty names


def test_empty_algorithm_name_in_the_logs_is_named(tmp_path):
    root = write_new2(tmp_path / "A", alg="", runs=TWO_RUNS)
    res = parse_source(read_source(root))
    assert [(p.file, p.line, p.action) for p in res.problems] == [(INFO, 1, "named after the source: A")]
    assert res.runs["algorithm"].unique().to_list() == ["A"]


@pytest.mark.parametrize("name", ["", "  "])
def test_empty_algorithm_name_given_is_refused(tmp_path, name):
    root = write_new2(tmp_path / "A", runs=TWO_RUNS)
    with pytest.raises(ValueError, match="--name: give a non-empty"):
        ingest([root], Store(tmp_path / "st", create=True), name=name)
    r = cli("ingest", root, "--store", tmp_path / "st2", "--name", name)
    assert r.returncode == 1 and "--name: give a non-empty algorithm name" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr
