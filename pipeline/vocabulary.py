"""The names of the package: the key columns of its frames and the settings of a selection, one name
for one thing (docs/internals.md, "Vocabulary").

Key columns, each a tuple in the order frames are sorted by:

- `PROBLEM`: a problem of one algorithm (suite, algorithm, function, dimension): what hits, runs and
  aRTs are per; `PROBLEM_TARGET` adds the target (what simulated restarts and aRT are computed over),
  `PROBLEM_INSTANCE` the instance (what a trial repeats: the duplicates' key).
- `ALGORITHM_DIMENSION`: an algorithm in one dimension, all functions (an ECDF line's owner).
- `TABLE_CELL`: a function in one dimension as cocopp's tables order them (suite, dimension,
  function): a row of the aRT table, a family of rank-sum tests.
- `FUNCTION_DIMENSION`: a function in one dimension as the figures order them (suite, function,
  dimension): what a loss ratio compares algorithms on; `FUNCTION_TARGET` adds the target (the cell
  two algorithms are paired at).

"group" is the function group only (the column `FUNCTION_GROUP`: "all", a cocopp group, "fN"); the
executor's share of algorithms is a batch (`Analysis(group_size=...)`, `execution.Plan`).

The settings of a selection have one public name each, used by `Analysis`, the report's settings and
the command line (as `--max-budget`, `--all-instances`, `--exact-hits`); `selection_fields` is the one
place where they become the fields of `pipeline.selection.Selection`.
"""
from __future__ import annotations

from typing import Any

PROBLEM = ("suite", "algorithm", "function", "dimension")
PROBLEM_TARGET = (*PROBLEM, "target")
PROBLEM_INSTANCE = (*PROBLEM, "instance")
ALGORITHM_DIMENSION = ("suite", "algorithm", "dimension")
TABLE_CELL = ("suite", "dimension", "function")
FUNCTION_DIMENSION = ("suite", "function", "dimension")
FUNCTION_TARGET = (*FUNCTION_DIMENSION, "target")
#: the column of the function group a function is counted in
FUNCTION_GROUP = "group"

#: the settings of a selection by their public name: (Selection field, value when False, value when True);
#: a budget is a `Budget` (parsed by the caller), the flags map to the field's words
SELECTION_SETTINGS: dict[str, tuple[str, Any, Any]] = {
    "max_budget": ("budget", None, None),
    "all_instances": ("instances", "interesting", "all"),
    "exact": ("hit_rule", "cocopp", "exact"),
}
#: the command line's flag of each setting (the option names are documented and kept)
FLAGS = {"max_budget": "--max-budget", "all_instances": "--all-instances", "exact": "--exact-hits"}


def selection_fields(**settings: Any) -> dict[str, Any]:
    """The `Selection` fields of the settings given by public name (None flags: left out, as "unchanged").

    >>> selection_fields(all_instances=True, exact=False)
    {'instances': 'all', 'hit_rule': 'cocopp'}
    >>> selection_fields(max_budget=None, exact=None)
    {'budget': None}
    """
    out = {}
    for name, value in settings.items():
        if name not in SELECTION_SETTINGS:
            raise TypeError(f"unknown selection setting {name!r} (settings: {', '.join(SELECTION_SETTINGS)})")
        field, off, on = SELECTION_SETTINGS[name]
        if name == "max_budget":
            out[field] = value
        elif value is not None:
            out[field] = on if value else off
    return out
