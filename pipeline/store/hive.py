"""Hive partition folder names (`key=value`): the value percent-encoded so that any string is one
safe folder name that Polars, pyarrow and DuckDB decode back to it.

Hive itself escapes `"#%'*/:=?\\{[]^`, DEL and the control characters; we escape every character
but ASCII letters, digits, `-_.~` and space (non-ASCII as its UTF-8 bytes), so that no file system
alters a name (Unicode normalization) and no reader mistakes one (`=`, `/`, `+`).
"""
from __future__ import annotations

from urllib.parse import quote, unquote

#: the value hive readers (Polars, pyarrow) read as null, whatever its escaping: no name can be it
NULL = "__HIVE_DEFAULT_PARTITION__"
#: longest folder name most file systems take, in bytes
NAME_MAX = 255


def encode(value: str) -> str:
    """The percent-encoded partition value."""
    return quote(value, safe=" ")


def decode(segment: str) -> str:
    """The partition value of an encoded folder-name segment."""
    return unquote(segment)


def folder(key: str, value: str) -> str:
    """The folder name `key=encoded value`; ValueError where no folder can hold the value."""
    if value == NULL:
        raise ValueError(f"{key} {value!r} is reserved: hive readers take it for a missing value")
    name = f"{key}={encode(value)}"
    if len(name.encode()) > NAME_MAX:
        raise ValueError(f"{key} {value[:40]!r}...: too long for a partition folder "
                         f"({len(name.encode())} bytes encoded, at most {NAME_MAX})")
    return name
