"""The field's analyses benchmark (issue 47): the EAF, its difference and area, the virtual best solver and
the Shapley values on a store of N synthetic algorithms, and side by side with the peers where they compute
the same thing.

usage: python benchmarks/field.py [N] [--keep DIR] [--peers PYTHON] [--peer-algorithms K] [--timeout SECONDS]
                                  [--steps eaf,vbs,...]

Builds (or reuses, with --keep DIR) the synthetic archive and store of benchmarks/analyses.py (default
N = 200) and times each measure in a fresh interpreter (wall, CPU = user + system, peak RSS): `eaf` (the
default grid: 20 budgets x 20 levels per problem), `eaf_diff` (ALG000 - ALG001), `eaf_area`, `vbs` and
`shapley` (exact; the 51 bbob targets 1e2 .. 1e-8, 20 budgets), `shapley-sampled` (100 orderings).
With `--peers PYTHON` (a scratch virtualenv with moocore 0.3.2 and iohinspector 0.0.8, never a
dependency) the first K algorithms (default 10) are measured again by cocopipe and by the peers on the same
grid (20 budgets log-spaced from 1 to the longest run, 20 levels from 1e2 to 1e-8 log-spaced):
IOHinspector's `get_discritized_eaf_single_objective` per (algorithm, problem) (the same numbers),
moocore's `eaf` per (algorithm, problem) (every attainment surface, exactly: more than the grid) and
`eafdiff` of ALG000 and ALG001 per problem (its rectangles) against cocopipe's `eaf` and `eaf_diff`;
the peers read the runs' points (evaluations, best so far) from a Parquet file cocopipe writes first
(not timed).
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
from analyses import build_store  # noqa: E402

STEPS = ["eaf", "eaf_diff", "eaf_area", "vbs", "shapley", "shapley-sampled"]
STEP = r"""
import json, resource, sys, time
t = time.perf_counter()
step, store, k = sys.argv[1], sys.argv[2], int(sys.argv[3])
from pipeline.api import open_store
from pipeline.measures.eaf import spaced
algs = None if k == 0 else [f"ALG{i:03d}" for i in range(k)]
a = open_store(store, **({"algorithm": algs} if algs else {}))
targets = [10 ** (2 - i / 5) for i in range(51)]
grid = {}
if k:  # the peers' grid: 20 budgets from 1 to the longest run (all problems), 20 levels 1e2 .. 1e-8
    longest = a.selection.runs().select("last_evaluation").max().collect().item()
    grid = dict(budgets=sorted({float(round(x)) for x in spaced(1, longest, 20, True)}),
                levels=spaced(1e-8, 1e2, 20, True))
if step == "eaf":
    rows = a.eaf(**grid).collect().height
elif step == "eaf_diff":
    rows = a.eaf_diff(left="ALG000", right="ALG001", **grid).collect().height
elif step == "eaf_area":
    rows = a.eaf_area().collect().height
elif step == "vbs":
    rows = a.vbs(targets).collect().height
elif step == "shapley":
    rows = a.shapley(targets).collect().height
elif step == "shapley-sampled":
    rows = a.shapley(targets, method="sampled", permutations=100).collect().height
elif step == "points":
    import polars as pl
    runs, events = a.selection.runs(), a.selection.events()
    pts = (events.join(runs.select("run_id", "algorithm", "function", "dimension"), on="run_id")
           .sort("run_id", "evaluations")
           .select("run_id", "algorithm", "function", "dimension", "evaluations",
                   best=pl.col("best_delta").cum_min().over("run_id")))
    pts.collect().write_parquet(sys.argv[4])
    json.dump(grid, open(sys.argv[4] + ".grid.json", "w"))
    rows = 0
ru = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps(dict(step=step, seconds=time.perf_counter() - t, cpu=ru.ru_utime + ru.ru_stime,
                      peak_mb=ru.ru_maxrss / 1024, rows=rows)))
"""

PEER = r"""
import json, resource, sys, time, warnings
warnings.simplefilter("ignore")
step, points = sys.argv[1], sys.argv[2]
import numpy as np, polars as pl
t = time.perf_counter()
import moocore
from iohinspector.metrics.eaf import get_discritized_eaf_single_objective
grid = json.load(open(points + ".grid.json"))
pts = pl.read_parquet(points)
rows = 0
if step == "iohinspector-eaf":
    data = pts.rename({"run_id": "data_id", "best": "raw_y"})
    for _, g in data.group_by("algorithm", "function", "dimension", maintain_order=True):
        d = get_discritized_eaf_single_objective(g, eval_values=np.array(grid["budgets"], dtype=int), f_min=1e-8,
                                                 f_max=1e2, f_targets=20, return_as_pandas=False)
        rows += d.height * (d.width - 1)
elif step == "moocore-eaf":
    for _, g in pts.group_by("algorithm", "function", "dimension", maintain_order=True):
        x = g.select(pl.col("evaluations").cast(pl.Float64), pl.col("best").clip(1e-300, None)).to_numpy()
        rows += len(moocore.eaf(x, g["run_id"].to_numpy()))
elif step == "moocore-eafdiff":
    for _, g in pts.filter(pl.col("algorithm").is_in(["ALG000", "ALG001"])).group_by("function", "dimension"):
        sides = []
        for alg in ("ALG000", "ALG001"):
            s = g.filter(pl.col("algorithm") == alg)
            ids = s["run_id"].rank("dense").cast(pl.Float64).to_numpy()
            sides.append(np.column_stack([s["evaluations"].cast(pl.Float64).to_numpy(), s["best"].to_numpy(), ids]))
        rows += len(moocore.eafdiff(sides[0], sides[1], rectangles=True))
ru = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps(dict(step=step, seconds=time.perf_counter() - t, cpu=ru.ru_utime + ru.ru_stime,
                      peak_mb=ru.ru_maxrss / 1024, rows=rows)))
"""


def run(python: str, code: str, args: list[str], timeout: float | None) -> dict:
    """One timed step in a fresh interpreter."""
    t = time.perf_counter()
    try:
        res = subprocess.run([python, "-c", code, *args], capture_output=True, text=True, timeout=timeout,
                             cwd=tempfile.gettempdir())
    except subprocess.TimeoutExpired:
        return {"step": args[0], "error": f"stopped after {timeout:g} s"}
    if res.returncode:
        lines = res.stderr.strip().splitlines()
        return {"step": args[0], "error": lines[-1] if lines else "failed"}
    out = json.loads(res.stdout.strip().splitlines()[-1])
    out["wall"] = time.perf_counter() - t
    return out


def show(r: dict) -> None:
    """A row of the table."""
    if "error" in r:
        print(f"{r['step']:<18} {r['error']}", flush=True)
    else:
        print(f"{r['step']:<18} {r['wall']:>8.2f} {r['cpu']:>8.2f} {r['peak_mb']:>8.0f} {r['rows']:>10}", flush=True)


def main(argv: list[str]) -> None:
    def opt(name: str, default=None):
        return argv[argv.index(name) + 1] if name in argv else default

    keep, peers, timeout = opt("--keep"), opt("--peers"), opt("--timeout")
    steps = opt("--steps", ",".join(STEPS)).split(",")
    if unknown := sorted(set(steps) - set(STEPS)):
        raise SystemExit(f"--steps: unknown {', '.join(unknown)} (expected {', '.join(STEPS)})")
    k = int(opt("--peer-algorithms", 10))
    skip = {a for name in ("--keep", "--peers", "--timeout", "--peer-algorithms", "--steps") if name in argv
            for a in (name, argv[argv.index(name) + 1])}
    n = next((int(a) for a in argv if a not in skip and a.isdigit()), 200)
    root = Path(keep).resolve() if keep else Path(tempfile.mkdtemp(prefix="cocopipe-field-"))
    limit = float(timeout) if timeout else None
    env_note = f"{os.cpu_count()} CPUs, load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}"
    print(env_note)
    store = build_store(root, n)
    header = f"{'step':<18} {'wall s':>8} {'cpu s':>8} {'peak MB':>8} {'rows':>10}"
    print(f"N = {n}, cocopipe\n{header}")
    for s in steps:
        show(run(sys.executable, STEP, [s, str(store), "0"], limit))
    if peers:
        points = str(root / f"points-{k}.parquet")
        run(sys.executable, STEP, ["points", str(store), str(k), points], limit)
        print(f"the first {k} algorithms, the peers' grid\n{header}")
        for s in ("eaf", "eaf_diff"):
            show(run(sys.executable, STEP, [s, str(store), str(k)], limit))
        for s in ("iohinspector-eaf", "moocore-eaf", "moocore-eafdiff"):
            show(run(peers, PEER, [s, points], limit))
    print(f"load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main(sys.argv[1:])
