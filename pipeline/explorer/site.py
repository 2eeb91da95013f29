"""The explorer's HTML: jinja2 templates (templates/), the shipped static files (static/ and the report's
offline Vega bundle), tables sortable and filtered by a small script, charts as Vega-Lite specs."""
from __future__ import annotations

import hashlib
import json
import math
import shutil
from pathlib import Path

import jinja2
import polars as pl

from .. import __version__
from ..charts import theme
from ..charts.ecdf import ecdf_grid
from ..charts.ranking import critical_difference_chart

HERE = Path(__file__).resolve().parent
#: the offline Vega, Vega-Lite and vega-embed the report ships (one file, no network)
VEGA_BUNDLE = HERE.parent / "report" / "static" / "vega-bundle.js"
MINE_COLOUR, OTHER_COLOUR, REFERENCE_COLOUR = "#d62728", "#7f9fbf", "#999999"
#: the explorer's own code, templates and static files: a change of them makes every page again
TEMPLATES = hashlib.sha256(b"".join(f.read_bytes() for f in sorted(HERE.rglob("*"))
                                    if f.is_file() and f.suffix in (".py", ".html", ".css", ".js"))).hexdigest()[:16]
_ENV = jinja2.Environment(loader=jinja2.FileSystemLoader(HERE / "templates"), autoescape=True,
                          trim_blocks=False, lstrip_blocks=False)


def copy_static(out: Path) -> None:
    """The static files (CSS, the table script, the Vega bundle) into `out/static`, unless there already."""
    static = out / "static"
    static.mkdir(parents=True, exist_ok=True)
    for f in [*(HERE / "static").iterdir(), VEGA_BUNDLE]:
        target = static / f.name
        if not target.exists() or target.stat().st_size != f.stat().st_size:
            shutil.copyfile(f, target)


def _cell(v, href: str | None = None, cls: str | None = None) -> dict:
    """A table cell: its text, its number (to sort by) and link."""
    num = v if isinstance(v, (int, float)) and not isinstance(v, bool) and v is not None and math.isfinite(v) else None
    if v is None or (isinstance(v, float) and math.isnan(v)):
        text = ""
    elif isinstance(v, float) and (v.is_integer() or abs(v) >= 1e3) and abs(v) < 1e9:
        text = f"{v:.0f}"
    elif isinstance(v, float):
        text = f"{v:.4g}" if abs(v) >= 1e-3 or v == 0 else f"{v:.2e}"
    else:
        text = str(v)
    return {"text": text, "num": num, "href": href, "cls": cls}


def table(df: pl.DataFrame, *, cls: str = "sortable", links: dict[str, str] | None = None,
          row_class: list[str | None] | None = None, col_class: dict[str, str] | None = None) -> str:
    """An HTML table of a frame; `links` names a column whose cells link to the value of another column."""
    links = links or {}
    shown = [c for c in df.columns if c not in links.values()]
    rows = []
    for i, r in enumerate(df.iter_rows(named=True)):
        cells = [_cell(r[c], r[links[c]] if c in links else None, (col_class or {}).get(c)) for c in shown]
        rows.append({"cells": cells, "cls": row_class[i] if row_class else None})
    return _ENV.get_template("table.html").render(columns=shown, rows=rows, cls=cls)


def page(title: str, sections: list[dict], *, root: str, nav: list, intro: str = "", store: str = "",
         settings: str = "") -> str:
    """A page of the site: `sections` of title, note, chart (a spec's JSON), table (HTML) and code."""
    charts = any(s.get("chart") for s in sections)
    return _ENV.get_template("page.html").render(title=title, sections=sections, root=root, nav=nav, intro=intro,
                                                 version=__version__, store=store, settings=settings, charts=charts)


def spec_json(chart) -> str:
    """A chart's Vega-Lite spec as JSON to embed in a <script> element (no closing tag inside). Not checked
    against Vega-Lite's schema (as the report's charts: the same dict), which took half of the time of bringing
    a site of 50 data sets up to date."""
    return json.dumps(chart.to_dict(validate=False), separators=(",", ":")).replace("</", "<\\/")


def ranking_chart(ranking: pl.DataFrame, mine: list[str], title: str):
    """The critical-difference chart of one group's ranking (mean rank and half the critical difference),
    the user's algorithms in red, the others in one quiet colour."""
    pal = {a: ((MINE_COLOUR, "diamond") if a in mine else (OTHER_COLOUR, "circle"))
           for a in ranking.sort("score")["algorithm"].to_list()}
    return critical_difference_chart(ranking, palette=pal, title=title, width=520)


def ecdf_chart(steps: pl.DataFrame, summary: pl.DataFrame, reference: str | None, mine: list[str]):
    """The runtime ECDFs over all functions, one chart per dimension; the reference grey, mine red."""
    pal = theme.extend({a: (MINE_COLOUR, "diamond") for a in mine}, summary["algorithm"].unique().sort().to_list())
    if reference:
        pal[reference] = (REFERENCE_COLOUR, "square")
    return ecdf_grid(steps, summary, title="ECDF of runtimes", settings=["simulated restarts"],
                     palette=pal, reference=reference, columns=2, width=360, height=240)
