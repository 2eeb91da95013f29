"""Issue 44, terminal and files: a table longer than the terminal is shown in part with how many rows more
and the option that writes them; every value whole and in one form (shortest round-trip) in every output;
targets as their 13-digit decimal; ECDF fractions exact ratios; SQL aggregates named as written."""
from __future__ import annotations

import io
import json
from pathlib import Path

import polars as pl
import pytest

from conftest import SHARED
from logs import write_new2
from pipeline.decimals import float_text, target_text
from pipeline.hits.targets import BBOB
from terminal import cli, on_terminal, plain


@pytest.fixture(scope="module")
def ten(tmp_path_factory) -> Path:
    """f1 in 2-D, ten trials: trial i reaches 1e-9 at evaluation 10 i (x = 5 i), so each target of 1e-8 and
    above is reached by one more trial at each step; aRT to 1e-8 of A is 550 / 10 = 55.0. B: three trials
    reaching it at 10, 11 and 11 evaluations, aRT 32 / 3 = 10.666666666666666."""
    root = tmp_path_factory.mktemp("ten")
    write_new2(root / "A", alg="A", runs=[dict(instance=i, dat=[(1, 50.0), (10 * i, 1e-9)]) for i in range(1, 11)])
    write_new2(root / "B", alg="B", runs=[dict(instance=i, dat=[(1, 50.0), (e, 1e-9)]) for i, e in ((1, 10), (2, 11), (3, 11))])
    store = root / "store"
    r = cli("ingest", root / "A", root / "B", "--store", store)
    assert r.returncode == 0, r.stderr
    return store


def shown_rows(text: str, header: str) -> list[str]:
    """The lines of a one-block table on a terminal below its header line and rule, up to a blank or the end."""
    lines = plain(text).splitlines()
    at = next(i for i, line in enumerate(lines) if line.split()[:1] == [header])
    body = []
    for line in lines[at + 2:]:
        if not line.strip() or "more row" in line:
            break
        body.append(line)
    return body


# -- a table longer than the terminal -------------------------------------------------------------------
def test_a_table_longer_than_the_terminal_shows_the_rows_that_fit_and_how_many_more(ten):
    every = pl.read_csv(io.StringIO(cli("art", "--store", ten).stdout))  # a pipe: every row
    assert every.height == 2 * 51
    text, code = on_terminal("art", "--store", ten, columns=400, rows=20)
    lines = plain(text).splitlines()
    assert code == 0 and len(lines) <= 19, text  # the screen, the prompt's line aside
    rows = shown_rows(text, "suite")
    assert len(rows) == 16 and rows[0].split()[:5] == ["bbob", "A", "1", "2", "100.0"], rows
    assert lines[-1] == f"{every.height - 16} more rows: --out FILE", lines[-1]
    # high enough: every row, no such line
    text, code = on_terminal("art", "--store", ten, columns=400, rows=200)
    assert code == 0 and len(shown_rows(text, "suite")) == every.height and "more row" not in text


def test_an_ecdf_of_real_data_on_a_terminal_is_one_screen(tmp_path):
    data = SHARED / "data" / "generated" / "NM_on_bbob.tgz"
    if not data.exists():
        pytest.skip(f"{data} not found")
    assert cli("ingest", data, "--store", tmp_path / "st").returncode == 0
    steps = cli("ecdf", "--store", tmp_path / "st").stdout.count("\n") - 1  # in a pipe: every step
    text, code = on_terminal("ecdf", "--store", tmp_path / "st", columns=120, rows=40)
    lines = plain(text).splitlines()
    assert code == 0 and steps > 10_000 and len(lines) <= 39, len(lines)
    assert lines[-1] == f"{steps - len(shown_rows(text, 'suite'))} more rows: --out FILE", lines[-1]


# -- values whole, in one form -----------------------------------------------------------------------------
def test_values_are_whole_on_the_terminal_and_in_every_file(ten, tmp_path):
    args = ("art", "--store", ten, "--algorithm", "B", "--targets", "1e-8")
    text, code = on_terminal(*args, columns=400)
    row = shown_rows(text, "suite")[0].split()
    assert code == 0 and row[4:6] == ["1e-08", "10.666666666666666"], row  # not 1e-8 and 10.6667
    assert cli(*args).stdout.splitlines()[1].startswith("bbob,B,1,2,1e-08,10.666666666666666,3,3,1.0,3,")
    for ext in ("csv", "json", "md"):
        assert cli(*args, "--out", tmp_path / f"b.{ext}").returncode == 0
    assert (tmp_path / "b.csv").read_text() == cli(*args).stdout
    assert '"target":1e-08,"art":10.666666666666666,' in (tmp_path / "b.json").read_text()
    assert json.loads((tmp_path / "b.json").read_text())[0]["art"] == 32 / 3
    md = (tmp_path / "b.md").read_text().splitlines()[2].split("|")
    assert [c.strip() for c in md[5:7]] == ["1e-08", "10.666666666666666"], md


def test_numbers_are_written_in_one_form():
    # Python's repr: positional from 1e-4 to 1e16, scientific outside; never 0.00001 beside 1e-7
    assert [float_text(v) for v in (1e-5, 1e-7, 1e-4, 0.1, 734.9333333333333, 1e16, 3.0)] == [
        "1e-05", "1e-07", "0.0001", "0.1", "734.9333333333333", "1e+16", "3.0"]
    r = cli("targets")  # bbob's 51 targets 10^(k/5), k = 10..-40
    listed = r.stdout.splitlines()
    assert r.returncode == 0 and listed[0] == "target" and len(listed) == 52
    assert listed[1:] == [target_text(t) for t in BBOB]
    assert {"100.0", "63.095734448", "1.58489319246e-06", "1e-05", "1e-07", "1e-08"} <= set(listed)
    assert not any("0.00001" in t or "e-6" in t or t == "1e-8" for t in listed), listed


def test_targets_are_their_13_digit_decimal_the_same_whatever_made_them():
    # bbob's 10**(k/5) and cocopp's 10**np.arange(2, -8.1, -0.2) differ in their last bits, not in their text
    import numpy as np

    cocopp = 10 ** np.arange(2, -8.1, -0.2)
    assert sum(float(c) != t for c, t in zip(cocopp, BBOB)) == 48
    assert [target_text(float(c)) for c in cocopp] == [target_text(t) for t in BBOB]
    assert target_text(BBOB[39]) == "1.58489319246e-06" and target_text(float(cocopp[5])) == "10.0"
    assert target_text(0.1 + 0.2) == "0.3" and target_text(1e-8) == "1e-08" and target_text(2.5e-3) == "0.0025"


# -- fractions as exact ratios ------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["trials", "simulated"])
def test_ecdf_fractions_are_the_exact_ratios(ten, mode):
    # one trial more of ten at each step: 0.1, 0.2, 0.3, ... (added as floats, 0.30000000000000004, 0.7999999999999999)
    r = cli("ecdf", "--store", ten, "--algorithm", "A", "--targets", "1e-8", "--mode", mode, "--group", "all")
    assert r.returncode == 0, r.stderr
    rows = [line.split(",") for line in r.stdout.splitlines()[1:]]
    assert [(x, f) for *_, x, f in rows] == [(f"{5.0 * i}", f"{i / 10}") for i in range(1, 11)], rows


def test_ecdf_fractions_over_functions_of_different_trial_counts_are_exact(tmp_path):
    # f1: 3 trials, one solves at 10 evaluations; f2: 5 trials, two solve at 20. Each function weighs 1/2:
    # at x = 5, 1/3 / 2 = 1/6; at x = 10, 1/6 + 2/5 / 2 = 11/30 (added as floats, 0.3666666666666667)
    for f, runs in ((1, [10, None, None]), (2, [20, 20, None, None, None])):
        write_new2(tmp_path / f"f{f}", alg="A", function=f,
                   runs=[dict(instance=i, dat=[(1, 50.0), (e or 30, 1e-9 if e else 1.0)]) for i, e in enumerate(runs, 1)])
    assert cli("ingest", tmp_path / "f1", tmp_path / "f2", "--store", tmp_path / "st").returncode == 0
    r = cli("ecdf", "--store", tmp_path / "st", "--targets", "1e-8", "--mode", "trials", "--group", "all")
    rows = [line.split(",")[-2:] for line in r.stdout.splitlines()[1:]]
    assert r.returncode == 0 and rows == [["5.0", float_text(1 / 6)], ["10.0", float_text(11 / 30)]], r.stdout


# -- SQL names ---------------------------------------------------------------------------------------------
def test_sql_aggregates_are_named_as_written(ten):
    r = cli("query", "SELECT count(*) FROM runs", "--store", ten)
    assert r.returncode == 0 and r.stdout.splitlines() == ["count(*)", "13"], r.stdout + r.stderr
    q = "SELECT algorithm, COUNT(*), AVG(final_delta <= 1e-8), min(dimension) AS d FROM runs GROUP BY 1 ORDER BY 1"
    r = cli("query", q, "--store", ten)
    assert r.returncode == 0 and r.stdout.splitlines() == [
        "algorithm,COUNT(*),AVG(final_delta <= 1e-8),d", "A,10,1.0,2", "B,3,1.0,2"], r.stdout + r.stderr


def test_the_final_fraction_of_an_ecdf_summary_is_the_exact_mean(tmp_path):
    # ten trials, one reaches 1e-9: each of three targets is reached by 1 of 10, the mean is 0.1 (as a float
    # mean of 0.1, 0.1, 0.1: 0.10000000000000002)
    write_new2(tmp_path / "A", alg="A", runs=[dict(instance=i, dat=[(1, 50.0), (20, 1e-9 if i == 1 else 1.0)])
                                              for i in range(1, 11)])
    assert cli("ingest", tmp_path / "A", "--store", tmp_path / "st").returncode == 0
    r = cli("ecdf", "--store", tmp_path / "st", "--summary", "--targets", "1e-8,1e-7,1e-6", "--group", "all")
    summary = pl.read_csv(io.StringIO(r.stdout), infer_schema=False)
    assert r.returncode == 0 and summary["final_fraction"].to_list() == ["0.1"], r.stdout
