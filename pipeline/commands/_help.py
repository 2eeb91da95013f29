"""What the help shows: the command classes (typer's, with no value type beside a flag: `--force` takes
no value, so typer's `<bool>` beside it reads as if it took one) and the options of `cocopipe` itself."""
from __future__ import annotations

from typing import Annotated

import typer
from typer.core import TyperCommand, TyperGroup


def _flags_take_no_type(params: list) -> list:
    """The parameters, each flag's metavar set empty (the help shows it in the type column)."""
    for p in params:
        if getattr(p, "is_flag", False) and p.metavar is None:
            p.metavar = ""
    return params


class Command(TyperCommand):
    """A command whose help shows no type beside its flags."""

    def get_params(self, ctx):
        return _flags_take_no_type(super().get_params(ctx))


class Group(TyperGroup):
    """A group of commands whose help shows no type beside its flags."""

    def get_params(self, ctx):
        return _flags_take_no_type(super().get_params(ctx))


def _version(value: bool) -> None:
    """--version: print the version and exit."""
    if value:
        from .. import __version__

        typer.echo(f"cocopipe {__version__}")
        raise typer.Exit()


def root(version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                               help="Print the version and exit.")] = False) -> None:
    """The options of `cocopipe` itself (before a command)."""
