"""The chart theme is registered with Altair, uses only Altair's public API, and Altair is pinned."""
from __future__ import annotations

import re
from importlib.metadata import version

import altair as alt
import pytest

from conftest import ROOT
from pipeline.charts import theme

#: what reaches into Altair's private parts: a schema object's arguments, or an object made without its constructor
PRIVATE = re.compile(r"\._args\b|\._kwds\b|object\.__new__")


def test_the_charts_use_no_private_altair_attribute():
    """No module of pipeline/charts names `._args`, `._kwds` or `object.__new__`."""
    found = [f"{p.relative_to(ROOT)}:{i}: {line.strip()}" for p in sorted((ROOT / "pipeline" / "charts").rglob("*.py"))
             for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if PRIVATE.search(line)]
    assert not found, "\n".join(found)


def test_the_private_pattern_finds_what_it_looks_for():
    assert PRIVATE.search("x = chart._kwds['a']") and PRIVATE.search("object.__new__(type(c))")
    assert not PRIVATE.search("chart.copy(deep=False)")


def test_the_theme_is_registered_and_its_config_is_what_charts_carry():
    """`alt.theme.enable("cocopipe")` themes a plain chart as `theme.configure` does ours."""
    assert theme.THEME in alt.theme.names()
    mine = theme.configure(alt.Chart().mark_point()).config.to_dict()
    with alt.theme.enable(theme.THEME):
        plain = alt.Chart().mark_point().to_dict(validate=False)["config"]
    assert mine == plain and mine["font"] == theme.FONT


def test_with_properties_shares_the_parts_and_leaves_the_chart_as_it_was():
    """A new chart with the properties set, the same encodings; the first chart unchanged."""
    base = theme.Chart().mark_line().encode(x="x:Q")
    new = theme.with_properties(base, width=120, title="t")
    assert new is not base and new.encoding is base.encoding
    assert new.to_dict(validate=False)["width"] == 120 and "width" not in base.to_dict(validate=False)


@pytest.mark.parametrize("name", ["altair", "vl-convert-python"])
def test_altair_and_its_renderer_are_pinned_to_what_is_installed(name):
    pins = dict(line.split("==", 1) for line in (ROOT / "constraints.txt").read_text().splitlines()
                if "==" in line and not line.startswith("#"))
    assert pins.get(name) == version(name)
