"""Paper benchmark: `cocopipe paper` against `python -m cocopp` on the same four bbob data sets, side by side.

usage: python benchmarks/paper.py [--cocopp PYTHON] [--jobs N] [--keep DIR] [--skip-cocopp]

Runs, one after the other in fresh processes, `cocopipe paper DIRECT BrentSTEPqi RS_on_bbob NM_on_bbob --out
DIR/cocopipe` (from the raw archives: ingest included) and `PYTHON -m cocopp -o DIR/cocopp` on the same archives
(PYTHON: a virtualenv with cocopp 2.9.1, never a dependency of cocopipe; default /tmp/cocopp-venv/bin/python),
then prints wall and CPU time (user + system of the child processes) of each and their ratio, and the load
average before and after (the machine is shared: the ratio is the steadier figure when both run under the same
load). Goal: cocopipe 20x faster in wall time.
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

SHARED = Path(__file__).resolve().parent.parent.parent / "shared"
DATA = ["real/DIRECT_posik_noiseless.tgz", "real/BrentSTEPqi_Posik.tgz", "generated/RS_on_bbob.tgz",
        "generated/NM_on_bbob.tgz"]


def timed(cmd: list[str], cwd: Path) -> tuple[float, float, int]:
    """(wall s, CPU s of the child, exit status) of a command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    run = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if run.returncode:
        print(f"{cmd[0]} exited {run.returncode}: {run.stderr[-1500:]}", file=sys.stderr)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, run.returncode


def main() -> int:
    """Run both and print the table."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cocopp", default="/tmp/cocopp-venv/bin/python")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--keep", type=Path)
    p.add_argument("--skip-cocopp", action="store_true")
    a = p.parse_args()
    work = a.keep or Path(tempfile.mkdtemp(prefix="cocopipe-paper-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    data = []
    for d in DATA:  # cocopp names an algorithm after its archive: copies beside each other
        dst = work / Path(d).name
        if not dst.exists():
            shutil.copy(SHARED / "data" / d, dst)
        data.append(dst.name)
    load0 = os.getloadavg()[0]
    rows = []
    shutil.rmtree(work / "cocopipe", ignore_errors=True)
    rows.append(("cocopipe paper", *timed(["cocopipe", "paper", *data, "--out", "cocopipe", "-j", str(a.jobs)],
                                          work)))
    if not a.skip_cocopp:
        shutil.rmtree(work / "cocopp", ignore_errors=True)
        rows.append(("python -m cocopp", *timed([a.cocopp, "-m", "cocopp", "-o", "cocopp", *data], work)))
    load1 = os.getloadavg()[0]
    print(f"| run | wall s | CPU s | exit |  (load average {load0:.1f} before, {load1:.1f} after; {work})")
    print("| --- | --- | --- | --- |")
    for name, wall, cpu, rc in rows:
        print(f"| {name} | {wall:.1f} | {cpu:.1f} | {rc} |")
    if len(rows) == 2:
        print(f"cocopp / cocopipe: {rows[1][1] / rows[0][1]:.1f}x wall, {rows[1][2] / rows[0][2]:.1f}x CPU")
    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if all(r[3] == 0 for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
