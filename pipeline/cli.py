"""The `cocopipe` command line: every module in `pipeline.commands` adds its commands."""
from __future__ import annotations

import importlib
import pkgutil

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
    """Console-script entry point."""
    app()


if __name__ == "__main__":
    main()
