"""Where work that splits into independent parts runs: this process's threads, or Ray tasks.

Ingest parses sources, and measures compute groups of algorithms (`pipeline.execution`),
independently; on Ray each part is a task (`pip install ".[ray]"`), so an archive larger than one
machine's memory or cores is processed on a cluster (the one `RAY_ADDRESS` names, or one connected by
`ray.init(address=...)` before the call; a local instance otherwise). Tasks read the files they are
given by path: every node must see them at the same path (docs/scale.md). A task that cannot, or a node
without cocopipe, fails the call with `TaskFailed`, one line naming the node and what it could not reach.
"""
from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Sequence

EXECUTORS = ("local", "ray")
#: times Ray runs a task again when its node or worker process is lost
RETRIES = 3


def check(executor: str) -> str:
    """The executor name, or a ValueError listing the known ones."""
    if executor not in EXECUTORS:
        raise ValueError(f"executor {executor!r}: expected one of {', '.join(EXECUTORS)}")
    return executor


class TaskFailed(RuntimeError):
    """A Ray task could not do its part; the message is one line naming the node and what it could not reach."""


#: how to give cocopipe to the nodes of a cluster, said when one has not got it
INSTALL = ("install cocopipe on every node, or give it to the tasks in a runtime_env (a wheel of it: ray job "
           "submit --runtime-env-json '{\"py_modules\": [\"cocopipe-....whl\"]}' -- cocopipe ...; docs/scale.md)")


def ray(num_cpus: int | None = None):
    """The `ray` module connected: to the cluster already connected, else to the one `RAY_ADDRESS` names
    (its nodes have their own CPUs: `num_cpus` is not given), else to a new local instance of `num_cpus`."""
    from .extras import require

    _ray = require("ray", "ray", "the Ray executor")
    if not _ray.is_initialized():
        if os.environ.get("RAY_ADDRESS", "").strip():
            _ray.init(log_to_driver=False)
        else:  # "local": never a cluster that another `ray start` on this machine left behind
            _ray.init(address="local", num_cpus=num_cpus, include_dashboard=False, log_to_driver=False)
    return _ray


def run(function: Callable, calls: Sequence[tuple], in_flight: int | None = None) -> Iterator[tuple[int, object]]:
    """`function(*call)` for every call as Ray tasks, at most `in_flight` at once (None: all), yielding
    (index of the call, result) as they complete; a task that fails raises `TaskFailed` (`failure`)."""
    _ray = ray()
    # a task whose worker or node dies is run again elsewhere, up to RETRIES times (an exception it raises
    # is not retried: it is the command's failure, said in one line)
    task = _ray.remote(max_retries=RETRIES, retry_exceptions=False)(function)
    todo = iter(enumerate(calls))
    running: dict = {}

    def submit() -> None:
        for i, call in todo:
            running[task.remote(*call)] = i
            if in_flight and len(running) >= in_flight:
                return

    submit()
    try:
        while running:
            ready, _ = _ray.wait(list(running), num_returns=1)
            i = running.pop(ready[0])
            try:
                result = _ray.get(ready[0])
            except Exception as exc:  # noqa: BLE001 - every task failure is said in one line
                raise failure(exc) from None
            yield i, result
            submit()
    finally:
        for ref in running:
            _ray.cancel(ref, force=True)


def failure(exc: BaseException) -> BaseException:
    """What a failed Ray task raises here: `TaskFailed` (one line naming the node) for a task that raised
    it there, or a node without cocopipe; any other error as it is (a bug, with its traceback)."""
    cause = getattr(exc, "cause", None)
    ip = getattr(exc, "ip", None) or next(iter(re.findall(r"\bip=([\w.:-]+)", str(exc))), None)
    where = f"Ray node {ip}" if ip else "a Ray node"
    if isinstance(cause, TaskFailed):
        return TaskFailed(str(cause))
    missing = re.search(r"No module named '(pipeline[\w.]*)'", str(exc))
    if missing:
        return TaskFailed(f"{where} has no cocopipe (No module named '{missing.group(1)}'): {INSTALL}")
    return exc  # with the task's own traceback


def node() -> str:
    """This Ray worker's node: its address and id."""
    import ray as _ray

    ctx = _ray.get_runtime_context()
    return f"{_ray.util.get_node_ip_address()} (node {ctx.get_node_id()[:12]})"


def unreachable(exc: BaseException) -> TaskFailed:
    """`exc` (a file or store this task could not read) as `TaskFailed` naming this node."""
    return TaskFailed(f"Ray node {node()}: {exc}")


def visible(path: str | os.PathLike, what: str) -> None:
    """Nothing when `path` exists where this task runs, else `TaskFailed` naming the node and the path."""
    if not os.path.exists(path):
        raise TaskFailed(f"Ray node {node()}: {what} {path} is not visible there (every node must see the "
                         "driver's files at the same path: a shared file system, docs/scale.md)")


def workers() -> int:
    """Parts computed at once in this process: COCOPIPE_WORKERS, else the cores available."""
    value = os.environ.get("COCOPIPE_WORKERS", "").strip()
    if value:
        try:
            return max(1, int(value))
        except ValueError:
            raise ValueError(f"COCOPIPE_WORKERS={value!r}: expected a number of threads") from None
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)
