"""Shared COCO logs edited into logs that disagree with themselves, as logs of distributed runs do.

Standard library only: tests/fixtures/make_inconsistent_fixture.py imports it in a scratch virtual
environment with cocopp to make the oracle numbers, and the tests build the very same logs.

The archive EvoSpace-PSO-GA_Garcia-Valdez (bbob 2017, "files not written through standard bbob
observer") has the three kinds of disagreement the edits below copy, in every third trial k of a
data file (k counted from 0):
- k % 3 == 0: the first .dat record logs a best precision below the second's (EvoSpace's f14 3-D,
  f18 2-D, ...), and so another value than the first .tdat record at the same evaluation;
- k % 3 == 1: the .tdat dips below the last .tdat record at its second-to-last record (f16 20-D:
  the best precision rises again at the end);
- k % 3 == 2: a trial that reached the final target logs one more .dat record, above it.
"""
from __future__ import annotations

import re
import shutil
import tarfile
from collections.abc import Iterable
from pathlib import Path

#: the data files (archive, path inside it without extension) the fixture keeps: old (2009) and
#: new (bbob-new2) formats, 5 and 15 trials per data set, easy and hard problems
KEEP = {
    "DIRECT_posik_noiseless": ["DIRECT/data_f1/bbobexp_f1_DIM2", "DIRECT/data_f1/bbobexp_f1_DIM5",
                               "DIRECT/data_f6/bbobexp_f6_DIM3", "DIRECT/data_f15/bbobexp_f15_DIM2",
                               "DIRECT/data_f21/bbobexp_f21_DIM5"],
    "NM_on_bbob": ["NM_on_bbob/data_f1/bbobexp_f1_DIM3", "NM_on_bbob/data_f8/bbobexp_f8_DIM2",
                   "NM_on_bbob/data_f12/bbobexp_f12_DIM5", "NM_on_bbob/data_f17/bbobexp_f17_DIM3",
                   "NM_on_bbob/data_f22/bbobexp_f22_DIM2"],
}
BEST = 2  # column of the best precision in bbob-old and bbob-new2 records


def _sections(lines: list[str]) -> list[tuple[int, list[int]]]:
    """(header line, record lines) of each trial of a data file, by line index."""
    out: list[tuple[int, list[int]]] = []
    for i, line in enumerate(lines):
        if line.startswith("%"):
            if not out or out[-1][1]:
                out.append((i, []))
        elif line.strip() and out:
            out[-1][1].append(i)
    return out


def _set(line: str, value: float) -> str:
    parts = line.split()
    parts[BEST] = f"{value:+.9e}"
    return " ".join(parts)


def _value(line: str) -> float:
    return float(line.split()[BEST])


def _below(v: float) -> float:
    """A precision below v (logs of 2009 have negative ones)."""
    return v / 10 if v > 0 else (v * 10 if v < 0 else -1e-9)


def edit(dat: list[str], tdat: list[str], precision: float = 1e-8) -> tuple[list[str], list[str]]:
    """The records of one data file and its .tdat, edited as the module says."""
    dat, tdat = list(dat), list(tdat)
    added: list[tuple[int, str]] = []
    for k, ((_, d), (_, t)) in enumerate(zip(_sections(dat), _sections(tdat))):
        if k % 3 == 0 and len(d) >= 2:
            dat[d[0]] = _set(dat[d[0]], _value(dat[d[1]]) * 0.3 if _value(dat[d[1]]) > 0 else _below(_value(dat[d[1]])))
        elif k % 3 == 1 and len(t) >= 3:
            tdat[t[-2]] = _set(tdat[t[-2]], _below(_value(tdat[t[-1]])))
        elif k % 3 == 2 and _value(dat[d[-1]]) <= precision:
            last = dat[d[-1]].split()
            last[0] = str(int(float(last[0])) + 1)
            added.append((d[-1] + 1, _set(" ".join(last), 10 * precision)))
    for at, line in reversed(added):
        dat.insert(at, line)
    return dat, tdat


def _stem(name: str) -> str:
    return re.sub(r"\.dat$", "", name.strip().replace("\\", "/"))


def make(archive: Path, out: Path, keep: Iterable[str]) -> Path:
    """The logs of `archive` (.tgz) under `out`, with only the .info entries of the data files in
    `keep` (paths without extension), every kept data file edited (`edit`). Returns `out`."""
    keep = set(keep)
    shutil.rmtree(out, ignore_errors=True)
    with tarfile.open(archive) as tar:
        members = [m for m in tar.getmembers() if m.isfile() and (m.name.endswith(".info") or any(
            m.name.endswith(f"{k}.dat") or m.name.endswith(f"{k}.tdat") for k in keep))]
        tar.extractall(out, members=members, filter="data")
    for info in sorted(out.rglob("*.info")):
        lines, kept = info.read_text().splitlines(), []
        for i in range(0, len(lines) - 2, 3):  # header, comment, data line
            data = lines[i + 2].split(",")[0]
            if any(_stem(str(info.parent.relative_to(out) / _stem(data))).endswith(k) for k in keep):
                kept += lines[i:i + 3]
        if kept:
            info.write_text("\n".join(kept) + "\n")
        else:
            info.unlink()
    for dat in sorted(out.rglob("*.dat")):
        tdat = dat.with_suffix(".tdat")
        d, t = edit(dat.read_text().splitlines(), tdat.read_text().splitlines())
        dat.write_text("\n".join(d) + "\n")
        tdat.write_text("\n".join(t) + "\n")
    return out
