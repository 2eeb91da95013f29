"""ECDF benchmark: step tables of every group and dimension of every bbob data set in ../shared/data.

Ingests the bbob archives into a temporary store first, then times only the ECDF (hitting times of the
51 targets included) per mode. Goal: the default (simulated) mode under 5 s on 2 cores.

usage: python benchmarks/ecdf.py [MODE ...]   (default: simulated exact trials)
"""
from __future__ import annotations

import resource
import sys
import tempfile
import time
from pathlib import Path

from pipeline.api import Analysis
from pipeline.ingest import ingest
from pipeline.store import Store

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
BBOB = ("NM_on_bbob", "RS_on_bbob", "BrentSTEPqi_Posik", "DIRECT_posik_noiseless", "best2009-bbob", "best09-16-bbob")


def main(modes: list[str]) -> None:
    sources = [p for p in sorted(SHARED.glob("*/*.t*gz")) if p.name.split(".t")[0] in BBOB]
    with tempfile.TemporaryDirectory() as tmp:
        st = Store(tmp, create=True)
        t = time.perf_counter()
        ingest(sources, st)
        print(f"ingested {len(sources)} bbob data sets in {time.perf_counter() - t:.1f} s (not timed below)")
        a = Analysis(st, suite="bbob")
        for mode in modes:
            t, c = time.perf_counter(), time.process_time()
            steps = a.ecdf(mode=mode).collect()
            summary = a.ecdf_summary(mode=mode).collect()
            wall, cpu = time.perf_counter() - t, time.process_time() - c
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            print(f"{mode:9s}: {steps.height} steps, {summary.height} (algorithm, dimension, group) ECDFs of "
                  f"{summary['algorithm'].n_unique()} algorithms: wall {wall:.2f} s, CPU {cpu:.2f} s, "
                  f"peak RSS {peak:.0f} MB")


if __name__ == "__main__":
    main(sys.argv[1:] or ["simulated", "exact", "trials"])
