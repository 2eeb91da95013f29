"""Ingest: COCO logs (folders, archives) into the store."""
from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from ..store import SourceData, Store
from .adat import parse_archives
from .coco import Parsed, Problem, parse_source
from .sources import Source, SourceError, expand, read_source

__all__ = ["IngestSummary", "Problem", "ingest", "parse_source", "read_source"]


@dataclass
class SourceOutcome:
    """What happened to one source."""

    name: str
    path: str
    status: str  # "ingested", "unchanged", "failed", "empty"
    runs: int = 0
    runs_skipped: int = 0
    problems: list[Problem] = field(default_factory=list)


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
    def problems(self) -> list[Problem]:
        return [p for s in self.sources for p in s.problems]


def _parse(path: str, name: str | None) -> tuple[object, Parsed | None, str | None]:
    """Read and parse one source (runs in a worker process or a Ray task)."""
    try:
        src = read_source(path)
    except SourceError as exc:
        return None, None, str(exc)
    parsed = _parse_all(src, name)
    src.files = {}  # the parent needs the name and hash only, not the file contents
    return src, parsed, None


def _parse_all(src, name: str | None) -> Parsed:
    """Parse the .info/.dat/.tdat logs, then the .adat archives of the same trials (`parsed.archive`)."""
    parsed = parse_source(src, algorithm=name)
    parsed.archive = parse_archives(src, parsed.runs, parsed.problems)
    return parsed


def _store_parsed(src, parsed: Parsed, store: Store) -> SourceOutcome:
    out = SourceOutcome(src.name, src.path, "ingested", parsed.runs.height, parsed.runs_skipped, parsed.problems)
    if parsed.runs.height == 0:
        out.status = "empty"
        return out
    meta = {
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
    archive = getattr(parsed, "archive", None)
    if archive is not None and archive.height:
        tables["archive"] = archive
        meta["archive"] = archive.height
    store.write_source(SourceData(src.name, src.source_id, src.path, tables, meta))
    return out


def _read(path: str | os.PathLike) -> Source | SourceError:
    """The source, or why it cannot be read."""
    try:
        return read_source(path)
    except SourceError as exc:
        return exc


def ingest_one(path: str | os.PathLike, store: Store, name: str | None = None, force: bool = False,
               source: Source | SourceError | None = None) -> SourceOutcome:
    """Read (unless `source` is what `read_source(path)` gave), parse and store one source;
    replaces an earlier version of the same source."""
    src = _read(path) if source is None else source
    if isinstance(src, SourceError):
        return SourceOutcome(str(path), str(path), "failed", problems=[Problem(str(path), None, str(src), "source skipped")])
    if not force and store.has(src.name, src.source_id):
        return SourceOutcome(src.name, src.path, "unchanged", runs=store.sources()[src.name].get("runs", 0))
    return _store_parsed(src, _parse_all(src, name), store)


def ingest(paths: list[str | os.PathLike], store: Store, name: str | None = None, force: bool = False,
           on_source: Callable[[SourceOutcome], None] | None = None, jobs: int = 1,
           executor: str = "local") -> IngestSummary:
    """Ingest every source the paths name (folders with .info files, archives).

    Sources are parsed in parallel (`jobs` processes, or Ray tasks with executor="ray") and
    written one after the other, each atomically; unchanged sources are skipped."""
    summary = IngestSummary()
    todo = expand(paths)

    def done(outcome: SourceOutcome) -> None:
        summary.sources.append(outcome)
        if on_source:
            on_source(outcome)

    if executor == "local" and (jobs <= 1 or len(todo) <= 1):
        # one thread reads (unpacks, hashes) the next source while this one is parsed and written:
        # decompression, hashing and file reads release the GIL, so both cores work
        with ThreadPoolExecutor(max_workers=1) as reader:
            ahead = reader.submit(_read, todo[0]) if todo else None
            for i, p in enumerate(todo):
                src = ahead.result()
                ahead = reader.submit(_read, todo[i + 1]) if i + 1 < len(todo) else None
                done(ingest_one(p, store, name=name, force=force, source=src))
        return summary
    pending = []
    for p in todo:  # the content hash decides what needs parsing
        try:
            src = read_source(p)
        except SourceError as exc:
            done(SourceOutcome(str(p), str(p), "failed", problems=[Problem(str(p), None, str(exc), "source skipped")]))
            continue
        if not force and store.has(src.name, src.source_id):
            done(SourceOutcome(src.name, src.path, "unchanged", runs=store.sources()[src.name].get("runs", 0)))
        else:
            pending.append(str(p))
    for src, parsed, error in _map(pending, name, jobs, executor):
        if error:
            done(SourceOutcome(str(src), str(src), "failed", problems=[Problem(str(src), None, error, "source skipped")]))
        else:
            done(_store_parsed(src, parsed, store))
    return summary


def _map(paths: list[str], name: str | None, jobs: int, executor: str):
    """Parse sources in parallel, yielding results as they complete."""
    if executor == "ray":
        from ..distributed import ray as ray_instance

        ray = ray_instance(jobs if jobs > 1 else None)
        task = ray.remote(_parse)
        refs = {task.remote(p, name): p for p in paths}
        while refs:
            ready, _ = ray.wait(list(refs), num_returns=1)
            p = refs.pop(ready[0])
            src, parsed, error = ray.get(ready[0])
            yield (src if src is not None else p), parsed, error
        return
    if executor != "local":
        raise ValueError(f"executor {executor!r}: expected local or ray")
    from concurrent.futures import ProcessPoolExecutor, as_completed
    import multiprocessing as mp

    with ProcessPoolExecutor(max_workers=jobs, mp_context=mp.get_context("spawn")) as pool:
        futs = {pool.submit(_parse, p, name): p for p in paths}
        for fut in as_completed(futs):
            src, parsed, error = fut.result()
            yield (src if src is not None else futs[fut]), parsed, error
