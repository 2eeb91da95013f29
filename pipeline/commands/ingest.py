"""`cocopipe ingest` and `cocopipe runs`."""
from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Annotated, Optional

import typer

from ._common import OPENED, err, fail, one_line, open_store, plural, progress, write_table
from ._options import READING, STORE, ExecutorOpt, OutOpt, SelectionOptions, StoreOpt, uses
from .archive import ArchiveUrlOpt, OfflineOpt, archived_sources


def _drop_markers(fs, key: str) -> None:
    """Remove the empty "folder" objects pyarrow leaves in a bucket where a store's table was deleted (the
    store's own prefix, then its parents while empty; never the bucket)."""
    import pyarrow.fs as pafs

    while "/" in key:
        if fs.get_file_info(pafs.FileSelector(key, allow_not_found=True)):
            return  # holds something: not ours
        fs.delete_dir(key)
        key = key.rsplit("/", 1)[0]


def _discard(st, path: Path | None, before: set[str] | None, made: frozenset[Path] = frozenset()) -> None:
    """Remove what creating the store `st` at `path` added (the folder itself when it did not exist: `before`
    None, and the folders above it in `made`, made for it); on object storage (`path` None), its `sources`
    table, all that creating it wrote."""
    if path is None:
        from ..store.remote import filesystem
        from ..store.store import SOURCES

        fs, key = filesystem(st.uri(SOURCES))
        try:
            fs.delete_dir(key)
            _drop_markers(fs, key.rsplit("/", 1)[0])
        except OSError:  # the empty store stays: what every later command reads as "no source yet"
            pass
        return
    if before is None:
        shutil.rmtree(min(made, key=lambda p: len(p.parts)) if made else path, ignore_errors=True)
        return
    for name in set(os.listdir(path)) - before:
        p = path / name
        shutil.rmtree(p, ignore_errors=True) if p.is_dir() and not p.is_symlink() else p.unlink(missing_ok=True)


def read_nothing(summary) -> bool:
    """Whether an ingest read no run and kept none unchanged."""
    return summary.runs == 0 and not any(s.status in ("unchanged", "duplicate") for s in summary.sources)


def unread(summary) -> str | None:
    """What an ingest could not read, in one line (sources not read, runs skipped), or None when it read
    everything it was given (records left out of runs that were kept do not count: they are warnings)."""
    lost = [s for s in summary.sources if s.status in ("failed", "empty")]
    parts = []
    if lost:
        names = ", ".join(s.path for s in lost[:5]) + (f" and {len(lost) - 5} more" if len(lost) > 5 else "")
        parts.append(f"{len(lost)} of {plural(len(summary.sources), 'source')} not read: {names}")
    if summary.runs_skipped:
        parts.append(f"{plural(summary.runs_skipped, 'run')} announced but not read")
    return "; ".join(parts) or None


def ingest_sources(sources, store: str, on_source=None, archive_url=None, offline=False, **options):
    """Ingest `sources` into the store `store` (created when missing) with a progress bar on a terminal;
    one-line errors. `on_source(outcome)` sees every source as it is done. `archive:NAME` sources are
    fetched from the archive at `archive_url` first (see `pipeline.archive`). Returns (store, summary); the
    store is None when this ingest would have created it and read nothing (no empty store is left behind)."""
    from ..ingest import ingest as run_ingest
    from ..ingest.sources import expand
    from ..store import Store, StoreError, schema
    from ..store.location import is_uri
    from ..store.store import SOURCES

    path = None if is_uri(store) else Path(store)
    before = set(os.listdir(path)) if path is not None and path.is_dir() else None
    made = frozenset(p for p in [path.absolute(), *path.absolute().parents] if not p.exists()) if path else frozenset()
    try:
        st = Store(store, create=True)
    except StoreError as exc:
        fail(str(exc))
    # made by this ingest (not found: another process may make it at the same moment), to be removed if it
    # reads nothing and the store is still untouched then
    new = st.created and (path is None or before is None or SOURCES not in before)
    OPENED.append(st.path)
    if older := sorted(schema.older(st.schema_versions())):
        err.print(f"note: {store} was written with an older schema ({', '.join(older)}): its rows are read as "
                  f"{', '.join(f'{t} {schema.version(t)}' for t in older)} (columns added since take their defaults, "
                  "see schemas/); new rows are written in the new schema", soft_wrap=True)
    from ..archive.sources import add_outcomes

    try:
        fetched = archived_sources(sources, st, archive_url, offline, options.get("force", False),
                                   one=options.get("name") is not None)
    except typer.Exit:  # a name that resolves to nothing: no new store left behind
        if new and st.untouched():
            _discard(st, path, before, made)
        raise
    todo = expand(fetched.paths)
    with progress(len(todo), "ingest") as advance:
        def done(o):
            advance(o.name)
            if on_source:
                on_source(o)
        try:
            summary = run_ingest(todo, st, on_source=done, meta=fetched.meta, **options)
        except (RuntimeError, ValueError) as exc:
            if new and st.untouched():
                _discard(st, path, before, made)
            fail(str(exc))
    for notice in st.notices:
        _say(notice)
    summary = add_outcomes(summary, fetched, on_source)
    if new and read_nothing(summary) and st.untouched():
        _discard(st, path, before, made)
        return None, summary
    return st, summary


def ingest(
    sources: Annotated[list[str], typer.Argument(help="COCO or IOHprofiler results folders or .tgz/.tar.gz/.zip archives; archive:NAME for data sets of the COCO data archive (e.g. archive:bbob/2009/BIPOP!).")],
    store: StoreOpt = STORE,
    name: Annotated[Optional[str], typer.Option(help="Algorithm name to use instead of the .info's algId.")] = None,
    force: Annotated[bool, typer.Option(help="Re-ingest sources whose content is unchanged.")] = False,
    strict: Annotated[bool, typer.Option(help="Exit non-zero when any problem was met.")] = False,
    allow_partial: Annotated[bool, typer.Option("--allow-partial", help="Exit 0 when some sources or runs could not be read but others were (default: exit 1 naming them).")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only the summary.")] = False,
    jobs: Annotated[Optional[int], typer.Option("--jobs", "-j", help="Sources read, parsed and written at once (threads; Ray tasks with --executor ray). Default: COCOPIPE_WORKERS, else the cores available.")] = None,
    executor: ExecutorOpt = "local",
    archive_url: ArchiveUrlOpt = None,
    offline: OfflineOpt = False,
    max_ratio: Annotated[float, typer.Option(help="Refuse an archive that expands beyond this many times its size (a decompression bomb); archives expanding to at most 256 MiB are always read.")] = 50.0,
    max_member: Annotated[str, typer.Option(help="Leave out (and name) log files in archives above this size: bytes, or with K, M, G.")] = "1G",
    source_name: Annotated[Optional[str], typer.Option("--source-name", help="Know the (single) source by this name in the store instead of its full path.")] = None,
    replace: Annotated[Optional[str], typer.Option("--replace", help="The (single) source ingested replaces this stored one (its path, name or --source-name).")] = None,
    optimum: Annotated[Optional[float], typer.Option("--optimum", help="The optimum (raw_y units) of the IOHprofiler runs whose log and suite state none: they are then measured as precisions, not values (an unchanged stored source is read again only with --force).")] = None,
    problems_out: Annotated[Optional[str], typer.Option("--problems", help="Write every problem met (source, file, line, message, action) to this file (.csv, .parquet, .json); the terminal shows the first few of each source.")] = None,
) -> None:
    """Read COCO and IOHprofiler logs into the Parquet store. A source is known by its full path (or
    --source-name): ingesting it again replaces it; sources of one base name from other folders are kept
    side by side."""
    def report(o):
        if not quiet:
            for p in o.problems[:SHOWN_PROBLEMS]:
                _say(str(p), "warning:", "yellow")
            if len(o.problems) > SHOWN_PROBLEMS:
                _say(f"{o.name}: {plural(len(o.problems) - SHOWN_PROBLEMS, 'more problem')}; all of them: "
                     "--problems FILE", "warning:", "yellow")
            if o.status == "unchanged":
                _say(f"{o.name}: unchanged, not read again ({plural(o.runs, 'run')} kept)")
            elif o.status == "ingested":
                _say(f"{o.name}: {plural(o.runs, 'run')}" + _partial(o.runs_partial)
                     + (f", {o.runs_skipped} skipped" if o.runs_skipped else ""))
            elif o.status == "duplicate":
                _say(f"{o.name}: nothing new ({plural(o.runs_duplicate, 'trial')} the store holds from another source)")
        for n in o.notes:  # said even with --quiet: replacing or sharing with another source, odd logs
            _say(f"{o.name}: {n}", "note:", "cyan")

    from ..ingest.sources import Limits

    limits = Limits(ratio=max_ratio, member=_size(max_member, "--max-member"))
    st, summary = ingest_sources(sources, store, report, archive_url, offline, name=name, force=force, jobs=jobs,
                                 executor=executor, limits=limits, source_name=source_name,
                                 replace=replace, optimum=optimum)
    failed = [s for s in summary.sources if s.status in ("failed", "empty")]
    for s in failed:
        if quiet:
            for p in s.problems:
                _say(str(p), "error:", "red")
    if problems_out:
        _write_problems(summary, problems_out)
    if st is None:
        held = f"no store created at {store}"
    else:
        import polars as pl

        runs = st.runs()
        total = runs.select(pl.len()).collect().item()
        algs = runs.select(pl.col("algorithm").n_unique()).collect().item()
        held = f"store {store} holds {plural(total, 'run')} of {plural(algs, 'algorithm')}"
    unchanged = [s for s in summary.sources if s.status == "unchanged"]
    kept = f", {len(unchanged)} unchanged, not read again" if unchanged else ""
    _say(
        f"{len(summary.sources) - len(failed) - len(unchanged)} of {len(summary.sources)} sources read{kept}: "
        f"{plural(summary.runs - sum(s.runs for s in unchanged), 'run')} read{_partial(summary.runs_partial)}, "
        f"{plural(summary.runs_skipped, 'run')} skipped, "
        + (f"{plural(summary.runs_duplicate, 'duplicate trial')} left out, " if summary.runs_duplicate else "")
        + f"{plural(len(summary.problems), 'problem')}; {held}"
    )
    missing, nothing = unread(summary), read_nothing(summary)
    if nothing or (missing and not allow_partial):
        if missing:
            _say(f"{missing}; exit status 1" + ("" if nothing else " (--allow-partial accepts a partial ingest)"),
                 "error:", "red")
        raise typer.Exit(1)
    if strict and summary.problems:
        raise typer.Exit(1)


@uses(SelectionOptions, without=READING)
def runs(sel: SelectionOptions, out: OutOpt = None) -> None:
    """Export the runs table (one row per trial)."""
    from ..conventions import interesting_instances
    from ..selection import check, filter_frame

    st = open_store(sel.store)
    try:
        check(st.runs(), sel.filters, bool(sel.all_instances), what=f"the store {sel.store}")
    except ValueError as exc:
        fail(str(exc))
    lf = interesting_instances(filter_frame(st.runs(), **sel.filters), bool(sel.all_instances))
    write_table(lf.sort("suite", "algorithm", "function", "dimension", "trial").collect(), out)


def register(app: typer.Typer) -> None:
    """Add the commands of this module."""
    _register_info(app)
    app.command()(ingest)
    app.command()(runs)


def _say(text: str, label: str = "", style: str = "") -> None:
    """Print a line of data-derived text as it is (no Rich markup, no emoji codes such as `:100:`),
    after a styled label."""
    from rich.text import Text

    text = one_line(text)
    err.print(Text.assemble((label, style), " ", text) if label else Text(text), soft_wrap=True)


#: problems of one source printed on the terminal (all of them: `--problems FILE`)
SHOWN_PROBLEMS = 20


def _write_problems(summary, path: str) -> None:
    """Every problem of an ingest as a table: source, file, line, message, action."""
    import polars as pl

    rows = [(s.path, p.file, p.line, p.message, p.action) for s in summary.sources for p in s.problems]
    write_table(pl.DataFrame(rows, schema={"source": pl.String, "file": pl.String, "line": pl.Int64,
                                           "message": pl.String, "action": pl.String}, orient="row"), path)


def _size(text: str, option: str) -> int:
    """Bytes from '123', '64K', '512M' or '2G' (powers of 1024), with a one-line error."""
    units = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
    t = text.strip().upper().removesuffix("B").removesuffix("I")
    try:
        return int(float(t[:-1] if t[-1:] in units else t) * units[t[-1:] if t[-1:] in units else ""])
    except (ValueError, IndexError):
        fail(f"{option} {text}: expected a size such as 1000000, 500M or 2G")


def _partial(n: int) -> str:
    """How many of the runs read were kept without their bad records."""
    return f" ({n} with bad records left out)" if n else ""


def _register_info(app: typer.Typer) -> None:
    @app.command()
    def info(store: StoreOpt = STORE, out: OutOpt = None) -> None:
        """What the store holds: per suite and algorithm, runs, functions, dimensions, sources, formats."""
        import polars as pl

        from ._common import NAMES_APART, NUMBERS_APART

        st = open_store(store)
        df = (
            st.runs().group_by("suite", "algorithm")
            .agg(runs=pl.len(), functions=pl.col("function").n_unique(),
                 dimensions=pl.col("dimension").unique().sort().cast(pl.String).str.join(NUMBERS_APART),
                 instances=pl.col("instance").n_unique(), sources=pl.col("source").unique().sort().str.join(NAMES_APART),
                 data_format=pl.col("data_format").unique().sort().str.join(NAMES_APART),
                 coco_version=pl.col("coco_version").drop_nulls().unique().sort().str.join(NAMES_APART))
            .sort("suite", "algorithm").collect()
        )
        m = st.manifest
        _say(f"store {store}: schema versions {m.get('schema_versions')}, {plural(len(m['sources']), 'source')}")
        write_table(df, out)
