"""Every chart kind as `fn(analysis, **options) -> chart`: computes its table from the Analysis and
draws it with the chart modules, with a subtitle stating the settings that matter.

Options shared by most kinds: `palette` ({algorithm: (colour, shape)}, theme.palette: pass one
mapping to every chart of a report), `reference` (an algorithm of the store, a packaged reference
set name such as "best2009", or an Analysis), `dimension`, `group` ("all", "separ", "f1", ...),
`targets` (a name, a list, or a frame as `Analysis.target_frame` takes). See `KINDS`.
"""
from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable, Sequence

import altair as alt
import polars as pl

from ..hits import targets as tg
from ..measures import groups as grp
from . import convergence, distributions, ecdf as ecdf_mod, logloss, pairs, scaling, theme

Chart = alt.TopLevelMixin


# -- shared helpers -------------------------------------------------------------------------------
def _as_list(v) -> list | None:
    if v is None:
        return None
    return [v] if isinstance(v, (str, int, float)) else list(v)


def _narrow(a, dimension=None, function=None):
    """The analysis restricted to the dimensions / functions asked for (None: as it is)."""
    ch = {}
    if dimension is not None:
        ch["dimension"] = _as_list(dimension)
    if function is not None:
        ch["function"] = _as_list(function)
    return a.select(**ch) if ch else a


def _dimensions(a) -> list[int]:
    dims = sorted(a.runs().select(pl.col("dimension").unique()).collect()["dimension"].to_list())
    if not dims:
        raise ValueError("no data in the selection (check --algorithm, --function, --dimension)")
    return dims


def _resolve_targets(a, targets):
    """Targets every part of a chart shares: "runlength" computed once (a frame), others as given."""
    if isinstance(targets, str) and targets == "runlength":
        return a.target_frame("runlength").collect()
    return targets


def _targets_text(a, targets) -> str:
    """The targets in words for a subtitle."""
    if isinstance(targets, (pl.LazyFrame, pl.DataFrame)):
        df = targets.collect() if isinstance(targets, pl.LazyFrame) else targets
        keys = [c for c in df.columns if c != "target"]
        per = df.group_by(keys).len()["len"].max() if keys else df.height
        return f"runlength-based targets ({per} per function and dimension)"
    if isinstance(targets, str) and targets not in tg.NAMED and "," not in targets:
        return f"targets {targets}"
    ts = tg.parse(targets)
    if ts is None:
        sets = {tg.default(s) for s in a.suites()}
        return "; ".join(theme.fmt_targets(t) for t in sets) if sets else "suite default targets"
    return theme.fmt_targets(ts)


def settings_lines(a, *extra: str | None, targets=None, with_targets: bool = True) -> list[str]:
    """The settings a reader needs to know: suites, targets, instances, budget cut, hit rule, plus extras."""
    suites = ", ".join(a.suites()) or "no data"
    first = [suites]
    if with_targets:
        first.append(_targets_text(a, targets))
    first.append("all instances" if a.all_instances else "instances as cocopp")
    second = [f"budget cut at {a.max_budget}" if a.max_budget else "no budget cut",
              "exact hits (every record)" if a.exact else "hits as cocopp (.dat records)"]
    if getattr(a, "indicator", "logged") != "logged":
        second.append(f"indicator {a.indicator}")
    return ["; ".join(first), "; ".join([*second, *[e for e in extra if e]])]


def resolve_reference(a, reference):
    """(reference Analysis restricted like `a`, its algorithm names, whether it is in `a`'s store), or None."""
    if reference is None or reference is False:
        return None
    if not isinstance(reference, str):
        ref = reference
    elif reference in a.algorithms() or reference in a.select(algorithm=None).algorithms():
        ref = a.select(algorithm=reference)
    else:
        from ..api import Analysis
        from ..reference_sets import ReferenceError
        from ..selection import open_reference

        suites = a.suites()
        try:
            ref = Analysis(open_reference(reference, suites[0] if suites else None))
        except ReferenceError:  # a packaged set of another suite (e.g. best2009 beside pbo data): none here
            return None
    ref = ref.select(function=a.filters["function"], dimension=a.filters["dimension"], max_budget=a.max_budget,
                     exact=a.exact)
    return ref, ref.algorithms()


def resolve_background(a, background):
    """(background Analysis restricted like `a`, its algorithm names), or None: `background` is a
    list of algorithm names of `a`'s store or an Analysis (e.g. a whole archive in another store)."""
    if background is None or background is False or (isinstance(background, (list, tuple)) and not background):
        return None
    if isinstance(background, str):
        background = [background]
    if isinstance(background, (list, tuple)):
        have = a.select(algorithm=None).algorithms()
        unknown = [b for b in background if b not in have]
        if unknown:
            raise ValueError(f"background algorithm(s) {', '.join(unknown[:5])} not in the store")
        bg = a.select(algorithm=list(background))
    else:
        bg = background
    bg = bg.select(function=a.filters["function"], dimension=a.filters["dimension"], max_budget=a.max_budget,
                   exact=a.exact)
    return bg, bg.algorithms()


def _without(a, names: Sequence[str]):
    """`a` without the named algorithms (when they are in its store)."""
    algs = [x for x in a.algorithms() if x not in set(names)]
    if not algs:
        raise ValueError("no algorithm left besides the reference")
    return a.select(algorithm=algs) if len(algs) < len(a.algorithms()) else a


def _group_frame(a, group) -> pl.DataFrame:
    """(suite, function, group) rows of the requested group names ("all", a cocopp group, "fN")."""
    levels, names = grp.select_levels(group)
    m = grp.membership(a.runs().select("suite", "function"), levels).collect()
    if names is not None:
        unknown = sorted(set(names) - set(m["group"]))
        if unknown:
            have = grp.membership(a.runs().select("suite", "function"), ("all", "group", "function")).collect()
            have = sorted(set(have["group"]), key=lambda g: (g != "all", g.startswith("f") and g[1:].isdigit(),
                                                             int(g[1:]) if g[1:].isdigit() else 0, g))
            raise ValueError(f"group {', '.join(unknown)}: not in the selection (have {', '.join(have[:9])}, ...)")
        m = m.filter(pl.col("group").is_in(sorted(names)))
    return m


def _pair(a, a_name, b_name) -> tuple[str, str]:
    algs = a.algorithms()
    if a_name is None or b_name is None:
        if len(algs) != 2:
            raise ValueError(f"choose the two algorithms: a_name=... b_name=... (the selection has {len(algs)}: "
                             f"{', '.join(algs[:6])})")
        a_name, b_name = (a_name or [x for x in algs if x != b_name][0]), (b_name or [x for x in algs if x != a_name][-1])
    for n in (a_name, b_name):
        if n not in algs:
            raise ValueError(f"algorithm {n!r} not in the selection ({', '.join(algs)})")
    return a_name, b_name


def _concat(charts: list[Chart], columns: int) -> Chart:
    """One chart, or several side by side sharing one highlight selection (the same palette)."""
    if len(charts) == 1:
        return theme.configure(charts[0])
    with warnings.catch_warnings():  # the charts' identical selections merge into one, as intended
        warnings.filterwarnings("ignore", message="Automatically deduplicated selection parameter")
        both = alt.concat(*charts, columns=columns, resolve=theme.independent(color="independent",
                                                                             shape="independent"))
    return theme.configure(both)


def ecdf_tables(a, targets=None, group="all", mode: str = "simulated", samples: int = 100, seed: int = 1,
                max_x: float | str | None = None) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The ECDF step table and summary of an Analysis (`Analysis.ecdf` / `ecdf_summary`)."""
    return (a.ecdf(targets, group, mode=mode, samples=samples, seed=seed, max_x=max_x).collect(),
            a.ecdf_summary(targets, group, mode=mode, max_x=max_x).collect())


def _compared(a, ref, bg):
    """`a` without the reference and background algorithms of its own store."""
    main = _without(a, ref[1]) if ref and ref[0].store is a.store else a
    if bg and bg[0].store is a.store:
        main = _without(main, bg[1])
    return main


def _ecdf_inputs(a, targets, group, mode, samples, seed, max_x, reference, background, palette):
    """What the ECDF kinds draw: (reference, background, step table, summary, palette), the compared
    algorithms, the reference and the background together, each set computed from its own store."""
    ref = resolve_reference(a, reference)
    bg = resolve_background(a, background)
    main = _compared(a, ref, bg)
    steps, summ = [], []
    for an in [main] + ([ref[0]] if ref else []) + ([bg[0]] if bg else []):
        s, u = ecdf_tables(an, targets, group, mode, samples, seed, max_x)
        steps.append(s)
        summ.append(u)
    steps, summ = pl.concat(steps, how="vertical_relaxed"), pl.concat(summ, how="vertical_relaxed")
    pal = theme.extend(palette, sorted(main.algorithms()), ref[1] if ref else None)
    if ref:
        pal = theme.extend(pal, ref[1], ref[1])
    return ref, bg, steps, summ, pal


def _part(table: pl.DataFrame | None, dimension, group) -> pl.DataFrame | None:
    """The rows of one (dimension, group) of a table, or None."""
    if table is None:
        return None
    return table.filter((pl.col("dimension") == dimension) & (pl.col("group") == group))


def _mode_text(mode: str, samples: int, seed: int) -> str:
    """The ECDF mode as a subtitle states it."""
    return {"simulated": f"simulated restarts: {samples} samples, seed {seed}",
            "exact": "expected ECDF of simulated restarts (exact)", "trials": "trials' own runtimes"}[mode]


# -- kinds --------------------------------------------------------------------------------------
def ecdf(a, *, targets=None, group="all", dimension=None, mode: str = "simulated", samples: int = 100,
         seed: int = 1, max_x: float | str | None = None, reference=None, palette=None, labels: bool = True,
         legend: bool = False, background=None, band: bool = False, level: float = 0.95, replicates: int = 100,
         per_instance: bool = False,
         columns: int = 2, width: int = theme.WIDTH, height: int = theme.HEIGHT) -> Chart:
    """Runtime ECDF over function-target pairs (cocopp pprldmany): one chart per (dimension,
    group), the algorithms together, the reference thick and grey; `max_x` the plotted range in
    evaluations / dimension (default: the budget cut, else cocopp's 1e7); `background` algorithms
    (names of the store, or an Analysis) thin and light grey behind. `band`: the bootstrap
    confidence band at `level` of each compared algorithm (`Analysis.ecdf_band`, `replicates`
    resamplings of the trials within each problem, seeded by `seed`) under its line;
    `per_instance`: the ECDF of every instance alone as thin faint lines."""
    targets = _resolve_targets(a, targets)
    a = _narrow(a, dimension)
    _group_frame(a, group)  # unknown group names fail here, with the names there are
    ref, bg, steps, summ, pal = _ecdf_inputs(a, targets, group, mode, samples, seed, max_x, reference, background,
                                             palette)
    main = _compared(a, ref, bg)
    bands = (main.ecdf_band(targets, group, mode=mode, level=level, replicates=replicates, seed=seed,
                            samples=samples, max_x=max_x).collect() if band else None)
    per = (main.ecdf_per_instance(targets, group, mode=mode, samples=samples, seed=seed, max_x=max_x).collect()
           if per_instance else None)
    band_note = ecdf_mod.band_text(level, replicates, seed) if band else None
    if per_instance:
        band_note = "; ".join(filter(None, [band_note, "thin lines: each instance alone"]))
    keys = summ.select("dimension", "group").unique().sort("dimension", "group").rows()
    mode_text = _mode_text(mode, samples, seed)
    ref_text = f"reference {', '.join(ref[1])}" if ref else None
    x_range = ecdf_mod.ecdf_range(steps, summ)  # one x axis for all the charts
    charts = []
    for d, g in keys:
        s = steps.filter((pl.col("dimension") == d) & (pl.col("group") == g))
        u = summ.filter((pl.col("dimension") == d) & (pl.col("group") == g))
        label = "all functions" if g == "all" else g
        n = u["functions"].max()
        settings = settings_lines(a, mode_text, ref_text, f"plotted to {max_x} evaluations / dimension" if max_x else None,
                                  targets=targets)
        settings[0] = f"{d}-D, {label} ({n} function{'s' if n != 1 else ''}); " + settings[0]
        charts.append(ecdf_mod.ecdf_chart(s, u, palette=pal, reference=ref[1] if ref else None,
                                          title=f"ECDF of runtimes, {d}-D, {label}", settings=settings,
                                          labels=labels, legend=legend, width=width, height=height,
                                          zoom=len(keys) == 1, background=bg[1] if bg else None,
                                          band=_part(bands, d, g), instances=_part(per, d, g),
                                          band_settings=band_note, x_range=x_range, configured=False))
    if not charts:
        raise ValueError("no ECDF data in the selection")
    return _concat(charts, columns)


def scaling_kind(a, *, targets=None, target: float = 1e-8, reference=None, palette=None, function=None,
                 background=None, columns: int = 6) -> Chart:
    """aRT / dimension versus dimension per function (cocopp ppfigdim for one algorithm, a line per
    target of `targets`, default the scaling set; ppfigs for several, one line per algorithm at
    `target`, `background` algorithms thin and light grey behind)."""
    targets = _resolve_targets(a, targets)
    a = _narrow(a, function=function)
    ref = resolve_reference(a, reference)
    bg = resolve_background(a, background)
    main = _without(a, ref[1]) if ref and ref[0].store is a.store else a
    if bg and bg[0].store is a.store:
        main = _without(main, bg[1])
    algs = main.algorithms()
    if len(algs) == 1 and not ref and not bg:
        ts = targets if targets is not None else "scaling"
        art = main.art(ts).collect()
        return scaling.scaling_chart(art, series="target", settings=settings_lines(a, f"algorithm {algs[0]}", targets=ts),
                                     title=f"Scaling with dimension: {algs[0]}", columns=columns)
    ts = [float(target)]
    art = main.art(ts).collect()
    for extra in (ref, bg):
        if extra:
            art = pl.concat([art, extra[0].art(ts).collect()], how="vertical_relaxed")
    pal = theme.extend(palette, sorted(algs), ref[1] if ref else None)
    if ref:
        pal = theme.extend(pal, ref[1], ref[1])
    return scaling.scaling_chart(art, series="algorithm", palette=pal, reference=ref[1] if ref else None,
                                 background=bg[1] if bg else None,
                                 settings=settings_lines(a, targets=ts), columns=columns,
                                 title=f"Scaling with dimension, target {theme.fmt_number(ts[0])}")


def scatter(a, *, a_name: str | None = None, b_name: str | None = None, targets=None, dimension=None,
            function=None, columns: int = 6) -> Chart:
    """aRT / dimension of b against a, per function, all targets (cocopp ppscatter)."""
    targets = _resolve_targets(a, targets)
    an = _narrow(a, dimension, function)
    x, y = _pair(an, a_name, b_name)
    art = an.select(algorithm=[x, y]).art(targets).collect()
    return pairs.scatter_chart(art, x, y, settings=settings_lines(an, targets=targets), columns=columns)


def ratio_ecdf(a, *, a_name: str | None = None, b_name: str | None = None, targets=distributions.RT_TARGETS,
               group="all", dimension=None, columns: int = 3) -> Chart:
    """ECDF of runtime ratios b / a over trial pairs, a line per target (cocopp pprldistr2)."""
    targets = _resolve_targets(a, targets)
    an = _narrow(a, dimension)
    x, y = _pair(an, a_name, b_name)
    sel = an.select(algorithm=[x, y])
    steps = pairs.ratio_steps(sel.hits(targets).collect(), x, y, _group_frame(sel, group))
    return pairs.ratio_ecdf_chart(steps, x, y, settings=settings_lines(an, "all pairs of trials", targets=targets),
                                  columns=columns)


def art_ratio(a, *, a_name: str | None = None, b_name: str | None = None, targets=None, dimension=None,
              function=None, columns: int = 6) -> Chart:
    """aRT ratio b / a versus target per function, a line per dimension (cocopp ppfig2)."""
    targets = _resolve_targets(a, targets)
    an = _narrow(a, dimension, function)
    x, y = _pair(an, a_name, b_name)
    art = an.select(algorithm=[x, y]).art(targets).collect()
    return pairs.art_ratio_chart(art, x, y, settings=settings_lines(an, targets=targets), columns=columns)


def rt_ecdf(a, *, targets=distributions.RT_TARGETS, group="all", dimension=None, columns: int = 3) -> Chart:
    """ECDF of the trials' runtimes for a few targets, per algorithm, dimension and group (cocopp pprldistr)."""
    targets = _resolve_targets(a, targets)
    an = _narrow(a, dimension)
    steps, summ = distributions.runtime_steps(an.hits(targets).collect(), _group_frame(an, group))
    return distributions.runtime_ecdf_chart(steps, summ, settings=settings_lines(an, "trials' own runtimes",
                                                                                 targets=targets), columns=columns)


def precision_ecdf(a, *, budgets: Sequence[float] = distributions.BUDGETS, final: bool = True, group="all",
                   dimension=None, columns: int = 3) -> Chart:
    """ECDF of the best precision reached within budgets (multiples of the dimension) and at the end
    of the trials (cocopp pprldistr, right panels)."""
    an = _narrow(a, dimension)
    runs = an.runs().collect()
    top = float((runs["evaluations"] / runs["dimension"]).max())
    bs = [float(b) for b in budgets if float(b) <= top]
    labels = {b: f"{theme.fmt_number(b)} x D" for b in bs}
    v = an.fixed_budget(bs, per_dimension=True, summary=False).collect().with_columns(
        budget=pl.col("budget").replace_strict(labels, return_dtype=pl.String))
    order = [labels[b] for b in bs]
    if final:
        fin = runs.select("suite", "algorithm", "function", "dimension", "run_id", best_delta="final_delta",
                          budget=pl.lit("final"))
        v = pl.concat([v, fin], how="diagonal_relaxed")
        order.append("final")
    steps = distributions.precision_steps(v, _group_frame(an, group))
    return distributions.precision_ecdf_chart(
        steps, budget_order=order, columns=columns,
        settings=settings_lines(an, f"precisions below {theme.fmt_number(distributions.PRECISION_FLOOR)} at the left end",
                                with_targets=False))


def logloss_kind(a, *, reference="best2009", targets=None, per_decade: int = 2, group="all", dimension=None,
                 palette=None, columns: int = 3) -> Chart:
    """aRT loss ratio against the reference versus budget (cocopp pplogloss)."""
    targets = _resolve_targets(a, targets)
    an = _narrow(a, dimension)
    ref = resolve_reference(an, reference)
    if not ref:
        raise ValueError("logloss needs a reference (e.g. reference=best2009)")
    main = _without(an, ref[1]) if ref[0].store is an.store else an
    art = pl.concat([main.art(targets).collect(), ref[0].art(targets).collect()], how="vertical_relaxed")
    runs = main.runs().collect()
    top = float((runs["evaluations"] / runs["dimension"]).max())
    parts = []
    for name in ref[1]:
        parts.append(logloss.loss_table(art.filter(pl.col("algorithm").is_in([*main.algorithms(), name])), name,
                                        logloss.budgets_grid(top, per_decade), _group_frame(main, group)))
    pal = theme.extend(palette, sorted(main.algorithms()))
    return logloss.logloss_chart(pl.concat(parts), ", ".join(ref[1]), palette=pal, columns=columns,
                                 settings=settings_lines(an, f"target grid of {_targets_text(an, targets)}",
                                                         with_targets=False))


def convergence_kind(a, *, dimension: int | None = None, function=None, runs: bool = False, per_decade: int = 5,
                     band: str = "q25,q75", palette=None, columns: int = 6) -> Chart:
    """Median best precision versus evaluations / dimension with a quantile band (and every trial
    with runs=True), a panel per function, one dimension (default: the smallest)."""
    dims = _dimensions(_narrow(a, dimension, function))
    d = dims[0]
    an = _narrow(a, d, function)
    r = an.runs().collect()
    grid = convergence.budget_grid(float((r["evaluations"] / r["dimension"]).max()), per_decade)
    summ = an.fixed_budget(grid, per_dimension=True, summary=True).collect()
    per_run = an.fixed_budget(grid, per_dimension=True, summary=False).collect() if runs else None
    lo, hi = (s.strip() for s in band.split(",")) if isinstance(band, str) else band
    pal = theme.extend(palette, sorted(an.algorithms()))
    note = f"{d}-D; median and {lo[1:]}-{hi[1:]} % of trials" + ("; every trial" if runs else "")
    return convergence.convergence_chart(summ, runs=per_run, band=(lo, hi), palette=pal, columns=columns,
                                         settings=settings_lines(an, note, with_targets=False),
                                         title=f"Convergence, {d}-D: best precision reached")


def profile(a, *, group="all", dimension=None, reference=None, palette=None, labels: bool = True,
            legend: bool = False, columns: int = 2, width: int = theme.WIDTH, height: int = theme.HEIGHT,
            **settings) -> Chart:
    """Target-free runtime profiles (seed 004), drawn like the ECDF; `settings` are
    Analysis.profile's (transform, f0, delta, f_inf, eps, shared)."""
    an = _narrow(a, dimension)
    ref = resolve_reference(an, reference)
    main = _without(an, ref[1]) if ref and ref[0].store is an.store else an
    sources = [main] + ([ref[0]] if ref else [])
    steps, summ = [], []
    for src in sources:
        steps.append(src.profile(group, **settings).collect().rename({"value": "fraction"}))
        s = src.profile_summary(group, **settings).collect().rename({"final_value": "final_fraction"})
        r = src.runs().collect()
        m = grp.membership(r.lazy().select("suite", "function"), grp.select_levels(group)[0]).collect()
        cross = (r.join(m, on=["suite", "function"]).group_by("suite", "algorithm", "dimension", "group")
                 .agg(median_max_evaluations=(pl.col("evaluations") / pl.col("dimension")).median()))
        summ.append(s.join(cross, on=["suite", "algorithm", "dimension", "group"], how="left"))
    steps = pl.concat(steps, how="vertical_relaxed")
    summ = pl.concat(summ, how="vertical_relaxed")
    pal = theme.extend(palette, sorted(main.algorithms()), ref[1] if ref else None)
    if ref:
        pal = theme.extend(pal, ref[1], ref[1])
    opts = ", ".join(f"{k}={v}" for k, v in settings.items()) or "default profile parameters (log10, f0 observed)"
    charts = []
    x_range = ecdf_mod.ecdf_range(steps, summ)  # one x axis for all the charts
    panels = summ.select("dimension", "group").unique().sort("dimension", "group").rows()
    n_charts = len(panels)
    for d, g in panels:
        s = steps.filter((pl.col("dimension") == d) & (pl.col("group") == g))
        u = summ.filter((pl.col("dimension") == d) & (pl.col("group") == g))
        label = "all functions" if g == "all" else g
        charts.append(ecdf_mod.ecdf_chart(
            s, u, palette=pal, reference=ref[1] if ref else None, title=f"Runtime profile, {d}-D, {label}",
            settings=settings_lines(an, opts, with_targets=False), y_title="profile value (target-free)",
            labels=labels, legend=legend, width=width, height=height, zoom=n_charts == 1, x_range=x_range,
            configured=False))
    if not charts:
        raise ValueError("no profile data in the selection")
    return _concat(charts, columns)


def ecdf_explorer_kind(a, *, targets=None, mode: str = "simulated", samples: int = 100, seed: int = 1,
                       max_x: float | str | None = None, reference=None, background=None, palette=None,
                       group=None, dimension=None, width: int = 520, height: int = 320) -> Chart:
    """Runtime ECDFs of every dimension and function group (`group`: None = all levels, or names)
    in ONE interactive chart: drop-downs choose the dimension and the functions, a legend click
    highlights algorithms, `background` algorithms thin and grey behind."""
    targets = _resolve_targets(a, targets)
    a = _narrow(a, dimension)
    ref, bg, steps, summ, pal = _ecdf_inputs(a, targets, group, mode, samples, seed, max_x, reference, background,
                                             palette)
    mode_text = _mode_text(mode, samples, seed)
    extra = [f"reference {', '.join(ref[1])}" if ref else None,
             f"{len(bg[1])} background algorithms in grey" if bg else None]
    return ecdf_mod.ecdf_explorer(steps, summ, palette=pal, reference=ref[1] if ref else None,
                                  background=bg[1] if bg else None, width=width, height=height,
                                  settings=settings_lines(a, mode_text, *extra, targets=targets),
                                  title="ECDF of runtimes (choose the dimension and the functions)")


KINDS: dict[str, Callable[..., Chart]] = {
    "ecdf": ecdf,
    "ecdf-explorer": ecdf_explorer_kind,
    "scaling": scaling_kind,
    "scatter": scatter,
    "ratio-ecdf": ratio_ecdf,
    "art-ratio": art_ratio,
    "rt-ecdf": rt_ecdf,
    "precision-ecdf": precision_ecdf,
    "logloss": logloss_kind,
    "convergence": convergence_kind,
    "profile": profile,
}


def options(kind: str) -> dict[str, object]:
    """The options of a kind with their defaults."""
    if kind not in KINDS:
        raise ValueError(f"unknown chart kind {kind!r}: expected one of {', '.join(KINDS)}")
    sig = inspect.signature(KINDS[kind])
    return {n: p.default for n, p in list(sig.parameters.items())[1:] if p.kind == p.KEYWORD_ONLY}


def chart(kind: str, analysis, **opts) -> Chart:
    """Build a chart of a kind by name, with a clear error for unknown kinds or options."""
    known = options(kind)
    takes_more = any(p.kind == p.VAR_KEYWORD for p in inspect.signature(KINDS[kind]).parameters.values())
    unknown = [k for k in opts if k not in known and not takes_more]
    if unknown:
        raise ValueError(f"chart {kind}: unknown option {unknown[0]!r} (options: {', '.join(known)})")
    return KINDS[kind](analysis, **opts)
