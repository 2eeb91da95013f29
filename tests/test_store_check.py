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

import pytest

from logs import as_runs_1_0_0, write_new2
from pipeline.ingest import ingest
from pipeline.store import Store
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
    bad = next((st.path / "events").rglob("algorithm=A/*.parquet"))
    bad.write_bytes(bad.read_bytes()[:200])
    for cmd in ("art", "ecdf"):  # commands that read the events
        one_line_error(cli(cmd, "--store", st.path), bad.name, "check", "--repair")
    r = cli("check", "--store", st.path)
    assert r.returncode == 1 and f"corrupt: {st.path}/{bad.relative_to(st.path).as_posix()}: unreadable Parquet" in \
        " ".join(r.stdout.split()), r.stdout
    r = cli("check", "--store", st.path, "--repair")
    assert r.returncode == 0, r.stdout + r.stderr
    text = " ".join(r.stdout.split())
    assert "dropped suite=bbob/algorithm=A" in text and "no readable runs are left" in text
    assert f"re-ingest {(tmp_path / 'A').resolve()}" in text
    assert check(st.path) == []
    assert Store(st.path).runs().collect()["algorithm"].unique().to_list() == ["B"]
    assert cli("art", "--store", st.path).returncode == 0


def test_a_truncated_manifest_is_named_and_rebuilt_from_the_files(tmp_path):
    st = two_sources(tmp_path)
    manifest = st.path / "cocopipe-store.json"
    manifest.write_text(manifest.read_text()[:100])
    for cmd in ("runs", "info", "art"):
        one_line_error(cli(cmd, "--store", st.path), "cocopipe-store.json", "corrupt manifest")
    one_line_error(cli("ingest", tmp_path / "A", "--store", st.path), "cocopipe-store.json")
    assert [f.kind for f in check(st.path)] == ["manifest"]
    done, left = repair(st.path)
    assert left == [] and any("rebuilt from the files" in d for d in done)
    sources = Store(st.path).sources()
    assert sorted(e["name"] for e in sources.values()) == ["A", "B"] and all(e["runs"] == 4 for e in sources.values())
    assert cli("runs", "--store", st.path).returncode == 0
    r = cli("ingest", tmp_path / "A", "--store", st.path, "--replace", "A")  # the recovered entry is replaced
    assert r.returncode == 0, r.stderr
    assert sorted(Store(st.path).sources())[0] == str((tmp_path / "A").resolve())
    assert Store(st.path).runs().collect().height == 8 and check(st.path) == []


def test_check_finds_missing_orphaned_and_miscounted_and_repair_recovers_orphans(tmp_path):
    st = two_sources(tmp_path)
    m = json.loads((st.path / "cocopipe-store.json").read_text())
    key_a, key_b = sorted(m["sources"])
    lost = m["sources"].pop(key_b)  # B's files stay: as when a manifest lost a source
    m["sources"][key_a]["runs"] = 5
    (st.path / "cocopipe-store.json").write_text(json.dumps(m))
    gone = st.path / "runs" / "suite=bbob" / "algorithm=Z" / "0123456789abcdef.parquet"
    m["sources"][key_a]["files"].append(gone.relative_to(st.path).as_posix())
    (st.path / "cocopipe-store.json").write_text(json.dumps(m))
    found = {(f.kind, f.path) for f in check(st.path)}
    assert ("orphaned", lost["files"][0]) in found and ("missing", gone.relative_to(st.path).as_posix()) in found
    assert ("count", "cocopipe-store.json") in found
    done, left = repair(st.path)
    assert left == [], left
    sources = Store(st.path).sources()
    recovered = [e for k, e in sources.items() if k.startswith("recovered:B:")]
    assert len(recovered) == 1 and recovered[0]["runs"] == 4 and sources[key_a]["runs"] == 4
    assert Store(st.path).runs().collect().height == 8


def test_an_interrupted_commit_is_found_and_finished(tmp_path, monkeypatch):
    st = two_sources(tmp_path)
    before = st.runs().collect().sort("run_id")
    write_new2(tmp_path / "A", alg="A", function=3, runs=[{"instance": 1, "dat": [(1, 5.0)]}], info_name="bbobexp_f3.info")
    import pipeline.store.store as mod

    def crash(folder, data):
        raise SystemExit(9)  # as if killed at the commit point

    monkeypatch.setattr(mod, "write_manifest", crash)
    monkeypatch.setattr(Store, "_recover", lambda self: None)  # no roll-back in this process
    with pytest.raises(SystemExit):
        ingest([tmp_path / "A"], st)
    monkeypatch.undo()
    assert [f.kind for f in check(st.path) if f.kind == "journal"] == ["journal"]
    done, left = repair(st.path)
    assert left == [] and any("rolled back" in d for d in done)
    assert Store(st.path).runs().collect().sort("run_id").equals(before)


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
        (st.path / ".cocopipe-read.lock").unlink()  # as a store written before the lock files
        (st.path / ".cocopipe-write.lock").unlink()
        (st.path / ".stage-0123").mkdir()  # and a crashed writer's leftovers
        (st.path / ".journal.json").write_text(json.dumps({"txn": "x", "stage": ".stage-0123", "trash": ".trash-x",
                                                           "added": [], "existed": [], "removed": [], "uncache": []}))
        os.chmod(base, 0o755)
        ro = _read_only(st.path)
        for args in (("runs", "--out", "-"), ("info",), ("art",), ("ecdf",), ("query", "SELECT COUNT(*) AS n FROM runs")):
            r = cli(*args, "--store", st.path, prefix=ro)
            assert r.returncode == 0 and "Traceback" not in r.stderr, (args, r.stderr)
        r = cli("check", "--store", st.path, prefix=ro)
        assert r.returncode == 1 and "journal: " in r.stdout and "Traceback" not in r.stderr, r.stdout + r.stderr
        one_line_error(cli("ingest", base / "A", "--store", st.path, "--force", prefix=ro), str(st.path), "read-only")
        one_line_error(cli("check", "--store", st.path, "--repair", prefix=ro), "read-only")
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


def test_a_cache_folder_keeps_its_per_source_files_as_long_as_their_source(tmp_path):
    """The store knows no cache's layout: a folder `cache_dir(name)` whose files are named by source id
    loses a file with its source; a file of no stored source is found by check and goes at repair,
    whatever the cache's name; the files of its own table schema are checked against it."""
    import polars as pl
    import pyarrow.parquet as pq

    from pipeline.store import schema

    st = two_sources(tmp_path)
    ids = {e["name"]: e["source_id"] for e in st.sources().values()}
    folder = st.cache_dir("any-cache")
    folder.mkdir(parents=True)
    hits = pl.DataFrame({"run_id": [1], "target": [1.0], "hit": [3]})
    for sid in ids.values():
        pq.write_table(schema.conform("hits", hits), folder / f"{sid}.parquet")
    assert st.cache_dirs() == [folder] and check(st.path) == []
    st.remove_source(next(k for k, e in st.sources().items() if e["name"] == "A"))
    assert sorted(p.stem for p in folder.glob("*.parquet")) == [ids["B"]]
    pq.write_table(schema.conform("hits", hits), folder / "0123456789abcdef.parquet")  # of no stored source
    (folder / f"{ids['B']}.parquet").write_bytes(b"not parquet")
    found = {(f.kind, Path(f.path).stem) for f in check(st.path)}
    assert found == {("cache", "0123456789abcdef"), ("cache", ids["B"])}
    done, left = repair(st.path)
    assert left == [] and not list(folder.glob("*.parquet")) and len(done) == 2
