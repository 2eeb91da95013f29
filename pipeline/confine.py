"""Confine the file access of this process, for good, to a few folders: Linux's Landlock (kernel 5.13 or later),
called through its three system calls. `cocopipe query` confines its child process to the store (read and
write) and the Python installation (read), so that whatever a query's engine is made to open, no other file
can be reached. Where the kernel has no Landlock, `confine` says so and changes nothing.
"""
from __future__ import annotations

import ctypes
import os
import platform
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


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64)]


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


def confine(read: list[Path], write: list[Path]) -> bool:
    """From now on, this process (and any it starts) opens files only beneath `read` (to read them) and `write`
    (to read, write, make and remove them); False, changing nothing, where the kernel has no Landlock."""
    version = abi()
    if not version:
        return False
    handled = _HANDLED.get(version, _ALL_LATER)
    libc = ctypes.CDLL(None, use_errno=True)
    attr = _RulesetAttr(handled)
    ruleset = libc.syscall(_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(ctypes.sizeof(attr)),
                           ctypes.c_uint32(0))
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
