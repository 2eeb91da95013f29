"""No request leaves loopback (issue 43): an ingest into the S3-compatible server and a `cocopipe runs` against
it, each in a process whose every socket connect is recorded (Python's sockets by a `sitecustomize` wrapping
`socket.socket.connect`; delta-rs's and Polars' Rust clients by `strace -f -e trace=connect`, where strace is
installed), connect only to 127.0.0.1, ::1 or a unix socket: never the cloud metadata address."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from logs import write_new2
from objectstore import s3, s3_server  # noqa: F401 - fixtures

ROOT = Path(__file__).resolve().parent.parent

#: a sitecustomize that appends every address a Python socket connects to (one repr a line) to $CONNECTS
SITECUSTOMIZE = '''
import os, socket

_connect, _connect_ex = socket.socket.connect, socket.socket.connect_ex


def _note(sock, address):
    with open(os.environ["COCOPIPE_TEST_CONNECTS"], "a") as fh:
        fh.write(f"{sock.family.name} {address!r}\\n")


def connect(self, address):
    _note(self, address)
    return _connect(self, address)


def connect_ex(self, address):
    _note(self, address)
    return _connect_ex(self, address)


socket.socket.connect, socket.socket.connect_ex = connect, connect_ex
with open(os.environ["COCOPIPE_TEST_CONNECTS"], "a") as fh:
    fh.write(f"LOADED {os.getpid()}\\n")
'''

#: an address strace prints for connect(2): sin_addr=inet_addr("A"), inet_pton(AF_INET6, "A", ...), sun_path
_INET = re.compile(r'inet_addr\("([^"]+)"\)')
_INET6 = re.compile(r'inet_pton\(AF_INET6, "([^"]+)"')
LOOPBACK = {"127.0.0.1", "::1", "::ffff:127.0.0.1"}


def strace() -> bool:
    """Whether strace is installed and may trace here (a container without ptrace refuses it)."""
    if not shutil.which("strace"):
        return False
    return subprocess.run(["strace", "-f", "-qq", "-o", os.devnull, "true"], capture_output=True).returncode == 0


def traced(cmd: list[str], env: dict, log: Path) -> subprocess.CompletedProcess:
    """Run `cmd`, under `strace -f -e trace=connect -o log` where strace can trace."""
    if strace():
        cmd = ["strace", "-f", "-qq", "-e", "trace=connect", "-o", str(log), *cmd]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)


def outside(python_log: Path, strace_log: Path) -> list[str]:
    """The connects recorded that went anywhere but loopback or a unix socket."""
    bad = []
    for line in python_log.read_text().splitlines() if python_log.exists() else []:
        family, _, address = line.partition(" ")
        if family in ("AF_UNIX", "LOADED"):
            continue
        host = eval(address)[0]  # noqa: S307 - a repr this test's sitecustomize wrote
        if host not in LOOPBACK and host != "localhost":
            bad.append(line)
    for line in strace_log.read_text().splitlines() if strace_log.exists() else []:
        if "connect(" not in line or "AF_UNIX" in line or "AF_NETLINK" in line:
            continue
        hosts = _INET.findall(line) + _INET6.findall(line)
        if not hosts or any(h not in LOOPBACK for h in hosts):  # an address family this test cannot read: named
            bad.append(line)
    return bad


def test_ingest_and_runs_on_the_object_store_connect_to_loopback_only(s3, tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE)
    connects = tmp_path / "connects.txt"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT), str(ROOT / "tests")]),
           "COCOPIPE_TEST_CONNECTS": str(connects)}
    env.pop("AWS_EC2_METADATA_DISABLED", None)  # cocopipe itself must keep the metadata probe off
    src = write_new2(tmp_path / "src", "A", runs=[{"instance": j, "dat": [(1, 5.0 * j), (4, 0.5)]} for j in (1, 2)])
    uri = f"s3://{s3.name}/st"
    logs = []
    for i, args in enumerate((["ingest", str(src), "--store", uri], ["runs", "--store", uri])):
        logs.append(tmp_path / f"strace{i}.txt")
        r = traced([sys.executable, "-m", "pipeline.cli", *args], env, logs[-1])
        assert r.returncode == 0, r.stderr
    assert "A" in r.stdout  # `runs` read the store on the server: the connects below are the real ones
    assert connects.read_text().count("LOADED") >= 2, "the sitecustomize recording Python's connects never ran"
    bad = sorted({b for log in logs for b in outside(connects, log)})
    assert not bad, f"connects outside loopback: {bad}"
    if not strace():
        pytest.skip("strace not installed (or not allowed to trace): only Python's sockets were recorded, not delta-rs's")
    port = s3.endpoint.rsplit(":", 1)[1]
    assert all(f"htons({port})" in p.read_text() for p in logs), "strace recorded no connect to the server"
