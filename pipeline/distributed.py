"""Where work that splits into independent parts runs: this process's threads, or Ray tasks.

Ingest parses sources, and measures compute groups of algorithms (`pipeline.execution`),
independently; on Ray each part is a task (`pip install ".[ray]"`), so an archive larger than one
machine's memory or cores is processed on a cluster (`ray.init(address=...)` before the call, or a
local instance otherwise).
"""
from __future__ import annotations

import os

EXECUTORS = ("local", "ray")


def check(executor: str) -> str:
    """The executor name, or a ValueError listing the known ones."""
    if executor not in EXECUTORS:
        raise ValueError(f"executor {executor!r}: expected one of {', '.join(EXECUTORS)}")
    return executor


def ray(num_cpus: int | None = None):
    """The `ray` module with a running instance (a local one unless one is already connected)."""
    from .extras import require

    _ray = require("ray", "ray", "the Ray executor")
    if not _ray.is_initialized():
        _ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=False)
    return _ray


def workers() -> int:
    """Parts computed at once in this process: COCOPIPE_WORKERS, else the cores available."""
    value = os.environ.get("COCOPIPE_WORKERS", "").strip()
    if value:
        try:
            return max(1, int(value))
        except ValueError:
            raise ValueError(f"COCOPIPE_WORKERS={value!r}: expected a number of threads") from None
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)
