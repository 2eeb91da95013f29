"""Helpers shared by the CLI commands: consoles, progress, errors, writing tables, opening a store (the
options they share: `_options`).

Loaded by `pipeline.cli` for every command, even `--help`: it imports typer and rich only (polars
and the measures are imported by the functions that use them)."""
from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console
from rich.text import Text

from ..words import plural

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

    import polars as pl

# soft_wrap: no line is wrapped at the console's width (in a pipe rich assumes 80 columns). markup and
# emoji off: a string printed is printed as it is (names, paths and messages hold `[/x]` or `:100:`); what
# is styled is a `rich.text.Text` (`say`, `warn`, `note`, `fail`)
err = Console(stderr=True, highlight=False, soft_wrap=True, markup=False, emoji=False)
out = Console(highlight=False, soft_wrap=True, markup=False, emoji=False)


def one_line(text: str) -> str:
    """The text with what would break or hide its line (line breaks, tabs, terminal escapes, other control
    and format characters, as in a path or name holding them) written as Python escapes: `\\n`, `\\x1b`."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def say(message: str, label: str = "", style: str = "") -> None:
    """Print one line on stderr as it is (no markup, no emoji codes; line breaks and control characters in
    it escaped, see `one_line`), after a styled `label` if any (else in `style`)."""
    message = one_line(message)
    err.print(Text.assemble((label, style), " ", message) if label else Text(message, style=style), soft_wrap=True)


def warn(message: str) -> None:
    """Print a one-line warning (the message as it is)."""
    say(message, "warning:", "yellow")


def note(message: str) -> None:
    """Print a one-line note (the message as it is)."""
    say(message, "note:", "cyan")


def fail(message: str, code: int = 1) -> None:
    """Print a one-line error (the message as it is) and exit."""
    say(message, "error:", "red")
    raise typer.Exit(code)


def error_text(exc: BaseException, flags: dict[str, str] | None = None) -> str:
    """A failure in one line: a setting refused (`InvalidSetting`, "samples 0: expected ...") named by its
    option ("--samples 0: expected ...", or the option `flags` maps it to), else its message's first line."""
    from ..measures.registry import InvalidSetting

    text = str(exc).strip()
    name = exc.setting if isinstance(exc, InvalidSetting) else None
    if name and text.startswith(name):
        text = (flags or {}).get(name, f"--{name.replace('_', '-')}") + text[len(name):]
    return text.splitlines()[0] if text else type(exc).__name__


def is_terminal(stream) -> bool:
    """Whether `stream` is an interactive terminal: not a pipe or a file, and not in CI (environment CI set)."""
    try:
        return stream.isatty() and not os.environ.get("CI")
    except (AttributeError, ValueError):  # no isatty, or closed
        return False


def _bar():
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn,
                               TimeElapsedColumn)

    return Progress(SpinnerColumn(), TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), TextColumn("{task.fields[label]}", markup=False), console=err, transient=True)


@contextmanager
def progress(total: int, description: str):
    """A progress bar on a terminal; nothing in pipes and CI. Yields an `advance(label)` function."""
    if not is_terminal(sys.stderr):
        yield lambda label="": None
        return
    with _bar() as bar:
        task = bar.add_task(description, total=total, label="")
        yield lambda label="": bar.update(task, advance=1, label=label)


@contextmanager
def stages(description: str):
    """Progress through the stages of long work on a terminal (a bar per stage, each stage's name and the
    item at hand); nothing in pipes and CI. Yields `update(stage, done, total, label="")`."""
    if not is_terminal(sys.stderr):
        yield lambda stage, done, total, label="": None
        return
    with _bar() as bar:
        task = bar.add_task(description, total=None, label="")

        def update(stage: str, done: int, total: int | None, label: str = "") -> None:
            bar.update(task, description=f"{description}: {stage}", completed=done, total=total, label=label)

        yield update


#: how a list in one cell is written (CSV, terminal): numbers apart by a space ("2 3 5"), names by "; " (a
#: comma would split the cell for `column -s,`, `cut -d,` and other tools that do not read CSV's quotes)
NUMBERS_APART, NAMES_APART = " ", "; "


def flat(df: pl.DataFrame) -> pl.DataFrame:
    """The frame as text can hold it: each number written by `pipeline.decimals` (values shortest round-trip,
    targets to 12 digits) and nested columns (lists, structs) as text (`NUMBERS_APART`, `NAMES_APART`)."""
    import polars as pl

    from ..decimals import as_text

    nested = {c: t for c, t in df.schema.items() if t.is_nested()}
    df = as_text(df)
    if not nested:
        return df
    return df.with_columns(
        pl.col(c).cast(pl.List(pl.String)).list.join(NUMBERS_APART if t.inner.is_numeric() else NAMES_APART)
        if isinstance(t, (pl.List, pl.Array)) else pl.col(c).struct.json_encode() for c, t in nested.items())


def _cell(v) -> str:
    """A value of a column `flat` left as it was (text, integers, booleans, dates) as the terminal shows it."""
    return "" if v is None else str(v)


#: characters between two columns of a terminal table (padding and rule)
GAP = 3


def blocks(widths: list[int], width: int, keys: int) -> list[list[int]]:
    """The columns of a table `width` wide, in blocks printed one below the other: the first block takes
    columns while they fit; each next one repeats the `keys` leading columns (those that name a row) and
    takes the next columns while they fit. A column too wide for a block of its own is one, and wraps.

    >>> blocks([5, 5, 5, 5], 80, 1), blocks([5, 20, 20, 20], 51, 1), blocks([5, 90], 40, 1)
    ([[0, 1, 2, 3]], [[0, 1, 2], [0, 3]], [[0, 1]])
    >>> blocks([9, 9, 4, 5, 8, 18, 10, 19], 80, 2)
    [[0, 1, 2, 3, 4, 5], [0, 1, 6, 7]]
    """
    def span(cols: list[int]) -> int:
        return sum(widths[i] for i in cols) + GAP * (len(cols) - 1)

    out: list[list[int]] = []
    rest = list(range(keys if keys < len(widths) else 0, len(widths)))
    while rest:
        block = list(range(keys)) if keys < len(widths) else []
        while rest and (len(block) <= keys or span([*block, rest[0]]) <= width):
            block.append(rest.pop(0))
        out.append(block)
    return out


def key_columns(df: pl.DataFrame, widths: list[int], width: int) -> int:
    """How many leading columns name a row (not floats), as many as fit in half the width."""
    keys, used = 0, -GAP
    for c, w in zip(df.columns, widths):
        if df.schema[c].is_float() or used + GAP + w > width // 2:
            break
        keys, used = keys + 1, used + GAP + w
    return keys


def print_table(df: pl.DataFrame, console: Console | None = None) -> None:
    """A readable table on a terminal, each value whole (as `flat` writes it), at most a screenful: the rows that
    fit the terminal's height, then on stderr how many more there are and the option that writes them all
    ("143877 more rows: --out FILE"). Columns that do not fit the width come below in further blocks, each
    starting with the row's number (#) and the columns that name the rows (suite, algorithm, ...); a value
    wider than the terminal wraps in its cell."""
    from rich import box
    from rich.table import Table

    console = console or out
    width, total = max(console.width, 20), df.height
    df = df.head(max(console.height, 1))
    parts = _layout(df, width)
    fit = _rows_fit(console.height, len(parts))
    if total > fit:
        df = df.head(fit)
        parts = _layout(df, width)
    if len(parts) > 1:  # the row's number leads every block
        df = df.with_row_index("#", offset=1)
    cells, _ = _cells(df)
    for n, block in enumerate(parts):
        if n:
            console.print()
        table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, header_style="bold")
        for i in block:
            c = df.columns[i]
            numeric = df.schema[c].is_numeric()
            table.add_column(Text(c), justify="right" if numeric else "left", overflow="fold")  # wrap, never cut
        for row in range(df.height):
            table.add_row(*(Text(cells[i][row]) for i in block))
        console.print(table, soft_wrap=False)
    if total == 0:
        say("(no rows)", style="dim")
    elif total > df.height:
        say(f"{plural(total - df.height, 'more row')}: {out_option()} FILE", style="dim")


def _layout(df: pl.DataFrame, width: int) -> list[list[int]]:
    """The blocks of columns (`blocks`) of a table `width` wide, counting the row number (#) that leads each
    block when there are several."""
    widths = _cells(df)[1]
    keys = key_columns(df, widths, width)
    parts = blocks(widths, width, keys)
    if len(parts) > 1:
        parts = blocks(_cells(df.with_row_index("#", offset=1))[1], width, keys + 1)
    return parts


def _rows_fit(height: int, blocks: int) -> int:
    """How many rows of a table in `blocks` blocks fit a terminal `height` lines high with the line saying how
    many more there are and the prompt: each block a header, a rule and the rows, a blank line between two
    blocks (at least one row).

    >>> _rows_fit(50, 1), _rows_fit(50, 2), _rows_fit(10, 4)
    (46, 21, 1)
    """
    return max((height - 2 - (blocks - 1)) // blocks - 2, 1)


def _cells(df: pl.DataFrame) -> tuple[list[list[str]], list[int]]:
    """Each column's values as the terminal shows them (as `flat` writes them), and each column's width (its
    widest line)."""
    from rich.cells import cell_len

    cells = [[_cell(v) for v in col.to_list()] for col in flat(df).iter_columns()]
    widths = [max(cell_len(line) for text in [c, *col] for line in text.split("\n")) for c, col in zip(df.columns, cells)]
    return cells, widths


def out_option() -> str:
    """The option of the running command that names its output file (`--out`), as the user would type it."""
    import click

    ctx = click.get_current_context(silent=True)
    for param in ctx.command.params if ctx else ():
        if param.name in ("out", "out_file") and getattr(param, "opts", None):
            return max(param.opts, key=len)
    return "--out"


def write_table(df: pl.DataFrame, path: str | None) -> None:
    """Write a frame by the file's extension (.csv, .parquet, .json, .md); without a file, print it: a
    readable table on a terminal, CSV into a pipe or with '-'."""
    if path is None or path == "-":
        if path == "-" or not is_terminal(sys.stdout):
            flat(df).write_csv(sys.stdout)
        else:
            print_table(df)
        return
    p = Path(path)
    ext = p.suffix.lower()
    if ext not in (".csv", ".parquet", ".json", ".md"):
        fail(f"{path}: unknown output format {ext!r} (use .csv, .parquet, .json or .md)")
    outside_store(p)
    try:
        _write_file(df, p, ext)
    except OSError as exc:  # a read-only folder, a full disk
        fail(f"{exc.filename or p}: cannot write {p} ({exc.strerror or exc})")
    say(f"wrote {plural(df.height, 'row')} to {p}")


def write_parts(parts: Iterable[pl.DataFrame], path: str | None) -> None:
    """Write the frames of a measure given a part at a time (`Analysis.stream`) as one table: to a CSV file
    or CSV on stdout, appended as they come (the whole never held; a file written whole or not at all);
    to any other format or a terminal, gathered first (`write_table`)."""
    to_stdout = path is None or path == "-"
    ext = "" if to_stdout else Path(path).suffix.lower()
    if (to_stdout and path != "-" and is_terminal(sys.stdout)) or (not to_stdout and ext != ".csv"):
        import polars as pl

        frames = list(parts)
        return write_table(pl.concat(frames, how="vertical_relaxed") if frames else pl.DataFrame(), path)
    if to_stdout:
        for i, part in enumerate(parts):
            flat(part).write_csv(sys.stdout, include_header=i == 0)
        return
    p = Path(path)
    outside_store(p)
    rows = 0
    try:
        with whole_file(p) as tmp, open(tmp, "wb") as f:
            for i, part in enumerate(parts):
                flat(part).write_csv(f, include_header=i == 0)
                rows += part.height
    except OSError as exc:  # a read-only folder, a full disk
        fail(f"{exc.filename or p}: cannot write {p} ({exc.strerror or exc})")
    say(f"wrote {plural(rows, 'row')} to {p}")


@contextmanager
def whole_file(p: Path) -> Iterator[Path]:
    """A temporary name beside `p` to write to, moved onto `p` when the block ends well and removed when
    it does not (a full disk leaves no half-written file)."""
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(f".{p.name}.tmp-{os.getpid()}")
    try:
        yield tmp
        tmp.replace(p)
    finally:
        tmp.unlink(missing_ok=True)


def _write_file(df: pl.DataFrame, p: Path, ext: str) -> None:
    """Write a frame to a file of a known extension, whole or not at all."""
    with whole_file(p) as tmp:
        _write_format(df, tmp, ext)


def _write_format(df: pl.DataFrame, p: Path, ext: str) -> None:
    """Write a frame to a file in the format of a known extension."""
    import polars as pl

    if ext == ".csv":
        flat(df).write_csv(p)
    elif ext == ".parquet":
        df.write_parquet(p, compression="zstd")
    elif ext == ".json":
        import json

        from ..decimals import json_value

        rows = [json_value(row) for row in df.to_dicts()]  # floats by repr, as `float_text`; targets rounded
        p.write_text(json.dumps(rows, separators=(",", ":"), allow_nan=False, default=str) + "\n", encoding="utf-8")
    elif ext == ".md":
        with pl.Config(tbl_formatting="MARKDOWN", tbl_hide_column_data_types=True, tbl_hide_dataframe_shape=True,
                       tbl_rows=-1, tbl_cols=-1, tbl_width_chars=10_000, fmt_str_lengths=10_000):
            p.write_text(str(flat(df)) + "\n")


#: the stores this command opened (where a failed read is looked for an unreadable file)
OPENED: list = []


def outside_store(out: str | Path, *stores: str | Path | None) -> None:
    """Exit with one line when the file or folder `out` lies inside one of `stores` or a store this command
    opened (what is written there would make the store unreadable)."""
    where = Path(out).resolve()
    for store in dict.fromkeys([*(s for s in stores if s), *OPENED]):
        if "://" in str(store):  # on object storage: no local file lies inside it
            continue
        home = Path(store).resolve()
        if where == home or home in where.parents:
            fail(f"{out}: inside the store {store}; give a folder outside the store")


def open_store(path: str):
    """Open an existing store for the rest of the command (a snapshot: what others commit meanwhile is not
    seen), with a one-line error when it is not one or lacks a file it lists."""
    from ..store import Store, StoreError

    try:
        st = Store(path)
        st.verify()  # every file it lists is there, before any work
    except StoreError as exc:
        fail(str(exc))
    OPENED.append(st.path)
    for notice in st.notices:
        say(notice)
    return st


def vanished_store_file(exc: BaseException) -> str | None:
    """One line naming the file of a store this command opened that was removed while it read it (a file not
    found, the store itself whole now: another writer replaced or rolled back the rows it held), if so."""
    import re

    text = str(exc)
    found = re.search(r"No such file|not found|NotFound", text) or isinstance(exc, FileNotFoundError)
    name = re.search(r"[^\s'\"()]*\.parquet", text)  # a data file (Polars shortens its path: `...suite=...`)
    if not OPENED or getattr(exc, "filename", None) or not (found and name):
        return None
    return (f"{OPENED[-1]}: its file {name.group(0).lstrip('.')} was removed while this command read it (another "
            "writer replaced or rolled back the rows it held since this command opened the store); run the "
            "command again")


def unreadable_store_file() -> str | None:
    """One line naming an unreadable file of a store this command opened, if there is one."""
    from ..store.check import unreadable
    from ..store.errors import StoreError

    for path in dict.fromkeys(OPENED):
        try:
            bad = unreadable(path)
        except StoreError as exc:  # the store itself went away meanwhile (an object store down): say that
            return str(exc)
        if bad:
            more = f" (and {len(bad) - 1} more)" if len(bad) > 1 else ""
            return (f"{path}/{bad[0].path}: {bad[0].detail}{more}; `cocopipe check --store {path} --repair` "
                    "drops what cannot be read")
    return None
