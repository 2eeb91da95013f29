"""Nevergrad's benchmark results: the CSV file `python -m nevergrad.benchmark EXPERIMENT` writes, one row per
run of an optimizer with a budget (`loss` the value of its recommendation), read as IOHanalyzer's
`read_nevergrad` reads it (IOHanalyzer R/readFiles.R): a run's function is its `name` (else its
`function_class`), suffixed `_rescaled` where `rescale` (or `transform`) is true, its algorithm
`optimizer_name`, its dimension `dimension`, and its one record the loss at `budget` evaluations; the runs of
one (optimizer, function, dimension) are its repetitions, whatever their budgets.

In the store: suite "nevergrad", instance 1, the function number a stable code of the function's name (CRC-32,
31 bits: the same in every source; the name is `function_name`), data_format "nevergrad", no known optimum
(measures of raw values, quantity "value"). A file is Nevergrad's when its header names optimizer_name,
budget, loss and dimension. A row that cannot be read (a failed run: `error` set or no `loss`; a value that
is not a number) is named with its line and left out; the others are kept.
"""
from __future__ import annotations

import io
import math
import zlib
from collections.abc import Sequence

import polars as pl

from .coco import _decode
from .ioh import SEQ_OFFSET, _records_empty, assemble
from .parsed import Parsed, Problem
from .sources import Source

SUITE = "nevergrad"
TABLE_SUFFIX = ".csv"
FORMAT = "nevergrad"
#: the columns a results file must have (and one of FUNCTION)
REQUIRED = ("optimizer_name", "dimension", "budget", "loss")
FUNCTION = ("name", "function_class")
#: run numbers of Nevergrad runs within a source start here (above IOHprofiler's json runs)
OFFSET = SEQ_OFFSET + (1 << 21)


def header(src: Source, path: str) -> list[str]:
    """The column names of a CSV file's first line (empty when it has none)."""
    head = bytes(src.view(path)[:65536]).split(b"\n", 1)[0]
    return [c.strip().strip('"') for c in _decode(head).rstrip("\r").split(",")]


def files(src: Source) -> list[str]:
    """The Nevergrad results files of a source (.csv files whose header has the required columns), sorted."""
    out = []
    for p in sorted(src.files):
        if p.lower().endswith(TABLE_SUFFIX):
            names = set(header(src, p))
            if set(REQUIRED) <= names and names & set(FUNCTION):
                out.append(p)
    return out


def function_code(name: str) -> int:
    """The function number of a Nevergrad function name: its CRC-32 in 31 bits (stable across sources)."""
    return zlib.crc32(name.encode("utf-8")) & 0x7FFFFFFF


def _number(value: str | None) -> float | None:
    try:
        return float(value) if value not in (None, "") else None
    except ValueError:
        return None


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in ("true", "1", "yes")


def _row(row: dict, path: str, line: int, problems: list[Problem]) -> tuple | None:
    """(algorithm, function name, dimension, budget, loss) of one row, or None with the problem named."""
    if (row.get("error") or "").strip():
        problems.append(Problem(path, line, f"the run failed ({row['error'].strip()})", "run skipped"))
        return None
    dim, budget, loss = (_number(row.get(c)) for c in ("dimension", "budget", "loss"))
    for col, v in (("dimension", dim), ("budget", budget)):
        if v is None or not math.isfinite(v) or v < 1 or v != int(v) or v >= 2 ** 31:
            problems.append(Problem(path, line, f"{col} {row.get(col)!r} is not a positive integer", "run skipped"))
            return None
    if loss is None or math.isnan(loss):
        problems.append(Problem(path, line, f"loss {row.get('loss')!r} is not a number", "run skipped"))
        return None
    name = (row.get("name") or row.get("function_class") or "").strip()
    if not name or not (row.get("optimizer_name") or "").strip():
        what = "no function name" if not name else "no optimizer_name"
        problems.append(Problem(path, line, what, "run skipped"))
        return None
    if _truthy(row.get("rescale", row.get("transform"))):
        name += "_rescaled"
    return row["optimizer_name"].strip(), name, int(dim), int(budget), loss


def _read(src: Source, path: str, problems: list[Problem]) -> list[dict]:
    """The rows of one file as text, each with its line number (a file Polars cannot read: named, none)."""
    try:
        table = pl.read_csv(io.BytesIO(bytes(src.view(path))), infer_schema=False,
                            truncate_ragged_lines=True)
    except (pl.exceptions.PolarsError, UnicodeDecodeError) as exc:
        problems.append(Problem(path, None, f"not a readable CSV file ({str(exc).splitlines()[0]})", "file skipped"))
        return []
    return [dict(r, _line=i + 2) for i, r in enumerate(table.iter_rows(named=True))]


def parse(src: Source, paths: Sequence[str], algorithm: str | None = None) -> Parsed:
    """The runs of Nevergrad results files `paths` of `src` (the module)."""
    problems: list[Problem] = []
    meta, recs, skipped = [], [], 0
    for path in paths:
        for row in _read(src, path, problems):
            read = _row(row, path, row["_line"], problems)
            if read is None:
                skipped += 1
                continue
            alg, name, dim, budget, loss = read
            seq = len(meta)
            meta.append((seq, path, row["_line"], path, seq, SUITE, algorithm or alg, function_code(name), name, dim,
                         1, False, budget, loss, None, "nevergrad", None))
            recs.append((seq, row["_line"], budget, loss, [], [], path))
    frame = pl.DataFrame(recs, schema=_records_empty().schema, orient="row") if recs else _records_empty()
    parsed = assemble(src, meta, [frame], problems, skipped, OFFSET, algorithm)
    parsed.runs = parsed.runs.with_columns(data_format=pl.lit(FORMAT))
    return parsed
