"""Simulated restarts and bootstrapped runtimes (seed 000, "Simulated Restarts and Runtimes",
"Bootstrapping Runtimes").

A simulated run of the conceptual restart algorithm draws trials of one problem (function,
dimension, target) uniformly with replacement until a successful one comes up; its runtime is the
evaluations of the unsuccessful trials drawn plus the hitting time of the successful one. With
`first_deterministic`, sample j starts with trial j mod N (cocopp's `randint_derandomized`), so
with N samples and all trials successful the sample is exactly the trials' runtimes.
"""
from __future__ import annotations

import zlib

import numpy as np
import polars as pl

from .runtime import PROBLEM

GROUP = [*PROBLEM, "target"]


def _rng(seed: int, key: tuple) -> np.random.Generator:
    """A generator seeded by the seed and the group, independent of processing order."""
    return np.random.default_rng([seed, zlib.crc32(repr(key).encode())])


def sample_group(cost: np.ndarray, success: np.ndarray, samples: int, rng: np.random.Generator,
                 first_deterministic: bool = True) -> np.ndarray:
    """Simulated restart runtimes of one problem: `cost` is the hit for successful trials and the
    evaluations for unsuccessful ones. All inf without a success."""
    n = len(cost)
    succ_cost, fail_cost = cost[success], cost[~success]
    if len(succ_cost) == 0:
        return np.full(samples, np.inf)
    first = np.arange(samples) % n if first_deterministic else rng.integers(0, n, samples)
    out = cost[first].astype(float)
    failed = ~success[first]
    m = int(failed.sum())
    if m:
        p = len(succ_cost) / n
        k = rng.geometric(p, m) - 1  # further unsuccessful trials before the successful one
        extra = np.zeros(m)
        if len(fail_cost) and k.any():
            counts = rng.multinomial(k, np.full(len(fail_cost), 1 / len(fail_cost)))
            extra = counts @ fail_cost
        out[failed] += extra + succ_cost[rng.integers(0, len(succ_cost), m)]
    return out


def _groups(hits: pl.DataFrame):
    """Yield (key, cost, success) per problem and target, cost being hit or evaluations."""
    df = hits.select(
        *GROUP, "trial", "success", "weight",
        cost=pl.when(pl.col("success")).then(pl.col("hit")).otherwise(pl.col("evaluations")).cast(pl.Float64),
    ).sort(*GROUP, "trial")
    for key, g in df.group_by(GROUP, maintain_order=True):
        w = g["weight"].to_numpy()
        cost, success = g["cost"].to_numpy(), g["success"].to_numpy()
        if (w != 1).any():  # instance balancing: repeat trials like cocopp's balanced columns
            cost, success = np.repeat(cost, w), np.repeat(success, w)
        yield key, cost, success


def sample_size(n: int, samples: int, first_deterministic: bool) -> int:
    """Smallest multiple of the trial count not below `samples` (with a deterministic first trial)."""
    return int(np.ceil(samples / n) * n) if first_deterministic else samples


def simulated_runtimes(hits: pl.LazyFrame, samples: int = 1000, seed: int = 1,
                       first_deterministic: bool = True) -> pl.LazyFrame:
    """Simulated restart runtimes: one row per (problem, target, sample) with `runtime` (inf when
    no trial succeeded)."""
    def run(df: pl.DataFrame) -> pl.DataFrame:
        keys, vals = [], []
        for key, cost, success in _groups(df):
            s = sample_size(len(cost), samples, first_deterministic)
            vals.append(sample_group(cost, success, s, _rng(seed, key), first_deterministic))
            keys.append((key, s))
        if not keys:
            return pl.DataFrame(schema=_sim_schema(df))
        frame = pl.DataFrame([k for k, _ in keys], schema=GROUP, orient="row", schema_overrides=dict(df.select(GROUP).schema))
        reps = np.array([s for _, s in keys])
        out = frame.select(pl.all().gather(np.repeat(np.arange(len(keys)), reps)))
        return out.with_columns(sample=pl.Series(np.concatenate([np.arange(s) for s in reps]), dtype=pl.Int32),
                                runtime=pl.Series(np.concatenate(vals)))
    schema = _sim_schema_lazy(hits)
    return hits.map_batches(run, schema=schema, streamable=False)


def _sim_schema(df: pl.DataFrame) -> pl.Schema:
    return pl.Schema({**df.select(GROUP).schema, "sample": pl.Int32, "runtime": pl.Float64})


def _sim_schema_lazy(hits: pl.LazyFrame) -> pl.Schema:
    sch = hits.collect_schema()
    return pl.Schema({**{c: sch[c] for c in GROUP}, "sample": pl.Int32, "runtime": pl.Float64})


def art_dispersion(hits: pl.LazyFrame, percentiles: tuple[float, ...] = (10, 50, 90), samples: int = 1000,
                   seed: int = 1, first_deterministic: bool = True) -> pl.LazyFrame:
    """Percentiles of simulated restart runtimes per (problem, target): the aRT dispersion of
    cocopp's tables (`toolsstats.drawSP`), columns `p10`, `p50`, `p90` (null without success)."""
    names = [f"p{int(p) if float(p).is_integer() else p}" for p in percentiles]

    def run(df: pl.DataFrame) -> pl.DataFrame:
        rows = []
        for key, cost, success in _groups(df):
            if not success.any():
                rows.append((*key, *([None] * len(percentiles))))
                continue
            s = sample_size(len(cost), samples, first_deterministic)
            rt = sample_group(cost, success, s, _rng(seed, key), first_deterministic)
            rows.append((*key, *np.percentile(rt, percentiles).tolist()))
        return pl.DataFrame(rows, schema=schema, orient="row")

    sch = hits.collect_schema()
    schema = pl.Schema({**{c: sch[c] for c in GROUP}, **{n: pl.Float64 for n in names}})
    return hits.map_batches(run, schema=schema, streamable=False)
