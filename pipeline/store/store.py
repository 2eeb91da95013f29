"""The Parquet store: hive-partitioned tables, a manifest of sources, atomic source replacement."""
from __future__ import annotations

import json
import os
import shutil
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from . import schema

MANIFEST = "cocopipe-store.json"
JOURNAL = ".journal.json"
DERIVED = "derived"
FORMAT = "cocopipe-store"


class StoreError(RuntimeError):
    """The store folder cannot be used."""


def _write_parquet(tbl: pa.Table, out: Path) -> None:
    """Write one zstd-compressed Parquet file; dictionary encoding only for string columns (on
    numbers it costs half the write time and makes the files larger)."""
    strings = [f.name for f in tbl.schema if pa.types.is_string(f.type) or pa.types.is_large_string(f.type)]
    pq.write_table(tbl, out, compression="zstd", row_group_size=1 << 20, use_dictionary=strings)


def _part_value(value: str) -> str:
    """Hive partition value, percent-encoded so that any algorithm name is a safe folder name."""
    return quote(str(value), safe=" -_.+()[]{},;=@~!'")


@dataclass
class SourceData:
    """Everything one source contributes to the store."""

    name: str
    source_id: str
    path: str
    tables: dict[str, pl.DataFrame]
    meta: dict = field(default_factory=dict)


@dataclass
class Staged:
    """A source's files written to a staging folder, waiting for `Store.commit`."""

    data: SourceData
    txn: str
    added: list[str]


class Store:
    """A cocopipe store folder."""

    def __init__(self, path: str | os.PathLike, *, create: bool = False):
        self.path = Path(path)
        if create:
            self.path.mkdir(parents=True, exist_ok=True)
            if not (self.path / MANIFEST).exists():
                if any(p for p in self.path.iterdir() if not p.name.startswith(".")):
                    raise StoreError(f"{self.path}: folder is not empty and holds no {MANIFEST}")
                self._write_manifest({"format": FORMAT, "schema_versions": self._versions(), "sources": {}})
        if not (self.path / MANIFEST).is_file():
            raise StoreError(f"{self.path}: not a cocopipe store (no {MANIFEST}); run `cocopipe ingest` first")
        self._recover()

    # -- manifest --------------------------------------------------------------------------
    @staticmethod
    def _versions() -> dict:
        return {t: schema.version(t) for t in schema.TABLES}

    @property
    def manifest(self) -> dict:
        """The store manifest (sources, schema versions)."""
        try:
            return json.loads((self.path / MANIFEST).read_text())
        except json.JSONDecodeError as exc:
            raise StoreError(f"{self.path / MANIFEST}: corrupt manifest ({exc})") from exc

    def _write_manifest(self, data: dict) -> None:
        tmp = self.path / f".{MANIFEST}.{uuid.uuid4().hex}"
        tmp.write_text(json.dumps(data, indent=1, sort_keys=True))
        os.replace(tmp, self.path / MANIFEST)

    def sources(self) -> dict[str, dict]:
        """Sources in the store, by name."""
        return self.manifest["sources"]

    # -- reading ---------------------------------------------------------------------------
    def scan(self, table: str, root: Path | None = None) -> pl.LazyFrame:
        """Lazy scan of a table (or of a derived copy under `root`); partition filters on
        suite/algorithm prune files."""
        sch = schema.polars_schema(table)
        root = self.path / table if root is None else root
        if not root.is_dir() or not any(root.rglob("*.parquet")):
            return pl.LazyFrame(schema=sch)
        hive = {c: sch[c] for c in schema.partition_columns(table)}
        # files of an older minor schema version lack the columns added since: read as nulls
        lf = pl.scan_parquet(root, hive_partitioning=True, hive_schema=hive, missing_columns="insert",
                             schema=schema.polars_schema(table, with_partitions=False))
        return lf.select(list(sch))

    def runs(self) -> pl.LazyFrame:
        """The `runs` table."""
        return self.scan("runs")

    def events(self) -> pl.LazyFrame:
        """The `events` table."""
        return self.scan("events")

    def archive(self) -> pl.LazyFrame:
        """The `archive` table (solutions of bbob-biobj .adat files)."""
        return self.scan("archive")

    # -- derived tables: versions computed from the stored ones (e.g. a recomputed indicator) --
    def derived(self) -> dict[str, dict]:
        """Derived tables in the store, by name, with what the manifest records of them."""
        return self.manifest.get("derived", {})

    def scan_derived(self, name: str) -> pl.LazyFrame:
        """Lazy scan of a derived table (with the schema of the table it derives from)."""
        entry = self.derived().get(name)
        if entry is None:
            raise StoreError(f"{self.path}: no derived table {name!r}")
        return self.scan(entry["table"], self.path / DERIVED / name)

    def write_derived(self, name: str, table: str, df: pl.DataFrame, meta: dict | None = None) -> list[str]:
        """Write (or replace) a derived table atomically: the files go under `derived/NAME/`,
        partitioned and validated like `table`; `meta` is recorded in the manifest."""
        txn = uuid.uuid4().hex
        stage = self._stage(txn)
        parts = schema.partition_columns(table)
        added: list[str] = []
        try:
            stage.mkdir()
            for keys, part in df.group_by(parts, maintain_order=True):
                rel = Path(*(f"{k}={_part_value(v)}" for k, v in zip(parts, keys)), "part.parquet")
                (stage / rel).parent.mkdir(parents=True, exist_ok=True)
                pq.write_table(schema.conform(table, part.drop(parts)), stage / rel, compression="zstd",
                               row_group_size=1 << 20)
                added.append((Path(DERIVED) / name / rel).as_posix())
        except BaseException:
            shutil.rmtree(stage, ignore_errors=True)
            raise
        final = self.path / DERIVED / name
        trash = self.path / f".stage-{txn}-old"
        final.parent.mkdir(exist_ok=True)
        if final.exists():
            os.replace(final, trash)
        os.replace(stage, final)
        manifest = self.manifest
        manifest.setdefault("derived", {})[name] = dict(meta or {}, table=table, files=added,
                                                        created=time.strftime("%Y-%m-%dT%H:%M:%S"))
        self._write_manifest(manifest)
        shutil.rmtree(trash, ignore_errors=True)
        return added

    # -- writing ---------------------------------------------------------------------------
    def has(self, name: str, source_id: str) -> bool:
        """True when the source with this name and content is already stored."""
        s = self.sources().get(name)
        return bool(s) and s["source_id"] == source_id

    def write_source(self, data: SourceData) -> list[str]:
        """Add or replace one source atomically; returns the files written (relative paths)."""
        return self.commit(self.stage(data))

    def stage(self, data: SourceData) -> Staged:
        """Write a source's files into a staging folder of their own, not yet part of the store
        (safe from several threads at once; `commit` makes them part of it). The folder is flat:
        the k-th file of `added` is `k.parquet` there."""
        txn = uuid.uuid4().hex
        stage = self._stage(txn)
        added: list[str] = []
        try:
            stage.mkdir()
            for table, df in data.tables.items():
                parts = schema.partition_columns(table)
                if df.height == 0:
                    continue
                for keys, part in df.group_by(parts, maintain_order=True):
                    rel = Path(table).joinpath(
                        *(f"{k}={_part_value(v)}" for k, v in zip(parts, keys)), f"{data.source_id}.parquet"
                    )
                    _write_parquet(schema.conform(table, part.drop(parts)), stage / f"{len(added)}.parquet")
                    added.append(rel.as_posix())
        except BaseException:
            shutil.rmtree(stage, ignore_errors=True)
            raise
        return Staged(data, txn, added)

    def _stage(self, txn: str) -> Path:
        """The staging folder of a write."""
        return self.path / f".stage-{txn}"

    def discard(self, staged: Staged) -> None:
        """Delete a staged source that will not be committed."""
        shutil.rmtree(self._stage(staged.txn), ignore_errors=True)

    def commit(self, staged: Staged) -> list[str]:
        """Make a staged source part of the store, replacing an earlier version of it atomically
        (one commit at a time: call from one thread)."""
        data, txn, added = staged.data, staged.txn, staged.added
        stage = self._stage(txn)
        trash = self.path / f".trash-{txn}"
        manifest = self.manifest
        old = manifest["sources"].get(data.name)
        removed = [f for f in (old or {}).get("files", []) if f not in added]
        replaced = [f for f in (old or {}).get("files", []) if f in added]
        journal = {"txn": txn, "stage": stage.name, "trash": trash.name, "added": added,
                   "trashed": removed + replaced}
        (self.path / JOURNAL).write_text(json.dumps(journal))
        for rel in journal["trashed"]:
            src = self.path / rel
            if src.exists():
                dst = trash / rel
                dst.parent.mkdir(parents=True, exist_ok=True)
                os.replace(src, dst)
        for k, rel in enumerate(added):
            dst = self.path / rel
            dst.parent.mkdir(parents=True, exist_ok=True)
            os.replace(stage / f"{k}.parquet", dst)
        entry = dict(data.meta, source_id=data.source_id, path=data.path, files=added,
                     ingested=time.strftime("%Y-%m-%dT%H:%M:%S"))
        manifest["sources"][data.name] = entry
        manifest["schema_versions"] = self._versions()
        manifest["txn"] = txn
        self._write_manifest(manifest)  # the commit point
        self._cleanup(journal)
        if old and old.get("source_id") != data.source_id:
            self._drop_cached(old["source_id"])
        return added

    def remove_source(self, name: str) -> None:
        """Delete a source and its files."""
        manifest = self.manifest
        entry = manifest["sources"].pop(name, None)
        if entry is None:
            raise StoreError(f"{self.path}: no source named {name!r}")
        self._write_manifest(manifest)
        for rel in entry.get("files", []):
            (self.path / rel).unlink(missing_ok=True)
        self._drop_cached(entry.get("source_id", ""))
        self._prune_empty_dirs()

    def _drop_cached(self, source_id: str) -> None:
        """Delete what caches hold of a source (`derived/hits-*/<source_id>.parquet`, see
        pipeline.measures.cache): a replaced or removed source leaves nothing behind."""
        if source_id:
            for d in (self.path / DERIVED).glob("hits-*"):
                (d / f"{source_id}.parquet").unlink(missing_ok=True)

    # -- crash recovery --------------------------------------------------------------------
    def _cleanup(self, journal: dict) -> None:
        shutil.rmtree(self.path / journal["stage"], ignore_errors=True)
        shutil.rmtree(self.path / journal["trash"], ignore_errors=True)
        (self.path / JOURNAL).unlink(missing_ok=True)
        self._prune_empty_dirs(journal["added"] + journal["trashed"])

    def _prune_empty_dirs(self, files: list[str] | None = None) -> None:
        """Remove partition folders left empty: those that held `files`, or all when None."""
        if files is not None:
            for d in sorted({p for rel in files for p in Path(rel).parents if len(p.parts) > 1}, key=lambda p: -len(p.parts)):
                full = self.path / d
                if full.is_dir() and not any(full.iterdir()):
                    full.rmdir()
            return
        for table in schema.TABLES:
            root = self.path / table
            if not root.is_dir():
                continue
            for d in sorted((p for p in root.rglob("*") if p.is_dir()), key=lambda p: -len(p.parts)):
                if not any(d.iterdir()):
                    d.rmdir()

    def _recover(self) -> None:
        """Finish or roll back a write interrupted by a crash, so the store is as before or after it."""
        jpath = self.path / JOURNAL
        if not jpath.exists():
            for p in self.path.glob(".stage-*"):
                shutil.rmtree(p, ignore_errors=True)
            return
        journal = json.loads(jpath.read_text())
        if self.manifest.get("txn") != journal["txn"]:  # not committed: roll back
            for rel in journal["added"]:
                (self.path / rel).unlink(missing_ok=True)
            trash = self.path / journal["trash"]
            for rel in journal["trashed"]:
                src = trash / rel
                if src.exists():
                    (self.path / rel).parent.mkdir(parents=True, exist_ok=True)
                    os.replace(src, self.path / rel)
        self._cleanup(journal)
