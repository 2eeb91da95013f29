"""What the chart recipes share: an analysis narrowed to some dimensions or functions, the reference
and background algorithms resolved (from the store, a packaged set or another Analysis), the ECDF
tables of the compared, reference and background algorithms together, and the settings a chart's
subtitle states.

Options shared by most kinds: `palette` ({algorithm: (colour, shape)}, `charts.theme.palette`: pass one
mapping to every chart of a report), `reference` (an algorithm of the store, a packaged reference
set name such as "best2009", or an Analysis), `dimension`, `group` ("all", "separ", "f1", ...),
`targets` (a name, a list, or a frame as `Analysis.target_frame` takes).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import polars as pl

from ..api import Analysis
from ..charts import theme
from ..hits import targets as tg
from ..measures import groups as grp
from ..reference_sets import ReferenceError
from ..selection import open_reference


class Algorithms(NamedTuple):
    """Algorithms drawn beside the compared ones (a reference, a background): their Analysis, restricted
    like the compared one's, and their names."""

    analysis: Analysis
    names: list[str]


def _as_list(v) -> list | None:
    if v is None:
        return None
    return [v] if isinstance(v, (str, int, float)) else list(v)


def narrow(a, dimension=None, function=None):
    """The analysis restricted to the dimensions / functions asked for (None: as it is)."""
    ch = {}
    if dimension is not None:
        ch["dimension"] = _as_list(dimension)
    if function is not None:
        ch["function"] = _as_list(function)
    return a.select(**ch) if ch else a


def dimensions(a) -> list[int]:
    """The dimensions of the selection (an error when it holds none)."""
    dims = sorted(a.runs().select(pl.col("dimension").unique()).collect()["dimension"].to_list())
    if not dims:
        raise ValueError("no data in the selection (check --algorithm, --function, --dimension)")
    return dims


def resolve_targets(a, targets):
    """Targets every part of a chart shares: "runlength" computed once (a frame), others as given."""
    if isinstance(targets, str) and targets == "runlength":
        return a.target_frame("runlength").collect()
    return targets


def targets_text(a, targets) -> str:
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
        first.append(targets_text(a, targets))
    first.append("all instances" if a.all_instances else "instances as cocopp")
    second = [f"budget cut at {a.max_budget}" if a.max_budget else "no budget cut",
              "exact hits (every record)" if a.exact else "hits as cocopp (.dat records)"]
    if getattr(a, "indicator", "logged") != "logged":
        second.append(f"indicator {a.indicator}")
    return ["; ".join(first), "; ".join([*second, *[e for e in extra if e]])]


def resolve_reference(a, reference) -> Algorithms | None:
    """The reference algorithms restricted like `a`, or None."""
    if reference is None or reference is False:
        return None
    if not isinstance(reference, str):
        ref = reference
    elif reference in a.algorithms() or reference in a.select(algorithm=None).algorithms():
        ref = a.select(algorithm=reference)
    else:
        suites = a.suites()
        try:
            ref = Analysis(open_reference(reference, suites[0] if suites else None))
        except ReferenceError:  # a packaged set of another suite (e.g. best2009 beside pbo data): none here
            return None
    ref = ref.select(function=a.filters["function"], dimension=a.filters["dimension"], max_budget=a.max_budget,
                     exact=a.exact)
    return Algorithms(ref, ref.algorithms())


def resolve_background(a, background) -> Algorithms | None:
    """The background algorithms restricted like `a`, or None: `background` is a
    list of algorithm names of `a`'s store or an Analysis (e.g. a whole archive in another store)."""
    if background is None or background is False or (isinstance(background, (list, tuple)) and not background):
        return None
    if isinstance(background, str):
        background = [background]
    if isinstance(background, (list, tuple)):
        have = a.select(algorithm=None).algorithms()
        unknown = [b for b in background if b not in have]
        if unknown:
            raise ValueError(f"background {'algorithm' if len(unknown) == 1 else 'algorithms'} {', '.join(unknown[:5])} "
                             "not in the store")
        bg = a.select(algorithm=list(background))
    else:
        bg = background
    bg = bg.select(function=a.filters["function"], dimension=a.filters["dimension"], max_budget=a.max_budget,
                   exact=a.exact)
    return Algorithms(bg, bg.algorithms())


def without(a, names: Sequence[str]):
    """`a` without the named algorithms (when they are in its store)."""
    algs = [x for x in a.algorithms() if x not in set(names)]
    if not algs:
        raise ValueError("no algorithm left besides the reference")
    return a.select(algorithm=algs) if len(algs) < len(a.algorithms()) else a


def group_frame(a, group) -> pl.DataFrame:
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


def pair(a, a_name, b_name) -> tuple[str, str]:
    """The two algorithms a pair chart compares: those named, else the two of the selection."""
    algs = a.algorithms()
    if a_name is None or b_name is None:
        if len(algs) != 2:
            raise ValueError(f"choose the two algorithms: a_name=... b_name=... (the selection has {len(algs)}: "
                             f"{', '.join(algs[:6])})")
        a_name, b_name = (a_name or [x for x in algs if x != b_name][0],
                          b_name or [x for x in algs if x != a_name][-1])
    for n in (a_name, b_name):
        if n not in algs:
            raise ValueError(f"algorithm {n!r} not in the selection ({', '.join(algs)})")
    return a_name, b_name


def ecdf_tables(a, *, targets=None, group="all", mode: str = "simulated", samples: int = 100, seed: int = 1,
                max_x: float | str | None = None) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The ECDF step table and summary of an Analysis (`Analysis.ecdf` / `ecdf_summary`)."""
    return (a.ecdf(targets, group=group, mode=mode, samples=samples, seed=seed, max_x=max_x).collect(),
            a.ecdf_summary(targets, group=group, mode=mode, max_x=max_x).collect())


def compared(a, ref, bg):
    """`a` without the reference and background algorithms of its own store."""
    main = without(a, ref.names) if ref and ref.analysis.store is a.store else a
    if bg and bg.analysis.store is a.store:
        main = without(main, bg.names)
    return main


def ecdf_inputs(a, *, targets, group, mode, samples, seed, max_x, reference, background, palette):
    """What the ECDF kinds draw: (reference, background, step table, summary, palette), the compared
    algorithms, the reference and the background together, each set computed from its own store."""
    ref = resolve_reference(a, reference)
    bg = resolve_background(a, background)
    main = compared(a, ref, bg)
    steps, summ = [], []
    for an in [main] + ([ref.analysis] if ref else []) + ([bg.analysis] if bg else []):
        s, u = ecdf_tables(an, targets=targets, group=group, mode=mode, samples=samples, seed=seed, max_x=max_x)
        steps.append(s)
        summ.append(u)
    steps, summ = pl.concat(steps, how="vertical_relaxed"), pl.concat(summ, how="vertical_relaxed")
    pal = theme.extend(palette, sorted(main.algorithms()), ref.names if ref else None)
    if ref:
        pal = theme.extend(pal, ref.names, ref.names)
    return ref, bg, steps, summ, pal


def mode_text(mode: str, samples: int, seed: int) -> str:
    """The ECDF mode as a subtitle states it."""
    return {"simulated": f"simulated restarts: {samples} samples, seed {seed}",
            "exact": "expected ECDF of simulated restarts (exact)", "trials": "trials' own runtimes"}[mode]
