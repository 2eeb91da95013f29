"""The Ray executor on a real two-node cluster without a shared file system: every command either does
all it was asked or exits non-zero naming what it could not reach (issue 29).

The fixture starts a head node and a second node on loopback (`ray start`, one CPU each). The second
node's raylet runs in a mount namespace of its own (`unshare -m`, as root) where a private tmpfs covers
`HIDDEN` (the driver's files there are not visible to its tasks, as on a machine without the shared
file system) and every package folder cocopipe is imported from (it is a node without cocopipe, unless a
runtime_env brings the package). A placement group holds the head's CPU, so every task runs on the
second node. `SHARED` is a folder both nodes see (a shared file system).
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from logs import write_new2
from objectstore import s3_server  # noqa: F401 - fixture

ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'cocopipe[ray]')")

ROOT = Path(__file__).resolve().parent.parent
RAY = str(Path(sys.executable).with_name("ray"))
#: the package as installed (its schemas inside), which a runtime_env's py_modules uploads to the nodes
PACKAGE = Path(tempfile.gettempdir()) / f"cocopipe-package-{os.getpid()}" / "pipeline"  # made by `cluster`
#: what gives cocopipe to the second node (it has none)
RUNTIME_ENV = {"py_modules": [str(PACKAGE)]}


def _package_folders() -> set[str]:
    """The package folders `pipeline` is imported from here and in a bare environment (the clone's, or the
    installed one in site-packages: that folder only, not the site-packages that hold Ray too)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    bare = subprocess.run([sys.executable, "-c", "import pipeline; print(pipeline.__path__[0])"],
                          env=env, cwd="/", capture_output=True, text=True)
    return {str(ROOT / "pipeline")} | ({bare.stdout.strip()} if bare.returncode == 0 else set())


def free_port() -> int:
    """A TCP port no process listens on now (the kernel's pick), on every interface."""
    import socket

    with socket.socket() as sock:
        sock.bind(("", 0))
        return sock.getsockname()[1]


def _stop(temps: list[str], wait: float = 3) -> None:
    """End the processes of the nodes started with these temp folders, by id (`ray stop` would end every
    Ray process of the machine, other users' too): SIGTERM, then SIGKILL after `wait` seconds."""
    import signal

    def ours() -> list[int]:
        pids = []
        for proc in Path("/proc").iterdir():
            try:
                cmd = (proc / "cmdline").read_bytes().decode(errors="replace")
            except OSError:
                continue
            if proc.name.isdigit() and int(proc.name) != os.getpid() and any(t in cmd for t in temps):
                pids.append(int(proc.name))
        return pids

    for sig, pause in ((signal.SIGTERM, wait), (signal.SIGKILL, 5)):
        for pid in ours():
            try:
                os.kill(pid, sig)
            except OSError:
                pass
        end = time.monotonic() + pause
        while ours() and time.monotonic() < end:
            time.sleep(0.5)


@pytest.fixture(scope="module")
def cluster():
    """RAY_ADDRESS of a running two-node cluster (head: resource "head"; second node: "node2", in its own
    mount namespace), the hidden and the shared folders; stopped at the end."""
    if os.geteuid() != 0 or not shutil.which("unshare"):
        pytest.fail("the two-node tests need root and unshare (a mount namespace for the second node)")
    shutil.copytree(ROOT / "pipeline", PACKAGE, ignore=shutil.ignore_patterns("__pycache__"), dirs_exist_ok=True)
    shutil.copytree(ROOT / "schemas", PACKAGE / "_schemas", dirs_exist_ok=True)
    # one authentication mode for every process of the cluster (a token in ~/.ray, which any local
    # ray.init() writes, would turn it on for some and not others): none, on loopback
    with pytest.MonkeyPatch.context() as env:
        env.setenv("RAY_AUTH_MODE", "disabled")
        yield from _started(Path(tempfile.mkdtemp(prefix="cocopipe-hidden-")),
                            Path(tempfile.mkdtemp(prefix="cocopipe-shared-")))


def _started(hidden: Path, shared: Path):
    """The cluster's description while it runs."""
    temp_a, temp_b = tempfile.mkdtemp(prefix="ray-a-"), tempfile.mkdtemp(prefix="ray-b-")
    port = free_port()  # the machine's other Ray clusters have theirs
    address = f"127.0.0.1:{port}"
    head = subprocess.run([RAY, "start", "--head", "--port", str(port), "--node-ip-address", "127.0.0.1",
                           "--dashboard-agent-listen-port", str(free_port()),
                           "--temp-dir", temp_a, "--num-cpus", "1", "--resources", json.dumps({"head": 1}),
                           "--include-dashboard", "false", "--disable-usage-stats"],
                          capture_output=True, text=True, timeout=180)
    try:
        assert head.returncode == 0, head.stderr[-2000:]
        bare = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "RAY_ADDRESS")}
        hide = " && ".join(f"mount -t tmpfs cocopipe-hidden {p}" for p in [hidden, *_package_folders()])
        second = subprocess.run(
            ["unshare", "-m", "--propagation", "private", "sh", "-c",
             f"{hide} && exec {RAY} start --address {address} --node-ip-address 127.0.0.1 --temp-dir {temp_b} "
             f"--num-cpus 1 --resources '{json.dumps({'node2': 1})}' --disable-usage-stats "
             f"--dashboard-agent-listen-port {free_port()}"],
            capture_output=True, text=True, timeout=180, env=bare, cwd="/")
        assert second.returncode == 0, second.stderr[-2000:]
        ray.init(address=address, runtime_env=RUNTIME_ENV, log_to_driver=False)
        end = time.monotonic() + 120
        while len([n for n in ray.nodes() if n["Alive"]]) < 2:
            assert time.monotonic() < end, "the second Ray node did not join"
            time.sleep(1)
        # the head's CPU held for the module: every task of every job runs on the second node
        hold = ray.util.placement_group([{"CPU": 1, "head": 1}], lifetime="detached")
        ray.get(hold.ready(), timeout=120)
        yield {"address": address, "hidden": hidden, "shared": shared}
    finally:
        if ray.is_initialized():
            ray.shutdown()
        _stop([temp_a, temp_b])
        for p in (hidden, shared, temp_a, temp_b, PACKAGE.parent):
            shutil.rmtree(p, ignore_errors=True)


def alg_logs(root: Path, algs: str) -> list[Path]:
    """One tiny bbob source per algorithm: two trials of f1 in 2-D."""
    return [write_new2(root / a, alg=a, runs=[{"instance": 1, "dat": [(1, 5.0), (10 + i, 1e-9)]},
                                               {"instance": 2, "dat": [(1, 3.0), (30 + i, 1e-3)]}])
            for i, a in enumerate(algs)]


@pytest.fixture(scope="module")
def data(cluster):
    """Three sources and a store of them, in the hidden folder and in the shared one."""
    from pipeline.ingest import ingest
    from pipeline.store import Store

    out = {}
    for where in ("hidden", "shared"):
        sources = alg_logs(cluster[where] / "src", "ABC")
        st = Store(cluster[where] / "store", create=True)
        ingest(sources, st)
        out[where] = (sources, st)
    return out


def cli(args: list[str], cluster, cwd=None, runtime_env: dict | None = RUNTIME_ENV, env: dict | None = None
        ) -> subprocess.CompletedProcess:
    """`cocopipe ARGS` as a Ray driver of the cluster (RAY_ADDRESS), its tasks given cocopipe by the
    runtime_env `ray job submit --runtime-env-json` would give them (None: none); `env`: more variables for
    the driver and, through the runtime_env, its tasks (e.g. an object store's endpoint)."""
    if env and runtime_env is not None:
        runtime_env = {**runtime_env, "env_vars": {**env, **runtime_env.get("env_vars", {})}}
    env = {**os.environ, **(env or {}), "RAY_ADDRESS": cluster["address"], "PYTHONPATH": str(ROOT)}
    env.pop("RAY_JOB_CONFIG_JSON_ENV_VAR", None)
    if runtime_env is not None:
        env["RAY_JOB_CONFIG_JSON_ENV_VAR"] = json.dumps({"runtime_env": runtime_env})
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *args], capture_output=True, text=True,
                          env=env, cwd=cwd or cluster["shared"], timeout=300)


def one_line_error(result: subprocess.CompletedProcess) -> str:
    """The one line a failed command said (no traceback)."""
    assert result.returncode == 1, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr, result.stderr
    lines = [x for x in result.stderr.splitlines() if x.startswith("error:")]
    assert len(lines) == 1, result.stderr
    return " ".join(result.stderr.split())


def test_measures_where_the_store_is_not_visible_fail_naming_the_node_and_the_store(cluster, data):
    from pipeline.api import Analysis

    st = data["hidden"][1]
    said = one_line_error(cli(["art", "--store", str(st.path), "--executor", "ray", "-o", "-"], cluster))
    assert "Ray node" in said and str(st.path) in said and "not visible there" in said
    with pytest.raises(RuntimeError, match=r"Ray node .*: the store's sources table .*cocopipe-hidden.*is not visible there"):
        Analysis(st, executor="ray").art().collect()


def test_measures_on_a_shared_store_equal_the_threads(cluster, data):
    from pipeline.api import Analysis

    st = data["shared"][1]
    for measure in ("art", "ecdf"):
        local = getattr(Analysis(st, group_size=1), measure)().collect()
        remote = getattr(Analysis(st, executor="ray", group_size=1), measure)().collect()
        assert local.height and remote.equals(local), measure
    assert set(local["algorithm"]) == {"A", "B", "C"}


def test_a_relative_store_is_read_from_the_driver_working_folder(cluster, data):
    # the store "store" of the shared folder, named from there: the tasks (working folder /) read it whole
    local = cli(["art", "--store", "store", "-o", "local.csv"], cluster)
    remote = cli(["art", "--store", "store", "--executor", "ray", "-o", "ray.csv"], cluster)
    assert local.returncode == 0 and remote.returncode == 0, (local.stderr, remote.stderr)
    out = cluster["shared"]
    assert (out / "ray.csv").read_text() == (out / "local.csv").read_text()
    assert len((out / "ray.csv").read_text().splitlines()) > 3


def test_a_relative_store_given_to_analysis_is_read_whole_on_ray(cluster, data, monkeypatch):
    from pipeline.api import Analysis
    from pipeline.store import Store

    monkeypatch.chdir(cluster["shared"])
    st = Store("store")
    assert st.path == cluster["shared"] / "store"  # made absolute at the edge: any task reads the same folder
    local = Analysis(st).art().collect()
    assert local.height and Analysis(st, executor="ray").art().collect().equals(local)


def test_ingest_of_a_source_a_node_cannot_see_exits_non_zero_naming_it(cluster, data):
    # A seen, B not, C seen: A and C are stored (everything readable kept), and the ingest exits 1 naming B
    from pipeline.store import Store

    sources = [data["shared"][0][0], data["hidden"][0][1], data["shared"][0][2]]
    st = Store(cluster["shared"] / "ingested-partly", create=True)
    result = cli(["ingest", *map(str, sources), "--store", str(st.path), "--executor", "ray", "-j", "1"], cluster)
    said = one_line_error(result)
    assert re.search(rf"error: Ray node \S+ \(node \w+\): the source {sources[1]} is not visible there", said), said
    assert sorted(st.refresh().runs().collect()["algorithm"]) == list("AACC")


def test_jobs_on_an_existing_cluster_are_tasks_in_flight(cluster, data):
    from pipeline.store import Store

    sources = data["shared"][0]
    result = cli(["ingest", *map(str, sources), "--store", "by-ray", "--executor", "ray", "-j", "2"], cluster)
    assert result.returncode == 0, result.stderr
    runs = Store(cluster["shared"] / "by-ray").runs().collect()
    assert sorted(runs["algorithm"]) == sorted(data["shared"][1].runs().collect()["algorithm"]) == list("AABBCC")


def test_a_node_without_cocopipe_is_one_line_saying_how_to_fix_it(cluster, data):
    st = data["shared"][1]
    said = one_line_error(cli(["art", "--store", str(st.path), "--executor", "ray", "-o", "-"], cluster,
                              runtime_env=None))
    assert re.search(r"error: Ray node [\d.]+ has no cocopipe \(No module named 'pipeline[.\w]*'\): install cocopipe on "
                     r"every node, or give it to the tasks in a runtime_env", said), said


def test_an_empty_selection_on_ray_is_what_the_threads_give(cluster, data):
    from pipeline.api import Analysis

    from pipeline.selection import SelectionError

    st = data["shared"][1]
    said = []
    for plan in ({}, {"executor": "ray"}):  # a value the store does not hold: the command line's error on both
        with pytest.raises(SelectionError) as exc:
            Analysis(st, algorithm="none of them", **plan).art().collect()
        said.append(str(exc.value))
    assert said[0] == said[1] and "no algorithm 'none of them'" in said[0]


def test_a_store_folder_that_does_not_exist_is_an_error_not_an_empty_table(tmp_path):
    from pipeline.store import Store, StoreError

    st = Store(tmp_path / "gone", create=True)
    shutil.rmtree(tmp_path / "gone")
    with pytest.raises(StoreError, match="gone: no such store folder"):
        st.runs()


def _upload(server, bucket: str, folder: Path, prefix: str) -> str:
    """A folder's files under a prefix of a bucket; its URI."""
    import boto3

    s3 = boto3.client("s3", endpoint_url=server.endpoint, aws_access_key_id="cocopipe",
                      aws_secret_access_key="cocopipe", region_name="us-east-1")
    for f in folder.rglob("*"):
        if f.is_file():
            s3.upload_file(str(f), bucket, f"{prefix}/{f.relative_to(folder).as_posix()}")
    return f"s3://{bucket}/{prefix}"


def test_on_ray_with_the_store_and_the_sources_only_in_the_object_store(cluster, data, s3_server):
    # the second node sees neither the driver's sources (the hidden folder) nor any store folder: tasks read the
    # sources from the object store and write their rows there; the driver only commits
    bucket = s3_server.bucket()
    sources = [_upload(s3_server, bucket, p, f"logs/{p.name}") for p in data["hidden"][0]]
    store = f"s3://{bucket}/store"
    done = cli(["ingest", *sources, "--store", store, "--executor", "ray", "-j", "2"], cluster, env=s3_server.env)
    assert done.returncode == 0, done.stderr
    local = cluster["shared"] / "from-s3-local"
    assert cli(["ingest", *sources, "--store", str(local)], cluster, env=s3_server.env).returncode == 0
    out = cluster["shared"]
    for args in (["runs"], ["art", "--executor", "ray"], ["ecdf", "--executor", "ray"], ["auc"],
                 ["rank", "--by", "auc", "--executor", "ray"]):
        a = cli([*args, "--store", str(local), "-o", "local.csv"], cluster, env=s3_server.env)
        b = cli([*args, "--store", store, "-o", "s3.csv"], cluster, env=s3_server.env)
        assert a.returncode == 0 and b.returncode == 0, (args, a.stderr, b.stderr)
        assert (out / "s3.csv").read_bytes() == (out / "local.csv").read_bytes(), args
        assert len((out / "local.csv").read_text().splitlines()) > 3, args


def test_a_store_uri_a_node_cannot_reach_exits_non_zero_naming_it(cluster, data, s3_server):
    bucket = s3_server.bucket()
    store = f"s3://{bucket}/store"
    sources = [str(p) for p in data["shared"][0]]
    assert cli(["ingest", *sources, "--store", store], cluster, env=s3_server.env).returncode == 0
    # the tasks are pointed at a port where no server listens: every one of them fails, and the command says so
    result = cli(["art", "--store", store, "--executor", "ray", "-o", "-"], cluster, env=s3_server.env,
                 runtime_env={**RUNTIME_ENV, "env_vars": {"AWS_ENDPOINT_URL": "http://127.0.0.1:9"}})
    assert result.returncode != 0 and "Traceback" not in result.stderr, result.stderr
    assert store in result.stderr
