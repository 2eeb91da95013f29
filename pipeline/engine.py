"""One engine for every registered measure (`pipeline.measures.registry`): it runs a `Measure` on a
`Selection` under a `Plan`, split as the measure declares, on threads or Ray tasks, with the same rows
in the same order on every executor, empty selections included.

How a selection is split:

- a measure on precisions and values (`quantities`) is computed on each quantity apart, the precisions
  first (an empty selection: on the precisions);
- a `groupable` measure (independent per algorithm) in groups of `plan.group_size` algorithms
  (`execution.per_group`, balanced when it declares so); `whole_locally`: on threads, one query;
- any other along its `split` columns (rankings and tests compare algorithms: one part per suite, or
  per (suite, dimension)), or whole: one part, a Ray task on Ray.

`run` gives the result as one LazyFrame; `stream` gives the same rows as DataFrames, a part at a time,
so that a caller writing a file never holds the whole result (on Ray, the parts come back as tasks end).
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import polars as pl

from . import distributed
from .execution import Plan, _absolute, _collect, _collect_there, _sorted, concat_sorted, per_group, split
from .measures.registry import Extent, Inputs, Measure, Settings, get
from .selection import Selection

#: the targets of a selection, resolved by the caller (the facade: names, numbers, runlength, values)
Resolve = Callable[[Selection], pl.DataFrame]
QUANTITIES = ("precision", "value")


@dataclass(frozen=True)
class Job:
    """A measure to run: its declaration, settings, the plan, how targets resolve, the kept ECDF trials."""

    measure: Measure
    settings: Settings
    plan: Plan
    resolve: Resolve | None = None
    kept: Any = None


def job(name: str | Measure, plan: Plan, resolve: Resolve | None = None, kept: Any = None, **settings) -> Job:
    """A `Job` of the measure `name` with `settings` (checked: `InvalidSetting` names a bad one)."""
    measure = get(name) if isinstance(name, str) else name
    return Job(measure, measure.configure(**settings), plan, resolve, kept)


def _quantities(job: Job, selection: Selection) -> list[Selection]:
    """The selections the measure is computed on apart: each quantity with runs (precisions first), or
    the selection itself (the precisions of an empty selection)."""
    if not job.measure.quantities or selection.quantity == "value":
        return [selection]
    parts = [s for q in QUANTITIES if (s := selection.narrow(quantity=q)).keys().height]
    return parts or [selection]


def _inputs(job: Job, selection: Selection) -> Inputs:
    """The inputs of the whole `selection`: its targets resolved once, and the store's cache of hitting
    times filled for the whole selection at once where groups of algorithms will read it (each group would
    fill only its own sources)."""
    targets, m, plan = None, job.measure, job.plan
    if m.targets and job.resolve is not None:
        targets = job.resolve(selection)
        grouped = m.groupable and not m.whole_locally and plan.group_size and plan.executor == "local"
        if "hits" in m.inputs and grouped:
            selection.fill_cache(targets)
    if job.settings.costly():  # a count above its default: refused before any work if memory cannot hold it
        job.settings.check_memory(extent(selection, targets))
    inputs = Inputs(selection, targets, None, job.plan, job.kept)
    if job.measure.prepare is not None:
        inputs = Inputs(selection, targets, job.measure.prepare(inputs, job.settings), job.plan, job.kept)
    return inputs


def extent(selection: Selection, targets: pl.DataFrame | None) -> Extent:
    """The size of `selection` with these targets (one per trial without), as the memory estimates read it."""
    problem = ["suite", "algorithm", "function", "dimension"]
    runs = selection.runs().select(problem).collect()
    on = [c for c in ("suite", "function", "dimension") if targets is not None and c in targets.columns]
    if on:
        runs = runs.join(targets.group_by(on).len("targets"), on=on, how="left").fill_null(0)
    else:
        runs = runs.with_columns(targets=pl.lit(1 if targets is None else targets.height, pl.UInt32))
    cells = runs.group_by(problem).agg(pl.col("targets").first())
    block = cells.group_by("suite", "algorithm", "dimension").agg(pl.col("targets").sum())["targets"].max()
    return Extent(trials=runs.height, hits=int(runs["targets"].sum()), cells=int(cells["targets"].sum()),
                  block_cells=int(block or 0))


def _compute(job: Job, whole: Inputs) -> Callable[[Selection], pl.LazyFrame]:
    """`measure.spec` on a part of the selection of `whole`, with what was prepared on the whole."""
    measure, settings = job.measure, job.settings
    kept = whole.kept if job.plan.executor == "local" else None  # a Ray task keeps nothing

    def compute(part: Selection) -> pl.LazyFrame:
        return measure.spec(Inputs(part, whole.targets, whole.shared, whole.plan, kept), settings)

    return compute


def _split_parts(measure: Measure, selection: Selection) -> list[Selection]:
    """The selection along the measure's `split` columns (each value present), in order."""
    if not measure.split:
        return [selection]
    keys = selection.keys()
    if not keys.height or not set(measure.split) <= set(keys.columns):  # nothing selected: one empty part
        return [selection]
    keys = keys.select(list(measure.split)).unique().sort(list(measure.split))
    return [selection.narrow(**{c: [v] for c, v in zip(measure.split, row)}) for row in keys.iter_rows()]


def _run_one(job: Job, selection: Selection) -> pl.LazyFrame:
    """The measure on one quantity's selection."""
    m, plan = job.measure, job.plan
    compute = _compute(job, _inputs(job, selection))
    if m.groupable and not (m.whole_locally and plan.executor == "local"):
        return per_group(selection, compute, plan, m.keys, list(_descending(m)), m.balance, m.presorted)
    parts = _split_parts(m, selection) if m.groupable is False else [selection]
    if plan.executor == "local" and len(parts) == 1:
        return compute(parts[0]) if m.presorted else _sorted(compute(parts[0]), m.order)
    frames = collect(compute, parts, plan.executor, m.order, m.presorted)
    return concat_sorted(frames, [] if m.presorted else m.order).lazy()


def _descending(m: Measure) -> tuple[bool, ...]:
    return m.descending or (False,) * len(m.keys)


def run(job: Job, selection: Selection) -> pl.LazyFrame:
    """The measure of `job` on `selection`: one LazyFrame, the same rows in the same order on every executor."""
    parts = [_run_one(job, s) for s in _quantities(job, selection)]
    return parts[0] if len(parts) == 1 else pl.concat(parts, how="vertical_relaxed")


def collect(compute: Callable[[Selection], pl.LazyFrame], parts: list[Selection], executor: str,
            order: list[tuple[str, bool]], presorted: bool = False) -> list[pl.DataFrame]:
    """Every part computed and collected, in order (threads here, or Ray tasks)."""
    return list(stream_parts(compute, parts, executor, order, presorted))


def stream_parts(compute: Callable[[Selection], pl.LazyFrame], parts: list[Selection], executor: str,
                 order: list[tuple[str, bool]], presorted: bool = False) -> Iterator[pl.DataFrame]:
    """Every part computed, each sorted by `order` (unless `presorted`), yielded in the order of `parts`:
    on threads two at a time, on Ray as tasks end (a part is held only until those before it are out)."""
    sort = [] if presorted else list(order)
    if distributed.check(executor) == "local":
        n = min(distributed.workers(), len(parts))
        if n <= 1:
            yield from (_collect(compute, p, sort) for p in parts)
            return
        with ThreadPoolExecutor(n) as pool:
            yield from pool.map(lambda p: _collect(compute, p, sort), parts)
        return
    waiting: dict[int, pl.DataFrame] = {}
    nxt = 0
    calls = [(compute, _absolute(p), sort) for p in parts]
    for i, frame in distributed.run(_collect_there, calls, in_flight=max(2, distributed.workers())):
        waiting[i] = frame
        while nxt in waiting:
            yield waiting.pop(nxt)
            nxt += 1


def _stream_parts_of(job: Job, selection: Selection) -> list[Selection]:
    """How `stream` splits one quantity's selection: groups of algorithms within each suite (so that no
    two parts interleave in the row order, which begins with suite and algorithm), or `_split_parts`."""
    m, plan = job.measure, job.plan
    if not m.groupable:
        return _split_parts(m, selection)
    if m.keys[:2] != ("suite", "algorithm"):
        return [selection]
    parts = []
    for suite in selection.suites():
        within = selection.narrow(suite=[suite])
        algorithms = within.algorithms()
        groups = split(algorithms, plan.group_size, m.balance) if plan.group_size else [algorithms]
        parts += [within.narrow(algorithm=g) for g in groups if g]
    return parts or [selection]


def stream(job: Job, selection: Selection) -> Iterator[pl.DataFrame]:
    """The rows of `run(job, selection)`, in the same order, as DataFrames a part at a time."""
    for quantity in _quantities(job, selection):
        compute = _compute(job, _inputs(job, quantity))
        yield from stream_parts(compute, _stream_parts_of(job, quantity), job.plan.executor, job.measure.order,
                                job.measure.presorted)
