"""Ingest benchmark: MB/s, wall time, CPU time and peak memory for the given folders or archives.

usage: python benchmarks/ingest.py [SRC ...] [--repeat N] [--jobs N (default: cores)] [--cocopp PYTHON] [--as MODE]
       (default SRC: all of ../shared/data)

Each repetition ingests the sources into a fresh store in a fresh interpreter, timing the ingest
call alone (imports excluded); MB are megabytes of log text (.info, .dat, .tdat, uncompressed).
CPU is user + system time of the process and its threads: other work on the machine stretches wall
time, much less CPU time, so both are printed.

With `--cocopp PYTHON` (the interpreter of a virtualenv holding cocopp; the project never imports
it) each repetition also times `cocopp.pproc.DataSetList(source)` on the same data in a subprocess,
the two interleaved so that both meet the same conditions. cocopp unpacks an archive beside it and
reuses pickles and unpacked folders on later reads, so every cocopp run reads a fresh copy in a new
temporary folder: an archive is copied (cocopp unpacks it during the timed call), a folder is
copied outside the timed call. The ratio is cocopp's time over ours (medians).

`--as archive` (the default) reads archives as given; `--as folder` unpacks each archive once into a
temporary folder (outside every timed call) and times both tools on the unpacked folders, as
`cocopp.pproc.DataSetList(folder)` reads them; `--as both` does both, one after the other, and
prints the ratio of each. Folder sources are timed as folders in every mode.
"""
from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"

OURS = r"""
import json, resource, sys, time
from pipeline.ingest import ingest
from pipeline.store import Store
store, jobs, paths = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
r0, t0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
summary = ingest(paths, Store(store, create=True), jobs=jobs or None)
wall, r1 = time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_SELF)
c = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime + c.ru_utime + c.ru_stime
print(json.dumps(dict(wall=wall, cpu=cpu, peak_mb=max(r1.ru_maxrss, c.ru_maxrss) / 1024, runs=summary.runs,
                      problems=len(summary.problems))))
"""

COCOPP = r"""
import contextlib, io, json, resource, sys, time, warnings
warnings.filterwarnings("ignore")
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    from cocopp import pproc
r0, t0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
with contextlib.redirect_stdout(io.StringIO()):
    dsl = pproc.DataSetList(sys.argv[1:] if len(sys.argv) > 2 else sys.argv[1])
wall, r1 = time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps(dict(wall=wall, cpu=r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime,
                      peak_mb=r1.ru_maxrss / 1024, runs=sum(len(ds.instancenumbers) for ds in dsl))))
"""


def log_megabytes(sources: list[Path]) -> float:
    """Megabytes of log text (.info/.dat/.tdat) in the sources, uncompressed."""
    from pipeline.ingest.sources import read_source

    return sum(len(b) for s in sources for n, b in read_source(s).files.items()
               if n.lower().endswith((".info", ".dat", ".tdat"))) / 1e6


def run(cmd: list[str], **kw) -> dict:
    """Run one timed child; its last stdout line is a JSON record."""
    res = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if res.returncode:
        tail = (res.stderr.strip().splitlines() or ["failed"])[-1]
        raise RuntimeError(f"{cmd[0]}: {tail}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def ours(sources: list[Path], jobs: int) -> dict:
    """One ingest of the sources into a fresh store."""
    with tempfile.TemporaryDirectory() as tmp:
        return run([sys.executable, "-c", OURS, str(Path(tmp) / "store"), str(jobs), *map(str, sources)])


def cocopp(python: str, sources: list[Path]) -> dict:
    """One cocopp DataSetList over fresh copies of the sources."""
    with tempfile.TemporaryDirectory() as tmp:
        copies = []
        for s in sources:
            dst = Path(tmp) / s.name
            if s.is_dir():
                shutil.copytree(s, dst)
            else:
                shutil.copyfile(s, dst)
            copies.append(dst)
        return run([python, "-c", COCOPP, *map(str, copies)], cwd=tmp)


def summary(label: str, rows: list[dict], mb: float) -> str:
    wall = statistics.median(r["wall"] for r in rows)
    cpu = statistics.median(r["cpu"] for r in rows)
    peak = max(r["peak_mb"] for r in rows)
    best = min(r["wall"] for r in rows)
    return (f"{label:8s} wall {wall:7.3f} s (best {best:.3f}), CPU {cpu:7.3f} s, {mb / wall:7.1f} MB/s wall, "
            f"{mb / cpu:7.1f} MB/s CPU, peak RSS {peak:.0f} MB, {rows[0]['runs']} runs")


def unpacked(sources: list[Path], into: Path) -> list[Path]:
    """The sources with every archive unpacked under `into`: the archive's single top folder, or the
    folder it was unpacked into when it holds several."""
    from pipeline.ingest.sources import is_archive, source_name

    out = []
    for s in sources:
        if not is_archive(s):
            out.append(s)
            continue
        dst = into / source_name(s)
        dst.mkdir(parents=True)
        if s.name.lower().endswith(".zip"):
            with zipfile.ZipFile(s) as zf:
                zf.extractall(dst)
        else:
            with tarfile.open(s) as tf:
                tf.extractall(dst, filter="data")
        tops = [p for p in dst.iterdir() if not p.name.startswith(".")]
        out.append(tops[0] if len(tops) == 1 and tops[0].is_dir() else dst)
    return out


def compare(sources: list[Path], mb: float, repeat: int, jobs: int, coco: str | None, label: str) -> None:
    """Time both tools on the sources (interleaved) and print the figures and ratios."""
    mine, theirs = [], []
    for _ in range(repeat):
        mine.append(ours(sources, jobs))
        if coco:
            try:
                theirs.append(cocopp(coco, sources))
            except RuntimeError as exc:
                print(f"cocopp failed: {exc}")
                coco = None
    print(f"-- {label}")
    print(summary("cocopipe", mine, mb))
    if theirs:
        print(summary("cocopp", theirs, mb))
        w = statistics.median(r["wall"] for r in theirs) / statistics.median(r["wall"] for r in mine)
        c = statistics.median(r["cpu"] for r in theirs) / statistics.median(r["cpu"] for r in mine)
        print(f"ratio cocopp / cocopipe ({label}): {w:.1f}x wall, {c:.1f}x CPU")


def main(argv: list[str]) -> None:
    def option(name: str, default: str | None) -> str | None:
        if name in argv:
            i = argv.index(name)
            value = argv[i + 1]
            del argv[i:i + 2]
            return value
        return default

    repeat = int(option("--repeat", "3"))
    jobs = int(option("--jobs", "0"))  # 0: the default, as many sources at once as cores
    coco = option("--cocopp", None)
    mode = option("--as", "archive")
    if mode not in ("archive", "folder", "both"):
        raise SystemExit(f"--as {mode}: expected archive, folder or both")
    from pipeline.ingest.sources import expand, is_archive

    sources = expand(argv or [str(SHARED)])
    mb = log_megabytes(sources)
    print(f"{len(sources)} sources, {mb:.1f} MB of log text; {repeat} repetitions"
          + (", interleaved with cocopp" if coco else "") + f"; load average {os.getloadavg()[0]:.1f}")
    if mode in ("archive", "both"):
        compare(sources, mb, repeat, jobs, coco, "as given" if not any(map(is_archive, sources)) else "archives")
    if mode in ("folder", "both") and (mode == "folder" or any(map(is_archive, sources))):
        with tempfile.TemporaryDirectory() as tmp:
            compare(unpacked(sources, Path(tmp)), mb, repeat, jobs, coco, "unpacked folders")


if __name__ == "__main__":
    main(sys.argv[1:])
