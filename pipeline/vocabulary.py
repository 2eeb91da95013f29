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

The settings of a selection have one name each, the field of `pipeline.selection.Selection` and the
keyword of `Analysis` and of the report's settings alike; the command line spells them `--max-budget`,
`--all-instances`, `--exact-hits` (`FLAGS`).
"""
from __future__ import annotations

PROBLEM = ("suite", "algorithm", "function", "dimension")
PROBLEM_TARGET = (*PROBLEM, "target")
PROBLEM_INSTANCE = (*PROBLEM, "instance")
ALGORITHM_DIMENSION = ("suite", "algorithm", "dimension")
TABLE_CELL = ("suite", "dimension", "function")
FUNCTION_DIMENSION = ("suite", "function", "dimension")
FUNCTION_TARGET = (*FUNCTION_DIMENSION, "target")
#: the column of the function group a function is counted in
FUNCTION_GROUP = "group"

#: the settings of a selection: one name each from `Selection`'s fields through `Analysis`, the report's
#: settings and the command line; a budget is a `Budget` (parsed where the user gave it)
SELECTION_SETTINGS = ("max_budget", "all_instances", "exact")
#: the command line's flag of each setting (the option names are documented and kept)
FLAGS = {"max_budget": "--max-budget", "all_instances": "--all-instances", "exact": "--exact-hits"}
