"""The fixed Parquet schemas of the store, read from the versioned JSON files in `schemas/`."""
from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import polars as pl
import pyarrow as pa

_TYPES = {
    "string": (pl.String, pa.large_string()),  # what Polars hands to Arrow: no cast when writing
    "int64": (pl.Int64, pa.int64()),
    "int32": (pl.Int32, pa.int32()),
    "int8": (pl.Int8, pa.int8()),
    "float64": (pl.Float64, pa.float64()),
    "bool": (pl.Boolean, pa.bool_()),
    "list<float64>": (pl.List(pl.Float64), pa.large_list(pa.float64())),  # as Polars hands it, too
}

TABLES = ("runs", "events", "archive", "params")


class SchemaError(ValueError):
    """A frame does not match the fixed store schema."""


def schema_dir() -> Path:
    """Folder holding the schema JSON files (installed copy, else the repository's)."""
    here = Path(__file__).resolve().parent.parent
    for cand in (here / "_schemas", here.parent / "schemas"):
        if cand.is_dir():
            return cand
    raise FileNotFoundError("schemas folder not found beside the package")


@cache
def spec(table: str) -> dict:
    """The JSON specification of one table."""
    return json.loads((schema_dir() / f"{table}.json").read_text())


def version(table: str) -> str:
    """Schema version of a table."""
    return spec(table)["version"]


def partition_columns(table: str) -> list[str]:
    """Hive partition keys of a table (not stored inside the files)."""
    return list(spec(table)["partitioning"])


def polars_schema(table: str, *, with_partitions: bool = True) -> pl.Schema:
    """Polars schema of a table."""
    cols = spec(table)["columns"]
    return pl.Schema(
        {c["name"]: _TYPES[c["type"]][0] for c in cols if with_partitions or not c.get("partition")}
    )


def arrow_schema(table: str) -> pa.Schema:
    """Arrow schema of a table's files (partition keys excluded), with the version in its metadata."""
    cols = [c for c in spec(table)["columns"] if not c.get("partition")]
    fields = [pa.field(c["name"], _TYPES[c["type"]][1], nullable=c["nullable"]) for c in cols]
    meta = {b"cocopipe.table": table.encode(), b"cocopipe.schema_version": version(table).encode()}
    return pa.schema(fields, metadata=meta)


def scan(table: str, root) -> pl.LazyFrame:
    """Lazy scan of a table's hive-partitioned files under the folder `root` (taken as it is, never as a
    glob pattern: `results [2024]/`), with its schema: files of an older schema version lacking a column
    added since are read with that column's `default`."""
    sch = polars_schema(table)
    hive = {c: sch[c] for c in partition_columns(table)}
    lf = pl.scan_parquet(root, glob=False, hive_partitioning=True, hive_schema=hive,
                         schema=polars_schema(table, with_partitions=False), missing_columns="insert")
    defaults = {c["name"]: c["default"] for c in spec(table)["columns"] if "default" in c}
    return lf.select(list(sch)).with_columns(pl.col(c).fill_null(v) for c, v in defaults.items())


def older(versions: dict[str, str]) -> list[str]:
    """The tables whose version in `versions` (a store manifest's) is older than this schema's."""
    def key(v: str) -> tuple[int, ...]:
        return tuple(int(p) for p in v.split(".") if p.isdigit())

    return [t for t, v in versions.items() if t in TABLES and key(v) < key(version(t))]


def conform(table: str, df: pl.DataFrame) -> pa.Table:
    """Validate a frame against the table schema and return it as an Arrow table for writing."""
    expected = polars_schema(table, with_partitions=False)
    missing = [c for c in expected if c not in df.columns]
    extra = [c for c in df.columns if c not in expected and c not in partition_columns(table)]
    if missing or extra:
        raise SchemaError(f"{table}: missing columns {missing}, unexpected columns {extra}")
    wrong = [f"{c}: {df.schema[c]} != {t}" for c, t in expected.items() if df.schema[c] != t]
    if wrong:
        raise SchemaError(f"{table}: wrong types: {'; '.join(wrong)}")
    target = arrow_schema(table)
    tbl = df.select(list(expected)).to_arrow()
    for f in target:
        if not f.nullable and tbl.column(f.name).null_count:
            raise SchemaError(f"{table}: column {f.name} has {tbl.column(f.name).null_count} nulls")
    return as_schema(tbl, target)


def as_schema(tbl: pa.Table, target: pa.Schema) -> pa.Table:
    """An Arrow table under `target` (its columns in that order): relabelled where the types already agree, as
    they do for what Polars hands over (no cast, and no import of pyarrow.compute: 0.07 s a process)."""
    if all(tbl.schema.field(f.name).type == f.type for f in target):
        return pa.Table.from_arrays([tbl.column(f.name) for f in target], schema=target)
    return tbl.select(target.names).cast(target)
