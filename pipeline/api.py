"""The notebook API: `open_store(path)` and its measures as LazyFrames."""
from __future__ import annotations

from collections.abc import Sequence

import polars as pl


def filter_frame(lf: pl.LazyFrame, **criteria: Sequence | None) -> pl.LazyFrame:
    """Keep rows whose columns take one of the given values (None: no filter)."""
    for col, values in criteria.items():
        if values:
            vals = [values] if isinstance(values, (str, int)) else list(values)
            lf = lf.filter(pl.col(col).is_in(vals))
    return lf
