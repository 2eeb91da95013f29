"""Parallel and distributed ingest write the same store as the sequential one."""
from __future__ import annotations

import pytest

from conftest import SHARED, shared_or_skip
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
