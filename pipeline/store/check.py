"""The manifest of a store against its files (missing, orphaned, unreadable, other schema versions,
run counts), and the repair that keeps what is readable."""
from __future__ import annotations

import os
import re
import shutil
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from . import hive, lock, manifest as mf, schema
from .errors import StoreError
from .store import DERIVED, JOURNAL, MANIFEST, Store, foreign_files, laid_out, write_journal, write_manifest
from .walk import files_named
from ..words import plural

@dataclass
class Finding:
    """One thing wrong with a store: its kind, the file (relative to the store) and what is wrong."""

    kind: str  # manifest, journal, missing, orphaned, foreign, corrupt, schema, count, cache
    path: str
    detail: str
    source: str | None = None

    def __str__(self) -> str:
        return f"{self.path}: {self.detail}"


def read_problem(path: Path, table: str | None = None, whole: bool = True) -> str | None:
    """Why a Parquet file of the store cannot be read (None: it can): its footer, its schema (the
    columns and major version of `table`) and, when `whole`, every page."""
    if path.exists() and not path.is_file():  # a FIFO or a device: never opened (the read would block)
        return "not a regular file"
    try:
        f = pq.ParquetFile(path)
        if whole:
            f.read()
    except FileNotFoundError:
        return "missing"
    except (OSError, pa.ArrowException, ValueError, EOFError) as exc:
        return f"unreadable Parquet file ({' '.join(str(exc).split())})"
    if table is None:
        return None
    want = schema.arrow_schema(table)
    got = f.schema_arrow
    # a file of an older minor version may lack columns added since, when they are nullable or have a
    # default (`schema.scan` reads them so); the others, in the schema's order and types
    defaults = {c["name"] for c in schema.spec(table)["columns"] if "default" in c}
    missing = [x for x in want if x.name not in got.names]
    if ([(x.name, _plain(x.type)) for x in got] != [(x.name, _plain(x.type)) for x in want if x.name in got.names]
            or any(not (x.nullable or x.name in defaults) for x in missing)):
        return f"not a {table} file of this schema (columns {', '.join(got.names)})"
    found = (got.metadata or {}).get(b"cocopipe.schema_version", b"").decode()
    if found.split(".")[0] != schema.version(table).split(".")[0]:
        return f"schema version {found or 'unknown'}; this cocopipe reads {schema.version(table)}"
    return None


def _plain(t: pa.DataType) -> pa.DataType:
    """A type with large strings and lists as their plain kinds (readers take either)."""
    if pa.types.is_large_string(t):
        return pa.string()
    if pa.types.is_large_list(t) or pa.types.is_list(t):
        return pa.list_(_plain(t.value_type))
    return t


def _table_of(rel: str, derived: dict) -> str | None:
    top, _, rest = rel.partition("/")
    if top in schema.TABLES:
        return top
    return derived.get(rest.partition("/")[0], {}).get("table")


def _cache_files(files: list[str], derived: dict) -> list[str]:
    """The files of caches among the files under derived/ (`Store.cache_dir`: directly in a folder
    that holds no derived table)."""
    return [f for f in files if f.count("/") == 2 and f.split("/")[1] not in derived]


def _recorded_table(path: Path) -> str | None:
    """The table of the store's schemas that a file says it holds (its `cocopipe.table` metadata)."""
    try:
        name = ((pq.read_schema(path).metadata or {}).get(b"cocopipe.table") or b"").decode()
    except (OSError, pa.ArrowException, ValueError, UnicodeDecodeError):
        return None
    return name if name.isidentifier() and (schema.schema_dir() / f"{name}.json").is_file() else None


def _cache_problem(root: Path, f: str, ids: set) -> str | None:
    """What is wrong with a cache file: unreadable, not of its table's schema, or of no stored source."""
    return read_problem(root / f, _recorded_table(root / f)) or (
        None if Path(f).stem in ids else "cache file of no stored source")


def _parquet_files(root: Path, top: str) -> list[str]:
    """The Parquet files under a folder of the store (relative, POSIX), hidden ones aside, and in a
    table's folder only those in its partition folders (the others are `foreign_files`)."""
    base = root / top
    if not base.is_dir():
        return []
    found = sorted(p.relative_to(root).as_posix() for p in files_named(base, ".parquet")
                   if not any(part.startswith(".") for part in p.relative_to(root).parts))
    if top not in schema.TABLES:
        return found
    foreign = tuple(foreign_files(root, top))
    return [f for f in found if f not in foreign and not f.startswith(tuple(x + "/" for x in foreign))]


def unreadable(root: Path) -> list[Finding]:
    """The data files of the store that cannot be read (footers first, then every page)."""
    root = Path(root)
    files = [f for top in (*schema.TABLES, DERIVED) for f in _parquet_files(root, top)]
    for whole in (False, True):
        bad = [Finding("corrupt", f, p) for f in files if (p := read_problem(root / f, None, whole))]
        if bad:
            return bad
    return []


def _manifest(root: Path) -> tuple[dict | None, Finding | None]:
    if (root / MANIFEST).exists() and not (root / MANIFEST).is_file():  # a FIFO would block the read
        return None, Finding("manifest", MANIFEST, "not a regular file")
    try:
        return mf.parse((root / MANIFEST).read_text(encoding="utf-8"), root / MANIFEST), None
    except FileNotFoundError:
        if laid_out(root):  # deleted by hand beside the files: rebuilt from them by repair
            return None, Finding("manifest", MANIFEST, "missing beside the store's files")
        raise StoreError(f"{root}: not a cocopipe store (no {MANIFEST})") from None
    except (StoreError, OSError, UnicodeDecodeError) as exc:
        return None, Finding("manifest", MANIFEST, str(exc).removeprefix(f"{root / MANIFEST}: ").split("; `cocopipe")[0])


def check(root: str | Path) -> list[Finding]:
    """Everything wrong with the store at `root` (an empty list: the manifest and the files agree,
    every file reads whole, and every source's files hold the runs the manifest counts)."""
    root = Path(root)
    if not root.is_dir():
        raise StoreError(f"{root}: no such folder")
    with lock.reading(root):
        return _check(root)


def _check(root: Path) -> list[Finding]:
    m, bad = _manifest(root)
    out = [bad] if bad else []
    if (root / JOURNAL).exists():
        out.append(Finding("journal", JOURNAL, "an interrupted write is not finished"))
    sources = (m or {}).get("sources", {})
    derived = (m or {}).get("derived", {})
    listed: dict[str, str] = {}
    for key, e in sources.items():
        for f in e["files"]:
            listed.setdefault(f, key)
    for d in derived.values():
        for f in d.get("files", []):
            listed.setdefault(f, "")
    data = [f for t in schema.TABLES for f in _parquet_files(root, t)]
    cached = _cache_files(_parquet_files(root, DERIVED), derived)
    others = [f for f in _parquet_files(root, DERIVED) if f not in cached]
    on_disk = set(data) | set(others)
    ids = {e.get("source_id") for e in sources.values()}
    for f, key in listed.items():
        if f not in on_disk:
            out.append(Finding("missing", f, f"listed by {'source ' + key if key else 'a derived table'}, "
                                              "but not in the store", key or None))
    if m is not None:
        out += [Finding("orphaned", f, "not listed by any source") for f in sorted(on_disk - set(listed))]
    out += [Finding("foreign", f, "not a file of the store (readers refuse the table while it is there)")
            for t in schema.TABLES for f in foreign_files(root, t)]
    unread = set()
    for f in sorted(on_disk):
        problem = read_problem(root / f, _table_of(f, derived))
        if problem:
            unread.add(f)
            out.append(Finding("schema" if "schema" in problem else "corrupt", f, problem, listed.get(f) or None))
    for f in cached:
        problem = _cache_problem(root, f, ids) if m is not None else read_problem(root / f, _recorded_table(root / f))
        if problem:
            out.append(Finding("cache", f, problem))
    for key, e in sources.items():
        runs = [f for f in e["files"] if f.startswith("runs/") and f in on_disk and f not in unread]
        held = sum(pq.ParquetFile(root / f).metadata.num_rows for f in runs)
        if isinstance(e.get("runs"), int) and held != e["runs"]:
            out.append(Finding("count", MANIFEST, f"source {key}: the manifest counts {plural(e['runs'], 'run')}, "
                                                  f"its files hold {held}", key))
    for table, v in ((m or {}).get("schema_versions") or {}).items():
        if table in schema.TABLES and str(v).split(".")[0] != schema.version(table).split(".")[0]:
            out.append(Finding("schema", MANIFEST, f"{table} written with schema version {v}; this cocopipe "
                                                   f"reads {schema.version(table)}: re-ingest the sources"))
    return out


# -- repair ------------------------------------------------------------------------------------
def _partition(rel: str) -> str:
    """The partition folders of a table file (`suite=.../algorithm=...`)."""
    return "/".join(rel.split("/")[1:-1])


def _meta(root: Path, files: list[str], keep: dict) -> dict:
    """A source's manifest fields recomputed from its files (`keep`: the fields carried over)."""
    runs = [pq.read_table(root / f, columns=["data_format", "coco_version", "source"]) for f in files
            if f.startswith("runs/")]
    parts = [dict(seg.split("=", 1) for seg in _partition(f).split("/")) for f in files if f.startswith("runs/")]
    col = lambda name: sorted({v for t in runs for v in t.column(name).to_pylist() if v})  # noqa: E731
    out = dict(keep, files=files, runs=sum(t.num_rows for t in runs),
               events=sum(pq.ParquetFile(root / f).metadata.num_rows for f in files if f.startswith("events/")),
               suites=sorted({hive.decode(p["suite"]) for p in parts}),
               algorithms=sorted({hive.decode(p["algorithm"]) for p in parts}),
               data_formats=col("data_format"), coco_versions=col("coco_version"))
    archive = sum(pq.ParquetFile(root / f).metadata.num_rows for f in files if f.startswith("archive/"))
    out.pop("archive", None)
    if archive:
        out["archive"] = archive
    if not out.get("name"):
        out["name"] = (col("source") or ["?"])[0]
    return out


def repair(root: str | Path, wait: float = 0, on_wait: Callable[[str], None] | None = None
           ) -> tuple[list[str], list[Finding]]:
    """Repair the store under its writer lock, keeping what is readable: an interrupted write is
    finished or rolled back, left-over staging folders go, a corrupt manifest is rebuilt from the
    files, a source loses the partitions whose files are missing or unreadable (all of it when no
    runs are left), orphaned files become recovered sources (or go, when their source is listed),
    the counts are recomputed, stale or corrupt cached hits go, and so does a derived table with a
    missing or unreadable file. Returns what was done and what is still wrong."""
    root = Path(root)
    if not (root / MANIFEST).exists() and not laid_out(root):
        raise StoreError(f"{root}: not a cocopipe store (no {MANIFEST})")
    done: list[str] = []
    with lock.writer(root, wait, on_wait), lock.committing(root, on_wait):
        m, bad = _manifest(root)
        if m is not None:
            st = Store(root)
            st._prepare_write()
            done += st.notices
            m = st.manifest
        else:  # no manifest to tell an interrupted commit by: the files on disk decide
            (root / JOURNAL).unlink(missing_ok=True)
            for p in [*root.glob(".stage-*"), *root.glob(".trash-*")]:
                shutil.rmtree(p, ignore_errors=True)
            m = mf.empty({t: schema.version(t) for t in schema.TABLES})
            done.append(f"{MANIFEST}: rebuilt from the files ({bad.detail})")
        doomed: list[str] = []
        _repair_sources(root, m, done, doomed)
        _repair_derived(root, m, done, doomed)
        _commit(root, m, doomed)
    return done, check(root)


def _commit(root: Path, m: dict, doomed: list[str]) -> None:
    """Replace the manifest by the repaired one, then delete the files it no longer lists, under a
    journal (as `Store` commits): killed at any moment, the store is the one before or after the repair."""
    txn = uuid.uuid4().hex
    journal = {"txn": txn, "stage": f".stage-{txn}", "trash": f".trash-{txn}", "added": [], "existed": [],
               "removed": sorted(set(doomed)), "uncache": []}
    write_journal(root, journal)
    write_manifest(root, dict(m, manifest_version=mf.VERSION, txn=txn))  # the commit point
    Store(root)._finish(journal)
    for table in schema.TABLES:
        Store.prune(root, table)


#: where `check --repair` moves what the store did not write, rather than delete it
QUARANTINE = "quarantine"


def _written_by_store(root: Path, f: str, listed: set[str]) -> bool:
    """Whether the store wrote the file: its manifest lists it, or it has a store file's name
    (`<source_id>.parquet`, a derived table's `part.parquet`) and says which table of the store it holds."""
    if f in listed:
        return True
    name = Path(f).name
    ours = re.fullmatch(r"[0-9a-f]{8,64}\.parquet", name) or (f.startswith(DERIVED + "/") and name == "part.parquet")
    return bool(ours) and _recorded_table(root / f) is not None


def _set_aside(root: Path, f: str, why: str, done: list[str]) -> None:
    """Move a file or folder the store did not write into the quarantine folder, and say so."""
    dst = root / QUARANTINE / f
    n = 1
    while dst.exists() or dst.is_symlink():
        n += 1
        dst = root / QUARANTINE / f"{f}.{n}"
    dst.parent.mkdir(parents=True, exist_ok=True)
    os.replace(root / f, dst)
    done.append(f"{f}: moved aside to {dst.relative_to(root).as_posix()} ({why}; the store did not write it)")


def _unlink(root: Path, f: str, why: str, done: list[str], listed: set[str], doomed: list[str]) -> None:
    """Delete a file the store wrote (with the repair's commit: into `doomed`); move aside one it did not
    (`_set_aside`, at once)."""
    if not (root / f).exists():
        return
    if not _written_by_store(root, f, listed):
        _set_aside(root, f, why, done)
        return
    doomed.append(f)
    done.append(f"{f}: deleted ({why})")


def _listed(m: dict) -> set[str]:
    """Every file a manifest lists (its sources' and derived tables')."""
    return ({f for e in m["sources"].values() for f in e["files"]}
            | {f for d in m.get("derived", {}).values() for f in d.get("files", [])})


def _repair_sources(root: Path, m: dict, done: list[str], doomed: list[str]) -> None:
    sources = m["sources"]
    derived = m.get("derived", {})
    written = _listed(m)
    for t in schema.TABLES:
        for f in list(foreign_files(root, t)):
            _set_aside(root, f, f"not a file of the {t} table", done)
    data = [f for t in schema.TABLES for f in _parquet_files(root, t)]
    bad = {f for f in data if read_problem(root / f, _table_of(f, derived))}
    usable = set(data) - bad

    def whole_partitions(files: list[str]) -> list[str]:
        """The files of the partitions in which every file of `files` is there and readable."""
        broken = {_partition(f) for f in files if f not in usable}
        return [f for f in files if _partition(f) not in broken]

    dropped: set[str] = set()
    for key, e in list(sources.items()):
        keep = whole_partitions(e["files"])
        dropped.update(set(e["files"]) - set(keep))
        runs = [f for f in keep if f.startswith("runs/")]
        held = sum(pq.ParquetFile(root / f).metadata.num_rows for f in runs)
        if keep == e["files"] and held == e.get("runs", held):
            continue
        for part in sorted({_partition(f) for f in e["files"]} - {_partition(f) for f in keep}):
            done.append(f"source {key}: dropped {part} (a file of it is missing or unreadable)")
        if not runs:
            del sources[key]
            done.append(f"source {key}: dropped, no readable runs are left"
                        + (f" (re-ingest {e['path']} to restore it)" if e.get("path") else ""))
        else:
            sources[key] = _meta(root, keep, e)
            if held != e.get("runs", held):
                done.append(f"source {key}: counts recomputed from its files ({e.get('runs')} -> {plural(held, 'run')})")
    listed = {f for e in sources.values() for f in e["files"]}
    ids = {e.get("source_id") for e in sources.values()}
    for f in sorted(dropped - listed):
        _unlink(root, f, "unreadable" if f in bad else "its partition is incomplete", done, written, doomed)
    orphans: dict[str, list[str]] = {}
    for f in sorted(set(data) - listed - dropped):
        orphans.setdefault(Path(f).stem, []).append(f)
    for sid, files in orphans.items():
        keep = whole_partitions(files)
        if sid in ids or not any(f.startswith("runs/") for f in keep):
            for f in files:
                _unlink(root, f, "unreadable" if f in bad else "no source lists it", done, written, doomed)
            continue
        entry = _meta(root, keep, {"source_id": sid, "path": None})
        key = f"recovered:{entry['name']}:{sid}"
        sources[key] = entry
        done.append(f"source {key}: recovered from {plural(len(keep), 'file')} no source listed "
                    f"({plural(entry['runs'], 'run')})")
        for f in sorted(set(files) - set(keep)):
            _unlink(root, f, "its partition is incomplete", done, written, doomed)


def _repair_derived(root: Path, m: dict, done: list[str], doomed: list[str]) -> None:
    derived = m.get("derived", {})
    ids = {e.get("source_id") for e in m["sources"].values()}
    written = _listed(m)
    files = _parquet_files(root, DERIVED)
    cached = set(_cache_files(files, derived))
    for f in files:
        name = f.split("/")[1]
        if f in cached:
            if problem := _cache_problem(root, f, ids):
                _unlink(root, f, problem, done, written, doomed)
        elif name not in derived or f not in derived[name].get("files", []):
            _unlink(root, f, "no derived table lists it", done, written, doomed)
    for name, d in list(derived.items()):
        problems = [f for f in d.get("files", []) if read_problem(root / f, d.get("table"))]
        if problems:
            for f in _parquet_files(root, f"{DERIVED}/{name}"):
                _unlink(root, f, f"its derived table {name} is dropped", [], written, doomed)
            del derived[name]
            done.append(f"derived table {name}: dropped ({problems[0]} is missing or unreadable); compute it again")
