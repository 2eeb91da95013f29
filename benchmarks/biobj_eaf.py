"""The bbob-biobj EAF benchmark (issue 47): cocopipe's attainment surfaces and EAF differences
(`pipeline.measures.biobj_eaf.surfaces`, `differences`: what the measures "biobj_eaf" and "biobj_eaf_diff"
compute per problem) beside moocore's `eaf` and `eafdiff` on the same synthetic archives.

usage: python benchmarks/biobj_eaf.py [--algorithms A] [--problems P] [--runs R] [--points M] [--pairs K]
                                      [--peers PYTHON] [--keep DIR]

Makes A algorithms x P problems x R runs, each run an archive of M mutually non-dominated points (f1
uniform in [0, 1], f2 = (1 - f1^0.5)^(1 / shape) + an offset, shape and offset per algorithm and run), and
writes them to an .npz file (not timed). Then, each in a fresh interpreter (wall, CPU = user + system, peak
RSS, rows): `cocopipe-eaf`, every attainment surface (levels 1 .. R) of every (algorithm, problem);
`moocore-eaf`, moocore's `eaf` on the same points (every percentile 100 k / R); `cocopipe-eafdiff` and
`moocore-eafdiff` (`rectangles=True`), the difference of K pairs of algorithms (ALG000 - ALG001, ALG002 -
ALG003, ...) on every problem. With `--peers PYTHON` (a scratch virtualenv with moocore 0.3.2, never a
dependency of cocopipe) the moocore steps run; without, only cocopipe's. The rows of both are the
surfaces' points and the difference's rectangles: equal counts say the same points (tests/test_biobj_eaf.py
holds the values equal). Defaults: A = 200, P = 10, R = 15, M = 100, K = 100.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent

#: the start of either side's script: the points of every (algorithm, problem), timed from here
PRELUDE = r"""
import json, resource, sys, time
t = time.perf_counter()
import numpy as np
step, path, pairs = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = np.load(path)
f1, f2, run, alg, prob = (data[k] for k in ("f1", "f2", "run", "alg", "prob"))
n = int(data["runs"])
groups = {}
for key in np.unique(np.stack([alg, prob], axis=1), axis=0):
    groups[tuple(key)] = np.flatnonzero((alg == key[0]) & (prob == key[1]))
rows = 0
"""

#: the end of either side's script: its time, CPU, peak memory and rows, one JSON line
EPILOGUE = r"""
ru = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps(dict(step=step, seconds=time.perf_counter() - t, cpu=ru.ru_utime + ru.ru_stime,
                      peak_mb=ru.ru_maxrss / 1024, rows=rows)))
"""

COCOPIPE = PRELUDE + r"""
from pipeline.measures.biobj_eaf import differences, surfaces
if step == "cocopipe-eaf":
    for idx in groups.values():
        rows += len(surfaces(f1[idx], f2[idx], run[idx], n, list(range(1, n + 1))))
else:
    for a in range(0, 2 * pairs, 2):
        for p in sorted({k[1] for k in groups}):
            left, right = groups[(a, p)], groups[(a + 1, p)]
            rows += len(differences((f1[left], f2[left], run[left], n), (f1[right], f2[right], run[right], n)))
""" + EPILOGUE

MOOCORE = PRELUDE + r"""
import moocore
if step == "moocore-eaf":
    for idx in groups.values():
        rows += len(moocore.eaf(np.column_stack([f1[idx], f2[idx]]), run[idx] + 1))
else:
    for a in range(0, 2 * pairs, 2):
        for p in sorted({k[1] for k in groups}):
            sides = [np.column_stack([f1[g], f2[g], run[g] + 1]) for g in (groups[(a, p)], groups[(a + 1, p)])]
            rows += len(moocore.eafdiff(sides[0], sides[1], rectangles=True))
""" + EPILOGUE


def make(path: Path, algorithms: int, problems: int, runs: int, points: int, seed: int = 1) -> int:
    """The synthetic archives in an .npz file (f1, f2, run, alg, prob per point; runs); the number of points."""
    rng = np.random.default_rng(seed)
    cols = {k: [] for k in ("f1", "f2", "run", "alg", "prob")}
    for a in range(algorithms):
        shape = 0.5 + 2 * rng.random()
        for p in range(problems):
            for r in range(runs):
                x = np.sort(rng.random(points))
                y = (1 - x ** 0.5) ** (1 / shape) + 0.3 * rng.random() * (1 + a / algorithms)
                y = np.minimum.accumulate(y[::-1])[::-1]  # f2 not increasing as f1 grows: non-dominated
                y = y - 1e-9 * np.arange(points)  # strictly decreasing: no point weakly dominates another
                for k, v in zip(cols, (x, y, np.full(points, r), np.full(points, a), np.full(points, p))):
                    cols[k].append(v)
    np.savez(path, **{k: np.concatenate(v) for k, v in cols.items()}, runs=runs)
    return algorithms * problems * runs * points


def run(python: str, code: str, args: list[str], env: dict | None = None) -> dict:
    """One timed step in a fresh interpreter."""
    t = time.perf_counter()
    res = subprocess.run([python, "-c", code, *args], capture_output=True, text=True, env=env,
                         cwd=tempfile.gettempdir())
    if res.returncode:
        lines = res.stderr.strip().splitlines()
        return {"step": args[0], "error": lines[-1] if lines else "failed"}
    out = json.loads(res.stdout.strip().splitlines()[-1])
    out["wall"] = time.perf_counter() - t
    return out


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name, default in (("algorithms", 200), ("problems", 10), ("runs", 15), ("points", 100), ("pairs", 100)):
        ap.add_argument(f"--{name}", type=int, default=default)
    ap.add_argument("--peers")
    ap.add_argument("--keep")
    args = ap.parse_args(argv)
    if args.algorithms < 2 * args.pairs:
        raise SystemExit(f"--pairs {args.pairs}: needs {2 * args.pairs} algorithms (--algorithms {args.algorithms})")
    root = Path(args.keep or tempfile.mkdtemp(prefix="cocopipe-biobj-eaf-"))
    root.mkdir(parents=True, exist_ok=True)
    path = root / f"archives-{args.algorithms}-{args.problems}-{args.runs}-{args.points}.npz"
    total = args.algorithms * args.problems * args.runs * args.points
    if not path.exists():
        make(path, args.algorithms, args.problems, args.runs, args.points)
    print(f"{os.cpu_count()} CPUs, load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}; {total} points: "
          f"{args.algorithms} algorithms x {args.problems} problems x {args.runs} runs x {args.points}; "
          f"{args.pairs} pairs")
    print(f"{'step':<18} {'wall s':>8} {'cpu s':>8} {'peak MB':>8} {'rows':>10}")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    steps = [(sys.executable, COCOPIPE, "cocopipe-eaf", env), (args.peers, MOOCORE, "moocore-eaf", None),
             (sys.executable, COCOPIPE, "cocopipe-eafdiff", env), (args.peers, MOOCORE, "moocore-eafdiff", None)]
    for python, code, step, e in steps:
        if python is None:
            continue
        r = run(python, code, [step, str(path), str(args.pairs)], e)
        if "error" in r:
            print(f"{step:<18} {r['error']}", flush=True)
        else:
            print(f"{step:<18} {r['wall']:>8.2f} {r['cpu']:>8.2f} {r['peak_mb']:>8.0f} {r['rows']:>10}", flush=True)
    print(f"load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main(sys.argv[1:])
