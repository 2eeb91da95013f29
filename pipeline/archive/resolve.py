"""Names of archived data sets resolved as cocopp 2.9.1 resolves them (`toolsdivers.StrList.find`,
`archiving.COCODataArchive.get_extended`).

A pattern selects every entry that contains it (ignoring case) or that it matches as a regular
expression from the start of the name (`.` any character, `.*` any run): `bfgs` and `.*bfgs` select
the same entries, `bfgs.*` only names starting with "bfgs". A trailing `!` takes the first match
only, a trailing `*` every match. Unlike cocopp, where a plain pattern must match one entry (or name
one exactly), a plain pattern selects every match (`archive:bbob/2009/` for all of 2009), and a plain
name equal to an entry's selects that entry only; cocopp's rule holds where one data set is meant.
A pattern that is no valid regular expression (cocopp raises) is matched as a substring only.
The regular expression is matched with the `regex` module (the same syntax as `re`) under a time
budget: a pattern that backtracks without end (`(.*)*X`) is an error naming it, not a hang.
"""
from __future__ import annotations

import difflib
import time
from collections.abc import Sequence

import regex

from . import ArchiveError
from .definition import Entry

#: seconds a pattern may take to be matched against all the names of an archive
MATCH_BUDGET = 1.0
#: the longest pattern taken, in characters
MAX_PATTERN = 1000


class NoMatch(ArchiveError):
    """A pattern that names no data set of the archive."""


def find(names: Sequence[str], pattern: str) -> list[str]:
    """The names `pattern` selects, in order: cocopp's `StrList.find(pattern)`."""
    if len(pattern) > MAX_PATTERN:
        raise ArchiveError(f"archive:{pattern[:40]}...: a pattern of {len(pattern)} characters; at most {MAX_PATTERN}")
    low = pattern.lower()
    try:
        rex = regex.compile(pattern, regex.IGNORECASE | regex.VERSION0)
    except (regex.error, RecursionError, OverflowError):
        rex = None
    end = time.monotonic() + MATCH_BUDGET
    found = []
    for n in names:
        if low in n.lower():
            found.append(n)
        elif rex is not None:
            try:
                if rex.match(n, timeout=max(end - time.monotonic(), 1e-3)):
                    found.append(n)
            except TimeoutError:
                raise ArchiveError(f"archive:{pattern}: matching this regular expression takes over {MATCH_BUDGET:g} s "
                                   "(it backtracks, as nested repeats like (.*)* do); use a simpler pattern") from None
    return found


def closest(names: Sequence[str], pattern: str, n: int = 5) -> list[str]:
    """The names most like `pattern` (whole names and their file names compared), best first."""
    pat = pattern.strip("!*").lower()[:100]  # a long pattern costs its length times each name's
    if not pat:
        return list(names[:n])

    def score(name: str) -> float:
        low = name.lower()
        stem = low.rsplit("/", 1)[-1]
        return max(difflib.SequenceMatcher(None, pat, low).ratio(), difflib.SequenceMatcher(None, pat, stem).ratio())

    return sorted(names, key=lambda x: -score(x))[:n]


def resolve(entries: Sequence[Entry], pattern: str, one: bool = False, where: str = "the archive") -> list[Entry]:
    """The entries `pattern` names (see the module's docstring); `one`: exactly one is meant (several
    are an error, unless one of them is named exactly). No match is an error that lists the closest
    names; `where` names the archive in errors."""
    names = [e.name for e in entries]
    by_name = {e.name: e for e in entries}
    pat = pattern.strip()
    first, every = pat.endswith("!"), pat.endswith("*")
    core = pat[:-1] if first or every else pat
    if core in by_name and not (first or every):
        return [by_name[core]]
    found = find(names, core)
    if not found:
        near = closest(names, core)
        raise NoMatch(f"archive:{pattern} matches no data set in {where}"
                           + (f"; closest: {', '.join(near)}" if near else " (it holds none)"))
    if first:
        return [by_name[found[0]]]
    if one and len(found) > 1:
        shown = ", ".join(found[:8]) + (f", ... ({len(found)} in all)" if len(found) > 8 else "")
        raise ArchiveError(f"archive:{pattern} matches {len(found)} data sets where one is meant: {shown} "
                           f"(name one, or add ! for the first)")
    return [by_name[n] for n in found]
