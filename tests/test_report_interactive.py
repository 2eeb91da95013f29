"""The interactive report (issue 12) on the shared bbob data sets: DIRECT and NM compared,
best2009 the reference, BrentSTEPqi and RS given as `--background` sources (ingested with the
data). The specs: background algorithms thin and grey in every ECDF and scaling chart, the compared
ones in colour. In headless Chromium (skipped without it, as tests/test_report_browser.py): every
chart drawn with no console error; a legend click dims the other algorithms (read back through the
Vega view API, `window.__views`); the explorer's drop-downs change the data shown; the search box
highlights an algorithm in every chart of the page. Screenshots go to $COCOPIPE_SCREENSHOTS or the
test's temporary folder.
"""
from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import SHARED, shared_or_skip
from pipeline.charts import theme
from pipeline.cli import app
from test_charts import marks
from test_report import specs
from test_report_browser import driver, _wait_for_charts  # noqa: F401 (a fixture)

COMPARED = ["real/DIRECT_posik_noiseless.tgz", "generated/NM_on_bbob.tgz", "refalgs/best2009-bbob.tar.gz"]
BACKGROUND = ["real/BrentSTEPqi_Posik.tgz", "generated/RS_on_bbob.tgz"]
REF = "best2009-bbob"


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    shared_or_skip()
    out = tmp_path_factory.mktemp("interactive") / "report"
    args = ["report", *[str(SHARED / "data" / p) for p in COMPARED], "--out", str(out), "--reference", "best2009",
            "--dimension", "2", "--dimension", "5"]
    for p in BACKGROUND:
        args += ["--background", str(SHARED / "data" / p)]
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    return out


def page_specs(path: Path) -> dict[str, dict]:
    return specs(path.read_text(encoding="utf-8"), path.parent)


def grey_and_coloured(spec: dict) -> tuple[set[str], set[str]]:
    """Algorithms of the grey background layers, and those of the colour scales."""
    grey, colour = set(), set()
    datasets = spec.get("datasets", {})
    for node, rows in marks(spec):
        mark = node["mark"] if isinstance(node["mark"], dict) else {}
        if mark.get("color") == theme.BACKGROUND_COLOUR:
            if isinstance(rows, str):  # CSV text
                rows = [dict(zip(rows.splitlines()[0].split(","), line.split(","))) for line in rows.splitlines()[1:]]
            filt = " ".join(t.get("filter", "") for t in node.get("transform", []) if isinstance(t.get("filter"), str))
            named = re.findall(r"indexof\(\[(.*?)\]", filt)
            grey |= ({a.strip(" '") for a in named[0].split(",")} if named else {r["algorithm"] for r in rows})
        colour |= set(node.get("encoding", {}).get("color", {}).get("scale", {}).get("domain", []))
    del datasets
    return grey, colour


def test_background_grey_in_every_ecdf_and_scaling_chart(report):
    settings = json.loads((report / "settings.json").read_text())
    assert settings["record"]["background"] == ["BrentSTEPqi", "RS"]
    assert settings["record"]["algorithms"] == ["DIRECT", "NM"]
    checked = 0
    for page in ("index.html", *[p.name for p in report.glob("ecdf-*.html")], "explore.html", "scaling.html"):
        for name, spec in page_specs(report / page).items():
            if "profile" in name:  # the overview's profiles beside the ECDFs compare the compared alone
                continue
            grey, colour = grey_and_coloured(spec)
            assert grey == {"BrentSTEPqi", "RS"}, (page, name)
            assert colour == {"DIRECT", "NM", REF}, (page, name)
            checked += 1
    assert checked == 2 + 2 * (5 + 24) + 1 + 1
    # the background algorithms are not compared: no page, no table row of their own
    tables = [p.read_text() for p in report.glob("tables-*.html")]
    assert tables and not (report / "alg-rs.html").exists()
    assert not any("BrentSTEPqi" in t[t.index("<main"):] for t in tables)


# -- in the browser ------------------------------------------------------------------------------
def line_opacity(d, chart: int = 0) -> dict[str, set[float]]:
    """{algorithm: opacities of its line items} of a chart, from the Vega scenegraph."""
    return {k: set(v) for k, v in d.execute_script("""
        var out = {};
        (function walk(n) {
          if (n.mark && n.mark.marktype === 'line' && n.datum && n.datum.algorithm !== undefined) {
            (out[n.datum.algorithm] = out[n.datum.algorithm] || []).push(n.opacity === undefined ? 1 : n.opacity);
          }
          (n.items || []).forEach(walk);
        })(window.__views[arguments[0]].scenegraph().root);
        return out;""", chart).items()}


def shown_keys(d) -> set[tuple]:
    return {tuple(k) for k in d.execute_script("""
        var out = {};
        (function walk(n) {
          if (n.mark && n.mark.marktype === 'line' && n.datum && n.datum.group !== undefined)
            out[n.datum.dimension + '/' + n.datum.group] = [n.datum.dimension, n.datum.group];
          (n.items || []).forEach(walk);
        })(window.__views[0].scenegraph().root);
        return Object.values(out);""")}


def settle(d) -> None:
    d.execute_script("return Promise.all(window.__views.map(v => v.runAsync())).then(() => true)")
    time.sleep(0.3)


def test_interactions_in_the_browser(report, driver):  # noqa: F811
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    shots = Path(os.environ.get("COCOPIPE_SCREENSHOTS") or report.parent / "shots")
    shots.mkdir(parents=True, exist_ok=True)
    for page in sorted(p.name for p in report.glob("*.html")):
        driver.get((report / page).resolve().as_uri())
        _wait_for_charts(driver)
        n = int(driver.find_element(By.ID, "content").get_attribute("data-charts"))
        drawn = driver.execute_script("return document.querySelectorAll('div.chart[data-rendered=\"true\"] svg.marks')"
                                      ".length")
        assert drawn == n and driver.execute_script("return window.__views.length") == n, page
        assert [e for e in driver.get_log("browser") if e["level"] == "SEVERE"] == [], page
        driver.save_screenshot(str(shots / page.replace(".html", ".png")))

    driver.get((report / "explore.html").resolve().as_uri())
    _wait_for_charts(driver)
    before = line_opacity(driver)
    assert set(before) == {"DIRECT", "NM", REF, "BrentSTEPqi", "RS"} and all(v == {1} for v in before.values())
    assert shown_keys(driver) == {(2, "all")}
    # a click on the legend entry of NM: NM stays, DIRECT and the reference dim, the background stays grey
    label = [e for e in driver.find_elements(By.CSS_SELECTOR, "g.role-legend-label text") if e.text == "NM"][0]
    ActionChains(driver).move_to_element(label).click().perform()
    settle(driver)
    after = line_opacity(driver)
    assert after["NM"] == {1} and after["DIRECT"] == {theme.DIMMED} and after[REF] == {theme.DIMMED}
    assert after["RS"] == {1}
    driver.save_screenshot(str(shots / "explore-legend-click.png"))
    # the drop-downs: 5-D, function 7
    selects = driver.find_elements(By.CSS_SELECTOR, ".vega-bindings select")
    assert len(selects) == 2
    Select(selects[0]).select_by_visible_text("5-D")
    Select(selects[1]).select_by_visible_text("f7")
    settle(driver)
    assert shown_keys(driver) == {(5, "f7")}
    driver.save_screenshot(str(shots / "explore-5d-f7.png"))
    # the search box highlights DIRECT in every chart of the page (through the Vega view API)
    driver.get((report / "index.html").resolve().as_uri())
    _wait_for_charts(driver)
    driver.find_element(By.ID, "algorithm-search").send_keys("direct")
    settle(driver)
    for i in range(driver.execute_script("return window.__views.length")):
        op = line_opacity(driver, i)
        assert op["DIRECT"] == {1} and op["NM"] == {theme.DIMMED}, i
    driver.save_screenshot(str(shots / "index-search-direct.png"))
