"""Report benchmark: `cocopipe report` on the five bbob data sets of ../shared/data (DIRECT_posik_noiseless,
BrentSTEPqi_Posik, NM_on_bbob, RS_on_bbob, and best2009 as the reference), from the raw logs (ingest
included) and again from the store. Prints wall time, CPU time (the command and its worker processes),
peak RSS (the largest process) and the report's size. cocopp needs about 420 s for a comparable
five-algorithm report on the development machine; the goal is under 20 s.

usage: python benchmarks/report.py [--jobs N] [--out DIR]
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SHARED = Path(os.environ.get("COCOPIPE_SHARED", Path(__file__).resolve().parents[2] / "shared"))
SOURCES = ("real/DIRECT_posik_noiseless.tgz", "real/BrentSTEPqi_Posik.tgz", "generated/NM_on_bbob.tgz",
           "generated/RS_on_bbob.tgz", "refalgs/best2009-bbob.tar.gz")


def run(args: list[str]) -> dict:
    """Run a cocopipe command; wall and CPU time (children included), peak RSS of the largest process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "pipeline.cli", *args], capture_output=True, text=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode:
        sys.exit(f"cocopipe {' '.join(args)} failed:\n{proc.stderr}")
    return dict(wall=wall, cpu=(after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
                rss=after.ru_maxrss / 1024)


def size(out: Path) -> str:
    files = [p for p in out.rglob("*") if p.is_file()]
    pages = [p for p in files if p.suffix == ".html"]
    charts = sum(p.read_text(encoding="utf-8").count('<div class="chart"') for p in pages)
    total = sum(p.stat().st_size for p in files)
    js = sum(p.stat().st_size for p in files if p.suffix == ".js")
    return (f"{total / 1e6:.1f} MB in {len(files)} files ({len(pages)} pages, {charts} charts; "
            f"{js / 1e6:.1f} MB of it the shipped JavaScript)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=None, help="worker processes (default: the command's)")
    ap.add_argument("--out", default=None, help="keep the report in this folder")
    opts = ap.parse_args()
    srcs = [SHARED / "data" / s for s in SOURCES]
    missing = [str(s) for s in srcs if not s.exists()]
    if missing:
        sys.exit(f"missing data: {', '.join(missing)}")
    jobs = ["--jobs", str(opts.jobs)] if opts.jobs else []
    print(f"{os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.1f} (other work on the machine disturbs "
          "wall times; CPU time less so)")
    with tempfile.TemporaryDirectory() as tmp:
        store, out = Path(tmp) / "store", Path(tmp) / "report"
        common = ["--reference", "best2009", *jobs]
        r = run(["report", *map(str, srcs), "--store", str(store), "--out", str(out), *common])
        print(f"from raw logs (ingest + report): wall {r['wall']:.1f} s, CPU {r['cpu']:.1f} s, "
              f"peak RSS {r['rss']:.0f} MB")
        print(f"report: {size(out)}")
        r = run(["report", "--store", str(store), "--out", str(out), *common])
        print(f"from the store (report only):    wall {r['wall']:.1f} s, CPU {r['cpu']:.1f} s, "
              f"peak RSS {r['rss']:.0f} MB")
        if opts.out:
            shutil.rmtree(opts.out, ignore_errors=True)
            shutil.copytree(out, opts.out)
            print(f"kept in {opts.out}")


if __name__ == "__main__":
    main()
