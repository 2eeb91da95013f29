"""`cocopipe aocc`, `cocopipe ert` and `cocopipe fixed-budget-ecdf`: the measures IOHprofiler users know,
as IOHinspector defines them (pipeline.measures.aocc, pipeline.measures.ert; docs/ioh.md)."""
from __future__ import annotations

from typing import Annotated, Optional

import typer

from ._common import (AlgOpt, AllInstOpt, BudgetOpt, DimOpt, ExactOpt, FuncOpt, OutOpt, StoreOpt, SuiteOpt,
                      TargetsOpt, analysis, fail, write_table)

LowerOpt = Annotated[float, typer.Option("--lower", help="Precision at and below which the normalised value is 1.")]
UpperOpt = Annotated[float, typer.Option("--upper", help="Precision at and above which the normalised value is 0.")]
LinearOpt = Annotated[bool, typer.Option("--linear", help="Normalise precisions on a linear scale (IOHinspector's scale_log=False).")]


def register(app: typer.Typer) -> None:
    """Add the commands of this module."""

    @app.command()
    def aocc(
        store: StoreOpt = "cocopipe-store", out: OutOpt = None, suite: SuiteOpt = None, algorithm: AlgOpt = None,
        function: FuncOpt = None, dimension: DimOpt = None, max_budget: BudgetOpt = None,
        lower: LowerOpt = 1e-8, upper: UpperOpt = 1e8, linear: LinearOpt = False, all_instances: AllInstOpt = False,
    ) -> None:
        """Area over the convergence curve per (algorithm, function, dimension), as IOHinspector's get_aocc:
        B = --max-budget, else each problem's largest run evaluations."""
        a = analysis(store, suite, algorithm, function, dimension, max_budget, all_instances)
        df = a.aocc(lower, upper, not linear).collect()
        if not df.height:
            fail("no runs with known precisions in the selection")
        write_table(df, out)

    @app.command()
    def ert(
        store: StoreOpt = "cocopipe-store", out: OutOpt = None, targets: TargetsOpt = None, suite: SuiteOpt = None,
        algorithm: AlgOpt = None, function: FuncOpt = None, dimension: DimOpt = None,
        eval_max: Annotated[Optional[float], typer.Option("--eval-max", help="Evaluations charged to an unsuccessful run (default: each problem's largest run evaluations).")] = None,
        all_instances: AllInstOpt = False, exact_hits: ExactOpt = False,
    ) -> None:
        """IOHprofiler's ERT per target: unsuccessful runs charged one eval_max, runs unweighted
        (cocopp's aRT: `cocopipe art`)."""
        a = analysis(store, suite, algorithm, function, dimension, None, all_instances, exact_hits)
        try:
            df = a.ert(targets, eval_max).collect()
        except ValueError as exc:
            fail(str(exc))
        write_table(df, out)

    @app.command("fixed-budget-ecdf")
    def fixed_budget_ecdf(
        budgets: Annotated[str, typer.Option("--budgets", help="Budgets: evaluations, or Nx = N x dimension (all alike), e.g. 1x,10x,100x.")],
        store: StoreOpt = "cocopipe-store", out: OutOpt = None, suite: SuiteOpt = None, algorithm: AlgOpt = None,
        function: FuncOpt = None, dimension: DimOpt = None, lower: LowerOpt = 1e-8, upper: UpperOpt = 1e8,
        linear: LinearOpt = False, all_instances: AllInstOpt = False,
    ) -> None:
        """IOHprofiler's fixed-budget ECDF: the mean normalised best precision over runs at each budget."""
        from ..hits.budget import Budget

        try:
            parsed = [Budget.parse(b) for b in budgets.split(",") if b.strip()]
        except ValueError as exc:
            fail(str(exc))
        if not parsed or len({p[1] for p in parsed}) > 1:
            fail("budgets: give all in evaluations or all as multiples of the dimension (Nx)")
        a = analysis(store, suite, algorithm, function, dimension, None, all_instances)
        write_table(a.fixed_budget_ecdf([p[0] for p in parsed], parsed[0][1], lower, upper, not linear).collect(), out)
