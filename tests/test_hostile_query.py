"""Hostile queries (issue 28, items 7, 8, 12): the sandbox reads the SQL with a real parser, so no quoting or
comment trick reaches a file; a file named as the query is not read unless it is a .sql file (or
--allow-files); a huge or endless query ends with one line, never a crash or a hang."""
from __future__ import annotations

import os
import subprocess
import sys
import time

import polars as pl
import pytest

from logs import write_new2
from pipeline.ingest import ingest
from pipeline.query import QueryError, QueryTables, foreign_scans, run_query, run_sql
from pipeline.sql_calls import MAX_BYTES, MAX_DEPTH, MAX_TOKENS
from pipeline.store import Store

TWO_RUNS = [{"instance": 1, "dat": [(1, 5.0), (3, 2.0)]}, {"instance": 2, "dat": [(1, 4.0), (5, 1.0)]}]
REFUSED = r"reads files: .*--allow-files"


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile-query")
    st = Store(root / "st", create=True)
    ingest([write_new2(root / "A", runs=TWO_RUNS)], st)
    (root / "secret.csv").write_text("secret\nhunter2secret\n")
    pl.DataFrame({"secret": ["hunter2secret"]}).write_parquet(root / "secret.parquet")
    return st


def cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd)


def one_line_error(r, *words):
    """Exit status 2 and one line on stderr holding `words`, no traceback."""
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert r.returncode == 2 and len(lines) == 1 and "Traceback" not in r.stderr, (r.returncode, r.stderr)
    assert lines[0].startswith("error: query:") and all(w in lines[0] for w in words), lines[0]
    return lines[0]


# -- item 7: nothing hides a file read from the parser ---------------------------------------------
DOLLAR_QUOTED = [
    "SELECT $$'$$ AS a, * FROM read_csv('{d}/secret.csv') --'",
    "SELECT $t$'$t$ AS a, * FROM read_csv('{d}/secret.csv') --'",
    "SELECT $t$'$t$ AS a, * FROM read_parquet('{d}/secret.parquet') --'",
    "SELECT $$'$$ AS a, * FROM read_csv('/etc/passwd') --'",
    "SELECT $a$ $$ $a$ AS a, * FROM read_csv('{d}/secret.csv')",
]
HIDDEN = [
    "/* /* */ SELECT 1 */ SELECT * FROM read_csv('{d}/secret.csv')",  # a comment nested in a comment
    "SELECT * FROM read_csv/**/('{d}/secret.csv')",
    "SELECT 'a\\', * FROM read_csv('{d}/secret.csv') -- '",
    "SELECT * FROM read_text('{d}/secret.csv')",
    "SELECT * FROM read_json('/etc/hostname')",
    "SELECT * FROM LATERAL read_csv('{d}/secret.csv')",
    "SELECT * FROM TABLE(read_csv('{d}/secret.csv'))",
    "SELECT getenv('HOME') AS h FROM runs",
    "SELECT * FROM runs WHERE trial IN (SELECT secret FROM read_csv('{d}/secret.csv'))",
    "WITH r AS (SELECT * FROM read_parquet('{d}/secret.parquet')) SELECT * FROM r",
]


@pytest.mark.parametrize("sql", DOLLAR_QUOTED + HIDDEN)
def test_file_functions_are_refused_however_quoted_or_commented(store, sql):
    with pytest.raises(QueryError, match=REFUSED):
        run_sql(store, sql.format(d=store.path.parent))


@pytest.mark.parametrize("sql, words", [
    ('SELECT * FROM "{d}/secret.csv"', ["no table", "the tables are runs"]),
    ("SELECT * FROM '{d}/secret.parquet'", ["no table", "secret.parquet"]),
    ("SELECT * FROM main.runs", ["qualified"]),
    ("SELECT * FROM glob('*')", ["glob() reads files"]),
    ("SELECT * FROM `read_csv`('{d}/secret.csv')", ["unsupported token '`'"]),
    ("SELECT \u2018x\u2019 AS a FROM runs", ["unsupported token", "column 8"]),
    ("SELECT 1 AS a; SELECT * FROM read_csv('{d}/secret.csv')", ["more than one statement"]),
    ("ATTACH '{d}/x.db'", ["not ATTACH"]),
    ("COPY runs TO '{d}/out.csv'", ["not COPY"]),
    ("PRAGMA enable_external_access", ["not PRAGMA"]),
    ("SET enable_external_access = true", ["not SET"]),
    ("INSTALL httpfs", ["not INSTALL"]),
    ("LOAD httpfs", ["not LOAD"]),
    ("CREATE TABLE t AS SELECT * FROM runs", ["not CREATE"]),
    ("SHOW TABLES", ["not SHOW"]),
    ("SELECT E'\\x41' AS a FROM runs", ["unsupported token"]),
    ("SELEC * FROM runs", ["cannot parse", "line 1"]),
])
def test_what_is_no_query_of_the_store_is_refused_in_one_line(store, sql, words):
    with pytest.raises(QueryError) as err:
        run_sql(store, sql.format(d=store.path.parent))
    msg = str(err.value)
    assert "\n" not in msg and all(w in msg for w in words), msg
    assert "hunter2" not in msg


def test_store_queries_keep_their_strings_and_names(store):
    sql = ("SELECT $$it's$$ AS a, 'read_csv(''x'')' AS b, /* read_csv('x') */ algorithm AS \"read_csv\", "
           "'Csv SCAN [x.csv]' AS \"Csv SCAN\" FROM runs -- read_csv('x')\nLIMIT 1;")
    assert run_sql(store, sql).collect().rows() == [("it's", "read_csv('x')", "ALG", "Csv SCAN [x.csv]")]
    q = "WITH t AS (SELECT trial FROM runs) SELECT COUNT(*) AS n FROM t, (VALUES (1), (2)) v(x)"
    assert run_sql(store, q).collect().item() == 4


def test_allow_files_lifts_the_refusal_and_the_dollar_string_is_read_as_the_engine_reads_it(store):
    sql = DOLLAR_QUOTED[0].format(d=store.path.parent)
    assert run_sql(store, sql, allow_files=True).collect().rows() == [("'", "hunter2secret")]


def test_the_engine_plan_is_checked_too(store):
    """Defence in depth: a plan reading any source the store's tables do not is caught, had the parser missed it."""
    frames = QueryTables(store).frames()
    ctx = pl.SQLContext(frames, eager=False)
    own = ctx.execute("SELECT r.trial FROM runs r JOIN events e ON r.run_id = e.run_id", eager=False)
    assert foreign_scans(own, frames) == set()
    sneaky = ctx.execute(f"SELECT * FROM runs, read_csv('{store.path.parent}/secret.csv')", eager=False)
    assert any("secret.csv" in line for line in foreign_scans(sneaky, frames))


def test_cli_refuses_dollar_quoting_without_showing_the_file(store):
    sql = DOLLAR_QUOTED[0].format(d=store.path.parent)
    r = cli("query", sql, "--store", store.path)
    one_line_error(r, "read_csv() reads files", "--allow-files")
    assert "hunter2" not in r.stdout + r.stderr


# -- item 8: a file named as the query ----------------------------------------------------------
def test_a_file_not_ending_in_sql_is_not_read(store, tmp_path):
    (tmp_path / "private.txt").write_text("hunter2secret\n")
    r = cli("query", "private.txt", "--store", store.path, cwd=tmp_path)
    one_line_error(r, "private.txt", ".sql", "--allow-files")
    assert "hunter2" not in r.stdout + r.stderr


def test_a_link_named_sql_to_another_file_is_not_read(store, tmp_path):
    (tmp_path / "private.txt").write_text("hunter2secret\n")
    (tmp_path / "q.sql").symlink_to(tmp_path / "private.txt")
    r = cli("query", "q.sql", "--store", store.path, cwd=tmp_path)
    one_line_error(r, "q.sql", "private.txt", "does not end in .sql", "--allow-files")
    assert "hunter2" not in r.stdout + r.stderr
    (tmp_path / "n.sql").write_text("SELECT COUNT(*) AS n FROM runs")
    (tmp_path / "link.sql").symlink_to(tmp_path / "n.sql")  # a link to a .sql file is read
    assert run_sql(store, str(tmp_path / "link.sql")).collect().item() == 2


def test_a_sql_file_is_read_and_any_file_with_allow_files(store, tmp_path):
    (tmp_path / "n.sql").write_text("-- trials\nSELECT COUNT(*) AS n FROM runs;\n")
    assert run_sql(store, str(tmp_path / "n.sql")).collect().item() == 2
    (tmp_path / "n.txt").write_text("SELECT COUNT(*) AS n FROM runs")
    with pytest.raises(QueryError, match="must end in .sql"):
        run_sql(store, str(tmp_path / "n.txt"))
    assert run_sql(store, str(tmp_path / "n.txt"), allow_files=True).collect().item() == 2


@pytest.mark.parametrize("content, words", [
    (b"SELECT \xff\xfe FROM runs", ["not a UTF-8 text file", "0xff at offset 7"]),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", ["not a UTF-8 text file"]),
    (b"SELECT 1\x00\x00", ["NUL"]),
    (b"x" * (MAX_BYTES + 1), [f"{MAX_BYTES:,} bytes"]),
])
def test_a_binary_or_huge_sql_file_is_one_line_naming_it(store, tmp_path, content, words):
    (tmp_path / "q.sql").write_bytes(content)
    with pytest.raises(QueryError) as err:
        run_sql(store, str(tmp_path / "q.sql"))
    msg = str(err.value)
    assert msg.startswith(f"{tmp_path / 'q.sql'}: ") and "\n" not in msg and all(w in msg for w in words), msg


def test_cli_query_text_not_utf8_one_line(store):
    r = subprocess.run([sys.executable, "-m", "pipeline.cli", "query", b"SELECT '\xff' AS x FROM runs", "--store",
                        str(store.path)], capture_output=True, text=True)
    one_line_error(r, "not UTF-8 text", "character 9")


def test_cli_binary_sql_file_one_line(store, tmp_path):
    (tmp_path / "bin.sql").write_bytes(b"\xff\xfe\x00S\x00E")
    one_line_error(cli("query", tmp_path / "bin.sql", "--store", store.path), "bin.sql", "not a UTF-8 text file")


# -- item 12: size and time limits ------------------------------------------------------------------
def terms(n: int) -> str:
    return "SELECT " + "+".join(["1"] * n) + " AS x FROM runs"


@pytest.mark.parametrize("sql, words", [
    (terms(3_000), [f"deeper than {MAX_DEPTH} levels"]),
    (terms(20_000), [f"at most {MAX_TOKENS:,}"]),
    ("SELECT " + "(" * 1_000 + "1" + ")" * 1_000 + " AS x", [f"deeper than {MAX_DEPTH}"]),
    ("SELECT " + "NOT " * 3_000 + "true AS x", ["nested too deeply"]),
    ("SELECT 1 AS x -- " + "x" * MAX_BYTES, [f"at most {MAX_BYTES:,}"]),
])
def test_huge_queries_are_refused_before_the_engine_sees_them(store, sql, words):
    start = time.monotonic()
    with pytest.raises(QueryError) as err:
        run_sql(store, sql)
    assert time.monotonic() - start < 5
    assert all(w in str(err.value) for w in words), str(err.value)


def test_a_long_but_shallow_query_still_runs(store):
    assert run_sql(store, terms(150)).collect()["x"].to_list() == [150, 150]


def test_cli_20000_terms_is_one_line_not_a_crash(store):
    one_line_error(cli("query", terms(20_000), "--store", store.path), "tokens")


CROSS_JOIN = ("SELECT COUNT(*) AS n FROM (SELECT UNNEST(RANGE(0, 1000000)) AS x) a, "
              "(SELECT UNNEST(RANGE(0, 1000000)) AS y) b WHERE (a.x * b.y) % 7 = 3")


def test_a_runaway_cross_join_is_stopped_at_the_timeout(store):
    start = time.monotonic()
    with pytest.raises(QueryError, match=r"ran longer than 1 s and was stopped \(--timeout"):
        run_query(store, CROSS_JOIN, timeout=1)
    assert time.monotonic() - start < 15


def test_a_query_within_its_time_is_answered(store):
    assert run_query(store, "SELECT COUNT(*) AS n FROM runs", timeout=60).item() == 2
    assert "SCAN" in run_query(store, "SELECT trial FROM runs", explain=True)
    with pytest.raises(QueryError, match="no table 'nosuch'"):
        run_query(store, "SELECT * FROM nosuch")
    with pytest.raises(QueryError, match="nosuchcolumn"):  # an error of the engine, from the child process
        run_query(store, "SELECT nosuchcolumn FROM runs")


def pids() -> list[int]:
    return [int(p) for p in os.listdir("/proc") if p.isdigit()]


def parent(pid: int) -> int | None:
    """The parent of a process (the field after its name in /proc/PID/stat), None when it is gone."""
    try:
        return int(open(f"/proc/{pid}/stat").read().rpartition(")")[2].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def test_an_engine_that_dies_is_one_line(store):
    """A crash of the engine (here a segfault signal sent to the query's process) ends the query, not the caller."""
    import signal
    import threading

    def query_process(pid: int) -> bool:  # the query's child, not another child of the test run (Ray, moto)
        try:
            return b"pipeline.confine import _child" in open(f"/proc/{pid}/cmdline", "rb").read()
        except OSError:
            return False

    def crash():
        for _ in range(200):
            children = [pid for pid in pids() if parent(pid) == os.getpid() and query_process(pid)]
            if children:
                time.sleep(0.5)
                os.kill(children[0], signal.SIGSEGV)
                return
            time.sleep(0.05)

    killer = threading.Thread(target=crash)
    killer.start()
    with pytest.raises(QueryError, match=r"died without an answer \(exit code -11\)"):
        run_query(store, CROSS_JOIN, timeout=60)
    killer.join()


def test_cli_timeout(store):
    start = time.monotonic()
    one_line_error(cli("query", CROSS_JOIN, "--store", store.path, "--timeout", "1"), "stopped", "--timeout")
    assert time.monotonic() - start < 20


# -- defence in depth: the query's process reaches no file outside the store ------------------------
def _probe(store_path: str, secret: str, port: int) -> list:
    """What a process can reach: files outside the store, a TCP port; and whether the store's queries run."""
    import socket

    from pipeline.query import plan

    out: list = []
    for path in (secret, "/etc/passwd"):
        try:
            open(path).read()
            out.append(f"read {path}")
        except PermissionError:
            pass
    for read in (pl.read_csv, lambda p: pl.scan_csv(p).collect()):
        try:
            read(secret)
            out.append(f"polars read {secret}")
        except Exception:
            pass
    try:
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
        out.append("connected")
    except PermissionError:
        pass
    tables = QueryTables(Store(store_path))
    out += [plan(tables, "SELECT COUNT(*) AS n FROM runs").collect().item(),
            plan(tables, "SELECT * FROM art").collect().height > 0]
    return out


def test_the_query_process_is_confined_to_the_store(store):
    import socket

    from pipeline.confine import abi, python_paths, start
    from pipeline.store.schema import schema_dir

    if not abi():
        pytest.skip("the kernel has no Landlock")
    secret = str(store.path.parent / "secret.csv")
    server = socket.create_server(("127.0.0.1", 0))
    answers = []
    for read in (None, [*python_paths(), schema_dir()]):  # unconfined first: the probe sees what it should
        child, conn = start(read, [store.path], "test_hostile_query:_probe", str(store.path), secret,
                            server.getsockname()[1])
        answers.append(conn.recv())
        child.wait()
    server.close()
    assert answers[0][:5] == [f"read {secret}", "read /etc/passwd", f"polars read {secret}", f"polars read {secret}",
                              "connected"], answers[0]
    assert answers[1] == [2, True], answers[1]  # nothing but the store reached, and its queries answered
