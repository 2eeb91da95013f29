"""The commands made from the registry: every measure that declares a `command`
(`pipeline.measures.registry.Measure.command`) gets one, with the selection's options, --out, --targets
(when it reads hitting times), --executor, and an option per setting (`Param.option`), whose help, type
and default come from the setting's declaration. It writes `Analysis.measure(name, ...)`; on Ray, each
part's rows as its task ends (`Analysis.stream`).

Reading the declarations loads no library (`registry.declaring_modules`): `cocopipe --help` stays fast.
"""
from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Annotated, Any, Optional

import typer

from ._common import error_text, fail, write_parts, write_table
from ._options import ExecutorOpt, OutOpt, RunlengthRefOpt, SelectionOptions, TargetsOpt, uses

P = inspect.Parameter


def option_type(param) -> type | None:
    """The Python type typer reads a setting as (None: the setting is not offered on the command line)."""
    from ..measures.registry import BOOL, NONE, TEXT, Interval, Options

    kinds = [c for c in param.constraints if c is not NONE]
    optional = len(kinds) < len(param.constraints)
    if len(kinds) != 1:
        return None
    c = kinds[0]
    t = (bool if c is BOOL else c.kind if isinstance(c, Interval) else str if isinstance(c, Options) or c is TEXT
         else None)
    return None if t is None else (Optional[t] if optional else t)  # noqa: UP045 - typer reads Optional


def parameters(measure) -> list[P]:
    """The command's parameters: the selection, --out, --targets and --runlength-reference (hitting times),
    --executor, then each setting offered."""
    params = [P("sel", P.KEYWORD_ONLY, annotation=SelectionOptions), P("out", P.KEYWORD_ONLY, annotation=OutOpt,
                                                                        default=None)]
    if measure.targets:
        params += [P("targets", P.KEYWORD_ONLY, annotation=TargetsOpt, default=None),
                   P("runlength_reference", P.KEYWORD_ONLY, annotation=RunlengthRefOpt, default=None)]
    params.append(P("executor", P.KEYWORD_ONLY, annotation=ExecutorOpt, default="local"))
    for p in measure.settings.params:
        t = option_type(p) if p.option else None
        if t is None:
            continue
        flag = f"--{p.name.replace('_', '-')}"
        if t is bool:
            flag = f"{flag}/--no-{p.name.replace('_', '-')}"
        help_ = f"{p.help.rstrip('.')} ({p.accepts})."
        params.append(P(p.name, P.KEYWORD_ONLY, annotation=Annotated[t, typer.Option(flag, help=help_)],
                        default=p.default))
    return params


def command(measure) -> Callable:
    """The command of `measure`."""
    names = [p.name for p in measure.settings.params]

    def run(**kwargs: Any) -> None:
        sel, out, executor = kwargs.pop("sel"), kwargs.pop("out"), kwargs.pop("executor")
        targets, reference = kwargs.pop("targets", None), kwargs.pop("runlength_reference", None)
        if reference is not None and targets != "runlength":
            fail("--runlength-reference applies to --targets runlength only")
        settings = {k: v for k, v in kwargs.items() if k in names}
        a = sel.analysis(executor)
        given = dict(reference=reference, **settings)
        args = (targets,) if measure.targets else ()
        if not measure.targets:
            given.pop("reference")
        try:
            if executor == "ray":  # each part's rows written as its task ends
                write_parts(a.stream(measure.name, *args, **given), out)
            else:
                write_table(a.measure(measure.name, *args, **given).collect(), out)
        except ValueError as exc:  # a setting refused: "--samples 0: expected an integer >= 1"
            fail(error_text(exc))

    run.__name__ = measure.command.replace("-", "_")
    run.__doc__ = f"{measure.summary} ({measure.seed}; `Analysis.{measure.name}`)."
    run.__signature__ = inspect.Signature(parameters(measure), return_annotation=None)
    return run


def register(app: typer.Typer) -> None:
    """Add a command for every registered measure that declares one."""
    from ..measures.registry import load

    for measure in load().values():
        if measure.command:
            app.command(name=measure.command, rich_help_panel="Measures")(uses(SelectionOptions)(command(measure)))
