"""Writers and readers at once on the Delta store (issue 29): no locks and no waiting; concurrent writers
all succeed (the `sources` commit is made again when another came first), readers read a snapshot and see
each source whole or not at all, a write killed (kill -9) at any moment leaves nothing half-visible, and
three writers and two readers in rounds, on a local disk and on an S3 server, lose nothing."""
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
import pytest

from logs import write_new2
from objectstore import s3, s3_server  # noqa: F401 - fixtures
from pipeline.ingest import _parse_all, _source_data, ingest, read_source
from pipeline.store import Store
from pipeline.store import writes
from pipeline.store.check import check
from pipeline.store.store import Conflict, commits_in, open_table


def cli(*args, timeout=180, env=None):
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})})


def source(root: Path, alg: str, functions=(1,), instances=(1, 2)) -> Path:
    """A folder of hand-made logs: one trial per function and instance."""
    for f in functions:
        write_new2(root, alg=alg, function=f, runs=[{"instance": i, "dat": [(1, 5.0 * i), (4, 0.5)]} for i in instances],
                   info_name=f"bbobexp_f{f}.info")
    return root


def staged(st: Store, path: Path):
    """A source's rows appended to the store under a new commit, not yet visible."""
    src = read_source(path)
    return st.stage(_source_data(src, _parse_all(src, None)))


def test_two_writers_committing_at_once_both_succeed(tmp_path):
    """Writer B commits between writer A's staging and A's commit (where the old protocol refused B as
    busy, or lost a source to a stale manifest): A's commit is made again on B's table; both are kept."""
    st_a, st_b = Store(tmp_path / "st", create=True), Store(tmp_path / "st")
    a = staged(st_a, source(tmp_path / "A", "A"))
    r = cli("ingest", source(tmp_path / "B", "B"), "--store", st_a.path)
    assert r.returncode == 0, r.stderr
    assert st_b.runs().collect().height == 0  # B's snapshot was taken before
    st_a.commit(a)
    assert sorted(e["name"] for e in st_a.sources().values()) == ["A", "B"]
    assert Store(st_a.path).runs().collect().height == 4 and check(st_a.path) == []


def test_a_commit_prepared_on_an_older_version_is_refused_with_expect_and_nothing_is_lost(tmp_path):
    """With `expect` (the `sources` version a caller prepared on), a commit that lost the race raises
    Conflict instead of being made again: the caller prepares again; the other writer's source stays."""
    st = Store(tmp_path / "st", create=True)
    version = st.snapshot.version
    a = staged(st, source(tmp_path / "A", "A"))
    ingest([source(tmp_path / "B", "B")], Store(st.path))
    with pytest.raises(Conflict, match="another writer committed"):
        st.commit(a, expect=version)
    assert [e["name"] for e in Store(st.path).sources().values()] == ["B"]
    st.commit(a, expect=Store(st.path).snapshot.version)
    assert sorted(e["name"] for e in Store(st.path).sources().values()) == ["A", "B"]


def test_a_reader_during_a_write_sees_the_store_before_or_after_it(tmp_path):
    st = Store(tmp_path / "st", create=True)
    ingest([source(tmp_path / "A", "A")], st)
    b = staged(st, source(tmp_path / "B", "B", functions=(1, 2)))
    r = cli("runs", "--store", st.path, "--out", "-")
    assert r.returncode == 0 and r.stdout.count("\n") == 1 + 2, r.stderr  # A only: B is staged, not committed
    assert check(st.path) == []  # rows of a write at work are not a problem
    st.commit(b)
    r = cli("runs", "--store", st.path, "--out", "-")
    assert r.returncode == 0 and r.stdout.count("\n") == 1 + 2 + 4


def test_rows_staged_long_ago_by_this_store_are_not_collected_by_its_own_commits(tmp_path, monkeypatch):
    """Sources staged ahead (an ingest with --jobs) wait for the commits before theirs: however long that
    takes (here beyond the grace time), the garbage collection of those commits must not delete them."""
    import pipeline.store.store as mod

    monkeypatch.setattr(mod, "GRACE", 0.5)
    st = Store(tmp_path / "st", create=True)
    a, b = staged(st, source(tmp_path / "A", "A")), staged(st, source(tmp_path / "B", "B"))
    time.sleep(1)
    st.commit(a)
    st.commit(b)
    assert dict(Store(st.path).runs().collect().group_by("algorithm").len().rows()) == {"A": 2, "B": 2}
    assert check(st.path) == []


def test_rows_of_a_write_that_never_committed_are_invisible_then_deleted_past_the_grace_time(tmp_path, monkeypatch):
    import pipeline.store.store as mod

    st = Store(tmp_path / "st", create=True)
    ingest([source(tmp_path / "A", "A")], st)
    other = Store(st.path)
    lost = staged(other, source(tmp_path / "B", "B"))  # by another process, killed before its commit
    writes.release(other.location.uri, other.writer)  # the killed writer's lease: no longer renewed
    assert Store(st.path).runs().collect().height == 2 and check(st.path) == []
    monkeypatch.setattr(mod, "GRACE", 0.0)
    monkeypatch.setattr("pipeline.store.check.GRACE", 0.0)
    assert [(f.kind, f.path) for f in check(st.path)] == [("uncommitted", "runs"), ("uncommitted", "events")]
    for i in range(mod.GARBAGE_EVERY):  # the later writes delete them (one in GARBAGE_EVERY looks for them)
        ingest([source(tmp_path / f"C{i}", f"C{i}")], st)
    assert lost.commit_id not in commits_in(open_table(st.uri("runs")))
    assert not list((st.path / "runs" / writes.WRITES).glob(f"*/{lost.commit_id}"))  # its staged files too
    assert check(st.path) == [] and Store(st.path).runs().collect().height == 2 + 2 * mod.GARBAGE_EVERY


def test_a_commands_first_commit_deletes_the_rows_of_a_write_killed_before_the_stores_first_commit(tmp_path,
                                                                                                   monkeypatch):
    """A new store's first ingest killed between its appends and its commit: the next command's first commit
    (the store's version 1, dropping nothing) deletes those rows once past the grace time (CI found them left)."""
    import pipeline.store.store as mod

    st = Store(tmp_path / "st", create=True)
    lost = staged(st, source(tmp_path / "A", "A"))  # killed before its commit: `sources` at version 0
    writes.release(st.location.uri, st.writer)
    monkeypatch.setattr(mod, "GRACE", 0.0)
    later = Store(st.path)
    ingest([source(tmp_path / "B", "B")], later)
    assert later.snapshot.version == 1
    assert lost.commit_id not in commits_in(open_table(st.uri("runs")))
    assert check(st.path) == [] and Store(st.path).runs().collect()["algorithm"].unique().to_list() == ["B"]


def _versions(tmp_path: Path, name: str, alg: str) -> list[Path]:
    """Two contents of one source: 2 trials on f1, then 6 trials on f1-f3."""
    return [source(tmp_path / "v0" / name, alg, (1,)), source(tmp_path / "v1" / name, alg, (1, 2, 3))]


def _put(version: Path, at: Path) -> None:
    tmp = at.with_name(at.name + ".new")
    shutil.copytree(version, tmp)
    if at.exists():
        shutil.rmtree(at)
    os.replace(tmp, at)


def _kill_loop(tmp_path: Path, store: str, rounds: int, seed: int, env: dict | None = None) -> None:
    """Ingests killed at random moments (reading, staging, committing, collecting): after each, every source
    is whole (one version or the other) or, for a source never committed, absent; check finds nothing."""
    rng = random.Random(seed)
    versions = _versions(tmp_path, "S", "S")
    src, other = tmp_path / "S", source(tmp_path / "T", "T", (1, 2))
    _put(versions[0], src)
    assert cli("ingest", src, other, "--store", store, env=env).returncode == 0
    for k in range(rounds):
        _put(versions[(k + 1) % 2], src)
        p = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "ingest", str(src), str(other), "--force",
                              "--store", str(store)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             env={**os.environ, **(env or {})})
        time.sleep(rng.uniform(0.3, 3.0))
        p.send_signal(signal.SIGKILL)
        p.wait()
        st = Store(store)
        assert check(st) == [], k
        runs = st.runs().collect()
        per = dict(runs.group_by("algorithm").len().rows())
        assert per["T"] == 4 and per["S"] in (2, 6), per
        assert st.events().collect().height == 2 * runs.height  # no run without its records, none twice
        assert runs["run_id"].is_unique().all()


def test_kill_9_at_random_moments_leaves_every_source_whole(tmp_path):
    _kill_loop(tmp_path, str(tmp_path / "st"), 4, 20)


def test_kill_9_at_random_moments_on_the_object_store_leaves_every_source_whole(s3, tmp_path):
    _kill_loop(tmp_path, f"s3://{s3.name}/store", 3, 21)


@pytest.mark.parametrize("where", ["local", "s3"])
def test_three_writers_and_two_readers_in_rounds_lose_nothing(where, s3, tmp_path):
    """Three writer processes ingest their own sources in rounds (each round a changed version of one source,
    `--force` on the other) while two reader processes run `runs` and `art`: no process fails or waits for
    another, every round each reader sees every source whole, and afterwards every run of every source is
    there (issue 29)."""
    rounds = 2
    store = str(tmp_path / "st") if where == "local" else f"s3://{s3.name}/st"
    Store(store, create=True)
    writers = {}
    for w in ("P", "Q", "R"):
        writers[w] = (_versions(tmp_path / w, w, w), tmp_path / w / "live" / w,
                      source(tmp_path / w / "fixed" / f"{w}2", f"{w}2", (1, 2)))
    failures: list[str] = []
    reads: list[tuple[int, set]] = []
    stop = threading.Event()

    def run(args: list, what: str) -> str:
        r = cli(*args, timeout=300)
        if r.returncode or "Traceback" in r.stderr:
            failures.append(f"{what}: exit {r.returncode}: {r.stderr[-2000:]}")
        return r.stdout

    def write(w: str) -> None:
        versions, live, fixed = writers[w]
        live.parent.mkdir(parents=True, exist_ok=True)
        for k in range(rounds):
            _put(versions[k % 2], live)
            run(["ingest", live, fixed, "--store", store, "--force"], f"writer {w} round {k}")

    def read(n: int) -> None:
        k = 0
        while not Store(store).sources() and not stop.is_set():  # an empty store is "no trials", exit 1
            time.sleep(0.1)
        while not stop.is_set():
            if k % 2:
                out = run(["runs", "--store", store, "--out", "-"], f"reader {n} round {k}")
                df = pl.read_csv(out.encode()) if out.strip() else pl.DataFrame({"algorithm": []})
                per = dict(df.group_by("algorithm").len().rows()) if df.height else {}
                for alg, n_runs in per.items():  # each source whole: one version or the other, never a part
                    assert n_runs in ((2, 6) if len(alg) == 1 else (4,)), (alg, n_runs)
                reads.append((k, set(per)))
            else:
                run(["art", "--store", store, "--out", "-"], f"reader {n} round {k}")
            k += 1

    threads = [threading.Thread(target=write, args=(w,)) for w in writers]
    readers = [threading.Thread(target=read, args=(n,)) for n in range(2)]
    for t in [*threads, *readers]:
        t.start()
    for t in threads:
        t.join()
    stop.set()
    for t in readers:
        t.join()
    assert not failures, "\n".join(failures)
    assert reads, "the readers read while the writers wrote"
    st = Store(store)
    assert check(st) == []
    runs = st.runs().collect()
    last = (rounds - 1) % 2
    assert dict(runs.group_by("algorithm").len().rows()) == {**{w: 2 if last == 0 else 6 for w in writers},
                                                           **{f"{w}2": 4 for w in writers}}
    keys = runs.select("algorithm", "function", "instance")
    assert keys.n_unique() == keys.height  # no trial twice
    for table in ("runs", "events"):  # a plain reader of each table (no semi-join) counts the same rows (issue 43)
        count = pl.scan_delta(f"{store}/{table}").select(pl.len()).collect().item()
        assert count == st.scan(table).select(pl.len()).collect().item(), table
    assert sorted(st.sources()) == sorted(str(p.resolve()) for w in writers for p in writers[w][1:])


def test_a_repair_racing_an_ingest_keeps_the_source_ingested_meanwhile(tmp_path, monkeypatch):
    """`check --repair` rewrites the sources table (recounted); an ingest commits a new source just before:
    the rewrite is refused by Delta, made again on the newer table, and the new source is kept with its count
    (prepared on the old table, it was a CommitFailedError traceback, and recounted on stale counts the new
    source would have counted no runs and been removed)."""
    import json

    from pipeline.store.check import repair

    st = Store(tmp_path / "st", create=True)
    ingest([source(tmp_path / "A", "A"), source(tmp_path / "B", "B")], st)
    key_a = next(k for k, e in st.sources().items() if e["name"] == "A")

    def miscount(df: pl.DataFrame) -> pl.DataFrame:
        entries = [json.dumps(dict(json.loads(e), runs=5)) if k == key_a else e for k, e in df.select("key", "entry").rows()]
        return df.with_columns(entry=pl.Series(entries, dtype=df.schema["entry"]))

    st.rewrite_sources(miscount)
    real, raced = Store.rewrite_sources, []

    def racing(self, change):
        def first(df):
            if not raced:  # another process commits a source while this one prepares its commit
                raced.append(ingest([source(tmp_path / "C", "C")], Store(self.path)))
            return change(df)
        return real(self, first)

    monkeypatch.setattr(Store, "rewrite_sources", racing)
    done, left = repair(st.path)
    monkeypatch.undo()
    assert raced and left == [] and done == [f"source {key_a}: 3 runs lost with its files; it now counts 2"], done
    after = Store(st.path)
    assert sorted(e["name"] for e in after.sources().values()) == ["A", "B", "C"]
    assert [e["runs"] for e in after.sources().values()] == [2, 2, 2]
    assert check(after) == [] and after.runs().collect().height == 6


def test_a_table_opened_after_many_commits_reads_at_most_ten_commit_files(tmp_path):
    # every table the store makes is checkpointed every 10 commits (Delta's default: 100): opening one reads
    # its latest checkpoint and the commit files after it, at most ten (on object storage, each is a request)
    st = Store(tmp_path / "store", create=True)
    for i in range(12):
        assert ingest([source(tmp_path / f"S{i}", f"A{i}")], st).runs == 2
    for table in ("sources", "runs", "events"):
        log = tmp_path / "store" / table / "_delta_log"
        assert open_table(str(tmp_path / "store" / table)).metadata().configuration["delta.checkpointInterval"] == "10"
        checkpoints = sorted(int(p.name.split(".")[0]) for p in log.glob("*.checkpoint.parquet"))
        latest = max(int(p.stem) for p in log.glob("*.json"))
        assert checkpoints and latest - checkpoints[-1] <= 10, (table, checkpoints, latest)


def test_an_ingest_stores_its_sources_in_batches_as_one_by_one_would(tmp_path, monkeypatch):
    """Sources of one ingest are committed together, a batch a commit of each table: 12 sources take fewer
    commits than sources, every run is stored once under its own source's commit, and the store reads as
    the one stored a source a commit. A source that may share trials with one waiting (same suite and
    algorithm: here A0 again, with one more function) is stored after it, so that its duplicate check sees it."""
    import pipeline.ingest as ing

    paths = [source(tmp_path / f"S{i}", f"A{i}") for i in range(12)]
    paths.insert(6, source(tmp_path / "again", "A0", functions=(1, 2)))
    batched = Store(tmp_path / "batched", create=True)
    summary = ingest(paths, batched, jobs=2)
    monkeypatch.setattr(ing, "BATCH_SOURCES", 1)
    single = Store(tmp_path / "single", create=True)
    assert ingest(paths, single, jobs=2).sources == summary.sources
    assert [(s.status, s.runs, s.runs_duplicate) for s in summary.sources] == \
        [("ingested", 2, 0)] * 6 + [("ingested", 2, 2)] + [("ingested", 2, 0)] * 6
    assert "identical (same records)" in summary.sources[6].notes[0]
    versions = {name: open_table(st.uri("runs")).version() for name, st in (("batched", batched), ("single", single))}
    assert (versions["batched"], versions["single"]) == (1, 12), versions  # two batches: before A0 again, and from it
    def runs(st: Store) -> pl.DataFrame:
        return st.refresh().runs().collect().drop("run_id", "commit_id", strict=False).sort(pl.all())
    assert runs(batched).equals(runs(single)) and runs(batched).height == 26
    keys = {e["commit_id"]: k for k, e in batched.sources().items()}
    by_commit = Store(batched.path).scan("runs", commits=True).group_by("commit_id").agg(pl.col("algorithm").unique()).collect()
    assert sorted((Path(keys[c]).name, a) for c, a in by_commit.rows()) == \
        sorted([(f"S{i}", [f"A{i}"]) for i in range(12)] + [("again", ["A0"])])
    assert check(batched) == []


def test_a_slow_source_does_not_hold_back_the_outcomes_of_those_before_it(tmp_path, monkeypatch):
    """A's outcome comes (A stored) while SLOW is still parsed: its parse waits for A's outcome, and would
    wait forever if the batch held A until SLOW joined it."""
    import threading

    import pipeline.ingest as ing

    paths = [source(tmp_path / n, n) for n in ("A", "SLOW", "C")]
    reported, parsed = threading.Event(), ing._parsed

    def slow(path, *args, **kwargs):
        if Path(path).name == "SLOW":
            assert reported.wait(30), "A's outcome was held back while SLOW was parsed"
        return parsed(path, *args, **kwargs)

    monkeypatch.setattr(ing, "_parsed", slow)
    monkeypatch.setattr(ing, "BATCH_SECONDS", 0.2)
    names: list[str] = []

    def on_source(outcome):
        names.append(outcome.name)
        if outcome.name == "A":
            assert Store(tmp_path / "st").runs().collect()["algorithm"].to_list() == ["A", "A"]  # stored by then
            reported.set()

    summary = ingest(paths, Store(tmp_path / "st", create=True), jobs=1, on_source=on_source)
    assert names == ["A", "SLOW", "C"] and [s.status for s in summary.sources] == ["ingested"] * 3


def test_an_ingest_that_reads_nothing_never_removes_a_store_another_writer_uses(tmp_path):
    """Two ingests start on a new store at once and one reads nothing (a wrong path): it removes the empty
    store only where it made it itself and nobody wrote to it since, and a writer that found the store and
    lost it meanwhile still commits (its `sources` table made again): the other ingest's source is never lost."""
    from pipeline.commands.ingest import ingest_sources

    where = tmp_path / "st"
    other = Store(where, create=True)  # another process made the store first ...
    assert other.created
    st, _ = ingest_sources([tmp_path / "no-such-logs"], str(where))  # ... this ingest found it, read nothing
    assert st is not None and where.is_dir()  # not removed: not this ingest's
    assert other.untouched()
    shutil.rmtree(where)  # an ingest that made the store and read nothing removed it while the other one parsed
    other.commit(staged(other, source(tmp_path / "A", "A")))
    assert Store(where).runs().collect().height == 2 and check(where) == []
    assert [e["name"] for e in Store(where).sources().values()] == ["A"]
    # an ingest that makes the store and reads nothing removes it while nobody else wrote to it
    gone, _ = ingest_sources([tmp_path / "no-such-logs"], str(tmp_path / "new"))
    assert gone is None and not (tmp_path / "new").exists()
