"""Writes that stage their files where no table names them, commit them only when whole, and leases that keep a
live writer's staged files from every other writer's collection (docs/store.md, "Writers and readers").

A write puts each table's Parquet files under `TABLE/_writes/<writer>/<batch>/` (a Delta table of its own made
by delta-rs's writer, so that the files and their statistics are the ones a plain append makes; its log is the
mark that the batch is not committed yet). Committing them is one Delta commit per table of their add actions
(`DeltaTable.create_write_transaction`, or `create_table_with_add_actions` for a table not made yet): until
then no reader of the table, with any engine, sees them. The staging log goes once the files are committed.

A writer holds a lease: `_writers/<writer>.json` holding the UTC time it was renewed, renewed every third of
`COCOPIPE_LEASE` seconds (default 60) while its process lives. A batch is collected (its files deleted) only
when its writer's lease expired and it is older than the grace (`COCOPIPE_ORPHAN_GRACE`), ages from UTC
epoch seconds (`time.time`, `calendar.timegm`), never local time.

A collection fences before it deletes: it writes `_writers/<writer>.fences/<id>.json` naming the commits and
batches it is about to delete, then reads the writer's lease again, and deletes only where it is still
expired; a writer whose lease lapsed looks for fences naming its commits after renewing it, before its tables'
commits and before its `sources` commit. Either the collection reads the renewed lease (and deletes nothing)
or the writer sees the fence (and stops): a collection that read the lease just before the writer renewed
it can no longer delete rows the writer then commits to `sources`.
"""
from __future__ import annotations

import atexit
import calendar
import json
import os
import threading
import random
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import unquote

import deltalake as dl
import pyarrow.fs as pafs
from deltalake.fs import DeltaStorageHandler
from deltalake.transaction import AddAction, create_table_with_add_actions

from . import remote

#: the folder of a table holding the files of writes not committed yet
WRITES = "_writes"
#: the folder of a store holding its writers' leases
WRITERS = "_writers"
#: the staging table's first (and only) commit
_FIRST = "_delta_log/00000000000000000000.json"


def lease_seconds() -> float:
    """Seconds a writer's lease lasts unless renewed (`COCOPIPE_LEASE`, default 60)."""
    text = os.environ.get("COCOPIPE_LEASE", "").strip()
    try:
        value = float(text) if text else 60.0
    except ValueError:
        value = -1.0
    if not 0 < value < float("inf"):
        raise ValueError(f"COCOPIPE_LEASE={text!r}: expected a positive number of seconds")
    return value


def new_writer() -> str:
    """A writer's id (12 hex digits: also the last part of its commit ids)."""
    return uuid.uuid4().hex[:12]


def commit_time(commit_id: str) -> float | None:
    """The UTC epoch seconds a commit id was made at (None for an id of another form)."""
    try:
        t = time.strptime(commit_id[:15], "%Y%m%dT%H%M%S")
    except ValueError:
        return None
    return calendar.timegm(t)


def writer_of(commit_id: str) -> str | None:
    """The writer that made a commit id (None for an id made before writers had ids)."""
    parts = commit_id.split("-")
    return parts[2] if len(parts) == 3 else None


def filesystem(uri: str) -> pafs.FileSystem:
    """A file system rooted at `uri` (a local folder, made or not, or an object-storage URI, with the store's
    options: delta-rs's own client)."""
    if "://" not in uri or uri.startswith("file://"):
        return pafs.SubTreeFileSystem(uri.removeprefix("file://"), pafs.LocalFileSystem())
    return pafs.PyFileSystem(DeltaStorageHandler(uri, remote.delta_options(uri)))


def put(root: str, path: str, body: bytes) -> None:
    """Write a small file at `path` under `root` (made or replaced). On object storage the bytes go to delta-rs's
    own output stream: pyarrow's wrapper of it (`filesystem(root).open_output_stream`) hands it pyarrow Buffers,
    which it refuses ("'Buffer' object is not an instance of 'bytes'"), so no lease was ever written there."""
    if "://" not in root or root.startswith("file://"):
        fs = filesystem(root)
        fs.create_dir(path.rpartition("/")[0], recursive=True)
        with fs.open_output_stream(path) as fh:
            fh.write(body)
        return
    out = DeltaStorageHandler(root, remote.delta_options(root))._handler.open_output_stream(path, None)
    try:
        out.write(body)
    finally:
        out.close()


def _read_json(fs: pafs.FileSystem, path: str) -> dict | None:
    try:
        with fs.open_input_file(path) as fh:
            got = json.loads(fh.read().decode())
    except (OSError, ValueError):
        return None
    return got if isinstance(got, dict) else None


class Lease:
    """A writer's lease on a store, renewed on a thread of this process while the process lives."""

    def __init__(self, root: str, writer: str):
        self.root, self.writer, self.seconds = root, writer, lease_seconds()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        #: names this lease (a `mark` taken of another process's lease is never taken for this one's)
        self.token = uuid.uuid4().hex
        #: the UTC time the last renewal written says; the times the lease may have looked expired to others
        self.renewed_at, self.lapses = 0.0, 0
        self.renew()
        self._thread = threading.Thread(target=self._run, name=f"cocopipe-lease-{writer}", daemon=True)
        self._thread.start()

    def renew(self, strict: bool = False) -> None:
        """Write the lease anew (best effort: a lease not renewed expires, and only collections care; with
        `strict`, a renewal that failed raises)."""
        now = time.time()
        body = json.dumps({"writer": self.writer, "renewed": now, "lease": self.seconds, "pid": os.getpid()}).encode()
        try:
            put(self.root, f"{WRITERS}/{self.writer}.json", body)
        except Exception:  # noqa: BLE001 - a store that failed for a moment: renewed at the next turn
            if strict:
                raise
            return
        with self._lock:
            if self.renewed_at and now - self.renewed_at > self.seconds / 2:
                self.lapses += 1  # half the lease without a renewal: another writer may have taken it as expired
            self.renewed_at = max(self.renewed_at, now)

    def mark(self) -> tuple[str, int]:
        """What `intact` compares: this lease, and its lapses so far."""
        with self._lock:
            return self.token, self.lapses

    def intact(self, mark: tuple[str, int] | None) -> bool:
        """Whether this lease was renewed without a lapse since `mark` was taken (False for a mark of another
        lease, or none): no other writer can have taken this writer for dead meanwhile."""
        with self._lock:
            return (mark is not None and mark == (self.token, self.lapses)
                    and time.time() - self.renewed_at <= self.seconds / 2)

    def _run(self) -> None:
        while not self._stop.wait(max(0.2, self.seconds / 3)):
            self.renew()

    def stop(self) -> None:
        """Stop renewing (the renewing thread ended) and remove the lease file."""
        self._stop.set()
        if self._thread is not threading.current_thread():
            self._thread.join(timeout=remote.limits().worst + 5)
        try:
            filesystem(self.root).delete_file(f"{WRITERS}/{self.writer}.json")
        except Exception:  # noqa: BLE001
            pass


_LEASES: dict[tuple[str, str], Lease] = {}
_LEASES_LOCK = threading.Lock()


@atexit.register
def _release_all() -> None:
    """At the interpreter's exit, every lease of this process given up: its thread stopped before the
    interpreter finalizes (a daemon thread inside delta-rs's client then crashed the process: SIGSEGV)."""
    with _LEASES_LOCK:
        leases = list(_LEASES.values())
        _LEASES.clear()
    for lease in leases:
        lease.stop()


def hold(root: str, writer: str) -> Lease:
    """This process's lease of `writer` on the store at `root` (taken and renewed from now on)."""
    with _LEASES_LOCK:
        got = _LEASES.get((root, writer))
        if got is None or got._stop.is_set():
            got = _LEASES[(root, writer)] = Lease(root, writer)
        return got


def release(root: str, writer: str) -> None:
    """Give up this process's lease of `writer` (what a writer's death does, at once)."""
    with _LEASES_LOCK:
        got = _LEASES.pop((root, writer), None)
    if got is not None:
        got.stop()


def writers(root: str) -> list[str]:
    """The writers that hold (or held) a lease on the store at `root`."""
    try:
        found = filesystem(root).get_file_info(pafs.FileSelector(WRITERS, allow_not_found=True))
    except Exception:  # noqa: BLE001
        return []
    return [i.base_name.removesuffix(".json") for i in found if i.type == pafs.FileType.File]


def alive(root: str, writer: str | None, cache: dict | None = None) -> bool:
    """Whether a writer's lease on the store is still current (False for no writer or no lease)."""
    if writer is None:
        return False
    if cache is not None and writer in cache:
        return cache[writer]
    with _LEASES_LOCK:
        mine = (root, writer) in _LEASES and not _LEASES[(root, writer)]._stop.is_set()
    got = _read_json(filesystem(root), f"{WRITERS}/{writer}.json") if not mine else None
    live = mine or (got is not None and isinstance(got.get("renewed"), (int, float))
                    and time.time() - float(got["renewed"]) <= float(got.get("lease") or lease_seconds()))
    if cache is not None:
        cache[writer] = live
    return live


def fence(root: str, writer: str, names) -> str:
    """Write a fence naming commits or batches (their folder's name) of `writer` a collection is about to
    delete; its path, for `unfence`."""
    path = f"{WRITERS}/{writer}.fences/{uuid.uuid4().hex}.json"
    put(root, path, json.dumps({"names": sorted(names), "at": time.time()}).encode())
    return path


def unfence(root: str, path: str) -> None:
    """Remove a fence (its collection found the writer alive, and deleted nothing); best effort: a fence left
    only stops its writer's commit of those names, which is safe."""
    try:
        filesystem(root).delete_file(path)
    except Exception:  # noqa: BLE001
        pass


def fenced(root: str, writer: str) -> set[str]:
    """The commits and batches of `writer` that collections fenced (read now; an error where it cannot be)."""
    fs = filesystem(root)
    found = fs.get_file_info(pafs.FileSelector(f"{WRITERS}/{writer}.fences", allow_not_found=True))
    out: set[str] = set()
    for i in found:
        if i.type == pafs.FileType.File:
            got = _read_json(fs, i.path)
            if got is None:
                raise OSError(f"{root}/{i.path}: a fence that cannot be read")
            out.update(str(n) for n in got.get("names") or ())
    return out


@dataclass
class StagedFiles:
    """One table's files of a staged batch: where they are (relative to the table) and their add actions."""

    folder: str  # _writes/<writer>/<batch>
    adds: list[dict] = field(default_factory=list)  # the staging log's add actions
    schema: str = ""  # the files' Delta schema (JSON)


def stage_files(table_uri: str, folder: str, rows, partition_by: list[str], writer_properties) -> StagedFiles:
    """Write `rows` as Parquet files under `folder` of the table at `table_uri`, named by no table version; their
    add actions (read back from the staging log delta-rs wrote beside them)."""
    uri = f"{table_uri.rstrip('/')}/{folder}"
    dl.write_deltalake(uri, rows, mode="error", partition_by=partition_by or None, writer_properties=writer_properties,
                       storage_options=remote.delta_options(uri))
    fs = filesystem(uri)
    with fs.open_input_file(_FIRST) as fh:
        actions = [json.loads(line) for line in fh.read().decode().split("\n") if line.strip()]
    adds = [a["add"] for a in actions if "add" in a]
    schema = next(a["metaData"]["schemaString"] for a in actions if "metaData" in a)
    return StagedFiles(folder, adds, schema)


def paths(staged: StagedFiles) -> list[str]:
    """The staged files' paths relative to their table, as on disk (and as a commit of them names them)."""
    return [f"{staged.folder}/{unquote(a['path'])}" for a in staged.adds]


def missing(table_uri: str, staged: StagedFiles) -> list[str]:
    """The staged files that are no longer there (removed by a collection while their writer was paused)."""
    return [i.path for i in filesystem(table_uri).get_file_info(paths(staged)) if i.type == pafs.FileType.NotFound]


def commit_files(table_uri: str, staged: list[StagedFiles], partition_by: list[str], meta: dict,
                 configuration: dict) -> None:
    """One Delta commit adding the staged files of a table (made when there is none yet; columns the table lacks
    added first), then their staging logs removed."""
    actions = [AddAction(f"{s.folder}/{unquote(a['path'])}", a["size"], a.get("partitionValues") or {},
                         a["modificationTime"], True, a.get("stats") or "") for s in staged for a in s.adds]
    schemas = [dl.Schema.from_json(s.schema) for s in staged if s.schema]
    fields: dict[str, object] = {}
    for sch in schemas:
        for f in sch.fields:
            fields.setdefault(f.name, f)
    schema = dl.Schema(list(fields.values()))
    props = dl.CommitProperties(custom_metadata=meta)
    opts = remote.delta_options(table_uri)
    for attempt in range(5):
        try:
            dt = dl.DeltaTable(table_uri, storage_options=opts)
        except dl.exceptions.TableNotFoundError:
            try:
                create_table_with_add_actions(table_uri, schema, actions, mode="error", partition_by=partition_by or None,
                                              configuration=configuration, storage_options=opts, commit_properties=props)
                break
            except (dl.exceptions.CommitFailedError, dl.exceptions.DeltaError):
                if attempt == 4:
                    raise
                continue  # another writer made it first: append to it
        have = {f.name for f in dt.schema().fields}
        new = [f for f in schema.fields if f.name not in have]
        if new:
            dt.alter.add_columns(new)
            dt = dl.DeltaTable(table_uri, storage_options=opts)
        try:
            dt.create_write_transaction(actions, "append", dt.schema(), partition_by=partition_by or None,
                                        commit_properties=props)
        except dl.exceptions.CommitFailedError:  # another writer's delete came first (a collection, a
            if attempt == 4:  # replaced source): nothing of this append was committed; made again on the new
                raise  # version
            time.sleep(random.uniform(0.05, 0.3))
            continue
        break
    fs = filesystem(table_uri)
    for s in staged:
        try:
            fs.delete_dir(f"{s.folder}/_delta_log")
        except Exception:  # noqa: BLE001 - left: a collection finds its files committed and removes it
            pass


def discard_files(table_uri: str, staged: StagedFiles) -> None:
    """Delete a staged batch's files (a write given up before its commit; best effort)."""
    try:
        filesystem(table_uri).delete_dir(staged.folder)
    except Exception:  # noqa: BLE001 - collected later
        pass


def abandoned(table_uri: str, root: str, referenced: set[str], grace: float, cache: dict, *,
              tidy: bool = False) -> list[str]:
    """The staged batches of a table (folders relative to it) that never committed, whose writer's lease expired
    and that are older than `grace` (UTC); `referenced`: the paths (as on disk, relative to the table) its latest
    version names. With `tidy` (a collection), the staging logs left by writes that committed are removed, and
    batches committed once whose rows no version has named for longer than grace are among those returned."""
    fs = filesystem(table_uri)
    try:
        writers = [i for i in fs.get_file_info(pafs.FileSelector(WRITES, allow_not_found=True))
                   if i.type == pafs.FileType.Directory]
    except Exception:  # noqa: BLE001
        return []
    out = []
    now = time.time()
    for w in writers:
        if alive(root, w.base_name, cache):
            continue
        for b in fs.get_file_info(pafs.FileSelector(w.path, allow_not_found=True)):
            made = commit_time(b.base_name)
            if b.type != pafs.FileType.Directory or made is None or now - made <= grace:
                continue
            files = [i for i in fs.get_file_info(pafs.FileSelector(b.path, recursive=True, allow_not_found=True))
                     if i.type == pafs.FileType.File]
            if any(f.path in referenced for f in files if "/_delta_log/" not in f.path):
                if tidy:  # committed: only its staging log was left
                    try:
                        fs.delete_dir(f"{b.path}/_delta_log")
                    except Exception:  # noqa: BLE001
                        pass
                continue
            if not any("/_delta_log/" in f.path for f in files):  # committed once, its rows removed since
                if _unnamed_beyond(table_uri, b.path, files, grace, now, tidy):
                    out.append(b.path)
                continue
            if not any(f.mtime is not None and now - f.mtime.timestamp() <= grace for f in files):
                out.append(b.path)
    return out


#: the file a collection puts in a committed batch whose rows no version names any longer: the time since
#: when (a reader's snapshot of before may still read its files for `grace` seconds)
UNNAMED = "_unnamed"


def _unnamed_beyond(table_uri: str, folder: str, files: list, grace: float, now: float, tidy: bool) -> bool:
    """Whether a committed batch whose rows were removed (a source replaced, a write rolled back) has been named
    by no version for longer than grace, for a collection (`tidy`: one seeing it first marks the time, UNNAMED);
    never for `check` (no version names it: nothing is wrong, it only waits)."""
    mark = next((f for f in files if f.path.endswith(f"/{UNNAMED}")), None)
    if mark is None:
        if tidy:
            try:
                put(table_uri, f"{folder}/{UNNAMED}", b"")
            except Exception:  # noqa: BLE001 - marked by a later collection
                pass
        return False
    return tidy and mark.mtime is not None and now - mark.mtime.timestamp() > grace


def collect_staged(table_uri: str, root: str, referenced: set[str], grace: float, cache: dict,
                   named_now: Callable[[], set[str]] | None = None) -> int:
    """Delete the `abandoned` batches of a table, each fenced first and deleted only where its writer's lease,
    read again after the fence, is still expired and (`named_now`: the table's files read again) no version
    names its files now; the number deleted."""
    fs = filesystem(table_uri)
    done = 0
    for folder in abandoned(table_uri, root, referenced, grace, cache, tidy=True):
        writer, batch = folder.split("/")[1], folder.rstrip("/").rpartition("/")[2]
        try:
            mark = fence(root, writer, {batch})
        except Exception:  # noqa: BLE001 - not fenced: not deleted, left for a later collection
            continue
        try:
            if alive(root, writer) or (named_now is not None and any(p.startswith(f"{folder}/") for p in named_now())):
                unfence(root, mark)
                continue
            _delete_batch(fs, folder)
            done += 1
        except Exception:  # noqa: BLE001 - left for a later collection (the fence stays: safe)
            pass
    return done


def _delete_batch(fs: pafs.FileSystem, folder: str) -> None:
    fs.delete_dir(folder)
