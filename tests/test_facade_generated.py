"""The facade is generated (issue 45, slice 3): every registered measure's `Analysis` method is made from its
declaration (`pipeline.binding`), with the declaration's settings and defaults, its docstring the
declaration's; a method written by hand for a registered measure is refused; a default changed in the
declaration is the facade's default at once (before: `a.measure("art")` changed and `a.art()` did not)."""
from __future__ import annotations

import dataclasses
import inspect

import pytest

from pipeline import binding
from pipeline.api import Analysis
from pipeline.measures import registry
from pipeline.measures.registry import Param, load, settings_class

MEASURES = load()


def facade(name: str):
    """The facade function of measure `name` on the class: `Analysis.art`, `Analysis.ecdf` (the family's first
    member), `Analysis.ecdf_summary` (another member)."""
    head, _, member = name.partition(".")
    first = next(n for n in MEASURES if n.partition(".")[0] == head)
    return getattr(Analysis, head if name == first else f"{head}_{member}")


@pytest.mark.parametrize("name", list(MEASURES))
def test_each_facade_method_takes_the_declared_settings_and_defaults(name):
    m, f = MEASURES[name], facade(name)
    assert getattr(f, "__measure__", None) == name  # made by pipeline.binding, not written in api.py
    params = dict(inspect.signature(f).parameters)
    params.pop("self")
    targets = [k for k in ("targets", "reference") if k in params]
    assert targets == (["targets", "reference"] if m.targets else [])
    declared = {p.name: p for p in m.settings.params}
    taken = {k: v for k, v in params.items() if k not in targets}
    assert list(taken) == [p.name for p in m.settings.params if p.required] + [
        p.name for p in m.settings.params if not p.required]
    for k, v in taken.items():
        if declared[k].required:
            assert v.default is inspect.Parameter.empty and v.kind is v.POSITIONAL_OR_KEYWORD
        else:
            assert v.default == declared[k].default and v.kind is v.KEYWORD_ONLY
    assert f.__doc__ == binding.describe(m) and (not m.doc or f.__doc__.endswith(m.doc))


def test_the_families_are_namespaces_and_their_members_methods_too():
    a = Analysis.__new__(Analysis)
    assert sorted(a.ecdf.members()) == ["band", "per_instance", "steps", "summary"]
    assert a.ecdf.summary.__func__.__measure__ == Analysis.ecdf_summary.__measure__ == "ecdf.summary"


def test_a_method_written_by_hand_for_a_registered_measure_is_refused():
    class Toy:
        def art(self, targets=None):
            return "by hand"

    with pytest.raises(TypeError, match=r"^Toy\.art: a facade method of the registered measure 'art' is generated"):
        binding.bind(Toy)


def test_a_default_changed_in_the_declaration_is_the_facades(monkeypatch):
    art = MEASURES["art"]
    params = [dataclasses.replace(p, default=0.9) if p.name == "confidence" else p for p in art.settings.params]
    changed = dataclasses.replace(art, settings=settings_class("art", params))
    monkeypatch.setitem(registry.REGISTRY, "art", changed)

    class Toy:
        def measure(self, name, targets=None, *, reference=None, **settings):
            return name, targets, settings

    binding.bind(Toy)
    assert inspect.signature(Toy.art).parameters["confidence"].default == 0.9
    name, targets, settings = Toy().art([1e-8])
    assert (name, targets, settings["confidence"], settings["samples"]) == ("art", [1e-8], 0.9, 1000)
    assert isinstance(next(p for p in changed.settings.params if p.name == "confidence"), Param)
