"""The store: Delta Lake tables on a local disk or object storage, and the `sources` table that makes
each source's rows visible at once (docs/store.md).

A store is a folder (or URI) of Delta Lake tables (delta-rs): the data tables `runs`, `events`,
`archive`, `params`, partitioned by suite and algorithm, each row carrying the `commit_id` of the
write that stored it; the table `sources`, one row per source (its key, identity and what the ingest
recorded of it) naming the commit whose rows are the source's; and `derived`, the same for tables
computed from the sources (`derived/NAME`). A write stages its files where no table names them
(`writes`), commits them to each data table once whole (blind appends: concurrent writers never
conflict), then replaces the whole `sources` table in one Delta commit, the point of visibility across
tables: readers take only the rows of the commits `sources` names, so a source is seen whole or not at
all, and a crash at any moment leaves the store as before or after the write. The `sources` commit is
optimistic: when another writer committed first, delta-rs refuses it and it is made again on the newer
table (`Store.commit`). Rows no source names (replaced sources, writes killed between their commits) and
staged files never committed are deleted by later writes once their writer's lease expired and they are
older than `GRACE`.

A `Store` reads a snapshot: the versions of every table, pinned when it is opened (`refresh` takes a
newer one, and every write of its own does): readers never wait for writers and never see half a write.
"""
from __future__ import annotations

import json
import os
import random
import re
import stat
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote

import deltalake as dl
import polars as pl
import pyarrow as pa

from . import hive, integrity, remote, schema, writes
from .delta import COMMIT, DERIVED, SOURCES, _adds, _columns, _kept, _root, file_paths, open_table
from .errors import StoreError, StoreWriteError
from .location import Location, LocationError, locate

FORMAT = "cocopipe-store"
VERSION = 3
#: the description of a store's `sources` table: what marks a store
MARK = f"{FORMAT} {VERSION}"
#: the earlier layout's manifest (`cocopipe upgrade` reads it)
LEGACY_MANIFEST = "cocopipe-store.json"
#: seconds a commit's rows may stay unnamed by `sources` before a writer deletes them (an ingest at work)
GRACE = float(os.environ.get("COCOPIPE_ORPHAN_GRACE", 3600))
#: times a `sources` commit is made again after another writer's came first
RETRIES = 200
#: the properties of every table the store makes: a checkpoint every 10 commits (Delta's default: 100), so
#: that opening a table reads at most 10 commit files after its checkpoint. Each ingest commits to runs,
#: events and sources and opens them a few times: with 100, an ingest of 400 sources read 244 000 log files
#: from the object store (benchmarks/RESULTS.md)
TABLE_PROPERTIES = {"delta.checkpointInterval": "10"}
#: how often (in versions of `sources`) a commit also looks for the rows of writes that never committed
GARBAGE_EVERY = 10

_SOURCES_SCHEMA = pa.schema([pa.field("key", pa.large_string(), False), pa.field("name", pa.large_string(), False),
                             pa.field("path", pa.large_string(), True), pa.field("source_id", pa.large_string(), False),
                             pa.field(COMMIT, pa.large_string(), False), pa.field("ingested", pa.large_string(), True),
                             pa.field("entry", pa.large_string(), False)])
_DERIVED_SCHEMA = pa.schema([pa.field("name", pa.large_string(), False), pa.field("table", pa.large_string(), False),
                             pa.field(COMMIT, pa.large_string(), False), pa.field("created", pa.large_string(), True),
                             pa.field("entry", pa.large_string(), False)])


class Conflict(StoreError):
    """Another writer committed to the store since the snapshot a commit was prepared on."""


def new_commit_id(writer: str | None = None) -> str:
    """A commit's id: its UTC time (so that its age can be read off), a random part and the writer's id."""
    now = time.time()
    return (time.strftime("%Y%m%dT%H%M%S", time.gmtime(now)) + f"{int(now % 1 * 1e6):06d}Z-{uuid.uuid4().hex[:12]}"
            + (f"-{writer}" if writer else ""))


def commit_age(commit_id: str) -> float:
    """Seconds since a commit id was made, in UTC whatever the local time zone (0 for one of another form:
    never taken as old)."""
    made = writes.commit_time(commit_id)
    return 0.0 if made is None else time.time() - made


_ANSI = re.compile(r"\x1b\[[0-9;]*m")
#: what an object store's error code means, as a person says it
_CODES = {"NoSuchBucket": "no such bucket", "AccessDenied": "access denied", "InvalidAccessKeyId": "unknown access key",
          "SignatureDoesNotMatch": "wrong secret key", "Connection refused": "connection refused (is the server up?)",
          "dns error": "unknown host"}


def _why(exc: BaseException) -> str:
    """An error of delta-rs, an object store or the file system as one short line."""
    text = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
    if said := remote.timed_out(exc):
        return said
    for code, said in _CODES.items():
        if code in text:
            return said
    text = _ANSI.sub("", text).replace("↳", ":")
    return " ".join(text.split())[:300]


def write_failed(where: object, exc: BaseException) -> StoreWriteError:
    """The one-line error of a write to the store that failed (a full disk, a read-only file system)."""
    return StoreWriteError(f"{where}: cannot write to the store ({_why(exc)}); the store is left as it was")


def _writer_properties():
    """zstd; dictionary encoding only for string columns (on numbers it makes the files larger and slower
    to write: docs/internals.md)."""
    return dl.WriterProperties(compression="ZSTD", default_column_properties=dl.ColumnProperties(dictionary_enabled=False),
                               column_properties={c: dl.ColumnProperties(dictionary_enabled=True) for c in
                                                  ("suite", "algorithm", COMMIT, "name", "source", "source_id", "info_file",
                                                   "data_file", "comment", "function_name", "indicator", "data_format",
                                                   "coco_version", "problem", "mode", "archive_file", "value")})


def append(uri: str, rows: pa.Table | Callable[[], pa.RecordBatchReader], partition_by: Sequence[str], commit_id: str,
           table: str | None = None) -> None:
    """Append rows to a Delta table (made where there is none yet: a second writer making it at once
    appends to the first one's); the Delta commit records the commit ids (comma-separated) and the table's
    schema version."""
    meta = {"cocopipe.commit": commit_id}
    if table is not None:
        meta.update({"cocopipe.table": table, "cocopipe.schema_version": schema.version(table)})
    props = dl.CommitProperties(custom_metadata=meta)
    for attempt in range(5):
        try:
            dl.write_deltalake(uri, rows() if callable(rows) else rows, mode="append",
                               partition_by=list(partition_by) or None, schema_mode="merge",
                               writer_properties=_writer_properties(), commit_properties=props,
                               configuration=TABLE_PROPERTIES,  # when it makes the table
                               storage_options=remote.delta_options(uri))
            return
        except dl.exceptions.CommitFailedError:
            if attempt == 4:
                raise
            time.sleep(random.uniform(0.01, 0.1))


def scan_table(dt) -> pl.LazyFrame:
    """Lazy scan of a Delta table: Polars' own reader, or for a local table whose folder's path Polars'
    reader misreads (a character delta-rs percent-encodes, a `k=v` folder taken for a partition) the
    same files read partition by partition, their paths as they are on disk, never taken as globs. Made
    once for a table's version."""
    return _kept(dt, "scan", _scan_table)


def _scan_table(dt) -> pl.LazyFrame:
    root = _root(dt)
    if "://" in root or (unquote(root) == root and "=" not in root):
        return pl.scan_delta(dt, storage_options=remote.polars_options(dt.table_uri))
    sch = pl.from_arrow(pa.schema(dt.schema().to_arrow()).empty_table()).schema
    parts = list(dt.metadata().partition_columns)
    body = {c: t for c, t in sch.items() if c not in parts}
    adds = _adds(dt)
    if not adds.height:
        return pl.LazyFrame(schema=sch)
    frames = []
    for keys, grp in adds.group_by([f"partition.{c}" for c in parts] or [pl.lit(0)]):
        lf = pl.scan_parquet(file_paths(dt, grp), schema=body, missing_columns="insert", extra_columns="ignore",
                             hive_partitioning=False, glob=False)
        frames.append(lf.with_columns(pl.lit(v, sch[c]).alias(c) for c, v in zip(parts, keys)) if parts else lf)
    return pl.concat(frames).select(list(sch))


def _frame(dt, arrow_schema: pa.Schema) -> pl.DataFrame:
    """A small Delta table (sources, derived) whole, or empty with its schema where there is none."""
    if dt is None:
        return pl.from_arrow(arrow_schema.empty_table())
    return whole(dt)


def whole(dt) -> pl.DataFrame:
    """A small Delta table read whole by Polars' reader. Not `DeltaTable.to_pyarrow_table`: its pyarrow
    dataset scan leaves threads that can abort the interpreter at exit ("terminate called without an
    active exception", apache/arrow#34314); it did so in CI."""
    return scan_table(dt).collect()


def _text(value: str | None) -> str | None:
    """A string as the table's UTF-8 can hold it: a path's bytes that are not UTF-8 (held as lone surrogates)
    written as `\\xe9` (the entry's JSON keeps the string itself)."""
    if value is None:
        return None
    return value.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _entry(row: dict) -> dict:
    """A source's (or derived table's) entry as `Store.sources()` gives it (key, name and path as given,
    from the JSON entry)."""
    e = json.loads(row["entry"])
    if not isinstance(e, dict):
        raise ValueError(f"a JSON {type(e).__name__}, not an object")
    e.update((k, v) for k, v in row.items() if k != "entry" and k not in e)
    return e


@dataclass
class SourceData:
    """Everything one source contributes to the store; `key` is its identity in `sources`
    (default: its path)."""

    name: str
    source_id: str
    path: str
    tables: dict[str, pl.DataFrame]
    meta: dict = field(default_factory=dict)
    key: str = ""

    def __post_init__(self) -> None:
        self.key = self.key or self.path


@dataclass
class Staged:
    """A source's rows appended to the data tables under `commit_id`, not yet visible (`Store.commit`)."""

    data: SourceData
    commit_id: str
    tables: list[str]
    #: the staged files of each table (shared by the sources of one batch), committed by `Store.commit_all`
    files: dict[str, writes.StagedFiles] = field(default_factory=dict)


def _rows(entry: str) -> int:
    """The rows a derived table's entry records (0 where it says none, or cannot be read)."""
    try:
        e = json.loads(entry)
    except ValueError:
        return 0
    n = e.get("rows", 0) if isinstance(e, dict) else 0
    return n if isinstance(n, int) else 0


class _Stale(Exception):
    """A data table no longer holds rows a snapshot's commits name (deleted since): take a newer snapshot."""


@dataclass
class Snapshot:
    """The versions of a store's tables that one `Store` reads, and what `sources` and `derived` hold then.

    The data tables are opened when first read: at the version pinned (a snapshot sent to a worker), else
    at their latest, which holds every row the snapshot's commits name (they were appended before their
    commit), unless a later write deleted the rows of a commit replaced since: then `_Stale`, and the Store
    takes a newer snapshot."""

    version: int
    derived_version: int | None
    sources: pl.DataFrame
    derived: pl.DataFrame
    opener: Callable[[str, int | None], object]
    latest: Callable[[], int | None]  # the `sources` table's latest version
    pins: dict[str, int | None] | None = None  # table -> version to open it at (None: the latest, checked)
    opened: dict = field(default_factory=dict)
    properties: dict[str, str] = field(default_factory=dict)  # the `sources` table's (`Store.properties`)
    #: names this snapshot where a Store sends it (a worker's Stores of the same token share one: `_shared`)
    token: str = field(default_factory=lambda: uuid.uuid4().hex)

    @property
    def committed(self) -> list[str]:
        """The commits whose rows are visible."""
        return sorted(set(self.sources[COMMIT].to_list()) | set(self.derived[COMMIT].to_list()))

    @property
    def names(self) -> list[str]:
        """The data tables of the snapshot (derived ones as derived/NAME)."""
        return [*schema.TABLES, *(f"{DERIVED}/{n}" for n in self.derived["name"].to_list())]

    def table(self, name: str):
        """A data table (DeltaTable) as the snapshot reads it, None where there is none."""
        if name not in self.opened:
            pinned = self.pins is not None
            dt = self.opener(name, self.pins.get(name) if pinned else None)
            if dt is not None and not pinned and self._expected(name) - _commits_in(dt) \
                    and self.latest() != self.version:  # lost since by a later write (else lost files: `check` says)
                raise _Stale(name)
            self.opened[name] = dt
        return self.opened[name]

    @property
    def tables(self) -> dict[str, object]:
        """Every data table, opened."""
        return {n: self.table(n) for n in self.names}

    def _expected(self, name: str) -> set[str]:
        """The commits the snapshot names that wrote rows to a table (by what each recorded of its rows)."""
        if name.startswith(f"{DERIVED}/"):
            rows = self.derived.filter(pl.col("name") == name.split("/", 1)[1])
            return {r[COMMIT] for r in rows.iter_rows(named=True) if _rows(r["entry"])}
        out = set()
        for r in self.sources.select(COMMIT, "entry").iter_rows(named=True):
            try:
                e = json.loads(r["entry"])
            except ValueError:  # damaged: `Store.sources` names it
                continue
            n = e.get(name, 0) if isinstance(e, dict) else 0
            if isinstance(n, int) and n > 0:
                out.add(r[COMMIT])
        return out


#: the pinned snapshots of this process by the token of the snapshot they were sent from: a report's tasks
#: each get their Store pinned at the same versions, and opening the Delta tables again cost 10-20 ms a task
_SHARED: OrderedDict[tuple[str, str], Snapshot] = OrderedDict()
_SHARED_LOCK = threading.Lock()
#: pinned snapshots kept per process (the most recently used)
SHARED_SNAPSHOTS = 8


def _shared(key: tuple[str, str], make: Callable[[], Snapshot]) -> Snapshot:
    """The snapshot kept under `key` (where, token), else `make()` kept there."""
    with _SHARED_LOCK:
        snap = _SHARED.get(key)
        if snap is not None:
            _SHARED.move_to_end(key)
            return snap
    snap = make()
    with _SHARED_LOCK:
        snap = _SHARED.setdefault(key, snap)
        while len(_SHARED) > SHARED_SNAPSHOTS:
            _SHARED.popitem(last=False)
    return snap


def _creation_cut_short(folder: Path) -> bool:
    """Whether `folder` holds only what a store's creation leaves when it is killed before its first commit:
    a `sources` folder whose Delta log has no version yet (at most a temporary file): made again there."""
    entries = [p for p in folder.iterdir() if not p.name.startswith(".")]
    if [p.name for p in entries] != [SOURCES] or not entries[0].is_dir():
        return False
    inner = list(entries[0].iterdir())
    if any(p.name != "_delta_log" or not p.is_dir() for p in inner):
        return False
    return not any(re.fullmatch(r"\d{20}\.(json|checkpoint\.parquet)", p.name) for d in inner for p in d.iterdir())


class Store:
    """A cocopipe store: Delta Lake tables in a local folder or at an object-storage URI (docs/store.md).

    Parameters
    ----------
    path : str or path
        The folder, or a URI (`s3://bucket/store`, `gs://`, `az://`; credentials from the environment).
    create : bool
        Make it a new, empty store when it is none yet (safe when another process does the same).

    Raises
    ------
    StoreError
        When there is no store there (and `create` is False), or it cannot be read.

    Examples
    --------
    >>> store = Store("cocopipe-store")
    >>> sorted(s["name"] for s in store.sources().values())
    ['DIRECT_posik_noiseless', 'NM_on_bbob', 'RS_on_bbob']
    >>> store.runs().filter(algorithm="RS", dimension=2).collect().height
    360
    >>> import tempfile
    >>> empty = Store(tempfile.mkdtemp() + "/new", create=True)
    >>> empty.sources(), empty.runs().collect().height
    ({}, 0)
    """

    def __init__(self, path: str | os.PathLike | Location, *, create: bool = False):
        try:
            self.location = locate(path)
        except LocationError as exc:
            raise StoreError(str(exc)) from None
        try:
            remote.delta_options(self.location.uri)  # credentials and time limits checked up front, once
        except ValueError as exc:
            raise StoreError(str(exc)) from None
        #: the local folder, or the URI of a store on object storage (as messages name it)
        self.path: Path | str = self.location.local if self.location.local is not None else self.location.uri
        #: what opening or writing changed on its own
        self.notices: list[str] = []
        self._snap: Snapshot | None = None
        #: commits this Store staged and has not committed or discarded yet: never collected as garbage
        self._inflight: set[str] = set()
        #: this Store's id as a writer: its staged files are under `TABLE/_writes/<writer>/`, its lease in
        #: `_writers/<writer>.json` (taken when it first stages)
        self.writer = writes.new_writer()
        #: whether this Store made the store (its `sources` table), not found it
        self.created = False
        #: whether this Store's commits looked for the rows of writes that never committed yet
        self._collected = False
        if create:
            self._create()
        self.refresh()

    def __getstate__(self) -> dict:
        """What a worker process gets: the place and the pinned versions, not the open tables."""
        state = dict(self.__dict__)
        snap = state.get("_snap")
        if snap is not None:
            state["_snap"] = None
            state["_pins"] = (snap.version, snap.derived_version, {t: (dt.version() if dt is not None else None)
                                                                    for t, dt in self._tables().items()}, snap.token)
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)  # the tables are opened at the pinned versions when first read (`snapshot`)

    def __repr__(self) -> str:
        return f"Store({str(self.path)!r})"

    def uri(self, table: str) -> str:
        """The URI (or local path) of one of the store's Delta tables."""
        return self.location.table(table)

    # -- opening ---------------------------------------------------------------------------
    def _create(self) -> None:
        """Make a new, empty store here (nothing when there is one; safe when another process does the same)."""
        try:
            if open_table(self.uri(SOURCES)) is not None:
                return
        except Exception as exc:  # noqa: BLE001 - a damaged log: refresh() names it
            if "NoSuchBucket" in str(exc):
                bucket = self.location.uri.split("://", 1)[1].split("/", 1)[0]
                raise StoreError(f"{self.path}: cannot create the store: the bucket {bucket!r} does not exist "
                                 "(cocopipe makes no bucket: create it first)") from None
            return
        if self.location.local is not None:
            folder = self.location.local
            if (folder / LEGACY_MANIFEST).exists():
                return  # refresh() names the earlier layout
            if folder.exists() and not folder.is_dir():
                raise StoreError(f"{folder}: not a folder")
            if folder.is_dir() and any(p for p in folder.iterdir() if not p.name.startswith(".")) \
                    and not _creation_cut_short(folder):
                raise StoreError(f"{folder}: folder is not empty and holds no store")
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(f"{folder}: cannot create the store ({_why(exc)})") from None
        try:
            self._make_sources()
            self.created = True
        except dl.exceptions.CommitFailedError:
            pass  # another process made it first
        except Exception as exc:  # noqa: BLE001 - delta-rs and object stores raise many kinds
            raise StoreError(f"{self.path}: cannot create the store ({_why(exc)})") from None

    def _make_sources(self) -> None:
        """The `sources` table made, the mark of a store (nothing where there is one)."""
        dl.DeltaTable.create(self.uri(SOURCES), _SOURCES_SCHEMA, mode="ignore", description=MARK,
                             configuration=TABLE_PROPERTIES, storage_options=remote.delta_options(self.uri(SOURCES)))

    def untouched(self) -> bool:
        """Whether the store is as it was made: no source ever committed, no row ever written (what an ingest
        that made it and read nothing may remove; another writer may have found it meanwhile)."""
        src = open_table(self.uri(SOURCES))
        return src is not None and src.version() == 0 and all(open_table(self.uri(t)) is None
                                                               for t in (*schema.TABLES, DERIVED)) \
            and not writes.writers(self.location.uri)  # a writer that staged files holds a lease here

    def _cannot_read(self, exc: BaseException) -> StoreError:
        """The error of a failed read: naming the damaged file of a Delta log where one is, else what failed."""
        return StoreError(integrity.damage_said(self) or f"{self.path}: cannot read the store ({_why(exc)})")

    def _not_a_store(self) -> StoreError:
        if self.location.local is not None:
            folder = self.location.local
            if (folder / LEGACY_MANIFEST).is_file():
                return StoreError(f"{folder}: a store of the earlier layout (Parquet files and {LEGACY_MANIFEST}); "
                                  f"`cocopipe upgrade --store {folder}` makes it a Delta Lake store")
            if not folder.exists():
                return StoreError(f"{folder}: no such store folder")
        return StoreError(f"{self.path}: not a cocopipe store (no {SOURCES} table); run `cocopipe ingest` first")

    def refresh(self) -> Store:
        """Read the store as it is now (a new snapshot): the tables' latest versions."""
        self.__dict__.pop("_pins", None)
        self._snap = self._snapshot()
        return self

    def _snapshot(self) -> Snapshot:
        """The latest `sources` and `derived` tables; the data tables opened when first read (`Snapshot.table`)."""
        return self._pinned(None, None, None, self._open_sources())

    def _table(self, name: str) -> tuple[Snapshot, object]:
        """The snapshot and one of its data tables (a newer snapshot where the table lost rows it names)."""
        return self._fresh(lambda snap: (snap, snap.table(name)))

    def _tables(self) -> dict[str, object]:
        """Every data table of the snapshot, opened (a newer snapshot where one lost rows it names)."""
        return self._fresh(lambda snap: snap.tables)

    def _fresh(self, read: Callable[[Snapshot], object]):
        """`read(snapshot)`, made again on a newer snapshot where a data table lost rows the snapshot names."""
        for _ in range(20):
            try:
                return read(self.snapshot)
            except _Stale:
                self.refresh()
            except StoreError:
                raise
            except Exception as exc:  # noqa: BLE001
                raise self._cannot_read(exc) from None
        raise StoreError(f"{self.path}: the store kept changing while it was read; try again")

    def _open_sources(self):
        try:
            src = open_table(self.uri(SOURCES))
        except Exception as exc:  # noqa: BLE001
            raise self._cannot_read(exc) from None
        if src is None:
            raise self._not_a_store()
        mark = src.metadata().description or ""
        if not mark.startswith(FORMAT):
            raise StoreError(f"{self.uri(SOURCES)}: a Delta table that is not a cocopipe store's sources table")
        found = int(mark.split()[-1]) if mark.split()[-1].isdigit() else 0
        if found > VERSION:
            raise StoreError(f"{self.path}: store version {found} was written by a newer cocopipe (this one reads up "
                             f"to {VERSION}); upgrade cocopipe")
        return src

    def _pinned(self, version: int | None, derived_version: int | None, tables: dict | None, src=None) -> Snapshot:
        """The snapshot of given versions (`tables` None: each data table at its latest when first read)."""
        try:
            src = src if src is not None else open_table(self.uri(SOURCES), version)
            if src is None:
                raise self._not_a_store()
            der = open_table(self.uri(DERIVED), derived_version) if (tables is None or derived_version is not None) \
                else None
            sources = _frame(src, _SOURCES_SCHEMA)
            derived = _frame(der, _DERIVED_SCHEMA)
        except StoreError:
            raise
        except Exception as exc:  # noqa: BLE001
            raise self._cannot_read(exc) from None
        def latest() -> int | None:
            dt = open_table(self.uri(SOURCES))
            return dt.version() if dt is not None else None

        return Snapshot(src.version(), der.version() if der is not None else None, sources, derived,
                        lambda name, v: open_table(self.uri(name), v), latest, tables,
                        properties=dict(src.metadata().configuration))

    @property
    def snapshot(self) -> Snapshot:
        """What this Store reads (taken when it was opened, or by `refresh`; in a worker, the versions pinned
        where it was sent from)."""
        if self._snap is None:
            pins = self.__dict__.pop("_pins", None)
            if pins is not None:
                *versions, token = pins

                def make() -> Snapshot:
                    snap = self._pinned(*versions)
                    snap.token = token
                    return snap

                self._snap = _shared((str(self.path), token), make)
            else:
                self.refresh()
        return self._snap

    def stamp(self) -> tuple:
        """The snapshot's versions: they change with every commit, so what was read from the store can be
        kept until they do."""
        s = self.snapshot
        return (str(self.path), s.version, s.derived_version)

    # -- what the store holds --------------------------------------------------------------
    def sources(self) -> dict[str, dict]:
        """Sources in the store, by key (their full path, or the name given to them).

        Returns
        -------
        dict
            key -> the entry: name, path, source_id, commit_id, runs, suites, algorithms, ...

        Examples
        --------
        >>> [e["runs"] for e in Store("cocopipe-store").sources().values()]
        [360, 1080, 1080]
        """
        return self._entries(SOURCES, self.snapshot.sources, "key")

    def derived(self) -> dict[str, dict]:
        """Derived tables in the store, by name, with what was recorded of them."""
        return self._entries(DERIVED, self.snapshot.derived, "name")

    def _entries(self, table: str, frame: pl.DataFrame, key: str) -> dict[str, dict]:
        """The entries of a small table by `key`; StoreError (one line naming the table and the row) where
        one is not what cocopipe wrote (a JSON object)."""
        out = {}
        for r in frame.sort(key).iter_rows(named=True):
            try:
                e = _entry(r)
                out[e[key]] = e
            except (ValueError, TypeError) as exc:
                raise StoreError(f"{self.uri(table)}: the entry of {r[key]!r} is damaged (not a JSON object: "
                                 f"{' '.join(str(exc).split())[:120]}); the table was edited by hand or damaged") from None
            if table == SOURCES and (why := integrity.entry_problem(e)):
                raise StoreError(f"{self.uri(table)}: the entry of source {r[key]!r} is damaged ({why}); "
                                 f"`cocopipe check --store {self.path} --repair` removes it (re-ingest the source)")
        return out

    def properties(self) -> dict[str, str]:
        """The store's properties (the `sources` table's, e.g. `cocopipe.packaged`)."""
        return dict(self.snapshot.properties)

    def set_property(self, name: str, value: str) -> None:
        """Record a property of the store (in the `sources` table's properties)."""
        dt = open_table(self.uri(SOURCES))
        dt.alter.set_table_properties({name: value}, raise_if_not_exists=False)
        self.refresh()

    @property
    def manifest(self) -> dict:
        """What the store holds, as one dict: format, version, schema versions, sources, derived tables
        and properties (docs/store.md).

        Examples
        --------
        >>> m = Store("cocopipe-store").manifest
        >>> m["format"], m["store_version"], sorted(m["schema_versions"])[:2]
        ('cocopipe-store', 3, ['archive', 'events'])
        """
        return {"format": FORMAT, "store_version": VERSION, "schema_versions": self.schema_versions(),
                "sources": self.sources(), "derived": self.derived(), **self.properties()}

    def schema_versions(self) -> dict[str, str]:
        """The schema version of each table's rows: the oldest any source's rows were written in (this
        cocopipe's, for a table no source wrote yet). Rows of an older minor version read the columns added
        since at their defaults (schemas/)."""
        def key(v: str) -> tuple[int, ...]:
            return tuple(int(p) for p in v.split(".") if p.isdigit())

        out = {t: schema.version(t) for t in schema.TABLES}
        for e in self.sources().values():
            for t, v in (e.get("schema_versions") or {}).items():
                if t in out and isinstance(v, str) and key(v) < key(out[t]):
                    out[t] = v
        return out

    def has(self, key: str, source_id: str, algorithm_name: str | None = None) -> bool:
        """Whether the source `key` is stored with this content (and algorithm name given to it)."""
        s = self.sources().get(key)
        return bool(s) and s["source_id"] == source_id and s.get("algorithm_name") == algorithm_name

    # -- reading ---------------------------------------------------------------------------
    def scan(self, table: str, *, commits: bool = False) -> pl.LazyFrame:
        """Lazy scan of a table as the snapshot holds it: the rows of committed writes only; filters on
        suite and algorithm read only their partitions.

        Parameters
        ----------
        table : str
            runs, events, archive or params (schemas/).
        commits : bool
            Keep the `commit_id` column (the write each row came with).

        Returns
        -------
        polars.LazyFrame
            The table's columns (schemas/TABLE.json), suite and algorithm included.

        Examples
        --------
        >>> Store("cocopipe-store").scan("events").filter(algorithm="NM").select("best_delta").collect().height
        106945
        """
        return self._scan(table, table, None, bool(commits))

    def table(self, name: str):
        """One of the snapshot's data tables (a deltalake DeltaTable), None where there is none."""
        return self._table(name)[1]

    def _scan(self, name: str, table: str, committed: list[str] | None, commits: bool) -> pl.LazyFrame:
        if self.location.local is not None and not self.location.local.is_dir():  # gone, or not visible here
            raise StoreError(f"{self.path}: no such store folder")
        self.verify()
        sch = schema.polars_schema(table)
        snap, dt = self._table(name)
        if committed is None:
            committed = snap.sources[COMMIT].to_list()
        if dt is None or not committed:
            return pl.LazyFrame(schema={**sch, COMMIT: pl.String} if commits else sch)
        lf = scan_table(dt).filter(pl.col(COMMIT).is_in(committed))
        have = _columns(dt)
        defaults = {c["name"]: c.get("default") for c in schema.spec(table)["columns"]}
        cols = [pl.col(c) if c in have else pl.lit(defaults.get(c), dtype=t).alias(c) for c, t in sch.items()]
        out = lf.select(*cols, *([COMMIT] if commits else []))
        filled = {c: v for c, v in defaults.items() if v is not None and c in have}
        return out.with_columns(pl.col(c).fill_null(v) for c, v in filled.items()) if filled else out

    def partitions(self, table: str = "runs") -> list[tuple]:
        """The partition keys (suite, algorithm) of a table's committed rows, from its log (no file is read)."""
        snap, dt = self._table(table)
        if dt is None:
            return []
        adds = _adds(dt)
        parts = [f"partition.{c}" for c in schema.partition_columns(table)]
        lo = f"min.{COMMIT}"
        if lo in adds.columns:
            adds = adds.filter(pl.col(lo).is_in(snap.sources[COMMIT].implode()))
        else:
            return sorted(self.scan(table).select(schema.partition_columns(table)).unique().collect().rows())
        return sorted(adds.select(parts).unique().rows())

    def scan_commit(self, table: str, commit_id: str) -> pl.LazyFrame:
        """The rows one write appended to a table, committed or not (its latest version): a staged source's."""
        dt = open_table(self.uri(table))
        sch = schema.polars_schema(table)
        if dt is None:
            return pl.LazyFrame(schema=sch)
        return scan_table(dt).filter(pl.col(COMMIT) == commit_id).select(list(sch))

    def files(self, name: str) -> list[str]:
        """The data files of a table's pinned version: local paths, or URIs on object storage."""
        dt = self._table(name)[1]
        return file_paths(dt) if dt is not None else []

    def verify(self) -> None:
        """StoreError (one line naming the file) unless every file of committed rows the snapshot's tables list
        is there with the size written (local stores: a stat per file), and every source counts the rows its
        tables' logs hold for its commit (`integrity`), so that a read never silently misses data, nor hands a
        cut file to a reader."""
        if self.__dict__.get("_verified") == self.stamp():
            return
        for name, dt in self._tables().items():
            if dt is None:
                continue
            adds, lo = _adds(dt), f"min.{COMMIT}"
            if lo in adds.columns:  # the files of rows no commit names (a killed or replaced write) are not read
                adds = adds.filter(pl.col(lo).is_in(self.snapshot.committed))
            if not adds.height:
                continue
            if self.location.local is None:
                self._verify_remote(name, dt, adds)
                continue
            for uri, size in zip(file_paths(dt, adds), adds["size_bytes"]):
                try:
                    st = os.stat(uri)
                except OSError:
                    st = None
                if st is None or not stat.S_ISREG(st.st_mode):
                    raise StoreError(f"{uri}: missing from the store (listed by its {name} table); `cocopipe check "
                                     f"--store {self.path} --repair` drops what is lost (re-ingest the source to restore it)")
                if size is not None and st.st_size != size:  # cut or overwritten: never handed to a reader
                    raise StoreError(f"{uri}: damaged ({st.st_size} bytes, its {name} table wrote {size}); "
                                     f"`cocopipe check --store {self.path} --repair` moves it out of the store")
        integrity.whole_or_error(self)  # every source's counts are what its tables hold (from their logs)
        self.__dict__["_verified"] = self.stamp()

    def _verify_remote(self, name: str, dt, adds: pl.DataFrame) -> None:
        """As `verify`, for a table on object storage: the objects missing, by delta-rs's own check (a dry run
        of its repair; delta-rs's client works where pyarrow's S3 client cannot start, as in a confined query)."""
        try:
            gone = set(dt.repair(dry_run=True).get("files_removed", []))
        except Exception as exc:  # noqa: BLE001
            raise self._cannot_read(exc) from None
        for rel in adds["path"]:
            if unquote(rel) in gone:
                raise StoreError(f"{self.uri(name)}/{unquote(rel)}: missing from the store (listed by its {name} table); "
                                 f"`cocopipe check --store {self.path} --repair` drops what is lost (re-ingest the "
                                 f"source to restore it)")

    def runs(self) -> pl.LazyFrame:
        """The `runs` table: one row per trial (schemas/runs.json)."""
        return self.scan("runs")

    def events(self) -> pl.LazyFrame:
        """The `events` table: one row per logged record (schemas/events.json)."""
        return self.scan("events")

    def archive(self) -> pl.LazyFrame:
        """The `archive` table (solutions of bbob-biobj .adat files)."""
        return self.scan("archive")

    def scan_derived(self, name: str) -> pl.LazyFrame:
        """Lazy scan of a derived table (with the schema of the table it derives from)."""
        entry = self.derived().get(name)
        if entry is None:
            raise StoreError(f"{self.path}: no derived table {name!r}")
        return self._scan(f"{DERIVED}/{name}", entry["table"], [entry[COMMIT]], False)

    # -- caches: files computed from committed rows, kept beside them (e.g. first hitting times) --
    def cache_dir(self, name: str) -> Path:
        """The local folder of the cache `name`: under `_cache/` of a local store, in the user's cache
        folder for a store on object storage. A cache file named `<commit_id>.<suffix>` holds what was
        computed from that commit's rows, which never change; it goes when the commit does."""
        if self.location.local is not None:
            return self.location.local / "_cache" / name
        import hashlib

        from platformdirs import user_cache_dir
        return Path(user_cache_dir("cocopipe")) / "stores" / hashlib.sha256(self.location.uri.encode()).hexdigest()[:16] / name

    def cache_dirs(self) -> list[Path]:
        """The cache folders of the store."""
        root = self.cache_dir("x").parent
        return sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []

    # -- writing ---------------------------------------------------------------------------
    def stage(self, data: SourceData, commit_id: str | None = None) -> Staged:
        """Append a source's rows to the data tables under a new commit id, not yet visible (safe from
        several threads, processes or machines at once; `commit` makes them visible)."""
        return self.stage_all([data], [commit_id or new_commit_id()])[0]

    def stage_all(self, sources: Sequence[SourceData], commit_ids: Sequence[str] | None = None) -> list[Staged]:
        """Write the rows of several sources at once as files no table names yet (`TABLE/_writes/<writer>/<batch>/`,
        one batch a table), each source's under a commit id of its own (`commit_all` commits them), while this
        Store's writer holds its lease."""
        cids = list(commit_ids) if commit_ids is not None else [new_commit_id(self.writer) for _ in sources]
        self._inflight.update(cids)
        written: list[list[str]] = [[] for _ in sources]
        files: dict[str, writes.StagedFiles] = {}
        try:
            for data in sources:
                check_names(data)
            writes.hold(self.location.uri, self.writer)
            for table in dict.fromkeys(t for data in sources for t in data.tables):
                rows = [(i, data.tables[table]) for i, data in enumerate(sources)
                        if table in data.tables and data.tables[table].height]
                if not rows:
                    continue
                folder = f"{writes.WRITES}/{self.writer}/{cids[rows[0][0]]}"
                files[table] = writes.stage_files(self.uri(table), folder, _stream(table, [(df, cids[i]) for i, df in rows])(),
                                                  list(schema.partition_columns(table)), _writer_properties())
                for i, _ in rows:
                    written[i].append(table)
        except StoreError:
            raise
        except Exception as exc:  # noqa: BLE001 - a full disk, a read-only store, a lost connection
            for t, f in files.items():
                writes.discard_files(self.uri(t), f)
            raise write_failed(self.path, exc) from None
        return [Staged(data, cid, tables, {t: files[t] for t in tables}) for data, cid, tables in zip(sources, cids, written)]

    def discard(self, staged: Staged) -> None:
        """Delete the files and rows of a staged source that will not be committed (best effort: what is left
        is named by no table, or by no source, and collected later)."""
        self._inflight.discard(staged.commit_id)
        for t, f in staged.files.items():
            writes.discard_files(self.uri(t), f)
        self._delete_commits({t: [staged.commit_id] for t in staged.tables})

    def scan_staged(self, staged: Staged, table: str) -> pl.LazyFrame:
        """The rows of a staged source in a table, read from its staged files (committed or not)."""
        sch = schema.polars_schema(table)
        f = staged.files.get(table)
        if f is None:  # committed (or none staged)
            return self.scan_commit(table, staged.commit_id) if table in staged.tables else pl.LazyFrame(schema=sch)
        dt = open_table(f"{self.uri(table).rstrip('/')}/{f.folder}")
        return scan_table(dt).filter(pl.col(COMMIT) == staged.commit_id).select(list(sch))

    def _commit_files(self, staged: Sequence[Staged]) -> None:
        """Commit the staged files of `staged` to their tables (one Delta commit a table); StoreError naming the
        files where a collection removed some while this writer was paused."""
        by_table: dict[str, dict[str, writes.StagedFiles]] = {}
        for s in staged:
            for t, f in s.files.items():
                by_table.setdefault(t, {})[f.folder] = f
        try:
            for t, folders in by_table.items():
                for f in folders.values():
                    if gone := writes.missing(self.uri(t), f):
                        raise StoreError(f"{self.uri(t)}/{gone[0]}: a staged file of this write was removed before "
                                         "its commit (its writer's lease had expired); ingest the source again")
            for t, folders in by_table.items():
                cids = [s.commit_id for s in staged if t in s.files]
                writes.commit_files(self.uri(t), list(folders.values()), list(schema.partition_columns(t)),
                                    {"cocopipe.commit": ",".join(cids), "cocopipe.table": t,
                                     "cocopipe.schema_version": schema.version(t)}, TABLE_PROPERTIES)
                for s in staged:
                    s.files.pop(t, None)
        except StoreError:
            raise
        except Exception as exc:  # noqa: BLE001
            raise write_failed(self.path, exc) from None

    def commit(self, staged: Staged, replace: Sequence[str] = (), *, expect: int | None = None,
               check: Callable[[Store], None] | None = None) -> list[str]:
        """Make a staged source visible under its key, replacing the earlier version of that key and the
        sources keyed `replace`, in one commit of the `sources` table.

        Where another writer committed first, the commit is made again on the newer table; with `expect`
        (the `sources` version the caller prepared on) it raises `Conflict` instead, for the caller to
        prepare again. `check(store)` runs on the snapshot each attempt is made on."""
        self.commit_all([staged], replace, expect=expect, check=check)
        return staged.tables

    def commit_all(self, staged: Sequence[Staged], replace: Sequence[str] = (), *, expect: int | None = None,
                   check: Callable[[Store], None] | None = None) -> None:
        """Make staged sources visible together, each under its key (as `commit` does one): one commit of the
        `sources` table. A source of the same content as one stored (and the same algorithm name) names that
        one's commit, and its own rows are deleted: stored once, counted once."""
        now_ = time.strftime("%Y-%m-%dT%H:%M:%S")
        gone = list(dict.fromkeys([*(_text(s.data.key) for s in staged), *(_text(k) for k in replace)]))

        def mine(s: Staged) -> dict:
            data = s.data
            entry = dict(data.meta, key=data.key, name=data.name, path=data.path, source_id=data.source_id,
                         schema_versions={t: schema.version(t) for t in s.tables})
            return {"key": _text(data.key), "name": _text(data.name), "path": _text(data.path),
                    "source_id": data.source_id, COMMIT: s.commit_id, "ingested": now_,
                    "entry": json.dumps(entry, sort_keys=True, default=str)}

        def rows(now: pl.DataFrame) -> list[dict]:
            """Each source's row: naming the commit of a stored source of the same content where there is one
            (its rows are this source's), else its own staged commit."""
            out = []
            for s in staged:
                row = mine(s)
                same = now.filter((pl.col("source_id") == s.data.source_id) & ~pl.col("key").is_in(gone))
                for other in same.iter_rows(named=True):
                    if json.loads(other["entry"]).get("algorithm_name") == s.data.meta.get("algorithm_name"):
                        row[COMMIT] = other[COMMIT]
                        break
                out.append(row)
            return out

        if check is not None:  # before the tables' commits too: a conflict found then leaves no row to roll back
            check(self.refresh())
        self._commit_files(staged)  # every table's files first; `sources` last, the point of visibility
        ids = {s.commit_id for s in staged}
        self._inflight.difference_update(ids)
        try:
            named = self._swap(SOURCES, _SOURCES_SCHEMA, "key", gone, rows, expect, check)
        except BaseException:
            self._inflight.update(ids)  # not committed: still this Store's to commit or discard
            raise
        shared = {}  # sources sharing a stored source's commit: their own rows are not needed
        for s, cid in zip(staged, named):
            if cid != s.commit_id:
                for t in s.tables:
                    shared.setdefault(t, []).append(s.commit_id)
        self._delete_commits(shared)

    def remove_source(self, key: str) -> None:
        """Delete a source (its rows go with it)."""
        if key not in self.refresh().sources():
            raise StoreError(f"{self.path}: no source {key!r}")
        self._swap(SOURCES, _SOURCES_SCHEMA, "key", [_text(key)], [], None, None)

    def write_source(self, data: SourceData, replace: Sequence[str] = ()) -> list[str]:
        """Add or replace one source (`stage`, then `commit`)."""
        return self.commit(self.stage(data), replace)

    def _swap(self, table: str, arrow_schema: pa.Schema, key: str, gone: Sequence[str],
              rows: list[dict] | Callable[[pl.DataFrame], list[dict]], expect: int | None,
              check: Callable[[Store], None] | None) -> list[str]:
        """Replace the whole small table `table` by itself less the rows keyed `gone`, plus `rows` (or what
        `rows(table as it is)` makes): one Delta commit, made again where another writer's came first. Then the
        rows of the commits it drops are deleted from the data tables, with those of writes that never
        committed (older than GRACE; looked for at a Store's first commit, when a commit drops one, and at
        every GARBAGE_EVERY-th version of `sources`: reading every table's commits at each commit cost an
        ingest of N sources O(N^2)). Returns the commits the new rows name."""
        for attempt in range(RETRIES):
            try:
                dt = open_table(self.uri(table))
                if dt is None and table == SOURCES:  # removed meanwhile (by an ingest that read nothing): made again
                    self._make_sources()
                    dt = open_table(self.uri(table))
                if dt is None and table == DERIVED:
                    dl.DeltaTable.create(self.uri(table), arrow_schema, mode="ignore", configuration=TABLE_PROPERTIES,
                                         storage_options=remote.delta_options(self.uri(table)))
                    dt = open_table(self.uri(table))
                if expect is not None and table == SOURCES and dt.version() != expect:
                    raise Conflict(f"{self.path}: another writer committed meanwhile")
                if check is not None:
                    self.refresh()
                    check(self)
                now = whole(dt)
                keep = now.filter(~pl.col(key).is_in(list(gone)))
                made = rows(now) if callable(rows) else rows
                new = pl.concat([keep, pl.DataFrame(made, schema=keep.schema)]) if made else keep
                # no retry inside delta-rs: it would make the commit again on the newer version without this
                # writer reading it (a second source of one content, a source another writer removed): here
                # the table is read again, and `rows` made on it
                dl.write_deltalake(dt, schema.as_schema(new.to_arrow(), arrow_schema), mode="overwrite",
                                   commit_properties=dl.CommitProperties(custom_metadata={"cocopipe.swap": table},
                                                                         max_commit_retries=0))
                dropped = {c for c in now[COMMIT].to_list()} - set(new[COMMIT].to_list())
                break
            except dl.exceptions.CommitFailedError:
                if expect is not None:
                    raise Conflict(f"{self.path}: another writer committed meanwhile") from None
                time.sleep(random.uniform(0.005, 0.05) * min(attempt + 1, 10))
            except StoreError:
                raise
            except Exception as exc:  # noqa: BLE001
                raise write_failed(self.path, exc) from None
        else:
            raise StoreError(f"{self.path}: could not commit after {RETRIES} attempts (other writers kept committing)")
        if table == SOURCES:  # the snapshot of the version just written: the table object is at it already
            self.__dict__.pop("_pins", None)
            self._snap = self._pinned(None, None, None, dt)
        else:
            self.refresh()
        if dropped or not self._collected or self.snapshot.version % GARBAGE_EVERY == 0:
            self._collected = True
            self.collect_garbage(dropped)
        return [r[COMMIT] for r in made]

    def collect_garbage(self, dropped: set[str] | frozenset = frozenset()) -> int:
        """Delete from the data tables the rows of `dropped` commits and of commits no table names that are
        older than GRACE (writes killed before their commit), and the cache files of commits gone GRACE ago; the
        number of commits deleted. Best effort: what cannot be deleted now stays invisible, for a later write."""
        tables = self._tables()
        named = set(self.snapshot.committed) | self._inflight
        todo: dict[str, list[str]] = {}
        leases: dict[str, bool] = {}
        root = self.location.uri
        for name, dt in tables.items():
            if dt is None:
                continue
            present = _commits_in(dt)
            old = {c for c in present - named if c in dropped or (commit_age(c) > GRACE and not writes.alive(
                root, writes.writer_of(c), leases))}
            if old:
                todo[name] = sorted(old)
        if any(c not in dropped for cs in todo.values() for c in cs):
            # the snapshot may be stale: a writer whose lease looked expired (it committed and released it since)
            # may be named by `sources` now. Its lease was looked at first and `sources` is read after, so a
            # write that commits its source before giving up its lease is never taken for garbage
            named_now = self._committed_now()
            todo = {n: [c for c in cs if c in dropped or c not in named_now] for n, cs in todo.items()}
        self._delete_commits(todo)
        self._expire_caches(named, dropped)
        staged = sum(self.collect_staged(leases).values())
        return len({c for cs in todo.values() for c in cs}) + staged

    def _committed_now(self) -> set[str]:
        """The commits the latest version of `sources` names (read now, past the snapshot); every commit of the
        data tables when it cannot be read (nothing is then taken for garbage)."""
        try:
            dt = open_table(self.uri(SOURCES))
            return set(whole(dt)[COMMIT].to_list()) if dt is not None else set()
        except Exception:  # noqa: BLE001 - unreadable for now: nothing deleted, for a later write
            return {c for dt in self._tables().values() if dt is not None for c in _commits_in(dt)}

    def collect_staged(self, leases: dict[str, bool] | None = None) -> dict[str, int]:
        """Delete the staged files of writes that never committed, whose writer's lease expired and that are
        older than GRACE: the batches deleted, by table."""
        out = {}
        for name in self.snapshot.names:
            n = writes.collect_staged(self.uri(name), self.location.uri, self.referenced(name), GRACE,
                                      {} if leases is None else leases)
            if n:
                out[name] = n
        return out

    def abandoned(self) -> dict[str, list[str]]:
        """The staged batches of writes that never committed and that a collection would delete, by table."""
        out, leases = {}, {}
        for name in self.snapshot.names:
            got = writes.abandoned(self.uri(name), self.location.uri, self.referenced(name), GRACE, leases)
            if got:
                out[name] = got
        return out

    def referenced(self, name: str) -> set[str]:
        """The files a table's latest version names, as paths relative to the table (as they are on disk)."""
        dt = open_table(self.uri(name))
        return {unquote(p) for p in _adds(dt)["path"]} if dt is not None else set()

    def _expire_caches(self, named: set[str], dropped: set[str] | frozenset) -> None:
        """Delete the cache files of commits no longer named GRACE seconds after their commit went: a reader
        that opened its snapshot before may still be reading them. A dropped commit's files are touched now
        (their time is the drop's), and any file of a commit not named (or a writer's leftover) goes once it is
        older than GRACE."""
        now = time.time()
        for d in self.cache_dirs():
            for f in d.iterdir():
                commit = f.name.split(".")[0]
                try:
                    if commit in dropped:
                        os.utime(f, (now, now))
                    elif commit not in named and now - f.stat().st_mtime > GRACE:
                        f.unlink()
                except OSError:  # gone already (another writer's collection), or not ours to delete: left
                    pass

    def _delete_commits(self, todo: dict[str, list[str]]) -> None:
        for name, commits in todo.items():
            if not commits:
                continue
            listed = ", ".join("'" + c.replace("'", "''") + "'" for c in commits)
            for _ in range(5):
                try:
                    dt = open_table(self.uri(name))
                    if dt is not None:
                        dt.delete(f"{COMMIT} IN ({listed})")
                    break
                except dl.exceptions.CommitFailedError:
                    time.sleep(random.uniform(0.01, 0.1))
                except Exception as exc:  # noqa: BLE001 - left invisible, for a later write
                    self.notices.append(f"{self.uri(name)}: rows of an earlier write not deleted yet ({_why(exc)})")
                    break

    # -- side tables: small Delta tables of the store outside the commit protocol (reference choices) --
    def replace_rows(self, table: str, df: pl.DataFrame, column: str, value: str) -> None:
        """Replace the rows of the side table `table` whose `column` is `value` by `df` (one Delta commit)."""
        literal = "'" + value.replace("'", "''") + "'"
        for attempt in range(20):
            try:
                if open_table(self.uri(table)) is None:
                    append(self.uri(table), df.to_arrow(), (), "")
                else:
                    dl.write_deltalake(self.uri(table), df.to_arrow(), mode="overwrite", predicate=f"{column} = {literal}",
                                       writer_properties=_writer_properties(),
                                       storage_options=remote.delta_options(self.uri(table)))
                return
            except dl.exceptions.CommitFailedError:
                time.sleep(random.uniform(0.01, 0.1) * (attempt + 1))
            except Exception as exc:  # noqa: BLE001
                raise write_failed(self.path, exc) from None
        raise StoreError(f"{self.uri(table)}: could not commit (other writers kept committing)")

    def scan_side(self, table: str) -> pl.LazyFrame | None:
        """Lazy scan of a side table (None where there is none)."""
        dt = open_table(self.uri(table))
        return scan_table(dt) if dt is not None else None

    def rewrite_sources(self, change: Callable[[pl.DataFrame], pl.DataFrame]) -> None:
        """Replace the `sources` table by `change(sources)` (same keys and commits; e.g. paths made
        machine-independent for a packaged store). Where another writer commits first, `change` is made again
        on the newer table (it must read what it needs anew each call)."""
        for attempt in range(RETRIES):
            try:
                dt = open_table(self.uri(SOURCES))
                new = change(whole(dt))
                dl.write_deltalake(dt, new.to_arrow().cast(_SOURCES_SCHEMA), mode="overwrite",
                                   commit_properties=dl.CommitProperties(max_commit_retries=0))
                break
            except dl.exceptions.CommitFailedError:
                time.sleep(random.uniform(0.005, 0.05) * min(attempt + 1, 10))
            except StoreError:
                raise
            except Exception as exc:  # noqa: BLE001
                raise write_failed(self.path, exc) from None
        else:
            raise StoreError(f"{self.path}: could not commit after {RETRIES} attempts (other writers kept committing)")
        self.refresh()

    def vacuum(self, side: Sequence[str] = ()) -> None:
        """Delete the files no table version needs any more, keeping only the latest versions (a store
        nobody else uses at the moment, e.g. one being packaged), and compact the logs; `side`: side
        tables to vacuum too."""
        for name in [SOURCES, DERIVED, *schema.TABLES, *(f"{DERIVED}/{n}" for n in self.derived()), *side]:
            dt = open_table(self.uri(name))
            if dt is not None:
                dt.vacuum(retention_hours=0, enforce_retention_duration=False, dry_run=False)
                dt.create_checkpoint()
                dt.cleanup_metadata()
        self.refresh()

    # -- derived tables: versions computed from the stored ones (e.g. a recomputed indicator) --
    def write_derived(self, name: str, table: str, df: pl.DataFrame, meta: dict | None = None) -> list[str]:
        """Write (or replace) a derived table: its rows appended under a new commit to `derived/NAME`, then
        named in the `derived` table (the point of visibility, as for a source)."""
        cid = new_commit_id()
        where = f"{DERIVED}/{name}"
        try:
            if df.height:
                append(self.uri(where), _with_commit(table, df, cid), schema.partition_columns(table), cid, table)
        except Exception as exc:  # noqa: BLE001
            raise write_failed(self.path, exc) from None
        entry = dict(meta or {}, table=table, rows=df.height)
        row = {"name": name, "table": table, COMMIT: cid, "created": time.strftime("%Y-%m-%dT%H:%M:%S"),
               "entry": json.dumps(entry, sort_keys=True, default=str)}
        self._swap(DERIVED, _DERIVED_SCHEMA, "name", [name], [row], None, None)
        return [where]

    def remove_derived(self, name: str) -> None:
        """Delete a derived table."""
        if name not in self.refresh().derived():
            raise StoreError(f"{self.path}: no derived table {name!r}")
        self._swap(DERIVED, _DERIVED_SCHEMA, "name", [name], [], None, None)


def check_names(data: SourceData) -> None:
    """StoreError (naming the source) where a partition value of its rows cannot name a folder."""
    for table, df in data.tables.items():
        if not df.height:
            continue
        for k in schema.partition_columns(table):  # a folder's name depends on its own column's value alone
            for v in df[k].unique(maintain_order=True).to_list():
                try:
                    hive.folder(k, str(v))
                except ValueError as exc:
                    raise StoreError(f"{data.path}: {exc}") from None


def _stream(table: str, parts: list[tuple[pl.DataFrame, str]]) -> Callable[[], pa.RecordBatchReader]:
    """The rows of several sources (frame, commit id) for one append, each made Arrow only when the writer
    reads it (the copies of a whole batch are never held at once); callable again for a retried append."""
    def batches():
        for df, cid in parts:
            yield from _with_commit(table, df, cid).to_batches()

    return lambda: pa.RecordBatchReader.from_batches(_with_commit(table, parts[0][0].clear(), parts[0][1]).schema,
                                                     batches())


def _with_commit(table: str, df: pl.DataFrame, commit_id: str) -> pa.Table:
    """A frame as rows of `table` (validated against its schema), with its partition columns and commit id."""
    parts = schema.partition_columns(table)
    body = schema.conform(table, df)
    keys = df.select(pl.col(p).cast(pl.String) for p in parts).to_arrow()  # Polars' strings: large_string
    cols = [*(keys.column(p) for p in parts), *body.columns,
            pa.repeat(pa.scalar(commit_id, pa.large_string()), df.height)]
    fields = [*(pa.field(p, pa.large_string(), False) for p in parts), *body.schema, pa.field(COMMIT, pa.large_string(), False)]
    return pa.Table.from_arrays(cols, schema=pa.schema(fields))


def _commits_in(dt) -> set[str]:
    """The commit ids a Delta table's files hold, from the statistics of its log (no file is read)."""
    adds = _adds(dt)
    lo, hi = f"min.{COMMIT}", f"max.{COMMIT}"
    if lo not in adds.columns:  # no statistics: read the column
        return set(scan_table(dt).select(COMMIT).unique().collect()[COMMIT].to_list())
    return set(pl.concat([adds[lo], adds[hi]]).drop_nulls().to_list())
