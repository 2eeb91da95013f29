"""The runtime ECDF figures several views of a report share: the settings they state, one x range per
suite, the ECDF of one (suite, dimension, group), and the ECDF explorer (every dimension and function
group in one chart, chosen by drop-downs), whole or with a choice fixed (`Fixed`).
"""
from __future__ import annotations

import hashlib
import io
import json

import polars as pl

from altair.utils.schemapi import debug_mode

from ..charts import _ecdf_spec, theme
from ..charts.ecdf import ecdf_chart, ecdf_explorer, ecdf_range, label_gap, prepare_all
from .context import Context
from .figures import Figure
from .measures import Measures
from .runner import chart_spec, theme_config
from ..words import plural


def ecdf_subtitle(ctx: Context, suite: str) -> str:
    """What an ECDF chart aggregates, in a few words."""
    s = ctx.settings
    mode = (f"simulated restarts ({s.ecdf_samples} per trial, seed {s.seed})" if s.mode == "simulated"
            else "expected ECDF of simulated restarts (exact)")
    cut = f", budget cut {s.max_budget}" if s.max_budget else ""
    return f"{theme.fmt_targets(ctx.ecdf_targets(suite))}, {mode}{cut}"


def suite_ecdf_range(ctx: Context, m: Measures, suite: str) -> tuple[float, float]:
    """The x range of every runtime ECDF of a suite (its dimensions shown, groups and functions: one
    axis to compare them by, as cocopp draws them all up to one limit)."""
    cache = m.__dict__.setdefault("_ecdf_ranges", {})
    if suite not in cache:
        keep = (pl.col("suite") == suite) & pl.col("dimension").is_in(ctx.dimensions(suite))
        cache[suite] = ecdf_range(m.ecdf.filter(keep), m.ecdf_summary.filter(keep))
    return cache[suite]


def _prepared(ctx: Context, m: Measures, suite: str, gap: float) -> dict:
    """What `prepare` gives each runtime ECDF of a suite (its dimensions shown, groups and functions; the
    algorithms but the background ones), computed for all at once (`prepare_all`) in this process."""
    cache = m.__dict__.setdefault("_ecdf_prepared", {})
    if (suite, gap) not in cache:
        keep = ((pl.col("suite") == suite) & pl.col("dimension").is_in(ctx.dimensions(suite))
                & ~pl.col("algorithm").is_in(ctx.background))
        cache[(suite, gap)] = prepare_all(m.ecdf.filter(keep), m.ecdf_summary.filter(keep), gap=gap,
                                          x_range=suite_ecdf_range(ctx, m, suite))
    return cache[(suite, gap)]


def ecdf_spec(steps: pl.DataFrame, summary: pl.DataFrame, **options) -> dict:
    """The spec of `ecdf_chart(steps, summary, **options)` as `runner.chart_spec` makes it: assembled by its fast
    path where that takes the chart (`charts._ecdf_spec`: the report's ECDFs, in a third of Altair's time), else
    by Altair."""
    with debug_mode(False):  # as chart_spec builds: no validation of each part (the spec is validated whole)
        fast = _ecdf_spec.spec(steps, summary, configured=False, **options)
    if fast is None:
        return chart_spec(ecdf_chart, (steps, summary), options)
    return {"config": theme_config(), **fast}


def ecdf_figure(ctx: Context, m: Measures, suite: str, dim: int, group: str, label: str,
                compact: bool = False) -> Figure | None:
    """The runtime ECDF of one (suite, dimension, group), or None without data; `compact`: without
    the names beside the dots and the zoom (small multiples under a `legend`)."""
    steps, summ = m.ecdf_slice(suite, dim, group)
    if summ.height == 0:
        return None
    title = f"{label}, {dim}-D"
    more = dict(labels=False, zoom=False, width=280, height=180) if compact else dict(width=240, height=190)
    prepared = _prepared(ctx, m, suite, label_gap(more["height"])).get((dim, group))
    if prepared is not None:  # the chart needs only the background's steps
        steps = steps.filter(pl.col("algorithm").is_in(ctx.background))
    chart = ctx.runner.submit(ecdf_spec, steps, summ, palette=ctx.palette, reference=ctx.reference_of(suite),
                              title=title, settings=ecdf_subtitle(ctx, suite), background=ctx.background or None,
                              x_range=suite_ecdf_range(ctx, m, suite), prepared=prepared, **more)
    caption = functions_caption(ctx, summ, suite, dim) if group == "all" or not group.startswith("f") else ""
    return Figure.later(f"ecdf-{suite}-{dim}-{group}", title, chart, caption, kind="ecdf")


def functions_caption(ctx: Context, summary: pl.DataFrame, suite: str, dim: int) -> str:
    """How many functions an ECDF of `summary` (one group) aggregates, from the data: one number when every
    algorithm drawn (the background aside) has as many, else each algorithm's."""
    counts = dict(summary.filter(~pl.col("algorithm").is_in(ctx.background)).group_by("algorithm", maintain_order=True)
                  .agg(pl.col("functions").max()).sort("algorithm").iter_rows())
    if len(set(counts.values())) <= 1:
        return f"{plural(max(counts.values(), default=0), 'function')} of {suite} in {dim}-D."
    each = ", ".join(f"{a} {n}" for a, n in counts.items())
    return f"Functions of {suite} in {dim}-D, each line over its algorithm's own: {each}."


#: what every runtime ECDF chart shows, said once per section (not under each chart)
ECDF_CAPTION = ("Each chart: the fraction of (function, target, instance) problems solved within x evaluations / "
                "dimension; dots: the fraction the trials solved, crosses: median of the trials' evaluations / "
                "dimension.")


#: many lines: 10 points per decade, fractions in steps of 1/50 (the chart's size stays small)
COARSE = dict(resolution=0.1, quantum=0.02)


def explorer_spec(ctx: Context, m: Measures, suite: str):
    """The explorer chart of a suite (a Future or Deferred of its spec; made once, shared by the views
    that show it), or None without data. Lines are coarse (`COARSE`) with many algorithms."""
    cache = m.__dict__.setdefault("_explorers", {})
    if suite not in cache:
        # the dimensions of the compared algorithms (not those where only the reference has data)
        keep = (pl.col("suite") == suite) & pl.col("dimension").is_in(ctx.dimensions(suite))
        steps = m.ecdf.filter(keep)
        many = len(ctx.algorithms) + len(ctx.background) > ctx.settings.max_detail
        # the columns the explorer shows (with many algorithms, not the counts of instance targets, functions, trials)
        summ = m.ecdf_summary.filter(keep).drop("suite", "solvable_fraction", *(
            ("instance_targets", "functions", "trials") if many else ()))
        if summ.height == 0:
            cache[suite] = None
        else:
            back = f"; {plural(len(ctx.background), 'background algorithm')} thin and grey" if ctx.background else ""
            cache[suite] = ctx.runner.chart(ecdf_explorer, steps, summ, palette=ctx.palette,
                                            reference=ctx.reference_of(suite),
                                            background=ctx.background or None, group_labels=dict(ctx.groups(suite)),
                                            title=f"Runtime ECDFs, {suite}", settings=ecdf_subtitle(ctx, suite) + back,
                                            x_range=suite_ecdf_range(ctx, m, suite),
                                            **(COARSE if many else {}))
    return cache[suite]


def _subset(values, keep: dict[str, str]):
    """The rows of a spec's table (rows, or CSV text) whose columns take the given values (compared as text);
    a table without those columns as it is."""
    if isinstance(values, str):
        df = pl.read_csv(io.StringIO(values), infer_schema_length=0)
        if not set(keep) <= set(df.columns):
            return values
        return df.filter(*[pl.col(k) == v for k, v in keep.items()]).write_csv()
    if not values or not all(isinstance(r, dict) and set(keep) <= set(r) for r in values[:1]):
        return values
    return [r for r in values if all(str(r[k]) == v for k, v in keep.items())]


def _table_name(values) -> str:
    """A content-hash name of a table (as the charts name theirs)."""
    return "data-" + hashlib.sha256(json.dumps(values, sort_keys=True).encode()).hexdigest()[:32]


class Fixed:
    """The spec of an explorer chart with its dimension (and optionally its function group) fixed: the
    drop-down of a fixed choice is removed, and its tables hold only the rows of that choice (renamed by
    their content), so that a page of such charts holds the explorer's tables once in all."""

    def __init__(self, explorer, dimension: int, group: str | None, title: str):
        self.explorer, self.dimension, self.group, self.title = explorer, dimension, group, title

    def result(self) -> dict:
        """The spec (waits for the explorer's)."""
        spec = dict(self.explorer.result())
        keep = {"dimension": str(self.dimension), **({"group": self.group} if self.group is not None else {})}
        tables, renamed = {}, {}
        for name, values in spec.get("datasets", {}).items():
            sub = _subset(values, keep)
            new = name if sub is values else _table_name(sub)
            tables[new], renamed[name] = sub, new
        text = json.dumps({k: v for k, v in spec.items() if k != "datasets"})
        for old, new in renamed.items():
            text = text.replace(json.dumps(old), json.dumps(new))
        spec = {**json.loads(text), "datasets": tables}
        for p in spec.get("params", []):
            if p.get("name") == "dimension_shown" or (self.group is not None and p.get("name") == "group_shown"):
                p["value"] = self.dimension if p["name"] == "dimension_shown" else self.group
                p.pop("bind", None)
        if isinstance(spec.get("title"), dict):
            spec["title"]["text"] = self.title
        return spec
