"""A store's tables against their files (missing, unreadable, of another schema), its Delta logs (`integrity`),
its sources' entries and counts, the rows of writes that never committed; and the repair that keeps what is
readable (docs/store.md)."""
from __future__ import annotations

import functools
import json
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.fs  # noqa: F401 - pa.fs
import pyarrow.parquet as pq

from . import integrity, remote, schema, writes
from .errors import StoreError
from .location import Location, LocationError, locate
from .store import COMMIT, DERIVED, GRACE, SOURCES, Store, commits_in, commit_age, file_paths, open_table
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


def _count_text(m: integrity.Mismatch) -> str:
    if m.table == "runs":
        return f"source {m.key}: counts {plural(m.counted, 'run')}, the runs table holds {m.held}"
    return f"source {m.key}: counts {m.counted} rows of the {m.table} table, the table holds {m.held}"


def _location(root: str | Path | Store) -> Location:
    if isinstance(root, Store):
        return root.location
    try:
        loc = locate(root)
        remote.delta_options(loc.uri)  # credentials and time limits, as a Store checks them
    except (LocationError, ValueError) as exc:
        raise StoreError(str(exc)) from None
    return loc


def _log_tables(loc: Location) -> list[str]:
    """The Delta tables of a store whose logs are checked: sources, derived and the data tables (and the derived
    ones of a local store)."""
    names = [SOURCES, DERIVED, *schema.TABLES]
    if loc.local is not None and (loc.local / DERIVED).is_dir():
        names += [f"{DERIVED}/{p.name}" for p in sorted((loc.local / DERIVED).iterdir())
                  if p.is_dir() and p.name != "_delta_log"]
    return names


def log_findings(root: str | Path | Store) -> list[tuple[str, integrity.LogDamage]]:
    """(table, damage) of every damaged Delta log of the store."""
    loc = _location(root)
    return [(name, d) for name in _log_tables(loc) for d in integrity.log_damage(loc.table(name))]


def _log_finding(loc: Location, d: integrity.LogDamage) -> Finding:
    base = str(loc.local if loc.local is not None else loc.uri).rstrip("/") + "/"
    name = d.log.name(d.file)
    return Finding("log", name[len(base):] if name.startswith(base) else name, d.detail)


def bad_entries(store: Store) -> list[tuple[str, str]]:
    """(key, what is wrong) of every entry of the `sources` table that is not what cocopipe writes."""
    out = []
    for r in store.snapshot.sources.sort("key").iter_rows(named=True):
        try:
            e = json.loads(r["entry"])
        except ValueError as exc:
            out.append((r["key"], f"not JSON: {' '.join(str(exc).split())[:80]}"))
            continue
        why = "not a JSON object" if not isinstance(e, dict) else integrity.entry_problem(e)
        if why:
            out.append((r["key"], why))
    return out


def check(root: str | Path | Store) -> list[Finding]:
    """Everything wrong with the store at `root` (an empty list: every Delta log reads whole, every file its
    tables list is there and reads whole, every table has its schema, every source's entry is what cocopipe
    writes and counts the rows its tables hold, and no rows of a write that never committed are left beyond
    GRACE)."""
    logs = log_findings(root)
    if logs:
        loc = _location(root)
        return [_log_finding(loc, d) for _, d in logs]
    store = root if isinstance(root, Store) else Store(root)
    out = unreadable(store)
    out += [Finding("schema", name, p) for name, t in _tables(store) if (p := _schema_problem(store, name, t))]
    entries = bad_entries(store)
    out += [Finding("entry", SOURCES, f"source {k}: damaged entry ({why})", k) for k, why in entries]
    if not entries:
        for m in integrity.mismatches(store):
            why = integrity.explain(store, m)
            out.append(Finding("count", SOURCES, _count_text(m) + (f" ({why})" if why else ""), m.key))
    named, leases = set(store.snapshot.committed), {}
    for name, _ in _tables(store):
        dt = store.table(name)
        old = sorted(c for c in (commits_in(dt) if dt is not None else set()) - named if commit_age(c) > GRACE
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


def _log_quarantine(loc: Location, table: str) -> str:
    """The folder (of the log's file system) a damaged log's files are moved to."""
    if loc.local is not None:
        return str(loc.local / QUARANTINE / table / "_delta_log")
    return f"{remote.filesystem(loc.uri)[1]}/{QUARANTINE}/{table}/_delta_log"


def _mend_log(loc: Location, table: str, d: integrity.LogDamage) -> str | None:
    """Mend one damaged log: a checkpoint rebuilt from the commits, or the table taken back to the version before
    its first damaged commit (the later commit files moved to `quarantine/`: their sources are recounted after);
    what was done, None where it cannot be mended."""
    log, where = d.log, _log_quarantine(loc, table)
    if d.file == integrity.LAST and d.version == -1:
        log.move(integrity.LAST, where)
        dt = open_table(loc.table(table))
        dt.create_checkpoint()
        return f"{log.name(d.file)}: {d.detail}; the checkpoint rebuilt from the commits"
    if d.version <= 0:  # the table's first commit (or the commits before a checkpoint) lost: nothing to go back to
        return None
    later = [n for n in log.names() if (m := re.match(r"(\d{20})\.", n)) and int(m.group(1)) >= d.version]
    if integrity.LAST in log.names():
        try:
            if int(json.loads(log.read(integrity.LAST))["version"]) >= d.version:
                later.append(integrity.LAST)
        except (ValueError, KeyError, TypeError):
            later.append(integrity.LAST)
    for n in later:
        log.move(n, where)
    return (f"{log.name(d.file)}: {d.detail}; the {table} table taken back to version {d.version - 1} "
            f"({plural(len(later), 'log file')} moved to {QUARANTINE}/{table}/_delta_log)")


def _mend_logs(root: str | Path | Store) -> tuple[list[str], list[Finding]]:
    """Every damaged Delta log mended where it can be: what was done, and what cannot be mended."""
    loc, done, left = _location(root), [], []
    for _ in range(20):  # each pass mends the first damage of each log; a log may hold more
        found = log_findings(root)
        if not found:
            break
        mended = False
        for table, d in found:
            try:
                said = _mend_log(loc, table, d)
            except Exception:  # noqa: BLE001 - delta-rs and object stores raise many kinds: named as not mended
                said = None
            if said is None:
                left.append(_log_finding(loc, d))
            else:
                done.append(said)
                mended = True
        if left or not mended:
            break
    return done, left


def _drop_bad_entries(store: Store) -> list[str]:
    """The damaged entries of the `sources` table removed: what was done."""
    bad = dict(bad_entries(store))
    if not bad:
        return []
    store.rewrite_sources(lambda df: df.filter(~pl.col("key").is_in(list(bad))))
    return [f"source {k}: damaged entry ({why}); removed (ingest it again to restore it)" for k, why in bad.items()]


def _held(store: Store) -> dict[str, dict[str, int]]:
    """table -> commit -> the rows it holds, for every data table."""
    tables = store.tables_opened()
    return {t: integrity.held(tables[t]) if tables.get(t) is not None else {} for t in schema.TABLES}


def _recount(store: Store, done: list[str], lost: list[str]) -> set[str]:
    """Each source's entry made to count what its tables hold (a source with no run left goes); the commits
    whose entries changed."""
    changed: set[str] = set()
    said = len(done)

    def recount(df: pl.DataFrame) -> pl.DataFrame:
        """`df` (the sources table as it is now: another writer may have committed since) recounted from
        the tables read now."""
        now = _held(store.refresh())
        del done[said:], lost[:]
        changed.clear()
        rows = []
        for r in df.iter_rows(named=True):
            e = json.loads(r["entry"])
            if now["runs"].get(r[COMMIT], 0) == 0:
                lost.append(r["key"])
                changed.add(r[COMMIT])
                continue
            for t in schema.TABLES:
                n, have = e.get(t), now[t].get(r[COMMIT], 0)
                if isinstance(n, int) and n != have:
                    what = plural(n - have, "run") if t == "runs" else f"{n - have} rows of the {t} table"
                    done.append(f"source {r['key']}: {what} lost with its files; it now counts {have}")
                    e[t] = have
                    changed.add(r[COMMIT])
            rows.append(dict(r, entry=json.dumps(e, sort_keys=True)))
        return pl.DataFrame(rows, schema=df.schema)

    if integrity.mismatches(store):
        store.rewrite_sources(recount)
    return changed


def _drop_caches(store: Store, commits: set[str]) -> list[str]:
    """The cache files made from commits whose rows changed, deleted: what was done."""
    gone = [f for d in store.cache_dirs() for f in d.iterdir() if f.name.split(".")[0] in commits]
    for f in gone:
        f.unlink(missing_ok=True)
    return [f"{plural(len(gone), 'cache file')} made from the rows lost deleted"] if gone else []


def repair(root: str | Path | Store) -> tuple[list[str], list[Finding]]:
    """Repair the store, keeping what is readable: damaged Delta logs mended (a checkpoint rebuilt from the
    commits, a table taken back before a damaged commit), damaged entries of `sources` removed, files missing or
    unreadable leave their tables (unreadable ones moved to `quarantine/`), each source's entry is made to count
    what its rows are (a source left with no run goes), the caches made from rows lost deleted, and the rows of
    writes that never committed go. Returns what was done and what is still wrong."""
    done, left = _mend_logs(root)
    if left:
        return done, left
    store = root if isinstance(root, Store) else Store(root)
    done += _drop_bad_entries(store)
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
    lost: list[str] = []
    changed = _recount(store, done, lost)
    done += [f"source {k}: no run left readable; removed (ingest it again to restore it)" for k in lost]
    done += _drop_caches(store, changed)
    gone = store.collect_garbage()
    if gone:
        done.append(f"rows of {plural(gone, 'write')} that never committed deleted")
    return done, check(store.refresh())
