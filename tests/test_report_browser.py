"""The report in a real browser: `cocopipe report` with no arguments (the sample data: DIRECT, NM,
RS on bbob in 2-, 3- and 5-D, best2009 as reference) opened from disk (file://) in headless
Chromium at 1280 and 1920 px: every chart must be drawn (vega-embed put an SVG into each chart
container), no console warning or error on any page, no horizontal scrollbar, every chart within
its box and every legend within the window; a full-page screenshot per page and width.

Chromium and its driver are the Debian packages `chromium` and `chromium-driver`; driven by
selenium. Without them the test is skipped, except in CI (CI set), where it fails.
Screenshots go to the test's temporary folder, or to $COCOPIPE_SCREENSHOTS when set
(NAME-WIDTH.png).
"""
from __future__ import annotations

import base64
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
         "--disable-component-update", "--disable-sync", "--no-first-run", "--window-size=1280,1000")
#: the page widths a report is laid out for (report.js fits every chart to its box)
WIDTHS = (1280, 1920)
#: charts of the sample's report: all-function ECDFs (3 dimensions); a page per dimension of 5 group and
#: 24 function ECDFs; the scaling figure; 3 pairs x (scatter, ratio ECDF, aRT ratio) and a rank-sum heat map per
#: dimension, the EAF difference in 5-D and the log-ratio profile; per algorithm:
#: scaling, runtime and precision ECDFs per group in 5-D, aRT loss against best2009, convergence and the EAF in 5-D;
#: the performance and data profiles beside the overview's ECDFs; the ranking and the Shapley values
EXPECTED = {"index.html": 3 + 2, **{f"ecdf-{d}d.html": 5 + 24 for d in (2, 3, 5)},
            "scaling.html": 1, **{f"tables-{d}d.html": 0 for d in (2, 3, 5)}, "pairwise.html": 3,
            **{f"pair-{p}.html": 5 for p in ("direct-nm", "direct-rs", "nm-rs")},
            "alg-direct.html": 6, "alg-nm.html": 6, "alg-rs.html": 6, "settings.html": 0, "explore.html": 1,
            "ranking.html": 2}


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


def _open(d, page: Path, timeout: float = 60.0) -> None:
    """Load a page and wait until it is the document, loaded whole (`get` may come back while the previous
    page is still the document)."""
    uri = page.resolve().as_uri()
    d.get(uri)
    end = time.monotonic() + timeout
    while d.execute_script("return document.readyState === 'complete' ? location.href : ''") != uri:
        if time.monotonic() > end:
            pytest.fail(f"{uri}: not loaded within {timeout:.0f} s")
        time.sleep(0.05)


def _wait_for_charts(d, timeout: float = 180.0) -> None:
    """Every chart of the page drawn (charts are drawn as they come into view: all of them asked for)."""
    end = time.monotonic() + timeout
    d.execute_script("window.cocopipeDrawAll()")
    while d.execute_script("return document.body.dataset.chartsDone") != "true":
        if time.monotonic() > end:
            pytest.fail(f"{d.current_url}: charts not drawn within {timeout:.0f} s "
                        f"({d.execute_script('return document.body.dataset.chartsRendered')} drawn)")
        time.sleep(0.2)


#: where the page's layout leaves the window: a horizontal scrollbar, a chart wider than its box, a
#: legend (Vega's legend groups) beyond the window's edges
LAYOUT = """return {
    scroll: document.documentElement.scrollWidth - window.innerWidth,
    charts: Array.from(document.querySelectorAll('div.chart svg')).map(function (svg) {
        var box = svg.closest('.chart-box').getBoundingClientRect(), r = svg.getBoundingClientRect();
        return {id: svg.closest('div.chart').id, over: Math.round(r.right - box.right)};
    }).filter(function (c) { return c.over > 1; }),
    legends: Array.from(document.querySelectorAll('div.chart svg g.role-legend')).map(function (g) {
        var r = g.getBoundingClientRect();
        return {id: g.closest('div.chart').id, left: Math.round(r.left), right: Math.round(r.right)};
    }),
    width: window.innerWidth};"""


def _screenshot(d, path: Path) -> None:
    """The whole page (beyond the window's height) as PNG."""
    height = min(d.execute_script("return document.documentElement.scrollHeight"), 16_000)
    width = d.execute_script("return window.innerWidth")
    shot = d.execute_cdp_cmd("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                                        "clip": {"x": 0, "y": 0, "width": width, "height": height,
                                                                 "scale": 1}})
    path.write_bytes(base64.b64decode(shot["data"]))


@pytest.mark.parametrize("width", WIDTHS)
def test_every_chart_is_drawn_offline_and_fits_the_page(sample_report, driver, tmp_path, width):
    shots = Path(os.environ.get("COCOPIPE_SCREENSHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    found = sorted(p.name for p in sample_report.glob("*.html"))
    assert found == sorted(EXPECTED)
    driver.set_window_size(width, 1000)
    driver.get_log("browser")  # what earlier pages left
    for name, n in EXPECTED.items():
        _open(driver, sample_report / name)
        _wait_for_charts(driver)
        counts = driver.execute_script("""return {
            containers: document.querySelectorAll('div.chart').length,
            drawn: document.querySelectorAll('div.chart[data-rendered="true"] svg.marks').length,
            failed: Number(document.body.dataset.chartsFailed),
            declared: Number(document.getElementById('content').dataset.charts)};""")
        assert counts == {"containers": n, "drawn": n, "failed": 0, "declared": n}, name
        # no warning either (e.g. Vega's "Infinite extent for field", Vega-Lite's conflicting legends)
        logs = [e for e in driver.get_log("browser") if e["level"] in ("WARNING", "SEVERE")]
        assert logs == [], (name, logs[:3])
        layout = driver.execute_script(LAYOUT)
        assert layout["width"] == width
        assert layout["scroll"] <= 0, (name, f"horizontal scrollbar: {layout['scroll']} px too wide")
        assert layout["charts"] == [], (name, "charts wider than their box")
        outside = [g for g in layout["legends"] if g["left"] < 0 or g["right"] > width]
        assert outside == [], (name, "legends beyond the window")
        if name in ("scaling.html", "pair-direct-nm.html", "alg-nm.html"):
            assert layout["legends"], name  # the check above has legends to look at
        _screenshot(driver, shots / f"{name.replace('.html', '')}-{width}.png")
    # the navigation bar reaches every page, the drop-down lists each algorithm
    _open(driver, sample_report / "index.html")
    links = driver.execute_script("return Array.from(document.querySelectorAll('nav.topnav a'))"
                                  ".map(a => a.getAttribute('href'))")
    assert sorted(links) == sorted(EXPECTED)


def test_charts_fill_their_boxes(sample_report, driver):
    """At 1920 px a chart is as wide as its box (within the room vega-embed keeps for its menu), not
    the width its spec was made with; at 1280 px the six-column scaling figure shrinks to fit."""
    for width, page, widest in ((1920, "index.html", 1.3), (1280, "scaling.html", 1.0)):
        driver.set_window_size(width, 1000)
        _open(driver, sample_report / page)
        _wait_for_charts(driver)
        fill = driver.execute_script("""return Array.from(document.querySelectorAll('div.chart')).map(function (c) {
            var box = c.closest('.chart-box').clientWidth, svg = c.querySelector('svg').getBoundingClientRect().width;
            return {fill: (svg + 40) / box, scale: Number(c.dataset.scale)}; });""")
        assert fill and all(f["fill"] > 0.97 for f in fill), (page, width, fill)
        assert all((f["scale"] > widest) if widest > 1 else (f["scale"] < widest) for f in fill), (page, fill)


def test_charts_like_a_fitted_one_are_drawn_once_at_its_scale(sample_report, driver):
    """The overview's ECDFs (one per dimension) have the same sizes in boxes as wide: the first is fitted to its box, the
    others are drawn at once at its scale (their spec's sizes scaled before drawing, one layout) and fill
    their boxes as well."""
    driver.set_window_size(1920, 1000)
    _open(driver, sample_report / "index.html")
    driver.execute_script("window.localStorage.clear();")  # no scale kept from the pages seen before
    driver.refresh()
    _wait_for_charts(driver)
    charts = driver.execute_script("""return Array.from(document.querySelectorAll('div.chart')).slice(0, 3).map(function (c) {
        var box = c.closest('.chart-box').clientWidth, svg = c.querySelector('svg').getBoundingClientRect().width;
        return {fill: (svg + 40) / box, scale: c.dataset.scale, presized: c.dataset.presized === 'true'}; });""")
    assert len(charts) >= 2 and not charts[0]["presized"] and all(c["presized"] for c in charts[1:]), charts
    assert len({c["scale"] for c in charts}) == 1 and all(c["fill"] > 0.97 for c in charts), charts


def test_grids_like_a_fitted_one_are_drawn_once_at_its_scale(sample_report, driver):
    """The pair pages' grids of panels (aRT ratios of each pair, a facet of 24 functions): the first is
    fitted to its box, the others, of the same panel sizes, are drawn at its scale (every panel's size scaled
    in the spec) and fill their boxes too."""
    driver.set_window_size(1920, 1000)
    charts = []
    for i, pair in enumerate(("direct-nm", "direct-rs", "nm-rs")):
        _open(driver, sample_report / f"pair-{pair}.html")
        if i == 0:
            driver.execute_script("window.localStorage.clear();")  # no scale kept from the pages seen before
            driver.refresh()
        driver.execute_script("window.cocopipeDrawAll();")
        _wait_for_charts(driver)
        charts += driver.execute_script("""return Array.from(document.querySelectorAll('div.chart[data-spec^="spec-art-ratio"]'))
            .map(function (c) {
              var box = c.closest('.chart-box').clientWidth, svg = c.querySelector('svg').getBoundingClientRect().width;
              return {fill: (svg + 40) / box, scale: c.dataset.scale, presized: c.dataset.presized === 'true'}; });""")
    assert len(charts) == 3 and not charts[0]["presized"] and all(c["presized"] for c in charts[1:]), charts
    assert len({c["scale"] for c in charts}) == 1 and all(0.97 < c["fill"] <= 1.0 for c in charts), charts


def test_a_chart_fitted_on_one_page_is_drawn_at_once_at_its_scale_on_another(sample_report, driver):
    """The scale found for a chart is kept for the report's other pages (the browser's storage): the next
    algorithm's page draws its scaling figure, of the same sizes, once at that scale, filling its box."""
    driver.set_window_size(1920, 1000)
    _open(driver, sample_report / "alg-direct.html")
    driver.execute_script("window.localStorage.clear();")
    driver.refresh()
    _wait_first_screen(driver)
    state = """var c = document.querySelector('div.chart[data-spec^="spec-scaling"]');
        var box = c.closest('.chart-box').clientWidth, svg = c.querySelector('svg').getBoundingClientRect().width;
        return {presized: c.dataset.presized === 'true', scale: c.dataset.scale, fill: (svg + 40) / box};"""
    first = driver.execute_script(state)
    _open(driver, sample_report / "alg-nm.html")
    _wait_first_screen(driver)
    second = driver.execute_script(state)
    assert not first["presized"] and second["presized"] and second["scale"] == first["scale"], (first, second)
    assert 0.97 < second["fill"] <= 1.0, second


def test_a_missing_chart_fails_the_check(sample_report, driver, tmp_path):
    """A spec vega-embed cannot draw is counted as failed, never as drawn (the check can fail)."""
    broken = tmp_path / "broken"
    shutil.copytree(sample_report, broken)
    page = broken / "scaling.html"
    text = page.read_text(encoding="utf-8")
    start = text.index('<script type="application/json" id="spec-')
    start = text.index(">", start) + 1
    page.write_text(text[:start] + '{"mark": 17}' + text[text.index("</script>", start):], encoding="utf-8")
    _open(driver, page)
    _wait_for_charts(driver)
    drawn = driver.execute_script("return document.querySelectorAll('div.chart[data-rendered=\"true\"]').length")
    failed = driver.execute_script("return Number(document.body.dataset.chartsFailed)")
    assert (drawn, failed) == (0, 1)
    assert any(e["level"] == "SEVERE" for e in driver.get_log("browser"))


def _drawn(d) -> list[str]:
    return d.execute_script("return Array.from(document.querySelectorAll('div.chart[data-rendered=\"true\"] svg.marks'))"
                            ".map(s => s.closest('div.chart').id)")


def _wait_first_screen(d, timeout: float = 60.0) -> None:
    end = time.monotonic() + timeout
    while d.execute_script("return document.body.dataset.firstScreenMs") is None:
        if time.monotonic() > end:
            pytest.fail(f"{d.current_url}: the first screen's charts not drawn within {timeout:.0f} s")
        time.sleep(0.05)


def test_charts_are_drawn_when_they_come_into_view(sample_report, driver):
    """An ECDF page (29 charts) draws the charts of its first screen, not the others; a link to a chart
    further down draws the charts there (issue 32: a section showed captions without charts)."""
    driver.set_window_size(1920, 1000)
    _open(driver, sample_report / "ecdf-5d.html")
    _wait_first_screen(driver)
    time.sleep(0.5)  # nothing more comes without scrolling
    first = _drawn(driver)
    assert 1 <= len(first) < 20, first
    in_view = driver.execute_script("""return Array.from(document.querySelectorAll('div.chart')).filter(function (c) {
        var r = c.getBoundingClientRect(); return r.bottom > 0 && r.top < window.innerHeight; }).map(c => c.id);""")
    assert set(in_view) <= set(first)
    section = driver.execute_script("var c = Array.from(document.querySelectorAll('div.chart')).pop(); "
                                    "c.closest('figure').scrollIntoView(); return c.closest('section').id;")
    end = time.monotonic() + 30
    while True:
        state = driver.execute_script("""var s = document.getElementById(arguments[0]);
            return Array.from(s.querySelectorAll('div.chart')).filter(function (c) {
              var r = c.getBoundingClientRect(); return r.bottom > 0 && r.top < window.innerHeight; })
              .map(c => c.dataset.rendered === 'true');""", section)
        if state and all(state):
            break
        assert time.monotonic() < end, f"the charts of {section} in view not drawn: {state}"
        time.sleep(0.1)
    assert len(_drawn(driver)) < 29  # still not the whole page


def test_a_chart_pushed_out_of_the_window_by_the_one_drawn_before_waits(sample_report, driver):
    """A pair page opened afresh: its five charts' boxes (the log-ratio profile the fifth) are small before they
    are drawn, all in the window; the scatter drawn first pushes the others below it, out of the window: they are
    not drawn with the first screen (20 algorithms: the first screen took 1.3 s drawing all three), and are drawn
    when scrolled to."""
    driver.set_window_size(1920, 1000)
    driver.get("about:blank")
    _open(driver, sample_report / "pair-direct-nm.html")
    driver.execute_script("window.localStorage.clear()")  # no heights or scales kept from other pages
    driver.refresh()
    _wait_first_screen(driver)
    time.sleep(0.5)  # nothing more comes without scrolling
    tops = driver.execute_script("return Array.from(document.querySelectorAll('div.chart')).map(function (c) {"
                                 "return [c.id, c.getBoundingClientRect().top, c.dataset.rendered === 'true']; });")
    assert len(tops) == 5 and tops[0][2], tops
    below = [t for t in tops[1:] if t[1] > 1000 + 200]
    assert below and not any(drawn for _, _, drawn in below), tops
    end = time.monotonic() + 30
    while len(_drawn(driver)) < 5:  # down a window at a time, as a reader scrolls: each chart drawn in view makes
        assert time.monotonic() < end, _drawn(driver)  # the page longer, and the top of the page comes round again
        driver.execute_script("window.scrollBy(0, 600); if (window.innerHeight + window.scrollY >= "
                              "document.documentElement.scrollHeight - 1) window.scrollTo(0, 0);")
        time.sleep(0.2)


def test_charts_refer_to_the_pages_tables(sample_report):
    """No chart carries its tables: each is in the page's data block once by name (or in data/NAME.js
    when pages share it), and every name a chart refers to is there."""
    import json
    import re

    for page in sorted(sample_report.glob("*.html")):
        text = page.read_text(encoding="utf-8")
        specs = re.findall(r'<script type="application/json" id="spec-[^"]+">(.*?)</script>', text)
        assert all("datasets" not in json.loads(s) and not re.search(r'"data": ?\{"values"', s) for s in specs), page.name
        blocks = re.findall(r'class="dataset" id="dataset-([^"]+)"', text)
        assert len(blocks) == len(set(blocks)), page.name
        named = {n for line in text.split('data-datasets="')[1:] for n in line.split('"', 1)[0].split()}
        files = set(re.findall(r'<script src="data/([^"]+)\.js">', text))
        assert named == set(blocks) | files, page.name


def test_the_explorer_forgets_its_zoom_when_the_dimension_changes(sample_report, driver):
    """Issue 32: the explorer kept its zoom when another dimension was chosen."""
    driver.set_window_size(1280, 1000)
    _open(driver, sample_report / "explore.html")
    _wait_for_charts(driver)
    domain = "return window.__views[0].scale('x').domain();"
    full = driver.execute_script(domain)
    driver.execute_script("var v = window.__views[0]; v.signal('zoom_x', [1, 100]); v.runAsync();")
    time.sleep(0.3)
    assert driver.execute_script(domain) == [1, 100]
    options = driver.execute_script("return Array.from(document.querySelectorAll('.vega-bindings select')[0].options)"
                                    ".map(o => o.textContent);")
    assert options == ["2-D", "3-D", "5-D"]  # the sample's dimensions: not those only best2009 has
    driver.execute_script("var s = document.querySelectorAll('.vega-bindings select')[0]; s.selectedIndex = 2; "
                          "s.dispatchEvent(new Event('change'));")
    time.sleep(0.5)
    assert driver.execute_script("return window.__views[0].signal('dimension_shown');") == 5
    assert driver.execute_script(domain) == full


def test_the_settings_pages_archive_table_fits_the_window(sample_report, driver, tmp_path):
    """Issue 32, item 5: the data sets table of a report with archive data sets was 1909 px wide, its
    archive_url and sha256 off-screen at 1920 px. A row as an archive data set has (its name, URL and
    sha256) added to the sample's table must leave every cell within the window."""
    copy = tmp_path / "archive-report"
    shutil.copytree(sample_report, copy)
    page = copy / "settings.html"
    text = page.read_text(encoding="utf-8")
    start = text.index('id="data-sets-full"')
    head_end = text.index("</tr></thead>", start)
    row_end = text.index("</tr>", text.index("<tbody>", start))
    url = "https://numbbo.github.io/data-archive/data-archive/bbob/2009/" + "BIPOP-CMA-ES_hansen_noiseless" * 3 + ".tgz"
    extra_head = "<th>archive_name</th><th>archive_url</th><th>sha256</th>"
    extra_row = f"<td>bbob/2009/BIPOP-CMA-ES_hansen_noiseless.tgz</td><td>{url}</td><td>{'0123456789abcdef' * 4}</td>"
    text = text[:head_end] + extra_head + text[head_end:row_end] + extra_row + text[row_end:]
    page.write_text(text, encoding="utf-8")
    for width in WIDTHS:
        driver.set_window_size(width, 1000)
        _open(driver, page)
        right = driver.execute_script("return Math.max(...Array.from(document.querySelectorAll('#data-sets-full td, "
                                      "#data-sets-full th')).map(c => c.getBoundingClientRect().right));")
        assert right <= driver.execute_script("return document.documentElement.clientWidth"), (width, right)


def test_a_large_table_is_loaded_when_opened(driver, tmp_path, monkeypatch):
    """A closed table over the size limit is not in the page (the Tables page of 20 algorithms was 40 MB):
    it is in data/NAME.js, loaded from disk when its title is clicked."""
    from pipeline.report import figures, pages

    monkeypatch.setattr(figures, "EXTERNAL_TABLE_LIMIT", 100)
    monkeypatch.setattr(pages, "OPEN_TABLE_LIMIT", 100)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        r = CliRunner().invoke(app, ["report", "--out", "small", "-d", "2", "-f", "1", "-f", "2"])
    finally:
        os.chdir(cwd)
    assert r.exit_code == 0, r.output
    page = tmp_path / "small" / "tables-2d.html"
    assert "<table" not in page.read_text(encoding="utf-8")
    _open(driver, page)
    first = driver.execute_script("var d = document.querySelector('details.table-block[data-src]'); "
                                  "d.querySelector('summary').click(); return d.id;")
    end = time.monotonic() + 20
    while driver.execute_script("return document.getElementById(arguments[0]).dataset.loaded", first) != "true":
        assert time.monotonic() < end, "the table did not load"
        time.sleep(0.1)
    rows = driver.execute_script("return document.getElementById(arguments[0]).querySelectorAll('tbody tr').length",
                                 first)
    assert rows > 0


#: the text of the cells of the rows of a table of the page (textContent: a table below the window is not laid out)
TABLE_ROWS = """return Array.from(document.getElementById(arguments[0]).querySelectorAll('tbody tr')).map(
    function (tr) { return Array.from(tr.cells).map(function (c) { return c.textContent.trim(); }); });"""


def test_direct_against_rs_on_f1_5d_is_significant_in_both_tables(sample_report, driver):
    """Issue 44: the pairwise tests corrected over all 1512 tests of the page (DIRECT's smallest p, 5 trials against
    15, is 1.3e-4: 0.20 after correction), while the aRT table corrected over the 24 functions of a dimension and
    starred DIRECT. Both correct cocopp's family now, named on the page: DIRECT, 5 of 5 solved on f1 in 5-D, RS 0
    of 15, differ significantly at 1e+0 in both tables, and in the pairwise heat map."""
    from pipeline.measures.significance import FAMILY_TEXT

    _open(driver, sample_report / "tables-5d.html")
    driver.execute_script("document.querySelectorAll('details').forEach(function (d) { d.open = true; });")
    text = driver.execute_script("return document.body.innerText")
    assert f"Bonferroni-corrected within one family: {FAMILY_TEXT}" in text
    art = driver.execute_script(TABLE_ROWS, "tab:art-bbob-5D")
    header = driver.execute_script("return Array.from(document.getElementById('tab:art-bbob-5D')"
                                   ".querySelectorAll('thead th')).map(function (c) { return c.textContent; });")
    f1 = art[:[i for i, r in enumerate(art) if r[0] == "f2"][0]]
    direct = next(r for r in f1 if r[1] == "DIRECT")
    assert "★" in direct[header.index("1e+0")], direct
    pw = driver.execute_script(TABLE_ROWS, "tab:pairwise-bbob-5D")
    row = next(r for r in pw if r[:4] == ["f1", "1e+0", "DIRECT", "RS"])
    assert row[7] == "DIRECT" and row[9].startswith("*") and float(row[8]) < 0.05, row
    _open(driver, sample_report / "pairwise.html")
    assert FAMILY_TEXT in driver.execute_script("return document.body.innerText")


@pytest.fixture(scope="module")
def ioh_report(tmp_path_factory) -> Path:
    """The report of IOHprofiler data alone (`cocopipe report SOURCES`): ioh's BBOB on f1-f3 (best2009 as
    reference), PBO on 16 bits, and IOHinspector's example data (unknown_suite: no known optimum)."""
    root = Path(__file__).resolve().parent.parent
    out = tmp_path_factory.mktemp("ioh-browser")
    r = CliRunner().invoke(app, ["report", str(root / "data/ioh/bbob.tgz"), str(root / "data/ioh/pbo.tgz"),
                                 str(root / "tests/fixtures/ioh/real/iohinspector_SO_Data"), "--store",
                                 str(out / "store"), "--out", str(out / "r"), "--samples", "20"])
    assert r.exit_code == 0, r.output
    return out / "r"


def test_the_ioh_report_says_what_its_charts_aggregate(ioh_report, driver, tmp_path):
    """Issue 44, as a reader of the IOHprofiler report sees it: the overview names the 60 runs without a known
    optimum it leaves out; each all-function ECDF counts the functions the algorithms have (3 of bbob, the
    reference cut to them; not best2009's 24); PBO's table columns are its whole-number targets, not bbob's
    1e+1 .. 1e-7 (which on 16-bit OneMax read 108 evaluations, the optimum, from 1e-1 on)."""
    shots = Path(os.environ.get("COCOPIPE_SCREENSHOTS", tmp_path))
    for width in WIDTHS:
        driver.set_window_size(width, 1000)
        _open(driver, ioh_report / "index.html")
        _wait_for_charts(driver)
        text = driver.execute_script("return document.body.innerText")
        assert "60 IOHprofiler runs of suite unknown_suite (HillClimber, RandomSearch; functions 1-2) have no known " \
               "optimum" in text
        assert "3 functions of bbob in 2-D." in text and "3 functions of bbob in 5-D." in text
        assert "24 functions" not in text and "2 functions of pbo in 16-D." in text
        assert driver.execute_script(LAYOUT)["scroll"] <= 0
        _screenshot(driver, shots / f"ioh-index-{width}.png")
    _open(driver, ioh_report / "tables-pbo-16d.html")
    header = driver.execute_script("return Array.from(document.querySelectorAll('table.art thead th'))"
                                   ".map(function (c) { return c.textContent; });")
    assert header[2:-1] == ["15", "12", "10", "8", "5", "2", "0"], header
    _screenshot(driver, shots / "ioh-tables-pbo-1920.png")
