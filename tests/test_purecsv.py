"""IOHanalyzer's plain CSV (`pipeline.ingest.purecsv`, IOHanalyzer's `read_pure_csv`): a hand-made file answered by
hand, IOHanalyzer's column names and defaults, bad rows named with their line while the readable ones are kept."""
from __future__ import annotations

import subprocess
import sys

import polars as pl

from pipeline.api import Analysis
from pipeline.ingest import ingest, read_source
from pipeline.ingest.nevergrad import function_code
from pipeline.ingest.readers import NOTHING_TO_READ, parse
from pipeline.selection import Selection
from pipeline.store import Store

# the columns in the order IOHanalyzer's upload page picks them by default (evaluation count, function value,
# function, algorithm, dimension, run: its `read_pure_csv` names them neval, fval, fname, algname, dim, run)
HAND = """neval,fval,fname,algname,dim,run
1,10,sphere,A,2,1
3,4,sphere,A,2,1
5,6,sphere,A,2,1
1,8,sphere,A,2,2
2,1,sphere,A,2,2
1,7,3,B,5,1
"""


def write(tmp_path, text: str, name: str = "runs.csv"):
    src = tmp_path / "src"
    src.mkdir(exist_ok=True)
    (src / name).write_text(text)
    return src


def events(parsed) -> list[tuple]:
    runs = parsed.runs.select("run_id", "algorithm", "function_name", "dimension")
    return sorted(parsed.events.join(runs, on=["run_id", "algorithm"]).select(
        "algorithm", "function_name", "dimension", "evaluations", "measured").rows())


def test_a_hand_made_file_gives_its_runs_and_records(tmp_path):
    parsed = parse(read_source(write(tmp_path, HAND)))
    assert parsed.problems == []
    runs = parsed.runs.sort("algorithm", "best_y")
    assert runs.select("algorithm", "function_name", "function", "dimension", "best_y", "last_evaluation").rows() == [
        ("A", "sphere", function_code("sphere"), 2, 1.0, 2), ("A", "sphere", function_code("sphere"), 2, 4.0, 5),
        ("B", "3", 3, 5, 7.0, 1)]
    assert set(runs["suite"]) == {"custom"} and set(runs["data_format"]) == {"csv"}
    assert runs["final_delta"].is_null().all()  # no known optimum: values, not precisions
    assert events(parsed) == [("A", "sphere", 2, 1, 8.0), ("A", "sphere", 2, 1, 10.0), ("A", "sphere", 2, 2, 1.0),
                              ("A", "sphere", 2, 3, 4.0), ("A", "sphere", 2, 5, 6.0), ("B", "3", 5, 1, 7.0)]


def test_the_measures_of_values_read_the_runs(tmp_path):
    st = Store(tmp_path / "s", create=True)
    ingest([write(tmp_path, HAND)], st)
    # value 5 reached at evaluation 3 (run 1) and 2 (run 2): ERT (3 + 2) / 2
    ert = Analysis(st, algorithm="A").ert([5.0]).collect()
    assert ert.select("target", "ert", "successes").rows() == [(5.0, 2.5, 2)]
    budget = Analysis(Selection(st).narrow(quantity="value"), algorithm="A").fixed_budget(
        [2], summary=False).collect()
    assert sorted(budget["best_delta"]) == [1.0, 10.0]  # best value so far at 2 evaluations


def test_absent_columns_take_iohanalyzer_defaults(tmp_path):
    # fval alone: evaluations 1, 2, 3 in file order, one run of algorithm Alg1 on Fname in dimension 2
    parsed = parse(read_source(write(tmp_path, "fval\n3\n5\n1\n")))
    assert parsed.problems == []
    assert parsed.runs.select("algorithm", "function_name", "dimension", "best_y").rows() == [("Alg1", "Fname", 2, 1.0)]
    assert sorted(parsed.events.select("evaluations", "measured").rows()) == [(1, 3.0), (2, 5.0), (3, 1.0)]
    # no neval: sequential within each run
    parsed = parse(read_source(write(tmp_path, "fval,run\n3,1\n9,2\n1,1\n", "b.csv")))
    got = sorted(parsed.events.join(parsed.runs.select("run_id", "best_y"), on="run_id")
                 .select("best_y", "evaluations", "measured").rows())
    assert (1.0, 1, 3.0) in got and (1.0, 2, 1.0) in got and (9.0, 1, 9.0) in got


def test_ingest_name_renames_every_algorithm(tmp_path):
    st = Store(tmp_path / "s", create=True)
    ingest([write(tmp_path, HAND)], st, name="mine")
    runs = Analysis(Selection(st).narrow(quantity="value")).runs().collect()
    assert set(runs["algorithm"]) == {"mine"} and runs.height == 3


def test_bad_rows_are_named_with_their_line_and_the_others_kept(tmp_path):
    text = "\n".join([
        "neval,fval,fname,algname,dim,run",
        "1,10,sphere,A,2,1",
        "2,abc,sphere,A,2,1",     # line 3: the value is no number
        "2.5,3,sphere,A,2,1",     # line 4: the evaluation count is no integer
        "3,2,sphere,A,0,1",       # line 5: the dimension is no positive integer
        "4,1,,A,2,1",             # line 6: no function
        "5,nan,sphere,A,2,1",     # line 7: nan, an impossible value
        "6,0.5,sphere,A,2,1",
    ]) + "\n"
    parsed = parse(read_source(write(tmp_path, text)))
    assert [(p.file, p.line) for p in parsed.problems] == [("runs.csv", n) for n in (3, 4, 5, 6, 7)]
    messages = [p.message for p in parsed.problems]
    assert messages[:4] == ["fval 'abc' is not a number", "neval '2.5' is not a positive integer",
                            "dim '0' is not a positive integer", "no fname"]
    assert "not a possible value" in messages[4]
    assert sorted(parsed.events.select("evaluations", "measured").rows()) == [(1, 10.0), (6, 0.5)]
    assert parsed.runs.height == 1 and parsed.runs["best_y"].to_list() == [0.5]


def test_other_csv_files_and_nevergrad_files_are_not_this_format(tmp_path):
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "t.csv").write_text("a,b\n1,2\n")
    assert [p.message for p in parse(read_source(tmp_path / "other")).problems] == [NOTHING_TO_READ]
    ng = write(tmp_path, "loss,name,dimension,budget,optimizer_name,fval\n1.0,sphere,2,10,A,3\n")
    assert set(parse(read_source(ng)).runs["data_format"]) == {"nevergrad"}


def test_an_unreadable_file_is_named_and_ingest_exits_non_zero(tmp_path):
    src = write(tmp_path, "neval,fval\n\"1,2\n")
    parsed = parse(read_source(src))
    assert parsed.runs.height == 0 and [p.file for p in parsed.problems] == ["runs.csv"]
    r = subprocess.run([sys.executable, "-m", "pipeline.cli", "ingest", str(src), "--store", str(tmp_path / "st")],
                       capture_output=True, text=True)
    assert r.returncode != 0 and "runs.csv" in r.stderr and "Traceback" not in r.stderr


def test_a_file_with_the_columns_as_iohanalyzer_names_them_reads_like_polars(tmp_path):
    # the values in full precision: every record read back as written
    rows = [(e, 1.0 / (e * 3.0), "f", "alg", 10, r) for r in (1, 2) for e in (1, 2, 4, 8)]
    frame = pl.DataFrame(rows, schema=["neval", "fval", "fname", "algname", "dim", "run"], orient="row")
    src = tmp_path / "src"
    src.mkdir()
    frame.write_csv(src / "data.csv")
    parsed = parse(read_source(src))
    assert parsed.problems == [] and parsed.runs.height == 2
    assert sorted(parsed.events.select("evaluations", "measured").rows()) == sorted((e, v) for e, v, *_ in rows)
