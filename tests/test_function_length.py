"""No function in pipeline/ over 80 lines (issue 30): a function's own lines, from its `def` to its end,
less the functions defined inside it (each of those counts on its own, e.g. the commands a module's
`register` defines). The functions still over are listed with their length: the list only shrinks (a
listed function may not grow, and one split is taken off the list)."""
from __future__ import annotations

import ast
from pathlib import Path

PIPELINE = Path(__file__).resolve().parent.parent / "pipeline"
LIMIT = 80
#: (module, function): its length today; to be split (none left: a function over the limit fails the test)
LONG: dict[tuple[str, str], int] = {}


def own_lines(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """The lines of `fn` less those of the functions defined in it (with their decorators)."""
    inner = 0
    todo = list(ast.iter_child_nodes(fn))
    while todo:
        node = todo.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            inner += node.end_lineno - node.lineno + 1 + len(node.decorator_list)
        else:
            todo.extend(ast.iter_child_nodes(node))
    return fn.end_lineno - fn.lineno + 1 - inner


def long_functions(root: Path = PIPELINE) -> dict[tuple[str, str], int]:
    """(module, function) -> own lines, of every function of `root` over `LIMIT` lines."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and (n := own_lines(node)) > LIMIT:
                out[(path.relative_to(root).as_posix(), node.name)] = n
    return out


def test_no_function_over_80_lines_but_the_listed_ones_and_none_grows():
    found = long_functions()
    new = {k: n for k, n in found.items() if k not in LONG}
    grown = {k: (LONG[k], n) for k, n in found.items() if k in LONG and n > LONG[k]}
    assert not new, f"functions over {LIMIT} lines (split them): {new}"
    assert not grown, f"listed functions that grew (listed length, now): {grown}"


def test_the_list_has_no_function_already_split():
    assert sorted(set(LONG) - set(long_functions())) == []


def test_nested_functions_count_on_their_own(tmp_path):
    body = "".join(f"    x{i} = {i}\n" for i in range(70))
    inner = "    def inner():\n" + "".join(f"        y{i} = {i}\n" for i in range(30))
    (tmp_path / "m.py").write_text(f"def outer():\n{body}{inner}    return inner\n\ndef long():\n{body}{body}")
    assert long_functions(tmp_path) == {("m.py", "long"): 141}
