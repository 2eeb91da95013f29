"""Explorer benchmark: the site of N synthetic data sets (benchmarks/scale.py's renamed, perturbed copies of
the shared bbob data sets), time and peak memory of each step, each in a fresh process:

- ingest: the N archives into a new store (2 sources at once);
- build: `cocopipe explorer` from nothing (leaderboards of every dimension, a page per data set);
- again: the same command with nothing changed (no work: it says so);
- add: one more data set ingested, then the site brought up to date (its page, the leaderboards of its
  dimensions).

usage: python benchmarks/explorer.py [N ...] [--keep DIR]      (default N = 100 200)
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scale import make_archive  # noqa: E402

STEP = r"""
import json, resource, sys, time
step, store, site, src = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
from pipeline.explorer.build import build
from pipeline.ingest import ingest
from pipeline.store import Store
def usage():
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime
t, c = time.perf_counter(), usage()
extra = {}
if step in ("ingest", "add"):
    extra["runs"] = ingest(src, Store(store, create=step == "ingest"), jobs=2).runs
if step != "ingest":
    b = build(Store(store), site)
    extra.update(rebuilt=len(b.rebuilt), kept=len(b.kept), problems=len(b.problems))
wall, cpu = time.perf_counter() - t, usage() - c
peak = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
print(json.dumps(dict(step=step, wall=wall, cpu=cpu, peak_mb=peak / 1024, **extra)))
"""


def run_step(step: str, store: Path, site: Path, sources: list[Path]) -> dict:
    """One measured step in a fresh interpreter."""
    res = subprocess.run([sys.executable, "-c", STEP, step, str(store), str(site), *map(str, sources)],
                         capture_output=True, text=True, cwd=tempfile.gettempdir())
    if res.returncode:
        return {"step": step, "error": (res.stderr.strip().splitlines() or ["failed"])[-1]}
    return json.loads(res.stdout.strip().splitlines()[-1])


def main(argv: list[str]) -> None:
    keep = None
    if "--keep" in argv:
        i = argv.index("--keep")
        keep = Path(argv[i + 1])
        del argv[i:i + 2]
    sizes = [int(a) for a in argv] or [100, 200]
    root = keep or Path(tempfile.mkdtemp(prefix="cocopipe-explorer-"))
    for n in sizes:
        sources, mb = make_archive(root / "archives", n + 1)
        store, site = root / f"store-{n}", root / f"site-{n}"
        shutil.rmtree(store, ignore_errors=True)
        shutil.rmtree(site, ignore_errors=True)
        rows = [run_step("ingest", store, site, sources[:n]), run_step("build", store, site, []),
                run_step("again", store, site, []), run_step("add", store, site, sources[n:n + 1])]
        for r in rows:
            print(json.dumps({"n": n, "log_mb": round(mb * n / (n + 1), 1), **r}), flush=True)
        if not keep:
            shutil.rmtree(store, ignore_errors=True)
            shutil.rmtree(site, ignore_errors=True)
    if not keep:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1:])
