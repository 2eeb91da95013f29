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


def metavar(param) -> str:
    """How the option's value is written, from the setting's constraints: INTEGER, NUMBER, a|b, A,B,..."""
    from ..measures.registry import NONE, TEXT, Interval, Items, Options

    words = [("INTEGER" if c.kind is int else "NUMBER") if isinstance(c, Interval) else "|".join(c.values)
             if isinstance(c, Options) else "A,B,..." if isinstance(c, Items) else "TEXT" if c is TEXT else "VALUE"
             for c in param.constraints if c is not NONE]
    return "|".join(dict.fromkeys(words)) or "VALUE"


def offered(param) -> bool:
    """Whether the command line can write the setting (an option of the command): a frame cannot."""
    from ..measures.registry import FRAME, NONE

    return param.option and any(c is not NONE and c is not FRAME for c in param.constraints)


def parameters(measure) -> list[P]:
    """The command's parameters: the selection, --out, --targets and --runlength-reference (hitting times),
    --executor, then each setting offered: a boolean as a flag, any other as text read by the setting's own
    parser (`Param.parse`: a list as 10,100), its default the declaration's."""
    from ..measures.registry import BOOL

    params = [P("sel", P.KEYWORD_ONLY, annotation=SelectionOptions), P("out", P.KEYWORD_ONLY, annotation=OutOpt,
                                                                        default=None)]
    if measure.targets:
        params += [P("targets", P.KEYWORD_ONLY, annotation=TargetsOpt, default=None),
                   P("runlength_reference", P.KEYWORD_ONLY, annotation=RunlengthRefOpt, default=None)]
    params.append(P("executor", P.KEYWORD_ONLY, annotation=ExecutorOpt, default="local"))
    for p in measure.settings.params:
        if not offered(p):
            continue
        flag = f"--{p.name.replace('_', '-')}"
        help_ = f"{p.help.rstrip('.')} ({p.accepts})."
        if p.constraints == (BOOL,):
            option = typer.Option(f"{flag}/--no-{p.name.replace('_', '-')}", help=help_)
            params.append(P(p.name, P.KEYWORD_ONLY, annotation=Annotated[bool, option], default=p.default))
            continue
        default = ",".join(map(str, p.default)) if isinstance(p.default, (tuple, list)) else p.default
        option = typer.Option(flag, help=f"{help_} [default: {default}]", metavar=metavar(p), show_default=False)
        params.append(P(p.name, P.KEYWORD_ONLY, annotation=Annotated[Optional[str], option], default=None))  # noqa: UP045
    return params


def read_settings(measure, given: dict[str, Any]) -> dict[str, Any]:
    """The settings the command line gave, each read by its declaration (`Param.parse`; a flag as given),
    checked together (`Measure.configure`) before any store is read: `InvalidSetting` naming the first refused."""
    params = {p.name: p for p in measure.settings.params}
    settings = {k: v if isinstance(v, bool) else params[k].parse(v) for k, v in given.items()
                if k in params and v is not None}
    measure.configure(**settings)
    return settings


def command(measure) -> Callable:
    """The command of `measure`."""
    def run(**kwargs: Any) -> None:
        sel, out, executor = kwargs.pop("sel"), kwargs.pop("out"), kwargs.pop("executor")
        targets, reference = kwargs.pop("targets", None), kwargs.pop("runlength_reference", None)
        if reference is not None and targets != "runlength":
            fail("--runlength-reference applies to --targets runlength only")
        try:
            settings = read_settings(measure, kwargs)
        except ValueError as exc:  # "--budgets [-5.0]: expected a list of numbers > 0"
            fail(error_text(exc))
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
