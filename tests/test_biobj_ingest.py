"""Ingest of bbob-biobj archive files (.adat) into the `archive` table, on tiny hand-made logs."""
from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from pipeline.ingest import ingest
from pipeline.store import Store

HEAD = "suite = 'bbob-biobj', algorithm = 'ALG', indicator = 'hyp', folder = 'g', coco_version = '2.8.2'"


def write_biobj(root: Path, runs: dict[int, list[str]], function: int = 1, dim: int = 2, per_instance: bool = True,
                mode: str = "all") -> Path:
    """A bbob-biobj experiment folder: .info, .dat/.tdat (two records per run) and archive files
    whose sections hold the given record lines, one section per instance (in `runs` order)."""
    (root / "g").mkdir(parents=True)
    (root / "archive").mkdir()
    entries = ", ".join(f"{i}:10|1.0e+00" for i in runs)
    (root / "bbob-biobj_hyp.info").write_text(
        f"{HEAD}\n% test\nfunction = {function}, dim = {dim}, g/bbob-biobj_f{function:02d}_d{dim:02d}_hyp.dat, {entries}\n")
    dat, tdat = [], []
    for k, inst in enumerate(runs):
        head = f"%\n% index = {k}, name = p{inst}\n% instance = {inst}, reference value = 1.0e+00\n"
        dat.append(head + "% function evaluation | indicator value | target hit\n1\t5.0e+00\t5.0e+00\n10\t2.0e+00\t2.0e+00\n")
        tdat.append(head + "% function evaluation | indicator value\n1\t5.0e+00\n10\t2.0e+00\n")
    stem = root / "g" / f"bbob-biobj_f{function:02d}_d{dim:02d}_hyp"
    Path(f"{stem}.dat").write_text("".join(dat))
    Path(f"{stem}.tdat").write_text("".join(tdat))
    sections = {}
    for inst, lines in runs.items():
        name = f"bbob-biobj_f{function:02d}_i{inst:02d}_d{dim:02d}" if per_instance else f"bbob-biobj_f{function:02d}_d{dim:02d}"
        sections.setdefault(name, []).append(
            f"% instance = {inst}, name = bbob_f001_i0{inst}_d02__bbob_f001_i0{inst + 1}_d02\n"
            f"% function evaluation | 2 objectives | {dim} variables\n" + "".join(ln + "\n" for ln in lines)
            + "% evaluations = 10\n")
    for name, secs in sections.items():
        (root / "archive" / f"{name}_nondom_{mode}.adat").write_text("".join(secs))
    return root


def ingest_folder(tmp_path: Path, root: Path):
    store = Store(tmp_path / "store", create=True)
    summary = ingest([root], store)
    return store, summary


def test_one_row_per_logged_solution_with_objectives_and_variables(tmp_path):
    root = write_biobj(tmp_path / "exp", {1: ["1\t3.0\t4.0\t0.5\t-0.5\t", "7\t1.0\t6.0\t1.5\t2.5\t"],
                                           2: ["1\t2.0\t2.0\t0.0\t0.0\t"]})
    store, summary = ingest_folder(tmp_path, root)
    assert summary.problems == []
    a = store.archive().collect().sort("run_id", "line")
    runs = store.runs().collect().sort("instance")
    assert a["evaluations"].to_list() == [1, 7, 1]
    assert a["f1"].to_list() == [3.0, 1.0, 2.0]
    assert a["f2"].to_list() == [4.0, 6.0, 2.0]
    assert a["x"].to_list() == [[0.5, -0.5], [1.5, 2.5], [0.0, 0.0]]
    # sections go to the trials of their instance
    assert a["run_id"].to_list() == [runs["run_id"][0]] * 2 + [runs["run_id"][1]]
    assert a["problem"][0] == "bbob_f001_i01_d02__bbob_f001_i02_d02"
    assert set(a["mode"]) == {"all"} and a["line"].to_list() == [3, 4, 3]


def test_objectives_only_and_one_file_per_function_of_older_loggers(tmp_path):
    root = write_biobj(tmp_path / "exp", {1: ["1\t3.0\t4.0"], 2: ["2\t5.0\t1.0", "4\t4.0\t0.5"]}, per_instance=False,
                       mode="final")
    store, summary = ingest_folder(tmp_path, root)
    a = store.archive().collect().sort("run_id", "line")
    assert summary.problems == []
    assert a["x"].to_list() == [None, None, None]
    assert a["evaluations"].to_list() == [1, 2, 4]
    assert a.group_by("run_id").len()["len"].sort().to_list() == [1, 2]
    assert set(a["mode"]) == {"final"}


def test_bad_archive_records_are_reported_with_file_and_line_and_the_rest_kept(tmp_path):
    root = write_biobj(tmp_path / "exp", {1: ["1\t3.0\t4.0\t0.5\t-0.5", "2\t2.0", "3\tnan\t1.0\t0\t0",
                                              "4\t1.0\t1.0\t0.1", "5\t0.5\t0.5\t0.2\t0.2"]})
    adat = root / "archive" / "bbob-biobj_f01_i01_d02_nondom_all.adat"
    adat.write_text("9\t1.0\t1.0\n" + adat.read_text())  # a record before any header
    store, summary = ingest_folder(tmp_path, root)
    msgs = [str(p) for p in summary.problems]
    name = "archive/bbob-biobj_f01_i01_d02_nondom_all.adat"
    assert any(m.startswith(f"{name}:1: record before any archive header") for m in msgs), msgs
    for line in (5, 6, 7):  # too few fields, NaN, wrong number of variables
        assert any(m.startswith(f"{name}:{line}: malformed archive record") for m in msgs), msgs
    assert store.archive().collect()["evaluations"].to_list() == [1, 5]


def test_an_archive_section_without_a_trial_is_reported(tmp_path):
    root = write_biobj(tmp_path / "exp", {1: ["1\t3.0\t4.0\t0\t0"]})
    extra = root / "archive" / "bbob-biobj_f01_i05_d02_nondom_all.adat"
    extra.write_text("% instance = 5, name = x\n% function evaluation | 2 objectives | 2 variables\n1\t1\t1\t0\t0\n")
    store, summary = ingest_folder(tmp_path, root)
    msgs = [str(p) for p in summary.problems]
    assert any("bbob-biobj_f01_i05_d02_nondom_all.adat:1: archive of f1 2-D instance 5 has no matching trial" in m
               for m in msgs), msgs
    assert store.archive().collect().height == 1


def test_archive_table_files_carry_the_schema_version(tmp_path):
    import pyarrow.parquet as pq

    from pipeline.store import schema

    root = write_biobj(tmp_path / "exp", {1: ["1\t3.0\t4.0\t0\t0"]})
    store, _ = ingest_folder(tmp_path, root)
    from deltalake import DeltaTable

    files = list((store.path / "archive").rglob("*.parquet"))
    assert files and pq.read_table(files[0]).num_rows == 1
    commit = DeltaTable(str(store.path / "archive")).history(1)[0]  # the Delta commit of the source's rows
    assert commit["cocopipe.table"] == "archive" and commit["cocopipe.schema_version"] == schema.version("archive")
    assert next(iter(store.sources().values()))["schema_versions"]["archive"] == schema.version("archive")
    assert store.manifest["schema_versions"]["archive"] == schema.version("archive")


@pytest.fixture
def recomputed_store(tmp_path):
    """A tiny ingested experiment, recomputed with given ideal and nadir points."""
    from pipeline.biobj import recompute

    root = write_biobj(tmp_path / "exp", {1: ["1\t3.0\t4.0\t0\t0", "4\t0.5\t0.5\t0\t0"], 2: ["1\t0.5\t0.8\t0\t0"]})
    store, _ = ingest_folder(tmp_path, root)
    points = pl.DataFrame({"suite": ["bbob-biobj"] * 2, "function": [1, 1], "dimension": [2, 2], "instance": [1, 2],
                           "ideal1": [0.0, 0.0], "ideal2": [0.0, 0.0], "nadir1": [1.0, 1.0], "nadir2": [1.0, 1.0]},
                          schema_overrides={"function": pl.Int32, "dimension": pl.Int32, "instance": pl.Int32})
    return store, points, recompute


def test_recompute_stores_a_second_indicator_version_and_measures_pick_either(recomputed_store):
    from pipeline.api import Analysis

    store, points, recompute = recomputed_store
    summary = recompute(store, points=points)
    assert (summary.runs, summary.solutions) == (2, 3)
    entry = store.derived()["biobj-recomputed"]
    assert entry["version"] and entry["reference_values"] == "logged" and entry["table"] == "events"
    rec = Analysis(store, indicator="recomputed").events().collect().sort("run_id", "evaluations")
    logged = Analysis(store).events().collect()
    assert logged["best_delta"].to_list() == [5.0, 2.0, 5.0, 2.0]  # the logged version is kept
    # instance 1: (3,4) is outside: distance sqrt(4 + 9); then (0.5,0.5): 1 - 0.25; instance 2: 1 - 0.5*0.2
    assert rec["evaluations"].to_list() == [1, 4, 10, 1, 10]
    assert rec["best_delta"].to_list() == pytest.approx([1 + 13 ** 0.5, 0.75, 0.75, 0.9, 0.9])
    art = Analysis(store, indicator="recomputed").art(targets=[0.8], dispersion=False).collect()
    assert art["successes"].to_list() == [1]


def test_new_reference_values_shift_only_the_problems_they_name(recomputed_store, tmp_path):
    from pipeline.api import Analysis

    store, points, recompute = recomputed_store
    ref = tmp_path / "ref.txt"
    ref.write_text("bbob-biobj_f01_i02_d02 0.5\n")
    summary = recompute(store, ref, points=points)
    assert summary.missing_references == 1 and str(ref.resolve()) in summary.reference_values
    rec = Analysis(store, indicator="recomputed").events().collect().sort("run_id", "evaluations")
    assert rec["best_delta"].to_list() == pytest.approx([1 + 13 ** 0.5, 0.75, 0.75, 0.4, 0.4])


def test_sql_sees_the_archive_table(tmp_path):
    from pipeline.query import run_sql

    root = write_biobj(tmp_path / "exp", {1: ["1\t3.0\t4.0\t0\t0", "2\t1.0\t5.0\t0\t0"], 2: ["1\t2.0\t2.0\t0\t0"]})
    store, _ = ingest_folder(tmp_path, root)
    df = run_sql(store, "SELECT r.instance, COUNT(*) AS n, MIN(a.f1) AS best_f1 FROM archive a "
                        "JOIN runs r ON a.run_id = r.run_id GROUP BY r.instance ORDER BY r.instance").collect()
    assert df.rows() == [(1, 2, 1.0), (2, 1, 2.0)]


def test_a_source_changed_after_the_recomputation_asks_for_a_new_one(recomputed_store, tmp_path):
    from pipeline.api import Analysis

    store, points, recompute = recomputed_store
    recompute(store, points=points)
    adat = tmp_path / "exp" / "archive" / "bbob-biobj_f01_i02_d02_nondom_all.adat"
    adat.write_text(adat.read_text().replace("0.5\t0.8", "0.5\t0.7"))
    ingest([tmp_path / "exp"], store)
    with pytest.raises(ValueError, match="source .*exp changed after the biobjective indicator was recomputed"):
        Analysis(store, indicator="recomputed")
    recompute(store, points=points)
    assert Analysis(store, indicator="recomputed").events().collect().height == 5
