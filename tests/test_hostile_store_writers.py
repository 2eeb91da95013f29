"""Writers under faults (issue 43): a write's files are named by no table until its source is whole, so a plain
`pl.scan_delta` of a table (no cocopipe, no semi-join with `sources`) counts what `cocopipe runs` counts; a writer
paused (SIGSTOP) while another ingest or `check --repair` runs keeps its rows, also in a time zone with summer
time; two writers of one content at once store it once; kill -9 at random moments and an object store that
goes away mid-ingest leave every source whole or absent."""
from __future__ import annotations

import os
import random
import re
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import polars as pl
import pytest

from objectstore import s3, s3_server  # noqa: F401 - fixtures
from test_store_writers import source  # hand-made logs: one trial per function and instance, two records each
from pipeline.ingest import _parse_all, _source_data, ingest, read_source
from pipeline.store import Store, writes
from pipeline.store.check import check
from pipeline.store.store import commit_age, new_commit_id

SYDNEY = "Australia/Sydney"  # summer time in December: local time is UTC+11, `time.timezone` says UTC+10


def cli(*args, timeout=300, env=None):
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})})


def plain(store: str | Path, table: str = "runs") -> dict[str, int]:
    """Rows per algorithm of a table as any Delta reader counts them: no cocopipe, no semi-join."""
    df = pl.scan_delta(str(store) + f"/{table}").group_by("algorithm").len().collect()
    return dict(df.rows())


def cocopipe_runs(store: str | Path) -> dict[str, int]:
    r = cli("runs", "--store", store, "--out", "-")
    assert r.returncode == 0, r.stderr
    df = pl.read_csv(r.stdout.encode())
    return dict(df.group_by("algorithm").len().rows())


# -- ages are UTC ----------------------------------------------------------------------------------------
@pytest.fixture
def sydney(monkeypatch):
    monkeypatch.setenv("TZ", SYDNEY)
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_a_fresh_commit_id_is_seconds_old_in_a_time_zone_with_summer_time(sydney):
    # `time.mktime(t) - time.timezone` read a fresh id as 3600 s old in Sydney's summer (the grace: 3600 s)
    assert time.localtime().tm_isdst == 1
    assert 0 <= commit_age(new_commit_id()) < 5
    assert abs(commit_age("20260101T000000000000Z-0123456789ab") - (time.time() - 1767225600)) < 1  # by hand
    assert commit_age("not-a-commit") == 0.0


# -- nothing staged where readers look -------------------------------------------------------------------
def test_a_staged_write_is_named_by_no_table_and_counted_by_no_plain_reader(tmp_path):
    st = Store(tmp_path / "st", create=True)
    ingest([source(tmp_path / "A", "A")], st)
    src = read_source(source(tmp_path / "B", "B", functions=(1, 2)))
    staged = st.stage(_source_data(src, _parse_all(src, None)))
    assert plain(st.path) == {"A": 2} and plain(st.path, "events") == {"A": 4}  # B's files are not the table's
    assert list((st.path / "runs" / writes.WRITES / st.writer).glob(f"{staged.commit_id}/**/*.parquet"))
    assert check(st.path) == []  # a write at work is no problem
    st.commit(staged)
    assert plain(st.path) == {"A": 2, "B": 4} == cocopipe_runs(st.path)
    assert plain(st.path, "events") == {"A": 4, "B": 8}
    assert not (st.path / "runs" / writes.WRITES / st.writer / staged.commit_id / "_delta_log").exists()


def test_the_staged_files_of_a_live_writer_stay_however_old(tmp_path, monkeypatch):
    """Past the grace time, another writer's collection leaves the files of a writer whose lease is renewed."""
    import pipeline.store.store as mod

    st = Store(tmp_path / "st", create=True)
    src = read_source(source(tmp_path / "A", "A"))
    staged = st.stage(_source_data(src, _parse_all(src, None)))
    monkeypatch.setattr(mod, "GRACE", 0.0)
    time.sleep(1.1)  # older than the grace, by its commit id's second
    r = cli("ingest", source(tmp_path / "B", "B"), "--store", st.path, env={"COCOPIPE_ORPHAN_GRACE": "0"})
    assert r.returncode == 0, r.stderr
    r = cli("check", "--store", st.path, "--repair", env={"COCOPIPE_ORPHAN_GRACE": "0"})
    assert r.returncode == 0, r.stdout + r.stderr
    st.commit(staged)
    assert plain(st.path) == {"A": 2, "B": 2} == cocopipe_runs(st.path)


WRITER = """
import sys
from pathlib import Path
from pipeline.ingest import _parse_all, _source_data, read_source
from pipeline.store import Store
st = Store(sys.argv[1])
src = read_source(Path(sys.argv[2]))
staged = st.stage(_source_data(src, _parse_all(src, None)))
print("staged", flush=True)
sys.stdin.readline()
st.commit(staged)
print("committed", flush=True)
"""


def test_a_writer_paused_while_another_ingests_and_repairs_keeps_its_rows_in_sydney(tmp_path):
    """The issue's case: a writer stopped (SIGSTOP) between its staging and its commit, its lease expired
    meanwhile, while another process ingests and runs `check --repair` (all in Sydney's summer time, the grace
    the default hour): resumed, it commits every run of its source."""
    env = {"TZ": SYDNEY, "COCOPIPE_LEASE": "1"}
    store = tmp_path / "st"
    Store(store, create=True)
    slow = source(tmp_path / "SLOW", "SLOW", functions=(1, 2, 3))
    p = subprocess.Popen([sys.executable, "-c", WRITER, str(store), str(slow)], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, **env})
    try:
        assert p.stdout.readline().strip() == "staged", p.stderr.read()
        p.send_signal(signal.SIGSTOP)
        time.sleep(2.5)  # its lease (1 s) expires
        assert not writes.alive(str(store), next((store / "runs" / writes.WRITES).iterdir()).name)
        for args in (("ingest", source(tmp_path / "B", "B"), "--store", store), ("check", "--store", store, "--repair")):
            r = cli(*args, env=env)
            assert r.returncode == 0, r.stdout + r.stderr
        p.send_signal(signal.SIGCONT)
        out, err = p.communicate("go\n", timeout=120)
        assert p.returncode == 0 and "committed" in out, err
    finally:
        if p.poll() is None:
            p.kill()
    assert plain(store) == {"SLOW": 6, "B": 2} == cocopipe_runs(store)
    assert [(e["name"], e["runs"]) for e in Store(store).sources().values()] == [("B", 2), ("SLOW", 6)]
    assert check(store) == []


PAUSED_AT_SOURCES = """
import sys
from pathlib import Path
import pipeline.store.garbage as garbage
from pipeline.ingest import _parse_all, _source_data, read_source
from pipeline.store import Store
from pipeline.store.errors import StoreError
real = garbage.still_whole
def paused(*args):  # its tables' commits made, its `sources` commit next
    print("tables", flush=True)
    sys.stdin.readline()
    return real(*args)
garbage.still_whole = paused
st = Store(sys.argv[1])
src = read_source(Path(sys.argv[2]))
try:
    st.commit(st.stage(_source_data(src, _parse_all(src, None))))
except StoreError as exc:
    print(f"error: {exc}", file=sys.stderr)
    sys.exit(1)
print("committed", flush=True)
"""


def test_a_writer_paused_between_its_tables_commits_and_its_sources_commit_and_rolled_back_is_refused(tmp_path):
    """A writer stopped (SIGSTOP) after committing its `runs` and `events` files, before its `sources` commit; its
    lease expires and another ingest (grace 0) rolls its rows back as a dead writer's. Resumed, it must not commit
    a source whose rows are gone (before: a source of 0 runs, exit 0, found only by the next read): it stops with
    one line naming the source and the file, exit 1, and the store holds only the other source."""
    env = {"COCOPIPE_LEASE": "1", "COCOPIPE_ORPHAN_GRACE": "0"}
    store = tmp_path / "st"
    Store(store, create=True)
    slow = source(tmp_path / "SLOW", "SLOW", functions=(1, 2, 3))
    p = subprocess.Popen([sys.executable, "-c", PAUSED_AT_SOURCES, str(store), str(slow)], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, **env})
    try:
        assert p.stdout.readline().strip() == "tables", p.stderr.read()
        p.send_signal(signal.SIGSTOP)
        assert plain(store) == {"SLOW": 6}  # its tables' commits are made
        time.sleep(2.5)  # its lease (1 s) expires
        r = cli("ingest", source(tmp_path / "B", "B"), "--store", store, env=env)
        assert r.returncode == 0, r.stdout + r.stderr
        assert plain(store) == {"B": 2}  # rolled back as a dead writer's
        p.send_signal(signal.SIGCONT)
        out, err = p.communicate("go\n", timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 1 and "committed" not in out, (out, err)
    assert re.fullmatch(rf"error: {re.escape(str(slow))}: (its rows were rolled back by another writer before its "
                        rf"commit .*{re.escape(str(store))}/runs/_writes/.*\.parquet is no longer in the table|"
                        r"another writer took this one for dead \(it was cut off from the store or paused beyond "
                        r"its lease\) and is removing its rows); "
                        r"ingest the source again\n", err), err  # the rollback's fence is seen first (docs/store.md)
    assert [e["name"] for e in Store(store).sources().values()] == ["B"]
    assert plain(store) == {"B": 2} == cocopipe_runs(store) and check(store) == []


def test_a_sources_commit_made_on_the_server_whose_answer_was_lost_keeps_the_sources_rows(tmp_path, monkeypatch):
    """The `sources` commit reaches the store but its answer is lost (a connection cut as the object store went
    away): the write is committed, so its rows stay (before, the failed write deleted them as uncommitted: a
    source of 0 runs in `sources`)."""
    import deltalake as dl

    st = Store(tmp_path / "st", create=True)
    real, lost = dl.write_deltalake, []

    def answer_lost(table, data, *args, **kw):
        real(table, data, *args, **kw)
        props = kw.get("commit_properties")
        if not lost and props is not None and (props.custom_metadata or {}).get("cocopipe.swap") == "sources":
            lost.append(1)
            raise OSError("connection reset by peer")

    monkeypatch.setattr(dl, "write_deltalake", answer_lost)
    summary = ingest([source(tmp_path / "A", "A", functions=(1, 2))], st)
    assert lost and [s.status for s in summary.sources] == ["ingested"], summary.sources
    assert [(e["name"], e["runs"]) for e in Store(st.path).sources().values()] == [("A", 4)]
    assert plain(st.path) == {"A": 4} == cocopipe_runs(st.path) and check(st.path) == []


def test_a_staged_write_of_a_dead_writer_past_the_grace_is_collected_and_its_rows_never_named(tmp_path, monkeypatch):
    import pipeline.store.store as mod

    st = Store(tmp_path / "st", create=True)
    dead = Store(st.path)
    src = read_source(source(tmp_path / "A", "A"))
    lost = dead.stage(_source_data(src, _parse_all(src, None)))
    writes.release(dead.location.uri, dead.writer)
    monkeypatch.setattr(mod, "GRACE", 0.0)
    time.sleep(1.1)
    assert [f.kind for f in check(st.path)] == ["uncommitted", "uncommitted"]  # runs and events
    ingest([source(tmp_path / "B", "B")], st)
    assert not (st.path / "runs" / writes.WRITES / dead.writer / lost.commit_id).exists()
    assert check(st.path) == [] and plain(st.path) == {"B": 2}
    with pytest.raises(Exception, match="staged file of this write was removed|took this one for dead"):  # woke up:
        # never a hole (the collection's fence is seen first)
        dead.commit(lost)
    assert plain(st.path) == {"B": 2} == cocopipe_runs(st.path)


def test_a_writer_killed_between_its_tables_commits_is_rolled_back_by_the_next_writer(tmp_path, monkeypatch):
    """`runs` committed, then the writer died before `events` and `sources`: a plain reader counts its runs until
    the next writer (its lease expired, past the grace) deletes them; `check` names them meanwhile."""
    import pipeline.store.store as mod

    st = Store(tmp_path / "st", create=True)
    dead = Store(st.path)
    src = read_source(source(tmp_path / "A", "A"))
    lost = dead.stage(_source_data(src, _parse_all(src, None)))
    dead._commit_files([type(lost)(lost.data, lost.commit_id, ["runs"], {"runs": lost.files["runs"]})])
    writes.release(dead.location.uri, dead.writer)
    assert plain(st.path) == {"A": 2} and cocopipe_runs_or_none(st.path) is None
    monkeypatch.setattr(mod, "GRACE", 0.0)
    monkeypatch.setattr("pipeline.store.check.GRACE", 0.0)
    time.sleep(1.1)
    assert sorted(f.kind for f in check(st.path)) == ["uncommitted", "uncommitted"]  # runs rows, events files
    ingest([source(tmp_path / "B", "B")], st)
    assert plain(st.path) == {"B": 2} == cocopipe_runs(st.path) and check(st.path) == []


def test_a_collection_on_a_stale_snapshot_never_deletes_a_source_committed_since(tmp_path, monkeypatch):
    """A committed A, its writer gone (lease given up); a Store whose snapshot predates A collects garbage past
    the grace: A's rows are named by `sources` now, so they stay (the S3 rounds once lost a source so)."""
    import pipeline.store.store as mod

    st = Store(tmp_path / "st", create=True)
    stale = Store(st.path)
    assert stale.snapshot.committed == []
    writer = Store(st.path)
    src = read_source(source(tmp_path / "A", "A"))
    writer.write_source(_source_data(src, _parse_all(src, None)))
    writes.release(writer.location.uri, writer.writer)
    monkeypatch.setattr(mod, "GRACE", 0.0)
    time.sleep(1.1)
    assert stale.snapshot.committed == []  # still the snapshot of before A
    assert stale.collect_garbage() == 0
    assert plain(st.path) == {"A": 2} == cocopipe_runs(st.path) and check(st.path) == []


def test_a_reader_keeps_reading_the_files_of_a_source_replaced_meanwhile_for_the_grace(tmp_path, monkeypatch):
    """A reader opened the store; another writer then replaced its source (its writer gone, past the grace): the
    old version's rows are removed from the table, but its files stay a grace longer (marked when first found
    unnamed), so the reader's snapshot still reads them (before: deleted at once, a raw FileNotFoundError)."""
    import pipeline.store.store as mod

    st = Store(tmp_path / "st", create=True)
    ingest([source(tmp_path / "A", "A", functions=(1,))], st)
    writes.release(st.location.uri, st.writer)  # the first writer is gone
    reader = Store(st.path)
    lf = reader.runs()
    shutil.rmtree(tmp_path / "A")
    monkeypatch.setattr(mod, "GRACE", 0.0)
    time.sleep(1.1)
    ingest([source(tmp_path / "A", "A", functions=(1, 2))], Store(st.path))  # replaces A
    assert lf.collect().height == 2  # the snapshot's answer: the old version, whole
    assert list((st.path / "runs" / writes.WRITES / st.writer).glob(f"*/{writes.UNNAMED}"))
    assert Store(st.path).runs().collect().height == 4 and check(st.path) == []


def test_a_reader_of_a_file_a_rollback_removed_is_told_in_one_line_which_file(tmp_path, monkeypatch, capsys):
    """The same reader once the grace has passed since the old version's rows went, and a later writer deleted
    its files: its scan finds a file gone, and that is one line naming the file and what removed it (before: a
    raw FileNotFoundError and its traceback)."""
    import pipeline.store.store as mod
    from pipeline import cli as cli_mod
    from pipeline.commands import _common

    st = Store(tmp_path / "st", create=True)
    ingest([source(tmp_path / "A", "A", functions=(1,))], st)
    writes.release(st.location.uri, st.writer)
    reader = Store(st.path)
    lf = reader.runs()
    shutil.rmtree(tmp_path / "A")
    monkeypatch.setattr(mod, "GRACE", 0.0)
    time.sleep(1.1)
    ingest([source(tmp_path / "A", "A", functions=(1, 2))], Store(st.path))  # replaces A, marks the old files
    time.sleep(1.1)
    ingest([source(tmp_path / "B", "B")], Store(st.path))  # its first commit collects: the old files go
    assert not list((st.path / "runs" / writes.WRITES / st.writer).glob("*"))
    with pytest.raises(OSError) as raised:
        lf.collect()
    monkeypatch.setattr(_common, "OPENED", [st.path])
    with pytest.raises(SystemExit) as ended:
        cli_mod._store_failure(raised.value)
    assert ended.value.code == 1
    err = capsys.readouterr().err
    assert re.fullmatch(rf"error: {re.escape(str(st.path))}: its file \S*suite=bbob/algorithm=A/part-\S+\.parquet was "
                        r"removed while this command read it \(another writer replaced or rolled back the rows it held "
                        r"since this command opened the store\); run the command again\n", err), err
    assert Store(st.path).runs().collect().height == 6 and check(st.path) == []  # a new read: the new version


def cocopipe_runs_or_none(store) -> dict | None:
    """`cocopipe runs` per algorithm, None where it has no trial to show (an empty store)."""
    return Store(store).runs().collect().height or None


def test_a_writers_lease_on_the_object_store_is_written_so_other_writers_leave_its_rows(s3, tmp_path):
    """The cause of the S3 rounds' lost rows: pyarrow's stream over delta-rs's client refused the lease's bytes
    ("'Buffer' object is not an instance of 'bytes'", swallowed), so no lease was ever in the bucket and every
    writer looked dead to every other one: a live writer's rows, committed to `runs` and `events` but not yet
    to `sources`, were rolled back by the next ingest (grace 0) and its source then committed with 0 runs."""
    import json as _json

    store = f"s3://{s3.name}/st"
    Store(store, create=True)
    st = Store(store)
    src = read_source(source(tmp_path / "A", "A"))
    staged = st.stage(_source_data(src, _parse_all(src, None)))
    assert writes.writer_of(staged.commit_id) == st.writer  # `stage` named no writer: collectable by anyone
    lease = _json.loads(writes.filesystem(store).open_input_file(f"_writers/{st.writer}.json").read())
    assert lease["writer"] == st.writer and abs(lease["renewed"] - time.time()) < 10
    st._commit_files([staged])  # its tables' commits made; `sources` not yet
    assert plain(store) == {"A": 2}
    r = cli("ingest", source(tmp_path / "B", "B"), "--store", store, env={"COCOPIPE_ORPHAN_GRACE": "0"})
    assert r.returncode == 0, r.stderr
    assert plain(store) == {"A": 2, "B": 2}  # another process saw A's writer alive: its rows stay
    st.commit(staged)
    assert plain(store) == {"A": 2, "B": 2} == cocopipe_runs(store) and check(Store(store)) == []


# -- two writers of one content ---------------------------------------------------------------------------
@pytest.mark.parametrize("where", ["local", "s3"])
def test_two_writers_of_one_content_at_once_store_it_once(where, s3, tmp_path):
    store = str(tmp_path / "st") if where == "local" else f"s3://{s3.name}/st"
    Store(store, create=True)
    one = source(tmp_path / "one" / "NM", "NM", functions=(1, 2, 3))
    two = tmp_path / "two" / "NM"
    shutil.copytree(one, two)  # the same bytes at another path: the same sha256
    procs = [subprocess.Popen([sys.executable, "-m", "pipeline.cli", "ingest", str(p), "--store", store],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for p in (one, two)]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    st = Store(store)
    commits = {e["commit_id"] for e in st.sources().values()}
    assert len(commits) == 1  # both keys name one commit: stored once, counted once
    assert plain(store) == {"NM": 6} == cocopipe_runs(store) and plain(store, "events") == {"NM": 12}
    assert check(st) == []


def test_an_archive_and_its_unpacked_copy_ingested_at_once_count_each_trial_once(tmp_path):
    """Two contents (a .tgz and the folder it unpacks to) with the same trials, two writers at once: the one that
    commits second checks its trials again against the first one's and leaves them out (before: every trial twice)."""
    import tarfile

    store = tmp_path / "st"
    Store(store, create=True)
    folder = source(tmp_path / "copy" / "NM", "NM", functions=(1, 2, 3))
    archive = tmp_path / "NM.tgz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(folder, arcname="NM")
    for _ in range(2):
        procs = [subprocess.Popen([sys.executable, "-m", "pipeline.cli", "ingest", str(p), "--store", str(store),
                                   "--force"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for p in (folder, archive)]
        outs = [p.communicate(timeout=300) for p in procs]
        assert [p.returncode for p in procs] == [0, 0], outs
        assert plain(store) == {"NM": 6} == cocopipe_runs(store), outs
        assert plain(store, "events") == {"NM": 12} and check(store) == []


def test_trials_stored_by_another_writer_between_the_duplicate_check_and_the_commit_are_left_out(tmp_path,
                                                                                                  monkeypatch):
    """The other writer's archive committed just after this writer checked its folder's trials against the store:
    at its commit the folder is checked again, and its trials (all of them the archive's) are left out."""
    import tarfile

    import pipeline.ingest as ing

    store = tmp_path / "st"
    Store(store, create=True)
    folder = source(tmp_path / "copy" / "NM", "NM", functions=(1, 2, 3))
    archive = tmp_path / "NM.tgz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(folder, arcname="NM")
    real, raced = ing._left_out, []

    def racing(outcome, st, data, ident, fetch=None):
        got = real(outcome, st, data, ident, fetch)
        if not raced:
            raced.append(cli("ingest", archive, "--store", store))
        return got

    monkeypatch.setattr(ing, "_left_out", racing)
    summary = ingest([folder], Store(store))
    assert raced and raced[0].returncode == 0, raced[0].stderr
    assert [(s.status, s.runs_duplicate) for s in summary.sources] == [("duplicate", 6)]
    assert plain(store) == {"NM": 6} == cocopipe_runs(store) and check(store) == []


# -- kill -9 at random moments ----------------------------------------------------------------------------
def _kill_rounds(tmp_path: Path, store: str, rounds: int, seed: int) -> None:
    """Ingests of three sources killed at random moments; after each, a finishing ingest (the dead writer's lease
    expired): every source whole or absent, a plain scan of each table counting what cocopipe counts."""
    env = {"COCOPIPE_LEASE": "1", "COCOPIPE_ORPHAN_GRACE": "0", "TZ": SYDNEY}
    rng = random.Random(seed)
    srcs = [source(tmp_path / n, n, functions=(1, 2)) for n in ("P", "Q", "R")]
    fin = source(tmp_path / "F", "F")
    Store(store, create=True)
    for k in range(rounds):
        p = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "ingest", *map(str, srcs), "--force", "--store",
                              store], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, **env})
        time.sleep(rng.uniform(0.5, 4.0))
        p.send_signal(signal.SIGKILL)
        p.wait()
        st = Store(store)
        seen = dict(st.runs().collect().group_by("algorithm").len().rows())
        assert all(n == (2 if a == "F" else 4) for a, n in seen.items()), (k, seen)  # whole or absent
        time.sleep(1.5)  # the killed writer's lease expires
        r = cli("ingest", fin, "--force", "--store", store, env=env)
        assert r.returncode == 0, r.stderr
        want = cocopipe_runs(store)
        assert plain(store) == want and plain(store, "events") == {a: 2 * n for a, n in want.items()}, k
        assert check(Store(store)) == [], k


def test_kill_9_at_random_moments_then_plain_readers_count_what_cocopipe_counts(tmp_path):
    _kill_rounds(tmp_path, str(tmp_path / "st"), 4, 43)


def test_kill_9_at_random_moments_on_the_object_store_then_plain_readers_count_what_cocopipe_counts(s3, tmp_path):
    _kill_rounds(tmp_path, f"s3://{s3.name}/st", 3, 44)


# -- the object store goes away mid-ingest ----------------------------------------------------------------
class Outage:
    """A TCP proxy on loopback in front of the S3 server that can be stopped (every connection cut, the port
    refusing) and started again on the same port."""

    def __init__(self, target: str):
        host, port = target.removeprefix("http://").split(":")
        self.target = (host, int(port))
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.conns: list[socket.socket] = []
        self.lock = threading.Lock()
        self.listener: socket.socket | None = None
        self.start()

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        lis = socket.socket()
        lis.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        lis.bind(("127.0.0.1", self.port))
        lis.listen(64)
        self.listener = lis
        threading.Thread(target=self._accept, args=(lis,), daemon=True).start()

    def stop(self) -> None:
        lis, self.listener = self.listener, None
        if lis is not None:
            try:
                lis.shutdown(socket.SHUT_RDWR)  # wakes the thread blocked in accept (close alone leaves it listening)
            except OSError:
                pass
            lis.close()
        with self.lock:
            conns, self.conns = self.conns, []
        for c in conns:
            try:
                c.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            c.close()

    def _accept(self, lis: socket.socket) -> None:
        while True:
            try:
                client, _ = lis.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(self.target)
            except OSError:
                client.close()
                continue
            with self.lock:
                self.conns += [client, server]
            threading.Thread(target=self._pipe, args=(client, server), daemon=True).start()

    @staticmethod
    def _pipe(a: socket.socket, b: socket.socket) -> None:
        sel = selectors.DefaultSelector()
        sel.register(a, selectors.EVENT_READ, b)
        sel.register(b, selectors.EVENT_READ, a)
        try:
            while True:
                for key, _ in sel.select():
                    data = key.fileobj.recv(65536)
                    if not data:
                        return
                    key.data.sendall(data)
        except (OSError, ValueError):
            return
        finally:
            a.close()
            b.close()


def test_an_object_store_outage_mid_ingest_leaves_every_source_whole_or_absent(s3, tmp_path):
    """The server unreachable for a moment at random points of an ingest of three sources (through a proxy that
    refuses and cuts connections), then back: every source whole or absent, for cocopipe and for a plain reader
    once a later write (the failed writer's lease expired) has rolled back what it left."""
    rng = random.Random(45)
    store = f"s3://{s3.name}/st"
    Store(store, create=True)
    proxy = Outage(s3.endpoint)
    env = {"AWS_ENDPOINT_URL": proxy.endpoint, "COCOPIPE_LEASE": "1", "COCOPIPE_ORPHAN_GRACE": "0",
           "COCOPIPE_STORE_TIMEOUT": "3", "COCOPIPE_STORE_RETRIES": "1", "COCOPIPE_STORE_RETRY_TIMEOUT": "2"}
    srcs = [source(tmp_path / n, n, functions=(1, 2)) for n in ("P", "Q", "R")]
    fin = source(tmp_path / "F", "F")
    try:
        for k in range(4):
            p = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "ingest", *map(str, srcs), "--force", "--store",
                                  store], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                 env={**os.environ, **env})
            time.sleep(rng.uniform(1.5, 5.0))  # from the store's opening to the sources commit
            proxy.stop()
            time.sleep(rng.uniform(1.0, 4.0))
            proxy.start()
            _, err = p.communicate(timeout=300)
            assert "Traceback" not in err, err
            seen = dict(Store(store).runs().collect().group_by("algorithm").len().rows())
            assert all(n == (2 if a == "F" else 4) for a, n in seen.items()), (k, seen)  # whole or absent
            if p.returncode == 0:
                assert set(seen) >= {"P", "Q", "R"}, (k, seen)
            time.sleep(1.5)
            r = cli("ingest", fin, "--force", "--store", store, env={"COCOPIPE_LEASE": "1", "COCOPIPE_ORPHAN_GRACE": "0"})
            assert r.returncode == 0, r.stderr
            want = cocopipe_runs(store)
            assert plain(store) == want and plain(store, "events") == {a: 2 * n for a, n in want.items()}, k
            assert check(Store(store)) == [], k
    finally:
        proxy.stop()


# -- all at once: writers, readers, kill -9 and an outage, round after round --------------------------------
#: the combined rounds' sources and the runs their logs hold (one per function and instance)
ROUNDS = {"P": ((1, 2), (1, 2)), "Q": ((1, 2, 3), (1, 2)), "R": ((1,), (1, 2, 3))}


def _spawn(args, env) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "pipeline.cli", *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, **env})


def _clean_exit(p: subprocess.Popen, out: str, err: str, what) -> None:
    """Exit 0, killed by us, or a clear error of cocopipe's (`error: ...`): never a traceback or a raw exception."""
    assert "Traceback" not in err + out and not re.search(r"^\w+(Error|Exception): ", err, re.M), (what, err)
    if p.returncode not in (0, -signal.SIGKILL):
        assert re.search(r"^error: ", err, re.M), (what, p.returncode, err)


def _combined_rounds(tmp_path: Path, store: str, rounds: int, seed: int, proxy: Outage | None = None) -> None:
    """Each round: three writers (different sources, some --force) and two readers (`runs`, `art`) at once in
    Sydney's summer time, one writer killed (-9) at a random moment and (object store) the server gone for a
    moment; then a finishing ingest: every committed source whole, its run ids distinct, a plain scan of each
    table counting what `cocopipe runs` counts, and `check` clean."""
    rng = random.Random(seed)
    lease = float(os.environ.get("COCOPIPE_ROUNDS_LEASE", 1 if proxy is None else 6))  # longer than an outage
    env = {"COCOPIPE_LEASE": str(lease), "COCOPIPE_ORPHAN_GRACE": "0", "TZ": SYDNEY}
    if proxy is not None:
        env |= {"AWS_ENDPOINT_URL": proxy.endpoint, "COCOPIPE_STORE_TIMEOUT": "3", "COCOPIPE_STORE_RETRIES": "1",
                "COCOPIPE_STORE_RETRY_TIMEOUT": "2"}
    srcs = {n: source(tmp_path / n, n, functions=f, instances=i) for n, (f, i) in ROUNDS.items()}
    whole = {n: len(f) * len(i) for n, (f, i) in ROUNDS.items()} | {"F": 2}
    fin = source(tmp_path / "F", "F")
    Store(store, create=True)
    for k in range(rounds):
        writers = [_spawn(["ingest", path, "--store", store, *(["--force"] if rng.random() < 0.5 else [])], env)
                   for path in srcs.values()]
        time.sleep(rng.uniform(0.2, 1.0))
        readers = [_spawn(["runs", "--store", store, "--out", "-"], env),
                   _spawn(["art", "--store", store, "--out", tmp_path / f"art{k}.csv"], env)]
        time.sleep(rng.uniform(0.5, 3.0))
        victim = rng.randrange(len(writers))
        writers[victim].send_signal(signal.SIGKILL)
        if proxy is not None:
            time.sleep(rng.uniform(0.0, 1.5))
            proxy.stop()
            time.sleep(rng.uniform(1.0, 3.0))
            proxy.start()
        for p in writers + readers:
            out, err = p.communicate(timeout=300)
            _clean_exit(p, out, err, (seed, k, p.args[3:5]))
        time.sleep(lease + 0.5)  # the killed writer's lease expires
        r = cli("ingest", fin, "--force", "--store", store, env=env)
        assert r.returncode == 0, (seed, k, r.stderr)
        st = Store(store)
        committed = {e["name"]: e["runs"] for e in st.sources().values()}
        assert all(n == whole[a] for a, n in committed.items()), (seed, k, committed)  # every source whole
        runs = st.runs().select("algorithm", "run_id").collect()
        assert runs["run_id"].n_unique() == runs.height, (seed, k)  # nothing counted twice
        want = cocopipe_runs(store)
        assert want == {a: whole[a] for a in committed}, (seed, k, want, committed)  # nothing half-visible
        assert plain(store) == want and plain(store, "events") == {a: 2 * n for a, n in want.items()}, (seed, k)
        assert check(st) == [], (seed, k)
        r = cli("check", "--store", store, env=env)
        assert r.returncode == 0, (seed, k, r.stdout + r.stderr)


def test_writers_readers_and_kill_9_at_once_in_rounds_leave_every_source_whole(tmp_path):
    _combined_rounds(tmp_path, str(tmp_path / "st"), 3, int(os.environ.get("COCOPIPE_ROUNDS_SEED", 431)))


def test_writers_readers_kill_9_and_outages_at_once_in_rounds_on_the_object_store_leave_every_source_whole(s3,
                                                                                                       tmp_path):
    proxy = Outage(s3.endpoint)
    try:
        _combined_rounds(tmp_path, f"s3://{s3.name}/st", 3, int(os.environ.get("COCOPIPE_ROUNDS_SEED", 432)), proxy)
    finally:
        proxy.stop()



def test_a_store_gone_while_its_unreadable_file_is_looked_for_is_said_in_one_line(tmp_path, monkeypatch):
    """A failed read's diagnosis opens the store again; the object store down by then: its error, no traceback."""
    from pipeline.commands import _common
    from pipeline.store.errors import StoreError

    def down(path):
        raise StoreError(f"{path}: cannot read the store (connection refused (is the server up?))")

    monkeypatch.setattr(_common, "OPENED", [tmp_path / "st"])
    monkeypatch.setattr("pipeline.store.check.unreadable", down)
    assert _common.unreadable_store_file() == f"{tmp_path / 'st'}: cannot read the store (connection refused (is the server up?))"
