"""`cocopipe aocc`, `cocopipe ert` and `cocopipe fixed-budget-ecdf`: the measures IOHprofiler users know,
as IOHanalyzer and IOHinspector define them (pipeline.measures.aocc, pipeline.measures.ert,
pipeline.measures.values; docs/ioh.md), on precisions where the optimum is known and on logged values
where it is not (column `quantity`)."""
from __future__ import annotations

from typing import Annotated, Optional

import typer

from ._common import error_text, fail, write_table
from ._options import READING, BudgetsOpt, OutOpt, SelectionOptions, TargetsOpt, parse_budgets, setting, uses

LowerOpt = Annotated[float, typer.Option("--lower", parser=setting("lower", "aocc"), help="Precision (or minimised value) at and below which the normalised value is 1 (a maximised value: 0).")]
UpperOpt = Annotated[float, typer.Option("--upper", parser=setting("upper", "aocc"), help="Precision (or minimised value) at and above which the normalised value is 0 (a maximised value: 1).")]
LinearOpt = Annotated[bool, typer.Option("--linear", help="Normalise on a linear scale (IOHinspector's scale_log=False).")]


def register(app: typer.Typer) -> None:
    """Add the commands of this module."""

    @app.command()
    @uses(SelectionOptions, without=("exact", "indicator"))
    def aocc(
        sel: SelectionOptions, out: OutOpt = None, lower: LowerOpt = 1e-8, upper: UpperOpt = 1e8,
        linear: LinearOpt = False,
    ) -> None:
        """Area over the convergence curve per (algorithm, function, dimension), as IOHinspector's get_aocc,
        on precisions or logged values (column quantity): B = --max-budget, else the algorithm's longest run
        on the problem (its largest last logged evaluation)."""
        a = sel.analysis()
        df = a.aocc(lower=lower, upper=upper, log=not linear).collect()
        if not df.height:
            fail("no runs with records in the selection")
        write_table(df, out)

    @app.command()
    @uses(SelectionOptions, without=("max_budget", "indicator"))
    def ert(
        sel: SelectionOptions, out: OutOpt = None, targets: TargetsOpt = None,
        eval_max: Annotated[Optional[float], typer.Option("--eval-max", parser=setting("eval_max", "ert"), help="Evaluations charged to every unsuccessful run (default: each run its own length, its last logged evaluation, at most --max-budget).")] = None,
    ) -> None:
        """IOHanalyzer's ERT per target: (hitting times of the successful runs + each unsuccessful run's own
        length, or --eval-max) / successes, runs unweighted (cocopp's aRT: `cocopipe art`). On runs without
        a known optimum the targets are logged values (default: 10 from the data, worst first record to
        best value; column quantity says which)."""
        a = sel.analysis()
        try:
            df = a.ert(targets, eval_max=eval_max).collect()
        except ValueError as exc:
            fail(error_text(exc))
        write_table(df, out)

    @app.command("fixed-budget-ecdf")
    @uses(SelectionOptions, without=READING)
    def fixed_budget_ecdf(
        sel: SelectionOptions, budgets: BudgetsOpt, out: OutOpt = None, lower: LowerOpt = 1e-8, upper: UpperOpt = 1e8,
        linear: LinearOpt = False,
    ) -> None:
        """IOHprofiler's fixed-budget ECDF: the mean normalised best precision (or logged value) over runs at each budget."""
        parsed = parse_budgets(budgets)
        a = sel.analysis()
        write_table(a.fixed_budget_ecdf([b.value for b in parsed], per_dimension=parsed[0].per_dimension, lower=lower,
                                        upper=upper, log=not linear).collect(), out)
