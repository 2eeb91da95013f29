"""Altair charts of COCO measures: one theme, and functions from tidy frames (the tables of the
measures) to charts; `pipeline.recipes` computes those frames from an Analysis. Export with
`export.save(chart, path)`."""
