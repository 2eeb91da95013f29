"""Measures benchmark: aRT + 100-sample bootstrap for all standard targets over every shared data set.

usage: python benchmarks/measures.py [COPIES ...]   (default 1 4 16: the store holds that many copies)
"""
from __future__ import annotations

import resource
import sys
import tempfile
import time
from pathlib import Path

import polars as pl

from pipeline.api import Analysis
from pipeline.ingest import ingest
from pipeline.ingest.sources import expand
from pipeline.store import Store


def main(copies: list[int]) -> None:
    data = Path(__file__).resolve().parents[2] / "shared" / "data"
    with tempfile.TemporaryDirectory() as tmp:
        st = Store(tmp, create=True)
        ingest(expand([data]), st)
        runs, events = st.runs().collect(), st.events().collect()
        for k in copies:
            r = pl.concat([runs.with_columns(run_id=pl.col("run_id") * 32 + i,
                                             algorithm=pl.col("algorithm") + f"#{i}") for i in range(k)])
            e = pl.concat([events.with_columns(run_id=pl.col("run_id") * 32 + i,
                                               algorithm=pl.col("algorithm") + f"#{i}") for i in range(k)])

            class Mem:  # the same Analysis over in-memory copies
                def runs(self):
                    return r.lazy()

                def events(self):
                    return e.lazy()

            t = time.perf_counter()
            a = Analysis(Mem()).art(dispersion=True, samples=100).collect()
            dt = time.perf_counter() - t
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            print(f"x{k}: {r.height} runs, {a.height} aRT rows with bootstrap: {dt:.2f} s, peak RSS {peak:.0f} MB")


if __name__ == "__main__":
    main([int(x) for x in sys.argv[1:]] or [1, 4, 16])
