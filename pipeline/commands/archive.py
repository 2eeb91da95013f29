"""`cocopipe archive list|get|create`: the COCO data archive by name; `archive:NAME` sources for the other commands."""
from __future__ import annotations

from contextlib import contextmanager
from typing import Annotated, Optional

import typer

from ..archive import ArchiveError
from ..archive.catalog import Archive
from ..archive.definition import create as create_definition
from ._common import err, fail, out, plural, say, write_table
from ._options import OutOpt, SuiteOpt

ArchiveUrlOpt = Annotated[Optional[str], typer.Option(
    "--archive-url", envvar="COCOPIPE_ARCHIVE_URL", show_envvar=True,
    help="Archive of the archive:NAME sources: a URL or folder holding coco_archive_definition.txt, or an "
         "official archive's name (all, bbob, bbob-biobj, ...). Default: the official COCO data archive.")]
OfflineOpt = Annotated[bool, typer.Option(
    "--offline", help="Use only the cache for archive:NAME sources (and the archive's definition file).")]


@contextmanager
def download_progress():
    """A byte progress bar per download on a terminal; None (nothing shown) in pipes and CI."""
    if not err.is_terminal:
        yield None
        return
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TransferSpeedColumn

    with Progress(TextColumn("{task.description}", markup=False), BarColumn(), DownloadColumn(), TransferSpeedColumn(),
                  console=err, transient=True) as bar:
        tasks: dict[str, int] = {}

        def update(label: str, done: int, total: int | None) -> None:
            if label not in tasks:
                tasks[label] = bar.add_task(label, total=total)
            bar.update(tasks[label], completed=done, total=total)

        yield update


def archived_sources(sources, store=None, archive_url=None, offline=False, force=False, one=False):
    """`pipeline.archive.sources.expand` with a progress bar: a name that matches nothing ends the
    command with a one-line error; the data sets that cannot be fetched are `.failed` outcomes."""
    from ..archive.sources import expand

    try:
        with download_progress() as show:
            fetched = expand(list(sources), url=archive_url, offline=offline, store=store, force=force, one=one,
                             progress=show)
    except ArchiveError as exc:
        fail(str(exc))
    return fetched


def fetch_errors(failed) -> int:
    """Print a one-line error per data set that could not be fetched (`Expanded.failed`); how many."""
    for o in failed:
        for p in o.problems:
            say(f"{p.file}: {p.message}", "error:", "red")
    return len(failed)


def register(app: typer.Typer) -> None:
    """Add the `archive` command group."""
    arch = typer.Typer(help="The COCO data archive by name (cocopp's archives): list, download, create. Any "
                            "command that reads sources takes archive:NAME too.", no_args_is_help=True)
    app.add_typer(arch, name="archive")

    @arch.command("list")
    def list_(
        pattern: Annotated[Optional[str], typer.Argument(help="Only data sets this name pattern selects (a substring, as cocopp).", show_default=False)] = None,
        suite: SuiteOpt = None,
        out_file: OutOpt = None,
        archive_url: ArchiveUrlOpt = None,
        offline: OfflineOpt = False,
        refresh: Annotated[bool, typer.Option("--refresh", help="Download the archive's definition file again.")] = False,
    ) -> None:
        """The data sets of the archive: name, suite, year, size_kb, sha256, cached (a table on a
        terminal, CSV in a pipe)."""
        import polars as pl

        try:
            archive = Archive(archive_url)
            entries = archive.entries(offline, refresh)
            if pattern is not None:
                entries = archive.resolve(pattern, offline=offline)
        except ArchiveError as exc:
            fail(str(exc))
        rows = archive.rows(entries)
        if suite:
            rows = [r for r in rows if r["suite"] in suite]
            if not rows:
                fail(f"no data set of suite {', '.join(suite)} in {archive.url}"
                     + (f" matches {pattern}" if pattern else ""))
        df = pl.DataFrame(rows, schema={"name": pl.String, "suite": pl.String, "year": pl.Int64,
                                        "size_kb": pl.Int64, "sha256": pl.String, "cached": pl.Boolean})
        write_table(df, out_file if out_file or out.is_terminal else "-")
        if out.is_terminal or out_file:
            err.print(f"{plural(df.height, 'data set')} in {archive.url}, {df['cached'].sum()} cached "
                      f"({df['size_kb'].sum() / 1000:.1f} MB in all)", soft_wrap=True)

    @arch.command()
    def get(
        names: Annotated[list[str], typer.Argument(help="Name patterns (cocopp's: a substring selects every match, a trailing ! the first).")],
        archive_url: ArchiveUrlOpt = None,
        offline: OfflineOpt = False,
    ) -> None:
        """Download data sets into the cache (checked against their sha256) and print their paths."""
        fetched = archived_sources([n if n.startswith("archive:") else f"archive:{n}" for n in names],
                                   archive_url=archive_url, offline=offline)
        for p in fetched.paths:
            out.print(str(p), soft_wrap=True, highlight=False, markup=False)
        if fetch_errors(fetched.failed):
            raise typer.Exit(1)

    @arch.command()
    def create(folder: Annotated[str, typer.Argument(help="Folder of data sets (.tgz, .tar.gz, .zip, ...), in any sub-folders.")]) -> None:
        """Write FOLDER/coco_archive_definition.txt (cocopp's format) so that the folder, or a copy of it
        online, is an archive: `--archive-url FOLDER-or-URL`."""
        skipped = []

        def skip(path, why: str) -> None:  # a line per file left out (a name with a newline shown quoted)
            skipped.append(path)
            shown = str(path) if str(path).isprintable() else repr(str(path))
            say(f"{shown}: {why}; left out of the definition file", "error:", "red")

        try:
            target, entries = create_definition(folder, on_skip=skip)
        except ArchiveError as exc:
            fail(str(exc))
        err.print(f"wrote {target}: {plural(len(entries), 'data set')}, {sum(e.size_kb or 0 for e in entries) / 1000:.1f} MB"
                  + (f"; {plural(len(skipped), 'file')} left out" if skipped else ""), soft_wrap=True)
        if skipped:
            raise typer.Exit(1)
