"""`cocopipe targets` (target sets, runlength-based targets) and `cocopipe reference ...` (reference algorithms)."""
from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from ._common import NUMBERS_APART, fail, open_store, outside_store, plural, say, write_table
from ._options import READING, OutOpt, ReferenceOpt, RunlengthRefOpt, SelectionOptions, one_suite, uses


def _name_it(option: str, store: str) -> None:
    """Fail: a reference in a store must be named; say which algorithms the store holds."""
    from ..api import Analysis

    algs = Analysis(open_store(store)).algorithms()
    held = ", ".join(algs[:8]) + (f" and {len(algs) - 8} more" if len(algs) > 8 else "")
    fail(f"{option}: name the reference algorithm of the store {store} (it holds {held}); without --store, "
         "a packaged set (`cocopipe reference list`)")


def _reference(name: str, store: str | None, suite: str | None, option: str = "--reference"):
    """The reference as an Analysis: an algorithm of `store`, else a packaged set."""
    from .. import reference_sets as ref
    from ..api import Analysis
    from ..selection import open_reference

    if name is None:
        if store:
            _name_it(option, store)
        name = ref.DEFAULT_FOR_SUITE.get(suite or "bbob")
        if name is None:
            fail(f"suite {suite!r} has no default reference: choose one of {', '.join(ref.known_references())}")
    if store:
        a = Analysis(open_store(store), algorithm=name, suite=suite)
        if not a.algorithms():
            fail(f"{store}: no algorithm {name!r}{f' on suite {suite}' if suite else ''} (build one with `cocopipe reference build`)")
        return a
    try:
        return Analysis(open_reference(name, suite))
    except (ValueError, FileNotFoundError) as exc:
        fail(str(exc))


@uses(SelectionOptions, only=("store", "suite"), store=None)
def targets(
    sel: SelectionOptions,
    runlength: Annotated[bool, typer.Option("--runlength", help="Runlength-based targets of a reference algorithm (seed 000).")] = False,
    runlength_reference: RunlengthRefOpt = None,
    budgets: Annotated[str, typer.Option("--budgets", "-b", help="31 (a count: log-uniform budgets 0.5..50 x dimension, the ECDF setting) or budgets per dimension v1,v2,... (with the 'not chosen before' rule).")] = "31",
    factor: Annotated[Optional[float], typer.Option("--factor", help="Factor of the 'not chosen before' rule (default 1 for a count, 10^0.04 for a list; cocopp's tables use 10^0.2 = 1.585).")] = None,
    targets_: Annotated[Optional[str], typer.Option("--targets", "-t", help="Without --runlength: a named set (bbob, biobj, table, scaling) or v1,v2,...")] = None,
    out: OutOpt = None,
) -> None:
    """Target values: runlength-based ones per (function, dimension, budget) of a reference algorithm (a
    packaged set, or with --store an algorithm of that store) on one --suite, or a fixed set."""
    from ..hits import targets as tg
    from ..measures import runlength as rl

    store, suite, reference = sel.store, one_suite(sel.suite), runlength_reference
    if reference is not None and not runlength:
        fail("--runlength-reference applies to --runlength only")
    if not runlength:
        try:
            values = tg.parse(targets_, suite or "bbob")
        except ValueError as exc:
            fail(str(exc))
        write_table(tg.frame(values).collect(), out)
        return
    try:
        spec = rl.parse_budgets(budgets)
    except ValueError as exc:
        fail(f"--budgets: {exc}")
    ref = _reference(reference, store, suite, "--runlength-reference")
    try:
        df = rl.runlength_targets(ref, spec, factor=factor).collect()
    except ValueError as exc:
        fail(str(exc))
    if df.height == 0:
        fail(f"reference {reference or ''!r} has no data{f' on suite {suite}' if suite else ''}")
    cols = ["function", "dimension", "budget_per_dimension", "target"]
    write_table(df.select(cols) if df["suite"].n_unique() == 1 else df, out)


@uses(SelectionOptions, without=READING)
def build(
    sel: SelectionOptions,
    name: Annotated[str, typer.Option("--name", "-n", help="Name of the reference algorithm to add to the store.")],
    into: Annotated[Optional[str], typer.Option("--into", help="Write the reference into this store instead (created if missing).")] = None,
    targets_: Annotated[Optional[str], typer.Option("--targets", "-t", help="Targets to build on (default: the suite's standard set, extended upwards to the first records).")] = None,
    out: OutOpt = None,
) -> None:
    """The artificial best algorithm (per target the algorithm with the smallest aRT), stored as an algorithm."""
    from ..hits import targets as tg
    from ..references import build_reference
    from ..store import Store, StoreError

    if out and out != "-":
        outside_store(out, sel.store, into)
    a = sel.analysis()
    try:
        dest = Store(into, create=True) if into else a.store
        values = tg.parse(targets_) if targets_ is not None else None
        ch = build_reference(a, name, dest, values)
    except (ValueError, StoreError) as exc:
        fail(str(exc))
    counts = ch.group_by("chosen").len().sort("len", descending=True)
    problems = plural(ch.select("suite", "function", "dimension").n_unique(), "problem")
    say(f"built {name} on {problems} into {dest.path}; targets taken from "
        + ", ".join(f"{c} {n}" for c, n in counts.iter_rows()))
    if out:
        write_table(ch, out)


def list_(out: OutOpt = None) -> None:
    """The packaged reference sets: name, suite, algorithm, functions, dimensions."""
    import polars as pl

    from ..reference_sets import PUBLISHED
    from ..selection import open_reference

    rows = []
    for short, sets in PUBLISHED.items():
        for suite, full in sets.items():
            runs = open_reference(full).runs().collect()
            rows.append((short, suite, full, runs["function"].n_unique(),
                         NUMBERS_APART.join(str(d) for d in sorted(runs["dimension"].unique()))))
    write_table(pl.DataFrame(rows, schema=["name", "suite", "algorithm", "functions", "dimensions"], orient="row"), out)


@uses(SelectionOptions, only=("store", "suite"), store=None)
def choices(sel: SelectionOptions, reference: ReferenceOpt = None, out: OutOpt = None) -> None:
    """Which algorithm a reference took per (function, dimension, target): a packaged set (default: cocopp's
    reference of the suite, best2009 on bbob), or with --store an algorithm of that store."""
    from .. import reference_sets as ref

    store, suite = sel.store, one_suite(sel.suite)
    if reference is None:
        if store:
            _name_it("--reference", store)
        reference = ref.DEFAULT_FOR_SUITE.get(suite or "bbob", "best2009")
    try:
        lf = ref.choices(open_store(store), reference) if store else ref.reference_choices(reference, suite)
    except ValueError as exc:
        fail(str(exc))
    df = lf.collect()
    if df.height == 0:
        fail(f"no choices recorded for {reference!r}{f' in {store}' if store else ''}")
    write_table(df, out)


def package(
    sources: Annotated[list[Path], typer.Argument(help="The published archives (e.g. ../shared/data/refalgs/*.tar.gz).")],
    out: Annotated[Optional[str], typer.Option("--out", "-o", help="Folder to (re)write (default: the package's data/refalgs).")] = None,
) -> None:
    """Regenerate the packaged reference store from the published archives."""
    from ..references import package_references

    missing = [str(p) for p in sources if not p.is_file()]
    if missing:
        fail(f"{missing[0]}: no such file")
    try:
        path = package_references(sources, out)
    except (ValueError, FileNotFoundError) as exc:
        fail(str(exc))
    say(f"wrote {plural(len(sources), 'reference set')} to {path}")


def register(app: typer.Typer) -> None:
    """Add the commands of this module."""
    app.command()(targets)
    ref_app = typer.Typer(help="Reference algorithms: build the best algorithm of a set, list and inspect reference sets.",
                          no_args_is_help=True)
    app.add_typer(ref_app, name="reference")
    ref_app.command("build")(build)
    ref_app.command("list")(list_)
    ref_app.command("choices")(choices)
    ref_app.command("package")(package)
