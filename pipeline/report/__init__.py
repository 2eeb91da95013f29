"""The HTML report: pages per view (overview, ECDFs, scaling, tables, pairwise, one per algorithm,
settings) with a navigation bar, interactive Vega-Lite charts rendered by the shipped JavaScript
(or static SVG), and `settings.json` to rebuild it exactly.

>>> from pipeline.api import open_store
>>> from pipeline.report import Settings, build
>>> build(open_store("cocopipe-store"), "report")
"""
from .build import Progress, build
from .views import VIEWS
from .settings import Settings, SettingsError

__all__ = ["build", "Progress", "Settings", "SettingsError", "VIEWS"]
