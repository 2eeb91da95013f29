"""The Parquet store: hive-partitioned tables, a manifest of sources, atomic source replacement.

Writers hold the store's writer lock (`Store.writing`, see `lock`); each commit moves a staged
source's files into place and replaces the manifest (the commit point) under a journal, so that a
crash at any moment leaves the store as before or after it: the next writer (or any process that
finds the writer lock free) finishes or rolls back the interrupted commit. Files are named by the
content hash of their source (`<source_id>.parquet`): two sources of identical content list the
same files, and a file goes only when no source lists it any more (likewise the files of caches
computed from sources, `Store.cache_dir`).
"""
from __future__ import annotations

import glob
import json
import os
import shutil
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from . import hive, lock, manifest as mf, schema
from .errors import StoreBusy, StoreError, StoreWriteError
from .walk import files_named, folders, walk
from ..words import plural

MANIFEST = mf.FILE
JOURNAL = ".journal.json"
DERIVED = "derived"
FORMAT = mf.FORMAT


def _write_parquet(tbl: pa.Table, out: Path) -> None:
    """Write one zstd-compressed Parquet file; dictionary encoding only for string columns (on
    numbers it makes the files larger and slower to write: docs/internals.md)."""
    strings = [f.name for f in tbl.schema if pa.types.is_string(f.type) or pa.types.is_large_string(f.type)]
    pq.write_table(tbl, out, compression="zstd", row_group_size=1 << 20, use_dictionary=strings)


def write_manifest(folder: Path, data: dict) -> None:
    """Replace the manifest of the store in `folder` atomically."""
    _write_atomic(folder / MANIFEST, json.dumps(data, indent=1, sort_keys=True))


def write_journal(folder: Path, journal: dict) -> None:
    """Write the journal of a commit about to begin (`Store._journaled`)."""
    _write_atomic(folder / JOURNAL, json.dumps(journal))


def _write_atomic(path: Path, text: str) -> None:
    """Replace a file by a whole new text (written beside it, then renamed; no trace left when it fails)."""
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}")
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_failed(folder: Path, exc: OSError) -> StoreWriteError:
    """The one-line error of a write to the store that failed (a full disk, a read-only file system)."""
    why = exc.strerror or " ".join(str(exc).split())
    return StoreWriteError(f"{folder}: cannot write to the store ({why}); the store is left as it was")


def laid_out(folder: Path) -> bool:
    """Whether a folder holds a store's runs files (`runs/key=value/.../*.parquet`), its manifest aside."""
    return (folder / "runs").is_dir() and any(
        "=" in p.parent.name for p in files_named(folder / "runs", ".parquet"))


def foreign_files(folder: Path, table: str) -> Iterator[str]:
    """The files and folders under a table's folder that the store did not put there (anything but
    `key=value` partition folders holding `.parquet` files), relative to the store."""
    root = folder / table
    depth = len(schema.partition_columns(table))
    for here, dirs, files in walk(root):
        level = len(Path(here).relative_to(root).parts)
        for d in sorted(dirs):
            if d.startswith(".") or "=" not in d or level >= depth:
                dirs.remove(d)
                yield Path(here, d).relative_to(folder).as_posix()
        for f in sorted(files):
            if f.startswith(".") or not f.endswith(".parquet") or level != depth:
                yield Path(here, f).relative_to(folder).as_posix()


def foreign_file(folder: Path, table: str) -> str | None:
    """The first of `foreign_files`, None where there is none."""
    return next(foreign_files(folder, table), None)


def partition_path(table_parts: Sequence[str], keys: Sequence) -> Path:
    """The partition folders of one group of rows (`suite=.../algorithm=...`), values percent-encoded."""
    return Path(*(hive.folder(k, str(v)) for k, v in zip(table_parts, keys)))


@dataclass
class SourceData:
    """Everything one source contributes to the store; `key` is its identity in the manifest
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
    """A source's files written to a staging folder, waiting for `Store.commit`."""

    data: SourceData
    txn: str
    added: list[str]


class Store:
    """A cocopipe store folder: the tables `runs`, `events` (and `archive`, `params`) as hive-partitioned
    Parquet, and the manifest of the sources they come from (docs/store.md).

    Parameters
    ----------
    path : str or path
        The folder.
    create : bool
        Make it a new, empty store when it is none yet (safe when another process does the same).

    Raises
    ------
    StoreError
        When the folder is no store (and `create` is False), or its manifest cannot be read.

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

    def __init__(self, path: str | os.PathLike, *, create: bool = False):
        self.path = Path(path)
        #: what opening or writing changed on its own (an upgraded manifest, a finished interrupted write)
        self.notices: list[str] = []
        #: told when a lock makes this process wait
        self.on_wait: Callable[[str], None] | None = None
        self._read_hold = None
        if create:
            self._create()
        if not (self.path / MANIFEST).is_file():
            if (self.path / MANIFEST).exists() or laid_out(self.path):
                why = "not a regular file" if (self.path / MANIFEST).exists() else "missing beside the store's files"
                raise StoreError(f"{self.path / MANIFEST}: {why}; `cocopipe check --store {self.path} --repair` "
                                 "rebuilds it from the store's files")
            raise StoreError(f"{self.path}: not a cocopipe store (no {MANIFEST}); run `cocopipe ingest` first")
        self.manifest  # noqa: B018 - a corrupt manifest is a one-line error here, not at its first use
        if (self.path / JOURNAL).exists():
            self._recover_if_free()

    def __getstate__(self) -> dict:
        """What a worker process gets: the folder, not this process's lock hold or callbacks."""
        return dict(self.__dict__, _read_hold=None, on_wait=None)

    def _create(self) -> None:
        """Make the folder a new store (safe when another process does the same at once)."""
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            if (self.path / MANIFEST).exists():
                return
            if any(p for p in self.path.iterdir() if not p.name.startswith(".") and p.name != MANIFEST):
                if not (self.path / MANIFEST).exists():
                    if laid_out(self.path):
                        raise StoreError(f"{self.path / MANIFEST}: missing beside the store's files; `cocopipe check "
                                         f"--store {self.path} --repair` rebuilds it from them")
                    raise StoreError(f"{self.path}: folder is not empty and holds no {MANIFEST}")
                return
            tmp = self.path / f".new-store-{uuid.uuid4().hex}"  # not a writer's: no writer cleans it up
            tmp.write_text(json.dumps(mf.empty(self._versions()), indent=1, sort_keys=True))
            try:
                os.link(tmp, self.path / MANIFEST)  # fails where another process made it meanwhile
            except FileExistsError:
                pass
            except OSError:  # no hard links on this file system
                if not (self.path / MANIFEST).exists():
                    os.replace(tmp, self.path / MANIFEST)
            tmp.unlink(missing_ok=True)
            (self.path / lock.READ_LOCK).touch()  # readers take it from the start
        except OSError as exc:
            raise StoreError(f"{self.path}: cannot create the store ({exc.strerror})") from None

    # -- manifest --------------------------------------------------------------------------
    @staticmethod
    def _versions() -> dict:
        return {t: schema.version(t) for t in schema.TABLES}

    def stamp(self) -> int | None:
        """The manifest's modification time (ns): it changes with every commit, so what was read from the
        store can be kept until it does. None without a manifest."""
        try:
            return (self.path / MANIFEST).stat().st_mtime_ns
        except OSError:
            return None

    @property
    def manifest(self) -> dict:
        """The store's manifest, as the file holds it now (docs/store.md: its fields).

        Examples
        --------
        >>> m = Store("cocopipe-store").manifest
        >>> m["format"], m["manifest_version"], sorted(m["schema_versions"])[:2]
        ('cocopipe-store', 2, ['archive', 'events'])
        """
        p = self.path / MANIFEST
        try:
            text = p.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise StoreError(f"{self.path}: not a cocopipe store (no {MANIFEST})") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise StoreError(f"{p}: cannot read the manifest ({exc})") from None
        return mf.parse(text, p)

    def _write_manifest(self, data: dict) -> None:
        write_manifest(self.path, data)

    def sources(self) -> dict[str, dict]:
        """Sources in the store, by key (their full path, or the name given to them).

        Returns
        -------
        dict
            key -> the manifest's entry: name, path, source_id, files, runs, suites, algorithms, ...

        Examples
        --------
        >>> [e["runs"] for e in Store("cocopipe-store").sources().values()]
        [360, 1080, 1080]
        """
        return self.manifest["sources"]

    # -- locks -----------------------------------------------------------------------------
    @contextmanager
    def writing(self, wait: float = 0) -> Iterator[Store]:
        """Hold the store's writer lock (a context manager): one writer at a time.

        The first hold of a process finishes an interrupted write, removes what crashed writers staged
        and upgrades an older manifest.

        Parameters
        ----------
        wait : float
            Seconds to wait for another writer, then `StoreBusy`.

        Examples
        --------
        >>> store = Store("cocopipe-store")
        >>> with store.writing():
        ...     pass  # several writes in one hold: ingest(..., store), write_source(...)
        """
        with lock.writer(self.path, wait, self.on_wait) as first:
            if first:
                self._prepare_write()
            yield self

    @contextmanager
    def reading(self) -> Iterator[Store]:
        """Hold the store's read lock (a context manager): no commit of another process happens meanwhile.

        Examples
        --------
        >>> store = Store("cocopipe-store")
        >>> with store.reading():
        ...     store.runs().collect().height
        2520
        """
        with lock.reading(self.path):
            yield self

    def hold_reading(self) -> Store:
        """Hold the read lock until the process ends (a command's consistent view of the store)."""
        if self._read_hold is None:
            self._read_hold = lock.reading(self.path)
            self._read_hold.__enter__()
        return self

    def _prepare_write(self) -> None:
        if (self.path / JOURNAL).exists():
            with lock.committing(self.path, self.on_wait):
                self._recover()
        left = [*self.path.glob(".stage-*"), *self.path.glob(".trash-*")]  # no writer is left to own them
        for p in left:
            shutil.rmtree(p, ignore_errors=True)
        if left:
            self.notices.append(f"{self.path}: removed {plural(len(left), 'staging folder')} left by a write that did "
                                "not finish")
        for p in [*self.path.glob(f".{glob.escape(MANIFEST)}.*"), *self.path.glob(f".{glob.escape(JOURNAL)}.*")]:
            p.unlink(missing_ok=True)  # a replacement cut short
        data, message = mf.upgrade(self.manifest)
        if message:
            self._write_manifest(data)
            self.notices.append(f"{self.path}: {message}")

    def _recover_if_free(self) -> None:
        """Finish or roll back an interrupted write, when no writer is at work (else it will)."""
        if not lock.try_writer(self.path):
            return
        try:
            with self.writing():
                pass
        except StoreBusy:
            pass  # a writer came first: it does the same
        except (StoreError, OSError):
            self.notices.append(f"{self.path}: an interrupted write was not finished (the store cannot be "
                                "written here); it is read as it is: run `cocopipe check --repair` with write access")

    # -- reading ---------------------------------------------------------------------------
    def scan(self, table: str, root: Path | None = None) -> pl.LazyFrame:
        """Lazy scan of a table (or of a derived copy under `root`); filters on suite and algorithm
        read only their partitions.

        Parameters
        ----------
        table : str
            runs, events, archive or params (schemas/).
        root : path, optional
            The folder of a derived copy.

        Returns
        -------
        polars.LazyFrame
            The table's columns (schemas/TABLE.json), suite and algorithm included.

        Examples
        --------
        >>> Store("cocopipe-store").scan("events").filter(algorithm="NM").select("best_delta").collect().height
        106945
        """
        sch = schema.polars_schema(table)
        if not self.path.is_dir():  # gone, or not visible here (a Ray task's node)
            raise StoreError(f"{self.path}: no such store folder")
        self.verify()
        root = self.path / table if root is None else root
        if not root.is_dir() or not any(files_named(root, ".parquet")):
            return pl.LazyFrame(schema=sch)
        return schema.scan(table, root)

    def verify(self) -> None:
        """StoreError (one line naming the file) unless the files of the store are those its manifest
        lists: every listed file is there, and the table folders hold nothing else (no file put there by
        hand, none left by a write that did not finish), so that a read never silently misses data or
        reads what is not part of the store. Checked once per commit (`stamp`): a stat per file."""
        stamp = self.stamp()
        if stamp is not None and self.__dict__.get("_verified") == stamp:
            return
        for _ in range(3):
            problem = self._unverified()
            now = self.stamp()
            if problem is None or now == stamp:  # else a commit came in between: look again
                break
            stamp = now
        if problem is not None:
            raise StoreError(problem)
        self.__dict__["_verified"] = stamp

    def _unverified(self) -> str | None:
        """What `verify` finds wrong (None: nothing)."""
        m = self.manifest
        repair = f"`cocopipe check --store {self.path} --repair`"
        owners = [(f"source {k}", e["files"]) for k, e in m["sources"].items()]
        owners += [(f"derived table {k}", d.get("files", [])) for k, d in m.get("derived", {}).items()]
        listed = set()
        for owner, files in owners:
            listed.update(files)
            for rel in files:
                if not os.path.isfile(self.path / rel):
                    return (f"{self.path / rel}: missing from the store (listed by {owner}); {repair} drops what is "
                            "lost (re-ingest the source to restore it)")
        for table in schema.TABLES:
            stray = foreign_file(self.path, table)
            if stray:
                return (f"{self.path / stray}: not a file of the store, in its {table} table; move it out of the "
                        f"store ({repair} moves it aside)")
        if (self.path / JOURNAL).exists():  # an interrupted write no one could finish here: read as it is
            return None
        tops = [*schema.TABLES, *(f"{DERIVED}/{k}" for k in m.get("derived", {}))]
        for top in tops:
            for here, _, files in walk(self.path / top):
                for f in sorted(files):
                    rel = Path(here, f).relative_to(self.path).as_posix()
                    if rel not in listed:
                        return (f"{self.path / rel}: in the store but listed by no source (left by a write that "
                                f"did not finish, or put there by hand); {repair} takes it in or moves it aside")
        return None

    def runs(self) -> pl.LazyFrame:
        """The `runs` table: one row per trial (schemas/runs.json)."""
        return self.scan("runs")

    def events(self) -> pl.LazyFrame:
        """The `events` table: one row per logged record (schemas/events.json)."""
        return self.scan("events")

    def archive(self) -> pl.LazyFrame:
        """The `archive` table (solutions of bbob-biobj .adat files)."""
        return self.scan("archive")

    # -- derived tables: versions computed from the stored ones (e.g. a recomputed indicator) --
    def derived(self) -> dict[str, dict]:
        """Derived tables in the store, by name, with what the manifest records of them."""
        return self.manifest.get("derived", {})

    def scan_derived(self, name: str) -> pl.LazyFrame:
        """Lazy scan of a derived table (with the schema of the table it derives from)."""
        entry = self.derived().get(name)
        if entry is None:
            raise StoreError(f"{self.path}: no derived table {name!r}")
        return self.scan(entry["table"], self.path / DERIVED / name)

    def write_derived(self, name: str, table: str, df: pl.DataFrame, meta: dict | None = None) -> list[str]:
        """Write (or replace) a derived table atomically, journaled as a source's commit (a kill at any
        moment leaves the earlier table or the new one): the files go under `derived/NAME/`,
        partitioned and validated like `table`; `meta` is recorded in the manifest."""
        with self.writing():
            txn = uuid.uuid4().hex
            stage = self._stage(txn)
            parts = schema.partition_columns(table)
            added: list[str] = []
            try:
                stage.mkdir()
                for keys, part in df.group_by(parts, maintain_order=True):
                    rel = Path(DERIVED) / name / partition_path(parts, keys) / "part.parquet"
                    pq.write_table(schema.conform(table, part.drop(parts)), stage / f"{len(added)}.parquet",
                                   compression="zstd", row_group_size=1 << 20)
                    added.append(rel.as_posix())
            except BaseException as exc:
                shutil.rmtree(stage, ignore_errors=True)
                if isinstance(exc, OSError):
                    raise write_failed(self.path, exc) from None
                raise
            m = self.manifest
            old = m.get("derived", {}).get(name, {}).get("files", [])
            entry = dict(meta or {}, table=table, files=added, created=time.strftime("%Y-%m-%dT%H:%M:%S"))
            new = dict(m, derived={**m.get("derived", {}), name: entry}, txn=txn)
            self._journaled(new, txn, {rel: k for k, rel in enumerate(added)}, sorted(set(old) - set(added)), [])
            return added

    def remove_derived(self, name: str) -> None:
        """Delete a derived table and its files (atomically, under the writer lock)."""
        with self.writing():
            m = self.manifest
            if name not in m.get("derived", {}):
                raise StoreError(f"{self.path}: no derived table {name!r}")
            txn = uuid.uuid4().hex
            derived = {k: d for k, d in m["derived"].items() if k != name}
            self._journaled(dict(m, derived=derived, txn=txn), txn, {}, sorted(m["derived"][name]["files"]), [])

    # -- caches: files computed from sources, kept beside them (e.g. first hitting times) ------
    def cache_dir(self, name: str) -> Path:
        """The folder of the cache `name`, under derived/ (made by its owner, who lays out its files).

        The store lists no cache in its manifest; a cache file named `<source_id>.<suffix>` goes with
        its source: the store deletes it when no source of that content is left, or when it writes that
        source's files anew.

        Examples
        --------
        >>> Store("cocopipe-store").cache_dir("hits-cocopp-v3").relative_to("cocopipe-store").as_posix()
        'derived/hits-cocopp-v3'
        """
        return self.path / DERIVED / name

    def cache_dirs(self) -> list[Path]:
        """The cache folders of the store: the folders under derived/ that hold no derived table."""
        root = self.path / DERIVED
        if not root.is_dir():
            return []
        tables = set(self.derived())
        return sorted(p for p in root.iterdir() if p.is_dir() and p.name not in tables and not p.name.startswith("."))

    # -- writing ---------------------------------------------------------------------------
    def has(self, key: str, source_id: str, algorithm_name: str | None = None) -> bool:
        """Whether the source `key` is stored with this content (and algorithm name given to it).

        Parameters
        ----------
        key : str
            The source's key (its full path, or the name given).
        source_id : str
            Its content hash.
        algorithm_name : str, optional
            The algorithm name given to it at ingest.
        """
        s = self.sources().get(key)
        return bool(s) and s["source_id"] == source_id and s.get("algorithm_name") == algorithm_name

    def write_source(self, data: SourceData, replace: Sequence[str] = ()) -> list[str]:
        """Add or replace one source atomically (`stage`, then `commit`, under the writer lock).

        Parameters
        ----------
        data : SourceData
            The source's tables and manifest entry.
        replace : sequence of str
            Keys of stored sources it replaces, in the same commit.

        Returns
        -------
        list of str
            The files written, relative to the store.
        """
        with self.writing():
            return self.commit(self.stage(data), replace)

    def stage(self, data: SourceData) -> Staged:
        """Write a source's files into a staging folder of their own, not yet part of the store
        (safe from several threads at once; `commit` makes them part of it). The folder is flat:
        the k-th file of `added` is `k.parquet` there. Needs the writer lock (`writing`)."""
        if not lock.holds_writer(self.path):
            raise StoreError(f"{self.path}: stage() outside `with store.writing():`")
        txn = uuid.uuid4().hex
        stage = self._stage(txn)
        added: list[str] = []
        try:
            stage.mkdir()
            for table, df in data.tables.items():
                parts = schema.partition_columns(table)
                if df.height == 0:
                    continue
                for keys, part in df.group_by(parts, maintain_order=True):
                    try:
                        folder = partition_path(parts, keys)
                    except ValueError as exc:
                        raise StoreError(f"{data.path}: {exc}") from None
                    rel = Path(table) / folder / f"{data.source_id}.parquet"
                    _write_parquet(schema.conform(table, part.drop(parts)), stage / f"{len(added)}.parquet")
                    added.append(rel.as_posix())
        except BaseException as exc:
            shutil.rmtree(stage, ignore_errors=True)
            if isinstance(exc, OSError):
                raise write_failed(self.path, exc) from None
            raise
        return Staged(data, txn, added)

    def _stage(self, txn: str) -> Path:
        """The staging folder of a write."""
        return self.path / f".stage-{txn}"

    @contextmanager
    def _discarding(self, staged: Staged) -> Iterator[None]:
        """Delete what was staged when its commit fails before it began (a busy store)."""
        try:
            yield
        except BaseException:
            if not (self.path / JOURNAL).exists():
                self.discard(staged)
            raise

    def discard(self, staged: Staged) -> None:
        """Delete a staged source that will not be committed."""
        shutil.rmtree(self._stage(staged.txn), ignore_errors=True)

    def commit(self, staged: Staged, replace: Sequence[str] = ()) -> list[str]:
        """Make a staged source part of the store under its key, replacing the earlier version of
        that key and the sources keyed `replace`, atomically (one commit at a time: call from one
        thread). A file another source lists too (identical content) is left as it is."""
        data = staged.data
        with self.writing(), self._discarding(staged):
            m = self.manifest
            gone = [k for k in dict.fromkeys([data.key, *replace]) if k in m["sources"]]
            others = {f for k, e in m["sources"].items() if k not in gone for f in e["files"]}
            moves = {rel: k for k, rel in enumerate(staged.added)
                     if not (rel in others and (self.path / rel).is_file())}
            entry = dict(data.meta, name=data.name, path=data.path, source_id=data.source_id, files=staged.added,
                         ingested=time.strftime("%Y-%m-%dT%H:%M:%S"))
            self._apply(m, {**dict.fromkeys(gone), data.key: entry}, staged.txn, moves)
        return staged.added

    def remove_source(self, key: str) -> None:
        """Delete a source, and the files no other source lists (atomically, under the writer lock).

        Parameters
        ----------
        key : str
            The source's key (`sources()`).
        """
        with self.writing():
            m = self.manifest
            if key not in m["sources"]:
                raise StoreError(f"{self.path}: no source {key!r}")
            self._apply(m, {key: None}, uuid.uuid4().hex, {})

    def _apply(self, m: dict, changes: dict[str, dict | None], txn: str, moves: dict[str, int]) -> None:
        """Commit `changes` (source key -> new entry, or None to remove it), moving the staged files
        `moves` (store path -> number in the staging folder of `txn`) into place: journaled, so that
        a crash at any point is rolled back (before the manifest is replaced) or finished (after)."""
        before = m["sources"]
        after = {k: e for k, e in before.items() if k not in changes}
        after.update((k, e) for k, e in changes.items() if e is not None)
        listed = {f for e in after.values() for f in e["files"]}
        old = [before[k] for k in changes if k in before]
        removed = sorted({f for e in old for f in e["files"]} - listed)
        rewritten = {e.get("source_id") for e in changes.values() if e and any(f in moves for f in e["files"])}
        uncache = sorted(({e.get("source_id") for e in old} - {e.get("source_id") for e in after.values()}
                          | rewritten) - {None, ""})  # cache files of sources gone or written anew
        new = dict(m, sources=after, schema_versions=self._versions(), manifest_version=mf.VERSION, txn=txn)
        self._journaled(new, txn, moves, removed, uncache)

    def _journaled(self, new: dict, txn: str, moves: dict[str, int], removed: list[str], uncache: list[str]) -> None:
        """Replace the manifest by `new` (whose `txn` is `txn`), moving the staged files `moves` into place
        first and deleting the files `removed` (and the cache files of the source ids `uncache`) after,
        under a journal: a crash at any point is rolled back (before the manifest is replaced) or
        finished (after)."""
        journal = {"txn": txn, "stage": self._stage(txn).name, "trash": f".trash-{txn}", "added": list(moves),
                   "existed": [rel for rel in moves if (self.path / rel).exists()], "removed": removed,
                   "uncache": uncache}
        with lock.committing(self.path, self.on_wait):
            try:
                self._write_journal(journal)
            except OSError as exc:  # nothing changed yet
                raise write_failed(self.path, exc) from None
            try:
                trash = self.path / journal["trash"]
                for rel in journal["existed"]:  # kept for a roll-back; readers never miss the file
                    dst = trash / rel
                    dst.parent.mkdir(parents=True, exist_ok=True)
                    try:
                        os.link(self.path / rel, dst)
                    except OSError:
                        shutil.copy2(self.path / rel, dst)
                stage = self._stage(txn)
                for rel, k in moves.items():
                    dst = self.path / rel
                    dst.parent.mkdir(parents=True, exist_ok=True)
                    os.replace(stage / f"{k}.parquet", dst)
                self._write_manifest(new)  # the commit point
            except BaseException as exc:
                try:
                    self._recover()
                except Exception:  # noqa: BLE001 - the journal stays: the next writer finishes it
                    pass
                if isinstance(exc, OSError):
                    raise write_failed(self.path, exc) from None
                raise
            self._finish(journal)

    def _write_journal(self, journal: dict) -> None:
        write_journal(self.path, journal)

    def _finish(self, journal: dict) -> None:
        """The end of a commit: files no source lists are deleted, with the cache files of the sources
        gone or written anew (`cache_dir`)."""
        for rel in journal["removed"]:
            (self.path / rel).unlink(missing_ok=True)
        if journal["uncache"]:
            folders = self.cache_dirs()
            for source_id in journal["uncache"]:
                for d in folders:
                    for f in d.glob(f"{glob.escape(source_id)}.*"):
                        f.unlink(missing_ok=True)
        self._cleanup(journal)

    # -- crash recovery --------------------------------------------------------------------
    def _cleanup(self, journal: dict) -> None:
        shutil.rmtree(self.path / journal["stage"], ignore_errors=True)
        shutil.rmtree(self.path / journal["trash"], ignore_errors=True)
        (self.path / JOURNAL).unlink(missing_ok=True)
        self._prune_empty_dirs(journal["added"] + journal.get("removed", []) + journal.get("trashed", []))

    def _prune_empty_dirs(self, files: list[str]) -> None:
        """Remove the partition folders that held `files` and are left empty."""
        for d in sorted({p for rel in files for p in Path(rel).parents if len(p.parts) > 1}, key=lambda p: -len(p.parts)):
            full = self.path / d
            if full.is_dir() and not any(full.iterdir()):
                full.rmdir()

    @staticmethod
    def prune(folder: Path, table: str) -> None:
        """Remove every empty partition folder of a table."""
        root = folder / table
        if root.is_dir():
            for d in sorted(folders(root), key=lambda p: -len(p.parts)):
                if not any(d.iterdir()):
                    d.rmdir()

    def _recover(self) -> None:
        """Finish or roll back a commit interrupted by a crash, so the store is as before or after
        it (call under the writer lock, in `lock.committing`)."""
        try:
            journal = json.loads((self.path / JOURNAL).read_text())
        except ValueError:  # written atomically: damaged from outside, nothing to go by
            (self.path / JOURNAL).unlink(missing_ok=True)
            self.notices.append(f"{self.path / JOURNAL}: unreadable journal removed; run `cocopipe check`")
            return
        trash = self.path / journal["trash"]
        committed = self.manifest.get("txn") == journal["txn"]
        if not committed:  # roll back
            if "trashed" in journal:  # a journal of the earlier layout: files were moved away first
                for rel in journal["added"]:
                    (self.path / rel).unlink(missing_ok=True)
                restore = journal["trashed"]
            else:
                for rel in set(journal["added"]) - set(journal["existed"]):
                    (self.path / rel).unlink(missing_ok=True)
                restore = journal["existed"]
            for rel in restore:
                if (trash / rel).exists():
                    (self.path / rel).parent.mkdir(parents=True, exist_ok=True)
                    os.replace(trash / rel, self.path / rel)
            self._cleanup(journal)
        elif "removed" in journal:
            self._finish(journal)
        else:
            self._cleanup(journal)
        self.notices.append(f"{self.path}: an interrupted write was {'finished' if committed else 'rolled back'}")
