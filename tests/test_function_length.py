"""No function in pipeline/ over 80 lines (issues 30, 45): a function counted from its `def` to its last line,
the functions defined inside it included (a module's `register` that defines its commands counts them: the
commands are module functions, which `register` adds)."""
from __future__ import annotations

import ast
from pathlib import Path

PIPELINE = Path(__file__).resolve().parent.parent / "pipeline"
LIMIT = 80


def lines(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """The lines of `fn` from its `def` to its end (its decorators aside)."""
    return fn.end_lineno - fn.lineno + 1


def long_functions(root: Path = PIPELINE) -> dict[tuple[str, str], int]:
    """(module, function) -> lines, of every function of `root` over `LIMIT` lines."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and (n := lines(node)) > LIMIT:
                out[(path.relative_to(root).as_posix(), node.name)] = n
    return out


def test_no_function_over_80_lines():
    found = long_functions()
    assert not found, f"functions over {LIMIT} lines from def to end (split them): {found}"


def test_nested_functions_count_in_the_function_that_holds_them(tmp_path):
    body = "".join(f"    x{i} = {i}\n" for i in range(70))
    inner = "    def inner():\n" + "".join(f"        y{i} = {i}\n" for i in range(30))
    (tmp_path / "m.py").write_text(f"def outer():\n{body}{inner}    return inner\n\ndef short():\n{body}")
    # outer: its def, 70 lines, inner's 31, the return
    assert long_functions(tmp_path) == {("m.py", "outer"): 103}
