"""A damaged or read-only store: one-line errors naming the file, never a traceback; reading a
read-only store works; `cocopipe check` finds what is wrong and `--repair` keeps what is readable."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import polars as pl
import pytest

from logs import as_runs_1_0_0, write_new2
from pipeline.ingest import ingest
from pipeline.store import SourceData, Store
from pipeline.store.check import check, repair


def cli(*args, prefix=()):
    return subprocess.run([*prefix, sys.executable, "-m", "pipeline.cli", *map(str, args)], capture_output=True,
                          text=True)


def source(root: Path, alg: str, functions=(1, 2)) -> Path:
    for f in functions:
        write_new2(root, alg=alg, function=f, runs=[{"instance": i, "dat": [(1, 5.0 * i), (4, 0.5)]} for i in (1, 2)],
                   info_name=f"bbobexp_f{f}.info")
    return root


def two_sources(tmp_path: Path) -> Store:
    st = Store(tmp_path / "st", create=True)
    ingest([source(tmp_path / "A", "A"), source(tmp_path / "B", "B")], st)
    return st


def one_line_error(r, *names: str) -> None:
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    text = " ".join(" ".join(lines).split())
    assert text.startswith("error:") and all(n in text for n in names), r.stderr


def test_a_truncated_parquet_file_is_named_and_repair_keeps_the_rest(tmp_path):
    st = two_sources(tmp_path)
    bad = next((st.path / "runs").rglob("algorithm=A/*.parquet"))
    bad.write_bytes(bad.read_bytes()[:200])
    rel = bad.relative_to(st.path).as_posix()
    for cmd in ("art", "ecdf", "runs"):
        one_line_error(cli(cmd, "--store", st.path), bad.name)
    r = cli("check", "--store", st.path)
    assert r.returncode == 1 and f"corrupt: {st.path}/{rel}: unreadable Parquet" in " ".join(r.stdout.split()), r.stdout
    assert "--repair" in r.stderr
    r = cli("check", "--store", st.path, "--repair")
    assert r.returncode == 0, r.stdout + r.stderr
    text = " ".join(r.stdout.split())
    assert f"{rel}: unreadable" in text and f"moved to quarantine/{rel}" in text, text
    assert f"source {(tmp_path / 'A').resolve()}: no run left readable; removed" in text, text
    assert check(st.path) == [] and (st.path / "quarantine" / rel).is_file()
    st = Store(st.path)
    assert [e["name"] for e in st.sources().values()] == ["B"]
    assert st.runs().collect()["algorithm"].unique().to_list() == ["B"] and st.events().collect().height == 8
    assert cli("art", "--store", st.path).returncode == 0
    assert cli("ingest", tmp_path / "A", "--store", st.path).returncode == 0  # ingested again: whole
    assert Store(st.path).runs().collect().height == 8 and check(st.path) == []


def test_a_source_counting_other_runs_than_its_rows_is_found_and_recounted(tmp_path):
    st = two_sources(tmp_path)
    key_a = next(k for k, e in st.sources().items() if e["name"] == "A")

    def miscount(df: pl.DataFrame) -> pl.DataFrame:
        entries = [json.dumps(dict(json.loads(e), runs=5)) if k == key_a else e for k, e in df.select("key", "entry").rows()]
        return df.with_columns(entry=pl.Series(entries, dtype=df.schema["entry"]))

    st.rewrite_sources(miscount)
    assert [(f.kind, str(f)) for f in check(st.path)] == [("count", f"sources: source {key_a}: counts 5 runs, the runs "
                                                                    "table holds 4")]
    r = cli("check", "--store", st.path)
    assert r.returncode == 1 and "count: " in r.stdout, r.stdout
    done, left = repair(st.path)
    assert left == [] and done == [f"source {key_a}: 1 run lost with its files; it now counts 4"], done
    assert all(e["runs"] == 4 for e in Store(st.path).sources().values())


def test_a_file_lost_from_a_partition_is_named_and_repair_recounts_the_source(tmp_path):
    """A source with two functions of A, one of them a file of its own (two ingests): its file deleted by
    hand, check names it, repair drops it from its table and makes the source count what is left."""
    st = Store(tmp_path / "st", create=True)
    ingest([source(tmp_path / "A", "A", functions=(1,)), source(tmp_path / "B", "B")], st)
    source(tmp_path / "A", "A", functions=(2,))
    files = set((st.path / "runs").rglob("*.parquet"))
    ingest([tmp_path / "A"], st)  # A again, now with f1 and f2: one runs file per partition
    gone = next(iter(set((st.path / "runs").rglob("algorithm=A/*.parquet")) - files))
    gone.unlink()
    rel = gone.relative_to(st.path).as_posix()
    assert [(f.kind, f.path) for f in check(st.path)] == [("missing", rel)]
    done, left = repair(st.path)
    assert left == [] and done[0] == f"{rel}: missing; dropped from its table", done
    assert any("no run left readable" in line for line in done), done
    assert [e["name"] for e in Store(st.path).sources().values()] == ["B"]


def _read_only(path: Path) -> tuple[str, ...]:
    """A command prefix under which `path` cannot be written: root without the capabilities that
    bypass file permissions (setpriv), else the permissions alone."""
    for p in [path, *path.rglob("*")]:
        p.chmod(p.stat().st_mode & ~0o222)
    if os.geteuid() != 0:
        return ()
    if not shutil.which("setpriv"):
        pytest.skip("root without setpriv: cannot make a store read-only")
    return ("setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner,-linux_immutable", "--")


def test_a_read_only_store_is_read_and_writing_it_is_one_line(tmp_path):
    base = Path(tempfile.mkdtemp(prefix="cocopipe-ro-"))  # outside pytest's private tmp folders
    try:
        st = two_sources(base)
        Store(st.path).stage(SourceData("C", "c", "/c", {"runs": st.runs().collect().head(1)}))  # a killed write
        os.chmod(base, 0o755)
        ro = _read_only(st.path)
        for args in (("runs", "--out", "-"), ("info",), ("art",), ("ecdf",), ("query", "SELECT COUNT(*) AS n FROM runs")):
            r = cli(*args, "--store", st.path, prefix=ro)
            assert r.returncode == 0 and "Traceback" not in r.stderr, (args, r.stderr)
        r = cli("check", "--store", st.path, prefix=ro)
        assert r.returncode == 0 and "Traceback" not in r.stderr, r.stdout + r.stderr
        assert Store(st.path).runs().collect().height == 8  # the killed write's row is not read
        r = cli("ingest", base / "A", "--store", st.path, "--force", prefix=ro)
        # delta-rs's I/O thread panics ("Already shut down") after the refused write, and Rust prints that
        # before the error reaches Python: that is delta-rs's; the one line after it is ours
        assert "Traceback" not in r.stderr and "error:" in r.stderr, r.stderr
        r.stderr = r.stderr[r.stderr.index("error:"):]
        one_line_error(r, str(st.path), "cannot write to the store", "Permission denied", "left as it was")
        r = cli("check", "--store", st.path, "--repair", prefix=ro)  # nothing to repair: nothing written
        assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
        assert Store(st.path).runs().collect().height == 8 and check(st.path) == []
    finally:
        for p in [base, *base.rglob("*")]:
            p.chmod(p.stat().st_mode | 0o700)
        shutil.rmtree(base)


def test_files_of_an_older_minor_schema_version_are_consistent(tmp_path):
    """Files written before columns were added (runs 1.0.0: no maximize, function_name,
    inconsistent_records) are read with those columns' defaults: `check` finds nothing wrong."""
    st = two_sources(tmp_path)
    as_runs_1_0_0(st.path)
    assert check(st.path) == []


def _age(folder: Path, seconds: float) -> None:
    """Make the files of a folder `seconds` older."""
    for f in folder.iterdir():
        t = f.stat().st_mtime - seconds
        os.utime(f, (t, t))


def test_a_cache_folder_keeps_its_per_commit_files_until_grace_after_their_commit_went(tmp_path):
    """The store knows no cache's layout: a folder `cache_dir(name)` whose files are named by commit id
    loses a file GRACE seconds after its commit went (the source replaced or removed), whatever the cache's
    name: a reader that opened its snapshot before still reads it meanwhile."""
    from pipeline.store.store import GRACE

    st = two_sources(tmp_path)
    commits = {e["name"]: e["commit_id"] for e in st.sources().values()}
    folder = st.cache_dir("any-cache")
    folder.mkdir(parents=True)
    for cid in commits.values():
        (folder / f"{cid}.parquet").write_bytes(b"computed from the commit")
    (folder / ".left-by-a-killed-writer.tmp").write_bytes(b"")
    _age(folder, 2 * GRACE)  # files written long ago: the drop, not the writing, starts the grace
    assert st.cache_dirs() == [folder] and check(st.path) == []
    st.remove_source(next(k for k, e in st.sources().items() if e["name"] == "A"))
    assert sorted(p.stem for p in folder.glob("*.parquet")) == sorted(commits.values())  # A's in its grace
    _age(folder, GRACE + 1)
    source(tmp_path / "B", "B", functions=(3,))
    ingest([tmp_path / "B"], st)  # B replaced: its commit goes; A's file and the leftover are past their grace
    assert sorted(p.name for p in folder.iterdir()) == [f"{commits['B']}.parquet"] and check(st.path) == []
    _age(folder, GRACE + 1)
    assert repair(st.path) is not None and not list(folder.iterdir())
