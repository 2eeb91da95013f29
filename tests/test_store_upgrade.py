"""A store of the earlier layout (hive-partitioned Parquet files listed by the manifest cocopipe-store.json,
cocopipe before the Delta store), written here by hand as docs/store.md described it: every command names
it in one line, and `cocopipe upgrade` makes it a Delta store keeping every source, row for row."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import polars as pl
import pyarrow.parquet as pq
import pytest

from logs import write_new2
from pipeline.ingest import _parse_all, read_source
from pipeline.store import Store
from pipeline.store.check import check


def cli(*args):
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *map(str, args)], capture_output=True, text=True)


def source(root: Path, alg: str, instances=(1, 2)) -> Path:
    return write_new2(root, alg=alg, runs=[{"instance": i, "dat": [(1, 5.0 * i), (4, 0.5)]} for i in instances])


def old_store(folder: Path, sources: list[Path], version: int = 2) -> dict[str, dict[str, pl.DataFrame]]:
    """Write the earlier layout: per source and table one file `TABLE/suite=S/algorithm=A/<source_id>.parquet`
    (partition columns in the folder names, percent-encoded, not in the file) and the manifest; version 1
    keys the sources by base name. Returns the tables of each source by its key in the new store."""
    folder.mkdir(parents=True)
    entries, tables = {}, {}
    for path in sources:
        src = read_source(path)
        parsed = _parse_all(src, None)
        files = []
        for table, df in (("runs", parsed.runs), ("events", parsed.events)):
            for (suite, alg), part in df.group_by("suite", "algorithm"):
                rel = f"{table}/suite={quote(suite, safe=' -_.~')}/algorithm={quote(alg, safe=' -_.~')}/{src.source_id}.parquet"
                (folder / rel).parent.mkdir(parents=True, exist_ok=True)
                pq.write_table(part.drop("suite", "algorithm").to_arrow(), folder / rel)
                files.append(rel)
        entry = {"name": src.name, "path": src.path, "source_id": src.source_id, "files": files,
                 "runs": parsed.runs.height, "events": parsed.events.height, "suites": ["bbob"],
                 "algorithms": sorted(parsed.runs["algorithm"].unique()), "ingested": "2025-01-01T00:00:00"}
        entries[src.name if version == 1 else src.path] = entry
        tables[src.path] = {"runs": parsed.runs, "events": parsed.events}
    manifest = {"format": "cocopipe-store", "schema_versions": {"runs": "1.1.0", "events": "1.0.0"}, "sources": entries}
    if version == 2:
        manifest["manifest_version"] = 2
    (folder / "cocopipe-store.json").write_text(json.dumps(manifest, indent=1))
    return tables


def same(a: pl.DataFrame, b: pl.DataFrame) -> bool:
    cols = [c for c in a.columns if c in b.columns]
    return a.select(cols).sort(cols).equals(b.select(cols).sort(cols))


@pytest.mark.parametrize("version", [2, 1])
def test_every_command_names_the_earlier_layout_and_upgrade_keeps_every_source(tmp_path, version):
    store = tmp_path / "st"
    want = old_store(store, [source(tmp_path / "x" / "A", "A"), source(tmp_path / "y" / "B", "DE F=0.5", (1, 2, 3))],
                     version)
    for args in (("art",), ("runs",), ("check",), ("query", "SELECT 1"), ("ingest", tmp_path / "x" / "A")):
        r = cli(*args, "--store", store)
        assert r.returncode == 1 and "Traceback" not in r.stderr, (args, r.stderr)
        assert len(r.stderr.strip().splitlines()) == 1, r.stderr
        assert all(w in r.stderr for w in (str(store), "earlier layout", f"cocopipe upgrade --store {store}")), r.stderr
    r = cli("upgrade", "--store", store)
    assert r.returncode == 0, r.stderr
    st = Store(store)
    assert sorted(st.sources()) == sorted(want)  # keyed by full path, version 1 too
    for key, tables in want.items():
        cid = st.sources()[key]["commit_id"]
        assert st.sources()[key]["runs"] == tables["runs"].height
        runs = st.runs().filter(pl.col("source_id") == st.sources()[key]["source_id"]).collect()
        assert same(runs, tables["runs"]), key
        events = st.scan("events", commits=True).filter(pl.col("commit_id") == cid).collect()
        assert same(events, tables["events"]), key
    assert sorted(st.runs().collect()["algorithm"].unique()) == ["A", "DE F=0.5"]
    assert check(st) == [] and cli("art", "--store", store).returncode == 0
    assert (store / "layout-v2-backup" / "cocopipe-store.json").is_file()
    r = cli("ingest", tmp_path / "x" / "A", "--store", store)  # known by its path: unchanged
    assert r.returncode == 0 and "unchanged" in r.stderr, r.stderr


@pytest.mark.parametrize("damage", ["missing", "unreadable"])
def test_upgrade_keeps_what_reads_and_names_each_file_it_could_not_read(tmp_path, damage):
    """Files the manifest lists that are gone or cut: the upgrade keeps every other row, names each such file
    (it stays in the backup folder) and exits 1; a source left with no readable runs is named, not stored."""
    store = tmp_path / "st"
    old_store(store, [source(tmp_path / "A", "A"), source(tmp_path / "B", "B"), source(tmp_path / "C", "C")])
    events_a = next((store / "events").rglob("algorithm=A/*.parquet"))
    runs_c = next((store / "runs").rglob("algorithm=C/*.parquet"))
    for f in (events_a, runs_c):
        f.unlink() if damage == "missing" else f.write_bytes(f.read_bytes()[:50])
    r = cli("upgrade", "--store", store)
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    text = " ".join(r.stderr.split())
    for f in (events_a, runs_c):
        assert f"lost: {f.relative_to(store).as_posix()}: {'listed by' if damage == 'missing' else 'unreadable'}" in text
    assert f"source {(tmp_path / 'C').resolve()}: no file of its runs readable" in text, text
    assert r.stderr.strip().splitlines()[-1].startswith("error:") and "3 lost (named above)" in r.stderr.splitlines()[-1]
    st = Store(store)
    assert sorted(e["name"] for e in st.sources().values()) == ["A", "B"]
    assert st.runs().collect().height == 4 and st.events().collect()["algorithm"].unique().to_list() == ["B"]
    assert check(st) == []
    if damage == "unreadable":
        assert (store / "layout-v2-backup" / runs_c.relative_to(store)).is_file()


def test_an_upgrade_that_fails_leaves_the_earlier_store_as_it_was(tmp_path):
    store = tmp_path / "st"
    old_store(store, [source(tmp_path / "A", "A")])
    manifest = store / "cocopipe-store.json"
    manifest.write_text(manifest.read_text()[:60])
    before = sorted(p.relative_to(store).as_posix() for p in store.rglob("*"))
    r = cli("upgrade", "--store", store)
    assert r.returncode == 1 and "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "cocopipe-store.json" in r.stderr and "left as it was" in r.stderr, r.stderr
    assert sorted(p.relative_to(store).as_posix() for p in store.rglob("*")) == before
