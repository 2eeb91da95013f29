"""Executors for work that splits into independent parts: in this process, or as Ray tasks.

Ingest parses sources, and measures compute groups of algorithms, independently; on Ray each part
is a task (`pip install ".[ray]"`), so an archive larger than one machine's memory or cores is
processed on a cluster (`ray.init(address=...)` before the call, or a local instance otherwise).
"""
from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

import polars as pl

EXECUTORS = ("local", "ray")


def check(executor: str) -> str:
    """The executor name, or a ValueError listing the known ones."""
    if executor not in EXECUTORS:
        raise ValueError(f"executor {executor!r}: expected one of {', '.join(EXECUTORS)}")
    return executor


def ray(num_cpus: int | None = None):
    """The `ray` module with a running instance (a local one unless one is already connected)."""
    try:
        import ray as _ray
    except ImportError as exc:
        raise RuntimeError("the Ray executor needs Ray: pip install 'cocopipe[ray]'") from exc
    if not _ray.is_initialized():
        _ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=False)
    return _ray


def split(items: Sequence, chunk: int, balance: bool = False) -> list[list]:
    """`items` in consecutive groups of `chunk`; with `balance`, in groups of as equal sizes as can be, at
    most `chunk`, and at least `workers()` groups when there are more items than `chunk` (so that every
    worker has a share: 10 algorithms in chunks of 8 on 2 cores are 5 + 5, not 8 + 2)."""
    items = list(items)
    if not balance or len(items) <= chunk:
        return [items[i:i + chunk] for i in range(0, len(items), chunk)]
    n = max(-(-len(items) // chunk), min(workers(), len(items)))
    q, r = divmod(len(items), n)
    bounds = [i * q + min(i, r) for i in range(n + 1)]
    return [items[lo:hi] for lo, hi in zip(bounds, bounds[1:])]


def _collect(measure: Callable, part, sort: Sequence[tuple[str, bool]] = ()) -> pl.DataFrame:
    """`measure(part)` collected, sorted by the (column, descending) pairs whose column it has (none:
    as it comes)."""
    lf = measure(part)
    names = lf.collect_schema().names()
    keep = [(c, d) for c, d in sort if c in names]
    if keep:
        lf = lf.sort([c for c, _ in keep], descending=[d for _, d in keep], maintain_order=True)
    return lf.collect()


def workers() -> int:
    """Parts computed at once in this process: COCOPIPE_WORKERS, else the cores available."""
    value = os.environ.get("COCOPIPE_WORKERS", "").strip()
    if value:
        try:
            return max(1, int(value))
        except ValueError:
            raise ValueError(f"COCOPIPE_WORKERS={value!r}: expected a number of threads") from None
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)


def collect_parts(measure: Callable[[object], pl.LazyFrame], parts: Sequence, executor: str = "local",
                  sort: Sequence[tuple[str, bool]] = (), presorted: bool = False) -> list[pl.DataFrame]:
    """`measure(part).collect()` for every part, in order, each sorted by the (column, descending) pairs
    of `sort` it has (`presorted`: the measure gives them so sorted already): here in `workers()` threads
    (Polars, and numpy's sorts, release the GIL; memory bounded by that many parts), or as Ray tasks."""
    sort = [] if presorted else list(sort)
    if check(executor) == "local":
        n = min(workers(), len(parts))
        if n <= 1:
            return [_collect(measure, p, sort) for p in parts]
        with ThreadPoolExecutor(n) as pool:
            return list(pool.map(lambda p: _collect(measure, p, sort), parts))
    r = ray()
    task = r.remote(_collect)
    return r.get([task.remote(measure, p, sort) for p in parts])


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
