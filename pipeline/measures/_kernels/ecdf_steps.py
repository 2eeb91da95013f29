"""Fast paths of the runtime ECDFs (`pipeline.measures.ecdf`): hitting times prepared once as arrays, the
simulated restarts of every problem counted where they need no draw, and the step tables summed in one
pass; equal to the Polars definitions there (tests/test_kernels.py).
"""
from __future__ import annotations

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
    #: one row per problem, sorted by fid, target: success fraction (instance-balanced) `rate`, `solved`
    #: (any success), and the function's suite, algorithm, dimension, function
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
        rate = np.add.reduceat(w * success, first) / np.add.reduceat(w, first)
        solved = np.maximum.reduceat(success, first)
    else:
        rate, solved = np.zeros(0), np.zeros(0, bool)
    problems = pl.DataFrame({"fid": f[first], "target": target[first], "rate": rate, "solved": solved},
                            schema={"fid": pl.UInt32, "target": pl.Float64, "rate": pl.Float64, "solved": pl.Boolean})
    return Prepared(trials, funcs, problems.join(funcs, on="fid", how="left", maintain_order="left"))


def prepare_trials(hits: pl.DataFrame | Prepared) -> Prepared:
    """An eager frame of hitting times prepared (or as given, when it is already)."""
    return hits if isinstance(hits, Prepared) else _prepare(hits)


def _trial_order(trials: pl.DataFrame) -> np.ndarray:
    """The order by fid, target, trial (run_id where trial numbers repeat)."""
    rid = trials["run_id"].to_numpy()
    return restarts.trial_order(trials["fid"].to_numpy(), trials["target"].to_numpy(), trials["trial"].to_numpy(),
                                rid, run=rid)


def trial_atoms(trials: pl.DataFrame) -> pl.DataFrame:
    """The trials' own hitting times, each weighing its share of the problem's (balanced) trials."""
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
    (fid, value, mass) where there are any."""
    empty = pl.DataFrame(schema={"fid": pl.UInt32, "value": pl.Float64, "mass": pl.Float64})
    if not data.trials.height:
        return empty
    parts = []
    for b in _blocks(data, samples, seed):
        sg, rt = restarts.simulate(b.gid, b.cost, b.success, len(b.keys), b.size, b.rng, first_deterministic=True)
        per = np.bincount(sg, minlength=len(b.keys))  # samples drawn per problem (a multiple of its trials)
        parts.append((b.keys[sg], rt, 1.0 / per[sg]))
    return tuple(np.concatenate(x) for x in zip(*parts))


class Counted(NamedTuple):
    """Atoms of equal mass per function given as (fid, value, count): `count` atoms of mass
    `mass[fid]` each, as many as `simulated_atoms` draws (a problem whose trials all succeed draws
    its trials, each size / n times: counted, not drawn)."""

    fid: np.ndarray
    value: np.ndarray
    count: np.ndarray
    mass: np.ndarray


def simulated_counts(data: Prepared, samples: int, seed: int) -> Counted:
    """`simulated_atoms` counted: the same generators draw the same restarts (only problems with an
    unsuccessful trial draw anything), the samples of problems whose trials all succeed are counted."""
    fids, values, counts = [np.zeros(0, np.int64)], [np.zeros(0)], [np.zeros(0, np.int64)]
    mass = np.zeros(data.funcs.height)
    if not data.trials.height:
        return Counted(fids[0], values[0], counts[0], mass)
    for keys, gid, cost, success, n, size, rng in _blocks(data, samples, seed):
        nsucc = np.bincount(gid, weights=success, minlength=len(keys))
        per = (np.ceil(size / np.maximum(n, 1)) * n).astype(np.int64)  # samples per problem, as `simulate`
        mass[keys[nsucc > 0]] = 1.0 / per[nsucc > 0]
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
    return Counted(np.concatenate(fids), np.concatenate(values), np.concatenate(counts), mass)


def equal_sums(count: np.ndarray, mass: np.ndarray) -> np.ndarray:
    """`np.add.reduceat` over `count` copies of `mass`, element by element: the sum `_steps` gives
    `count` merged atoms of equal mass (the same additions, in the same order)."""
    out = np.empty(len(count))
    for m in np.unique(mass):
        at = np.flatnonzero(mass == m)
        ks, inv = np.unique(count[at], return_inverse=True)
        sums = np.add.reduceat(np.full(int(ks.sum()), m), np.cumsum(ks) - ks)
        out[at] = sums[inv.ravel()]
    return out


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


def step_table(atoms: pl.DataFrame | tuple[np.ndarray, ...], data: Prepared, members: pl.DataFrame, limits: pl.DataFrame
           ) -> pl.DataFrame:
    """Cumulative fractions per (suite, algorithm, dimension, group) from atoms (fid, value, mass; a
    frame or arrays):
    each problem weighs 1 / (problems in the group); one row per distinct x <= max_x."""
    n = data.problems.group_by("fid").agg(n=pl.len())
    funcs = data.funcs.join(n, on="fid", how="left").join(limits, on=ALGORITHM_DIMENSION, how="left").sort("fid")
    link = funcs.join(members, on=["suite", "function"])
    cells = (link.group_by(*ALGORITHM_DIMENSION, "group").agg(n=pl.col("n").sum()).sort(*ALGORITHM_DIMENSION, "group")
             .with_row_index("cell"))
    link = link.join(cells.select(*ALGORITHM_DIMENSION, "group", "cell"), on=[*ALGORITHM_DIMENSION, "group"]).sort("cell", "fid")
    dim, lim = funcs["dimension"].to_numpy().astype(float), funcs["max_x"].to_numpy()
    if isinstance(atoms, Counted):  # equal masses per function: one atom per (function, x), counted
        fid = atoms.fid.astype(np.int64)
        x = atoms.value / dim[fid]
        keep = (x <= lim[fid]) & (atoms.mass[fid] > 0)
        fid, x, count = fid[keep], x[keep], atoms.count[keep]
        # by function (one stable integer sort), then each function's atoms by x alone (tied x of a function:
        # their counts add up, in any order)
        order = np.argsort(fid.astype(np.uint16) if funcs.height < 2 ** 16 else fid, kind="stable")
        fid, x = fid[order], x[order]
        bounds = np.r_[0, np.flatnonzero(fid[1:] != fid[:-1]) + 1, len(fid)].tolist()
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            by_x = np.argsort(x[lo:hi])
            x[lo:hi], order[lo:hi] = x[lo:hi][by_x], order[lo:hi][by_x]
        count = count[order]
        if len(x):
            first = np.flatnonzero(np.r_[True, (fid[1:] != fid[:-1]) | (x[1:] != x[:-1])])
            fid, x = fid[first], x[first]
            mass = equal_sums(np.add.reduceat(count, first), atoms.mass[fid])
        else:
            mass = np.zeros(0)
    else:
        if isinstance(atoms, pl.DataFrame):
            atoms = atoms["fid"].to_numpy(), atoms["value"].to_numpy(), atoms["mass"].to_numpy()
        fid, value, mass = atoms
        fid = fid.astype(np.int64)
        x = value / dim[fid]
        keep = (x <= lim[fid]) & (mass > 0)
        fid, x, mass = _sorted_by(fid[keep], x[keep], mass[keep])
        if len(x):  # one atom per (function, x)
            first = np.flatnonzero(np.r_[True, (fid[1:] != fid[:-1]) | (x[1:] != x[:-1])])
            fid, x, mass = fid[first], x[first], np.add.reduceat(mass, first)
    # every atom of a function once for each group the function is in: per group, the functions' atoms
    # one after the other in function order, then sorted by x (ties in function order)
    f_start = np.searchsorted(fid, np.arange(funcs.height))
    f_len = np.searchsorted(fid, np.arange(funcs.height), side="right") - f_start
    lf, lc = link["fid"].to_numpy().astype(np.int64), link["cell"].to_numpy().astype(np.int64)
    take = (np.repeat(f_start[lf], f_len[lf])
            + (np.arange(f_len[lf].sum()) - np.repeat(np.cumsum(f_len[lf]) - f_len[lf], f_len[lf])))
    cell, x, mass = _sorted_by(np.repeat(lc, f_len[lf]), x[take], mass[take])
    # one row per (cell, x)
    change = np.r_[True, (cell[1:] != cell[:-1]) | (x[1:] != x[:-1])] if len(x) else np.zeros(0, bool)
    first = np.flatnonzero(change)
    mass = np.add.reduceat(mass, first) if len(first) else mass
    cell, x = cell[first], x[first]
    # cumulative per group on its own, so that a group's fractions do not depend on what else is selected
    bounds = np.r_[np.flatnonzero(np.r_[True, cell[1:] != cell[:-1]]), len(cell)] if len(cell) else np.zeros(1, np.int64)
    cum = np.concatenate([np.cumsum(mass[lo:hi]) for lo, hi in zip(bounds[:-1], bounds[1:])]) if len(cell) else mass
    n = cells["n"].to_numpy().astype(float)
    fraction = np.minimum(cum / n[cell], 1.0)
    out = cells.select(*ALGORITHM_DIMENSION, "group")[cell].with_columns(x=pl.Series(x, dtype=pl.Float64),
                                                         fraction=pl.Series(fraction, dtype=pl.Float64))
    return out


def summary_frame(data: Prepared, members: pl.DataFrame, limits: pl.DataFrame) -> pl.DataFrame:
    """`ecdf.summary_table` of prepared hitting times, given the group `members` and the plotted `limits`."""
    per_problem = data.problems.join(members, on=["suite", "function"], maintain_order="left").group_by(
        *ALGORITHM_DIMENSION, "group").agg(
        final_fraction=pl.col("rate").mean(), solvable_fraction=pl.col("solved").mean(),
        functions=pl.col("function").n_unique(),
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
