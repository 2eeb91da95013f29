"""Fast path of the Glicko-2 ratings (`pipeline.measures.ranking.glicko2`): every cell's trials sorted once
as integer keys, each round's games counted from one sort of the draws of every problem, the dimensions
rated on two threads; equal to `ranking.glicko2_spec` (tests/test_kernels.py, tests/test_analyses.py).
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import polars as pl

from ..glicko import SCALE, update

def round_wins(codes: np.ndarray, players: np.ndarray, row: np.ndarray, flat: np.ndarray,
                shape: tuple[int, int], w: np.ndarray, k: int) -> np.ndarray:
    """For each of k players i: the sum over problems (rows) and other players j of the row of
    w_j ([t_j > t_i] + [t_j = t_i] / 2), the draws t given as integer codes that order and tie as
    the runtimes (one per player present: `codes`, `players`, their problem `row` and place `flat`
    in the row-major (problems x width) layout, each row's players ascending from the left). Each
    row's draws sorted as integer keys (code, player), the rest of the row after them, instead of
    comparing every pair; the weights summed in that layout, row by row in order."""
    nprob, width = shape
    if len(codes) == 0:
        return np.zeros(k)
    bits = int(k).bit_length()  # a player (or k, the padding) in the low bits of a key
    top = int(codes.max(initial=0)) + 1  # the padding's code, after every draw
    if top >= 1 << (62 - bits):  # no room for one key: ranks of the codes
        codes = np.unique(codes, return_inverse=True)[1].reshape(-1)
        top = int(codes.max(initial=0)) + 1
    keys = np.full(nprob * width, (top << bits) | k, np.int64)
    keys[flat] = (codes << bits) | players
    keys = keys.reshape(nprob, width)
    keys.sort(axis=1)
    ps = keys & ((1 << bits) - 1)
    ws = np.append(np.asarray(w, float), 0.0)[ps]  # the weights in sorted order, 0 for the padding
    cum = np.cumsum(ws, axis=1)
    keys >>= bits  # the codes
    new = np.empty((nprob, width), bool)  # first of a block of equal draws
    new[:, 0] = True
    np.not_equal(keys[:, 1:], keys[:, :-1], out=new[:, 1:])
    last = np.empty((nprob, width), bool)  # last of a block
    last[:, -1] = True
    last[:, :-1] = new[:, 1:]
    pos = np.arange(nprob * width)
    c = cum.ravel()
    end = np.minimum.accumulate(np.where(last.ravel(), pos, pos.size)[::-1])[::-1]  # each block's last place
    start = np.maximum.accumulate(np.where(new.ravel(), pos, 0))  # and first
    end_c = c[end].reshape(nprob, width)
    start_c = np.where(start % width == 0, 0.0, c[start - 1]).reshape(nprob, width)  # weight sorted before the block
    per = (cum[:, -1:] - end_c) + 0.5 * (end_c - start_c - ws)
    return np.bincount(ps.ravel(), weights=per.ravel(), minlength=k + 1)[:k]


def round_period(mu, phi, sigma, wins, pairs, tau=0.5):
    """One rating period from the games of one round on every problem: `wins[i]` = sum over the
    problems and opponents j of g(phi_j) s_ij, `pairs[i, j]` = the number of problems i and j both
    played (the games between them). Equal to `glicko.period` with score[i, j] = sum of s_ij and
    games = pairs, without the k x k score matrix."""
    with np.errstate(over="ignore", invalid="ignore"):
        g = 1 / np.sqrt(1 + 3 * phi ** 2 / np.pi ** 2)
        e = 1 / (1 + np.exp(-g[None, :] * (mu[:, None] - mu[None, :])))
        played = pairs.sum(axis=1) > 0
        vinv = (pairs * g[None, :] ** 2 * e * (1 - e)).sum(axis=1)
        delta_sum = wins - (pairs * g[None, :] * e).sum(axis=1)
        return update(mu, phi, sigma, played, vinv, delta_sum, tau)


def _codes(values: pl.Series) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values (ascending) and each value's index among them (counted and looked up
    for small non-negative integers, else a binary search)."""
    v = values.to_numpy()
    if values.dtype.is_integer() and len(v) and not values.has_nulls() and 0 <= v.min() and v.max() < 1 << 16:
        present = np.bincount(v) > 0
        lut = np.cumsum(present) - 1
        return np.flatnonzero(present).astype(v.dtype), lut[v]
    distinct = values.unique().sort().to_numpy()
    return distinct, np.searchsorted(distinct, v)


def _names(values: pl.Series) -> tuple[list[str], np.ndarray]:
    """The distinct names (sorted) and each value's index among them: from the runs of equal
    values when there are few (rows grouped by algorithm, as the store gives them), else by an Enum."""
    runs = values.rle()
    if len(runs) * 8 > len(values):
        names = sorted(values.unique().to_list())
        return names, values.cast(pl.Enum(names)).to_physical().to_numpy()
    first = runs.struct.field("value").to_list()
    names = sorted(set(first))
    index = {x: i for i, x in enumerate(names)}
    return names, np.repeat(np.array([index[x] for x in first], np.uint32), runs.struct.field("len").to_numpy())


def _sorted_cells(df: pl.DataFrame, algs: list[str], a: np.ndarray, by_dimension: bool):
    """The trials of every (dimension, function, target, algorithm) cell, their runtimes sorted
    ascending, cells in that order: (dimension of each cell or None, function-target key,
    algorithm index, count, start of each cell in the runtimes, runtimes), `a` the index in `algs`
    of each row's algorithm. A runtime is kept as an
    integer code that orders and ties as the runtime itself (the evaluations; unsuccessful trials
    after every success, all equal), so that cell and runtime make one integer key (the cell in the
    high bits): one sort of those keys (no argsort, no gathers) instead of sorting all trials by
    five columns."""
    k = len(algs)
    dims, d = _codes(df["dimension"]) if by_dimension else (np.array([None]), np.zeros(df.height, np.int64))
    funcs, f = _codes(df["function"])
    targets, g = _codes(df["target"])
    hit = df["hit"]
    if hit.dtype.is_integer() and (hit.len() == 0 or hit.min() is None or hit.min() >= 0):
        top = int(hit.max() or 0) + 1  # unsuccessful: one past the largest runtime
        t = hit.fill_null(top).to_numpy().astype(np.int64, copy=False)
    else:  # runtimes of any kind: their dense ranks
        _, t = np.unique(hit.cast(pl.Float64).fill_null(np.inf).to_numpy(), return_inverse=True)
        t = t.reshape(-1).astype(np.int64)
        top = int(t.max(initial=0))
    bits = top.bit_length()  # runtimes in the low bits
    key = d * len(funcs)  # the cell, built in place
    key += f
    key *= len(targets)
    key += g
    key *= k
    key += a
    if len(key) and int(key.max()) >= (1 << 62) >> bits:  # no room for one key: ranks of the runtimes
        _, t = np.unique(t, return_inverse=True)
        t = t.reshape(-1).astype(np.int64)
        bits = int(t.max(initial=0)).bit_length()
    key <<= bits
    key |= t
    del t
    key.sort()
    runtime = key & ((1 << bits) - 1)
    cell = key
    cell >>= bits
    starts = np.flatnonzero(np.r_[True, cell[1:] != cell[:-1]]) if len(cell) else np.zeros(0, np.int64)
    counts = np.diff(np.append(starts, len(cell)))
    key = cell[starts]
    return dims[key // (k * len(funcs) * len(targets))], key // k, key % k, counts, starts, runtime


def ratings(hits: pl.LazyFrame, rounds: int = 25, seed: int = 1, by_dimension: bool = True) -> pl.DataFrame:
    """`ranking.glicko2`: the same draws from the generator (dimension after dimension, problem after problem
    in (function, target) order, algorithm after algorithm, all rounds of a cell at once, each draw an
    index into the cell's runtimes sorted ascending); each round sorts the draws of each problem (one row
    per problem) to count the games (`round_wins`); the dimensions are rated on two threads."""
    df = hits.select("dimension", "algorithm", "function", "target", "hit").collect()
    algs, a = _names(df["algorithm"])
    k = len(algs)
    rng = np.random.default_rng(seed)
    cell_dim, cell_prob, cell_alg, counts, cell_start, runtimes = _sorted_cells(df, algs, a, by_dimension)
    del df
    bounds = np.flatnonzero(np.r_[True, cell_dim[1:] != cell_dim[:-1], True]) if len(cell_dim) else [0]

    def rate(lo: int, hi: int, kept: np.ndarray, u: np.ndarray, layout) -> pl.DataFrame:
        """The rounds of one dimension (cells lo:hi) from its uniform draws `u` (cells x rounds)."""
        row, flat, shape, pairs = layout
        u *= counts[lo:hi][kept, None]
        picks = u.astype(np.int64)  # each draw's index among its cell's runtimes (in place: few large arrays)
        del u
        picks += cell_start[lo:hi][kept, None]
        drawn = runtimes[picks]  # a column per round
        del picks
        if shape[0] * (int(drawn.max(initial=0)) + 1) * (k + 1) >= 1 << 62:  # no room for one key: ranks
            drawn = np.unique(drawn, return_inverse=True)[1].reshape(drawn.shape)
        players = cell_alg[lo:hi][kept]
        mu, phi, sigma = np.zeros(k), np.full(k, 350 / SCALE), np.full(k, 0.06)
        for r in range(rounds):  # one rating period per round
            g = 1 / np.sqrt(1 + 3 * phi ** 2 / np.pi ** 2)
            wins = round_wins(drawn[:, r], players, row, flat, shape, g, k)
            mu, phi, sigma = round_period(mu, phi, sigma, wins, pairs)
        rating = 1500 + SCALE * mu
        frame = pl.DataFrame({"algorithm": algs, "score": rating, "deviation": SCALE * phi, "volatility": sigma})
        frame = frame.sort("score", descending=True).with_columns(rank=pl.int_range(1, k + 1))
        if by_dimension:
            frame = frame.with_columns(dimension=pl.lit(None if cell_dim[lo] is None else int(cell_dim[lo])))
        return frame

    # the draws made here in order, dimension after dimension; the dimensions rated on two threads
    # (numpy lets go of the GIL in the rounds' sorts and sums)
    with ThreadPoolExecutor(min(2, os.cpu_count() or 1)) as pool:
        jobs = []
        for lo, hi in zip(bounds[:-1], bounds[1:]):  # dimensions in ascending order
            prob = cell_prob[lo:hi]
            first = np.flatnonzero(np.r_[True, prob[1:] != prob[:-1]])
            size = np.diff(np.append(first, len(prob)))  # algorithms per problem
            kept = np.flatnonzero(np.repeat(size, size) >= 2)  # cells of problems with a game
            size = size[size >= 2]
            row = np.repeat(np.arange(len(size)), size)  # problem of each kept cell
            col = np.arange(len(kept)) - np.repeat(np.cumsum(size) - size, size)
            nprob, width = len(size), int(size.max()) if len(size) else 0
            presence = np.zeros((nprob, k))
            presence[row, cell_alg[lo:hi][kept]] = 1
            pairs = presence.T @ presence  # problems both algorithms played: their games per round
            np.fill_diagonal(pairs, 0)
            if len(jobs) >= 2:  # at most three dimensions' draws held at once
                jobs[-2].result()
            u = rng.random((len(kept), rounds))
            jobs.append(pool.submit(rate, lo, hi, kept, u, (row, row * width + col, (nprob, width), pairs)))
        out = [j.result() for j in jobs]
    cols = (["dimension"] if by_dimension else []) + ["algorithm", "rank", "score", "deviation", "volatility"]
    return pl.concat(out).select(cols) if out else pl.DataFrame()
