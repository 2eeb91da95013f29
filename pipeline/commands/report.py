"""`cocopipe report`: raw logs or a store to an HTML report (index.html, pages per view, settings.json)."""
from __future__ import annotations

import dataclasses
import gc
import json
import tempfile
from pathlib import Path
from typing import Annotated, Optional

import typer

from ..archive import is_archive_source
from ._common import error_text, fail, note, open_store, plural, say, stages, warn
from ._options import ExecutorOpt, SamplesOpt, SeedOpt, SelectionOptions, uses
from .archive import ArchiveUrlOpt, OfflineOpt, fetch_errors
from .ingest import ingest_sources, read_nothing, unread

#: how settings.json names the sample data shipped with the package
SAMPLE = "cocopipe:sample"
#: the report's settings whose option is not --name
OPTIONS = {"ecdf_samples": "--samples", "table_samples": "--samples"}


def refused(exc: Exception, given: dict) -> str:
    """The one-line error of a refused setting, named as the command line spells it (`--mode 'trials': ...`)
    when its value came from an option (`given`: setting -> value, None when not given), else as settings.json
    and Python do (`mode 'trials': ...`)."""
    name = getattr(exc, "setting", None)
    if name is None:
        return str(exc)
    return error_text(exc, {name: OPTIONS.get(name, f"--{name.replace('_', '-')}") if given.get(name) is not None
                            else name})


def sample_dir() -> Path:
    """The sample logs shipped with the package (data/sample in the repository)."""
    here = Path(__file__).resolve().parent.parent
    for cand in (here / "_data" / "sample", here.parent / "data" / "sample"):
        if cand.is_dir():
            return cand
    fail("the sample data (data/sample) is not installed with this copy of cocopipe")


def _ingest(sources: list[str], store_path: str, archive_url: str | None = None, offline: bool = False,
            allow_partial: bool = False) -> None:
    """Read the sources into the store (created when missing), with one-line problems; `archive:NAME`
    sources come from the archive at `archive_url` (a data set that cannot be fetched is an error, and so
    are a source not read and runs skipped, unless `allow_partial`)."""
    paths = [s if is_archive_source(s) else sample_dir() if s == SAMPLE else Path(s) for s in sources]
    for p in paths:
        if isinstance(p, Path) and not p.exists():
            fail(f"{p}: no such file or folder")
    _, summary = ingest_sources(paths, store_path, archive_url=archive_url, offline=offline)
    failed = [s for s in summary.sources if s.status == "failed" and s.problems and is_archive_source(s.problems[0].file)]
    for s in summary.sources:
        for p in s.problems if s not in failed else []:
            warn(str(p))
        for n in s.notes:  # trials stored from another source, logs that disagree with themselves
            note(f"{s.name}: {n}")
    if fetch_errors(failed):
        raise typer.Exit(1)
    if read_nothing(summary):
        fail("no runs could be read from " + ", ".join(str(p) for p in paths))
    if (missing := unread(summary)) and not allow_partial:
        fail(f"{missing}: no report made without them (--allow-partial makes it of what was read)")


def _compare_data(old: dict, new: dict) -> None:
    """Warn when the data differ from those a settings file was made with."""
    key = lambda d: (d["suite"], d["algorithm"], d["source"], d["source_id"])  # noqa: E731
    a, b = {key(d) for d in old.get("data_sets", [])}, {key(d) for d in new.get("data_sets", [])}
    if old.get("data_sets") is not None and a != b:
        warn(f"the data differ from those settings.json records ({plural(len(a - b), 'data set')} missing or "
             f"changed, {len(b - a)} new): the report will differ")


def _settings(sel: SelectionOptions, settings_file: str | None, changes: dict, out: str, force: bool):
    """The report's settings (a settings file's, the options given over them), checked, and the file's record;
    the --out folder checked before any work: one-line errors."""
    from ..report import Settings, SettingsError
    from ..report.output import check_place, check_replaceable

    try:
        settings = Settings.load(settings_file) if settings_file else Settings()
        old_record = settings.record
        changes = dict(algorithms=sel.algorithm or None, suites=sel.suite or None, functions=sel.function or None,
                       dimensions=sel.dimension or None, max_budget=sel.max_budget and str(sel.max_budget),
                       all_instances=sel.all_instances, **changes)
        settings = settings.replace(**changes, record={}).check()
        check_place(Path(out), (sel.store,) if sel.store else ())  # before any work
        check_replaceable(Path(out), force)
    except SettingsError as exc:
        fail(refused(exc, changes))
    return settings, old_record


@uses(SelectionOptions, without=("exact", "indicator", "values"), store=None, all_instances=None)
def report(
    sel: SelectionOptions,
    sources: Annotated[Optional[list[str]], typer.Argument(help="COCO results folders or archives to ingest first (default without --store: the sample data); archive:NAME for data sets of the COCO data archive (e.g. archive:bbob/2009/BIPOP!).", show_default=False)] = None,
    out: Annotated[str, typer.Option("--out", "-o", help="Report folder (index.html, pages, settings.json, static/).")] = "cocopipe-report",
    settings_file: Annotated[Optional[str], typer.Option("--settings", help="settings.json of an earlier report: rebuild it exactly (options given here override it).")] = None,
    reference: Annotated[Optional[str], typer.Option("--reference", "-r", help="Reference algorithm: one of the store, or a packaged set (best2009, best09-16, best2016, best2019), for the suites it fits; 'none' for none (default: each suite's packaged set as cocopp: best2009 on bbob and bbob-noisy, best2016 on bbob-biobj, best2019 on bbob-largescale).")] = None,
    mode: Annotated[Optional[str], typer.Option("--mode", help="ECDF of simulated restarts: simulated (seeded, as cocopp) or exact (its expectation).")] = None,
    seed: SeedOpt = None, samples: SamplesOpt = None,
    targets: Annotated[Optional[str], typer.Option("--targets", "-t", help="ECDF targets: bbob, biobj, or v1,v2,... (default: the suite's standard set).")] = None,
    renderer: Annotated[Optional[str], typer.Option(help="vega (interactive, shipped JavaScript) or svg (static pictures, no JavaScript).")] = None,
    background: Annotated[Optional[list[str]], typer.Option("--background", "-b", help="Algorithms drawn thin and grey behind the compared ones in every ECDF and scaling chart (e.g. a whole archive): names of the store, another cocopipe store (all its algorithms), or COCO results folders / archives (ingested with the data). Repeat for several.")] = None,
    jobs: Annotated[Optional[int], typer.Option("--jobs", "-j", help="Worker processes for tables and charts (default: CPUs, at most 4; 1: none).")] = None,
    executor: ExecutorOpt = "local",
    archive_url: ArchiveUrlOpt = None,
    offline: OfflineOpt = False,
    force: Annotated[bool, typer.Option("--force", help="Replace the --out folder even when cocopipe did not write it (all it holds is deleted).")] = False,
    allow_partial: Annotated[bool, typer.Option("--allow-partial", help="Make the report when some of the SOURCES or their runs could not be read (default: exit 1 naming them).")] = False,
) -> None:
    """One HTML report of one, two or many algorithms: ECDFs per function and group, scaling, aRT
    tables with tests, pairwise comparisons, a page per algorithm; opens offline from disk."""
    from ..api import Analysis
    from ..report import SettingsError, build
    from ..report.context import is_store
    from ..report.runner import Runner, default_jobs

    gc.freeze()  # the libraries' objects, made by these imports, out of the command's later collections (0.2 s)
    store = sel.store  # with SOURCES, they are ingested into it (default: a temporary store)
    changes = dict(reference=reference, mode=mode, seed=seed, targets=targets, renderer=renderer,
                   background=[b if not Path(b).exists() else str(Path(b).resolve()) for b in background]
                   if background else None)
    if samples is not None:
        changes.update(ecdf_samples=samples, table_samples=samples)
    settings, old_record = _settings(sel, settings_file, changes, out, force)
    if jobs is not None and jobs < 1:
        fail(f"--jobs {jobs}: expected 1 or more")

    if sources:
        srcs = [s if s == SAMPLE or is_archive_source(s) else str(Path(s).resolve()) for s in sources]
    else:
        srcs = None if store else (settings.sources or [SAMPLE])
    settings = dataclasses.replace(settings, sources=srcs)
    with tempfile.TemporaryDirectory(prefix="cocopipe-report-store-") as tmp, \
            Runner(default_jobs() if jobs is None else jobs) as runner:
        store_path = store or str(Path(tmp) / "store")
        back_srcs = [b for b in settings.background or [] if Path(b).exists() and not is_store(b)]
        runner.warm()  # the workers' server imports the report's modules while the data are read, or looked up
        if srcs or back_srcs:
            _ingest([*(srcs or []), *back_srcs], store_path, archive_url, offline, allow_partial)
        st = open_store(store_path)
        try:
            with stages("report") as update:
                index = build(Analysis(st, executor=executor), out, settings, progress=update, force=force, runner=runner)
        except (SettingsError, ValueError) as exc:
            fail(refused(exc, changes))
        except OSError as exc:  # a full disk, a folder made read-only meanwhile
            if exc.filename is None or Path(out).resolve().parent not in Path(exc.filename).resolve().parents:
                raise
            fail(f"{exc.filename}: cannot write the report ({exc.strerror}); nothing of it was kept")
    record = json.loads((index.parent / "settings.json").read_text())["record"]
    if old_record:
        _compare_data(old_record, record)
    for line in record.get("notes", []):
        note(line)
    for part in record.get("skipped", []):
        warn(part)
    pages = sorted(index.parent.glob("*.html"))
    say(f"wrote the report to {index} ({plural(len(pages), 'page')}; settings in {index.parent / 'settings.json'})")
    if record.get("skipped"):
        fail(f"{plural(len(record['skipped']), 'part')} of the report failed and were left out (listed above)")


def register(app: typer.Typer) -> None:
    """Add the commands of this module."""
    app.command()(report)
