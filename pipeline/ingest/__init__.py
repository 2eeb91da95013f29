"""Ingest: COCO logs (folders, archives) into the store."""
from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field

from ..store import SourceData, Store
from .coco import Parsed, Problem, parse_source
from .sources import SourceError, expand, read_source

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


def ingest_one(path: str | os.PathLike, store: Store, name: str | None = None, force: bool = False) -> SourceOutcome:
    """Read, parse and store one source; replaces an earlier version of the same source."""
    try:
        src = read_source(path)
    except SourceError as exc:
        return SourceOutcome(str(path), str(path), "failed", problems=[Problem(str(path), None, str(exc), "source skipped")])
    if not force and store.has(src.name, src.source_id):
        n = store.sources()[src.name].get("runs", 0)
        return SourceOutcome(src.name, src.path, "unchanged", runs=n)
    parsed: Parsed = parse_source(src, algorithm=name)
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
    store.write_source(SourceData(src.name, src.source_id, src.path,
                                  {"runs": parsed.runs, "events": parsed.events}, meta))
    return out


def ingest(paths: list[str | os.PathLike], store: Store, name: str | None = None, force: bool = False,
           on_source: Callable[[SourceOutcome], None] | None = None) -> IngestSummary:
    """Ingest every source the paths name (folders with .info files, archives)."""
    summary = IngestSummary()
    for p in expand(paths):
        outcome = ingest_one(p, store, name=name, force=force)
        summary.sources.append(outcome)
        if on_source:
            on_source(outcome)
    return summary
