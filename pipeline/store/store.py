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
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import deltalake as dl
import polars as pl
import pyarrow as pa

from . import garbage, integrity, remote, schema, writes
from . import side as side_tables
from .commits import (TABLE_PROPERTIES, Conflict, append, check_names, retrying, new_commit_id, stream, why, with_commit,
                      write_failed, writer_properties)
from .commits import commit_age  # noqa: F401 - importable from here
from .delta import COMMIT, DERIVED, SOURCES, add_actions, creation_cut_short, file_paths, open_table, table_columns
from .errors import StoreError, StoreWriteError  # noqa: F401 - importable from here
from .location import Location, LocationError, locate
from .snapshot import (SourceData, Staged, Snapshot, Stale, as_text, entry_of, frame_or_empty, scan_table, shared,
                       whole)
from .snapshot import commits_in  # noqa: F401 - importable from here

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
#: how often (in versions of `sources`) a commit also looks for the rows of writes that never committed
GARBAGE_EVERY = 10

_SOURCES_SCHEMA = pa.schema([pa.field("key", pa.large_string(), False), pa.field("name", pa.large_string(), False),
                             pa.field("path", pa.large_string(), True), pa.field("source_id", pa.large_string(), False),
                             pa.field(COMMIT, pa.large_string(), False), pa.field("ingested", pa.large_string(), True),
                             pa.field("entry", pa.large_string(), False)])
_DERIVED_SCHEMA = pa.schema([pa.field("name", pa.large_string(), False), pa.field("table", pa.large_string(), False),
                             pa.field(COMMIT, pa.large_string(), False), pa.field("created", pa.large_string(), True),
                             pa.field("entry", pa.large_string(), False)])












































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
                                                                    for t, dt in self.tables_opened().items()}, snap.token)
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
                    and not creation_cut_short(folder):
                raise StoreError(f"{folder}: folder is not empty and holds no store")
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(f"{folder}: cannot create the store ({why(exc)})") from None
        try:
            self._make_sources()
            self.created = True
        except dl.exceptions.CommitFailedError:
            pass  # another process made it first
        except Exception as exc:  # noqa: BLE001 - delta-rs and object stores raise many kinds
            raise StoreError(f"{self.path}: cannot create the store ({why(exc)})") from None

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
        return StoreError(integrity.damage_said(self) or f"{self.path}: cannot read the store ({why(exc)})")

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

    def _fresh(self, read: Callable[[Snapshot], object]):
        """`read(snapshot)`, made again on a newer snapshot where a data table lost rows the snapshot names."""
        for _ in range(20):
            try:
                return read(self.snapshot)
            except Stale:
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
            sources = frame_or_empty(src, _SOURCES_SCHEMA)
            derived = frame_or_empty(der, _DERIVED_SCHEMA)
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

                self._snap = shared((str(self.path), token), make)
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
                e = entry_of(r)
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
        have = table_columns(dt)
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
        adds = add_actions(dt)
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
        """StoreError (one line naming the file) unless every file of committed rows is there whole and every
        source counts the rows its tables' logs hold (`integrity.verify_files`): a read never misses data."""
        integrity.verify_files(self)

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
        return self.stage_all([data], [commit_id or new_commit_id(self.writer)])[0]

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
            mark = writes.hold(self.location.uri, self.writer).mark()
            for table in dict.fromkeys(t for data in sources for t in data.tables):
                rows = [(i, data.tables[table]) for i, data in enumerate(sources)
                        if table in data.tables and data.tables[table].height]
                if not rows:
                    continue
                folder = f"{writes.WRITES}/{self.writer}/{cids[rows[0][0]]}"
                files[table] = writes.stage_files(self.uri(table), folder, stream(table, [(df, cids[i]) for i, df in rows])(),
                                                  list(schema.partition_columns(table)), writer_properties())
                for i, _ in rows:
                    written[i].append(table)
        except StoreError:
            raise
        except Exception as exc:  # noqa: BLE001 - a full disk, a read-only store, a lost connection
            for t, f in files.items():
                writes.discard_files(self.uri(t), f)
            raise write_failed(self.path, exc) from None
        return [Staged(data, cid, tables, {t: files[t] for t in tables}, mark)
                for data, cid, tables in zip(sources, cids, written)]

    def discard(self, staged: Staged) -> None:
        """Delete the files and rows of a staged source that will not be committed (best effort: what is left
        is named by no table, or by no source, and collected later)."""
        self._inflight.discard(staged.commit_id)
        garbage.discard(self, staged)

    def scan_staged(self, staged: Staged, table: str) -> pl.LazyFrame:
        """The rows of a staged source in a table, read from its staged files (committed or not)."""
        sch = schema.polars_schema(table)
        f = staged.files.get(table)
        if f is None:  # committed (or none staged)
            return self.scan_commit(table, staged.commit_id) if table in staged.tables else pl.LazyFrame(schema=sch)
        dt = open_table(f"{self.uri(table).rstrip('/')}/{f.folder}")
        return scan_table(dt).filter(pl.col(COMMIT) == staged.commit_id).select(list(sch))

    def _commit_files(self, staged: Sequence[Staged]) -> dict[str, set[str]]:
        """Commit the staged files of `staged` to their tables (one Delta commit a table); StoreError naming the
        files where a collection removed some while this writer was paused. The files committed, by table."""
        done: dict[str, set[str]] = {}
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
                done[t] = {p for f in folders.values() for p in writes.paths(f)}
                for s in staged:
                    s.files.pop(t, None)
        except StoreError:
            raise
        except Exception as exc:  # noqa: BLE001
            raise write_failed(self.path, exc) from None
        return done

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
        gone = list(dict.fromkeys([*(as_text(s.data.key) for s in staged), *(as_text(k) for k in replace)]))

        def mine(s: Staged) -> dict:
            data = s.data
            entry = dict(data.meta, key=data.key, name=data.name, path=data.path, source_id=data.source_id,
                         schema_versions={t: schema.version(t) for t in s.tables})
            return {"key": as_text(data.key), "name": as_text(data.name), "path": as_text(data.path),
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
        garbage.not_fenced(self, staged)  # no collection took this writer for dead and is deleting its files
        done = self._commit_files(staged)  # every table's files first; `sources` last, the point of visibility
        mark = garbage.still_whole(self, staged, done)  # never a source whose rows another writer rolled back
        ids = {s.commit_id for s in staged}
        self._inflight.difference_update(ids)
        try:
            named = self._swap(SOURCES, _SOURCES_SCHEMA, "key", gone, rows, expect, check)
        except StoreWriteError:  # the commit may have been made on the server, its answer lost: looked for
            if not ids & (garbage.sources_commits(self) or set()):
                self._inflight.update(ids)  # not committed: still this Store's to commit or discard
                raise
            named = [s.commit_id for s in staged]  # committed (its rows shared with another source's: left to a
            self.refresh()  # collection)
        except BaseException:
            self._inflight.update(ids)  # not committed: still this Store's to commit or discard
            raise
        garbage.after_commit(self, staged, done, mark)  # a pause just before the commit: told, never silent
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
        self._swap(SOURCES, _SOURCES_SCHEMA, "key", [as_text(key)], [], None, None)

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
        def attempt() -> tuple[dl.DeltaTable, set[str], list[dict]]:
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
            return dt, dropped, made

        def conflict() -> None:
            if expect is not None:
                raise Conflict(f"{self.path}: another writer committed meanwhile")

        dt, dropped, made = retrying(self.path, attempt, RETRIES, conflict)
        if table == SOURCES:  # the snapshot of the version just written: the table object is at it already
            self.__dict__.pop("_pins", None)
            self._snap = self._pinned(None, None, None, dt)
        else:
            self.refresh()
        if dropped or not self._collected or self.snapshot.version % GARBAGE_EVERY == 0:
            self._collected = True
            self.collect_garbage(dropped)
        return [r[COMMIT] for r in made]

    def tables_opened(self) -> dict[str, object]:
        """Every data table of the snapshot, opened (a newer snapshot where one lost rows it names)."""
        return self._fresh(lambda snap: snap.tables)

    def collect_garbage(self, dropped: set[str] | frozenset = frozenset()) -> int:
        """Delete from the data tables the rows of `dropped` commits and of commits no `sources` names older than
        GRACE (writes killed before their commit), stale staged and cache files: `garbage.collect`."""
        return garbage.collect(self, GRACE, dropped)

    def collect_staged(self, leases: dict[str, bool] | None = None) -> dict[str, int]:
        """Delete the staged files of dead writers older than GRACE: the batches deleted, by table."""
        return garbage.collect_staged(self, GRACE, leases)

    def abandoned(self) -> dict[str, list[str]]:
        """The staged batches of writes that never committed and that a collection would delete, by table."""
        return garbage.abandoned(self, GRACE)

    def _delete_commits(self, todo: dict[str, list[str]]) -> None:
        garbage.delete_commits(self, todo)

    def referenced(self, name: str) -> set[str]:
        """The files a table's latest version names, as paths relative to the table (as they are on disk)."""
        return garbage.referenced(self, name)

    # -- side tables: small Delta tables of the store outside the commit protocol (reference choices): `side` --
    def replace_rows(self, table: str, df: pl.DataFrame, column: str, value: str) -> None:
        """Replace the rows of the side table `table` whose `column` is `value` by `df` (one Delta commit)."""
        side_tables.replace_rows(self, table, df, column, value)

    def scan_side(self, table: str) -> pl.LazyFrame | None:
        """Lazy scan of a side table (None where there is none)."""
        return side_tables.scan_side(self, table)

    def rewrite_sources(self, change: Callable[[pl.DataFrame], pl.DataFrame]) -> None:
        """Replace the `sources` table by `change(sources)` (same keys and commits), made again on the newer table
        where another writer commits first (`side.rewrite_sources`)."""
        side_tables.rewrite_sources(self, change, _SOURCES_SCHEMA, RETRIES)

    def vacuum(self, side: Sequence[str] = ()) -> None:
        """Delete the files no table version needs any more and compact the logs (`side.vacuum`)."""
        side_tables.vacuum(self, side)

    # -- derived tables: versions computed from the stored ones (e.g. a recomputed indicator) --
    def write_derived(self, name: str, table: str, df: pl.DataFrame, meta: dict | None = None) -> list[str]:
        """Write (or replace) a derived table: its rows appended under a new commit to `derived/NAME`, then
        named in the `derived` table (the point of visibility, as for a source)."""
        cid = new_commit_id()
        where = f"{DERIVED}/{name}"
        try:
            if df.height:
                append(self.uri(where), with_commit(table, df, cid), schema.partition_columns(table), cid, table)
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


