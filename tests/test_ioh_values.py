"""Measures on logged values where no optimum is known (issue 31), and the defaults of ERT and AOCC as
IOHanalyzer defines them: hand-made ioh logs answered by hand."""
from __future__ import annotations

import polars as pl
import pytest
from typer.testing import CliRunner

from pipeline.api import open_store
from pipeline.cli import app

from test_ioh import _ingest, write_log


def test_unknown_suite_runs_are_measured_on_their_logged_values(tmp_path):
    """ioh.get_problem writes suite unknown_suite: no optimum, targets are raw_y values (minimised)."""
    write_log(tmp_path / "log", [["1 5.0", "3 2.0", "4 7.0", "10 0.5"], ["1 1.0", "2 0.25", "8 3.0"]],
              suite="unknown_suite")
    st, s = _ingest(tmp_path, tmp_path / "log")
    assert not s.problems
    ert = open_store(st.path).ert([1.0, 0.3]).collect()
    assert ert["quantity"].to_list() == ["value", "value"]
    assert ert["target"].to_list() == [1.0, 0.3]
    # 1.0: run 1 at 10, run 2 at 1; 0.3: run 1 never (charged its length 10), run 2 at 2
    assert ert["ert"].to_list() == [(10 + 1) / 2, (10 + 2) / 1]
    assert ert["successes"].to_list() == [2, 1]


def test_maximised_values_reach_a_target_at_or_above_it(tmp_path):
    write_log(tmp_path / "log", [["1 1", "2 3", "3 2", "6 5"]], suite="mine", name="Count", dim=4, maximize=True)
    st, _ = _ingest(tmp_path, tmp_path / "log")
    a = open_store(st.path)
    ert = a.ert([3.0, 4.5, 9.0]).collect()
    assert ert["target"].to_list() == [3.0, 4.5, 9.0] and ert["ert"].to_list() == [2.0, 6.0, float("inf")]
    fb = a.fixed_budget([1, 3, 10], summary=False).collect().sort("budget")
    assert fb["best_delta"].to_list() == [1.0, 3.0, 5.0]  # best raw value so far, the larger the better
    # linear bounds 0..5, maximised: 1/5 on [0, 2) (the first record's before it), 3/5 on [2, 6); budget 6
    # (the run's length); with a budget cut 10, 1 on [6, 10] too
    aocc = a.aocc(lower=0.0, upper=5.0, log=False).collect()
    assert aocc["aocc"][0] == pytest.approx((0.2 * 2 + 0.6 * 4) / 6)
    cut = open_store(st.path, max_budget=10).aocc(lower=0.0, upper=5.0, log=False).collect()
    assert cut["aocc"][0] == pytest.approx((0.2 * 2 + 0.6 * 4 + 1.0 * 4) / 10)


def test_default_value_targets_are_stated_and_taken_from_the_data(tmp_path):
    write_log(tmp_path / "log", [["1 1e9", "5 10.0"], ["1 10.0", "9 1.0"]], suite="unknown_suite")
    st, _ = _ingest(tmp_path, tmp_path / "log")
    ert = open_store(st.path).ert().collect()
    # 10 targets from the worst first record (1e9) to the best value reached (1), log-spaced
    assert ert["target"].to_list() == pytest.approx([10.0 ** k for k in range(9, -1, -1)])
    assert ert["target"][0] == 1e9 and ert["target"][-1] == 1.0


def test_precisions_and_values_are_never_mixed(tmp_path):
    write_log(tmp_path / "a", [["1 5.0", "4 0.5"]], suite="BBOB")
    write_log(tmp_path / "b", [["1 5.0", "4 0.5"]], suite="unknown_suite")
    st, _ = _ingest(tmp_path, tmp_path / "a", tmp_path / "b")
    ert = open_store(st.path).ert([1.0]).collect().sort("suite")
    assert ert.select("suite", "quantity", "ert").rows() == [("bbob", "precision", 4.0), ("unknown_suite", "value", 4.0)]


def test_ert_charges_each_unsuccessful_run_its_own_length(tmp_path):
    """IOHanalyzer's ERT: a run that misses the target counts its own last evaluation, not the longest
    run's hitting time (issue 31, 3): run 1 hits 1e-8 at 4 and stops; run 2 runs 50 evaluations and
    never hits; run 3 runs 20 and never hits."""
    write_log(tmp_path / "log", [["1 5.0", "4 1e-9"], ["1 5.0", "50 2.0"], ["1 3.0", "20 3.0"]])
    st, _ = _ingest(tmp_path, tmp_path / "log")
    ert = open_store(st.path).ert([1e-8]).collect()
    assert ert["ert"].to_list() == [(4 + 50 + 20) / 1]
    assert open_store(st.path).ert([1e-8], eval_max=100).collect()["ert"].to_list() == [4 + 100 + 100]
    out = CliRunner().invoke(app, ["ert", "--help"], terminal_width=200).output
    assert "own" in out and "length" in out


def test_default_aocc_budget_is_per_algorithm(tmp_path):
    """An algorithm's AOCC does not depend on what else is selected (issue 31, 4)."""
    write_log(tmp_path / "a", [["1 1.0", "10 1.0"]], suite="BBOB")
    other = write_log(tmp_path / "b", [["1 1.0", "40 1.0"]], suite="BBOB")
    other.write_text(other.read_text().replace('"ALG"', '"OTHER"'))
    st, _ = _ingest(tmp_path, tmp_path / "a", tmp_path / "b")
    both = open_store(st.path).aocc(lower=1e-8, upper=1e8).collect().sort("algorithm")
    alone = open_store(st.path, algorithm="ALG").aocc(lower=1e-8, upper=1e8).collect()
    assert both.filter(pl.col("algorithm") == "ALG")["aocc"].to_list() == alone["aocc"].to_list() == [0.5]
    assert both["budget"].to_list() == [10.0, 40.0]


def test_params_reads_the_runs_without_a_known_optimum(tmp_path):
    """`cocopipe params` reads every run's tracked parameters, known optimum or not (issue 31, 5)."""
    write_log(tmp_path / "log", [["1 5.0 0.5 1.0 2.0", "4 2.0 0.25 0.5 1.0"]], suite="unknown_suite",
              header="evaluations raw_y sigma x0 x1")
    st, _ = _ingest(tmp_path, tmp_path / "log")
    assert open_store(st.path).params().collect()["value"].to_list() == [0.5, 0.25]
    out = CliRunner().invoke(app, ["params", "--store", str(st.path), "--name", "x0"])
    assert out.exit_code == 0, out.output
    assert pl.read_csv(out.stdout.encode())["value"].to_list() == [1.0, 0.5]


def test_export_keeps_the_json_best_and_starts_every_run_at_evaluation_1(tmp_path):
    """The json's best.x and full-precision best.y survive ingest -> export (issue 31, 7); a run whose
    first record is not at evaluation 1 gets `1 inf` there, which IOHinspector needs to tell runs apart
    (it numbers them by their records at evaluation 1) and which ingest leaves out again."""
    import json

    from pipeline.export import iohprofiler

    j = write_log(tmp_path / "log", [["5 3.0", "9 1.25"], ["1 4.0", "2 0.5"]], suite="unknown_suite")
    meta = json.loads(j.read_text())
    meta["scenarios"][0]["runs"][0]["best"] = {"evals": 9, "y": 1.2500000000000002, "x": [0.1, -0.7]}
    j.write_text(json.dumps(meta))
    st, _ = _ingest(tmp_path, tmp_path / "log")
    runs, ev = st.runs().collect(), st.events().collect()
    (out,) = iohprofiler.write(runs, ev, st.scan("params").collect(), tmp_path / "out")
    best = json.loads(out.read_text())["scenarios"][0]["runs"][0]["best"]
    assert best["y"] == 1.2500000000000002 and best["x"] == [0.1, -0.7]
    dat = next((tmp_path / "out").rglob("*.dat")).read_text().splitlines()
    assert dat == ["evaluations raw_y", "1 inf", "5 3.0", "9 1.25", "evaluations raw_y", "1 4.0", "2 0.5"]
    st2, s2 = _ingest(tmp_path / "again", tmp_path / "out")
    assert not s2.problems
    assert st2.events().collect().sort("run_id", "evaluations")["measured"].to_list() == [3.0, 1.25, 4.0, 0.5]
    assert st2.runs().sort("trial").collect()["best_x"].to_list() == [[0.1, -0.7], None]


def test_a_runtime_ecdf_over_value_targets(tmp_path):
    """`Analysis.values()`: every measure of hitting times on raw value targets; the trials' ECDF over
    targets 1.0 and 0.3 (4 (run, target) pairs): run 2 reaches 1.0 at 1 and 0.3 at 2, run 1 reaches 1.0 at 10."""
    write_log(tmp_path / "log", [["1 5.0", "3 2.0", "4 7.0", "10 0.5"], ["1 1.0", "2 0.25", "8 3.0"]],
              suite="unknown_suite")
    st, _ = _ingest(tmp_path, tmp_path / "log")
    steps = open_store(st.path).values().ecdf([1.0, 0.3], group="all", mode="trials").collect()
    got = dict(zip(steps["x"], steps["fraction"]))
    assert got[0.5] == 0.25 and got[1.0] == 0.5 and got[5.0] == 0.75  # x = evaluations / dimension 2
    assert open_store(st.path).ecdf([1.0, 0.3], group="all", mode="trials").collect().height == 0


def test_an_analysis_of_values_measures_each_run_once_as_values(tmp_path):
    write_log(tmp_path / "a", [["1 5.0", "4 0.5"]], suite="BBOB")
    write_log(tmp_path / "b", [["1 5.0", "4 0.5"]], suite="unknown_suite")
    st, _ = _ingest(tmp_path, tmp_path / "a", tmp_path / "b")
    a = open_store(st.path).values()
    assert a.ert([1.0]).collect().select("suite", "quantity", "ert").rows() == [("unknown_suite", "value", 4.0)]
    assert a.aocc().collect()["quantity"].to_list() == ["value"]
    assert a.fixed_budget([2]).collect()["quantity"].to_list() == ["value"]
    assert a.fixed_budget_ecdf([2]).collect()["quantity"].to_list() == ["value"]


def test_ingest_optimum_makes_values_precisions_where_nothing_else_states_one(tmp_path):
    """`cocopipe ingest --optimum Y`: the optimum of runs whose log and suite state none (the suite's, 0 on
    BBOB, still wins)."""
    write_log(tmp_path / "a", [["1 5.0", "4 0.5"]], suite="unknown_suite")
    write_log(tmp_path / "b", [["1 5.0", "4 0.5"]], suite="BBOB", fid=2, name="Ellipsoid")
    out = CliRunner().invoke(app, ["ingest", str(tmp_path / "a"), str(tmp_path / "b"), "--store",
                                   str(tmp_path / "S"), "--optimum", "0.25"])
    assert out.exit_code == 0, out.output
    runs = open_store(tmp_path / "S").runs().collect().sort("function")
    assert runs.select("function", "reference_value", "final_delta").rows() == [(1, 0.25, 0.25), (2, 0.0, 0.5)]
    ert = open_store(tmp_path / "S", function=1).ert([0.3]).collect()
    assert ert.select("quantity", "ert").rows() == [("precision", 4.0)]


def test_the_command_line_measures_values_with_values(tmp_path):
    """`--values`: aRT and the runtime ECDF of the command line on the runs without a known optimum, over
    value targets (the same runs as above: 1.0 reached at 10 and 1, 0.3 at 2 by run 2 only)."""
    import io

    write_log(tmp_path / "log", [["1 5.0", "3 2.0", "4 7.0", "10 0.5"], ["1 1.0", "2 0.25", "8 3.0"]],
              suite="unknown_suite")
    st, _ = _ingest(tmp_path, tmp_path / "log")
    r = CliRunner().invoke(app, ["art", "--store", str(st.path), "--values", "--targets", "1,0.3", "--out", "-"])
    assert r.exit_code == 0, r.output
    art = pl.read_csv(io.StringIO(r.stdout)).sort("target", descending=True)
    assert art.select("target", "successes").rows() == [(1.0, 2), (0.3, 1)]
    assert art["art"].to_list() == [(10 + 1) / 2, (10 + 2) / 1]  # the unsuccessful run charged its length
    r = CliRunner().invoke(app, ["ecdf", "--store", str(st.path), "--values", "--targets", "1,0.3", "--group", "all",
                                 "--mode", "trials", "--out", "-"])
    assert r.exit_code == 0, r.output
    steps = pl.read_csv(io.StringIO(r.stdout))
    assert dict(zip(steps["x"], steps["fraction"]))[5.0] == 0.75
    # without --values these runs have no precision: the note says how to measure them
    r = CliRunner().invoke(app, ["art", "--store", str(st.path), "--targets", "1", "--out", "-"])
    assert "--values measures their values alone" in " ".join(r.output.split())


def test_values_on_runs_with_a_known_optimum_is_an_error(tmp_path):
    write_log(tmp_path / "a", [["1 5.0", "4 0.5"]], suite="BBOB")
    st, _ = _ingest(tmp_path, tmp_path / "a")
    r = CliRunner().invoke(app, ["art", "--store", str(st.path), "--values", "--targets", "1"])
    assert r.exit_code == 1 and "--values: no IOHprofiler run of the selection lacks a known optimum" in " ".join(
        r.output.split()), r.output


def test_values_is_offered_only_where_a_measure_honours_it():
    """Commands that measure nothing (runs, params, reference build) or read precisions only (report) do not
    offer --values: an option they would ignore is refused, never silently dropped."""
    for args in (["runs"], ["params"], ["report"], ["reference", "build"]):
        r = CliRunner().invoke(app, [*args, "--values"])
        assert r.exit_code == 2 and "No such option" in r.output and "--values" in r.output, (args, r.output)
    for args in (["art"], ["ecdf"], ["auc"], ["rank"], ["table"], ["chart", "ecdf"], ["ert"]):
        r = CliRunner().invoke(app, [*args, "--help"])
        assert "--values" in r.output, args
