"""`cocopipe auc` and `cocopipe rank`: area under the runtime ECDF and rankings of many algorithms."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from ._common import fail, write_table
from ._options import OutOpt, SeedOpt, SelectionOptions, TargetsOpt, uses

if TYPE_CHECKING:
    import polars as pl


def register(app: typer.Typer) -> None:
    """Add the commands of this module."""

    @app.command()
    @uses(SelectionOptions)
    def auc(
        sel: SelectionOptions, out: OutOpt = None, targets: TargetsOpt = None,
        group_means: Annotated[bool, typer.Option("--by-group", help="Also write means per function group and over all functions (FILE.groups.EXT).")] = False,
    ) -> None:
        """Area under the ECDF of the trials' first hitting times, per (algorithm, function, dimension)."""
        a = sel.analysis()  # --max-budget B: the area up to B
        try:
            df = a.auc(targets).collect()
        except ValueError as exc:
            fail(str(exc))
        write_table(df, out)
        if group_means:
            g = a.auc_by_group(df).collect()
            if out and out != "-":
                p = Path(out)
                write_table(g, str(p.with_name(p.stem + ".groups" + p.suffix)))
            else:
                write_table(g, out)

    @app.command()
    @uses(SelectionOptions)
    def rank(
        sel: SelectionOptions,
        by: Annotated[str, typer.Option("--by", help="auc (average rank of per-function auc, Friedman test) or glicko2.")] = "auc",
        out: OutOpt = None, targets: TargetsOpt = None,
        overall: Annotated[bool, typer.Option("--overall", help="One ranking over all dimensions instead of one per dimension.")] = False,
        rounds: Annotated[int, typer.Option(help="Glicko-2: trials drawn per algorithm and problem.")] = 25,
        seed: SeedOpt = 1,
        alpha: Annotated[float, typer.Option(help="auc: level of the Nemenyi critical difference.")] = 0.05,
        cliques: Annotated[Optional[str], typer.Option("--cliques", help="auc: write the critical-difference cliques (algorithms not significantly different) to this file.")] = None,
    ) -> None:
        """Rank algorithms: `--by auc` (mean ranks, Friedman test, Nemenyi critical difference) or `--by glicko2`;
        per dimension unless --overall."""
        import polars as pl

        from ..measures import ranking

        a = sel.analysis()  # --max-budget B: glicko2 plays the trials cut at B; auc ends its areas at B
        if by == "auc" and not 0 < alpha < 1:
            fail(f"--alpha {alpha}: expected a level between 0 and 1")
        if by not in ("auc", "glicko2"):
            fail(f"--by {by!r}: expected auc or glicko2")

        def ranked(part) -> pl.DataFrame:
            if by == "auc":
                return ranking.rank_by_auc(part.auc(targets), by_dimension=not overall, alpha=alpha)
            return ranking.glicko2(part.hits(targets), rounds=rounds, seed=seed, by_dimension=not overall)

        suites = a.suites()
        if len(suites) > 1:  # suites are ranked apart (a suite column first)
            parts = [p.select(pl.lit(s).alias("suite"), pl.all()) for s in suites if (p := ranked(a.select(suite=[s]))).height]
            df = pl.concat(parts) if parts else pl.DataFrame()
        else:
            df = ranked(a)
        if df.height == 0:
            fail("no function where every algorithm has data")
        write_table(df, out)
        if cliques:
            if by != "auc":
                fail("--cliques goes with --by auc")
            write_table(ranking.cliques(df).with_columns(pl.col("algorithms").list.join(" ")), cliques)
