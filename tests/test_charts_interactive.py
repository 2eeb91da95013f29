"""Interactive charts (issue 12): the ECDF explorer carrying every dimension and function group in
one chart chosen by two drop-downs, background algorithms in grey, highlighting by legend click,
tooltips; and the static export of the initial state (vl-convert) with the bound parameters."""
from __future__ import annotations

import json

import polars as pl
import pytest

from pipeline.api import Analysis
from pipeline.charts import export, theme
from pipeline.charts.ecdf import quantize, thin
from pipeline.recipes.kinds import chart
from test_charts import REF, find, marks, store  # noqa: F401 (store: the shared fixture)



def params(spec: dict) -> dict[str, dict]:
    """Every parameter of the spec by name (top level and in the layers)."""
    out = {p["name"]: p for p in spec.get("params", [])}
    for node, _ in marks(spec):
        out.update({p["name"]: p for p in node.get("params", [])})
    return out


def colour_domain(spec: dict) -> set[str]:
    return {a for node, _ in marks(spec) for a in node.get("encoding", {}).get("color", {}).get("scale", {})
            .get("domain", [])}


def grey_lines(spec: dict) -> list[tuple[dict, list[dict]]]:
    return [(n, r) for n, r in find(spec, "line") if n["mark"].get("color") == theme.BACKGROUND_COLOUR]


def test_thin_drops_steps_that_do_not_rise_but_keeps_the_end():
    s = pl.DataFrame({"algorithm": ["a"] * 5 + ["b"] * 2, "x": [1.0, 2.0, 3.0, 50.0, 90.0, 1.0, 5.0],
                      "fraction": [0.1, 0.1, 0.2, 0.2, 0.2, 0.5, 0.5]})
    t = thin(s, 0.01)
    assert t.filter(pl.col("algorithm") == "a").rows() == [("a", 1.0, 0.1), ("a", 3.0, 0.2), ("a", 90.0, 0.2)]
    assert t.filter(pl.col("algorithm") == "b").rows() == [("b", 1.0, 0.5), ("b", 5.0, 0.5)]


def test_quantize_rounds_fractions_down_and_drops_flat_points():
    lines = pl.DataFrame({"algorithm": ["a"] * 5, "x": [0.1, 1.0, 2.0, 3.0, 9.0],
                          "fraction": [0.0, 0.013, 0.019, 0.021, 0.021]})
    q = quantize(lines, 0.01)
    assert q.rows() == [("a", 0.1, 0.0), ("a", 1.0, 0.01), ("a", 3.0, 0.02), ("a", 9.0, 0.02)]
    assert (q["fraction"] <= lines.filter(pl.col("x").is_in(q["x"].to_list()))["fraction"]).all()


def test_explorer_carries_every_dimension_and_group_chosen_by_two_dropdowns(store, tmp_path):
    a = Analysis(store, algorithm=["DIRECT", "NM", "RS"], dimension=[2, 5])
    c = chart("ecdf-explorer", a, reference="best2009", samples=20)
    spec = json.loads(export.save(c, tmp_path / "explorer.json").read_text())
    p = params(spec)
    assert p["dimension_shown"]["bind"]["input"] == "select" and p["dimension_shown"]["bind"]["options"] == [2, 5]
    assert p["dimension_shown"]["value"] == 2
    groups = p["group_shown"]["bind"]["options"]
    assert groups[0] == "all" and p["group_shown"]["value"] == "all"
    assert {"separ", "lcond", "hcond", "multi", "mult2"} <= set(groups)
    assert [g for g in groups if g.startswith("f")] == [f"f{i}" for i in range(1, 25)]
    # every layer shows only the chosen dimension and group
    for node, _ in marks(spec):
        assert any("dimension_shown" in t.get("filter", "") and "group_shown" in t.get("filter", "")
                   for t in node.get("transform", []))
    # the dots carry each (dimension, group)'s final fraction of the measure
    summ = a.ecdf_summary().collect()
    (_, dots), = find(spec, "point", size=60)
    got = {(r["algorithm"], r["dimension"], r["group"]): r["final_fraction"] for r in dots}
    for alg, d, g, f in summ.select("algorithm", "dimension", "group", "final_fraction").iter_rows():
        assert got[(alg, d, g)] == pytest.approx(f, rel=1e-4)
    assert {k[0] for k in got} == {"DIRECT", "NM", "RS", REF}
    # a legend click highlights (shift-click adds), others dimmed; wheel/drag zooms the x axis
    assert p["pick"]["bind"] == "legend" and p["pick"]["select"]["fields"] == ["algorithm"]
    assert p["zoom"]["bind"] == "scales"
    op = [n["encoding"]["opacity"] for n, _ in find(spec, "line")]
    assert op and all(o["condition"]["param"] == "pick" and o["value"] == theme.DIMMED for o in op)
    tips = {t["field"] for n, _ in find(spec, "line") for t in n["encoding"]["tooltip"]}
    assert {"algorithm", "dimension", "group", "x", "fraction"} <= tips
    # the static export renders the initial choice: 2-D, all functions
    svg = export.save(c, tmp_path / "explorer.svg").read_text()
    assert svg.lstrip().startswith("<svg") and "2-D" not in svg  # the drop-downs are not part of a picture
    png = export.save(c, tmp_path / "explorer.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert export.save(c, tmp_path / "explorer.pdf").read_bytes()[:5] == b"%PDF-"


def test_background_algorithms_grey_behind_the_compared_ones(store, tmp_path):
    a = Analysis(store, dimension=5)
    c = chart("ecdf", a.select(algorithm=["DIRECT", "NM", "RS"]), reference="best2009", background=["RS", "NM"],
              samples=20)
    spec = json.loads(export.save(c, tmp_path / "bg.json").read_text())
    (grey, rows), = grey_lines(spec)
    assert {r["algorithm"] for r in rows} == {"RS", "NM"}
    assert "color" not in grey["encoding"] and grey["mark"]["strokeWidth"] < 1
    assert colour_domain(spec) == {"DIRECT", REF}  # compared and reference coloured, background not
    layers = [n for n, _ in marks(spec)]
    assert layers.index(grey) == 0  # drawn first: behind everything
    (_, dots), = find(spec, "point", size=70)
    assert {r["algorithm"] for r in dots} == {"DIRECT", REF}
    # the same in the scaling chart
    s = json.loads(export.save(chart("scaling", a.select(dimension=None, algorithm=["DIRECT", "NM", "RS"]),
                                     reference="best2009", background=["RS"]), tmp_path / "s.json").read_text())
    greys = grey_lines(s)  # one layer drawn in each function's panel
    assert len(greys) == 1 and len(s["facet"]["sort"]) > 1
    assert all(grey["transform"][0]["filter"] == "indexof(['RS'], datum.algorithm) >= 0" for grey, _ in greys)
    assert colour_domain(s) == {"DIRECT", "NM", REF}
    assert export.save(chart("ecdf-explorer", a.select(algorithm=["DIRECT"]), background=["NM", "RS"], samples=20),
                       tmp_path / "e.png").stat().st_size > 10_000


def test_unknown_background_algorithm_is_named(store):
    with pytest.raises(ValueError, match="background algorithm NOPE not in the store"):
        chart("ecdf", Analysis(store, algorithm=["DIRECT"], dimension=5), background=["NOPE"])


def test_critical_difference_chart_intervals_of_half_the_cd(tmp_path):
    from pipeline.charts.ranking import critical_difference_chart, rank_table

    r = pl.DataFrame({"dimension": [2, 2, 2, 5, 5, 5], "algorithm": ["A", "B", "C"] * 2, "rank": [1, 2, 3] * 2,
                      "score": [1.2, 2.0, 2.8, 1.0, 2.5, 2.5], "problems": [24] * 6,
                      "friedman_statistic": [9.0] * 6, "friedman_p": [0.01] * 6, "critical_difference": [0.6] * 6})
    t = rank_table(r)
    two = t.filter(pl.col("dimension") == 2)
    assert two["low"].to_list() == pytest.approx([0.9, 1.7, 2.5])
    assert two["high"].to_list() == pytest.approx([1.5, 2.3, 3.1])  # A and B differ: 2.0 - 1.2 > 0.6, no overlap
    c = critical_difference_chart(r)
    spec = json.loads(export.save(c, tmp_path / "cd.json").read_text())
    p = params(spec)
    assert p["rank_dimension"]["bind"]["options"] == [2, 5] and p["rank_dimension"]["value"] == 2
    (rule, rows), = find(spec, "rule")
    assert rule["encoding"]["x"]["field"] == "low" and rule["encoding"]["x2"]["field"] == "high"
    assert len(rows) == 6
    assert export.save(c, tmp_path / "cd.svg").read_text().lstrip().startswith("<svg")
