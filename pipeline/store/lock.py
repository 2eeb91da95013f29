"""Locks on a store folder: one writer at a time, and no reader inside a commit.

Two lock files sit in the store folder. A process that writes holds `.cocopipe-write.lock`
exclusively for its whole write (an ingest, a repair), so that writers follow one another; the file
names its holder, for the message another writer gets. A commit (the short step that moves files
into place and replaces the manifest) holds `.cocopipe-read.lock` exclusively, and a command that
reads holds it shared: a reader never sees half a commit, and a commit waits for the readers of the
moment, as long as its writer was told to wait (`COMMIT_GRACE` without a wait), then stops with
StoreBusy naming them (Linux: from /proc/locks), changing nothing. The locks are `flock(2)` locks
(POSIX): shared and exclusive, taken on a read-only file descriptor too (readers of a read-only
store), and dropped by the kernel when their process ends, even by kill -9, so no stale lock is
ever left behind. Holds are per process: nested holds count,
the threads of a process share them. Where `fcntl` is missing (Windows) the locks do nothing.
"""
from __future__ import annotations

import json
import os
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from .errors import StoreBusy, StoreError

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None
_SH, _EX, _NB, _UN = (getattr(fcntl, n, 0) for n in ("LOCK_SH", "LOCK_EX", "LOCK_NB", "LOCK_UN"))

WRITE_LOCK = ".cocopipe-write.lock"
READ_LOCK = ".cocopipe-read.lock"
#: seconds between two tries of a busy writer lock
POLL = 0.05
#: seconds a commit waits for the commands reading the store when no --wait was given
COMMIT_GRACE = 10.0


@dataclass
class _Holds:
    """What this process holds of one store's locks."""

    write_fd: int | None = None
    writes: int = 0
    read_fd: int | None = None
    shared: int = 0
    exclusive: int = 0
    wait: float = 0  #: what the writer hold was given to wait (its commits wait as long for readers)


_guard = threading.RLock()
_holds: dict[str, _Holds] = {}


def _of(folder: Path) -> _Holds:
    return _holds.setdefault(os.path.realpath(folder), _Holds())


def _flock(fd: int | None, op: int) -> None:
    if fd is not None and fcntl is not None:
        fcntl.flock(fd, op)


def holds_writer(folder: Path) -> bool:
    """True when this process holds the writer lock of the store."""
    h = _holds.get(os.path.realpath(folder))
    return bool(h and h.writes)


def holder(folder: Path) -> str:
    """Who holds (or last held) the writer lock, as the lock file names it."""
    try:
        info = json.loads((Path(folder) / WRITE_LOCK).read_text())
        return (f"pid {info['pid']} on {info['host']} ({info['command']}, since {info['since']})")
    except (OSError, ValueError, KeyError, TypeError):
        return "another process"


def _take_writer(folder: Path, wait: float, on_wait: Callable[[str], None] | None, h: _Holds) -> int:
    """The writer lock, taken. While it waits, this process's read hold is let go (the writer at work
    may have to commit), and taken again after."""
    if not os.access(folder, os.W_OK):
        raise StoreError(f"{folder}: the store is read-only here (no permission to write to it); "
                         "it can be read, not written")
    try:
        fd = os.open(folder / WRITE_LOCK, os.O_RDWR | os.O_CREAT, 0o666)
    except OSError as exc:
        raise StoreError(f"{folder / WRITE_LOCK}: cannot open the store's writer lock ({exc.strerror})") from None
    deadline, released = time.monotonic() + max(0.0, wait), False
    try:
        while fcntl is not None:
            try:
                fcntl.flock(fd, _EX | _NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    os.close(fd)
                    hint = (f"waited {wait:g} s" if wait > 0 else
                            "try again when it is done, or wait for it with --wait SECONDS")
                    raise StoreBusy(f"{folder}: the store is busy: {holder(folder)} is writing to it; {hint}") from None
                if not released:
                    if h.shared and not h.exclusive:
                        _flock(h.read_fd, _UN)
                    if on_wait:
                        on_wait(f"{folder}: waiting for {holder(folder)} to finish writing to the store")
                    released = True
                time.sleep(POLL)
    finally:
        if released and h.shared and not h.exclusive:
            _flock(h.read_fd, _SH)
    argv = sys.argv or ["python"]
    program = "cocopipe" if argv[0].endswith(("cocopipe", "cli.py")) else os.path.basename(argv[0])
    info = {"pid": os.getpid(), "host": socket.gethostname(), "since": time.strftime("%Y-%m-%d %H:%M:%S"),
            "command": " ".join([program, *argv[1:]])[:200]}
    os.ftruncate(fd, 0)
    os.pwrite(fd, json.dumps(info).encode(), 0)
    return fd


@contextmanager
def writer(folder: Path, wait: float = 0, on_wait: Callable[[str], None] | None = None) -> Iterator[bool]:
    """Hold the store's writer lock, waiting up to `wait` seconds for another writer (then StoreBusy);
    yields True when this hold took the lock, False when the process held it already."""
    with _guard:
        h = _of(folder)
        first = h.writes == 0
        if first:
            h.write_fd = _take_writer(Path(folder), wait, on_wait, h)
            h.wait = wait
        h.writes += 1
    try:
        yield first
    finally:
        with _guard:
            h.writes -= 1
            if h.writes == 0:
                os.close(h.write_fd)  # releases the lock
                h.write_fd = None


def _open_read_lock(folder: Path, create: bool) -> int | None:
    """The read lock file, opened (created by writers); None where there is none (a store no writer
    of this version has written to yet) or it cannot be made (a read-only store)."""
    try:
        return os.open(folder / READ_LOCK, (os.O_RDWR | os.O_CREAT) if create else os.O_RDONLY, 0o666)
    except OSError:
        return None


@contextmanager
def reading(folder: Path) -> Iterator[None]:
    """Hold the store's read lock shared: another process's commit waits until it is released (and
    this waits for a commit in progress)."""
    with _guard:
        h = _of(folder)
        if h.shared == 0 and h.exclusive == 0:
            h.read_fd = _open_read_lock(Path(folder), create=False)  # reading writes nothing
            _flock(h.read_fd, _SH)
        h.shared += 1
    try:
        yield
    finally:
        with _guard:
            h.shared -= 1
            if h.shared == 0 and h.exclusive == 0 and h.read_fd is not None:
                os.close(h.read_fd)
                h.read_fd = None


def readers(folder: Path) -> list[str]:
    """The other processes holding the store's read lock, as `pid N (command)` (Linux: /proc/locks)."""
    try:
        st = os.stat(Path(folder) / READ_LOCK)
        with open("/proc/locks", encoding="ascii", errors="replace") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return []
    out = []
    for line in lines:
        parts = line.split()
        if "->" in parts or len(parts) < 6 or parts[1] != "FLOCK":
            continue
        pid, dev_inode = parts[4], parts[5].split(":")
        if len(dev_inode) == 3 and dev_inode[2] == str(st.st_ino) and pid.isdigit() and int(pid) != os.getpid():
            try:
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
            except OSError:
                cmd = ""
            out.append(f"pid {pid}" + (f" ({cmd[:120]})" if cmd else ""))
    return list(dict.fromkeys(out))


def _take_exclusive(folder: Path, h: _Holds, on_wait: Callable[[str], None] | None) -> None:
    """The read lock, exclusively: waits for the readers of the moment as long as the writer hold was told to
    wait (`COMMIT_GRACE` without a wait), then StoreBusy naming them."""
    bound = h.wait if h.wait > 0 else COMMIT_GRACE
    deadline, told = time.monotonic() + bound, False
    while True:
        try:
            fcntl.flock(h.read_fd, _EX | _NB)
            return
        except BlockingIOError:
            who = ", ".join(readers(folder)) or "other processes"
            if time.monotonic() >= deadline:
                raise StoreBusy(f"{folder}: the store is being read by {who}; the commit waited {bound:g} s and "
                                "nothing was changed; try again when they are done, or wait longer with "
                                "--wait SECONDS") from None
            if not told and on_wait:
                on_wait(f"{folder}: waiting for {who} to finish reading the store")
            told = True
            time.sleep(POLL)


@contextmanager
def committing(folder: Path, on_wait: Callable[[str], None] | None = None) -> Iterator[None]:
    """Hold the store's read lock exclusively (a commit): waits for the readers of the moment; this
    process's own read hold, if any, is turned into the exclusive one and back."""
    with _guard:
        h = _of(folder)
        if h.exclusive == 0 and fcntl is not None:
            if h.read_fd is None:
                h.read_fd = _open_read_lock(Path(folder), create=True)
            if h.read_fd is not None:
                try:
                    _take_exclusive(Path(folder), h, on_wait)
                except BaseException:  # this process's own read hold back as it was
                    if h.shared:
                        _flock(h.read_fd, _SH)
                    else:
                        os.close(h.read_fd)
                        h.read_fd = None
                    raise
        h.exclusive += 1
    try:
        yield
    finally:
        with _guard:
            h.exclusive -= 1
            if h.exclusive == 0 and h.read_fd is not None:
                if h.shared:
                    _flock(h.read_fd, _SH)
                else:
                    os.close(h.read_fd)
                    h.read_fd = None


def try_writer(folder: Path) -> bool:
    """True when no process holds the writer lock (probed without waiting, and released again)."""
    if holds_writer(folder):
        return False
    try:
        fd = os.open(Path(folder) / WRITE_LOCK, os.O_RDONLY)
    except OSError:
        return True  # no lock file: nobody ever took it
    try:
        if fcntl is not None:
            fcntl.flock(fd, _EX | _NB)
        return True
    except BlockingIOError:
        return False
    finally:
        os.close(fd)
