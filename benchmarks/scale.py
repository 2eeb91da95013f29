"""Scale benchmark: synthetic archives of N algorithms made from the shared bbob data sets, and cocopp
on the same steps.

usage: python benchmarks/scale.py [N ...] [--steps ingest,art,ecdf,auc,rank,report] [--skip STEP,...]
                                  [--jobs J] [--cocopp] [--keep DIR] [--store URI] [--executor ray]
       (default N = 10 50 200, steps ingest,art,ecdf, --jobs 2)

Each algorithm is a copy of one of the shared bbob data sets, renamed, with the last mantissa digit
of every logged number shifted so that no two copies are equal. Every step runs in a fresh process
on the store of the previous ones and is timed after its imports, so that its wall time, CPU time
(user + system, with its worker processes) and peak RSS are its own:

- ingest: the N archives into a new store, `--jobs` sources at once (threads);
- art: aRT of the 51 bbob targets with the dispersion of 100 simulated restarts (10/50/90th
  percentiles) for every algorithm, function and dimension; being the first measure on the new
  store, it also fills the store's cache of first hitting times;
- ecdf: the simulated-restart runtime ECDF step tables (cocopp's default) and their summaries for
  every function, function group and all functions, in every dimension;
- auc, rank, report (only when asked): the area under the ECDF per problem, the ranking by it (mean
  ranks, Friedman test, critical difference per dimension), and a full report.

`--store URI` puts the stores under URI (`s3://bucket/bench`: on object storage, each run under a
fresh prefix; credentials and endpoint from the environment, docs/scale.md) instead of a local folder;
To measure another checkout's package with this harness, put it first on PYTHONPATH: every step runs
in the temporary folder, so that a checkout in the working folder (whose `pipeline/` Python would find
first) does not shadow it. `--executor ray` runs the ingest and the measures as Ray tasks (the cluster `RAY_ADDRESS` names, else a
local instance), and the peak memory is then the driver's alone (RUSAGE_SELF: the tasks' is their own).
On either executor, aRT and ECDF are streamed a group of algorithms at a time, as `cocopipe art` and
`cocopipe ecdf` write them (`Analysis.stream`): the step never holds the whole table (at N = 400 the
ECDF steps alone are 1.6 GB).

With --cocopp, cocopp 2.9.1 (never a project dependency: a separate virtualenv, the one in
$COCOPP_PYTHON or /tmp/cocopp-venv if it has cocopp, else one this script creates) does the same
steps on the smallest N, in one process, timed after its imports: read (`pproc.DataSetList` on
fresh copies of the archives, which it unpacks), aRT (`DataSet.detERT` of the 51 targets and, per
target, `toolsstats.drawSP` with 100 samples, as `pptable` draws the dispersion), and ECDF
(`toolsstats.drawSP` with `pprldmany`'s sample size for every algorithm, function, dimension and
target of `pprldmany_target_values`, then the sorted runtimes of every function, function group and
all functions per dimension). cocopp's figures redraw the simulated runtimes for every group a
function is in; drawing them once makes cocopp's ECDF time a lower bound, and the ratio conservative.
"""
from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

SHARED = Path(os.environ.get("COCOPIPE_SHARED", Path(__file__).resolve().parents[2] / "shared")) / "data"
BASES = ["real/DIRECT_posik_noiseless.tgz", "real/BrentSTEPqi_Posik.tgz", "generated/NM_on_bbob.tgz",
         "generated/RS_on_bbob.tgz"]
DIGIT = re.compile(rb"(\d)(e[+-])")
STEPS = ("ingest", "art", "ecdf", "auc", "rank", "report")
COCOPP_VERSION = "2.9.1"


def _members(base: str) -> list[tuple[str, bytes]]:
    with tarfile.open(SHARED / base) as tf:
        return [(m.name, tf.extractfile(m).read()) for m in tf if m.isfile()]


def make_archive(root: Path, n: int) -> tuple[list[Path], float]:
    """N renamed and perturbed copies of the shared bbob data sets as .tgz files, and their MB of logs
    (.info, .dat and .tdat text)."""
    root.mkdir(parents=True, exist_ok=True)
    members: dict[str, list[tuple[str, bytes]]] = {}
    out, logs = [], 0
    for i in range(n):
        base = BASES[i % len(BASES)]
        if base not in members:
            members[base] = [(m, d) for m, d in _members(base) if m.endswith((".info", ".dat", ".tdat"))]
        logs += sum(len(d) for _, d in members[base])  # the digit shift keeps every length
        name = f"ALG{i:03d}"
        path = root / f"{name}.tgz"
        out.append(path)
        if path.exists():
            continue
        shift = 1 + i // len(BASES)
        tmp = path.with_name(f".{path.name}.tmp")
        with tarfile.open(tmp, "w:gz", compresslevel=1) as tf:
            for member, data in members[base]:
                if member.endswith(".info"):
                    data = re.sub(rb"(algId|algorithm) = '[^']*'", rb"\1 = '" + name.encode() + rb"'", data)
                else:
                    data = DIGIT.sub(lambda m: bytes([48 + (m.group(1)[0] - 48 + shift) % 10]) + m.group(2), data)
                info = tarfile.TarInfo(f"{name}/{member.split('/', 1)[-1]}")
                info.size = len(data)
                tf.addfile(info, io.BytesIO(data))
        tmp.replace(path)
    return out, logs / 1e6


#: one step in a fresh interpreter: imports first, then the timed work
STEP = r"""
import json, os, resource, sys, time
step, store, jobs, executor, src = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5:]
from pipeline.api import open_store
from pipeline.ingest import ingest
from pipeline.measures import ranking
from pipeline.store import Store
if executor == "ray":
    from pipeline import distributed
    distributed.ray(jobs)
def usage():
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime
t, c = time.perf_counter(), usage()
extra = {}
if step == "ingest":
    s = ingest(src, Store(store, create=True), jobs=jobs, executor=executor)
    extra = {"runs": s.runs}
else:
    a = open_store(store, executor=executor)
    if step in ("art", "ecdf"):  # as the commands write them: a group of algorithms at a time
        names = {"art": [("art", dict(dispersion=True, samples=100))], "ecdf": [("ecdf.steps", {}), ("ecdf.summary", {})]}
        extra = {"rows": sum(part.height for name, kw in names[step] for part in a.stream(name, **kw))}
    elif step == "auc":
        extra = {"rows": a.auc().collect().height}
    elif step == "rank":
        extra = {"rows": ranking.rank_by_auc(a.auc(), by_dimension=True).height}
    elif step == "report":
        import subprocess
        subprocess.run([sys.executable, "-m", "pipeline.cli", "report", "--store", store, "--out", store + "-report"],
                       check=True, capture_output=True)
wall, cpu = time.perf_counter() - t, usage() - c
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
if executor != "ray":  # local worker processes count; Ray's workers are the cluster's
    peak = max(peak, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
print(json.dumps(dict(step=step, wall=wall, cpu=cpu, peak_mb=peak / 1024, **extra)))
"""


def run_step(step: str, store: Path | str, sources: list[Path], jobs: int, executor: str = "local") -> dict:
    """One measured step in a fresh interpreter."""
    res = subprocess.run([sys.executable, "-c", STEP, step, str(store), str(jobs), executor, *map(str, sources)],
                         capture_output=True, text=True, cwd=tempfile.gettempdir())  # no checkout here shadows PYTHONPATH's
    if res.returncode:
        return {"step": step, "error": res.stderr.strip().splitlines()[-1] if res.stderr.strip() else "failed"}
    return json.loads(res.stdout.strip().splitlines()[-1])


#: cocopp's read, aRT and ECDF steps in one process, each timed after the imports
COCOPP = r"""
import json, resource, sys, time, warnings
warnings.filterwarnings("ignore")
import numpy as np
from cocopp import pproc, toolsstats, testbedsettings
def clock():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return time.perf_counter(), r.ru_utime + r.ru_stime
out = {}
def done(step, t0):
    t1 = clock()
    out[step] = {"wall": t1[0] - t0[0], "cpu": t1[1] - t0[1]}
t0 = clock()
dsl = []
for f in sys.argv[1:]:
    dsl.extend(pproc.DataSetList(f))
done("read", t0)
targets = [10 ** (k / 5) for k in range(10, -41, -1)]
t0 = clock()
for ds in dsl:  # aRT and its dispersion, as pptable computes them
    ds.detERT(targets)
    for evals in ds.detEvals(targets):
        succ = np.isfinite(evals)
        tmp = evals.copy()
        tmp[~succ] = ds.maxevals[~succ]
        toolsstats.sp(tmp, issuccessful=succ)
        if succ.any():
            toolsstats.drawSP(tmp[succ], tmp[~succ], (10, 50, 90), 100)
done("art", t0)
t0 = clock()
by_dim = {}
for ds in dsl:
    by_dim.setdefault((ds.algId, ds.dim), []).append(ds)
for (alg, dim), group in by_dim.items():  # pprldmany's simulated runtimes, once per problem
    k = max(ds.nbRuns() for ds in group)
    size = k * max(2, int((100 + 1000 / 1001) / k))
    per_f = {}
    for ds in group:
        x = []
        for t in testbedsettings.current_testbed.pprldmany_target_values((ds.funcId, dim)):
            evals = ds.detEvals([t])[0]
            succ = evals[np.isnan(evals) == False] / dim
            unsucc = ds.maxevals[np.isnan(evals)] / dim
            x.extend(toolsstats.drawSP(succ, unsucc, percentiles=[50], samplesize=size)[1] if len(succ)
                     else [np.inf] * size)
        per_f[ds.funcId] = np.asarray(x)
    groups = {f"f{f}": [f] for f in per_f}
    groups.update({g: [f for f in per_f if lo <= f <= hi] for g, (lo, hi) in
                   dict(separ=(1, 5), lcond=(6, 9), hcond=(10, 14), multi=(15, 19), mult2=(20, 24), all=(1, 24)).items()})
    for fs in groups.values():
        if fs:
            np.sort(np.concatenate([per_f[f] for f in fs]))
done("ecdf", t0)
out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
out["datasets"] = len(dsl)
print(json.dumps(out))
"""


def cocopp_python() -> str:
    """A Python with cocopp: $COCOPP_PYTHON, /tmp/cocopp-venv, or a virtualenv made here."""
    for py in (os.environ.get("COCOPP_PYTHON"), "/tmp/cocopp-venv/bin/python"):
        if py and Path(py).exists() and not subprocess.run([py, "-c", "import cocopp"], capture_output=True).returncode:
            return py
    venv = Path(tempfile.gettempdir()) / "cocopipe-bench-cocopp"
    py = venv / "bin" / "python"
    if not py.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(py), "-m", "pip", "install", "-q", f"cocopp=={COCOPP_VERSION}", "six"], check=True,
                       capture_output=True)
    return str(py)


def cocopp_steps(sources: list[Path]) -> dict | None:
    """cocopp's read, aRT and ECDF steps on fresh copies of the sources (it unpacks archives beside them)."""
    py = cocopp_python()
    with tempfile.TemporaryDirectory() as tmp:
        copies = []
        for s in sources:
            dst = Path(tmp) / s.name
            shutil.copyfile(s, dst)
            copies.append(dst)
        res = subprocess.run([py, "-c", COCOPP, *map(str, copies)], capture_output=True, text=True, cwd=tmp)
    if res.returncode:
        print("cocopp failed:", *res.stderr.strip().splitlines()[-1:])
        return None
    return json.loads(res.stdout.strip().splitlines()[-1])


def main(argv: list[str]) -> None:
    import argparse

    ap = argparse.ArgumentParser(description="cocopipe's scale benchmark (see the module)")
    ap.add_argument("n", nargs="*", type=int, default=[10, 50, 200], help="numbers of algorithms")
    ap.add_argument("--steps", default="ingest,art,ecdf", help=f"comma-separated, ingest first; of {','.join(STEPS)}")
    ap.add_argument("--skip", default="", help="steps to leave out")
    ap.add_argument("--jobs", type=int, default=2, help="sources ingested at once (threads)")
    ap.add_argument("--cocopp", action="store_true", help="cocopp's steps on the smallest N, and the ratios")
    ap.add_argument("--keep", help="folder for the archives and stores (kept; archives reused)")
    ap.add_argument("--store", help="where the stores go: a folder or a URI (s3://bucket/prefix); default: beside the archives")
    ap.add_argument("--executor", default="local", choices=("local", "ray"), help="threads of this machine, or Ray tasks")
    args = ap.parse_args(argv)
    ns, jobs, keep = args.n, args.jobs, args.keep
    steps = [s for s in args.steps.split(",") if s and s not in set(args.skip.split(","))]
    unknown = [s for s in steps if s not in STEPS]
    if unknown or not steps or steps[0] != "ingest":
        ap.error(f"--steps: expected ingest first, then some of {', '.join(STEPS[1:])}; got {','.join(steps)}")
    root = Path(keep).resolve() if keep else Path(tempfile.mkdtemp(prefix="cocopipe-scale-"))
    if args.store and "://" not in args.store:  # the steps run in the temporary folder
        args.store = str(Path(args.store).resolve())
    print(f"cocopipe scale benchmark: {os.cpu_count()} cores, steps {', '.join(steps)}, ingest with {jobs} jobs, "
          f"executor {args.executor}, stores {'under ' + args.store if args.store else 'local'}")
    print(f"{'N':>4} {'log MB':>7} {'step':<7} {'wall s':>7} {'CPU s':>7} {'peak MB':>8}  throughput")
    totals = {}
    for n in ns:
        sources, mb = make_archive(root / "archive", n)
        if args.store and "://" in args.store:  # on object storage: a fresh prefix (nothing to delete first)
            store = f"{args.store.rstrip('/')}/store-{n}-{os.getpid()}-{int(time.time())}"
        else:
            store = (Path(args.store) if args.store else root) / f"store-{n}"
            shutil.rmtree(store, ignore_errors=True)  # a fresh ingest
            shutil.rmtree(str(store) + "-report", ignore_errors=True)
        rows = [run_step(s, store, sources, jobs, args.executor) for s in steps]
        for r in rows:
            if "error" in r:
                print(f"{n:>4} {'':>7} {r['step']:<7} failed: {r['error']}", flush=True)
                continue
            rate = f"{mb / r['wall']:.1f} MB/s" if r["step"] == "ingest" else f"{n / r['wall']:.2f} algorithms/s"
            print(f"{n:>4} {mb:>7.0f} {r['step']:<7} {r['wall']:>7.2f} {r['cpu']:>7.2f} {r['peak_mb']:>8.0f}  {rate}",
                  flush=True)
        core = [r for r in rows if r.get("step") in ("ingest", "art", "ecdf", "auc", "rank") and "error" not in r]
        wall, cpu = sum(r["wall"] for r in core), sum(r["cpu"] for r in core)
        peak = max((r["peak_mb"] for r in core), default=float("nan"))
        totals[n] = (wall, cpu, {r["step"]: r for r in rows if "error" not in r})
        print(f"{n:>4} {mb:>7.0f} {'total':<7} {wall:>7.2f} {cpu:>7.2f} {peak:>8.0f}  {' + '.join(r['step'] for r in core)}: "
              f"{wall / n:.2f} s wall, {cpu / n:.2f} s CPU per algorithm", flush=True)
    if args.cocopp:
        n = min(ns)
        sources, _ = make_archive(root / "archive", n)
        c = cocopp_steps(sources)
        if c and n in totals:
            ours = totals[n][2]
            print(f"\ncocopp {COCOPP_VERSION}, N = {n} ({c['datasets']} data sets), one process, peak {c['peak_mb']:.0f} MB:")
            print(f"  {'step':<22} {'cocopp wall':>11} {'CPU':>7} {'cocopipe wall':>13} {'CPU':>7} {'ratio wall':>10} "
                  f"{'CPU':>6}")
            pairs = [("read / ingest", "read", "ingest"), ("aRT + dispersion", "art", "art"), ("ECDF tables", "ecdf", "ecdf")]
            cw = cc = ow = oc = 0.0
            for label, ck, ok in pairs:
                if ok not in ours:
                    continue
                a, b = c[ck], ours[ok]
                cw, cc, ow, oc = cw + a["wall"], cc + a["cpu"], ow + b["wall"], oc + b["cpu"]
                print(f"  {label:<22} {a['wall']:>11.1f} {a['cpu']:>7.1f} {b['wall']:>13.1f} {b['cpu']:>7.1f} "
                      f"{a['wall'] / b['wall']:>9.1f}x {a['cpu'] / b['cpu']:>5.1f}x")
            print(f"  {'all three':<22} {cw:>11.1f} {cc:>7.1f} {ow:>13.1f} {oc:>7.1f} {cw / ow:>9.1f}x {cc / oc:>5.1f}x")


if __name__ == "__main__":
    main(sys.argv[1:])
