"""Write the index of the registered measures, made from their declarations (`pipeline.measures.registry`),
into docs/measures.md and the docstring of `pipeline.measures`, between their markers; and the section of
each measure module marked `<!-- module NAME: begin ... -->` in docs/measures.md, from the registry (its
commands, facade calls and chart kinds) and the module's docstring (its formulas and sources, up to its
examples): a measure is then written in its module, its chart module and its test alone.

    python docs/make_measures.py           # rewrite both
    python docs/make_measures.py --check   # exit 1, naming the stale files (tests/test_measure_contract.py)

Run it after declaring, changing or removing a measure: its declaration is the one source.
"""
from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from pipeline.measures.registry import facade_call, index_docstring, index_markdown, load  # noqa: E402

BEGIN, END = "<!-- index of the measures: begin (python docs/make_measures.py) -->", "<!-- index: end -->"
DOC_BEGIN, DOC_END = "Registered measures (written by `python docs/make_measures.py`):", '"""'
#: a module's section in docs/measures.md
MODULE = re.compile(r"^<!-- module (\w+): begin \(python docs/make_measures.py\) -->\n.*?^<!-- module: end -->", re.S | re.M)


def between(text: str, begin: str, end: str, block: str) -> str:
    """`text` with what lies between the line `begin` and the next `end` replaced by `block`."""
    head, found, rest = text.partition(begin)
    if not found:
        raise SystemExit(f"marker {begin!r} not found")
    _, found, tail = rest.partition(end)
    if not found:
        raise SystemExit(f"marker {end!r} not found after {begin!r}")
    return f"{head}{begin}\n{block}\n{end}{tail}"


def module_section(name: str) -> str:
    """The section of the measure module `name`: a line naming its commands, calls and charts (from the
    registry), then its docstring from the second paragraph up to its examples."""
    module = importlib.import_module(f"pipeline.measures.{name}")
    measures = [m for m in load().values() if m.spec.__module__ == module.__name__]
    commands = ", ".join(f"`cocopipe {m.command}`" for m in measures if m.command)
    calls = ", ".join(f"`{facade_call(m)}`" for m in measures)
    kinds = ", ".join(f"`cocopipe chart {k}`" for m in measures for k in m.charts)
    charts = f"; charts {kinds}, drawn by `pipeline/charts/{name}.py`" if kinds else ""
    head = f"{commands} ({calls}; `pipeline/measures/{name}.py`{charts})."
    doc = module.__doc__.split("\nExamples\n--------\n")[0].strip()
    body = doc.split("\n\n", 1)[1] if "\n\n" in doc else ""
    return f"{head}\n\n{body}"


def modules(text: str) -> str:
    """`text` with each module's section written."""
    return MODULE.sub(lambda m: f"<!-- module {m[1]}: begin (python docs/make_measures.py) -->\n"
                      f"{module_section(m[1])}\n<!-- module: end -->", text)


def written() -> dict[Path, str]:
    """Each file as it should be."""
    md, init = ROOT / "docs" / "measures.md", ROOT / "pipeline" / "measures" / "__init__.py"
    return {md: modules(between(md.read_text(encoding="utf-8"), BEGIN, END, index_markdown())),
            init: between(init.read_text(encoding="utf-8"), DOC_BEGIN, DOC_END, index_docstring())}


def main(argv: list[str]) -> int:
    stale = [path for path, text in written().items() if path.read_text(encoding="utf-8") != text]
    if "--check" in argv:
        for path in stale:
            print(f"{path.relative_to(ROOT)} is out of date: run `python docs/make_measures.py`")
        return 1 if stale else 0
    for path, text in written().items():
        path.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
