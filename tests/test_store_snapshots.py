"""What a worker process reads: a Store sent to it is pinned at the versions its sender read; the tasks of
one worker share that snapshot (opened once), and a Store sent after a commit is read anew. A selection's
keys come from an index of the store's trials per state of the store, and equal those read from its runs."""
from __future__ import annotations

import pickle
from pathlib import Path

import polars as pl
import pytest

from logs import write_new2

import pipeline.store.store as store_mod
from pipeline.ingest import ingest
from pipeline.selection import Selection
from pipeline.store import Store


def _source(tmp_path: Path, alg: str, function: int = 1, dim: int = 2, instances=(1, 2)) -> Path:
    folder = tmp_path / f"exp-{alg}-{function}-{dim}"
    write_new2(folder, alg, function=function, dim=dim,
               runs=[{"instance": i, "dat": [(1, 5.0), (10 * i, 10.0 ** -i)]} for i in instances])
    return folder


@pytest.fixture
def opened(monkeypatch) -> list[str]:
    """The Delta tables opened from now on (their URIs)."""
    seen: list[str] = []
    real = store_mod.open_table

    def counting(uri, version=None):
        seen.append(uri)
        return real(uri, version)

    monkeypatch.setattr(store_mod, "open_table", counting)
    return seen


def test_the_tasks_of_a_worker_share_the_snapshot_they_were_sent(tmp_path, opened):
    st = Store(tmp_path / "store", create=True)
    ingest([_source(tmp_path, "A")], st)
    sent = pickle.dumps(st)  # every task's arguments carry the Store, pinned
    first, second = pickle.loads(sent), pickle.loads(sent)
    opened.clear()
    assert first.runs().collect().height == 2
    after_first = len(opened)
    assert after_first > 0
    assert second.runs().collect().height == 2
    assert len(opened) == after_first  # the second task opened nothing again
    assert first.snapshot is second.snapshot


def test_a_store_sent_after_a_commit_is_read_anew_in_the_same_worker(tmp_path):
    st = Store(tmp_path / "store", create=True)
    ingest([_source(tmp_path, "A")], st)
    before = pickle.loads(pickle.dumps(st))
    assert before.runs().collect().height == 2
    ingest([_source(tmp_path, "B")], st)
    st.refresh()
    after = pickle.loads(pickle.dumps(st))
    assert after.runs().collect().height == 4
    assert sorted(after.runs().collect()["algorithm"].unique()) == ["A", "B"]
    assert before.runs().collect().height == 2  # a task of the earlier state still reads that state


def test_a_store_made_again_at_the_same_place_is_never_read_from_an_earlier_snapshot(tmp_path):
    import shutil

    where = tmp_path / "store"
    st = Store(where, create=True)
    ingest([_source(tmp_path, "A")], st)
    assert pickle.loads(pickle.dumps(st)).runs().collect()["algorithm"].unique().to_list() == ["A"]
    shutil.rmtree(where)  # the same versions numbers again, of other data
    again = Store(where, create=True)
    ingest([_source(tmp_path, "B")], again)
    assert pickle.loads(pickle.dumps(again)).runs().collect()["algorithm"].unique().to_list() == ["B"]


@pytest.mark.parametrize("filters", [
    {}, {"algorithm": ("A",)}, {"function": (2,)}, {"dimension": (3,)}, {"algorithm": ("B",), "dimension": (2,)},
    {"suite": ("bbob",), "function": (1, 2)}, {"all_instances": True}, {"all_instances": True, "algorithm": ("B",)},
])
def test_a_selections_keys_from_the_index_equal_those_read_from_its_runs(tmp_path, filters):
    st = Store(tmp_path / "store", create=True)
    ingest([_source(tmp_path, "A", 1, 2), _source(tmp_path, "A", 2, 3, instances=(1, 7, 71)),
            _source(tmp_path, "B", 1, 3, instances=(3, 4)), _source(tmp_path, "B", 2, 2, instances=(9, 10))], st)
    sel = Selection(st, **filters)
    direct = sel._trials().select("suite", "algorithm", "commit_id").unique().collect()
    order = ["suite", "algorithm", "commit_id"]
    assert sel.keys().sort(order).equals(direct.sort(order))
    assert sel.keys().height == direct.height > 0 or direct.height == 0


def test_the_index_follows_the_store_after_a_commit(tmp_path):
    st = Store(tmp_path / "store", create=True)
    ingest([_source(tmp_path, "A")], st)
    assert Selection(st).algorithms() == ["A"]
    ingest([_source(tmp_path, "B")], st)
    st.refresh()
    assert Selection(st).algorithms() == ["A", "B"]
    assert Selection(st, algorithm=("B",)).keys()["algorithm"].to_list() == ["B"]
    assert isinstance(Selection(st).keys(), pl.DataFrame)
