"""`cocopipe query`: SQL over the store (runs, events) and the derived views (hitting_times, art, ecdf)."""
from __future__ import annotations

from typing import Annotated, Optional

import typer

from ._common import fail, open_store, out, write_table
from ._options import OutOpt, SelectionOptions, uses


def register(app: typer.Typer) -> None:
    """Add the commands of this module."""

    @app.command()
    @uses(SelectionOptions, only=("store", "all_instances", "max_budget", "exact"))
    def query(
        sel: SelectionOptions,
        sql: Annotated[Optional[str], typer.Argument(metavar="FILE.sql|SQL", help="A .sql file or the query text, e.g. \"SELECT algorithm, COUNT(*) FROM runs GROUP BY 1\".")] = None,
        out_file: OutOpt = None,
        tables: Annotated[bool, typer.Option("--tables", help="List the tables and views with their columns, and exit.")] = False,
        explain: Annotated[bool, typer.Option("--explain", help="Print the optimized query plan (which partitions and columns are read) instead of running it.")] = False,
        allow_files: Annotated[bool, typer.Option("--allow-files", help="Let the query read files too (read_csv, read_parquet, read_json, read_ipc) and FILE be any text file; by default it sees the store's tables and views only, and FILE ends in .sql.")] = False,
        timeout: Annotated[Optional[float], typer.Option("--timeout", min=0, metavar="SECONDS", help="Stop the query after this many seconds (default 60; 0: no limit).", show_default=False)] = None,
    ) -> None:
        """Run SQL (Polars' SQL dialect) over the tables runs and events and the views hitting_times and art
        (default targets per suite; ecdf when available). Only the partitions and columns the query needs are
        read. Malformed or refused queries, and those stopped at --timeout, exit with code 2."""
        from rich.text import Text

        from ..query import DEFAULT_TIMEOUT, QueryError, QueryTables, run_query

        st = open_store(sel.store)
        try:
            qt = QueryTables(st, max_budget=sel.max_budget, all_instances=bool(sel.all_instances), exact=sel.exact)
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
            limit = DEFAULT_TIMEOUT if timeout is None else timeout
            result = run_query(st, sql, timeout=limit, explain=explain, allow_files=allow_files, max_budget=sel.max_budget,
                               all_instances=bool(sel.all_instances), exact=sel.exact)
        except QueryError as exc:
            fail(f"query: {exc}", 2)
        if explain:
            out.print(result, soft_wrap=True, markup=False)
            return
        write_table(result, out_file)
