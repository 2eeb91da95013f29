"""The report in a real browser: `cocopipe report` with no arguments (the sample data: DIRECT, NM,
RS on bbob in 2-, 3- and 5-D, best2009 as reference) opened from disk (file://) in headless
Chromium; every chart must be drawn (vega-embed put an SVG into each chart container), no
console error, a screenshot per page.

Chromium and its driver are the Debian packages `chromium` and `chromium-driver`; driven by
selenium. Without them the test is skipped, except in CI (CI set), where it fails.
Screenshots go to the test's temporary folder, or to $COCOPIPE_SCREENSHOTS when set.
"""
from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipeline.cli import app

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--window-size=1400,1000")
#: charts of the sample's report: all-function ECDFs (3 dimensions); per dimension 5 group and 24
#: function ECDFs; the scaling figure; 3 pairs x (scatter, ratio ECDF, aRT ratio) and a rank-sum heat map per
#: dimension; per algorithm:
#: scaling, runtime and precision ECDFs per group in 5-D, aRT loss against best2009, convergence in 5-D
EXPECTED = {"index.html": 3, "ecdf.html": 3 * (5 + 24), "scaling.html": 1, "tables.html": 0, "pairwise.html": 9 + 3,
            "alg-direct.html": 5, "alg-nm.html": 5, "alg-rs.html": 5, "settings.html": 0, "explore.html": 1,
            "ranking.html": 1}


def _browser_or_skip():
    missing = [p for p in (CHROMIUM, DRIVER) if not Path(p).exists()]
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("the selenium package")
    if missing:
        reason = (f"{', '.join(missing)} missing: install the Debian packages chromium and chromium-driver "
                  "(apt-get install -y chromium chromium-driver) and pip install '.[test]'")
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)


@pytest.fixture(scope="module")
def sample_report(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("browser") / "cocopipe-report"
    cwd = os.getcwd()
    os.chdir(out.parent)  # the command's defaults: the sample data, ./cocopipe-report
    try:
        r = CliRunner().invoke(app, ["report"])
    finally:
        os.chdir(cwd)
    assert r.exit_code == 0, r.output
    return out


@pytest.fixture(scope="module")
def driver():
    _browser_or_skip()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="cocopipe-chromium-")
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for f in (*FLAGS, f"--user-data-dir={profile}"):
        opts.add_argument(f)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    d = webdriver.Chrome(options=opts, service=Service(DRIVER))
    yield d
    d.quit()
    shutil.rmtree(profile, ignore_errors=True)


def _wait_for_charts(d, timeout: float = 180.0) -> None:
    end = time.monotonic() + timeout
    while d.execute_script("return document.body.dataset.chartsDone") != "true":
        if time.monotonic() > end:
            pytest.fail(f"{d.current_url}: charts not drawn within {timeout:.0f} s "
                        f"({d.execute_script('return document.body.dataset.chartsRendered')} drawn)")
        time.sleep(0.2)


def test_every_chart_is_drawn_offline(sample_report, driver, tmp_path):
    shots = Path(os.environ.get("COCOPIPE_SCREENSHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    found = sorted(p.name for p in sample_report.glob("*.html"))
    assert found == sorted(EXPECTED)
    for name, n in EXPECTED.items():
        driver.get((sample_report / name).resolve().as_uri())
        _wait_for_charts(driver)
        counts = driver.execute_script("""return {
            containers: document.querySelectorAll('div.chart').length,
            drawn: document.querySelectorAll('div.chart[data-rendered="true"] svg.marks').length,
            failed: Number(document.body.dataset.chartsFailed),
            declared: Number(document.getElementById('content').dataset.charts)};""")
        assert counts == {"containers": n, "drawn": n, "failed": 0, "declared": n}, name
        errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        assert errors == [], name
        assert driver.save_screenshot(str(shots / name.replace(".html", ".png")))
    # the navigation bar reaches every page, the drop-down lists each algorithm
    driver.get((sample_report / "index.html").resolve().as_uri())
    links = driver.execute_script("return Array.from(document.querySelectorAll('nav.topnav a'))"
                                  ".map(a => a.getAttribute('href'))")
    assert sorted(links) == sorted(EXPECTED)


def test_a_missing_chart_fails_the_check(sample_report, driver, tmp_path):
    """A spec vega-embed cannot draw is counted as failed, never as drawn (the check can fail)."""
    broken = tmp_path / "broken"
    shutil.copytree(sample_report, broken)
    page = broken / "scaling.html"
    text = page.read_text(encoding="utf-8")
    start = text.index('<script type="application/json" id="spec-')
    start = text.index(">", start) + 1
    page.write_text(text[:start] + '{"mark": 17}' + text[text.index("</script>", start):], encoding="utf-8")
    driver.get(page.resolve().as_uri())
    _wait_for_charts(driver)
    drawn = driver.execute_script("return document.querySelectorAll('div.chart[data-rendered=\"true\"]').length")
    failed = driver.execute_script("return Number(document.body.dataset.chartsFailed)")
    assert (drawn, failed) == (0, 1)
    assert any(e["level"] == "SEVERE" for e in driver.get_log("browser"))
