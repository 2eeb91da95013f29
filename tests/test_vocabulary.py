"""One vocabulary (issue 30, item 4): each key of the frames has its own name in `pipeline.vocabulary`,
each selection setting one public name from the command line to the `Selection`, translated in one
place, and the algorithms drawn beside the compared ones a named pair."""
from __future__ import annotations

import ast
import dataclasses
import inspect
import typing
from pathlib import Path

import pytest

from pipeline import vocabulary as v
from pipeline.api import Analysis
from pipeline.commands._options import SelectionOptions
from pipeline.hits.budget import Budget
from pipeline.ingest import ingest
from pipeline.recipes.inputs import Algorithms, resolve_background, resolve_reference
from pipeline.selection import Selection
from pipeline.store import Store

from logs import write_new2

PIPELINE = Path(__file__).resolve().parent.parent / "pipeline"


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Store:
    root = tmp_path_factory.mktemp("vocab")
    for alg in ("A", "B"):
        write_new2(root / alg, alg=alg, runs=[{"instance": 1, "dat": [(1, 5.0), (40, 1e-9)]},
                                              {"instance": 2, "dat": [(1, 4.0), (60, 1e-3)]}])
    st = Store(root / "store", create=True)
    ingest([root / "A", root / "B"], st)
    return st


def test_every_key_has_one_name():
    keys = {n: getattr(v, n) for n in ("PROBLEM", "PROBLEM_TARGET", "PROBLEM_INSTANCE", "ALGORITHM_DIMENSION",
                                       "TABLE_CELL", "FUNCTION_DIMENSION", "FUNCTION_TARGET")}
    assert len(set(keys.values())) == len(keys)  # no two names for one key
    assert v.TABLE_CELL == ("suite", "dimension", "function") and v.FUNCTION_DIMENSION == ("suite", "function", "dimension")


def test_no_module_names_a_key_plainly_key_or_group():
    # KEY had five meanings and restarts.GROUP a sixth: every key is now named for what it is, PROBLEM once
    plain = []
    for path in PIPELINE.rglob("*.py"):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
            plain += [f"{path.relative_to(PIPELINE)}:{t.id}" for t in targets
                      if isinstance(t, ast.Name) and (t.id in ("KEY", "GROUP") or
                                                      (t.id == "PROBLEM" and path.name != "vocabulary.py"))]
    assert plain == []


def test_each_selection_setting_has_one_name_from_the_selection_to_the_report():
    # max_budget, all_instances, exact: the fields of Selection, the keywords of Analysis and the report's
    # settings (once budget / instances / hit_rule in the selection and exact_hits in the report)
    from pipeline.report.settings import Settings

    for names in ({f.name for f in dataclasses.fields(Selection)}, set(inspect.signature(Analysis).parameters),
                  {f.name for f in dataclasses.fields(Settings)}):
        assert set(v.SELECTION_SETTINGS) <= names
    for old in ("budget", "instances", "hit_rule", "exact_hits"):
        assert old not in {f.name for f in dataclasses.fields(Selection)} | {f.name for f in dataclasses.fields(Settings)}
    # a settings.json of an earlier report still loads
    before = {**Settings().to_dict(), "exact_hits": True}
    del before["exact"]
    assert Settings.from_dict(before).exact is True


def test_analysis_and_the_command_line_give_the_same_selection(store):
    a = Analysis(store, max_budget="10x", all_instances=True, exact=True)
    cli = SelectionOptions(store=str(store.path), max_budget=Budget.parse("10x"), all_instances=True, exact=True)
    b = cli.analysis()
    for field in v.SELECTION_SETTINGS:
        assert getattr(a.selection, field) == getattr(b.selection, field), field
    assert (a.selection.max_budget, a.selection.all_instances, a.selection.exact) == (Budget.parse("10x"), True, True)
    assert (a.max_budget, a.all_instances, a.exact) == (Budget.parse("10x"), True, True)


def test_the_command_line_options_keep_their_documented_flags():
    fields = {f.name: f for f in SelectionOptions.__dataclass_fields__.values()}
    for name, flag in v.FLAGS.items():
        declared = typing.get_args(fields[name].metadata["option"])[1]  # Annotated[type, typer.Option(...)]
        names = [declared.default, *declared.param_decls]  # typer.Option("--flag/--other", ...)
        assert flag in str(names[0]).split("/"), (name, flag)
    assert set(v.FLAGS) == set(v.SELECTION_SETTINGS)
    # and Analysis takes the same names
    assert set(v.SELECTION_SETTINGS) <= set(inspect.signature(Analysis).parameters)


def test_reference_and_background_are_named_pairs(store):
    a = Analysis(store, algorithm="A")
    ref = resolve_reference(a, "B")
    assert isinstance(ref, Algorithms) and ref.names == ["B"] and ref.analysis.algorithms() == ["B"]
    bg = resolve_background(a, ["B"])
    assert bg.names == ["B"] and isinstance(bg.analysis, Analysis)
    assert resolve_reference(a, None) is None


def test_selection_takes_only_its_own_fields(store):
    with pytest.raises(TypeError):
        Selection(store, hit_rule="exact")  # the old name of `exact`: gone, not translated
    with pytest.raises(TypeError, match="all_instances 'all': True or False"):
        Selection(store, all_instances="all")
