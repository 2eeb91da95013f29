"""Ingest benchmark: MB/s, wall time and peak memory for the given folders or archives.

usage: python benchmarks/ingest.py SRC [SRC ...]   (default: all of ../shared/data)
"""
from __future__ import annotations

import resource
import sys
import tempfile
import time
from pathlib import Path

from pipeline.ingest import ingest
from pipeline.ingest.sources import expand, read_source
from pipeline.store import Store


def main(paths: list[str]) -> None:
    paths = paths or [str(Path(__file__).resolve().parents[2] / "shared" / "data")]
    sources = expand(paths)
    mb = sum(len(b) for s in sources for b in read_source(s).files.values()) / 1e6
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        summary = ingest(sources, Store(tmp, create=True))
        dt = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{len(sources)} sources, {summary.runs} runs, {mb:.1f} MB of log text: {dt:.2f} s wall, "
          f"{mb / dt:.1f} MB/s, peak RSS {peak:.0f} MB")


if __name__ == "__main__":
    main(sys.argv[1:])
