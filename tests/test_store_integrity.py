"""The store checks itself on every read (issue 43): a source's counts held against what its tables' logs hold,
a damaged Delta log named by its file; `cocopipe check` finds each case and exits non-zero, `--repair` mends
what can be mended (a checkpoint rebuilt, a table taken back before a damaged commit, damaged entries removed,
caches made from lost rows dropped) and the store takes new ingests again."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import deltalake as dl
import polars as pl
import pytest

from logs import write_new2
from objectstore import s3, s3_server  # noqa: F401 - fixtures
from pipeline.ingest import ingest
from pipeline.store import Store
from pipeline.store.check import check


def cli(*args, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *map(str, args)], capture_output=True, text=True,
                          env={**os.environ, **(env or {}), "COLUMNS": "400"})


def source(root: Path, alg: str) -> Path:
    for f in (1, 2):
        write_new2(root, alg=alg, function=f, runs=[{"instance": i, "dat": [(1, 5.0 * i), (4, 0.5)]} for i in (1, 2)],
                   info_name=f"bbobexp_f{f}.info")
    return root


def three(tmp_path: Path) -> Path:
    """A store of the sources A, B, C (4 runs and 8 records each), ingested one after the other: the runs and
    events tables' versions 0, 1, 2 are theirs."""
    st = Store(tmp_path / "st", create=True)
    for a in "ABC":
        ingest([source(tmp_path / a, a)], st)
    return st.path


def log(store: Path, table: str, version: int) -> Path:
    return store / table / "_delta_log" / f"{version:020d}.json"


def failed(r: subprocess.CompletedProcess, *names: str) -> str:
    """The one-line error of a command that failed, holding every name."""
    text = " ".join(r.stderr.split())
    assert r.returncode == 1 and "Traceback" not in r.stderr and r.stderr.strip().splitlines()[-1].startswith("error:"), r.stderr
    assert all(n in text for n in names), (names, text)
    return text


def algorithms(store: Path) -> list[str]:
    return sorted(Store(store).runs().collect()["algorithm"].unique().to_list())


@pytest.mark.parametrize("table", ["runs", "events"])
def test_the_last_commit_file_of_a_data_table_removed_is_an_error_naming_the_source_and_the_commit(tmp_path, table):
    st = three(tmp_path)
    log(st, table, 2).unlink()  # C's rows: their files on disk, named by no version
    key = str((tmp_path / "C").resolve())
    for cmd in ("runs", "art"):
        failed(cli(cmd, "--store", st), f"source {key}", f"{table}/_delta_log", "names commit",
               f"{table}/_writes/", "/suite=bbob/algorithm=C/part-", "--repair")
    r = cli("check", "--store", st)
    assert r.returncode == 1 and f"count: {st}/sources: source {key}" in r.stdout, r.stdout
    r = cli("check", "--store", st, "--repair")
    assert r.returncode == 0, r.stdout + r.stderr
    assert check(st) == [] and cli("art", "--store", st).returncode == 0
    if table == "runs":
        assert f"source {key}: no run left readable; removed" in r.stdout and algorithms(st) == ["A", "B"]
    else:
        assert f"source {key}: 8 rows of the events table lost with its files; it now counts 0" in r.stdout


def test_a_remove_action_added_by_hand_is_named_with_the_commit_that_removed_the_file(tmp_path):
    st = three(tmp_path)
    path = next(a["add"]["path"] for ln in log(st, "runs", 1).read_text().splitlines() if "add" in (a := json.loads(ln)))
    log(st, "runs", 3).write_text(json.dumps({"commitInfo": {"timestamp": 1, "operation": "DELETE"}}) + "\n"
                                  + json.dumps({"remove": {"path": path, "deletionTimestamp": 1, "dataChange": True}}) + "\n")
    key = str((tmp_path / "B").resolve())
    text = failed(cli("art", "--store", st), f"source {key}", "counts 4 rows of the runs table, the table holds 0")
    assert f"added by {st}/runs/_delta_log/{1:020d}.json" in text, text
    assert f"was removed by {st}/runs/_delta_log/{3:020d}.json" in text, text
    assert cli("check", "--store", st).returncode == 1
    assert cli("check", "--store", st, "--repair").returncode == 0 and algorithms(st) == ["A", "C"]


def test_the_events_folder_moved_away_is_an_error_and_check_exits_non_zero(tmp_path):
    st = three(tmp_path)
    shutil.move(st / "events", tmp_path / "elsewhere")
    failed(cli("art", "--store", st), "events table is gone", f"{st}/events/_delta_log")
    r = cli("check", "--store", st)
    assert r.returncode == 1 and r.stdout.count("count: ") == 3, r.stdout
    shutil.move(tmp_path / "elsewhere", st / "events")  # put back: whole again
    assert cli("check", "--store", st).returncode == 0 and cli("art", "--store", st).returncode == 0


@pytest.mark.parametrize("damage", ["cut", "garbage"])
def test_a_cut_or_garbage_commit_file_is_named_and_repair_takes_the_table_back_before_it(tmp_path, damage):
    st = three(tmp_path)
    f = log(st, "runs", 2)
    f.write_bytes(f.read_bytes()[:700] if damage == "cut" else b"\x00garbage{\n")
    for cmd in ("runs", "art", "ingest"):
        args = (cmd, tmp_path / "C") if cmd == "ingest" else (cmd,)
        failed(cli(*args, "--store", st), f"{f}: damaged commit file", "--repair")
    r = cli("check", "--store", st)
    assert r.returncode == 1 and f"log: {st}/runs/_delta_log/{f.name}: damaged commit file" in r.stdout, r.stdout
    r = cli("check", "--store", st, "--repair")
    assert r.returncode == 0 and "the runs table taken back to version 1" in r.stdout, r.stdout + r.stderr
    assert (st / "quarantine" / "runs" / "_delta_log" / f.name).is_file() and algorithms(st) == ["A", "B"]
    assert cli("ingest", tmp_path / "C", "--store", st).returncode == 0  # the store takes ingests again
    assert algorithms(st) == ["A", "B", "C"] and check(st) == []


def test_a_commit_file_missing_between_others_is_named_and_repaired(tmp_path):
    st = three(tmp_path)
    log(st, "events", 1).unlink()
    failed(cli("art", "--store", st), f"{log(st, 'events', 1)}: commit file missing")
    assert cli("check", "--store", st).returncode == 1
    r = cli("check", "--store", st, "--repair")
    assert r.returncode == 0 and "the events table taken back to version 0" in r.stdout, r.stdout + r.stderr
    assert check(st) == [] and cli("art", "--store", st).returncode == 0


def test_a_deleted_checkpoint_with_its_pointer_left_is_rebuilt_from_the_commits(tmp_path):
    st = three(tmp_path)
    dl.DeltaTable(str(st / "runs")).create_checkpoint()
    next((st / "runs" / "_delta_log").glob("*.checkpoint.parquet")).unlink()
    failed(cli("runs", "--store", st), f"{st}/runs/_delta_log/_last_checkpoint", "checkpoint of version 2")
    assert cli("check", "--store", st).returncode == 1
    r = cli("check", "--store", st, "--repair")
    assert r.returncode == 0 and "the checkpoint rebuilt from the commits" in r.stdout, r.stdout + r.stderr
    assert any((st / "runs" / "_delta_log").glob("*.checkpoint.parquet"))
    assert algorithms(st) == ["A", "B", "C"] and check(st) == []


@pytest.mark.parametrize("field,value", [("suites", 1), ("algorithms", 3), ("schema_versions", 1), ("runs", "4")])
def test_a_sources_commit_with_wrong_types_is_named_never_a_type_error(tmp_path, field, value):
    st = three(tmp_path)
    key = str((tmp_path / "A").resolve())

    def damage(df: pl.DataFrame) -> pl.DataFrame:
        entries = [json.dumps(dict(json.loads(e), **{field: value})) if k == key else e
                   for k, e in df.select("key", "entry").rows()]
        return df.with_columns(entry=pl.Series(entries, dtype=df.schema["entry"]))

    Store(st).rewrite_sources(damage)
    for args in (("art",), ("ingest", source(tmp_path / "D", "D"))):
        failed(cli(*args, "--store", st), f"source '{key}'", f"field '{field}'")
    r = cli("check", "--store", st)
    assert r.returncode == 1 and f"entry: {st}/sources: source {key}: damaged entry" in r.stdout, r.stdout
    r = cli("check", "--store", st, "--repair")
    assert r.returncode == 0 and f"source {key}: damaged entry" in r.stdout, r.stdout + r.stderr
    assert algorithms(st) == ["B", "C"] and cli("ingest", tmp_path / "A", "--store", st).returncode == 0
    assert algorithms(st) == ["A", "B", "C"]


def test_the_hits_cache_never_answers_old_numbers_after_a_repair_dropped_a_file(tmp_path):
    st = three(tmp_path)
    before = cli("art", "--store", st)
    assert before.returncode == 0 and any((st / "_cache").rglob("*.parquet"))
    next((st / "events").rglob("algorithm=B/*.parquet")).unlink()
    assert cli("check", "--store", st, "--repair").returncode == 0
    cached, fresh = cli("art", "--store", st), cli("art", "--store", st, env={"COCOPIPE_HITS_CACHE": "0"})
    assert cached.returncode == 0 and cached.stdout == fresh.stdout
    assert cached.stdout != before.stdout and ",B," in cached.stdout


def test_the_cache_is_keyed_on_the_files_its_rows_came_from(tmp_path):
    """A file of a commit dropped by anything (here delta-rs's own repair, the entry recounted by hand): the
    commit's cache file is another one."""
    from pipeline.hits import cache

    st = Store(three(tmp_path))
    cid = next(e["commit_id"] for e in st.sources().values() if e["name"] == "B")
    before = cache._names(st, [cid])[cid]
    next((st.path / "events").rglob("algorithm=B/*.parquet")).unlink()
    dl.DeltaTable(str(st.path / "events")).repair(dry_run=False)
    after = cache._names(st.refresh(), [cid])[cid]
    assert before != after and before.startswith(cid) and after.startswith(cid)


def test_on_s3_a_removed_commit_file_is_an_error_and_repair_drops_the_source(s3, tmp_path):
    import boto3

    store = f"s3://{s3.name}/st"
    for a in "AB":
        assert cli("ingest", source(tmp_path / a, a), "--store", store).returncode == 0
    client = boto3.client("s3", endpoint_url=s3.endpoint, aws_access_key_id="cocopipe", aws_secret_access_key="cocopipe",
                          region_name="us-east-1")
    client.delete_object(Bucket=s3.name, Key=f"st/runs/_delta_log/{1:020d}.json")
    key = str((tmp_path / "B").resolve())
    failed(cli("runs", "--store", store), f"source {key}", f"{store}/runs/_delta_log", "names commit")
    assert cli("check", "--store", store).returncode == 1
    r = cli("check", "--store", store, "--repair")
    assert r.returncode == 0 and f"source {key}: no run left readable; removed" in r.stdout, r.stdout + r.stderr
    assert algorithms_of(store) == ["A"]


def test_on_s3_a_garbage_commit_file_is_named(s3, tmp_path):
    import boto3

    store = f"s3://{s3.name}/st"
    for a in "AB":
        assert cli("ingest", source(tmp_path / a, a), "--store", store).returncode == 0
    client = boto3.client("s3", endpoint_url=s3.endpoint, aws_access_key_id="cocopipe", aws_secret_access_key="cocopipe",
                          region_name="us-east-1")
    client.put_object(Bucket=s3.name, Key=f"st/events/_delta_log/{1:020d}.json", Body=b"{\"add\": {tru")
    failed(cli("art", "--store", store), f"{store}/events/_delta_log/{1:020d}.json: damaged commit file")
    r = cli("check", "--store", store, "--repair")
    assert r.returncode == 0 and "the events table taken back to version 0" in r.stdout, r.stdout + r.stderr
    assert cli("check", "--store", store).returncode == 0


def algorithms_of(uri: str) -> list[str]:
    return sorted(Store(uri).runs().collect()["algorithm"].unique().to_list())


def test_an_s3_source_that_does_not_exist_leaves_no_store_at_the_target(s3, tmp_path):
    """Exit 1 naming the source, and nothing left where the store would have been: no key under its prefix
    (pyarrow's empty folder marker included), no local folder made for it."""
    missing = f"s3://{s3.name}/nothing/here"
    r = cli("ingest", missing, "--store", f"s3://{s3.name}/a/b/st")
    assert r.returncode == 1 and missing in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert s3.keys(s3.name) == []
    r = cli("ingest", missing, "--store", tmp_path / "new" / "deeper" / "st")
    assert r.returncode == 1 and missing in r.stderr, r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_what_repair_cannot_mend_is_named_and_it_exits_non_zero(tmp_path):
    """The first commit file of the runs table lost (no checkpoint holds it): no earlier version to go back to."""
    st = three(tmp_path)
    log(st, "runs", 0).unlink()
    failed(cli("runs", "--store", st), f"{log(st, 'runs', 0)}: the commits up to version 0 are gone")
    r = cli("check", "--store", st, "--repair")
    assert r.returncode == 1 and f"log: {st}/runs/_delta_log/{0:020d}.json: the commits up to version 0" in r.stdout, r.stdout
    assert "Traceback" not in r.stderr and (st / "runs" / "_delta_log" / f"{1:020d}.json").is_file()  # left as it was
