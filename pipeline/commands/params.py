"""`cocopipe params`: tracked parameters of IOHprofiler runs."""
from __future__ import annotations

from typing import Annotated, Optional

import typer

from ._common import fail, write_table
from ._options import READING, BudgetsOpt, OutOpt, SelectionOptions, parse_budgets, uses


def register(app: typer.Typer) -> None:
    """Add the commands of this module."""

    @app.command()
    @uses(SelectionOptions, without=READING)
    def params(
        sel: SelectionOptions,
        name: Annotated[Optional[list[str]], typer.Option("--name", "-n", help="Only these parameters (e.g. sigma; x0 ... for the positions).")] = None,
        budgets: BudgetsOpt = None,
        positions: Annotated[bool, typer.Option(help="Include the positions x0, x1, ... (stored with store_positions).")] = False,
        out: OutOpt = None,
    ) -> None:
        """Tracked parameters (IOHprofiler logs): per-record values, or quantiles over runs at --budgets."""
        from ..measures import params as pm

        parsed = parse_budgets(budgets) if budgets is not None else None
        a = sel.analysis()
        vals = a.params(name, positions)
        if parsed is None:
            df = vals.collect()
        else:
            df = pm.quantiles(pm.at_budgets(vals, [b.value for b in parsed], parsed[0].per_dimension)).collect()
        if not df.height:
            known = a.store.scan("params").select(pl_unique_names()).collect()["name"].to_list()
            fail("no tracked parameter in the selection" + (f" (the store has: {', '.join(known)})" if known else
                                                             " (the store holds no IOHprofiler parameters)"))
        write_table(df, out)


def pl_unique_names():
    """The distinct parameter names, sorted."""
    import polars as pl

    return pl.col("name").unique().sort()
