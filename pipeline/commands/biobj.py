"""`cocopipe biobj recompute`: the bbob-biobj indicator recomputed from the stored archives."""
from __future__ import annotations

import time
from typing import Annotated, Optional

import typer

from ._common import fail, open_store, plural, say, warn
from ._options import STORE, StoreOpt


def register(app: typer.Typer) -> None:
    """Add the `biobj` command group."""
    biobj = typer.Typer(help="Biobjective (bbob-biobj) indicator from the archives of non-dominated solutions.",
                        no_args_is_help=True)
    app.add_typer(biobj, name="biobj")

    @biobj.command()
    def recompute(
        store: StoreOpt = STORE,
        reference_values: Annotated[Optional[str], typer.Option(
            "--reference-values", "-r",
            help="File of reference indicator values (lines `bbob-biobj_f01_i01_d02 VALUE`, or a CSV with "
                 "function, dimension, instance, reference_value); default: the values in the logs' headers.")] = None,
    ) -> None:
        """Recompute the hypervolume indicator of every biobjective run from its archive (.adat) and
        store it beside the logged one; measures read it with --indicator recomputed."""
        from ..biobj import BiobjError, recompute as run
        from ..store import StoreError

        st = open_store(store)
        started = time.perf_counter()
        try:
            summary = run(st, reference_values)
        except (BiobjError, StoreError) as exc:
            fail(str(exc))
        for line in summary.skipped:
            warn(str(line))
        if summary.missing_references:
            warn(f"{plural(summary.missing_references, 'problem')} not in {reference_values} keep their logged "
                 "reference value")
        say(f"recomputed the indicator of {plural(summary.runs, 'run')} from "
            f"{plural(summary.solutions, 'archived solution')} ({plural(summary.events, 'record')}, reference values: "
            f"{summary.reference_values}) in {time.perf_counter() - started:.1f} s")
