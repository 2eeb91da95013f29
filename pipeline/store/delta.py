"""The Delta tables of a store as delta-rs gives them: opening one, its add actions and columns (kept per version),
its data files; the names of the columns and tables every layer of the store uses."""
from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from urllib.parse import unquote

import deltalake as dl
import polars as pl
import pyarrow as pa

from . import remote

#: the column naming the commit of each row of a data table
COMMIT = "commit_id"
SOURCES = "sources"
DERIVED = "derived"


def open_table(uri: str, version: int | None = None):
    """The Delta table at `uri` (at `version`), None where there is none."""
    try:
        return dl.DeltaTable(uri, version=version, storage_options=remote.delta_options(uri))
    except dl.exceptions.TableNotFoundError:
        return None


def table_root(dt) -> str:
    """The folder of a local Delta table as delta-rs writes it in its file URIs (percent-encoded)."""
    return dt.table_uri.removeprefix("file://").rstrip("/") + "/"


def kept_for_version(dt, name: str, make: Callable):
    """`make(dt)`, kept with the table object for the version it is at (a command asks for it many times:
    a report scans a table some hundred times)."""
    attr, version = f"_cocopipe_{name}", dt.version()
    kept = getattr(dt, attr, None)
    if kept is not None and kept[0] == version:
        return kept[1]
    got = make(dt)
    setattr(dt, attr, (version, got))
    return got


def add_actions(dt) -> pl.DataFrame:
    """The add actions of a Delta table's version: one row per data file (its path in the log, partition
    values, statistics)."""
    return kept_for_version(dt, "adds", lambda t: pl.from_arrow(pa.table(t.get_add_actions(flatten=True))))


def table_columns(dt) -> set[str]:
    """The columns of a Delta table's version (from its log's schema: no file is read)."""
    return kept_for_version(dt, "columns", lambda t: set(pa.schema(t.schema().to_arrow()).names))


def _local_root(dt) -> str | None:
    """The folder of a local Delta table as it is on disk (None on object storage)."""
    if "://" in dt.table_uri and not dt.table_uri.startswith("file://"):
        return None
    return unquote(table_root(dt))


def file_paths(dt, adds: pl.DataFrame | None = None) -> list[str]:
    """The data files of a Delta table (or of the add actions `adds` of it): URIs on object storage, paths
    on disk for a local table (delta-rs percent-encodes the folder in its URIs: `my%20results/`, and the
    log the partition folders' names once more)."""
    real = _local_root(dt)
    if real is None:
        return list(dt.file_uris()) if adds is None else [dt.table_uri.rstrip("/") + "/" + p for p in adds["path"]]
    adds = add_actions(dt) if adds is None else adds
    return [real + unquote(p) for p in adds["path"]] if adds.height else []


def creation_cut_short(folder: Path) -> bool:
    """Whether `folder` holds only what a store's creation leaves when it is killed before its first commit:
    a `sources` folder whose Delta log has no version yet (at most a temporary file): made again there."""
    entries = [p for p in folder.iterdir() if not p.name.startswith(".")]
    if [p.name for p in entries] != [SOURCES] or not entries[0].is_dir():
        return False
    inner = list(entries[0].iterdir())
    if any(p.name != "_delta_log" or not p.is_dir() for p in inner):
        return False
    return not any(re.fullmatch(r"\d{20}\.(json|checkpoint\.parquet)", p.name) for d in inner for p in d.iterdir())

