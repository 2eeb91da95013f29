"""Records that cannot be right are named problems (file:line), never a silent success: a record
with the wrong field count, a non-finite or (where the suite forbids it) negative precision,
evaluations that are negative, too large or decrease. The other records of the run are kept."""
from __future__ import annotations

import time

import polars as pl
import pytest

from logs import write_new2
from pipeline.ingest import parse_source, read_source
from pipeline.ingest.coco import MAX_INFO_LINE, parse_header
from test_ingest_formats import BIOBJ_DAT, BIOBJ_INFO, BIOBJ_TDAT, write

# run 1: records at 1, 3, 7 evaluations (best 5, 2, 0.5); run 2: at 1 and 5 (best 4, 1)
TWO_RUNS = [{"instance": 1, "dat": [(1, 5.0), (3, 2.0), (7, 0.5)]}, {"instance": 2, "dat": [(1, 4.0), (5, 1.0)]}]


def source(tmp_path, edit, ext=".dat", suite="bbob"):
    """The hand-made source with `edit(lines)` applied to the .dat (or .tdat) file's lines."""
    root = write_new2(tmp_path / "A", suite=suite, runs=TWO_RUNS)
    p = (root / "data_f1" / "bbobexp_f1_DIM2").with_suffix(ext)
    lines = p.read_text().splitlines()
    edit(lines)
    p.write_text("\n".join(lines) + "\n")
    return parse_source(read_source(root))


def first_run(parsed) -> pl.DataFrame:
    run_id = parsed.runs.sort("trial")["run_id"][0]
    return parsed.events.filter(pl.col("run_id") == run_id).sort("evaluations")


def messages(parsed) -> list[str]:
    return [str(p) for p in parsed.problems]


def test_two_records_run_together_are_no_false_success(tmp_path):
    # the record at 3 evaluations lost its fields after the first, and its newline: "3 7 0 +5e-01 ..."
    # reads as 3 f-evaluations, 7 g-evaluations and best precision 0 (a success) unless the field
    # count (8, the file's records have 7) names it
    def glue(lines):
        lines[2] = "3 " + lines[3]
    res = source(tmp_path, glue, ".dat")
    assert any("bbobexp_f1_DIM2.dat:3" in m and "8 fields, expected 7" in m for m in messages(res)), messages(res)
    assert res.runs.sort("trial")["final_delta"].to_list() == [0.5, 1.0]
    assert 0.0 not in first_run(res)["best_delta"].to_list()
    assert res.runs_partial == 1


def test_minus_infinity_precision_is_no_success(tmp_path):
    def minus_inf(lines):
        lines[3] = lines[3].replace("+5.000000000e-01", "-inf", 1)
    res = source(tmp_path, minus_inf, ".tdat")
    assert any("bbobexp_f1_DIM2.tdat:4" in m and "precision -inf" in m for m in messages(res)), messages(res)
    run = res.runs.sort("trial").row(0, named=True)
    assert run["final_delta"] == 0.5  # from the .dat record; the .tdat's -inf is not taken
    assert run["evaluations"] == 7


def test_plus_infinity_precision_is_kept_as_no_value_yet(tmp_path):
    # real logs (BrentSTEPqi, 1-D) write +inf as the best precision before any finite value
    def plus_inf(lines):
        lines[1] = lines[1].replace("+5.000000000e+00", "+inf", 1)
    res = source(tmp_path, plus_inf, ".dat")
    assert not res.problems
    assert first_run(res).filter(pl.col("evaluations") == 1)["best_delta"].to_list() == [float("inf"), 5.0]


def test_negative_precision_on_bbob_is_named(tmp_path):
    def negative(lines):
        lines[2] = lines[2].replace("+2.000000000e+00", "-1.290000000e+00", 1)
    res = source(tmp_path, negative, ".dat")
    assert any("bbobexp_f1_DIM2.dat:3" in m and "negative precision -1.29" in m for m in messages(res)), messages(res)
    assert res.runs.sort("trial")["final_delta"].to_list() == [0.5, 1.0]


def test_rounding_below_fopt_is_no_problem(tmp_path):
    # f - fopt computed in floating point: -1.14e-13 is one unit in the last place of fopt = 1000
    def rounding(lines):
        lines[3] = lines[3].replace("+5.000000000e-01", "-1.136868377e-13", 1)
    res = source(tmp_path, rounding, ".dat")
    assert not res.problems
    assert res.runs.sort("trial")["final_delta"][0] == -1.136868377e-13


@pytest.mark.parametrize("suite", ["bbob-constrained"])
def test_negative_precision_is_kept_where_the_suite_allows_it(tmp_path, suite):
    def negative(lines):
        lines[3] = lines[3].replace("+5.000000000e-01", "-2.000000000e-01", 1)
    res = source(tmp_path, negative, ".dat", suite=suite)
    assert not res.problems
    assert res.runs.sort("trial")["final_delta"][0] == -0.2


def test_negative_biobj_indicator_values_are_kept(tmp_path):
    root = write(tmp_path / "MO", {"g1_hyp.info": BIOBJ_INFO, "g1/bbob-biobj_f03_d02_hyp.dat": BIOBJ_DAT,
                                   "g1/bbob-biobj_f03_d02_hyp.tdat": BIOBJ_TDAT})
    res = parse_source(read_source(root))
    assert not res.problems and res.runs.sort("trial")["final_delta"][1] == -1e-05


def test_negative_evaluations_are_named(tmp_path):
    def negative(lines):
        lines[2] = "-" + lines[2]
    res = source(tmp_path, negative, ".dat")
    assert any("bbobexp_f1_DIM2.dat:3" in m and "negative evaluations" in m for m in messages(res)), messages(res)
    assert first_run(res)["evaluations"].to_list() == [1, 3, 7]  # 3 from the .tdat


def test_decreasing_evaluations_are_named(tmp_path):
    def backwards(lines):  # 1, 3, 7 -> 1, 9, 7 in the .dat
        lines[2] = "9" + lines[2][1:]
    res = source(tmp_path, backwards, ".dat")
    assert any("bbobexp_f1_DIM2.dat:4" in m and "evaluations decrease (7 after 9)" in m
               for m in messages(res)), messages(res)
    assert res.runs_partial == 1


def test_1e400_evaluations_are_a_named_problem_not_a_crash(tmp_path):
    def huge(lines):
        lines[3] = "1e400" + lines[3][1:]
    res = source(tmp_path, huge, ".dat")
    assert any("bbobexp_f1_DIM2.dat:4" in m and "evaluations inf out of range" in m for m in messages(res)), messages(res)
    assert res.runs.height == 2


def test_huge_numbers_in_the_info_file_are_named(tmp_path):
    root = write_new2(tmp_path / "A", runs=TWO_RUNS)
    info = root / "bbobexp_f1.info"
    info.write_text(info.read_text().replace("1:7|", "1:1e400|").replace("2:5|", "99999999999:5|"))
    res = parse_source(read_source(root))
    assert any("bbobexp_f1.info:3" in m and "99999999999" in m for m in messages(res)), messages(res)
    assert res.runs["instance"].to_list() == [1] and res.runs["info_evaluations"].to_list() == [None]


def test_huge_function_number_is_named(tmp_path):
    root = write_new2(tmp_path / "A", runs=TWO_RUNS)
    info = root / "bbobexp_f1.info"
    info.write_text(info.read_text().replace("funcId = 1,", "funcId = 99999999999,"))
    res = parse_source(read_source(root))
    assert any("bbobexp_f1.info:3" in m and "function" in m for m in messages(res)), messages(res)
    assert res.runs.height == 0


def test_header_lines_parse_in_linear_time():
    line = "algId = 'x', " + "a" * 200_000 + ", comment = 'y'"
    t = time.perf_counter()
    assert parse_header(line) == {"algId": "x", "comment": "y"}
    assert parse_header("b" * 200_000 + " = 1") == {"b" * 200_000: "1"}
    assert time.perf_counter() - t < 1.0  # the former regex took minutes on such lines


@pytest.mark.parametrize("line, want", [
    ("funcId = 5, DIM = 2, Precision = 1.000e-008, algId = 'OLD'",
     {"funcId": "5", "DIM": "2", "Precision": "1.000e-008", "algId": "OLD"}),
    ("suite = 'bbob', algId = 'a, b', coco_version = \"2.8\"", {"suite": "bbob", "algId": "a, b", "coco_version": "2.8"}),
    ("comment = it's fine, algId = 'X'", {"comment": "it's fine", "algId": "X"}),
    ("x-y = 3, 1 = 2, algorithm type = best", {"y": "3", "algorithm type": "best"}),
    ("algId = 'abc' def, DIM = 2", {"algId": "'abc' def", "DIM": "2"}),
    ("a = b = c, d\t=\t4", {"a": "b = c", "d": "4"}),
    ("no key here", {}),
])
def test_header_lines_parse_as_before(line, want):
    assert parse_header(line) == want


def test_overlong_info_line_is_a_named_problem(tmp_path):
    root = write_new2(tmp_path / "A", runs=TWO_RUNS)
    info = root / "bbobexp_f1.info"
    text = info.read_text()
    info.write_text("comment = '" + "z" * (MAX_INFO_LINE + 1) + "'\n" + text)
    res = parse_source(read_source(root))
    assert any("bbobexp_f1.info:1" in m and "longer than" in m for m in messages(res)), messages(res)
    assert res.runs.height == 2


def test_a_trial_run_into_the_previous_one_is_cut_where_its_evaluations_fall(tmp_path):
    def lose_header(lines):  # .dat: run 1 at 1, 3, 7, then run 2's 1 and 5 under run 1's header
        del lines[4]
    res = source(tmp_path, lose_header, ".dat")
    msgs = messages(res)
    assert any("bbobexp_f1_DIM2.dat:5" in m and "evaluations decrease (1 after 7)" in m for m in msgs), msgs
    assert any("bbobexp_f1_DIM2.dat:6" in m and "evaluations decrease (5 after 7)" in m for m in msgs), msgs
    assert first_run(res)["evaluations"].to_list() == [1, 3, 7]


def test_the_ingest_summary_counts_the_runs_kept_without_bad_records(tmp_path):
    import subprocess
    import sys

    root = write_new2(tmp_path / "A", runs=TWO_RUNS)
    p = root / "data_f1" / "bbobexp_f1_DIM2.dat"
    p.write_text(p.read_text().replace("+5.000000000e-01", "-inf", 1))
    r = subprocess.run([sys.executable, "-m", "pipeline.cli", "ingest", str(root), "--store", str(tmp_path / "st")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    text = " ".join(r.stderr.split())
    assert "bbobexp_f1_DIM2.dat:4: precision -inf (non-finite) (line skipped)" in text
    assert "2 runs read (1 with bad records left out), 0 runs skipped, 1 problem" in text
