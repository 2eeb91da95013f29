"""Biobjective recomputation benchmark: archived solutions per second.

usage: python benchmarks/biobj.py [SRC ...] [--synthetic N ...] [--run-length L] [--front N ...]
       (default SRC: every archive of ../shared/data holding bbob-biobj .adat files)

Ingests the sources into a fresh store (not timed here: see benchmarks/ingest.py), then times
`pipeline.biobj.recompute` as `cocopipe biobj recompute` runs it, and its two stages alone: the
ideal and nadir points of every problem (coco-experiment) and the indicator trajectory of every
archived solution (normalisation, archive sweep, distances, events). `--synthetic N` also times the
trajectory on N generated solutions in runs of L (an improving random search whose archive keeps
growing), `--front N` on one run of N points of a front arriving in random order (the archive
grows to N, the sweep's worst case), to show how the sweep scales. Wall and CPU time are printed: other work on the machine
stretches wall time, much less CPU time.
"""
from __future__ import annotations

import argparse
import resource
import tarfile
import tempfile
import time
from pathlib import Path

import numpy as np
import polars as pl

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def timed(fn, *args, **kwargs):
    """(result, wall seconds, CPU seconds) of one call."""
    w, c = time.perf_counter(), cpu()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - w, cpu() - c


def with_archives() -> list[Path]:
    """Shared archives holding .adat files."""
    out = []
    for p in sorted(SHARED.rglob("*.t*gz")):
        with tarfile.open(p) as tf:
            if any(m.name.endswith(".adat") for m in tf):
                out.append(p)
    return out


def synthetic(n: int, run_length: int, seed: int = 1) -> pl.DataFrame:
    """n solutions in runs of `run_length`: points drifting from far outside the region of interest
    towards a convex front, so that the archive keeps changing and growing."""
    rng = np.random.default_rng(seed)
    runs = np.repeat(np.arange(n // run_length), run_length)
    t = np.tile(np.arange(1, run_length + 1), n // run_length)
    u = rng.random(len(t))
    scale = 3.0 / np.sqrt(t)  # distance above the front shrinks with time
    f1 = u + scale * rng.random(len(t))
    f2 = (1 - np.sqrt(u)) + scale * rng.random(len(t))
    return pl.DataFrame({"run_id": runs, "evaluations": t, "f1": f1, "f2": f2, "ideal1": 0.0, "ideal2": 0.0,
                         "nadir1": 1.0, "nadir2": 1.0, "reference": 0.8})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sources", nargs="*", type=Path)
    ap.add_argument("--synthetic", type=int, nargs="*", default=[], help="also time N generated solutions")
    ap.add_argument("--run-length", type=int, default=10_000, help="solutions per generated run")
    ap.add_argument("--front", type=int, nargs="*", default=[],
                    help="also time one run of N points of a front in random order (every point enters the archive)")
    args = ap.parse_args()

    from pipeline.biobj import problem_points, recompute, trajectory
    from pipeline.ingest import ingest
    from pipeline.store import Store

    sources = args.sources or with_archives()
    if sources:
        with tempfile.TemporaryDirectory() as tmp:
            store = Store(Path(tmp) / "store", create=True)
            ingest(sources, store)
            archive = store.archive().collect()
            runs = store.runs().collect()
            n = archive.height
            print(f"sources: {', '.join(p.name for p in sources)}: {runs.height} runs, {n} archived solutions")
            summary, wall, c = timed(recompute, store)
            print(f"recompute (as the CLI): wall {wall:.2f} s, CPU {c:.2f} s, {n / wall:,.0f} solutions/s "
                  f"({summary.runs} runs, {summary.events} records written)")
            keys = runs.select("suite", "function", "dimension", "instance").unique()
            points, wall, c = timed(problem_points, keys)
            print(f"  ideal and nadir points of {keys.height} problems (coco-experiment): wall {wall:.2f} s, CPU {c:.2f} s")
            data = (archive.select("run_id", "evaluations", "f1", "f2")
                    .join(runs.select("run_id", "suite", "function", "dimension", "instance",
                                      reference="reference_value"), on="run_id")
                    .join(points, on=["suite", "function", "dimension", "instance"]))
            _, wall, c = timed(trajectory, data)
            print(f"  indicator trajectory: wall {wall:.3f} s, CPU {c:.3f} s, {n / wall:,.0f} solutions/s")
    for n in args.synthetic:
        data = synthetic(n, min(args.run_length, n))
        out, wall, c = timed(trajectory, data)
        changes = int(out["accepted"].sum())
        print(f"synthetic {data.height:,} solutions in runs of {min(args.run_length, n):,} ({changes:,} archive "
              f"changes): wall {wall:.2f} s, CPU {c:.2f} s, {data.height / wall:,.0f} solutions/s")
    for n in args.front:
        u = np.random.default_rng(2).random(n)
        data = pl.DataFrame({"run_id": 0, "evaluations": np.arange(1, n + 1), "f1": u, "f2": 1 - np.sqrt(u),
                             "ideal1": 0.0, "ideal2": 0.0, "nadir1": 1.0, "nadir2": 1.0, "reference": 0.8})
        out, wall, c = timed(trajectory, data)
        print(f"front of {n:,} points in random order (archive grows to {int(out['accepted'].sum()):,}): "
              f"wall {wall:.2f} s, CPU {c:.2f} s, {n / wall:,.0f} solutions/s")


if __name__ == "__main__":
    main()
