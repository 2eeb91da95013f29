"""Page-load benchmark of a report (issue 32, item 1): every page opened from disk in headless Chromium
(selenium, /usr/bin/chromium and /usr/bin/chromedriver) at each width, timed from the navigation's start
(the browser's clock, `performance.now()`):

- first screen: every chart that is in the window when the page opens drawn (vega-embed put its SVG in);
- screens: the page scrolled down a window's height at a time to its end, the charts of each screen
  drawn before the next (two frames after each scroll, so that what came into view is laid out): the
  slowest screen (from the scroll to its last chart drawn) and the time to the end of the page (the page
  "finished" for a reader who scrolls through it);
- all: with --all, every chart of the page drawn without scrolling (`window.cocopipeDrawAll()`, as
  printing does), for comparison with the eager drawing of earlier reports.

A chart counts as drawn when its container has data-rendered="true" (or data-error: failed). The walk
runs in the page (one asynchronous script), so that WebDriver's round trips are not counted; the browser
starts on a blank page first (its own start is not the report's time; the report's scripts are still cold
on the first page). Prints the machine's load average: other work disturbs the times; re-measure on a
quiet machine.

usage: python benchmarks/pages.py REPORT_DIR [REPORT_DIR ...] [--widths 1280,1920] [--height 1000] [--all]
e.g.   cocopipe report --out /tmp/sample && python benchmarks/pages.py /tmp/sample
       python benchmarks/report.py --scale 20 --out /tmp/rep20 && python benchmarks/pages.py /tmp/rep20
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run")

#: the whole walk through a page, run in the page (one asynchronous script: WebDriver's round trips, 10-50 ms
#: each on a loaded machine, are not the page's time): wait until no chart in the window waits to be drawn
#: (polled every 5 ms), note the time, scroll down a window's height, let two frames pass (what came into
#: view is laid out; at most 100 ms), again until the page's end
WALK = """var done = arguments[arguments.length - 1], start = performance.now(), deadline = start + %d;
function state() {
  var h = window.innerHeight, pending = 0, drawn = 0, all = document.querySelectorAll('div.chart');
  Array.prototype.forEach.call(all, function (c) {
    var ok = c.dataset.rendered === 'true' || c.dataset.error !== undefined;
    if (ok) drawn += 1;
    var r = c.getBoundingClientRect();
    if (!ok && r.bottom > 0 && r.top < h && r.height > 0) pending += 1;
  });
  return {pending: pending, charts: all.length, drawn: drawn, now: performance.now(),
          ready: document.readyState !== 'loading',
          bottom: window.scrollY + h >= document.documentElement.scrollHeight - 2};
}
function idle(then) {
  var s = state();
  if (s.ready && s.pending === 0 || s.now > deadline) then(s); else window.setTimeout(function () { idle(then); }, 5);
}
var out = {screens: 1, slowest: 0};
idle(function (s) {
  out.first = s.now; out.charts = s.charts;
  (function next(s) {
    if (s.bottom || s.now > deadline) { out.end = s.now; out.drawn = s.drawn; done(out); return; }
    window.scrollBy(0, window.innerHeight);
    var t = performance.now();
    // two frames first (at most 100 ms: a browser may hold frames back): what came into view is laid out
    // (tables out of view are not until then: content-visibility)
    var went = false, go = function () {
      if (went) return;
      went = true;
      idle(function (s2) { out.slowest = Math.max(out.slowest, s2.now - t); out.screens += 1; next(s2); });
    };
    window.requestAnimationFrame(function () { window.requestAnimationFrame(go); });
    window.setTimeout(go, 100);
  })(s);
});"""

TIMEOUT = 120.0


def page_times(d, page: Path, draw_all: bool) -> dict:
    """The times (ms) of one page: first screen, slowest screen, end of the page, and all charts."""
    d.set_script_timeout(TIMEOUT + 10)
    d.get(page.resolve().as_uri())
    out = d.execute_async_script(WALK % (TIMEOUT * 1000))
    if out["drawn"] < out["charts"]:
        print(f"  {page.name}: {out['charts'] - out['drawn']} chart(s) not drawn at the end of the page")
    if draw_all:
        d.get(page.resolve().as_uri())
        end = time.monotonic() + TIMEOUT
        d.execute_script("if (window.cocopipeDrawAll) window.cocopipeDrawAll();")
        while d.execute_script("return document.body.dataset.chartsDone") != "true" and time.monotonic() < end:
            time.sleep(0.02)
        out["all"] = d.execute_script("return performance.now()")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("reports", nargs="+", type=Path, help="report folders (with index.html)")
    ap.add_argument("--widths", default="1280,1920", help="window widths in px, comma-separated")
    ap.add_argument("--height", type=int, default=1000, help="window height in px")
    ap.add_argument("--all", action="store_true", help="also time drawing every chart at once")
    ap.add_argument("--pages", default="", help="only these pages (comma-separated names, e.g. ecdf,pairwise)")
    opts = ap.parse_args()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    print(f"{os.cpu_count()} CPUs; load average {', '.join(f'{x:.1f}' for x in os.getloadavg())} "
          "(other work on the machine disturbs the times)")
    profile = tempfile.mkdtemp(prefix="cocopipe-bench-")
    o = webdriver.ChromeOptions()
    o.binary_location = CHROMIUM
    for f in (*FLAGS, f"--user-data-dir={profile}"):
        o.add_argument(f)
    d = webdriver.Chrome(options=o, service=Service(DRIVER))
    d.get("about:blank")  # the browser started (not the report's time: its pages' scripts are still cold)
    worst = {}
    try:
        for report in opts.reports:
            for width in (int(w) for w in opts.widths.split(",")):
                d.set_window_size(width, opts.height)
                print(f"{report} at {width}x{opts.height} px (ms from the navigation's start):")
                only = {f"{n}.html" for n in opts.pages.split(",") if n}
                for page in sorted(p for p in report.glob("*.html") if not only or p.name in only):
                    t = page_times(d, page, opts.all)
                    key = (str(report), width)
                    first, later = worst.get(key, (0.0, 0.0))
                    worst[key] = (max(first, t["first"]), max(later, t["slowest"]))
                    extra = f", all {t['all']:7.0f}" if "all" in t else ""
                    print(f"  {page.name:<22} {t['charts']:4d} charts: first screen {t['first']:6.0f}, "
                          f"slowest of {t['screens']:3d} screens {t['slowest']:6.0f}, end of page {t['end']:7.0f}"
                          f"{extra}")
        for (report, width), (first, slowest) in worst.items():
            print(f"{report} at {width} px: slowest first screen {first:.0f} ms (goal < 1000), slowest later "
                  f"screen {slowest:.0f} ms")
    finally:
        d.quit()
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
