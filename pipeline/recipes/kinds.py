"""Every chart kind as a `Kind`: a recipe `fn(analysis, **options) -> {keyword: value}` computes the
chart's tidy frames from the Analysis, with a subtitle stating the settings that matter, and a chart
function of `pipeline.charts` draws them. `KINDS` is the registry; `chart(kind, analysis, **options)`
builds one by name. The options of each kind are its recipe's (see `inputs` for those most share).
"""
from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import altair as alt
import polars as pl

from .. import charts
from ..charts import convergence, distributions, ecdf as ecdf_mod, logloss, pairs, params, scaling, theme
from ..conventions import PRECISION_FLOOR
from ..measures import distributions as dist, params as pm
from ..measures.registry import Measure, load
from .inputs import (compared, dimensions, ecdf_inputs, group_frame, mode_text, narrow, pair, resolve_background,
                     resolve_reference, resolve_targets, settings_lines, targets_text, without)

Chart = alt.TopLevelMixin
#: what a recipe gives: the keyword arguments of its chart function (tidy frames, names, texts)
Drawing = dict[str, Any]


@dataclass(frozen=True)
class Kind:
    """A chart kind: `recipe(analysis, *args, **options)` computes what `chart(**drawing)` draws."""

    recipe: Callable[..., Drawing]
    chart: Callable[..., Chart]

    def __call__(self, analysis, *args, **options) -> Chart:
        """The chart of `analysis`."""
        return self.chart(**self.recipe(analysis, *args, **options))


# -- the steps thinned for drawing -------------------------------------------------------------
def thinned_ratios(steps: pl.DataFrame) -> pl.DataFrame:
    """`Analysis.runtime_ratios` steps merged per 0.02 in x (`charts.ecdf.thin`), for drawing."""
    by = [*dist.RATIO_KEY, "pairs", "functions_a", "functions_b"]  # the last three: one value per line
    cols = [*dist.RATIO_KEY, "x", "fraction", "pairs", "functions_a", "functions_b"]
    return ecdf_mod.thin(steps, 0.02, by=by, log=False).select(cols).sort(*dist.RATIO_KEY, "x")


def thinned_precisions(steps: pl.DataFrame, floor: float) -> pl.DataFrame:
    """`Analysis.precision_distribution` steps merged per 0.05 in log10(x) above `floor`, for drawing
    (the step at the floor stays exact)."""
    key = dist.PRECISION_KEY
    low = pl.col("x") <= floor
    return pl.concat([steps.filter(low), ecdf_mod.thin(steps.filter(~low), 0.05, by=key)]).sort(*key, "x")


# -- recipes ----------------------------------------------------------------------------------
def ecdf(a, *, targets=None, group="all", dimension=None, mode: str = "simulated", samples: int = 100,
         seed: int = 1, max_x: float | str | None = None, reference=None, palette=None, labels: bool = True,
         legend: bool = False, background=None, band: bool = False, level: float = 0.95, replicates: int = 100,
         per_instance: bool = False,
         columns: int = 2, width: int = theme.WIDTH, height: int = theme.HEIGHT) -> Drawing:
    """Runtime ECDF over (function, target, instance) problems (cocopp pprldmany): one chart per (dimension,
    group), the algorithms together, the reference thick and grey; `max_x` the plotted range in
    evaluations / dimension (default: the budget cut, else cocopp's 1e7); `background` algorithms
    (names of the store, or an Analysis) thin and light grey behind. `band`: the bootstrap
    confidence band at `level` of each compared algorithm (`Analysis.ecdf_band`, `replicates`
    resamplings of the trials within each problem, seeded by `seed`) under its line;
    `per_instance`: the ECDF of every instance alone as thin faint lines."""
    targets = resolve_targets(a, targets)
    a = narrow(a, dimension)
    group_frame(a, group)  # unknown group names fail here, with the names there are
    ref, bg, steps, summ, pal = ecdf_inputs(a, targets=targets, group=group, mode=mode, samples=samples, seed=seed,
                                            max_x=max_x, reference=reference, background=background, palette=palette)
    main = compared(a, ref, bg)
    bands = (main.ecdf_band(targets, group=group, mode=mode, level=level, replicates=replicates, seed=seed,
                            samples=samples, max_x=max_x).collect() if band else None)
    per = (main.ecdf_per_instance(targets, group=group, mode=mode, samples=samples, seed=seed, max_x=max_x).collect()
           if per_instance else None)
    band_note = ecdf_mod.band_text(level, replicates, seed) if band else None
    if per_instance:
        band_note = "; ".join(filter(None, [band_note, "thin lines: each instance alone"]))
    if not summ.height:
        raise ValueError("no ECDF data in the selection")
    ref_text = f"reference {', '.join(ref.names)}" if ref else None
    settings = settings_lines(a, mode_text(mode, samples, seed), ref_text,
                              f"plotted to {max_x} evaluations / dimension" if max_x else None, targets=targets)
    return dict(steps=steps, summary=summ, palette=pal, reference=ref.names if ref else None, settings=settings,
                labels=labels, legend=legend, width=width, height=height, background=bg.names if bg else None,
                bands=bands, instances=per, band_settings=band_note, columns=columns)


def scaling_kind(a, *, targets=None, target: float = 1e-8, reference=None, palette=None, function=None,
                 background=None, columns: int = 6) -> Drawing:
    """aRT / dimension versus dimension per function (cocopp ppfigdim for one algorithm, a line per
    target of `targets`, default the scaling set; ppfigs for several, one line per algorithm at
    `target`, `background` algorithms thin and light grey behind)."""
    targets = resolve_targets(a, targets)
    a = narrow(a, function=function)
    ref = resolve_reference(a, reference)
    bg = resolve_background(a, background)
    main = compared(a, ref, bg)
    algs = main.algorithms()
    if len(algs) == 1 and not ref and not bg:
        ts = targets if targets is not None else "scaling"
        return dict(art=main.art(ts).collect(), series="target",
                    settings=settings_lines(a, f"algorithm {algs[0]}", targets=ts),
                    title=f"Scaling with dimension: {algs[0]}", columns=columns)
    ts = [float(target)]
    art = main.art(ts).collect()
    for extra in (ref, bg):
        if extra:
            art = pl.concat([art, extra.analysis.art(ts).collect()], how="vertical_relaxed")
    pal = theme.extend(palette, sorted(algs), ref.names if ref else None)
    if ref:
        pal = theme.extend(pal, ref.names, ref.names)
    return dict(art=art, series="algorithm", palette=pal, reference=ref.names if ref else None,
                background=bg.names if bg else None, settings=settings_lines(a, targets=ts), columns=columns,
                title=f"Scaling with dimension, target {theme.fmt_number(ts[0])}")


def pair_art(a, *, a_name: str | None = None, b_name: str | None = None, targets=None, dimension=None,
             function=None, columns: int = 6) -> Drawing:
    """aRT of two algorithms a and b per function, dimension and target: drawn as aRT / dimension of b
    against a (cocopp ppscatter), or as the aRT ratio b / a versus target, a line per dimension (ppfig2)."""
    targets = resolve_targets(a, targets)
    an = narrow(a, dimension, function)
    x, y = pair(an, a_name, b_name)
    art = an.select(algorithm=[x, y]).art(targets).collect()
    return dict(art=art, a=x, b=y, settings=settings_lines(an, targets=targets), columns=columns)


def ratio_ecdf(a, *, a_name: str | None = None, b_name: str | None = None, targets=dist.RT_TARGETS,
               group="all", dimension=None, columns: int = 3) -> Drawing:
    """ECDF of runtime ratios b / a over trial pairs, a line per target (cocopp pprldistr2)."""
    targets = resolve_targets(a, targets)
    an = narrow(a, dimension)
    x, y = pair(an, a_name, b_name)
    sel = an.select(algorithm=[x, y])
    steps = thinned_ratios(sel.runtime_ratios(x, y, targets, group=group_frame(sel, group)).collect())
    return dict(steps=steps, a=x, b=y, settings=settings_lines(an, "all pairs of trials", targets=targets),
                columns=columns)


def rt_ecdf(a, *, targets=dist.RT_TARGETS, group="all", dimension=None, columns: int = 3) -> Drawing:
    """ECDF of the trials' runtimes for a few targets, per algorithm, dimension and group (cocopp pprldistr)."""
    targets = resolve_targets(a, targets)
    an = narrow(a, dimension)
    steps, summ = pl.collect_all(an.runtime_distribution(targets, group=group_frame(an, group)))
    steps = ecdf_mod.thin(steps, by=dist.RUNTIME_KEY)
    return dict(steps=steps, summary=summ, settings=settings_lines(an, "trials' own runtimes", targets=targets),
                columns=columns)


def precision_ecdf(a, *, budgets: Sequence[float] = dist.BUDGETS, final: bool = True, group="all",
                   dimension=None, columns: int = 3) -> Drawing:
    """ECDF of the best precision reached within budgets (multiples of the dimension) and at the end
    of the trials (cocopp pprldistr, right panels)."""
    an = narrow(a, dimension)
    runs = an.runs().collect()
    top = float((runs["evaluations"] / runs["dimension"]).max())
    bs = [float(b) for b in budgets if float(b) <= top]
    labels = {b: f"{theme.fmt_number(b)} x D" for b in bs} | ({float("inf"): "final"} if final else {})
    steps = an.precision_distribution(bs, final=final, group=group_frame(an, group)).collect().with_columns(
        budget=pl.col("budget").replace_strict(labels, return_dtype=pl.String))
    steps = thinned_precisions(steps, PRECISION_FLOOR)
    order = list(labels.values())
    floor = theme.fmt_number(PRECISION_FLOOR)
    return dict(steps=steps, budget_order=order, columns=columns,
                settings=settings_lines(an, f"precisions below {floor} at the left end", with_targets=False))


def logloss_kind(a, *, reference="best2009", targets=None, per_decade: int = 2, group="all", dimension=None,
                 palette=None, columns: int = 3) -> Drawing:
    """aRT loss ratio against the reference versus budget (cocopp pplogloss)."""
    targets = resolve_targets(a, targets)
    an = narrow(a, dimension)
    ref = resolve_reference(an, reference)
    if not ref:
        raise ValueError("logloss needs a reference (e.g. reference=best2009)")
    main = without(an, ref.names) if ref.analysis.store is an.store else an
    own, ref_art = main.art(targets).collect(), ref.analysis.art(targets).collect()
    runs = main.runs().collect()
    top = float((runs["evaluations"] / runs["dimension"]).max())
    members = group_frame(main, group)
    parts = [main.loss_ratios(ref_art, name, logloss.budgets_grid(top, per_decade), group=members, art=own).collect()
             for name in ref.names]
    pal = theme.extend(palette, sorted(main.algorithms()))
    return dict(table=pl.concat(parts), reference=", ".join(ref.names), palette=pal, columns=columns,
                settings=settings_lines(an, f"target grid of {targets_text(an, targets)}", with_targets=False))


def convergence_kind(a, *, dimension: int | None = None, function=None, runs: bool = False, per_decade: int = 5,
                     band: str = "q25,q75", palette=None, columns: int = 6) -> Drawing:
    """Median best precision versus evaluations / dimension with a quantile band (and every trial
    with runs=True), a panel per function, one dimension (default: the smallest)."""
    d = dimensions(narrow(a, dimension, function))[0]
    an = narrow(a, d, function)
    r = an.runs().collect()
    grid = convergence.budget_grid(float((r["evaluations"] / r["dimension"]).max()), per_decade)
    summ = an.fixed_budget(grid, per_dimension=True, summary=True, quantity="precision").collect()
    per_run = an.fixed_budget(grid, per_dimension=True, summary=False, quantity="precision").collect() if runs else None
    lo, hi = (s.strip() for s in band.split(",")) if isinstance(band, str) else band
    pal = theme.extend(palette, sorted(an.algorithms()))
    note = f"{d}-D; median and {lo[1:]}-{hi[1:]} % of trials" + ("; every trial" if runs else "")
    return dict(summary=summ, runs=per_run, band=(lo, hi), palette=pal, columns=columns,
                settings=settings_lines(an, note, with_targets=False),
                title=f"Convergence, {d}-D: best precision reached")


def profile(a, *, group="all", dimension=None, reference=None, palette=None, labels: bool = True,
            legend: bool = False, columns: int = 2, width: int = theme.WIDTH, height: int = theme.HEIGHT,
            **settings) -> Drawing:
    """Target-free runtime profiles (seed 004), drawn like the ECDF; `settings` are
    Analysis.profile's (transform, f0, delta, f_inf, eps, shared)."""
    an = narrow(a, dimension)
    ref = resolve_reference(an, reference)
    main = without(an, ref.names) if ref and ref.analysis.store is an.store else an
    steps, summ = [], []
    for src in [main] + ([ref.analysis] if ref else []):
        steps.append(src.profile(group=group, **settings).collect().rename({"value": "fraction"}))
        s = src.profile_summary(group=group, **settings).collect().rename({"final_value": "final_fraction"})
        cross = src.median_max_evaluations(group=group).collect()
        summ.append(s.join(cross, on=["suite", "algorithm", "dimension", "group"], how="left"))
    steps = pl.concat(steps, how="vertical_relaxed")
    summ = pl.concat(summ, how="vertical_relaxed")
    if not summ.height:
        raise ValueError("no profile data in the selection")
    pal = theme.extend(palette, sorted(main.algorithms()), ref.names if ref else None)
    if ref:
        pal = theme.extend(pal, ref.names, ref.names)
    opts = ", ".join(f"{k}={v}" for k, v in settings.items()) or "default profile parameters (log10, f0 observed)"
    return dict(steps=steps, summary=summ, palette=pal, reference=ref.names if ref else None, title="Runtime profile",
                settings=settings_lines(an, opts, with_targets=False), counts=False,
                y_title="profile value (target-free)", labels=labels, legend=legend, width=width, height=height,
                columns=columns)


def ecdf_explorer_kind(a, *, targets=None, mode: str = "simulated", samples: int = 100, seed: int = 1,
                       max_x: float | str | None = None, reference=None, background=None, palette=None,
                       group=None, dimension=None, width: int = 520, height: int = 320) -> Drawing:
    """Runtime ECDFs of every dimension and function group (`group`: None = all levels, or names)
    in ONE interactive chart: drop-downs choose the dimension and the functions, a legend click
    highlights algorithms, `background` algorithms thin and grey behind."""
    targets = resolve_targets(a, targets)
    a = narrow(a, dimension)
    ref, bg, steps, summ, pal = ecdf_inputs(a, targets=targets, group=group, mode=mode, samples=samples, seed=seed,
                                            max_x=max_x, reference=reference, background=background, palette=palette)
    extra = [f"reference {', '.join(ref.names)}" if ref else None,
             f"{len(bg.names)} background algorithms in grey" if bg else None]
    return dict(steps=steps, summary=summ, palette=pal, reference=ref.names if ref else None,
                background=bg.names if bg else None, width=width, height=height,
                settings=settings_lines(a, mode_text(mode, samples, seed), *extra, targets=targets),
                title="ECDF of runtimes (choose the dimension and the functions)")


def parameter(analysis, name: str, budgets_per_decade: int = 5, **options) -> Drawing:
    """The quantiles over runs of a tracked parameter `name` at 10^(k/budgets_per_decade) evaluations;
    `options` are `charts.params.parameter_chart`'s."""
    vals = analysis.params([name]).collect()
    if not vals.height:
        raise ValueError(f"no values of the parameter {name!r} in the selection")
    grid = convergence.budget_grid(float(vals["evaluations"].max()), budgets_per_decade)
    summary = pm.quantiles(pm.at_budgets(vals.lazy(), grid)).collect()
    return dict(summary=summary, name=name, settings=f"quantiles at {budgets_per_decade} budgets per decade",
                **options)


KINDS: dict[str, Kind] = {
    "ecdf": Kind(ecdf, ecdf_mod.ecdf_grid),
    "ecdf-explorer": Kind(ecdf_explorer_kind, ecdf_mod.ecdf_explorer),
    "scaling": Kind(scaling_kind, scaling.scaling_chart),
    "scatter": Kind(pair_art, pairs.scatter_chart),
    "ratio-ecdf": Kind(ratio_ecdf, pairs.ratio_ecdf_chart),
    "art-ratio": Kind(pair_art, pairs.art_ratio_chart),
    "rt-ecdf": Kind(rt_ecdf, distributions.runtime_ecdf_chart),
    "precision-ecdf": Kind(precision_ecdf, distributions.precision_ecdf_chart),
    "logloss": Kind(logloss_kind, logloss.logloss_chart),
    "convergence": Kind(convergence_kind, convergence.convergence_chart),
    "profile": Kind(profile, ecdf_mod.ecdf_grid),
}
def draws(kind: str) -> Callable[..., Chart]:
    """The chart function of a registered kind: `chart` of `pipeline.charts.<kind>` ("eaf": `charts.eaf.chart`),
    else `<rest>_chart` of `pipeline.charts.<base>` for the kind `<base>-<rest>` ("biobj-eaf-diff":
    `charts.biobj_eaf.diff_chart`), the longest base first."""
    words = kind.split("-")
    for cut in range(len(words), 0, -1):
        path = f"{charts.__name__}.{'_'.join(words[:cut])}"
        try:
            module = importlib.import_module(path)
        except ModuleNotFoundError as exc:
            if exc.name != path:  # the module is there but an import of its own failed
                raise
            continue
        name = "_".join([*words[cut:], "chart"])
        if hasattr(module, name):
            return getattr(module, name)
    raise ValueError(f"chart kind {kind!r}: no module of pipeline.charts draws it")


def registered_kind(kind: str, measure: Measure) -> Kind:
    """The chart kind `kind` that a registered measure declares (`Measure.charts`) and no recipe above
    draws: its recipe computes the measure through the facade (`Analysis.measure`, the measure's
    settings as options), and `chart(data, settings=...)` of the module `pipeline.charts.<kind>` draws it
    (`draws`: or `<rest>_chart` of a module named by the kind's beginning, one module drawing several)."""
    draw = draws(kind)

    def recipe(a, *, targets=None, **settings) -> Drawing:
        table = a.measure(measure.name, *((targets,) if measure.targets else ()), **settings).collect()
        if not table.height:
            raise ValueError(f"no {measure.name} data in the selection")
        return dict(data=table, settings=settings_lines(a, targets=targets, with_targets=measure.targets))

    params = [inspect.Parameter("a", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    if measure.targets:
        params.append(inspect.Parameter("targets", inspect.Parameter.KEYWORD_ONLY, default=None))
    params += [inspect.Parameter(p.name, inspect.Parameter.KEYWORD_ONLY, default=p.default)
               for p in measure.settings.params]
    recipe.__signature__ = inspect.Signature(params)
    recipe.__doc__ = f"{measure.summary} (the measure {measure.name!r}, drawn by `pipeline.charts.{kind}`)."
    return Kind(recipe, draw)


# the chart kinds the registered measures declare beyond those above
KINDS.update({kind: registered_kind(kind, m) for m in load().values() for kind in m.charts if kind not in KINDS})
#: the chart of a tracked parameter (the report's Parameters page; not a kind of `cocopipe chart`)
PARAMETER = Kind(parameter, params.parameter_chart)


def options(kind: str) -> dict[str, object]:
    """The options of a kind with their defaults."""
    if kind not in KINDS:
        raise ValueError(f"unknown chart kind {kind!r}: expected one of {', '.join(KINDS)}")
    sig = inspect.signature(KINDS[kind].recipe)
    return {n: p.default for n, p in list(sig.parameters.items())[1:] if p.kind == p.KEYWORD_ONLY}


def chart(kind: str, analysis, **opts) -> Chart:
    """Build a chart of a kind by name, with a clear error for unknown kinds or options."""
    known = options(kind)
    takes_more = any(p.kind == p.VAR_KEYWORD for p in inspect.signature(KINDS[kind].recipe).parameters.values())
    unknown = [k for k in opts if k not in known and not takes_more]
    if unknown:
        raise ValueError(f"chart {kind}: unknown option {unknown[0]!r} (options: {', '.join(known)})")
    return KINDS[kind](analysis, **opts)
