"""What a worker process reads: a Store sent to it is pinned at the versions its sender read; the tasks of
one worker share that snapshot (opened once), and a Store sent after a commit is read anew. A selection reads
the store's trials once per state of the store (kept in the process), and answers as from the store's files."""
from __future__ import annotations

import pickle
from pathlib import Path

import polars as pl
import pytest

from logs import write_new2

import pipeline.store.store as store_mod
from pipeline.ingest import ingest
import pipeline.selection as selection_mod
from pipeline.conventions import interesting_instances
from pipeline.selection import Selection, filter_frame
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


FILTERS = [
    {}, {"algorithm": ("A",)}, {"function": (2,)}, {"dimension": (3,)}, {"algorithm": ("B",), "dimension": (2,)},
    {"suite": ("bbob",), "function": (1, 2)}, {"all_instances": True}, {"all_instances": True, "algorithm": ("B",)},
]


@pytest.fixture
def two(tmp_path) -> Store:
    """Two algorithms on two functions and dimensions, on instances of interest and others."""
    st = Store(tmp_path / "store", create=True)
    ingest([_source(tmp_path, "A", 1, 2), _source(tmp_path, "A", 2, 3, instances=(1, 7, 71)),
            _source(tmp_path, "B", 1, 3, instances=(3, 4)), _source(tmp_path, "B", 2, 2, instances=(9, 10))], st)
    return st


@pytest.mark.parametrize("many", [False, True])
@pytest.mark.parametrize("filters", FILTERS)
def test_a_selection_answers_from_the_trials_it_keeps_as_from_the_stores_files(two, filters, many, monkeypatch):
    if many:  # a store of more trials than are kept: scanned each time
        monkeypatch.setattr(selection_mod, "RUNS_KEPT_ROWS", 1)
    sel = Selection(two, **{k: v for k, v in filters.items() if k != "all_instances"},
                    all_instances=filters.get("all_instances", False))
    read = interesting_instances(filter_frame(two.scan("runs", commits=True), **sel.filters), sel.all_instances)
    read = read.filter(pl.col("final_delta").is_not_null())
    order = ["suite", "algorithm", "commit_id"]
    assert sel.keys().sort(order).equals(read.select(order).unique().collect().sort(order))
    runs = sel.runs().collect().sort("run_id")
    assert runs.equals(read.drop("commit_id").collect().sort("run_id"))
    kept = [v for k, v in selection_mod._RUNS.items() if k[0] == two.stamp()]
    assert kept and all((v is None) == many for v in kept)


def test_the_trials_kept_follow_the_store_after_a_commit(tmp_path):
    st = Store(tmp_path / "store", create=True)
    ingest([_source(tmp_path, "A")], st)
    assert Selection(st).algorithms() == ["A"] and Selection(st).runs().collect().height == 2
    ingest([_source(tmp_path, "B")], st)
    st.refresh()
    assert Selection(st).algorithms() == ["A", "B"] and Selection(st).runs().collect().height == 4
    assert Selection(st, algorithm=("B",)).keys()["algorithm"].to_list() == ["B"]


def test_the_trials_kept_in_a_process_are_bounded_in_all(tmp_path, monkeypatch):
    st = Store(tmp_path / "store", create=True)
    ingest([_source(tmp_path, "A"), _source(tmp_path, "B")], st)
    monkeypatch.setattr(selection_mod, "RUNS_KEPT_ROWS", 3)  # room for one algorithm's two trials, not two
    monkeypatch.setattr(selection_mod, "_RUNS", {})
    monkeypatch.setattr(selection_mod, "_RUNS_READ", {})
    for alg in ("A", "B"):
        assert Selection(st, algorithm=(alg,)).runs().collect()["algorithm"].to_list() == [alg, alg]
    kept = {k[2]: v.height for k, v in selection_mod._RUNS.items() if v is not None}
    assert kept == {("B",): 2}  # the latest read; A's gone, and read again when asked
    assert Selection(st, algorithm=("A",)).runs().collect().height == 2
