"""The options commands share: declared once (`pipeline.commands._options`), taken by a command as one
parsed object, listed in its help."""
from __future__ import annotations

import ast
from pathlib import Path
from typing import Annotated

import polars as pl
import pytest
import typer
from typer.testing import CliRunner

from conftest import ROOT
from logs import write_new2
from pipeline.cli import app
from pipeline.commands._options import READING, SelectionOptions, uses
from pipeline.hits.budget import Budget
from pipeline.ingest import ingest
from pipeline.store import Store

#: options that several commands take and that must be declared once
SHARED = ("--store", "--suite", "--algorithm", "--function", "--dimension", "--all-instances", "--max-budget",
          "--exact-hits", "--indicator", "--seed", "--samples", "--executor", "--runlength-reference")


def declarations(folder: Path) -> dict[str, int]:
    """How many `typer.Option(...)` declare each long option name in the modules of `folder` (an option
    without names is named after its parameter)."""
    counts: dict[str, int] = {}

    def is_option(node) -> bool:
        return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "Option"

    for path in folder.glob("*.py"):
        tree = ast.parse(path.read_text())
        named_by_param = {id(o): a.arg for a in ast.walk(tree) if isinstance(a, ast.arg) and a.annotation is not None
                          for o in ast.walk(a.annotation) if is_option(o)}
        for call in filter(is_option, ast.walk(tree)):
            names = [n for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)
                     for n in a.value.split("/") if n.startswith("--")]
            if not names and id(call) in named_by_param:
                names = ["--" + named_by_param[id(call)].replace("_", "-")]
            for n in names[:1]:
                counts[n] = counts.get(n, 0) + 1
    return counts


def test_the_shared_options_are_declared_once():
    counts = declarations(ROOT / "pipeline" / "commands")
    assert {name: counts.get(name, 0) for name in SHARED} == {name: 1 for name in SHARED}


def toy(**options):
    """A command line of one command that takes the selection options (`uses(SelectionOptions, **options)`)
    and an option of its own; returns (app, what the command was called with)."""
    seen = {}
    toy_app = typer.Typer()

    @toy_app.command()
    @uses(SelectionOptions, **options)
    def show(sel: SelectionOptions, label: Annotated[str, typer.Option("--label")] = "x") -> None:
        """Show what was given."""
        seen.update(sel=sel, label=label)

    return toy_app, seen


def test_a_command_takes_the_group_as_one_parsed_object():
    toy_app, seen = toy()
    r = CliRunner().invoke(toy_app, ["-s", "S", "-a", "A", "-a", "B", "-f", "3", "--max-budget", "100x",
                                     "--exact-hits", "--label", "y"])
    assert r.exit_code == 0, r.output
    assert seen == {"sel": SelectionOptions(store="S", algorithm=["A", "B"], function=[3], max_budget=Budget(100.0, True),
                                            exact=True), "label": "y"}
    assert seen["sel"].filters == {"suite": None, "algorithm": ["A", "B"], "function": [3], "dimension": None}
    r = CliRunner().invoke(toy_app, [])
    assert r.exit_code == 0 and seen["sel"] == SelectionOptions()  # the group's defaults: cocopipe-store, no cut
    assert seen["sel"].store == "cocopipe-store" and seen["sel"].max_budget is None


def test_a_command_offers_part_of_the_group_with_its_own_defaults():
    toy_app, seen = toy(without=READING, store=None)
    r = CliRunner().invoke(toy_app, ["--help"], env={"COLUMNS": "200"})
    for name in ("--store", "--suite", "--algorithm", "--function", "--dimension", "--all-instances", "--label"):
        assert name in r.output, name
    for name in ("--max-budget", "--exact-hits", "--indicator"):
        assert name not in r.output, name
    r = CliRunner().invoke(toy_app, ["--all-instances"])
    assert r.exit_code == 0 and seen["sel"] == SelectionOptions(store=None, all_instances=True)
    r = CliRunner().invoke(toy_app, ["--max-budget", "10"])
    assert r.exit_code == 2 and "No such option: --max-budget" in r.output
    toy_app, seen = toy(only=("store", "suite"))
    r = CliRunner().invoke(toy_app, ["--suite", "bbob", "--label", "z"])
    assert r.exit_code == 0 and seen == {"sel": SelectionOptions(suite=["bbob"]), "label": "z"}


def test_a_bad_budget_is_a_one_line_error_before_any_work():
    toy_app, seen = toy()
    r = CliRunner().invoke(toy_app, ["--max-budget", "ten"])
    assert r.exit_code == 1 and not seen
    assert r.output.strip() == ("error: --max-budget: budget 'ten': expected evaluations (1000) or a multiple of the "
                                "dimension (100x)")
    r = CliRunner().invoke(app, ["budget", "--store", "nowhere", "--budgets", "10,100x"])
    assert r.exit_code == 1
    assert " ".join(r.output.split()) == ("error: --budgets '10,100x': give all in evaluations or all as "
                                          "multiples of the dimension (Nx)")


def test_uses_refuses_what_it_cannot_do():
    with pytest.raises(TypeError, match="has no option budget"):
        uses(SelectionOptions, without=("budget",))
    with pytest.raises(TypeError, match="a default for an option not offered: store"):
        uses(SelectionOptions, only=("suite",), store=None)
    with pytest.raises(TypeError, match="expected one parameter annotated SelectionOptions"):
        uses(SelectionOptions)(lambda store="x": None)

    def clash(sel: SelectionOptions, store: str = "x") -> None:
        """Takes --store twice."""
    with pytest.raises(TypeError, match="parameter 'store' is also an option of SelectionOptions"):
        uses(SelectionOptions)(clash)


@pytest.fixture(scope="module")
def two_dims(tmp_path_factory) -> str:
    """Algorithm A on f1 in 2-D and 3-D, f2 in 2-D, two trials each."""
    root = tmp_path_factory.mktemp("two_dims")
    for f, d in ((1, 2), (1, 3), (2, 2)):
        write_new2(root / "A", alg="A", function=f, dim=d,
                   runs=[dict(instance=i, dat=[(1, 5.0), (9, 1e-9)]) for i in (1, 2)])
    st = Store(root / "store", create=True)
    assert ingest([root / "A"], st).runs == 6
    return str(st.path)


def test_runs_takes_the_whole_selection(two_dims):
    r = CliRunner().invoke(app, ["runs", "--store", two_dims, "--function", "1", "--dimension", "2", "--out", "-"])
    assert r.exit_code == 0, r.output
    assert pl.read_csv(r.stdout.encode()).select("function", "dimension").rows() == [(1, 2), (1, 2)]
    r = CliRunner().invoke(app, ["runs", "--store", two_dims, "--dimension", "5"])
    assert r.exit_code == 1 and "no dimension 5 in the store" in r.output


def test_reference_has_one_meaning_and_the_runlength_reference_its_own_name(two_dims):
    # --reference: the reference algorithm compared against; the reference of runlength targets is
    # --runlength-reference, and the old spelling names it
    for args in (["ecdf", "--store", two_dims, "--reference", "best2009"],
                 ["targets", "--runlength", "--reference", "best2009"]):
        r = CliRunner().invoke(app, args)
        assert r.exit_code == 2 and "--runlength-reference" in r.output, r.output
    r = CliRunner().invoke(app, ["targets", "--runlength-reference", "best2009"])
    assert r.exit_code == 1 and "--runlength-reference applies to --runlength only" in r.output
    r = CliRunner().invoke(app, ["targets", "--runlength", "--runlength-reference", "best2009", "--suite", "bbob",
                                 "--suite", "bbob-noisy"])
    assert r.exit_code == 1 and "--suite: give one suite (got bbob, bbob-noisy)" in r.output
