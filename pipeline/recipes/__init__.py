"""The chart kinds: each a recipe, which computes a chart's tidy frames from an `Analysis` (the
measures it needs, the reference and background algorithms, the settings a subtitle states), paired
with a chart function of `pipeline.charts`, which draws them. `kinds.KINDS` is the registry
(`cocopipe chart KIND`, the report's figures); `inputs` holds what the recipes share."""

from ..measures.registry import load

#: the chart kinds of the recipes of `kinds.KINDS` (listed here so that the CLI need not import Altair to name them)
RECIPE_KINDS = ("ecdf", "ecdf-explorer", "scaling", "scatter", "ratio-ecdf", "art-ratio", "rt-ecdf", "precision-ecdf",
                "logloss", "convergence", "profile")
#: every chart kind: those of the recipes, then those the registered measures declare (read without a library)
KIND_NAMES = (*RECIPE_KINDS, *dict.fromkeys(k for m in load().values() for k in m.charts if k not in RECIPE_KINDS))
