"""The settings contract (issue 44): every numeric, list and target setting of every measure command (the
"Measures" and "IOHprofiler's measures" panels of `cocopipe --help`) refuses invalid values (NaN, empty,
negative, zero where a count is asked, huge) with a non-zero exit naming the setting and the value, no
traceback, within the memory bound; where a registered measure declares the setting, Python
(`InvalidSetting`) says the same words.

The cases are generated from the declarations, as scikit-learn's `generate_invalid_param_val` makes them
from parameter constraints: an option is matched to the `Param` of the same name (or `flag`) among the
measures its command computes (`Measure.handwritten`, `Measure.command`), and the invalid values come from
that Param's constraints; a new measure's settings are covered by themselves. Options no measure declares
(the targets, the budgets of `params`, `targets --factor`) get the invalid values of their kind.
"""
from __future__ import annotations

import math
import resource
import time
from dataclasses import dataclass

import pytest
import typer
from typer.testing import CliRunner

from logs import two_algorithm_store
from pipeline.cli import app
from pipeline.measures.registry import InvalidSetting, Interval, Items, Measure, NumberText, Param, load

PANELS = ("Measures", "IOHprofiler's measures")
#: invalid values of any target option, and of a list of budgets as the command line writes one
TARGETS = ("nan", "1e-8,nan", "", ",", " ")
BUDGETS = ("nan", "", ",", "-5", "0", "inf")
#: a count far beyond any machine's memory (every count declares what a unit of it costs)
HUGE = 10 ** 15
#: options the command line reads in a syntax of its own before the measure (budgets: 10x is 10 x dimension):
#: their words are that parser's (`catalog.parse_budgets`), naming the option and the value
OWN_SYNTAX = ("--budgets",)
#: the frame typer draws around a usage error
BOX = str.maketrans(dict.fromkeys("│╭╮╰╯─", " "))
#: the memory bound of the test: the settings' estimates refuse past it, the process may not grow more
LIMIT = "256M"


@dataclass(frozen=True)
class Case:
    """A command line with one invalid value, the setting it names, and the declaration behind it (if any)."""

    args: tuple[str, ...]
    option: str
    value: str
    measure: Measure | None = None
    param: Param | None = None
    #: the type the command line reads the option as
    kind: type = str

    def __str__(self) -> str:
        return " ".join(repr(a) if not a or " " in a else a for a in self.args)


def invalid_values(param: Param) -> list[str]:
    """Values outside every constraint of `param`, as the command line writes them."""
    out: list[str] = []
    for c in param.constraints:
        if isinstance(c, Interval):
            out += ["nan"] if c.kind is int else ["nan", "inf", "-inf"]
            if c.low is not None:
                closed = c.closed in ("both", "left")
                low = int(c.low) if c.kind is int else c.low
                out.append(str(low - 1 if closed else low))
                if low >= 1:
                    out += ["0", "-1"]
            if c.high is not None:
                out.append(str(int(c.high) + 1 if c.kind is int else c.high * 2 + 1))
            if param.memory is not None:
                out.append(str(HUGE))
        elif isinstance(c, NumberText):
            out += ["nan", "inf"]
            if c.low is not None:
                out += [f"{c.low - 1:g}"] + ([] if c.closed else [f"{c.low:g}"])
        elif isinstance(c, Items):  # the item's invalid values, alone and after a valid one; no item; empty items
            item = Param(param.name, None, (c.item,), "")
            out += ["", ",", *invalid_values(item), *(f"{_valid(c.item)},{v}" for v in invalid_values(item)[:2])]
    return [v for v in dict.fromkeys(out) if not any(_accepts(c, v, param) for c in param.constraints)]


def _valid(item: Interval) -> str:
    """A value an item takes, as written."""
    value = item.low if item.low is not None else item.high if item.high is not None else 0
    step = 1 if item.closed in (("both", "left") if item.low is not None else ("both", "right")) else 0.5
    value = value + step if item.low is not None else value - step
    return f"{int(value) if item.kind is int else value:g}" if item.kind is int else f"{value:g}"


def _accepts(constraint, text: str, param: Param) -> bool:
    """Whether a constraint takes the command line's text (a text setting takes any text)."""
    if isinstance(constraint, Items):
        try:
            return constraint.ok(constraint.read(text)) and param.memory is None
        except ValueError:
            return False
    try:
        value = float(text)
    except ValueError:
        return False
    return constraint.ok(int(value) if isinstance(constraint, Interval) and constraint.kind is int and
                         value.is_integer() else value) and param.memory is None


def declared(command: str) -> dict[str, tuple[Measure, Param, tuple[str, ...]]]:
    """The settings the measures of `command` declare, by option name: the measure, the Param and the command
    line that computes that measure (`ecdf --band 0.95` for ecdf.band's replicates)."""
    out: dict[str, tuple[Measure, Param, tuple[str, ...]]] = {}
    for m in load().values():
        line = (m.handwritten or (f"cocopipe {m.command}" if m.command else "")).split()
        if line[1:2] != [command]:
            continue
        for p in m.settings.params:
            flag = p.flag or f"--{p.name.replace('_', '-')}"
            out.setdefault(flag, (m, p, tuple(line[2:])))
    return out


def commands() -> list[tuple[tuple[str, ...], object]]:
    """Every command of the measure panels (a group's subcommands each), by its words."""
    root = typer.main.get_command(app)
    found = []
    for name in root.list_commands(None):
        c = root.get_command(None, name)
        if getattr(c, "rich_help_panel", None) not in PANELS:
            continue
        subs = getattr(c, "commands", None)
        found += [((name, k), v) for k, v in subs.items()] if subs else [((name,), c)]
    return found


#: what a command needs besides the option (a setting of runlength targets, a reference's name)
NEEDS = {("targets", "--budgets"): ("--runlength", "--runlength-reference", "A"),
         ("targets", "--factor"): ("--runlength", "--runlength-reference", "A"), ("reference", "build"): ("--name", "REF")}
#: the options that choose trials, not settings of a measure (--max-budget is one: a size)
SELECTION = ("--store", "--suite", "--algorithm", "--function", "--dimension", "--indicator", "--out", "--executor")


def cases(store: str) -> list[Case]:
    """Every generated case."""
    out = []
    for words, command in commands():
        decl = declared(words[0])
        for p in command.params:
            flag = p.opts[0]
            if getattr(p, "is_flag", True) or flag in SELECTION or not flag.startswith("--"):
                continue
            kind = p.type_descriptor.annotation
            m, param, line = decl.get(flag, (None, None, ()))
            if param is not None and not any(isinstance(c, (Interval, NumberText, Items)) for c in param.constraints):
                continue  # options, names, booleans: no number to refuse
            if param is not None:
                values = invalid_values(param)
            elif flag == "--targets":
                values = list(TARGETS)
            elif flag in ("--budgets", "--max-budget"):
                values = list(BUDGETS)
            elif kind in (int, float):
                values = ["nan", "inf", "-1"] if kind is float else ["nan", "-1"]
            else:
                continue
            fixed = NEEDS.get((*words, flag), NEEDS.get(words, ()))
            out += [Case((*words, *line, *fixed, "--store", store, "--out", "-", flag, v), flag, v, m, param,
                         kind if kind in (int, float) else str) for v in values]
    return out


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> str:
    """Two algorithms on f1 and f2 in 2-D, three trials each; B fails the hardest targets."""
    return two_algorithm_store(tmp_path_factory.mktemp("contract"))


def _shown(value: str) -> set[str]:
    """How a message may write the value given: as given, or as the number typer read."""
    out = {value.strip().lower(), repr(value)}
    if "," in value and value.strip(", "):  # a list: as Python writes it ([0.5, nan]), or its refused item
        parts = [v.strip().lower() for v in value.split(",")]
        out |= {f"[{', '.join(parts)}]", repr(parts[-1])}
    try:
        f = float(value)
        out |= {repr(f).lower(), f"{f:g}"}
        if math.isfinite(f) and f.is_integer():
            out.add(str(int(f)))
    except ValueError:
        pass
    return out


def _python(case: Case) -> str | None:
    """What the declaration says from Python of the value the command line read (None: it takes it, or
    typer refuses it first): the setting's constraints, then those across the measure's settings."""
    try:
        if any(isinstance(c, Items) for c in case.param.constraints):
            value = [float(v) for v in case.value.split(",") if v.strip()]
        else:
            value = case.kind(case.value)
    except ValueError:
        return None
    try:
        case.param.check(value)
        case.measure.settings(**{case.param.name: value})
    except InvalidSetting as exc:
        return str(exc)
    return None


def test_every_measure_command_refuses_invalid_settings_by_name(store, monkeypatch):
    monkeypatch.setenv("COCOPIPE_MEMORY_LIMIT", LIMIT)
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    generated = cases(store)
    covered = {(c.args[0], c.option) for c in generated}
    # the generation reaches what the issue names: a new command's or measure's settings come by themselves
    assert {("art", "--targets"), ("art", "--samples"), ("ecdf", "--replicates"), ("ecdf", "--band"),
            ("rank", "--rounds"), ("aocc", "--upper"), ("aocc", "--lower"), ("fixed-budget-ecdf", "--upper"),
            ("fixed-budget-ecdf", "--budgets"), ("median-runtime", "--targets"), ("ert", "--eval-max"),
            ("budget", "--budgets"), ("params", "--budgets")} <= covered
    start = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    wrong = []
    for case in generated:
        began = time.monotonic()
        r = CliRunner().invoke(app, list(case.args))
        took = time.monotonic() - began
        text = " ".join(r.output.translate(BOX).split()).lower()
        name = case.option.lstrip("-")
        if r.exit_code == 2 and f"invalid value for '{case.option}'" in text:
            continue  # typer's own reading of the type refuses it ('nan' is no integer): it names the option only
        if r.exit_code == 0 or not isinstance(r.exception, SystemExit) or "traceback" in text:
            wrong.append(f"{case}: exit {r.exit_code}, {type(r.exception).__name__}: {r.output.strip()[:200]}")
        elif not ({name, name.replace("-", "_")} & set(text.replace(":", " ").replace("'", " ").split())
                  or name in text) or not any(v in text for v in _shown(case.value) if v):
            wrong.append(f"{case}: the message does not name the setting and the value: {r.output.strip()[:200]}")
        elif took > 20:
            wrong.append(f"{case}: refused after {took:.0f} s")
        elif case.param is not None and case.option not in OWN_SYNTAX and (said := _python(case)) is not None and \
                said.split(": ", 1)[1] not in " ".join(r.output.split()):
            wrong.append(f"{case}: Python says {said!r}, the command line {r.output.strip()[:200]!r}")
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - start
    assert not wrong, "\n".join(wrong)
    assert grown < 2 ** 30, f"the refusals took {grown / 2 ** 20:.0f} MiB"
