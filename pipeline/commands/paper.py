"""`cocopipe paper`: raw logs or a store to the files COCO's LaTeX templates read (cocopp's ppdata/)."""
from __future__ import annotations

import dataclasses
import json
import tempfile
from pathlib import Path
from typing import Annotated, Optional

import typer

from ..archive import is_archive_source
from ._common import fail, open_store, plural, say, stages, warn
from ._options import SamplesOpt, SeedOpt, SelectionOptions, uses
from .archive import ArchiveUrlOpt, OfflineOpt


def _source_order(store, sources: list[str]) -> list[str]:
    """The algorithms in the order of the sources that hold them (the command line's: the plots' and captions')."""
    import polars as pl

    from ..ingest import source_names

    local = [s for s in sources if not is_archive_source(s)]
    names = source_names(local) if local else []
    runs = store.runs().select("source", "algorithm").unique().collect()
    rank = {n: i for i, n in enumerate(names)}
    runs = runs.with_columns(r=pl.col("source").replace_strict(rank, default=len(rank), return_dtype=pl.Int64))
    return list(dict.fromkeys(runs.sort("r", "algorithm")["algorithm"]))


def _check_out(out: Path, force: bool) -> None:
    """Refuse to replace a folder cocopipe did not write (unless --force)."""
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / "settings.json").exists()
                                               and not force)):
        fail(f"{out}: exists and was not written by cocopipe paper (--force replaces it)")


def register(app: typer.Typer) -> None:
    """Add the commands of this module."""

    @app.command()
    @uses(SelectionOptions, without=("exact", "indicator", "values"), store=None, all_instances=None)
    def paper(
        sel: SelectionOptions,
        sources: Annotated[Optional[list[str]], typer.Argument(help="COCO results folders or archives to ingest first; archive:NAME for data sets of the COCO data archive. Their order is the order of the algorithms in the tables, plots and captions.", show_default=False)] = None,
        out: Annotated[str, typer.Option("--out", "-o", help="Output folder: the templates' ppdata/ (point \\bbobdatapath at it).")] = "ppdata",
        settings_file: Annotated[Optional[str], typer.Option("--settings", help="settings.json of an earlier paper folder: make the same files again (options given here override it).")] = None,
        reference: Annotated[Optional[str], typer.Option("--reference", "-r", help="Reference set of the tables and plots (best2009, best09-16, best2016, best2019, or an algorithm of the store); 'none' for none (default: the suite's, as cocopp).")] = None,
        seed: SeedOpt = None, samples: SamplesOpt = None,
        jobs: Annotated[Optional[int], typer.Option("--jobs", "-j", help="Processes drawing the figures' PDFs, and threads building their charts (default 2).")] = None,
        archive_url: ArchiveUrlOpt = None,
        offline: OfflineOpt = False,
        force: Annotated[bool, typer.Option("--force", help="Replace the --out folder even when cocopipe did not write it.")] = False,
        allow_partial: Annotated[bool, typer.Option("--allow-partial", help="Make the files when some SOURCES or runs could not be read (default: exit 1 naming them).")] = False,
    ) -> None:
        """The files COCO's LaTeX article templates read (templateBBOBarticle, templateBIOBJmultiple, ...):
        cocopp_commands.tex, the aRT tables and the figures as PDF, and settings.json to make them again."""
        from ..api import Analysis
        from ..paper.build import PaperSettings, build
        from .report import _ingest

        settings = PaperSettings()
        if settings_file:
            try:
                known = json.loads(Path(settings_file).read_text(encoding="utf-8"))
                settings = PaperSettings(**{k: v for k, v in known.items() if k != "record"})
            except (OSError, ValueError, TypeError) as exc:
                fail(f"{settings_file}: not a settings.json of cocopipe paper ({exc})")
        if jobs is not None and jobs < 1:
            fail(f"--jobs {jobs}: expected 1 or more")
        for key, value in dict(reference=reference, seed=seed, samples=samples, jobs=jobs).items():
            if value is not None:
                setattr(settings, key, value)
        if sel.suite:
            settings.suite = sel.suite[0]
        settings.functions = sel.function or settings.functions
        settings.dimensions = sel.dimension or settings.dimensions
        out_path = Path(out)
        _check_out(out_path, force)
        srcs = [s if is_archive_source(s) else str(Path(s).resolve()) for s in sources] if sources else settings.sources
        if not srcs and not sel.store:
            fail("no data: give SOURCES or --store")
        settings.sources = srcs
        with tempfile.TemporaryDirectory(prefix="cocopipe-paper-store-") as tmp:
            store_path = sel.store or str(Path(tmp) / "store")
            if srcs:
                _ingest(srcs, store_path, archive_url, offline, allow_partial)
            ana: Analysis = dataclasses.replace(sel, store=store_path, function=settings.functions,
                                                dimension=settings.dimensions).analysis()
            settings.algorithms = sel.algorithm or settings.algorithms or _source_order(open_store(store_path), srcs or [])
            try:
                with stages("paper") as update:
                    path = build(ana, out_path, settings, progress=lambda stage: update(stage, 0, None))
            except ValueError as exc:
                fail(str(exc))
        record = json.loads(path.read_text(encoding="utf-8"))["record"]
        for name, why in record.get("placeholders", {}).items():
            warn(f"{name}: {why} (the figure says so)")
        say(f"wrote {plural(record['tables'], 'table')} and {plural(record['figures'], 'figure')} of "
            f"{', '.join(record['templates'])} for {plural(len(record['algorithms']), 'algorithm')} to {out_path} "
            f"(settings in {path})")
