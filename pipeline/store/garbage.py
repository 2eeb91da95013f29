"""Garbage collection of a store: the rows of commits no `sources` names (replaced, or of writes killed between
their commits), staged files of dead writers, cache files of commits gone (docs/store.md)."""
from __future__ import annotations

import os
import random
import time
from urllib.parse import unquote

import deltalake as dl

from . import writes
from .commits import commit_age, why
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
        # may be named by `sources` now. Its lease was looked at first and `sources` is read after, so a
        # write that commits its source before giving up its lease is never taken for garbage
        named_now = committed_now(store)
        todo = {n: [c for c in cs if c in dropped or c not in named_now] for n, cs in todo.items()}
    delete_commits(store, todo)
    expire_caches(store, grace, named, dropped)
    staged = sum(collect_staged(store, grace, leases).values())
    return len({c for cs in todo.values() for c in cs}) + staged


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
                                      {} if leases is None else leases)
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
