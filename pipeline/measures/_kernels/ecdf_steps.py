"""Fast paths of the runtime ECDFs (`pipeline.measures.ecdf`): hitting times prepared once as arrays, the
simulated restarts of every problem counted where they need no draw, and the step tables summed in one
pass; equal to the Polars definitions there (tests/test_kernels.py).

The fractions of the simulated and trials modes are ratios of whole numbers (samples reaching x out of a
problem's samples, trial weights out of the problem's), and are computed so: each atom's mass as a count of
a unit common to the group's problems (the least common multiple of their denominators), counts added as
integers and divided once, so that a fraction is the float nearest to the exact ratio (1/10 is 0.1, not a
sum's 0.09999999999999999) whatever the order of the sums. The exact mode's masses (probabilities of
restart sums) are floats, added as such.
"""
from __future__ import annotations

import math
from collections.abc import Iterator
from typing import NamedTuple

import numpy as np
import polars as pl

from ..generators import block_rng
from . import restarts
from ...vocabulary import ALGORITHM_DIMENSION



class Prepared(NamedTuple):
    """Hitting times prepared once for every table of them: numbers per row, names per function."""

    #: one row per (problem, trial), sorted by fid, target, trial: fid, target, trial, instance, run_id,
    #: success, evaluations, weight, cost (hit if successful, else evaluations)
    trials: pl.DataFrame
    #: one row per fid, the index of (suite, algorithm, dimension, function) in sorted order
    funcs: pl.DataFrame
    #: one row per problem, sorted by fid, target: success fraction (instance-balanced) `rate`, its `wins` of
    #: `weights` (the balanced trials' weights), `solved` (any success), and the function's suite, algorithm,
    #: dimension, function
    problems: pl.DataFrame


def _prepare(hits: pl.DataFrame) -> Prepared:
    """Trials, functions and problems of an eager frame of hitting times (`run_id` identifies a trial,
    as in the store, so names are looked up once per trial, not per target)."""
    fid, funcs = restarts.problem_index(hits, [*ALGORITHM_DIMENSION, "function"])
    funcs = funcs.rename({"_p": "fid"}).select("fid", *ALGORITHM_DIMENSION, "function").with_columns(
        pl.col("dimension").cast(pl.Int64))
    trials = hits.select(
        "target", "trial", "instance", "run_id", "success", "evaluations",
        weight=pl.col("weight").cast(pl.Float64),
        cost=pl.when(pl.col("success")).then(pl.col("hit")).otherwise(pl.col("evaluations")).cast(pl.Float64),
    ).with_columns(fid=pl.Series(fid, dtype=pl.UInt32)).rechunk()  # one chunk, for the gather
    trials = trials[_trial_order(trials)]
    f, target = trials["fid"].to_numpy(), trials["target"].to_numpy()
    w, success = trials["weight"].to_numpy(), trials["success"].to_numpy()
    first = np.flatnonzero(np.r_[True, (f[1:] != f[:-1]) | (target[1:] != target[:-1])]) if len(f) else np.zeros(0, int)
    if len(f):  # integer-valued weights: the sums are exact in any order
        wins, weights = np.add.reduceat(w * success, first), np.add.reduceat(w, first)
        rate, solved = wins / weights, np.maximum.reduceat(success, first)
    else:
        wins, weights, rate, solved = np.zeros(0), np.zeros(0), np.zeros(0), np.zeros(0, bool)
    problems = pl.DataFrame({"fid": f[first], "target": target[first], "rate": rate, "solved": solved, "wins": wins,
                             "weights": weights},
                            schema={"fid": pl.UInt32, "target": pl.Float64, "rate": pl.Float64, "solved": pl.Boolean,
                                    "wins": pl.Float64, "weights": pl.Float64})
    return Prepared(trials, funcs, problems.join(funcs, on="fid", how="left", maintain_order="left"))


def prepare_trials(hits: pl.DataFrame | Prepared) -> Prepared:
    """An eager frame of hitting times prepared (or as given, when it is already)."""
    return hits if isinstance(hits, Prepared) else _prepare(hits)


def _trial_order(trials: pl.DataFrame) -> np.ndarray:
    """The order by fid, target, trial (run_id where trial numbers repeat)."""
    rid = trials["run_id"].to_numpy()
    return restarts.trial_order(trials["fid"].to_numpy(), trials["target"].to_numpy(), trials["trial"].to_numpy(),
                                rid, run=rid)


def trial_atoms(trials: pl.DataFrame) -> pl.DataFrame | tuple[np.ndarray, ...]:
    """The trials' own hitting times, each weighing its share of the problem's (balanced) trials: arrays
    (fid, value, num, den), the weight `num` of `den`, the problem's weights, where the weights are whole
    numbers (as instance balancing makes them); else a frame (fid, value, mass)."""
    w = trials["weight"].to_numpy()
    if len(w) and np.all(w == np.rint(w)) and np.all(w >= 0) and w.sum() < 2 ** 53:
        den = trials.select(pl.col("weight").sum().over("fid", "target"))["weight"].to_numpy()
        ok = trials["success"].to_numpy()
        return (trials["fid"].to_numpy()[ok], trials["cost"].to_numpy()[ok], np.rint(w[ok]).astype(np.int64),
                np.rint(den[ok]).astype(np.int64))
    return (
        trials.with_columns(mass=pl.col("weight") / pl.col("weight").sum().over("fid", "target"))
        .filter(pl.col("success"))
        .select("fid", value=pl.col("cost"), mass=pl.col("mass"))
    )


def _sample_size(trial_counts: np.ndarray, samples: int) -> int:
    """`ecdf.sample_size`: K * max(2, samples // K), K the largest trial count."""
    k = int(np.max(trial_counts))
    return k * max(2, samples // k)


def longest(data: Prepared) -> pl.DataFrame:
    """The largest evaluations of the trials of each function, with the function's keys (for `ecdf.x_limits`)."""
    return data.trials.group_by("fid").agg(pl.col("evaluations").max()).join(data.funcs, on="fid")


class _Block(NamedTuple):
    """The trials of one (suite, algorithm, dimension), with its own generator: problem keys (fid)
    and, per trial repeated by its weight, its problem `gid`, `cost` and `success`; trials per
    problem `n` and cocopp's sample size."""

    keys: np.ndarray
    gid: np.ndarray
    cost: np.ndarray
    success: np.ndarray
    n: np.ndarray
    size: int
    rng: np.random.Generator


def _blocks(data: Prepared, samples: int, seed: int) -> Iterator[_Block]:
    """Every (suite, algorithm, dimension) of the trials (sorted by fid, target, trial: one block
    each), with a generator seeded by the key, so a result does not depend on what else is selected."""
    trials, funcs = data.trials, data.funcs
    fid, target = trials["fid"].to_numpy().astype(np.int64), trials["target"].to_numpy()
    rep_all = np.maximum(trials["weight"].to_numpy().astype(np.int64), 1)  # balanced columns, as cocopp
    cost_all, success_all = trials["cost"].to_numpy(), trials["success"].to_numpy()
    repeat = np.repeat if np.any(rep_all > 1) else lambda a, rep: a  # no copies where every weight is 1
    new_key = np.r_[True, np.any([funcs[c].to_numpy()[1:] != funcs[c].to_numpy()[:-1] for c in ALGORITHM_DIMENSION], axis=0)]
    key_start = np.flatnonzero(new_key)
    bounds = np.r_[np.searchsorted(fid, key_start), len(fid)]
    for i, k in enumerate(key_start):
        lo, hi = bounds[i], bounds[i + 1]
        f, t = fid[lo:hi], target[lo:hi]
        first = np.r_[True, (f[1:] != f[:-1]) | (t[1:] != t[:-1])]
        keys = f[first]
        rep = rep_all[lo:hi]
        gid = repeat(np.cumsum(first) - 1, rep)
        n = np.bincount(gid, minlength=len(keys))
        key = tuple(funcs.row(int(k))[1:4])  # (suite, algorithm, dimension)
        yield _Block(keys, gid, repeat(cost_all[lo:hi], rep), repeat(success_all[lo:hi], rep), n,
                     _sample_size(n, samples), block_rng(seed, key))


def simulated_atoms(data: Prepared, samples: int, seed: int) -> pl.DataFrame | tuple[np.ndarray, ...]:
    """Simulated restart runtimes, each sample weighing 1 / samples of its problem; one generator per
    (suite, algorithm, dimension), so a result does not depend on what else is selected. Arrays
    (fid, value, num, den) where there are any: each sample 1 (`num`) of the problem's `den` samples."""
    empty = pl.DataFrame(schema={"fid": pl.UInt32, "value": pl.Float64, "mass": pl.Float64})
    if not data.trials.height:
        return empty
    parts = []
    for b in _blocks(data, samples, seed):
        sg, rt = restarts.simulate(b.gid, b.cost, b.success, len(b.keys), b.size, b.rng, first_deterministic=True)
        per = np.bincount(sg, minlength=len(b.keys))  # samples drawn per problem (a multiple of its trials)
        parts.append((b.keys[sg], rt, np.ones(len(sg), np.int64), per[sg].astype(np.int64)))
    return tuple(np.concatenate(x) for x in zip(*parts))


class Counted(NamedTuple):
    """Atoms of equal mass per function given as (fid, value, count): `count` atoms of mass
    1 / `per[fid]` each (the function's samples per problem; 0 where none is drawn), as many as
    `simulated_atoms` draws (a problem whose trials all succeed draws its trials, each size / n times:
    counted, not drawn)."""

    fid: np.ndarray
    value: np.ndarray
    count: np.ndarray
    per: np.ndarray


def simulated_counts(data: Prepared, samples: int, seed: int) -> Counted:
    """`simulated_atoms` counted: the same generators draw the same restarts (only problems with an
    unsuccessful trial draw anything), the samples of problems whose trials all succeed are counted."""
    fids, values, counts = [np.zeros(0, np.int64)], [np.zeros(0)], [np.zeros(0, np.int64)]
    per_fid = np.zeros(data.funcs.height, np.int64)
    if not data.trials.height:
        return Counted(fids[0], values[0], counts[0], per_fid)
    for keys, gid, cost, success, n, size, rng in _blocks(data, samples, seed):
        nsucc = np.bincount(gid, weights=success, minlength=len(keys))
        per = (np.ceil(size / np.maximum(n, 1)) * n).astype(np.int64)  # samples per problem, as `simulate`
        per_fid[keys[nsucc > 0]] = per[nsucc > 0]
        whole = (nsucc == n) & (n > 0)
        mixed = np.flatnonzero(~whole & (nsucc > 0))
        if len(mixed):
            at = np.full(len(keys), -1)
            at[mixed] = np.arange(len(mixed))
            sub = at[gid] >= 0
            sg, rt = restarts.simulate(at[gid[sub]], cost[sub], success[sub], len(mixed), size, rng, True)
            fids.append(keys[mixed][sg])
            values.append(rt)
            counts.append(np.ones(len(rt), np.int64))
        w = whole[gid]
        fids.append(keys[gid[w]])
        values.append(cost[w].astype(float))
        counts.append(per[gid[w]] // n[gid[w]])
    return Counted(np.concatenate(fids), np.concatenate(values), np.concatenate(counts), per_fid)


def _sorted_by(key: np.ndarray, x: np.ndarray, mass: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(key, x, mass) sorted by key, then x, as `np.lexsort((x, key))` orders them: ties of x within a
    key keep their order where the key's masses differ (so that sums of tied masses do not depend on
    the sort). Keys in ascending blocks (as atoms come) are sorted block by block."""
    if not len(key):
        return key, x, mass
    rep = np.zeros(int(key.max()) + 1)
    rep[key] = mass
    uniform = bool(np.all(rep[key] == mass))  # one mass per key: tied atoms are interchangeable
    change = np.flatnonzero(key[1:] != key[:-1]) + 1
    if np.all(key[change] > key[change - 1]) and len(change) < len(key) // 16:
        bounds = np.r_[0, change, len(key)]
        if uniform:
            return key, np.concatenate([np.sort(x[lo:hi]) for lo, hi in zip(bounds[:-1], bounds[1:])]), mass
        order = np.concatenate([lo + np.argsort(x[lo:hi], kind="stable") for lo, hi in zip(bounds[:-1], bounds[1:])])
    else:
        o = np.argsort(x) if uniform else np.argsort(x, kind="stable")
        k = key[o]
        order = o[np.argsort(k.astype(np.uint16) if k.max() < 2 ** 16 else k, kind="stable")]
    return key[order], x[order], mass[order]


def step_table(atoms: pl.DataFrame | tuple[np.ndarray, ...] | Counted, data: Prepared, members: pl.DataFrame,
               limits: pl.DataFrame) -> pl.DataFrame:
    """Cumulative fractions per (suite, algorithm, dimension, group) from atoms: `Counted`, arrays (fid, value,
    num, den) of whole-number masses num / den, or (fid, value, mass) as a frame or arrays of float masses;
    each problem weighs 1 / (problems in the group); one row per distinct x <= max_x."""
    n = data.problems.group_by("fid").agg(n=pl.len())
    funcs = data.funcs.join(n, on="fid", how="left").join(limits, on=ALGORITHM_DIMENSION, how="left").sort("fid")
    link = funcs.join(members, on=["suite", "function"])
    cells = (link.group_by(*ALGORITHM_DIMENSION, "group").agg(n=pl.col("n").sum()).sort(*ALGORITHM_DIMENSION, "group")
             .with_row_index("cell"))
    link = link.join(cells.select(*ALGORITHM_DIMENSION, "group", "cell"), on=[*ALGORITHM_DIMENSION, "group"]).sort("cell", "fid")
    dim, lim = funcs["dimension"].to_numpy().astype(float), funcs["max_x"].to_numpy()
    lf, lc = link["fid"].to_numpy().astype(np.int64), link["cell"].to_numpy().astype(np.int64)
    if isinstance(atoms, Counted):
        atoms = (atoms.fid, atoms.value, atoms.count, atoms.per[atoms.fid.astype(np.int64)])
    if isinstance(atoms, pl.DataFrame):
        atoms = atoms["fid"].to_numpy(), atoms["value"].to_numpy(), atoms["mass"].to_numpy()
    ns = cells["n"].to_numpy()
    if len(atoms) == 4:  # whole-number masses: counted and divided once
        fid, x, units, scale = _counted_per_function(atoms, dim, lim)
        cell, x, fraction = _counted_steps(fid, x, units, scale, funcs.height, lf, lc, ns)
    else:
        fid, value, mass = atoms
        fid = fid.astype(np.int64)
        x = value / dim[fid]
        keep = (x <= lim[fid]) & (mass > 0)
        fid, x, mass = _sorted_by(fid[keep], x[keep], mass[keep])
        if len(x):  # one atom per (function, x)
            first = np.flatnonzero(np.r_[True, (fid[1:] != fid[:-1]) | (x[1:] != x[:-1])])
            fid, x, mass = fid[first], x[first], np.add.reduceat(mass, first)
        cell, x, fraction = _summed_steps(fid, x, mass, funcs.height, lf, lc, ns)
    return cells.select(*ALGORITHM_DIMENSION, "group")[cell].with_columns(x=pl.Series(x, dtype=pl.Float64),
                                                                        fraction=pl.Series(fraction, dtype=pl.Float64))


def _per_cell(fid: np.ndarray, nf: int, lf: np.ndarray, lc: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where the atoms of each function go: every atom of a function once for each group the function is in
    (`lf`, `lc`: the functions and cells linked), per group the functions' atoms one after the other in function
    order; the index of each copy into the atoms, and its cell."""
    f_start = np.searchsorted(fid, np.arange(nf))
    f_len = np.searchsorted(fid, np.arange(nf), side="right") - f_start
    take = (np.repeat(f_start[lf], f_len[lf])
            + (np.arange(f_len[lf].sum()) - np.repeat(np.cumsum(f_len[lf]) - f_len[lf], f_len[lf])))
    return take, np.repeat(lc, f_len[lf])


def _starts(cell: np.ndarray) -> np.ndarray:
    """The bounds of the runs of equal cells (sorted): each run's start, then the length."""
    return np.r_[np.flatnonzero(np.r_[True, cell[1:] != cell[:-1]]), len(cell)] if len(cell) else np.zeros(1, np.int64)


def _summed_steps(fid, x, mass, nf, lf, lc, ns) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(cell, x, fraction) of float masses per (function, x): summed per (cell, x), then cumulated per cell."""
    take, cell = _per_cell(fid, nf, lf, lc)
    cell, x, mass = _sorted_by(cell, x[take], mass[take])  # ties of x in function order
    change = np.r_[True, (cell[1:] != cell[:-1]) | (x[1:] != x[:-1])] if len(x) else np.zeros(0, bool)
    first = np.flatnonzero(change)
    mass = np.add.reduceat(mass, first) if len(first) else mass
    cell, x = cell[first], x[first]
    # cumulative per group on its own, so that a group's fractions do not depend on what else is selected
    bounds = _starts(cell)
    cum = np.concatenate([np.cumsum(mass[lo:hi]) for lo, hi in zip(bounds[:-1], bounds[1:])]) if len(cell) else mass
    return cell, x, np.minimum(cum / ns.astype(float)[cell], 1.0)


def _counted_per_function(atoms: tuple[np.ndarray, ...], dim: np.ndarray, lim: np.ndarray
                          ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Atoms (fid, value, num, den) of masses num / den as whole counts of a unit per function (`scale`, the
    least common multiple of its denominators): (fid, x, units) one per (function, x), sorted, and `scale`."""
    fid, value, num, den = atoms
    fid, num, den = fid.astype(np.int64), np.asarray(num, np.int64), np.asarray(den, np.int64)
    x = value / dim[fid]
    keep = (x <= lim[fid]) & (num > 0) & (den > 0)
    fid, x, num, den = fid[keep], x[keep], num[keep], den[keep]
    scale = np.ones(len(dim), np.int64)
    order = np.lexsort((x, fid))
    fid, x, num, den = fid[order], x[order], num[order], den[order]
    if not len(fid):
        return fid, x, num, scale
    starts = np.flatnonzero(np.r_[True, fid[1:] != fid[:-1]])
    scale[fid[starts]] = np.lcm.reduceat(den, starts)
    units = num * (scale[fid] // den)
    first = np.flatnonzero(np.r_[True, (fid[1:] != fid[:-1]) | (x[1:] != x[:-1])])
    return fid[first], x[first], np.add.reduceat(units, first), scale


def _counted_steps(fid, x, units, scale, nf, lf, lc, ns) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(cell, x, fraction) of whole counts per (function, x): each cell's counts in a unit common to its
    functions (the least common multiple of their scales), added per (cell, x), cumulated per cell, and divided
    once by the cell's total (its problems times the unit): the float nearest the exact ratio. Where that total
    passes 2^53, the counts are Python integers (exact, slower)."""
    take, cell = _per_cell(fid, nf, lf, lc)
    unit = [1] * len(ns)
    for c, f in zip(lc.tolist(), lf.tolist()):
        unit[c] = math.lcm(unit[c], int(scale[f]))
    total = [u * int(k) for u, k in zip(unit, ns.tolist())]
    wide = any(t >= 2 ** 53 for t in total)
    units, fid = units[take], fid[take]
    if wide:
        units = units.astype(object) * (np.array(unit, dtype=object)[cell] // scale[fid].astype(object))
    else:
        units = units * (np.array(unit, np.int64)[cell] // scale[fid])
    order = np.lexsort((x[take], cell))  # any order of ties: whole numbers add up exactly
    cell, x, units = cell[order], x[take][order], units[order]
    if not len(x):
        return cell, x, np.zeros(0)
    first = np.flatnonzero(np.r_[True, (cell[1:] != cell[:-1]) | (x[1:] != x[:-1])])
    cell, x, units = cell[first], x[first], np.add.reduceat(units, first)
    cum = np.cumsum(units)
    bounds = _starts(cell)
    before = np.repeat(np.r_[0, cum[bounds[1:-1] - 1]] if len(bounds) > 2 else np.zeros(1, cum.dtype), np.diff(bounds))
    cum = cum - before  # per group on its own
    tot = np.array(total, dtype=object if wide else np.int64)[cell]
    fraction = np.array([a / b for a, b in zip(cum.tolist(), tot.tolist())]) if wide else cum / tot
    return cell, x, np.minimum(fraction, 1.0)


def exact_mean(wins: list[float], weights: list[float]) -> float:
    """The mean of the ratios wins / weights (whole numbers) as the float nearest the exact mean, summed in a
    common unit and divided once; a float mean where they are not whole.

    >>> exact_mean([1, 1, 1], [10, 10, 10]), exact_mean([1, 2], [3, 5]), sum([0.1] * 3) / 3
    (0.1, 0.36666666666666664, 0.10000000000000002)
    """
    if not weights:
        return math.nan
    if not all(float(x).is_integer() for x in [*wins, *weights]) or min(weights) <= 0:
        return float(np.mean(np.divide(wins, weights)))
    unit = math.lcm(*(int(b) for b in weights))
    return sum(int(a) * (unit // int(b)) for a, b in zip(wins, weights)) / (unit * len(weights))


def summary_frame(data: Prepared, members: pl.DataFrame, limits: pl.DataFrame) -> pl.DataFrame:
    """`ecdf.summary_table` of prepared hitting times, given the group `members` and the plotted `limits`."""
    per_problem = data.problems.join(members, on=["suite", "function"], maintain_order="left").group_by(
        *ALGORITHM_DIMENSION, "group").agg(
        final_fraction=pl.struct("wins", "weights").map_batches(
            lambda s: pl.Series([exact_mean(s.struct.field("wins").to_list(), s.struct.field("weights").to_list())]),
            returns_scalar=True, return_dtype=pl.Float64),
        solvable_fraction=pl.col("solved").mean(), functions=pl.col("function").n_unique(),
    )
    runs = (data.trials.unique("run_id").select("fid", "instance", "evaluations").join(data.funcs, on="fid")
            .join(members, on=["suite", "function"]))
    per_run = runs.group_by(*ALGORITHM_DIMENSION, "group").agg(
        median_max_evaluations=(pl.col("evaluations").cast(pl.Float64) / pl.col("dimension")).median(),
        trials=pl.len(),
    )
    targets = data.problems.group_by("fid").agg(t=pl.len())
    out = (
        per_problem.join(per_run, on=[*ALGORITHM_DIMENSION, "group"])
        .join(limits, on=ALGORITHM_DIMENSION, how="left")
        .join(runs.unique(["fid", "instance", "group"]).join(targets, on="fid")
              .group_by(*ALGORITHM_DIMENSION, "group").agg(instance_targets=pl.col("t").sum()),
              on=[*ALGORITHM_DIMENSION, "group"])
        .sort(*ALGORITHM_DIMENSION, "group")
    )
    return out
