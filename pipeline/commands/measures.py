"""`cocopipe art` and `cocopipe budget`: fixed-target and fixed-budget measures."""
from __future__ import annotations

from typing import Annotated, Optional

import typer

from ._common import (AlgOpt, AllInstOpt, BudgetOpt, DimOpt, ExactOpt, ExecutorOpt, FuncOpt,
                      IndicatorOpt, OutOpt, StoreOpt,
                      SuiteOpt, TargetsOpt, analysis, fail, write_table)


def register(app: typer.Typer) -> None:
    """Add the commands of this module."""

    @app.command()
    def art(
        store: StoreOpt = "cocopipe-store", out: OutOpt = None, targets: TargetsOpt = None,
        suite: SuiteOpt = None, algorithm: AlgOpt = None, function: FuncOpt = None, dimension: DimOpt = None,
        max_budget: BudgetOpt = None, all_instances: AllInstOpt = False, exact_hits: ExactOpt = False,
        indicator: IndicatorOpt = "logged", executor: ExecutorOpt = "local",
        dispersion: Annotated[bool, typer.Option(help="Add 10/50/90th percentiles of simulated restart runtimes.")] = True,
        samples: Annotated[int, typer.Option(help="Simulated restarts per problem for the dispersion.")] = 1000,
        seed: Annotated[int, typer.Option(help="Seed of the simulated restarts and the bootstrap.")] = 1,
        confidence: Annotated[Optional[float], typer.Option(help="Add a bootstrap confidence interval of aRT at this level (e.g. 0.95).")] = None,
    ) -> None:
        """aRT, successes and trials per (algorithm, function, dimension, target)."""
        a = analysis(store, suite, algorithm, function, dimension, max_budget, all_instances, exact_hits, indicator,
                     executor)
        try:
            df = a.art(targets, dispersion=dispersion, samples=samples, seed=seed, confidence=confidence).collect()
        except ValueError as exc:
            fail(str(exc))
        write_table(df, out)

    @app.command()
    def budget(
        budgets: Annotated[str, typer.Option("--budgets", "-b", help="Budgets v1,v2,... (evaluations, or with x: multiples of the dimension, e.g. 10x,100x).")] = "10x,100x,1000x",
        per_run: Annotated[bool, typer.Option(help="One row per run instead of quantiles per problem.")] = False,
        store: StoreOpt = "cocopipe-store", out: OutOpt = None,
        suite: SuiteOpt = None, algorithm: AlgOpt = None, function: FuncOpt = None, dimension: DimOpt = None,
        all_instances: AllInstOpt = False, indicator: IndicatorOpt = "logged",
    ) -> None:
        """Fixed-budget view: best precision reached within each budget."""
        parts = [b.strip().lower() for b in budgets.split(",") if b.strip()]
        per_dim = {p.endswith("x") for p in parts}
        if len(per_dim) != 1:
            fail("--budgets: give all budgets in evaluations or all as multiples of the dimension (x)")
        try:
            values = [float(p.rstrip("x")) for p in parts]
        except ValueError:
            fail(f"--budgets {budgets!r}: expected numbers, e.g. 100,1000 or 10x,100x")
        a = analysis(store, suite, algorithm, function, dimension, None, all_instances, False, indicator)
        write_table(a.fixed_budget(values, per_dimension=per_dim.pop(), summary=not per_run).collect(), out)
