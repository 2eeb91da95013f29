"""Confine the file access of this process, for good, to a few folders: Linux's Landlock (kernel 5.13 or later),
called through its three system calls; TCP too where the kernel can (6.7 or later). `cocopipe query` runs a
query in a child process confined to the store (read and write) and the Python installation (read), so that
whatever a query's engine is made to open, no other file can be reached. Where the kernel has no Landlock,
`confine` says so and changes nothing.

Landlock binds the thread that asks and the threads it starts later, not those running already: a process
is confined before it starts any (`start`: before it imports Polars, whose thread pools would escape).
"""
from __future__ import annotations

import ctypes
import importlib
import os
import platform
import site
import subprocess
import sys
import sysconfig
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path

_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446  # the same number on every architecture
_VERSION = 1  # LANDLOCK_CREATE_RULESET_VERSION
_PATH_BENEATH = 1  # LANDLOCK_RULE_PATH_BENEATH
_NO_NEW_PRIVS = 38  # PR_SET_NO_NEW_PRIVS
EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
READ = EXECUTE | READ_FILE | READ_DIR
#: every file-system right of each Landlock ABI version: the rights denied but where a rule grants them
_HANDLED = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 4: (1 << 15) - 1}
_ALL_LATER = (1 << 16) - 1  # ABI 5 and later: with IOCTL_DEV


_TCP = 3  # LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP (ABI 4 and later)


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64)]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def abi() -> int:
    """The kernel's Landlock ABI version; 0 where there is none (not Linux, an old kernel, or turned off)."""
    if platform.system() != "Linux":
        return 0
    libc = ctypes.CDLL(None, use_errno=True)
    version = libc.syscall(_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_VERSION))
    return max(int(version), 0)


def confine(read: list[Path], write: list[Path], network: bool = False) -> bool:
    """From now on, this thread (and the threads and processes it starts) opens files only beneath `read` (to
    read them) and `write` (to read, write, make and remove them), and opens no TCP connection where the kernel
    can refuse them (unless `network`: a store on object storage); False, changing nothing, where the kernel
    has no Landlock."""
    version = abi()
    if not version:
        return False
    handled = _HANDLED.get(version, _ALL_LATER)
    libc = ctypes.CDLL(None, use_errno=True)
    attr = _RulesetAttr(handled, _TCP if version >= 4 and not network else 0)
    size = ctypes.sizeof(attr) if version >= 4 else ctypes.sizeof(ctypes.c_uint64)  # ABI 1-3: the fs field only
    ruleset = libc.syscall(_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), f"landlock_create_ruleset: {os.strerror(ctypes.get_errno())}")
    try:
        for paths, access in ((read, READ), (write, handled)):
            for path in paths:
                _allow(libc, ruleset, Path(path), access & handled)
        if libc.prctl(_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 or libc.syscall(_RESTRICT_SELF, ruleset, ctypes.c_uint32(0)):
            raise OSError(ctypes.get_errno(), f"landlock_restrict_self: {os.strerror(ctypes.get_errno())}")
    finally:
        os.close(ruleset)
    return True


def _allow(libc, ruleset: int, path: Path, access: int) -> None:
    """A rule: `access` beneath `path` (a file gets the rights a file can have); a missing path is skipped."""
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return
    try:
        if not path.is_dir():
            access &= EXECUTE | WRITE_FILE | READ_FILE | (1 << 14) | (1 << 15)  # no directory right on a file
        rule = _PathBeneathAttr(access, fd)
        if libc.syscall(_ADD_RULE, ruleset, ctypes.c_int(_PATH_BENEATH), ctypes.byref(rule), ctypes.c_uint32(0)):
            raise OSError(ctypes.get_errno(), f"landlock_add_rule {path}: {os.strerror(ctypes.get_errno())}")
    finally:
        os.close(fd)


def python_paths() -> list[Path]:
    """The folders and files a Python process reads code from: the standard library, the site-packages
    folders, the folder of every package loaded in this process (one on PYTHONPATH too), and the shared
    libraries this process has loaded (with the loader's cache), for a child that imports the same."""
    out = {Path(p) for key in ("stdlib", "platstdlib", "purelib", "platlib") if (p := sysconfig.get_paths().get(key))}
    out.add(Path("/etc/ld.so.cache"))
    try:
        with open("/proc/self/maps") as maps:
            out |= {Path(ln.split(None, 5)[5].strip()) for ln in maps if len(ln.split(None, 5)) == 6
                    and ln.split(None, 5)[5].startswith("/")}
    except OSError:  # no /proc (not Linux): no Landlock either
        pass
    out |= {Path(p) for p in site.getsitepackages()}
    for module in list(sys.modules.values()):
        top = sys.modules.get(getattr(module, "__name__", "").partition(".")[0])
        file = getattr(top, "__file__", None)
        if file:
            path = Path(file)
            out.add(path.parent if path.stem == "__init__" else path)
    return sorted(out)


def start(read: list[Path] | None, write: list[Path], target: str, *args, network: bool = False
          ) -> tuple[subprocess.Popen, Connection]:
    """A fresh Python process that confines itself to `read` and `write` (unless `read` is None; TCP connections
    allowed with `network`), then imports
    `target` ("module:function") and sends back what it returns for `args`, or ("error", one line), on the
    connection returned. The process imports nothing of the caller's before it is confined (no `__main__`
    imported again, as a multiprocessing child would), so no thread escapes; its output goes nowhere."""
    from_parent, to_child = os.pipe()
    from_child, to_parent = os.pipe()
    code = (f"import sys; sys.path[:0] = {[p for p in sys.path if p]!r}; "
            f"from pipeline.confine import _child; _child({from_parent}, {to_parent})")
    try:
        proc = subprocess.Popen([sys.executable, "-c", code], pass_fds=(from_parent, to_parent),
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    finally:
        os.close(from_parent)
        os.close(to_parent)
    answers = Connection(from_child, writable=False)
    with Connection(to_child, readable=False) as orders:
        try:
            orders.send((read, write, network, target, args))
        except OSError:  # the child died at once: its answer is missing, which the caller sees
            pass
    return proc, answers


def _child(orders_fd: int, answers_fd: int) -> None:
    """The fresh process of `start`: its orders read, confined, the target's answer sent back."""
    with Connection(orders_fd, writable=False) as orders:
        read, write, network, target, args = orders.recv()
    with Connection(answers_fd, readable=False) as answers:
        try:
            if read is not None:
                threads = len(os.listdir("/proc/self/task")) if os.path.isdir("/proc/self/task") else 1
                if threads > 1:  # a thread started at start-up (a sitecustomize?) would not be confined
                    raise OSError(f"{threads} threads run already; a process is confined before it starts any")
                confine(read, write, network)
            module, _, name = target.partition(":")
            func: Callable = getattr(importlib.import_module(module), name)
            answer = func(*args)
        except Exception as exc:  # one line for the parent
            first = next((ln.strip() for ln in str(exc).splitlines() if ln.strip()), "")
            answer = ("error", f"{type(exc).__name__}: {first}")
        answers.send(answer)
