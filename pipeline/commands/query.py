"""`cocopipe query`: SQL over the store (runs, events) and the derived views (hitting_times, art, ecdf)."""
from __future__ import annotations

from typing import Annotated, Optional

import typer

from ._common import fail, open_store, out, write_table
from ._options import OutOpt, SelectionOptions, uses


def register(app: typer.Typer) -> None:
    """Add the commands of this module."""

    @app.command()
    @uses(SelectionOptions, only=("store", "all_instances", "budget", "exact_hits"))
    def query(
        sel: SelectionOptions,
        sql: Annotated[Optional[str], typer.Argument(metavar="FILE.sql|SQL", help="A .sql file or the query text, e.g. \"SELECT algorithm, COUNT(*) FROM runs GROUP BY 1\".")] = None,
        out_file: OutOpt = None,
        tables: Annotated[bool, typer.Option("--tables", help="List the tables and views with their columns, and exit.")] = False,
        explain: Annotated[bool, typer.Option("--explain", help="Print the optimized query plan (which partitions and columns are read) instead of running it.")] = False,
        allow_files: Annotated[bool, typer.Option("--allow-files", help="Let the query read files too (read_csv, read_parquet, read_json, read_ipc); by default it sees the store's tables and views only.")] = False,
    ) -> None:
        """Run SQL (Polars' SQL dialect) over the tables runs and events and the views hitting_times and art
        (default targets per suite; ecdf when available). Only the partitions and columns the query needs are
        read. Malformed queries exit with code 2."""
        from rich.text import Text

        from ..query import QueryError, QueryTables, collect, run_sql

        st = open_store(sel.store)
        try:
            qt = QueryTables(st, max_budget=sel.budget, all_instances=bool(sel.all_instances), exact=sel.exact_hits)
        except ValueError as exc:
            fail(str(exc))
        if tables:
            for name, lf in qt.frames().items():
                cols = ", ".join(f"{c} {t}" for c, t in lf.collect_schema().items())
                out.print(Text.assemble((name, "bold"), f": {cols}"), soft_wrap=True)
            return
        if not sql:
            fail("give a query: a .sql file or the SQL text (see --tables for what to query)", 2)
        try:
            lf = run_sql(st, sql, tables=qt, allow_files=allow_files)
            if explain:
                out.print(lf.explain(), soft_wrap=True, markup=False)
                return
            df = collect(lf, qt)
        except QueryError as exc:
            fail(f"query: {exc}", 2)
        write_table(df, out_file)
