"""Names that hold Rich markup are printed as they are by every command: no MarkupError, no styling,
no hidden link; messages stay one line."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from conftest import ROOT
from logs import write_new2
from terminal import cli, on_terminal, plain

#: a closing tag without an opening one (MarkupError), a style, and a link that would hide its target
MARKUP = ["[/x]", "[bold]", "[link=file:///etc/passwd]x[/link]"]


def runs(evals: int) -> list[dict]:
    return [dict(instance=i, dat=[(1, 50.0), (evals * i, 1e-9)]) for i in (1, 2)]


@pytest.fixture(scope="module")
def logs(tmp_path_factory) -> Path:
    """One experiment per name of MARKUP (the algorithm named so), f1 in 2-D, in a folder named so too."""
    root = tmp_path_factory.mktemp("markup")
    for k, name in enumerate(MARKUP):
        write_new2(root / "logs" / f"{name} exp", alg=name, runs=runs(10 * (k + 1)))
    return root


@pytest.fixture(scope="module")
def store(logs) -> Path:
    path = logs / "store (x) bold"  # markup's brackets cannot be in a store's path (the Delta engine refuses them)
    r = cli("ingest", *sorted((logs / "logs").rglob("* exp")), "--store", path)
    assert r.returncode == 0, r.stderr
    assert f"store {path} holds 6 runs of 3 algorithms" in r.stderr, r.stderr
    return path


def clean(r) -> str:
    """stderr of a command that went well: no traceback, no markup error."""
    assert "Traceback" not in r.stderr and "MarkupError" not in r.stderr, r.stderr
    assert r.returncode == 0, r.stderr
    return r.stderr


def test_ingest_prints_names_and_paths_as_they_are(logs, tmp_path):
    exp = next((logs / "logs").glob("[[]link*"))
    r = cli("ingest", exp, "--store", tmp_path / "st")
    err = clean(r)
    assert f"{exp.name}: 2 runs" in err and f"store {tmp_path / 'st'} holds 2 runs of 1 algorithm" in err, err
    r = cli("ingest", exp, "--store", tmp_path / "[/x]")  # a store cannot lie there: said with the path as it is
    assert r.returncode == 1 and r.stderr.splitlines() == [
        f"error: {tmp_path / '[/x]'}: a store cannot lie under a path holding '[' (delta-rs, the Delta Lake engine, "
        "cannot take [ ] \\ ^ | %XX, tabs or line breaks in a folder's path); choose another folder"], r.stderr
    text, code = on_terminal("ingest", exp, "--store", tmp_path / "bold st", "--force")  # the progress bar's label
    assert code == 0 and "MarkupError" not in text and f"{exp.name}: 2 runs" in plain(text), text


def test_tables_show_the_names_literally(store):
    for command in ("info", "art", "runs"):
        text, code = on_terminal(command, "--store", store, columns=200, rows=500)
        text = plain(text)
        assert code == 0 and "MarkupError" not in text, text
        assert all(name in text for name in MARKUP), (command, text)
    r = cli("runs", "--store", store, "--out", "-")
    assert all(name in clean(r) + r.stdout for name in MARKUP)


def test_chart_table_export_write_to_paths_with_markup(store, tmp_path):
    out = tmp_path / "[/x] [bold]"
    err = clean(cli("chart", "ecdf", "--store", store, "--out", out / "c.json"))
    assert f"wrote ecdf chart to {out / 'c.json'}" in err
    err = clean(cli("table", "--store", store, "--out", out / "t.md"))
    assert f"wrote md table to {out / 't.md'}" in err
    assert "[bold]" in (out / "t.md").read_text().replace("\\", "")  # Markdown's escapes aside
    err = clean(cli("export", "--store", store, "--out", out / "ioh"))
    assert f"wrote 6 runs of 3 algorithms in 3 json files under {out / 'ioh'}" in err, err


def test_reference_build_names_the_reference_literally(store, tmp_path):
    name = "[link=file:///etc/passwd]best[/link]"
    err = clean(cli("reference", "build", "--store", store, "--name", name, "--into", tmp_path / "x ref"))
    assert f"built {name} on 1 problem into {tmp_path / 'x ref'}" in err, err
    assert re.search(r"targets taken from (\[/x\]|\[bold\]|\[link=file:///etc/passwd\]x\[/link\]) \d+", err), err


def test_archive_create_names_the_folder_literally(tmp_path):
    folder = tmp_path / "[/x] archive [bold]"
    folder.mkdir(parents=True)
    shutil.copy(ROOT / "data" / "sample" / "NM_on_bbob.tgz", folder / "[bold]NM.tgz")
    err = clean(cli("archive", "create", folder))
    assert f"wrote {folder / 'coco_archive_definition.txt'}: 1 data set," in err, err
    r = cli("archive", "list", "--archive-url", folder, "--offline", "--out", "-")
    assert "[bold]NM" in clean(r) + r.stdout, r.stdout


def test_report_writes_to_a_folder_with_markup(store, tmp_path):
    out = tmp_path / "[/x] report"
    err = clean(cli("report", "--store", store, "--out", out, "--samples", "10", "--reference", "none",
                    "--dimension", "2"))
    assert f"wrote the report to {out / 'index.html'}" in err, err


def test_errors_naming_markup_are_one_line(store, tmp_path):
    for args, said in (
        (("art", "--store", store, "--algorithm", "[/x]nope"), "[/x]nope"),
        (("chart", "ecdf", "--store", store, "--out", tmp_path / "[bold]c.txt"), f"{tmp_path / '[bold]c.txt'}:"),
        (("art", "--store", tmp_path / "[/x]none"), "[/x]none"),
        (("reference", "build", "--store", store, "--name", "best", "--algorithm", "[bold]nope"), "[bold]nope"),
    ):
        r = cli(*args)
        assert r.returncode != 0 and "Traceback" not in r.stderr and "MarkupError" not in r.stderr, (args, r.stderr)
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and said in lines[0], (args, r.stderr)


def test_query_check_and_info_print_names_and_paths_as_they_are(store):
    r = cli("query", "SELECT DISTINCT algorithm FROM runs ORDER BY 1", "--store", store)
    clean(r)
    assert r.stdout.splitlines()[1:] == sorted(f'"{n}"' if "," in n else n for n in MARKUP), r.stdout
    r = cli("query", "--tables", "--store", store)
    assert clean(r) == "" and r.stdout.startswith("runs: "), r.stdout
    assert f"store {store}: the tables and their files agree" in clean(cli("check", "--store", store))
    r = cli("info", "--store", store)
    assert f"store {store}: schema versions" in clean(r) and all(name in r.stdout for name in MARKUP)


@pytest.mark.parametrize("odd", ["new\nline", "tab\there", "esc\x1b[31mred", "sep\u2028arator"])
def test_a_path_with_a_line_break_or_an_escape_stays_on_its_line(tmp_path, odd):
    root = write_new2(tmp_path / f"{odd} logs", alg="A", runs=runs(10))
    gone = tmp_path / f"gone {odd}"
    r = cli("ingest", root, gone, "--store", tmp_path / "st")
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    shown = odd.encode("unicode_escape").decode()  # the characters as Python escapes: \n, \t, \x1b, \u2028
    lines = r.stderr.splitlines()
    assert f"warning: {tmp_path}/gone {shown}: no such file or folder (source skipped)" in lines, lines
    assert any(line.startswith("error: 1 of 2 sources not read: ") and line.endswith(
        f"gone {shown}; exit status 1 (--allow-partial accepts a partial ingest)") for line in lines), lines
    assert f"{odd} logs: 2 runs".replace(odd, shown) in lines, lines
    assert all("\x1b" not in line for line in lines)
    r = cli("art", "--store", tmp_path / "st", "--out", tmp_path / f"art {odd}.csv")
    assert r.stderr.splitlines() == [f"wrote 51 rows to {tmp_path}/art {shown}.csv"], r.stderr


def test_check_and_repair_keep_a_path_with_a_line_break_on_its_line(tmp_path):
    st = tmp_path / "st\nx"  # no store can lie there: the error stays on its line, the break escaped
    for args in (("check", "--store", st), ("check", "--store", st, "--repair"), ("art", "--store", st)):
        r = cli(*args)
        assert r.returncode == 1 and len(r.stderr.splitlines()) == 1, r.stderr
        assert r.stderr.startswith(f"error: {tmp_path}/st\\nx: a store cannot lie under a path holding '\\n'"), r.stderr
