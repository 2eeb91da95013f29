"""How measures are computed, apart from what they compute: in groups of algorithms, in this process's
threads or as Ray tasks, and the ECDF trials kept for the next table.

Every measure is independent per algorithm, so a selection of many algorithms is computed
`Plan.group_size` algorithms at a time (memory bounded by the largest group), the groups on the
workers of `Plan.executor` (`pipeline.distributed`), and the results put back together in order.
Measures themselves know nothing of this: they take a `Selection` (a group's) and give a LazyFrame.
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import polars as pl

from . import distributed, heap
from .measures import ecdf
from .selection import Selection
from .store import Store, StoreError

Measure = Callable[[Selection], pl.LazyFrame]

heap.steady()  # memory per group of algorithms returned when the group is done (`pipeline.heap`)


@dataclass(frozen=True)
class Plan:
    """Where measures run (`executor`: "local" threads, or "ray" tasks) and how many algorithms a group
    holds (`group_size`; None: the whole selection at once)."""

    executor: str = "local"
    group_size: int | None = 8

    def __post_init__(self) -> None:
        distributed.check(self.executor)
        if self.group_size is not None and not self.group_size >= 1:
            raise ValueError(f"group size {self.group_size!r}: expected a positive number of algorithms, or None")

    def groups(self, algorithms: Sequence[str]) -> list[list[str]]:
        """The algorithms in consecutive groups of `group_size`, in the order given (one group without a size)."""
        return split(algorithms, self.group_size) if self.group_size else [list(algorithms)]


def per_group(selection: Selection, measure: Measure, plan: Plan, sort: Sequence[str] = (),
              descending: Sequence[bool] | bool = False, balance: bool = False, presorted: bool = False
              ) -> pl.LazyFrame:
    """`measure(part)` for groups of `plan.group_size` algorithms of `selection`, concatenated and sorted
    by the `sort` columns present; one call on the whole selection when it fits one group (and runs
    here). `balance`: groups of equal sizes, at least one per worker (`split`), for measures whose result
    does not depend on the grouping; `presorted`: `measure` gives its rows in the `sort` order already."""
    algorithms = selection.algorithms() if plan.group_size else []
    order = list(zip(sort, [descending] * len(sort) if isinstance(descending, bool) else descending))
    if not plan.group_size or (len(algorithms) <= plan.group_size and plan.executor == "local"):
        return measure(selection) if presorted else _sorted(measure(selection), order)
    parts = [selection.narrow(algorithm=g) for g in split(algorithms, plan.group_size, balance)]
    if not parts:  # no algorithm: what the measure gives of nothing, as here
        return measure(selection) if presorted else _sorted(measure(selection), order)
    # every group sorted where it is computed; the whole sorted again only where groups interleave
    return concat_sorted(collect_parts(measure, parts, plan.executor, order, presorted), order).lazy()


def split(items: Sequence, size: int, balance: bool = False) -> list[list]:
    """`items` in consecutive groups of `size`; with `balance`, in groups of as equal sizes as can be, at
    most `size`, and at least `distributed.workers()` groups when there are more items than `size` (so
    that every worker has a share: 10 algorithms in groups of 8 on 2 cores are 5 + 5, not 8 + 2)."""
    items = list(items)
    if not balance or len(items) <= size:
        return [items[i:i + size] for i in range(0, len(items), size)]
    n = max(-(-len(items) // size), min(distributed.workers(), len(items)))
    q, r = divmod(len(items), n)
    bounds = [i * q + min(i, r) for i in range(n + 1)]
    return [items[lo:hi] for lo, hi in zip(bounds, bounds[1:])]


def _sorted(lf: pl.LazyFrame, sort: Sequence[tuple[str, bool]]) -> pl.LazyFrame:
    """`lf` sorted by the (column, descending) pairs whose column it has (none: as it comes)."""
    names = lf.collect_schema().names()
    keep = [(c, d) for c, d in sort if c in names]
    if not keep:
        return lf
    return lf.sort([c for c, _ in keep], descending=[d for _, d in keep], maintain_order=True)


def _collect(measure: Callable, part, sort: Sequence[tuple[str, bool]] = ()) -> pl.DataFrame:
    """`measure(part)` collected, sorted as `_sorted` sorts."""
    return _sorted(measure(part), sort).collect()


def collect_parts(measure: Callable[[object], pl.LazyFrame], parts: Sequence, executor: str = "local",
                  sort: Sequence[tuple[str, bool]] = (), presorted: bool = False) -> list[pl.DataFrame]:
    """`measure(part).collect()` for every part, in order, each sorted by the (column, descending) pairs
    of `sort` it has (`presorted`: the measure gives them so sorted already): here in
    `distributed.workers()` threads (Polars, and numpy's sorts, release the GIL; memory bounded by that
    many parts), or as Ray tasks."""
    sort = [] if presorted else list(sort)
    if distributed.check(executor) == "local":
        n = min(distributed.workers(), len(parts))
        if n <= 1:
            return [_collect(measure, p, sort) for p in parts]
        with ThreadPoolExecutor(n) as pool:
            return list(pool.map(lambda p: _collect(measure, p, sort), parts))
    out: list = [None] * len(parts)
    for i, frame in distributed.run(_collect_there, [(measure, _absolute(p), sort) for p in parts]):
        out[i] = frame
    return out


def _absolute(part):
    """`part` as it travels to a task (a store's place is absolute from the start: `store.location`)."""
    return part


def _collect_there(measure: Callable, part, sort: Sequence[tuple[str, bool]] = ()) -> pl.DataFrame:
    """`_collect` in a Ray task: first the store must be visible where it runs (else `TaskFailed` naming
    the node and the store), and a store it cannot read fails the same way."""
    store = getattr(part, "store", None)
    if isinstance(store, Store):
        if store.location.local is not None:
            distributed.visible(store.location.local / "sources" / "_delta_log", "the store's sources table")
    try:
        return _collect(measure, part, sort)
    except (StoreError, FileNotFoundError) as exc:
        raise distributed.unreachable(exc) from None


def _before(a: tuple, b: tuple, descending: Sequence[bool]) -> bool:
    """Whether row key `a` may come before `b` in the order (ties allowed; a null is never in order)."""
    for x, y, d in zip(a, b, descending):
        if x is None or y is None:
            return False
        if x != y:
            return x > y if d else x < y
    return True


def concat_sorted(frames: Sequence[pl.DataFrame], sort: Sequence[tuple[str, bool]] = ()) -> pl.DataFrame:
    """Frames each sorted by the (column, descending) pairs of `sort` they have, as one frame in that
    order: put one after the other where each begins after the previous ends (no sort of the whole,
    whose memory would double the result's), else sorted as a whole."""
    out = pl.concat(frames, how="vertical_relaxed", rechunk=False)
    keep = [(c, d) for c, d in sort if c in out.columns]
    if not keep:
        return out
    cols, desc = [c for c, _ in keep], [d for _, d in keep]
    ends = [(f.select(cols).row(0), f.select(cols).row(-1)) for f in frames if f.height]
    if all(_before(prev[1], nxt[0], desc) for prev, nxt in zip(ends, ends[1:])):
        return out
    return out.sort(cols, descending=desc, maintain_order=True)


class KeptTrials:
    """`ecdf.prepare` of the hits of the latest selections (up to `max_rows` trial rows, about 50 bytes
    a row), for the next ECDF table of the same selection, targets and state of the store: `ecdf` then
    `ecdf_summary` (as the charts draw them) read and order the hits once. Ray tasks keep nothing."""

    def __init__(self, max_rows: int = 2_000_000):
        self.max_rows = max_rows
        self._kept: dict = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._kept)

    def __getstate__(self) -> dict:
        """What a Ray task gets: the limit, nothing kept (and no lock)."""
        return {"max_rows": self.max_rows}

    def __setstate__(self, state: dict) -> None:
        self.__init__(state["max_rows"])

    def trials(self, selection: Selection, targets: pl.DataFrame, plan: Plan):
        """The prepared trials of `selection`'s hits of `targets`, kept or computed now."""
        stamp = selection.store.stamp() if hasattr(selection.store, "stamp") else None  # else: nothing kept
        if stamp is None or selection.indicator != "logged" or plan.executor != "local":
            return ecdf.prepare(selection.hits(targets.lazy()).collect())
        key = (stamp, selection, tuple(targets.columns), tuple(map(str, targets.dtypes)), tuple(targets.iter_rows()))
        with self._lock:
            data = self._kept.get(key)
        if data is None:
            data = ecdf.prepare(selection.hits(targets.lazy()).collect())
            rows = data.trials.height
            with self._lock:
                if rows <= self.max_rows:
                    while self._kept and sum(d.trials.height for d in self._kept.values()) + rows > self.max_rows:
                        self._kept.pop(next(iter(self._kept)))  # the oldest first
                    self._kept[key] = data
        return data
