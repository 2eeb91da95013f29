"""One validator per setting (issue 45, slice 1): every setting of every registered measure is checked by its
declaration alone (`registry.Param`). Invalid values are generated from the declared constraints (as
scikit-learn's `generate_invalid_param_val`), and each one is refused with the same one-line error naming
the setting and the value from Python (`Analysis.measure` and the facade method), from the command line
(the measure's command, generated or hand-written) and from the report's settings; no other place of
`pipeline/` checks a declared setting by hand."""
from __future__ import annotations

import inspect
import math
import re
from functools import partial
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from logs import two_algorithm_store
from pipeline.api import Analysis
from pipeline.cli import app
from pipeline.commands._common import error_text
from pipeline.measures import catalog
from pipeline.measures.registry import (BOOL, FRAME, NONE, InvalidSetting, Interval, Items, Kind, NumberText, Options,
                                        Param, load)
from pipeline.report.settings import PARAMS as REPORT_PARAMS, Settings as ReportSettings, SettingsError
from pipeline.store import Store

PIPELINE = Path(__file__).resolve().parent.parent / "pipeline"
MEASURES = load()


def _outside(interval: Interval) -> list:
    """Numbers just outside `interval`, a number of the other kind, and no number at all."""
    out: list = ["abc", math.nan, math.inf]
    if interval.low is not None:
        out.append(interval.low - 1 if interval.closed in ("both", "left") else interval.low)
    if interval.high is not None:
        out.append(interval.high + 1 if interval.closed in ("both", "right") else interval.high)
    if interval.kind is int:
        out.append(1.5 + (interval.low or 0))
    return [int(v) if interval.kind is int and isinstance(v, float) and v.is_integer() else v for v in out]


def invalid(param: Param) -> list:
    """Python values that every constraint of `param` refuses, generated from each constraint."""
    out: list = []
    for c in param.constraints:
        if isinstance(c, Interval):
            out += _outside(c)
        elif isinstance(c, Items):
            out += [[], *([v] for v in _outside(c.item)[1:]), [1e300, "abc"]]
        elif isinstance(c, Options):
            out += [f"not-{c.values[0]}", 5]
        elif isinstance(c, NumberText):
            out += ["nan", "-inf"] + ([f"{c.low - 1:g}"] if c.low is not None else [])
        elif c is BOOL:
            out += ["maybe", 2]
        elif isinstance(c, Kind) and c.each is not None:
            out += [[object()] if c.each is str else ["abc"]]
        elif c is FRAME:
            out += ["a frame?"]
    kept, seen = [], set()
    for v in out:
        if repr(v) not in seen and not any(c.ok(v) for c in param.constraints):
            seen.add(repr(v))
            kept.append(v)
    return kept


def cases(offered_only: bool = False) -> list[tuple[str, Param, object]]:
    """(measure, setting, invalid value) for every setting of every registered measure."""
    return [(name, p, v) for name, m in MEASURES.items() for p in m.settings.params
            if not offered_only or p.option for v in invalid(p)]


def said(param: Param, value) -> str:
    """The declaration's refusal of `value`, in its words."""
    return f"{param.name} {value!r}: expected {param.accepts}"


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> str:
    """Two algorithms on f1 and f2 in 2-D, three trials each."""
    return two_algorithm_store(tmp_path_factory.mktemp("one-check"))


def test_every_setting_has_invalid_values_generated():
    # only the algorithms' names (any text) take anything: every other setting is exercised below
    bare = sorted({p.name for _, m in MEASURES.items() for p in m.settings.params if not invalid(p)})
    assert bare == ["a_name", "b_name", "left", "right"], bare
    assert len(cases()) > 100


def _facade(a: Analysis, name: str):
    """The facade method of measure `name` (ecdf.steps: `a.ecdf.steps`), or None."""
    obj = a
    for part in name.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def test_python_refuses_in_the_declarations_words(store):
    a = Analysis(Store(store))
    wrong = []
    for name, param, value in cases():
        args = ([1e-8],) if MEASURES[name].targets else ()
        given = {**{p.name: (10, 100) for p in MEASURES[name].settings.params if p.required}, param.name: value}
        method = _facade(a, name)
        for how, call in (("measure", partial(a.measure, name)), ("facade", method)):
            if how == "facade" and (call is None or param.name not in inspect.signature(call).parameters):
                continue  # no facade method, or one without the setting (issue 45, slice 3)
            try:
                call(*args, **given)
                wrong.append(f"{how} {name}({param.name}={value!r}) was accepted")
            except InvalidSetting as exc:
                if (str(exc), exc.setting) != (said(param, value), param.name):
                    wrong.append(f"{how} {name}({param.name}={value!r}): {exc}")
    assert not wrong, "\n".join(wrong)


def _text(value) -> str | None:
    """How the command line writes `value` (None: it cannot: an object, a boolean)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str, list)):
        return None
    if isinstance(value, list):
        return ",".join(str(v) for v in value) if all(isinstance(v, (int, float, str)) for v in value) else None
    return str(value)


def test_a_command_lines_text_is_refused_as_pythons_value():
    # the text the command line gives reads back to the same value and the same words (1.5, nan, [-5], 'abc')
    wrong = []
    for name, param, value in cases():
        numbers = isinstance(value, (int, float)) or (isinstance(value, list) and value and all(
            isinstance(v, (int, float)) for v in value))  # a text is the value itself: "2" is no 2
        numeric = any(isinstance(c, (Interval, Items)) for c in param.constraints)
        if isinstance(value, bool) or not (numbers and numeric) or any(isinstance(c, NumberText)
                                                                      for c in param.constraints):
            continue
        text = _text(value)
        try:
            param.parse(text)
            wrong.append(f"{name}.{param.name} {text!r} read and taken")
        except InvalidSetting as exc:
            if str(exc) != said(param, value):
                wrong.append(f"{name}.{param.name} {text!r}: {exc} (Python: {said(param, value)})")
    assert not wrong, "\n".join(wrong)


def _command(measure) -> list[str] | None:
    """The command line that computes `measure` (`ecdf --band 0.95` for ecdf.band), without `cocopipe`."""
    line = f"cocopipe {measure.command}" if measure.command else measure.handwritten
    return line.split()[1:] if line else None


def command_cases() -> list[tuple[list[str], str, Param, object]]:
    """(command line, option, setting, invalid value) for every setting an option of a command sets."""
    root = typer.main.get_command(app)
    out = []
    for m in MEASURES.values():
        words = _command(m)
        if not words:
            continue
        cmd = root.get_command(None, words[0])
        opts = {o for p in cmd.params for o in p.opts if not getattr(p, "is_flag", False)}
        for p in m.settings.params:
            flag = p.flag or f"--{p.name.replace('_', '-')}"
            if flag in opts:
                out += [(words, flag, p, v) for v in invalid(p)[:4] if _text(v) not in (None, "")]
    return out


def test_the_command_line_refuses_in_the_declarations_words(store):
    generated = command_cases()
    covered = {(w[0], flag) for w, flag, _, _ in generated}
    # hand-written commands (typer's options read by the declarations) and generated ones alike
    assert {("art", "--samples"), ("art", "--confidence"), ("art", "--seed"), ("ecdf", "--band"),
            ("ecdf", "--replicates"), ("ecdf", "--mode"), ("rank", "--rounds"), ("rank", "--alpha"),
            ("aocc", "--upper"), ("ert", "--eval-max"), ("profile", "--delta"), ("eaf", "--budgets")} <= covered
    wrong = []
    for words, flag, param, value in generated:
        line = list(words)
        if flag in line:  # `ecdf --band 0.95`: the band's level is the value of --band
            line[line.index(flag) + 1] = _text(value)
        else:
            line += [flag, _text(value)]
        r = CliRunner().invoke(app, [*line, "--store", store, "--out", "-"])
        with pytest.raises(InvalidSetting) as refused:  # Python's words for the value the text reads as (above)
            param.parse(_text(value))
        expected = "error: " + error_text(refused.value, {param.name: flag})
        if r.exit_code != 1 or " ".join(r.output.split()) != expected:
            wrong.append(f"{' '.join(words)} {flag} {_text(value)!r}: exit {r.exit_code}, {r.output.strip()[:160]!r}"
                         f" (expected {expected!r})")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("param", REPORT_PARAMS, ids=lambda p: p.name)
def test_the_reports_settings_refuse_in_the_declarations_words(param):
    for value in invalid(param):
        with pytest.raises(SettingsError) as exc:
            ReportSettings(**{param.name: value}).check()
        assert str(exc.value) == said(param, value)


def test_the_reports_settings_are_the_measures_declarations():
    report = {p.name: p for p in REPORT_PARAMS}
    ecdf_steps = {p.name: p for p in MEASURES["ecdf.steps"].settings.params}
    art = {p.name: p for p in MEASURES["art"].settings.params}
    assert report["ecdf_samples"].constraints == ecdf_steps["samples"].constraints
    assert report["table_samples"].constraints == art["samples"].constraints
    assert report["seed"].constraints == art["seed"].constraints
    assert report["alpha"].constraints == {p.name: p for p in MEASURES["rank"].settings.params}["alpha"].constraints
    assert set(report["mode"].constraints[0].values) < set(ecdf_steps["mode"].constraints[0].values)
    assert report["correction"] is catalog.CORRECTION


def test_the_tables_and_the_budgets_check_with_the_declarations(store, tmp_path):
    r = CliRunner().invoke(app, ["table", "--store", store, "--correction", "sidak"])
    assert r.exit_code == 1 and " ".join(r.output.split()) == "error: --correction 'sidak': expected one of bonferroni, holm"
    r = CliRunner().invoke(app, ["table", "--store", store, "--alpha", "1.5"])
    assert r.exit_code == 1 and " ".join(r.output.split()) == "error: --alpha 1.5: expected a number in (0, 1)"
    budgets = next(p for p in MEASURES["fixed_budget"].settings.params if p.name == "budgets")
    for text, value in (("-5", [-5]), ("10x,-5x", [10, -5]), ("10,nan", [10, math.nan])):
        with pytest.raises(InvalidSetting) as exc:
            catalog.parse_budgets(text)
        assert str(exc.value) == said(budgets, value)
    r = CliRunner().invoke(app, ["budget", "--store", store, "--budgets", "10x,-5x"])
    assert r.exit_code == 1 and " ".join(r.output.split()) == "error: --budgets [10, -5]: expected a list of numbers > 0"
    r = CliRunner().invoke(app, ["chart", "ecdf", "--store", store, "--band", "--level", "95", "--out",
                                 str(tmp_path / "e.svg")])
    assert r.exit_code == 1 and " ".join(r.output.split()) == "error: --level 95: expected a number in (0, 1)"


#: the names of every declared setting
NAMES = sorted({p.name for m in MEASURES.values() for p in m.settings.params} | {p.name for p in REPORT_PARAMS}
               | {"correction", "level"})
#: a hand-made check: an error raised with a declared setting's name first ("samples 0: ...")
BY_HAND = re.compile(r"raise \w+\(f?[\"'](" + "|".join(NAMES) + r")\b[ {:]")


def test_no_other_place_checks_a_declared_setting():
    found = sorted(str(p.relative_to(PIPELINE)) for folder in ("measures", "commands", "report", "tables")
                   for p in (PIPELINE / folder).rglob("*.py") if BY_HAND.search(p.read_text(encoding="utf-8")))
    # the validator (registry.py) names the setting by a variable; what is left checks what no declaration can:
    # a group against the selection's groups (ecdf.py, profiles.py), eps > 0 on the log scale per problem, a
    # callable transform (profiles.py), and the budgets of runlength-based targets, a setting of no measure
    # (runlength.py, `cocopipe targets --budgets 31`), and the text shape of a list of budgets before its numbers go
    # to the declaration (catalog.parse_budgets: none given, or both kinds mixed)
    assert found == ["measures/catalog.py", "measures/ecdf.py", "measures/profiles.py", "measures/runlength.py"], found
    lists = {"modes": re.compile(r"\(\s*\"simulated\",\s*\"exact\""),
             "corrections": re.compile(r"\(\s*\"bonferroni\",\s*\"holm\"\s*\)"),
             "levels": re.compile(r"0\s*<\s*(float\()?\w*(level|alpha)\w*\)?\s*<\s*1")}
    found = {name: sorted(str(p.relative_to(PIPELINE)) for p in PIPELINE.rglob("*.py") if rx.search(p.read_text()))
             for name, rx in lists.items()}
    # checked.py declares them without importing the measures (their copies held equal to the modules' own by
    # tests/test_measure_contract.py); the report takes two of the three modes
    assert found == {"modes": ["measures/checked.py", "measures/ecdf.py", "report/settings.py"],
                     "corrections": ["measures/checked.py"], "levels": []}


def test_a_none_setting_stays_none():
    # NONE among the constraints is a value, not a refusal: the generated values never include None
    assert all(v is not None for _, p, v in cases() if NONE in p.constraints)
