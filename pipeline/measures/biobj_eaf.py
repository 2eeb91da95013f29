"""The empirical attainment function (EAF) of bbob-biobj runs, from their archives of non-dominated points:
the attainment surfaces of an algorithm's runs and the EAF difference of two algorithms.

Sources: V. Grunert da Fonseca, C. M. Fonseca and A. O. Hall (EMO 2001);
M. López-Ibáñez, L. Paquete and T. Stützle (2010); C. M. Fonseca, A. P. Guerreiro, M. López-Ibáñez and
L. Paquete, "On the computation of the empirical attainment function" (EMO 2011); as moocore 0.3.2's `eaf`
and `eafdiff` and IOHinspector 0.0.8's `get_eaf_pareto_data` and `get_eaf_diff_data` compute them. They read
the stored archives of non-dominated points (table `archive`, ingested from `*_nondom_*.adat`).

- A_r(b): the points (f1, f2) of run r's archive logged at or before evaluation b (`budgets`; default each
  run's final archive, column `budget` null). z is attained by r when a point of A_r(b) weakly dominates it.
- EAF(z) = #{r : A_r(b) weakly dominates z} / n, n the runs of (suite, algorithm, function, dimension) and
  the instance set (column `instances`); a run without archived points counts in n.
- The p%-attainment surface: the minimal points of {z : EAF(z) >= k / n}, k = ceil(p n / 100)
  (`percentiles`; default every level k = 1 .. n, percentile 100 k / n). In 2-D, with g_r(x) the least f2 of
  r's points with f1 <= x, the k-th surface is y_k(x) = the k-th smallest g_r(x); a row (f1, f2) where it drops.
- The difference of `left` and `right` (default the first two algorithms by name): EAF_left(z) - EAF_right(z)
  on rectangles [f1_min, f1_max) x [f2_min, f2_max) of constant value (cells between consecutive f1 of either
  side's points and consecutive g_r values, those of consecutive f1 strips with the same f2 range and values
  merged, as moocore merges them); zero rectangles left out, open ones reach infinity.

Objectives are normalised as COCO normalises them (`normalise`, default): (f - ideal) / (nadir - ideal), the
ideal and nadir points of the instance from coco-experiment (the logger's 5e-13 grid not applied), and the
instances pooled; `normalise=False` (`--no-normalise`; `--normalise` the default) gives raw values, one EAF per
instance (`per_instance=True`, `--per-instance`, is then required; `--no-per-instance` the default).
Parity: `tests/test_biobj_eaf.py` against moocore and IOHinspector on logs written by
coco-experiment's observer (tests/fixtures/biobj_eaf/logs, two algorithms) and on three problems of
RS_on_bbob-biobj; oracles made by `tests/fixtures/biobj_eaf/make_oracle.py`. The real bbob-biobj data sets of
../shared (MAT-DIRECT, TPB) hold no archives (.adat), so no EAF of them.

    cocopipe biobj-eaf-diff --left GAUSS --right UNIFORM -f 1 -d 2 --store STORE --out diff.csv

Declared here (`registry.Measure`): "biobj_eaf" and "biobj_eaf_diff", their facade methods, commands and
chart kinds ("biobj-eaf", "biobj-eaf-diff": `pipeline.charts.biobj_eaf`).


Examples
--------
Two runs: (1, 3), (2, 2) and (1.5, 2.5), (3, 1). The 50% surface is what either attains, the 100% one
what both do.

>>> import numpy as np
>>> surfaces(np.array([1, 2, 1.5, 3.]), np.array([3, 2, 2.5, 1.]), np.array([0, 0, 1, 1]), 2, [1, 2])
[(1, 1.0, 3.0), (1, 1.5, 2.5), (1, 2.0, 2.0), (1, 3.0, 1.0), (2, 1.5, 3.0), (2, 2.0, 2.5), (2, 3.0, 2.0)]
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .registry import BOOL, NONE, TEXT, Check, Inputs, Interval, Items, Measure, Param, register, settings_class

if TYPE_CHECKING:
    import numpy as np
    import polars as pl

#: an EAF's group: the runs of an algorithm on a (function, dimension) and a set of instances
SURFACE_KEY = ("suite", "algorithm", "function", "dimension", "instances")
SURFACE_COLUMNS = (*SURFACE_KEY, "space", "budget", "percentile", "level", "f1", "f2", "runs")
DIFF_COLUMNS = ("suite", "function", "dimension", "instances", "space", "budget", "left", "right", "f1_min",
                "f1_max", "f2_min", "f2_max", "eaf_left", "eaf_right", "difference")


# -- the attainment functions of point sets ----------------------------------------------------------------------
def staircases(f1: np.ndarray, f2: np.ndarray, run: np.ndarray, n: int, xs: np.ndarray) -> np.ndarray:
    """g_r(x) for each x of `xs` (sorted) and each run r in 0 .. n-1: the least f2 of r's points with
    f1 <= x (inf where none), an array (len(xs), n)."""
    import numpy as np

    g = np.full((len(xs), n), np.inf)
    at = np.searchsorted(xs, f1, side="left")  # every f1 is in xs: its row
    np.minimum.at(g, (at, run), f2)
    return np.minimum.accumulate(g, axis=0)


def surfaces(f1: np.ndarray, f2: np.ndarray, run: np.ndarray, n: int, levels: Sequence[int]) -> list[tuple]:
    """The points of the k-th attainment surface of n runs' points, for each k of `levels`: (k, x, y) rows,
    by k then x ascending (moocore's `eaf` order)."""
    import numpy as np

    xs = np.unique(f1)
    g = np.sort(staircases(f1, f2, run, n, xs), axis=1)
    out = []
    for k in levels:
        y = g[:, k - 1]
        before = np.concatenate([[np.inf], y[:-1]])
        keep = np.isfinite(y) & (y < before)
        out += [(k, float(a), float(b)) for a, b in zip(xs[keep], y[keep])]
    return out


def differences(left: tuple, right: tuple) -> list[tuple]:
    """The rectangles [f1_min, f1_max) x [f2_min, f2_max) on which EAF_left - EAF_right is constant and not 0,
    `left` and `right` each (f1, f2, run, n): (f1_min, f1_max, f2_min, f2_max, eaf_left, eaf_right) rows by
    f1_min then f2_min, the last rectangles of a strip or row reaching infinity. Computed per strip between
    consecutive f1 (`_strip_cells`, in blocks of strips), then the cells of consecutive strips with the same
    f2 range and values merged into one rectangle (as moocore's `eafdiff(rectangles=True)` merges them)."""
    import numpy as np

    xs = np.unique(np.concatenate([left[0], right[0]]))
    gl, gr = staircases(*left, xs), staircases(*right, xs)
    ends = np.concatenate([xs[1:], [np.inf]])
    step = max(1, 4_000_000 // ((left[3] + right[3]) * max(left[3], right[3])))  # a block's counts in 4 M cells
    parts = [_strip_cells(gl[i:i + step], gr[i:i + step], left[3], right[3], i) for i in range(0, len(xs), step)]
    strip, y0, y1, va, vb = (np.concatenate([p[k] for p in parts]) for k in range(5)) if parts else [np.array([])] * 5
    if not len(strip):
        return []
    order = np.lexsort((strip, vb, va, y1, y0))
    strip, y0, y1, va, vb = strip[order], y0[order], y1[order], va[order], vb[order]
    same = (y0[1:] == y0[:-1]) & (y1[1:] == y1[:-1]) & (va[1:] == va[:-1]) & (vb[1:] == vb[:-1])
    first = np.flatnonzero(np.concatenate([[True], ~(same & (strip[1:] == strip[:-1] + 1))]))
    last = np.concatenate([first[1:], [len(strip)]]) - 1
    x0, x1 = xs[strip[first]], ends[strip[last]]
    y0, y1, va, vb = y0[first], y1[first], va[first], vb[first]
    by = np.lexsort((y0, x0))
    return list(zip(*(c[by].tolist() for c in (x0, x1, y0, y1, va, vb))))


def _strip_cells(gl: np.ndarray, gr: np.ndarray, nl: int, nr: int, offset: int) -> tuple:
    """(strip, f2_min, f2_max, eaf_left, eaf_right) arrays of the cells of some strips of f1 (their staircases
    on each side, strips x runs; `offset` the first strip's index) where the two EAFs differ: in each strip,
    between consecutive values y of either side's staircases, the fractions of runs at or below y."""
    import numpy as np

    ys = np.sort(np.concatenate([gl, gr], axis=1), axis=1)  # strips x (nl + nr), inf last
    tops = np.concatenate([ys[:, 1:], np.full((len(ys), 1), np.inf)], axis=1)
    a = (np.sort(gl, axis=1)[:, None, :] <= ys[:, :, None]).sum(axis=2) / nl  # attained at y in [y, top)
    b = (np.sort(gr, axis=1)[:, None, :] <= ys[:, :, None]).sum(axis=2) / nr
    i, j = np.nonzero(np.isfinite(ys) & (tops > ys) & (a != b))  # a repeated y: its last copy reaches the next
    return i + offset, ys[i, j], tops[i, j], a[i, j], b[i, j]


def level_of(percentile: float, n: int) -> int:
    """The level k of the p% surface of n runs: ceil(p n / 100), at least 1 (moocore's rule)."""
    return max(1, math.ceil(percentile * n / 100 - 1e-9))


# -- the points of a selection ---------------------------------------------------------------------------------
def archive_points(inputs: Inputs, s) -> pl.DataFrame:
    """The archived points of the selection's bbob-biobj runs: SURFACE_KEY, instance, run (0-based in its group), runs,
    evaluations, f1, f2 (normalised or raw as `s.normalise` says); runs without archive points count."""
    import polars as pl

    from ..selection import ranges

    keys = ["suite", "function", "dimension", "instance"]
    from ..conventions import is_biobjective

    runs = inputs.runs().select("run_id", "suite", "algorithm", "function", "dimension", "instance").collect()
    runs = runs.filter(pl.col("suite").is_in([s for s in runs["suite"].unique().to_list() if is_biobjective(s)]))
    points = inputs.archive().join(runs.lazy().select("run_id"), on="run_id", how="semi").select(
        "run_id", "evaluations", "f1", "f2").collect()
    if s.normalise and runs.height:
        from ..biobj import problem_points

        box = problem_points(runs.select(keys).unique())
        points = (points.join(runs.select("run_id", *keys), on="run_id").join(box, on=keys)
                  .with_columns(f1=(pl.col("f1") - pl.col("ideal1")) / (pl.col("nadir1") - pl.col("ideal1")),
                                f2=(pl.col("f2") - pl.col("ideal2")) / (pl.col("nadir2") - pl.col("ideal2")))
                  .select("run_id", "evaluations", "f1", "f2"))
    group = ["suite", "algorithm", "function", "dimension"] + (["instance"] if s.per_instance else [])
    runs = (runs.sort("run_id").with_columns(run=(pl.int_range(pl.len()).over(group)).cast(pl.Int64),
                                             runs=pl.len().over(group).cast(pl.Int64),
                                             instances=pl.col("instance").unique().sort().over(group, mapping_strategy="join"))
            .with_columns(instances=pl.col("instances").map_elements(ranges, return_dtype=pl.String)))
    return runs.join(points, on="run_id", how="left").sort("run_id", "evaluations")


def at_budgets(points: pl.DataFrame, budgets: Sequence[float] | None):
    """(budget, the points at or before it) for each budget (None: (None, every point), the final archives)."""
    import polars as pl

    if budgets is None:
        yield None, points
        return
    for b in sorted(set(float(x) for x in budgets)):
        yield b, points.with_columns([pl.when(pl.col("evaluations") <= b).then(pl.col(c)).alias(c)
                                      for c in ("f1", "f2")])


def arrays(group: pl.DataFrame) -> tuple:
    """(f1, f2, run, n) of a group's points (its runs without points count in n)."""
    import numpy as np

    n = int(group["runs"][0])
    pts = group.drop_nulls(["f1", "f2"])
    return (pts["f1"].to_numpy(), pts["f2"].to_numpy(), pts["run"].to_numpy().astype(np.int64), n)


# -- the declarations ------------------------------------------------------------------------------------------
def _space(s) -> str:
    return "normalised" if s.normalise else "raw"


def _surfaces(inputs: Inputs, s) -> pl.LazyFrame:
    import polars as pl

    rows = []
    for budget, points in at_budgets(archive_points(inputs, s), s.budgets):
        for key, group in points.group_by(*SURFACE_KEY, maintain_order=True):
            f1, f2, run, n = arrays(group)
            asked = ([(100 * k / n, k) for k in range(1, n + 1)] if s.percentiles is None
                     else [(p, level_of(p, n)) for p in sorted(set(s.percentiles))])
            if len(f1):
                found = surfaces(f1, f2, run, n, sorted({k for _, k in asked}))
                rows += [(*key, _space(s), budget, float(p), k, x, y, n) for p, k in asked
                         for level, x, y in found if level == k]
    schema = {"suite": pl.String, "algorithm": pl.String, "function": pl.Int32, "dimension": pl.Int32,
              "instances": pl.String, "space": pl.String, "budget": pl.Float64, "percentile": pl.Float64,
              "level": pl.Int64, "f1": pl.Float64, "f2": pl.Float64, "runs": pl.Int64}
    return pl.LazyFrame(rows, schema=schema, orient="row").sort(
        "suite", "algorithm", "function", "dimension", "instances", "budget", "level", "f1", nulls_last=True,
        maintain_order=True)


SPACE = [
    Param("budgets", None, (NONE, Items(Interval(float, 0, None, "neither"))),
          "Budgets in evaluations: the archive of each run at each (default: the runs' final archives)."),
    Param("normalise", True, (BOOL,), "Objectives normalised as COCO: ideal (0, 0), nadir (1, 1) (needs coco-experiment)."),
    Param("per_instance", False, (BOOL,), "One EAF per instance (else the instances pooled; raw values need it)."),
]
RAW_APART = Check("per_instance", lambda s: s.normalise or s.per_instance,
                  lambda s: "True with normalise=False (raw values of different instances are not comparable)")

register(Measure(
    name="biobj_eaf", summary="Attainment surfaces of bbob-biobj runs from their archives of non-dominated points.",
    seed="Fonseca et al. 2001, 2011; López-Ibáñez et al. 2010; moocore eaf (docs/measures.md)",
    inputs=("runs", "archive"), keys=(), groupable=False, targets=False,
    settings=settings_class("biobj_eaf", [
        Param("percentiles", None, (NONE, Items(Interval(float, 0, 100, "right"))),
              "The k%-attainment surfaces drawn (default: every level k / n of n runs)."), *SPACE], (RAW_APART,)),
    spec=_surfaces, columns=SURFACE_COLUMNS, charts=("biobj-eaf",), command="biobj-eaf"))


def _pair(inputs: Inputs, s) -> tuple[str, str] | None:
    """left and right, else the first two algorithms of the selection by name (None: fewer than two)."""
    names = sorted(inputs.runs().select("algorithm").unique().collect()["algorithm"].to_list())
    picked = [x for x in (s.left, s.right) if x is not None] + [n for n in names if n not in (s.left, s.right)]
    return (picked[0], picked[1]) if len(picked) >= 2 else None


def _differences(inputs: Inputs, s) -> pl.LazyFrame:
    import polars as pl

    from ..selection import ranges

    schema = {"suite": pl.String, "function": pl.Int32, "dimension": pl.Int32, "instances": pl.String,
              "space": pl.String, "budget": pl.Float64, "left": pl.String, "right": pl.String,
              **{c: pl.Float64 for c in DIFF_COLUMNS[8:]}}
    pair, rows = _pair(inputs, s), []
    if pair is None:
        return pl.LazyFrame(schema=schema)
    cell = ["suite", "function", "dimension", *(["instance"] if s.per_instance else [])]
    for budget, points in at_budgets(archive_points(inputs, s), s.budgets):
        points = points.filter(pl.col("algorithm").is_in(pair))
        for key, group in points.group_by(cell, maintain_order=True):
            sides = [group.filter(pl.col("algorithm") == name) for name in pair]
            if any(side.height == 0 for side in sides):
                continue
            instances = ranges(group["instance"].unique().to_list())
            rows += [(*key[:3], instances, _space(s), budget, *pair, *r, r[4] - r[5])
                     for r in differences(arrays(sides[0]), arrays(sides[1]))]
    return pl.LazyFrame(rows, schema=schema, orient="row").sort(
        "suite", "function", "dimension", "instances", "budget", "f1_min", "f2_min", nulls_last=True)


register(Measure(
    name="biobj_eaf_diff", summary="Difference of two algorithms' attainment functions on bbob-biobj (left minus right).",
    seed="López-Ibáñez et al. 2010; moocore eafdiff (docs/measures.md)", inputs=("runs", "archive"), keys=(),
    groupable=False, targets=False,
    settings=settings_class("biobj_eaf_diff", [
        Param("left", None, (NONE, TEXT), "The first algorithm (default: the first of the selection by name)."),
        Param("right", None, (NONE, TEXT), "The second algorithm (default: the next of the selection by name)."),
        *SPACE], (RAW_APART, Check("right", lambda s: s.left is None or s.right != s.left,
                                   lambda s: f"an algorithm other than left {s.left!r}"))),
    spec=_differences, columns=DIFF_COLUMNS, charts=("biobj-eaf-diff",), command="biobj-eaf-diff"))
