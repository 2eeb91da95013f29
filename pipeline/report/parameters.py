"""The report's page of tracked parameters (IOHprofiler logs with an algorithm attribute, e.g. a step
size): a convergence-style chart per (suite, parameter); no page when the data track none."""
from __future__ import annotations

import polars as pl

from ..measures.params import POSITION, params_table
from ..recipes.kinds import PARAMETER
from .context import Context
from .figures import Figure, Page, Section
from .measures import Measures


def tracked(ctx: Context) -> list[tuple[str, str]]:
    """(suite, parameter) pairs of the compared algorithms' runs, positions (x0, x1, ...) left out."""
    table = params_table(ctx.compared.store)
    if table is None:
        return []
    ids = ctx.compared.runs().select("run_id", "suite")
    found = (table.filter(~pl.col("name").str.contains(POSITION)).select("run_id", "name").unique()
             .join(ids, on="run_id").select("suite", "name").unique().sort("suite", "name").collect())
    return list(found.iter_rows())


def parameters(ctx: Context, m: Measures) -> list[Page]:
    """One page with the tracked parameters, when there are any."""
    sections = []
    for suite, name in tracked(ctx):
        chart = ctx.runner.chart(PARAMETER, ctx.compared.select(suite=[suite]), name, palette=ctx.palette)
        sections.append(Section(f"param-{suite}-{name}", f"{name}, {suite}", [Figure.later(
            f"param-{suite}-{name}", f"{name}, {suite}", chart,
            f"Median of the tracked parameter {name} over the runs versus evaluations, with the band between the "
            "25th and 75th percentiles, a panel per function and dimension (the value of each run's last record "
            "at or before each budget).", kind="parameter")], columns=1))
    return [Page("parameters", "Tracked parameters", sections, nav="Parameters")] if sections else []
