"""The options several commands share, each declared once.

An option one command alone has is declared in that command's signature. An option several commands
share is declared here, once: as a type to annotate a parameter with (`out: OutOpt = None`), or, for
the options that choose and read trials (--store, --suite, --algorithm, --function, --dimension,
--all-instances, --max-budget, --exact-hits, --indicator), as a field of the group `SelectionOptions`.
A command takes that group whole with `uses`, which hands it one object whose values are parsed
(`--max-budget 100x` as a `Budget`)::

    @app.command()
    @uses(SelectionOptions, without=("exact",))
    def profile(sel: SelectionOptions, out: OutOpt = None, ...) -> None:
        a = sel.analysis()  # the store opened, the selection checked: one-line errors

`cocopipe profile --help` lists every option of the group but --exact-hits, then the command's own.

Loaded for every command, even `--help`: it imports typer only (polars and the measures are imported
when a command runs).
"""
from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from ._common import error_text, fail, note, open_store, plural

if TYPE_CHECKING:
    from ..api import Analysis
    from ..hits.budget import Budget

#: the store the commands read when no --store is given
STORE = "cocopipe-store"
#: `pip install` of an extra in help text (typer reads help as rich markup, where [ray] would be a tag)
RAY_EXTRA = "pip install 'cocopipe\\[ray]'"

def setting(name: str, measure: str | None = None, flag: str | None = None) -> Callable[[Any], Any]:
    """The parser of an option that sets a declared setting: `name` of the registered `measure`, else the
    constant `name` of `pipeline.measures.catalog` (ALPHA, CORRECTION). The option's text is read and checked
    by the declaration (`Param.parse`), as Python's values are (`Param.check`), while typer reads the command
    line: a refused value is a one-line error naming the option (`flag`, default --name) and the value."""
    def parse(value: Any) -> Any:
        from ..measures import catalog
        from ..measures.registry import InvalidSetting, get

        param = (next(p for p in get(measure).settings.params if p.name == name) if measure
                 else getattr(catalog, name))
        try:
            return param.parse(value) if isinstance(value, str) else param.check(value)
        except InvalidSetting as exc:  # "--samples 1.5: expected an integer >= 1"
            fail(error_text(exc, {param.name: flag or f"--{param.name.replace('_', '-')}"}))

    parse.__name__ = f"{measure or 'catalog'}.{name}"
    return parse


# -- the options, one declaration each --------------------------------------------------------------
StoreOpt = Annotated[Optional[str], typer.Option("--store", "-s", help="Store folder.")]
SuiteOpt = Annotated[Optional[list[str]], typer.Option("--suite", help="Only these suites.")]
AlgOpt = Annotated[Optional[list[str]], typer.Option("--algorithm", "-a", help="Only these algorithms.")]
FuncOpt = Annotated[Optional[list[int]], typer.Option("--function", "-f", help="Only these functions.")]
DimOpt = Annotated[Optional[list[int]], typer.Option("--dimension", "-d", help="Only these dimensions.")]
AllInstOpt = Annotated[Optional[bool], typer.Option(
    "--all-instances/--instances-of-interest",
    help="Keep instances cocopp leaves out by default (bbob-biobj 11+).")]
BudgetOpt = Annotated[Optional[str], typer.Option(
    "--max-budget", metavar="B", help="Cut every trial at B evaluations, or Nx = N x dimension.")]
ExactOpt = Annotated[bool, typer.Option(
    "--exact-hits", help="A target is hit at the first evaluation whose best precision is at or below it, in any "
                         "record (.dat and .tdat). Default: cocopp's rule, from the .dat records alone, where a "
                         "precision within 1e-9 (relative) above the target hits it too.")]
IndicatorOpt = Annotated[str, typer.Option("--indicator", help="Biobjective indicator values: logged or recomputed.")]
ValuesOpt = Annotated[bool, typer.Option(
    "--values", help="Measure the logged values of the IOHprofiler runs that have no known optimum, in place of "
                     "precisions: targets are values (--targets v1,v2,...; default: taken from the data), reached "
                     "at or below them (at or above when the log says maximisation); docs/ioh.md.")]

OutOpt = Annotated[Optional[str], typer.Option(
    "--out", "-o", help="Output file (.csv, .parquet, .json, .md); '-' for CSV on stdout.")]
TargetsOpt = Annotated[Optional[str], typer.Option(
    "--targets", "-t", help="bbob, biobj, table, scaling, runlength (runlength-based targets of each suite's "
                            "reference algorithm), or v1,v2,... (default: the suite's standard set).")]
ReferenceOpt = Annotated[Optional[str], typer.Option(
    "--reference", "-r", help="Reference algorithm: an algorithm of the store, or a packaged set (best2009, best09-16, "
                              "best2016, best2019, or a full name such as best2009-bbob-noisy).")]
RunlengthRefOpt = Annotated[Optional[str], typer.Option(
    "--runlength-reference", metavar="NAME",
    help="Reference algorithm of the runlength-based targets (cocopp's reference_data): a packaged set, best2009, "
         "best09-16, best2016, best2019 or a full name such as best2009-bbob-noisy (default: cocopp's reference of "
         "each suite, best2009 on bbob).")]
GroupsOpt = Annotated[Optional[list[str]], typer.Option(
    "--group", "-g",
    help="Only these groups: fN (one function), a cocopp group (separ, lcond, ...), all. Default: every level.")]
BudgetsOpt = Annotated[Optional[str], typer.Option(
    "--budgets", "-b", help="Budgets v1,v2,...: evaluations, or with x multiples of the dimension (all alike), e.g. "
                            "10x,100x.")]
SeedOpt = Annotated[Optional[int], typer.Option(
    "--seed", parser=setting("seed", "art"), help="Seed of the random draws (simulated restarts, bootstrap, Glicko-2 games).")]
SamplesOpt = Annotated[Optional[int], typer.Option(
    "--samples", parser=setting("samples", "art"), help="Simulated restarts drawn per problem (cocopp: 100 for ECDFs, 1000 for the aRT dispersion).")]
ExecutorOpt = Annotated[str, typer.Option(
    "--executor", help=f"local (threads in this process) or ray (tasks on a Ray cluster; {RAY_EXTRA}).")]



# -- parsing at the edge ----------------------------------------------------------------------------
def parse_budget(text: str | None) -> Budget | None:
    """--max-budget as a `Budget` (None: no cut), or a one-line error."""
    from ..hits.budget import Budget

    if text is not None and not text.strip():  # given, but empty: not "no cut"
        fail(f"--max-budget {text!r}: expected evaluations (1000) or a multiple of the dimension (100x)")
    try:
        return Budget.parse(text)
    except ValueError as exc:
        fail(f"--max-budget: {exc}")


def parse_budgets(text: str, option: str = "--budgets") -> list[Budget]:
    """A list of budgets alike (`catalog.parse_budgets`), or a one-line error naming the option."""
    from ..measures.catalog import parse_budgets

    try:
        return parse_budgets(text)
    except ValueError as exc:  # "--budgets [-5]: expected a list of numbers > 0"
        fail(error_text(exc, {"budgets": option}))


def one_suite(suite: list[str] | None) -> str | None:
    """The one --suite given (None: none), or a one-line error when there are several."""
    if suite and len(suite) > 1:
        fail(f"--suite: give one suite (got {', '.join(suite)})")
    return suite[0] if suite else None


# -- groups of options ------------------------------------------------------------------------------
def option(declared: Any, default: Any = None, parse: Callable[[Any], Any] | None = None):
    """A field of an option group: the option `declared` above (a typer annotation), its default, and
    `parse`, which turns what typer read into the field's value (one-line errors)."""
    return field(default=default, metadata={"option": declared, "parse": parse})


@dataclass(frozen=True)
class SelectionOptions:
    """Which trials a command reads and how (the command line of a `pipeline.selection.Selection`)."""

    store: str | None = option(StoreOpt, STORE)
    suite: list[str] | None = option(SuiteOpt)
    algorithm: list[str] | None = option(AlgOpt)
    function: list[int] | None = option(FuncOpt)
    dimension: list[int] | None = option(DimOpt)
    all_instances: bool | None = option(AllInstOpt, False)
    max_budget: Budget | None = option(BudgetOpt, None, parse_budget)
    exact: bool = option(ExactOpt, False)
    indicator: str = option(IndicatorOpt, "logged")
    values: bool = option(ValuesOpt, False)

    @property
    def filters(self) -> dict:
        """suite, algorithm, function and dimension as given (None: all)."""
        return dict(suite=self.suite, algorithm=self.algorithm, function=self.function, dimension=self.dimension)

    def analysis(self, executor: str = "local") -> Analysis:
        """An `Analysis` of the store (by its absolute path on Ray): opened, the selection checked to match
        trials, one-line errors; a note on the IOHprofiler runs left out for want of a known optimum."""
        from ..api import Analysis
        from ..selection import Selection

        # Ray tasks read the store by this path, in working folders of their own
        st = open_store(self.store)  # made absolute at the edge (Store's location): every task reads the same one
        try:
            sel = Selection(st, **self.filters, indicator=self.indicator, max_budget=self.max_budget,
                            all_instances=bool(self.all_instances), exact=bool(self.exact))
            a = Analysis(sel.check(), executor=executor)
        except ValueError as exc:
            fail(str(exc))
        unknown = a.precision_unknown()
        if self.values:  # the logged values of the runs without a known optimum, alone
            if not unknown.height:
                fail("--values: no IOHprofiler run of the selection lacks a known optimum (its numbers are "
                     "precisions: leave out --values)")
            note(f"--values: {plural(unknown['runs'].sum(), 'IOHprofiler run')} without a known optimum, measured on "
                 "their logged values (raw_y), not precisions")
            return a.values()
        if unknown.height:  # IOHprofiler runs whose optimum is unknown: no precision, no target
            suites = ", ".join(sorted(set(unknown["suite"])))
            note(f"{plural(unknown['runs'].sum(), 'IOHprofiler run')} ({suites}) with no known optimum have no "
                 "precision: ert, aocc, budget and fixed-budget-ecdf measure their logged values (column quantity = "
                 "value), the other measures leave them out (--values measures their values alone)")
        return a


#: the options of `SelectionOptions` that say how trials are measured, not which are read (commands that
#: measure nothing leave them out)
READING = ("max_budget", "exact", "indicator", "values")


def uses(group: type, *, only: tuple[str, ...] | None = None, without: tuple[str, ...] = (), **defaults):
    """Decorate a command that takes an option group: its parameter annotated with `group` becomes the
    group's options in the signature typer reads (those `only` names, less those `without`; `defaults`
    replace some defaults), and the command is called with one `group` object built from them (the
    options it does not offer keep the group's defaults)."""
    fields = {f.name: f for f in dataclasses.fields(group)}
    unknown = set(only or ()) | set(without) | set(defaults)
    if unknown - set(fields):
        raise TypeError(f"{group.__name__} has no option {', '.join(sorted(unknown - set(fields)))}")
    offered = [f for f in fields.values() if (only is None or f.name in only) and f.name not in without]
    if stray := set(defaults) - {f.name for f in offered}:
        raise TypeError(f"a default for an option not offered: {', '.join(sorted(stray))}")

    def decorate(command: Callable) -> Callable:
        signature = inspect.signature(command, eval_str=True)
        names = [p.name for p in signature.parameters.values() if p.annotation is group]
        if len(names) != 1:
            raise TypeError(f"{command.__name__}: expected one parameter annotated {group.__name__}")
        name = names[0]
        params = []
        for p in signature.parameters.values():
            if p.name != name:
                params.append(p.replace(kind=inspect.Parameter.KEYWORD_ONLY))
                continue
            for f in offered:
                if f.name in signature.parameters:
                    raise TypeError(f"{command.__name__}: parameter {f.name!r} is also an option of {group.__name__}")
                params.append(inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY, annotation=f.metadata["option"],
                                                default=defaults.get(f.name, f.default)))

        @functools.wraps(command)
        def run(**kwargs):
            from ..measures.registry import InvalidSetting

            given = {}
            for f in offered:
                value = kwargs.pop(f.name)
                given[f.name] = f.metadata["parse"](value) if f.metadata["parse"] else value
            try:
                return command(**kwargs, **{name: group(**given)})
            except InvalidSetting as exc:  # a setting refused where the command did not catch it: by its option
                fail(error_text(exc))

        run.__signature__ = signature.replace(parameters=params)
        run.__annotations__ = {p.name: p.annotation for p in params}
        return run

    return decorate
