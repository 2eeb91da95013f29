"""IOHprofiler logs: what is read from the json and the .dat (hand-made logs whose answers are
computed by hand), bad input named with file and line, the shipped sample, tracked parameters, and
the commands on a store mixing COCO and IOHprofiler data."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from pipeline.api import open_store
from pipeline.cli import app
from pipeline.ingest import ingest
from pipeline.store import Store

from logs import as_runs_1_0_0

ROOT = Path(__file__).resolve().parent.parent
IOH = ROOT / "data" / "ioh"


def write_log(folder: Path, runs: list[list[str]], *, suite="BBOB", fid=1, name="Sphere", dim=2, maximize=False,
              instances=None, evals=None, header="evaluations raw_y", json_runs=None, extra_run=None) -> Path:
    """An ioh Analyzer folder: one json and its .dat, each run a list of record lines."""
    folder.mkdir(parents=True, exist_ok=True)
    rel = f"data_f{fid}_{name}/IOHprofiler_f{fid}_DIM{dim}.dat"
    (folder / rel).parent.mkdir(parents=True, exist_ok=True)
    (folder / rel).write_text("".join(header + "\n" + "".join(r + "\n" for r in run) for run in runs))
    entries = []
    for k in range(len(runs) if json_runs is None else json_runs):
        last = int(runs[k][-1].split()[0]) if k < len(runs) else 1
        e = {"instance": (instances or [1] * 99)[k], "evals": (evals or [0] * 99)[k] or last,
             "best": {"evals": 1, "y": 0.0, "x": []}}
        e.update(extra_run or {})
        entries.append(e)
    meta = {"version": "0.4.2", "suite": suite, "function_id": fid, "function_name": name, "maximization": maximize,
            "algorithm": {"name": "ALG", "info": "hand-made"}, "attributes": header.split(),
            "scenarios": [{"dimension": dim, "path": rel, "runs": entries}]}
    path = folder / f"IOHprofiler_f{fid}_{name}.json"
    path.write_text(json.dumps(meta, indent=1))
    return path


def _ingest(tmp: Path, *sources) -> tuple[Store, object]:
    st = Store(tmp / "store", create=True)
    return st, ingest(list(sources), st)


def test_bbob_precision_is_raw_y_and_records_become_best_so_far(tmp_path):
    write_log(tmp_path / "log", [["1 5.0", "3 2.0", "4 7.0", "10 0.5"], ["1 1.0", "2 1e-9", "8 3.0"]])
    st, s = _ingest(tmp_path, tmp_path / "log")
    assert not s.problems
    runs = st.runs().sort("trial").collect()
    assert runs["suite"].to_list() == ["bbob", "bbob"] and runs["data_format"].to_list() == ["iohprofiler"] * 2
    assert runs["final_delta"].to_list() == [0.5, 1e-9]
    # the second run reached 1e-8 at evaluation 2: cocopp's maxevals; the first used its 10 evaluations
    assert runs["evaluations"].to_list() == [10, 2] and runs["last_evaluation"].to_list() == [10, 8]
    assert runs["reference_value"].to_list() == [0.0, 0.0] and runs["maximize"].to_list() == [False, False]
    ev = st.events().sort("run_id", "evaluations").collect()
    assert ev["best_delta"].to_list() == [5.0, 2.0, 2.0, 0.5, 1.0, 1e-9, 1e-9]
    assert ev["measured"].to_list() == [5.0, 2.0, 7.0, 0.5, 1.0, 1e-9, 3.0]
    art = open_store(st.path).art([1.0, 0.3]).collect()
    assert art["art"].to_list() == [(10 + 1) / 2, (10 + 2) / 1]  # 0.3: run 1 never (charged 10), run 2 at 2


def test_maximisation_precision_is_the_distance_below_the_optimum(tmp_path):
    # OneMax in dimension 4: the optimum is 4; precision = 4 - raw_y
    write_log(tmp_path / "log", [["1 1", "2 3", "3 2", "5 4", "6 4"]], suite="PBO", name="OneMax", dim=4, maximize=True)
    st, s = _ingest(tmp_path, tmp_path / "log")
    assert not s.problems
    run = st.runs().collect().row(0, named=True)
    assert (run["suite"], run["maximize"], run["reference_value"], run["final_delta"]) == ("pbo", True, 4.0, 0.0)
    assert run["evaluations"] == 5  # the optimum (precision 0 <= 1e-8) first at evaluation 5
    assert st.events().sort("evaluations").collect()["best_delta"].to_list() == [3.0, 1.0, 1.0, 0.0, 0.0]
    hits = open_store(st.path).hits([2.0, 0.0]).sort("target").collect()
    assert hits["hit"].to_list() == [5, 2]


def test_unknown_optimum_keeps_raw_values_and_leaves_precision_measures(tmp_path):
    write_log(tmp_path / "log", [["1 5.0", "2 3.0"]], suite="mysuite", name="Custom")
    write_log(tmp_path / "log2", [["1 5.0", "2 3.0"]], suite="mysuite", fid=2, name="Known", extra_run={"optimum": 1.0})
    st, s = _ingest(tmp_path, tmp_path / "log", tmp_path / "log2")
    assert not s.problems
    runs = st.runs().sort("function").collect()
    assert runs["final_delta"].to_list() == [None, 2.0] and runs["reference_value"].to_list() == [None, 1.0]
    a = open_store(st.path)
    assert a.precision_unknown()["runs"].to_list() == [1]
    assert a.art([2.0]).collect()["function"].to_list() == [2]  # the run without a precision is left out
    assert st.events().filter(pl.col("best_delta").is_null()).collect()["measured"].to_list() == [5.0, 3.0]
    out = CliRunner().invoke(app, ["art", "--store", str(st.path), "-t", "2"])
    assert out.exit_code == 0 and "no known optimum" in out.stderr


def test_tracked_parameters_and_positions_go_to_the_params_table(tmp_path):
    write_log(tmp_path / "log", [["1 5.0 0.5 1.0 -1.0", "4 2.0 0.25 nan 0.5"]], header="evaluations raw_y sigma x0 x1")
    st, s = _ingest(tmp_path, tmp_path / "log")
    assert not s.problems
    p = st.scan("params").sort("evaluations", "name").collect()
    assert p.select("evaluations", "name", "value").rows() == [
        (1, "sigma", 0.5), (1, "x0", 1.0), (1, "x1", -1.0), (4, "sigma", 0.25), (4, "x0", None), (4, "x1", 0.5)]
    out = CliRunner().invoke(app, ["params", "--store", str(st.path), "--budgets", "1,3,4", "--out", "-"])
    q = pl.read_csv(out.stdout.encode())
    assert q["name"].unique().to_list() == ["sigma"]  # positions only on request
    assert q["median"].to_list() == [0.5, 0.5, 0.25]
    sql = CliRunner().invoke(app, ["query", "--store", str(st.path), "--out", "-",
                                   "SELECT name, SUM(value) AS s FROM params WHERE name = 'sigma' GROUP BY name"])
    assert pl.read_csv(sql.stdout.encode()).rows() == [("sigma", 0.75)]


def test_json_without_its_dat_is_named_and_the_rest_kept(tmp_path):
    write_log(tmp_path / "log" / "A", [["1 5.0"]])
    j = write_log(tmp_path / "log" / "B", [["1 5.0"], ["1 4.0"]], fid=2, name="Ellipsoid")
    shutil.rmtree(j.parent / "data_f2_Ellipsoid")
    st, s = _ingest(tmp_path, tmp_path / "log")
    assert st.runs().select(pl.len()).collect().item() == 1
    (p,) = s.problems
    assert p.file == "B/IOHprofiler_f2_Ellipsoid.json" and p.line is not None
    assert "data_f2_Ellipsoid/IOHprofiler_f2_DIM2.dat not found" in p.message and "2 runs" in p.action
    assert s.runs_skipped == 2


def test_truncated_dat_and_non_numeric_values_are_named_with_their_line(tmp_path):
    write_log(tmp_path / "log", [["1 5.0 0.5", "2 4.0 0.4", "3 abc 0.3"], ["1 3.0 0.5", "7 1.0"]],
              header="evaluations raw_y sigma")
    st, s = _ingest(tmp_path, tmp_path / "log")
    where = {(p.file, p.line): p.message for p in s.problems}
    dat = "data_f1_Sphere/IOHprofiler_f1_DIM2.dat"
    assert "not a number" in where[(dat, 4)] and "truncated" in where[(dat, 7)]
    assert st.events().select(pl.len()).collect().item() == 3  # every readable record kept
    assert str(s.problems[0]).startswith(f"{dat}:4: ")


def test_run_counts_that_disagree_with_the_json_are_named(tmp_path):
    write_log(tmp_path / "few", [["1 5.0"], ["1 4.0"]], json_runs=3)
    write_log(tmp_path / "many", [["1 5.0"], ["1 4.0"], ["1 2.0"]], json_runs=2, fid=2, name="Ellipsoid")
    st, s = _ingest(tmp_path, tmp_path / "few", tmp_path / "many")
    msgs = [str(p) for p in s.problems]
    assert any("3 runs announced for data_f1_Sphere/IOHprofiler_f1_DIM2.dat, which holds 2 runs (1 run without "
               "records skipped)" in m for m in msgs)  # one line however many (issue 43)
    assert any("3 runs in the data file but 2 in the json" in m for m in msgs)
    assert s.runs_skipped == 1 and st.runs().select(pl.len()).collect().item() == 4


def test_invalid_json_is_named_and_the_old_ioh_layout_read(tmp_path):
    j = write_log(tmp_path / "bad", [["1 5.0"]])
    j.write_text(j.read_text().replace('"maximization": false', '"maximization": fals'))
    old = tmp_path / "old"
    old.mkdir()
    (old / "IOHprofiler_f1_i1.info").write_text("suite = 'PBO', funcId = 1, DIM = 16, algId = 'EA'\n%\n"
                                                "data_f1/IOHprofiler_f1_DIM16_i1.dat, 1:100|16\n")
    (old / "data_f1").mkdir()
    (old / "data_f1" / "IOHprofiler_f1_DIM16_i1.dat").write_text('"function evaluation" "current f(x)" '
                                                                  '"best-so-far f(x)"\n1 3 3\n')
    st, s = _ingest(tmp_path, tmp_path / "bad", old)
    msgs = [str(p) for p in s.problems]
    assert any(m.startswith("IOHprofiler_f1_Sphere.json:") and "invalid JSON" in m for m in msgs)
    assert len(msgs) == 1  # the layout of ioh < 0.3 is read (tests/test_ioh_old.py), no line per record
    assert st.runs().collect().select("suite", "final_delta").rows() == [("pbo", 13.0)]


def test_the_sample_reads_every_logging_mode(tmp_path):
    st, s = _ingest(tmp_path, IOH / "bbob.tgz", IOH / "pbo.tgz", IOH / "modes.tgz")
    assert not s.problems
    runs = st.runs().collect()
    counts = dict(runs.group_by("suite").len().iter_rows())
    assert counts == {"bbob": 2 * 3 * 2 * 3 * 3 + 3, "pbo": 2 * 2 * 5}
    assert runs.filter(pl.col("suite") == "pbo")["maximize"].all()
    pbo = st.events().filter(pl.col("suite") == "pbo").group_by("run_id").len().collect()
    assert pbo["len"].unique().to_list() == [300]  # every evaluation logged
    budgets = (st.events().filter(pl.col("algorithm") == "OnePlusOneES-budgets").select("evaluations").unique()
               .sort("evaluations").collect()["evaluations"].to_list())
    assert budgets == [1, 5, *range(10, 101, 10), 25][:2] + sorted([*range(10, 101, 10), 25])
    names = st.scan("params").select("algorithm", "name").unique().sort("algorithm", "name").collect().rows()
    assert names == [("OnePlusOneES", "sigma"), ("OnePlusOneES-budgets", "sigma"), ("OnePlusOneES-budgets", "x0"),
                     ("OnePlusOneES-budgets", "x1")]


def test_an_older_store_is_read_with_the_new_columns_defaults(tmp_path):
    old = tmp_path / "old"
    shutil.copytree(ROOT / "data" / "refalgs", old)
    as_runs_1_0_0(old)
    assert "maximize" not in Store(old).snapshot.tables["runs"].schema().to_arrow().names  # as 1.0.0 wrote it
    out = CliRunner().invoke(app, ["ingest", str(IOH / "pbo.tgz"), "--store", str(old), "-q"])
    assert out.exit_code == 0, out.stderr
    runs = Store(old).runs().collect()
    assert runs.filter(pl.col("suite") != "pbo")["maximize"].to_list() == [False] * (runs.height - 20)
    assert runs.filter(pl.col("suite") == "pbo")["maximize"].all()


@pytest.fixture(scope="module")
def mixed(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("mixed") / "store"
    st = Store(path, create=True)
    s = ingest([IOH / "bbob.tgz", IOH / "pbo.tgz", ROOT / "data" / "sample" / "RS_on_bbob.tgz"], st)
    assert not s.problems
    return path


@pytest.mark.parametrize("args", [["art", "-t", "table"], ["ecdf", "--summary"], ["auc"], ["rank", "--by", "auc"],
                                  ["aocc"], ["ert"]])
def test_commands_on_a_store_mixing_coco_and_ioh_keep_the_suites_apart(mixed, args):
    out = CliRunner().invoke(app, [*args, "--store", str(mixed), "--out", "-"])
    assert out.exit_code == 0, out.stderr
    df = pl.read_csv(out.stdout.encode())
    if "suite" in df.columns:
        assert set(df["suite"]) == {"bbob", "pbo"}
        assert set(df.filter(pl.col("suite") == "pbo")["algorithm"]) == {"OnePlusOneEA", "RandomSearch"}
        assert "RS" in set(df.filter(pl.col("suite") == "bbob")["algorithm"])  # COCO's random search


def test_report_on_a_store_mixing_coco_and_ioh(mixed, tmp_path):
    out = CliRunner().invoke(app, ["report", "--store", str(mixed), "--out", str(tmp_path / "r")])
    assert out.exit_code == 0, out.stderr
    page = (tmp_path / "r" / "parameters.html").read_text()
    assert "sigma, bbob" in page


def test_art_on_runs_without_an_optimum_exits_non_zero(tmp_path):
    """Issue 44: `cocopipe art` on runs without a known optimum wrote 0 rows with exit 0; it names why and what
    measures their values, and `--values` measures them."""
    write_log(tmp_path / "log", [["1 5.0", "2 3.0"]], suite="unknown_suite", name="Custom")
    st, _ = _ingest(tmp_path, tmp_path / "log")
    out = CliRunner().invoke(app, ["art", "--store", str(st.path), "-t", "4"])
    assert out.exit_code == 1 and out.stdout == ""
    assert "no trials with a precision in the selection" in out.stderr and "--values" in out.stderr
    values = CliRunner().invoke(app, ["art", "--store", str(st.path), "-t", "4", "--values", "--out", "-"])
    assert values.exit_code == 0, values.stderr
    assert pl.read_csv(values.stdout.encode()).select("target", "art").rows() == [(4.0, 2.0)]


@pytest.fixture(scope="module")
def ioh_report(tmp_path_factory) -> Path:
    """The report of IOHprofiler data alone: ioh's BBOB (f1-f3, 2-D and 5-D, best2009 as reference), PBO (OneMax and
    LeadingOnes on 16 bits) and IOHinspector's example data (60 runs of unknown_suite, no known optimum)."""
    from pipeline.report import Settings, build

    root = tmp_path_factory.mktemp("ioh-report")
    st = Store(root / "store", create=True)
    s = ingest([IOH / "bbob.tgz", IOH / "pbo.tgz", ROOT / "tests/fixtures/ioh/real/iohinspector_SO_Data"], st)
    assert not s.problems
    return build(open_store(st.path), root / "r", Settings(table_samples=20, ecdf_samples=20), jobs=1).parent


def test_ioh_report_captions_come_from_the_data(ioh_report):
    """Issue 44: the ECDF captions said "24 functions of bbob in 2-D" (best2009's 24, over which the reference was
    drawn) for algorithms with 3 functions, and the aRT tables held the reference's 21 other functions alone. The
    reference is cut to the problems compared: 3 functions in every caption, f1-f3 in the tables."""
    index = (ioh_report / "index.html").read_text()
    assert "3 functions of bbob in 2-D." in index and "3 functions of bbob in 5-D." in index
    assert "24 functions" not in index and "2 functions of pbo in 16-D." in index
    groups = (ioh_report / "ecdf-bbob-2d.html").read_text()
    assert "3 functions of bbob in 2-D." in groups and "5 functions" not in groups  # separable: f1-f3 of f1-f5
    table = (ioh_report / "tables-bbob-2d.html").read_text()
    assert {f"<td><b>f{f}</b>" for f in range(1, 25) if f"<td><b>f{f}</b>" in table} == {"<td><b>f1</b>",
                                                                                            "<td><b>f2</b>",
                                                                                            "<td><b>f3</b>"}


def test_ioh_report_names_the_runs_without_an_optimum_and_takes_pbo_targets_from_the_data(ioh_report):
    """Issue 44: the 60 runs of unknown_suite were left out of every page without a note; PBO got bbob's 51 targets
    100 .. 1e-8 (on 16-bit OneMax every target above 16 hit at evaluation 1, every one below 1 the optimum). The note
    names them; PBO's targets are the integers below the largest precision logged (16) down to 0, the optimum."""
    record = json.loads((ioh_report / "settings.json").read_text())["record"]
    note = next(n for n in record["notes"] if "unknown_suite" in n)
    assert note.startswith("60 IOHprofiler runs of suite unknown_suite (HillClimber, RandomSearch; functions 1-2)")
    assert "no known optimum" in note and note in html_text(ioh_report / "index.html")
    assert record["ecdf_targets"]["pbo"] == [float(t) for t in range(15, -1, -1)]
    assert record["table_targets"]["pbo"] == [15.0, 12.0, 10.0, 8.0, 5.0, 2.0, 0.0]
    assert record["ecdf_targets"]["bbob"] == [10 ** (k / 5) for k in range(10, -41, -1)]  # bbob's standard set
    assert record["table_targets"]["bbob"] == [10.0, 1.0, 0.1, 0.01, 0.001, 1e-05, 1e-07]
    assert record["tests"]["family"] == ["suite", "dimension", "target", "algorithm_a", "algorithm_b"]
    # the charts of a few targets (cocopp's 1e1, 1e-1, 1e-4, 1e-8: three of them the optimum on PBO) take 4 of them
    page = (ioh_report / "alg-oneplusoneea.html").read_text()
    assert "pbo; targets 15, 10, 5, 0;" in page and "pbo; targets 15, 11, 8, 4, 0;" in page
    assert "bbob; targets 10, 0.1, 1e-4, 1e-8;" in (ioh_report / "alg-oneplusonees.html").read_text()


def html_text(page: Path) -> str:
    """The text of a page, tags removed and entities read."""
    import html
    import re

    return html.unescape(re.sub(r"<[^>]+>", "", page.read_text()))
