"""Data profiles (the measure "data_profile", `pipeline.measures.solver_profiles`): the fraction of problems
each algorithm solved within a budget in simplex gradients (evaluations / (n + 1)), a step line per algorithm,
a panel per tolerance (drawn as the performance profiles are, `charts.performance_profile.steps`)."""
from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import polars as pl

from .performance_profile import steps


def chart(data: pl.DataFrame, *, settings: Sequence[str] | str | None = None, title: str = "Data profiles",
          columns: int = 5, width: int = 160, height: int = 130) -> alt.FacetChart:
    """The fraction of problems solved within each budget of simplex gradients (log2), per tolerance."""
    return steps(data, x="simplex gradients, evals / (n + 1)", title=title, settings=settings,
                 columns=columns, width=width, height=height)
