"""The store at its edges: odd folder names, files lost or added by hand, output aimed inside the store,
a full disk, kills at random moments, readers that hold the store long. Each answer is one line naming
the file (exit 1), or the store read as before."""
from __future__ import annotations

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


# -- 1: a store path is a path, never a glob pattern, whatever its characters -------------------------
ODD = ("results (2024) é", "x*", "a?{b,c}#", "k=v", "st")


def test_a_store_under_folders_with_glob_and_odd_characters_reads_as_anywhere(tmp_path):
    """delta-rs percent-encodes the folder in its file URIs (`results%20(2024)%20%C3%A9`) and Polars' own
    reader takes `k=v` for a partition: neither may make the files of such a store missing."""
    plain = store_at(tmp_path / "plain", tmp_path)
    odd = tmp_path.joinpath(*ODD)
    shutil.copytree(plain.path, odd)
    for cmd in ("art", "auc", "runs"):
        want, got = cli(cmd, "--store", plain.path, "--out", "-"), cli(cmd, "--store", odd, "--out", "-")
        assert got.returncode == 0, got.stderr
        assert got.stdout == want.stdout and got.stdout.count("\n") > 1, (cmd, got.stdout)
    assert Store(odd).runs().collect().height == 8  # 2 algorithms x 2 functions x 2 instances
    assert Store(odd).events().collect().height == 16  # two records per trial
    assert check(odd) == []
    # written there too: an ingest, a replacement (the old rows deleted), a damaged file repaired
    fresh = tmp_path.joinpath(*ODD[:-1], "new")
    r = cli("ingest", tmp_path / "src" / "A", "--store", fresh)
    assert r.returncode == 0, r.stderr
    source(tmp_path / "src" / "A", "A", functions=(3,))
    assert cli("ingest", tmp_path / "src" / "A", "--store", fresh).returncode == 0
    assert Store(fresh).runs().collect().height == 6 and check(fresh) == []
    from pipeline.store.store import file_paths

    lost = Path(file_paths(Store(fresh).snapshot.tables["events"])[0])  # a file the table lists (not a replaced one)
    lost.unlink()
    one_line_error(cli("art", "--store", fresh), lost.name, "missing", "--repair")
    assert [f.kind for f in check(fresh)] == ["missing"]
    assert cli("check", "--store", fresh, "--repair").returncode == 0 and check(fresh) == []


@pytest.mark.parametrize("name", ["results [2024]", "a|b", "x^y", "back\\slash", "pct%41"])
def test_a_store_path_delta_rs_cannot_use_is_one_line_and_creates_nothing(tmp_path, name):
    """delta-rs panics on `[ ] ^ |`, refuses a backslash and decodes `%41` (writing into another folder):
    refused before anything is written, naming the store and the character."""
    store = tmp_path / name / "st"
    src = source(tmp_path / "src" / "A", "A")
    for args in (("ingest", src), ("art",), ("check",)):
        one_line_error(cli(*args, "--store", store), str(store), "delta-rs")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["src"]


@pytest.mark.parametrize("top", ["runs", "events/suite=bbob", "events/_writes/w", "_cache/hits-cocopp-v3"])
def test_a_folder_nested_beyond_the_recursion_limit_inside_the_store_is_harmless(tmp_path, top):
    """400 levels under a recursion limit of 150 frames more than the test's own: the store lists its files
    in its logs and never walks its folders, so reading, check and repair neither fail nor touch it."""
    from test_hostile_ingest import _deep, _depth, _remove_deep

    st = store_at(tmp_path / "st", tmp_path, algs=("A",))
    assert cli("auc", "--store", st.path).returncode == 0  # the hits cache exists
    (st.path / top).mkdir(parents=True, exist_ok=True)  # partition folders lie under each write's folder
    _deep(st.path / top / "d", 400)
    limit = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(_depth() + 150)
        height = Store(st.path).runs().collect().height
        found = check(st.path)
        done, left = repair(st.path)
        there = (st.path / top / "d" / "d").is_dir()
    finally:
        sys.setrecursionlimit(limit)
        _remove_deep(st.path / top / "d")
    assert height == 4 and found == [] and done == [] and left == [] and there


# -- 2: a file the tables list and the store lacks, files added by hand ---------------------------------
def test_every_command_names_a_listed_file_that_is_missing(tmp_path):
    st = store_at(tmp_path / "st", tmp_path)
    lost = next((st.path / "events").rglob("algorithm=A/*.parquet"))
    lost.unlink()
    rel = lost.relative_to(st.path).as_posix()
    for args in (["art"], ["ecdf"], ["runs"], ["query", "SELECT count(*) FROM runs"], ["report", "--out", tmp_path / "rep"]):
        one_line_error(cli(*args, "--store", st.path), rel, "missing", "check", "--repair")
    again = tmp_path / "again"  # re-ingesting the source restores it, as the error says
    shutil.copytree(st.path, again)
    r = cli("ingest", tmp_path / "src" / "A", "--force", "--store", again)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert Store(again).events().collect().height == 16 and cli("art", "--store", again).returncode == 0
    with pytest.raises(StoreError, match="missing"):
        Store(st.path).events().collect()
    r = cli("check", "--store", st.path)
    assert r.returncode == 1 and f"missing: {st.path}/{rel}: missing" in r.stdout, r.stdout
    done, left = repair(st.path)
    assert left == [] and any(line.startswith(f"{rel}: missing") for line in done), done
    st = Store(st.path)
    assert st.events().collect()["algorithm"].unique().to_list() == ["B"]  # what was readable is kept
    assert st.runs().collect().height == 8 and cli("art", "--store", st.path).returncode == 0


def test_files_dropped_into_the_store_by_hand_are_never_read_nor_deleted(tmp_path):
    """A table is what its log lists: a user's Parquet file of other columns in a partition folder, a text
    file, are not read (the answers are those of the store without them), and check --repair leaves them."""
    import polars as pl

    st = store_at(tmp_path / "st", tmp_path)
    want = cli("art", "--store", st.path, "--out", "-").stdout
    part = next((st.path / "runs").rglob("algorithm=A"))
    pl.DataFrame({"x": [1, 2]}).write_parquet(part / "mine.parquet")
    (st.path / "events" / "notes.txt").write_text("mine too")
    mine = (part / "mine.parquet").read_bytes()
    got = cli("art", "--store", st.path, "--out", "-")
    assert got.returncode == 0 and got.stdout == want, got.stderr
    r = cli("check", "--store", st.path, "--repair")
    assert r.returncode == 0 and "deleted" not in r.stdout, r.stdout + r.stderr
    assert (part / "mine.parquet").read_bytes() == mine and (st.path / "events" / "notes.txt").read_text() == "mine too"
    assert check(st.path) == [] and Store(st.path).runs().collect().height == 8


def test_a_fifo_in_place_of_a_listed_file_never_blocks_check_or_repair(tmp_path):
    import os

    st = store_at(tmp_path / "st", tmp_path)
    f = next((st.path / "runs").rglob("algorithm=A/*.parquet"))
    rel = f.relative_to(st.path).as_posix()
    f.unlink()
    os.mkfifo(f)
    one_line_error(cli("art", "--store", st.path, timeout=90), rel, "--repair")
    r = cli("check", "--store", st.path, timeout=90)
    assert r.returncode == 1 and f"{rel}: not a regular file" in r.stdout, r.stdout
    r = cli("check", "--store", st.path, "--repair", timeout=90)
    assert r.returncode == 0 and f"moved to quarantine/{rel}" in " ".join(r.stdout.split()), r.stdout
    assert check(st.path) == [] and Store(st.path).runs().collect()["algorithm"].unique().to_list() == ["B"]


def test_a_damaged_commit_of_the_sources_table_is_one_line_naming_the_store(tmp_path):
    """The point of visibility cut short by hand (a truncated last log entry of `sources`): every command
    says so in one line naming the store, never a traceback."""
    st = store_at(tmp_path / "st", tmp_path)
    last = sorted((st.path / "sources" / "_delta_log").glob("*.json"))[-1]
    last.write_bytes(last.read_bytes()[:40])
    for args in (("art",), ("runs",), ("ingest", tmp_path / "src" / "A", "--force")):
        one_line_error(cli(*args, "--store", st.path), str(st.path))
    r = cli("check", "--store", st.path)  # check names the file (issue 43)
    assert r.returncode == 1 and f"log: {st.path}/sources/_delta_log/{last.name}: damaged commit file" in r.stdout


def test_repair_moves_the_stores_own_unreadable_file_to_quarantine(tmp_path):
    st = store_at(tmp_path / "st", tmp_path)
    bad = next((st.path / "events").rglob("algorithm=A/*.parquet"))
    cut = bad.read_bytes()[:100]
    bad.write_bytes(cut)
    rel = bad.relative_to(st.path).as_posix()
    assert [(f.kind, f.path) for f in check(st.path)] == [("corrupt", rel)]
    done, left = repair(st.path)
    assert any(line.startswith(f"{rel}: unreadable") and f"moved to quarantine/{rel}" in line for line in done), done
    assert left == [] and (st.path / "quarantine" / rel).read_bytes() == cut  # kept, out of the store
    assert Store(st.path).events().collect()["algorithm"].unique().to_list() == ["B"]


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
                       tmp_path / "settings.json", timeout=90), "settings.json", "not a regular file")


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


def _versions(store: Path) -> dict[str, int]:
    """The latest version of each Delta table of a store (what a commit changes)."""
    return {p.parent.relative_to(store).as_posix(): max(int(f.stem) for f in p.glob("*.json"))
            for p in store.rglob("_delta_log")}


def test_a_full_disk_during_an_ingest_is_one_line_and_leaves_the_store_as_it_was(tmp_path):
    st = store_at(tmp_path / "st", tmp_path, algs=("A",))
    before = Store(st.path).runs().collect().sort("run_id")
    versions = _versions(st.path)
    big = source(tmp_path / "src" / "B", "B", functions=range(1, 25))
    r = subprocess.run([sys.executable, "-c", FULL_DISK, "1500", "ingest", big, "--store", st.path],
                       capture_output=True, text=True, timeout=120)
    # delta-rs's I/O thread panics on the write past the limit and Rust prints that on stderr before the
    # error comes back to Python as an exception: that line is delta-rs's, the one-line error ours
    assert "Traceback" not in r.stderr and "error:" in r.stderr, r.stderr
    r.stderr = r.stderr[r.stderr.index("error:"):]
    one_line_error(r, str(st.path), "cannot write to the store", "left as it was")
    assert _versions(st.path)["sources"] == versions["sources"]  # nothing committed
    assert check(st.path) == [] and Store(st.path).runs().collect().sort("run_id").equals(before)
    assert cli("ingest", big, "--store", st.path).returncode == 0  # with room again
    assert Store(st.path).runs().collect().height == 4 + 24 * 2


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


# -- 17: a reader that holds the store long: snapshots, no waiting --------------------------------------------
def test_a_reader_holding_a_snapshot_never_holds_a_writer_and_reads_what_it_opened(tmp_path):
    """The old protocol made a writer wait for a slow reader (issue 29: "a slow reader holds a writer
    forever"): now a writer commits at once, and the reader's snapshot still reads the store as it opened it."""
    import time

    st = store_at(tmp_path / "st", tmp_path, algs=("A",))
    reader = Store(st.path)
    lazy = reader.runs()  # a query prepared, not run yet
    started = time.monotonic()
    r = cli("ingest", source(tmp_path / "src" / "B", "B"), tmp_path / "src" / "A", "--force", "--store", st.path)
    assert r.returncode == 0 and time.monotonic() - started < 60, r.stderr
    assert lazy.collect().height == 4 and reader.runs().collect().height == 4  # what it opened
    assert sorted(reader.runs().collect()["algorithm"].unique()) == ["A"]
    assert reader.refresh().runs().collect().height == 8  # a newer snapshot sees the write
    assert check(st.path) == []


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


def _commits(store: Path, name: str) -> set[str]:
    """The commit ids whose rows a data table of the store holds (visible or not)."""
    from pipeline.store.store import commits_in, open_table

    dt = open_table(str(store / name))
    return commits_in(dt) if dt is not None else set()


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
    for k in range(3):
        if k % 2 and NAME in Store(st.path).derived():  # from no table as well as over an earlier one
            Store(st.path).remove_derived(NAME)
        _killed(["biobj", "recompute", "--store", st.path], rng.uniform(0.3, 1.0) * took)
        after = Store(st.path)
        assert check(after) == [], k
        if NAME in after.derived():  # whole, or not there: never the 1650 of 2475 runs of issue 29
            assert after.scan_derived(NAME).collect().sort("run_id", "evaluations").equals(whole), k
        assert after.events().collect().height == 5 * 2  # the logged indicator, untouched
    r = cli("biobj", "recompute", "--store", st.path)  # and the next one completes over what the kills left
    assert r.returncode == 0, r.stderr
    assert Store(st.path).scan_derived(NAME).collect().sort("run_id", "evaluations").equals(whole)


def test_kill_9_during_an_ingest_leaves_a_readable_store_with_each_source_whole_or_absent(tmp_path, monkeypatch):
    """Kills at random moments of a new store's first ingest and of re-ingests: the store opens, check finds
    nothing (rows of a killed write are invisible), each source is whole or absent, and the rows the kills
    left are deleted by the next write once past the grace time."""
    import random

    rng = random.Random(9)
    a, b = source(tmp_path / "src" / "A", "A", functions=range(1, 7)), source(tmp_path / "src" / "B", "B")
    took = _duration(["ingest", a, b, "--store", tmp_path / "timed"])
    for k in range(3):
        store = tmp_path / f"st{k // 2}"  # a new store, then one with the sources in it already
        _killed(["ingest", a, b, "--store", store, "--force"], rng.uniform(0.2, 1.0) * took)
        if not (store / "sources" / "_delta_log").is_dir():
            assert not store.exists() or not any(store.iterdir()) or cli("check", "--store", store).returncode == 1
            continue
        st = Store(store)
        assert check(st) == [], k
        per = dict(st.runs().collect().group_by("algorithm").len().rows())
        assert per in ({}, {"A": 12}, {"A": 12, "B": 4}), per
        assert st.events().collect().height == 2 * sum(per.values())
        assert cli("art", "--store", store).returncode == (0 if per else 1)  # 1: "holds no trials"
    import time

    monkeypatch.setenv("COCOPIPE_ORPHAN_GRACE", "2")
    time.sleep(2.5)  # the killed writes' rows are past the grace time now; the new ones are not
    for store in (tmp_path / "st0", tmp_path / "st1"):
        r = cli("ingest", a, b, "--store", store, "--force")
        assert r.returncode == 0, r.stderr
        st = Store(store)
        named = {e["commit_id"] for e in st.sources().values()}
        assert _commits(store, "runs") == named and _commits(store, "events") == named  # nothing left behind
        assert dict(st.runs().collect().group_by("algorithm").len().rows()) == {"A": 12, "B": 4}


def test_kill_9_during_a_repair_leaves_the_store_before_or_after_it(tmp_path):
    import random

    import polars as pl

    rng = random.Random(1)
    st = store_at(tmp_path / "st", tmp_path, algs=("A", "B", "C"))
    pl.DataFrame({"x": [1]}).write_parquet(next((st.path / "runs").rglob("algorithm=B")) / "mine.parquet")
    bad = next((st.path / "runs").rglob("algorithm=A/*.parquet"))
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
        _killed(["check", "--store", st.path, "--repair"], rng.uniform(0.2, 1.0) * took)
        found = check(st.path)
        if not found:  # repaired: wholly
            assert Store(st.path).runs().collect().sort("run_id").equals(want), k
        else:  # the damage, named: never a store half repaired that reads as whole
            assert {f.kind for f in found} <= {"corrupt", "missing", "count"}, found
        r = cli("check", "--store", st.path, "--repair")
        assert r.returncode == 0, r.stdout + r.stderr
        assert check(st.path) == [] and Store(st.path).runs().collect().sort("run_id").equals(want), r.stdout
        assert list(st.path.rglob("mine.parquet")), k  # never deleted


def test_a_table_or_an_export_that_cannot_be_written_is_one_line(tmp_path):
    st = store_at(tmp_path / "st", tmp_path, algs=("A",))
    (tmp_path / "file").write_text("not a folder")
    one_line_error(cli("art", "--store", st.path, "--out", tmp_path / "file" / "art.csv"), "art.csv", "cannot write")
    one_line_error(cli("export", "--store", st.path, "--out", st.path / "runs" / "exp"), "inside the store")
    assert check(st.path) == []


@pytest.mark.parametrize("entry", ["{not json", "[1, 2]", "null"])
def test_a_damaged_entry_in_the_sources_table_is_one_line_naming_the_table_and_the_source(tmp_path, entry):
    import polars as pl

    st = store_at(tmp_path / "st", tmp_path, algs=("A",))
    key = next(iter(st.sources()))
    st.rewrite_sources(lambda df: df.with_columns(entry=pl.lit(entry, pl.String)))
    for args in (("info",), ("art",), ("ingest", tmp_path / "src" / "A", "--force")):
        one_line_error(cli(*args, "--store", st.path), f"{st.path}/sources", repr(key), "damaged")
    r = cli("check", "--store", st.path)  # a finding, for --repair to remove (issue 43)
    assert r.returncode == 1 and f"entry: {st.path}/sources: source {key}: damaged entry" in r.stdout, r.stdout


def test_a_store_whose_creation_was_killed_before_its_first_commit_is_made_again(tmp_path):
    """A kill -9 while a new store's `sources` table was being made (its Delta log without a version, a
    temporary file in it) left a folder the next ingest refused ("not empty and holds no store"); it is
    made again there. Any other content still makes the folder refused."""
    a = source(tmp_path / "src" / "A", "A", functions=range(1, 3))
    cut = tmp_path / "cut"
    (cut / "sources" / "_delta_log").mkdir(parents=True)
    (cut / "sources" / "_delta_log" / "_commit_0f3c.json.tmp").write_text("{")
    r = cli("ingest", a, "--store", cut)
    assert r.returncode == 0, r.stderr
    assert dict(Store(cut).runs().collect().group_by("algorithm").len().rows()) == {"A": 4}
    other = tmp_path / "other"
    (other / "sources" / "_delta_log").mkdir(parents=True)
    (other / "notes.txt").write_text("mine")
    r = cli("ingest", a, "--store", other)
    assert r.returncode == 1 and "folder is not empty and holds no store" in r.stderr
