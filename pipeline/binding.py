"""The facade's measure methods made from the registry (`pipeline.measures.registry`): every measure gets
one (a required setting positional, the others keyword-only with their declared defaults; the docstring the
declaration's `doc`, else made from it), and a family of measures ("ecdf.steps", "ecdf.summary", ...) is a
namespace, as polars has `df.str.len_chars()`: `a.ecdf.steps()`, `a.ecdf.summary()`, `a.ecdf.band()`;
calling the namespace (`a.ecdf(...)`) is its first member, and each other member is also `a.ecdf_summary()`,
`a.ecdf_band()`, ... (their names before the namespace). No facade method of a registered measure is
written by hand: `bind` refuses one.
"""
from __future__ import annotations

import functools
import inspect
import sys
import types
from collections.abc import Callable
from typing import Any

from .measures.registry import Measure, load

P = inspect.Parameter


def describe(measure: Measure) -> str:
    """A numpydoc docstring of a measure's method: its summary and definition, then its declaration's `doc`
    (prose, parameters and examples), else the parts made from the declaration."""
    defined = f"Defined by: {measure.seed}; computed by `pipeline.engine` (registered as {measure.name!r})."
    if measure.doc:
        return "\n".join([measure.summary, "", defined, "", measure.doc])
    lines = [measure.summary, "", defined, "", "Parameters", "----------"]
    if measure.targets:
        lines += ["targets : str, list of float, frame or None", "    As `target_frame`.",
                  "reference : str, optional", "    With targets=\"runlength\": the reference set."]
    for p in measure.settings.params:
        lines += [f"{p.name} : {p.accepts}, default {p.default!r}", f"    {p.help}"]
    columns = measure.columns_of()
    lines += ["", "Returns", "-------", "polars.LazyFrame", f"    {', '.join(columns) or 'its columns'}"
              + (f"; rows in the order of {', '.join(measure.keys)}." if measure.keys else "."),
              "", "Examples", "--------", "The columns declared, of the sample store's function 1 in 5-D:", "",
              '>>> a = open_store("cocopipe-store", function=1, dimension=5)',
              f">>> a.{measure.name}().collect().columns", repr(list(columns))]
    return "\n".join(lines)


def signature(measure: Measure) -> inspect.Signature:
    """The method's signature: self, the required settings (no default: `a.fixed_budget([10, 100])`),
    targets (and reference) when it reads hitting times, then every other setting keyword-only with its
    declared default."""
    params = [P("self", P.POSITIONAL_OR_KEYWORD)]
    params += [P(p.name, P.POSITIONAL_OR_KEYWORD) for p in measure.settings.params if p.required]
    if measure.targets:
        params += [P("targets", P.POSITIONAL_OR_KEYWORD, default=None), P("reference", P.KEYWORD_ONLY, default=None)]
    params += [P(p.name, P.KEYWORD_ONLY, default=p.default) for p in measure.settings.params if not p.required]
    return inspect.Signature(params)


def method(measure: Measure, owner: type) -> Callable:
    """The facade method of `measure`: `self.measure(name, ...)`, with its signature and docstring."""
    sig = signature(measure)
    name = measure.name

    def call(self, *args, **kwargs):
        bound = sig.bind(self, *args, **kwargs)
        bound.apply_defaults()
        given = dict(bound.arguments)
        given.pop("self")
        return self.measure(name, given.pop("targets", None), reference=given.pop("reference", None), **given)

    # a function of the owner's module (its globals), so that doctest finds the examples of a `doc` there
    made = types.FunctionType(call.__code__, vars(sys.modules[owner.__module__]), name.rsplit(".", 1)[-1],
                              None, call.__closure__)
    made.__qualname__ = f"{owner.__name__}.{name}"
    made.__module__ = owner.__module__
    made.__doc__ = describe(measure)
    made.__signature__ = sig
    made.__measure__ = name
    return made


class Members:
    """The measures of a family bound to an Analysis: `a.ecdf.steps()`, ...; callable as the family's method."""

    def __init__(self, analysis: Any, family: str, call: Callable):
        self._analysis, self._family, self._call = analysis, family, call

    def __call__(self, *args, **kwargs):
        return self._call(self._analysis, *args, **kwargs)

    def __getattr__(self, member: str):
        registered = load().get(f"{self._family}.{member}")
        if registered is None:
            raise AttributeError(f"no measure {self._family}.{member} (members: {', '.join(self.members())})")
        return method(registered, type(self._analysis)).__get__(self._analysis)

    def members(self) -> list[str]:
        """The names of the family's measures."""
        return [n.split(".", 1)[1] for n in load() if n.startswith(self._family + ".")]

    def __dir__(self) -> list[str]:
        return [*super().__dir__(), *self.members()]


class family:  # noqa: N801 - used as a decorator, as `property`
    """A method that is also a namespace of the registered measures "NAME.member": on the class, the method
    itself (its signature and docstring); on an Analysis, `Members`."""

    def __init__(self, call: Callable):
        self.call = call
        functools.update_wrapper(self, call)

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: type | None = None):
        return self.call if obj is None else Members(obj, self.name, self.call)


def bind(owner: type) -> type:
    """`owner` with a method for every registered measure, a namespace for every family (its first member
    called, the others also as head_member); a method of that name written on `owner` is a TypeError."""
    families: set[str] = set()
    for name, measure in load().items():
        head, _, member = name.partition(".")
        generated = method(measure, owner)
        if head in vars(owner) and head not in families:
            raise TypeError(f"{owner.__name__}.{head}: a facade method of the registered measure {name!r} is "
                            "generated from its declaration (pipeline.binding), not written by hand")
        if not member:
            setattr(owner, name, generated)
        elif head not in families:  # the family's first member: the namespace, called as that member
            generated.__name__, generated.__qualname__ = head, f"{owner.__name__}.{head}"
            fam = family(generated)
            fam.__set_name__(owner, head)
            setattr(owner, head, fam)
            families.add(head)
        else:
            generated.__name__ = f"{head}_{member}"
            generated.__qualname__ = f"{owner.__name__}.{head}_{member}"
            setattr(owner, f"{head}_{member}", generated)
    return owner
