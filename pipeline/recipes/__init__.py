"""The chart kinds: each a recipe, which computes a chart's tidy frames from an `Analysis` (the
measures it needs, the reference and background algorithms, the settings a subtitle states), paired
with a chart function of `pipeline.charts`, which draws them. `kinds.KINDS` is the registry
(`cocopipe chart KIND`, the report's figures); `inputs` holds what the recipes share."""

#: the chart kinds of `kinds.KINDS` (listed here so that the CLI need not import Altair to name them)
KIND_NAMES = ("ecdf", "ecdf-explorer", "scaling", "scatter", "ratio-ecdf", "art-ratio", "rt-ecdf", "precision-ecdf",
              "logloss", "convergence", "profile")
