"""`cocopipe aocc`, `cocopipe ert` and `cocopipe fixed-budget-ecdf`: the measures IOHprofiler users know,
as IOHinspector defines them (pipeline.measures.aocc, pipeline.measures.ert; docs/ioh.md)."""
from __future__ import annotations

from typing import Annotated, Optional

import typer

from ._common import fail, write_table
from ._options import READING, BudgetsOpt, OutOpt, SelectionOptions, TargetsOpt, parse_budgets, uses

LowerOpt = Annotated[float, typer.Option("--lower", help="Precision at and below which the normalised value is 1.")]
UpperOpt = Annotated[float, typer.Option("--upper", help="Precision at and above which the normalised value is 0.")]
LinearOpt = Annotated[bool, typer.Option("--linear", help="Normalise precisions on a linear scale (IOHinspector's scale_log=False).")]


def register(app: typer.Typer) -> None:
    """Add the commands of this module."""

    @app.command()
    @uses(SelectionOptions, without=("exact_hits", "indicator"))
    def aocc(
        sel: SelectionOptions, out: OutOpt = None, lower: LowerOpt = 1e-8, upper: UpperOpt = 1e8,
        linear: LinearOpt = False,
    ) -> None:
        """Area over the convergence curve per (algorithm, function, dimension), as IOHinspector's get_aocc:
        B = --max-budget, else each problem's largest run evaluations."""
        a = sel.analysis()
        df = a.aocc(lower, upper, not linear).collect()
        if not df.height:
            fail("no runs with known precisions in the selection")
        write_table(df, out)

    @app.command()
    @uses(SelectionOptions, without=("budget", "indicator"))
    def ert(
        sel: SelectionOptions, out: OutOpt = None, targets: TargetsOpt = None,
        eval_max: Annotated[Optional[float], typer.Option("--eval-max", help="Evaluations charged to an unsuccessful run (default: each problem's largest run evaluations).")] = None,
    ) -> None:
        """IOHprofiler's ERT per target: unsuccessful runs charged one eval_max, runs unweighted
        (cocopp's aRT: `cocopipe art`)."""
        a = sel.analysis()
        try:
            df = a.ert(targets, eval_max).collect()
        except ValueError as exc:
            fail(str(exc))
        write_table(df, out)

    @app.command("fixed-budget-ecdf")
    @uses(SelectionOptions, without=READING)
    def fixed_budget_ecdf(
        sel: SelectionOptions, budgets: BudgetsOpt, out: OutOpt = None, lower: LowerOpt = 1e-8, upper: UpperOpt = 1e8,
        linear: LinearOpt = False,
    ) -> None:
        """IOHprofiler's fixed-budget ECDF: the mean normalised best precision over runs at each budget."""
        parsed = parse_budgets(budgets)
        a = sel.analysis()
        write_table(a.fixed_budget_ecdf([b.value for b in parsed], parsed[0].per_dimension, lower, upper,
                                        not linear).collect(), out)
