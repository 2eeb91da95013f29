"""Build a report: compute the measures once, make the pages of every view, write them with the
shipped JavaScript and `settings.json` into a folder that opens offline from a file:// URL.

>>> from pipeline.api import open_store
>>> from pipeline.report import Settings, build
>>> build(open_store("cocopipe-store"), "report", Settings(max_budget="1000x"))
PosixPath('report/index.html')
"""
from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path

import jinja2

from ..api import Analysis
from ..charts import theme
from .context import Context
from . import output
from .figures import DATA_DIR, Page, shared_tables, table_script
from .measures import Measures
from .pages import VIEWS
from .runner import Runner, default_jobs
from .settings import Settings, SettingsError
from .vendor import BUNDLE, STATIC, versions as js_versions

TEMPLATES = Path(__file__).resolve().parent / "templates"
#: the static files every report gets (the Vega bundle only with the "vega" renderer)
STATIC_FILES = ("report.css", "report.js", BUNDLE, "THIRD_PARTY_LICENSES.txt")
TITLE = "cocopipe report"
#: the banner names at most this many algorithms (or data sets of an instance range), else counts them
BANNER_NAMES = 8


#: views made first: their charts need none of the ECDF tables the others wait for
EARLY_VIEWS = ("scaling",)


def steps() -> int:
    """How many times `build` calls its `progress` callback (one per view, one for writing)."""
    return len(VIEWS) + 1


def ranges(values: Sequence[int]) -> str:
    """Integers as compact ranges: 1-5, 7, 9-10."""
    v = sorted(set(int(x) for x in values))
    out, i = [], 0
    while i < len(v):
        j = i
        while j + 1 < len(v) and v[j + 1] == v[j] + 1:
            j += 1
        out.append(str(v[i]) if i == j else f"{v[i]}-{v[j]}")
        i = j + 1
    return ", ".join(out)


def banner(settings: Settings, record: dict) -> list[tuple[str, str]]:
    """The settings stated on every page, as (label, value)."""
    s = settings
    ref = record["reference"]
    refs = f"{record['reference_label']} ({ref})" if ref and record["reference_label"] != ref else (ref or "none")
    ecdf_t = "; ".join(f"{su}: {theme.fmt_targets(t)}" for su, t in record["ecdf_targets"].items())
    table_t = "; ".join(f"{su}: {theme.fmt_targets(t)}" for su, t in record["table_targets"].items())
    inst = {}
    for key, values in record["instances"].items():
        inst.setdefault(ranges(values), []).append(key.split("/", 1)[1])
    inst_text = "; ".join((f"{r} ({', '.join(a)})" if len(a) <= BANNER_NAMES else f"{r} ({len(a)} data sets)")
                          if len(inst) > 1 else r for r, a in inst.items())
    algs = record["algorithms"]
    alg_text = (", ".join(algs) if len(algs) <= BANNER_NAMES else
                f"{len(algs)}: {', '.join(algs[:3])}, ..., {algs[-1]} (all on the settings page)")
    mode = (f"simulated restarts, {s.ecdf_samples} per trial" if s.mode == "simulated"
            else "exact expectation of simulated restarts")
    formats = sorted({f"{d['data_format']}" + (f" {d['coco_version']}" if d["coco_version"] else "")
                      for d in record["data_sets"]})
    return [
        ("algorithms", alg_text),
        *([("background", f"{len(record['background'])} algorithm(s), thin and grey")] if record.get("background")
          else []),
        ("reference", refs),
        ("ECDF targets", ecdf_t),
        ("table targets", table_t),
        ("instances", inst_text + (" (all instances)" if s.all_instances else "")),
        ("budget cut", s.max_budget or "none"),
        ("ECDF", mode),
        ("aRT dispersion", f"{s.table_samples} simulated restarts per problem"),
        ("seed", str(s.seed)),
        ("tests", f"rank-sum, {s.correction}, α = {s.alpha:g}"),
        ("hitting times", "every record (seed 000)" if s.exact_hits else "as cocopp"),
        ("data formats", ", ".join(formats)),
        ("cocopipe", record["versions"].get("cocopipe", "?")),
    ]


def _nav(pages: list[Page], current: Page) -> list[dict]:
    items, menus = [], {}
    for p in pages:
        if p.menu:
            if p.menu not in menus:
                menus[p.menu] = dict(label=p.menu, pages=[], current=False)
                items.append(menus[p.menu])
            menus[p.menu]["pages"].append(p)
            menus[p.menu]["current"] |= p is current
        else:
            items.append(dict(label=p.nav or p.title, file=p.file, pages=None, current=p is current))
    return items


def _environment() -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=True,
                              undefined=jinja2.StrictUndefined, keep_trailing_newline=True)


def render_pages(pages: list[Page], settings: Settings, record: dict) -> dict[str, str]:
    """{file name: text} of every page, and of the tables several pages share (data/NAME.js)."""
    if settings.renderer == "svg":
        for p in pages:
            for f in p.figures:
                f.render_svg()
    env = _environment()
    tpl = env.get_template("page.html")
    js = js_versions()
    names = sorted({d["algorithm"] for d in record["data_sets"]})
    common = dict(report_title=TITLE, renderer=settings.renderer, banner=banner(settings, record),
                  version=record["versions"].get("cocopipe", "?"), vegalite=js["vega-lite"], vega=js["vega"],
                  embed=js["vega-embed"],
                  algorithm_names=[*record["algorithms"], *([record["reference"]] if record["reference"] else []),
                                   *record.get("background", [])],
                  datasets=f"{len(record['data_sets'])} data set(s) of {', '.join(names)}")
    shared = shared_tables(pages) if settings.renderer == "vega" else {}
    files = {f"{DATA_DIR}/{name}.js": table_script(name, values) for name, values in shared.items()}
    return {**files, **{p.file: tpl.render(page=p, nav=_nav(pages, p), **common) for p in pages}}


def _replace_dir(tmp: Path, out: Path, force: bool = False) -> None:
    """Move a finished report folder into place (replacing a report folder cocopipe wrote there, see
    `output`; any other folder only when `force`)."""
    output.mark(tmp)
    if out.exists():
        output.check_replaceable(out, force)
        old = out.with_name(f".{out.name}.old-{uuid.uuid4().hex[:8]}")
        os.replace(out, old)
        os.replace(tmp, out)
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.replace(tmp, out)


def build(analysis: Analysis, out_dir: str | os.PathLike, settings: Settings | None = None, *,
          progress: Callable[[str], None] | None = None, jobs: int | None = 1, force: bool = False) -> Path:
    """Write the report of `analysis` under `settings` into `out_dir`; returns the path of its
    index.html. `settings.json` beside it records the settings, the resolved selection, the
    instances, every data set's COCO format and version, and the software versions; a report
    built from the same data with `Settings.load(that file)` is identical. `progress(label)` is
    called after each view (see `steps()`). `jobs` worker processes make the tables and charts
    (None: `default_jobs()`; 1: all in this process); the report is the same for any number. An
    existing `out_dir` is replaced only when cocopipe wrote it (`output`), or with `force`."""
    settings = (settings or Settings()).check()
    output.check_replaceable(Path(out_dir), force)  # before the work, and again before replacing
    tick = progress or (lambda label: None)
    with Runner(default_jobs() if jobs is None else jobs) as runner:
        ctx = Context(analysis, settings, runner)
        m = Measures(ctx)
        record = ctx.record
        # every view's work is started before any is waited for (the workers stay busy); views that need
        # no ECDF table start first, the pages keep the navigation order
        made: dict = {}
        for view in sorted(VIEWS, key=lambda v: v.__name__ not in EARLY_VIEWS):
            made[view] = view(ctx, m)
            tick(view.__name__)
        pages = [p for view in VIEWS for p in made[view]]
        for p in pages:
            for f in p.figures:
                f.spec  # noqa: B018 - wait for the charts while the workers are there
    record["pairs"] = [list(p) for p in ctx.pairs()]  # with many algorithms, known once they are ranked
    final = settings.replace(record=record)
    files = render_pages(pages, settings, record)
    out = Path(out_dir)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp-{uuid.uuid4().hex[:8]}")
    try:
        (tmp / "static").mkdir(parents=True)
        for name in STATIC_FILES:
            if name == BUNDLE and settings.renderer != "vega":
                continue
            shutil.copyfile(STATIC / name, tmp / "static" / name)
        if any(name.startswith(DATA_DIR + "/") for name in files):
            (tmp / DATA_DIR).mkdir()
        for name, text in files.items():
            (tmp / name).write_text(text, encoding="utf-8")
        (tmp / "settings.json").write_text(final.to_json(), encoding="utf-8")
        _replace_dir(tmp, out, force)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    tick("write")
    return out / "index.html"
