"""Bad input: every problem is reported with its file (and line), everything readable is kept."""
from __future__ import annotations

import subprocess
import sys

import polars as pl
import pytest

from logs import write_new2
from pipeline.ingest import ingest, parse_source, read_source
from pipeline.ingest.sources import SourceError
from pipeline.store import Store

TWO_RUNS = [{"instance": 1, "dat": [(1, 5.0), (3, 2.0), (7, 0.5)]}, {"instance": 2, "dat": [(1, 4.0), (5, 1.0)]}]


def cli(*args):
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *map(str, args)], capture_output=True, text=True)


def dat_path(root):
    return root / "data_f1" / "bbobexp_f1_DIM2.dat"


def test_truncated_last_record(tmp_path):
    root = write_new2(tmp_path / "A", runs=TWO_RUNS)
    p = dat_path(root)
    p.write_text(p.read_text().rstrip("\n")[:-40])  # cut in the middle of the last line
    res = parse_source(read_source(root))
    msgs = [str(x) for x in res.problems]
    assert any("bbobexp_f1_DIM2.dat:7" in m and "malformed or truncated" in m for m in msgs), msgs
    assert res.runs.height == 2  # both runs kept, the second from its readable records (and the .tdat)


def test_garbage_line_is_skipped_and_named(tmp_path):
    root = write_new2(tmp_path / "A", runs=TWO_RUNS)
    p = dat_path(root)
    lines = p.read_text().splitlines()
    lines.insert(2, "this is not a record")
    p.write_text("\n".join(lines) + "\n")
    res = parse_source(read_source(root))
    assert [(x.file.endswith(".dat"), x.line) for x in res.problems] == [(True, 3)]
    assert res.runs.height == 2
    ev = res.events.filter(pl.col("run_id") == res.runs.sort("trial")["run_id"][0])
    assert ev["evaluations"].sort().to_list() == [1, 3, 7]


def test_records_before_the_first_header_are_named(tmp_path):
    root = write_new2(tmp_path / "A", runs=TWO_RUNS)
    p = dat_path(root)
    p.write_text("1 0 +5.0e+00 +1.5e+01 +1.5e+01 +0.0e+00 +0.0e+00\n" + p.read_text())
    res = parse_source(read_source(root))
    assert [str(x) for x in res.problems] == [
        f"{p.relative_to(root).as_posix()}:1: data before any header (line skipped)"]
    assert res.runs.sort("trial")["evaluations"].to_list() == [7, 5]


def test_nan_precision_is_reported(tmp_path):
    root = write_new2(tmp_path / "A", runs=TWO_RUNS)
    p = dat_path(root)
    p.write_text(p.read_text().replace("+2.000000000e+00", "nan", 1))
    res = parse_source(read_source(root))
    assert len(res.problems) == 1 and res.problems[0].line == 3
    assert res.runs.height == 2


def test_missing_data_file(tmp_path):
    root = write_new2(tmp_path / "A", runs=TWO_RUNS)
    write_new2(root, function=2, runs=TWO_RUNS, info_name="bbobexp_f2.info")
    (root / "data_f2" / "bbobexp_f2_DIM2.dat").unlink()
    (root / "data_f2" / "bbobexp_f2_DIM2.tdat").unlink()
    res = parse_source(read_source(root))
    assert any("bbobexp_f2.info:3" in str(x) and "not found" in str(x) and "2 runs" in str(x) for x in res.problems)
    assert res.runs["function"].unique().to_list() == [1]
    assert res.runs_skipped == 2  # the runs the entry announces count as skipped in the summary


def test_unreadable_run_entries_count_as_skipped(tmp_path):
    root = write_new2(tmp_path / "A", runs=TWO_RUNS)
    info = root / "bbobexp_f1.info"
    info.write_text(info.read_text().replace("bbobexp_f1_DIM2.dat, ", "bbobexp_f1_DIM2.dat, x:y:z, ", 1))
    res = parse_source(read_source(root))
    assert any("unreadable run entry 'x:y:z'" in str(x) for x in res.problems), res.problems
    assert res.runs.height == 2 and res.runs_skipped == 1


def test_run_without_records(tmp_path):
    root = write_new2(tmp_path / "A", runs=TWO_RUNS)
    for ext in (".dat", ".tdat"):  # keep only the first run's section
        p = dat_path(root).with_suffix(ext)
        text = p.read_text()
        p.write_text(text[: text.index("%", 1)])
    res = parse_source(read_source(root))
    assert res.runs_skipped == 1 and res.runs.height == 1
    assert any("run 2" in str(x) and "instance 2" in str(x) for x in res.problems)


def test_empty_files(tmp_path):
    root = write_new2(tmp_path / "A", runs=TWO_RUNS)
    (root / "bbobexp_f9.info").write_text("")
    res = parse_source(read_source(root))
    assert any("empty .info" in str(x) for x in res.problems) and res.runs.height == 2


def test_unknown_format_and_corrupt_archive(tmp_path):
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(SourceError, match="unknown format"):
        read_source(tmp_path / "notes.txt")
    (tmp_path / "broken.tgz").write_bytes(b"\x1f\x8b\x08\x00garbage")
    with pytest.raises(SourceError, match="corrupt"):
        read_source(tmp_path / "broken.tgz")
    r = cli("ingest", tmp_path / "broken.tgz", "--store", tmp_path / "st")
    assert r.returncode == 1 and "broken.tgz" in r.stderr and "Traceback" not in r.stderr


def test_empty_folder(tmp_path):
    (tmp_path / "empty").mkdir()
    r = cli("ingest", tmp_path / "empty", "--store", tmp_path / "st")
    assert r.returncode == 1 and "no COCO log files" in r.stderr and "Traceback" not in r.stderr


def test_strict_and_summary(tmp_path):
    root = write_new2(tmp_path / "A", runs=TWO_RUNS)
    p = dat_path(root)
    p.write_text(p.read_text().replace("+2.000000000e+00", "x", 1))
    r = cli("ingest", root, "--store", tmp_path / "st")
    assert r.returncode == 0, r.stderr
    assert "bbobexp_f1_DIM2.dat:3" in r.stderr
    assert "2 runs read (1 with bad records left out), 0 runs skipped, 1 problem" in " ".join(r.stderr.split())
    assert cli("ingest", root, "--store", tmp_path / "st2", "--strict").returncode == 1


def test_reingest_replaces_never_duplicates(tmp_path):
    root = write_new2(tmp_path / "A", runs=TWO_RUNS)
    st = Store(tmp_path / "st", create=True)
    ingest([root], st)
    assert ingest([root], st).sources[0].status == "unchanged"
    write_new2(root, function=2, runs=TWO_RUNS, info_name="bbobexp_f2.info")  # the source grows
    assert ingest([root], st).sources[0].status == "ingested"
    runs = st.runs().collect()
    assert runs.height == 4 and sorted(runs["function"].to_list()) == [1, 1, 2, 2]
    assert len(st.sources()) == 1
    from pipeline.store.store import commits_in

    named = {e["commit_id"] for e in st.sources().values()}  # the earlier version's rows are deleted, not only hidden
    assert all(commits_in(Store(st.path).snapshot.tables[t]) == named for t in ("runs", "events"))


def test_interrupted_write_leaves_previous_store_intact(tmp_path, monkeypatch):
    """Interrupted at the point of visibility (the `sources` commit), after the new version's rows were
    appended: the store reads as before, and the rows appended are not read."""
    root = write_new2(tmp_path / "A", runs=TWO_RUNS)
    st = Store(tmp_path / "st", create=True)
    ingest([root], st)
    before = st.runs().collect().sort("run_id")
    write_new2(root, function=2, runs=TWO_RUNS, info_name="bbobexp_f2.info")

    def crash(self, *args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(Store, "_swap", crash)
    with pytest.raises(KeyboardInterrupt):
        ingest([root], st)
    monkeypatch.undo()
    after = Store(tmp_path / "st")
    assert after.runs().collect().sort("run_id").equals(before)
    assert after.events().collect().height == 5  # TWO_RUNS: 3 + 2 records, of f1 only
    assert ingest([root], after).sources[0].status == "ingested"  # and the next ingest completes
    assert Store(tmp_path / "st").runs().collect().height == 4
