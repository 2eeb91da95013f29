"""`cocopipe ingest` and `cocopipe runs`."""
from __future__ import annotations

from typing import Annotated, Optional

import typer

from ._common import OPENED, err, fail, open_store, progress, write_table

STORE = typer.Option("--store", "-s", help="Store folder.")
WAIT = typer.Option("--wait", help="Seconds to wait while another process writes to the store (default: none, a busy store is an error).")


def ingest_sources(sources, store: str, on_source=None, **options):
    """Ingest `sources` into the store `store` (created when missing) with a progress bar on a terminal;
    one-line errors. `on_source(outcome)` sees every source as it is done. Returns (store, summary)."""
    from ..ingest import ingest as run_ingest
    from ..ingest.sources import expand
    from ..store import Store, StoreError

    try:
        st = Store(store, create=True)
    except StoreError as exc:
        fail(str(exc))
    st.on_wait = lambda message: err.print(message, markup=False, soft_wrap=True)
    OPENED.append(st.path)
    todo = expand(sources)
    with progress(len(todo), "ingest") as advance:
        def done(o):
            advance(o.name)
            if on_source:
                on_source(o)
        try:
            summary = run_ingest(todo, st, on_source=done, **options)
        except (RuntimeError, ValueError) as exc:
            fail(str(exc))
    for notice in st.notices:
        err.print(notice, markup=False, soft_wrap=True)
    return st, summary


def register(app: typer.Typer) -> None:
    """Add the commands of this module."""
    _register_info(app)

    @app.command()
    def ingest(
        sources: Annotated[list[str], typer.Argument(help="COCO results folders or .tgz/.tar.gz/.zip archives.")],
        store: Annotated[str, STORE] = "cocopipe-store",
        name: Annotated[Optional[str], typer.Option(help="Algorithm name to use instead of the .info's algId.")] = None,
        force: Annotated[bool, typer.Option(help="Re-ingest sources whose content is unchanged.")] = False,
        strict: Annotated[bool, typer.Option(help="Exit non-zero when any problem was met.")] = False,
        quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only the summary.")] = False,
        jobs: Annotated[Optional[int], typer.Option("--jobs", "-j", help="Sources read, parsed and written at once (threads; Ray tasks with --executor ray). Default: COCOPIPE_WORKERS, else the cores available.")] = None,
        executor: Annotated[str, typer.Option(help="local (threads in this process) or ray (tasks on a Ray cluster; pip install 'cocopipe[ray]').")] = "local",
        wait: Annotated[float, WAIT] = 0,
        source_name: Annotated[Optional[str], typer.Option("--source-name", help="Know the (single) source by this name in the store instead of its full path.")] = None,
        replace: Annotated[Optional[str], typer.Option("--replace", help="The (single) source ingested replaces this stored one (its path, name or --source-name).")] = None,
    ) -> None:
        """Read COCO logs into the Parquet store. A source is known by its full path (or --source-name):
        ingesting it again replaces it; sources of one base name from other folders are kept side by side."""
        def report(o):
            if not quiet:
                for p in o.problems:
                    err.print(f"[yellow]warning:[/yellow] {p}", soft_wrap=True)
                if o.status == "unchanged":
                    err.print(f"{o.name}: unchanged, kept ({o.runs} runs)")
                elif o.status == "ingested":
                    err.print(f"{o.name}: {o.runs} runs" + (f", {o.runs_skipped} skipped" if o.runs_skipped else ""))
            for note in o.notes:  # replacing or sharing with another source is said even with --quiet
                err.print(f"{o.name}: {note}", markup=False, soft_wrap=True)

        st, summary = ingest_sources(sources, store, report, name=name, force=force, jobs=jobs, executor=executor,
                                     wait=wait, source_name=source_name, replace=replace)
        failed = [s for s in summary.sources if s.status in ("failed", "empty")]
        for s in failed:
            if quiet:
                for p in s.problems:
                    err.print(f"[red]error:[/red] {p}", soft_wrap=True)
        runs = st.runs()
        import polars as pl

        total = runs.select(pl.len()).collect().item()
        algs = runs.select(pl.col("algorithm").n_unique()).collect().item()
        err.print(
            f"{len(summary.sources) - len(failed)} of {len(summary.sources)} sources read: "
            f"{summary.runs} runs read, {summary.runs_skipped} runs skipped, {len(summary.problems)} problems; "
            f"store {store} holds {total} runs of {algs} algorithm(s)"
        )
        if summary.runs == 0 and not any(s.status == "unchanged" for s in summary.sources):
            raise typer.Exit(1)
        if strict and summary.problems:
            raise typer.Exit(1)

    @app.command()
    def runs(
        store: Annotated[str, STORE] = "cocopipe-store",
        out: Annotated[Optional[str], typer.Option("--out", "-o", help="Output file (.csv, .parquet); '-' for CSV on stdout.")] = None,
        suite: Annotated[Optional[list[str]], typer.Option(help="Only these suites.")] = None,
        algorithm: Annotated[Optional[list[str]], typer.Option(help="Only these algorithms.")] = None,
        all_instances: Annotated[bool, typer.Option(help="Keep instances cocopp leaves out by default (bbob-biobj 11+).")] = False,
    ) -> None:
        """Export the runs table (one row per trial)."""
        from ..api import filter_frame
        from ..conventions import interesting_instances

        st = open_store(store)
        lf = interesting_instances(filter_frame(st.runs(), suite=suite, algorithm=algorithm), all_instances)
        write_table(lf.sort("suite", "algorithm", "function", "dimension", "trial").collect(), out)


def _register_info(app: typer.Typer) -> None:
    @app.command()
    def info(store: Annotated[str, STORE] = "cocopipe-store",
             out: Annotated[Optional[str], typer.Option("--out", "-o", help="Write the summary table to a file.")] = None) -> None:
        """What the store holds: per suite and algorithm, runs, functions, dimensions, sources, formats."""
        import polars as pl

        st = open_store(store)
        df = (
            st.runs().group_by("suite", "algorithm")
            .agg(runs=pl.len(), functions=pl.col("function").n_unique(),
                 dimensions=pl.col("dimension").unique().sort().cast(pl.String).str.join(","),
                 instances=pl.col("instance").n_unique(), sources=pl.col("source").unique().sort().str.join(", "),
                 data_format=pl.col("data_format").unique().sort().str.join(", "),
                 coco_version=pl.col("coco_version").drop_nulls().unique().sort().str.join(", "))
            .sort("suite", "algorithm").collect()
        )
        m = st.manifest
        err.print(f"store {store}: schema versions {m.get('schema_versions')}, {len(m['sources'])} source(s)")
        write_table(df, out)
