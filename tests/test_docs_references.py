"""Every code reference of the documentation names something that exists.

The rule, kept narrow so that it never guesses: a reference is a backticked span of README.md, docs/*.md
or a docstring of `pipeline` that is a dotted Python name (`a.b`, `a.b.c`: identifiers joined by dots,
nothing else: no call, no space, no slash) whose first part is ours: `pipeline`, the last part of a
module of `pipeline` (`runtime`, `spec`, `ranking`) or a public class defined in one (`Analysis`,
`Budget`); not a function's name, which is also the usual name of a parameter (`plan.group_size`).
It resolves when some such module or class, followed by getattr of the remaining parts (importing
submodules on the way; a dataclass field counts), exists. Skipped: spans whose last part is a file extension
(`report.md`, `index.html`); spans whose first part is not ours (`pl.col`, `numpy.random`, column and
file names).
"""
from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
from functools import cache
from pathlib import Path

import pytest

import pipeline
from conftest import ROOT

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
#: a backticked span that is a dotted Python name
DOTTED = re.compile(r"`([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)`")
#: last parts that make a span a file name, not a code path
EXTENSIONS = {"md", "py", "toml", "txt", "json", "csv", "html", "parquet", "sql", "dat", "tdat", "rdat", "info",
              "png", "svg", "zip", "tgz", "gz", "tar", "yaml", "yml", "cfg", "js", "css", "lock", "log", "pkl"}


@cache
def module_names() -> list[str]:
    """Every module of the package."""
    return ["pipeline", *sorted(m.name for m in pkgutil.walk_packages(pipeline.__path__, "pipeline."))]


@cache
def roots() -> dict[str, list[object]]:
    """What a reference's first part may name: `pipeline`, a module by its last part, a public class by
    its name (defined in a module of `pipeline`)."""
    found: dict[str, list[object]] = {"pipeline": [pipeline]}
    for name in module_names():
        module = importlib.import_module(name)
        found.setdefault(name.rsplit(".", 1)[-1], []).append(module)
        for attr, value in vars(module).items():
            if (not attr.startswith("_") and inspect.isclass(value)
                    and getattr(value, "__module__", "") == name):
                found.setdefault(attr, []).append(value)
    return found


def resolves(obj: object, parts: list[str]) -> bool:
    """Whether getattr along `parts` from `obj` exists (a submodule is imported when asked for)."""
    for part in parts:
        if inspect.ismodule(obj) and not hasattr(obj, part):
            try:
                obj = importlib.import_module(f"{obj.__name__}.{part}")
                continue
            except ImportError:
                return False
        if not hasattr(obj, part) and not _annotated(obj, part):
            return False
        obj = getattr(obj, part, None)
    return True


def _annotated(obj: object, part: str) -> bool:
    """A dataclass field or an annotated attribute that has no class-level value."""
    return part in getattr(obj, "__annotations__", {}) or part in getattr(obj, "__dataclass_fields__", {})


def unresolved(text: str) -> list[str]:
    """The references of `text` (by the rule above) that name nothing."""
    bad = []
    for ref in DOTTED.findall(text):
        first, *rest = ref.split(".")
        if rest[-1] in EXTENSIONS or first not in roots():
            continue
        if not any(resolves(obj, rest) for obj in roots()[first]):
            bad.append(ref)
    return bad


def docstrings() -> list[tuple[str, str]]:
    """Every docstring of the package's modules, classes and functions, with where it is."""
    out = []
    for name in module_names():
        path = Path(importlib.import_module(name).__file__)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                doc = ast.get_docstring(node, clean=False)
                if doc:
                    out.append((f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 1)}", doc))
    return out


def test_the_rule_finds_what_does_not_exist():
    """A reference to a missing name is found; existing ones, file names and foreign names pass."""
    assert unresolved("see `runtime.hitting_times` and `pipeline.measures.nothing`") == [
        "runtime.hitting_times", "pipeline.measures.nothing"]
    assert unresolved("`spec.hitting_times`, `pipeline.hits.spec.hitting_times`, `Analysis.hits`, "
                      "`ranking.rank_by_auc`, `Budget.parse`, `report.md`, `pl.col`, `plan.group_size`") == []


@pytest.mark.parametrize("path", DOCS, ids=[p.name for p in DOCS])
def test_doc_references_exist(path):
    """Every code reference of README.md and docs/*.md names an existing object."""
    bad = unresolved(path.read_text(encoding="utf-8"))
    assert not bad, f"{path.name} names what does not exist: {', '.join(bad)}"


def test_docstring_references_exist():
    """Every code reference of a docstring of `pipeline` names an existing object."""
    bad = [f"{where}: {ref}" for where, doc in docstrings() for ref in unresolved(doc)]
    assert not bad, "docstrings name what does not exist:\n" + "\n".join(bad)
