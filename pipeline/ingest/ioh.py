"""Reader for IOHprofiler logs: the `IOHprofiler_f*_*.json` metadata of IOHexperimenter >= 0.3 (PyPI
`ioh`, `logger.Analyzer`) and the `.dat` files they name.

Layout (as ioh writes it, and as IOHanalyzer's `read_index_file__json` and IOHinspector's
`Dataset.from_dict` read it): one json per (algorithm, function) with `version`, `suite`,
`function_id`, `function_name`, `maximization`, `algorithm {name, info}`, optional
`experiment_attributes` and `run_attributes`, `attributes` (the .dat columns) and `scenarios`, one per
dimension: `dimension`, `path` (the .dat, relative to the json) and `runs` [{instance, evals, best
{evals, y, x}}, ...]. The .dat holds one section per run, in the order of `runs`, each opened by a
header line (`evaluations raw_y [tracked parameters] [x0 x1 ... when positions are stored]`); its
records are whatever the logger's triggers chose (improvements, every evaluation, fixed budgets,
fixed targets), each with the record's own `raw_y` (not the best so far).

Precision: `raw_y` is the objective value before ioh's instance transformation; on ioh's BBOB that is
f - f_opt (minimised, optimum 0), on PBO OneMax and LeadingOnes the number of ones / leading ones
(maximised, optimum n). A run attribute `optimum` (as `cocopipe export` writes) gives the optimum of
other problems. Precision = raw_y - optimum when minimising, optimum - raw_y when maximising; with no
known optimum the run is kept with null precisions and measured on its logged values
(`pipeline.measures.values`). nan, an infinitely good value and a value beyond a known optimum are
named and left out; an infinitely bad one (no value yet) is left out unnamed.

The IOHprofiler layout of ioh < 0.3 is read too (`parse_old`): `.info` files (blocks of three lines:
`suite = 'PBO', funcId = 1, DIM = 100, algId = ...`, a comment, `path.dat, instance:evals|best, ...`) with
per run the `.dat/.cdat/.idat/.tdat` beside it (header `"function evaluation" "current f(x)"
"best-so-far f(x)" ...`), whose records are merged by evaluations and read as IOHanalyzer reads them.
"""
from __future__ import annotations

import json
import math
import posixpath
import re

import polars as pl

from ..conventions import reached
from ..store import schema as store_schema
from ..words import plural
from . import duplicates
from .coco import _decode, _empty, _fits32
from .parsed import Parsed, Problem
from .sources import Source, run_key

FORMAT = "iohprofiler"
JSON_PREFIX = "iohprofiler_"
#: ioh's suite names and the store's (COCO's bbob is ioh's BBOB: the same functions and instances)
SUITES = {"BBOB": "bbob", "PBO": "pbo"}
#: PBO functions whose untransformed optimum is the dimension n (F1 OneMax, F2 LeadingOnes)
PBO_OPTIMUM_N = (1, 2)
#: final target precision of IOHprofiler runs whose optimum is known (as bbob's)
PRECISION = 1e-8
#: run numbers of IOHprofiler runs start here within a source (COCO trials of the same source below)
SEQ_OFFSET = 1 << 23
_REQUIRED = ("suite", "function_id", "maximization", "algorithm", "scenarios")
_NUMBER = re.compile(r"^[-+]?(\d|\.\d|nan|inf)", re.IGNORECASE)


_BOM = b"\xef\xbb\xbf"


def _text(data: bytes | memoryview) -> str:
    """A log file's text, without the byte-order mark an editor on Windows may have put first."""
    return _decode(data).removeprefix("\ufeff")


def _starts(src: Source, path: str, prefix: bytes) -> bool:
    """Whether a file's first bytes (after a byte-order mark and blanks) are `prefix`."""
    return bytes(src.view(path)[:len(prefix) + 8]).removeprefix(_BOM).lstrip().startswith(prefix)


def json_files(src: Source) -> list[str]:
    """The IOHprofiler metadata files of a source (`IOHprofiler_*.json`), sorted."""
    return sorted(p for p in src.files if p.lower().endswith(".json")
                  and posixpath.basename(p).lower().startswith(JSON_PREFIX))


def old_layout(src: Source) -> str | None:
    """A data file of the IOHprofiler layout of ioh < 0.3 (quoted `"function evaluation"` header), if any
    (named when no .info names it)."""
    for p in sorted(src.files):
        if p.lower().endswith(".dat") and _starts(src, p, b'"function evaluation'):
            return p
    return None


def data_files(src: Source) -> list[str]:
    """The IOHprofiler .dat files of a source (their first line is `evaluations raw_y ...`), sorted."""
    return sorted(p for p in src.files if p.lower().endswith(".dat")
                  and _starts(src, p, b"evaluations raw_y"))


def orphans(src: Source, announced) -> list[Problem]:
    """A problem per IOHprofiler .dat that no json names (ioh writes the json when the logger closes)."""
    return [Problem(p, None, "IOHprofiler data file without the IOHprofiler_*.json that names it "
                    "(the logger was not closed?)", "file skipped") for p in data_files(src) if p not in announced]


def suite_name(suite: str) -> str:
    """The store's name of an ioh suite (BBOB -> bbob, PBO -> pbo; others as they are)."""
    return SUITES.get(suite, suite)


def known_optimum(suite: str, function: int, dimension: int, maximize: bool, attribute,
                  given: float | None = None) -> float | None:
    """The optimum in raw_y units, or None (see the module's docstring): a run attribute's, else the
    suite's (BBOB 0; PBO OneMax and LeadingOnes n), else the one given at ingest (`--optimum`)."""
    if attribute is not None:
        try:
            return float(attribute)
        except (TypeError, ValueError):
            return None
    if suite == "bbob" and not maximize:
        return 0.0
    if suite == "pbo" and maximize and function in PBO_OPTIMUM_N:
        return float(dimension)
    return given


def _int32(value) -> int:
    """An integer the store's 32-bit columns hold (function, dimension, instance), else ValueError."""
    n = int(value)
    if not _fits32(n):
        raise ValueError(f"{n} does not fit 32 bits")
    return n


def _line_of(text: str, needle: str) -> int | None:
    """1-based line of the first occurrence of `needle` in `text`."""
    at = text.find(needle)
    return text.count("\n", 0, at) + 1 if at >= 0 else None


_RUN_SCHEMA = {
    "seq": pl.Int64, "info_file": pl.String, "info_line": pl.Int64, "data_file": pl.String, "section": pl.Int64,
    "suite": pl.String, "algorithm": pl.String, "function": pl.Int32, "function_name": pl.String, "dimension": pl.Int32,
    "instance": pl.Int32,
    "maximize": pl.Boolean, "info_evaluations": pl.Int64, "best_y": pl.Float64, "optimum": pl.Float64,
    "comment": pl.String, "best_x": pl.List(pl.Float64),
}


def _metadata(src: Source, algorithm: str | None, problems: list[Problem], given: float | None = None
              ) -> tuple[list[tuple], dict[str, int], int, set[str]]:
    """The runs the json files announce (rows of `_RUN_SCHEMA`), each data file's run count, how many
    announced runs cannot be read (a scenario without its data file, an unreadable run entry), and every
    data file a json names."""
    runs: list[tuple] = []
    announced: dict[str, int] = {}
    named: set[str] = set()
    unread = 0
    for jpath in json_files(src):
        text = _text(src.files[jpath])
        try:
            meta = json.loads(text)
        except json.JSONDecodeError as exc:
            problems.append(Problem(jpath, exc.lineno, f"invalid JSON ({exc.msg})", "file skipped"))
            continue
        missing = [k for k in _REQUIRED if not isinstance(meta, dict) or k not in meta]
        if missing:
            problems.append(Problem(jpath, None, f"not IOHprofiler metadata (no {', '.join(missing)})", "file skipped"))
            continue
        try:
            function = _int32(meta["function_id"])
            suite = suite_name(str(meta["suite"]))
            maximize = bool(meta["maximization"])
            alg = meta["algorithm"] if isinstance(meta["algorithm"], dict) else {"name": str(meta["algorithm"])}
        except (TypeError, ValueError, OverflowError):
            problems.append(Problem(jpath, _line_of(text, '"function_id"'), "function_id is not a number", "file skipped"))
            continue
        name = algorithm or str(alg.get("name") or src.name)
        fname = str(meta["function_name"]) if meta.get("function_name") is not None else None
        info = alg.get("info")
        for scen in meta["scenarios"] if isinstance(meta["scenarios"], list) else []:
            path = str(scen.get("path", "")) if isinstance(scen, dict) else ""
            line = _line_of(text, json.dumps(path)) if path else None
            entries = scen.get("runs") if isinstance(scen, dict) else None
            if path:  # named by a json, even if skipped below: no orphan
                named.add(posixpath.normpath(posixpath.join(posixpath.dirname(jpath), path.replace("\\", "/"))))
            try:
                dimension = _int32(scen["dimension"])
            except (KeyError, TypeError, ValueError, OverflowError):
                problems.append(Problem(jpath, line, "scenario without a dimension", "scenario skipped"))
                continue
            if not isinstance(entries, list):
                problems.append(Problem(jpath, line, "scenario without runs", "scenario skipped"))
                continue
            dat = posixpath.normpath(posixpath.join(posixpath.dirname(jpath), path.replace("\\", "/")))
            if dat not in src.files:
                problems.append(Problem(jpath, line, f"data file {path} not found",
                                        f"{plural(len(entries), 'run')} of f{function} {dimension}-D skipped"))
                unread += len(entries)
                continue
            first = announced.get(dat, 0)
            announced[dat] = first + len(entries)
            for k, run in enumerate(entries):
                try:
                    instance, evals = _int32(run["instance"]), int(run["evals"])
                    if evals < 0:
                        problems.append(Problem(jpath, line, f"run entry {k + 1} of {path}: evals {evals} is negative",
                                                "the run's evaluations taken from its data file"))
                        evals = None
                    best = run.get("best") or {}
                    best_y = float(best["y"]) if best.get("y") is not None else None
                    best_x = [float(v) for v in best["x"]] if isinstance(best.get("x"), list) and best["x"] else None
                except (KeyError, TypeError, ValueError, OverflowError, AttributeError):
                    problems.append(Problem(jpath, line, f"unreadable run entry {k + 1} of {path}", "run skipped"))
                    unread += 1
                    continue
                opt = known_optimum(suite, function, dimension, maximize, run.get("optimum"), given)
                runs.append((len(runs), jpath, line, dat, first + k, suite, name, function, fname, dimension, instance,
                             maximize, evals, best_y, opt, info, best_x))
    return runs, announced, unread, named


#: the leading columns of a .dat of ioh < 0.3 (`"function evaluation" "current f(x)" ...`), and the one read
OLD_COLUMNS = ("function evaluation", "current f(x)", "best-so-far f(x)", "current af(x)+b", "best af(x)+b")


def columns(header: str) -> tuple[list[str], int | None, list[int]]:
    """A .dat header's column names, the index of the value read as raw_y (None: not an IOHprofiler header)
    and those of the tracked parameters: `evaluations raw_y ...` (ioh >= 0.3), or the quoted header of ioh
    < 0.3 whose `best-so-far f(x)` is read, as IOHanalyzer reads it."""
    if header.startswith('"'):
        # quoted names, and the bare ones ioh's later logger writes after them (`... "best af(x)+b" violation x0`)
        names = [q or bare for q, bare in re.findall(r'"([^"]*)"|(\S+)', header)
                 if (q or bare) != "No parameters"]  # a placeholder, no column
        if tuple(names[:2]) != OLD_COLUMNS[:2]:
            return names, None, []
        n = sum(1 for a, b in zip(names, OLD_COLUMNS) if a == b)
        return names, 2 if n >= 3 else 1, list(range(n, len(names)))
    names = header.split()
    if names[:2] != ["evaluations", "raw_y"]:
        return names, None, []
    return names, 1, list(range(2, len(names)))


def _records(src: Source, path: str, problems: list[Problem]) -> pl.DataFrame:
    """The records of one .dat: section (run within the file, 0-based), evaluations, raw_y and a
    struct-free long list of the other columns (name, value pairs) as `params`."""
    text = _text(src.files[path]).replace("\r", "")
    lines = pl.DataFrame({"text": text.split("\n")}).with_row_index("lineno", offset=1).with_columns(
        pl.col("lineno").cast(pl.Int64), pl.col("text").str.strip_chars())
    lines = lines.filter(pl.col("text") != "").with_columns(head=~pl.col("text").str.contains(_NUMBER.pattern))
    lines = lines.with_columns(section=pl.col("head").cast(pl.Int64).cum_sum() - 1)
    empty = pl.DataFrame(schema={"section": pl.Int64, "lineno": pl.Int64, "evaluations": pl.Int64,
                                 "raw_y": pl.Float64, "names": pl.List(pl.String), "values": pl.List(pl.Float64)})
    body = lines.filter(~pl.col("head"))
    stray = body.filter(pl.col("section") < 0)
    for ln in stray["lineno"].head(20):
        problems.append(Problem(path, ln, "data before any header line", "line skipped"))
    parts = [empty]
    heads = lines.filter("head").group_by("text", maintain_order=True).agg("section", pl.col("lineno").first())
    for header, secs, head_line in heads.iter_rows():
        names, raw, extra = columns(header)
        if raw is None:
            problems.append(Problem(path, head_line, f"unknown header {header[:40]!r} (expected `evaluations raw_y ...`)",
                                    f"{plural(len(secs), 'run')} skipped"))
            continue
        rows = body.filter(pl.col("section").is_in(secs))
        fields = pl.col("text").str.replace_all(r"\s+", " ").str.split(" ")
        rows = rows.with_columns(f=fields).with_columns(n=pl.col("f").list.len())
        vals = [pl.col("f").list.get(i, null_on_oob=True).str.replace(r"^-nan", "nan").cast(pl.Float64, strict=False)
                .alias(f"v{i}") for i in range(len(names))]
        rows = rows.with_columns(vals)
        unread = (pl.col("n") != len(names)) | pl.any_horizontal(pl.col(f"v{i}").is_null() for i in range(len(names)))
        count = ~pl.col("v0").is_finite() | (pl.col("v0") < 1) | (pl.col("v0") != pl.col("v0").floor()) \
            | (pl.col("v0") >= 2.0 ** 62)  # no evaluation count: the store's int64 could not hold it
        rows = rows.with_columns(bad=unread | count, unread=unread)
        for ln, n, ev, no in rows.filter("bad").select("lineno", "n", "v0", "unread").head(200).rows():
            what = "truncated record" if n < len(names) else "malformed record (a value that is not a number)"
            if not no:
                what = f"malformed record (evaluation count {ev:g} is not a whole number from 1 to 2^62)"
            problems.append(Problem(path, ln, what, "line skipped"))
        good = rows.filter(~pl.col("bad"))
        parts.append(good.select(
            "section", "lineno", evaluations=pl.col("v0").cast(pl.Int64), raw_y=f"v{raw}",
            names=pl.lit([names[i] for i in extra], pl.List(pl.String)),
            values=pl.concat_list([pl.col(f"v{i}").fill_nan(None) for i in extra])
            if extra else pl.lit([], pl.List(pl.Float64)),
        ))
    return pl.concat(parts)


def parse_ioh(src: Source, algorithm: str | None = None, optimum: float | None = None) -> Parsed:
    """Parse a source's IOHprofiler logs into `runs`, `events` and `params` (`Parsed.params`) frames."""
    problems: list[Problem] = []
    meta, announced, unread, named = _metadata(src, algorithm, problems, optimum)
    unreadable = {posixpath.dirname(p.file) for p in problems if p.file.lower().endswith(".json")
                  and p.action == "file skipped"}  # their .dat are not orphans: the json says why they are skipped
    problems += [p for p in orphans(src, named)
                 if not any(d == "" or p.file.startswith(d + "/") for d in unreadable)]
    recs, found = [], {}
    for dat in announced:
        r = _records(src, dat, problems)
        found[dat] = nsec = int(r["section"].max()) + 1 if r.height else 0
        if nsec > announced[dat]:
            problems.append(Problem(dat, None, f"{plural(nsec, 'run')} in the data file but {announced[dat]} in the json",
                                    f"{plural(nsec - announced[dat], 'unannounced run')} ignored"))
        recs.append(r.with_columns(data_file=pl.lit(dat)))
    meta, beyond = _within_data(meta, announced, found, problems)
    return assemble(src, meta, recs, problems, unread + beyond, SEQ_OFFSET, algorithm)


def _within_data(meta: list[tuple], announced: dict[str, int], found: dict[str, int], problems: list[Problem]
                 ) -> tuple[list[tuple], int]:
    """The runs announced that their data file holds a section for; the others named once per data file (a
    json announcing a million runs for a .dat of three: one line, not 999 997) and counted."""
    over = {dat: found.get(dat, 0) for dat, n in announced.items() if n > found.get(dat, 0)}
    if not over:
        return meta, 0
    info, line, data, section = 1, 2, 3, 4  # the columns of `_RUN_SCHEMA` rows
    kept = [m for m in meta if m[data] not in over or m[section] < over[m[data]]]
    for dat, nsec in over.items():
        first = next(m for m in meta if m[data] == dat and m[section] >= nsec)
        gone = sum(1 for m in meta if m[data] == dat and m[section] >= nsec)
        problems.append(Problem(first[info], first[line], f"{plural(announced[dat], 'run')} announced for {dat}, which "
                                f"holds {plural(nsec, 'run')}", f"{plural(gone, 'run')} without records skipped"))
    return kept, len(meta) - len(kept)


def assemble(src: Source, meta: list[tuple], recs: list[pl.DataFrame], problems: list[Problem], unread: int,
             offset: int, algorithm: str | None = None) -> Parsed:
    """The Parsed runs, events and params of IOHprofiler runs (rows of `_RUN_SCHEMA`) and their records
    (`_records` frames with `data_file`); run ids from `offset` on within the source."""
    runs = pl.DataFrame(meta, schema=_RUN_SCHEMA, orient="row")
    recs = pl.concat(recs) if recs else _records_empty()
    key = run_key(src.source_id, algorithm)
    runs = runs.with_columns(run_id=pl.lit(key, pl.Int64) * (1 << 24) + offset + pl.col("seq"))
    recs = recs.join(runs.select("data_file", "section", "run_id", "maximize", "optimum"), on=["data_file", "section"],
                     how="inner", maintain_order="left").sort("run_id", "evaluations", "lineno", maintain_order=True)
    delta = pl.when("maximize").then(pl.col("optimum") - pl.col("raw_y")).otherwise(pl.col("raw_y") - pl.col("optimum"))
    # oriented value: -inf is impossible (better than any optimum), +inf the worst ("no value yet", as IOHinspector
    # fills a run before its first record, and as `cocopipe export` writes at evaluation 1): left out unnamed
    signed = pl.when("maximize").then(-pl.col("raw_y")).otherwise(pl.col("raw_y"))
    impossible = pl.col("raw_y").is_nan() | (signed == -math.inf) | (delta < 0).fill_null(False)
    named = recs.filter(impossible).select("data_file", "lineno", "raw_y", "optimum")
    for dfile, ln, y, opt in named.head(200).rows():
        what = (f"raw_y {y} is beyond the optimum {opt:g}" if opt is not None and math.isfinite(y)
                else f"raw_y {y} is not a possible value")
        problems.append(Problem(dfile, ln, what, "record left out of the measures"))
    recs = recs.filter(~impossible & (signed != math.inf)).with_columns(best_delta=delta.cum_min().over("run_id"))
    agg = recs.group_by("run_id").agg(
        last_logged=pl.col("evaluations").max(), final_delta=pl.col("best_delta").min(), nrec=pl.len(),
        hit=pl.col("evaluations").filter(reached(pl.col("best_delta"), PRECISION)).min())
    runs = runs.join(agg, on="run_id", how="left")
    empty_runs = runs.filter(pl.col("nrec").is_null())
    for info, line, f, d, inst, dfile, sec in empty_runs.select(
            "info_file", "info_line", "function", "dimension", "instance", "data_file", "section").rows():
        problems.append(Problem(info, line, f"run {sec + 1} (f{f}, {d}-D, instance {inst}) has no records in {dfile}",
                                "run skipped"))
    runs = runs.filter(pl.col("nrec").is_not_null())
    lines = runs.select("run_id", "info_line")
    known = pl.col("optimum").is_not_null()
    last = pl.max_horizontal("last_logged", "info_evaluations")
    runs = runs.with_columns(
        trial=pl.int_range(pl.len()).over("algorithm", "suite", "function", "dimension").cast(pl.Int32),
        evaluations=pl.coalesce("hit", last).cast(pl.Int64), last_evaluation=last.cast(pl.Int64),
        g_evaluations=pl.lit(0, pl.Int64), finalized=pl.lit(True),
        inconsistent_records=pl.lit(0, pl.Int32),  # best_delta is the running minimum of raw_y: never rises
        info_final_delta=pl.when("maximize").then(pl.col("optimum") - pl.col("best_y"))
        .otherwise(pl.col("best_y") - pl.col("optimum")),
        precision=pl.when(known).then(pl.lit(PRECISION)), reference_value="optimum", indicator=pl.lit(None, pl.String),
        data_format=pl.lit(FORMAT), coco_version=pl.lit(None, pl.String), source=pl.lit(src.name),
        source_id=pl.lit(src.source_id),
    ).select(list(store_schema.polars_schema("runs"))).sort("suite", "algorithm", "function", "dimension", "trial")
    names = runs.select("run_id", "suite", "algorithm")
    recs = recs.join(names, on="run_id", how="inner", maintain_order="left")
    events = recs.select("suite", "algorithm", "run_id", "evaluations", g_evaluations=pl.lit(0, pl.Int64),
                         best_delta="best_delta", measured="raw_y", trigger=pl.lit(3, pl.Int8))
    params = (recs.filter(pl.col("names").list.len() > 0)
              .select("suite", "algorithm", "run_id", "evaluations", "names", "values")
              .explode("names", "values").rename({"names": "name", "values": "value"}))
    trials = duplicates.trials(runs, events, lines)  # for the duplicates in other sources
    return Parsed(runs, events, problems, runs_skipped=empty_runs.height + unread, trials=trials, params=params)


def _empty_runs() -> pl.DataFrame:
    return _empty("runs")


def _empty_events() -> pl.DataFrame:
    return _empty("events")


def _records_empty() -> pl.DataFrame:
    return pl.DataFrame(schema={"section": pl.Int64, "lineno": pl.Int64, "evaluations": pl.Int64, "raw_y": pl.Float64,
                                "names": pl.List(pl.String), "values": pl.List(pl.Float64), "data_file": pl.String})


# -- the layout of ioh < 0.3: .info index files with .dat/.cdat/.idat/.tdat -------------------------------------
#: the data files of ioh < 0.3 beside a run's .dat (every evaluation, every interval, time or target points)
OLD_SUFFIXES = (".dat", ".cdat", ".idat", ".tdat")
_OLD_SEQ_OFFSET = SEQ_OFFSET + (1 << 22)
_KEY_VALUE = re.compile(r"""(\w+)\s*=\s*('[^']*'|"[^"]*"|[^,]*)""")


def _old_data(src: Source, dat: str) -> list[str]:
    """The files of ioh < 0.3 holding a .dat's runs: the .dat, .cdat, .idat and .tdat of its stem present."""
    stem = dat[: -len(posixpath.splitext(dat)[1])] if posixpath.splitext(dat)[1] else dat
    return [stem + x for x in OLD_SUFFIXES if stem + x in src.files]


def _is_old(src: Source, path: str) -> bool:
    return _starts(src, path, b'"function evaluation')


def old_info_files(src: Source) -> dict[str, list[str]]:
    """The .info files of ioh < 0.3 in a source and the data files each names (its runs' .dat/.cdat/...)."""
    out: dict[str, list[str]] = {}
    for info in sorted(p for p in src.files if p.lower().endswith(".info")):
        text = _text(src.files[info])
        found = []
        for line in text.replace("\r", "").split("\n")[2::3]:
            first = line.split(",")[0].strip().replace("\\", "/")
            if not first:
                continue
            dat = posixpath.normpath(posixpath.join(posixpath.dirname(info), first))
            found += [f for f in _old_data(src, dat) if _is_old(src, f)]
        if found:
            out[info] = sorted(set(found))
    return out


def _old_metadata(src: Source, info: str, algorithm: str | None, problems: list[Problem], seq0: int,
                  given: float | None = None, announced: dict[str, list[str]] | None = None,
                  sections: dict[str, int] | None = None) -> tuple[list[tuple], list[pl.DataFrame], int]:
    """The runs an .info of ioh < 0.3 announces (rows of `_RUN_SCHEMA`), their records read from every data file
    of each run (.dat, .cdat, .idat, .tdat merged by evaluations), and how many runs cannot be read. Blocks naming
    a .dat named before (ioh's `ioh_data.zip`: one block per logger session, all appending to one .dat) take its
    next sections: `announced` holds, per .dat, the .info of each run announced so far; `sections` the
    sections found in each data file read (its records are read once)."""
    announced = {} if announced is None else announced
    sections = {} if sections is None else sections
    lines = _text(src.files[info]).replace("\r", "").split("\n")
    runs: list[tuple] = []
    recs: list[pl.DataFrame] = []
    unread = 0
    for b in range(0, len(lines) - 2, 3):
        head, comment, entries = lines[b], lines[b + 1], [e.strip() for e in lines[b + 2].split(",")]
        if not head.strip():
            continue
        kv = {k: v.strip().strip("'\"") for k, v in _KEY_VALUE.findall(head)}
        try:
            function, dimension = _int32(kv["funcId"]), _int32(kv["DIM"])
        except (KeyError, ValueError, OverflowError):
            problems.append(Problem(info, b + 1, f"funcId or DIM missing or not a number in {head[:60]!r}",
                                    f"{plural(max(len(entries) - 1, 0), 'run')} skipped"))
            unread += max(len(entries) - 1, 0)
            continue
        suite = suite_name(kv.get("suite") or "unknown_suite")
        stated = kv.get("maximization", kv.get("Maximization"))
        maximize = (stated.lower() == "true") if stated else "bbob" not in suite.lower()  # IOHanalyzer's guess
        name = algorithm or kv.get("algId") or src.name
        dat = posixpath.normpath(posixpath.join(posixpath.dirname(info), entries[0].replace("\\", "/")))
        files = _old_data(src, dat)
        if not files:
            problems.append(Problem(info, b + 3, f"data file {entries[0]} not found",
                                    f"{plural(len(entries) - 1, 'run')} of f{function} {dimension}-D skipped"))
            unread += len(entries) - 1
            continue
        first = len(announced.setdefault(dat, []))  # the sections of earlier blocks naming this .dat
        announced[dat] += [info] * (len(entries) - 1)
        if first == 0:
            parts = []
            for f in files:
                r = _records(src, f, problems)
                parts.append(r)
                sections[f] = int(r["section"].max()) + 1 if r.height else 0
            merged = (pl.concat(parts).sort("section", "evaluations", "lineno")
                      .unique(["section", "evaluations"], keep="first", maintain_order=True))
            recs.append(merged.with_columns(data_file=pl.lit(dat)))
        for k, entry in enumerate(entries[1:], start=first):
            m = re.fullmatch(r"(-?\d{1,10}):(\d{1,18})\|(\S+?)(;.*)?", entry)
            if not m or not _fits32(int(m.group(1))):
                problems.append(Problem(info, b + 3, f"unreadable run entry {entry[:40]!r}", "run skipped"))
                unread += 1
                continue
            # the .info's final value is `best af(x)+b`, transformed by the instance: not a raw value
            best_y = None
            opt = known_optimum(suite, function, dimension, maximize, None, given)
            runs.append((seq0 + len(runs), info, b + 3, dat, k, suite, name, function, kv.get("funcName"), dimension,
                         _int32(m.group(1)), maximize, int(m.group(2)), best_y, opt, comment.lstrip("% ").strip() or
                         kv.get("algInfo"), None))
    return runs, recs, unread


def parse_old(src: Source, infos: dict[str, list[str]], algorithm: str | None = None,
              optimum: float | None = None) -> Parsed:
    """Parse the IOHprofiler logs of ioh < 0.3 (.info with .dat/.cdat/.idat/.tdat) of a source."""
    problems: list[Problem] = []
    meta, recs, unread = [], [], 0
    announced: dict[str, list[str]] = {}
    sections: dict[str, int] = {}
    for info in infos:
        m, r, u = _old_metadata(src, info, algorithm, problems, len(meta), optimum, announced, sections)
        meta += m
        recs += r
        unread += u
    for dat, named in announced.items():
        for f in _old_data(src, dat):
            nsec = sections.get(f, 0)
            if nsec > len(named):
                problems.append(Problem(f, None, f"{nsec} runs in the data file but {len(named)} in "
                                        f"{', '.join(dict.fromkeys(named))}",
                                        f"{plural(nsec - len(named), 'unannounced run')} ignored"))
    return assemble(src, meta, recs, problems, unread, _OLD_SEQ_OFFSET, algorithm)
