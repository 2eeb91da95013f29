"""The facade's measure methods made from the registry (`pipeline.measures.registry`): a measure with no
method of its own gets one (keyword-only settings, a docstring from its declaration), and a family of
measures ("ecdf.steps", "ecdf.summary", ...) is a namespace, as polars has `df.str.len_chars()`:
`a.ecdf.steps()`, `a.ecdf.summary()`, `a.ecdf.band()`; calling the namespace (`a.ecdf(...)`) is its first
member, with the arguments the method had before the namespace.
"""
from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from .measures.registry import Measure, load

P = inspect.Parameter


def describe(measure: Measure) -> str:
    """A numpydoc docstring of a measure's method, from its declaration."""
    lines = [measure.summary, "", f"Defined by: {measure.seed}; computed by `pipeline.engine` (registered as "
             f"{measure.name!r}).", "", "Parameters", "----------"]
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
    """The method's signature: self, targets (and reference) when it reads hitting times, then every
    setting keyword-only with its default."""
    params = [P("self", P.POSITIONAL_OR_KEYWORD)]
    if measure.targets:
        params += [P("targets", P.POSITIONAL_OR_KEYWORD, default=None), P("reference", P.KEYWORD_ONLY, default=None)]
    params += [P(p.name, P.KEYWORD_ONLY, default=p.default) for p in measure.settings.params]
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

    call.__name__ = name.rsplit(".", 1)[-1]
    call.__qualname__ = f"{owner.__name__}.{name}"
    call.__module__ = owner.__module__
    call.__doc__ = describe(measure)
    call.__signature__ = sig
    return call


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
    """`owner` with a method for every registered measure that has none, and a namespace for every family."""
    for name, measure in load().items():
        head = name.split(".", 1)[0]
        if head in vars(owner):
            continue
        generated = method(measure, owner)
        if "." in name:
            generated.__name__ = generated.__qualname__ = head
            fam = family(generated)
            fam.__set_name__(owner, head)
            setattr(owner, head, fam)
        else:
            setattr(owner, name, generated)
    return owner
