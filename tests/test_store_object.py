"""The store on an S3-compatible server (moto, on loopback): the same answers as on a local disk, errors that
name what cannot be reached, concurrent writers and readers (issue 29)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from logs import write_new2
from objectstore import s3, s3_server  # noqa: F401 - fixtures

from pipeline.ingest import ingest
from pipeline.store import Store, StoreError

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "data" / "sample"
#: the commands whose CSVs must not depend on where the store lies
MEASURES = [["runs"], ["art"], ["ecdf"], ["auc"], ["rank", "--by", "auc"]]


def cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {}), "COLUMNS": "200"}, cwd=ROOT)


def test_the_measures_of_a_store_on_s3_equal_those_of_a_local_store_byte_for_byte(s3, tmp_path):
    local, remote = str(tmp_path / "store"), f"s3://{s3.name}/results/store"
    for store in (local, remote):
        done = cli("ingest", str(SAMPLE), "--store", store)
        assert done.returncode == 0, done.stderr
    assert any(k.startswith("results/store/runs/_delta_log/") for k in s3.keys(s3.name))
    for args in MEASURES:
        a, b = tmp_path / "local.csv", tmp_path / "s3.csv"
        for store, out in ((local, a), (remote, b)):
            done = cli(*args, "--store", store, "--out", str(out))
            assert done.returncode == 0, (args, done.stderr)
        assert a.read_bytes() == b.read_bytes(), args
        assert len(a.read_bytes()) > 100


def test_a_store_uri_that_names_nothing_is_an_error_naming_it(s3):
    for store, said in ((f"s3://{s3.name}/no/store", "not a cocopipe store"),
                        ("s3://no-such-bucket-here/store", "no such bucket"),
                        ("s3:///store", "no bucket in the store URI"),
                        ("ftp://host/store", "unknown store scheme")):
        done = cli("art", "--store", store)
        assert done.returncode != 0
        assert store in done.stderr and said in done.stderr, done.stderr
        assert "Traceback" not in done.stderr
    assert not Path(ROOT / "s3:").exists()  # no local folder named like the URI


def test_ingest_into_s3_creates_no_local_folder_and_query_reads_it(s3, tmp_path):
    store = f"s3://{s3.name}/coco/store"
    done = cli("ingest", str(SAMPLE / "NM_on_bbob.tgz"), "--store", store)
    assert done.returncode == 0, done.stderr
    assert not (ROOT / "s3:").exists() and not (tmp_path / "s3:").exists()
    q = cli("query", "--store", store, "select count(*) as n from runs")
    assert q.returncode == 0, q.stderr
    assert q.stdout.split() == ["n", "1080"]


def test_an_unreachable_server_is_one_line_naming_the_store(s3):
    store = f"s3://{s3.name}/store"
    done = cli("runs", "--store", store, env={"AWS_ENDPOINT_URL": "http://127.0.0.1:9"})
    assert done.returncode != 0 and store in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def _sources(tmp_path: Path, n: int) -> list[Path]:
    """n tiny sources, each a different algorithm (so that no trial is a duplicate of another)."""
    out = []
    for i in range(n):
        folder = tmp_path / f"exp{i}"
        write_new2(folder, f"ALG{i}", function=1, dim=2, runs=[{"instance": 1, "dat": [(1, 5.0), (10, 1e-3)]},
                                                                {"instance": 2, "dat": [(1, 3.0), (20, 1e-9)]}])
        out.append(folder)
    return out


# three writers and two readers, locally and on the object store: tests/test_store_writers.py


def test_replacing_a_source_on_s3_leaves_one_version_visible(s3, tmp_path):
    uri = f"s3://{s3.name}/store"
    store = Store(uri, create=True)
    src = _sources(tmp_path, 1)[0]
    ingest([src], store)
    before = Store(uri)
    seen = before.sources()
    ingest([src], store, force=True)
    after = Store(uri)
    assert after.runs().collect().height == 2 and after.sources() != seen
    # a snapshot taken before, its data not read yet: the rows of the replaced version are deleted, so it reads
    # the newer one, whole (never none, never both)
    assert before.runs().collect().height == 2


def test_a_store_folder_that_does_not_exist_is_never_an_empty_answer(tmp_path):
    with pytest.raises(StoreError, match="no such store folder"):
        Store(tmp_path / "missing")
    done = cli("art", "--store", str(tmp_path / "missing"))
    assert done.returncode != 0 and "no such store folder" in done.stderr


def test_a_relative_store_is_made_absolute_at_the_edge(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    st = Store("rel/store", create=True)
    assert st.path == tmp_path / "rel" / "store"
    ingest(_sources(tmp_path, 1), st)
    monkeypatch.chdir("/")
    import pickle

    there = pickle.loads(pickle.dumps(st))  # as a task gets it, wherever its working folder
    assert there.runs().collect().height == 2


def test_a_local_store_copied_to_the_bucket_reads_the_same(s3, tmp_path):
    # the table of issue 29: `runs/art/query --store s3://...` on a store copied there said "not a cocopipe store"
    import boto3

    local = tmp_path / "store"
    assert cli("ingest", str(SAMPLE / "RS_on_bbob.tgz"), "--store", str(local)).returncode == 0
    client = boto3.client("s3", endpoint_url=s3.endpoint, aws_access_key_id="cocopipe", aws_secret_access_key="cocopipe",
                          region_name="us-east-1")
    for f in local.rglob("*"):
        if f.is_file() and "_cache" not in f.parts:
            client.upload_file(str(f), s3.name, f"copy/{f.relative_to(local).as_posix()}")
    remote = f"s3://{s3.name}/copy"
    for args in (["runs"], ["art"]):
        a, b = cli(*args, "--store", str(local), "--out", "-"), cli(*args, "--store", remote, "--out", "-")
        assert a.returncode == 0 and b.returncode == 0, b.stderr
        assert a.stdout == b.stdout and len(a.stdout.splitlines()) > 100
    q = cli("query", "--store", remote, "select count(*) as n from runs")
    assert q.returncode == 0 and q.stdout.split() == ["n", "1080"], q.stderr
