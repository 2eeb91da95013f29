"""Reader for bbob-biobj archive files (`archive/*_nondom_{all,final}.adat`) into the `archive` table.

An .adat file holds one section per trial, each opened by `% instance = I, name = P1__P2` and a
column line `% function evaluation | 2 objectives | n variables`, then one record per solution:
evaluation, the two objective values, optionally the n variables; COCO 2.x closes a section with
`% evaluations = N`. Older loggers wrote one file per function and dimension (`_fNN_dNN_`) with
the sections of all instances appended; newer ones one file per instance (`_fNN_iNN_dNN_`).
The k-th section of a (function, dimension, instance) belongs to the k-th trial of that problem in
.info order, within the experiment folder that holds the `archive/` folder.
"""
from __future__ import annotations

import posixpath
import re

import numpy as np
import polars as pl

from ..store import schema as store_schema
from .coco import Problem
from .sources import Source

_NAME = re.compile(r"(?P<suite>[\w-]+?)_f(?P<f>\d+)(?:_i(?P<i>\d+))?_d(?P<d>\d+)_nondom_(?P<mode>all|final|read)\.adat$",
                   re.IGNORECASE)
_MAX_REPORTED = 200


def archive_files(src: Source) -> list[str]:
    """The .adat files of a source, sorted."""
    return sorted(p for p in src.files if p.lower().endswith(".adat"))


def _read_lines(src: Source, paths: list[str]) -> pl.DataFrame:
    """All lines of the given files: file index, line number (1-based), stripped text."""
    texts = [src.files[p].decode("utf-8", errors="replace").splitlines() for p in paths]
    counts = [len(t) for t in texts]
    return pl.DataFrame({
        "file": np.repeat(np.arange(len(paths), dtype=np.int32), counts),
        "lineno": np.concatenate([np.arange(1, c + 1, dtype=np.int64) for c in counts]) if paths else [],
        "text": [line for t in texts for line in t],
    }, schema={"file": pl.Int32, "lineno": pl.Int64, "text": pl.String}).with_columns(pl.col("text").str.strip_chars())


def _empty() -> pl.DataFrame:
    return pl.DataFrame(schema=store_schema.polars_schema("archive"))


def _root(path: str) -> str:
    """The experiment folder of an .adat file: the parent of its `archive/` folder."""
    folder = posixpath.dirname(path)
    return posixpath.dirname(folder) if posixpath.basename(folder).lower() == "archive" else folder


def _matched_sections(heads: pl.DataFrame, files: pl.DataFrame, runs: pl.DataFrame, problems: list[Problem]
                      ) -> pl.DataFrame:
    """The archive sections attached to their trials: the k-th section of (root, function, dimension,
    instance) is the k-th trial; a section without its trial is a problem."""
    secs = (
        heads.join(files, on="file")
        .sort("archive_file", "lineno")
        .with_columns(occurrence=pl.int_range(pl.len()).over("root", "function", "dimension", "instance"))
    )
    tr = (
        runs.select("run_id", "suite", "algorithm", "function", "dimension", "instance", "info_file")
        .with_columns(root=pl.col("info_file").str.replace(r"/?[^/]*$", ""))  # posixpath.dirname
        .sort("run_id")
        .with_columns(occurrence=pl.int_range(pl.len()).over("root", "function", "dimension", "instance"))
    )
    matched = secs.join(tr.drop("info_file"), on=["root", "function", "dimension", "instance", "occurrence"],
                        how="left")
    for p, ln, f, d, i in matched.filter(pl.col("run_id").is_null()).select(
            "archive_file", "lineno", "function", "dimension", "instance").rows():
        problems.append(Problem(p, ln, f"archive of f{f} {d}-D instance {i} has no matching trial in the .info files",
                                "section skipped"))
    return matched.filter(pl.col("run_id").is_not_null())


def parse_archives(src: Source, runs: pl.DataFrame, problems: list[Problem]) -> pl.DataFrame:
    """Parse every .adat file of a source into `archive` rows attached to the source's runs.

    Malformed records and sections without a matching trial are reported in `problems` (file and
    line) and skipped; everything readable is kept."""
    paths = archive_files(src)
    if not paths or runs.height == 0:
        return _empty()
    meta = []
    for k, p in enumerate(paths):
        m = _NAME.search(posixpath.basename(p))
        if m is None:
            problems.append(Problem(p, None, "archive file name is not <suite>_fNN[_iNN]_dNN_nondom_<mode>.adat",
                                    "file skipped"))
            continue
        meta.append((k, p, m["suite"], int(m["f"]), int(m["d"]), m["mode"].lower(), _root(p)))
    if not meta:
        return _empty()
    files = pl.DataFrame(meta, schema={"file": pl.Int32, "archive_file": pl.String, "file_suite": pl.String,
                                       "function": pl.Int32, "dimension": pl.Int32, "mode": pl.String,
                                       "root": pl.String}, orient="row")
    lines = _read_lines(src, [p for _, p, *_ in meta]).with_columns(
        file=pl.col("file").replace_strict(list(range(len(meta))), [k for k, *_ in meta], return_dtype=pl.Int32))
    text = pl.col("text")
    is_head = text.str.starts_with("%")
    opens = text.str.contains(r"^%\s*instance\s*=")
    lines = lines.with_columns(section=(opens.cast(pl.Int32).cum_sum().over("file") - 1).cast(pl.Int32), head=is_head)
    heads = (
        lines.filter(opens)
        .select("file", "section", "lineno",
                instance=text.str.extract(r"instance\s*=\s*(\d+)").cast(pl.Int32, strict=False),
                problem=text.str.extract(r"name\s*=\s*(\S+)"))
    )
    for f, ln in heads.filter(pl.col("instance").is_null()).select("file", "lineno").rows():
        problems.append(Problem(paths[f], ln, "archive header without an instance number", "section skipped"))
    heads = heads.filter(pl.col("instance").is_not_null()).with_columns(pl.col("problem").fill_null(""))

    body = lines.filter(~pl.col("head") & (text != ""))
    toks = body.select("file", "lineno", "section", parts=text.str.replace_all(r"\s+", " ").str.strip_chars()
                       .str.split(" ").list.eval(pl.element().cast(pl.Float64, strict=False)))
    recs = toks.with_columns(
        n=pl.col("parts").list.len(),
        bad_num=pl.col("parts").list.eval(pl.element().is_null() | pl.element().is_nan()).list.any(),
    ).join(files.select("file", "dimension"), on="file")
    recs = recs.join(heads.select("file", "section", "instance", "problem"), on=["file", "section"], how="left")
    ev = pl.col("parts").list.get(0, null_on_oob=True)
    bad = recs.filter((pl.col("section") < 0) | pl.col("instance").is_null() | (pl.col("n") < 3) | pl.col("bad_num")
                      | ~((pl.col("n") == 3) | (pl.col("n") == 3 + pl.col("dimension")))
                      | (ev < 1) | (ev != ev.floor()))
    for f, ln, sec, _n in bad.select("file", "lineno", "section", "n").head(_MAX_REPORTED).rows():
        why = "record before any archive header" if sec < 0 else "malformed archive record"
        problems.append(Problem(paths[f], ln, why, "line skipped"))
    if bad.height > _MAX_REPORTED:
        problems.append(Problem(src.path, None, f"{bad.height - _MAX_REPORTED} more malformed archive records",
                                "lines skipped"))
    recs = recs.join(bad.select("file", "lineno"), on=["file", "lineno"], how="anti")

    matched = _matched_sections(heads, files, runs, problems)
    out = recs.join(matched.select("file", "section", "run_id", "suite", "algorithm", "mode", "archive_file"),
                    on=["file", "section"], how="inner")
    return out.select(
        "suite", "algorithm", "run_id",
        evaluations=ev.cast(pl.Int64),
        f1=pl.col("parts").list.get(1),
        f2=pl.col("parts").list.get(2),
        x=pl.when(pl.col("n") > 3).then(pl.col("parts").list.slice(3)).otherwise(None),
        problem="problem", mode="mode", archive_file="archive_file", line=pl.col("lineno").cast(pl.Int64),
    ).sort("run_id", "line")
