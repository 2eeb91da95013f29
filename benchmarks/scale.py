"""Scale benchmark: synthetic archives of N algorithms made from the shared bbob data sets.

usage: python benchmarks/scale.py [N ...] [--cocopp] [--keep DIR] [--skip STEP,...]   (default N = 10 50 200)

Each algorithm is a copy of one of the shared bbob data sets, renamed, with the last mantissa digit
of every logged number shifted so that no two copies are equal. Every step runs in a fresh process
so that its peak RSS is its own: ingest, aRT for the standard targets with a 100-sample bootstrap,
auc, and (when those modules are present) ECDF tables for all groups and dimensions and a full
report. With --cocopp, the same data at the smallest N is read by cocopp's DataSetList and its aRT
computed, in a separate virtualenv created by this script (cocopp is never a project dependency).
"""
from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
BASES = ["real/DIRECT_posik_noiseless.tgz", "real/BrentSTEPqi_Posik.tgz", "generated/NM_on_bbob.tgz",
         "generated/RS_on_bbob.tgz"]
DIGIT = re.compile(rb"(\d)(e[+-])")


def make_archive(root: Path, n: int) -> list[Path]:
    """N renamed and perturbed copies of the shared bbob data sets, as .tgz files."""
    root.mkdir(parents=True, exist_ok=True)
    members = {}
    for b in BASES:
        with tarfile.open(SHARED / b) as tf:
            members[b] = [(m.name, tf.extractfile(m).read()) for m in tf if m.isfile()]
    out = []
    for i in range(n):
        base = BASES[i % len(BASES)]
        name = f"ALG{i:03d}"
        path = root / f"{name}.tgz"
        out.append(path)
        if path.exists():
            continue
        shift = 1 + i // len(BASES)
        with tarfile.open(path, "w:gz", compresslevel=1) as tf:
            for member, data in members[base]:
                if member.endswith(".info"):
                    data = re.sub(rb"(algId|algorithm) = '[^']*'", rb"\1 = '" + name.encode() + rb"'", data)
                elif member.endswith((".dat", ".tdat")):
                    data = DIGIT.sub(lambda m: bytes([48 + (m.group(1)[0] - 48 + shift) % 10]) + m.group(2), data)
                else:
                    continue
                info = tarfile.TarInfo(f"{name}/{member.split('/', 1)[-1]}")
                info.size = len(data)
                tf.addfile(info, io.BytesIO(data))
    return out


STEP = r"""
import json, resource, sys, time
t = time.perf_counter()
step, store, src = sys.argv[1], sys.argv[2], sys.argv[3:]
extra = {}
if step == "ingest":
    from pipeline.ingest import ingest
    from pipeline.store import Store
    s = ingest(src, Store(store, create=True))
    extra = {"runs": s.runs}
else:
    from pipeline.api import open_store
    a = open_store(store)
    if step == "art":
        extra = {"rows": a.art(dispersion=True, samples=100).collect().height}
    elif step == "auc":
        from pipeline.commands.analyses import auc_table
        extra = {"rows": auc_table(a, None, None).height}
    elif step == "ecdf":  # step tables and summaries of every function, group and "all", every dimension
        extra = {"rows": a.ecdf().collect().height + a.ecdf_summary().collect().height}
    elif step == "report":
        import subprocess
        subprocess.run([sys.executable, "-m", "pipeline.cli", "report", "--store", store, "--out", store + "-report"],
                       check=True, capture_output=True)
dt = time.perf_counter() - t
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(dict(step=step, seconds=dt, peak_mb=peak, **extra)))
"""


def run_step(step: str, store: Path, sources: list[Path]) -> dict:
    """One measured step in a fresh interpreter."""
    res = subprocess.run([sys.executable, "-c", STEP, step, str(store), *map(str, sources)],
                         capture_output=True, text=True)
    if res.returncode:
        return {"step": step, "error": res.stderr.strip().splitlines()[-1] if res.stderr else "failed"}
    return json.loads(res.stdout.strip().splitlines()[-1])


def available(module: str) -> bool:
    try:
        __import__(module)
        return True
    except ImportError:
        return False


COCOPP = r"""
import sys, time, warnings, resource
warnings.filterwarnings("ignore")
from cocopp import pproc
t = time.perf_counter()
n = 0
for f in sys.argv[1:]:
    for ds in pproc.DataSetList(f):
        ds.detERT([10 ** (k / 5) for k in range(10, -41, -1)])
        n += 1
print(f"{time.perf_counter() - t:.2f} {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} {n}")
"""


def cocopp_time(sources: list[Path]) -> tuple[float, float] | None:
    """Seconds and peak MB for cocopp reading the sources and computing aRT (scratch virtualenv)."""
    venv = Path(tempfile.gettempdir()) / "cocopipe-bench-cocopp"
    py = venv / "bin" / "python"
    if not py.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(py), "-m", "pip", "install", "-q", "cocopp", "six"], check=True, capture_output=True)
    with tempfile.TemporaryDirectory() as tmp:  # cocopp unpacks archives beside them
        copies = []
        for s in sources:
            dst = Path(tmp) / s.name
            dst.write_bytes(s.read_bytes())
            copies.append(dst)
        res = subprocess.run([str(py), "-c", COCOPP, *map(str, copies)], capture_output=True, text=True, cwd=tmp)
    if res.returncode:
        print("cocopp failed:", res.stderr.strip().splitlines()[-1:])
        return None
    sec, mb, _ = res.stdout.strip().splitlines()[-1].split()
    return float(sec), float(mb)


def main(argv: list[str]) -> None:
    with_cocopp = "--cocopp" in argv
    keep = argv[argv.index("--keep") + 1] if "--keep" in argv else None
    ns = [int(a) for a in argv if a.isdigit()] or [10, 50, 200]
    root = Path(keep) if keep else Path(tempfile.mkdtemp(prefix="cocopipe-scale-"))
    steps = ["ingest", "art", "auc"] + (["ecdf"] if available("pipeline.measures.ecdf") else []) + (
        ["report"] if available("pipeline.report") else [])
    skip = set(argv[argv.index("--skip") + 1].split(",")) if "--skip" in argv else set()
    steps = [s for s in steps if s not in skip]
    print(f"{'N':>5} {'MB':>8} " + " ".join(f"{s + ' s':>10} {s + ' MB':>10}" for s in steps))
    for n in ns:
        sources = make_archive(root / "archive", n)
        mb = sum(p.stat().st_size for p in sources) / 1e6
        store = root / f"store-{n}"
        if store.exists():  # measure a fresh ingest
            import shutil
            shutil.rmtree(store)
        row = [run_step(s, store, sources) for s in steps]
        cells = " ".join(f"{r.get('seconds', float('nan')):>10.2f} {r.get('peak_mb', float('nan')):>10.0f}" for r in row)
        print(f"{n:>5} {mb:>8.0f} {cells}", flush=True)
        for r in row:
            if "error" in r:
                print(f"      {r['step']}: {r['error']}")
    if with_cocopp:
        n = min(ns)
        c = cocopp_time(make_archive(root / "archive", n))
        if c:
            ours = run_step("ingest", root / f"store-cmp-{n}", make_archive(root / "archive", n))["seconds"]
            ours += run_step("art", root / f"store-cmp-{n}", [])["seconds"]
            print(f"cocopp N={n}: read + aRT {c[0]:.1f} s, peak {c[1]:.0f} MB; cocopipe ingest + aRT with bootstrap "
                  f"{ours:.1f} s: {c[0] / ours:.1f}x")


if __name__ == "__main__":
    main(sys.argv[1:])
