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

if TYPE_CHECKING:
    import polars as pl

# soft_wrap: no line is wrapped at the console's width (in a pipe rich assumes 80 columns)
err = Console(stderr=True, highlight=False, soft_wrap=True)
out = Console(highlight=False, soft_wrap=True)
#: rows of a table printed on a terminal (the whole table: --out FILE, or stdout into a pipe as CSV)
TERMINAL_ROWS = 40
#: characters of a cell printed on a terminal before it is cut with an ellipsis
TERMINAL_CELL = 40


def fail(message: str, code: int = 1) -> None:
    """Print a one-line error and exit."""
    err.print(Text.assemble(("error:", "red"), " ", message), soft_wrap=True)  # data as text, never markup
    raise typer.Exit(code)


def is_terminal(stream) -> bool:
    """Whether `stream` is an interactive terminal: not a pipe or a file, and not in CI (environment CI set)."""
    try:
        return stream.isatty() and not os.environ.get("CI")
    except (AttributeError, ValueError):  # no isatty, or closed
        return False


def _bar():
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn,
                               TimeElapsedColumn)

    return Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), TextColumn("{task.fields[label]}"), console=err, transient=True)


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


def flat(df: pl.DataFrame) -> pl.DataFrame:
    """The frame with nested columns (lists, structs) as text, as CSV can hold them."""
    import polars as pl

    nested = {c: t for c, t in df.schema.items() if t.is_nested()}
    if not nested:
        return df
    return df.with_columns(
        pl.col(c).cast(pl.List(pl.String)).list.join(",") if isinstance(t, (pl.List, pl.Array))
        else pl.col(c).struct.json_encode() for c, t in nested.items())


def _cell(v) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.6g}"
    text = ", ".join(map(_cell, v)) if isinstance(v, (list, tuple)) else str(v)
    return text if len(text) <= TERMINAL_CELL else text[:TERMINAL_CELL - 1] + "…"


def print_table(df: pl.DataFrame, console: Console | None = None) -> None:
    """A readable table on a terminal: the first `TERMINAL_ROWS` rows, the columns that fit the width, each
    row on one line; a line below says what was left out and how to get everything."""
    from rich import box
    from rich.markup import escape
    from rich.table import Table

    console = console or out
    shown = df.head(TERMINAL_ROWS)
    cells = {c: [_cell(v) for v in shown[c].to_list()] for c in df.columns}
    widths = {c: max([len(c), *map(len, cells[c])]) for c in df.columns}
    keep, used = [], -3
    for c in df.columns:  # columns are 3 characters apart (padding and rule), none at the edges
        if keep and used + 3 + widths[c] > console.width:
            break
        keep.append(c)
        used += 3 + widths[c]
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, header_style="bold")
    for c in keep:
        numeric = df.schema[c].is_numeric()
        table.add_column(escape(c), justify="right" if numeric else "left", no_wrap=True, overflow="ellipsis")
    for i in range(shown.height):
        table.add_row(*(escape(cells[c][i]) for c in keep))
    console.print(table, soft_wrap=False)
    left = []
    if shown.height < df.height:
        left.append(f"{df.height - shown.height} of {df.height} rows")
    if len(keep) < len(df.columns):
        rest = df.columns[len(keep):]
        left.append(f"{len(rest)} column(s) ({', '.join(rest[:4])}{', ...' if len(rest) > 4 else ''})")
    if left:
        err.print(f"[dim]{escape(' and '.join(left))} left out; all of them: --out FILE (.csv, .parquet, .json, .md), "
                  "or stdout into a pipe (CSV)[/dim]")
    elif df.height == 0:
        err.print("[dim](no rows)[/dim]")


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
    try:
        _write_file(df, p, ext)
    except OSError as exc:  # a read-only folder, a full disk
        fail(f"{exc.filename or p}: cannot write {p} ({exc.strerror or exc})")
    err.print(Text(f"wrote {df.height} rows to {p}"))


def _write_file(df: pl.DataFrame, p: Path, ext: str) -> None:
    """Write a frame to a file of a known extension."""
    import polars as pl

    p.parent.mkdir(parents=True, exist_ok=True)
    if ext == ".csv":
        flat(df).write_csv(p)
    elif ext == ".parquet":
        df.write_parquet(p, compression="zstd")
    elif ext == ".json":
        df.write_json(p)
    elif ext == ".md":
        with pl.Config(tbl_formatting="MARKDOWN", tbl_hide_column_data_types=True, tbl_hide_dataframe_shape=True,
                       tbl_rows=-1, tbl_cols=-1, tbl_width_chars=10_000, fmt_str_lengths=200):
            p.write_text(str(df) + "\n")


#: the stores this command opened (where a failed read is looked for an unreadable file)
OPENED: list = []


def outside_store(out: str | Path, store: str | Path) -> None:
    """Exit with one line when the folder `out` lies inside the store `store` (what is written there would
    make the store unreadable)."""
    where, home = Path(out).resolve(), Path(store).resolve()
    if where == home or home in where.parents:
        fail(f"{out}: inside the store {store}; give a folder outside the store")


def open_store(path: str):
    """Open an existing store for the rest of the command (its read lock held: no commit of another
    process happens meanwhile), with a one-line error when it is not one or lacks a file it lists."""
    from ..store import Store, StoreError

    try:
        st = Store(path).hold_reading()
        st.verify()  # every file it lists is there, before any work
    except StoreError as exc:
        fail(str(exc))
    OPENED.append(st.path)
    for notice in st.notices:
        err.print(notice, markup=False, soft_wrap=True)
    return st


def unreadable_store_file() -> str | None:
    """One line naming an unreadable file of a store this command opened, if there is one."""
    from ..store.check import unreadable

    for path in dict.fromkeys(OPENED):
        bad = unreadable(path)
        if bad:
            more = f" (and {len(bad) - 1} more)" if len(bad) > 1 else ""
            return (f"{path / bad[0].path}: {bad[0].detail}{more}; `cocopipe check --store {path} --repair` "
                    "drops what cannot be read")
    return None
