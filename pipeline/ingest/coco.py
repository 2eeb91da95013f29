"""Readers for COCO raw logs of every generation: .info index files, .dat/.tdat records.

Formats (cocopp `dataformatsettings`): `bbob-old` (2009-2015: evaluations | f-fopt | best f-fopt |
measured | best measured | x...), `bbob-new` / `bbob-new2` (f evaluations | g evaluations | best
f-fopt (+ sum g+) | measured | ...), `bbob-biobj` (evaluations | indicator - reference | target hit),
and reference-algorithm sets (`% algorithm type = best`, three trailing fields per record).
The data files of a source are parsed together, one Polars pass per chunk of files (chunks on threads).
"""
from __future__ import annotations

import posixpath
import re
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import polars as pl
import pyarrow as pa

from .. import distributed
from ..conventions import reached
from ..store import schema as store_schema
from ..words import plural
from . import consistency, duplicates, validity
from .parsed import Parsed, Problem
from .sources import ArchiveFiles, Source, run_key
from .validity import MAX_EVALUATIONS

#: an .info key read backwards from its `=`: white space, then letters, digits, `_` and blanks
_KEY_BACK = re.compile(r"\s*[\w ]*")
_KEY_START = re.compile(r"[A-Za-z_]")
_RUN = re.compile(r"^(-?\d+)(?::\s*([-+.\deEinfINFaN]+)\s*\|\s*([-+.\deEinfINFaN]+))?$")
NEW_FORMATS = ("bbob-new", "bbob-new2")
#: longest .info line read (the longest in the shared data sets has 4520 characters)
MAX_INFO_LINE = 1 << 20

#: Polars engine of the ingest's queries: in memory, as the data are (docs/internals.md: why not streaming)
ENGINE = "in-memory"


def _fits32(k: int) -> bool:
    """Whether a function, dimension or instance number fits the store's 32-bit integers."""
    return -(2**31) <= k < 2**31


def _decode(b: bytes | memoryview) -> str:
    return str(b, "utf-8", errors="replace")


def parse_header(line: str) -> dict[str, str]:
    """Key/value pairs of an .info header line (quotes stripped), in one pass over the line.

    `key = value` pairs are separated by commas; a key is the run of letters, digits, `_` and blanks
    before an `=` (from its first letter or `_`); a value is a quoted string followed by a comma or
    the end of the line, else everything up to the next comma."""
    out: dict[str, str] = {}
    pos, n = 0, len(line)
    while pos < n:
        eq = line.find("=", pos)
        if eq < 0:
            break
        # the key: the [\w ] run before the `=` (white space just before it aside), from its first letter
        back = _KEY_BACK.match(line[pos:eq][::-1])
        run = line[eq - back.end():eq]
        first = _KEY_START.search(run) if back.end() else None
        if first is None:
            pos = eq + 1
            continue
        v = eq + 1
        while v < n and line[v].isspace():
            v += 1
        stop = -1
        if v < n and line[v] in "'\"":  # a quoted value, when a comma or the end follows its closing quote
            close = line.find(line[v], v + 1)
            if close >= 0:
                after = close + 1
                while after < n and line[after].isspace():
                    after += 1
                if after == n or line[after] == ",":
                    stop, pos = close + 1, after + 1
        if stop < 0:
            comma = line.find(",", v)
            stop = pos = n if comma < 0 else comma
            pos += 1
        value = line[v:stop].strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        out[run[first.start():].strip()] = value
    return out


def _num(s: str | None) -> float | None:
    if s is None:
        return None
    try:
        return float(s)
    except ValueError:
        return None


def _announced(line: str) -> int | None:
    """How many runs an .info data line announces (its fields without `=` beside the data file);
    None for a header line."""
    parts = [p.strip() for p in line.split(",")]
    datafile = next((p for p in parts if p.lower().endswith("dat") and "=" not in p), None)
    if datafile is None:
        return None
    return sum(1 for p in parts if p and "=" not in p and not p.lower().endswith("dat"))


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


_ENTRY_SCHEMA = {
    "info_file": pl.String, "info_line": pl.Int64, "header_line": pl.Int64, "data_file": pl.String,
    "algorithm": pl.String, "suite": pl.String, "function": pl.Int64, "dimension": pl.Int64,
    "precision": pl.Float64, "indicator": pl.String, "data_format": pl.String, "coco_version": pl.String,
    "comment": pl.String,
}
_RUN_SCHEMA = {"entry": pl.UInt32, "instance": pl.Int64, "finalized": pl.Boolean, "info_evaluations": pl.Int64,
               "info_final_delta": pl.Float64}


def parse_info(src: Source, problems: list[Problem]) -> tuple[pl.DataFrame, int]:
    """One row per trial announced by the source's .info files, in file order, and how many trials
    they announce that cannot be read (an entry without its data file, an unreadable run entry)."""
    entries: list[tuple] = []
    runs: list[tuple] = []
    skipped = 0
    unnamed: set[str] = set()  # .info files whose empty algorithm name was said
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
            if len(raw) > MAX_INFO_LINE:
                # a data line's runs count as skipped; after a header line, so do those of its data lines
                n = _announced(raw)
                if n is None:
                    header = None
                skipped += n or 0
                problems.append(Problem(info, lineno, f"line longer than {MAX_INFO_LINE} characters ({len(raw)})",
                                        "line skipped" if n is None else f"{plural(n, 'run')} skipped"))
                continue
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
            trials = [p for p in parts if p and "=" not in p and p is not datafile and not p.lower().endswith("dat")]
            if header is None:
                problems.append(Problem(info, lineno, "data line without a readable header line before it",
                                        f"{plural(len(trials), 'run')} skipped"))
                skipped += len(trials)
                continue
            entry = dict(header)
            entry.update(parse_header(", ".join(p for p in parts if "=" in p)))
            numbers = _function_dimension(entry, info, lineno, len(trials))
            if isinstance(numbers, Problem):
                problems.append(numbers)
                skipped += len(trials)
                continue
            function, dimension = numbers
            algorithm = _algorithm_name(entry, src, info, header_line, unnamed, problems)
            suite = _infer_suite(entry, function)
            datapath = _resolve(src, info, datafile, entry.get("folder", ""))
            if datapath is None:
                problems.append(Problem(info, lineno, f"data file {datafile} not found",
                                        f"{plural(len(trials), 'run')} of f{function} {dimension}-D skipped"))
                skipped += len(trials)
                continue
            k = len(entries)
            entries.append((
                info, lineno, header_line, datapath, algorithm, suite, function, dimension,
                _num(entry.get("Precision")), entry.get("indicator") or None,
                entry.get("data_format") or ("bbob-biobj" if entry.get("indicator") else "bbob-old"),
                entry.get("coco_version") or None, comment,
            ))
            read = _run_entries(trials, k, info, lineno, problems)
            runs += read
            skipped += len(trials) - len(read)
    entry_df = pl.DataFrame(entries, schema=_ENTRY_SCHEMA, orient="row")
    run_df = pl.DataFrame(runs, schema=_RUN_SCHEMA, orient="row")
    return pl.concat([entry_df[run_df["entry"]], run_df.drop("entry")], how="horizontal"), skipped


def _algorithm_name(entry: dict, src: Source, info: str, header_line: int, unnamed: set[str],
                    problems: list[Problem]) -> str:
    """The entry's algorithm name; an empty one is the source's name, said once per .info file (`unnamed`)."""
    algorithm = entry.get("algId") or entry.get("algorithm") or ""
    if not algorithm:  # (a blank name such as " " is a name: docs/store.md, partition names)
        algorithm = src.name or "unnamed"
        if ("algId" in entry or "algorithm" in entry) and info not in unnamed:
            unnamed.add(info)
            problems.append(Problem(info, header_line, "empty algorithm name (algId)",
                                    f"named after the source: {algorithm}"))
    return algorithm


def _function_dimension(entry: dict, info: str, lineno: int, n: int) -> tuple[int, int] | Problem:
    """The function and dimension of an .info entry announcing `n` runs, or the problem that skips it."""
    try:
        function = int(entry.get("funcId", entry.get("function", "")).strip())
        dimension = int(entry.get("DIM", entry.get("dim", "")).strip())
    except ValueError:
        return Problem(info, lineno, "entry without function or dimension", "entry skipped")
    if not (_fits32(function) and _fits32(dimension)):
        return Problem(info, lineno, f"function {function} or dimension {dimension} out of range (32-bit integers)",
                       "entry skipped")
    if dimension < 1 or function < 1:
        return Problem(info, lineno, f"function {function}, dimension {dimension}: both must be 1 or more",
                       f"{plural(n, 'run')} skipped")
    return function, dimension


def _run_entries(trials: list[str], k: int, info: str, lineno: int, problems: list[Problem]) -> list[tuple]:
    """The runs of entry `k` (`instance:evaluations|precision` items of its data line); an unreadable item
    is a problem and skipped."""
    runs = []
    for r in trials:
        m = _RUN.match(r.replace(" ", ""))
        if not m:
            problems.append(Problem(info, lineno, f"unreadable run entry {r!r}", "run skipped"))
            continue
        instance, ev = int(m.group(1)), _num(m.group(2))
        if not _fits32(instance):
            problems.append(Problem(info, lineno, f"instance {instance} out of range (32-bit integers)", "run skipped"))
            continue
        runs.append((k, instance, m.group(2) is not None,
                     int(ev) if ev is not None and abs(ev) < MAX_EVALUATIONS else None, _num(m.group(3))))
    return runs


def _joined(src: Source, paths: list[str]) -> tuple[bytes, np.ndarray]:
    """The files' bytes one after the other, each ending in a newline, as valid UTF-8 (bytes that are
    not are replaced, as a lossy decoding would); and where each file ends in them."""
    parts = []
    for p in paths:
        b = src.view(p)
        parts.append(b)
        parts.append(b"\n" if len(b) and b[-1:] != b"\n" else b"")
    buf = b"".join(parts)
    if not buf.isascii():
        try:
            buf.decode("utf-8")
        except UnicodeDecodeError:
            parts[::2] = [str(b, "utf-8", errors="replace").encode("utf-8") for b in parts[::2]]
            buf = b"".join(parts)
    return buf, np.cumsum([len(a) + len(b) for a, b in zip(parts[::2], parts[1::2])], dtype=np.int64)


#: largest buffer of lines read at once (string views address their bytes with 32-bit offsets)
MAX_BUFFER = 1 << 30


def _text(buf: bytes, arr: np.ndarray, starts: np.ndarray, lens: np.ndarray) -> pl.Series:
    """The strings buf[start:start+len] as a Polars String column without copying their bytes: an
    Arrow string-view array over `buf` (16 bytes per string: its length, then the string itself
    when at most 12 bytes long, else its first 4 bytes, buffer 0 and its offset)."""
    n = len(starts)
    views = np.zeros((n, 4), np.int32)
    views[:, 0] = lens
    long = lens > 12
    at = starts[long]
    # the first four bytes of each long string, read as one little-endian int32 at any offset
    words = np.ndarray((max(len(buf) - 3, 0),), dtype="<i4", buffer=buf, strides=(1,))
    views[long, 1] = words[at]
    views[long, 3] = at
    short = np.flatnonzero(~long)
    if len(short):
        k = np.arange(12)
        idx = np.minimum(starts[short, None] + k, len(arr) - 1)
        inline = np.where(k < lens[short, None], arr[idx], 0).astype(np.uint8)
        views.view(np.uint8)[short, 4:] = inline
    array = pa.Array.from_buffers(pa.string_view(), n, [None, pa.py_buffer(views), pa.py_buffer(buf)])
    return pl.Series("text", _CArray(array))


class _CArray:
    """An Arrow array seen only through the Arrow C data interface: Polars takes it as it is, without
    the conversion path for pyarrow objects (which imports pyarrow.compute: docs/internals.md)."""

    def __init__(self, array: pa.Array):
        self.array = array

    def __arrow_c_array__(self, requested_schema=None):
        return self.array.__arrow_c_array__(requested_schema)


def _layout(src: Source, paths: list[str]) -> tuple[bytes, np.ndarray, np.ndarray]:
    """One buffer holding the files' bytes, and where each file starts and stops in it: the tar
    stream of an archive or the buffer a folder was read into, as it is (no copy; 12 bytes can be
    read past any file's end: tar blocks or padding follow), else the files joined (see `_joined`),
    also where a file is not UTF-8."""
    files = src.files
    if isinstance(files, ArchiveFiles) and len(files.buffer) <= MAX_BUFFER:
        buf = files.buffer
        spans = np.array([files.spans[p] for p in paths], np.int64).reshape(-1, 2)
        try:
            if not buf.isascii():
                for p in paths:
                    str(files.view(p), "utf-8")
            return buf, spans[:, 0], spans[:, 1]
        except UnicodeDecodeError:
            pass
    buf, ends = _joined(src, paths)
    return buf, np.r_[0, ends[:-1]], ends


def _lines(src: Source, paths: list[str]) -> tuple[pl.DataFrame, bool]:
    """All lines of the given files: file index, line number, text (stripped); and whether any line
    holds a tab.

    numpy finds the newlines of each file in one buffer holding them all (see `_layout`), and the
    lines become one string column viewing that buffer (see `_text`): no per-line Python, no copy of
    the text."""
    if not paths:
        return pl.DataFrame(schema={"file": pl.Int32, "lineno": pl.Int32, "text": pl.String}), False
    if sum(len(src.view(p)) for p in paths) > MAX_BUFFER and len(paths) > 1:
        half = len(paths) // 2
        (a, ta), (b, tb) = _lines(src, paths[:half]), _lines(src, paths[half:])
        return pl.concat([a, b.with_columns(pl.col("file") + half)]), ta or tb
    buf, first, stop = _layout(src, paths)
    arr = np.frombuffer(buf, np.uint8)
    # each file's lines end at its newlines, and at its end when its last byte is not one
    ends, tabs = [], False
    for lo, hi in zip(first.tolist(), stop.tolist()):
        part = arr[lo:hi]
        e = np.flatnonzero(part == 10) + lo
        ends.append(e if hi == lo or part[-1] == 10 else np.append(e, hi))
        tabs = tabs or buf.find(b"\t", lo, hi) >= 0
    counts = np.array([len(e) for e in ends])
    ends = np.concatenate(ends)
    file = np.repeat(np.arange(len(paths), dtype=np.int32), counts)
    top = np.r_[0, np.cumsum(counts)[:-1]]  # each file's first line
    starts = np.empty_like(ends)
    starts[1:] = ends[:-1] + 1
    starts[top[counts > 0]] = first[counts > 0]
    lens = (ends - starts).astype(np.int32)
    lineno = (np.arange(len(ends)) - top[file] + 1).astype(np.int32)
    df = pl.DataFrame({"file": file, "lineno": lineno, "text": _text(buf, arr, starts, lens)})
    # lines that start or end with white space (or a non-ASCII character), or are blank: stripped
    head, tail = arr[np.minimum(starts, len(arr) - 1)], arr[np.maximum(ends - 1, 0)]
    rows = np.flatnonzero((lens == 0) | (head <= 32) | (head >= 127) | (tail <= 32) | (tail >= 127))
    if len(rows):  # most logs have none
        col = df["text"]
        df = df.with_columns(col.scatter(rows, col.gather(rows).str.strip_chars()))
    return df, tabs


def _split(text: pl.Expr) -> dict[str, pl.Expr]:
    """The first four blank-separated fields of a line as numbers (`field_0`..`field_3`, null where
    missing or not a number) and its field count `raw_n`."""
    parts = text.str.split_exact(" ", 3)
    return {f"field_{i}": parts.struct.field(f"field_{i}").cast(pl.Float64, strict=False) for i in range(4)} | {
        "raw_n": text.str.count_matches(" ", literal=True).cast(pl.Int32) + 1}


def _records(lines: pl.DataFrame, tabs: bool, files: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Split file lines into sections (one per trial) and parse them into header facts and records.

    `files` has one row per file index: `best_col` (column of the best precision, 1 for bbob-biobj
    else 2) and `g_col` (a g-evaluations column, bbob-new formats). A section starts at each run of
    `%` lines; records before the first header get section -1. Fields are separated by blanks
    (tabs and runs of blanks count as one). Each record keeps its field count and the file's usual
    one, and `bad` marks the records `validity.bad` rejects (see also `validity.flag`)."""
    text = pl.col("text")
    head, first = pl.col("head"), pl.col("lineno") == 1
    # section: the number of runs of `%` lines opened in the file up to the line, minus one
    opened = (head & ~(head.shift(1, fill_value=False) & ~first)).cum_sum().cast(pl.Int32)
    before = pl.when(first).then(pl.col("opened") - (head & first).cast(pl.Int32)).forward_fill()
    lf = (lines.lazy().with_columns(head=text.str.starts_with("%"))
          .with_columns(opened=opened).with_columns(section=pl.col("opened") - before - 1).drop("opened"))
    heads = (
        lf.filter(head)
        .group_by("file", "section")
        .agg(
            fopt=text.str.extract(r"Fopt \(([^)]*)\)").cast(pl.Float64, strict=False).drop_nulls().first(),
            refval=text.str.extract(r"reference value\s*=\s*([-+.\deE]+)").cast(pl.Float64, strict=False)
            .drop_nulls().first(),
            data_instance=text.str.extract(r"instance\s*=\s*(\d+)").cast(pl.Int32, strict=False).drop_nulls().first(),
            best=text.str.contains(r"algorithm type\s*=\s*best").any(),
        )
    )
    body = lf.filter(~head & (text != ""))
    if tabs:
        body = body.with_columns(text.str.replace_all("\t", " ", literal=True))
    fields = body.select("file", "lineno", "section", **_split(text),
                         fix=text.str.contains("  ", literal=True))
    heads, fields = pl.collect_all([heads, fields], engine=ENGINE)
    rows = fields["fix"].arg_true()
    if rows.len():  # a few lines with runs of blanks (padded "+nan" fields): collapse them
        fixed = (body.filter(text.str.contains("  ", literal=True))
                 .select(**_split(text.str.replace_all(r"\s+", " "))).collect(engine=ENGINE))
        fields = fields.with_columns(fields[c].scatter(rows, fixed[c]) for c in fixed.columns)
    fields = fields.drop("fix").lazy()

    by_file = {c: (pl.lit(files[c][0]) if files[c].n_unique() == 1 else pl.lit(files[c]).gather(pl.col("file")))
               for c in ("best_col", "g_col")} if files.height else {"best_col": pl.lit(2), "g_col": pl.lit(False)}
    best = heads.filter(pl.col("best"))
    if best.height:
        fields = fields.join(best.lazy().select("file", "section", "best"), on=["file", "section"], how="left",
                             maintain_order="left")
        is_best = pl.col("best").fill_null(False)
    else:
        is_best = pl.lit(False)
    # the usual field count of each file: its most frequent one (the largest among equally frequent)
    fields = fields.with_columns(usual_n=pl.col("raw_n").mode().max().over("file"))
    n = pl.col("raw_n") - pl.when(is_best).then(3).otherwise(0)
    num = lambda i: pl.col(f"field_{i}")  # noqa: E731
    best_col, g_col = by_file["best_col"], by_file["g_col"]
    recs = fields.select(
        "file", "lineno", "section",
        f_ev=num(0),
        g_ev=pl.when(g_col).then(num(1)).otherwise(0.0),
        best_delta=pl.when(best_col == 1).then(num(1)).otherwise(num(2)),
        measured=pl.when((best_col == 2) & (n >= 4) & ~is_best).then(num(3)).otherwise(None),
        few=n < pl.when(best_col == 1).then(2).otherwise(3),
        raw_n="raw_n", usual_n="usual_n",
    )
    bad = validity.bad(*map(pl.col, ("section", "few", "raw_n", "usual_n", "f_ev", "g_ev", "best_delta")))
    return heads, recs.with_columns(bad=bad).drop("few").collect(engine=ENGINE)


#: data files are read in parallel chunks of at least this many bytes (one chunk below)
CHUNK_BYTES = 4 << 20


def _read_data(src: Source, paths: list[str], files: pl.DataFrame, workers: int | None = None
               ) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Header facts and records of the data files (see `_records`), read in contiguous chunks of
    files on as many threads as there are cores (Polars and the reads release the GIL)."""
    sizes = np.cumsum([len(src.view(p)) for p in paths])
    workers = workers or min(distributed.workers(), 8)
    k = int(min(workers, sizes[-1] // CHUNK_BYTES if len(sizes) else 1, len(paths))) or 1
    if k == 1:
        return _records(*_lines(src, paths), files)
    # chunk boundaries: the file indices where the byte count passes each k-th of the total
    cuts = [0, *np.searchsorted(sizes, sizes[-1] * np.arange(1, k) / k, side="right").tolist(), len(paths)]
    cuts = sorted(set(cuts))

    def one(lo: int, hi: int) -> tuple[pl.DataFrame, pl.DataFrame]:
        heads, recs = _records(*_lines(src, paths[lo:hi]), files.slice(lo, hi - lo))
        shift = pl.col("file") + lo
        return heads.with_columns(shift), recs.with_columns(shift)

    with ThreadPoolExecutor(max_workers=len(cuts) - 1) as pool:
        parts = list(pool.map(one, cuts[:-1], cuts[1:]))
    return pl.concat([h for h, _ in parts]), pl.concat([r for _, r in parts])


def _trials_frame(trials: pl.DataFrame, algorithm: str | None, source_id: str) -> pl.DataFrame:
    """The trials announced by the .info files, numbered: section within its data file, trial within
    its problem, and a run_id unique across sources."""
    tr = trials.with_columns(algorithm=pl.lit(algorithm)) if algorithm else trials
    # trial k of a data file is its k-th section, in .info order
    key = run_key(source_id, algorithm)
    return tr.with_row_index("seq").with_columns(
        section=pl.int_range(pl.len()).over("data_file").cast(pl.Int32),
        trial=pl.int_range(pl.len()).over("algorithm", "suite", "function", "dimension").cast(pl.Int32),
        run_id=pl.lit(key, pl.Int64) * (1 << 24) + pl.col("seq").cast(pl.Int64),
    )


def _merged(events: pl.DataFrame) -> pl.DataFrame:
    """Events sorted by trial (`seq`), evaluations and best precision (descending), stably, with
    the records met more than once (same trial, evaluations and precision) merged into the first,
    whose `trigger` ORs their `kind`s (.dat records come before .tdat ones, so first | last)."""
    cols = ("seq", "evaluations", "best_delta")
    same = pl.lit(True)
    for c in cols:
        same = same & (pl.col(c) == pl.col(c).shift(1))
    return (
        events.lazy()
        .sort(*cols, descending=[False, False, True], maintain_order=True)
        .with_columns(first=~same.fill_null(False))
        .with_columns(last=pl.col("first").shift(-1, fill_value=True))
        .with_columns(trigger=(pl.col("kind") | pl.when("last").then("kind").backward_fill()).cast(pl.Int8))
        .filter("first")
        .drop("first", "last")
        .collect(engine=ENGINE)
    )


def parse_source(src: Source, algorithm: str | None = None, *, index_expected: bool = True) -> Parsed:
    """Parse one source into `runs` and `events` frames (store schema, partition keys included);
    `index_expected`: a source without .info file is a problem (not when other readers read it)."""
    problems: list[Problem] = [Problem(*p) for p in src.problems]  # met while reading it
    if not src.files:
        problems.append(Problem(src.path, None, "no COCO log files (.info/.dat/.tdat) found", "source skipped"))
        return Parsed(_empty("runs"), _empty("events"), problems)
    trials, unread = parse_info(src, problems)
    if not src.info_files() and index_expected:
        problems.append(Problem(src.path, None, "no .info index file found", "source skipped"))
    if not trials.height:
        return Parsed(_empty("runs"), _empty("events"), problems, runs_skipped=unread)
    tr = _trials_frame(trials, algorithm, src.source_id)
    dats, paths, kinds, nonneg = _data_files(src, tr, problems)
    files = pl.DataFrame(kinds, schema={"file": pl.Int32, "pair": pl.Int32, "kind": pl.Int8,
                                        "best_col": pl.Int8, "g_col": pl.Boolean}, orient="row")
    heads, recs = _read_data(src, paths, files)
    recs = validity.flag(recs, heads, pl.Series([nonneg[pair] for _, pair, *_ in kinds], dtype=pl.Boolean))
    problems += [Problem(*p) for p in validity.problems(recs, paths, src.path)]

    recs_l = _keyed(recs.lazy().filter(~pl.col("bad")), files)
    heads_l = _keyed(heads.lazy(), files)
    pair_of = {dat: pair for pair, (dat, _) in enumerate(dats)}
    tr = tr.with_columns(key=pl.col("data_file").replace_strict(pair_of, return_dtype=pl.Int64) * (1 << 32)
                         + pl.col("section"))
    events = _events_of_trials(recs_l, tr)
    # the final value, the hit of the final target and the records that disagree, as cocopp reads them
    facts, hit_delta = consistency.cocopp_reading(events, tr)
    tr = tr.with_columns(facts)
    runs, unannounced = _runs_of_trials(tr, events, hit_delta, recs_l, heads_l)
    missing = runs.filter(pl.col("nrec").is_null())
    problems += _run_problems(missing, unannounced)
    runs = runs.filter(pl.col("nrec").is_not_null())
    damaged = _keyed(recs.lazy().filter(pl.col("bad") & (pl.col("section") >= 0)), files).select("key").collect(
        engine=ENGINE)
    partial = runs["key"].is_in(damaged["key"].implode()).sum() if damaged.height else 0
    inst_mismatch = runs.filter(pl.col("data_instance").is_not_null() & (pl.col("data_instance") != pl.col("instance"))
                                & (pl.col("instance") != 0))
    for dfile, sec, a, b in inst_mismatch.select("data_file", "section", "instance", "data_instance").head(20).rows():
        problems.append(Problem(dfile, None, f"run {sec + 1}: .info says instance {a}, data header says {b}",
                                "kept with the .info instance"))
    runs, events = _store_tables(src, tr, runs, events)
    found = duplicates.trials(runs, events, tr.select("run_id", "info_line"))
    problems += [Problem(*p) for p in duplicates.within(found)]
    return Parsed(runs, events, problems, runs_skipped=missing.height + unread, runs_partial=partial, trials=found)


def _data_files(src: Source, tr: pl.DataFrame, problems: list[Problem]
                ) -> tuple[list[tuple], list[str], list[tuple], list[bool]]:
    """The data files to read: each .dat (pair p, with its format) and the .tdat beside it (`paths`, and
    per path its index, pair, kind, best column and whether g-evaluations are logged), and per pair whether
    its suites' values are nonnegative; a missing .tdat and a .dat no .info names are problems."""
    dats = tr.select("data_file", "data_format").unique("data_file", keep="first", maintain_order=True).rows()
    nonneg = tr.group_by("data_file", maintain_order=True).agg(
        pl.col("suite").is_in(list(validity.NONNEGATIVE_SUITES)).all())["suite"].to_list()
    paths, kinds = [], []
    for pair, (dat, fmt) in enumerate(dats):
        stem = dat.rsplit(".", 1)[0]
        for kind, ext in ((1, ".dat"), (2, ".tdat")):
            p = stem + ext
            if p in src.files:
                paths.append(p)
                kinds.append((len(paths) - 1, pair, kind, 1 if fmt == "bbob-biobj" else 2, fmt in NEW_FORMATS))
            elif ext == ".tdat":
                problems.append(Problem(p, None, "missing .tdat file", "runs read from the .dat file only"))
    read = set(paths)
    orphans = [f for f in sorted(src.files) if f.rsplit(".", 1)[-1].lower() == "dat" and f not in read]
    if orphans:  # named unless an .info line names it (that line's problem says why its runs were not read)
        infos = b"\n".join(bytes(src.view(i)) for i in src.info_files())
        problems += [Problem(f, None, "a .dat file no .info file names", "not read")
                     for f in orphans if f.rsplit("/", 1)[-1].encode("utf-8", "surrogateescape") not in infos]
    return dats, paths, kinds, nonneg


def _keyed(lf: pl.LazyFrame, files: pl.DataFrame) -> pl.LazyFrame:
    """A section is known by its data file pair and its index: one Int64 key."""
    return lf.with_columns(kind=pl.lit(files["kind"]).gather(pl.col("file")),
                           pair=pl.lit(files["pair"]).gather(pl.col("file"))) \
        .with_columns(key=pl.col("pair").cast(pl.Int64) * (1 << 32) + pl.col("section"))


def _events_of_trials(recs_l: pl.LazyFrame, tr: pl.DataFrame) -> pl.DataFrame:
    """Records of both files attached to their trial, in file order (.dat before .tdat, by line); a record met
    more than once is one event whose `trigger` tells the files (1 .dat, 2 .tdat, 3 both)."""
    events = (
        recs_l.join(tr.lazy().select("key", "seq", "run_id", "precision"), on="key", how="inner",
                    maintain_order="left")
        .select("seq", "run_id", "kind", "measured", "precision", g_evaluations="g_ev",
                evaluations=pl.col("f_ev") + pl.col("g_ev"), best_delta="best_delta")
        .collect(engine=ENGINE)
    )
    return _merged(events)


def _runs_of_trials(tr: pl.DataFrame, events: pl.DataFrame, hit_delta, recs_l: pl.LazyFrame, heads_l: pl.LazyFrame
                    ) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The trials with what their records say (last evaluation, g-evaluations, records, hit of the final
    target, the headers' reference values), and the data files holding more runs than the .info names."""
    agg = events.lazy().with_columns(hit_delta=pl.Series(hit_delta, nan_to_null=True)).group_by("run_id").agg(
        last_evaluation=pl.col("evaluations").max().cast(pl.Int64),
        g_evaluations=pl.col("g_evaluations").last().cast(pl.Int64),
        nrec=pl.len(),
        hit=pl.col("evaluations").filter(pl.col("precision").is_not_null()
                                         & reached(pl.col("hit_delta"), pl.col("precision"))).min(),
    )
    hd = heads_l.filter(pl.col("kind") == 1).select("key", "fopt", "refval", "data_instance")
    hd_t = heads_l.filter(pl.col("kind") == 2).select("key", fopt_t="fopt", refval_t="refval")
    runs = tr.lazy().join(agg, on="run_id", how="left").join(hd, on="key", how="left").join(hd_t, on="key", how="left")
    if (tr["suite"] == "bbob-constrained").any():  # the last .tdat record counts f and g evaluations
        tdat_last = recs_l.filter(pl.col("kind") == 2).group_by("key").agg(tdat_fg=(pl.col("f_ev") + pl.col("g_ev")).last())
        runs = runs.join(tdat_last, on="key", how="left")
    else:
        runs = runs.with_columns(tdat_fg=pl.lit(None, pl.Float64))
    nsec = heads_l.filter(pl.col("kind") == 1).group_by("pair").agg(n=pl.col("section").max() + 1)
    used = tr.lazy().group_by("data_file").agg(m=pl.len(), pair=(pl.col("key").first() // (1 << 32)).cast(pl.Int32))
    unannounced = nsec.join(used, on="pair").filter(pl.col("n") > pl.col("m")).select("data_file", "n", "m")
    runs, unannounced = pl.collect_all([runs, unannounced], engine=ENGINE)
    return runs, unannounced


def _run_problems(missing: pl.DataFrame, unannounced: pl.DataFrame) -> list[Problem]:
    """A problem per run without records, and per data file with runs the .info does not announce."""
    out = [Problem(info, line, f"run {sec + 1} (f{f}, {d}-D, instance {inst}) has no records in {dfile}", "run skipped")
           for info, line, f, d, inst, dfile, sec in missing.select(
               "info_file", "info_line", "function", "dimension", "instance", "data_file", "section").rows()]
    return out + [Problem(dfile, None, f"{plural(nn, 'run')} in the data file but {m} in the .info file",
                          f"{plural(nn - m, 'unannounced run')} ignored") for dfile, nn, m in unannounced.rows()]


def _store_tables(src: Source, tr: pl.DataFrame, runs: pl.DataFrame, events: pl.DataFrame
                  ) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The runs and events with the store's columns (`store.schema`)."""
    biobj = pl.col("data_format") == "bbob-biobj"
    constrained = pl.col("suite") == "bbob-constrained"
    runs = runs.lazy().with_columns(
        evaluations=pl.when(constrained & pl.col("tdat_fg").is_not_null()).then(pl.col("tdat_fg").cast(pl.Int64))
        .when(~biobj & pl.col("hit").is_not_null()).then(pl.col("hit").cast(pl.Int64))
        .otherwise(pl.col("last_evaluation")),
        reference_value=pl.coalesce("fopt", "fopt_t", "refval", "refval_t"),
        source=pl.lit(src.name),
        source_id=pl.lit(src.source_id),
        maximize=pl.lit(False), function_name=pl.lit(None, pl.String),
        best_y=pl.lit(None, pl.Float64), best_x=pl.lit(None, pl.List(pl.Float64)),  # IOHprofiler's json only
        function=pl.col("function").cast(pl.Int32),
        dimension=pl.col("dimension").cast(pl.Int32),
        instance=pl.col("instance").cast(pl.Int32),
    ).select(list(store_schema.polars_schema("runs"))).sort("suite", "algorithm", "function", "dimension", "trial")
    events = events.lazy().select(
        suite=pl.lit(tr["suite"]).gather(pl.col("seq")), algorithm=pl.lit(tr["algorithm"]).gather(pl.col("seq")),
        run_id="run_id", evaluations=pl.col("evaluations").cast(pl.Int64),
        g_evaluations=pl.col("g_evaluations").cast(pl.Int64), best_delta="best_delta", measured="measured",
        trigger="trigger",
    )
    runs, events = pl.collect_all([runs, events], engine=ENGINE)
    return runs, events


def _empty(table: str) -> pl.DataFrame:
    return pl.DataFrame(schema=store_schema.polars_schema(table))
