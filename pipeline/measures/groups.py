"""Function groups of each suite, as cocopp defines them (seed 000, "Empirical Distribution Functions":
ECDFs aggregate "subgroups sharing similar properties").

Single-objective suites (bbob, bbob-largescale, bbob-mixint, bbob-boxed; cocopp
`DataSetList.dictByFuncGroupSingleObjective`): separ f1-5, lcond f6-9, hcond f10-14, multi f15-19,
mult2 f20-24; bbob-noisy: nzmod f101-106, nzsev f107-121, nzsmm f122-130. bbob-constrained: every
function is in "all m=K" and in one of "separ m=K" (f1-18), "hcond m=K" (f19-42), "multi m=K"
(f43-54), K being the number of constraints as a formula of n (`constraint_category`). Biobjective
suites group by the pair of bbob groups of the two objectives, named like cocopp's data folders
("1-separable_2-moderate"; `dictByFuncGroupBiobjective` and the bbob-biobj(-ext) benchmark infos).

Examples
--------
>>> import polars as pl
>>> from pipeline.measures.groups import membership
>>> problems = pl.LazyFrame({"suite": ["bbob"], "function": [12]})
>>> membership(problems).collect()["group"].to_list()
['f12', 'hcond', 'all']
"""
from __future__ import annotations

from collections.abc import Sequence

import polars as pl

SINGLE = (
    ("separ", "Separable functions", range(1, 6)),
    ("lcond", "Misc. moderate functions", range(6, 10)),
    ("hcond", "Ill-conditioned functions", range(10, 15)),
    ("multi", "Multi-modal functions", range(15, 20)),
    ("mult2", "Weak structure functions", range(20, 25)),
)
NOISY = (
    ("nzmod", "Moderate noise", range(101, 107)),
    ("nzsev", "Severe noise", range(107, 122)),
    ("nzsmm", "Severe noise multimod.", range(122, 131)),
)
#: constraint count formula per (f - 1) % 6 (cocopp CONSBBOBTestbed.constraint_category)
CONSTRAINTS = ("0n+1", "0n+3", "0n+9", "3ndiv4+9", "6ndiv4+9", "9ndiv2+9")
CONSTRAINED = (
    ("separ", "Separable functions", range(1, 19)),
    ("hcond", "Ill-conditioned functions", range(19, 43)),
    ("multi", "Multi-modal functions", range(43, 55)),
)
#: the five bbob groups of the ten bbob functions of bbob-biobj, and their folder names
BIOBJ_CLASSES = ("1-separable", "2-moderate", "3-ill-conditioned", "4-multi-modal", "5-weakly-structured")
#: bbob-biobj-ext functions per pair of classes (cocopp's bbob-biobj-ext-benchmarkinfos.txt)
BIOBJ_EXT = {
    (0, 0): (1, 2, 11, *range(56, 65)), (0, 1): (3, 4, 12, 13), (0, 2): (5, 6, 14, 15), (0, 3): (7, 8, 16, 17),
    (0, 4): (9, 10, 18, 19), (1, 1): (20, 21, 28, *range(65, 70)), (1, 2): (22, 23, 29, 30),
    (1, 3): (24, 25, 31, 32), (1, 4): (26, 27, 33, 34), (2, 2): (35, 36, 41, *range(70, 79)),
    (2, 3): (37, 38, 42, 43), (2, 4): (39, 40, 44, 45), (3, 3): (46, 47, 50, *range(79, 84)),
    (3, 4): (48, 49, 51, 52), (4, 4): (53, 54, 55, *range(84, 93)),
}

SINGLE_SUITES = ("bbob", "bbob-largescale", "bbob-mixint", "bbob-boxed")
BIOBJ_SUITES = {"bbob-biobj": 55, "bbob-biobj-ext": 92, "bbob-biobj-mixint": 92}
KNOWN_SUITES = (*SINGLE_SUITES, "bbob-noisy", "bbob-constrained", *BIOBJ_SUITES)


def _biobj_rows(suite: str, last: int) -> list[tuple]:
    rows = []
    for (a, b), funcs in BIOBJ_EXT.items():
        name = f"{BIOBJ_CLASSES[a]}_{BIOBJ_CLASSES[b]}"
        rows += [(suite, f, name, name.replace("_", " ")) for f in funcs if f <= last]
    return rows


def _rows(suite: str) -> list[tuple]:
    if suite in SINGLE_SUITES:
        return [(suite, f, g, label) for g, label, fs in SINGLE for f in fs]
    if suite == "bbob-noisy":
        return [(suite, f, g, label) for g, label, fs in NOISY for f in fs]
    if suite == "bbob-constrained":
        rows = []
        for g, label, fs in CONSTRAINED:
            for f in fs:
                m = CONSTRAINTS[(f - 1) % 6]
                rows.append((suite, f, f"{g} m={m}", f"{label} with {m} constraints"))
                rows.append((suite, f, f"all m={m}", f"All functions with {m} constraints"))
        return rows
    if suite in BIOBJ_SUITES:
        return _biobj_rows(suite, BIOBJ_SUITES[suite])
    return []


def groups_frame(suites: Sequence[str] | str | None = None) -> pl.LazyFrame:
    """The function groups of suites.

    Parameters
    ----------
    suites : str or sequence of str, optional
        Suites (default: every suite known).

    Returns
    -------
    polars.LazyFrame
        suite, function, group and group_label; a function may be in several groups
        (bbob-constrained). Suites without groups give no rows.
    """
    if isinstance(suites, str):
        suites = [suites]
    rows = [r for s in (KNOWN_SUITES if suites is None else suites) for r in _rows(s)]
    schema = {"suite": pl.String, "function": pl.Int32, "group": pl.String, "group_label": pl.String}
    return pl.LazyFrame(rows, schema=schema, orient="row")


def function_group_name(function: pl.Expr) -> pl.Expr:
    """The per-function group name: "f1", "f24", "f101"."""
    return pl.lit("f") + function.cast(pl.String)


def membership(problems: pl.LazyFrame, levels: Sequence[str] = ("function", "group", "all")) -> pl.LazyFrame:
    """Every group each (suite, function) is aggregated in.

    Parameters
    ----------
    problems : polars.LazyFrame
        suite and function.
    levels : sequence of str
        "function" (the group fN of each function alone), "group" (its cocopp groups), "all".

    Returns
    -------
    polars.LazyFrame
        suite, function (Int32) and group, one row per (function, group).
    """
    keys = problems.select("suite", "function").unique()
    parts = []
    if "function" in levels:
        parts.append(keys.with_columns(group=function_group_name(pl.col("function"))))
    if "group" in levels:
        g = groups_frame().select("suite", "function", "group")
        parts.append(keys.join(g, on=["suite", "function"], how="inner"))
    if "all" in levels:
        parts.append(keys.with_columns(group=pl.lit("all")))
    return pl.concat([p.select("suite", pl.col("function").cast(pl.Int32), "group") for p in parts])


def select_levels(group: str | Sequence[str] | None) -> tuple[tuple[str, ...], set[str] | None]:
    """Which levels to compute for a --group choice, and the group names to keep (None: all).

    Examples
    --------
    >>> levels, names = select_levels(["f3", "all"])
    >>> levels, sorted(names)
    (('all', 'function'), ['all', 'f3'])
    """
    if group is None or group == []:
        return ("function", "group", "all"), None
    names = {group} if isinstance(group, str) else set(group)
    levels = set()
    for n in names:
        if n == "all":
            levels.add("all")
        elif n.startswith("f") and n[1:].isdigit():
            levels.add("function")
        else:
            levels.add("group")
    return tuple(sorted(levels)), {f"f{int(n[1:])}" if n.startswith("f") and n[1:].isdigit() else n for n in names}


def median_max_evaluations(runs: pl.LazyFrame, group: str | Sequence[str] | None = None) -> pl.LazyFrame:
    """Per (suite, algorithm, dimension, group) of the levels `group` asks for: the median over the trials of
    their evaluations / dimension (the cross of cocopp's ECDF figures).

    >>> runs = pl.LazyFrame({"suite": "bbob", "algorithm": "A", "function": [1, 1, 2], "dimension": 2,
    ...                      "evaluations": [10, 20, 60]})
    >>> median_max_evaluations(runs, "all").select("group", "median_max_evaluations").collect().rows()
    [('all', 10.0)]
    """
    m = membership(runs.select("suite", "function"), select_levels(group)[0])
    return (runs.join(m, on=["suite", "function"]).group_by("suite", "algorithm", "dimension", "group")
            .agg(median_max_evaluations=(pl.col("evaluations") / pl.col("dimension")).median()))
