"""The hitting-time cache (pipeline.hits.cache): what it answers equals what is computed from the events."""
from __future__ import annotations

import shutil

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from conftest import NAMES
from logs import write_new2
from pipeline.api import Analysis, open_store
from pipeline.ingest import ingest
from pipeline.hits import cache, targets as tg
from pipeline.store import Store
from pipeline.store import store as store_module

KEY = ["run_id", "target"]


def _both(a: Analysis, targets=None, monkeypatch=None) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(computed from the events, answered by the cache) for the same selection."""
    monkeypatch.setenv("COCOPIPE_HITS_CACHE", "0")
    computed = a.hits(targets).collect()
    monkeypatch.setenv("COCOPIPE_HITS_CACHE", "1")
    cached = a.hits(targets).collect()
    return computed.sort(KEY), cached.sort(KEY)


@pytest.mark.parametrize("name", NAMES)
def test_cache_equals_computation_on_every_shared_set(stores, name, monkeypatch):
    """Both hit rules, with and without a budget cut, the standard and the table targets."""
    store = stores[name]
    for exact in (False, True):
        for budget in (None, "100x"):
            a = Analysis(store, exact=exact, max_budget=budget)
            computed, cached = _both(a, None, monkeypatch)
            assert computed.height > 0
            assert_frame_equal(computed, cached)
    computed, cached = _both(Analysis(store), "table", monkeypatch)
    assert_frame_equal(computed, cached)
    assert any(cache.folder(store, False).glob("*.parquet")) and any(cache.folder(store, True).glob("*.parquet"))


def test_targets_outside_the_standard_sets_are_computed(stores, monkeypatch):
    """A target that is not bit-identical to a standard one (or a runlength frame) is not answered by the cache."""
    frame = pl.DataFrame({"target": [1e-8, 3e-3]})
    assert not cache.covered(frame, ["bbob"])
    assert cache.covered(pl.DataFrame({"target": [tg.BBOB[0], tg.BBOB[-1]]}), ["bbob"])
    assert not cache.covered(pl.DataFrame({"suite": ["bbob"], "function": [1], "target": [1.0]}), ["bbob"])
    assert not cache.covered(pl.DataFrame({"target": [-1e-4]}), ["bbob"])  # a biobj target on bbob
    store = stores["DIRECT_posik_noiseless"]
    assert cache.hits(store, Analysis(store).runs(), frame, False) is None
    computed, answered = _both(Analysis(store), [1e-8, 3e-3], monkeypatch)
    assert_frame_equal(computed, answered)
    computed, answered = _both(Analysis(store), [1e-8, 1e-8], monkeypatch)  # asked twice: rows twice
    assert computed.height == 2 * Analysis(store).runs().collect().height
    assert_frame_equal(computed, answered)


def _tiny(root, best_last: float):
    write_new2(root, runs=[{"instance": 1, "dat": [(1, 50.0), (10, 5.0), (40, best_last)]},
                           {"instance": 2, "dat": [(1, 80.0), (30, 0.5)]}])
    return root


def test_hand_made_hits_and_replacement(tmp_path, monkeypatch):
    """Hits by hand; a source replaced by changed logs: a plan made before still reads its cached hits, which
    go GRACE seconds after (no stale cache left behind)."""
    monkeypatch.setenv("COCOPIPE_HITS_CACHE", "1")
    store = Store(tmp_path / "store", create=True)
    src = _tiny(tmp_path / "exp", 1e-3)
    ingest([src], store)
    a = open_store(store.path)
    h = a.hits([10.0, 1.0, 1e-2]).collect().sort("instance", pl.col("target"), descending=[False, True])
    # instance 1: 5.0 at 10 evaluations reaches 10; 1e-3 at 40 reaches 1 and 1e-2; instance 2: 0.5 at 30
    assert h["hit"].to_list() == [10, 40, 40, 30, 30, None]
    files = list(cache.folder(store, False).glob("*.parquet"))
    assert len(files) == 1
    old_id = files[0].stem
    # the same source with other logs: its old cached hits go, the new ones are computed on demand
    import shutil

    planned = a.hits([10.0, 1.0, 1e-2])  # a reader's plan, made before the replacement, collected after
    shutil.rmtree(src)
    _tiny(src, 2.0)
    ingest([src], store)
    assert (cache.folder(store, False) / f"{old_id}.parquet").exists()
    h = planned.collect().sort("instance", pl.col("target"), descending=[False, True])
    assert h["hit"].to_list() == [10, 40, 40, 30, 30, None]
    monkeypatch.setattr(store_module, "GRACE", 0.0)
    Store(store.path).collect_garbage()
    assert not (cache.folder(store, False) / f"{old_id}.parquet").exists()
    # an analysis reads the snapshot it opened (the replaced commit's files stay until a vacuum); one opened
    # now reads the new logs
    h = a.hits([10.0, 1.0, 1e-2]).collect().sort("instance", pl.col("target"), descending=[False, True])
    assert h["hit"].to_list() == [10, 40, 40, 30, 30, None]
    a = open_store(store.path)
    h = a.hits([10.0, 1.0, 1e-2]).collect().sort("instance", pl.col("target"), descending=[False, True])
    assert h["hit"].to_list() == [10, None, None, 30, 30, None]


def test_cache_off_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("COCOPIPE_HITS_CACHE", "0")
    store = Store(tmp_path / "store", create=True)
    ingest([_tiny(tmp_path / "exp", 1e-3)], store)
    open_store(store.path).art().collect()
    assert not cache.folder(store, False).exists()


def test_cached_files_follow_the_schema(stores):
    """Every cache file carries the hits schema and its version."""
    store = stores["RS_on_bbob"]
    Analysis(store).hits().collect()
    import pyarrow.parquet as pq

    from pipeline.store import schema

    for f in cache.folder(store, False).glob("*.parquet"):
        meta = pq.read_schema(f).metadata
        assert meta[b"cocopipe.table"] == b"hits"
        assert meta[b"cocopipe.schema_version"] == schema.version("hits").encode()


def test_packaged_reference_sets_are_never_written(monkeypatch, tmp_path):
    """The reference stores shipped in the package are read only: no cache beside them, also where an
    installed package reads the repository's copy (another path: the manifest says it is packaged)."""
    monkeypatch.setenv("COCOPIPE_HITS_CACHE", "1")
    from pipeline.reference_sets import data_dir
    from pipeline.selection import open_reference

    ref = open_reference("best2009", "bbob")
    assert Analysis(ref, function=[1, 2]).hits().collect().height > 0
    # also when the packaged store is opened by its path, with the cache asked for
    assert Analysis(ref.store, function=[3], cache=True).hits().collect().height > 0
    assert not (data_dir() / "derived").exists()
    copy = tmp_path / "refalgs"
    shutil.copytree(data_dir(), copy)
    assert Analysis(Store(copy), function=[3], cache=True).hits().collect().height > 0
    assert not (copy / "derived").exists()


def test_a_source_of_two_algorithms_cached_whole(tmp_path, monkeypatch):
    """A selection of one algorithm fills the cache of its whole source: the other algorithm's
    hits are there when it is asked for next."""
    monkeypatch.setenv("COCOPIPE_HITS_CACHE", "1")
    root = tmp_path / "exp"
    write_new2(root, alg="A", function=1, info_name="a.info", runs=[{"instance": 1, "dat": [(1, 50.0), (10, 5.0)]}])
    write_new2(root, alg="B", function=2, info_name="b.info", runs=[{"instance": 1, "dat": [(1, 80.0), (30, 0.5)]}])
    store = Store(tmp_path / "store", create=True)
    ingest([root], store)
    assert open_store(store.path, algorithm="A").hits([10.0, 1.0]).collect()["hit"].to_list() in ([10, None], [None, 10])
    assert len(list(cache.folder(store, False).glob("*.parquet"))) == 1
    b = open_store(store.path, algorithm="B").hits([10.0, 1.0]).collect()
    assert sorted(b["hit"].to_list()) == [30, 30]


def test_a_union_with_a_packaged_reference_reads_the_store_cache(tmp_path, monkeypatch):
    """A report's store read with a packaged reference set (one union of the two): the store's trials are
    answered by its cache, the reference's computed from its records (its store is never written), the
    hits the same as computed from the events of both."""
    from pipeline.reference_sets import data_dir
    from pipeline.report.context import _UnionStore
    from pipeline.selection import open_reference

    store = Store(tmp_path / "store", create=True)
    ingest([_tiny(tmp_path / "exp", 1e-3)], store)
    union = _UnionStore([store, open_reference("best2009", "bbob").store])
    shown = dict(algorithm=["ALG", "best2009-bbob"], function=1, dimension=2)
    a = Analysis(union, **shown)
    assert sorted(a.algorithms()) == ["ALG", "best2009-bbob"]
    computed, cached = _both(a, None, monkeypatch)
    assert set(computed["algorithm"]) == set(a.algorithms())
    assert_frame_equal(computed, cached)
    assert len(list(cache.folder(store, False).glob("*.parquet"))) == 1  # the store's source, cached
    assert not (data_dir() / "_cache").exists()
    # a budget cut and a subset of the standard targets, on the union too
    computed, cached = _both(Analysis(union, **shown, max_budget=20), "table", monkeypatch)
    assert_frame_equal(computed, cached)
