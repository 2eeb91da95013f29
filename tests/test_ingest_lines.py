"""The lines of a source's data files: file index, line number and text, for every kind of line."""
from __future__ import annotations

from pipeline.ingest.coco import _lines
from pipeline.ingest.sources import Source


def lines_of(files: dict[str, bytes]) -> list[tuple[int, int, str]]:
    src = Source("s", "s", files)
    df, _ = _lines(src, list(files))
    return df.rows()


def test_every_kind_of_line():
    files = {
        "a.dat": b"% function evaluations | best noise-free fitness - Fopt (7.9e+01)\r\n1 2 3\r\n\n  x  y \t\n",
        "empty.dat": b"",
        "b.dat": b"short\nno final newline, longer than twelve bytes",
        "c.dat": b"\xe9t\xe9 1 2\n12345678901234\n123456789012\n",
    }
    assert lines_of(files) == [
        (0, 1, "% function evaluations | best noise-free fitness - Fopt (7.9e+01)"),
        (0, 2, "1 2 3"),
        (0, 3, ""),
        (0, 4, "x  y"),
        (2, 1, "short"),
        (2, 2, "no final newline, longer than twelve bytes"),
        (3, 1, "\ufffdt\ufffd 1 2"),  # not UTF-8: replaced, as a lossy decoding does
        (3, 2, "12345678901234"),
        (3, 3, "123456789012"),
    ]


def test_tabs_are_reported_and_utf8_is_kept():
    src = Source("s", "s", {"a.dat": "1\t2\n\u00e9\u00e9 3\n".encode()})
    df, tabs = _lines(src, ["a.dat"])
    assert tabs and df["text"].to_list() == ["1\t2", "\u00e9\u00e9 3"]


def test_no_files_no_lines():
    assert lines_of({}) == []
