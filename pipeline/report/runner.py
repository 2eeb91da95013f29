"""Where a report's heavy work runs: in this process, or spread over worker processes (the aRT
tables and tests, and the charts: a report has hundreds, each with Altair's own cost; docs/internals.md).
Results are the same either way; only the wall time differs.
"""
from __future__ import annotations

import contextlib
import functools
import inspect
import json
import re
import multiprocessing
import os
import signal
import threading
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor

import altair as alt
from altair.utils.schemapi import debug_mode

from ..charts import theme


class Deferred:
    """A result computed on first demand in this process (the in-process stand-in for a Future)."""

    def __init__(self, fn: Callable, args: tuple, kwargs: dict):
        self._call = (fn, args, kwargs)
        self._done = False
        self._value = None

    def result(self):
        """The value (computed now if needed; exceptions propagate)."""
        if not self._done:
            fn, args, kwargs = self._call
            self._value = fn(*args, **kwargs)
            self._done, self._call = True, None
        return self._value


@functools.cache
def theme_config() -> dict:
    """The chart theme's configuration as spec data (`pipeline.charts.theme.configure`)."""
    return theme.configure(alt.Chart()).to_dict(validate=False)["config"]


def _accepts_configured(fn: Callable) -> bool:
    try:
        return "configured" in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


def chart_spec(fn: Callable, args: tuple, kwargs: dict) -> dict:
    """The Vega-Lite spec of `fn(*args, **kwargs)`, an Altair chart. Altair's validation while the
    chart is assembled is switched off (the spec is the same, the time a third), and the theme
    configuration is set once on the finished spec instead of on every intermediate chart object
    (identical result: see tests/test_report.py)."""
    with debug_mode(False):
        if _accepts_configured(fn) and "configured" not in kwargs:
            spec = fn(*args, configured=False, **kwargs).to_dict(validate=False)
            spec = {"config": theme_config(), **{k: v for k, v in spec.items() if k != "config"}}
        else:
            spec = fn(*args, **kwargs).to_dict(validate=False)
    return canonical_names(spec)


def _param_names(node, found: list[str]) -> None:
    if isinstance(node, dict):
        for p in node.get("params", []) if isinstance(node.get("params"), list) else []:
            if isinstance(p, dict) and isinstance(p.get("name"), str) and p["name"] not in found:
                found.append(p["name"])
        for v in node.values():
            _param_names(v, found)
    elif isinstance(node, list):
        for v in node:
            _param_names(v, found)


def canonical_names(spec: dict) -> dict:
    """The spec with numbered parameter names ("zoom65": numbered by a counter of the process that
    made the chart) renumbered in order of appearance, so that a spec does not depend on what the
    process drew before (reports are byte-identical whoever builds them). The spec's tables
    (`datasets`, most of its size) are neither searched nor changed: names live outside them."""
    tables = spec.get("datasets")
    if isinstance(tables, dict):
        rest = canonical_names({k: v for k, v in spec.items() if k != "datasets"})
        return {**{k: rest[k] for k in spec if k != "datasets"}, "datasets": tables}
    names = []
    _param_names(spec, names)
    numbered = [n for n in names if re.fullmatch(r"[A-Za-z_]*?[A-Za-z_]\d+", n)]
    text = json.dumps(spec, allow_nan=False)
    # Altair's names of the views of a layer ("view_12", "view_<hex>_0") count in the making process too
    views = list(dict.fromkeys(re.findall(r'"(view_[0-9a-f]+(?:_\d+)?)"', text)))
    if not numbered and not views:
        return spec
    new = {n: re.sub(r"\d+$", "", n) + str(i) for i, n in enumerate(numbered, 1)}
    new.update({n: f"view_{i}" for i, n in enumerate(views, 1) if n not in new})
    text = re.sub(r"\b(" + "|".join(map(re.escape, new)) + r")\b", lambda m: new[m.group(1)], text)
    return json.loads(text)


def default_jobs() -> int:
    """Worker processes by default: the CPUs this process may use, at most 4; 1 means in-process."""
    try:
        n = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        n = os.cpu_count() or 1
    return max(1, min(n, 4))


#: what the workers' server imports once, before it forks each worker (`Runner`): the report's modules, all
#: its tasks' (the rank-sum tests need no scipy.stats: `measures/_kernels/ranksum.py`), then `preloaded`
PRELOAD = ("pipeline.report.build", "pipeline.report.preloaded")


def _end_with_parent() -> None:
    """A worker's start: a thread that ends the worker once the process that asked for it is gone (a Ctrl-C
    or a kill -9 there, at any moment, leaves no worker running on its own, holding the terminal). It
    waits on multiprocessing's sentinel of that process (a pipe it holds open), not on the worker's own
    parent: that is the fork server, which in turn ends only when no worker is left."""
    parent = multiprocessing.parent_process()

    def watch() -> None:
        parent.join()
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


def _start_tracker_quietly() -> None:
    """multiprocessing's resource tracker (a process of its own, which removes the pool's semaphores when
    this process is gone) started with its stderr to /dev/null: after a Ctrl-C that ends the command at
    once (`cli._lost_interrupt`), its warning of those semaphores would follow the command's last line."""
    from multiprocessing import resource_tracker

    saved, null = os.dup(2), os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 2)
        resource_tracker.ensure_running()
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(null)


class Runner:
    """Runs tasks in `jobs` worker processes, or in this process on demand when jobs is 1.

    The workers are forked by multiprocessing's fork server, a process of their own started afresh (not
    forked from this one: Polars' threads and fork do not mix), which imports the report's modules
    (`PRELOAD`) once and does nothing else: a worker starts at once, with them imported, and ends with no
    interpreter shutdown. They have Ctrl-C (SIGINT) blocked: this process takes it and stops them (`close`),
    so that they print no traceback."""

    def __init__(self, jobs: int = 1):
        self.jobs = max(1, int(jobs))
        self._pool = None
        if self.jobs > 1:
            _start_tracker_quietly()
            if "forkserver" in multiprocessing.get_all_start_methods():
                context = multiprocessing.get_context("forkserver")
                context.set_forkserver_preload(list(PRELOAD))
            else:  # pragma: no cover - no fork server (Windows): each worker spawned, importing the modules itself
                context = multiprocessing.get_context("spawn")
            self._pool = ProcessPoolExecutor(self.jobs, mp_context=context, initializer=_end_with_parent)

    @staticmethod
    @contextlib.contextmanager
    def _as_workers_start():
        """What the fork server, and so every worker, inherits when it is started here: the blocked SIGINT
        (there it waits, and is not lost) and one Polars thread (the workers are the parallelism: their
        thread pools competed for the cores; Polars reads the setting when it is imported). A Ctrl-C
        meanwhile takes effect at the end: a worker half started (forked, not yet known to the pool) would
        be left out of `close`, outlive this process and print a traceback."""
        old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        unset = "POLARS_MAX_THREADS" not in os.environ
        if unset:
            os.environ["POLARS_MAX_THREADS"] = "1"
        held, handler = [], None
        here = threading.current_thread() is threading.main_thread()  # the thread Python runs signal handlers in
        if here:
            handler = signal.signal(signal.SIGINT, lambda *_: held.append(True))
        try:
            yield
        finally:
            if unset:
                del os.environ["POLARS_MAX_THREADS"]
            signal.pthread_sigmask(signal.SIG_SETMASK, old)
            if here:
                signal.signal(signal.SIGINT, signal.SIG_DFL if handler is None else handler)
                if held:
                    signal.raise_signal(signal.SIGINT)  # now, to the handler in place before

    def submit(self, fn: Callable, *args, **kwargs) -> Future | Deferred:
        """Start `fn(*args, **kwargs)` (a module-level function, picklable arguments)."""
        if self._pool is None:
            return Deferred(fn, args, kwargs)
        with self._as_workers_start():  # the fork server is started by the first submit unless `warm` did
            return self._pool.submit(fn, *args, **kwargs)

    def warm(self) -> Runner:
        """Start the workers' fork server now, without waiting for it: it imports the report's modules (about
        a second of CPU) while this process reads the data, on a core the reading leaves idle."""
        if self._pool is not None and "forkserver" in multiprocessing.get_all_start_methods():
            from multiprocessing import forkserver

            with self._as_workers_start():
                forkserver.ensure_running()
        return self

    def chart(self, fn: Callable, *args, **kwargs) -> Future | Deferred:
        """Start making the spec of a chart function's chart."""
        return self.submit(chart_spec, fn, args, kwargs)

    def close(self, stop: bool = False) -> None:
        """Stop the workers (pending work is cancelled; with `stop`, running work too, e.g. after Ctrl-C). Their
        fork server stays, idle, for the next Runner of this process, and ends with it."""
        if self._pool is not None:
            if stop:
                for p in list((getattr(self._pool, "_processes", None) or {}).values()):
                    p.terminate()
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def __enter__(self) -> Runner:
        return self

    def __exit__(self, kind, *exc) -> None:
        self.close(stop=kind is not None)  # an error or Ctrl-C: what the workers do is not wanted
