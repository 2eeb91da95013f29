"""Source arguments `archive:NAME` replaced by the archive's data sets, fetched into the cache, for ingest."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..ingest import Problem, SourceOutcome
from . import PREFIX, ArchiveError, is_archive_source
from .catalog import Archive
from .definition import Entry


@dataclass
class Expanded:
    """What the source arguments name, archive names replaced by their data sets."""

    #: the sources to ingest: other arguments as given, archived data sets as their local files
    paths: list = field(default_factory=list)
    #: manifest fields of the archived data sets (archive_name, archive_url, archive_root, archive_sha256),
    #: by resolved path (`pipeline.ingest.ingest`'s `meta`)
    meta: dict[str, dict] = field(default_factory=dict)
    #: data sets already in the store with the same hash: neither fetched nor read (an `ingest` outcome)
    unchanged: list = field(default_factory=list)
    #: data sets that could not be fetched (an `ingest` outcome, with the reason as its problem)
    failed: list = field(default_factory=list)


def stored_hashes(store) -> dict[str, str]:
    """sha256 of the archived data sets in a store, to the key of the source holding each."""
    return {e["archive_sha256"]: key for key, e in store.sources().items() if e.get("archive_sha256")}


def expand(args, *, url: str | None = None, offline: bool = False, store=None, force: bool = False,
           one: bool = False, progress=None) -> Expanded:
    """Resolve every `archive:NAME` among `args` in the archive at `url` (see `catalog.Archive`), then
    fetch each data set the store does not hold (unless `force`). A name that matches nothing raises
    ArchiveError before anything is fetched; a data set that cannot be fetched is a failed outcome.
    `one`: each name must name one data set. `progress(label, done, total)` sees the downloads."""
    out = Expanded()
    if not any(is_archive_source(a) for a in args):
        out.paths = list(args)
        return out
    archive = Archive(url)
    items: list = []
    for a in args:
        if is_archive_source(a):
            items += [e for e in archive.resolve(a[len(PREFIX):], one=one, offline=offline) if e not in items]
        else:
            items.append(a)
    held = stored_hashes(store) if store is not None and not force else {}
    sources = store.sources() if held else {}
    for item in items:
        if not isinstance(item, Entry):
            out.paths.append(item)
        elif item.sha256 in held:
            entry = sources[held[item.sha256]]
            out.unchanged.append(SourceOutcome(entry.get("name", held[item.sha256]), entry.get("path", ""), "unchanged",
                                               runs=entry.get("runs", 0)))
        else:
            try:
                path = archive.fetch(item, offline, progress)
            except ArchiveError as exc:
                why = str(exc).removeprefix(f"{item.name}: ")
                out.failed.append(SourceOutcome(item.name, archive.data_url(item), "failed",
                                                problems=[Problem(f"{PREFIX}{item.name}", None, why, "not read")]))
                continue
            out.paths.append(path)
            out.meta[str(Path(path).resolve())] = {"archive_name": item.name, "archive_url": archive.data_url(item),
                                                   "archive_root": archive.url, "archive_sha256": item.sha256}
    return out


def add_outcomes(summary, fetched: Expanded, on_source=None):
    """The ingest `summary` with the archived data sets that were not read: already stored, or not
    fetched (each also shown to `on_source`)."""
    for o in fetched.unchanged + fetched.failed:
        summary.sources.append(o)
        if on_source:
            on_source(o)
    return summary
