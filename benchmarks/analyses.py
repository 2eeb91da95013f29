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

Measured at N = 200 on the 2-core machine (23 Nov 2026, hits from the store's cache), shared the
whole time with other helpers' benchmarks and test runs: one core was rarely free, so wall times
swing by up to 2x between runs of the same code. Before = 76fdc2e, now = this session's code
(4de8408; the 2.1-3.5 and 3.7-5.6 rows a few commits earlier), run back to back (`--src`);
wall s / CPU s (user + system, all threads):

    load      run     auc        rank-auc   glicko2    pairwise     total        one-process
    1.1-1.8   before  2.9/4.7    4.5/6.4    7.8/9.7    15.0/22.6    30.2/43.3    23.8/34.4
              now     3.5/5.3    4.2/6.1    4.9/7.2    11.0/16.5    23.6/35.1    15.7/23.1
    2.1-3.5   before  3.3/5.1    4.9/6.9    9.5/11.6   17.4/26.0    35.1/49.5    24.9/36.1
              now     3.0/4.6    4.1/5.7    6.0/8.7    14.1/21.0    27.2/40.0    21.1/30.7
    3.7-5.6   before  5.4/4.1    6.1/5.7    9.7/9.3    24.9/21.4    46.2/40.6    40.6/34.6
    (1 core)  now     5.5/5.3    7.2/7.0    9.6/9.4    20.1/19.8    42.4/41.4    28.7/27.4

(one-process parts now at load 1.1-1.5: hits 1.3, auc 0.7, rank-auc 0.7, Glicko-2 3.1, pairwise
8.6 s.) The same functions alternated in one interpreter on the same hits (load 1.7-2.9): Glicko-2
6.0 s wall / 6.8 s CPU before, 3.4 / 5.0 now; pairwise_table(hits=) 14.2-15.9 / 22.3-24.8 before,
9.3-10.9 / 14.4-17.0 now. In the quietest run both goals hold (steps 23.6 s < 26, one process
15.7 s < 24); with one core taken by other work they do not.

Where the time goes now: pairwise (one interpreter, about 10 s with the hits at hand): the tests of
the 1008 (problem, target) groups about 4-5 s on two threads (counts `stats.pair_counts` per level
of FE_umin, then p-values and orientation), the precisions at FE_umin 1.5-3 s (reading 25 million
records), building the 15.4 million rows 1-2 s (memory first touched: 4-7 s of system time in the
step), trials put in order and per-algorithm statistics about 1 s. Glicko-2: the cells' integer
sort and codes 1.5-2 s, the 25 rounds about 1.5 s on two threads (dimensions in parallel). Every
step pays about 1.5 s of imports; pairwise and rank-auc also scipy.stats (pairwise imports it on a
thread while it reads), and `Analysis.hits` again.
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
def aucs(a):  # Analysis.auc; an older checkout (--src) has the command's auc_table instead
    if hasattr(a, "auc"):
        return a.auc().collect()
    from pipeline.commands.analyses import auc_table
    return auc_table(a, None, None)
if step == "auc":
    rows = aucs(a).height
elif step == "rank-auc":
    from pipeline.measures import ranking
    rows = ranking.rank_by_auc(aucs(a).lazy()).height
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
    sources, _ = make_archive(root / "archive", n)  # (archives, MB of logs)
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
