"""The data of the paper's ECDF and scaling figures computed once and sliced per figure: the ECDFs of
function groups in one query over every group and dimension asked (each (suite, algorithm, dimension)
draws its simulated restarts from its own generator, so a slice equals the figure's own query); the
ECDFs of single functions from the hitting times read once, the kernel run per function as the
figure's own query runs it (its draws then the same as that query's); the scaling figures' aRT in one
query. What each figure gets equals its kind's recipe on its narrowed selection (tests/test_paper.py)."""
from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from ..charts import theme
from ..measures import ecdf as ecdf_m
from ..recipes.inputs import compared, group_frame, mode_text, resolve_reference, settings_lines
from ..recipes.kinds import options
from .figures import Figure, narrowed

Drawing = dict


def drawings(ana, figs: Sequence[Figure], reference: str | None, palette: dict) -> dict[str, Drawing | ValueError]:
    """{figure name: what its chart draws, or the ValueError its recipe raises} of the ECDF and scaling
    figures of `figs` (the others are not here)."""
    out: dict[str, Drawing | ValueError] = {}
    groups = [f for f in figs if f.kind == "ecdf" and not f.function]
    single = [f for f in figs if f.kind == "ecdf" and f.function]
    scaling = [f for f in figs if f.kind == "scaling"]
    if groups:
        out.update(_group_ecdfs(ana, groups, reference, palette))
    if single:
        out.update(_function_ecdfs(ana, single, reference, palette))
    if scaling:
        out.update(_scalings(ana, scaling, reference, palette))
    return out


def _base(ana, figs: Sequence[Figure]):
    """`ana` restricted to what the figures show together: their dimensions (all where one shows all)."""
    dims = {f.dimension for f in figs}
    return ana if None in dims else ana.select(dimension=sorted(dims))


def _slice(df: pl.DataFrame, fig: Figure, group: str | None = None) -> pl.DataFrame:
    """The rows of one figure: its dimension, its group."""
    keep = pl.lit(True)
    if fig.dimension:
        keep &= pl.col("dimension") == fig.dimension
    if group is not None:
        keep &= pl.col("group") == group
    return df.filter(keep)


def _ecdf_drawing(a, ref, main_algorithms: list[str], steps: pl.DataFrame, summ: pl.DataFrame, palette: dict,
                  d: dict) -> Drawing:
    """The ECDF recipe's drawing (`recipes.kinds.ecdf`) from its tables, for the kind's defaults `d`."""
    if not summ.height:
        raise ValueError("no ECDF data in the selection")
    pal = theme.extend(palette, sorted(main_algorithms), ref.names if ref else None)
    if ref:
        pal = theme.extend(pal, ref.names, ref.names)
    ref_text = f"reference {', '.join(ref.names)}" if ref else None
    settings = settings_lines(a, mode_text(d["mode"], d["samples"], d["seed"]), ref_text, None, targets=None)
    return dict(steps=steps, summary=summ, palette=pal, reference=ref.names if ref else None, settings=settings,
                labels=d["labels"], legend=d["legend"], width=d["width"], height=d["height"], background=None,
                bands=None, instances=None, band_settings=None, columns=d["columns"])


def _main_algorithms(a, ref) -> list[str]:
    """The compared algorithms of a figure's selection (`recipes.inputs.compared`)."""
    return compared(a, ref, None).algorithms()


def _group_ecdfs(ana, figs: Sequence[Figure], reference, palette) -> dict[str, Drawing | ValueError]:
    """The ECDFs of function groups: one query of every group asked, sliced per (dimension, group)."""
    d = options("ecdf")
    out: dict[str, Drawing | ValueError] = {}
    asked = {}
    for f in figs:
        try:
            group_frame(narrowed(f, ana), f.options["group"])  # unknown groups fail here, as in the recipe
            asked[f.name] = f.options["group"]
        except ValueError as exc:
            out[f.name] = exc
    if not asked:
        return out
    base = _base(ana, [f for f in figs if f.name in asked])
    ref = resolve_reference(base, reference)
    main = compared(base, ref, None)
    kw = dict(group=sorted(set(asked.values())), mode=d["mode"], max_x=d["max_x"])
    sets = [main] + ([ref.analysis] if ref else [])
    tables = pl.collect_all([q for an in sets for q in (an.ecdf(None, samples=d["samples"], seed=d["seed"], **kw),
                                                        an.ecdf_summary(None, **kw))])
    for f in figs:
        if f.name not in asked:
            continue
        g = asked[f.name]
        steps = pl.concat([_slice(t, f, g) for t in tables[0::2]], how="vertical_relaxed")
        summ = pl.concat([_slice(t, f, g) for t in tables[1::2]], how="vertical_relaxed")
        a = narrowed(f, ana)
        try:
            out[f.name] = _ecdf_drawing(a, ref, _main_algorithms(a, ref), steps, summ, palette, d)
        except ValueError as exc:
            out[f.name] = exc
    return out


def _kernel_tables(hits: pl.DataFrame, fig: Figure, budget, d: dict) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The ECDF step table and summary of the hitting times of one figure's functions and dimension, as the
    measures `ecdf.steps` and `ecdf.summary` compute them on its own selection."""
    h = hits.filter(pl.col("function").is_in(list(fig.function)))
    if fig.dimension:
        h = h.filter(pl.col("dimension") == fig.dimension)
    if not h.height:
        return pl.DataFrame(schema=ecdf_m.STEP_SCHEMA), pl.DataFrame(schema=ecdf_m.SUMMARY_SCHEMA)
    data = ecdf_m.prepare(h)
    return (ecdf_m.ecdf_table(data, d["group"], mode=d["mode"], samples=d["samples"], seed=d["seed"],
                              max_budget=budget, max_x=d["max_x"]),
            ecdf_m.summary_table(data, d["group"], mode=d["mode"], max_budget=budget, max_x=d["max_x"]))


def _function_ecdfs(ana, figs: Sequence[Figure], reference, palette) -> dict[str, Drawing | ValueError]:
    """The ECDFs of single functions (or a few: bbob-constrained's objectives): the hitting times read once,
    the tables computed per figure."""
    d = options("ecdf")
    out: dict[str, Drawing | ValueError] = {}
    base = _base(ana, figs).select(function=sorted({fn for f in figs for fn in f.function}))
    ref = resolve_reference(base, reference)
    main = compared(base, ref, None)
    sets = [main] + ([ref.analysis] if ref else [])
    hits = pl.collect_all([an.hits(None) for an in sets])
    for f in figs:
        a = narrowed(f, ana)
        try:
            group_frame(a, d["group"])
            parts = [_kernel_tables(h, f, an.max_budget, d) for h, an in zip(hits, sets)]
            steps = pl.concat([p[0] for p in parts], how="vertical_relaxed")
            summ = pl.concat([p[1] for p in parts], how="vertical_relaxed")
            out[f.name] = _ecdf_drawing(a, ref, _main_algorithms(a, ref), steps, summ, palette, d)
        except ValueError as exc:
            out[f.name] = exc
    return out


def _scalings(ana, figs: Sequence[Figure], reference, palette) -> dict[str, Drawing | ValueError]:
    """The scaling figures (`recipes.kinds.scaling_kind`): the aRT of every function in one query."""
    d = options("scaling")
    base = ana.select(function=sorted({fn for f in figs for fn in f.function}))
    ref = resolve_reference(base, reference)
    main = compared(base, ref, None)
    algs = main.algorithms()
    if len(algs) == 1 and not ref:
        art = main.art("scaling").collect()
        return {f.name: dict(art=art.filter(pl.col("function").is_in(list(f.function))), series="target",
                             settings=settings_lines(narrowed(f, ana), f"algorithm {algs[0]}", targets="scaling"),
                             title=f"Scaling with dimension: {algs[0]}", columns=d["columns"]) for f in figs}
    ts = [float(d["target"])]
    arts = pl.collect_all([an.art(ts) for an in [main] + ([ref.analysis] if ref else [])])
    out: dict[str, Drawing | ValueError] = {}
    for f in figs:
        a = narrowed(f, ana)
        keep = pl.col("function").is_in(list(f.function))
        art = pl.concat([t.filter(keep) for t in arts], how="vertical_relaxed") if ref else arts[0].filter(keep)
        pal = theme.extend(palette, sorted(_main_algorithms(a, ref)), ref.names if ref else None)
        if ref:
            pal = theme.extend(pal, ref.names, ref.names)
        out[f.name] = dict(art=art, series="algorithm", palette=pal, reference=ref.names if ref else None,
                           background=None, settings=settings_lines(a, targets=ts), columns=d["columns"],
                           title=f"Scaling with dimension, target {theme.fmt_number(ts[0])}")
    return out
