"""`cocopipe query`: SQL over the store, laziness (only the partitions and columns a query touches are
read), one-line errors, and the store opened without our code (pyarrow.dataset, DuckDB)."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from conftest import SHARED, shared_or_skip
from pipeline.api import Analysis
from pipeline.ingest import ingest
from pipeline.ingest.sources import expand
from pipeline.query import QueryTables, prune, run_sql
from pipeline.store import Store

QUERIES = Path(__file__).resolve().parent.parent / "queries"
_CACHE: dict[str, Store] = {}


def build_shared_store(tmp_path_factory) -> Store:
    """A store of every shared data set (real, generated, reference algorithms), built once per session."""
    shared_or_skip()
    if "store" not in _CACHE:
        st = Store(tmp_path_factory.mktemp("query-store") / "store", create=True)
        summary = ingest(expand([SHARED / "data" / d for d in ("real", "generated", "refalgs")]), st)
        assert summary.runs > 0
        _CACHE["store"] = st
    return _CACHE["store"]


@pytest.fixture(scope="session")
def qstore(tmp_path_factory) -> Store:
    return build_shared_store(tmp_path_factory)


def cli(*args):
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *map(str, args)], capture_output=True, text=True)


def duck(con, sql: str) -> pl.DataFrame:
    """A DuckDB result as a Polars frame (DuckDB 1.x and 2.x)."""
    rel = con.sql(sql)
    return pl.from_arrow(rel.to_arrow_table() if hasattr(rel, "to_arrow_table") else rel.fetch_arrow_table())


def sort_all(df: pl.DataFrame) -> pl.DataFrame:
    return df.sort(df.columns)


# -- the store holds all shared data ---------------------------------------------------------------
def test_store_has_all_shared_data(qstore):
    parts = QueryTables(qstore).parts
    assert ("bbob", "NM") in parts and ("bbob-biobj", "TPB") in parts and ("bbob-noisy", "RS") in parts
    assert len(parts) == qstore.runs().select(pl.struct("suite", "algorithm").n_unique()).collect().item()


# -- views equal the notebook API ------------------------------------------------------------------
def test_art_view_equals_analysis_art(qstore):
    got = run_sql(qstore, "SELECT * FROM art").collect()
    want = Analysis(qstore).art(dispersion=False).collect()
    assert got.height == want.height > 0
    key = ["suite", "algorithm", "function", "dimension", "target"]
    j = got.join(want, on=key, suffix="_w")
    assert j.height == want.height
    for c in ("art", "successes", "runs", "success_rate"):
        a, b = j[c].cast(pl.Float64), j[f"{c}_w"].cast(pl.Float64)
        assert ((a == b) | (a.is_nan() & b.is_nan()) | ((a - b).abs() <= 1e-9 * b.abs())).all(), c


def test_hitting_times_view_equals_analysis_hits(qstore):
    got = run_sql(qstore, "SELECT suite, algorithm, COUNT(*) AS n, SUM(hit) AS s, SUM(CAST(success AS INT)) AS k "
                          "FROM hitting_times GROUP BY suite, algorithm").collect()
    want = (Analysis(qstore).hits().group_by("suite", "algorithm")
            .agg(n=pl.len(), s=pl.col("hit").sum(), k=pl.col("success").sum()).collect())
    j = got.join(want, on=["suite", "algorithm"], suffix="_w")
    assert j.height == want.height == len(QueryTables(qstore).parts)
    assert (j["n"] == j["n_w"]).all() and (j["s"] == j["s_w"]).all() and (j["k"] == j["k_w"]).all()


def test_max_budget_cuts_every_table(qstore):
    q = ("SELECT suite, algorithm, MAX(evaluations / dimension) AS m, COUNT(*) AS n FROM runs "
         "WHERE suite = 'bbob' GROUP BY 1, 2")
    got = run_sql(qstore, q, max_budget="100x").collect()
    assert got.height == 6 and (got["m"] <= 100).all()
    ev = run_sql(qstore, "SELECT r.dimension, e.evaluations FROM events e JOIN runs r ON e.run_id = r.run_id "
                         "WHERE e.algorithm = 'DIRECT'", max_budget="100x").collect()
    assert ev.height > 0 and (ev["evaluations"] <= 100 * ev["dimension"]).all()
    a = run_sql(qstore, "SELECT SUM(successes) AS s FROM art WHERE algorithm = 'NM' AND target = 1e-8",
                max_budget="100x").collect().item()
    want = (Analysis(qstore, algorithm="NM", max_budget="100x").art().filter(pl.col("target") == 1e-8)
            .select(pl.col("successes").sum()).collect().item())
    full = Analysis(qstore, algorithm="NM").art().filter(pl.col("target") == 1e-8).select(
        pl.col("successes").sum()).collect().item()
    assert a == want < full


# -- laziness --------------------------------------------------------------------------------------
def test_plan_reads_one_partition_and_few_columns(qstore):
    lf = run_sql(qstore, "SELECT function, dimension, COUNT(*) AS n FROM runs WHERE algorithm = 'NM' GROUP BY 1, 2")
    plan = lf.explain()
    scanned = [ln for ln in plan.splitlines() if ".parquet" in ln]
    assert scanned and all("algorithm=NM" in ln for ln in scanned), plan
    nm_files = {p.as_posix() for p in qstore.path.glob("runs/_writes/*/*/*/algorithm=NM/*.parquet")}
    all_files = list(qstore.path.glob("runs/**/*.parquet"))
    assert len(all_files) > len(nm_files) >= 1
    # runs 1.2.0: 29 columns, and the commit of each row (read to take the committed rows only)
    assert "PROJECT 4/30 COLUMNS" in plan or "PROJECT 5/30 COLUMNS" in plan, plan


def test_plan_of_events_reads_one_partition(qstore):
    plan = run_sql(qstore, "SELECT MAX(evaluations) FROM events WHERE algorithm = 'DIRECT' AND suite = 'bbob'").explain()
    files = [ln for ln in plan.splitlines() if ".parquet" in ln]
    assert files and all("suite=bbob/algorithm=DIRECT" in ln for ln in files), plan
    assert "/9 COLUMNS" in plan and "PROJECT 9/9" not in plan


def test_views_compute_only_selected_partitions(qstore):
    qt = QueryTables(qstore)
    run_sql(qstore, "SELECT * FROM art WHERE algorithm = 'NM' AND target = 1e-8", tables=qt).collect()
    assert qt.log == [("art", "bbob", "NM")]
    qt.log.clear()
    run_sql(qstore, "SELECT a.function FROM art a JOIN art b ON a.function = b.function AND a.dimension = b.dimension "
                    "AND a.target = b.target WHERE a.algorithm = 'NM' AND b.algorithm = 'RS' AND b.suite = 'bbob'",
            tables=qt).collect()
    assert sorted(qt.log) == [("art", "bbob", "NM"), ("art", "bbob", "RS")]
    qt.log.clear()
    run_sql(qstore, "SELECT COUNT(*) FROM hitting_times WHERE suite IN ('bbob-noisy', 'bbob-mixint') AND success",
            tables=qt).collect()
    assert {(s, a) for _, s, a in qt.log} == {(s, a) for s, a in qt.parts if s in ("bbob-noisy", "bbob-mixint")}


def test_prune_keeps_partitions_when_unsure():
    parts = [("bbob", "NM"), ("bbob", "RS"), ("bbob-noisy", "RS")]
    assert prune(parts, None) == parts
    assert prune(parts, pl.col("algorithm") == "RS") == parts[1:]
    assert prune(parts, (pl.col("algorithm") == "RS") & (pl.col("function") > 3) & (pl.col("suite") == "bbob")) == [parts[1]]
    assert prune(parts, (pl.col("algorithm") == "RS") | (pl.col("function") > 3)) == parts  # OR with other columns
    assert prune(parts, pl.col("algorithm").str.starts_with("N") | (pl.col("suite") == "bbob-noisy")) == [parts[0], parts[2]]


def test_other_partitions_are_never_opened(qstore, tmp_path):
    """On a copy of the store whose other algorithms' files are garbage, a query on one algorithm still works."""
    broken = tmp_path / "broken"
    shutil.copytree(qstore.path, broken)
    for f in broken.glob("*/_writes/*/*/*/algorithm=*/*.parquet"):
        if f.parent.name != "algorithm=NM":  # garbage of the file's own size (a cut file is named before any read)
            f.write_bytes(b"x" * f.stat().st_size)
    queries = [
        "SELECT function, dimension, AVG(evaluations) AS e FROM runs WHERE algorithm = 'NM' GROUP BY 1, 2",
        "SELECT run_id, MAX(evaluations) AS e FROM events WHERE algorithm = 'NM' GROUP BY 1",
        "SELECT function, dimension, target, art FROM art WHERE algorithm = 'NM' AND suite = 'bbob'",
        "SELECT run_id, target, hit FROM hitting_times WHERE algorithm = 'NM' AND success",
    ]
    for q in queries:
        got = run_sql(Store(broken), q).collect()
        want = run_sql(qstore, q).collect()
        assert got.height == want.height > 0
        assert sort_all(got).equals(sort_all(want)), q
    with pytest.raises((pl.exceptions.PolarsError, OSError)):  # the garbage is real: touching another algorithm fails
        run_sql(Store(broken), "SELECT COUNT(*) FROM runs WHERE algorithm = 'RS'").collect()


# -- command line ----------------------------------------------------------------------------------
def test_cli_prints_and_writes(qstore, tmp_path):
    r = cli("query", "SELECT algorithm, COUNT(*) AS trials FROM runs WHERE suite = 'bbob' GROUP BY 1 ORDER BY 1",
            "--store", qstore.path)
    assert r.returncode == 0, r.stderr
    assert "BrentSTEPqi" in r.stdout and "trials" in r.stdout and "1666" in r.stdout
    out = tmp_path / "best.csv"
    r = cli("query", QUERIES / "problems_solved.sql", "--store", qstore.path, "--out", out)
    assert r.returncode == 0, r.stderr
    csv = pl.read_csv(out)
    assert {"suite", "algorithm", "dimension", "solved_once"} <= set(csv.columns) and csv.height > 10
    pq = tmp_path / "runs.parquet"
    r = cli("query", "SELECT run_id, final_delta FROM runs WHERE algorithm = 'DIRECT'", "-s", qstore.path, "-o", pq)
    assert r.returncode == 0, r.stderr
    assert pl.read_parquet(pq).height == 720


def test_cli_budget_and_explain(qstore):
    r = cli("query", "SELECT MAX(evaluations) AS m FROM runs WHERE algorithm = 'NM'", "-s", qstore.path,
            "--max-budget", "1000", "-o", "-")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["m", "1000"]
    r = cli("query", "SELECT COUNT(*) FROM runs WHERE algorithm = 'NM'", "-s", qstore.path, "--explain")
    assert r.returncode == 0 and "algorithm=NM" in r.stdout and "algorithm=RS" not in r.stdout


@pytest.mark.parametrize("sql, words", [
    ("SELEC algorithm FROM runs", ["cannot parse the query", "line 1"]),
    ("SELECT nosuchcolumn FROM runs", ["nosuchcolumn"]),
    ("SELECT * FROM nosuchtable", ["nosuchtable", "runs, events, hitting_times, art"]),
    ("SELECT * FROM runs WHERE function = 'x'", ["compare"]),
    ("missing.sql", ["missing.sql", "no such SQL file"]),
])
def test_malformed_query_one_line_exit_2(qstore, sql, words):
    r = cli("query", sql, "--store", qstore.path)
    assert r.returncode == 2, (r.stdout, r.stderr)
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("error: query:") and "Traceback" not in r.stderr
    assert all(w in lines[0] for w in words), lines[0]


def test_ecdf_view(qstore):
    qt = QueryTables(qstore)
    assert "ecdf" in qt.available()
    assert run_sql(qstore, "SELECT * FROM ecdf LIMIT 5", tables=qt).collect().height > 0


def test_tables_lists_views(qstore):
    r = cli("query", "--tables", "--store", qstore.path)
    assert r.returncode == 0, r.stderr
    for name in ("runs:", "events:", "hitting_times:", "art:"):
        assert name in r.stdout


def test_trailing_semicolon_and_comments(qstore):
    q = "-- a comment\nSELECT COUNT(*) AS n FROM runs WHERE algorithm = 'DIRECT'; -- done\n"
    assert run_sql(qstore, q).collect().item() == 720


# -- the store without our code --------------------------------------------------------------------
def test_store_opens_in_pyarrow_dataset(qstore):
    import pyarrow.compute as pc
    import pyarrow.dataset as ds

    runs = ds.dataset(qstore.path / "runs" / "_writes", format="parquet", partitioning="hive")
    assert {"suite", "algorithm", "run_id", "evaluations"} <= set(runs.schema.names)
    assert runs.count_rows() == qstore.runs().select(pl.len()).collect().item()
    nm = runs.to_table(columns=["run_id", "evaluations"], filter=(pc.field("algorithm") == "NM"))
    want = qstore.runs().filter(pl.col("algorithm") == "NM").select("run_id", "evaluations").collect()
    assert nm.num_rows == want.height == 1800
    assert pl.from_arrow(nm).sort("run_id").equals(want.sort("run_id"))
    events = ds.dataset(qstore.path / "events" / "_writes", format="parquet", partitioning="hive")
    assert events.count_rows() == qstore.events().select(pl.len()).collect().item()
    assert events.count_rows(filter=(pc.field("suite") == "bbob") & (pc.field("algorithm") == "DIRECT")) == (
        qstore.events().filter(algorithm="DIRECT").select(pl.len()).collect().item())


def test_store_opens_in_duckdb(qstore):
    import duckdb  # in the test extra: the store's Parquet files are read by DuckDB as they are
    con = duckdb.connect()
    root = qstore.path.as_posix()
    for table in ("runs", "events"):  # each write's files: TABLE/_writes/<writer>/<batch>/suite=../algorithm=../
        con.execute(f"CREATE VIEW {table} AS SELECT * FROM read_parquet('{root}/{table}/_writes/*/*/*/*/*.parquet', "
                    "hive_partitioning = true)")
    got = duck(con, "SELECT suite, algorithm, COUNT(*) AS n FROM runs GROUP BY ALL")
    want = qstore.runs().group_by("suite", "algorithm").agg(n=pl.len()).collect()
    j = got.join(want, on=["suite", "algorithm"], suffix="_w")
    assert j.height == want.height and (j["n"] == j["n_w"]).all()
    n_ev = con.sql("SELECT COUNT(*) FROM events e JOIN runs r USING (run_id) WHERE r.algorithm = 'NM'").fetchall()[0][0]
    assert n_ev == qstore.events().filter(algorithm="NM").select(pl.len()).collect().item()
    # the ready queries on the raw tables run unchanged in DuckDB and agree with ours
    for name in ("data_provenance", "unfinished_trials", "stopped_before_budget"):
        sql = (QUERIES / f"{name}.sql").read_text()
        ours = run_sql(qstore, sql).collect()
        theirs = duck(con, sql)
        assert theirs.columns == ours.columns, name
        assert theirs.height == ours.height, name
        cast = {c: ours.schema[c] for c in ours.columns}
        assert sort_all(theirs.cast(cast)).equals(sort_all(ours)), name
