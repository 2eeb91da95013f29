"""Build a report: compute the measures once, make the pages of every view, write them with the
shipped JavaScript and `settings.json` into a folder that opens offline from a file:// URL.

The example of `build` shows how it is called.
"""
from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Callable
from contextlib import nullcontext
from pathlib import Path

import jinja2

from ..api import Analysis
from ..charts import theme
from ..extras import require
from ..store.walk import remove_tree
from ..measures.significance import FAMILY_TEXT
from .context import Context
from . import output
from .figures import DATA_DIR, Figure, Note, Page, Section, external_tables, shared_tables, table_script
from .measures import Measures
from .pages import instances_text, reference_text
from .runner import Runner, default_jobs
from .settings import Settings
from .vendor import BUNDLE, STATIC, versions as js_versions
from .views import VIEWS
from ..words import plural

TEMPLATES = Path(__file__).resolve().parent / "templates"
#: the static files every report gets (the Vega bundle only with the "vega" renderer)
STATIC_FILES = ("report.css", "report.js", BUNDLE, "THIRD_PARTY_LICENSES.txt")
TITLE = "cocopipe report"
#: the banner names at most this many algorithms (or data sets of an instance range), else counts them
BANNER_NAMES = 8


#: views made first: their charts need none of the ECDF tables the others wait for
EARLY_VIEWS = ("scaling",)


#: `progress(stage, done, total, label)`: how far a report is (stage "selection", "pages", "measures",
#: "charts" or "writing"; `done` of `total` items, total None when unknown; `label` the item at hand)
Progress = Callable[[str, int, "int | None", str], None]


def _no_progress(stage: str, done: int, total: int | None, label: str = "") -> None:
    pass


def _reason(exc: Exception) -> str:
    """An exception in one line, for the list of parts left out."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def _make_pages(ctx: Context, m: Measures, tick: Progress, skipped: list[str]) -> list[Page]:
    """The pages of every view, in navigation order. A view that fails is left out and named in `skipped`
    (the others are kept). Every view's work is started before any is waited for (the workers stay busy);
    views that need no ECDF table start first."""
    made: dict = {}
    order = sorted(VIEWS, key=lambda v: v.__name__ not in EARLY_VIEWS)
    for i, view in enumerate(order):
        if ctx.many and ctx.ranked is None and view.__name__ not in EARLY_VIEWS:
            try:  # the ranking first: the other views' tables and pairs depend on it
                m.start_ranked()
            except Exception as exc:  # noqa: BLE001 - the views that need no ranking are still made
                ctx.set_ranking([])
                skipped.append(f"The ranking failed, the views that depend on it are left out: {_reason(exc)}")
        name = view.__name__.removesuffix("_view").removesuffix("_page").replace("_", " ")
        tick("pages", i, len(order), name)
        try:
            made[view] = view(ctx, m)
        except Exception as exc:  # noqa: BLE001 - one view's failure must not throw away the others
            made[view] = []
            skipped.append(f"The {name} page(s) failed and are left out: {_reason(exc)}")
    tick("pages", len(order), len(order), "")
    return [p for view in VIEWS for p in made[view]]


def _wait_for_charts(pages: list[Page], tick: Progress, skipped: list[str]) -> None:
    """Wait for every chart (while the workers are there); a chart that fails is replaced by a note
    saying so, and named in `skipped`."""
    total, done = sum(len(p.figures) for p in pages), 0
    for p in pages:
        for sec in p.sections:
            for i, block in enumerate(sec.blocks):
                if not isinstance(block, Figure):
                    continue
                tick("charts", done, total, p.title)
                try:
                    block.spec  # noqa: B018
                except Exception as exc:  # noqa: BLE001 - one chart's failure must not throw away the others
                    sec.blocks[i] = Note(f"The chart \"{block.title}\" failed and is left out: {_reason(exc)}")
                    skipped.append(f"The chart \"{block.title}\" on the page {p.title} failed and is left out: "
                                   f"{_reason(exc)}")
                done += 1
    tick("charts", done, total, "")


def _state_skipped(pages: list[Page], skipped: list[str]) -> list[Page]:
    """The pages with the parts left out listed first on the overview (made when its view failed)."""
    if not skipped:
        return pages
    section = Section("left-out", "Parts left out", [Note(x) for x in skipped], columns=1)
    for p in pages:
        if p.slug == "index":
            p.sections.insert(0, section)
            return pages
    return [Page("index", "Overview", [section], nav="Overview"), *pages]


def banner(settings: Settings, record: dict) -> list[tuple[str, str]]:
    """The settings stated on every page, as (label, value)."""
    s = settings
    refs = reference_text(record)
    ecdf_t = "; ".join(f"{su}: {theme.fmt_targets(t)}" for su, t in record["ecdf_targets"].items())
    table_t = "; ".join(f"{su}: {theme.fmt_targets(t)}" for su, t in record["table_targets"].items())
    inst = {}
    for key, values in record["instances"].items():
        inst.setdefault(instances_text(values), []).append(key.split("/", 1)[1])
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
        *([("background", f"{plural(len(record['background']), 'algorithm')}, thin and grey")] if record.get("background")
          else []),
        ("reference", refs),
        ("ECDF targets", ecdf_t),
        ("table targets", table_t),
        ("instances", inst_text + (" (all instances)" if s.all_instances else "")),
        ("budget cut", s.max_budget or "none"),
        ("ECDF", mode),
        ("aRT dispersion", f"{s.table_samples} simulated restarts per problem"),
        ("seed", str(s.seed)),
        ("tests", f"rank-sum, {s.correction} within {FAMILY_TEXT}, α = {s.alpha:g}"),
        ("hitting times", "every record (seed 000)" if s.exact else "as cocopp"),
        ("data formats", ", ".join(formats)),
        ("cocopipe", record["versions"].get("cocopipe", "?")),
    ]


def reference_names(record: dict) -> list[str]:
    """The reference algorithms a record names (one per suite at most), each once."""
    ref = record.get("reference")
    return [ref] if isinstance(ref, str) else list(ref or [])


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
                  algorithm_names=[*record["algorithms"], *reference_names(record),
                                   *record.get("background", [])],
                  datasets=f"{plural(len(record['data_sets']), 'data set')} of {', '.join(names)}")
    shared = shared_tables(pages) if settings.renderer == "vega" else {}
    files = {f"{DATA_DIR}/{name}.js": table_script(name, values) for name, values in shared.items()}
    if settings.renderer == "vega":  # the svg renderer's pages have no JavaScript: their tables stay in them
        files.update(external_tables(pages))
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
        remove_tree(old)  # whatever the user had there, with --force: of any depth
    else:
        os.replace(tmp, out)


def _make_report(analysis: Analysis, settings: Settings, jobs: int | None, tick: Progress, skipped: list[str],
                 runner: Runner | None = None) -> tuple[list[Page], Context, dict]:
    """The pages with their charts made (by `jobs` workers, or by `runner`'s), their context and its record;
    the parts that failed are left out and named in `skipped`."""
    tick("selection", 0, 1, "the selection, the references, the plan")
    with Runner(default_jobs() if jobs is None else jobs).warm() if runner is None else nullcontext(runner) as runner:
        ctx = Context(analysis, settings, runner)
        ctx.progress = tick
        m = Measures(ctx)
        tick("selection", 1, 1, "")
        record = ctx.record
        pages = _make_pages(ctx, m, tick, skipped)
        _wait_for_charts(pages, tick, skipped)
    return pages, ctx, record


def _write_report(out: Path, files: dict[str, str], final: Settings, tick: Progress, force: bool) -> None:
    """Write the report's files, its static files and its settings.json into a new folder moved to `out`
    when complete (`_replace_dir`); an OSError names `out`."""
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp-{uuid.uuid4().hex[:8]}")
    try:
        (tmp / "static").mkdir(parents=True)
        for name in STATIC_FILES:
            if name == BUNDLE and final.renderer != "vega":
                continue
            shutil.copyfile(STATIC / name, tmp / "static" / name)
        if any(name.startswith(DATA_DIR + "/") for name in files):
            (tmp / DATA_DIR).mkdir()
        for i, (name, text) in enumerate(files.items()):
            tick("writing", i, len(files) + 1, name)
            (tmp / name).write_text(text, encoding="utf-8")
        (tmp / "settings.json").write_text(final.to_json(), encoding="utf-8")
        _replace_dir(tmp, out, force)
    except OSError as exc:  # a full disk: named by the folder written, not the file copied from
        raise OSError(exc.errno, exc.strerror, str(out)) from None
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    tick("writing", len(files) + 1, len(files) + 1, "")


def build(analysis: Analysis, out_dir: str | os.PathLike, settings: Settings | None = None, *,
          progress: Progress | None = None, jobs: int | None = 1, force: bool = False,
          runner: Runner | None = None) -> Path:
    """Write the HTML report of an analysis into a folder (docs/report.md).

    `settings.json` beside index.html records the settings, the resolved selection, the instances,
    every data set's COCO format and version, and the software versions; a report built from the same
    data with `Settings.load(that file)` is identical. What can fail is checked before the long work
    (the output folder, the selection, the references); a page or chart that fails later is left out,
    and the others are written: the overview lists what was left out, as does the record's `skipped`
    (its `notes` say what was left out by design).

    Parameters
    ----------
    analysis : Analysis
        The store (and its selection) to report on.
    out_dir : str or path
        The report's folder; an existing one is replaced only when cocopipe wrote it, or with `force`.
    settings : Settings, optional
        What is shown and how it is measured and drawn (default: `Settings()`, cocopp's choices).
    progress : callable, optional
        `progress(stage, done, total, label)` follows the work (`Progress`).
    jobs : int or None
        Worker processes making the tables and charts (None: `default_jobs()`; 1: all in this
        process); the report is the same for any number.
    force : bool
        Replace `out_dir` whatever it holds.
    runner : Runner, optional
        Workers started by the caller (`Runner.warm`: ahead of reading the data), used instead of `jobs`
        new ones; the caller closes it.

    Returns
    -------
    pathlib.Path
        The report's index.html.

    Examples
    --------
    >>> from pipeline.api import open_store
    >>> from pipeline.report import Settings
    >>> settings = Settings(algorithms=["DIRECT", "NM"], functions=[1, 2], dimensions=[2], reference="none")
    >>> build(open_store("cocopipe-store"), "report", settings)
    PosixPath('report/index.html')
    >>> sorted(p.name for p in Path("report").glob("*.html"))[:4]
    ['alg-direct.html', 'alg-nm.html', 'ecdf-2d.html', 'explore.html']
    """
    settings = (settings or Settings()).check()
    if settings.renderer == "svg":
        require("vl_convert", "static", "--renderer svg")  # before the work
    tick = progress or _no_progress
    out = Path(out_dir)
    output.check_replaceable(out, force)  # before the work, and again before replacing
    skipped: list[str] = []
    pages, ctx, record = _make_report(analysis, settings, jobs, tick, skipped, runner)
    pages = _state_skipped(pages, skipped)
    record["pairs"] = [list(p) for p in ctx.pairs()]  # with many algorithms, known once they are ranked
    record["skipped"] = skipped
    final = settings.replace(record=record)
    files = render_pages(pages, settings, record)
    _write_report(out, files, final, tick, force)
    return out / "index.html"
