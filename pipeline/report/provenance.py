"""Which algorithm the reference (artificial best) algorithm took per function, dimension and target
(COCO issue #1605), summarised for the report's settings page."""
from __future__ import annotations

import polars as pl

from .. import reference_sets as rf


def reference_choices(reference: str | None, suites: list[str], store=None) -> pl.DataFrame:
    """The recorded choices of `reference`: a reference built in `store` (`cocopipe reference build`),
    else a packaged published set; an empty frame when none is recorded."""
    if not reference:
        return pl.DataFrame(schema=rf.CHOICES_SCHEMA)
    if store is not None and hasattr(store, "path"):
        built = rf.choices(store, reference).collect()
        if built.height:
            return built
    parts = []
    for su in suites:
        try:
            parts.append(rf.reference_choices(reference, su).collect())
        except rf.ReferenceError:
            continue
    return pl.concat(parts) if parts else pl.DataFrame(schema=rf.CHOICES_SCHEMA)


def provenance_table(choices: pl.DataFrame) -> pl.DataFrame:
    """One row per (suite, function, dimension): the algorithms taken in the order of the targets, each
    with the hardest target it provides ("A (to 2.5), B (to 1e-08)": A up to 2.5, then B)."""
    if choices.height == 0:
        return pl.DataFrame(schema={"suite": pl.String, "function": pl.Int64, "dimension": pl.Int64,
                                    "algorithms (targets)": pl.String})
    runs = (
        choices.sort("suite", "function", "dimension", pl.col("target"), descending=[False, False, False, True])
        .with_columns(run=(pl.col("chosen") != pl.col("chosen").shift(1)).over("suite", "function", "dimension")
                      .fill_null(True).cum_sum().over("suite", "function", "dimension"))
        .group_by("suite", "function", "dimension", "run", maintain_order=True)
        .agg(pl.col("chosen").first(), lo=pl.col("target").last())
    )
    label = [f"{c} (to {lo:.2g})" for c, lo in runs.select("chosen", "lo").iter_rows()]
    return (runs.with_columns(label=pl.Series(label, dtype=pl.String))
            .group_by("suite", "function", "dimension", maintain_order=True)
            .agg(pl.col("label").str.join(", ").alias("algorithms (targets)"))
            .with_columns(pl.col("function").cast(pl.Int64), pl.col("dimension").cast(pl.Int64)))
