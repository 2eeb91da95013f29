"""Analyses benchmark: auc, both rankings and the pairwise rank-sum table for many algorithms.

usage: python benchmarks/analyses.py [N] [--keep DIR] [--steps auc,rank-auc,rank-glicko2,pairwise,one-process]
                                     [--src DIR] [--timeout SECONDS]

Builds (or reuses, with --keep DIR) the synthetic archive of N algorithms of the scale benchmark
(benchmarks/scale.py `make_archive`, default N = 200) and its store, then times each step in a fresh
interpreter so that its peak RSS is its own: `auc` (cocopipe auc), `rank-auc` (cocopipe rank --by auc),
`rank-glicko2` (cocopipe rank --by glicko2) and `pairwise` (cocopipe table --pairwise, i.e.
pipeline.tables.pairwise_table), then `one-process`: the four on one `open_store` in one interpreter,
as a notebook or the report runs them, sharing what they can (the hits of the 51 targets read once,
for auc, Glicko-2 and, through `pairwise_table(hits=)`, the pairwise table; the auc table for the
ranking), with the wall time of each part. Prints wall time, CPU time (user + system) and peak RSS
per step, their total, and the one-process row beside them. `--src DIR` runs the steps with the
package found in DIR (e.g. an older checkout, for before/after figures). Goal at N = 200: under 30 s
on 2 cores.

Measured at N = 200 on the 2-core machine (23 Nov 2026, first hitting times read from the store's
cache), shared with other helpers' work the whole time (load average 3 to 5.6): wall times are
disturbed, CPU times (which include about 1.5 s of imports per interpreter and, on this machine,
5 to 6 s of system time in page faults for pairwise's 15.4 million output rows) are steadier.
Before (a56fbf0) and now run back to back; wall s / CPU s / peak MB:

    run at load 5.3 to 5.6  before (a56fbf0)      now
    auc                     10.1 /  10.0 /  264     6.2 /  5.2 /  564
    rank-auc                 9.3 /  11.0 /  294     8.3 /  7.1 /  572
    rank-glicko2            10.8 /  13.4 / 2026    13.7 / 12.8 / 1611
    pairwise                35.4 /  35.9 / 3361    30.9 / 28.4 / 2947   (15.4 million tests)
    total                   65.6 /  70.3           59.0 / 53.5
    one-process                -                   42.8 / 40.7 / 4188   (wall: hits 2.9, auc 2.1,
                                                                         rank-auc 1.3, glicko2 6.6,
                                                                         pairwise 27.9)
    run at load 2.9 to 5.5
    auc                     12.2 /  12.1 /  266     5.2 /  5.1 /  590
    rank-auc                14.5 /  13.3 /  261     6.8 /  6.4 /  577
    rank-glicko2            23.4 /  16.1 / 1917    11.7 / 11.2 / 1618
    pairwise                60.0 /  41.9 / 3333    28.2 / 27.7 / 2924
    total                  110.1 /  83.3           51.9 / 50.2
    one-process                -                   47.6 / 46.0 / 4249

Glicko-2 and pairwise alternately, before / now (load 2.4 to 4.8): Glicko-2 13.8 and 12.2 s CPU /
11.6 and 9.8; pairwise 37.5 and 34.2 / 27.8 and 26.7 (wall 26.6 and 23.8 / 27.2 and 17.9). An
earlier quiet measurement of the same steps before this work: 38.6 s wall / 55.1 s CPU (auc 4.1,
rank-auc 5.8, Glicko-2 8.2, pairwise 20.6 s wall). The goal is not met on this loaded machine.

Where the time goes now (pairwise in one interpreter, load about 4): the rank-sum counts, p-values
and orientation of the 1008 (problem, target) groups 5.4 s wall / 8.8 s CPU on two threads (the
counts themselves, matrix products of per-block counts, about 1.5 s CPU; they took about 10 s);
the precisions at FE_umin, read from the 25 million records, 2.6 / 4.8; building the 15.4
million-row frame 3.0 (450 000 page faults); the hits of the 7 table targets, groups and per-algorithm
statistics 2.9 / 5. Glicko-2: the cells' one integer sort 2 to 3 s, the 25 rounds 2 s, the hits 1.5
to 2.5 s. Every step pays its interpreter, imports (scipy.stats alone 1 to 2 s under load for
rank-auc and pairwise) and `Analysis.hits` again; the one-process mode pays them once.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scale import make_archive  # noqa: E402

STEPS = ["auc", "rank-auc", "rank-glicko2", "pairwise"]
TOGETHER = "one-process"  # the four in one interpreter sharing the hits frame and the auc table

STEP = r"""
import json, resource, sys, time
t, c = time.perf_counter(), time.process_time()
step, store = sys.argv[1], sys.argv[2]
import pipeline
print("package", pipeline.__file__, file=sys.stderr)
from pipeline.api import open_store
a = open_store(store)
if step == "auc":
    from pipeline.commands.analyses import auc_table
    rows = auc_table(a, None, None).height
elif step == "rank-auc":
    from pipeline.commands.analyses import auc_table
    from pipeline.measures import ranking
    rows = ranking.rank_by_auc(auc_table(a, None, None).lazy()).height
elif step == "rank-glicko2":
    from pipeline.measures import ranking
    rows = ranking.glicko2(a.hits(None)).height
elif step == "pairwise":
    from pipeline.tables import pairwise_table
    rows = pairwise_table(a).height
elif step == "one-process":  # all four on one open_store, as a notebook or the report: hits read once
    from pipeline.measures import auc as m, ranking
    from pipeline.tables import pairwise_table
    laps, lap = {}, time.perf_counter()
    def done(name):
        global lap
        laps[name] = round(time.perf_counter() - lap, 2)
        lap = time.perf_counter()
    hits = a.hits(None).collect()
    done("hits")
    aucs = m.auc(hits.lazy(), m.budgets(a.runs(), None).collect().lazy()).collect()
    done("auc")
    ranks = ranking.rank_by_auc(aucs.lazy())
    done("rank-auc")
    ratings = ranking.glicko2(hits.lazy())
    done("glicko2")
    rows = pairwise_table(a, hits=hits).height
    done("pairwise")
    print("laps", json.dumps(laps), file=sys.stderr)
else:
    raise SystemExit(f"unknown step {step}")
ru = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps(dict(step=step, seconds=time.perf_counter() - t, cpu=ru.ru_utime + ru.ru_stime,
                      peak_mb=ru.ru_maxrss / 1024, rows=rows)))
"""

INGEST = r"""
import sys
from pipeline.ingest import ingest
from pipeline.store import Store
ingest(sys.argv[2:], Store(sys.argv[1], create=True))
"""


def _env(src: str | None) -> dict:
    env = dict(os.environ)
    if src:
        env["PYTHONPATH"] = os.pathsep.join([src, env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


def run_step(step: str, store: Path, src: str | None = None, timeout: float | None = None) -> dict:
    """One measured step in a fresh interpreter (wall time includes the interpreter's start)."""
    t = time.perf_counter()
    try:
        res = subprocess.run([sys.executable, "-c", STEP, step, str(store)], capture_output=True, text=True,
                             env=_env(src), timeout=timeout, cwd=tempfile.gettempdir())  # not this checkout
    except subprocess.TimeoutExpired:
        return {"step": step, "error": f"stopped after {timeout:g} s", "seconds": time.perf_counter() - t}
    if res.returncode:
        lines = res.stderr.strip().splitlines()
        return {"step": step, "error": lines[-1] if lines else "failed"}
    out = json.loads(res.stdout.strip().splitlines()[-1])
    out["wall"] = time.perf_counter() - t
    out["package"] = next((ln.split(" ", 1)[1] for ln in res.stderr.splitlines() if ln.startswith("package ")), "?")
    out["laps"] = next((json.loads(ln.split(" ", 1)[1]) for ln in res.stderr.splitlines() if ln.startswith("laps ")), {})
    return out


def build_store(root: Path, n: int) -> Path:
    """The synthetic archive of n algorithms and its store under root (reused when present)."""
    sources = make_archive(root / "archive", n)
    store = root / f"store-{n}"
    if not (store / "runs").is_dir():
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", INGEST, str(store), *map(str, sources)], check=True)
        print(f"ingest of {n} algorithms: {time.perf_counter() - t:.1f} s")
    return store


def main(argv: list[str]) -> None:
    def opt(name: str, default=None):
        return argv[argv.index(name) + 1] if name in argv else default

    keep, src, timeout = opt("--keep"), opt("--src"), opt("--timeout")
    steps = opt("--steps", ",".join([*STEPS, TOGETHER])).split(",")
    unknown = sorted(set(steps) - {*STEPS, TOGETHER})
    if unknown:
        raise SystemExit(f"--steps: unknown {', '.join(unknown)} (expected {', '.join([*STEPS, TOGETHER])})")
    skip = {a for name in ("--keep", "--src", "--timeout", "--steps") if name in argv
            for a in (name, argv[argv.index(name) + 1])}
    ns = [int(a) for a in argv if a not in skip and a.isdigit()] or [200]
    root = Path(keep).resolve() if keep else Path(tempfile.mkdtemp(prefix="cocopipe-analyses-"))
    src = str(Path(src).resolve()) if src else None
    print(f"{os.cpu_count()} CPUs, load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}"
          + (f", package from {src}" if src else ""))
    for n in ns:
        store = build_store(root, n)
        print(f"N = {n}\n{'step':<14} {'wall s':>8} {'cpu s':>8} {'peak MB':>8} {'rows':>10}")
        total = {"wall": 0.0, "cpu": 0.0, "peak_mb": 0.0}
        together = None
        for s in steps:
            r = run_step(s, store, src, float(timeout) if timeout else None)
            if "error" in r:
                print(f"{s:<14} {r.get('seconds', float('nan')):>8.1f}  {r['error']}", flush=True)
                continue
            if s == TOGETHER:
                together = r
                continue
            print(f"{s:<14} {r['wall']:>8.2f} {r['cpu']:>8.2f} {r['peak_mb']:>8.0f} {r['rows']:>10}  {r['package']}",
                  flush=True)
            total = {"wall": total["wall"] + r["wall"], "cpu": total["cpu"] + r["cpu"],
                     "peak_mb": max(total["peak_mb"], r["peak_mb"])}
        if set(steps) & set(STEPS):
            print(f"{'total':<14} {total['wall']:>8.2f} {total['cpu']:>8.2f} {total['peak_mb']:>8.0f}")
        if together:
            laps = ", ".join(f"{k} {v:.1f}" for k, v in together["laps"].items())
            print(f"{TOGETHER:<14} {together['wall']:>8.2f} {together['cpu']:>8.2f} {together['peak_mb']:>8.0f}"
                  f" {together['rows']:>10}  (wall s: {laps})")
        print(f"load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main(sys.argv[1:])
