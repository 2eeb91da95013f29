"""`cocopipe auc` and `cocopipe rank`: area under the runtime ECDF and rankings of many algorithms."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from ._common import error_text, fail, write_table
from ._options import ExecutorOpt, OutOpt, SeedOpt, SelectionOptions, TargetsOpt, setting, uses

if TYPE_CHECKING:
    pass


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
            fail(error_text(exc))
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
        out: OutOpt = None, targets: TargetsOpt = None, executor: ExecutorOpt = "local",
        overall: Annotated[bool, typer.Option("--overall", help="One ranking over all dimensions instead of one per dimension.")] = False,
        rounds: Annotated[int, typer.Option(parser=setting("rounds", "glicko2"), help="Glicko-2: trials drawn per algorithm and problem.")] = 25,
        seed: SeedOpt = 1,
        alpha: Annotated[float, typer.Option(parser=setting("alpha", "rank"), help="auc: level of the Nemenyi critical difference.")] = 0.05,
        cliques: Annotated[Optional[str], typer.Option("--cliques", help="auc: write the critical-difference cliques (algorithms not significantly different) to this file.")] = None,
    ) -> None:
        """Rank algorithms: `--by auc` (mean ranks, Friedman test, Nemenyi critical difference) or `--by glicko2`;
        per dimension unless --overall."""
        import polars as pl

        from ..measures.registry import get

        if by not in ("auc", "glicko2"):
            fail(f"--by {by!r}: expected auc or glicko2")
        name, settings = (("rank", dict(overall=overall, alpha=alpha)) if by == "auc"
                          else ("glicko2", dict(overall=overall, rounds=rounds, seed=seed)))
        try:  # the settings the measure declares, before the store is read
            get(name).configure(**settings)
        except ValueError as exc:
            fail(error_text(exc))
        a = sel.analysis(executor)  # --max-budget B: glicko2 plays the trials cut at B; auc ends its areas at B
        # each suite ranked apart (a part of the engine's each, a Ray task on Ray), the suite column first
        df = getattr(a, name)(targets, **settings).collect()
        if df.height == 0:
            fail("no function where every algorithm has data")
        if len(a.suites()) == 1:  # one suite: no suite column
            df = df.drop("suite")
        write_table(df, out)
        if cliques:
            if by != "auc":
                fail("--cliques goes with --by auc")
            write_table(a.cliques(df).with_columns(pl.col("algorithms").list.join(" ")), cliques)
