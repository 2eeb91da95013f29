"""Write the index of the registered measures, made from their declarations (`pipeline.measures.registry`),
into docs/measures.md and the docstring of `pipeline.measures`, between their markers.

    python docs/make_measures.py           # rewrite both
    python docs/make_measures.py --check   # exit 1, naming the stale files (tests/test_measure_contract.py)

Run it after declaring, changing or removing a measure: its declaration is the one source.
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from pipeline.measures.registry import index_docstring, index_markdown  # noqa: E402 - the clone's package

BEGIN, END = "<!-- index of the measures: begin (python docs/make_measures.py) -->", "<!-- index: end -->"
DOC_BEGIN, DOC_END = "Registered measures (written by `python docs/make_measures.py`):", '"""'


def between(text: str, begin: str, end: str, block: str) -> str:
    """`text` with what lies between the line `begin` and the next `end` replaced by `block`."""
    head, found, rest = text.partition(begin)
    if not found:
        raise SystemExit(f"marker {begin!r} not found")
    _, found, tail = rest.partition(end)
    if not found:
        raise SystemExit(f"marker {end!r} not found after {begin!r}")
    return f"{head}{begin}\n{block}\n{end}{tail}"


def written() -> dict[Path, str]:
    """Each file as it should be."""
    md, init = ROOT / "docs" / "measures.md", ROOT / "pipeline" / "measures" / "__init__.py"
    return {md: between(md.read_text(encoding="utf-8"), BEGIN, END, index_markdown()),
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
