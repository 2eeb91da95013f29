"""Hostile input to the COCO readers and the ingest (issue 28): bad dimensions, nan/inf records, huge
.info lines, empty names, duplicate trials across sources, unread sources and the exit status, FIFOs and
folders nested deeper than Python's recursion limit."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from logs import write_new2
from pipeline.cli import app
from pipeline.ingest import ingest, parse_source, read_source
from pipeline.store import Store

TWO_RUNS = [{"instance": 1, "dat": [(1, 5.0), (3, 2.0), (7, 0.5)]}, {"instance": 2, "dat": [(1, 4.0), (5, 1.0)]}]


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str


def cli(*args) -> Result:
    """`cocopipe ARGS` run in this process (CliRunner)."""
    res = CliRunner().invoke(app, [str(a) for a in args])
    if res.exception is not None and not isinstance(res.exception, SystemExit):
        raise res.exception
    return Result(res.exit_code, res.stdout, res.stderr)


def cli_process(*args, env: dict | None = None) -> subprocess.CompletedProcess:
    """`cocopipe ARGS` run in a process of its own, killed after two minutes (a read that blocks)."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent), **(env or {})}
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *map(str, args)], capture_output=True, text=True,
                          env=env, timeout=120)


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
    assert [(p.file, p.line, p.action) for p in res.problems] == [(INFO, 3, "2 runs skipped")]
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
    assert named == [(INFO, 4, "line skipped"), (INFO, 6, "3 runs skipped")]
    assert res.runs["function"].to_list() == [1, 1]  # never read under the first entry's header
    assert res.runs_skipped == 3


def test_huge_info_data_line_counts_its_runs_as_skipped(tmp_path):
    root = write_new2(tmp_path / "A", runs=TWO_RUNS)
    edit(root, "1:7|5.0e-01", "1:7|5.0e-01" + ", 9:1|1.0e+00" * 400_000, INFO)
    res = parse_source(read_source(root))
    assert [(p.file, p.line, p.action) for p in res.problems] == [(INFO, 3, "400002 runs skipped")]
    assert res.runs.height == 0 and res.runs_skipped == 400_002


def test_a_dat_file_no_info_names_is_named_not_silently_passed_over(tmp_path):
    root = write_new2(tmp_path / "A", runs=TWO_RUNS)
    shutil.copy(root / "data_f1" / "bbobexp_f1_DIM2.dat", root / "data_f1" / "bbobexp_f1_DIM5.dat")
    src = read_source(root)
    parsed = parse_source(src)
    assert [(p.file, p.line, p.message) for p in parsed.problems] == [
        ("data_f1/bbobexp_f1_DIM5.dat", None, "a .dat file no .info file names")], parsed.problems
    assert parsed.runs.height == 2  # the runs the .info announces


# item 17: empty names


def test_empty_algorithm_name_in_the_logs_is_named(tmp_path):
    root = write_new2(tmp_path / "A", alg="", runs=TWO_RUNS)
    res = parse_source(read_source(root))
    assert [(p.file, p.line, p.action) for p in res.problems] == [(INFO, 1, "named after the source: A")]
    assert res.runs["algorithm"].unique().to_list() == ["A"]


def test_empty_algorithm_name_given_is_refused(tmp_path):
    name = ""  # (a blank one such as " " is a name: tests/test_store_names.py)
    root = write_new2(tmp_path / "A", runs=TWO_RUNS)
    with pytest.raises(ValueError, match="--name: give a non-empty"):
        ingest([root], Store(tmp_path / "st", create=True), name=name)
    r = cli("ingest", root, "--store", tmp_path / "st2", "--name", name)
    assert r.returncode == 1 and "--name: give a non-empty algorithm name" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


# item 14: FIFOs, folders nested beyond the recursion limit


def test_a_fifo_named_like_a_log_file_is_named_never_opened(tmp_path):
    root = write_new2(tmp_path / "A", runs=TWO_RUNS)
    (root / TDAT).unlink()
    os.mkfifo(root / TDAT)
    os.mkfifo(root / "stream.dat")
    os.mkfifo(tmp_path / "B.tgz")
    r = cli_process("ingest", root, tmp_path / "B.tgz", "--store", tmp_path / "st")  # blocked forever before
    text = " ".join(r.stderr.split())
    assert f"{TDAT}: a FIFO, not a regular file (not opened, skipped)" in text, text
    assert "stream.dat: a FIFO, not a regular file" in text
    assert "B.tgz: a FIFO, neither a folder nor a regular file (not opened)" in text
    assert "A: 2 runs" in text and "1 of 2 sources read" in text and "Traceback" not in text
    assert r.returncode == 1  # a source given was not read
    # found by the walk of a folder given: a source of its own, not read
    (tmp_path / "B.tgz").rename(root / "C.tgz")
    r = cli("ingest", root, "--store", tmp_path / "st2")
    text = one_line(r.stderr)
    assert "C.tgz: a FIFO, neither a folder nor a regular file (not opened)" in text and "1 of 2 sources read" in text
    assert r.returncode == 1


def _deep(root: Path, levels: int) -> Path:
    """`root` and `levels` folders `d` nested in it, made one by one (Path.mkdir(parents=True) recurses)."""
    p = root
    p.mkdir()
    for _ in range(levels):
        p = p / "d"
        p.mkdir()
    return p


def _remove_deep(root: Path) -> None:
    """Remove a chain of nested folders from the bottom (shutil.rmtree recurses)."""
    chain = [root]
    while (chain[-1] / "d").is_dir():
        chain.append(chain[-1] / "d")
    for p in reversed(chain):
        for f in p.iterdir():
            if f.name != "d":
                shutil.rmtree(f) if f.is_dir() else f.unlink()
        p.rmdir()


def _depth() -> int:
    """Frames on the stack now."""
    f, n = sys._getframe(), 0
    while f is not None:
        f, n = f.f_back, n + 1
    return n


def test_a_link_to_a_folder_is_named_never_followed(tmp_path):
    logs = write_new2(tmp_path / "logs", alg="L", runs=TWO_RUNS)
    root = write_new2(tmp_path / "A", runs=TWO_RUNS)
    (root / "linked").symlink_to(logs)
    (root / "loop").symlink_to(root)
    r = cli("ingest", root, "--store", tmp_path / "st")
    text = one_line(r.stderr)
    for name in ("linked", "loop"):
        assert f"{name}: a link to a folder (not followed; give its target as a source of its own)" in text, text
    assert "A: 2 runs" in text and Store(tmp_path / "st").runs().collect()["algorithm"].unique().to_list() == ["ALG"]


def test_a_folder_nested_beyond_the_recursion_limit_is_named_not_a_traceback(tmp_path):
    """400 levels, under a recursion limit of 150 frames more than the test's own: a recursive walk fails
    (and the tree stays shallow enough for pytest's own clean-up of tmp_path, which recurses)."""
    from pipeline.ingest.sources import MAX_DEPTH, expand

    root = write_new2(tmp_path / "A", runs=TWO_RUNS)
    bottom = _deep(root / "d", 400)
    write_new2(bottom, function=2, runs=TWO_RUNS)  # too deep to be found
    _deep(root / "e", MAX_DEPTH - 2)
    write_new2(root / "e" / Path(*["d"] * (MAX_DEPTH - 2)), function=3, runs=TWO_RUNS)  # deep, within the bound
    limit = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(_depth() + 150)
        found, src = expand([root]), read_source(root)
    finally:
        sys.setrecursionlimit(limit)
    try:
        assert found == [root]
        assert [p[:2] for p in src.problems] == [("d/" * MAX_DEPTH + "d", None)]
        assert f"nested deeper than {MAX_DEPTH} levels" in src.problems[0][2]
        assert sorted(parse_source(src).runs["function"].to_list()) == [1, 1, 3, 3]
    finally:
        _remove_deep(root / "d")


# item 6: the exit status when a source or runs could not be read


def one_line(text: str) -> str:
    return " ".join(text.split())


def test_a_source_not_read_makes_the_ingest_exit_1_unless_partial_success_is_allowed(tmp_path):
    good = write_new2(tmp_path / "A", runs=TWO_RUNS)
    (tmp_path / "broken.tgz").write_bytes(b"\x1f\x8b\x08\x00garbage")
    r = cli("ingest", good, tmp_path / "broken.tgz", "--store", tmp_path / "st")
    text = one_line(r.stderr)
    assert r.returncode == 1, text
    assert "1 of 2 sources read" in text
    assert f"error: 1 of 2 sources not read: {tmp_path / 'broken.tgz'}; exit status 1" in text
    r = cli("ingest", good, tmp_path / "broken.tgz", "--store", tmp_path / "st2", "--allow-partial")
    assert r.returncode == 0 and "error:" not in r.stderr, r.stderr


def test_an_archived_data_set_not_fetched_makes_the_ingest_exit_1(tmp_path):
    import tarfile

    from pipeline.archive.definition import create

    good = write_new2(tmp_path / "A", runs=TWO_RUNS)
    archive = tmp_path / "archive"
    (archive / "bbob" / "2009").mkdir(parents=True)
    with tarfile.open(archive / "bbob" / "2009" / "X.tgz", "w:gz") as tf:
        tf.add(good, arcname="X")
    create(archive)
    (archive / "bbob" / "2009" / "X.tgz").unlink()  # listed, but gone: as an HTTP 404
    r = cli_process("ingest", good, "archive:bbob/2009/X", "--archive-url", archive, "--store", tmp_path / "st",
                    env={"COCOPIPE_CACHE": str(tmp_path / "cache")})
    assert r.returncode == 1 and "1 of 2 sources not read" in one_line(r.stderr), r.stderr


def test_runs_announced_but_not_read_make_the_ingest_exit_1_bad_records_do_not(tmp_path):
    root = write_new2(tmp_path / "A", runs=TWO_RUNS)
    write_new2(root, function=2, runs=TWO_RUNS, info_name="bbobexp_f2.info")
    (root / "data_f2" / "bbobexp_f2_DIM2.dat").unlink()
    (root / "data_f2" / "bbobexp_f2_DIM2.tdat").unlink()
    r = cli("ingest", root, "--store", tmp_path / "st")
    assert r.returncode == 1 and "error: 2 runs announced but not read; exit status 1" in one_line(r.stderr), r.stderr
    assert cli("ingest", root, "--store", tmp_path / "st2", "--allow-partial").returncode == 0
    other = write_new2(tmp_path / "B", runs=TWO_RUNS)
    edit(other, "3 0 +2.000000000e+00", "3 0 nan", DAT)  # a record left out, its run kept
    r = cli("ingest", other, "--store", tmp_path / "st3")
    assert r.returncode == 0 and "warning:" in r.stderr and "error:" not in r.stderr, r.stderr


def test_the_report_stops_naming_a_source_it_could_not_read(tmp_path):
    good = write_new2(tmp_path / "A", runs=TWO_RUNS)
    (tmp_path / "broken.tgz").write_bytes(b"\x1f\x8b\x08\x00garbage")
    r = cli("report", good, tmp_path / "broken.tgz", "--out", tmp_path / "report")
    assert r.returncode == 1, r.stderr
    assert f"1 of 2 sources not read: {tmp_path / 'broken.tgz'}: no report made" in one_line(r.stderr)
    assert not (tmp_path / "report").exists()


# item 3: one trial in two sources


def _tgz(folder: Path, out: Path) -> Path:
    import tarfile

    with tarfile.open(out, "w:gz") as tf:
        tf.add(folder, arcname=folder.name)
    return out


def _runs_selected(store: Path) -> int:
    """The trials a selection of the store counts (`cocopipe runs`, every instance)."""
    r = cli("runs", "--store", store, "--all-instances", "--out", "-")
    assert r.returncode == 0, r.stderr
    return len(r.stdout.splitlines()) - 1


def test_a_copy_ingested_later_adds_no_trial_and_says_so_once(tmp_path):
    a = write_new2(tmp_path / "A", runs=TWO_RUNS)
    copy = _tgz(a, tmp_path / "copy.tgz")  # the same trials, another content hash
    assert cli("ingest", a, "--store", tmp_path / "st").returncode == 0
    r = cli("ingest", copy, "--store", tmp_path / "st")
    text = one_line(r.stderr)
    assert r.returncode == 0, text
    assert text.count("identical") == 1 and "is a duplicate" not in text
    assert (f"note: copy: 2 trials identical (same records) to those of {a.resolve()}, which the store holds: "
            "left out, each counted once") in text
    assert "copy: nothing new (2 trials the store holds from another source)" in text
    assert "0 runs read, 0 runs skipped, 2 duplicate trials left out" in text
    assert _runs_selected(tmp_path / "st") == 2


def test_two_sources_of_one_call_holding_the_same_trials_count_them_once(tmp_path):
    a = write_new2(tmp_path / "A", runs=TWO_RUNS)
    r = cli("ingest", a, _tgz(a, tmp_path / "copy.tgz"), "--store", tmp_path / "st")
    assert r.returncode == 0 and "2 runs read" in one_line(r.stderr), r.stderr
    assert _runs_selected(tmp_path / "st") == 2


def test_only_the_trials_the_store_holds_are_left_out_each_as_often_as_it_holds_them(tmp_path):
    same = {"instance": 1, "dat": [(1, 5.0), (3, 2.0)]}  # a deterministic algorithm: identical trials
    a = write_new2(tmp_path / "A", runs=[same])
    b = write_new2(tmp_path / "B", runs=[same, same, {"instance": 2, "dat": [(1, 4.0), (5, 1.0)]}])
    st = Store(tmp_path / "st", create=True)
    ingest([a], st)
    out = ingest([b], st).sources[0]
    assert (out.status, out.runs, out.runs_duplicate) == ("ingested", 2, 1)
    assert sorted(st.runs().collect()["instance"].to_list()) == [1, 1, 2]
    assert st.sources()[str(b.resolve())]["runs"] == 2
    assert st.events().collect().height == 2 + 2 + 2  # A's trial, B's second one and B's instance 2


def test_a_copy_of_the_same_content_is_stored_once_without_a_duplicate_per_trial(tmp_path):
    a = write_new2(tmp_path / "A", runs=TWO_RUNS)
    b = shutil.copytree(a, tmp_path / "B")
    st = Store(tmp_path / "st", create=True)
    ingest([a], st)
    out = ingest([b], st).sources[0]
    assert not out.problems and out.notes == [f"same content as {a.resolve()}: its files are stored once, for both"]
    assert st.runs().collect().height == 2  # both sources name one commit
    assert len({e["commit_id"] for e in st.sources().values()}) == 1


def test_a_source_that_now_holds_only_trials_of_another_leaves_no_stale_version(tmp_path):
    a = write_new2(tmp_path / "A", runs=TWO_RUNS)
    b = write_new2(tmp_path / "B", runs=[{"instance": 3, "dat": [(1, 5.0), (2, 1.0)]}])
    st = Store(tmp_path / "st", create=True)
    ingest([a, b], st)
    shutil.rmtree(b)
    shutil.copytree(a, b)
    (b / "bbobexp_f1.info").write_text((a / "bbobexp_f1.info").read_text() + "\n")  # another content hash
    out = ingest([b], st).sources[0]
    assert out.status == "duplicate" and f"{b.resolve()} removed from the store (replaced by nothing new)" in out.notes
    assert list(st.sources()) == [str(a.resolve())] and st.runs().collect().height == 2


def test_the_report_ingest_of_the_same_trials_twice_counts_them_once_and_says_so(tmp_path, capsys):
    """`cocopipe report A copy-of-A` (its ingest step; the report reads the store it fills)."""
    from pipeline.commands.report import _ingest

    a = write_new2(tmp_path / "A", runs=TWO_RUNS)
    _ingest([str(a), str(_tgz(a, tmp_path / "copy.tgz"))], str(tmp_path / "st"))
    assert Store(tmp_path / "st").runs().collect().height == 2
    assert _runs_selected(tmp_path / "st") == 2
    text = one_line(capsys.readouterr().err)
    assert text.count("2 trials identical (same records)") == 1, text


def test_replacing_the_source_whose_trials_another_left_out_says_so(tmp_path):
    a = write_new2(tmp_path / "A", runs=TWO_RUNS)
    c = write_new2(shutil.copytree(a, tmp_path / "C"), function=3, runs=TWO_RUNS, info_name="bbobexp_f3.info")
    copy = _tgz(c, tmp_path / "copy.tgz")  # A's f1 trials and its own of f3
    st = Store(tmp_path / "st", create=True)
    ingest([a, copy], st)
    assert st.runs().collect().height == 4
    (a / "bbobexp_f1.info").unlink()  # A changes: its f1 trials, left out of the copy, are gone
    write_new2(a, function=2, runs=TWO_RUNS, info_name="bbobexp_f2.info")
    out = ingest([a], st).sources[0]
    assert (f"{copy.resolve()} left out 2 trials identical to those of the version replaced: if this one lacks "
            f"them, ingest {copy.resolve()} again (--force)") in out.notes
    ingest([copy], st, force=True)
    assert sorted(st.runs().collect()["function"].to_list()) == [1, 1, 2, 2, 3, 3]


def test_an_empty_algorithm_name_in_an_archive_named_only_by_its_suffix_is_never_empty(tmp_path):
    root = write_new2(tmp_path / "A", alg="", runs=TWO_RUNS)
    src = read_source(_tgz(root, tmp_path / ".tgz"))
    assert src.name == ".tgz"
    res = parse_source(src)
    assert res.runs["algorithm"].unique().to_list() == [".tgz"]
    assert [p.action for p in res.problems] == ["named after the source: .tgz"]


def test_an_ingest_that_read_nothing_names_what_it_could_not_read(tmp_path):
    root = write_new2(tmp_path / "A", runs=TWO_RUNS)
    edit(root, "DIM = 2", "DIM = 0", INFO)
    r = cli("ingest", root, "--store", tmp_path / "st", "--allow-partial")  # nothing read: not accepted either
    assert r.returncode == 1, r.stderr
    assert (f"error: 1 of 1 source not read: {root.resolve()}; 2 runs announced but not read; exit status 1"
            in one_line(r.stderr)), r.stderr


IOH_DATA = Path(__file__).resolve().parent / "fixtures" / "ioh" / "real" / "iohexperimenter_ioh_data" / "ioh_data.zip"


def _zip_of(path: Path, members: dict[str, bytes], compress: int = 8) -> Path:
    """A zip holding `members` (name: bytes)."""
    import zipfile

    with zipfile.ZipFile(path, "w", compress) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return path


def test_a_zip_holding_only_another_zip_reads_the_inner_one(tmp_path):
    """IOHexperimenter's ioh_data.zip zipped again: its 8 runs read, their files named inside the inner zip."""
    outer = _zip_of(tmp_path / "outer.zip", {"ioh_data.zip": IOH_DATA.read_bytes()})
    src = read_source(outer)
    assert not src.problems
    assert "ioh_data.zip/IOHprofiler_f1_Sphere.info" in src.files
    st = Store(tmp_path / "st", create=True)
    summary = ingest([outer], st)
    assert not summary.problems and st.runs().collect().height == 8


def test_a_zip_inside_a_zip_inside_a_zip_is_named_not_opened(tmp_path):
    """Nesting is bounded: an archive in an archive is read, one more level down is named in one line."""
    inner = _zip_of(tmp_path / "inner.zip", {"ioh_data.zip": IOH_DATA.read_bytes()})
    outer = _zip_of(tmp_path / "outer.zip", {"a/inner.zip": inner.read_bytes()})
    src = read_source(outer)
    assert not src.files
    (p,) = src.problems
    assert p[0] == "a/inner.zip/ioh_data.zip" and "archive inside an archive inside" in p[2] and "not opened" in p[3]


def test_an_unreadable_zip_inside_a_zip_is_named_and_the_rest_read(tmp_path):
    outer = _zip_of(tmp_path / "outer.zip", {"broken.zip": b"PK\x05\x06 not a zip", "ioh_data.zip": IOH_DATA.read_bytes()})
    src = read_source(outer)
    (p,) = src.problems
    assert p[0] == "broken.zip" and "unreadable archive inside the archive" in p[2]
    assert "ioh_data.zip/IOHprofiler_f0_Name.info" in src.files


def test_a_zip_bomb_inside_a_zip_counts_against_the_outer_archives_cap(tmp_path):
    """The inner archive's expansion is the outer one's: 40 MB of zeros (a 40 kB inner zip, zipped again) are
    beyond 3 times the outer zip's size and are refused naming the outer archive and the inner member."""
    from pipeline.ingest.sources import Limits, SourceError

    inner = _zip_of(tmp_path / "inner.zip", {"exp/data_f1/bbobexp_f1_DIM2.dat": bytes(40 << 20)})
    outer = _zip_of(tmp_path / "outer.zip", {"inner.zip": inner.read_bytes()}, compress=0)
    with pytest.raises(SourceError) as e:
        read_source(outer, Limits(ratio=3.0, floor=0))
    assert str(outer) in str(e.value) and "inner.zip" in str(e.value) and "--max-ratio" in str(e.value)
