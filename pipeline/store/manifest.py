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
    if not _typed(data.get("manifest_version", 1), (int,)):
        raise StoreError(f"{where}: corrupt manifest (manifest_version: expected an integer, found "
                         f"{data['manifest_version']!r}){hint}")
    if version(data) > VERSION:
        raise StoreError(f"{where}: manifest version {version(data)} was written by a newer cocopipe "
                         f"(this one reads up to {VERSION}); upgrade cocopipe")
    wrong = wrong_field(data)
    if wrong:
        raise StoreError(f"{where}: corrupt manifest ({wrong}){hint}")
    return data


#: the type each field of a source entry must have where it is present (None: may be null)
_ENTRY = {"name": (str,), "path": (str, type(None)), "source_id": (str,), "runs": (int,), "runs_skipped": (int,),
          "events": (int,), "archive": (int,), "problems": (int,), "suites": (list,), "algorithms": (list,),
          "data_formats": (list,), "coco_versions": (list,), "algorithm_name": (str, type(None)),
          "ingested": (str,)}


def _typed(value, types: tuple) -> bool:
    return isinstance(value, types) and not (isinstance(value, bool) and bool not in types)


def wrong_field(data: dict) -> str | None:
    """What field of a parsed manifest has the wrong type (None: every one is right), as `sources.KEY.FIELD:
    expected TYPE, found TYPE`."""
    def say(where: str, value, what: str) -> str:
        return f"{where}: expected {what}, found {type(value).__name__} {json.dumps(value, default=str)[:40]}"

    for field, what in (("schema_versions", dict), ("derived", dict)):
        if field in data and not isinstance(data[field], what):
            return say(field, data[field], "an object")
    if "txn" in data and not isinstance(data["txn"], (str, type(None))):
        return say("txn", data["txn"], "a string")
    for key, e in data["sources"].items():
        for i, f in enumerate(e["files"]):
            if not isinstance(f, str):
                return say(f"sources.{key}.files[{i}]", f, "a store path")
        for field, types in _ENTRY.items():
            if field in e and not _typed(e[field], types):
                return say(f"sources.{key}.{field}", e[field], " or ".join(
                    {str: "a string", int: "an integer", list: "a list", type(None): "null"}[t] for t in types))
        for field in ("suites", "algorithms"):
            if any(not isinstance(v, str) for v in e.get(field, [])):
                return say(f"sources.{key}.{field}", e[field], "a list of strings")
    for name, d in data.get("derived", {}).items():
        if not isinstance(d, dict) or not isinstance(d.get("files", []), list) or \
                any(not isinstance(f, str) for f in d.get("files", [])) or not isinstance(d.get("table", ""), str):
            return say(f"derived.{name}", d, "an object with a table and a list of files")
    return None


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
