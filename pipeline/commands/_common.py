"""Helpers shared by the CLI commands: consoles, progress, errors, writing tables."""
from __future__ import annotations

import sys
from contextlib import contextmanager
from pathlib import Path

import polars as pl
import typer
from rich.console import Console

err = Console(stderr=True, highlight=False)
out = Console(highlight=False)


def fail(message: str, code: int = 1) -> None:
    """Print a one-line error and exit."""
    err.print(f"[red]error:[/red] {message}", soft_wrap=True)
    raise typer.Exit(code)


@contextmanager
def progress(total: int, description: str):
    """A progress bar on a terminal; nothing in pipes and CI. Yields an `advance(label)` function."""
    if not err.is_terminal:
        yield lambda label="": None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("{task.fields[label]}"), console=err, transient=True) as bar:
        task = bar.add_task(description, total=total, label="")
        yield lambda label="": bar.update(task, advance=1, label=label)


def write_table(df: pl.DataFrame, path: str | None) -> None:
    """Write a frame by the file's extension (.csv, .parquet, .json, .md), or print it."""
    if path is None or path == "-":
        if path == "-":
            df.write_csv(sys.stdout)
            return
        with pl.Config(tbl_rows=40, tbl_cols=20, tbl_width_chars=160, fmt_str_lengths=40):
            out.print(str(df), soft_wrap=True)
        return
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    ext = p.suffix.lower()
    if ext == ".csv":
        df.write_csv(p)
    elif ext == ".parquet":
        df.write_parquet(p, compression="zstd")
    elif ext == ".json":
        df.write_json(p)
    elif ext == ".md":
        with pl.Config(tbl_formatting="MARKDOWN", tbl_hide_column_data_types=True, tbl_hide_dataframe_shape=True,
                       tbl_rows=-1, tbl_cols=-1, tbl_width_chars=10_000, fmt_str_lengths=200):
            p.write_text(str(df) + "\n")
    else:
        fail(f"{path}: unknown output format {ext!r} (use .csv, .parquet, .json or .md)")
    err.print(f"wrote {df.height} rows to {p}")


#: the stores this command opened (where a failed read is looked for an unreadable file)
OPENED: list = []


def open_store(path: str):
    """Open an existing store for the rest of the command (its read lock held: no commit of another
    process happens meanwhile), with a one-line error when it is not one."""
    from ..store import Store, StoreError

    try:
        st = Store(path).hold_reading()
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


# -- options shared by the analysis commands -------------------------------------------------
from typing import Annotated, Optional  # noqa: E402

StoreOpt = Annotated[str, typer.Option("--store", "-s", help="Store folder.")]
OutOpt = Annotated[Optional[str], typer.Option("--out", "-o", help="Output file (.csv, .parquet, .json, .md); '-' for CSV on stdout.")]
SuiteOpt = Annotated[Optional[list[str]], typer.Option("--suite", help="Only these suites.")]
AlgOpt = Annotated[Optional[list[str]], typer.Option("--algorithm", "-a", help="Only these algorithms.")]
FuncOpt = Annotated[Optional[list[int]], typer.Option("--function", "-f", help="Only these functions.")]
DimOpt = Annotated[Optional[list[int]], typer.Option("--dimension", "-d", help="Only these dimensions.")]
BudgetOpt = Annotated[Optional[str], typer.Option("--max-budget", help="Cut every trial at B evaluations, or Nx = N x dimension.")]
AllInstOpt = Annotated[bool, typer.Option("--all-instances", help="Keep instances cocopp leaves out by default (bbob-biobj 11+).")]
ExactOpt = Annotated[bool, typer.Option("--exact-hits", help="Hitting times from every record by seed 000's definition, not cocopp's .dat-only reading.")]
IndicatorOpt = Annotated[str, typer.Option("--indicator", help="Biobjective indicator values: logged or recomputed.")]
TargetsOpt = Annotated[Optional[str], typer.Option("--targets", "-t", help="bbob, biobj, table, scaling, or v1,v2,... (default: the suite's standard set).")]


ExecutorOpt = Annotated[str, typer.Option("--executor", help="local, or ray: groups of algorithms as Ray tasks (pip install 'cocopipe[ray]').")]


def analysis(store: str, suite=None, algorithm=None, function=None, dimension=None, max_budget=None,
             all_instances=False, exact=False, indicator="logged", executor="local"):
    """An `Analysis` of a store from the shared options, with one-line errors."""
    from ..api import Analysis

    st = open_store(store)
    try:
        return Analysis(st, suite=suite, algorithm=algorithm, function=function, dimension=dimension,
                        max_budget=max_budget, all_instances=all_instances, exact=exact, indicator=indicator,
                        executor=executor)
    except ValueError as exc:
        fail(str(exc))
