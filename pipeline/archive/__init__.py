"""The COCO data archive by name: definition files, cocopp's name patterns, cached downloads.

`archive:NAME` names data sets of an archive wherever a source is accepted; see docs/archive.md.
"""
from __future__ import annotations

#: how a source argument names data sets of an archive
PREFIX = "archive:"


class ArchiveError(RuntimeError):
    """An archive, a name or a data set that cannot be used (a one-line message naming it)."""


def is_archive_source(arg: object) -> bool:
    """True for a source argument `archive:NAME`."""
    return isinstance(arg, str) and arg.startswith(PREFIX)
