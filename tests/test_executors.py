"""Parallel and distributed ingest write the same store as the sequential one."""
from __future__ import annotations

import pytest

from conftest import SHARED, shared_or_skip
from objectstore import s3_server  # noqa: F401 - fixture
from pipeline.ingest import ingest
from pipeline.store import Store

SOURCES = ["real/DIRECT_posik_noiseless.tgz", "generated/RS_on_bbob-noisy.tgz", "generated/RS_on_bbob-biobj.tgz"]


def snapshot(st: Store):
    runs = st.runs().collect().sort("run_id")
    events = st.events().collect().sort("run_id", "evaluations", "best_delta")
    return runs, events


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    shared_or_skip()
    st = Store(tmp_path_factory.mktemp("seq"), create=True)
    ingest([SHARED / "data" / s for s in SOURCES], st)
    return snapshot(st)


def check_same(reference, st):
    runs, events = snapshot(st)
    assert runs.equals(reference[0]) and events.equals(reference[1])


def test_process_pool_executor(reference, tmp_path):
    st = Store(tmp_path / "par", create=True)
    s = ingest([SHARED / "data" / x for x in SOURCES], st, jobs=2)
    assert [o.status for o in s.sources] == ["ingested"] * 3
    check_same(reference, st)


def test_ray_executor(reference, tmp_path):
    ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'cocopipe[ray]')")
    st = Store(tmp_path / "ray", create=True)
    try:
        ingest([SHARED / "data" / x for x in SOURCES], st, jobs=2, executor="ray")
    finally:
        ray.shutdown()
    check_same(reference, st)


def test_measures_as_ray_tasks_equal_local(tmp_path):
    # every group of algorithms a Ray task: aRT (with dispersion) and ECDFs equal the in-process result
    ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'cocopipe[ray]')")
    from pipeline.api import Analysis

    st = Store(tmp_path / "s", create=True)
    ingest([SHARED / "data" / x for x in SOURCES], st)
    local, remote = Analysis(st, group_size=1), Analysis(st, executor="ray", group_size=1)
    try:
        art = remote.art(dispersion=True, samples=50).collect()
        ecdf = remote.ecdf().collect()
    finally:
        ray.shutdown()
    assert art.select("suite", "algorithm").n_unique() == 3  # DIRECT, and RS on two suites: two tasks
    assert art.equals(local.art(dispersion=True, samples=50).collect())
    assert ecdf.equals(local.ecdf().collect())


def test_unknown_executor_is_refused(tmp_path):
    from pipeline.api import Analysis

    with pytest.raises(ValueError, match="executor 'spark'"):
        Analysis(Store(tmp_path / "s", create=True), executor="spark")


def test_measures_in_threads_equal_one_part_at_a_time(tmp_path, monkeypatch):
    # groups of algorithms computed in two threads give the tables computed one group after the other
    from pipeline import distributed
    from pipeline.api import Analysis

    shared_or_skip()
    st = Store(tmp_path / "s", create=True)
    ingest([SHARED / "data" / x for x in SOURCES], st)
    a = Analysis(st, group_size=1)
    monkeypatch.setenv("COCOPIPE_WORKERS", "1")
    assert distributed.workers() == 1
    one = (a.art(dispersion=True, samples=50).collect(), a.ecdf().collect(), a.ecdf_summary().collect())
    monkeypatch.setenv("COCOPIPE_WORKERS", "2")
    two = (a.art(dispersion=True, samples=50).collect(), a.ecdf().collect(), a.ecdf_summary().collect())
    assert one[0].select("suite", "algorithm").n_unique() == 3
    assert all(x.equals(y) for x, y in zip(one, two))
    monkeypatch.setenv("COCOPIPE_WORKERS", "many")
    with pytest.raises(ValueError, match="COCOPIPE_WORKERS='many'"):
        distributed.workers()


def test_parts_sorted_where_computed_are_put_in_order():
    # parts that follow each other are concatenated as they are; interleaving parts are sorted as a whole
    import polars as pl

    from pipeline.execution import concat_sorted

    order = [("suite", False), ("target", True), ("absent", False)]
    a = pl.DataFrame({"suite": ["bbob", "bbob"], "target": [10.0, 1.0]})
    b = pl.DataFrame({"suite": ["bbob", "noisy"], "target": [1.0, 5.0]})
    c = pl.DataFrame({"suite": ["bbob"], "target": [3.0]})
    assert concat_sorted([a, b.head(0), b], order).rows() == [("bbob", 10.0), ("bbob", 1.0), ("bbob", 1.0),
                                                             ("noisy", 5.0)]
    assert concat_sorted([a, b, c], order).rows() == [("bbob", 10.0), ("bbob", 3.0), ("bbob", 1.0), ("bbob", 1.0),
                                                      ("noisy", 5.0)]
    nulls = pl.DataFrame({"suite": [None], "target": [2.0]}, schema=a.schema)
    assert concat_sorted([a, nulls], order).rows()[0] == (None, 2.0)  # nulls first, as Polars sorts


@pytest.mark.parametrize("group_size", [None, 1, 8])
def test_a_measure_per_group_is_sorted_however_the_algorithms_are_grouped(tmp_path, group_size):
    """One group (the whole selection computed at once) or several: the rows come in the `sort` order."""
    from logs import write_new2
    from pipeline.api import Analysis

    st = Store(tmp_path / "s", create=True)
    for alg in ("C", "A", "B"):
        ingest([write_new2(tmp_path / alg, alg=alg, runs=[{"instance": 1, "dat": [(1, 5.0)]}])], st)
    a = Analysis(st, group_size=group_size)
    for _ in range(5):  # a group-by hands its groups in any order
        got = a.per_algorithm(lambda part: part.runs().group_by("algorithm").len(), sort=["algorithm"]).collect()
        assert got["algorithm"].to_list() == ["A", "B", "C"]
        got = a.per_algorithm(lambda part: part.runs().group_by("algorithm").len(), sort=["algorithm"],
                              descending=True).collect()
        assert got["algorithm"].to_list() == ["C", "B", "A"]


def test_a_task_whose_worker_dies_is_run_again(tmp_path):
    pytest.importorskip("ray")
    from pipeline import distributed

    def dies_once(marker: str) -> str:  # a worker process that dies the first time, as on a node that is lost
        import os

        if not os.path.exists(marker):
            open(marker, "w").close()
            os._exit(1)
        return "done"

    import ray

    started = not ray.is_initialized()
    marker = str(tmp_path / "died")
    try:
        assert [r for _, r in distributed.run(dies_once, [(marker,)])] == ["done"]
    finally:
        if started:  # the Ray instance this test started ends with it
            ray.shutdown()


# -- a cluster that cannot be reached, or that asks for a token (issue 43) --------------------------------

def _cli(args: list, env: dict, cwd) -> tuple:
    """`cocopipe ARGS` as a Ray driver with `env` (no RAY_* variable of this process's), and its time."""
    import os
    import subprocess
    import sys
    import time

    base = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "pipeline.cli", *map(str, args)], capture_output=True, text=True,
                          env={**base, "COLUMNS": "250", **env}, cwd=cwd, timeout=120)
    return done, time.monotonic() - start


def _error(done) -> str:
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    lines = [x for x in done.stderr.splitlines() if x.startswith("error:")]
    assert len(lines) == 1, done.stderr
    return lines[0]


def _tiny_store(tmp_path) -> Store:
    from logs import write_new2

    st = Store(tmp_path / "s", create=True)
    ingest([write_new2(tmp_path / a, alg=a, runs=[{"instance": 1, "dat": [(1, 5.0), (7, 1e-9)]}]) for a in "AB"], st)
    return st


def test_an_unreachable_ray_cluster_is_named_within_seconds(tmp_path):
    # before: `art --executor ray` with RAY_ADDRESS=127.0.0.1:1 still waiting after 90 s
    pytest.importorskip("ray")
    st = _tiny_store(tmp_path)
    done, took = _cli(["art", "--store", st.path, "--executor", "ray", "-o", tmp_path / "art.csv"],
                      {"RAY_ADDRESS": "127.0.0.1:1"}, tmp_path)
    line = _error(done)
    assert "the Ray cluster at 127.0.0.1:1 (RAY_ADDRESS) cannot be reached" in line and "cannot write" not in line
    assert took < 30 and not (tmp_path / "art.csv").exists(), took
    # an address that accepts connections and never answers (Ray would wait there without end too)
    from test_hostile_waits import Listener

    frozen = Listener()
    try:
        address = f"127.0.0.1:{frozen.port}"
        done, took = _cli(["art", "--store", st.path, "--executor", "ray", "-o", tmp_path / "art.csv"],
                          {"RAY_ADDRESS": address}, tmp_path)
    finally:
        frozen.close()
    assert f"the Ray cluster at {address} (RAY_ADDRESS) cannot be reached (no answer within 5 s)" in _error(done)
    assert took < 30, took


@pytest.fixture
def token_cluster(tmp_path):
    """A one-node Ray cluster as `ray start --head` starts it where ~/.ray/auth_token holds a token (any local
    ray.init() of Ray >= 2.5x writes one): with token authentication; HOME the folder holding that token."""
    import os
    import subprocess
    import tempfile
    import uuid

    from test_ray_cluster import RAY, _stop, free_port

    home = tmp_path / "home"
    (home / ".ray").mkdir(parents=True)
    (home / ".ray" / "auth_token").write_text(uuid.uuid4().hex + uuid.uuid4().hex)
    temp = tempfile.mkdtemp(prefix="ray-token-")
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RAY_", "AWS_"))}
    started = subprocess.run([RAY, "start", "--head", "--port", str(port), "--node-ip-address", "127.0.0.1",
                              "--temp-dir", temp, "--num-cpus", "1", "--include-dashboard", "false",
                              "--disable-usage-stats", "--dashboard-agent-listen-port", str(free_port())],
                             env={**env, "HOME": str(home)}, capture_output=True, text=True, timeout=180)
    try:
        assert started.returncode == 0, started.stderr[-2000:]
        assert "Token authentication is enabled" in started.stderr + started.stdout, started.stderr[-2000:]
        yield {"RAY_ADDRESS": f"127.0.0.1:{port}", "HOME": str(home)}
    finally:
        _stop([temp])
        import shutil

        shutil.rmtree(temp, ignore_errors=True)


def test_a_cluster_with_token_authentication_is_joined_with_the_token_found_here(token_cluster, tmp_path, s3_server):
    # before: 20 s of connection warnings, then "cannot write ... (Failed to connect to Ray cluster)"
    pytest.importorskip("ray")
    st = _tiny_store(tmp_path)
    local, _ = _cli(["art", "--store", st.path, "-o", tmp_path / "local.csv"], {}, tmp_path)
    assert local.returncode == 0, local.stderr
    done, _ = _cli(["art", "--store", st.path, "--executor", "ray", "-o", tmp_path / "ray.csv"], token_cluster, tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "ray.csv").read_bytes() == (tmp_path / "local.csv").read_bytes()
    # a wrong token: one line naming the cluster and what to give, not the output file
    done, took = _cli(["art", "--store", st.path, "--executor", "ray", "-o", tmp_path / "bad.csv"],
                      {**token_cluster, "RAY_AUTH_TOKEN": "0" * 64}, tmp_path)
    line = _error(done)
    assert f"cannot connect to the Ray cluster at {token_cluster['RAY_ADDRESS']}" in line and "token" in line, line
    assert "cannot write" not in line and took < 45, (line, took)
    # the store on the object store, its credentials and endpoint in the driver's environment only (the
    # cluster's node has none): the tasks get them (runtime_env), and the same aRT
    uri = f"s3://{s3_server.bucket()}/store"
    for args in (["ingest", *[tmp_path / a for a in "AB"], "--store", uri],
                 ["art", "--store", uri, "--executor", "ray", "-o", tmp_path / "s3.csv"]):
        done, _ = _cli(args, {**token_cluster, **s3_server.env}, tmp_path)
        assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "s3.csv").read_bytes() == (tmp_path / "local.csv").read_bytes()
