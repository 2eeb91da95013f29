"""The IOHprofiler layout of ioh < 0.3 (.info with .dat/.cdat/.idat/.tdat), as IOHanalyzer reads it:
IOHanalyzer's own example data (tests/fixtures/ioh/real/iohanalyzer_extdata) with runs and ERT checked
against a computation from the raw files, and a hand-made log with every logging file."""
from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest

from pipeline.api import open_store

from test_ioh import _ingest

EXT = Path(__file__).resolve().parent / "fixtures" / "ioh" / "real" / "iohanalyzer_extdata" / "ONE_PLUS_LAMDA_EA"
N = 100  # OneMax in dimension 100: maximised, optimum 100


def _raw_runs() -> list[list[tuple[int, float]]]:
    """The (evaluations, best-so-far f(x)) records of each run, read straight from the .dat."""
    runs: list[list[tuple[int, float]]] = []
    for line in (EXT / "data_f1" / "IOHprofiler_f1_DIM100_i1.dat").read_text().splitlines():
        if line.startswith('"'):
            runs.append([])
        elif line.strip():
            f = line.split()
            runs[-1].append((int(f[0]), float(f[2])))
    return runs


def test_iohanalyzer_example_data_is_read_run_for_run(tmp_path):
    st, s = _ingest(tmp_path, EXT)
    assert not s.problems
    runs = st.runs().sort("trial").collect()
    info = (EXT / "IOHprofiler_f1_i1.info").read_text().splitlines()
    entries = [e.strip() for e in info[2].split(",")[1:]]
    assert runs.height == len(entries) == len(_raw_runs()) == 10
    assert runs.select("suite", "function", "dimension", "maximize").unique().rows() == [("pbo", 1, 100, True)]
    assert runs["info_evaluations"].to_list() == [int(re.match(r"\d+:(\d+)", e).group(1)) for e in entries]
    assert runs["reference_value"].to_list() == [100.0] * 10
    ev = st.events().collect().join(runs.select("run_id", "trial"), on="run_id").sort("trial", "evaluations")
    raw = [r for run in _raw_runs() for r in run]
    assert ev.height == len(raw)
    assert ev.select("evaluations", "measured").rows() == [(e, y) for e, y in raw]
    names = st.scan("params").select("name").unique().sort("name").collect()["name"].to_list()
    assert names == ["l", "lambda", "mutation_rate"]


@pytest.mark.parametrize("target", [50.0, 10.0, 1.0, 0.0])
def test_ert_equals_a_computation_from_the_raw_dat(tmp_path, target):
    """IOHanalyzer's ERT on precision t (raw value 100 - t): hitting times read from the .dat's best-so-far
    column; an unsuccessful run charged its own length (the .info's evaluations)."""
    st, _ = _ingest(tmp_path, EXT)
    info = (EXT / "IOHprofiler_f1_i1.info").read_text().splitlines()
    lengths = [int(re.match(r"\d+:(\d+)", e.strip()).group(1)) for e in info[2].split(",")[1:]]
    hits = [next((e for e, y in run if y >= N - target), None) for run in _raw_runs()]
    ok = [h for h in hits if h is not None]
    want = (sum(ok) + sum(n for h, n in zip(hits, lengths) if h is None)) / len(ok)
    got = open_store(st.path).ert([target]).collect()
    assert got["quantity"].to_list() == ["precision"] and got["ert"][0] == pytest.approx(want, rel=1e-12)


def test_every_logging_file_of_a_run_is_read_and_merged(tmp_path):
    """.dat (improvements), .cdat (every evaluation), .idat (intervals), .tdat (targets): one run's records
    are their union by evaluations; a minimised BBOB problem (suite says so) reads `best-so-far f(x)`."""
    log = tmp_path / "old"
    (log / "data_f1").mkdir(parents=True)
    (log / "IOHprofiler_f1_i1.info").write_text(
        "suite = 'BBOB', funcId = 1, DIM = 2, algId = 'EA', algInfo = 'x'\n%\n"
        "data_f1/IOHprofiler_f1_DIM2_i1.dat, 1:6|0.5\n")
    head = '"function evaluation" "current f(x)" "best-so-far f(x)" "current af(x)+b" "best af(x)+b" "sigma"\n'
    files = {".dat": ["1 4 4 84 84 0.5", "3 2 2 82 82 0.4", "6 0.5 0.5 80.5 80.5 0.3"],
             ".cdat": [f"{e} {y} {b} 0 0 0.5" for e, y, b in [(1, 4, 4), (2, 9, 4), (3, 2, 2), (4, 7, 2), (5, 3, 2),
                                                              (6, 0.5, 0.5)]],
             ".idat": ["2 9 4 89 84 0.5", "4 7 2 87 82 0.4"],
             ".tdat": ["3 2 2 82 82 0.4"]}
    for suffix, rows in files.items():
        (log / "data_f1" / f"IOHprofiler_f1_DIM2_i1{suffix}").write_text(head + "\n".join(rows) + "\n")
    st, s = _ingest(tmp_path, log)
    assert not s.problems, s.problems
    run = st.runs().collect().row(0, named=True)
    assert (run["suite"], run["maximize"], run["final_delta"], run["last_evaluation"]) == ("bbob", False, 0.5, 6)
    ev = st.events().sort("evaluations").collect()
    assert ev.select("evaluations", "best_delta").rows() == [(1, 4.0), (2, 4.0), (3, 2.0), (4, 2.0), (5, 2.0), (6, 0.5)]
    assert open_store(st.path).ert([1.0]).collect()["ert"].to_list() == [6.0]


def test_unquoted_parameter_names_after_the_quoted_columns_are_columns(tmp_path):
    """ioh's 2023 logger (IOHexperimenter's later ioh_data.zip) writes the tracked names bare after the five
    quoted columns: `... "best af(x)+b" violation penalty x0`: three parameter columns, the records numbers."""
    log = tmp_path / "old"
    (log / "data_f1").mkdir(parents=True)
    (log / "IOHprofiler_f1.info").write_text(
        'suite = "unknown_suite", funcId = 1, DIM = 1, maximization = "F", algId = "RS"\n%\n'
        "data_f1/IOHprofiler_f1_DIM1.dat, 1:2|0.5;10\n")
    (log / "data_f1" / "IOHprofiler_f1_DIM1.dat").write_text(
        '"function evaluation" "current f(x)" "best-so-far f(x)" "current af(x)+b" "best af(x)+b" violation penalty x0\n'
        "1 4 4 84 84 0 0 0.25\n2 0.5 0.5 80.5 80.5 1 2 -0.5\n")
    st, s = _ingest(tmp_path, log)
    assert not s.problems, s.problems
    assert st.events().sort("evaluations").collect()["measured"].to_list() == [4.0, 0.5]
    p = st.scan("params").sort("evaluations", "name").collect()
    assert p.select("evaluations", "name", "value").rows() == [
        (1, "penalty", 0.0), (1, "violation", 0.0), (1, "x0", 0.25), (2, "penalty", 2.0), (2, "violation", 1.0),
        (2, "x0", -0.5)]


SAMPLE = EXT.parents[1] / "iohdata_sample_data"  # IOHdata's sample_data.zip (JSS), cut to 5 runs of 16-D


def _raw_records(dat: Path) -> list[dict[int, float]]:
    """Per run, evaluations -> best-so-far f(x) over the run's .dat and .tdat, straight from the files."""
    runs: list[dict[int, float]] = []
    for suffix in (".dat", ".tdat"):
        k = -1
        for line in dat.with_suffix(suffix).read_text().splitlines():
            if line.startswith('"'):
                k += 1
                if k == len(runs):
                    runs.append({})
            elif line.strip():
                f = line.split()
                runs[k].setdefault(int(f[0]), float(f[2]))
    return runs


@pytest.mark.parametrize("alg,f", [("RLS", 1), ("self_GA", 1), ("RLS", 19), ("self_GA", 19)])
def test_iohdata_sample_runs_and_ert_equal_the_raw_files(tmp_path, alg, f):
    """PBO, maximised: OneMax (f1, optimum 16 known: precisions) and f19 (no optimum known: values); the
    .dat and .tdat records together; an unsuccessful run charged its length from the .info."""
    st, s = _ingest(tmp_path, SAMPLE / alg)
    assert not s.problems
    raw = _raw_records(SAMPLE / alg / f"data_f{f}" / f"IOHprofiler_f{f}_DIM16.dat")
    info = (SAMPLE / alg / f"IOHprofiler_f{f}.info").read_text().splitlines()
    lengths = [int(re.match(r"\d+:(\d+)", e.strip()).group(1)) for e in info[2].split(",")[1:]]
    runs = st.runs().filter(pl.col("function") == f).sort("trial").collect()
    assert runs.height == len(raw) == len(lengths) == 5
    ev = st.events().join(runs.lazy().select("run_id", "trial"), on="run_id").sort("trial", "evaluations").collect()
    assert ev.height == sum(len(r) for r in raw)
    best = max(max(r.values()) for r in raw)
    values = [best - 2, best - 1, best] if f == 19 else [12.0, 15.0, 16.0]
    a = open_store(st.path, function=f)
    got = a.ert(values if f == 19 else [16 - v for v in values]).collect()
    assert set(got["quantity"]) == {"value" if f == 19 else "precision"}
    for v, ert in zip(values, got.sort("target", descending=f == 1)["ert"]):
        hits = [min((e for e, y in r.items() if y >= v), default=None) for r in raw]
        ok = [h for h in hits if h is not None]
        want = (sum(ok) + sum(n for h, n in zip(hits, lengths) if h is None)) / len(ok) if ok else float("inf")
        assert ert == pytest.approx(want, rel=1e-12), (alg, f, v)


IOH_DATA = Path(__file__).resolve().parent / "fixtures" / "ioh" / "real" / "iohexperimenter_ioh_data" / "ioh_data.zip"


def test_ioh_data_zip_blocks_naming_one_dat_take_its_sections_in_turn(tmp_path):
    """IOHexperimenter's `ioh_data.zip` (its 2021 tests): each .info holds two blocks (two logger sessions,
    instances 1 and 2) naming the same .dat, 2 runs each, and the .dat holds the 4 runs in that order: the
    second block's runs are sections 3 and 4 (their .info entries `evals|best` are those sections' last
    improvements: 6976|10.4961, 1987|10.2543, then 2087|48.2667, 9035|48.7675), not sections 1 and 2 again."""
    import zipfile

    st, s = _ingest(tmp_path, IOH_DATA)
    assert not s.problems
    with zipfile.ZipFile(IOH_DATA) as z:
        raw = [[(int(r.split()[0]), float(r.split()[2])) for r in sec.strip().splitlines()[1:]]
               for sec in z.read("data_f1_Sphere/IOHprofiler_f1_DIM5.dat").decode().split('"function evaluation"')[1:]]
    assert len(raw) == 4
    runs = st.runs().sort("function", "trial").collect()
    assert runs.height == 8 and set(runs["function"]) == {0, 1} and not runs["maximize"].any()
    f1 = runs.filter(pl.col("function") == 1)
    assert f1.select("instance", "info_evaluations").rows() == [(1, 6976), (1, 1987), (2, 2087), (2, 9035)]
    assert f1["last_evaluation"].to_list() == [10000] * 4
    ev = st.events().join(f1.lazy().select("run_id", "instance", "info_evaluations"), on="run_id").collect()
    got = sorted(sorted(zip(g["evaluations"], g["measured"])) for _, g in ev.group_by("run_id"))
    assert got == sorted(raw)
    assert sorted(min(y for _, y in r) for r in raw) == pytest.approx([10.254333, 10.496063, 48.266694, 48.767475])


IOH_DATA_2023 = IOH_DATA.parents[1] / "iohexperimenter_ioh_data_2023"


def test_the_2023_ioh_data_zip_is_read_run_for_run_and_its_cut_line_named(tmp_path):
    """IOHexperimenter's later ioh_data.zip (2023, cut to the records improving best-so-far): bare parameter
    names (violation penalty i x0..x4) after the quoted columns, two blocks per .info naming one .dat; f61's
    last run stops within a line at evaluation 2656: that line is named, the run read up to 2655."""
    st, s = _ingest(tmp_path, IOH_DATA_2023)
    assert [(p.file, p.line, p.message) for p in s.problems] == [
        ("data_f61_Name/IOHprofiler_f61_DIM5.dat", 13, "truncated record")]
    info = (IOH_DATA_2023 / "IOHprofiler_f1_Sphere.info").read_text().splitlines()
    entries = [e.strip() for line in info[2::3] for e in line.split(",")[1:]]
    raw = [[(int(r.split()[0]), float(r.split()[2])) for r in sec.strip().splitlines()[1:]] for sec in
           (IOH_DATA_2023 / "data_f1_Sphere" / "IOHprofiler_f1_DIM5.dat").read_text().split('"function evaluation"')[1:]]
    runs = st.runs().sort("function", "trial").collect()
    f1 = runs.filter(pl.col("function") == 1)
    assert f1.select("instance", "info_evaluations").rows() == [
        (int(e.split(":")[0]), int(e.split(":")[1].split("|")[0])) for e in entries] == [
        (1, 8154), (1, 7436), (2, 5962), (2, 6518)]
    ev = st.events().join(f1.lazy().select("run_id", "trial"), on="run_id").sort("trial", "evaluations").collect()
    assert [list(zip(g["evaluations"], g["measured"])) for _, g in ev.group_by("trial", maintain_order=True)] == raw
    # each run's best is its .info's `best` (rounded to 6 digits there)
    assert [min(y for _, y in r) for r in raw] == pytest.approx(
        [float(e.split("|")[1].split(";")[0]) for e in entries], abs=5e-5)
    assert runs.filter(pl.col("function") == 61)["last_evaluation"].to_list() == [10000, 10000, 10000, 2655]
    names = st.scan("params").select("name").unique().sort("name").collect()["name"].to_list()
    assert names == ["i", "penalty", "violation", "x0", "x1", "x2", "x3", "x4"]
