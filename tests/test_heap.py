"""`pipeline.heap`: memory a computation frees goes back to the system, not kept by glibc's heap."""
from __future__ import annotations

import platform
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's allocator only")

#: 50 arrays of 4 MB, each followed by a small block kept, then the arrays freed: the MB still held
PATTERN = textwrap.dedent("""
    import sys
    import numpy as np
    if sys.argv[1] == "steady":
        from pipeline import heap
        assert heap.steady()
    def rss():
        return int(open("/proc/self/statm").read().split()[1]) * 4096 / 1e6
    big = np.ones(16 * 2**20 // 8)  # a mapped block freed: glibc would raise its threshold to 16 MB
    del big
    base = rss()
    arrays, small = [], []
    for i in range(50):
        arrays.append(np.ones(4 * 2**20 // 8))
        small.append(np.ones(1024))
    del arrays
    print(round(rss() - base))
""")


def held(mode: str) -> int:
    """The MB the pattern still holds after freeing its 200 MB, in a fresh interpreter."""
    out = subprocess.run([sys.executable, "-c", PATTERN, mode], capture_output=True, text=True, check=True)
    return int(out.stdout.split()[-1])


def test_freed_arrays_leave_the_process():
    assert held("steady") < 20


def test_without_it_glibc_keeps_them():
    """The case `steady` is for: the same pattern keeps nearly all of the 200 MB."""
    assert held("default") > 150


def test_importing_the_engine_fixes_the_threshold():
    code = "import pipeline.engine, pipeline.heap as h; print(h._done)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[True]"
