"""The documentation runs as written: the examples of every docstring in `pipeline`, every Python and SQL
block of README.md and docs/*.md, and every `cocopipe` command line of their shell blocks names a command
and options that exist; the CLI reference (docs/cli.md) is the one `docs/make_cli.py` writes, and every
measure is documented.

The examples run in a folder holding `data` (the shipped samples and reference sets) and
`cocopipe-store`, the store of the sample data that the README's quick start makes
(`cocopipe ingest data/sample --store cocopipe-store`).
"""
from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

import pipeline
from conftest import ROOT

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
#: a fenced block: its language and text
BLOCK = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.S | re.M)


def modules() -> list[str]:
    """Every module of the package (private ones too: their examples must run as well)."""
    return ["pipeline", *sorted(m.name for m in pkgutil.walk_packages(pipeline.__path__, "pipeline."))]


def docstring_examples() -> list[doctest.DocTest]:
    finder = doctest.DocTestFinder(exclude_empty=True)
    found = {}
    for name in modules():
        for test in finder.find(importlib.import_module(name), name):
            if test.examples and test.name not in found:
                found[test.name] = test
    return [found[k] for k in sorted(found)]


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """A working folder as after the README's quick start: `data` and `queries` of the clone, and the store
    of the sample data."""
    from pipeline.ingest import ingest
    from pipeline.store import Store

    here = tmp_path_factory.mktemp("docs")
    for name in ("data", "queries"):
        (here / name).symlink_to(ROOT / name)
    summary = ingest([here / "data" / "sample"], Store(here / "cocopipe-store", create=True))
    assert summary.runs > 0 and not summary.problems
    return here


def run_doctest(test: doctest.DocTest) -> None:
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    out: list[str] = []
    runner.run(test, out=out.append, clear_globs=False)  # the names stay for the blocks that follow
    assert runner.failures == 0, "".join(out)


EXAMPLES = docstring_examples()


@pytest.mark.parametrize("test", EXAMPLES, ids=[t.name for t in EXAMPLES])
def test_docstring_examples_run(test, folder, monkeypatch):
    monkeypatch.chdir(folder)
    test.globs = dict(test.globs)  # each run starts from the module's names
    run_doctest(test)


def test_the_public_api_has_examples():
    """What `pipeline` exports, the facade's measures and the store's methods show how they are called."""
    named = {t.name for t in EXAMPLES}
    public = [f"pipeline.{name}" for name in pipeline.__all__ if name != "ingest"]
    from pipeline.api import Analysis

    # each where it is defined: pipeline.api.Analysis.art (generated), pipeline.unregistered.Unregistered.loss_ratios
    measures = [f"{f.__module__}.{f.__qualname__}" for m, f in inspect.getmembers(Analysis, inspect.isfunction)
                if not m.startswith("_")]
    wanted = [*measures, "pipeline.api.open_store", "pipeline.selection.Selection", "pipeline.selection.open_reference",
              "pipeline.hits.budget.Budget", "pipeline.ingest.ingest", "pipeline.store.store.Store",
              "pipeline.report.build.build", "pipeline.query.run_sql"]
    missing = [w for w in wanted if w not in named]
    assert public and not missing, f"no Examples in the docstrings of {', '.join(missing)}"


# -- README.md and docs/*.md -------------------------------------------------------------------
def blocks(path: Path) -> list[tuple[str, str, int]]:
    """The fenced blocks of a Markdown file: language, text, line of the opening fence."""
    text = path.read_text(encoding="utf-8")
    return [(m.group(1), m.group(2), text[:m.start()].count("\n") + 1) for m in BLOCK.finditer(text)]


@pytest.mark.parametrize("path", DOCS, ids=[p.name for p in DOCS])
def test_python_and_sql_blocks_run(path, folder, monkeypatch):
    """Every ```python block runs (a doctest where it shows `>>>`), in order, sharing its names with the
    blocks before it; every ```sql block runs on the sample store (DuckDB's when it starts `-- DuckDB`)."""
    monkeypatch.chdir(folder)
    names: dict = {"__name__": "__docs__"}
    for lang, text, line in blocks(path):
        where = f"{path.name}:{line}"
        if lang == "python" and ">>>" in text:
            test = doctest.DocTestParser().get_doctest(text, names, where, str(path), line)
            run_doctest(test)
            names = test.globs  # a DocTest runs in a copy of the names it is given
        elif lang == "python":
            exec(compile(text, where, "exec"), names)  # noqa: S102 - the documentation's own code
        elif lang == "sql" and text.startswith("-- DuckDB"):
            duckdb = pytest.importorskip("duckdb")
            assert duckdb.sql(text).fetchall(), where
        elif lang == "sql":
            from pipeline.query import run_sql

            assert run_sql(folder / "cocopipe-store", text).collect().height > 0, where


def cli_tree() -> dict[str, set[str]]:
    """Every command (`art`, `archive list`, ...) and its option names, from the command line itself."""
    import typer.main

    from pipeline.cli import build_app

    out: dict[str, set[str]] = {}

    def walk(cmd, path: str) -> None:
        if getattr(cmd, "commands", None):  # a group (typer's click is vendored: known by what it has)
            for name, sub in cmd.commands.items():
                walk(sub, f"{path} {name}".strip())
        else:
            out[path] = {o for p in cmd.params if p.param_type_name == "option" for o in (*p.opts, *p.secondary_opts)}
            out[path] |= {"--help"}

    walk(typer.main.get_command(build_app()), "")
    return out


def command_lines(text: str) -> list[str]:
    """The `cocopipe ...` lines of a shell block (continuations joined, comments and prompts dropped)."""
    lines, out = text.replace("\\\n", " ").splitlines(), []
    for ln in lines:
        ln = ln.strip().removeprefix("$ ")
        for part in re.split(r"&&|\|", ln):
            part = part.strip()
            if part.startswith("cocopipe ") or part == "cocopipe":
                out.append(part.split(" #", 1)[0])
    return out


def wrong_commands(text: str, tree: dict[str, set[str]]) -> list[str]:
    """The `cocopipe` command lines of a shell block that name a command or an option that does not exist."""
    wrong = []
    for cmd in command_lines(text):
        words = shlex.split(cmd)[1:]
        name = words[0] if words and not words[0].startswith("-") else ""
        if len(words) > 1 and f"{name} {words[1]}" in tree:  # a group's command: archive list
            name = f"{name} {words[1]}"
        if name and name not in tree:
            wrong.append(f"no command {name!r}: {cmd}")
            continue
        options = tree.get(name, {"--help"})
        for w in words:
            opt = w.strip("[]").split("=", 1)[0]  # a synopsis's optional parts: [--name sigma]
            if opt.startswith("-") and opt != "-" and not re.fullmatch(r"-\d.*", opt) and opt not in options:
                wrong.append(f"`cocopipe {name}` has no option {opt}: {cmd}")
    return wrong


def test_shell_blocks_name_commands_and_options_that_exist():
    tree = cli_tree()
    wrong = [f"{path.name}:{line}: {w}" for path in DOCS for lang, text, line in blocks(path)
             if lang in ("sh", "console", "bash", "shell") for w in wrong_commands(text, tree)]
    assert not wrong, "\n".join(wrong)


def test_the_shell_check_finds_what_does_not_exist():
    text = ("cocopipe art --store S --nope 1 \\\n  --targets table\ncocopipe nosuch\n"
            "pip install . && cocopipe archive list --suite bbob")
    wrong = wrong_commands(text, cli_tree())
    assert [w.split(":")[0] for w in wrong] == ["`cocopipe art` has no option --nope", "no command 'nosuch'"]


def test_ci_runs_the_readme_test_command():
    readme = [text for lang, text, _ in blocks(ROOT / "README.md") if "pytest" in text and lang == "sh"]
    assert len(readme) == 1, readme
    command = readme[0].strip()
    assert command.startswith("pip install") and command in (ROOT / ".ci" / "run").read_text().splitlines()


# -- the CLI reference and the measures -------------------------------------------------------
def test_the_cli_reference_is_up_to_date():
    r = subprocess.run([sys.executable, str(ROOT / "docs" / "make_cli.py"), "--stdout"], capture_output=True,
                       text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert r.stdout == (ROOT / "docs" / "cli.md").read_text(encoding="utf-8"), (
        "docs/cli.md is out of date: run `python docs/make_cli.py`")


def test_every_option_and_measure_is_documented():
    """Every option of every command, every measure of the facade and every module of `pipeline.measures`
    is named in README.md or docs/."""
    from pipeline import measures
    from pipeline.api import Analysis

    text = "\n".join(p.read_text(encoding="utf-8") for p in DOCS)
    missing = sorted({o for opts in cli_tree().values() for o in opts if o.startswith("--") and o not in text})
    methods = [m for m, _ in inspect.getmembers(Analysis, inspect.isfunction) if not m.startswith("_")]
    missing += [f"Analysis.{m}" for m in methods if f".{m}(" not in text]
    missing += [f"pipeline.measures.{m.name}" for m in pkgutil.iter_modules(measures.__path__)
                if not m.name.startswith("_") and f"measures.{m.name}" not in text and f"measures/{m.name}.py" not in text]
    assert not missing, f"not documented in README.md or docs/: {', '.join(missing)}"


def test_ci_runs_exactly_the_readmes_test_command():
    # the README's Tests section names one command; .ci/run runs that line, and nothing in between decides
    section = (ROOT / "README.md").read_text().split("## Tests", 1)[1]
    command = re.search(r"```sh\n(.+?)\n```", section, re.S)[1].strip()
    assert "\n" not in command
    assert [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines() if "pytest" in line
            and not line.lstrip().startswith("#")] == [command]
