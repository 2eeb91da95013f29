"""Simulated restarts and bootstrapped runtimes (seed 000, "Simulated Restarts and Runtimes",
"Bootstrapping Runtimes").

A simulated run of the conceptual restart algorithm draws trials of one problem (function,
dimension, target) uniformly with replacement until a successful one comes up; its runtime is the
evaluations of the unsuccessful trials drawn plus the hitting time of the successful one. With
`first_deterministic`, sample j starts with trial j mod N (cocopp's `randint_derandomized`), so
with N samples and all trials successful the sample is exactly the trials' runtimes.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from .runtime import PROBLEM

GROUP = [*PROBLEM, "target"]


def sample_size(n: int, samples: int, first_deterministic: bool) -> int:
    """Smallest multiple of the trial count not below `samples` (with a deterministic first trial)."""
    return int(np.ceil(samples / n) * n) if first_deterministic else samples


def trial_order(group: np.ndarray, target: np.ndarray, trial: np.ndarray, tie: np.ndarray | None = None
                ) -> np.ndarray:
    """The order by group index, target, trial, then `tie` (or the position) where trial numbers repeat,
    as `np.lexsort` gives it: by one integer sort when the three fit in 63 bits."""
    if not len(group):
        return np.zeros(0, np.int64)
    group, trial = group.astype(np.int64), trial.astype(np.int64)
    values = np.unique(pl.Series(target).unique().to_numpy())  # few targets: their index by a binary search
    lo, span = int(trial.min()), int(trial.max()) - int(trial.min()) + 1
    if (int(group.max()) + 1) * len(values) * span < 2 ** 62:
        key = (group * len(values) + np.searchsorted(values, target)) * span + (trial - lo)
        order = np.argsort(key)
        k = key[order]
        if np.all(k[1:] != k[:-1]):
            return order
    return np.lexsort((trial, target, group) if tie is None else (tie, trial, target, group))


def _flat(hits: pl.DataFrame) -> tuple[pl.DataFrame, np.ndarray, np.ndarray, np.ndarray]:
    """Groups (problem, target) in a fixed order, and per trial: group index, cost, success
    (trials repeated by their instance-balancing weight, like cocopp's balanced columns).

    The order is (suite, algorithm, function, dimension, target, trial); the names are sorted once
    per problem (looked up once per trial where `run_id` identifies trials), not per row."""
    df = hits.select(
        *GROUP, "trial", "success", "weight", *(["run_id"] if "run_id" in hits.columns else []),
        cost=pl.when(pl.col("success")).then(pl.col("hit")).otherwise(pl.col("evaluations")).cast(pl.Float64),
    )
    if "run_id" in df.columns:
        runs = df.select("run_id", *PROBLEM).unique("run_id")
        problems = runs.select(PROBLEM).unique().sort(PROBLEM).with_row_index("_p")
        df = df.join(runs.join(problems, on=PROBLEM).select("run_id", "_p"), on="run_id", how="left",
                     maintain_order="left")
    else:
        problems = df.select(PROBLEM).unique().sort(PROBLEM).with_row_index("_p")
        df = df.join(problems, on=PROBLEM, how="left", maintain_order="left")
    p, target = df["_p"].to_numpy(), df["target"].to_numpy()
    order = trial_order(p, target, df["trial"].to_numpy())
    p, target = p[order], target[order]
    first = np.ones(len(order), bool)
    first[1:] = (p[1:] != p[:-1]) | (target[1:] != target[:-1])
    gid = np.cumsum(first) - 1
    keys = df.select(GROUP)[order[first]]
    rep = np.maximum(df["weight"].to_numpy()[order], 1)
    return (keys, np.repeat(gid, rep), np.repeat(df["cost"].to_numpy()[order], rep),
            np.repeat(df["success"].to_numpy()[order], rep))


def simulate(gid: np.ndarray, cost: np.ndarray, success: np.ndarray, ngroups: int, samples: int,
             rng: np.random.Generator, first_deterministic: bool = True, max_draws: int = 4_000_000
             ) -> tuple[np.ndarray, np.ndarray]:
    """Simulated restart runtimes of all groups at once: (group index per sample, runtime).

    Trials must be ordered by group. Sample j of a group starts with trial j mod N (or a random
    one); an unsuccessful start is followed by a geometric number of further unsuccessful trials
    drawn uniformly, then one successful trial drawn uniformly (seed 000).
    """
    n = np.bincount(gid, minlength=ngroups)
    start = np.concatenate([[0], np.cumsum(n)[:-1]])
    nsucc = np.bincount(gid, weights=success, minlength=ngroups).astype(np.int64)
    order = np.lexsort((~success, gid))  # per group: successful trials first
    sorted_cost = cost[order]
    size = np.where(nsucc > 0, (np.ceil(samples / np.maximum(n, 1)) * n).astype(np.int64) if first_deterministic
                    else samples, 0)
    sg = np.repeat(np.arange(ngroups), size)
    if first_deterministic:  # sample j of a group starts with its trial j mod n: whole groups of equal n at once
        first = np.empty(len(sg), np.int64)
        offset = np.cumsum(size) - size
        for m in np.unique(n[size > 0]):
            g = np.flatnonzero((n == m) & (size > 0))
            per = int(size[g[0]])
            first[(offset[g][:, None] + np.arange(per)).ravel()] = (
                start[g][:, None] + np.tile(np.arange(m), per // m)).ravel()
    else:
        first = start[sg] + rng.integers(0, n[sg])
    out = cost[first].astype(float)
    failed = np.flatnonzero(~success[first])
    if len(failed):
        g = sg[failed]
        ns, nf = nsucc[g], n[g] - nsucc[g]
        k = rng.geometric(ns / n[g]) - 1
        pick = start[g] + rng.integers(0, ns)  # a successful trial (they come first in `order`)
        extra = sorted_cost[pick]
        # sums of k uniform draws among the group's unsuccessful trials, in bounded chunks
        cum = np.cumsum(k)
        base = start[g] + ns  # the group's first unsuccessful trial in `order`
        lo = 0
        while lo < len(failed):
            hi = int(np.searchsorted(cum, (cum[lo - 1] if lo else 0) + max_draws, side="right"))
            hi = max(hi, lo + 1)
            kk = k[lo:hi]
            owner = np.repeat(np.arange(lo, hi), kk)
            if len(owner):
                draw = base[owner] + (rng.random(len(owner)) * nf[owner]).astype(np.int64)
                extra[lo:hi] += np.bincount(owner - lo, weights=sorted_cost[draw], minlength=hi - lo)
            lo = hi
        out[failed] += extra
    return sg, out


def group_percentiles(sg: np.ndarray, rt: np.ndarray, ngroups: int, percentiles: Sequence[float]) -> np.ndarray:
    """Percentiles (linear interpolation, as numpy.percentile) of the values `rt` of every group, the
    groups `sg` being contiguous blocks in increasing order: one row per percentile, NaN for an empty
    group. Groups of equal size are sorted together as the rows of one matrix."""
    size = np.bincount(sg, minlength=ngroups)
    start = np.cumsum(size) - size
    out = np.full((len(percentiles), ngroups), np.nan)
    for s in np.unique(size[size > 0]):
        g = np.flatnonzero(size == s)
        block = np.sort(rt[start[g][:, None] + np.arange(s)], axis=1)
        for i, p in enumerate(percentiles):
            pos = p / 100 * (s - 1)
            lo = int(np.floor(pos))
            a, b = block[:, lo], block[:, min(lo + 1, s - 1)]
            out[i, g] = np.where(np.isinf(a) | np.isinf(b), np.maximum(a, b), a + (pos - lo) * (b - a))
    return out


def simulated_runtimes(hits: pl.LazyFrame, samples: int = 1000, seed: int = 1,
                       first_deterministic: bool = True) -> pl.LazyFrame:
    """Simulated restart runtimes: one row per (problem, target, sample) with `runtime`; problems
    without any successful trial give no rows."""
    def run(df: pl.DataFrame) -> pl.DataFrame:
        keys, gid, cost, success = _flat(df)
        sg, rt = simulate(gid, cost, success, keys.height, samples, np.random.default_rng(seed), first_deterministic)
        starts = np.concatenate([[0], np.flatnonzero(np.diff(sg)) + 1]) if len(sg) else np.array([], int)
        sample = np.arange(len(sg)) - np.repeat(starts, np.diff(np.append(starts, len(sg))))
        return keys[sg].with_columns(sample=pl.Series(sample, dtype=pl.Int32), runtime=pl.Series(rt, dtype=pl.Float64))

    sch = hits.collect_schema()
    schema = pl.Schema({**{c: sch[c] for c in GROUP}, "sample": pl.Int32, "runtime": pl.Float64})
    return hits.map_batches(run, schema=schema, streamable=False)


def art_dispersion(hits: pl.LazyFrame, percentiles: tuple[float, ...] = (10, 50, 90), samples: int = 1000,
                   seed: int = 1, first_deterministic: bool = True) -> pl.LazyFrame:
    """Percentiles of simulated restart runtimes per (problem, target): the aRT dispersion of
    cocopp's tables (`toolsstats.drawSP`), columns `p10`, `p50`, `p90` (null without success)."""
    names = [f"p{int(p) if float(p).is_integer() else p}" for p in percentiles]

    def run(df: pl.DataFrame) -> pl.DataFrame:
        keys, gid, cost, success = _flat(df)
        sg, rt = simulate(gid, cost, success, keys.height, samples, np.random.default_rng(seed), first_deterministic)
        values = group_percentiles(sg, rt, keys.height, percentiles)
        return keys.with_columns(pl.Series(name, v).fill_nan(None) for name, v in zip(names, values))

    sch = hits.collect_schema()
    schema = pl.Schema({**{c: sch[c] for c in GROUP}, **{n: pl.Float64 for n in names}})
    return hits.map_batches(run, schema=schema, streamable=False)
