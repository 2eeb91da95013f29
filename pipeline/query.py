"""SQL over a store: the tables `runs` and `events` and the derived views `hitting_times`, `art`
and `ecdf`, run by Polars' SQL interface on lazy frames.

>>> run_sql("cocopipe-store", "SELECT algorithm, COUNT(*) AS trials FROM runs GROUP BY 1 ORDER BY 1").collect().rows()
[('DIRECT', 360), ('NM', 1080), ('RS', 1080)]

Only what a query touches is read. `runs` and `events` are hive-partitioned Parquet scans, so a
filter on `suite` or `algorithm` skips the other partitions' files and only the referenced columns
are read. The derived views are computed per (suite, algorithm) partition, every measure being
independent per algorithm and suite: the filter Polars pushes into a view is split into its AND-ed
terms, the terms that use only `suite` and `algorithm` select the partitions to compute, and the
whole filter and the column selection are applied inside each partition's plan.

A query runs in a sandbox (`pipeline.sql_calls`, docs/sql.md): read by sqlglot, it must be one query over
these tables and views only, and Polars runs the text rebuilt from its tokens; the plan Polars makes is checked
to read no other source. `run_query` computes it in a fresh process, confined to the store by the kernel
(`pipeline.confine`) and stopped at a time limit.
"""
from __future__ import annotations

import io
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import polars as pl
from polars.io.plugins import register_io_source

from .api import Analysis
from .confine import python_paths, start
from .hits import targets as tg
from .hits.budget import Budget, cut
from .measures.ecdf import ecdf
from .selection import filter_frame
from .sql_calls import MAX_BYTES, SQLRefused, sandboxed, written_names
from .store import Store, schema as store_schema

PARTITION_KEYS = ("suite", "algorithm")
BASE_TABLES = ("runs", "events")
#: derived views and what they hold (shown by `cocopipe query --tables`)
VIEWS = {
    "hitting_times": "first hitting time of every target of the suite's default set by every trial "
                     "(Analysis.hits(): suite, algorithm, function, dimension, instance, trial, run_id, "
                     "evaluations, final_delta, weight, target, hit, success)",
    "art": "aRT per (suite, algorithm, function, dimension, target) of the default targets "
           "(Analysis.art(dispersion=False): art, successes, runs, success_rate, trials, ...)",
    "ecdf": "runtime ECDF (pipeline.measures.ecdf)",
}


#: what a process reading a store on object storage reads besides Python: names, addresses, certificates
NETWORK_FILES = [Path("/etc/ssl"), Path("/etc/resolv.conf"), Path("/etc/hosts"), Path("/etc/nsswitch.conf"),
                 Path("/etc/ca-certificates"), Path("/usr/share/ca-certificates"), Path("/etc/pki")]


class QueryError(ValueError):
    """A query that cannot be parsed or run; the message is one line."""


# -- partitions --------------------------------------------------------------------------------
def partitions(store: Store) -> list[tuple[str, str]]:
    """The (suite, algorithm) partitions of the `runs` table, from its log only (no file is opened)."""
    return store.partitions("runs")


def _conjuncts(expr: pl.Expr) -> list[pl.Expr]:
    """The AND-ed terms of a predicate (the predicate itself when it is no AND)."""
    try:
        node = json.loads(expr.meta.serialize(format="json"))
        is_and = isinstance(node, dict) and node.get("BinaryExpr", {}).get("op") == "And"
        if not is_and:
            return [expr]
        return [t for part in expr.meta.pop() for t in _conjuncts(part)]
    except Exception:  # an unknown serialization: no splitting, still correct
        return [expr]


def prune(parts: list[tuple[str, str]], predicate: pl.Expr | None) -> list[tuple[str, str]]:
    """The partitions a predicate can select: its AND-ed terms that use only `suite` and
    `algorithm` are evaluated on the partition keys; other terms keep every partition."""
    if predicate is None or not parts:
        return parts
    frame = pl.DataFrame(parts, schema={"suite": pl.String, "algorithm": pl.String}, orient="row")
    for term in _conjuncts(predicate):
        try:
            names = set(term.meta.root_names())
            if not names or not names <= set(PARTITION_KEYS):
                continue
            frame = frame.filter(term)
        except Exception:  # a term Polars cannot evaluate on the keys alone: keep the partitions
            continue
    return [tuple(r) for r in frame.iter_rows()]


def partitioned_view(name: str, parts: list[tuple[str, str]], build: Callable[[str, str], pl.LazyFrame],
                     schema: Callable[[], pl.Schema], log: list | None = None) -> pl.LazyFrame:
    """A LazyFrame computed partition by partition by `build(suite, algorithm)`, only for the
    partitions the pushed-down predicate can select; `log` receives the partitions computed."""
    def source(with_columns: list[str] | None, predicate: pl.Expr | None, n_rows: int | None,
               batch_size: int | None) -> Iterator[pl.DataFrame]:
        left = n_rows
        for suite, algorithm in prune(parts, predicate):
            if log is not None:
                log.append((name, suite, algorithm))
            lf = build(suite, algorithm)
            if predicate is not None:
                lf = lf.filter(predicate)
            if with_columns is not None:
                lf = lf.select(with_columns)
            if left is not None:
                lf = lf.head(left)
            df = lf.collect()
            yield df
            if left is not None:
                left -= df.height
                if left <= 0:
                    return

    return register_io_source(source, schema=schema, is_pure=True, explain_name=f"cocopipe view {name}",
                              explain_detail=f"{len(parts)} (suite, algorithm) partitions, computed on demand")


# -- tables ------------------------------------------------------------------------------------
class QueryTables:
    """The tables and views a query sees, over one store and one set of measure settings."""

    def __init__(self, store: Store, *, max_budget: str | float | Budget | None = None, all_instances: bool = False,
                 exact: bool = False):
        self.store = store
        self.settings = dict(max_budget=Budget.parse(max_budget), all_instances=all_instances, exact=exact)
        self.parts = partitions(store)
        self.log: list[tuple[str, str, str]] = []  # (view, suite, algorithm) computed, for tests and --verbose

    # one partition's frames
    def analysis(self, suite: str, algorithm: str, cache: bool = True):
        # one partition at a time already: no groups of algorithms (they would collect eagerly)
        return Analysis(self.store, suite=suite, algorithm=algorithm, cache=cache, group_size=None, **self.settings)

    def _targets(self, suite: str) -> pl.LazyFrame:
        return tg.frame(None, [suite])  # the suite's default set, as Analysis.target_frame(None)

    def _hits(self, suite: str, algorithm: str, cache: bool = True) -> pl.LazyFrame:
        return self.analysis(suite, algorithm, cache).hits(self._targets(suite))

    def _art(self, suite: str, algorithm: str, cache: bool = True) -> pl.LazyFrame:
        return self.analysis(suite, algorithm, cache).art(self._targets(suite), dispersion=False)

    def _ecdf_view(self, suite: str, algorithm: str, cache: bool = True) -> pl.LazyFrame:
        return ecdf(self._hits(suite, algorithm, cache)).lazy()

    def _cut(self, table: str, suite: str, algorithm: str) -> pl.LazyFrame:
        runs = filter_frame(self.store.runs(), suite=suite, algorithm=algorithm)
        events = filter_frame(self.store.events(), suite=suite, algorithm=algorithm)
        r, e = cut(runs, events, self.settings["max_budget"])
        return (r if table == "runs" else e).select(list(self.store.scan(table).collect_schema()))

    def _schema(self, build: Callable[[str, str], pl.LazyFrame]) -> Callable[[], pl.Schema]:
        suite, algorithm = self.parts[0] if self.parts else ("bbob", "")
        # without the hits cache: a schema must not read (or fill) anything
        return lambda: build(suite, algorithm, cache=False).collect_schema()

    # all of them
    def available(self) -> list[str]:
        """Names of the tables and views a query can use."""
        return [*BASE_TABLES, "hitting_times", "art", "ecdf", "archive", "params"]

    def frames(self) -> dict[str, pl.LazyFrame]:
        """Every table and view as a LazyFrame (nothing is read before a query collects)."""
        out: dict[str, pl.LazyFrame] = {}
        if self.settings["max_budget"] is None:
            out["runs"], out["events"] = self.store.runs(), self.store.events()
        else:
            for t in BASE_TABLES:
                build = (lambda t: lambda s, a: self._cut(t, s, a))(t)
                out[t] = partitioned_view(t, self.parts, build, lambda t=t: self.store.scan(t).collect_schema(),
                                          self.log)
        out["archive"] = self.store.archive()  # bbob-biobj archived solutions (no budget cut)
        out["params"] = self.store.scan("params")  # tracked parameters of IOHprofiler runs (no budget cut)
        views = {"hitting_times": self._hits, "art": self._art, "ecdf": self._ecdf_view}
        for name, build in views.items():
            out[name] = partitioned_view(name, self.parts, build, self._schema(build), self.log)
        return out

    def context(self) -> pl.SQLContext:
        """A Polars SQL context with every table registered."""
        return pl.SQLContext(self.frames(), eager=False)


def _one_line(exc: BaseException) -> str:
    """The first line of a Polars error, with its 'Did you mean' hint."""
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    if not lines:
        return type(exc).__name__
    msg = lines[0]
    hint = next((ln for ln in lines[1:] if ln.lower().startswith("did you mean")), None)
    if hint:
        msg += f" ({hint})"
    if len(lines) > 1 and "expression" in lines[1] and len(lines) > 2:
        msg += f" in {lines[2]}"
    return msg


def _explain_missing(msg: str, tables: QueryTables) -> str:
    m = re.search(r"relation '([^']+)' was not found", msg)
    if not m:
        return msg
    name = m.group(1)
    return f"no table {name!r}; the tables are {', '.join(tables.available())}"


def read_sql(query: str, *, allow_files: bool = False) -> str:
    """The SQL text: the file's content when `query` names a .sql file (any existing file with `allow_files`).

    Any other file is not opened, so that nothing of it can show in an error; a file that is not UTF-8 text
    is refused naming it.
    """
    text = query.strip()
    if "\n" in text:
        return query
    p = Path(text)
    try:
        exists = p.is_file()
    except (OSError, ValueError):  # not a possible file name: query text
        exists = False
    is_sql = text.lower().endswith(".sql")
    if exists and not (is_sql or allow_files):
        raise QueryError(f"{text}: a query file must end in .sql (--allow-files to read any other file)")
    if exists and not allow_files and not p.resolve().name.lower().endswith(".sql"):  # a link: what it reads
        raise QueryError(f"{text}: a link to {p.resolve()}, which does not end in .sql (--allow-files to read it)")
    if not exists:
        if is_sql:
            raise QueryError(f"{text}: no such SQL file")
        return query
    try:
        size = p.stat().st_size
        if size > MAX_BYTES:
            raise QueryError(f"{text}: {size:,} bytes; a query is at most {MAX_BYTES:,} bytes")
        data = p.read_bytes()
    except OSError as exc:
        raise QueryError(f"{text}: cannot read it ({exc.strerror or exc})") from None
    try:
        sql = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise QueryError(f"{text}: not a UTF-8 text file (byte {data[exc.start]:#04x} at offset {exc.start})") from None
    if "\x00" in sql:
        raise QueryError(f"{text}: not a text file (it holds NUL bytes)")
    return sql


_SCAN = re.compile(r"\s*\w+(?:\[[^\]]*\])? SCAN\b")  # "Parquet SCAN [...]", "PYTHON[cocopipe view art] SCAN"


def scan_lines(lf: pl.LazyFrame) -> set[str]:
    """The lines of a frame's (unoptimized) plan that read a source: Parquet, CSV, ... or Python scans."""
    return {ln.strip() for ln in lf.explain(optimized=False).splitlines() if _SCAN.match(ln)}


def foreign_scans(lf: pl.LazyFrame, frames: dict[str, pl.LazyFrame]) -> set[str]:
    """The sources a query's plan reads that none of the registered `frames` reads (a file, for one)."""
    return scan_lines(lf) - set().union(*(scan_lines(f) for f in frames.values()))


def run_sql(store: Store | str | Path, sql: str, *, max_budget: str | float | None = None,
            all_instances: bool = False, exact: bool = False, tables: QueryTables | None = None,
            allow_files: bool = False) -> pl.LazyFrame:
    """The result of a SQL query (Polars' dialect) over the store's tables and views (docs/sql.md).

    Parameters
    ----------
    store : Store or path
        The store.
    sql : str
        The query, or the path of a .sql file (of any file with `allow_files`).
    max_budget : str or float, optional
        A budget cut applied to every table and view ("1000", "100x").
    all_instances, exact : bool
        As `open_store`: every instance counts; seed 000's hit rule.
    tables : QueryTables, optional
        Tables and views already opened (reused across queries).
    allow_files : bool
        Let the query read files (read_csv, read_parquet, ...); by default it sees the store only.

    Returns
    -------
    polars.LazyFrame
        The result; only the partitions and columns the query touches are read when it is collected.

    Raises
    ------
    QueryError
        One line, for a malformed query, one the sandbox refuses (a file read unless `allow_files`, another
        statement than a query, one too big), or a file named that is not a .sql file of UTF-8 text.

    Examples
    --------
    >>> q = "SELECT algorithm, MIN(art) AS best FROM art WHERE function = 1 AND dimension = 5 AND target = 1e-8 GROUP BY 1"
    >>> run_sql("cocopipe-store", q).sort("algorithm").collect().rows()
    [('DIRECT', 2314.8), ('NM', 1150.0666666666666), ('RS', inf)]
    >>> run_sql("cocopipe-store", "SELECT * FROM nosuch")
    Traceback (most recent call last):
    ...
    pipeline.query.QueryError: no table 'nosuch'; the tables are runs, events, hitting_times, art...
    """
    if not isinstance(store, Store):
        store = Store(store)
    text = read_sql(sql, allow_files=allow_files)
    tables = tables or QueryTables(store, max_budget=max_budget, all_instances=all_instances, exact=exact)
    return plan(tables, text, allow_files=allow_files)


def plan(tables: QueryTables, text: str, *, allow_files: bool = False) -> pl.LazyFrame:
    """The LazyFrame of a SQL text over `tables`, once the sandbox (`pipeline.sql_calls`) let it through."""
    try:
        run = sandboxed(text, tables.available(), allow_files=allow_files)
    except SQLRefused as exc:
        raise QueryError(str(exc)) from None
    frames = tables.frames()
    try:
        lf = _named_as_written(pl.SQLContext(frames, eager=False).execute(run, eager=False), text)
        if not allow_files:  # defence in depth: the plan reads nothing but the store's tables and views
            extra = foreign_scans(lf, frames)
            if extra:
                raise QueryError(f"the query reads {min(extra)[:80]!r}, not a table of the store "
                                 "(--allow-files to lift this)")
    except (pl.exceptions.PolarsError, OSError) as exc:
        raise QueryError(_explain_missing(_one_line(exc), tables)) from None
    return lf


def _named_as_written(lf: pl.LazyFrame, text: str) -> pl.LazyFrame:
    """The result with each computed column named as the query writes it (`count(*)`, not Polars' `len`;
    `sql_calls.written_names`), where that name is not taken; the schema resolved (unknown columns are
    reported before any data is read)."""
    names = lf.collect_schema().names()
    written = written_names(text)
    if not written or len(written) != len(names):
        return lf
    new = [w if w is not None and w not in names else n for n, w in zip(names, written)]
    return lf.rename(dict(zip(names, new))) if len(set(new)) == len(new) and new != names else lf


def collect(lf: pl.LazyFrame, tables: QueryTables | None = None) -> pl.DataFrame:
    """Collect a query's result, turning Polars errors into a one-line `QueryError`."""
    try:
        return lf.collect()
    except (pl.exceptions.PolarsError, OSError) as exc:
        msg = _one_line(exc)
        raise QueryError(_explain_missing(msg, tables) if tables else msg) from None


# -- a query in a child process, stopped at its time limit ----------------------------------------
#: the time limit of `cocopipe query`, in seconds (`--timeout`)
DEFAULT_TIMEOUT = 60.0


def run_query(store: Store | str | Path, sql: str, *, timeout: float = DEFAULT_TIMEOUT, explain: bool = False,
              allow_files: bool = False, max_budget: str | float | None = None, all_instances: bool = False,
              exact: bool = False) -> pl.DataFrame | str:
    """A query's result (its optimized plan with `explain`), computed in a child process that is killed when it
    runs longer than `timeout` seconds (0: no limit); a `QueryError` of one line for a query refused,
    failed, stopped at its limit, or whose engine died (a crash is the child's, never this process's)."""
    if not isinstance(store, Store):
        store = Store(store)
    text = read_sql(sql, allow_files=allow_files)
    budget = Budget.parse(max_budget)
    # plain values only: unpickling a Budget would import Polars in the child before it is confined
    settings = dict(max_budget=None if budget is None else str(budget), all_instances=all_instances, exact=exact)
    tables = QueryTables(store, **settings)
    try:  # refused here at once, before any process starts
        sandboxed(text, tables.available(), allow_files=allow_files)
    except SQLRefused as exc:
        raise QueryError(str(exc)) from None
    remote = store.location.remote
    read = None if allow_files else [*python_paths(), store_schema.schema_dir(), *(NETWORK_FILES if remote else ())]
    # a local store is read (and its caches written) in its folder; one on object storage over the network,
    # its caches in the user's cache folder
    write = [Path(store.cache_dir("x").parent)] if remote else [store.path]
    if remote:
        write[0].mkdir(parents=True, exist_ok=True)
    child, answers = start(read, write, "pipeline.query:_answer", str(store.path), text, settings, allow_files,
                           explain, network=remote)
    try:
        if not answers.poll(timeout or None):
            raise QueryError(f"the query ran longer than {timeout:g} s and was stopped (--timeout SECONDS to "
                             "allow more)")
        try:
            kind, value = answers.recv()
        except EOFError:
            child.wait()
            raise QueryError(f"the query engine died without an answer (exit code {child.returncode}); "
                             "simplify the query") from None
    finally:
        if child.poll() is None:
            child.kill()
        child.wait()
        answers.close()
    if kind == "error":
        raise QueryError(value)
    return value if kind == "explain" else pl.read_ipc(io.BytesIO(value))


def _answer(store_path: str, text: str, settings: dict, allow_files: bool, explain: bool) -> tuple[str, object]:
    """In the child process of `run_query`: ("frame", the result as Arrow IPC bytes), ("explain", the plan) or
    ("error", one line)."""
    try:
        tables = QueryTables(Store(store_path), **settings)
        lf = plan(tables, text, allow_files=allow_files)
        if explain:
            return "explain", lf.explain()
        buf = io.BytesIO()
        collect(lf, tables).write_ipc(buf)
        return "frame", buf.getvalue()
    except Exception as exc:  # every failure is the parent's one line
        return "error", str(exc) if isinstance(exc, QueryError) else f"{type(exc).__name__}: {_one_line(exc)}"
