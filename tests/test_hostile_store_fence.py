"""The last race of a paused writer (issue 43): a collection that read a writer's lease just before the writer
renewed it, and deletes after the writer's check. A collection fences the writer before it reads the lease
again (`_writers/<writer>.fences/`), and the writer looks for fences after renewing: the writer stops, and no
source names rows that are gone. The interleavings are made by hooks, not by timing: the writer's steps run
inside the collection, between its lease read and its deletion."""
from __future__ import annotations

import time

import pytest

from objectstore import s3, s3_server  # noqa: F401 - fixtures
from test_hostile_store_writers import cocopipe_runs, plain
from test_store_writers import source
from pipeline.ingest import _parse_all, _source_data, read_source
from pipeline.store import Store, garbage, writes
from pipeline.store.check import check
from pipeline.store.errors import StoreError

DEAD = "another writer took this one for dead"


def paused_writer(tmp_path, commit_tables: bool, root=None) -> tuple[Store, object, dict]:
    """A store (at `root`, else in tmp_path), and a writer of A paused beyond its lease (its lease given up, as an
    expired one reads) after staging, and where `commit_tables`, after its tables' commits: the writer, its
    staged source, the files committed by table."""
    root = root or tmp_path / "st"
    Store(root, create=True)
    w = Store(root)
    src = read_source(source(tmp_path / "A", "A", functions=(1, 2)))
    staged = w.stage(_source_data(src, _parse_all(src, None)))
    done = w._commit_files([staged]) if commit_tables else {}
    writes.release(w.location.uri, w.writer)
    time.sleep(1.1)  # older than a grace of 0
    return w, staged, done


@pytest.mark.parametrize("where", ["local", "s3"])
def test_a_writer_resuming_between_a_collections_lease_read_and_its_rollback_stops(where, tmp_path, monkeypatch,
                                                                                   request):
    """The collection reads the writer's lease (expired) and `sources` (its commit not named); then the writer
    resumes: renews its lease and checks its rows (all there yet); then the collection deletes them. Before, the
    writer then committed `sources`: a source of 4 runs whose rows were gone, exit 0. Now its check sees the
    collection's fence and stops it, naming the source."""
    root = f"s3://{request.getfixturevalue('s3').name}/st" if where == "s3" else None
    w, staged, done = paused_writer(tmp_path, True, root)
    root = root or w.path
    assert plain(root) == {"A": 4}  # its tables' commits are made, `sources` not yet
    real, seen = garbage.delete_commits, []

    def writer_resumes_first(store, todo):
        if any(todo.values()) and not seen:
            with pytest.raises(StoreError, match=DEAD) as err:
                garbage.still_whole(w, [staged], done)  # the writer's last check before its `sources` commit
            seen.append(str(err.value))
        real(store, todo)

    monkeypatch.setattr(garbage, "delete_commits", writer_resumes_first)
    assert garbage.collect(Store(root), 0.0) >= 1
    assert seen and str(source(tmp_path / "A", "A")) in seen[0], seen
    with pytest.raises(StoreError, match=DEAD):  # tried again: still refused, never a hole
        w.commit_all([staged])
    assert Store(root).sources() == {} and plain(root) == {}
    assert [f for f in check(root) if f.kind != "uncommitted"] == []  # no file named that is gone


def test_a_writer_resuming_between_a_collections_lease_read_and_its_deletion_of_staged_files_stops(tmp_path,
                                                                                                    monkeypatch):
    """The collection finds the writer's staged batch abandoned (lease expired); the writer resumes and commits
    before the collection deletes the batch's files. Before, the commit went through (its files all there yet)
    and the collection then deleted files the tables and `sources` name. Now the writer stops before its
    tables' commits, on the collection's fence, and nothing names the deleted files."""
    w, staged, _ = paused_writer(tmp_path, commit_tables=False)
    real, seen = writes._delete_batch, []

    def writer_resumes_first(fs, folder):
        if not seen:
            with pytest.raises(StoreError, match=DEAD) as err:
                w.commit_all([staged])
            seen.append(str(err.value))
        real(fs, folder)

    monkeypatch.setattr(writes, "_delete_batch", writer_resumes_first)
    garbage.collect(Store(w.path), 0.0)
    assert seen, "the collection deleted no staged batch"
    assert not list((w.path / "runs" / "_delta_log").glob("*.json"))  # no table names a file: none made
    assert Store(w.path).sources() == {}
    assert [f for f in check(w.path) if f.kind != "uncommitted"] == []  # no file named that is gone


def test_a_collection_that_finds_the_writer_alive_after_fencing_it_deletes_nothing_and_lifts_its_fence(
        tmp_path, monkeypatch):
    """The writer renews its lease between the collection's first lease read and its fence: the collection reads
    the lease again after the fence, finds it current, deletes nothing and removes its fence; the writer
    commits A whole."""
    w, staged, done = paused_writer(tmp_path, commit_tables=True)
    real = writes.fence

    def renewed_meanwhile(root, writer, names):
        writes.hold(w.location.uri, w.writer)  # the writer is back: its lease is current again
        return real(root, writer, names)

    monkeypatch.setattr(writes, "fence", renewed_meanwhile)
    assert garbage.collect(Store(w.path), 0.0) == 0
    assert writes.fenced(w.location.uri, w.writer) == set()
    w.commit_all([staged])
    assert plain(w.path) == {"A": 4} == cocopipe_runs(w.path)


def test_a_writer_paused_beyond_its_lease_just_before_its_sources_commit_lands_is_told_not_silent(tmp_path,
                                                                                                  monkeypatch):
    """What the fence cannot close (docs/store.md, "Fences"): the writer checked, then paused beyond its lease
    before its `sources` commit landed, and a collection rolled its rows back meanwhile. The commit lands; the
    writer, its lease lapsed since its check, looks again, finds the fence and says so (exit 1, never exit 0
    with a hole), and `check` names the source's missing rows."""
    Store(tmp_path / "st", create=True)
    w = Store(tmp_path / "st")
    src = read_source(source(tmp_path / "A", "A", functions=(1, 2)))
    staged = w.stage(_source_data(src, _parse_all(src, None)))
    time.sleep(1.1)
    real = type(w)._swap

    def paused_before_the_commit(self, table, *args):
        if table == "sources":  # the writer's checks are done: it stops here, and is taken for dead
            writes.release(w.location.uri, w.writer)
            assert garbage.collect(Store(w.path), 0.0) >= 1
            assert plain(w.path) == {}
        return real(self, table, *args)

    monkeypatch.setattr(type(w), "_swap", paused_before_the_commit)
    with pytest.raises(StoreError, match="committed, but another writer took this one for dead.*check --repair"):
        w.commit_all([staged])
    assert [e["name"] for e in Store(w.path).sources().values()] == ["A"]
    assert check(w.path), "check names nothing of a source whose rows are gone"
