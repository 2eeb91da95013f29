"""The store manifest `cocopipe-store.json`: its format, its version, and the upgrade of older ones.

Version 2 (this one) keys each source by its identity: the full resolved path of the folder or
archive ingested, or the name given to it (`cocopipe ingest --source-name`). Version 1 (no
`manifest_version` field) keyed them by the base name, so that two sources of one base name
replaced each other; it is read as it is, and upgraded by the first write. The fields are
documented in the README's store section.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from .errors import StoreError
from ..words import plural

FILE = "cocopipe-store.json"
FORMAT = "cocopipe-store"
VERSION = 2


def empty(schema_versions: dict) -> dict:
    """The manifest of a new store."""
    return {"format": FORMAT, "manifest_version": VERSION, "schema_versions": schema_versions, "sources": {}}


def parse(text: str, where: Path) -> dict:
    """The manifest in `text`; StoreError (one line, naming the file) where it is not one."""
    hint = f"; `cocopipe check --store {where.parent} --repair` rebuilds it from the store's files"
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise StoreError(f"{where}: corrupt manifest ({exc}){hint}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("sources"), dict):
        raise StoreError(f"{where}: not a cocopipe store manifest (no format {FORMAT!r} with sources){hint}")
    bad = [k for k, e in data["sources"].items() if not isinstance(e, dict) or not isinstance(e.get("files"), list)]
    if bad:
        raise StoreError(f"{where}: corrupt manifest (source {bad[0]!r} lists no files){hint}")
    if version(data) > VERSION:
        raise StoreError(f"{where}: manifest version {version(data)} was written by a newer cocopipe "
                         f"(this one reads up to {VERSION}); upgrade cocopipe")
    return data


def version(data: dict) -> int:
    """The manifest's format version (1 when it names none)."""
    return int(data.get("manifest_version", 1))


def upgrade(data: dict) -> tuple[dict, str | None]:
    """The manifest in the current version, and a message saying what changed (None: nothing)."""
    if version(data) >= VERSION:
        return data, None
    sources: dict[str, dict] = {}
    renamed: dict[str, str] = {}
    for name, entry in data["sources"].items():
        path = entry.get("path") or ""
        key = path if os.path.isabs(path) and path not in sources else name
        sources[key] = dict(entry, name=entry.get("name", name))
        renamed[name] = key
    for derived in data.get("derived", {}).values():  # derived tables record the sources they were made of
        if isinstance(derived.get("sources"), dict):
            derived["sources"] = {renamed.get(k, k): v for k, v in derived["sources"].items()}
    out = dict(data, manifest_version=VERSION, sources=sources)
    return out, (f"manifest upgraded from version 1 to {VERSION}: its {plural(len(sources), 'source')} "
                 f"{'is' if len(sources) == 1 else 'are'} now known by the full path, not the base name")
