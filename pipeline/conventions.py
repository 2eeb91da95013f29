"""COCO conventions shared by every stage: suites, instances of interest, the hit rule."""
from __future__ import annotations

import polars as pl

#: relative tolerance with which cocopp counts a target as reached (readalign.is_close)
HIT_RTOL = 1e-9
#: the left end of a precision axis: precisions below count there (cocopp's final target)
PRECISION_FLOOR = 1e-8

#: instances cocopp considers by default per suite (testbedsettings `instancesOfInterest`);
#: suites not listed use all instances (seed 002, "Instances and Generalization Experiment")
INSTANCES_OF_INTEREST: dict[str, tuple[int, ...]] = {
    "bbob-biobj": tuple(range(1, 11)),
    "bbob-biobj-ext": tuple(range(1, 11)),
    "bbob-mixint": tuple(range(1, 16)),
    "bbob-biobj-mixint": tuple(range(1, 16)),
}

BIOBJ_SUITES = ("bbob-biobj", "bbob-biobj-ext", "bbob-biobj-mixint")


def is_biobjective(suite: str) -> bool:
    """True for the biobjective suites (indicator data)."""
    return suite in BIOBJ_SUITES or "biobj" in suite


def reached(delta: pl.Expr, target: pl.Expr | float) -> pl.Expr:
    """Whether a best-so-far precision reaches a target: THE hit rule, cocopp's (`readalign.is_close`).

    A precision at or below the target, or within `HIT_RTOL` relative of it, reaches it; an infinite
    precision counts as close to every target, as in cocopp. `reaches` is the same rule on two numbers
    (as `pipeline.alignment` replays cocopp's reading); as an order it reads `record_key(delta) <=
    target_level(target)` (see those), which lets an as-of join find first hits (`pipeline.hits.spec`).
    """
    target = target if isinstance(target, pl.Expr) else pl.lit(target)
    return (delta <= target) | ((delta - target).abs() <= HIT_RTOL * pl.max_horizontal(delta.abs(), target.abs()))


def reaches(delta: float, target: float) -> bool:
    """`reached` of two numbers."""
    return delta <= target or abs(delta - target) <= HIT_RTOL * max(abs(delta), abs(target))


def target_level(target: pl.Expr) -> pl.Expr:
    """A target as the level that `record_key`s at or below it reach (`reached` as an order): a
    negative target is moved by `HIT_RTOL` towards 0, since a precision within that of it reaches it."""
    return pl.when(target < 0).then(target * (1 - HIT_RTOL)).otherwise(target)


def record_key(best: pl.Expr) -> pl.Expr:
    """A precision as the key an as-of match compares with `target_level`s (`reached` as an order): a
    positive precision is moved by `HIT_RTOL` towards 0, since it reaches a target within that above it."""
    return pl.when(best > 0).then(best * (1 - HIT_RTOL)).otherwise(best)


def interesting_instances(runs: pl.LazyFrame, all_instances: bool = False) -> pl.LazyFrame:
    """Keep the instances cocopp considers by default for each suite (instance 0 of
    reference-algorithm sets is always kept)."""
    if all_instances:
        return runs
    cond = pl.lit(True)
    for suite, insts in INSTANCES_OF_INTEREST.items():
        cond = cond & ~((pl.col("suite") == suite) & ~pl.col("instance").is_in(list(insts) + [0]))
    return runs.filter(cond)

#: the bbob functions' names (cocopp's short names), shared by the suites built on them
BBOB_FUNCTION_NAMES: dict[int, str] = {
    1: "Sphere", 2: "Ellipsoid separable", 3: "Rastrigin separable", 4: "Skew Rastrigin-Bueche separable",
    5: "Linear slope", 6: "Attractive sector", 7: "Step-ellipsoid", 8: "Rosenbrock original",
    9: "Rosenbrock rotated", 10: "Ellipsoid", 11: "Discus", 12: "Bent cigar", 13: "Sharp ridge",
    14: "Sum of different powers", 15: "Rastrigin", 16: "Weierstrass", 17: "Schaffer F7, condition 10",
    18: "Schaffer F7, condition 1000", 19: "Griewank-Rosenbrock F8F2", 20: "Schwefel x*sin(x)",
    21: "Gallagher 101 peaks", 22: "Gallagher 21 peaks", 23: "Katsuuras", 24: "Lunacek bi-Rastrigin",
}
#: suites whose functions are the bbob functions of the same numbers
BBOB_NAMED_SUITES = ("bbob", "bbob-largescale", "bbob-mixint", "bbob-boxed")


def function_title(suite: str, function: int) -> str:
    """A function's number with its name where the suite's functions have names: "f5 Linear slope"."""
    name = BBOB_FUNCTION_NAMES.get(int(function)) if suite in BBOB_NAMED_SUITES else None
    return f"f{function} {name}" if name else f"f{function}"


#: the label of each function group name (cocopp's), the same on every page and chart
GROUP_LABELS: dict[str, str] = {
    "all": "All functions", "separ": "Separable functions", "lcond": "Misc. moderate functions",
    "hcond": "Ill-conditioned functions", "multi": "Multi-modal functions", "mult2": "Weak structure functions",
    "nzmod": "Moderate noise", "nzsev": "Severe noise", "nzsmm": "Severe noise multimod.",
}


def group_label(group: str) -> str:
    """A group's label for people: "Ill-conditioned functions" for hcond, "All functions" for all;
    a function (f12) or a group without a label as it is, "_" read as a space."""
    return GROUP_LABELS.get(group, str(group).replace("_", " "))


def group_label_expr(group: pl.Expr) -> pl.Expr:
    """`group_label` of a column of group names."""
    return group.replace_strict(GROUP_LABELS, default=group.cast(pl.String).str.replace_all("_", " "),
                                return_dtype=pl.String)
