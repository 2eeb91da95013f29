"""The `cocopipe` command line: every module in `pipeline.commands` adds its commands."""
from __future__ import annotations

import importlib
import os
import pkgutil
import sys

import typer

from . import commands

app = typer.Typer(
    name="cocopipe",
    help="COCO/BBOB benchmarking logs into a Parquet store; COCO measures, tables, charts and reports.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

for mod in sorted(m.name for m in pkgutil.iter_modules(commands.__path__) if not m.name.startswith("_")):
    importlib.import_module(f"{commands.__name__}.{mod}").register(app)


def main() -> None:
    """Console-script entry point; output piped into a reader that stops early (`| head`) ends quietly;
    a store that cannot be used, or an unreadable file in it, is a one-line error."""
    import polars as pl

    try:
        app()
    except (BrokenPipeError, OSError) as exc:
        if not isinstance(exc, BrokenPipeError) and "Broken pipe" not in str(exc):
            _store_failure(exc)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at interpreter exit
        sys.exit(141)
    except (Exception, pl.exceptions.PanicException) as exc:  # noqa: BLE001 - Polars names no file of a damaged store
        _store_failure(exc)


def _store_failure(exc: BaseException) -> None:
    """Exit with one line: the store error, or the unreadable store file behind a failed read;
    re-raise anything else."""
    import polars as pl
    from rich.markup import escape

    from .commands._common import err, unreadable_store_file
    from .store.errors import StoreError

    line = str(exc) if isinstance(exc, StoreError) else None
    if isinstance(exc, (pl.exceptions.PolarsError, pl.exceptions.PanicException, OSError)):
        line = unreadable_store_file()
    if line:
        err.print(f"[red]error:[/red] {escape(line)}", soft_wrap=True)
        sys.exit(1)
    raise exc


if __name__ == "__main__":
    main()
