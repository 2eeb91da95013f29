"""The readers of a source's logs as a protocol, and their registry.

A `Reader` says what of a source it reads (`detect`: the files it claims, empty when none) and reads
it (`parse`: a `Parsed`). `READERS` holds them in the order their parts are merged; `parse` asks each,
hides from COCO's reader the files another claims as its own, and merges every part into one
`Parsed` (`parsed.merge`): a source holding COCO and IOHprofiler logs keeps all of both, their counts
and the trials its duplicates are looked for by.

- `COCO`: .info index files with their .dat/.tdat data files and .adat archives (`coco`, `adat`).
- `IOH_OLD`: the layout of ioh < 0.3 (.info with .dat/.cdat/.idat/.tdat, `ioh.parse_old`); a data file of
  that layout that no .info names is reported.
- `IOH`: IOHprofiler_*.json with their .dat files (`ioh.parse_ioh`); .dat files of that layout that no
  json names are reported.
- `NEVERGRAD`: the .csv results files of Nevergrad's benchmarks (`nevergrad.parse`).
- `PURE_CSV`: IOHanalyzer's plain CSV, .csv files whose header names `fval` (`purecsv.parse`); other .csv
  files are no reader's.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import polars as pl

from ..vocabulary import PROBLEM_INSTANCE
from . import duplicates, ioh, nevergrad, purecsv
from .adat import parse_archives
from .coco import _empty, parse_source
from .parsed import Parsed, Problem, merge
from .sources import Source

#: what is said of a source with no file any reader knows
NOTHING_TO_READ = ("no COCO log files (.info/.dat/.tdat), IOHprofiler logs (IOHprofiler_*.json, or .info of "
                   "ioh < 0.3, with their .dat), Nevergrad results or IOHanalyzer plain CSV (.csv) found")


@dataclass(frozen=True)
class Context:
    """What a reader is told besides its source: the algorithm name given, the optimum of IOHprofiler runs
    that state none, whether another reader claimed files of the source (`others`) and how many runs the
    readers before it read (`runs_read`)."""

    algorithm: str | None = None
    optimum: float | None = None
    others: bool = False
    runs_read: int = 0


@runtime_checkable
class Reader(Protocol):
    """A reader of one log format."""

    name: str

    def detect(self, src: Source) -> Sequence[str]:
        """The files of `src` this reader reads or reports (empty: none)."""
        ...

    def parse(self, src: Source, files: Sequence[str], context: Context) -> Parsed:
        """What `files` (as `detect` gave them) of `src` hold."""
        ...


def _empty_parsed(problems: list[Problem]) -> Parsed:
    return Parsed(_empty("runs"), _empty("events"), problems)


class CocoReader:
    """COCO's .info/.dat/.tdat logs and .adat archives."""

    name = "coco"

    def detect(self, src: Source) -> Sequence[str]:
        """Every file but .csv files, unless the source's only logs are IOHprofiler json files (no .info at all)."""
        if not src.info_files() and ioh.json_files(src):
            return []
        return sorted(f for f in src.files if not f.lower().endswith(nevergrad.TABLE_SUFFIX))

    def parse(self, src: Source, files: Sequence[str], context: Context) -> Parsed:
        """The runs of the .info files; a missing index is a problem only when no other reader read the source."""
        parsed = parse_source(src, algorithm=context.algorithm, index_expected=not context.others)
        return dataclasses.replace(parsed, archive=parse_archives(src, parsed.runs, parsed.problems))


class IohOldReader:
    """IOHprofiler's layout of ioh < 0.3."""

    name = "ioh-old"

    def detect(self, src: Source) -> Sequence[str]:
        """The .info files of that layout and their data files, else a data file of that layout alone."""
        infos = ioh.old_info_files(src)
        if infos:
            return [*infos, *(f for files in infos.values() for f in files)]
        lone = ioh.old_layout(src)
        return [lone] if lone is not None else []

    def parse(self, src: Source, files: Sequence[str], context: Context) -> Parsed:
        """The runs of the .info files; a data file of the layout that no .info names, as unsupported (when
        no run was read before: else COCO's reader named it among the data files no .info names)."""
        if _has_info(files):
            return ioh.parse_old(src, ioh.old_info_files(src), context.algorithm, context.optimum)
        if context.runs_read:
            return _empty_parsed([])
        return _empty_parsed([Problem(files[0], 1, "IOHprofiler data file of ioh < 0.3 without the .info that names it",
                                      "file skipped")])


class IohReader:
    """IOHprofiler's json and .dat logs."""

    name = "ioh"

    def detect(self, src: Source) -> Sequence[str]:
        """The json files and the data files of that layout."""
        return [*ioh.json_files(src), *ioh.data_files(src)]

    def parse(self, src: Source, files: Sequence[str], context: Context) -> Parsed:
        """The runs the json files announce; data files no json names, as problems."""
        if not ioh.json_files(src):
            return _empty_parsed(ioh.orphans(src, ()))
        return ioh.parse_ioh(src, context.algorithm, context.optimum)


class NevergradReader:
    """Nevergrad's benchmark results (.csv)."""

    name = "nevergrad"

    def detect(self, src: Source) -> Sequence[str]:
        """The .csv files whose header is that of Nevergrad's results."""
        return nevergrad.files(src)

    def parse(self, src: Source, files: Sequence[str], context: Context) -> Parsed:
        """A run per readable row; the others named with their line."""
        return nevergrad.parse(src, files, context.algorithm)


class PureCsvReader:
    """IOHanalyzer's plain CSV (.csv), with IOHanalyzer's column names."""

    name = "csv"

    def detect(self, src: Source) -> Sequence[str]:
        """The .csv files whose header names `fval` (Nevergrad's excepted)."""
        return purecsv.files(src)

    def parse(self, src: Source, files: Sequence[str], context: Context) -> Parsed:
        """A run per (fname, algname, dim, run); unreadable rows named with their line."""
        return purecsv.parse(src, files, context.algorithm)


COCO, IOH_OLD, IOH, NEVERGRAD = CocoReader(), IohOldReader(), IohReader(), NevergradReader()
PURE_CSV = PureCsvReader()
#: every reader, in the order their parts are merged
READERS: tuple[Reader, ...] = (COCO, IOH_OLD, IOH, NEVERGRAD, PURE_CSV)


def _has_info(files: Sequence[str]) -> bool:
    """Whether `files` hold an .info file (IOHprofiler's of ioh < 0.3 claimed with their data, not one alone)."""
    return any(f.lower().endswith(".info") for f in files)


def _without(src: Source, files: set[str]) -> Source:
    """`src` with `files` hidden."""
    return dataclasses.replace(src, files={k: v for k, v in src.files.items() if k not in files}) if files else src


def parse(src: Source, algorithm: str | None = None, optimum: float | None = None) -> Parsed:
    """Every log of `src` read by the readers that claim it, as one `Parsed`; a source with no file any
    reader knows gives one problem."""
    if not src.files:
        return _empty_parsed([*(Problem(*p) for p in src.problems),
                              Problem(src.path, None, NOTHING_TO_READ, "source skipped")])
    claims = {r: r.detect(src) for r in READERS}
    if not any(claims.values()):  # only files no reader knows (.csv files of another kind)
        return _empty_parsed([*(Problem(*p) for p in src.problems), Problem(src.path, None, NOTHING_TO_READ,
                                                                            "source skipped")])
    others = {r: any(files for o, files in claims.items() if o is not r) for r in READERS}
    # files of another format are not COCO's: hidden from its reader (IOHprofiler's of ioh < 0.3 only,
    # whose .info files COCO's reader would take for its own)
    theirs = set(claims[IOH_OLD]) if _has_info(claims[IOH_OLD]) else set()
    parts: list[Parsed] = []
    for reader in READERS:
        view = _without(src, theirs) if reader is COCO else src
        if claims[reader] and view.files:
            read = sum(p.runs.height for p in parts)
            parts.append(reader.parse(view, claims[reader], Context(algorithm, optimum, others[reader], read)))
    if claims[IOH_OLD] and claims[IOH] and len(parts) >= 2 and parts[-1].trials is not None:
        parts[-2] = _read_once(parts[-2], parts[-1])  # IOH_OLD's part, then IOH's
    return merge(parts) if parts else _empty_parsed([])


def _read_once(old: Parsed, new: Parsed) -> Parsed:
    """The runs of the layout of ioh < 0.3 less those the json layout holds too (the same problem instance and
    run facts: the k-th of either matched), each named: one run, read from its json."""
    if old.trials is None or not old.runs.height or not new.runs.height:
        return old
    key = [*PROBLEM_INSTANCE, *duplicates.FACTS]
    mine = old.trials.runs.sort("run_id").with_columns(k=pl.int_range(pl.len()).over(key))
    theirs = new.trials.runs.sort("run_id").with_columns(k=pl.int_range(pl.len()).over(key))
    both = mine.join(theirs.select(*key, "k", json_file="info_file", json_line="info_line"), on=[*key, "k"])
    if not both.height:
        return old
    said = [Problem(r["info_file"], r["info_line"], f"run of f{r['function']} {r['dimension']}-D instance "
                    f"{r['instance']} is also in {r['json_file']} (both IOHprofiler layouts of one run)",
                    "read once, from the json") for r in both.sort("run_id").iter_rows(named=True)]
    gone = both["run_id"].implode()

    def keep(df: pl.DataFrame | None) -> pl.DataFrame | None:
        return df.filter(~pl.col("run_id").is_in(gone)) if df is not None else None

    return dataclasses.replace(old, runs=keep(old.runs), events=keep(old.events), params=keep(old.params),
                               problems=[*old.problems, *said],
                               trials=duplicates.Trials(keep(old.trials.runs), keep(old.trials.events)))
