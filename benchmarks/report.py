"""Report benchmark: `cocopipe report` on the bbob data sets of ../shared/data DIRECT_posik_noiseless,
BrentSTEPqi_Posik, NM_on_bbob, RS_on_bbob, with best2009 as the reference (the packaged set, as a report
takes it by default and as cocopp takes its own; with --ingest-reference, the published best2009 data set
ingested beside them, as this benchmark did before 2026-12-01), from the raw logs (ingest included) and
again from the store. Prints wall time, CPU time (the command and its worker processes),
peak RSS (the largest process) and the report's size. cocopp needs about 420 s for a comparable
five-algorithm report on the development machine; the goal is under 20 s.

With --scale N (issue 12): a synthetic archive of N algorithms (benchmarks/scale.py make_archive,
kept in --archive DIR to be reused), ingested, then the report from the store: generation wall and
CPU time, the report's size, and the time each page takes to open and draw every chart in headless
Chromium (from the request to the last chart drawn). Goals at N = 200: under 60 s to generate,
under 50 MB, under 5 s per page.
Before the report's measures were chunked (2026-11-23, load ~11): the full report at N = 200 did not
finish (stopped after 11 min wall, 244 s CPU, 16.7 GB peak RSS: measures of all algorithms at once).
Measured 2026-11-23 on the 2 cores shared with other helpers' work (wall times disturbed; CPU times
are the figures to compare), `--scale 200 --archive /tmp/rep200 --store DIR` (the archive's store kept):
- 07:10 UTC, load average 3-4 (views started before any is waited for): report from the store
  40.0 s wall / 65.0 s CPU (command and workers), peak RSS 1.3 GB; 39.7 MB in 13 files (8 pages,
  30 charts); drawn in headless Chromium in: pairwise 3.4 s (15 charts), ecdf 3.1 (6 charts of 200
  lines), scaling 3.0, index 1.4, explore 1.3, ranking 0.6, tables 0.4, settings 0.3.
- 07:04-07:06 UTC, load average 4-6 (views waited for one by one): 68.0 s wall / 91.4 s CPU.
- 06:40-06:47 UTC, load average 12-13: 241 s wall / 88.8 s CPU (86.8 s when it first fills the
  store's hitting-time cache), 1.2 GB; 39.4 MB in 13 files (8 pages, 30 charts): ecdf 13.5 MB,
  explore 13.4, scaling 6.6, tables 2.4, pairwise 1.4, index 0.8, ranking 0.3; drawn in 0.8-13.1 s.
So all three goals are met at N = 200 on a lightly loaded machine (40 s, 39.7 MB, every page under 3.5 s).
Five bbob sets, 07:06 UTC (load 6): from the store 14.2 s wall / 23.8 s CPU (before this round,
quiet: 44 s wall / 71 s CPU; the charts', Glicko-2's and the aRT tests' speed-ups of the other helpers
landed meanwhile), from raw logs 18.7 s wall / 30.6 s CPU, peak RSS 523 MB; 13.2 MB (before 19 MB),
12 pages, 229 charts. Again at 07:12 (load 3, views started at once): 16.2 s wall / 29.4 s CPU from the
store, 18.3 s / 32.7 s from raw logs. At load 13-15 (06:50): 100.5 s wall / 35.3 s CPU.

With --cocopp PY (e.g. /tmp/cocopp-venv/bin/python after `python -m venv /tmp/cocopp-venv &&
/tmp/cocopp-venv/bin/pip install cocopp`): cocopp's `python -m cocopp` on the same four algorithms (its
own best2009 as the reference), wall and CPU, and the ratio (issue 32: the goal is 20x). With --repeat N, our
report from raw logs N times (each printed) and the ratio to their median: a run of seconds is disturbed by
a moment's load that cocopp's minutes average over.

usage: python benchmarks/report.py [--jobs N] [--out DIR] [--cocopp PY [--repeat N]] [--ingest-reference]
                                  [--scale N [--archive DIR] [--store DIR]]
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

SHARED = Path(os.environ.get("COCOPIPE_SHARED", Path(__file__).resolve().parents[2] / "shared"))
SOURCES = ("real/DIRECT_posik_noiseless.tgz", "real/BrentSTEPqi_Posik.tgz", "generated/NM_on_bbob.tgz",
           "generated/RS_on_bbob.tgz")
#: best2009 as a source of its own (`--ingest-reference`), instead of the packaged set a report takes by default
REFERENCE = "refalgs/best2009-bbob.tar.gz"


def adopt_descendants() -> None:
    """Make this process the one that the command's processes left behind when it ends are handed to (Linux's
    child subreaper), so that `reap` can wait for them and their CPU time is counted: the workers' fork
    server ends just after the command, and with it the CPU time of the workers it waited for."""
    import ctypes

    PR_SET_CHILD_SUBREAPER = 36
    if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        sys.exit(f"prctl(PR_SET_CHILD_SUBREAPER): {os.strerror(ctypes.get_errno())}: the CPU times would leave "
                 "out the processes that outlive the command")


def reap(within: float = 30.0) -> float:
    """Wait for the processes the last command left behind (`adopt_descendants`); fail if one still runs after
    `within` seconds. Returns the largest peak RSS among them (MB)."""
    deadline, rss = time.monotonic() + within, 0.0
    while True:
        try:
            pid, _, usage = os.wait4(-1, os.WNOHANG)
        except ChildProcessError:  # none left
            return rss
        if pid == 0:
            if time.monotonic() > deadline:
                sys.exit("a process of the command still runs 30 s after it ended")
            time.sleep(0.02)
        else:
            rss = max(rss, usage.ru_maxrss / 1024)


def measured(cmd: list[str], **popen) -> dict:
    """Run `cmd` to its end and the end of its output (processes that outlive it holding its pipes included):
    wall time, CPU time (of every process it started: `reap`), the largest peak RSS among them (MB; the
    command's own, not the largest of every command run so far, which the children's usage of this process
    holds), its exit code and stderr."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **popen)
    with ThreadPoolExecutor(2) as pool:  # both pipes read to their end
        out, err = pool.submit(proc.stdout.read), pool.submit(proc.stderr.read)
        stderr = err.result()
        out.result()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    rss = max(usage.ru_maxrss / 1024, reap())
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return dict(wall=wall, cpu=(after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), rss=rss,
                code=os.waitstatus_to_exitcode(status), stderr=stderr)


def compile_package() -> str:
    """Compile the bytecode of the package the commands run (the one found from the temporary folder), as
    `pip install` does for an installed package: an editable checkout, where PYTHONDONTWRITEBYTECODE is set
    (as on the development machine), would otherwise compile every module from its source at each start
    of the command and of its workers' server (0.4 s each)."""
    import compileall

    where = subprocess.run([sys.executable, "-c", "import pipeline, os; print(os.path.dirname(pipeline.__file__))"],
                           capture_output=True, text=True, cwd=tempfile.gettempdir(), check=True).stdout.strip()
    compileall.compile_dir(where, quiet=1)
    return where


def run(args: list[str]) -> dict:
    """Run a cocopipe command (`measured`)."""
    r = measured([sys.executable, "-m", "pipeline.cli", *args],
                 cwd=tempfile.gettempdir())  # a checkout in the working folder would shadow PYTHONPATH's
    if r["code"]:
        sys.exit(f"cocopipe {' '.join(args)} failed:\n{r['stderr']}")
    return r


def run_cocopp(python: str, srcs: list[Path], where: Path) -> dict:
    """`PY -m cocopp` on the algorithms' sources (its own best2009 reference) in `where` (`measured`)."""
    r = measured([python, "-m", "cocopp", "-o", str(where / "ppdata"), *map(str, srcs)], cwd=where,
                 env={**os.environ, "MPLBACKEND": "Agg"})
    if r["code"]:
        sys.exit(f"cocopp failed:\n{r['stderr'][-2000:]}")
    return r


def size(out: Path) -> str:
    files = [p for p in out.rglob("*") if p.is_file()]
    pages = [p for p in files if p.suffix == ".html"]
    charts = sum(p.read_text(encoding="utf-8").count('<div class="chart"') for p in pages)
    total = sum(p.stat().st_size for p in files)
    js = sum(p.stat().st_size for p in files if p.suffix == ".js" and p.parent.name == "static")
    return (f"{total / 1e6:.1f} MB in {len(files)} files ({len(pages)} pages, {charts} charts; "
            f"{js / 1e6:.1f} MB of it the shipped JavaScript)")


def render_times(out: Path) -> dict[str, tuple[float, int]]:
    """{page: (seconds to open it and draw every chart, charts)} in headless Chromium (selenium)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from test_report_browser import CHROMIUM, DRIVER, FLAGS

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for f in FLAGS:
        opts.add_argument(f)
    d = webdriver.Chrome(options=opts, service=Service(DRIVER))
    times = {}
    try:
        for page in sorted(out.glob("*.html")):
            t = time.perf_counter()
            d.get(page.resolve().as_uri())
            d.execute_script("if (window.cocopipeDrawAll) window.cocopipeDrawAll();")  # all, not only in view
            while d.execute_script("return document.body.dataset.chartsDone") != "true":
                if time.perf_counter() - t > 300:
                    break
                time.sleep(0.02)
            n = d.execute_script("return Number(document.body.dataset.chartsRendered)")
            times[page.name] = (time.perf_counter() - t, n)
    finally:
        d.quit()
    return times


def scale(n: int, archive: Path | None, jobs: list[str], keep: str | None, store: Path | None = None) -> None:
    """The report of N synthetic algorithms: generation, size, rendering in Chromium."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from scale import make_archive

    with tempfile.TemporaryDirectory() as tmp:
        root = archive or Path(tmp) / "archive"
        t = time.perf_counter()
        made = make_archive(root, n)
        srcs = made[0] if isinstance(made, tuple) else made  # (paths, MB of logs) in newer scale.py
        print(f"{n} algorithms: archive ready in {time.perf_counter() - t:.0f} s ({root})")
        store, out = store or Path(tmp) / "store", Path(tmp) / "report"
        r = run(["ingest", *map(str, srcs), "--store", str(store)])
        print(f"ingest (sources already in --store are skipped): wall {r['wall']:.1f} s, CPU {r['cpu']:.1f} s")
        for attempt in ("first (fills the store's hitting-time cache when empty)", "again (cache filled)"):
            shutil.rmtree(out, ignore_errors=True)
            r = run(["report", "--store", str(store), "--out", str(out), "--reference", "none", *jobs])
            print(f"report from the store, {attempt}: wall {r['wall']:.1f} s, CPU {r['cpu']:.1f} s, "
                  f"peak RSS {r['rss']:.0f} MB (goal: under 60 s)")
        print(f"report: {size(out)} (goal: under 50 MB)")
        for p in sorted(out.glob("*.html")):
            print(f"  {p.name:<22} {p.stat().st_size / 1e6:6.1f} MB")
        data = sum(p.stat().st_size for p in (out / "data").glob("*.js")) if (out / "data").is_dir() else 0
        print(f"  {'data/ (shared tables)':<22} {data / 1e6:6.1f} MB")
        for page, (sec, charts) in render_times(out).items():
            print(f"  {page:<22} {sec:5.1f} s to draw {charts} chart(s) (goal: under 5 s)")
        if keep:
            shutil.rmtree(keep, ignore_errors=True)
            shutil.copytree(out, keep)
            print(f"kept in {keep}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=None, help="worker processes (default: the command's)")
    ap.add_argument("--out", default=None, help="keep the report in this folder")
    ap.add_argument("--scale", type=int, default=None, help="report on N synthetic algorithms instead (e.g. 200)")
    ap.add_argument("--archive", type=Path, default=None, help="where the synthetic archive is kept (reused)")
    ap.add_argument("--store", type=Path, default=None, help="with --scale: the store of the archive (kept, reused)")
    ap.add_argument("--ingest-reference", action="store_true",
                    help="ingest best2009 as a source (the figures before 2026-12-01) instead of the packaged set")
    ap.add_argument("--repeat", type=int, default=1, metavar="N",
                    help="the report from raw logs N times, each into a new store: each run and the median, which the "
                         "ratio to cocopp takes (a run of seconds is disturbed by a moment's load that cocopp's minutes "
                         "average over)")
    ap.add_argument("--cocopp", default=None, metavar="PY",
                    help="also run `PY -m cocopp` on the same algorithms (its own best2009), side by side")
    opts = ap.parse_args()
    adopt_descendants()
    print(f"bytecode of {compile_package()} compiled (as an installed package has it)")
    for name in ("out", "archive", "store"):  # the commands run in the temporary folder: paths made absolute
        if getattr(opts, name) is not None:
            setattr(opts, name, Path(getattr(opts, name)).resolve())
    if opts.scale:
        print(f"{os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.1f} (other work disturbs wall times)")
        return scale(opts.scale, opts.archive, ["--jobs", str(opts.jobs)] if opts.jobs else [], opts.out, opts.store)
    srcs = [SHARED / "data" / s for s in (*SOURCES, *((REFERENCE,) if opts.ingest_reference else ()))]
    missing = [str(s) for s in srcs if not s.exists()]
    if missing:
        sys.exit(f"missing data: {', '.join(missing)}")
    jobs = ["--jobs", str(opts.jobs)] if opts.jobs else []
    print(f"{os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.1f} (other work on the machine disturbs "
          "wall times; CPU time less so)")
    with tempfile.TemporaryDirectory() as tmp:
        store, out = Path(tmp) / "store", Path(tmp) / "report"
        common = ["--reference", "best2009", *jobs]
        raw = []
        for i in range(opts.repeat):  # each from the raw logs into a new store
            shutil.rmtree(store, ignore_errors=True)
            shutil.rmtree(out, ignore_errors=True)
            r = run(["report", *map(str, srcs), "--store", str(store), "--out", str(out), *common])
            raw.append(r)
            print(f"from raw logs (ingest + report){f', run {i + 1}' if opts.repeat > 1 else ''}: wall {r['wall']:.1f} s, "
                  f"CPU {r['cpu']:.1f} s, peak RSS {r['rss']:.0f} MB", flush=True)
        r0 = {k: statistics.median(x[k] for x in raw) for k in ("wall", "cpu", "rss")}
        if opts.repeat > 1:
            print(f"from raw logs, median of {opts.repeat}: wall {r0['wall']:.1f} s, CPU {r0['cpu']:.1f} s")
        print(f"report: {size(out)}")
        r = run(["report", "--store", str(store), "--out", str(out), *common])
        print(f"from the store (report only):    wall {r['wall']:.1f} s, CPU {r['cpu']:.1f} s, "
              f"peak RSS {r['rss']:.0f} MB")
        if opts.out:
            shutil.rmtree(opts.out, ignore_errors=True)
            shutil.copytree(out, opts.out)
            print(f"kept in {opts.out}")
        if opts.cocopp:
            print(f"load average {os.getloadavg()[0]:.1f}")
            c = run_cocopp(opts.cocopp, [s for s in srcs if "refalgs" not in str(s)], Path(tmp))
            print(f"cocopp (python -m cocopp, the same four algorithms): wall {c['wall']:.1f} s, CPU {c['cpu']:.1f} s, "
                  f"peak RSS {c['rss']:.0f} MB")
            print(f"cocopipe from raw logs is {c['wall'] / r0['wall']:.1f}x as fast (wall), "
                  f"{c['cpu'] / r0['cpu']:.1f}x (CPU) (goal: 20x)")


if __name__ == "__main__":
    main()
