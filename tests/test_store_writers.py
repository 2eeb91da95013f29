"""Writers and readers at once: one writer at a time (a busy store is said, `--wait` waits), readers
never touch a writer's files, a crash (kill -9) at any moment leaves the store whole, and two
writers and a reader in loops on one store lose nothing."""
from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import polars as pl

from logs import write_new2
from pipeline.ingest import ingest
from pipeline.store import Store
from pipeline.store.check import check

TWO_RUNS = [{"instance": 1, "dat": [(1, 5.0), (3, 2.0), (7, 0.5)]}, {"instance": 2, "dat": [(1, 4.0), (5, 1.0)]}]


def cli(*args, timeout=120):
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout)


def source(root: Path, alg: str, functions=(1,), instances=(1, 2)) -> Path:
    """A folder of hand-made logs: one trial per function and instance."""
    for f in functions:
        write_new2(root, alg=alg, function=f, runs=[{"instance": i, "dat": [(1, 5.0 * i), (4, 0.5)]} for i in instances],
                   info_name=f"bbobexp_f{f}.info")
    return root


def test_a_second_writer_is_told_the_store_is_busy_and_can_wait(tmp_path):
    a, b = source(tmp_path / "A", "A"), source(tmp_path / "B", "B")
    st = Store(tmp_path / "st", create=True)
    with st.writing():
        r = cli("ingest", b, "--store", st.path)
        assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
        assert "busy" in r.stderr and f"pid {os.getpid()}" in r.stderr and "--wait" in r.stderr, r.stderr
        waiting = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "ingest", str(b), "--store", str(st.path),
                                    "--wait", "60"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(2)
        assert waiting.poll() is None  # still waiting for this process
        ingest([a], st)
    _, err = waiting.communicate(timeout=60)
    assert waiting.returncode == 0, err
    assert "waiting for" in err
    assert sorted(e["name"] for e in st.sources().values()) == ["A", "B"]  # B re-read the manifest A wrote
    assert st.runs().collect().height == 4 and check(st.path) == []


def test_a_writer_that_commits_while_another_commits_loses_no_source(tmp_path, monkeypatch):
    """Writer B starts while writer A is between reading and replacing the manifest: B waits for A,
    then re-reads the manifest, so both sources are in it (without the lock, A's stale manifest
    dropped B's source)."""
    a, b = source(tmp_path / "A", "A"), source(tmp_path / "B", "B")
    st = Store(tmp_path / "st", create=True)
    import pipeline.store.store as mod

    real, started = mod.write_manifest, []

    def slow(folder, data):  # A is inside its commit: B runs now
        if not started:
            started.append(subprocess.Popen([sys.executable, "-m", "pipeline.cli", "ingest", str(b), "--store",
                                             str(st.path), "--wait", "60"], stderr=subprocess.PIPE, text=True))
            try:
                started[0].wait(timeout=4)
            except subprocess.TimeoutExpired:
                pass
        real(folder, data)

    monkeypatch.setattr(mod, "write_manifest", slow)
    ingest([a], st)
    monkeypatch.setattr(mod, "write_manifest", real)
    _, err = started[0].communicate(timeout=60)
    assert started[0].returncode == 0, err
    assert sorted(e["name"] for e in st.sources().values()) == ["A", "B"]
    assert check(st.path) == []


def test_readers_leave_a_writers_staging_folder_alone(tmp_path):
    a = source(tmp_path / "A", "A")
    st = Store(tmp_path / "st", create=True)
    ingest([a], st)
    stage = tmp_path / "st" / ".stage-0123456789abcdef"  # as a writer at work leaves it while it parses
    stage.mkdir()
    (stage / "0.parquet").write_bytes(b"being written")
    for cmd in ("runs", "art", "info"):
        r = cli(cmd, "--store", st.path)
        assert r.returncode == 0, r.stderr
        assert (stage / "0.parquet").exists(), cmd
    Store(st.path).runs().collect()
    assert stage.exists()
    ingest([source(tmp_path / "B", "B")], st)  # a writer: no other writer is at work, the folder is stale
    assert not stage.exists()


def test_a_reader_during_a_write_sees_the_store_before_or_after_it(tmp_path):
    a, b = source(tmp_path / "A", "A"), source(tmp_path / "B", "B", functions=(1, 2))
    st = Store(tmp_path / "st", create=True)
    ingest([a], st)
    from pipeline.ingest import _parse_all, _source_data, read_source

    with st.writing():
        src = read_source(b)
        staged = st.stage(_source_data(src, _parse_all(src, None)))
        r = cli("runs", "--store", st.path, "--out", "-")
        assert r.returncode == 0 and r.stdout.count("\n") == 1 + 2, r.stderr  # A only
        assert staged.added and (tmp_path / "st" / f".stage-{staged.txn}").is_dir()
        st.commit(staged)
    r = cli("runs", "--store", st.path, "--out", "-")
    assert r.returncode == 0 and r.stdout.count("\n") == 1 + 2 + 4
    assert check(st.path) == []


def _versions(tmp_path: Path, name: str, alg: str) -> list[Path]:
    """Two contents of one source: 2 trials on f1, then 6 trials on f1-f3."""
    return [source(tmp_path / "v0" / name, alg, (1,)), source(tmp_path / "v1" / name, alg, (1, 2, 3))]


def _put(version: Path, at: Path) -> None:
    tmp = at.with_name(at.name + ".new")
    shutil.copytree(version, tmp)
    if at.exists():
        shutil.rmtree(at)
    os.replace(tmp, at)


def test_kill_9_at_random_moments_leaves_the_store_whole(tmp_path):
    """A writer killed anywhere (parsing, staging, committing) leaves the store as before or after
    its last commit; the next process that opens it finishes or rolls back, and all is consistent."""
    rng = random.Random(20)
    versions = _versions(tmp_path, "S", "S")
    src, other = tmp_path / "S", source(tmp_path / "T", "T", (1, 2))
    st = Store(tmp_path / "st", create=True)
    _put(versions[0], src)
    ingest([src, other], st)
    for k in range(6):
        _put(versions[(k + 1) % 2], src)
        p = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "ingest", str(src), str(other), "--force",
                              "--store", str(st.path)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        time.sleep(rng.uniform(0.2, 1.5))
        p.send_signal(signal.SIGKILL)
        p.wait()
        runs = Store(st.path).runs().collect()  # reopening finishes or rolls back
        assert check(st.path) == [], k
        per = dict(runs.group_by("algorithm").len().rows())
        assert per["T"] == 4 and per["S"] in (2, 6), per


def test_two_writers_and_a_reader_in_loops_lose_nothing(tmp_path):
    """Two writers ingest their own sources in loops (each round a changed version of one source,
    `--force` on the other) while a reader runs `runs` and `art`: no process fails or prints a
    traceback, and afterwards `check` finds every run of every source."""
    rounds = 3
    store = tmp_path / "st"
    writers = {}
    for w in ("P", "Q"):
        writers[w] = (_versions(tmp_path / w, w, w), tmp_path / w / "live" / w,
                      source(tmp_path / w / "fixed" / f"{w}2", f"{w}2", (1, 2)))
    failures: list[str] = []
    reads: list[int] = []
    stop = threading.Event()

    def run(args: list, what: str) -> None:
        r = cli(*args, timeout=120)
        if r.returncode or "Traceback" in r.stderr:
            failures.append(f"{what}: exit {r.returncode}: {r.stderr[-2000:]}")

    def write(w: str) -> None:
        versions, live, fixed = writers[w]
        live.parent.mkdir(parents=True, exist_ok=True)
        for k in range(rounds):
            _put(versions[k % 2], live)
            run(["ingest", live, fixed, "--store", store, "--force", "--wait", "120"], f"writer {w} round {k}")

    def read() -> None:
        k = 0
        while not stop.is_set():
            if not (store / "cocopipe-store.json").exists():
                time.sleep(0.1)
                continue
            run(["runs" if k % 2 else "art", "--store", store, "--out", "-"], f"reader {k}")
            k += 1
        reads.append(k)

    started = time.monotonic()
    threads = [threading.Thread(target=write, args=(w,)) for w in writers]
    reader = threading.Thread(target=read)
    for t in [*threads, reader]:
        t.start()
    for t in threads:
        t.join()
    stop.set()
    reader.join()
    assert not failures, "\n".join(failures)
    assert time.monotonic() - started < 100 and reads[0] >= 3, reads
    assert check(store) == []
    runs = Store(store).runs().collect()
    last = (rounds - 1) % 2
    expected = {"P": 2 if last == 0 else 6, "Q": 2 if last == 0 else 6, "P2": 4, "Q2": 4}
    assert dict(runs.group_by("algorithm").len().rows()) == expected
    keys = runs.select("algorithm", "function", "instance")
    assert keys.n_unique() == keys.height  # no trial twice
    st = Store(store)
    assert sorted(st.sources()) == sorted(str(p.resolve()) for w in writers for p in writers[w][1:])
    assert runs.filter(pl.col("algorithm") == "P")["function"].unique().sort().to_list() == ([1] if last == 0 else [1, 2, 3])
