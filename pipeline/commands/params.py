"""`cocopipe params`: tracked parameters of IOHprofiler runs."""
from __future__ import annotations

from typing import Annotated, Optional

import typer

from ._common import AlgOpt, DimOpt, FuncOpt, OutOpt, StoreOpt, SuiteOpt, analysis, fail, write_table


def register(app: typer.Typer) -> None:
    """Add the commands of this module."""

    @app.command()
    def params(
        store: StoreOpt = "cocopipe-store",
        name: Annotated[Optional[list[str]], typer.Option("--name", "-n", help="Only these parameters (e.g. sigma; x0 ... for the positions).")] = None,
        budgets: Annotated[Optional[str], typer.Option(help="Quantiles over runs at these budgets (evaluations, or Nx = N x dimension), e.g. 10x,100x; without: every record's values.")] = None,
        positions: Annotated[bool, typer.Option(help="Include the positions x0, x1, ... (stored with store_positions).")] = False,
        suite: SuiteOpt = None,
        algorithm: AlgOpt = None,
        function: FuncOpt = None,
        dimension: DimOpt = None,
        out: OutOpt = None,
    ) -> None:
        """Tracked parameters (IOHprofiler logs): per-record values, or quantiles over runs at budgets."""
        from ..measures import params as pm
        from ..hits.budget import Budget

        a = analysis(store, suite=suite, algorithm=algorithm, function=function, dimension=dimension)
        vals = pm.values(a.runs(), a.store.scan("params"), name, positions)
        if budgets is None:
            df = vals.collect()
        else:
            try:
                parsed = [Budget.parse(b) for b in budgets.split(",") if b.strip()]
            except ValueError as exc:
                fail(str(exc))
            if len({p[1] for p in parsed}) > 1:
                fail("budgets: give all in evaluations or all as multiples of the dimension (Nx)")
            df = pm.quantiles(pm.at_budgets(vals, [p[0] for p in parsed], parsed[0][1])).collect()
        if not df.height:
            known = a.store.scan("params").select(pl_unique_names()).collect()["name"].to_list()
            fail("no tracked parameter in the selection" + (f" (the store has: {', '.join(known)})" if known else
                                                             " (the store holds no IOHprofiler parameters)"))
        write_table(df, out)


def pl_unique_names():
    """The distinct parameter names, sorted."""
    import polars as pl

    return pl.col("name").unique().sort()
