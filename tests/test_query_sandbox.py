"""`cocopipe query` reads the store's tables and views only, unless --allow-files: Polars SQL's
table functions (read_csv, read_parquet, read_json, read_ipc, ...) reach any file the user can read."""
from __future__ import annotations

import subprocess
import sys

import pytest

from logs import write_new2
from pipeline.ingest import ingest
from pipeline.query import QueryError, run_sql
from pipeline.sql_calls import functions
from pipeline.store import Store

TWO_RUNS = [{"instance": 1, "dat": [(1, 5.0), (3, 2.0)]}, {"instance": 2, "dat": [(1, 4.0), (5, 1.0)]}]


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    root = tmp_path_factory.mktemp("sandbox")
    st = Store(root / "st", create=True)
    ingest([write_new2(root / "A", runs=TWO_RUNS)], st)
    (root / "secret.csv").write_text("secret\n42\n")
    return st


def cli(*args):
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *map(str, args)], capture_output=True, text=True)


FILE_QUERIES = [
    "SELECT * FROM read_csv('{f}')",
    "SELECT * FROM READ_CSV ('{f}')",
    "SELECT * FROM \"read_csv\"('{f}')",
    "SELECT * FROM read_csv/* a comment */('{f}')",
    "SELECT * FROM read_csv -- a comment\n('{f}')",
    "SELECT * FROM runs WHERE trial IN (SELECT secret FROM read_csv('{f}'))",
    "WITH x AS (SELECT * FROM read_parquet('/etc/nothing.parquet')) SELECT * FROM x",
    "SELECT * FROM read_json('/etc/hostname')",
    "SELECT * FROM read_ipc('/etc/hostname')",
    "SELECT * FROM read_ndjson('/etc/hostname')",
    "SELECT 'it''s', * FROM read_csv('{f}')",
    "SELECT 'a\\', * FROM read_csv('{f}') -- '",
]


@pytest.mark.parametrize("sql", FILE_QUERIES)
def test_queries_that_read_files_are_refused(store, sql):
    with pytest.raises(QueryError, match=r"reads files: .*--allow-files"):
        run_sql(store, sql.format(f=store.path.parent / "secret.csv"))


def test_the_cli_refuses_them_in_one_line_and_allows_them_when_asked(store):
    secret = store.path.parent / "secret.csv"
    for sql in (f"SELECT * FROM read_csv('{secret}')", "SELECT * FROM read_parquet('/etc/nothing.parquet')"):
        r = cli("query", sql, "--store", store.path)
        assert r.returncode == 2 and "Traceback" not in r.stderr and "42" not in r.stdout, r.stderr
        assert len(r.stderr.strip().splitlines()) == 1 and "--allow-files" in r.stderr, r.stderr
    r = cli("query", f"SELECT * FROM read_csv('{secret}')", "--store", store.path, "--allow-files")
    assert r.returncode == 0 and "42" in r.stdout, r.stderr
    r = cli("query", "SELECT * FROM read_parquet('/etc/nothing.parquet')", "--store", store.path, "--allow-files")
    assert r.returncode == 2 and "Traceback" not in r.stderr and "nothing.parquet" in r.stderr, r.stderr


def test_store_queries_still_run(store):
    assert run_sql(store, "SELECT COUNT(*) AS n FROM runs").collect()["n"].to_list() == [2]
    # names that merely look alike, and the words inside strings or comments, are no file reads
    sql = ("SELECT 'read_csv' AS s, algorithm AS read_csv -- read_csv\n"
           "FROM runs /* read_json */ WHERE algorithm <> 'read_parquet' LIMIT 1")
    assert run_sql(store, sql).collect()["read_csv"].to_list() == ["ALG"]


def test_functions_are_read_from_the_syntax_tree():
    assert functions("SELECT f(x), g (y), \"h\"(z), read_csv(1) FROM t") == ["f", "g", "h", "read_csv"]
    assert functions("SELECT 'f(' , \"x\" -- g(\n FROM t /* h( */") == []
    # what the engine reads as a call is a call: after a string ending in a backslash, in a dollar string
    assert "read_csv" in functions("SELECT 'a\\' , read_csv('x') --'")
    assert functions("SELECT $$ read_csv('x') $$") == []
