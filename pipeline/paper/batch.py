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
    for fam in families(ana, figs, reference, palette):
        fam.compute()
        out.update({f.name: fam.drawing(f) for f in fam.figures})
    return out


class Family:
    """Figures whose data one query gives: `compute` runs it (once), `drawing` slices one figure's."""

    def __init__(self, ana, figs: Sequence[Figure], reference: str | None, palette: dict, shared, one):
        self.figures, self._args, self._shared, self._one, self._data = list(figs), (ana, reference, palette), \
            shared, one, None

    def compute(self) -> None:
        """Run the family's query."""
        if self._data is None:
            self._data = self._shared(self._args[0], self.figures, self._args[1])

    def drawing(self, fig: Figure) -> Drawing | ValueError:
        """What the chart of `fig` draws, or the ValueError its recipe raises."""
        self.compute()
        try:
            return self._one(self._data, fig, *self._args)
        except ValueError as exc:
            return exc


def families(ana, figs: Sequence[Figure], reference: str | None, palette: dict) -> list[Family]:
    """The ECDF and scaling figures of `figs` by the query that gives their data."""
    kinds = [(lambda f: f.kind == "scaling", _scaling_shared, _scaling_one),
             (lambda f: f.kind == "ecdf" and not f.function, _groups_shared, _group_one),
             (lambda f: f.kind == "ecdf" and bool(f.function), _functions_shared, _function_one)]
    out = []
    for test, shared, one in kinds:
        fs = [f for f in figs if test(f)]
        if fs:
            out.append(Family(ana, fs, reference, palette, shared, one))
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


def _groups_shared(ana, figs: Sequence[Figure], reference):
    """The ECDFs of every function group asked, in every dimension asked: one query (the groups without data
    in a figure's selection left out, as its recipe fails there)."""
    d = options("ecdf")
    asked, failed = {}, {}
    for f in figs:
        try:
            group_frame(narrowed(f, ana), f.options["group"])  # unknown groups fail here, as in the recipe
            asked[f.name] = f.options["group"]
        except ValueError as exc:
            failed[f.name] = exc
    if not asked:
        return asked, failed, None, []
    base = _base(ana, [f for f in figs if f.name in asked])
    ref = resolve_reference(base, reference)
    main = compared(base, ref, None)
    kw = dict(group=sorted(set(asked.values())), mode=d["mode"], max_x=d["max_x"])
    sets = [main] + ([ref.analysis] if ref else [])
    tables = pl.collect_all([q for an in sets for q in (an.ecdf(None, samples=d["samples"], seed=d["seed"], **kw),
                                                        an.ecdf_summary(None, **kw))])
    return asked, failed, ref, tables


def _group_one(data, f: Figure, ana, reference, palette) -> Drawing:
    """One group's ECDF figure: its dimension and group of the tables."""
    asked, failed, ref, tables = data
    if f.name in failed:
        raise failed[f.name]
    g = asked[f.name]
    steps = pl.concat([_slice(t, f, g) for t in tables[0::2]], how="vertical_relaxed")
    summ = pl.concat([_slice(t, f, g) for t in tables[1::2]], how="vertical_relaxed")
    a = narrowed(f, ana)
    return _ecdf_drawing(a, ref, _main_algorithms(a, ref), steps, summ, palette, options("ecdf"))


def _kernel_tables(hits: pl.DataFrame, fig: Figure, budget, d: dict) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The ECDF step table and summary of the hitting times of one figure's functions and dimension, as the
    measures `ecdf.ecdf` and `ecdf.ecdf_summary` compute them on its own selection."""
    h = hits.filter(pl.col("function").is_in(list(fig.function)))
    if fig.dimension:
        h = h.filter(pl.col("dimension") == fig.dimension)
    if not h.height:
        return pl.DataFrame(schema=ecdf_m.STEP_SCHEMA), pl.DataFrame(schema=ecdf_m.SUMMARY_SCHEMA)
    data = ecdf_m.prepare(h)
    return (ecdf_m.ecdf_table(data, d["group"], mode=d["mode"], samples=d["samples"], seed=d["seed"],
                              max_budget=budget, max_x=d["max_x"]),
            ecdf_m.summary_table(data, d["group"], mode=d["mode"], max_budget=budget, max_x=d["max_x"]))


def _functions_shared(ana, figs: Sequence[Figure], reference):
    """The hitting times of the single functions' ECDFs (or a few functions': bbob-constrained's objectives),
    read once."""
    base = _base(ana, figs).select(function=sorted({fn for f in figs for fn in f.function}))
    ref = resolve_reference(base, reference)
    sets = [compared(base, ref, None)] + ([ref.analysis] if ref else [])
    return ref, sets, pl.collect_all([an.hits(None) for an in sets])


def _function_one(data, f: Figure, ana, reference, palette) -> Drawing:
    """One function's ECDF figure: the tables of its hitting times, computed as its own query does."""
    ref, sets, hits = data
    d = options("ecdf")
    a = narrowed(f, ana)
    group_frame(a, d["group"])
    parts = [_kernel_tables(h, f, an.max_budget, d) for h, an in zip(hits, sets)]
    steps = pl.concat([p[0] for p in parts], how="vertical_relaxed")
    summ = pl.concat([p[1] for p in parts], how="vertical_relaxed")
    return _ecdf_drawing(a, ref, _main_algorithms(a, ref), steps, summ, palette, d)


def _scaling_shared(ana, figs: Sequence[Figure], reference):
    """The aRT of every function of the scaling figures (`recipes.kinds.scaling_kind`): one query."""
    d = options("scaling")
    base = ana.select(function=sorted({fn for f in figs for fn in f.function}))
    ref = resolve_reference(base, reference)
    main = compared(base, ref, None)
    algs = main.algorithms()
    if len(algs) == 1 and not ref:
        return ref, algs, [main.art("scaling").collect()]
    return ref, algs, pl.collect_all([an.art([float(d["target"])]) for an in [main] + ([ref.analysis] if ref else [])])


def _scaling_one(data, f: Figure, ana, reference, palette) -> Drawing:
    """One function's scaling figure: its rows of the aRT."""
    ref, algs, arts = data
    d = options("scaling")
    a = narrowed(f, ana)
    keep = pl.col("function").is_in(list(f.function))
    if len(algs) == 1 and not ref:
        return dict(art=arts[0].filter(keep), series="target",
                    settings=settings_lines(a, f"algorithm {algs[0]}", targets="scaling"),
                    title=f"Scaling with dimension: {algs[0]}", columns=d["columns"])
    ts = [float(d["target"])]
    art = pl.concat([t.filter(keep) for t in arts], how="vertical_relaxed") if ref else arts[0].filter(keep)
    pal = theme.extend(palette, sorted(_main_algorithms(a, ref)), ref.names if ref else None)
    if ref:
        pal = theme.extend(pal, ref.names, ref.names)
    return dict(art=art, series="algorithm", palette=pal, reference=ref.names if ref else None, background=None,
                settings=settings_lines(a, targets=ts), columns=d["columns"],
                title=f"Scaling with dimension, target {theme.fmt_number(ts[0])}")
