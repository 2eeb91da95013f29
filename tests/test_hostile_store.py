"""The store at its edges: odd folder names, files lost or added by hand, output aimed inside the store,
a full disk, kills at random moments, readers that hold the store long. Each answer is one line naming
the file (exit 1), or the store read as before."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from logs import write_new2
from pipeline.ingest import ingest
from pipeline.store import Store, StoreError
from pipeline.store.check import check, repair


def cli(*args, cwd=None, timeout=120):
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=timeout)


def source(root: Path, alg: str, functions=(1, 2)) -> Path:
    """Two functions, two instances: evaluations 1 and 4, reaching 5*i then 0.5."""
    for f in functions:
        write_new2(root, alg=alg, function=f, runs=[{"instance": i, "dat": [(1, 5.0 * i), (4, 0.5)]} for i in (1, 2)],
                   info_name=f"bbobexp_f{f}.info")
    return root


def store_at(folder: Path, tmp_path: Path, algs=("A", "B")) -> Store:
    st = Store(folder, create=True)
    ingest([source(tmp_path / "src" / a, a) for a in algs], st)
    return st


def one_line_error(r, *names: str) -> None:
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    lines = r.stderr.strip().splitlines()
    text = " ".join(" ".join(lines).split())
    assert text.startswith("error:") and all(n in text for n in names), r.stderr


# -- 1: a store path is a path, never a glob pattern ---------------------------------------------------
def test_a_store_under_folders_with_glob_characters_reads_as_anywhere(tmp_path):
    plain = store_at(tmp_path / "plain", tmp_path)
    odd = tmp_path / "results [2024]" / "x[" / "a*?{b,c}" / "k=v" / "st"
    shutil.copytree(plain.path, odd)
    for cmd in ("art", "auc"):
        want, got = cli(cmd, "--store", plain.path, "--out", "-"), cli(cmd, "--store", odd, "--out", "-")
        assert got.returncode == 0, got.stderr
        assert got.stdout == want.stdout and got.stdout.count("\n") > 1, (cmd, got.stdout)
    assert Store(odd).runs().collect().height == 8  # 2 algorithms x 2 functions x 2 instances
    assert Store(odd).events().collect().height == 16  # two records per trial


@pytest.mark.parametrize("top", ["runs", "events/suite=bbob", "derived/hits-cocopp-v3"])
def test_a_folder_nested_beyond_the_recursion_limit_inside_the_store_is_named(tmp_path, top):
    """400 levels under a recursion limit of 150 frames more than the test's own: a recursive walk fails."""
    from test_hostile_ingest import _deep, _depth, _remove_deep

    st = store_at(tmp_path / "st", tmp_path, algs=("A",))
    assert cli("auc", "--store", st.path).returncode == 0  # the hits cache exists
    _deep(st.path / top / "d", 400)
    limit = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(_depth() + 150)
        if not top.startswith("derived"):
            with pytest.raises(StoreError, match=f"{top}/d: "):
                Store(st.path).runs().collect()
        found = check(st.path)
        done, _ = repair(st.path)
    finally:
        sys.setrecursionlimit(limit)
        for gone in (st.path / top / "d", st.path / "quarantine" / top / "d"):
            if gone.exists():
                _remove_deep(gone)
    if top.startswith("derived"):  # empty folders beside a cache: harmless, passed over
        assert found == [] and done == [], (found, done)
    else:
        assert [f.path for f in found] == [f"{top}/d"], found
        assert any(line.startswith(f"{top}/d: moved aside to quarantine/{top}/d") for line in done), done
    assert Store(st.path).runs().collect().height == 4


# -- 2: a file the manifest lists and the store lacks -------------------------------------------------------
def test_every_command_names_a_listed_file_that_is_missing(tmp_path):
    st = store_at(tmp_path / "st", tmp_path)
    lost = next((st.path / "events").rglob("algorithm=A/*.parquet"))
    lost.unlink()
    rel = lost.relative_to(st.path).as_posix()
    for args in (["art"], ["ecdf"], ["runs"], ["query", "SELECT count(*) FROM runs"], ["report", "--out", tmp_path / "rep"]):
        one_line_error(cli(*args, "--store", st.path), rel, "missing", "check", "--repair")
    with pytest.raises(StoreError, match="missing"):
        Store(st.path).events().collect()
    repair(st.path)
    assert Store(st.path).runs().collect()["algorithm"].unique().to_list() == ["B"]


def test_a_file_dropped_into_a_table_folder_is_named_not_read(tmp_path):
    st = store_at(tmp_path / "st", tmp_path)
    stray = st.path / "runs" / "notes.txt"
    stray.write_text("mine")
    one_line_error(cli("art", "--store", st.path), "runs/notes.txt", "not a file of the store")
    assert [f.kind for f in check(st.path)] == ["foreign"]


def test_a_manifest_deleted_by_hand_is_named_and_rebuilt_by_repair(tmp_path):
    st = store_at(tmp_path / "st", tmp_path)
    want = Store(st.path).runs().collect().sort("run_id")
    (st.path / "cocopipe-store.json").unlink()
    for cmd in (("art",), ("ingest", tmp_path / "src" / "A")):
        one_line_error(cli(*cmd, "--store", st.path), "cocopipe-store.json", "missing beside the store's files",
                       "--repair")
    assert [(f.kind, f.path) for f in check(st.path)] == [("manifest", "cocopipe-store.json")]
    r = cli("check", "--store", st.path, "--repair")
    assert r.returncode == 0 and "cocopipe-store.json: rebuilt from the files" in r.stdout, r.stdout + r.stderr
    assert check(st.path) == [] and Store(st.path).runs().collect().sort("run_id").equals(want)


def test_a_fifo_as_manifest_or_as_a_parquet_file_never_blocks_check_or_repair(tmp_path):
    import os

    st = store_at(tmp_path / "st", tmp_path)
    want = Store(st.path).runs().collect().sort("run_id")
    (st.path / "cocopipe-store.json").unlink()
    os.mkfifo(st.path / "cocopipe-store.json")
    one_line_error(cli("art", "--store", st.path, timeout=30), "cocopipe-store.json", "not a regular file", "--repair")
    r = cli("check", "--store", st.path, timeout=30)
    assert r.returncode == 1 and "manifest: " in r.stdout and "not a regular file" in r.stdout, r.stdout
    assert cli("check", "--store", st.path, "--repair", timeout=30).returncode == 0
    fifo = next((st.path / "runs").rglob("*.parquet")).with_name("x.parquet")
    os.mkfifo(fifo)
    r = cli("check", "--store", st.path, timeout=30)
    assert r.returncode == 1 and f"corrupt: {st.path}/{fifo.relative_to(st.path).as_posix()}: not a regular file" \
        in r.stdout, r.stdout
    r = cli("check", "--store", st.path, "--repair", timeout=30)
    assert r.returncode == 0 and "moved aside to quarantine/" in r.stdout, r.stdout
    assert check(st.path) == [] and Store(st.path).runs().collect().sort("run_id").equals(want)


# -- 16: a manifest of wrong types ---------------------------------------------------------------------
@pytest.mark.parametrize("field, value, named", [
    ("runs", "many", "sources.KEY.runs"), ("files", [3], "sources.KEY.files[0]")])
def test_a_manifest_field_of_the_wrong_type_is_named(tmp_path, field, value, named):
    st = store_at(tmp_path / "st", tmp_path, algs=("A",))
    m = json.loads((st.path / "cocopipe-store.json").read_text())
    key = next(iter(m["sources"]))
    m["sources"][key][field] = value
    (st.path / "cocopipe-store.json").write_text(json.dumps(m))
    named = named.replace("KEY", key)
    for args in (["check"], ["art"], ["ingest", tmp_path / "src" / "A"]):
        r = cli(*args, "--store", st.path)
        assert r.returncode == 1 and "Traceback" not in r.stderr and named in r.stdout + r.stderr, (args, r.stdout,
                                                                                                  r.stderr)
    r = cli("check", "--store", st.path, "--repair")
    assert r.returncode == 0, r.stdout + r.stderr
    assert Store(st.path).runs().collect().height == 4


# -- 9: repair never deletes what the store did not write ------------------------------------------------
def test_repair_moves_a_users_files_aside_and_names_them(tmp_path):
    import polars as pl

    st = store_at(tmp_path / "st", tmp_path)
    part = next((st.path / "runs").rglob("algorithm=A"))
    pl.DataFrame({"x": [1, 2]}).write_parquet(part / "mine.parquet")
    (st.path / "events" / "notes.txt").write_text("mine too")
    mine = (part / "mine.parquet").read_bytes()
    r = cli("check", "--store", st.path, "--repair")
    assert r.returncode == 0, r.stdout + r.stderr
    text = " ".join(r.stdout.split())
    rel = (part / "mine.parquet").relative_to(st.path).as_posix()
    assert f"{rel}: moved aside to quarantine/{rel}" in text and "deleted" not in text, text
    assert "events/notes.txt: moved aside to quarantine/events/notes.txt" in text, text
    assert (st.path / "quarantine" / rel).read_bytes() == mine
    assert (st.path / "quarantine" / "events" / "notes.txt").read_text() == "mine too"
    assert check(st.path) == [] and Store(st.path).runs().collect().height == 8


def test_repair_still_deletes_the_stores_own_unreadable_file(tmp_path):
    st = store_at(tmp_path / "st", tmp_path)
    bad = next((st.path / "events").rglob("algorithm=A/*.parquet"))
    bad.write_bytes(bad.read_bytes()[:100])
    done, left = repair(st.path)
    assert any(line.startswith(f"{bad.relative_to(st.path).as_posix()}: deleted") for line in done), done
    assert left == [] and not (st.path / "quarantine").exists()


# -- 11, 16: where a report goes, checked before the work ----------------------------------------------------
def test_a_report_inside_the_store_or_holding_it_is_refused_before_the_work(tmp_path):
    st = store_at(tmp_path / "st", tmp_path, algs=("A",))
    for out, said in ((st.path / "runs" / "rep", "inside the store"), (st.path, "inside the store"),
                      (tmp_path, "holds the store")):
        one_line_error(cli("report", "--store", st.path, "--out", out, "--force"), str(out), said)
    assert check(st.path) == [] and not (st.path / "runs" / "rep").exists()
    assert Store(st.path).runs().collect().height == 4


@pytest.mark.parametrize("args", [("art",), ("runs",), ("ecdf",), ("query", "SELECT 1 AS a"),
                                  ("table", "-f", "1"), ("chart", "ecdf"), ("reference", "build", "-n", "R")])
def test_a_file_written_inside_the_store_is_refused_and_the_store_still_reads(tmp_path, args):
    st = store_at(tmp_path / "st", tmp_path, algs=("A",))
    out = st.path / "runs" / ("x.html" if args[0] == "chart" else "x.csv")
    one_line_error(cli(*args, "--store", st.path, "--out", out), str(out), "inside the store")
    assert not out.exists() and check(st.path) == []
    assert Store(st.path).runs().collect().height == 4


def test_a_report_replacing_a_folder_nested_beyond_the_recursion_limit_removes_it(tmp_path):
    """--force over a folder of 400 levels holding a file, under a recursion limit of 150 frames more than
    the test's own: the old folder is checked and removed without recursion."""
    from pipeline.report.build import _replace_dir
    from pipeline.report.settings import SettingsError
    from test_hostile_ingest import _deep, _depth

    out, new = tmp_path / "rep", tmp_path / "new"
    (_deep(out, 400) / "mine.txt").write_text("mine")
    new.mkdir()
    (new / "index.html").write_text("report")
    limit = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(_depth() + 150)
        with pytest.raises(SettingsError, match="rep"):
            _replace_dir(new, out)  # a folder the user filled: refused without --force
        _replace_dir(new, out, force=True)
    finally:
        sys.setrecursionlimit(limit)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rep"]
    assert sorted(p.name for p in out.iterdir()) == [".cocopipe-report.json", "index.html"]


def test_the_current_folder_as_out_is_refused_before_the_work(tmp_path):
    st = store_at(tmp_path / "st", tmp_path, algs=("A",))
    (tmp_path / "here").mkdir()
    for out in (".", "..", str((tmp_path / "here").resolve())):
        one_line_error(cli("report", "--store", st.path, "--out", out, "--force", cwd=tmp_path / "here"),
                       out, "folder of its own")
    assert list((tmp_path / "here").iterdir()) == []


def test_settings_naming_a_fifo_is_one_line_never_read(tmp_path):
    import os

    st = store_at(tmp_path / "st", tmp_path, algs=("A",))
    os.mkfifo(tmp_path / "settings.json")
    one_line_error(cli("report", "--store", st.path, "--out", tmp_path / "rep", "--settings",
                       tmp_path / "settings.json", timeout=30), "settings.json", "not a regular file")


def test_settings_naming_a_folder_is_one_line(tmp_path):
    st = store_at(tmp_path / "st", tmp_path, algs=("A",))
    one_line_error(cli("report", "--store", st.path, "--out", tmp_path / "rep", "--settings", tmp_path),
                   str(tmp_path), "a folder, not a settings file")


@pytest.fixture
def locked():
    """A store and a read-only folder `locked` beside it, outside pytest's private tmp folders, and the
    command prefix that makes root obey the folder's mode (setpriv without the DAC capabilities)."""
    import os
    import tempfile

    base = Path(tempfile.mkdtemp(prefix="cocopipe-ro-"))
    try:
        st = store_at(base / "st", base, algs=("A",))
        (base / "locked").mkdir()
        os.chmod(base / "locked", 0o555)
        prefix: tuple[str, ...] = ()
        if os.geteuid() == 0:
            if not shutil.which("setpriv"):
                pytest.skip("root without setpriv: cannot make a folder read-only")
            prefix = ("setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner", "--")
        yield st, base / "locked", prefix
    finally:
        os.chmod(base / "locked", 0o755)
        shutil.rmtree(base)


def test_a_report_under_a_read_only_folder_is_refused_before_the_work(locked):
    st, folder, prefix = locked
    r = subprocess.run([*prefix, sys.executable, "-m", "pipeline.cli", "report", "--store", str(st.path),
                        "--out", str(folder / "new" / "rep")], capture_output=True, text=True, timeout=120)
    one_line_error(r, str(folder), "cannot write the report there")


@pytest.mark.parametrize("args", [("art", "--out"), ("chart", "ecdf", "--out"), ("table", "--out"),
                                  ("export", "--out")])
def test_a_file_under_a_read_only_folder_is_one_line(args, locked):
    st, folder, prefix = locked
    out = folder / ("x.html" if args[0] == "chart" else "x.md" if args[0] == "table" else "x.csv")
    r = subprocess.run([*prefix, sys.executable, "-m", "pipeline.cli", *args, str(out), "--store", str(st.path)],
                       capture_output=True, text=True, timeout=120)
    one_line_error(r, str(out))
    assert "ermission denied" in r.stderr or "cannot write" in r.stderr, r.stderr


# -- 16: a full disk during an ingest ----------------------------------------------------------------------
FULL_DISK = """
import resource, signal, sys
from pipeline.cli import main
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG, as on a full disk
resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv.pop(1)),) * 2)
sys.argv[0] = "cocopipe"
main()
"""


def test_a_full_disk_during_an_ingest_is_one_line_and_leaves_the_store_as_it_was(tmp_path):
    st = store_at(tmp_path / "st", tmp_path, algs=("A",))
    before = Store(st.path).runs().collect().sort("run_id")
    manifest = (st.path / "cocopipe-store.json").read_text()
    big = source(tmp_path / "src" / "B", "B", functions=range(1, 25))
    r = subprocess.run([sys.executable, "-c", FULL_DISK, "1500", "ingest", big, "--store", st.path],
                       capture_output=True, text=True, timeout=120)
    one_line_error(r, str(st.path), "cannot write to the store", "left as it was")
    assert (st.path / "cocopipe-store.json").read_text() == manifest
    assert check(st.path) == [] and sorted(p.name for p in st.path.iterdir() if p.name.startswith(".")) == [
        ".cocopipe-read.lock", ".cocopipe-write.lock"]
    assert Store(st.path).runs().collect().sort("run_id").equals(before)
    assert cli("ingest", big, "--store", st.path).returncode == 0  # with room again


@pytest.mark.parametrize("args", [("art", "--out", "a.csv"), ("chart", "ecdf", "--out", "c.html"),
                                  ("table", "--out", "t.md"), ("table", "--out", "t.csv"), ("export", "--out", "e"),
                                  ("report", "--out", "r")])
def test_a_full_disk_writing_an_output_is_one_line_and_leaves_nothing_half_written(tmp_path, args):
    st = store_at(tmp_path / "st", tmp_path, algs=("A",))
    assert cli("auc", "--store", st.path).returncode == 0  # the hits cache exists: only the output is written
    (tmp_path / "out").mkdir()
    r = subprocess.run([sys.executable, "-c", FULL_DISK, "300", *args, "--store", st.path], capture_output=True,
                       text=True, timeout=120, cwd=tmp_path / "out")
    one_line_error(r, args[-1], "cannot write")
    assert list((tmp_path / "out").iterdir()) == []
    assert check(st.path) == []


# -- 17: a folder holding the store ------------------------------------------------------------------------
def test_ingesting_a_folder_that_holds_the_store_twice_is_unchanged(tmp_path):
    logs = source(tmp_path / "logs", "A")
    first = cli("ingest", logs, "--store", logs / "st")
    assert first.returncode == 0, first.stderr
    second = cli("ingest", logs, "--store", logs / "st")
    assert second.returncode == 0 and "unchanged" in second.stderr + second.stdout, second.stderr
    assert Store(logs / "st").runs().collect().height == 4


# -- 17: a reader that holds the store long --------------------------------------------------------------
def test_a_commit_waits_for_a_long_reader_as_long_as_told_and_names_it(tmp_path):
    import os
    import time

    st = store_at(tmp_path / "st", tmp_path, algs=("A",))
    manifest = (st.path / "cocopipe-store.json").read_text()
    with Store(st.path).reading():
        started = time.monotonic()
        r = cli("ingest", source(tmp_path / "src" / "B", "B"), "--store", st.path, "--wait", "1")
        assert time.monotonic() - started < 30
        said, last = r.stderr.strip().splitlines()  # what it waits for, then why it stopped
        assert f"waiting for pid {os.getpid()}" in said and r.returncode == 1, r.stderr
        assert last.startswith("error:") and all(n in last for n in (str(st.path), "being read by",
                                                                     f"pid {os.getpid()}", "--wait")), r.stderr
        assert (st.path / "cocopipe-store.json").read_text() == manifest
        assert not [p for p in st.path.iterdir() if p.name.startswith(".stage")]
    assert cli("ingest", tmp_path / "src" / "B", "--store", st.path).returncode == 0
    assert Store(st.path).runs().collect().height == 8


# -- 17: kill -9 at random moments ---------------------------------------------------------------------------
def _killed(args: list, at: float) -> None:
    """Run a cocopipe command and kill -9 it `at` seconds after its start (or let it end first)."""
    import signal
    import time

    p = subprocess.Popen([sys.executable, "-m", "pipeline.cli", *map(str, args)], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    time.sleep(at)
    p.send_signal(signal.SIGKILL)
    p.wait(timeout=60)


def _duration(args: list) -> float:
    import time

    started = time.monotonic()
    r = cli(*args)
    assert r.returncode == 0, r.stderr
    return time.monotonic() - started


def test_kill_9_during_biobj_recompute_leaves_the_earlier_table_or_the_new_one(tmp_path):
    import random

    from pipeline.biobj.recompute import NAME
    from test_biobj_ingest import write_biobj

    rng = random.Random(17)
    import polars as pl

    from pipeline.biobj.points import problem_points

    exp = write_biobj(tmp_path / "exp", {i: [f"{e}\t{1 + 1 / e}\t{1 + e / 9}\t0\t0" for e in range(1, 9)]
                                         for i in range(1, 6)})
    names = problem_points(pl.DataFrame({"suite": ["bbob-biobj"] * 5, "function": [1] * 5, "dimension": [2] * 5,
                                         "instance": list(range(1, 6))})).sort("instance")["problem"]
    for adat in (exp / "archive").iterdir():  # the two problems coco-experiment names for each instance
        i = int(adat.name.split("_i")[1][:2])
        adat.write_text("".join(line.split(", name = ")[0] + f", name = {names[i - 1]}\n"
                                if line.startswith("% instance") else line for line in adat.open()))
    st = Store(tmp_path / "st", create=True)
    ingest([exp], st)
    took = _duration(["biobj", "recompute", "--store", st.path])
    whole = Store(st.path).scan_derived(NAME).collect().sort("run_id", "evaluations")
    assert whole.height > 0
    for k in range(4):
        if k % 2 and NAME in Store(st.path).derived():  # from no table as well as over an earlier one
            Store(st.path).remove_derived(NAME)
        _killed(["biobj", "recompute", "--store", st.path], rng.uniform(0.3, 1.0) * took)
        after = Store(st.path)  # opening finishes or rolls back
        assert check(st.path) == [], k
        if NAME in after.derived():
            assert after.scan_derived(NAME).collect().sort("run_id", "evaluations").equals(whole), k
        assert after.events().collect().height == 5 * 2  # the logged indicator, untouched


def test_kill_9_during_an_ingest_leaves_a_readable_store_or_none(tmp_path):
    import random

    rng = random.Random(9)
    a, b = source(tmp_path / "src" / "A", "A", functions=range(1, 7)), source(tmp_path / "src" / "B", "B")
    took = _duration(["ingest", a, b, "--store", tmp_path / "timed"])
    for k in range(4):
        store = tmp_path / f"st{k // 2}"  # a new store, then one with the sources in it already
        _killed(["ingest", a, b, "--store", store, "--force"], rng.uniform(0.3, 1.0) * took)
        if not (store / "cocopipe-store.json").exists():
            continue
        st = Store(store)
        assert check(store) == [], k
        per = dict(st.runs().collect().group_by("algorithm").len().rows())
        assert per in ({}, {"A": 12}, {"A": 12, "B": 4}), per
        assert cli("art", "--store", store).returncode == (0 if per else 1)  # 1: "holds no trials"


def test_kill_9_during_a_repair_leaves_the_store_before_or_after_it(tmp_path):
    import random

    import polars as pl

    rng = random.Random(1)
    st = store_at(tmp_path / "st", tmp_path, algs=("A", "B", "C"))
    pl.DataFrame({"x": [1]}).write_parquet(next((st.path / "runs").rglob("algorithm=B")) / "mine.parquet")
    bad = next((st.path / "events").rglob("algorithm=A/*.parquet"))
    bad.write_bytes(bad.read_bytes()[:100])
    damaged = tmp_path / "damaged"
    shutil.copytree(st.path, damaged)
    shutil.copytree(damaged, tmp_path / "timed")
    took = _duration(["check", "--store", tmp_path / "timed", "--repair"])
    want = Store(tmp_path / "timed").runs().collect().sort("run_id")
    assert sorted(want["algorithm"].unique()) == ["B", "C"]
    for k in range(3):
        shutil.rmtree(st.path)
        shutil.copytree(damaged, st.path)
        before = (st.path / "cocopipe-store.json").read_text()
        _killed(["check", "--store", st.path, "--repair"], rng.uniform(0.3, 1.0) * took)
        Store(st.path)  # opening finishes or rolls back
        if (st.path / "cocopipe-store.json").read_text() != before:  # repaired: wholly
            assert check(st.path) == [], k
            assert Store(st.path).runs().collect().sort("run_id").equals(want), k
        r = cli("check", "--store", st.path, "--repair")
        assert r.returncode == 0 and Store(st.path).runs().collect().sort("run_id").equals(want), r.stdout
        assert list((st.path / "quarantine").rglob("mine.parquet")), k  # never deleted


def test_a_table_or_an_export_that_cannot_be_written_is_one_line(tmp_path):
    st = store_at(tmp_path / "st", tmp_path, algs=("A",))
    (tmp_path / "file").write_text("not a folder")
    one_line_error(cli("art", "--store", st.path, "--out", tmp_path / "file" / "art.csv"), "art.csv", "cannot write")
    one_line_error(cli("export", "--store", st.path, "--out", st.path / "runs" / "exp"), "inside the store")
    assert check(st.path) == []
