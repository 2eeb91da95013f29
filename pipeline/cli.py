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
    """Console-script entry point; output piped into a reader that stops early (`| head`) ends quietly."""
    try:
        app()
    except (BrokenPipeError, OSError) as exc:
        if not isinstance(exc, BrokenPipeError) and "Broken pipe" not in str(exc):
            raise
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at interpreter exit
        sys.exit(141)


if __name__ == "__main__":
    main()
