"""How ingested sources are known in the store: by their full resolved path, or by a name given to
one; what storing a source does to the others (replaces one, shares files with one), said before."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..store import SourceData, Store
from .sources import Source
from ..words import plural


@dataclass
class Identity:
    """How the sources of one ingest are known in the store: by their full path, or by the name
    given to the one source (`source_name`); `replace`: the key of a source it replaces."""

    source_name: str | None = None
    replace: str | None = None

    def key(self, src: Source) -> str:
        """The key of a source in the store's manifest."""
        return self.source_name or src.path

    def replaced(self) -> list[str]:
        """The keys of the stored sources the source ingested replaces besides its own."""
        return [self.replace] if self.replace else []

    def notes(self, sources: dict[str, dict], src: SourceData) -> list[str]:
        """What storing `src` does to the other sources, said before it is done."""
        key, out = src.key, []
        old = sources.get(key)
        if old and old.get("source_id") != src.source_id:
            out.append(f"replaces its earlier version in the store ({old.get('runs', '?')} runs)")
        if self.replace and self.replace != key:
            out.append(f"replaces {self.replace} ({sources[self.replace].get('runs', '?')} runs)")
        for k, e in sources.items():
            if k in (key, self.replace):
                continue
            if e.get("name", k) == src.name:
                out.append(f"another source named {src.name} is in the store ({k}): both are kept, this one "
                           f"as {key} (`--replace {k}` replaces it)")
            if e.get("source_id") == src.source_id:
                out.append(f"same content as {k}: its files are stored once, for both")
            left = sum(n for other, n in e.get("duplicates_left_out", {}).items() if other in (key, self.replace))
            if left and (old and old.get("source_id") != src.source_id or self.replace):
                out.append(f"{k} left out {plural(left, 'trial')} identical to those of the version replaced: if this "
                           f"one lacks them, ingest {k} again (--force)")
        return out


def resolve_source(store: Store, name: str) -> str:
    """The key of the stored source `name` names: its key, its path, or its base name when only one
    source has it; ValueError otherwise."""
    sources = store.sources()
    if name in sources:
        return name
    path = str(Path(name).resolve())
    if path in sources:
        return path
    named = [k for k, e in sources.items() if e.get("name") == name]
    if len(named) == 1:
        return named[0]
    if named:
        raise ValueError(f"{name}: {len(named)} sources have this name ({', '.join(named)}); give the one meant")
    raise ValueError(f"{name}: no such source in {store.path}")
