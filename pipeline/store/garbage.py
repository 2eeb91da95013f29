"""Garbage collection of a store: the rows of commits no `sources` names (replaced, or of writes killed between
their commits), staged files of dead writers, cache files of commits gone (docs/store.md)."""
from __future__ import annotations

import os
import random
import time
from urllib.parse import unquote

import deltalake as dl

from . import writes
from .commits import commit_age, why, write_failed
from .errors import StoreError
from .delta import COMMIT, SOURCES, add_actions, open_table
from .snapshot import commits_in, whole


def collect(store, grace: float, dropped: set[str] | frozenset = frozenset()) -> int:
    """Delete from the data tables the rows of `dropped` commits and of commits no table names that are
    older than grace (writes killed before their commit), and the cache files of commits gone grace ago; the
    number of commits deleted. Best effort: what cannot be deleted now stays invisible, for a later write."""
    tables = store.tables_opened()
    named = set(store.snapshot.committed) | store._inflight
    todo: dict[str, list[str]] = {}
    leases: dict[str, bool] = {}
    root = store.location.uri
    for name, dt in tables.items():
        if dt is None:
            continue
        present = commits_in(dt)
        old = {c for c in present - named if c in dropped or (commit_age(c) > grace and not writes.alive(
            root, writes.writer_of(c), leases))}
        if old:
            todo[name] = sorted(old)
    if any(c not in dropped for cs in todo.values() for c in cs):
        # the snapshot may be stale: a writer whose lease looked expired (it committed and released it since)
        # may be named by `sources` now. Its lease is looked at again (a writer cut off from the store for a
        # moment renews it once back, and checks its rows at its commit: `still_whole`) and `sources` read
        # after, so a write that commits its source before giving up its lease is never taken for garbage
        # Each writer is fenced first (`writes.fence`): a writer that renews its lease after this read looks
        # for the fence before its `sources` commit and stops
        fences = fence_writers(root, {c for cs in todo.values() for c in cs if c not in dropped})
        fresh: dict[str, bool] = {}
        todo = {n: [c for c in cs if c in dropped or (writes.writer_of(c) in (None, *fences)
                                                        and not writes.alive(root, writes.writer_of(c), fresh))]
                for n, cs in todo.items()}
        for w, path in fences.items():
            if fresh.get(w, True):
                writes.unfence(root, path)
        named_now = committed_now(store)
        todo = {n: [c for c in cs if c in dropped or c not in named_now] for n, cs in todo.items()}
    delete_commits(store, todo)
    expire_caches(store, grace, named, dropped)
    staged = sum(collect_staged(store, grace, leases).values())
    return len({c for cs in todo.values() for c in cs}) + staged


def fence_writers(root: str, commits: set[str]) -> dict[str, str]:
    """Fence each writer of `commits` (those of its commits a collection is about to delete): the fences
    written, by writer (a writer that could not be fenced is left out: its commits are not deleted now)."""
    by_writer: dict[str, set[str]] = {}
    for c in commits:
        by_writer.setdefault(writes.writer_of(c), set()).add(c)
    out = {}
    for w, cs in by_writer.items():
        if w is None:
            continue
        try:
            out[w] = writes.fence(root, w, cs)
        except Exception:  # noqa: BLE001 - not fenced: not deleted, left for a later collection
            pass
    return out


def not_fenced(store, staged) -> bool:
    """This writer's lease renewed (StoreWriteError where it cannot be) and, where it lapsed since the staging
    (another writer may have taken this one for dead), no collection's fence naming a commit or batch of
    `staged` (StoreError naming the source); whether the lease was intact."""
    lease = writes.hold(store.location.uri, store.writer)
    try:
        lease.renew(strict=True)
    except Exception as exc:  # noqa: BLE001
        raise write_failed(store.path, exc) from None
    if all(lease.intact(s.lease) for s in staged):
        return True
    try:
        fenced = writes.fenced(store.location.uri, store.writer)
    except Exception as exc:  # noqa: BLE001
        raise write_failed(store.path, exc) from None
    for s in staged:
        names = {s.commit_id, *(f.folder.rpartition("/")[2] for f in s.files.values())}
        if names & fenced:
            raise StoreError(f"{s.data.path}: another writer took this one for dead (it was cut off from the "
                             "store or paused beyond its lease) and is removing its rows; ingest the source again")
    return False


def after_commit(store, staged, done: dict[str, set[str]], mark: tuple[str, int]) -> None:
    """After the `sources` commit of `staged`, where this writer's lease lapsed since its last check (`mark`, from
    `still_whole`: paused beyond half its lease before its commit landed), fences and tables looked at again:
    StoreError naming the source where a collection took this writer for dead and rolled back its rows."""
    lease = writes.hold(store.location.uri, store.writer)
    if lease.intact(mark):
        return
    try:
        fenced = writes.fenced(store.location.uri, store.writer)
        gone = sorted(f for t, files in done.items() for f in files - referenced(store, t))
    except Exception as exc:  # noqa: BLE001
        raise write_failed(store.path, exc) from None
    for s in staged:
        if s.commit_id in fenced or gone:
            raise StoreError(f"{s.data.path}: committed, but another writer took this one for dead meanwhile (it "
                             "was paused beyond its lease just before its commit) and rolled back its rows: run "
                             "`cocopipe check --repair`, then ingest the source again")


def still_whole(store, staged, done: dict[str, set[str]]) -> tuple[str, int]:
    """Before the `sources` commit of a batch whose tables' commits are made (`done`: their files by table): its
    writer's lease renewed (StoreWriteError where it cannot be) and, where the lease lapsed since the staging
    (another writer may have taken this one for dead and rolled its rows back), each table's latest version
    checked to name every file committed; StoreError naming the source and the file where one is gone. The
    lease's mark, for `after_commit`."""
    if not_fenced(store, staged):
        return writes.hold(store.location.uri, store.writer).mark()
    for table, files in done.items():
        try:
            gone = sorted(files - referenced(store, table))
        except Exception as exc:  # noqa: BLE001
            raise write_failed(store.path, exc) from None
        if gone:
            who = next((s.data.path for s in staged if table in s.tables), store.path)
            raise StoreError(f"{who}: its rows were rolled back by another writer before its commit (this writer "
                             f"was cut off from the store or paused beyond its lease): {store.uri(table)}/{gone[0]} "
                             "is no longer in the table; ingest the source again")
    return writes.hold(store.location.uri, store.writer).mark()


def discard(store, staged) -> None:
    """Delete the files and rows of a staged source that will not be committed, where no version names them:
    its rows only where the latest `sources` does not name its commit (a commit that failed on the client but
    was made on the server), its staged files only where their table does not name them. Best effort: what is
    left is named by no table, or by no source, and collected later."""
    for t, f in staged.files.items():
        try:
            if not set(writes.paths(f)) & referenced(store, t):
                writes.discard_files(store.uri(t), f)
        except Exception:  # noqa: BLE001 - the store failed for a moment: collected later
            pass
    named = sources_commits(store)
    if named is not None and staged.commit_id not in named:  # None: unknown whether it was committed, left for
        delete_commits(store, {t: [staged.commit_id] for t in staged.tables})  # a collection (it reads again)


def sources_commits(store) -> set[str] | None:
    """The commits the latest version of `sources` names (read now), None where it cannot be read."""
    try:
        dt = open_table(store.uri(SOURCES))
        return set(whole(dt)[COMMIT].to_list()) if dt is not None else set()
    except Exception:  # noqa: BLE001
        return None


def committed_now(store) -> set[str]:
    """The commits the latest version of `sources` names (read now, past the snapshot); every commit of the
    data tables when it cannot be read (nothing is then taken for garbage)."""
    try:
        dt = open_table(store.uri(SOURCES))
        return set(whole(dt)[COMMIT].to_list()) if dt is not None else set()
    except Exception:  # noqa: BLE001 - unreadable for now: nothing deleted, for a later write
        return {c for dt in store.tables_opened().values() if dt is not None for c in commits_in(dt)}


def collect_staged(store, grace: float, leases: dict[str, bool] | None = None) -> dict[str, int]:
    """Delete the staged files of writes that never committed, whose writer's lease expired and that are
    older than grace: the batches deleted, by table."""
    out = {}
    for name in store.snapshot.names:
        try:
            n = writes.collect_staged(store.uri(name), store.location.uri, referenced(store, name), grace,
                                      {} if leases is None else leases, lambda name=name: referenced(store, name))
        except Exception as exc:  # noqa: BLE001 - the store failed for a moment: left for a later collection
            store.notices.append(f"{store.uri(name)}: staged files of an earlier write not deleted yet ({why(exc)})")
            continue
        if n:
            out[name] = n
    return out


def abandoned(store, grace: float) -> dict[str, list[str]]:
    """The staged batches of writes that never committed and that a collection would delete, by table."""
    out, leases = {}, {}
    for name in store.snapshot.names:
        got = writes.abandoned(store.uri(name), store.location.uri, referenced(store, name), grace, leases)
        if got:
            out[name] = got
    return out


def expire_caches(store, grace: float, named: set[str], dropped: set[str] | frozenset) -> None:
    """Delete the cache files of commits no longer named grace seconds after their commit went: a reader
    that opened its snapshot before may still be reading them. A dropped commit's files are touched now
    (their time is the drop's), and any file of a commit not named (or a writer's leftover) goes once it is
    older than grace."""
    now = time.time()
    for d in store.cache_dirs():
        for f in d.iterdir():
            commit = f.name.split(".")[0]
            try:
                if commit in dropped:
                    os.utime(f, (now, now))
                elif commit not in named and now - f.stat().st_mtime > grace:
                    f.unlink()
            except OSError:  # gone already (another writer's collection), or not ours to delete: left
                pass


def delete_commits(store, todo: dict[str, list[str]]) -> None:
    for name, commits in todo.items():
        if not commits:
            continue
        listed = ", ".join("'" + c.replace("'", "''") + "'" for c in commits)
        for _ in range(5):
            try:
                dt = open_table(store.uri(name))
                if dt is not None:
                    dt.delete(f"{COMMIT} IN ({listed})")
                break
            except dl.exceptions.CommitFailedError:
                time.sleep(random.uniform(0.01, 0.1))
            except Exception as exc:  # noqa: BLE001 - left invisible, for a later write
                store.notices.append(f"{store.uri(name)}: rows of an earlier write not deleted yet ({why(exc)})")
                break


def referenced(store, name: str) -> set[str]:
    """The files a table's latest version names, as paths relative to the table (as they are on disk)."""
    dt = open_table(store.uri(name))
    return {unquote(p) for p in add_actions(dt)["path"]} if dt is not None else set()
