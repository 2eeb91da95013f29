"""The `cocopipe` command line: every module in `pipeline.commands` adds its commands."""
from __future__ import annotations

import importlib
import os
import pkgutil
import sys

import typer

from . import commands
from .commands import _common  # noqa: F401 - commands._common for main()

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
    from .store.errors import StoreError

    try:
        app()
    except (BrokenPipeError, OSError) as exc:
        if not isinstance(exc, BrokenPipeError) and "Broken pipe" not in str(exc):
            _store_failure(exc)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at interpreter exit
        sys.exit(141)
    except StoreError as exc:
        commands._common.fail(str(exc))
    except Exception as exc:  # noqa: BLE001 - a Polars error reading a damaged store names no file
        _store_failure(exc)


def _store_failure(exc: BaseException) -> None:
    """Exit with one line naming the unreadable store file behind `exc`; re-raise when there is none."""
    import polars as pl

    if isinstance(exc, (pl.exceptions.PolarsError, pl.exceptions.PanicException, OSError)):
        line = commands._common.unreadable_store_file()
        if line:
            from rich.markup import escape

            commands._common.err.print(f"[red]error:[/red] {escape(line)}", soft_wrap=True)
            sys.exit(1)
    raise exc


if __name__ == "__main__":
    main()
