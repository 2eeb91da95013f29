"""Altair charts of COCO measures: one theme, table -> chart functions, and `kinds.KINDS`, each
kind computing its table from an Analysis. Export with `export.save(chart, path)`."""

#: the chart kinds of `kinds.KINDS` (listed here so that the CLI need not import Altair to name them)
KIND_NAMES = ("ecdf", "ecdf-explorer", "scaling", "scatter", "ratio-ecdf", "art-ratio", "rt-ecdf", "precision-ecdf", "logloss",
              "convergence", "profile")
