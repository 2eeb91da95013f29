"""Ingest: COCO logs (folders, archives) into the store."""
from __future__ import annotations

import dataclasses
import os
import sys
import time
import types
from collections import deque
from collections.abc import Callable, Iterator
from concurrent import futures
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from .. import distributed
from ..store import SourceData, Store, StoreError
from ..store.location import is_uri
from ..store.store import Conflict, Staged, check_names
from . import consistency, duplicates, readers
from .coco import parse_source
from .parsed import Parsed, Problem
from .identity import Identity, resolve_source
from .sources import Limits, Source, SourceError, expand, read_source, source_name
from ..words import plural

__all__ = ["IngestSummary", "Limits", "Problem", "ingest", "parse_source", "read_source", "source_names"]


@dataclass
class SourceOutcome:
    """What happened to one source."""

    name: str
    path: str
    status: str  # "ingested", "unchanged", "failed", "empty", "duplicate" (every trial stored from another source)
    runs: int = 0
    runs_skipped: int = 0
    problems: list[Problem] = field(default_factory=list)
    #: what the user should know of the source read (logs that disagree with themselves) and what storing it
    #: did besides (replaced another source, shares files with one of identical content)
    notes: list[str] = field(default_factory=list)
    runs_partial: int = 0  # of `runs`, those kept without their bad records
    runs_duplicate: int = 0  # trials read but left out: the store holds them from another source
    trials: object = field(default=None, repr=False, compare=False)  # `duplicates.Trials`, until committed


@dataclass
class IngestSummary:
    """Outcome of an ingest call over several sources."""

    sources: list[SourceOutcome] = field(default_factory=list)

    @property
    def runs(self) -> int:
        return sum(s.runs for s in self.sources)

    @property
    def runs_skipped(self) -> int:
        return sum(s.runs_skipped for s in self.sources)

    @property
    def runs_partial(self) -> int:
        return sum(s.runs_partial for s in self.sources)

    @property
    def runs_duplicate(self) -> int:
        return sum(s.runs_duplicate for s in self.sources)

    @property
    def problems(self) -> list[Problem]:
        return [p for s in self.sources for p in s.problems]


def _parse_all(src, name: str | None, optimum: float | None = None) -> Parsed:
    """Every log of the source, each read by the reader of its format (`readers.parse`; `optimum`: of the
    IOHprofiler runs whose log and suite state none)."""
    return readers.parse(src, name, optimum)


def _source_data(src, parsed: Parsed, key: str | None = None, name: str | None = None,
                 extra: dict | None = None) -> SourceData:
    """What a parsed source contributes to the store under `key` (default: its path): its tables and
    manifest entry (`name`: the algorithm name given to it; `extra`: more fields, e.g. the archive it
    comes from)."""
    meta = {**(extra or {}),
        "runs": parsed.runs.height,
        "runs_skipped": parsed.runs_skipped,
        "events": parsed.events.height,
        "problems": len(parsed.problems),
        "suites": sorted(parsed.runs["suite"].unique().to_list()),
        "algorithms": sorted(parsed.runs["algorithm"].unique().to_list()),
        "data_formats": sorted(parsed.runs["data_format"].unique().to_list()),
        "coco_versions": sorted(v for v in parsed.runs["coco_version"].unique().to_list() if v),
    }
    tables = {"runs": parsed.runs, "events": parsed.events}
    archive = parsed.archive
    if archive is not None and archive.height:
        tables["archive"] = archive
        meta["archive"] = archive.height
    params = parsed.params
    if params is not None and params.height:
        tables["params"] = params
        meta["params"] = params.height
    if name is not None:
        meta["algorithm_name"] = name
    return SourceData(src.name, src.source_id, src.path, tables, meta, key=key or src.path)


def _outcome(src, parsed: Parsed) -> SourceOutcome:
    status = "ingested" if parsed.runs.height else "empty"
    notes = [n for n in [consistency.note(parsed.runs)] if n]
    return SourceOutcome(src.name, src.path, status, parsed.runs.height, parsed.runs_skipped, parsed.problems,
                         notes=notes, runs_partial=parsed.runs_partial, trials=parsed.trials)


def _left_out(outcome: SourceOutcome, store: Store, data: SourceData, ident: Identity,
              fetch: Callable[[], dict[str, pl.DataFrame]] | None = None) -> SourceData | None:
    """`data` without the trials whose records the store holds already from another source (not the
    earlier version of this one or one it replaces, not one of the same content), said in one note per
    other source; None when no trial is left (the outcome's status is then "duplicate"). `fetch`: the source's
    tables, where `data` travelled without them (staged by a task elsewhere)."""
    found, outcome.trials = outcome.trials, None
    dups = duplicates.against(store, found, data.key, data.source_id, ident.replaced()) if found is not None else {}
    if not dups:
        return data
    gone = [run_id for ids in dups.values() for run_id in ids]
    for other, ids in dups.items():
        outcome.notes.append(f"{plural(len(ids), 'trial')} identical (same records) to those of {other}, which the store "
                             "holds: left out, each counted once")
    outcome.runs -= len(gone)
    outcome.runs_duplicate = len(gone)
    tables = duplicates.without(data.tables or fetch(), gone)
    if not tables["runs"].height:
        outcome.status = "duplicate"
        for key in dict.fromkeys([data.key, *ident.replaced()]):  # what it replaces goes all the same
            if key in store.sources():
                store.remove_source(key)
                outcome.notes.append(f"{key} removed from the store (replaced by nothing new)")
        return None
    meta = {**data.meta, **{t: df.height for t, df in tables.items() if t in data.meta},
            "duplicates_left_out": {k: len(ids) for k, ids in dups.items()}}
    return dataclasses.replace(data, tables=tables, meta=meta)


def _failed(path, message: str) -> SourceOutcome:
    return SourceOutcome(str(path), str(path), "failed", problems=[Problem(str(path), None, message, "source skipped")])


def source_names(paths: list[str | os.PathLike]) -> list[str]:
    """The names of the sources that `paths` (folders, archives) hold, as `ingest` finds and names them
    (the `source` column of the store's runs: an archive's base name, a folder's name)."""
    return [source_name(p) for p in expand(paths)]


def _read(path: str | os.PathLike, limits: Limits | None = None) -> Source | SourceError:
    """The source, or why it cannot be read."""
    try:
        return read_source(path, limits)
    except SourceError as exc:
        return exc


def ingest(paths: list[str | os.PathLike], store: Store, name: str | None = None, force: bool = False,
           on_source: Callable[[SourceOutcome], None] | None = None, jobs: int | None = None,
           executor: str = "local", meta: dict[str, dict] | None = None, limits: Limits | None = None, *,
           source_name: str | None = None, replace: str | None = None,
           optimum: float | None = None) -> IngestSummary:
    """Read COCO or IOHprofiler logs into a store: every source the paths name (docs/store.md).

    Each source is known in the store by its full resolved path (or by `source_name`): ingesting it
    again replaces it when its content changed, and skips it when not; other writers may write at the
    same time (docs/store.md). Locally, `jobs` sources are read and parsed at once on threads and stored
    in the order of `paths`, in batches each committed atomically (`_Batch`); with executor="ray" they
    are parsed and staged as Ray tasks and committed one by one. Bad input is reported
    (`IngestSummary.problems`, with file and line), everything readable is kept. A trial whose records
    the store holds already from another source is left out (said in the source's `notes`): no trial is
    stored twice.

    Parameters
    ----------
    paths : list of str or path
        Folders (with .info files, or IOHprofiler json), .tgz/.tar.gz/.zip archives, or folders of them.
    store : Store
        The store written to.
    name : str, optional
        The algorithm name, instead of the logs' own.
    force : bool
        Read sources whose content is unchanged again.
    on_source : callable, optional
        Called with each `SourceOutcome` as its source is done.
    jobs : int, optional
        Sources at once (default: COCOPIPE_WORKERS, else the cores).
    executor : {"local", "ray"}
        Threads of this process, or Ray tasks.
    meta : dict, optional
        More fields for the manifest entries of some sources, by their resolved path.
    limits : Limits, optional
        What an archive may expand to (decompression bombs, oversized members).
    source_name : str, optional
        The (single) source's key instead of its path.
    replace : str, optional
        A stored source (key, path or unambiguous base name) that the single source replaces.
    optimum : float, optional
        The optimum (raw_y units) of the IOHprofiler runs whose log and suite state none (docs/ioh.md);
        a stored source whose content is unchanged is read again only with `force`.

    Returns
    -------
    IngestSummary
        A `SourceOutcome` per source (status ingested, unchanged, failed, empty, or duplicate when every
        trial it holds is stored from another source; runs; runs_duplicate: the trials left out so; problems).

    Examples
    --------
    >>> import tempfile
    >>> store = Store(tempfile.mkdtemp() + "/store", create=True)
    >>> summary = ingest(["data/sample/NM_on_bbob.tgz"], store)
    >>> [(s.name, s.status, s.runs) for s in summary.sources], summary.problems
    ([('NM_on_bbob', 'ingested', 1080)], [])
    >>> ingest(["data/sample/NM_on_bbob.tgz"], store).sources[0].status
    'unchanged'
    """
    todo = expand(paths)
    if (source_name is not None or replace is not None) and len(todo) != 1:
        raise ValueError(f"--source-name and --replace name one source; the paths hold {len(todo)}")
    if source_name is not None and not source_name.strip():
        raise ValueError("--source-name: give a non-empty name")
    if name == "":
        raise ValueError("--name: give a non-empty algorithm name")
    store.refresh()  # what is stored now decides what is unchanged
    ident = Identity(source_name, resolve_source(store, replace) if replace is not None else None)
    return _ingest(todo, store, name, force, on_source, jobs, executor, ident, meta or {}, limits, optimum)


def _ingest(todo: list[Path], store: Store, name: str | None, force: bool,
            on_source: Callable[[SourceOutcome], None] | None, jobs: int | None, executor: str,
            ident: Identity, meta: dict[str, dict], limits: Limits | None, optimum: float | None = None
            ) -> IngestSummary:
    summary = IngestSummary()

    def done(outcome: SourceOutcome) -> None:
        summary.sources.append(outcome)
        if on_source:
            on_source(outcome)

    if executor not in ("local", "ray"):
        raise ValueError(f"executor {executor!r}: expected local or ray")
    if executor == "local":
        for outcome in _local(todo, store, name, force, jobs or distributed.workers(), ident, meta, limits, optimum):
            done(outcome)
        return summary
    unseen: list[str] = []  # sources (or the store) a task's node could not see: every other one is stored, then the error
    paths = [p if isinstance(p, str) else os.path.abspath(p) for p in todo]  # as a task finds them, wherever it runs
    calls = [(p, store, name, force, ident, meta, limits, optimum) for p in paths]
    distributed.ray(jobs)
    for i, (outcome, staged, error) in distributed.run(_stage_there, calls, jobs):
        if error is not None:
            unseen.append(str(error))
            done(_failed(paths[i], str(error)))
        else:
            done(_commit((outcome, staged), store, ident) if staged is not None else outcome)
    if unseen:
        raise distributed.TaskFailed(unseen[0] + (f" (and {len(unseen) - 1} more sources)" if len(unseen) > 1 else ""))
    return summary


def _stage_there(path: str, store: Store, name: str | None, force: bool, ident: Identity, meta: dict[str, dict],
                 limits: Limits | None, optimum: float | None):
    """In a Ray task: read the source (its hash made there), parse it and append its rows to the store, not yet
    visible; returned: the outcome and what the driver commits (the rows stay in the store: only the counts
    travel), or as the error a `TaskFailed` naming the node and the source or store it cannot see."""
    try:
        if not is_uri(path):  # an object's URI is read from the object store by any node
            distributed.visible(path, "the source")
        if store.location.local is not None:
            distributed.visible(store.location.local / "sources" / "_delta_log", "the store")
    except distributed.TaskFailed as exc:
        return None, None, exc
    outcome, staged = _prepare(path if is_uri(path) else Path(path), store, name, force, ident, meta, limits, optimum)
    if staged is not None:
        outcome.trials = None  # read back from the store where the driver needs them (`_commit`)
        staged.data.tables = {}
    return outcome, staged, None


def _unchanged(src: Source, store: Store, ident: Identity) -> SourceOutcome:
    return SourceOutcome(src.name, src.path, "unchanged", runs=store.sources()[ident.key(src)].get("runs", 0))


def _prepare(path: Path, store: Store, name: str | None, force: bool, ident: Identity,
             meta: dict[str, dict], limits: Limits | None = None, optimum: float | None = None
             ) -> tuple[SourceOutcome, Staged | None]:
    """Read, parse and stage one source (in a Ray task); the outcome, and what to commit."""
    out, data = _parsed(path, store, name, force, ident, meta, limits, optimum)
    return out, (store.stage(data) if data is not None else None)


def _parsed(path: Path, store: Store, name: str | None, force: bool, ident: Identity,
            meta: dict[str, dict], limits: Limits | None = None, optimum: float | None = None
            ) -> tuple[SourceOutcome, SourceData | None]:
    """Read and parse one source (on a worker thread); the outcome, and the rows to store."""
    src = _read(path, limits)
    if isinstance(src, SourceError):
        return _failed(path, src.reason), None
    if not force and store.has(ident.key(src), src.source_id, name):
        return _unchanged(src, store, ident), None
    parsed = _parse_all(src, name, optimum)
    out = _outcome(src, parsed)
    if out.status != "ingested":
        return out, None
    data = _source_data(src, parsed, ident.key(src), name, meta.get(src.path))
    try:
        check_names(data)
    except StoreError as exc:  # a name no partition folder can hold
        return _failed(src.path, str(exc).removeprefix(f"{src.path}: ")), None
    return out, data


#: the most sources, rows and seconds of waiting a local ingest commits at once: the rows of a batch are
#: appended with one Delta commit a table and made visible with one commit of `sources` (a commit per
#: source cost about 80 ms of CPU each: benchmarks/RESULTS.md)
BATCH_SOURCES = 16
BATCH_ROWS = 4_000_000
BATCH_SECONDS = 3.0


class _Batch:
    """Parsed sources waiting to be stored together, in the order of the paths. A source that may share
    trials, a name or content with one waiting is stored after that one is committed, so that its duplicate
    check and its notes see the store as storing the sources one by one would leave it."""

    def __init__(self, store: Store, ident: Identity):
        self.store, self.ident = store, ident
        #: each waiting source: its outcome, its rows to store, and what redoes its duplicate check (`_again`)
        self.items: list[tuple[SourceOutcome, SourceData | None, tuple | None]] = []
        self.rows, self.since = 0, 0.0
        #: the commits of the sources the waiting ones were checked against
        self.known: set[str] = set()

    def add(self, prepared: tuple[SourceOutcome, SourceData | None]) -> Iterator[SourceOutcome]:
        """Take a parsed source; the outcomes of the sources stored meanwhile."""
        outcome, data = prepared
        if data is not None and any(d is not None and _touch(d, data) for _, d, _ in self.items):
            yield from self.flush()
        if not self.items:
            self.since = time.monotonic()
            self.known = {e.get("commit_id") for e in self.store.sources().values()}
        redo = None
        if data is not None:
            redo = (data, outcome.trials, len(outcome.notes), outcome.runs)
            data = _left_out(outcome, self.store, data, self.ident)
        self.items.append((outcome, data, redo))
        self.rows += sum(df.height for df in data.tables.values()) if data is not None else 0
        if (len(self.items) >= BATCH_SOURCES or self.rows >= BATCH_ROWS
                or time.monotonic() - self.since >= BATCH_SECONDS):
            yield from self.flush()

    def take(self, fut: Future) -> Iterator[SourceOutcome]:
        """`add` the source `fut` parses; while it is parsed, the waiting sources are stored once they have
        waited BATCH_SECONDS (a slow source never holds back the outcomes of those before it)."""
        while self.items and not fut.done():
            wait = BATCH_SECONDS - (time.monotonic() - self.since)
            if wait <= 0:
                yield from self.flush()
                break
            futures.wait([fut], timeout=wait)
        yield from self.add(fut.result())

    def flush(self) -> Iterator[SourceOutcome]:
        """Store the waiting sources (one commit); their outcomes. Where another writer stored a source that may
        share their trials since they were checked, they are checked again against it and staged anew."""
        items, self.items, self.rows = self.items, [], 0
        for attempt in range(AGAIN):
            todo = [(o, d) for o, d, _ in items if d is not None]
            if not todo:
                break
            sources = self.store.sources()
            for o, d in todo:
                o.notes += self.ident.notes(sources, d)
            staged = self.store.stage_all([d for _, d in todo])
            check = _nothing_new(self.known, [d for _, d in todo]) if attempt < AGAIN - 1 else None
            try:
                self.store.commit_all(staged, self.ident.replaced(), check=check)
                break
            except Conflict:
                for st in staged:
                    self.store.discard(st)
                self.store.refresh()
                self.known = {e.get("commit_id") for e in self.store.sources().values()}
                items = [self._again(*item) for item in items]
            except BaseException:
                for st in staged:
                    self.store.discard(st)
                raise
        yield from (o for o, _, _ in items)

    def _again(self, outcome: SourceOutcome, data: SourceData | None, redo: tuple | None) -> tuple:
        """A waiting source checked again for trials the store holds (as at its first check, on the store now)."""
        if redo is None or data is None:
            return outcome, data, redo
        first, trials, notes, runs = redo
        del outcome.notes[notes:]
        outcome.runs, outcome.runs_duplicate, outcome.trials = runs, 0, trials
        return outcome, _left_out(outcome, self.store, first, self.ident), redo


#: times a batch is checked again for duplicates when other writers keep storing sources that may share trials
AGAIN = 5


def _nothing_new(known: set[str], datas: list[SourceData]) -> Callable[[Store], None]:
    """The check made just before a batch's commits: Conflict where a source the batch was not checked against
    (stored since by another writer) may share trials with one of it."""
    def check(store: Store) -> None:
        for key, e in store.sources().items():
            if e.get("commit_id") in known:
                continue
            other = SourceData(e.get("name", ""), e.get("source_id", ""), e.get("path") or key, {}, e)
            if any(_touch(other, d) for d in datas):
                raise Conflict(f"{store.path}: {key} was stored meanwhile; checked again for trials in common")
    return check


def _touch(a: SourceData, b: SourceData) -> bool:
    """Whether two sources may hold the same trials (a suite and an algorithm in common, by their entries, as
    `duplicates` reads those of stored sources), or share a name or their content."""
    def common(key: str) -> bool:
        return bool(set(a.meta.get(key, ())) & set(b.meta.get(key, ())))
    return a.name == b.name or a.source_id == b.source_id or (common("suites") and common("algorithms"))


def _local(todo: list[Path], store: Store, name: str | None, force: bool, jobs: int, ident: Identity,
           meta: dict[str, dict], limits: Limits | None = None, optimum: float | None = None
           ) -> Iterator[SourceOutcome]:
    """Outcomes of the sources in order, `jobs` of them read and parsed at once on threads (at most one more
    waiting, and a batch: memory stays bounded), stored here in batches (`_Batch`)."""
    batch = _Batch(store, ident)
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        ahead: deque = deque()
        try:
            for path in todo:
                ahead.append(pool.submit(_parsed, path, store, name, force, ident, meta, limits, optimum))
                if len(ahead) > jobs:
                    yield from batch.take(ahead.popleft())
            while ahead:
                yield from batch.take(ahead.popleft())
            yield from batch.flush()
        finally:  # interrupted: let the running ones finish; nothing they read is stored
            for fut in ahead:
                fut.cancel()


def _commit(prepared: tuple[SourceOutcome, Staged | None], store: Store, ident: Identity) -> SourceOutcome:
    """Commit a staged source, staged again without the trials the store holds from another source."""
    outcome, staged = prepared
    fetch = None
    if staged is not None and not staged.data.tables:  # staged by a task elsewhere: its rows are in the store
        outcome.trials = _trials_back(staged, store)
        fetch = lambda: {t: store.scan_staged(staged, t).collect() for t in staged.tables}  # noqa: E731
    if staged is not None:
        data = _left_out(outcome, store, staged.data, ident, fetch)
        if data is not staged.data:
            store.discard(staged)
            staged = store.stage(data) if data is not None else None
    if staged is not None:
        outcome.notes += ident.notes(store.sources(), staged.data)
        store.commit(staged, ident.replaced())
    return outcome


def _trials_back(staged: Staged, store: Store) -> duplicates.Trials:
    """The trials of a source a task staged, read from the store for the duplicate check (its runs, and the
    records of the few that match a stored trial)."""
    runs = store.scan_staged(staged, "runs").select("run_id", *duplicates.PROBLEM_INSTANCE, *duplicates.FACTS,
                                                              "info_file", "data_file").collect()
    return duplicates.Trials(runs, store.scan_staged(staged, "events"))


class _Package(types.ModuleType):
    """This package, called as its `ingest` function: `pipeline.ingest(paths, store)`."""

    def __call__(self, paths: list[str | os.PathLike], store: Store, **options) -> IngestSummary:
        return ingest(paths, store, **options)


sys.modules[__name__].__class__ = _Package
