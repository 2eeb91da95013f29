"""The command line as a whole: behaviour shared by every command."""
from __future__ import annotations

import io
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest

from conftest import ROOT
from logs import write_new2
from pipeline.cli import PANELS
from pipeline.ingest import ingest
from pipeline.store import Store
from terminal import TERMINAL_ENV, cli, on_terminal, plain


def test_output_into_a_closed_pipe_ends_quietly(tmp_path):
    # `cocopipe runs --out - | head -1`: the reader stops after one line; no traceback on stderr
    st = Store(tmp_path / "store", create=True)
    ingest([ROOT / "data" / "sample" / "DIRECT_posik_noiseless.tgz"], st)
    proc = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "runs", "--store", str(st.path), "--out", "-"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.wait(timeout=60)
    assert first.startswith(b"suite,algorithm,")
    assert "Traceback" not in err and "Broken pipe" not in err, err
    assert proc.returncode in (0, 141)


# -- start-up, help and Ctrl-C ------------------------------------------------------------------------
HEAVY = ("polars", "pyarrow", "numpy", "scipy", "altair", "vl_convert", "jinja2")


def test_loading_the_command_line_imports_no_heavy_library():
    # the commands import what they compute with when they run: `cocopipe --help` starts fast
    code = ("import sys, pipeline.cli as c; c.app; from typer.main import get_command; get_command(c.app); "
            f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


def test_help_orders_the_commands_as_the_work_goes():
    r = cli("--help", env={**TERMINAL_ENV, "COLUMNS": "200"})
    assert r.returncode == 0, r.stderr
    names = re.findall(r"^│ (\w[\w-]*) ", r.stdout, flags=re.M)
    work = ["ingest", "info", "runs", "art", "ecdf", "auc", "rank", "table", "chart", "report", "query"]
    assert [n for n in names if n in work] == work and names[0] == "ingest", names
    panels = re.findall(r"╭─ (.+?) ─", r.stdout)
    assert panels[:1 + len(PANELS)] == ["Options", *PANELS], panels  # (commands not placed come last)


def test_every_command_help_lists_all_its_options():
    from typer.main import get_command

    from pipeline.cli import app

    group = get_command(app)
    todo = [([name], cmd) for name, cmd in group.commands.items()]
    checked = 0
    while todo:
        path, cmd = todo.pop()
        if hasattr(cmd, "commands"):
            todo += [([*path, n], c) for n, c in cmd.commands.items()]
            continue
        r = cli(*path, "--help", env={**TERMINAL_ENV, "COLUMNS": "250"})
        assert r.returncode == 0, (path, r.stderr)
        assert "<bool>" not in r.stdout, (path, r.stdout)  # a flag takes no value: no type beside it
        for p in cmd.params:
            for opt in p.opts if p.param_type_name == "option" else []:
                assert opt in r.stdout, (path, opt)
        checked += 1
    assert checked >= 17


def test_version():
    import pipeline

    r = cli("--version")
    assert (r.returncode, r.stdout, r.stderr) == (0, f"cocopipe {pipeline.__version__}\n", "")
    assert re.fullmatch(r"\d+\.\d+\.\d+\S*", pipeline.__version__)


def test_help_breaks_lines_only_at_the_terminal_width():
    # a docstring's line breaks are not the help's: "are kept" and "side by side" on one line
    r = cli("--help", env={**TERMINAL_ENV, "COLUMNS": "250"})
    assert re.search(r"^│ ingest .*are kept side by side\. +│$", r.stdout, flags=re.M), r.stdout
    assert re.search(r"^│ --version +Print the version and exit\. +│$", r.stdout, flags=re.M), r.stdout
    r = cli("archive", "--help", env={**TERMINAL_ENV, "COLUMNS": "250"})
    assert re.search(r"^│ create .*so that the folder, or a copy of it online, is an archive", r.stdout, flags=re.M)


def test_exact_hits_says_what_it_means():
    r = cli("art", "--help", env={**TERMINAL_ENV, "COLUMNS": "250"})
    text = " ".join(r.stdout.replace("│", " ").split())
    assert "--exact-hits A target is hit at the first evaluation whose best precision is at or below it" in text
    assert "cocopp's rule" in text and "1e-9" in text and "seed 000" not in text


def test_help_shows_the_ray_extra_and_runlength_targets():
    for command in ("ingest", "art", "ecdf"):
        r = cli(command, "--help", env={**TERMINAL_ENV, "COLUMNS": "250"})
        assert "pip install 'cocopipe[ray]'" in r.stdout, (command, r.stdout)
    r = cli("art", "--help", env={**TERMINAL_ENV, "COLUMNS": "250"})
    assert re.search(r"--targets .*runlength", r.stdout), r.stdout


def test_unknown_targets_name_every_accepted_kind(tiny_store):
    r = cli("art", "--store", tiny_store, "--targets", "runlenght")
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert "targets 'runlenght': expected one of bbob, biobj, table, table-biobj, scaling, runlength" in r.stderr


@pytest.fixture(scope="module")
def tiny_store(tmp_path_factory) -> Path:
    """Algorithms A and B on f1 in 2-D and 3-D, three trials each."""
    root = tmp_path_factory.mktemp("tiny")
    for alg, evals in (("A", 10), ("B", 40)):
        for d in (2, 3):
            write_new2(root / alg, alg=alg, function=1, dim=d,
                       runs=[dict(instance=i, dat=[(1, 50.0), (evals, 1e-9)]) for i in (1, 2, 3)])
    st = Store(root / "store", create=True)
    assert ingest([root / "A", root / "B"], st).runs == 12
    return st.path


def test_ctrl_c_at_any_moment_ends_with_one_line_and_130(tiny_store, tmp_path):
    # the child says when Python has started (as the console script, it imports `main` then calls it);
    # SIGINT (as a terminal's Ctrl-C, to the process group) arrives while modules import, while the
    # commands register, or while the command runs. (Before `main` is imported, in the interpreter's own
    # start-up, Python prints its traceback: no code of the project runs yet.)
    # The child starts as from a terminal: SIGINT neither blocked nor ignored (an earlier test of this worker may
    # have left either to its subprocesses, and a child inherits both).
    code = ("import sys, _signal; _signal.pthread_sigmask(_signal.SIG_UNBLOCK, [_signal.SIGINT]); "
            "_signal.signal(_signal.SIGINT, _signal.default_int_handler); "
            "sys.stderr.write('ready\\n'); sys.stderr.flush(); from pipeline.cli import main; main()")
    commands = [["--help"], ["art", "--store", tiny_store, "--out", tmp_path / "a.csv"],
                ["report", "--store", tiny_store, "--out", tmp_path / "r", "--jobs", "2", "--samples", "10"]]
    interrupted = 0
    for args in commands:
        for delay in (0.05, 0.1, 0.25, 0.5, 1.0, 2.0):
            proc = subprocess.Popen([sys.executable, "-c", code, *map(str, args)], stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, start_new_session=True)
            assert proc.stderr.readline() == b"ready\n"
            time.sleep(delay)
            try:
                os.killpg(proc.pid, signal.SIGINT)
            except ProcessLookupError:  # already done
                pass
            try:  # the pipes close when every process of the command is gone: a worker left running holds them
                _, err = proc.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                raise AssertionError(f"{args} at {delay} s: a process of the command outlived it") from None
            err = err.decode()
            assert "Traceback" not in err and "KeyboardInterrupt" not in err, (args, delay, err)
            if proc.returncode == 0 or "cocopipe: interrupted" not in err:  # done before the signal (or while
                assert proc.returncode in (0, -signal.SIGINT), (args, delay, err)  # Python shut down: no output)
                continue
            assert proc.returncode == 130, (args, delay, proc.returncode, err)
            assert err.splitlines()[-1] == "cocopipe: interrupted" and err.count("\n") == 1, (args, delay, err)
            interrupted += 1
    assert interrupted >= 8



def _descendants(pid: int) -> list[str]:
    """The processes below `pid` (children, their children, ...), as /proc lists them."""
    found, todo = [], [str(pid)]
    while todo:
        p = todo.pop()
        try:
            kids = Path(f"/proc/{p}/task/{p}/children").read_text().split()
        except OSError:  # ended meanwhile
            continue
        found += kids
        todo += kids
    return found


def test_a_report_killed_leaves_no_worker_running(tiny_store, tmp_path):
    # kill -9 of the command while its workers run: they end too (each watches for the process that forked
    # it, the fork server, which ends with the command), instead of running on their own, holding the terminal
    proc = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "report", "--store", str(tiny_store), "--out",
                             str(tmp_path / "r"), "--jobs", "2", "--samples", "10"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 60
    # the resource tracker, the fork server and a worker at least (the workers are the fork server's children)
    while time.monotonic() < deadline and len(_descendants(proc.pid)) < 3:
        time.sleep(0.05)
    workers = _descendants(proc.pid)
    assert len(workers) >= 3, f"no worker started: {workers}"
    proc.kill()
    proc.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(Path(f"/proc/{pid}").exists() for pid in workers):
        time.sleep(0.1)
    left = [pid for pid in workers if Path(f"/proc/{pid}").exists()]
    if left:
        os.killpg(proc.pid, signal.SIGKILL)
    assert not left, f"processes {left} outlived the command"


def test_a_ctrl_c_python_wrapped_in_another_error_ends_the_command_as_one(tmp_path):
    # a Ctrl-C while a class is made (an import) comes back as "RuntimeError: Error calling __set_name__",
    # caused by the KeyboardInterrupt: the one line and 130, not a traceback
    code = ("from pipeline import cli\n"
            "def app():\n    try:\n        raise KeyboardInterrupt\n"
            "    except KeyboardInterrupt as e:\n        raise RuntimeError('Error calling __set_name__') from e\n"
            "cli.__dict__['app'] = app\ncli.main()\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert (proc.returncode, proc.stdout, proc.stderr) == (130, "", "cocopipe: interrupted\n")


def test_a_ctrl_c_python_would_drop_ends_the_command_too():
    # a KeyboardInterrupt raised inside a callback (an import lock's, a weakref's) is "ignored" by Python,
    # which prints it and goes on: the command line stops there, with its one line and 130
    code = ("import sys, weakref\nfrom pipeline import cli\nsys.unraisablehook = cli._lost_interrupt(sys.unraisablehook)\n"
            "class A: pass\na = A()\ndef cb(_): raise KeyboardInterrupt\nr = weakref.ref(a, cb)\ndel a\n"
            "print('went on')\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert (proc.returncode, proc.stdout, proc.stderr) == (130, "", "cocopipe: interrupted\n")

# -- tables on a terminal, CSV into a pipe ----------------------------------------------------------------
def table_rows(text: str) -> dict[int, str]:
    """The rows of a table printed in blocks, by the row number that leads each block's lines (#): the
    lines of one row joined."""
    rows: dict[int, str] = {}
    for line in text.splitlines():
        m = re.match(r"\s*(\d+)   (.*)", line)
        if m:
            rows[int(m[1])] = rows.get(int(m[1]), "") + " " + m[2]
    return rows


def test_a_table_on_a_terminal_shows_every_row_and_column(tiny_store):
    # 2 algorithms x 2 dimensions x 51 targets, 13 columns: on 100 columns, the columns that do not fit come
    # in further blocks, each led by the row's number and the columns naming the row (a terminal high enough
    # for every row: a lower one shows a part, tests/test_terminal_and_files.py)
    columns = pl.read_csv(io.StringIO(cli("art", "--store", tiny_store).stdout)).columns
    text, code = on_terminal("art", "--store", tiny_store, columns=100, rows=2000)
    assert code == 0, text
    text = plain(text)
    assert "shape:" not in text and "┌" not in text and "left out" not in text  # not a Polars preview, nothing cut
    assert all(len(line) <= 100 for line in text.splitlines())
    headers = [line.split() for line in text.splitlines() if line.split()[:2] == ["#", "suite"]]
    assert len(headers) >= 2 and set(columns) == {c for h in headers for c in h[1:]}, headers
    assert all(h[:5] == ["#", "suite", "algorithm", "function", "dimension"] for h in headers)
    rows = table_rows(text)
    assert sorted(rows) == list(range(1, 205))
    last = " ".join(rows[204].split())
    assert last.startswith("bbob B 1 3 1e-08 40.0 3 3") and last.count("bbob B 1 3") >= 2, last  # in every block


def test_rank_on_80_columns_shows_the_friedman_test_and_the_critical_difference(tiny_store):
    for width in (80, 200):
        text, code = on_terminal("rank", "--store", tiny_store, "--by", "auc", columns=width)
        text = plain(text)
        table = [line for line in text.splitlines() if " data sets in " not in line]  # the summary names a path
        assert code == 0 and all(len(line) <= width for line in table), text
        for column in ("algorithm", "rank", "friedman_statistic", "friedman_p", "critical_difference"):
            assert re.search(rf"(^| ){column}( |$)", text, flags=re.M), (width, column, text)
        assert ("#" in text.split()) == (width == 80)  # one block on 200 columns: no row numbers


@pytest.fixture(scope="module")
def long_names(tmp_path_factory) -> Path:
    """An archive (a folder with its definition file) of 45 data sets with names of 65 characters."""
    import tarfile

    root = tmp_path_factory.mktemp("archive")
    (root / "bbob" / "2009").mkdir(parents=True)
    for i in range(45):
        with tarfile.open(root / "bbob" / "2009" / f"Algorithm-with-a-long-name-and-its-settings-{i:02d}_by-X.tgz",
                          "w:gz") as t:
            data = f"data set {i}".encode()
            info = tarfile.TarInfo("x.txt")
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    assert cli("archive", "create", root).returncode == 0
    return root


def test_archive_list_on_a_terminal_shows_every_data_set_whole(long_names):
    listed = pl.read_csv(io.StringIO(cli("archive", "list", "--archive-url", long_names, "--offline").stdout))
    assert listed.height == 45 and listed["name"].str.len_chars().min() == 65
    for width in (80, 200):
        text, code = on_terminal("archive", "list", "--archive-url", long_names, "--offline", columns=width, rows=500)
        text = plain(text)
        table = [line for line in text.splitlines() if " data sets in " not in line]  # the summary names a path
        assert code == 0 and all(len(line) <= width for line in table), text
        for column in listed.columns:
            assert re.search(rf"(^| ){column}( |$)", text, flags=re.M), (width, column)
        for name, sha in listed.select("name", "sha256").rows():
            assert re.search(rf"(^| ){re.escape(name)}( |$)", text, flags=re.M) and sha in text, (width, name)
    rows = table_rows(text) if "#" in text.split() else None
    assert rows is None  # 200 columns: one block


def test_a_value_wider_than_the_terminal_wraps_whole():
    from rich.console import Console

    from pipeline.commands._common import print_table

    name = "a-name-" + "x" * 90 + "-end"
    console = Console(width=60, record=True, force_terminal=True)
    print_table(pl.DataFrame({"algorithm": [name, "b"], "art": [1.5, 2.0]}), console)
    lines = console.export_text().splitlines()
    assert all(len(line) <= 60 for line in lines)
    assert name in "".join(line.split("   ")[1].strip() if "   " in line else "" for line in lines), lines
    # on 20 columns, a header and numbers too: each block keeps the row numbers, nothing is cut
    console = Console(width=20, record=True, force_terminal=True)
    print_table(pl.DataFrame({"critical_difference": [1.23456789], "x": [123456.789], "y": [2.5]}), console)
    lines = console.export_text().splitlines()
    assert all(len(line) <= 20 for line in lines) and sum(line.startswith("1 ") for line in lines) == 2, lines
    assert lines[0].split() == ["critical_differe"] and lines[1].split() == ["#", "nce"], lines
    assert lines[3].split() == ["1", "1.23456789"] and lines[-1].split() == ["1", "123456.789", "2.5"], lines


def test_lists_in_a_csv_cell_hold_no_comma(tiny_store):
    # `cocopipe info | column -s, -t`: the dimensions 2 and 3 of one algorithm are "2 3", not "2,3"
    r = cli("info", "--store", tiny_store)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 3 and '"' not in r.stdout
    assert {line.count(",") for line in lines} == {lines[0].count(",")}
    assert pl.read_csv(io.StringIO(r.stdout))["dimensions"].to_list() == ["2 3", "2 3"]


def test_a_table_into_a_pipe_is_csv(tiny_store, tmp_path):
    import duckdb

    r = cli("art", "--store", tiny_store)
    assert r.returncode == 0, r.stderr
    df = pl.read_csv(io.StringIO(r.stdout))
    assert df.height == 204 and df.columns[:4] == ["suite", "algorithm", "function", "dimension"]
    (tmp_path / "art.csv").write_text(r.stdout)  # `| duckdb`
    assert duckdb.sql(f"SELECT COUNT(*) FROM read_csv('{tmp_path / 'art.csv'}')").fetchall() == [(204,)]
    # `| head`: the reader stops early, quietly
    proc = subprocess.Popen(f"{sys.executable} -m pipeline.cli art --store {tiny_store} | head -3", shell=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = proc.communicate(timeout=120)
    lines = out.splitlines()
    assert lines[0].startswith("suite,algorithm,function,dimension,target,art") and len(lines) == 3
    assert "Traceback" not in err


def test_messages_are_not_wrapped_in_a_pipe(tiny_store, tmp_path):
    deep = tmp_path / ("a-folder-with-a-long-name-" * 4) / "art.csv"
    r = cli("art", "--store", tiny_store, "--out", deep)
    assert r.returncode == 0, r.stderr
    assert f"wrote 204 rows to {deep}\n" in r.stderr


# -- what the command line says -----------------------------------------------------------------------------
def test_counts_take_their_plural_and_an_unchanged_source_is_not_read_again(tmp_path):
    exp = write_new2(tmp_path / "exp", alg="A", runs=[dict(instance=1, dat=[(1, 50.0), (5, 1e-9)])])
    store = tmp_path / "store"
    r = cli("ingest", exp, "--store", store)
    assert r.returncode == 0, r.stderr
    assert "exp: 1 run\n" in r.stderr, r.stderr
    assert (f"1 of 1 sources read: 1 run read, 0 runs skipped, 0 problems; store {store} holds 1 run of "
            "1 algorithm\n") in r.stderr, r.stderr
    r = cli("ingest", exp, "--store", store)
    assert r.returncode == 0, r.stderr
    assert "exp: unchanged, not read again (1 run kept)\n" in r.stderr, r.stderr
    assert ("0 of 1 sources read, 1 unchanged, not read again: 0 runs read, 0 runs skipped, 0 problems; "
            f"store {store} holds 1 run of 1 algorithm\n") in r.stderr, r.stderr
    r = cli("export", "--store", store, "--out", tmp_path / "ioh")
    assert r.returncode == 0 and f"wrote 1 run of 1 algorithm in 1 json file under {tmp_path / 'ioh'}" in r.stderr
    r = cli("runs", "--store", store, "--out", tmp_path / "runs.csv")
    assert r.returncode == 0 and f"wrote 1 row to {tmp_path / 'runs.csv'}" in r.stderr, r.stderr
    r = cli("reference", "build", "--store", store, "--name", "best", "--into", tmp_path / "ref")
    assert r.returncode == 0 and "built best on 1 problem into" in r.stderr, r.stderr


def test_the_ecdf_summary_names_what_it_counts(tiny_store):
    # per (algorithm, dimension): 1 function x 3 instances x 51 targets; not "problems" (function, target)
    r = cli("ecdf", "--store", tiny_store, "--summary", "--mode", "trials", "--group", "all")
    assert r.returncode == 0, r.stderr
    df = pl.read_csv(io.StringIO(r.stdout))
    assert "problems" not in df.columns and df["instance_targets"].to_list() == [153] * 4
    assert df["functions"].to_list() == [1] * 4 and df["trials"].to_list() == [3] * 4


def test_a_command_line_loads_its_command_module_alone_and_helps_alike():
    # `cocopipe report ...` starts with the commands of commands/report.py only: the same command and help
    from typer.testing import CliRunner

    from pipeline.cli import app, app_for

    one = app_for(["report", "--out", "r"])
    assert one is not app and [c.callback.__name__ for c in one.registered_commands] == ["report"]
    for args in (["report", "--help"], ["archive", "list", "--help"]):
        want = CliRunner().invoke(app, args, terminal_width=100, env={"COLUMNS": "100"})
        got = CliRunner().invoke(app_for(args), args, terminal_width=100, env={"COLUMNS": "100"})
        assert (got.exit_code, got.output) == (want.exit_code, want.output) and "Usage: " in got.output
    # a word that is no command module's command (a typo, a command of another module, an option): every command
    for args in (["reprot"], ["fixed-budget-ecdf"], ["--version"], [], ["_common"]):
        assert app_for(args) is app
    code = ("import sys; sys.argv = ['cocopipe', 'report', '--help']\nfrom pipeline import cli\ntry:\n    cli.main()\n"
            "except SystemExit:\n    pass\nprint(sorted(m for m in sys.modules if m.startswith('pipeline.commands.')"
            " and not m.split('.')[-1].startswith('_')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "'pipeline.commands.report'" in out and "'pipeline.commands.analyses'" not in out, out
