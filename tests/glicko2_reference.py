"""The Glicko-2 rating as first written (one numpy call per problem and round), kept verbatim as the
reference that the vectorised `pipeline.measures.ranking.glicko2` must reproduce (tests/test_analyses.py)."""
from __future__ import annotations

import numpy as np
import polars as pl

from pipeline.measures._kernels.glicko2 import round_period as _round_period
from pipeline.measures.glicko import SCALE


def _weighted_wins(d: np.ndarray, w: np.ndarray) -> np.ndarray:
    """For each player i: sum over rounds r and other players j of w_j ([d_jr > d_ir] + [d_jr = d_ir] / 2),
    from one sort per round (instead of comparing every pair in every round)."""
    k, rounds = d.shape
    order = np.argsort(d.T, axis=1, kind="stable")  # rounds x k
    sv = np.take_along_axis(d.T, order, axis=1)
    ws = w[order]
    cum = np.cumsum(ws, axis=1)
    new = np.ones((rounds, k), bool)
    new[:, 1:] = sv[:, 1:] != sv[:, :-1]
    flat = new.ravel()
    starts = np.flatnonzero(flat)
    block = np.cumsum(flat) - 1
    ends = np.r_[starts[1:], flat.size] - 1
    c = cum.ravel()
    before = np.where(starts % k == 0, 0.0, c[starts - 1])  # weight sorted before the block, in its round
    end_c, start_c = c[ends[block]], before[block]
    total = np.repeat(cum[:, -1], k)
    per = (total - end_c) + 0.5 * (end_c - start_c - ws.ravel())
    out = np.zeros(k)
    np.add.at(out, order.ravel(), per)
    return out


def glicko2_reference(hits: pl.LazyFrame, rounds: int = 25, seed: int = 1, by_dimension: bool = True) -> pl.DataFrame:
    """Glicko-2 ratings as IOHanalyzer computes them: in each of `rounds` rounds, on every (function,
    dimension, target), one trial of each algorithm is drawn and every pair of algorithms plays a game
    won by the faster trial (unsuccessful trials lose to successful ones; two unsuccessful or equal
    trials draw); the games of one round on all problems form one rating period. (A period per
    problem instead lets the volatility run away with many algorithms: an algorithm that wins where it
    usually loses looks erratic, and with ~k games per period the ratings diverge.)
    Columns: [dimension,] algorithm, rank, score (rating), deviation, volatility."""
    df = hits.select("dimension", "algorithm", "function", "target", "hit").collect()
    algs = sorted(df["algorithm"].unique().to_list())
    k = len(algs)
    rng = np.random.default_rng(seed)
    out = []
    parts = df.partition_by("dimension", as_dict=True, maintain_order=True) if by_dimension else {(None,): df}
    for (dim,), part in sorted(parts.items(), key=lambda kv: (kv[0][0] is None, kv[0][0])):
        mu, phi, sigma = np.zeros(k), np.full(k, 350 / SCALE), np.full(k, 0.06)
        part = part.select("function", "target", t=pl.col("hit").cast(pl.Float64).fill_null(np.inf),
                           a=pl.col("algorithm").cast(pl.Enum(algs)).to_physical().cast(pl.Int64))
        part = part.sort("function", "target", "a", "t")  # trials in a fixed order: the draws are reproducible
        fn, tg = part["function"].to_numpy(), part["target"].to_numpy()
        prob = np.cumsum(np.r_[False, (fn[1:] != fn[:-1]) | (tg[1:] != tg[:-1])])  # (function, target) index
        alg, t = part["a"].to_numpy(), part["t"].to_numpy()
        cell = prob * k + alg  # (problem, algorithm) blocks, contiguous after the sort
        bounds = np.flatnonzero(np.diff(cell)) + 1
        starts = np.concatenate([[0], bounds])
        counts = np.diff(np.append(starts, len(cell)))
        cell_prob, cell_alg = prob[starts], alg[starts]
        pstarts = np.concatenate([[0], np.flatnonzero(np.diff(cell_prob)) + 1, [len(cell_prob)]])
        problems = list(zip(pstarts[:-1], pstarts[1:]))
        problems = [(lo, hi) for lo, hi in problems if hi - lo >= 2]
        presence = np.zeros((len(problems), k))
        for n, (lo, hi) in enumerate(problems):
            presence[n, cell_alg[lo:hi]] = 1
        pairs = presence.T @ presence  # problems both algorithms played: their games per round
        np.fill_diagonal(pairs, 0)
        draws = [starts[lo:hi, None] + (rng.random((hi - lo, rounds)) * counts[lo:hi, None]).astype(np.int64)
                 for lo, hi in problems]
        for r in range(rounds):  # one rating period per round
            g = 1 / np.sqrt(1 + 3 * phi ** 2 / np.pi ** 2)
            wins = np.zeros(k)
            for (lo, hi), pick in zip(problems, draws):
                sel = cell_alg[lo:hi]
                wins[sel] += _weighted_wins(t[pick[:, r:r + 1]], g[sel])
            mu, phi, sigma = _round_period(mu, phi, sigma, wins, pairs)
        rating = 1500 + SCALE * mu
        frame = pl.DataFrame({"algorithm": algs, "score": rating, "deviation": SCALE * phi, "volatility": sigma})
        frame = frame.sort("score", descending=True).with_columns(rank=pl.int_range(1, k + 1))
        if by_dimension:
            frame = frame.with_columns(dimension=pl.lit(dim))
        out.append(frame)
    cols = (["dimension"] if by_dimension else []) + ["algorithm", "rank", "score", "deviation", "volatility"]
    return pl.concat(out).select(cols) if out else pl.DataFrame()
