"""A report's pages when a file of the report is missing (a copy that left out data/): the page says
what it could not load, in the page and on the console, and the rest of the page works."""
from __future__ import annotations

import os
import time

from typer.testing import CliRunner

from pipeline.cli import app
from test_report_browser import driver  # noqa: F401 - the browser fixture


def test_a_large_tables_missing_script_is_said_in_the_page(driver, tmp_path, monkeypatch):  # noqa: F811
    from pipeline.report import figures, pages

    monkeypatch.setattr(figures, "EXTERNAL_TABLE_LIMIT", 100)
    monkeypatch.setattr(pages, "OPEN_TABLE_LIMIT", 100)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        r = CliRunner().invoke(app, ["report", "--out", "small", "-d", "2", "-f", "1"])
    finally:
        os.chdir(cwd)
    assert r.exit_code == 0, r.output
    for js in (tmp_path / "small" / "data").glob("table-*.js"):
        js.unlink()
    driver.get((tmp_path / "small" / "tables-2d.html").resolve().as_uri())
    driver.get_log("browser")
    first = driver.execute_script("var d = document.querySelector('details.table-block[data-src]'); "
                                  "d.querySelector('summary').click(); return d.id;")
    end = time.monotonic() + 20
    while driver.execute_script("return document.getElementById(arguments[0]).dataset.loaded", first) != "failed":
        assert time.monotonic() < end, "the missing table was not reported"
        time.sleep(0.1)
    text = driver.execute_script("return document.getElementById(arguments[0]).textContent", first)
    assert "could not be loaded from data/table-tables-" in text
    assert any("did not load" in e["message"] for e in driver.get_log("browser"))
