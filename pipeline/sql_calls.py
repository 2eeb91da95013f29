"""The functions a SQL text calls, found token by token: strings, quoted identifiers and comments are
read as such, so a name inside a string or a comment is no call, and a quoted name or a comment
between a name and its `(` hides none.

Where SQL dialects differ (a backslash escaping a quote inside a string, comments nested in
comments, `[name]` as a quoted name), every reading is taken and their calls joined: a text cannot hide a call from this
reader that the SQL engine would make.
"""
from __future__ import annotations

import itertools
import re

_WORD = re.compile(r"\w+")
_CLOSE = {'"': '"', "`": "`", "[": "]"}


def calls(sql: str) -> list[str]:
    """Names of the functions `sql` calls (an identifier, bare or quoted, before `(`), in order of
    first appearance, under every reading of the dialect's differences."""
    out: dict[str, None] = {}
    for backslash, nested, brackets in itertools.product((False, True), repeat=3):
        out.update(dict.fromkeys(_calls(sql, backslash, nested, brackets)))
    return list(out)


def _calls(sql: str, backslash: bool, nested: bool, brackets: bool) -> list[str]:
    found, name = [], None  # `name`: the last identifier, until something other than blanks follows it
    i, n = 0, len(sql)
    while i < n:
        c = sql[i]
        if c.isspace():
            i += 1
        elif sql.startswith("--", i):
            end = sql.find("\n", i)
            i = n if end < 0 else end + 1
        elif sql.startswith("/*", i):
            i = _comment_end(sql, i, nested)
        elif c == "'":
            i, name = _quoted_end(sql, i, "'", backslash), None
        elif c in _CLOSE and (brackets or c != "["):
            end = _quoted_end(sql, i, _CLOSE[c], False)
            name = sql[i + 1:end - 1].replace(_CLOSE[c] * 2, _CLOSE[c])
            i = end
        elif c == "_" or c.isalnum():
            m = _WORD.match(sql, i)
            name, i = m.group(), m.end()
        else:
            if c == "(" and name is not None:
                found.append(name)
            name, i = None, i + 1
    return found


def _quoted_end(sql: str, i: int, close: str, backslash: bool) -> int:
    """The index after the quoted text opening at `i` (a doubled closing quote is one quote in it)."""
    j, n = i + 1, len(sql)
    while j < n:
        if backslash and sql[j] == "\\":
            j += 2
        elif sql[j] == close:
            if sql.startswith(close, j + 1):
                j += 2
            else:
                return j + 1
        else:
            j += 1
    return n


def _comment_end(sql: str, i: int, nested: bool) -> int:
    """The index after the /* comment */ opening at `i`."""
    depth, j, n = 0, i, len(sql)
    while j < n:
        if sql.startswith("/*", j):
            depth = depth + 1 if nested or depth == 0 else depth
            j += 2
        elif sql.startswith("*/", j):
            depth -= 1
            j += 2
            if depth == 0:
                return j
        else:
            j += 1
    return n
