"""Every measure declared once, as a `Measure`: what it reads, its key columns and row order, its settings
with their constraints, its Polars specification (and private kernel), how it may be split for the
execution plan, and the chart kinds that draw it. `pipeline.engine` runs any of them; the `Analysis`
facade, the generated commands and the measure index of the docs are made from `REGISTRY`.

Settings are frozen dataclasses whose constraints are declared once, as scikit-learn declares its
parameter constraints (`Interval`, `Options`, `Kind`): the same declaration makes the validation, the
error text, the help of a command's option and the docs entry.

>>> s = settings_class("demo", [Param("level", 0.95, (Interval(float, 0, 1, "neither"),), "Confidence level.")])
>>> s(level=0.9).level
0.9
>>> s(level=2)
Traceback (most recent call last):
...
pipeline.measures.registry.InvalidSetting: level 2: expected a number in (0, 1)
"""
from __future__ import annotations

import dataclasses
import functools
import importlib
import math
import os
import pkgutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from numbers import Integral, Real
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # declaring a measure loads no library (the command line reads the declarations)
    import polars as pl

    from ..selection import Selection

#: what a measure may read of a selection's trials
INPUTS = ("runs", "records", "hits", "archive")


class InvalidSetting(ValueError):
    """A setting outside its declared constraints; the message names the setting, the value and what it takes."""

    def __init__(self, message: str, setting: str | None = None):
        super().__init__(message)
        #: the setting's name (None: an unknown name)
        self.setting = setting


# -- constraints ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Interval:
    """A number of `kind` (int or float) between `low` and `high` (None: unbounded), `closed` at "both",
    "left", "right" or "neither" end."""

    kind: type
    low: float | None = None
    high: float | None = None
    closed: str = "both"

    def ok(self, value: Any) -> bool:
        """Whether `value` is such a number (finite: NaN and infinities are no setting's value)."""
        if isinstance(value, bool) or not isinstance(value, Integral if self.kind is int else Real):
            return False
        if not isinstance(value, Integral) and not math.isfinite(value):
            return False
        left = self.low is None or (value >= self.low if self.closed in ("both", "left") else value > self.low)
        right = self.high is None or (value <= self.high if self.closed in ("both", "right") else value < self.high)
        return left and right

    def read(self, text: str) -> Any:
        """The number a command line writes (`kind`: an integer kind reads 1e3 as 1000.0, refused by `ok`)."""
        t = text.strip()
        if self.kind is int:
            try:
                return int(t)
            except ValueError:
                pass
        return float(t)

    @property
    def text(self) -> str:
        """What it takes, in words."""
        what = "an integer" if self.kind is int else "a number"
        if self.low is None and self.high is None:
            return what if self.kind is int else "a finite number"
        if self.high is None:
            return f"{what} {'>=' if self.closed in ('both', 'left') else '>'} {self.low:g}"
        if self.low is None:
            return f"{what} {'<=' if self.closed in ('both', 'right') else '<'} {self.high:g}"
        lo = "[" if self.closed in ("both", "left") else "("
        hi = "]" if self.closed in ("both", "right") else ")"
        return f"{what} in {lo}{self.low:g}, {self.high:g}{hi}"


@dataclass(frozen=True)
class Options:
    """One of some strings."""

    values: tuple[str, ...]

    def ok(self, value: Any) -> bool:
        """Whether `value` is one of them."""
        return isinstance(value, str) and value in self.values

    def read(self, text: str) -> str:
        """The text itself."""
        return text.strip()

    @property
    def text(self) -> str:
        """What it takes, in words."""
        return "one of " + ", ".join(self.values)


@dataclass(frozen=True)
class Kind:
    """A value of some Python types, said in words (None, a boolean, a list of numbers, ...)."""

    types: tuple[type, ...]
    text: str
    each: type | None = None

    def ok(self, value: Any) -> bool:
        """Whether `value` is of those types (and, with `each`, its items of that type)."""
        if not isinstance(value, self.types) or (bool not in self.types and isinstance(value, bool)):
            return False
        return self.each is None or all(isinstance(v, self.each) and not isinstance(v, bool) for v in value)

    def read(self, text: str) -> Any:
        """The value a command line writes: none, true/false, a text, or items separated by commas."""
        t = text.strip()
        if type(None) in self.types:
            if t.lower() not in ("none", "null"):
                raise ValueError(f"{text!r} is not None")
            return None
        if bool in self.types:
            if t.lower() not in BOOLEANS:
                raise ValueError(f"{text!r} is not a boolean")
            return BOOLEANS[t.lower()]
        if self.each is None:
            return text
        items = [v.strip() for v in t.split(",")]
        return tuple(items) if self.each is str else tuple(_number(v) for v in items)


@dataclass(frozen=True)
class Items:
    """A non-empty list (or tuple) of numbers, each one `item` (an `Interval`)."""

    item: Interval

    def ok(self, value: Any) -> bool:
        """Whether `value` is such a list."""
        return isinstance(value, (list, tuple)) and len(value) > 0 and all(self.item.ok(v) for v in value)

    def read(self, text: str) -> tuple:
        """Items separated by commas (10,100), each read as `item` reads one (an empty text: no items)."""
        return tuple(self.item.read(v) for v in text.split(",")) if text.strip() else ()

    @property
    def text(self) -> str:
        """What it takes, in words."""
        words = self.item.text
        for one, many in (("an integer", "integers"), ("a finite number", "finite numbers"), ("a number", "numbers")):
            words = words.replace(one, many)
        return f"a list of {words}"


@dataclass(frozen=True)
class Frame:
    """A Polars frame, eager or lazy (polars is imported only to check one)."""

    text: str = "a frame"

    def ok(self, value: Any) -> bool:
        """Whether `value` is a polars DataFrame or LazyFrame."""
        import sys

        pl = sys.modules.get("polars")  # no frame can exist before polars is loaded
        return pl is not None and isinstance(value, (pl.DataFrame, pl.LazyFrame))

    def read(self, text: str) -> Any:
        """No command line writes a frame."""
        raise ValueError("a command line writes no frame")


@dataclass(frozen=True)
class NumberText:
    """A finite number written as text (as a command line gives it), above `low` (at or above it when
    `closed`; None: any)."""

    low: float | None = 0.0
    closed: bool = False

    def ok(self, value: Any) -> bool:
        """Whether `value` is a text that reads as such a number."""
        try:
            number = float(value) if isinstance(value, str) else math.nan
        except ValueError:
            return False
        return math.isfinite(number) and (self.low is None or number > self.low or (self.closed and number == self.low))

    def read(self, text: str) -> str:
        """The text itself."""
        return text.strip()

    @property
    def text(self) -> str:
        """What it takes, in words."""
        if self.low is None:
            return "a finite number as text"
        return f"a number {'>=' if self.closed else '>'} {self.low:g} as text"


#: how a command line writes a boolean
BOOLEANS = {"true": True, "yes": True, "on": True, "1": True, "false": False, "no": False, "off": False, "0": False}


def _number(text: str) -> Any:
    """An item of a list of numbers as written: an integer, else a float, else the text (refused by `ok`)."""
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


NONE = Kind((type(None),), "None")
BOOL = Kind((bool,), "true or false")
TEXT = Kind((str,), "a text")
NUMBERS = Kind((list, tuple), "a list of numbers", Real)
NAMES = Kind((list, tuple), "a list of names", str)
FRAME = Frame()


# -- settings ------------------------------------------------------------------------------------------------
#: the environment variable that sets the memory a measure's settings may imply (`memory_limit`)
MEMORY_LIMIT = "COCOPIPE_MEMORY_LIMIT"
_UNITS = {"": 1, "k": 2 ** 10, "m": 2 ** 20, "g": 2 ** 30, "t": 2 ** 40}


def memory_limit() -> int:
    """The bytes a measure's count settings may imply (`Memory`): `COCOPIPE_MEMORY_LIMIT` (bytes, or with
    K, M, G, T: 8G, 512MiB), else half of this machine's memory."""
    text = os.environ.get(MEMORY_LIMIT, "").strip()
    if text:
        number, unit = text.lower().rstrip("b").removesuffix("i"), ""
        if number[-1:] in _UNITS:
            number, unit = number[:-1], number[-1]
        try:
            limit = float(number) * _UNITS[unit]
        except ValueError:
            limit = math.nan
        if not math.isfinite(limit) or limit <= 0:
            raise InvalidSetting(f"environment {MEMORY_LIMIT} {text!r}: expected a size such as 8G, 512M or "
                                 "8589934592")
        return int(limit)
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 2
    except (ValueError, OSError, AttributeError):  # no sysconf: 4 GiB
        return 4 * 2 ** 30


@dataclass(frozen=True)
class Extent:
    """The size of a selection as the memory estimates (`Memory`) read it: its `trials`, its first hitting
    times (`hits`: trials x targets), its (problem, target) `cells`, and the cells of its largest (suite,
    algorithm, dimension) (`block_cells`: the measures drawn one such block at a time)."""

    trials: int
    hits: int
    cells: int
    block_cells: int


#: how each field of `Extent` is said in a message
EXTENT_WORDS = {"trials": "trials", "hits": "(trial, target) pairs", "cells": "(problem, target) pairs",
                "block_cells": "(function, target) pairs of one algorithm and dimension"}


@dataclass(frozen=True)
class Memory:
    """What a count setting costs: about `bytes` per unit of the setting and per `per` (a field of `Extent`),
    e.g. samples x (problem, target) pairs x 8 bytes."""

    bytes: float
    per: str


def _size(n: float) -> str:
    """Bytes in words: 298 GiB, 3.9 GiB, 12 MiB."""
    for unit, scale in (("TiB", 2 ** 40), ("GiB", 2 ** 30), ("MiB", 2 ** 20)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n / 2 ** 10:.3g} KiB"


@dataclass(frozen=True)
class Param:
    """A setting: its name, default, constraints (any one satisfied is enough) and one line of help;
    `memory`: what each unit of it costs (a count: checked against `memory_limit` on the selection);
    `required`: the measure takes no default (the default stands for the declared columns only); `flag`."""

    name: str
    default: Any
    constraints: tuple
    help: str
    #: offered as an option of the measure's generated command
    option: bool = True
    memory: Memory | None = None
    required: bool = False
    #: the option of the measure's command that sets it, where not --name (`ecdf --band` sets ecdf.band's level)
    flag: str | None = None

    @property
    def accepts(self) -> str:
        """What the setting takes, in words."""
        return " or ".join(c.text for c in self.constraints)

    def check(self, value: Any) -> Any:
        """`value` as given (a list as a tuple), or `InvalidSetting` naming the setting and what it takes."""
        if not any(c.ok(value) for c in self.constraints):
            raise InvalidSetting(f"{self.name} {value!r}: expected {self.accepts}", setting=self.name)
        return tuple(value) if isinstance(value, list) else value

    def parse(self, text: str) -> Any:
        """The value a command line (an option, `chart -O`) writes, read by the first constraint that reads and
        takes it, then checked as `check` checks a Python value: the same `InvalidSetting` (naming the value
        read, as Python would have given it, when a constraint reads it but none takes it)."""
        read = []
        for c in self.constraints:
            try:
                value = c.read(text)
            except ValueError:
                continue
            if c.ok(value):
                return self.check(value)
            read.append(value)
        shown = text  # as Python would have given it: 5 (not 5.0), [-5] (not (-5.0,))
        if read and isinstance(read[0], tuple) and text.strip():
            shown = [_number(v.strip()) for v in text.split(",")]
        elif read and isinstance(read[0], Real) and not isinstance(read[0], bool):
            shown = _number(text.strip())
        raise InvalidSetting(f"{self.name} {shown!r}: expected {self.accepts}", setting=self.name)

    def check_memory(self, value: Any, extent: Extent, limit: int) -> None:
        """`InvalidSetting` when `value` implies more than `limit` bytes on a selection of this `extent`."""
        if self.memory is None or not isinstance(value, Real):
            return
        count = getattr(extent, self.memory.per)
        need = float(value) * count * self.memory.bytes
        if need > limit:
            raise InvalidSetting(
                f"{self.name} {value!r}: needs about {_size(need)} of memory ({value:g} x {count} "
                f"{EXTENT_WORDS[self.memory.per]} x {self.memory.bytes:g} bytes), above the limit of {_size(limit)} "
                f"(environment {MEMORY_LIMIT}; default half of this machine's memory)", setting=self.name)


@dataclass(frozen=True)
class Check:
    """A constraint across settings: `ok(settings)` must hold, else the setting `name` is refused with
    `text` (what it takes, in words, given the others)."""

    name: str
    ok: Callable[[Any], bool]
    text: Callable[[Any], str]


class Settings:
    """The base of every measure's settings: a frozen dataclass whose fields `__post_init__` checks."""

    measure: str = ""
    params: tuple[Param, ...] = ()
    checks: tuple[Check, ...] = ()

    def __post_init__(self) -> None:
        for p in self.params:
            value = getattr(self, p.name)
            if not (p.required and value is p.default):
                object.__setattr__(self, p.name, p.check(value))
        for c in self.checks:
            if not c.ok(self):
                raise InvalidSetting(f"{c.name} {getattr(self, c.name)!r}: expected {c.text(self)}", setting=c.name)

    def asdict(self) -> dict[str, Any]:
        """The settings by name."""
        return {p.name: getattr(self, p.name) for p in self.params}

    def costly(self) -> bool:
        """Whether a count setting is above its default (only then is its memory estimated: a default is
        what the measure costs anyway)."""
        return any(p.memory is not None and isinstance(v := getattr(self, p.name), Real)
                   and (p.default is None or v > p.default) for p in self.params)

    def check_memory(self, extent: Extent) -> None:
        """`InvalidSetting` naming the first count setting whose memory on `extent` is above `memory_limit`."""
        limit = memory_limit()
        for p in self.params:
            p.check_memory(getattr(self, p.name), extent, limit)


def settings_class(measure: str, params: Sequence[Param], checks: Sequence[Check] = ()) -> type[Settings]:
    """The frozen, keyword-only settings dataclass of `measure`, its fields `params`, `checks` across them."""
    fields = [(p.name, Any, field(default=p.default)) for p in params]
    name = "".join(w.capitalize() for w in measure.replace(".", "_").replace("-", "_").split("_")) + "Settings"
    cls = dataclasses.make_dataclass(name, fields, bases=(Settings,), frozen=True, kw_only=True,
                                     namespace={"measure": measure, "params": tuple(params),
                                                "checks": tuple(checks)})
    cls.__module__ = __name__
    return cls


# -- inputs --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Inputs:
    """What a measure's specification reads of one part of a selection: its trials (`runs`), records
    (`records`), first hitting times of `targets` (`hits`), archived bbob-biobj points (`archive`), and
    what `Measure.prepare` computed once on
    the whole selection (`shared`). `plan` and `kept` are the execution plan and the facade's kept ECDF
    trials, for the specifications that use them."""

    selection: Selection
    targets: pl.DataFrame | None = None
    shared: Any = None
    plan: Any = None
    kept: Any = None

    def runs(self) -> pl.LazyFrame:
        """The part's trials, cut at the budget."""
        return self.selection.runs()

    def records(self) -> pl.LazyFrame:
        """The part's records, cut at the budget."""
        return self.selection.events()

    def hits(self) -> pl.LazyFrame:
        """The part's first hitting times of `targets`."""
        return self.selection.hits(self.targets.lazy())

    def archive(self) -> pl.LazyFrame:
        """The store's archived bbob-biobj points (the table `archive`; join it with `runs` to select)."""
        return self.selection.store.archive()


# -- the measure ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Measure:
    """A measure, declared once.

    `name` is its facade method ("art") or namespace and method ("ecdf.steps"); `spec(inputs, settings)`
    its Polars specification on one part of a selection (`kernel`: "module:function" of its private fast
    path's readable twin, where it has one); `keys` (with `descending`) the key columns and
    the row order; `groupable`: independent per algorithm (computed per group of algorithms, `balance`d
    or not, each part `presorted` or not); else `split` the selection columns it is independent along
    (e.g. suite), or () for one part; `whole_locally`: on threads, one query on the whole selection;
    `quantities`: measured on precisions and on the logged values of runs without a known optimum
    apart (column quantity); `prepare(inputs, settings)` computes once, on the whole selection, what
    every part shares; `columns` (or `columns(settings)`) the columns of its result, empty or not;
    `command`: the name of the command generated from this declaration; `handwritten`: else the command
    line of a command of its own; `charts`: the chart kinds that draw it."""

    name: str
    summary: str
    seed: str
    inputs: tuple[str, ...]
    keys: tuple[str, ...]
    settings: type[Settings]
    spec: Callable[[Inputs, Settings], pl.LazyFrame]
    columns: tuple[str, ...] | Callable[[Settings], tuple[str, ...]]
    descending: tuple[bool, ...] = ()
    kernel: str | None = None
    groupable: bool = True
    balance: bool = False
    presorted: bool = False
    split: tuple[str, ...] = ()
    whole_locally: bool = False
    quantities: bool = False
    targets: bool = True
    prepare: Callable[[Inputs, Settings], Any] | None = None
    charts: tuple[str, ...] = ()
    command: str | None = None
    handwritten: str | None = None

    def __post_init__(self) -> None:
        if unknown := set(self.inputs) - set(INPUTS):
            raise ValueError(f"measure {self.name}: unknown inputs {sorted(unknown)} (expected {', '.join(INPUTS)})")
        if self.descending and len(self.descending) != len(self.keys):
            raise ValueError(f"measure {self.name}: one `descending` per key column")

    @property
    def order(self) -> list[tuple[str, bool]]:
        """The (column, descending) pairs of the row order."""
        return list(zip(self.keys, self.descending or [False] * len(self.keys)))

    def configure(self, **settings) -> Settings:
        """The settings object (unknown names: `InvalidSetting` listing the known ones)."""
        known = [p.name for p in self.settings.params]
        if unknown := [k for k in settings if k not in known]:
            raise InvalidSetting(f"{self.name}: unknown setting {unknown[0]!r} (settings: {', '.join(known) or 'none'})")
        checked = self.settings(**settings)
        for p in self.settings.params:
            if p.required and p.name not in settings:
                raise InvalidSetting(f"{self.name}: setting {p.name!r} is required ({p.accepts})", setting=p.name)
            if p.required:  # the default itself given: checked here (the settings take it for none given)
                p.check(settings[p.name])
        return checked

    def columns_of(self, settings: Settings | None = None) -> tuple[str, ...]:
        """The declared columns of its result with these settings (default: the defaults)."""
        settings = settings or self.settings()
        return tuple(self.columns(settings) if callable(self.columns) else self.columns)


#: every measure by name, in the order of the docs' index
REGISTRY: dict[str, Measure] = {}


def register(measure: Measure) -> Measure:
    """Add `measure` to `REGISTRY` (a name registered twice is an error)."""
    if measure.name in REGISTRY and REGISTRY[measure.name] is not measure:
        raise ValueError(f"measure {measure.name!r} is registered twice")
    REGISTRY[measure.name] = measure
    return measure


#: how a module of `pipeline.measures` that declares measures imports the registry
DECLARES = "from .registry import"


@functools.cache
def declaring_modules() -> tuple[str, ...]:
    """The modules of `pipeline.measures` that declare measures (they import this one: read from their text,
    so that finding them loads no library), the catalogue of the existing measures first. Read once per
    process: a report's tasks asked for it at every measure (2 ms: the modules' files read)."""
    folder = Path(__file__).parent
    names = [m.name for m in pkgutil.iter_modules([str(folder)]) if not m.ispkg and not m.name.startswith("_")
             and m.name not in ("registry", "catalog")]
    return ("catalog", *sorted(n for n in names if DECLARES in (folder / f"{n}.py").read_text(encoding="utf-8")))


def load() -> dict[str, Measure]:
    """`REGISTRY` with every declared measure registered (a new measure's module declares itself)."""
    for name in declaring_modules():
        importlib.import_module(f"{__package__}.{name}")
    return REGISTRY


def get(name: str) -> Measure:
    """The measure `name`, or a ValueError listing the registered ones."""
    registry = load()
    if name not in registry:
        raise ValueError(f"unknown measure {name!r}: expected one of {', '.join(registry)}")
    return registry[name]


# -- the index of the docs, made from the declarations ---------------------------------------------------------
def facade_call(measure: Measure) -> str:
    """How the facade calls a measure: `Analysis.art(targets, ...)`, `Analysis.ecdf.steps(...)`."""
    args = ["targets"] if measure.targets else []
    if measure.settings.params:
        args.append("...")
    return f"Analysis.{measure.name}({', '.join(args)})"


def settings_text(measure: Measure) -> str:
    """A measure's settings in one line: name=default (what it takes), ..."""
    return "; ".join(f"{p.name}={p.default!r} ({p.accepts})" for p in measure.settings.params) or "none"


def index_markdown() -> str:
    """The index of the registered measures as a Markdown table (docs/measures.md)."""
    rows = ["| measure | Python | command | defined by | settings | charts | declared in |",
            "| --- | --- | --- | --- | --- | --- | --- |"]
    for m in load().values():
        command = f"`cocopipe {m.command}`" if m.command else f"`{m.handwritten}`" if m.handwritten else "-"
        charts = ", ".join(m.charts) or "-"
        where = f"`pipeline/measures/{m.spec.__module__.rsplit('.', 1)[-1]}.py`"
        rows.append(f"| **{m.name}**: {m.summary} | `{facade_call(m)}` | {command} | {m.seed} | "
                    f"{settings_text(m).replace('|', '/')} | {charts} | {where} |")
    return "\n".join(rows)


def index_docstring() -> str:
    """The index of the registered measures as lines of a docstring (`pipeline.measures`)."""
    import textwrap

    return "\n".join(textwrap.fill(f"- {m.name!r} (`{facade_call(m)}`): {m.summary}", 110, subsequent_indent="  ")
                     for m in load().values())
