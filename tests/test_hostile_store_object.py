"""The store on an S3 server (moto, on loopback) at its edges: objects deleted or cut by hand are named by
every command and by check, repair keeps what reads (partitions of odd names included), and kill -9 at
random moments of `check --repair` and `biobj recompute` leaves nothing half-visible (issue 29)."""
from __future__ import annotations

import random
import subprocess
import sys
import time
from pathlib import Path

import boto3
import pytest

from logs import write_new2
from test_hostile_store import _killed  # noqa: E402 - one helper for both files
from objectstore import CREDENTIALS, s3, s3_server  # noqa: F401 - fixtures

from pipeline.ingest import ingest
from pipeline.store import Store
from pipeline.store.check import check

ODD = "DE F=0.5%x"  # a name percent-encoded twice on its way to an object key


def cli(*args, timeout=180):
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout)


def client(s3):
    return boto3.client("s3", endpoint_url=s3.endpoint, aws_access_key_id=CREDENTIALS["AWS_ACCESS_KEY_ID"],
                        aws_secret_access_key=CREDENTIALS["AWS_SECRET_ACCESS_KEY"], region_name="us-east-1")


def stored(s3, tmp_path: Path, prefix: str = "st") -> str:
    """A store on the server with sources A, B and one of an odd algorithm name: 2 trials each."""
    uri = f"s3://{s3.name}/{prefix}"
    srcs = [write_new2(tmp_path / f"src{i}", alg, runs=[{"instance": j, "dat": [(1, 5.0 * j), (4, 0.5)]} for j in (1, 2)])
            for i, alg in enumerate(("A", "B", ODD))]
    ingest(srcs, Store(uri, create=True))
    return uri


def key_of(s3, prefix: str, table: str, alg: str) -> str:
    return next(k for k in s3.keys(s3.name, f"{prefix}/{table}/") if f"algorithm={alg}/" in k and k.endswith(".parquet"))


def one_line_error(r, *names: str) -> None:
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    text = r.stderr[r.stderr.index("error:"):] if "error:" in r.stderr else r.stderr
    assert len(text.strip().splitlines()) == 1 and all(n in text for n in names), r.stderr


@pytest.mark.parametrize("damage", ["deleted", "cut"])
def test_an_object_lost_or_cut_is_named_and_repair_keeps_the_rest(s3, tmp_path, damage):
    uri = stored(s3, tmp_path)
    assert check(uri) == []  # the odd name's objects are found (not taken for missing)
    key = key_of(s3, "st", "runs", "A")
    rel = key.removeprefix("st/")
    c = client(s3)
    if damage == "deleted":
        c.delete_object(Bucket=s3.name, Key=key)
    else:
        c.put_object(Bucket=s3.name, Key=key, Body=c.get_object(Bucket=s3.name, Key=key)["Body"].read()[:100])
    for args in (("art",), ("runs",)):
        one_line_error(cli(*args, "--store", uri), rel)
    r = cli("query", "SELECT count(*) FROM runs", "--store", uri)
    # a query runs confined, where only delta-rs's client reaches the server: an object deleted is named,
    # one cut is the Parquet reader's one line (its size is known to a listing pyarrow's client would make)
    assert r.returncode != 0 and "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert (rel in r.stderr) if damage == "deleted" else ("parquet" in r.stderr), r.stderr
    assert [(f.kind, f.path) for f in check(uri)] == [("missing" if damage == "deleted" else "corrupt", rel)]
    r = cli("check", "--store", uri, "--repair")
    assert r.returncode == 0, r.stdout + r.stderr
    st = Store(uri)
    assert check(st) == [] and sorted(st.runs().collect()["algorithm"].unique()) == ["B", ODD]
    if damage == "cut":  # out of the store, kept in the bucket
        assert f"st/quarantine/{rel}" in s3.keys(s3.name, "st/quarantine/")


def test_kill_9_during_a_repair_on_the_object_store_leaves_it_before_or_after(s3, tmp_path):
    """Each round a store with a cut object, its repair killed at a random moment: the store reads (the
    damage named, or repaired wholly), and the next repair completes with the same answer."""
    rng = random.Random(3)
    c = client(s3)
    want = None
    for k in range(3):
        prefix = f"st{k}"
        uri = stored(s3, tmp_path / prefix, prefix)
        key = key_of(s3, prefix, "runs", "A")
        c.put_object(Bucket=s3.name, Key=key, Body=c.get_object(Bucket=s3.name, Key=key)["Body"].read()[:100])
        if want is None:
            started = time.monotonic()
            assert cli("check", "--store", uri, "--repair").returncode == 0
            took = time.monotonic() - started
            want = sorted(Store(uri).runs().collect().select("algorithm", "function", "instance").rows())
            continue
        _killed(["check", "--store", uri, "--repair"], rng.uniform(0.2, 1.0) * took)
        found = check(uri)
        assert {f.kind for f in found} <= {"corrupt", "missing", "count"}, found
        if not found:
            assert sorted(Store(uri).runs().collect().select("algorithm", "function", "instance").rows()) == want
        r = cli("check", "--store", uri, "--repair")
        assert r.returncode == 0 and check(uri) == [], r.stdout + r.stderr
        assert sorted(Store(uri).runs().collect().select("algorithm", "function", "instance").rows()) == want


def test_kill_9_during_biobj_recompute_on_the_object_store_leaves_the_table_whole_or_absent(s3, tmp_path):
    import polars as pl

    from pipeline.biobj.points import problem_points
    from pipeline.biobj.recompute import NAME
    from test_biobj_ingest import write_biobj

    rng = random.Random(5)
    exp = write_biobj(tmp_path / "exp", {i: [f"{e}\t{1 + 1 / e}\t{1 + e / 9}\t0\t0" for e in range(1, 9)]
                                         for i in range(1, 4)})
    names = problem_points(pl.DataFrame({"suite": ["bbob-biobj"] * 3, "function": [1] * 3, "dimension": [2] * 3,
                                         "instance": list(range(1, 4))})).sort("instance")["problem"]
    for adat in (exp / "archive").iterdir():
        i = int(adat.name.split("_i")[1][:2])
        adat.write_text("".join(line.split(", name = ")[0] + f", name = {names[i - 1]}\n"
                                if line.startswith("% instance") else line for line in adat.open()))
    uri = f"s3://{s3.name}/bi"
    ingest([exp], Store(uri, create=True))
    started = time.monotonic()
    assert cli("biobj", "recompute", "--store", uri).returncode == 0
    took = time.monotonic() - started
    whole = Store(uri).scan_derived(NAME).collect().sort("run_id", "evaluations")
    assert whole.height > 0
    for k in range(2):
        if NAME in Store(uri).derived():  # the last kill may have left none
            Store(uri).remove_derived(NAME)
        _killed(["biobj", "recompute", "--store", uri], rng.uniform(0.3, 1.0) * took)
        after = Store(uri)
        assert check(after) == [], k
        if NAME in after.derived():
            assert after.scan_derived(NAME).collect().sort("run_id", "evaluations").equals(whole), k
    assert cli("biobj", "recompute", "--store", uri).returncode == 0
    assert Store(uri).scan_derived(NAME).collect().sort("run_id", "evaluations").equals(whole)
