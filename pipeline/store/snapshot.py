"""Snapshots of a store: the versions of its tables one `Store` reads, the sources they hold, and reading a
Delta table with Polars."""
from __future__ import annotations

import json
import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import unquote

import polars as pl
import pyarrow as pa

from . import remote, schema, writes
from .delta import COMMIT, DERIVED, add_actions, file_paths, kept_for_version, table_root


def scan_table(dt) -> pl.LazyFrame:
    """Lazy scan of a Delta table: Polars' own reader, or for a local table whose folder's path Polars'
    reader misreads (a character delta-rs percent-encodes, a `k=v` folder taken for a partition) the
    same files read partition by partition, their paths as they are on disk, never taken as globs. Made
    once for a table's version."""
    return kept_for_version(dt, "scan", _scan_table)


def _scan_table(dt) -> pl.LazyFrame:
    root = table_root(dt)
    if "://" in root or (unquote(root) == root and "=" not in root):
        return pl.scan_delta(dt, storage_options=remote.polars_options(dt.table_uri))
    sch = pl.from_arrow(pa.schema(dt.schema().to_arrow()).empty_table()).schema
    parts = list(dt.metadata().partition_columns)
    body = {c: t for c, t in sch.items() if c not in parts}
    adds = add_actions(dt)
    if not adds.height:
        return pl.LazyFrame(schema=sch)
    frames = []
    for keys, grp in adds.group_by([f"partition.{c}" for c in parts] or [pl.lit(0)]):
        lf = pl.scan_parquet(file_paths(dt, grp), schema=body, missing_columns="insert", extra_columns="ignore",
                             hive_partitioning=False, glob=False)
        frames.append(lf.with_columns(pl.lit(v, sch[c]).alias(c) for c, v in zip(parts, keys)) if parts else lf)
    return pl.concat(frames).select(list(sch))


def frame_or_empty(dt, arrow_schema: pa.Schema) -> pl.DataFrame:
    """A small Delta table (sources, derived) whole, or empty with its schema where there is none."""
    if dt is None:
        return pl.from_arrow(arrow_schema.empty_table())
    return whole(dt)


def whole(dt) -> pl.DataFrame:
    """A small Delta table read whole by Polars' reader. Not `DeltaTable.to_pyarrow_table`: its pyarrow
    dataset scan leaves threads that can abort the interpreter at exit ("terminate called without an
    active exception", apache/arrow#34314); it did so in CI."""
    return scan_table(dt).collect()


def as_text(value: str | None) -> str | None:
    """A string as the table's UTF-8 can hold it: a path's bytes that are not UTF-8 (held as lone surrogates)
    written as `\\xe9` (the entry's JSON keeps the string itself)."""
    if value is None:
        return None
    return value.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def entry_of(row: dict) -> dict:
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


class Stale(Exception):
    """A data table no longer holds rows a snapshot's commits name (deleted since): take a newer snapshot."""


@dataclass
class Snapshot:
    """The versions of a store's tables that one `Store` reads, and what `sources` and `derived` hold then.

    The data tables are opened when first read: at the version pinned (a snapshot sent to a worker), else
    at their latest, which holds every row the snapshot's commits name (they were appended before their
    commit), unless a later write deleted the rows of a commit replaced since: then `Stale`, and the Store
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
    #: names this snapshot where a Store sends it (a worker's Stores of the same token share one: `shared`)
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
            if dt is not None and not pinned and self._expected(name) - commits_in(dt) \
                    and self.latest() != self.version:  # lost since by a later write (else lost files: `check` says)
                raise Stale(name)
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


def shared(key: tuple[str, str], make: Callable[[], Snapshot]) -> Snapshot:
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


def commits_in(dt) -> set[str]:
    """The commit ids a Delta table's files hold, from the statistics of its log (no file is read)."""
    adds = add_actions(dt)
    lo, hi = f"min.{COMMIT}", f"max.{COMMIT}"
    if lo not in adds.columns:  # no statistics: read the column
        return set(scan_table(dt).select(COMMIT).unique().collect()[COMMIT].to_list())
    return set(pl.concat([adds[lo], adds[hi]]).drop_nulls().to_list())
