"""What a reader makes of a source: `Parsed` (every field declared, nothing added after construction),
the `Problem`s met, and `merge`, the one way parts of a source read by several readers come together."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import polars as pl

from . import duplicates


@dataclass
class Problem:
    """Something wrong in the input, where it is, and what was done about it."""

    file: str
    line: int | None
    message: str
    action: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.message} ({self.action})"


@dataclass(slots=True)
class Parsed:
    """Runs and events of one source, with the problems met, and what some readers read besides (slots:
    no attribute is added after construction)."""

    runs: pl.DataFrame
    events: pl.DataFrame
    problems: list[Problem] = field(default_factory=list)
    runs_skipped: int = 0
    runs_partial: int = 0  # runs kept without their bad records
    trials: duplicates.Trials | None = None  # to find duplicates in other sources
    archive: pl.DataFrame | None = None  # the .adat archives of COCO's biobjective logs
    params: pl.DataFrame | None = None  # tracked parameters of IOHprofiler logs


def _concat(frames: Sequence[pl.DataFrame | None]) -> pl.DataFrame | None:
    given = [f for f in frames if f is not None]
    return pl.concat(given) if given else None


def merge(parts: Sequence[Parsed]) -> Parsed:
    """The parts of one source read by several readers, as one: runs, events, problems and every count,
    archive, params and trials together (none lost)."""
    if len(parts) == 1:
        return parts[0]
    trials = [p.trials for p in parts if p.trials is not None]
    return Parsed(
        pl.concat([p.runs for p in parts]), pl.concat([p.events for p in parts]),
        [q for p in parts for q in p.problems], sum(p.runs_skipped for p in parts), sum(p.runs_partial for p in parts),
        duplicates.Trials(pl.concat([t.runs for t in trials]), pl.concat([t.events for t in trials]))
        if trials else None,
        _concat([p.archive for p in parts]), _concat([p.params for p in parts]))
