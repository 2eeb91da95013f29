"""Profiles benchmark: performance, data and log-ratio profiles (`pipeline.measures.solver_profiles`) of many
algorithms, and side by side with OptiProfiler on the same histories.

usage: python benchmarks/profiles.py [N] [--keep DIR] [--peer PYTHON] [--problems P] [--evaluations E]
                                     [--skip-store]

1. The store of N synthetic algorithms of the scale benchmark (benchmarks/analyses.py `build_store`, default
   N = 200; reused with --keep DIR): `Analysis.performance_profile()`, `data_profile()` (10 tolerances each)
   and `log_ratio_profile()` (the first two algorithms), each in a fresh interpreter: wall, CPU, peak RSS.
2. Side by side (`--peer PYTHON`: a scratch virtualenv with optiprofiler 2.0.0, never a dependency): N
   synthetic algorithms on P problems (default 100, dimensions 2-10), each history E evaluations long
   (default 1000, a random decreasing best-so-far series, one record per improvement). cocopipe computes the
   work and both profiles from the records (`solver_profiles.work`, `performance_profile`, `data_profile`);
   OptiProfiler from the dense histories (`scoring.compute_convergence_work`, `plotting.
   _get_performance_data_profile_axes`), 10 tolerances, each in a fresh interpreter; the works are
   compared (they must be equal).
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

ROOT = Path(__file__).resolve().parent.parent

STORE_STEP = r"""
import json, resource, sys, time
t = time.perf_counter()
from pipeline.api import open_store
a = open_store(sys.argv[2])
name = sys.argv[1]
if name == "log_ratio_profile":
    a = a.select(algorithm=a.algorithms()[:2])
rows = a.measure(name).collect().height
ru = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps(dict(seconds=time.perf_counter() - t, cpu=ru.ru_utime + ru.ru_stime, peak_mb=ru.ru_maxrss / 1024,
                      rows=rows)))
"""

#: the synthetic histories, made alike in both interpreters (numpy only): per (problem, solver) a decreasing
#: best-so-far series, improvements at random evaluations
HISTORIES = r"""
import numpy as np
def histories(n, p, e, seed=1):
    rng = np.random.default_rng(seed)
    dims = rng.integers(2, 11, p)
    out = []
    for i in range(p):
        start = 10.0 ** rng.uniform(1, 3)
        for s in range(n):
            k = rng.integers(2, 40)
            evals = np.unique(np.concatenate([[1], rng.integers(2, e + 1, k)]))
            values = start * rng.uniform(0.5, 1.0) * np.cumprod(rng.uniform(0.05, 0.9, len(evals)))
            out.append((i, s, int(dims[i]), evals, values))
    return out
"""

OURS = HISTORIES + r"""
import json, resource, sys, time
n, p, e = map(int, sys.argv[1:4])
hist = histories(n, p, e)
import polars as pl
from pipeline.measures import solver_profiles as sp
runs = pl.LazyFrame({"run_id": list(range(len(hist))), "suite": "synthetic",
                     "algorithm": [f"S{s:03d}" for _, s, _, _, _ in hist], "function": [i for i, _, _, _, _ in hist],
                     "dimension": [d for _, _, d, _, _ in hist], "instance": 1, "trial": 0},
                    schema_overrides={"function": pl.Int32, "dimension": pl.Int32, "instance": pl.Int32, "trial": pl.Int32})
events = pl.LazyFrame({"run_id": np.repeat(np.arange(len(hist)), [len(h[3]) for h in hist]),
                       "evaluations": np.concatenate([h[3] for h in hist]), "best_delta": np.concatenate([h[4] for h in hist])})
t = time.perf_counter()
w = sp.work(runs, events, sp.tolerances(10)).collect()
perf = sp.performance_profile(w.lazy()).collect()
data = sp.data_profile(w.lazy()).collect()
seconds = time.perf_counter() - t
ru = resource.getrusage(resource.RUSAGE_SELF)
works = w.sort("tolerance", "function", "algorithm", descending=[True, False, False])["work"].fill_null(-1).to_list()
print(json.dumps(dict(seconds=seconds, cpu=ru.ru_utime + ru.ru_stime, peak_mb=ru.ru_maxrss / 1024, rows=perf.height + data.height,
                      works=works)))
"""

THEIRS = HISTORIES + r"""
import json, resource, sys, time
n, p, e = map(int, sys.argv[1:4])
hist = histories(n, p, e)
from optiprofiler import plotting, scoring
h = np.full((p, n, 1, e), np.nan)
for i, s, d, ev, v in hist:
    for a, b, x in zip(ev, [*ev[1:], e + 1], v):
        h[i, s, 0, a - 1:b - 1] = x
valid = ~np.isnan(h)
dims = np.array([hist[i * n][2] for i in range(p)])
t = time.perf_counter()
inits = h[:, :, :, 0].max(axis=1)
mins = np.fmin(np.fmin.reduce(h, axis=(1, 3)), inits)
works, rows = [], 0
for tau in [10 ** (-i) for i in range(1, 11)]:
    work, _ = scoring.compute_convergence_work(h, np.full((p, n, 1), np.nan), inits, mins, np.full((p, n, 1), e), tau,
                                               np.zeros((p, 1), dtype=bool), valid, np.zeros((p, n, 1), dtype=bool))
    for den in (lambda i, r: np.nanmin(work[i, :, r], initial=np.inf), lambda i, r: dims[i] + 1):
        x, y, _ = plotting._get_performance_data_profile_axes(work, den)
        rows += x.size
    works += np.nan_to_num(work[:, :, 0], nan=-1).astype(int).ravel().tolist()
seconds = time.perf_counter() - t
ru = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps(dict(seconds=seconds, cpu=ru.ru_utime + ru.ru_stime, peak_mb=ru.ru_maxrss / 1024, rows=rows, works=works)))
"""


def _run(python: str, code: str, *args: str, env: dict | None = None) -> dict:
    t = time.perf_counter()
    r = subprocess.run([python, "-c", code, *args], capture_output=True, text=True, env=env, cwd=tempfile.gettempdir())
    if r.returncode:
        return {"error": (r.stderr.strip().splitlines() or ["failed"])[-1]}
    out = json.loads(r.stdout.strip().splitlines()[-1])
    out["wall"] = time.perf_counter() - t
    return out


def main(argv: list[str]) -> None:
    def opt(name: str, default=None):
        return argv[argv.index(name) + 1] if name in argv else default

    values = {argv.index(name) + 1 for name in ("--keep", "--peer", "--problems", "--evaluations") if name in argv}
    n = next((int(a) for i, a in enumerate(argv) if i not in values and a.isdigit()), 200)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    print(f"{os.cpu_count()} CPUs, load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}; N = {n}")
    if "--skip-store" not in argv:
        root = Path(opt("--keep")).resolve() if opt("--keep") else Path(tempfile.mkdtemp(prefix="cocopipe-profiles-"))
        store = build_store(root, n)
        print(f"{'store measure':<22} {'wall s':>8} {'cpu s':>8} {'peak MB':>8} {'rows':>8}")
        for name in ("performance_profile", "data_profile", "log_ratio_profile"):
            r = _run(sys.executable, STORE_STEP, name, str(store), env=env)
            print(f"{name:<22} " + (r["error"] if "error" in r else
                                    f"{r['seconds']:>8.2f} {r['cpu']:>8.2f} {r['peak_mb']:>8.0f} {r['rows']:>8}"), flush=True)
    peer = opt("--peer")
    if peer:
        p, e = opt("--problems", "100"), opt("--evaluations", "1000")
        print(f"side by side: {n} algorithms, {p} problems, {e} evaluations each, 10 tolerances (computation only)")
        ours = _run(sys.executable, OURS, str(n), p, e, env=env)
        theirs = _run(peer, THEIRS, str(n), p, e)
        for who, r in (("cocopipe", ours), ("OptiProfiler 2.0.0", theirs)):
            print(f"{who:<22} " + (r["error"] if "error" in r else
                                   f"{r['seconds']:>8.2f} s {r['cpu']:>8.2f} s CPU (process) {r['peak_mb']:>8.0f} MB peak"))
        if "works" in ours and "works" in theirs:
            print("works equal:", ours["works"] == theirs["works"])


if __name__ == "__main__":
    main(sys.argv[1:])
