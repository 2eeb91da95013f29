"""`build`: every file a suite's COCO templates read, for the selected algorithms, into one folder: the
commands (cocopp_commands.tex), the tables (pptable, pptables, pploglosstable), the figures as PDF (drawn
in parallel threads) and settings.json, from which the same files can be made again."""
from __future__ import annotations

import json
import math
import re
import shutil
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

import altair as alt
import polars as pl

from .. import __version__
from ..api import Analysis
from ..charts import theme
from ..conventions import is_biobjective
from ..hits import targets as tg
from ..reference_sets import DEFAULT_FOR_SUITE, reference_choices
from ..selection import open_reference
from ..tables import art_table
from ..charts.export import vegalite_version
from . import batch, figures, layout, losstable, macros, tables
from .pdf import Renderer

#: the folder of the algorithms' files inside the output, cocopp's ppdata/<algorithms>/
FOLDER_MAX = 60
#: the marker of cocopipe's output folders (a folder holding it may be replaced)
STAMP = "settings.json"
COLOUR_NAMES = {"#0072B2": "blue", "#D55E00": "red", "#009E73": "green", "#CC79A7": "pink", "#E69F00": "orange",
                "#56B4E9": "light blue", "#000000": "black", "#F0E442": "yellow", theme.REFERENCE_COLOUR: "grey"}


@dataclass
class PaperSettings:
    """What the paper's numbers depend on (written to settings.json; reading it back rebuilds the files)."""

    sources: list[str] | None = None
    algorithms: list[str] | None = None
    suite: str | None = None
    functions: list[int] | None = None
    dimensions: list[int] | None = None
    reference: str | None = "default"
    samples: int = 1000
    seed: int = 1
    jobs: int = 2
    record: dict = field(default_factory=dict)


def folder_name(algorithms: Sequence[str]) -> str:
    """A folder name for the algorithms (letters, digits, - and _ only: the templates' \\graphicspath)."""
    name = "_".join(re.sub(r"[^A-Za-z0-9-]+", "-", a).strip("-") or "alg" for a in algorithms)
    return name[:FOLDER_MAX].strip("_-") or "algorithms"


def _reference(suite: str, choice: str | None) -> tuple[str | None, pl.DataFrame | None, str | None]:
    """(the name charts resolve, the reference's aRT at the table targets, its label) of a suite's reference."""
    if choice in (None, "none", ""):
        return None, None, None
    name = DEFAULT_FOR_SUITE.get(suite) if choice == "default" else choice
    if name is None:
        return None, None, None
    ref = Analysis(open_reference(name, suite))
    targets = list(tg.TABLE_BIOBJ if is_biobjective(suite) else tg.TABLE)
    art = ref.art(targets).collect().with_columns(pl.col("successes").alias("successes"))
    return name, art, name


def with_worse_runs(table: pl.DataFrame, ana: Analysis, targets: Sequence[float], share: float = 0.9) -> pl.DataFrame:
    """`table` with `worse_ref`: cocopp 2.9's number of trials worse than the reference's aRT, where the aRT is
    better than the reference's and more than `share` of the trials reach the target in fewer evaluations
    (a tie counts half); null elsewhere."""
    hits = ana.hits(list(targets)).collect().with_columns(pl.col("target").round_sig_figs(9).alias("_t"))
    rows = table.filter((pl.col("role") == "algorithm") & pl.col("ref_art").is_finite() & pl.col("art").is_finite()
                        & (pl.col("art") < pl.col("ref_art")))
    keys = ["algorithm", "function", "dimension", "_t"]
    cand = rows.select(*keys[:3], pl.col("target").round_sig_figs(9).alias("_t"), "ref_art")
    h = hits.join(cand, on=keys, how="inner").group_by(keys).agg(
        n=pl.len(), better=(pl.col("hit") < pl.col("ref_art")).sum() + 0.5 * (pl.col("hit") == pl.col("ref_art")).sum())
    h = h.filter(pl.col("better") > share * pl.col("n")).select(
        *keys, worse_ref=(pl.col("n") - pl.col("better") + 0.5).floor().cast(pl.Int64))
    t = table.with_columns(pl.col("target").round_sig_figs(9).alias("_t"))
    return t.join(h, on=keys, how="left").drop("_t")


def with_reference_successes(table: pl.DataFrame, reference: str | None, suite: str) -> pl.DataFrame:
    """`table` with the #succ of a packaged reference set's rows (succ / succ_trials), as cocopp 2.9 writes it
    (`BestAlgSet.get_success_ratio` at the table's succ target): the successes and trials its .dat files
    record with the first record at or below that target (records by decreasing precision), else 0 of the
    last record's trials."""
    if reference is None or not table.filter(pl.col("role") == "reference").height:
        return table
    keys = ["function", "dimension"]
    at = table.group_by(keys).agg(pl.col("succ_target").drop_nulls().first())  # the algorithms' rows hold it
    rec = (reference_choices(reference, suite).select(*keys, "target", "successes", "runs").collect()
           .with_columns(pl.col(k).cast(table.schema[k]) for k in keys)
           .sort(*keys, "target", descending=[False, False, True]).join(at, on=keys))
    below = rec.filter(pl.col("target") <= pl.col("succ_target")).group_by(keys).agg(
        r_succ=pl.col("successes").first(), r_trials=pl.col("runs").first())
    counts = rec.group_by(keys).agg(last=pl.col("runs").last()).join(below, on=keys, how="left").select(
        *keys, r_succ=pl.col("r_succ").fill_null(0).cast(pl.Int64),
        r_trials=pl.coalesce("r_trials", "last").cast(pl.Int64))
    ref = pl.col("role") == "reference"
    return table.join(counts, on=keys, how="left").with_columns(
        succ=pl.when(ref).then(pl.col("r_succ")).otherwise(pl.col("succ")).cast(table.schema["succ"]),
        succ_trials=pl.when(ref).then(pl.col("r_trials")).otherwise(pl.col("succ_trials"))
        .cast(table.schema["succ_trials"])).drop("r_succ", "r_trials")


def _markers(palette: dict) -> list[str]:
    """How each algorithm is drawn, in words (for the captions)."""
    shape = lambda s: "star" if s == theme.STAR else s.replace("-", " ")  # noqa: E731
    return [f"{COLOUR_NAMES.get(c, c)} {shape(s)}" for c, s in palette.values()]


def _table_text(name: str, table: pl.DataFrame | None, algorithms: Sequence[str], names: Sequence[str],
                n_targets: int, problems: pl.DataFrame) -> str:
    """The text of one table file of a template."""
    if m := re.match(r"pptables?_f(\d+)_(\d+)D$", name):
        f, d = int(m[1]), int(m[2])
        if table is None or not problems.filter((pl.col("function") == f) & (pl.col("dimension") == d)).height:
            return tables.missing_rows(f, d, n_targets)
        return tables.function_rows(table, f, d, algorithms, names, n_targets, many=name.startswith("pptables"))
    raise ValueError(f"{name}.tex: not a table of cocopp's")


def loss_targets(ana: Analysis, suite: str, dimension: int | None = None) -> pl.DataFrame | list[float]:
    """The targets of cocopp's loss ratios (pplogloss takes them from each data set's own targets): on bbob's grid
    of 10^(k/5), per (function, dimension) from the smallest at or above the worst first value of the trials
    down to 1e-8 (the standard set stops at 100, which a budget of 2 evaluations / dimension often does not
    reach); the suite's standard set elsewhere, and where the data lack `dimension`."""
    grid = list(tg.default(suite))
    if grid != list(tg.BBOB):
        return grid
    runs = ana.runs().select("run_id", "suite", "function", "dimension")
    if dimension is not None:
        runs = runs.filter(pl.col("dimension") == dimension)
    first = (ana.events().join(runs, on="run_id").sort("evaluations").group_by("run_id")
             .agg(pl.col("suite", "function", "dimension", "best_delta").first())
             .group_by("suite", "function", "dimension").agg(worst=pl.col("best_delta").max()).collect())
    if not first.height:
        return grid
    rows = []
    for su, f, d, worst in first.iter_rows():
        top = math.ceil(5 * math.log10(worst)) if worst and worst > 0 and math.isfinite(worst) else 10
        rows += [(su, f, d, 10 ** (k / 5)) for k in range(max(top, 10), 10, -1)] + [(su, f, d, t) for t in grid]
    return pl.DataFrame(rows, schema={"suite": pl.String, "function": first.schema["function"],
                                      "dimension": first.schema["dimension"], "target": pl.Float64}, orient="row")


def _loss_table(ana: Analysis, suite: str, algorithm: str, reference: str | None, dimension: int) -> str:
    """cocopp's aRT loss ratio table of `algorithm` in `dimension` against the reference (`loss_targets`)."""
    grid = loss_targets(ana, suite, dimension)
    ref_art = Analysis(open_reference(reference, suite)).art(grid).collect() if reference else None
    return losstable.table_tex(ana.art(grid).collect(), ref_art, ana.runs().collect(), algorithm, reference or "",
                               dimension)


def _write(path: Path, data: bytes | str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        path.write_text(data, encoding="utf-8")
    else:
        path.write_bytes(data)


def _order(analysis: Analysis, given: Sequence[str] | None) -> list[str]:
    """The algorithms in the order asked (`given`: the command line's), the others after them by name."""
    have = analysis.algorithms()
    first = [a for a in (given or []) if a in set(have)]
    return first + sorted(set(have) - set(first))


def build(analysis: Analysis, out: str | Path, settings: PaperSettings,
          progress: Callable[[str], None] | None = None) -> Path:
    """Write the paper's files into `out` (replaced); returns the path of settings.json."""
    say = progress or (lambda _: None)
    suites = analysis.suites()
    suite = settings.suite or (suites[0] if len(suites) == 1 else None)
    if suite is None:
        raise ValueError(f"the selection holds {len(suites)} suites ({', '.join(suites) or 'none'}): "
                         "choose one with --suite (a paper is about one suite)")
    ana = analysis.select(suite=suite)
    algs = _order(ana, settings.algorithms)
    if not algs:
        raise ValueError(f"no algorithm with data on {suite} in the selection")
    ana = ana.select(algorithm=algs)
    ref_name, ref_art, ref_label = _reference(suite, settings.reference)
    targets = list(tg.TABLE_BIOBJ if is_biobjective(suite) else tg.TABLE)
    problems = ana.runs().select("function", "dimension").unique().collect()
    pal = theme.palette(algs, None)
    folder = folder_name(algs)
    out = Path(out)
    if out.exists():
        shutil.rmtree(out)
    base = out / folder
    base.mkdir(parents=True)

    with Renderer(settings.jobs, vegalite_version()) as renderer:  # its workers warm up while the tables are made
        placeholders = _files(ana, suite, algs, ref_name, ref_art, ref_label, targets, problems, pal, folder, base,
                              settings, say, renderer)
    record = dict(cocopipe=__version__, suite=suite, algorithms=algs, folder=folder, reference=ref_label,
                  tables=len(layout.needed(suite, len(algs))[0]), figures=len(layout.needed(suite, len(algs))[1]),
                  placeholders=placeholders, templates=layout.templates_of(suite))
    settings.record = record
    path = out / STAMP
    path.write_text(json.dumps(asdict(settings), indent=1, allow_nan=False) + "\n", encoding="utf-8")
    return path


def _files(ana: Analysis, suite: str, algs: list[str], ref_name: str | None, ref_art: pl.DataFrame | None,
           ref_label: str | None, targets: list[float], problems: pl.DataFrame, pal: dict, folder: str, base: Path,
           settings: PaperSettings, say: Callable[[str], None], renderer: Renderer) -> dict[str, str]:
    """Write the tables, the commands and the figures; returns the figures drawn as placeholders {name: why}."""
    say("tables")
    table = art_table(ana, reference=ref_art, reference_name=ref_label, targets=targets, samples=settings.samples,
                      seed=settings.seed)
    table = with_reference_successes(table, ref_name, suite)
    if len(algs) > 1:
        table = with_worse_runs(table, ana, targets)
    table_files, figure_files = layout.needed(suite, len(algs))
    names = [rf"\alg{macros.letter(i)}tables" for i in range(len(algs))]
    legends = set(table_files) & set(figure_files)  # \includeperfprof: a legend .tex beside the figure
    for name in table_files:
        if m := re.match(r"pploglosstable_(\d+)D_(.+)$", name):
            _write(base / f"{name}.tex", _loss_table(ana, suite, algs[0], ref_name, int(m[1])))
            continue
        if name in legends:
            continue
        _write(base / f"{name}.tex", _table_text(name, table, algs, names, len(targets), problems))
    _write(base.parent / "cocopp_commands.tex", macros.commands(suite, algs, folder, targets, _markers(pal), ref_label,
                                                        __version__))

    say(f"{len(figure_files)} figures")
    legend = lambda order: macros.perfprof_legend(algs, order, ref_name, _markers(pal))  # noqa: E731
    return _figures(ana, figure_files, base, ref_name, problems, len(algs), pal, settings.jobs,
                    {n: legend for n in legends}, renderer)


def _figures(ana: Analysis, names: Sequence[str], base: Path, reference: str | None, problems: pl.DataFrame,
             n_algorithms: int, palette: dict, jobs: int,
             legends: dict[str, Callable[[list[str]], str]] | None = None,
             renderer: Renderer | None = None) -> dict[str, str]:
    """Draw the figures (their data computed a family at once, `batch`; the charts built in `jobs` threads,
    their PDFs drawn by the `renderer`'s processes), and the legend .tex of those in `legends` from the algorithms in the
    figure's order; returns {name: why empty}."""
    placeholders: dict[str, str] = {}
    figs = {name: figures.parse(name) for name in names}
    why = {name: w for name, fig in figs.items() if (w := figures.covers(fig, problems, n_algorithms))}
    fams = batch.families(ana, [f for n, f in figs.items() if n not in why], reference, palette)
    in_family = {f.name for fam in fams for f in fam.figures}

    def one(name: str, fam: batch.Family | None = None) -> None:
        if name in why:
            placeholders[name] = why[name]
            data, order = figures.placeholder_pdf(why[name]), []
        else:
            data, order = figures.draw_ordered(figs[name], ana, reference, palette,
                                               fam.drawing(figs[name]) if fam else None, renderer and renderer.pdf)
        _write(base / f"{name}.pdf", data)
        if legends and name in legends:
            _write(base / f"{name}.tex", legends[name](order))

    # Altair's debug mode checks every object against the schema as it is made (a tenth of the figures' CPU);
    # the report's tests check these charts' specs. A family's query runs in a thread, then its figures are
    # drawn one a thread, while the next family's query runs
    with alt.utils.schemapi.debug_mode(False), ThreadPoolExecutor(max(1, jobs)) as pool:
        def family(fam: batch.Family) -> list:
            fam.compute()
            return [pool.submit(one, f.name, fam) for f in fam.figures]

        started = [pool.submit(family, fam) for fam in fams]
        rest = [pool.submit(one, name) for name in names if name not in in_family]
        for fut in [*started, *rest]:
            for inner in fut.result() or []:
                inner.result()
    return dict(sorted(placeholders.items()))

