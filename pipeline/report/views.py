"""The views of a report in navigation order: each a function `view(ctx, measures) -> list[Page]`;
append one to `VIEWS` to add pages."""
from __future__ import annotations

from collections.abc import Callable

from .context import Context
from .figures import Page
from .interactive import explore, ranking_view
from .measures import Measures
from .pages import algorithms, ecdfs, overview, pairwise, scaling, settings_page, tables
from .parameters import parameters

View = Callable[[Context, Measures], list[Page]]

VIEWS: list[View] = [overview, explore, ecdfs, scaling, tables, ranking_view, pairwise, algorithms, parameters,
                     settings_page]
