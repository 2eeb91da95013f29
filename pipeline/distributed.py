"""Where work that splits into independent parts runs: this process's threads, or Ray tasks.

Ingest parses sources, and measures compute groups of algorithms (`pipeline.execution`),
independently; on Ray each part is a task (`pip install ".[ray]"`), so an archive larger than one
machine's memory or cores is processed on a cluster (the one `RAY_ADDRESS` names, or one connected by
`ray.init(address=...)` before the call; a local instance otherwise). Tasks read the files they are
given by path: every node must see them at the same path (docs/scale.md). A task that cannot, or a node
without cocopipe, fails the call with `TaskFailed`, one line naming the node and what it could not reach.
"""
from __future__ import annotations

import json
import os
import re
import socket
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

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


class ClusterUnreachable(TaskFailed):
    """The Ray cluster RAY_ADDRESS names cannot be reached or refuses this driver."""


#: seconds to wait for the Ray cluster's address to accept a connection
CONNECT_TIMEOUT = 5.0
#: the driver's environment variables its Ray tasks get (a job's runtime_env, `ray job submit`, takes
#: precedence): how to reach the object store, its credentials and time limits
TASK_ENV = re.compile(r"^(AWS_|AZURE_|GOOGLE_|COCOPIPE_STORE_)")


def ray(num_cpus: int | None = None):
    """The `ray` module connected: to the cluster already connected, else to the one `RAY_ADDRESS` names
    (its nodes have their own CPUs: `num_cpus` is not given), else to a new local instance of `num_cpus`."""
    from .extras import require

    _ray = require("ray", "ray", "the Ray executor")
    if not _ray.is_initialized():
        if os.environ.get("RAY_ADDRESS", "").strip():
            _connect(_ray, os.environ["RAY_ADDRESS"].strip())
        else:  # "local": never a cluster that another `ray start` on this machine left behind
            _ray.init(address="local", num_cpus=num_cpus, include_dashboard=False, log_to_driver=False)
    return _ray


def _connect(_ray, address: str) -> None:
    """Connect to the cluster at `address`: `ClusterUnreachable` naming it within about CONNECT_TIMEOUT when
    nothing answers there as a Ray cluster (Ray itself waits without end), or when Ray refuses the connection
    (within Ray's own 20 s then). A cluster started with token authentication (Ray 2.5x: on when a token is in
    ~/.ray/auth_token) is joined with the token found here (RAY_AUTH_TOKEN, RAY_AUTH_TOKEN_PATH, that file):
    Ray takes a token for an address given explicitly only with RAY_AUTH_MODE=token, which is then set."""
    why = _probe(address)
    if why:
        raise ClusterUnreachable(f"the Ray cluster at {address} (RAY_ADDRESS) cannot be reached ({why}); start it "
                                 "(`ray start --head`, docs/scale.md) or unset RAY_ADDRESS for a local instance")
    _token_mode()
    env = _task_env()
    try:
        _ray.init(log_to_driver=False, runtime_env={"env_vars": env} if env else None)
    except Exception as exc:  # noqa: BLE001 - Ray says a refused connection in several ways
        raise ClusterUnreachable(f"cannot connect to the Ray cluster at {address} (RAY_ADDRESS): "
                                 f"{' '.join(str(exc).split())[:200]}; if it was started with token authentication, "
                                 "give its token (RAY_AUTH_TOKEN, RAY_AUTH_TOKEN_PATH or ~/.ray/auth_token; "
                                 "docs/scale.md)") from None


#: the HTTP/2 client preface and an empty SETTINGS frame: what a gRPC client (Ray's) sends first
_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"


def _probe(address: str) -> str | None:
    """Why nothing at `address` (host:port) answers as a Ray cluster's gRPC server within CONNECT_TIMEOUT,
    or None: it does (its first HTTP/2 frame, SETTINGS, came; with RAY_USE_TLS, it accepts connections), or
    the address has no port ("auto")."""
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not port.isdigit():
        return None
    tls = os.environ.get("RAY_USE_TLS", "").strip().lower() in ("1", "true")  # a TLS server waits for a hello
    try:
        with socket.create_connection((host.strip("[]") or "127.0.0.1", int(port)), timeout=CONNECT_TIMEOUT) as sock:
            if tls:
                return None
            sock.sendall(_PREFACE)
            first = sock.recv(9)
    except TimeoutError:
        return f"no answer within {CONNECT_TIMEOUT:g} s"
    except OSError as exc:
        return exc.strerror or str(exc)
    if len(first) < 4 or first[3] != 4:  # an HTTP/2 frame's type, 4: SETTINGS
        return "what answers there is no Ray cluster"
    return None


def _token_mode() -> None:
    """RAY_AUTH_MODE=token where it is not set and a token is found here (see `_connect`)."""
    token = Path(os.environ.get("RAY_AUTH_TOKEN_PATH") or Path.home() / ".ray" / "auth_token")
    if "RAY_AUTH_MODE" not in os.environ and (os.environ.get("RAY_AUTH_TOKEN") or token.is_file()):
        os.environ["RAY_AUTH_MODE"] = "token"
        try:  # Ray reads its configuration again, as its own _enable_token_auth does
            from ray._raylet import Config
        except ImportError:  # a Ray without token authentication
            return
        Config.initialize("")


def _task_env() -> dict[str, str]:
    """The variables of TASK_ENV this driver has, but for those the job's own runtime_env sets (Ray refuses
    the same variable twice)."""
    job = json.loads(os.environ.get("RAY_JOB_CONFIG_JSON_ENV_VAR") or "{}")
    given = (job.get("runtime_env") or {}).get("env_vars") or {}
    return {k: v for k, v in os.environ.items() if TASK_ENV.match(k) and k not in given}


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
