"""`cocopipe export`: a selection of the store in another tool's format."""
from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ._common import fail, open_store, outside_store, plural, say
from ._options import SelectionOptions, uses

FORMATS = ("iohprofiler",)


def register(app: typer.Typer) -> None:
    """Add the commands of this module."""

    @app.command()
    @uses(SelectionOptions, only=("store", "suite", "algorithm", "function", "dimension"))
    def export(
        sel: SelectionOptions,
        out: Annotated[str, typer.Option("--out", "-o", help="Folder to write (new or empty).")],
        format: Annotated[str, typer.Option("--format", help="iohprofiler: the json + .dat layout IOHinspector and IOHanalyzer read.")] = "iohprofiler",
    ) -> None:
        """Write a selection of the store (COCO and IOHprofiler data alike) in another tool's format."""
        import polars as pl

        from ..selection import filter_frame
        from ..export import iohprofiler
        from ..store.walk import remove_tree

        if format not in FORMATS:
            fail(f"format {format!r}: expected one of {', '.join(FORMATS)}")
        target = Path(out)
        outside_store(target, sel.store)
        if target.exists() and (not target.is_dir() or any(target.iterdir())):
            fail(f"{out}: exists and is not an empty folder")
        st = open_store(sel.store)
        runs = filter_frame(st.runs(), **sel.filters).collect()
        if not runs.height:
            fail("the selection matches no runs")
        ids = runs.select("run_id").lazy()
        events = st.events().join(ids, on="run_id", how="semi").collect()
        params = st.scan("params").join(ids, on="run_id", how="semi").collect()
        made = not target.exists()
        try:
            files = iohprofiler.write(runs, events, params, target)
        except OSError as exc:  # a read-only folder, a full disk: nothing of it kept
            for gone in [target] if made else list(target.iterdir()):
                remove_tree(gone)
            fail(f"{out}: cannot write the export ({exc.strerror or exc}); nothing of it was kept")
        say(f"wrote {plural(runs.height, 'run')} of {plural(runs['algorithm'].n_unique(), 'algorithm')} in "
            f"{plural(len(files), 'json file')} under {out}")
        del pl
