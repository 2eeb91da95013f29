"""One parser per setting kind (issue 45): a command line's text is read by the setting's own constraints
(`Param.parse`), refused in the words Python's `Param.check` uses, and no setting of a generated command is
dropped (a list is an option: --budgets 10,100)."""
from __future__ import annotations

import pytest
import typer

from pipeline.cli import app
from pipeline.commands.chart import parse_options
from pipeline.commands.registered import offered
from pipeline.measures.registry import InvalidSetting, get, load


@pytest.mark.parametrize(("measure", "name", "text", "python"), [
    ("eaf", "budgets", "-5", [-5]), ("eaf", "budgets", "10,-5", [10, -5]), ("eaf", "points", "0", 0),
    ("eaf", "levels", "1,abc", "1,abc"), ("shapley", "method", "x", "x"), ("art", "confidence", "1.5", 1.5),
    ("ecdf.band", "replicates", "1", 1)])
def test_the_command_line_is_refused_in_pythons_words(measure, name, text, python):
    param = next(p for p in get(measure).settings.params if p.name == name)
    with pytest.raises(InvalidSetting) as cli:
        param.parse(text)
    with pytest.raises(InvalidSetting) as py:
        param.check(python)
    assert str(cli.value) == str(py.value) and cli.value.setting == name


def test_a_list_is_read_item_by_item():
    budgets = next(p for p in get("eaf").settings.params if p.name == "budgets")
    assert budgets.parse("10,100") == (10.0, 100.0)
    assert budgets.parse("none") is None


def test_no_setting_of_a_generated_command_is_dropped():
    root = typer.main.get_command(app)
    for m in load().values():
        if not m.command:
            continue
        opts = {o for p in root.get_command(None, m.command).params for o in p.opts}
        missing = [p.name for p in m.settings.params if offered(p) and f"--{p.name.replace('_', '-')}" not in opts]
        assert not missing, f"{m.command}: {missing}"


def test_chart_options_are_read_by_the_declaration():
    assert parse_options(["budgets=10,100", "points=5"], "vbs") == {"budgets": (10.0, 100.0), "points": 5}
    with pytest.raises(typer.Exit):
        parse_options(["points=0"], "vbs")
