"""The HTML report: pages per view (overview, ECDFs, scaling, tables, pairwise, one per algorithm,
settings) with a navigation bar, interactive Vega-Lite charts rendered by the shipped JavaScript
(or static SVG), and `settings.json` to rebuild it exactly.

`build(analysis, out_dir, Settings(...))` writes one (its docstring has an example); `cocopipe report` is
its command.
"""
from .build import Progress, build
from .views import VIEWS
from .settings import Settings, SettingsError

__all__ = ["build", "Progress", "Settings", "SettingsError", "VIEWS"]
