"""Side tables of a store (small Delta tables outside the commit protocol: reference choices) and the rewrites
of a whole store (its `sources` rewritten, its old files vacuumed)."""
from __future__ import annotations

from collections.abc import Callable, Sequence

import deltalake as dl
import polars as pl
import pyarrow as pa

from . import remote, schema
from .commits import append, retrying, writer_properties
from .delta import DERIVED, SOURCES, open_table
from .snapshot import scan_table, whole


def replace_rows(store, table: str, df: pl.DataFrame, column: str, value: str) -> None:
    """Replace the rows of the side table `table` whose `column` is `value` by `df` (one Delta commit)."""
    literal = "'" + value.replace("'", "''") + "'"
    def attempt() -> None:
        if open_table(store.uri(table)) is None:
            append(store.uri(table), df.to_arrow(), (), "")
        else:
            dl.write_deltalake(store.uri(table), df.to_arrow(), mode="overwrite", predicate=f"{column} = {literal}",
                               writer_properties=writer_properties(),
                               storage_options=remote.delta_options(store.uri(table)))

    retrying(store.uri(table), attempt, 20)


def scan_side(store, table: str) -> pl.LazyFrame | None:
    """Lazy scan of a side table (None where there is none)."""
    dt = open_table(store.uri(table))
    return scan_table(dt) if dt is not None else None


def rewrite_sources(store, change: Callable[[pl.DataFrame], pl.DataFrame], sources_schema: pa.Schema,
                    retries: int) -> None:
    """Replace the `sources` table by `change(sources)` (same keys and commits; e.g. paths made
    machine-independent for a packaged store). Where another writer commits first, `change` is made again
    on the newer table (it must read what it needs anew each call)."""
    def attempt() -> None:
        dt = open_table(store.uri(SOURCES))
        new = change(whole(dt))
        dl.write_deltalake(dt, new.to_arrow().cast(sources_schema), mode="overwrite",
                           commit_properties=dl.CommitProperties(max_commit_retries=0))

    retrying(store.path, attempt, retries)
    store.refresh()


def vacuum(store, side: Sequence[str] = ()) -> None:
    """Delete the files no table version needs any more, keeping only the latest versions (a store
    nobody else uses at the moment, e.g. one being packaged), and compact the logs; `side`: side
    tables to vacuum too."""
    for name in [SOURCES, DERIVED, *schema.TABLES, *(f"{DERIVED}/{n}" for n in store.derived()), *side]:
        dt = open_table(store.uri(name))
        if dt is not None:
            dt.vacuum(retention_hours=0, enforce_retention_duration=False, dry_run=False)
            dt.create_checkpoint()
            dt.cleanup_metadata()
    store.refresh()
