"""The C heap of this process kept from growing with the work done: glibc's threshold above which an
allocation is mapped apart (and unmapped when freed) fixed at its starting value.

glibc raises that threshold to the size of every mapped block freed (up to 32 MB), after which numpy's
arrays of a few MB come from the heap; freed between longer-lived small blocks, they stay part of the
process. A measure computed a group of algorithms at a time then grew by some 50 MB a group (the ECDF
of 100 algorithms: 0.53 GB after the first group, 1.1 GB after the thirteenth; 0.69 GB with the
threshold fixed). Polars allocates with its own jemalloc, which returns memory as it goes.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import platform

#: mallopt's parameter number of the threshold (malloc.h), and glibc's starting value
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 128 * 1024

_done: list[bool] = []


def steady() -> bool:
    """Fix glibc's threshold at `MMAP_THRESHOLD` (once per process); False where the C library is not
    glibc (nothing changed)."""
    if _done:
        return _done[0]
    ok = False
    if platform.system() == "Linux" and platform.libc_ver()[0] == "glibc":
        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
            ok = bool(libc.mallopt(ctypes.c_int(M_MMAP_THRESHOLD), ctypes.c_int(MMAP_THRESHOLD)))
        except (OSError, AttributeError):
            ok = False
    _done.append(ok)
    return ok
