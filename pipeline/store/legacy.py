"""Stores of the earlier layout (hive-partitioned Parquet files listed by a manifest `cocopipe-store.json`),
made Delta Lake stores by `cocopipe upgrade` (`upgrade_store`).

Manifest version 2 keys each source by its identity: the full resolved path of the folder or
archive ingested, or the name given to it (`cocopipe ingest --source-name`). Version 1 (no
`manifest_version` field) keyed them by the base name, so that two sources of one base name
replaced each other; it is read as it is, and upgraded by the first write. The fields are
documented in the README's store section.
"""
from __future__ import annotations

import json
import os
import uuid
from pathlib import Path

import shutil

import polars as pl

from . import hive, schema
from .errors import StoreError
from ..words import plural

FILE = "cocopipe-store.json"
FORMAT = "cocopipe-store"
VERSION = 2


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


#: where `upgrade_store` puts the files of the earlier layout (the user deletes them once content)
BACKUP = "layout-v2-backup"


def _read(folder: Path, rel: str) -> pl.DataFrame:
    """One file of the earlier layout, with its partition columns from its folder names."""
    table = rel.split("/", 1)[0] if rel.split("/", 1)[0] in schema.TABLES else None
    df = pl.read_parquet(folder / rel)
    for seg in Path(rel).parent.parts:
        if "=" in seg:
            k, v = seg.split("=", 1)
            df = df.with_columns(pl.lit(hive.decode(v), pl.String).alias(k))
    if table is not None:
        sch = schema.polars_schema(table)
        defaults = {c["name"]: c.get("default") for c in schema.spec(table)["columns"]}
        df = df.select([pl.col(c).cast(t) if c in df.columns else pl.lit(defaults.get(c), t).alias(c)
                        for c, t in sch.items()])
    return df


def upgrade_store(folder: str | os.PathLike) -> tuple[list[str], list[str]]:
    """Make the store of the earlier layout in `folder` a Delta Lake store with the same sources, derived
    tables, reference choices and properties, keeping every file that reads; its old files go to
    `folder/layout-v2-backup/`. Returns what was done and the files left out (missing or unreadable), a
    line each."""
    from .store import SourceData, Store

    folder = Path(folder).absolute()
    m, _ = upgrade(parse((folder / FILE).read_text(encoding="utf-8"), folder / FILE))
    work = folder / f".upgrade-{uuid.uuid4().hex[:8]}"
    done: list[str] = []
    lost: list[str] = []
    try:
        new = Store(work, create=True)
        written: set[str] = set()
        for key, e in m["sources"].items():
            tables: dict[str, list[pl.DataFrame]] = {}
            for rel in e["files"]:
                if rel in written:
                    continue
                df = _readable(folder, rel, lost)
                if df is None:
                    continue
                written.add(rel)
                tables.setdefault(rel.split("/", 1)[0], []).append(df)
            frames = {t: pl.concat(fs, how="vertical_relaxed") for t, fs in tables.items()}
            if "runs" not in frames:
                lost.append(f"source {key}: no file of its runs readable; not in the new store (ingest it again)")
                continue
            meta = {k: v for k, v in e.items() if k not in ("files", "name", "path", "source_id", "ingested")}
            meta.update({t: df.height for t, df in frames.items()})  # what is stored: a table lost counts 0
            meta.update({t: 0 for t in schema.TABLES if t in meta and t not in frames})
            new.write_source(SourceData(e.get("name", key), e["source_id"], e.get("path") or key, frames, meta, key=key))
            done.append(f"source {key}: {plural(frames['runs'].height, 'run')}")
        for name, d in m.get("derived", {}).items():
            parts = [df for rel in d.get("files", []) if (df := _readable(folder, rel, lost)) is not None]
            df = pl.concat(parts, how="vertical_relaxed") if parts else pl.DataFrame(schema=schema.polars_schema(d["table"]))
            meta = {k: v for k, v in d.items() if k not in ("files", "table")}
            new.write_derived(name, d["table"], df.select(list(schema.polars_schema(d["table"]))), meta)
            done.append(f"derived table {name}: {plural(df.height, 'row')}")
        choices = sorted((folder / "references").glob("*.parquet"))
        for f in choices:
            df = pl.read_parquet(f)
            if df.height:
                new.replace_rows("references", df, "algorithm", df["algorithm"][0])
        if m.get("packaged_references") is True:
            new.set_property("packaged_references", "true")
        backup = folder / BACKUP
        backup.mkdir(exist_ok=True)
        for p in list(folder.iterdir()):
            if p != work and p != backup:
                shutil.move(p, backup / p.name)
        for p in list(work.iterdir()):
            shutil.move(p, folder / p.name)
        work.rmdir()
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    done.append(f"the files of the earlier layout are in {folder / BACKUP} (delete it once the store reads right)")
    return done, lost


def _readable(folder: Path, rel: str, lost: list[str]) -> pl.DataFrame | None:
    """A file of the earlier layout, or None where it is missing or unreadable (said in `lost`)."""
    if not (folder / rel).is_file():
        lost.append(f"{rel}: listed by {FILE} but missing; its rows are not in the new store")
        return None
    try:
        return _read(folder, rel)
    except (OSError, pl.exceptions.PolarsError) as exc:
        lost.append(f"{rel}: unreadable ({' '.join(str(exc).split())[:200]}); its rows are not in the new store "
                    f"(the file is kept in {BACKUP}/)")
        return None
