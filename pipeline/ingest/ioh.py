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
known optimum the run is kept with null precisions (raw-value measures only).

The IOHprofiler layout of ioh < 0.3 (`.info` with `.dat/.cdat/.idat/.tdat` whose header is
`"function evaluation" "current f(x)" ...`) is not read: `old_layout` finds it so it is named.
"""
from __future__ import annotations

import json
import math
import posixpath
import re

import polars as pl

from ..conventions import reached
from ..store import schema as store_schema
from .coco import Parsed, Problem, _decode
from .sources import Source

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


def json_files(src: Source) -> list[str]:
    """The IOHprofiler metadata files of a source (`IOHprofiler_*.json`), sorted."""
    return sorted(p for p in src.files if p.lower().endswith(".json")
                  and posixpath.basename(p).lower().startswith(JSON_PREFIX))


def old_layout(src: Source) -> str | None:
    """A data file of the IOHprofiler layout of ioh < 0.3 (quoted `"function evaluation"` header), if any."""
    for p in sorted(src.files):
        if p.lower().endswith(".dat") and bytes(src.view(p)[:24]).lstrip().startswith(b'"function evaluation'):
            return p
    return None


def data_files(src: Source) -> list[str]:
    """The IOHprofiler .dat files of a source (their first line is `evaluations raw_y ...`), sorted."""
    return sorted(p for p in src.files if p.lower().endswith(".dat")
                  and bytes(src.view(p)[:24]).lstrip().startswith(b"evaluations raw_y"))


def orphans(src: Source, announced) -> list[Problem]:
    """A problem per IOHprofiler .dat that no json names (ioh writes the json when the logger closes)."""
    return [Problem(p, None, "IOHprofiler data file without the IOHprofiler_*.json that names it "
                    "(the logger was not closed?)", "file skipped") for p in data_files(src) if p not in announced]


def suite_name(suite: str) -> str:
    """The store's name of an ioh suite (BBOB -> bbob, PBO -> pbo; others as they are)."""
    return SUITES.get(suite, suite)


def known_optimum(suite: str, function: int, dimension: int, maximize: bool, attribute) -> float | None:
    """The optimum in raw_y units, or None (see the module's docstring)."""
    if attribute is not None:
        try:
            return float(attribute)
        except (TypeError, ValueError):
            return None
    if suite == "bbob" and not maximize:
        return 0.0
    if suite == "pbo" and maximize and function in PBO_OPTIMUM_N:
        return float(dimension)
    return None


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


def _metadata(src: Source, algorithm: str | None, problems: list[Problem]
              ) -> tuple[list[tuple], dict[str, int], int]:
    """The runs the json files announce (rows of `_RUN_SCHEMA`), each data file's run count, and how
    many announced runs cannot be read (a scenario without its data file, an unreadable run entry)."""
    runs: list[tuple] = []
    announced: dict[str, int] = {}
    unread = 0
    for jpath in json_files(src):
        text = _decode(src.files[jpath])
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
            function = int(meta["function_id"])
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
            try:
                dimension = int(scen["dimension"])
            except (KeyError, TypeError, ValueError, OverflowError):
                problems.append(Problem(jpath, line, "scenario without a dimension", "scenario skipped"))
                continue
            if not isinstance(entries, list):
                problems.append(Problem(jpath, line, "scenario without runs", "scenario skipped"))
                continue
            dat = posixpath.normpath(posixpath.join(posixpath.dirname(jpath), path.replace("\\", "/")))
            if dat not in src.files:
                problems.append(Problem(jpath, line, f"data file {path} not found",
                                        f"{len(entries)} run(s) of f{function} {dimension}-D skipped"))
                unread += len(entries)
                continue
            first = announced.get(dat, 0)
            announced[dat] = first + len(entries)
            for k, run in enumerate(entries):
                try:
                    instance, evals = int(run["instance"]), int(run["evals"])
                    best = run.get("best") or {}
                    best_y = float(best["y"]) if best.get("y") is not None else None
                    best_x = [float(v) for v in best["x"]] if isinstance(best.get("x"), list) and best["x"] else None
                except (KeyError, TypeError, ValueError, OverflowError, AttributeError):
                    problems.append(Problem(jpath, line, f"unreadable run entry {k + 1} of {path}", "run skipped"))
                    unread += 1
                    continue
                opt = known_optimum(suite, function, dimension, maximize, run.get("optimum"))
                runs.append((len(runs), jpath, line, dat, first + k, suite, name, function, fname, dimension, instance,
                             maximize, evals, best_y, opt, info, best_x))
    return runs, announced, unread


def _records(src: Source, path: str, problems: list[Problem]) -> pl.DataFrame:
    """The records of one .dat: section (run within the file, 0-based), evaluations, raw_y and a
    struct-free long list of the other columns (name, value pairs) as `params`."""
    text = _decode(src.files[path]).replace("\r", "")
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
        names = header.split()
        if names[:2] != ["evaluations", "raw_y"]:
            problems.append(Problem(path, head_line, f"unknown header {header[:40]!r} (expected `evaluations raw_y ...`)",
                                    f"{len(secs)} run(s) skipped"))
            continue
        rows = body.filter(pl.col("section").is_in(secs))
        fields = pl.col("text").str.replace_all(r"\s+", " ").str.split(" ")
        rows = rows.with_columns(f=fields).with_columns(n=pl.col("f").list.len())
        vals = [pl.col("f").list.get(i, null_on_oob=True).str.replace(r"^-nan", "nan").cast(pl.Float64, strict=False)
                .alias(f"v{i}") for i in range(len(names))]
        rows = rows.with_columns(vals)
        malformed = (pl.col("n") != len(names)) \
            | pl.any_horizontal(pl.col(f"v{i}").is_null() for i in range(len(names))) \
            | ~pl.col("v0").is_finite() | (pl.col("v0") < 1) | (pl.col("v0") != pl.col("v0").floor())
        rows = rows.with_columns(bad=malformed)
        for ln, n in rows.filter("bad").select("lineno", "n").head(200).rows():
            what = "truncated record" if n < len(names) else "malformed record (a value that is not a number)"
            problems.append(Problem(path, ln, what, "line skipped"))
        good = rows.filter(~pl.col("bad"))
        parts.append(good.select(
            "section", "lineno", evaluations=pl.col("v0").cast(pl.Int64), raw_y="v1",
            names=pl.lit(names[2:], pl.List(pl.String)),
            values=pl.concat_list([pl.col(f"v{i}").fill_nan(None) for i in range(2, len(names))])
            if len(names) > 2 else pl.lit([], pl.List(pl.Float64)),
        ))
    return pl.concat(parts)


def parse_ioh(src: Source, algorithm: str | None = None) -> Parsed:
    """Parse a source's IOHprofiler logs into `runs`, `events` and `params` (`parsed.params`) frames."""
    problems: list[Problem] = []
    meta, announced, unread = _metadata(src, algorithm, problems)
    problems += orphans(src, announced)
    runs = pl.DataFrame(meta, schema=_RUN_SCHEMA, orient="row")
    recs = []
    for dat in announced:
        r = _records(src, dat, problems)
        nsec = int(r["section"].max()) + 1 if r.height else 0
        if nsec > announced[dat]:
            problems.append(Problem(dat, None, f"{nsec} runs in the data file but {announced[dat]} in the json",
                                    f"{nsec - announced[dat]} unannounced run(s) ignored"))
        recs.append(r.with_columns(data_file=pl.lit(dat)))
    recs = pl.concat(recs) if recs else _records_empty()
    key = int(src.source_id[:8], 16) if src.source_id else 0
    runs = runs.with_columns(run_id=pl.lit(key, pl.Int64) * (1 << 24) + SEQ_OFFSET + pl.col("seq"))
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
    parsed = Parsed(runs, events, problems, runs_skipped=empty_runs.height + unread)
    parsed.params = params
    return parsed


def _records_empty() -> pl.DataFrame:
    return pl.DataFrame(schema={"section": pl.Int64, "lineno": pl.Int64, "evaluations": pl.Int64, "raw_y": pl.Float64,
                                "names": pl.List(pl.String), "values": pl.List(pl.Float64), "data_file": pl.String})


def parse_with(coco: Parsed | None, src: Source, algorithm: str | None = None) -> Parsed:
    """`coco` (a source's COCO logs, parsed) with the source's IOHprofiler logs added; an IOHprofiler
    layout of ioh < 0.3 named as unsupported."""
    old = old_layout(src)
    if coco is not None and old is not None and not coco.runs.height:
        coco.problems[:] = [p for p in coco.problems if p.message != "no .info index file found"]
        coco.problems.append(Problem(old, 1, "IOHprofiler layout of ioh < 0.3 (.info with .dat/.cdat/.idat) "
                                     "is not supported: log with ioh >= 0.3 (json metadata)", "file skipped"))
    if coco is not None and not src.files:
        coco.problems[:] = [Problem(p.file, p.line, "no COCO (.info/.dat/.tdat) or IOHprofiler (IOHprofiler_*.json "
                                    "with its .dat) log files found", p.action)
                            if p.message.startswith("no COCO log files") else p for p in coco.problems]
    if not json_files(src):
        lost = orphans(src, ())
        if coco is not None and lost:
            if not coco.runs.height:
                coco.problems[:] = [p for p in coco.problems if p.message != "no .info index file found"]
            coco.problems.extend(lost)
        return coco
    ioh = parse_ioh(src, algorithm)
    if coco is None:
        return ioh
    parsed = Parsed(pl.concat([coco.runs, ioh.runs]), pl.concat([coco.events, ioh.events]),
                    coco.problems + ioh.problems, coco.runs_skipped + ioh.runs_skipped)
    parsed.archive, parsed.params = getattr(coco, "archive", None), ioh.params
    return parsed
