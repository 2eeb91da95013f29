"""COCO conventions shared by every stage: suites, instances of interest, the hit rule."""
from __future__ import annotations

import polars as pl

#: relative tolerance with which cocopp counts a target as reached (readalign.is_close)
HIT_RTOL = 1e-9

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
    """Whether a best-so-far precision reaches a target, with cocopp's relative tolerance.

    cocopp aligns data with ``readalign.is_close`` (relative 1e-9), so a precision within
    1e-9 relative of the target counts as reaching it.
    """
    target = pl.lit(target) if not isinstance(target, pl.Expr) else target
    return (delta <= target) | ((delta - target).abs() <= HIT_RTOL * pl.max_horizontal(delta.abs(), target.abs()))


def interesting_instances(runs: pl.LazyFrame, all_instances: bool = False) -> pl.LazyFrame:
    """Keep the instances cocopp considers by default for each suite (instance 0 of
    reference-algorithm sets is always kept)."""
    if all_instances:
        return runs
    cond = pl.lit(True)
    for suite, insts in INSTANCES_OF_INTEREST.items():
        cond = cond & ~((pl.col("suite") == suite) & ~pl.col("instance").is_in(list(insts) + [0]))
    return runs.filter(cond)
