"""The blocks a report page is made of: figures (an Altair chart, embedded as a Vega-Lite spec
the shipped JavaScript renders, or as static SVG), HTML tables and notes; and sections of them.
"""
from __future__ import annotations

import hashlib
import html
import json
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field

import altair as alt
import polars as pl

from ..tables import fmt_num
from .runner import canonical_names
from ..charts.export import vegalite_version


def _readable(text: str) -> str:
    """The ASCII letters and digits of a text in lower case (accents dropped: é -> e), runs of
    other characters as '-'; empty when nothing is left."""
    ascii_text = unicodedata.normalize("NFKD", str(text)).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")


def slug(text: str) -> str:
    """An id for HTML and file names: lower case, runs of other characters as '-' ("x" when
    nothing is left). Different texts may share one (see `unique_slugs` for names)."""
    return _readable(text) or "x"


def unique_slugs(names) -> dict[str, str]:
    """{name: slug} with a different slug for each different name, also where a file system ignores
    case: the readable slug (`slug`), followed by the first hex digits of the name's SHA-256 where
    it is empty or other names share it (".." and "αβγ" leave nothing readable; "NM" and "nm"
    read alike)."""
    names = list(dict.fromkeys(str(n) for n in names))
    base = {n: _readable(n) for n in names}
    shared = {b for b, k in Counter(base.values()).items() if k > 1}
    digits = 8
    while True:
        out = {}
        for n in names:
            b = base[n]
            h = hashlib.sha256(n.encode("utf-8")).hexdigest()[:digits]
            out[n] = b if b and b not in shared else (f"{b}-{h}" if b else h)
        if len(set(out.values())) == len(out) or digits >= 64:
            return out
        digits *= 2  # a readable slug that looks like another name's slug with its digits


def spec_of(chart: alt.TopLevelMixin | dict) -> dict:
    """The Vega-Lite spec of a chart (Altair validates when it builds the chart's parts; the
    whole-spec schema validation is skipped: it costs more than building the report)."""
    return canonical_names(chart if isinstance(chart, dict) else chart.to_dict(validate=False))


def script_json(data: object) -> str:
    """JSON safe inside a <script> element: no '</', '<!--' or U+2028/9 can end or break it."""
    text = json.dumps(data, separators=(",", ":"), allow_nan=False, sort_keys=False)
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


@dataclass
class Figure:
    """One chart with its caption: `spec` is its Vega-Lite spec (made when first asked for, by a
    worker when the figure was made with `later`), `svg` its static rendering."""

    id: str
    title: str
    pending: object  #: the spec, or a Future / Deferred of it
    caption: str = ""
    kind: str = "figure"
    svg: str | None = None

    @classmethod
    def of(cls, id: str, title: str, chart: alt.TopLevelMixin | dict, caption: str = "", kind: str = "figure"
           ) -> Figure:
        """A figure from an Altair chart or a spec."""
        return cls(id=slug(id), title=title, pending=spec_of(chart), caption=caption, kind=kind)

    @classmethod
    def later(cls, id: str, title: str, future, caption: str = "", kind: str = "figure") -> Figure:
        """A figure whose spec is being made (`Runner.chart(...)`: `chart_spec`)."""
        return cls(id=slug(id), title=title, pending=future, caption=caption, kind=kind)

    @property
    def spec(self) -> dict:
        """The Vega-Lite spec (waits for it when it is being made)."""
        if not isinstance(self.pending, dict):
            self.pending = self.pending.result()  # `chart_spec`'s
        return self.pending

    def render_svg(self) -> str:
        """The static SVG of the chart (vl-convert, offline), kept in `svg`."""
        if self.svg is None:
            from ..extras import require

            vlc = require("vl_convert", "static", "--renderer svg")

            self.svg = vlc.vegalite_to_svg(self.spec, vl_version=vegalite_version())
        return self.svg

    @property
    def spec_json(self) -> str:
        """The spec as JSON for a <script type="application/json"> element."""
        return script_json(self.spec)

    @property
    def dataset_names(self) -> list[str]:
        """Names of the spec's top-level `datasets` (its tables, referred to by name)."""
        return list(self.spec.get("datasets", {}))

    @property
    def shared_spec_json(self) -> str:
        """The spec without its `datasets` (they are in the page's data block, `page_datasets`), as JSON."""
        return script_json({k: v for k, v in self.spec.items() if k != "datasets"})


def page_datasets(figures: list[Figure]) -> dict[str, object]:
    """The tables of every chart of a page by name, each once (the names are content hashes, so
    charts holding the same table share one entry); the charts refer to them by name."""
    out: dict[str, object] = {}
    for f in figures:
        for name, values in f.spec.get("datasets", {}).items():
            if name in out and out[name] != values:
                raise ValueError(f"chart {f.id}: table {name} differs from another chart's table of that name")
            out.setdefault(name, values)
    return out


@dataclass
class Table:
    """An HTML table fragment (from `pipeline.tables.to_html` or a data frame)."""

    id: str
    title: str
    html: str
    caption: str = ""
    kind: str = "table"
    collapsed: bool = False  #: shown on demand (a closed <details>: long pages open fast)
    src: str | None = None  #: the script holding the html, loaded when opened (`external_tables`)


def frame_table(id: str, title: str, df: pl.DataFrame, caption: str = "") -> Table:
    """A small HTML table of a data frame (escaped; lists joined with commas; numbers with a fraction
    by the tables' one rule, `fmt_num`)."""
    head = "".join(f"<th>{html.escape(c)}</th>" for c in df.columns)
    body = []
    for row in df.iter_rows():
        cells = []
        for v in row:
            if isinstance(v, list):
                v = ", ".join(str(x) for x in v)
            elif isinstance(v, float):
                v = fmt_num(v)
            cells.append(f"<td>{html.escape('' if v is None else str(v))}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    text = (f'<table class="cocopipe-table data" id="{html.escape(slug(id))}"><caption><b>{html.escape(title)}.</b> '
            f"{html.escape(caption)}</caption><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>")
    return Table(slug(id), title, text, caption)


@dataclass
class Note:
    """A paragraph of text (escaped), e.g. why a view has nothing to show."""

    text: str
    kind: str = "note"


@dataclass
class Legend:
    """The algorithms' colours and markers, once for the compact charts of a section or page."""

    entries: list[tuple[str, str, str, bool]]  #: (algorithm, colour, marker, is the reference)
    kind: str = "legend"


Block = Figure | Table | Note | Legend


@dataclass
class Section:
    """A titled group of blocks on a page; `columns` is the number of figures per row."""

    id: str
    title: str
    blocks: list[Block] = field(default_factory=list)
    intro: str = ""
    columns: int = 2

    @property
    def figures(self) -> list[Figure]:
        """The figures of the section."""
        return [b for b in self.blocks if isinstance(b, Figure)]


@dataclass
class Page:
    """One HTML file of the report; pages of the same `menu` share a drop-down in the navigation."""

    slug: str
    title: str
    sections: list[Section] = field(default_factory=list)
    nav: str = ""
    menu: str | None = None
    intro: str = ""

    @property
    def file(self) -> str:
        """The file name of the page."""
        return f"{self.slug}.html"

    @property
    def figures(self) -> list[Figure]:
        """Every figure of the page, in order."""
        return [f for s in self.sections for f in s.figures]

    #: tables of the page's charts that other pages use too: in the report's data/ folder, not in the page
    shared_tables: list[str] = field(default_factory=list)

    @property
    def datasets_json(self) -> list[tuple[str, str]]:
        """The page's data block: every chart's tables once (but the `shared_tables`), as (name, JSON
        for a <script> element)."""
        shared = set(self.shared_tables)
        return [(name, script_json(values)) for name, values in page_datasets(self.figures).items()
                if name not in shared]


#: the folder of the report holding the tables several pages use, one script per table
DATA_DIR = "data"


def shared_tables(pages: list[Page]) -> dict[str, object]:
    """The tables used by the charts of more than one page, by name; sets each page's `shared_tables`
    (written once into `data/NAME.js` instead of into every page: `table_script`)."""
    seen: dict[str, list[int]] = {}
    values: dict[str, object] = {}
    for i, p in enumerate(pages):
        for name, v in page_datasets(p.figures).items():
            seen.setdefault(name, []).append(i)
            values.setdefault(name, v)
    shared = {n: values[n] for n, where in seen.items() if len(where) > 1}
    for p in pages:
        p.shared_tables = [n for n in page_datasets(p.figures) if n in shared]
    return shared


def table_script(name: str, values: object) -> str:
    """data/NAME.js: the table as a script that registers it in `window.cocopipeTables` (scripts load
    from file:// URLs where fetching data files does not)."""
    key = json.dumps(name)
    return (f"(window.cocopipeTables = window.cocopipeTables || {{}})[{key}] = "
            f"{json.dumps(values, separators=(',', ':'), allow_nan=False)};\n")


#: a closed table of more HTML than this is written to data/NAME.js and loaded when opened: the page
#: holds only its title (a page of such tables opens at once)
EXTERNAL_TABLE_LIMIT = 1_000_000


def external_tables(pages: list[Page]) -> dict[str, str]:
    """{data/NAME.js: script} of the closed tables of more than `EXTERNAL_TABLE_LIMIT` of HTML; each such
    table keeps its title in the page and the name of its script in `src` (report.js loads it when opened)."""
    files = {}
    for p in pages:
        for sec in p.sections:
            for b in sec.blocks:
                if isinstance(b, Table) and b.collapsed and len(b.html) > EXTERNAL_TABLE_LIMIT:
                    name = f"table-{p.slug}-{b.id}"
                    b.src = f"{DATA_DIR}/{name}.js"
                    files[b.src] = table_script(name, b.html)
    return files
