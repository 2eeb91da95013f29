"""Every wait on an object store bounded, and no request to anywhere but the configured endpoint (issue 43): a
server that accepts connections and never answers is named within the time limits; a missing bucket, missing
credentials and a missing source are said in cocopipe's words, and nothing asks the cloud's metadata address."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from logs import write_new2
from objectstore import CREDENTIALS, s3, s3_server  # noqa: F401 - fixtures

ROOT = Path(__file__).resolve().parent.parent
#: the time limits made small: a request to a server that never answers fails after about 2 s
SMALL = {"COCOPIPE_STORE_TIMEOUT": "1", "COCOPIPE_STORE_CONNECT_TIMEOUT": "1", "COCOPIPE_STORE_RETRIES": "1",
         "COCOPIPE_STORE_RETRY_TIMEOUT": "1"}


class Listener:
    """A TCP server on loopback that accepts connections and never answers; it counts them."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.accepted: list[socket.socket] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                self.accepted.append(self.sock.accept()[0])
            except OSError:
                return

    def close(self) -> None:
        self.sock.close()
        for c in self.accepted:
            c.close()


@pytest.fixture
def listener():
    server = Listener()
    yield server
    server.close()


def cli(*args, env: dict, timeout: float = 60) -> tuple[subprocess.CompletedProcess, float]:
    """`cocopipe ARGS` with only `env`'s object-store variables (none of this process's AWS_*), and its time."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "COCOPIPE_STORE_"))}
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "pipeline.cli", *map(str, args)], capture_output=True, text=True,
                          env={**base, "COLUMNS": "250", **env}, cwd=ROOT, timeout=timeout)
    return done, time.monotonic() - start


def one_line(done: subprocess.CompletedProcess, *names: str) -> str:
    """The one error line of a failed command, holding every name."""
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    lines = [x for x in done.stderr.splitlines() if x.startswith("error:")]
    assert len(lines) == 1, done.stderr
    assert all(n in done.stderr for n in names), done.stderr
    return done.stderr


def tiny(tmp_path: Path) -> Path:
    """A source of one run of algorithm A (written once)."""
    root = tmp_path / "src"
    return root if root.exists() else write_new2(root, "A", runs=[{"instance": 1, "dat": [(1, 5.0), (4, 0.5)]}])


def test_a_server_that_never_answers_is_named_within_the_time_limits(listener, tmp_path):
    # before: `runs` and `ingest` silent for minutes (object_store's ten retries of 30 s requests)
    env = {**CREDENTIALS, "AWS_ENDPOINT_URL": listener.url, **SMALL}
    store = "s3://bucket/store"
    for args in (("runs", "--store", store), ("ingest", tiny(tmp_path), "--store", store)):
        done, took = cli(*args, env=env)
        said = one_line(done, store, "the server did not answer", "COCOPIPE_STORE_TIMEOUT")
        assert took < 20, (args, took, said)
    # a source on the frozen server: named, skipped, and no store is left behind
    source = "s3://bucket/logs/A.tgz"
    done, took = cli("ingest", source, "--store", tmp_path / "st", env=env)
    assert done.returncode == 1 and source in done.stderr and "did not answer" in done.stderr, done.stderr
    assert took < 30 and not (tmp_path / "st").exists(), (took, done.stderr)
    assert listener.accepted  # the requests went to the configured endpoint, and only there


def test_the_default_limits_bound_a_request_to_a_minute_and_a_bad_knob_is_named(monkeypatch):
    from pipeline.store import remote

    for k in remote.KNOBS:
        monkeypatch.delenv(k, raising=False)
    assert remote.limits().worst <= 60
    monkeypatch.setenv("COCOPIPE_STORE_RETRIES", "-1")
    with pytest.raises(ValueError, match=r"COCOPIPE_STORE_RETRIES='-1': expected a whole number"):
        remote.limits()
    monkeypatch.delenv("COCOPIPE_STORE_RETRIES")
    for bad in ("nan", "inf", "0"):
        monkeypatch.setenv("COCOPIPE_STORE_RETRY_TIMEOUT", bad)
        with pytest.raises(ValueError, match=f"COCOPIPE_STORE_RETRY_TIMEOUT='{bad}': expected a positive number"):
            remote.limits()
    done, _ = cli("runs", "--store", "s3://bucket/store", env={**CREDENTIALS, "COCOPIPE_STORE_TIMEOUT": "soon"})
    one_line(done, "COCOPIPE_STORE_TIMEOUT='soon'", "positive number of seconds")


def test_an_ingest_into_a_bucket_that_does_not_exist_says_so(s3, tmp_path):
    # before: "cannot read the store (no such bucket)", for a write
    store = "s3://no-such-bucket-here/store"
    done, _ = cli("ingest", tiny(tmp_path), "--store", store, env=s3.env)
    one_line(done, store, "cannot create the store", "the bucket 'no-such-bucket-here' does not exist")


def test_no_credentials_are_said_in_cocopipe_words_and_the_metadata_address_is_never_asked(s3, listener, tmp_path):
    # before: delta-rs's raw text, after its client asked the metadata service (169.254.169.254; here the
    # listener stands in for it) for credentials
    probe = {"AWS_EC2_METADATA_SERVICE_ENDPOINT": listener.url, "AWS_METADATA_ENDPOINT": listener.url,
             "HOME": str(tmp_path)}  # no ~/.aws of the machine's
    bare = {k: v for k, v in s3.env.items() if k not in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
                                                         "AWS_EC2_METADATA_DISABLED")}
    store = f"s3://{s3.name}/store"
    for args in (("runs", "--store", store), ("ingest", tiny(tmp_path), "--store", store),
                 ("check", "--store", store)):
        done, _ = cli(*args, env={**bare, **probe})
        one_line(done, store, "no credentials for the object store", "AWS_ACCESS_KEY_ID")
    done, _ = cli("ingest", f"s3://{s3.name}/logs/", "--store", tmp_path / "st", env={**bare, **probe})
    assert done.returncode == 1 and "no credentials for the object store" in done.stderr, done.stderr
    # with credentials but no region: no client asks the metadata service for one either
    creds = {k: v for k, v in s3.env.items() if k not in ("AWS_REGION", "AWS_DEFAULT_REGION", "AWS_EC2_METADATA_DISABLED")}
    done, _ = cli("ingest", tiny(tmp_path), "--store", store, env={**creds, **probe})
    assert done.returncode == 0, done.stderr
    done, _ = cli("runs", "--store", store, env={**creds, **probe})
    assert done.returncode == 0 and "A" in done.stdout, done.stderr
    assert listener.accepted == []


def test_every_object_store_client_is_made_with_the_time_limits(s3, tmp_path, monkeypatch):
    # delta-rs's tables and writes, Polars' scans and pyarrow's file systems: each one cocopipe makes for a
    # URI gets the limits (and the metadata service is off for the AWS clients), in an ingest, reads, check
    import deltalake as dl
    import polars as pl
    import pyarrow.fs as pafs

    from pipeline.ingest import ingest
    from pipeline.store import Store, store as store_module
    from pipeline.store.check import check

    seen: list[tuple[str, str, dict | None]] = []

    class Table(dl.DeltaTable):
        def __init__(self, uri, *args, storage_options=None, **kw):
            seen.append(("DeltaTable", str(uri), storage_options))
            super().__init__(uri, *args, storage_options=storage_options, **kw)

        @classmethod
        def create(cls, uri, *args, storage_options=None, **kw):
            seen.append(("create", str(uri), storage_options))
            return dl.DeltaTable.create(uri, *args, storage_options=storage_options, **kw)

    def write(target, *args, storage_options=None, **kw):
        if isinstance(target, str):  # a table object carries the options it was opened with
            seen.append(("write_deltalake", target, storage_options))
        return dl.write_deltalake(target, *args, storage_options=storage_options, **kw)

    scan_delta = pl.scan_delta

    def scan(source, *args, storage_options=None, **kw):
        seen.append(("scan_delta", source.table_uri, storage_options))
        return scan_delta(source, *args, storage_options=storage_options, **kw)

    from_uri, s3fs = pafs.FileSystem.from_uri, pafs.S3FileSystem

    def refused(uri):
        assert not str(uri).startswith("s3"), f"an S3 file system made without the limits: {uri}"
        return from_uri(uri)

    def s3_file_system(**kw):
        seen.append(("S3FileSystem", "s3://", {"timeout": f"{kw['request_timeout'] * 1000:g}ms",
                                               "connect_timeout": f"{kw['connect_timeout'] * 1000:g}ms",
                                               "max_retries": kw["retry_strategy"].max_attempts - 1}))
        return s3fs(**kw)

    module = SimpleNamespace(**{n: getattr(dl, n) for n in dir(dl) if not n.startswith("__")})
    module.DeltaTable, module.write_deltalake = Table, write
    from pipeline.store import delta, writes
    for m in (store_module, delta, writes):  # every module of the store that opens or writes Delta tables
        monkeypatch.setattr(m, "dl", module)
    monkeypatch.setattr(pl, "scan_delta", scan)
    monkeypatch.setattr(pafs, "FileSystem", SimpleNamespace(from_uri=refused))
    monkeypatch.setattr(pafs, "S3FileSystem", s3_file_system)
    monkeypatch.delenv("AWS_EC2_METADATA_DISABLED")
    for k, v in SMALL.items():
        monkeypatch.setenv(k, v)
    uri = f"s3://{s3.name}/st"
    st = Store(uri, create=True)
    ingest([tiny(tmp_path)], st)
    assert st.refresh().runs().collect().height == 1
    assert check(uri) == []
    from pipeline.ingest.sources import read_source
    with pytest.raises(Exception, match="no such object"):
        read_source(f"s3://{s3.name}/nothing/")
    assert os.environ["AWS_EC2_METADATA_DISABLED"] == "true"
    kinds = {kind for kind, _, _ in seen}
    assert {"DeltaTable", "create", "write_deltalake", "scan_delta", "S3FileSystem"} <= kinds, kinds
    for kind, where, options in seen:
        assert where.startswith("s3://"), (kind, where)
        assert options and options["timeout"] == "1000ms" and options["connect_timeout"] == "1000ms" \
            and int(options["max_retries"]) == 1, (kind, where, options)


def test_an_s3_source_that_does_not_exist_leaves_no_store_behind(s3):
    # before: exit 1, and an empty store left at the target
    source, store = f"s3://{s3.name}/no/logs/", f"s3://{s3.name}/store"
    done, _ = cli("ingest", source, "--store", store, env=s3.env)
    assert done.returncode == 1 and source.rstrip("/") in done.stderr and "no such object" in done.stderr, done.stderr
    assert [k for k in s3.keys(s3.name, "store/") if not k.endswith("/")] == []  # at most a folder's marker
    done, _ = cli("runs", "--store", store, env=s3.env)
    one_line(done, store, "not a cocopipe store")
