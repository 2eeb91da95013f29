"""The templates' figures from their file names: each name (ppfigdim_f001, pprldmany_05D_separ,
pprldmany-single-functions/pprldmany_f001_05D, ppscatter_f001, ...) read as a chart kind of
`pipeline.recipes` and the part of the data it shows, drawn as a vector PDF (vl-convert), or, where the
data lack that function, dimension or group (or the kind needs two algorithms), a PDF that says so."""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import polars as pl

from ..charts.export import render
from ..recipes.kinds import KINDS, options
from .placeholder import placeholder_pdf

#: the group names of cocopp's file names that are all functions of a suite
ALL_GROUPS = ("noiselessall", "nzall", "all")
#: the objective functions of bbob-constrained, in the order of the suite (6 constraint counts each)
CONSTRAINED_OBJECTIVES = ("Sphere", "Separable Ellipsoid", "Linear Slope", "Rotated Ellipsoid", "Discus",
                          "Bent Cigar", "Different Powers", "Separable Rastrigin", "Rotated Rastrigin")
#: the size of a chart's plot area in pixels (the templates scale by width; this keeps cocopp's 4:3)
PLOT_WIDTH, PLOT_HEIGHT = 280, 210


@dataclass(frozen=True)
class Figure:
    """What a figure file shows: a chart kind, the selection (function, dimension), its options, and what to
    say when the data lack it."""

    name: str
    kind: str
    function: tuple[int, ...] | None = None
    dimension: int | None = None
    options: dict = field(default_factory=dict)

    def describe(self) -> str:
        """The part of the data the figure shows, in words."""
        parts = []
        if self.function:
            parts.append("f" + ",".join(str(f) for f in self.function) if len(self.function) < 4
                         else f"f{self.function[0]}-f{self.function[-1]}")
        if self.options.get("group") not in (None, "all"):
            parts.append(str(self.options["group"]))
        if self.dimension:
            parts.append(f"{self.dimension}-D")
        return " in ".join(parts) if parts else "this suite"


def _group(g: str) -> str:
    return "all" if g in ALL_GROUPS else g


_PATTERNS: list[tuple[re.Pattern, object]] = [
    (re.compile(r"ppfig(?:dim|s)_f(\d+)$"), lambda m: ("scaling", (int(m[1]),), None, {})),
    (re.compile(r"ppscatter_f(\d+)$"), lambda m: ("scatter", (int(m[1]),), None, {})),
    (re.compile(r"pprldmany_f(\d+)_(\d+)D$"), lambda m: ("ecdf", (int(m[1]),), int(m[2]), {})),
    (re.compile(r"pprldmany_f(\d+)$"), lambda m: ("ecdf", (int(m[1]),), None, {})),
    (re.compile(r"pprldmany_(\d+)D_(.+)$"), lambda m: ("ecdf", None, int(m[1]), {"group": _group(m[2])})),
    (re.compile(r"pprldmany(?:_(.+))?$"), lambda m: ("ecdf", None, None, {"group": _group(m[1] or "all")})),
    (re.compile(r"pplogloss_(\d+)D_(.+)$"), lambda m: ("logloss", None, int(m[1]), {"group": _group(m[2])})),
    (re.compile(r"pprldistr_(\d+)D_(.+)$"), lambda m: ("rt-ecdf", None, int(m[1]), {"group": _group(m[2])})),
    (re.compile(r"ppfvdistr_(\d+)D_(.+)$"), lambda m: ("precision-ecdf", None, int(m[1]), {"group": _group(m[2])})),
    (re.compile(r"ppfigcons1?_(.+)_d(\d+)$"), lambda m: ("ecdf", _objective(m[1]), int(m[2]), {})),
]


def _objective(name: str) -> tuple[int, ...]:
    """The bbob-constrained functions of an objective (by its name in cocopp's ppfigcons files)."""
    if name not in CONSTRAINED_OBJECTIVES:
        raise ValueError(f"unknown bbob-constrained objective {name!r}")
    i = CONSTRAINED_OBJECTIVES.index(name)
    return tuple(range(6 * i + 1, 6 * i + 7))


def parse(name: str) -> Figure:
    """The figure a template's file name asks for."""
    base = name.rsplit("/", 1)[-1]
    for pat, make in _PATTERNS:
        if m := pat.match(base):
            kind, fs, dim, opts = make(m)
            return Figure(name, kind, fs, dim, opts)
    raise ValueError(f"figure {name!r}: not a file name of cocopp's figures")


def covers(fig: Figure, problems: pl.DataFrame, n_algorithms: int) -> str | None:
    """Why the data cannot draw `fig` (a sentence), or None when they can; `problems`: (function, dimension)
    of the compared algorithms."""
    if fig.kind == "scatter" and n_algorithms != 2:
        return "a scatter plot compares exactly two algorithms"
    p = problems
    if fig.function:
        p = p.filter(pl.col("function").is_in(list(fig.function)))
    if fig.dimension:
        p = p.filter(pl.col("dimension") == fig.dimension)
    return None if p.height else f"no data for {fig.describe()}"


def draw(fig: Figure, analysis, reference: str | None, palette: dict | None = None) -> bytes:
    """The PDF of a figure (a placeholder saying why where the chart cannot be drawn from the selection)."""
    return draw_ordered(fig, analysis, reference, palette)[0]


def colour_order(spec: dict | list) -> list[str]:
    """The algorithms of a chart's first colour scale, in its order (an ECDF's: by final fraction, as drawn)."""
    if isinstance(spec, dict):
        scale = spec.get("color", {}).get("scale", {}) if isinstance(spec.get("color"), dict) else {}
        if isinstance(scale.get("domain"), list):
            return [str(v) for v in scale["domain"]]
        parts = list(spec.values())
    else:
        parts = spec
    for v in parts:
        if isinstance(v, (dict, list)) and (found := colour_order(v)):
            return found
    return []


def chart_options(fig: Figure, reference: str | None, palette: dict | None = None) -> dict:
    """The options of the figure's chart kind (raises ValueError where the kind cannot be drawn)."""
    opts = dict(fig.options)
    if fig.kind in ("scaling", "ecdf") and reference:
        opts["reference"] = reference
    if fig.kind in ("scaling", "ecdf", "logloss") and palette:
        opts["palette"] = palette
    if fig.kind == "scatter" and palette and len(palette) == 2:  # the first on x, the second on y: as the caption
        opts["a_name"], opts["b_name"] = list(palette)
    if fig.kind == "logloss":
        if not reference:
            raise ValueError(f"no reference algorithm: no aRT loss ratios for {fig.describe()}")
        opts["reference"] = reference
    return opts


def narrowed(fig: Figure, analysis):
    """The analysis restricted to the figure's functions and dimension."""
    return analysis.select(**({"function": list(fig.function)} if fig.function else {}),
                           **({"dimension": fig.dimension} if fig.dimension else {}))


def drawing(fig: Figure, analysis, reference: str | None, palette: dict | None = None) -> dict:
    """What the figure's chart draws (its kind's recipe on the narrowed analysis; raises ValueError where the
    data cannot give it)."""
    opts = chart_options(fig, reference, palette)
    known = options(fig.kind)
    unknown = [k for k in opts if k not in known]
    if unknown:
        raise ValueError(f"chart {fig.kind}: unknown option {unknown[0]!r} (options: {', '.join(known)})")
    return KINDS[fig.kind].recipe(narrowed(fig, analysis), **opts)


def draw_ordered(fig: Figure, analysis, reference: str | None, palette: dict | None = None,
                 given: dict | ValueError | None = None,
                 to_pdf: Callable[[dict], bytes] | None = None) -> tuple[bytes, list[str]]:
    """The PDF of a figure and the algorithms in the order of its colour scale (none for a placeholder);
    `given`: its drawing computed beforehand (`batch`), or the error that computing it raised; `to_pdf`:
    what draws a specification (default: vl-convert in this process)."""
    try:
        if isinstance(given, ValueError):
            raise given
        c = KINDS[fig.kind].chart(**(given if given is not None else drawing(fig, analysis, reference, palette)))
    except ValueError as exc:  # e.g. a group without data in the selection
        if str(exc).startswith("no reference algorithm"):
            return placeholder_pdf(str(exc)), []
        return placeholder_pdf(f"{fig.describe()}: {exc}"), []
    s = c.to_dict(validate=False)  # the same dict as export.spec's, without Altair's schema check: a tenth of
    # a figure's time (the report's tests validate these charts' specs)
    if isinstance(s.get("title"), dict):  # the settings lines are the caption's and settings.json's: a bigger plot
        s["title"] = {k: v for k, v in s["title"].items() if k != "subtitle"}
    return (to_pdf(s) if to_pdf else render(s, "pdf")), colour_order(s)
