"""An S3-compatible server on loopback for the tests: moto's server mode (`moto_server`, from PyPI).

Why moto: it installs with pip (no binary to fetch, no container), starts in a second, implements the S3
calls delta-rs, Polars and pyarrow make (list, ranged GET, PUT with If-None-Match, multipart upload), and
keeps everything in memory, so each test gets a bucket of its own and nothing is left behind. The
processes it serves are real HTTP clients: the store's code cannot tell it from S3.
"""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

#: what a process needs to reach the server (delta-rs, Polars and pyarrow read these)
CREDENTIALS = {"AWS_ACCESS_KEY_ID": "cocopipe", "AWS_SECRET_ACCESS_KEY": "cocopipe", "AWS_REGION": "us-east-1",
               "AWS_DEFAULT_REGION": "us-east-1", "AWS_ALLOW_HTTP": "true", "AWS_EC2_METADATA_DISABLED": "true"}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class S3Server:
    """A running moto server: its endpoint, and buckets made on it."""

    def __init__(self, endpoint: str, proc: subprocess.Popen):
        self.endpoint, self.proc = endpoint, proc

    @property
    def env(self) -> dict[str, str]:
        """The environment variables that point a process at this server."""
        return {**CREDENTIALS, "AWS_ENDPOINT_URL": self.endpoint}

    def bucket(self) -> str:
        """A new, empty bucket's name."""
        import boto3

        name = f"t{uuid.uuid4().hex[:12]}"
        boto3.client("s3", endpoint_url=self.endpoint, **{k.lower(): v for k, v in CREDENTIALS.items()
                                                          if k in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY")},
                     region_name="us-east-1").create_bucket(Bucket=name)
        return name

    def keys(self, bucket: str, prefix: str = "") -> list[str]:
        """The keys under a prefix of a bucket."""
        import boto3

        s3 = boto3.client("s3", endpoint_url=self.endpoint, aws_access_key_id="cocopipe",
                          aws_secret_access_key="cocopipe", region_name="us-east-1")
        pages = s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix)
        return [o["Key"] for page in pages for o in page.get("Contents", [])]


def start_server() -> S3Server:
    """Start `moto_server` on a free loopback port and wait until it answers."""
    exe = shutil.which("moto_server") or str(Path(sys.executable).with_name("moto_server"))
    if not os.path.exists(exe):
        if os.environ.get("CI"):
            pytest.fail("moto_server is missing: CI installs the test extra (moto[server])")
        pytest.skip("moto_server not installed (pip install 'moto[server]')")
    port = _free_port()
    proc = subprocess.Popen([exe, "-H", "127.0.0.1", "-p", str(port)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return S3Server(f"http://127.0.0.1:{port}", proc)
        except OSError:
            if proc.poll() is not None:
                break
            time.sleep(0.1)
    proc.kill()
    pytest.fail(f"moto_server did not start on port {port}")


@pytest.fixture(scope="session")
def s3_server():
    """A moto S3 server for the whole session."""
    server = start_server()
    yield server
    server.proc.terminate()
    try:
        server.proc.wait(10)
    except subprocess.TimeoutExpired:
        server.proc.kill()


@pytest.fixture
def s3(s3_server, monkeypatch):
    """The server, with this process's environment pointing at it (and a fresh bucket: `s3.name`)."""
    for k, v in s3_server.env.items():
        monkeypatch.setenv(k, v)
    s3_server.name = s3_server.bucket()
    return s3_server
