"""Checks that a selection (suites, algorithms, functions, dimensions) matches data: a selection that
matches nothing is an error naming what was asked and what exists, never an empty result."""
from __future__ import annotations

import difflib
from collections.abc import Sequence

import polars as pl

from .conventions import interesting_instances

#: the selection's columns in the order they narrow each other (a function is looked for in the suites asked)
KEYS = ("suite", "algorithm", "function", "dimension")
#: names listed in a message at most
LISTED = 12


class SelectionError(ValueError):
    """A selection that matches no data."""


def closest(asked: str, present: Sequence[str]) -> list[str]:
    """The names `present`, the most similar to `asked` first (difflib's ratio, case ignored)."""
    low = asked.lower()
    return sorted(present, key=lambda p: (-difflib.SequenceMatcher(None, low, p.lower()).ratio(), p))


def ranges(values: Sequence[int]) -> str:
    """Integers as compact ranges: 1-5, 7, 9-10."""
    v = sorted({int(x) for x in values})
    out, i = [], 0
    while i < len(v):
        j = i
        while j + 1 < len(v) and v[j + 1] == v[j] + 1:
            j += 1
        out.append(str(v[i]) if i == j else f"{v[i]}-{v[j]}")
        i = j + 1
    return ", ".join(out)


def _listed(names: list[str]) -> str:
    return ", ".join(names[:LISTED]) + (f", ... ({len(names)} in all)" if len(names) > LISTED else "")


def _where(narrowed: dict[str, list]) -> str:
    parts = [f"{k} {', '.join(map(str, v))}" for k, v in narrowed.items()]
    return f" with {' and '.join(parts)}" if parts else ""


def _values(v) -> list | None:
    if v is None or (isinstance(v, (list, tuple)) and not v):
        return None
    return [v] if isinstance(v, (str, int)) else list(v)


def check(runs: pl.LazyFrame, filters: dict, all_instances: bool = False, what: str = "the store") -> None:
    """Raise `SelectionError` when a value of the selection `filters` (suite, algorithm, function,
    dimension: a value, a list or None) has no trial among the `runs` that the earlier keys select, or when
    nothing is left once cocopp's instances of interest are kept; the message names what was asked and
    what exists there (names closest to the asked one first)."""
    cols = [*KEYS, "instance"]
    have = runs.select(cols).unique().collect()
    if have.height == 0:
        raise SelectionError(f"{what} holds no trials (add some with `cocopipe ingest`)")
    narrowed: dict[str, list] = {}
    for key in KEYS:
        asked = _values(filters.get(key))
        if asked is None:
            continue
        present = have[key].unique().to_list()
        missing = [v for v in asked if v not in set(present)]
        if missing:
            where = _where(narrowed)
            if key in ("function", "dimension"):
                nums = [int(x) for x in missing]
                held = ranges(present) if key == "function" else ", ".join(map(str, sorted(present)))
                raise SelectionError(f"no {key} {', '.join(map(str, nums))} in {what}{where}: it holds {key}s {held}")
            near = closest(str(missing[0]), [str(p) for p in present])
            raise SelectionError(f"no {key} {', '.join(repr(str(m)) for m in missing)} in {what}{where}: it holds "
                                 f"{_listed(near)}")
        have = have.filter(pl.col(key).is_in(asked))
        narrowed[key] = asked
    if interesting_instances(have.lazy(), all_instances).select(pl.len()).collect().item() == 0:
        raise SelectionError(f"the selection{_where(narrowed)} holds only instances cocopp leaves out by default "
                             f"(instances {ranges(have['instance'].to_list())}); --all-instances keeps them")
