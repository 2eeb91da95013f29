"""`cocopipe ecdf`: runtime ECDFs (seed 000) per function, function group and over all functions."""
from __future__ import annotations

from typing import Annotated, Optional

import typer

from ._common import error_text, fail, write_parts
from ._options import (ExecutorOpt, GroupsOpt, OutOpt, RunlengthRefOpt, SamplesOpt, SeedOpt, SelectionOptions,
                       TargetsOpt, setting, uses)


def register(app: typer.Typer) -> None:
    """Add the commands of this module."""

    @app.command()
    @uses(SelectionOptions)
    def ecdf(
        sel: SelectionOptions, out: OutOpt = None, targets: TargetsOpt = None, group: GroupsOpt = None,
        executor: ExecutorOpt = "local", runlength_reference: RunlengthRefOpt = None,
        mode: Annotated[str, typer.Option("--mode", "-m", parser=setting("mode", "ecdf.steps"), help="simulated (cocopp's simulated restarts, seeded), exact (their expected ECDF in closed form) or trials (the trials' own hitting times).")] = "simulated",
        samples: SamplesOpt = 100, seed: SeedOpt = 1,
        max_x: Annotated[Optional[str], typer.Option("--max-x", parser=setting("max_x", "ecdf.steps"), help="Plotted range in evaluations / dimension: a number, budget (the trials' largest) or cocopp (1e7). Default: cocopp, budget in exact mode; --max-budget B sets B / dimension.")] = None,
        band: Annotated[Optional[float], typer.Option("--band", parser=setting("level", "ecdf.band", "--band"), help="Add a bootstrap confidence band low..high at this level (e.g. 0.95): trials resampled within each function and dimension.")] = None,
        replicates: Annotated[int, typer.Option(parser=setting("replicates", "ecdf.band"), help="Bootstrap replicates of --band.")] = 100,
        per_instance: Annotated[bool, typer.Option("--per-instance", help="The ECDF of every instance alone (column instance).")] = False,
        summary: Annotated[bool, typer.Option("--summary", help="One row per (algorithm, dimension, group): final fraction (the dot), max_x, median maximal evaluations (the cross), instance_targets ((function, instance, target) triples), functions, trials.")] = False,
    ) -> None:
        """Runtime ECDF step table per (algorithm, dimension, group): x = evaluations / dimension, fraction solved."""
        from ..measures.registry import get

        if sum((summary, band is not None, per_instance)) > 1:
            fail("choose one of --summary, --band and --per-instance")
        if runlength_reference is not None and targets != "runlength":
            fail("--runlength-reference applies to --targets runlength only")
        if summary:
            name, settings = "ecdf.summary", dict(group=group, mode=mode, max_x=max_x)
        elif band is not None:
            name, settings = "ecdf.band", dict(group=group, mode=mode, level=band, replicates=replicates, seed=seed,
                                               samples=samples, max_x=max_x)
        elif per_instance:
            name, settings = "ecdf.per_instance", dict(group=group, mode=mode, samples=samples, seed=seed, max_x=max_x)
        else:
            name, settings = "ecdf.steps", dict(group=group, mode=mode, samples=samples, seed=seed, max_x=max_x)
        flags = {p.name: p.flag for p in get(name).settings.params if p.flag}  # --band: the band's level
        try:  # the constraints the measure declares (`pipeline.measures.catalog`), before the store is read
            get(name).configure(**settings)
        except ValueError as exc:
            fail(error_text(exc, flags))  # "--samples 0: ...", "--band 1.5: ..."
        a = sel.analysis(executor)
        reference = runlength_reference  # the measures' `reference`: of the runlength targets
        try:
            if a.runs().head(1).collect().height == 0:
                fail("no trials in the selection")
            # a group of algorithms at a time (on Ray as its task ends): the whole never held to write a CSV
            write_parts(a.stream(name, targets, reference=reference, **settings), out)
        except (ValueError, KeyError, FileNotFoundError) as exc:
            fail(error_text(exc, flags))
