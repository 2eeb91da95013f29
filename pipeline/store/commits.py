"""Commits of a store: their ids (UTC times), appends to Delta tables, the rows a write stages, and the one-line
errors of a write that failed."""
from __future__ import annotations

import random
import re
import time
import uuid
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypeVar

import deltalake as dl
import polars as pl
import pyarrow as pa

from . import hive, remote, schema, writes
from .delta import COMMIT
from .errors import StoreError, StoreWriteError

T = TypeVar("T")

if TYPE_CHECKING:
    from .snapshot import SourceData

#: the properties of every table the store makes: a checkpoint every 10 commits (Delta's default: 100), so
#: that opening a table reads at most 10 commit files after its checkpoint. Each ingest commits to runs,
#: events and sources and opens them a few times: with 100, an ingest of 400 sources read 244 000 log files
#: from the object store (benchmarks/RESULTS.md)
TABLE_PROPERTIES = {"delta.checkpointInterval": "10"}


class Conflict(StoreError):
    """Another writer committed to the store since the snapshot a commit was prepared on."""


def new_commit_id(writer: str | None = None) -> str:
    """A commit's id: its UTC time (so that its age can be read off), a random part and the writer's id."""
    now = time.time()
    return (time.strftime("%Y%m%dT%H%M%S", time.gmtime(now)) + f"{int(now % 1 * 1e6):06d}Z-{uuid.uuid4().hex[:12]}"
            + (f"-{writer}" if writer else ""))


def commit_age(commit_id: str) -> float:
    """Seconds since a commit id was made, in UTC whatever the local time zone (0 for one of another form:
    never taken as old)."""
    made = writes.commit_time(commit_id)
    return 0.0 if made is None else time.time() - made


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


#: what an object store's error code means, as a person says it
_CODES = {"NoSuchBucket": "no such bucket", "AccessDenied": "access denied", "InvalidAccessKeyId": "unknown access key",
          "SignatureDoesNotMatch": "wrong secret key", "Connection refused": "connection refused (is the server up?)",
          "dns error": "unknown host"}


def why(exc: BaseException) -> str:
    """An error of delta-rs, an object store or the file system as one short line."""
    text = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
    if said := remote.timed_out(exc):
        return said
    for code, said in _CODES.items():
        if code in text:
            return said
    text = _ANSI.sub("", text).replace("↳", ":")
    return " ".join(text.split())[:300]


def write_failed(where: object, exc: BaseException) -> StoreWriteError:
    """The one-line error of a write to the store that failed (a full disk, a read-only file system)."""
    return StoreWriteError(f"{where}: cannot write to the store ({why(exc)}); the store is left as it was")


def retrying(where: object, attempt: Callable[[], T], retries: int,
             on_conflict: Callable[[], None] | None = None) -> T:
    """`attempt()` (one Delta commit that never retries inside delta-rs), made again after a short random wait
    where another writer committed first (`on_conflict` may raise instead); other errors named for `where`."""
    for n in range(retries):
        try:
            return attempt()
        except dl.exceptions.CommitFailedError:
            if on_conflict is not None:
                on_conflict()
            time.sleep(random.uniform(0.005, 0.05) * min(n + 1, 10))
        except StoreError:
            raise
        except Exception as exc:  # noqa: BLE001
            raise write_failed(where, exc) from None
    raise StoreError(f"{where}: could not commit after {retries} attempts (other writers kept committing)")


def writer_properties():
    """zstd; dictionary encoding only for string columns (on numbers it makes the files larger and slower
    to write: docs/internals.md)."""
    return dl.WriterProperties(compression="ZSTD", default_column_properties=dl.ColumnProperties(dictionary_enabled=False),
                               column_properties={c: dl.ColumnProperties(dictionary_enabled=True) for c in
                                                  ("suite", "algorithm", COMMIT, "name", "source", "source_id", "info_file",
                                                   "data_file", "comment", "function_name", "indicator", "data_format",
                                                   "coco_version", "problem", "mode", "archive_file", "value")})


def append(uri: str, rows: pa.Table | Callable[[], pa.RecordBatchReader], partition_by: Sequence[str], commit_id: str,
           table: str | None = None) -> None:
    """Append rows to a Delta table (made where there is none yet: a second writer making it at once
    appends to the first one's); the Delta commit records the commit ids (comma-separated) and the table's
    schema version."""
    meta = {"cocopipe.commit": commit_id}
    if table is not None:
        meta.update({"cocopipe.table": table, "cocopipe.schema_version": schema.version(table)})
    props = dl.CommitProperties(custom_metadata=meta)
    for attempt in range(5):
        try:
            dl.write_deltalake(uri, rows() if callable(rows) else rows, mode="append",
                               partition_by=list(partition_by) or None, schema_mode="merge",
                               writer_properties=writer_properties(), commit_properties=props,
                               configuration=TABLE_PROPERTIES,  # when it makes the table
                               storage_options=remote.delta_options(uri))
            return
        except dl.exceptions.CommitFailedError:
            if attempt == 4:
                raise
            time.sleep(random.uniform(0.01, 0.1))


def check_names(data: SourceData) -> None:
    """StoreError (naming the source) where a partition value of its rows cannot name a folder."""
    for table, df in data.tables.items():
        if not df.height:
            continue
        for k in schema.partition_columns(table):  # a folder's name depends on its own column's value alone
            for v in df[k].unique(maintain_order=True).to_list():
                try:
                    hive.folder(k, str(v))
                except ValueError as exc:
                    raise StoreError(f"{data.path}: {exc}") from None


def stream(table: str, parts: list[tuple[pl.DataFrame, str]]) -> Callable[[], pa.RecordBatchReader]:
    """The rows of several sources (frame, commit id) for one append, each made Arrow only when the writer
    reads it (the copies of a whole batch are never held at once); callable again for a retried append."""
    def batches():
        for df, cid in parts:
            yield from with_commit(table, df, cid).to_batches()

    return lambda: pa.RecordBatchReader.from_batches(with_commit(table, parts[0][0].clear(), parts[0][1]).schema,
                                                     batches())


def with_commit(table: str, df: pl.DataFrame, commit_id: str) -> pa.Table:
    """A frame as rows of `table` (validated against its schema), with its partition columns and commit id."""
    parts = schema.partition_columns(table)
    body = schema.conform(table, df)
    keys = df.select(pl.col(p).cast(pl.String) for p in parts).to_arrow()  # Polars' strings: large_string
    cols = [*(keys.column(p) for p in parts), *body.columns,
            pa.repeat(pa.scalar(commit_id, pa.large_string()), df.height)]
    fields = [*(pa.field(p, pa.large_string(), False) for p in parts), *body.schema, pa.field(COMMIT, pa.large_string(), False)]
    return pa.Table.from_arrays(cols, schema=pa.schema(fields))
