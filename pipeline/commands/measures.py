"""`cocopipe art` and `cocopipe budget`: fixed-target and fixed-budget measures."""
from __future__ import annotations

from typing import Annotated, Optional

import typer

from ._common import error_text, fail, write_parts, write_table
from ._options import (BudgetsOpt, ExecutorOpt, OutOpt, SamplesOpt, SeedOpt, SelectionOptions, TargetsOpt,
                       parse_budgets, setting, uses)


def register(app: typer.Typer) -> None:
    """Add the commands of this module."""

    @app.command()
    @uses(SelectionOptions)
    def art(
        sel: SelectionOptions, out: OutOpt = None, targets: TargetsOpt = None, executor: ExecutorOpt = "local",
        dispersion: Annotated[bool, typer.Option(help="Add 10/50/90th percentiles of simulated restart runtimes.")] = True,
        samples: SamplesOpt = 1000, seed: SeedOpt = 1,
        confidence: Annotated[Optional[float], typer.Option(parser=setting("confidence", "art"), help="Add a bootstrap confidence interval of aRT at this level (e.g. 0.95).")] = None,
    ) -> None:
        """aRT, successes and trials per (algorithm, function, dimension, target)."""
        a = sel.analysis(executor)
        settings = dict(dispersion=dispersion, samples=samples, seed=seed, confidence=confidence)
        if a.runs().head(1).collect().height == 0:  # never 0 rows and exit 0
            fail("no trials with a precision in the selection: its IOHprofiler runs have no known optimum (--values "
                 "measures their logged values; docs/ioh.md)" if a.precision_unknown().height
                 else "no trials in the selection")
        try:
            # a group of algorithms at a time (on Ray as its task ends): the whole never held to write a CSV
            write_parts(a.stream("art", targets, **settings), out)
        except ValueError as exc:
            fail(error_text(exc))

    @app.command()
    @uses(SelectionOptions, without=("max_budget", "exact"))
    def budget(
        sel: SelectionOptions, out: OutOpt = None, budgets: BudgetsOpt = "10x,100x,1000x",
        per_run: Annotated[bool, typer.Option(help="One row per run instead of quantiles per problem.")] = False,
    ) -> None:
        """Fixed-budget view: best precision reached within each budget."""
        parsed = parse_budgets(budgets)
        a = sel.analysis()
        write_table(a.fixed_budget([b.value for b in parsed], per_dimension=parsed[0].per_dimension,
                                   summary=not per_run).collect(), out)
