"""The bbob-biobj quality indicator of an archive as it grows (seed 002, "Definition of the Quality
Indicator"), with the COCO logger's conventions (coco-experiment 2.x, `logger_biobj.c`, `mo_utilities.c`):

- objectives are normalised so that the ideal point maps to (0, 0) and the nadir to (1, 1), then
  rounded to a grid of 5e-13 (`mo_discretization`); a value below 0 is set to 0, and a point with
  one normalised objective at 0 and the other below 1 gets the other set to 1 (`mo_normalize`);
- a solution enters the archive unless an archived one weakly dominates it (equal counts);
  the solutions it dominates leave it;
- the hypervolume counts only archived points inside the region of interest [0, 1]^2, with the
  nadir as reference point; while it is 0, the indicator adds the smallest normalised Euclidean
  distance of any archived point to the region of interest (`mo_get_distance_to_ROI`);
- what the logger writes to .dat/.tdat is `reference - hypervolume + distance`, i.e. the
  indicator (-HV, or the distance) minus the reference indicator value (-reference).

The indicator is evaluated for every solution that changes the archive. Normalisation, region of
interest, distances and the event frame are vectorised over all runs; the archive itself is a
sweep over the solutions in arrival order that keeps the non-dominated points sorted by the first
objective (a `SortedList`, or a plain list for short runs: O(log n) per solution, as each point
enters and leaves the archive once; no pairwise comparisons).
"""
from __future__ import annotations

from bisect import bisect_left
from functools import partial
from itertools import islice

import numpy as np
import polars as pl

from ..extras import require

#: the logger's grid for normalised objective values, and its equality tolerance
DISCRETIZATION = 5 * 1e-13
PRECISION = 1e-13
#: runs with at most this many solutions keep their archive in a plain list
SMALL_RUN = 2000


def normalise(f1: np.ndarray, f2: np.ndarray, ideal: np.ndarray, nadir: np.ndarray, adjust_extremes: bool = True
              ) -> tuple[np.ndarray, np.ndarray]:
    """Normalised, grid-rounded objectives as the logger computes them (`mo_normalize`).

    `ideal` and `nadir` have shape (n, 2) or (2,). With `adjust_extremes` (the logger's rule), a
    point whose normalised objective is 0 gets the other set to 1 when below 1: only an extreme
    optimum reaches an ideal value, and its other objective is the nadir's. Without it, seed 002's
    plain definition: an archive holding the exact ideal point has indicator -1."""
    ideal = np.broadcast_to(np.asarray(ideal, dtype=float), (len(f1), 2))
    nadir = np.broadcast_to(np.asarray(nadir, dtype=float), (len(f1), 2))
    out = []
    for k, f in enumerate((f1, f2)):
        v = (np.asarray(f, dtype=float) - ideal[:, k]) / (nadir[:, k] - ideal[:, k])
        v = np.floor(v / DISCRETIZATION + 0.5) * DISCRETIZATION
        out.append(np.where(v < 0, 0.0, v))
    n1, n2 = out
    if not adjust_extremes:
        return n1, n2
    n2 = np.where((np.abs(n1) < PRECISION) & (n2 < 1), 1.0, n2)
    n1 = np.where((np.abs(n2) < PRECISION) & (n1 < 1), 1.0, n1)
    return n1, n2


def within_roi(n1: np.ndarray, n2: np.ndarray) -> np.ndarray:
    """Whether normalised points lie in [0, 1]^2 (with the logger's tolerance)."""
    def inside(v):
        return (np.abs(v) < PRECISION) | (np.abs(v - 1) < PRECISION) | ((v > 0) & (v < 1))
    return inside(n1) & inside(n2)


def distance_to_roi(n1: np.ndarray, n2: np.ndarray) -> np.ndarray:
    """Normalised Euclidean distance of each point to the region of interest [0, 1]^2."""
    d1, d2 = n1 - 1, n2 - 1
    dist = np.where((d1 > 0) & (d2 > 0), np.sqrt(d1 ** 2 + d2 ** 2), np.where(d1 > 0, d1, d2))
    return np.where(within_roi(n1, n2), 0.0, dist)


def grid_keys(n: np.ndarray) -> np.ndarray:
    """Exact comparison keys of grid-rounded values: the grid index (values on the grid within the
    logger's tolerance of each other share it)."""
    return np.floor(n / DISCRETIZATION + 0.5)


def sweep(n1: np.ndarray, n2: np.ndarray, starts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Archive updates and hypervolume after each solution, for runs stored one after the other.

    `n1`, `n2`: normalised objectives in arrival order, run by run; `starts`: index of each run's
    first solution (and len at the end). Returns `accepted` (the solution changed the archive) and
    `hv` (hypervolume of the archive's points in the region of interest after the solution),
    summed contribution by contribution as the logger does. The archive is a sorted list of grid
    keys of the first objective (O(log n) insertion, removal and neighbours)."""
    n = len(n1)
    roi = within_roi(n1, n2).tolist()
    k1, k2 = grid_keys(n1).tolist(), grid_keys(n2).tolist()
    v1, v2 = n1.tolist(), n2.tolist()
    acc, hvl = [False] * n, [0.0] * n
    bounds = np.asarray(starts).tolist()
    sorted_list = None  # sortedcontainers' SortedList (the biobj extra), for runs longer than SMALL_RUN
    for r in range(len(bounds) - 1):
        small = bounds[r + 1] - bounds[r] <= SMALL_RUN  # a plain list is faster for short runs
        if not small and sorted_list is None:
            sorted_list = require("sortedcontainers", "biobj", "the biobjective indicator").SortedList
        keys = [] if small else sorted_list()  # grid keys of objective 1 of the archived points, increasing
        find = partial(bisect_left, keys) if small else keys.bisect_left
        pts: dict[float, list] = {}  # key -> [key of objective 2, f1, f2 normalised, in ROI, contribution]
        cv = 0.0
        for p in range(bounds[r], bounds[r + 1]):
            a, b = k1[p], k2[p]
            i = find(a)
            m = len(keys)
            if (i > 0 and pts[keys[i - 1]][0] <= b) or (i < m and keys[i] == a and pts[a][0] <= b):
                hvl[p] = cv  # weakly dominated: no change
                continue
            gone = 0
            for k in (islice(keys, i, None) if small else keys.islice(i)):  # dominated points leave
                q = pts[k]
                if q[0] < b:
                    break
                cv -= q[4]
                del pts[k]
                gone += 1
            if gone:
                del keys[i:i + gone]
            xp, yp, inside = v1[p], v2[p], roi[p]
            if small:
                keys.insert(i, a)
            else:
                keys.add(a)
            new = pts[a] = [b, xp, yp, inside, 0.0]
            if inside:
                if i > 0:  # the left neighbour's strip now ends at the new point
                    q = pts[keys[i - 1]]
                    if q[3]:
                        cv -= q[4]
                        q[4] = (xp - q[1]) * (1 - q[2])
                        cv += q[4]
                right = pts[keys[i + 1]] if i + 1 < len(keys) else None
                new[4] = ((right[1] if right is not None and right[3] else 1.0) - xp) * (1 - yp)
                cv += new[4]
            acc[p] = True
            hvl[p] = cv
    return np.asarray(acc, dtype=bool), np.asarray(hvl, dtype=float)


def trajectory(archive: pl.DataFrame, adjust_extremes: bool = True) -> pl.DataFrame:
    """The indicator after every solution of every run.

    `archive` has `run_id`, `evaluations`, `f1`, `f2` and the run's `ideal1`, `ideal2`, `nadir1`,
    `nadir2`, `reference` (the reference hypervolume value, as in the logs' headers); solutions are
    taken in the order of `evaluations` within each run. Adds `n1`, `n2` (normalised objectives),
    `accepted` (the solution changed the archive), `hv`, `distance` (to the region of interest) and
    `best_delta`, the logger's `reference - hv + penalty`: the penalty is the smallest distance of
    an archived solution while the hypervolume is 0, and 0 afterwards. `adjust_extremes`: see
    `normalise`."""
    df = archive.with_row_index("_order").sort("run_id", "evaluations", "_order")
    n1, n2 = normalise(df["f1"].to_numpy(), df["f2"].to_numpy(),
                       df.select("ideal1", "ideal2").to_numpy(), df.select("nadir1", "nadir2").to_numpy(),
                       adjust_extremes)
    sizes = df.group_by("run_id", maintain_order=True).len()["len"].to_numpy()
    starts = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    accepted, hv = sweep(n1, n2, starts)
    df = df.with_columns(n1=pl.Series(n1), n2=pl.Series(n2), accepted=pl.Series(accepted), hv=pl.Series(hv),
                         distance=pl.Series(distance_to_roi(n1, n2)))
    penalty = (
        pl.when(pl.col("accepted")).then(pl.col("distance")).otherwise(None)
        .cum_min().forward_fill().over("run_id")
    )
    return df.with_columns(
        best_delta=pl.col("reference") - pl.col("hv")
        + pl.when(pl.col("hv").abs() < PRECISION).then(penalty).otherwise(0.0)
    ).drop("_order")
