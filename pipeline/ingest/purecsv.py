"""IOHanalyzer's plain CSV (`read_pure_csv`, IOHanalyzer 0.1.8.11 R/readFiles.R): one row per record of a run,
read with IOHanalyzer's own column names, the names its `read_pure_csv` gives the columns the user picks:

- `fval` the record's value (required; minimised), `neval` its evaluation count (absent: 1, 2, 3, ... within
  each run, in file order, as IOHanalyzer imputes it);
- `fname` the function, `algname` the algorithm, `dim` the dimension, `run` the run: the records of one
  (fname, algname, dim, run) are one run; absent, IOHanalyzer's upload page's static defaults: function
  "Fname", algorithm "Alg1", dimension 2, a single run per (function, algorithm, dimension).

A .csv file is this format when its header names `fval` and it is not Nevergrad's. In the store: suite
"custom" (IOHanalyzer's suite "Custom"), instance 1, the function number `fname` itself where it is a positive
integer, else a stable code of the name (`nevergrad.function_code`), data_format "csv", no known optimum
(measures of raw values). A row that cannot be read (a value that is not a number, an evaluation count or
dimension that is not a positive integer, an empty name or run) is named with its line and left out; the
others are kept.
"""
from __future__ import annotations

import io
from collections.abc import Sequence

import polars as pl

from .ioh import _records_empty, assemble
from .nevergrad import OFFSET as NEVERGRAD_OFFSET
from .nevergrad import TABLE_SUFFIX, function_code, header
from .nevergrad import files as nevergrad_files
from .parsed import Parsed, Problem
from .sources import Source

SUITE = "custom"
FORMAT = "csv"
#: IOHanalyzer's column names (read_pure_csv's after renaming) and the static defaults of its upload page
VALUE, EVALUATIONS, FUNCTION, ALGORITHM, DIMENSION, RUN = "fval", "neval", "fname", "algname", "dim", "run"
DEFAULTS = {FUNCTION: "Fname", ALGORITHM: "Alg1", DIMENSION: "2", RUN: "1"}
#: run numbers of plain CSV runs within a source start here (above Nevergrad's)
OFFSET = NEVERGRAD_OFFSET + (1 << 20)
_INT_LIMIT = 2 ** 31


def files(src: Source) -> list[str]:
    """The plain CSV files of a source (.csv files whose header names `fval`, Nevergrad's excepted), sorted."""
    theirs = set(nevergrad_files(src))
    return [p for p in sorted(src.files)
            if p.lower().endswith(TABLE_SUFFIX) and p not in theirs and VALUE in header(src, p)]


def _table(src: Source, path: str, problems: list[Problem]) -> pl.DataFrame | None:
    """The rows of one file as text with their line numbers and every column of the format but `neval` (absent:
    defaults)."""
    try:
        table = pl.read_csv(io.BytesIO(bytes(src.view(path))), infer_schema=False, truncate_ragged_lines=True)
    except (pl.exceptions.PolarsError, UnicodeDecodeError) as exc:
        problems.append(Problem(path, None, f"not a readable CSV file ({str(exc).splitlines()[0]})", "file skipped"))
        return None
    table = table.rename({c: c.strip() for c in table.columns}).with_row_index("_line", offset=2)
    missing = {c: pl.lit(v) for c, v in DEFAULTS.items() if c not in table.columns}
    return table.with_columns(**missing)


def _problem(row: dict, imputed: bool) -> str | None:
    """What is wrong with one row (its columns as text, and as numbers `_value`, `_neval`, `_dim`), or None."""
    if row["_value"] is None:
        return f"fval {row[VALUE]!r} is not a number"
    if not imputed and row["_neval"] is None:
        return f"neval {row[EVALUATIONS]!r} is not a positive integer"
    if row["_dim"] is None:
        return f"dim {row[DIMENSION]!r} is not a positive integer"
    for col in (FUNCTION, ALGORITHM, RUN):
        if not (row[col] or "").strip():
            return f"no {col}"
    return None


def _positive_int(col: str) -> pl.Expr:
    """A column's text as a positive integer (below 2^31), else null."""
    x = pl.col(col).str.strip_chars().cast(pl.Float64, strict=False)
    return pl.when((x >= 1) & (x < _INT_LIMIT) & (x == x.floor())).then(x.cast(pl.Int64))


def _rows(table: pl.DataFrame, path: str, problems: list[Problem]) -> pl.DataFrame:
    """The readable rows of one file (typed); the others named with their line."""
    imputed = EVALUATIONS not in table.columns
    if imputed:
        table = table.with_columns(pl.lit(None, pl.String).alias(EVALUATIONS))
    typed = table.with_columns(_value=pl.col(VALUE).str.strip_chars().cast(pl.Float64, strict=False),
                               _neval=_positive_int(EVALUATIONS), _dim=_positive_int(DIMENSION))
    name_ok = pl.all_horizontal(pl.col(c).str.strip_chars().fill_null("") != "" for c in (FUNCTION, ALGORITHM, RUN))
    ok = (pl.col("_value").is_not_null() & pl.col("_dim").is_not_null() & name_ok
          & (pl.lit(True) if imputed else pl.col("_neval").is_not_null()))
    for row in typed.filter(~ok).iter_rows(named=True):
        problems.append(Problem(path, row["_line"], _problem(row, imputed) or "unreadable row", "record skipped"))
    good = typed.filter(ok).with_columns(pl.col(FUNCTION, ALGORITHM, RUN).str.strip_chars())
    if imputed:  # IOHanalyzer: sequential within each run, in file order
        good = good.with_columns(_neval=pl.int_range(1, pl.len() + 1, dtype=pl.Int64).over(
            FUNCTION, ALGORITHM, DIMENSION, RUN))
    return good


def _function(name: str) -> int:
    """The function number of a function name: the name where it is a positive integer, else its code."""
    return int(name) if name.isdigit() and 0 < int(name) < _INT_LIMIT else function_code(name)


def parse(src: Source, paths: Sequence[str], algorithm: str | None = None) -> Parsed:
    """The runs of IOHanalyzer plain CSV files `paths` of `src` (the module)."""
    problems: list[Problem] = []
    meta: list[tuple] = []
    frames: list[pl.DataFrame] = []
    for path in paths:
        table = _table(src, path, problems)
        if table is None:
            continue
        good = _rows(table, path, problems)
        runs = good.group_by(FUNCTION, ALGORITHM, DIMENSION, RUN, maintain_order=True).agg(
            line=pl.col("_line").min(), evals=pl.col("_neval").max(), best=pl.col("_value").min(),
            _d=pl.col("_dim").first())
        for fname, alg, _dim, _run, line, evals, best, dim in runs.rows():
            seq = len(meta)
            meta.append((seq, path, line, path, seq, SUITE, algorithm or alg, _function(fname), fname, dim, 1, False,
                         evals, best, None, "IOHanalyzer plain CSV", None))
        keyed = good.join(runs.with_row_index("_sec", offset=len(meta) - runs.height).select(
            FUNCTION, ALGORITHM, DIMENSION, RUN, "_sec"), on=[FUNCTION, ALGORITHM, DIMENSION, RUN], how="inner")
        frames.append(keyed.select(section=pl.col("_sec").cast(pl.Int64), lineno=pl.col("_line").cast(pl.Int64),
                                   evaluations="_neval", raw_y="_value", names=pl.lit([], pl.List(pl.String)),
                                   values=pl.lit([], pl.List(pl.Float64)), data_file=pl.lit(path)))
    parsed = assemble(src, meta, frames or [_records_empty()], problems, 0, OFFSET, algorithm)
    parsed.runs = parsed.runs.with_columns(data_format=pl.lit(FORMAT))
    return parsed
