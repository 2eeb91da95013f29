"""`cocopipe profile`: target-free runtime profiles (seed 004) as a step table."""
from __future__ import annotations

from typing import Annotated

import typer

from ._common import error_text, fail, write_table
from ._options import GroupsOpt, OutOpt, SelectionOptions, uses


def register(app: typer.Typer) -> None:
    """Add the commands of this module."""

    @app.command()
    @uses(SelectionOptions, without=("exact",))
    def profile(
        sel: SelectionOptions, out: OutOpt = None, group: GroupsOpt = None,
        transform: Annotated[str, typer.Option(help="T applied to f - f_inf + eps: log10 or linear.")] = "log10",
        f0: Annotated[str, typer.Option("--f0", help="Start value f0: observed (max of the trials' first values) or a number.")] = "observed",
        delta: Annotated[str, typer.Option("--delta", help="Size of the first step delta: a number >= 0 or first-improvement.")] = "0",
        f_inf: Annotated[str, typer.Option("--f-inf", help="End value f_inf: target (the suite's final target, 1e-8), observed (min over trials) or a number.")] = "target",
        eps: Annotated[str, typer.Option("--eps", help="Shift eps: target (the suite's final target), improvement (half the smallest improvement) or a number.")] = "target",
        per_algorithm: Annotated[bool, typer.Option("--per-algorithm", help="Parameters from each algorithm's own trials instead of all selected algorithms.")] = False,
        summary: Annotated[bool, typer.Option("--summary", help="One row per (algorithm, dimension, group): final value, start and end x, functions, trials.")] = False,
    ) -> None:
        """Target-free runtime profile per (algorithm, dimension, group): x = evaluations / dimension, value in [0, 1]."""
        a = sel.analysis()
        try:
            if a.runs().head(1).collect().height == 0:
                fail("no trials in the selection")
            make = a.profile_summary if summary else a.profile
            df = make(group=group, transform=transform, f0=f0, delta=delta, f_inf=f_inf, eps=eps,
                      shared=not per_algorithm).collect()
        except ValueError as exc:
            fail(error_text(exc))
        write_table(df, out)
