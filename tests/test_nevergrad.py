"""Nevergrad's benchmark results (`pipeline.ingest.nevergrad`): a results file written by nevergrad 1.0.12's
own benchmark runner (tests/fixtures/nevergrad, `experiment.py`) read with every run, IOHanalyzer's reading of
the columns, and bad rows named with their line while the readable runs are kept."""
from __future__ import annotations

import csv
import subprocess
import sys

import polars as pl
import pytest

from conftest import ROOT
from pipeline.api import Analysis
from pipeline.ingest import ingest, read_source
from pipeline.ingest.nevergrad import function_code
from pipeline.ingest.readers import NOTHING_TO_READ, parse
from pipeline.selection import Selection
from pipeline.store import Store

FIXTURE = ROOT / "tests" / "fixtures" / "nevergrad"
HEAD = "loss,elapsed_budget,error,name,function_class,dimension,budget,optimizer_name"


def values(store: Store) -> pl.DataFrame:
    return Analysis(Selection(store).narrow(quantity="value")).runs().collect()


def cli(*args):
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *map(str, args)], capture_output=True, text=True)


def test_the_file_nevergrad_wrote_is_read_with_every_run(tmp_path):
    st = Store(tmp_path / "s", create=True)
    summary = ingest([FIXTURE], st)
    assert [s.problems for s in summary.sources] == [[]]
    with open(FIXTURE / "results.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 108
    expected = sorted((r["optimizer_name"], r["name"], int(r["dimension"]), int(r["budget"]), float(r["loss"]))
                      for r in rows)
    runs = values(st)
    got = sorted(runs.select("algorithm", "function_name", "dimension", "evaluations", "best_y").rows())
    assert got == expected
    assert set(runs["suite"]) == {"nevergrad"} and set(runs["data_format"]) == {"nevergrad"}
    assert set(runs["final_delta"].to_list()) == {r[4] for r in expected}  # a run's one record: its loss
    assert dict(runs.select("function_name", "function").unique().rows()) == {
        "sphere": function_code("sphere"), "rastrigin": function_code("rastrigin")}
    # the repetitions of one (optimizer, function, dimension): 3 budgets x 3 repetitions
    assert set(runs.group_by("algorithm", "function", "dimension").len()["len"]) == {9}


def test_a_measure_reads_the_losses_at_the_budgets(tmp_path):
    st = Store(tmp_path / "s", create=True)
    ingest([FIXTURE], st)
    table = Analysis(st, algorithm="DE", dimension=2).fixed_budget([100], summary=False).collect()
    with open(FIXTURE / "results.csv", newline="") as f:
        losses = sorted(float(r["loss"]) for r in csv.DictReader(f)
                        if (r["optimizer_name"], r["dimension"], r["budget"]) == ("DE", "2", "100"))
    at_100 = table.filter(pl.col("evaluations") == 100)
    assert sorted(at_100["best_delta"].to_list()) == losses


def test_bad_rows_are_named_with_their_line_and_the_others_kept(tmp_path):
    src = tmp_path / "ng"
    src.mkdir()
    (src / "results.csv").write_text("\n".join([
        HEAD,
        "0.5,10,,sphere,ArtificialFunction,2,10,OnePlusOne",
        ",,TypeError,sphere,ArtificialFunction,2,20,OnePlusOne",        # line 3: the run failed
        "abc,10,,sphere,ArtificialFunction,2,10,DE",                    # line 4: the loss is no number
        "0.25,10,,sphere,ArtificialFunction,2.5,10,DE",                 # line 5: the dimension is no integer
        "0.125,30,,,ArtificialFunction,3,30,DE",                        # no name: the function class
    ]) + "\n")
    parsed = parse(read_source(src))
    assert [(p.file, p.line, p.action) for p in parsed.problems] == [
        ("results.csv", 3, "run skipped"), ("results.csv", 4, "run skipped"), ("results.csv", 5, "run skipped")]
    assert "the run failed (TypeError)" in str(parsed.problems[0])
    assert "loss 'abc' is not a number" in str(parsed.problems[1])
    assert parsed.runs_skipped == 3
    assert sorted(parsed.runs.select("algorithm", "function_name", "dimension").rows()) == [
        ("DE", "ArtificialFunction", 3), ("OnePlusOne", "sphere", 2)]


def test_rescaled_functions_are_functions_of_their_own(tmp_path):
    src = tmp_path / "ng"
    src.mkdir()
    (src / "r.csv").write_text("loss,name,dimension,budget,optimizer_name,rescale\n1.0,sphere,2,10,A,False\n"
                               "2.0,sphere,2,10,A,True\n")
    runs = parse(read_source(src)).runs
    assert sorted(runs["function_name"]) == ["sphere", "sphere_rescaled"]
    assert len(set(runs["function"])) == 2


def test_a_csv_file_of_another_kind_is_no_log(tmp_path):
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "table.csv").write_text("a,b\n1,2\n")
    parsed = parse(read_source(tmp_path / "other"))
    assert parsed.runs.height == 0 and [p.message for p in parsed.problems] == [NOTHING_TO_READ]
    r = cli("ingest", tmp_path / "other", "--store", tmp_path / "st")
    assert r.returncode == 1 and "Nevergrad results" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("text", ["loss,name,dimension,budget,optimizer_name\n\"unclosed,1,2,3\n"])
def test_an_unreadable_file_is_named(tmp_path, text):
    (tmp_path / "ng").mkdir()
    (tmp_path / "ng" / "r.csv").write_text(text)
    parsed = parse(read_source(tmp_path / "ng"))
    assert parsed.runs.height == 0 and parsed.problems and all(p.file == "r.csv" for p in parsed.problems)
