"""A store's tables against their files (missing, unreadable, of another schema), every source's run count,
the rows of writes that never committed; and the repair that keeps what is readable (docs/store.md)."""
from __future__ import annotations

import functools
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.fs  # noqa: F401 - pa.fs
import pyarrow.parquet as pq

from . import remote, schema, writes
from .store import _adds, COMMIT, DERIVED, GRACE, SOURCES, Store, _commits_in, commit_age, file_paths, open_table
from ..words import plural

#: where repair moves the files it takes out of a local store
QUARANTINE = "quarantine"


@dataclass
class Finding:
    """One thing wrong with a store: its kind, the file or table (relative to the store) and what is wrong."""

    kind: str  # missing, corrupt, schema, count, uncommitted
    path: str
    detail: str
    source: str | None = None

    def __str__(self) -> str:
        return f"{self.path}: {self.detail}"


def _files(store: Store, table: str) -> list[str]:
    """The data files the snapshot's version of a table lists, as paths or URIs."""
    dt = store.table(table)
    return file_paths(dt) if dt is not None else []


@functools.lru_cache(maxsize=16)
def _bucket(uri: str):
    """The pyarrow file system of an object-storage URI's bucket."""
    return remote.filesystem(uri)[0]


def _remote(uri: str):
    """The file system and the object's path of a file URI of a Delta table on object storage, its key taken
    as it is (`FileSystem.from_uri` decodes `%20`: the key of the partition folder `algorithm=DE%20F`)."""
    scheme, rest = uri.split("://", 1)
    return _bucket(f"{scheme}://{rest.split('/', 1)[0]}"), rest


def _exists(uri: str) -> bool:
    if "://" not in uri:
        return os.path.isfile(uri)
    fs, path = _remote(uri)
    return fs.get_file_info(path).type == pa.fs.FileType.File


def read_problem(uri: str, whole: bool = True) -> str | None:
    """Why a Parquet file of the store cannot be read (None: it can): its footer and, when `whole`, every page."""
    if "://" not in uri and os.path.exists(uri) and not os.path.isfile(uri):
        return "not a regular file"  # a FIFO or a device: never opened (the read would block)
    try:
        if "://" in uri:
            fs, path = _remote(uri)
            with fs.open_input_file(path) as fh:
                f = pq.ParquetFile(fh)
                if whole:
                    f.read()
        else:
            f = pq.ParquetFile(uri)
            if whole:
                f.read()
    except FileNotFoundError:
        return "missing"
    except (OSError, pa.ArrowException, ValueError, EOFError) as exc:
        return f"unreadable Parquet file ({' '.join(str(exc).split())[:300]})"
    return None


def _tables(store: Store) -> list[tuple[str, str]]:
    """(name in the store, table schema) of every data table of the snapshot, derived ones included."""
    derived = store.derived()
    return [(t, t) for t in schema.TABLES] + [(f"{DERIVED}/{n}", d["table"]) for n, d in derived.items()]


def _rel(store: Store, uri: str) -> str:
    base = str(store.path).rstrip("/") + "/"
    return uri[len(base):] if uri.startswith(base) else uri


def unreadable(root: str | Path | Store) -> list[Finding]:
    """The data files of the store that are missing or cannot be read (footers first, then every page)."""
    store = root if isinstance(root, Store) else Store(root)
    files = [(name, f) for name, _ in _tables(store) for f in _files(store, name)]
    for whole in (False, True):
        bad = [Finding("missing" if p == "missing" else "corrupt", _rel(store, f), p, name)
               for name, f in files if (p := read_problem(f, whole))]
        if bad:
            return bad
    return []


def _schema_problem(store: Store, name: str, table: str) -> str | None:
    """How a Delta table's columns differ from the table's fixed schema (None: they agree)."""
    dt = store.table(name)
    if dt is None:
        return None
    got = {f.name: f.type for f in pa.schema(dt.schema().to_arrow())}
    want = schema.polars_schema(table)
    defaults = {c["name"] for c in schema.spec(table)["columns"] if c.get("nullable") or "default" in c}
    missing = [c for c in want if c not in got and c not in defaults]
    if missing or COMMIT not in got:
        return f"not a {table} table of this schema (missing {', '.join(missing or [COMMIT])})"
    return None


def _counts(store: Store) -> dict[str, int]:
    """Rows of the `runs` table per commit, from its log."""
    dt = store.table("runs")
    if dt is None:
        return {}
    adds = _adds(dt)
    return dict(adds.group_by(f"min.{COMMIT}").agg(pl.col("num_records").sum()).rows())


def check(root: str | Path | Store) -> list[Finding]:
    """Everything wrong with the store at `root` (an empty list: every file its tables list is there and reads
    whole, every table has its schema, every source's rows are the runs it counts, and no rows of a write that
    never committed are left beyond GRACE)."""
    store = root if isinstance(root, Store) else Store(root)
    out = unreadable(store)
    out += [Finding("schema", name, p) for name, t in _tables(store) if (p := _schema_problem(store, name, t))]
    counts = _counts(store)
    for key, e in store.sources().items():
        held = counts.get(e[COMMIT], 0)
        if isinstance(e.get("runs"), int) and held != e["runs"]:
            out.append(Finding("count", SOURCES, f"source {key}: counts {plural(e['runs'], 'run')}, the runs table holds "
                                                 f"{held}", key))
    named, leases = set(store.snapshot.committed), {}
    for name, _ in _tables(store):
        dt = store.table(name)
        old = sorted(c for c in (_commits_in(dt) if dt is not None else set()) - named if commit_age(c) > GRACE
                     and not writes.alive(store.location.uri, writes.writer_of(c), leases))
        if old:
            out.append(Finding("uncommitted", name, f"rows of {plural(len(old), 'write')} that never committed "
                                                    "(invisible to readers)"))
    for name, folders in store.abandoned().items():
        out.append(Finding("uncommitted", name, f"files of {plural(len(folders), 'write')} that never committed "
                                                "(named by no table version)"))
    return out


def _quarantine(store: Store, rel: str) -> None:
    """Move a file of the store (its path relative to the store) to `quarantine/`, locally or on object storage."""
    if store.location.local is not None:
        dest = store.location.local / QUARANTINE / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(store.location.local / rel, dest)
        return
    fs, root = _remote(store.location.uri)
    fs.move(f"{root}/{rel}", f"{root}/{QUARANTINE}/{rel}")


def repair(root: str | Path | Store) -> tuple[list[str], list[Finding]]:
    """Repair the store, keeping what is readable: files missing or unreadable leave their tables (unreadable
    ones moved to `quarantine/` of a local store), each source's entry is made to count what its rows are
    (a source left with no run goes), and the rows of writes that never committed go. Returns what was done
    and what is still wrong."""
    store = root if isinstance(root, Store) else Store(root)
    done: list[str] = []
    bad = unreadable(store)
    for f in bad:
        if f.kind == "corrupt":
            _quarantine(store, f.path)
            done.append(f"{f.path}: unreadable ({f.detail}); moved to {QUARANTINE}/{f.path}")
        elif f.kind == "missing":
            done.append(f"{f.path}: missing; dropped from its table")
    for name in sorted({f.source for f in bad if f.source}):
        dt = open_table(store.uri(name))
        if dt is not None:
            dt.repair(dry_run=False)  # the log no longer lists the files that are gone
    store.refresh()
    counts = _counts(store)
    lost: list[str] = []
    said = len(done)

    def recount(df: pl.DataFrame) -> pl.DataFrame:
        """`df` (the sources table as it is now: another writer may have committed since) recounted from
        the runs table read now."""
        now = _counts(store.refresh())
        del done[said:], lost[:]
        rows = []
        for r in df.iter_rows(named=True):
            e = json.loads(r["entry"])
            held = now.get(r[COMMIT], 0)
            if held == 0:
                lost.append(r["key"])
                continue
            if isinstance(e.get("runs"), int) and e["runs"] != held:
                done.append(f"source {r['key']}: {plural(e['runs'] - held, 'run')} lost with its files; it now counts {held}")
                e["runs"] = held
            rows.append(dict(r, entry=json.dumps(e, sort_keys=True)))
        return pl.DataFrame(rows, schema=df.schema)

    if any(counts.get(e[COMMIT], 0) != e.get("runs") for e in store.sources().values()):
        store.rewrite_sources(recount)
        done += [f"source {k}: no run left readable; removed (ingest it again to restore it)" for k in lost]
    gone = store.collect_garbage()
    if gone:
        done.append(f"rows of {plural(gone, 'write')} that never committed deleted")
    return done, check(store.refresh())
