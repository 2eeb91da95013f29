"""Readers for COCO raw logs of every generation: .info index files, .dat/.tdat records.

Formats (cocopp `dataformatsettings`): `bbob-old` (2009-2015: evaluations | f-fopt | best f-fopt |
measured | best measured | x...), `bbob-new` / `bbob-new2` (f evaluations | g evaluations | best
f-fopt (+ sum g+) | measured | ...), `bbob-biobj` (evaluations | indicator - reference | target hit),
and reference-algorithm sets (`% algorithm type = best`, three trailing fields per record).
All data files of a source are parsed together in one Polars pass.
"""
from __future__ import annotations

import io
import posixpath
import re
from dataclasses import dataclass, field

import numpy as np
import polars as pl

from ..conventions import reached
from .sources import Source

_KV = re.compile(r"\s*([A-Za-z_][\w ]*?)\s*=\s*('[^']*'|\"[^\"]*\"|[^,]*)\s*(?:,|$)")
_RUN = re.compile(r"^(-?\d+)(?::\s*([-+.\deEinfINFaN]+)\s*\|\s*([-+.\deEinfINFaN]+))?$")
NEW_FORMATS = ("bbob-new", "bbob-new2")


@dataclass
class Problem:
    """Something wrong in the input, where it is, and what was done about it."""

    file: str
    line: int | None
    message: str
    action: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.message} ({self.action})"


@dataclass
class Parsed:
    """Runs and events of one source, with the problems met."""

    runs: pl.DataFrame
    events: pl.DataFrame
    problems: list[Problem] = field(default_factory=list)
    runs_skipped: int = 0


def _decode(b: bytes) -> str:
    return b.decode("utf-8", errors="replace")


def parse_header(line: str) -> dict[str, str]:
    """Key/value pairs of an .info header line (quotes stripped)."""
    out = {}
    for m in _KV.finditer(line):
        v = m.group(2).strip()
        if len(v) >= 2 and v[0] == v[-1] and v[0] in "'\"":
            v = v[1:-1]
        out[m.group(1).strip()] = v
    return out


def _num(s: str | None) -> float | None:
    if s is None:
        return None
    try:
        return float(s)
    except ValueError:
        return None


def _resolve(src: Source, info_path: str, name: str, folder: str) -> str | None:
    """Path of a data file named in an .info entry, relative to the source root."""
    name = name.replace("\\", "/").strip()
    base = posixpath.dirname(info_path)
    cands = [posixpath.normpath(posixpath.join(base, folder, name))] if folder else []
    cands.append(posixpath.normpath(posixpath.join(base, name)))
    for c in cands:
        if c in src.files:
            return c
    # data split over folders: the same file name elsewhere in the source
    leaf = posixpath.basename(name)
    hits = [p for p in src.files if posixpath.basename(p) == leaf]
    if len(hits) == 1:
        return hits[0]
    lowered = {p.lower(): p for p in src.files}
    for c in cands:
        if c.lower() in lowered:
            return lowered[c.lower()]
    return None


def _infer_suite(header: dict, function: int) -> str:
    if header.get("suite"):
        return header["suite"]
    if header.get("indicator"):
        return "bbob-biobj"
    return "bbob-noisy" if function > 100 else "bbob"


def parse_info(src: Source, problems: list[Problem]) -> list[dict]:
    """One dict per trial announced by the source's .info files, in file order."""
    trials: list[dict] = []
    for info in src.info_files():
        text = _decode(src.files[info])
        lines = text.splitlines()
        if not any(line.strip() for line in lines):
            problems.append(Problem(info, None, "empty .info file", "skipped"))
            continue
        header: dict | None = None
        header_line = 0
        comment = None
        for lineno, raw in enumerate(lines, 1):
            line = raw.strip()
            if not line:
                continue
            if line.startswith("%"):
                comment = line[1:].strip()
                continue
            parts = [p.strip() for p in line.split(",")]
            datafile = next((p for p in parts if p.lower().endswith("dat") and "=" not in p), None)
            if datafile is None:
                header = parse_header(line)
                header_line = lineno
                comment = None
                if not header:
                    problems.append(Problem(info, lineno, "unreadable .info line", "line skipped"))
                continue
            if header is None:
                problems.append(Problem(info, lineno, "data line before any header line", "entry skipped"))
                continue
            entry = dict(header)
            entry.update(parse_header(", ".join(p for p in parts if "=" in p)))
            try:
                function = int(entry.get("funcId", entry.get("function", "")).strip())
                dimension = int(entry.get("DIM", entry.get("dim", "")).strip())
            except ValueError:
                problems.append(Problem(info, lineno, "entry without function or dimension", "entry skipped"))
                continue
            algorithm = entry.get("algId") or entry.get("algorithm") or src.name
            suite = _infer_suite(entry, function)
            datapath = _resolve(src, info, datafile, entry.get("folder", ""))
            runs = [p for p in parts if p and "=" not in p and p is not datafile and not p.lower().endswith("dat")]
            if datapath is None:
                problems.append(Problem(info, lineno, f"data file {datafile} not found",
                                        f"{len(runs)} run(s) of f{function} {dimension}-D skipped"))
                continue
            for r in runs:
                m = _RUN.match(r.replace(" ", ""))
                if not m:
                    problems.append(Problem(info, lineno, f"unreadable run entry {r!r}", "run skipped"))
                    continue
                finalized = m.group(2) is not None
                ev = _num(m.group(2))
                trials.append(dict(
                    info_file=info, info_line=lineno, header_line=header_line, data_file=datapath,
                    algorithm=algorithm, suite=suite, function=function, dimension=dimension,
                    instance=int(m.group(1)), finalized=finalized,
                    info_evaluations=int(ev) if ev is not None and ev == ev and abs(ev) != float("inf") else None,
                    info_final_delta=_num(m.group(3)),
                    precision=_num(entry.get("Precision")), indicator=entry.get("indicator") or None,
                    data_format=entry.get("data_format") or ("bbob-biobj" if entry.get("indicator") else "bbob-old"),
                    coco_version=entry.get("coco_version") or None, comment=comment,
                ))
    return trials


def _read_lines(src: Source, paths: list[str]) -> pl.DataFrame:
    """All lines of the given files as one frame: file index, line number, text."""
    chunks, starts, n = [], [], 0
    for p in paths:
        b = src.files[p]
        if b and not b.endswith(b"\n"):
            b += b"\n"
        chunks.append(b)
        starts.append(n)
        n += b.count(b"\n")
    if n == 0:
        return pl.DataFrame(schema={"file": pl.Int32, "lineno": pl.Int64, "text": pl.String})
    df = pl.read_csv(io.BytesIO(b"".join(chunks)), has_header=False, separator="\x1f", quote_char=None,
                     new_columns=["text"], schema={"text": pl.String}, encoding="utf8-lossy")
    counts = np.diff(np.append(starts, n))
    if df.height != n:
        raise ValueError(f"line count mismatch reading {len(paths)} data files ({df.height} != {n})")
    file_idx = np.repeat(np.arange(len(paths), dtype=np.int32), counts)
    lineno = np.arange(n, dtype=np.int64) - np.repeat(np.asarray(starts, dtype=np.int64), counts) + 1
    return pl.DataFrame({"file": file_idx, "lineno": lineno,
                         "text": df.get_column("text").fill_null("").str.strip_chars()})


def _records(lines: pl.DataFrame, kinds: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Split file lines into sections (one per trial) and parse them into header facts and records."""
    lines = lines.join(kinds, on="file", how="left")
    is_head = pl.col("text").str.starts_with("%")
    lines = lines.with_columns(
        section=((is_head & ~is_head.shift(1, fill_value=False).over("file")).cum_sum().over("file") - 1)
        .cast(pl.Int32),
        head=is_head,
    )
    heads = (
        lines.filter(pl.col("head"))
        .group_by("file", "section")
        .agg(
            fopt=pl.col("text").str.extract(r"Fopt \(([^)]*)\)").cast(pl.Float64, strict=False).drop_nulls().first(),
            refval=pl.col("text").str.extract(r"reference value\s*=\s*([-+.\deE]+)").cast(pl.Float64, strict=False)
            .drop_nulls().first(),
            data_instance=pl.col("text").str.extract(r"instance\s*=\s*(\d+)").cast(pl.Int32, strict=False)
            .drop_nulls().first(),
            best=pl.col("text").str.contains(r"algorithm type\s*=\s*best").any(),
        )
    )
    body = lines.filter(~pl.col("head") & (pl.col("text") != ""))
    text = pl.col("text").str.replace_all("\t", " ", literal=True)
    if body.select(text.str.contains("  ", literal=True).any()).item():
        text = text.str.replace_all(r"\s+", " ")
    fields = body.select(
        "file", "lineno", "section", "best_col", "g_col",
        parts=text.str.splitn(" ", 5), raw_n=text.str.count_matches(" ", literal=True) + 1,
    ).unnest("parts")
    fields = fields.join(heads.select("file", "section", "best"), on=["file", "section"], how="left")
    n = pl.col("raw_n") - pl.when(pl.col("best").fill_null(False)).then(3).otherwise(0)
    num = lambda i: pl.col(f"field_{i}").cast(pl.Float64, strict=False)  # noqa: E731
    recs = fields.select(
        "file", "lineno", "section",
        f_ev=num(0),
        g_ev=pl.when(pl.col("g_col")).then(num(1)).otherwise(0.0),
        best_delta=pl.when(pl.col("best_col") == 1).then(num(1)).otherwise(num(2)),
        measured=pl.when((pl.col("best_col") == 2) & (n >= 4) & ~pl.col("best").fill_null(False))
        .then(num(3)).otherwise(None),
        ntok=n,
        need=pl.when(pl.col("best_col") == 1).then(2).otherwise(3),
        # a record with fewer fields than the file's usual count was cut (a truncated file)
        short=pl.col("raw_n") < pl.col("raw_n").mode().first().over("file"),
    )
    return heads, recs


def parse_source(src: Source, algorithm: str | None = None) -> Parsed:
    """Parse one source into `runs` and `events` frames (store schema, partition keys included)."""
    problems: list[Problem] = []
    if not src.files:
        problems.append(Problem(src.path, None, "no COCO log files (.info/.dat/.tdat) found", "source skipped"))
        return Parsed(_empty("runs"), _empty("events"), problems)
    trials = parse_info(src, problems)
    if not src.info_files():
        problems.append(Problem(src.path, None, "no .info index file found", "source skipped"))
    if not trials:
        return Parsed(_empty("runs"), _empty("events"), problems)
    tr = pl.DataFrame(trials, infer_schema_length=None).with_columns(
        precision=pl.col("precision").cast(pl.Float64), info_final_delta=pl.col("info_final_delta").cast(pl.Float64),
        info_evaluations=pl.col("info_evaluations").cast(pl.Int64),
        indicator=pl.col("indicator").cast(pl.String), coco_version=pl.col("coco_version").cast(pl.String),
        comment=pl.col("comment").cast(pl.String),
    )
    if algorithm:
        tr = tr.with_columns(algorithm=pl.lit(algorithm))
    # trial k of a data file is its k-th section, in .info order
    tr = tr.with_row_index("seq").with_columns(
        section=pl.int_range(pl.len()).over("data_file").cast(pl.Int32),
        trial=pl.int_range(pl.len()).over("algorithm", "suite", "function", "dimension").cast(pl.Int32),
    )
    key = int(src.source_id[:8], 16) if src.source_id else 0
    tr = tr.with_columns(run_id=pl.lit(key, pl.Int64) * (1 << 24) + pl.col("seq").cast(pl.Int64))

    # the data files to read: each .dat and the .tdat beside it
    dats = tr.select("data_file", "data_format", "suite").unique("data_file", keep="first").rows()
    paths, kinds = [], []
    for dat, fmt, suite in dats:
        stem = dat.rsplit(".", 1)[0]
        for kind, ext in ((1, ".dat"), (2, ".tdat")):
            p = stem + ext
            if p in src.files:
                paths.append(p)
                kinds.append((len(paths) - 1, dat, kind, 1 if fmt == "bbob-biobj" else 2, fmt in NEW_FORMATS))
            elif ext == ".tdat":
                problems.append(Problem(p, None, "missing .tdat file", "runs read from the .dat file only"))
    kinds_df = pl.DataFrame(kinds, schema={"file": pl.Int32, "data_file": pl.String, "kind": pl.Int8,
                                           "best_col": pl.Int8, "g_col": pl.Boolean}, orient="row")
    lines = _read_lines(src, paths)
    heads, recs = _records(lines, kinds_df.select("file", "best_col", "g_col"))

    bad = recs.filter((pl.col("ntok") < pl.col("need")) | pl.col("short") | pl.col("f_ev").is_null() | pl.col("best_delta").is_null()
                      | pl.col("g_ev").is_null() | pl.col("best_delta").is_nan() | (pl.col("section") < 0))
    for f, ln, sec in bad.select("file", "lineno", "section").head(200).rows():
        problems.append(Problem(paths[f], ln, "data before any header" if sec < 0 else "malformed or truncated record",
                                "line skipped"))
    if bad.height > 200:
        problems.append(Problem(src.path, None, f"{bad.height - 200} more malformed records", "lines skipped"))
    recs = recs.join(bad.select("file", "lineno"), on=["file", "lineno"], how="anti")
    recs = recs.join(kinds_df.select("file", "data_file", "kind"), on="file")
    heads = heads.join(kinds_df.select("file", "data_file", "kind"), on="file")

    # attach records to trials
    ev = recs.join(tr.select("data_file", "section", "run_id"), on=["data_file", "section"], how="inner")
    events = (
        ev.with_columns(evaluations=(pl.col("f_ev") + pl.col("g_ev")))
        .group_by("run_id", "evaluations", "best_delta")
        .agg(g_evaluations=pl.col("g_ev").first(), measured=pl.col("measured").first(),
             trigger=pl.col("kind").unique().sum().cast(pl.Int8), lastline=pl.col("lineno").max(),
             last_kind=pl.col("kind").max())
        .sort("run_id", "evaluations", pl.col("best_delta"), descending=[False, False, True])
    )
    hd = heads.filter(pl.col("kind") == 1).select("data_file", "section", "fopt", "refval", "data_instance")
    hd_t = heads.filter(pl.col("kind") == 2).select("data_file", "section", fopt_t="fopt", refval_t="refval")
    tdat_last = (
        recs.filter(pl.col("kind") == 2).sort("lineno").group_by("data_file", "section")
        .agg(tdat_fg=(pl.col("f_ev") + pl.col("g_ev")).last())
    )
    precision_hit = (
        events.join(tr.select("run_id", "precision"), on="run_id")
        .filter(pl.col("precision").is_not_null() & reached(pl.col("best_delta"), pl.col("precision")))
        .group_by("run_id").agg(hit=pl.col("evaluations").min())
    )
    agg = events.group_by("run_id").agg(
        last_evaluation=pl.col("evaluations").max().cast(pl.Int64),
        final_delta=pl.col("best_delta").min(),
        g_evaluations=pl.col("g_evaluations").sort_by("evaluations").last().cast(pl.Int64),
        nrec=pl.len(),
    )
    runs = (
        tr.join(agg, on="run_id", how="left")
        .join(precision_hit, on="run_id", how="left")
        .join(hd, on=["data_file", "section"], how="left")
        .join(hd_t, on=["data_file", "section"], how="left")
        .join(tdat_last, on=["data_file", "section"], how="left")
    )
    missing = runs.filter(pl.col("nrec").is_null())
    for info, line, f, d, inst, dfile, sec in missing.select(
        "info_file", "info_line", "function", "dimension", "instance", "data_file", "section"
    ).rows():
        problems.append(Problem(info, line, f"run {sec + 1} (f{f}, {d}-D, instance {inst}) has no records in {dfile}",
                                "run skipped"))
    runs = runs.filter(pl.col("nrec").is_not_null())
    nsec = heads.filter(pl.col("kind") == 1).group_by("data_file").agg(n=pl.col("section").max() + 1)
    used = tr.group_by("data_file").agg(m=pl.len())
    for dfile, nn, m in nsec.join(used, on="data_file").filter(pl.col("n") > pl.col("m")).rows():
        problems.append(Problem(dfile, None, f"{nn} runs in the data file but {m} in the .info file",
                                f"{nn - m} unannounced run(s) ignored"))
    inst_mismatch = runs.filter(pl.col("data_instance").is_not_null() & (pl.col("data_instance") != pl.col("instance"))
                                & (pl.col("instance") != 0))
    for dfile, sec, a, b in inst_mismatch.select("data_file", "section", "instance", "data_instance").head(20).rows():
        problems.append(Problem(dfile, None, f"run {sec + 1}: .info says instance {a}, data header says {b}",
                                "kept with the .info instance"))

    biobj = pl.col("data_format") == "bbob-biobj"
    constrained = pl.col("suite") == "bbob-constrained"
    runs = runs.with_columns(
        evaluations=pl.when(constrained & pl.col("tdat_fg").is_not_null()).then(pl.col("tdat_fg").cast(pl.Int64))
        .when(~biobj & pl.col("hit").is_not_null()).then(pl.col("hit").cast(pl.Int64))
        .otherwise(pl.col("last_evaluation")),
        reference_value=pl.coalesce("fopt", "fopt_t", "refval", "refval_t"),
        source=pl.lit(src.name),
        source_id=pl.lit(src.source_id),
        info_evaluations=pl.col("info_evaluations").cast(pl.Int64),
        info_final_delta=pl.col("info_final_delta").cast(pl.Float64),
        precision=pl.col("precision").cast(pl.Float64),
        indicator=pl.col("indicator").cast(pl.String),
        coco_version=pl.col("coco_version").cast(pl.String),
        comment=pl.col("comment").cast(pl.String),
        function=pl.col("function").cast(pl.Int32),
        dimension=pl.col("dimension").cast(pl.Int32),
        instance=pl.col("instance").cast(pl.Int32),
    )
    keep = runs.select("run_id", "suite", "algorithm")
    events = events.join(keep, on="run_id").select(
        "suite", "algorithm", "run_id", pl.col("evaluations").cast(pl.Int64),
        pl.col("g_evaluations").cast(pl.Int64), "best_delta", "measured", "trigger",
    )
    from ..store import schema
    runs = runs.select(list(schema.polars_schema("runs"))).sort("suite", "algorithm", "function", "dimension", "trial")
    return Parsed(runs, events, problems, runs_skipped=missing.height)


def _empty(table: str) -> pl.DataFrame:
    from ..store import schema
    return pl.DataFrame(schema=schema.polars_schema(table))
