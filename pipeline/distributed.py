"""Executors for work that splits into independent parts: in this process, or as Ray tasks.

Ingest parses sources, and measures compute groups of algorithms, independently; on Ray each part
is a task (`pip install ".[ray]"`), so an archive larger than one machine's memory or cores is
processed on a cluster (`ray.init(address=...)` before the call, or a local instance otherwise).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

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


def _collect(measure: Callable, part) -> pl.DataFrame:
    return measure(part).collect()


def collect_parts(measure: Callable[[object], pl.LazyFrame], parts: Sequence, executor: str = "local"
                  ) -> list[pl.DataFrame]:
    """`measure(part).collect()` for every part, in order: here one after the other (memory bounded
    by the largest part), or as Ray tasks."""
    if check(executor) == "local":
        return [_collect(measure, p) for p in parts]
    r = ray()
    task = r.remote(_collect)
    return r.get([task.remote(measure, p) for p in parts])
