"""The settings that measures check themselves (the ECDF's mode and range, the band, the tests' correction), declared
once here for them and for the catalog, which declares every measure with them (`catalog` re-exports each)."""
from __future__ import annotations

from .registry import NAMES, NONE, TEXT, Interval, Memory, NumberText, Options, Param

MODES = ("simulated", "exact", "trials")
#: `significance.CORRECTIONS`: the multiple-testing corrections (the aRT table, the pairwise tests, the report)
CORRECTIONS = ("bonferroni", "holm")
POSITIVE = Interval(int, 1, None)

SEED = Param("seed", 1, (Interval(int, 0, None),), "Seed of the random draws.")
LEVEL = (Interval(float, 0, 1, "neither"),)
GROUP_PARAM = Param("group", None, (NONE, TEXT, NAMES), "Only these groups: fN (one function), a cocopp group, all.")
MODE = Param("mode", "simulated", (Options(MODES),),
             "simulated restarts (seeded), their expectation in closed form, or the trials' own hitting times.")
MAX_X = Param("max_x", None, (NONE, Interval(float, 0, None, "neither"), Options(("budget", "cocopp")), NumberText()),
              "The plotted range in evaluations / dimension (default: the budget cut, else 1e7).")
SAMPLES_ECDF = Param("samples", 100, (POSITIVE,), "Simulated restarts per problem.", memory=Memory(24, "cells"))
SAMPLES_ART = Param("samples", 1000, (POSITIVE,), "Simulated restarts per problem.", memory=Memory(24, "block_cells"))
BAND_LEVEL = Param("level", 0.95, LEVEL, "Confidence level of the band.", flag="--band")
REPLICATES = Param("replicates", 100, (Interval(int, 2, None),), "Bootstrap replicates.", memory=Memory(320, "hits"))
#: the tests' correction and level: declared once for the aRT table, the pairwise tests and the report
CORRECTION = Param("correction", "bonferroni", (Options(CORRECTIONS),), "Multiple-testing correction.")
ALPHA = Param("alpha", 0.05, LEVEL, "Significance level of the tests (after correction).")
