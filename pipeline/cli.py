"""The `cocopipe` command line: every module in `pipeline.commands` adds its commands.

The command modules import only typer, `commands._common` and `commands._options` when they load;
each command imports what it computes with (polars, scipy, altair, ...) when it runs, so that
`cocopipe --help` and small commands start fast (tests/test_cli.py checks that loading the command
line imports none of them). `app` is built on first use: `from pipeline.cli import app`.
"""
from __future__ import annotations

import gc
import os
import signal
import sys


def _interrupted_while_loading(signum, frame) -> None:
    """Ctrl-C while this module loads: the one line and exit code 130, not an import's traceback."""
    os.write(2, b"cocopipe: interrupted\n")
    os._exit(130)


try:  # until this module has loaded (its last lines put Python's handler back): main thread only
    _LOADING = signal.getsignal(signal.SIGINT) is signal.default_int_handler
    if _LOADING:
        signal.signal(signal.SIGINT, _interrupted_while_loading)
except ValueError:
    _LOADING = False

import importlib  # noqa: E402 - after the handler: a Ctrl-C during these imports ends as one line
import inspect  # noqa: E402

from . import commands  # noqa: E402

#: the commands in the order of a user's work, in panels of the help; commands not named here come last
PANELS: dict[str, tuple[str, ...]] = {
    "Read the logs": ("ingest", "archive", "info", "runs", "check", "biobj"),
    "Measures": ("art", "budget", "ecdf", "profile", "auc", "rank", "targets", "reference"),
    "IOHprofiler's measures": ("ert", "aocc", "fixed-budget-ecdf", "params"),
    "Tables, charts and reports": ("table", "chart", "report", "paper", "explorer"),
    "SQL and other tools": ("query", "export"),
}
OTHER_PANEL = "More commands"
INTERRUPTED = "cocopipe: interrupted"


def one_line_paragraphs(text: str | None) -> str | None:
    """A help text with each paragraph on one line: a docstring's line breaks are where its source
    wrapped, not where the help should break (the terminal wraps it at its own width).

    >>> one_line_paragraphs("Read logs; sources are kept\\n    side by side.\\n\\n    A second paragraph.")
    'Read logs; sources are kept side by side.\\n\\nA second paragraph.'
    """
    if text is None:
        return None
    return "\n\n".join(" ".join(p.split()) for p in inspect.cleandoc(text).split("\n\n"))


def _tidy(typer_app) -> None:
    """Every command of `typer_app` and its groups, recursively: help paragraphs on one line, and the
    help classes that show no value type for a flag (`Command`, `Group`)."""
    from typer.core import TyperCommand, TyperGroup

    from .commands._help import Command, Group

    for info in typer_app.registered_commands:
        info.help = one_line_paragraphs(info.help or info.callback.__doc__)
        info.cls = Command if info.cls in (None, TyperCommand) else info.cls  # typer fills in its own class
    for info in typer_app.registered_groups:
        info.help = one_line_paragraphs(info.help or info.typer_instance.info.help)
        info.cls = Group if info.cls in (None, TyperGroup) else info.cls
        _tidy(info.typer_instance)


def build_app(only: str | None = None):
    """The typer application with every command of `pipeline.commands`, in the order of `PANELS`; with `only`,
    the commands of that one module (`commands/<only>.py`)."""
    import typer  # with click and rich: loaded to build the app, not by `import pipeline.cli`

    from .commands._help import Group, root

    app = typer.Typer(
        name="cocopipe",
        help="COCO/BBOB benchmarking logs into a Parquet store; COCO measures, tables, charts and reports.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        cls=Group,
    )
    app.callback()(root)  # --version

    folder = commands.__path__[0]
    for name in [f"{only}.py"] if only else sorted(os.listdir(folder)):
        if name.endswith(".py") and not name.startswith("_"):
            importlib.import_module(f"{commands.__name__}.{name[:-3]}").register(app)
    _tidy(app)
    order = [c for names in PANELS.values() for c in names]
    panel = {c: p for p, names in PANELS.items() for c in names}

    def rank(name: str | None) -> int:
        return order.index(name) if name in order else len(order)

    for info in app.registered_commands:
        name = _command_name(info)
        info.rich_help_panel = info.rich_help_panel or panel.get(name, OTHER_PANEL)
    for info in app.registered_groups:
        info.rich_help_panel = info.rich_help_panel or panel.get(info.name, OTHER_PANEL)
    app.registered_commands.sort(key=lambda i: rank(_command_name(i)))
    app.registered_groups.sort(key=lambda i: rank(i.name))
    return app


def _command_name(info) -> str:
    """The name a registered typer command goes by (its own, or its function's with dashes)."""
    return info.name or info.callback.__name__.rstrip("_").replace("_", "-")


def app_for(args: list[str]):
    """The application for a command line: when its first word names a command of the module of that name
    (`cocopipe report ...`: commands/report.py), an application of that module's commands alone (loading
    the twenty command modules took 0.2 s of every command's start); else every command (`app`)."""
    name = args[0] if args else ""
    module = name.replace("-", "_")
    if module.isidentifier() and not module.startswith("_") and os.path.isfile(
            os.path.join(commands.__path__[0], f"{module}.py")):
        one = build_app(only=module)
        if name in {_command_name(i) for i in one.registered_commands} | {i.name for i in one.registered_groups}:
            return one
    return globals()["app"] if "app" in globals() else __getattr__("app")


def __getattr__(name: str):
    """`app`, built when first asked for (importing this module stays cheap)."""
    if name == "app":
        globals()["app"] = app = build_app()
        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _interrupted(exc: BaseException | None) -> bool:
    """Whether an exception was caused by Ctrl-C (typer turns KeyboardInterrupt into Exit(130))."""
    while exc is not None:
        if isinstance(exc, KeyboardInterrupt):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def main() -> None:
    """Console-script entry point. Ctrl-C at any moment (while loading or in a command) ends with one line
    and exit code 130; output piped into a reader that stops early (`| head`) ends quietly; a store that
    cannot be used, or an unreadable file in it, is a one-line error."""
    sys.unraisablehook = _lost_interrupt(sys.unraisablehook)
    try:
        _run()
    finally:
        # what is left is freed by the process's end, not collected object by object by the interpreter's exit
        # (after a report, its collection of the imported libraries' and the report's objects took 0.4 s)
        gc.freeze()


def _run() -> None:
    """The command of the command line, its failures turned into messages and exit codes (`main`)."""
    try:
        try:
            app = app_for(sys.argv[1:]) if "app" not in globals() else globals()["app"]
            app()
        except SystemExit as exc:
            if exc.code == 130 and _interrupted(exc):
                raise KeyboardInterrupt from None
            raise
        except KeyboardInterrupt:
            raise
        except (BrokenPipeError, OSError) as exc:
            if not isinstance(exc, BrokenPipeError) and "Broken pipe" not in str(exc):
                _store_failure(exc)
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at interpreter exit
            sys.exit(141)
        except Exception as exc:  # noqa: BLE001 - Polars names no file of a damaged store
            if _interrupted(exc):  # a Ctrl-C that Python wrapped (RuntimeError of __set_name__, while a class is made)
                raise KeyboardInterrupt from None
            _store_failure(exc)
        except BaseException as exc:  # Polars' PanicException derives from BaseException
            if type(exc).__name__ != "PanicException":
                raise
            _store_failure(exc)
    except KeyboardInterrupt:
        _say_interrupted()
        sys.exit(130)


def _say_interrupted() -> None:
    try:
        sys.stderr.write(("\n" if sys.stderr.isatty() else "") + INTERRUPTED + "\n")  # after the terminal's ^C
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def _lost_interrupt(hook):
    """`sys.unraisablehook` that ends the command on a Ctrl-C Python would otherwise drop: a
    KeyboardInterrupt raised inside a callback (an import lock's, a weakref's) is printed as "Exception
    ignored" and the command goes on. It stops there instead, with the one line and exit code 130 (the
    store's journal makes any moment safe to stop at, as a kill is)."""
    def on_unraisable(unraisable) -> None:
        if isinstance(unraisable.exc_value, KeyboardInterrupt):
            import os

            _say_interrupted()
            os._exit(130)
        hook(unraisable)

    return on_unraisable


def _store_failure(exc: BaseException) -> None:
    """Exit with one line: the store error (or a Ray task's that could not reach a file or cocopipe), or
    the unreadable store file behind a failed read;
    re-raise anything else."""
    import polars as pl  # the failure path only: `import pipeline.cli` stays light
    from rich.text import Text

    from .commands._common import err, one_line, unreadable_store_file
    from .distributed import TaskFailed
    from .extras import MissingExtra
    from .store.errors import StoreError

    line = str(exc) if isinstance(exc, (StoreError, MissingExtra, TaskFailed)) else None
    if isinstance(exc, (pl.exceptions.PolarsError, pl.exceptions.PanicException, OSError)):
        line = unreadable_store_file()
    if not line and isinstance(exc, OSError) and exc.filename and exc.strerror:  # a file no command caught
        line = f"{exc.filename}: {exc.strerror}"
    if line:
        err.print(Text.assemble(("error:", "red"), " ", one_line(line)), soft_wrap=True)
        sys.exit(1)
    raise exc


if _LOADING:  # loaded: a Ctrl-C raises KeyboardInterrupt again, which main() turns into the one line
    signal.signal(signal.SIGINT, signal.default_int_handler)


if __name__ == "__main__":
    main()

