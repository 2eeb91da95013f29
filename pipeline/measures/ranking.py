"""Rankings of many algorithms: average rank of per-function auc with the Friedman test, and a
Glicko-2 rating in which trials of two algorithms play games on every (problem, target)
(as IOHanalyzer ranks algorithms; Glickman, "Example of the Glicko-2 system", 2013). Post hoc, the
Nemenyi critical difference of mean ranks and the cliques of a critical-difference diagram
(Demšar, "Statistical comparisons of classifiers over multiple data sets", JMLR 7, 2006).

`glicko2_spec` states the rating in Polars and numpy, one rating period per round from the matrix of
the games' scores (`glicko.period`); `glicko2` computes it with the games of a round counted by sorting
(`pipeline.measures._kernels.glicko2`), equal to the definition up to the volatility's iteration
(tests/test_kernels.py).

Examples
--------
Two algorithms on one problem: "fast" always reaches the target first, so it wins every game.

>>> import polars as pl
>>> from pipeline.measures.ranking import glicko2
>>> hits = pl.LazyFrame({"dimension": 2, "function": 1, "target": 1.0,
...                      "algorithm": ["fast", "fast", "slow", "slow"], "hit": [10, 12, 90, None]})
>>> glicko2(hits, rounds=5).select("algorithm", "rank").rows()
[('fast', 1), ('slow', 2)]
"""
from __future__ import annotations

import numpy as np
import polars as pl

from ._kernels import glicko2 as kernel
from .glicko import SCALE, period
#: significant digits of auc compared when ranking: areas equal but for the order of their sums
#: (polars sums groups in no fixed order; last-digit noise of 1e-14) tie, as they should
AUC_DIGITS = 12


def rank_by_auc(aucs: pl.LazyFrame, by_dimension: bool = True, alpha: float = 0.05) -> pl.DataFrame:
    """Average rank of per-function auc over the functions where every algorithm has data.

    On each problem the algorithms are ranked by auc (rank 1 = largest, ties averaged, areas compared
    to `AUC_DIGITS` significant digits); the score of an algorithm is its mean rank.

    Parameters
    ----------
    aucs : polars.LazyFrame
        suite, algorithm, function, dimension and auc (`auc.auc`).
    by_dimension : bool
        Rank per dimension, or over all (dimension, function) problems.
    alpha : float
        Level of the Nemenyi critical difference.

    Returns
    -------
    polars.DataFrame
        [dimension,] algorithm, rank (1 = best mean rank), score (mean rank), problems, the Friedman
        test's statistic and p-value over those problems (three algorithms or more), and the Nemenyi
        critical difference of mean ranks (two algorithms whose scores differ by more differ
        significantly).

    Examples
    --------
    A has the largest area on both functions; B and C share the other ranks.

    >>> import polars as pl
    >>> aucs = pl.LazyFrame({"suite": "bbob", "dimension": 2, "function": [1, 1, 1, 2, 2, 2],
    ...                      "algorithm": ["A", "B", "C"] * 2, "auc": [0.9, 0.5, 0.4, 0.8, 0.3, 0.6]})
    >>> rank_by_auc(aucs).select("algorithm", "rank", "score").rows()
    [('A', 1, 1.0), ('B', 2, 2.5), ('C', 3, 2.5)]
    """
    from ._kernels.friedman import friedman  # scipy.special, not scipy.stats (0.7 s to load)

    df = aucs.collect().with_columns(pl.col("auc").round_sig_figs(AUC_DIGITS))
    nalg = df["algorithm"].n_unique()
    groups = [df] if not by_dimension else [g for _, g in df.group_by("dimension", maintain_order=True)]
    out = []
    for g in groups:
        full = g.filter(pl.col("algorithm").n_unique().over("suite", "function", "dimension") == nalg)
        if full.height == 0:
            continue
        r = full.with_columns(r=pl.col("auc").rank("average", descending=True).over("suite", "function", "dimension"))
        mean = r.group_by("algorithm").agg(score=pl.col("r").mean(), problems=pl.len()).sort("score", "algorithm")
        stat = p = None
        if nalg >= 3 and mean["problems"][0] >= 2:
            wide = full.pivot(on="algorithm", index=["suite", "function", "dimension"], values="auc")
            stat, p = friedman(np.column_stack([wide[a].to_numpy() for a in mean["algorithm"]]))
        cd = nemenyi_cd(nalg, int(mean["problems"][0]), alpha) if nalg >= 2 else None
        mean = mean.with_columns(rank=pl.int_range(1, pl.len() + 1), friedman_statistic=pl.lit(stat, pl.Float64),
                                 friedman_p=pl.lit(p, pl.Float64), critical_difference=pl.lit(cd, pl.Float64))
        if by_dimension:
            mean = mean.with_columns(dimension=pl.lit(g["dimension"][0]))
        out.append(mean)
    if not out:
        return pl.DataFrame()
    cols = (["dimension"] if by_dimension else []) + ["algorithm", "rank", "score", "problems", "friedman_statistic",
                                                       "friedman_p", "critical_difference"]
    return pl.concat(out).select(cols)


def nemenyi_cd(k: int, n: int, alpha: float = 0.05) -> float:
    """Nemenyi critical difference of mean ranks of k algorithms over n problems (Demšar 2006, sec. 3.2.2).

    q_alpha * sqrt(k (k + 1) / (6 n)), q_alpha the studentized range quantile for k means over sqrt(2).

    Examples
    --------
    >>> round(nemenyi_cd(3, 2), 4)
    2.3437
    """
    from ._kernels.friedman import range_ppf  # scipy.special, not scipy.stats (0.7 s to load)

    q = range_ppf(1 - alpha, k) / np.sqrt(2)
    return float(q * np.sqrt(k * (k + 1) / (6 * n)))


def cliques(ranking: pl.DataFrame) -> pl.DataFrame:
    """The bars of a critical-difference diagram: maximal runs of algorithms (ordered by mean rank)
    whose mean ranks lie within the critical difference of each other.

    Parameters
    ----------
    ranking : polars.DataFrame
        As `rank_by_auc` gives it (per dimension or not).

    Returns
    -------
    polars.DataFrame
        [dimension,] clique, low and high (mean ranks), algorithms (list).
    """
    by = ["dimension"] if "dimension" in ranking.columns else []
    out = []
    for _, g in (ranking.group_by(by, maintain_order=True) if by else [((), ranking)]):
        g = g.sort("score", "algorithm")
        score, names, cd = g["score"].to_numpy(), g["algorithm"].to_list(), g["critical_difference"][0]
        if cd is None:
            continue
        end = np.searchsorted(score, score + cd, side="left") - 1  # last algorithm within cd of each
        last, number = -1, 0
        for i, j in enumerate(end):
            if j > i and j > last:
                number += 1
                out.append({**{c: g[c][0] for c in by}, "clique": number, "low": float(score[i]),
                            "high": float(score[j]), "algorithms": names[i:j + 1]})
                last = j
    schema = {**{c: ranking.schema[c] for c in by}, "clique": pl.Int64, "low": pl.Float64, "high": pl.Float64,
              "algorithms": pl.List(pl.String)}
    return pl.DataFrame(out, schema=schema)


# -- Glicko-2 ratings -------------------------------------------------------------------------------------
def glicko2_spec(hits: pl.LazyFrame, rounds: int = 25, seed: int = 1, by_dimension: bool = True) -> pl.DataFrame:
    """The definition of `glicko2`: games played round by round, one rating period per round.

    Per dimension (or over all), every (function, target) on which two or more algorithms have trials
    is a problem; in each round one trial of each of its algorithms is drawn (an index into the cell's
    runtimes sorted ascending, unsuccessful ones last: floor(u * trials) with u from the generator,
    a (cells x rounds) matrix of them per dimension), and every pair of them plays a game: 1 point to
    the faster, 1/2 each on a tie (two unsuccessful trials tie). The games of one round on all problems
    form one rating period (`glicko.period`). Parameters and Returns as `glicko2`.
    """
    df = hits.select("dimension", "algorithm", "function", "target", "hit").collect()
    algs = sorted(df["algorithm"].unique().to_list())
    k = len(algs)
    rng = np.random.default_rng(seed)
    df = df.with_columns(player=pl.col("algorithm").cast(pl.Enum(algs)).to_physical().cast(pl.Int64),
                         runtime=pl.col("hit").cast(pl.Float64).fill_null(np.inf))
    out = []
    for dimension in (sorted(df["dimension"].unique().to_list()) if by_dimension else [None]):
        part = df if dimension is None else df.filter(pl.col("dimension") == dimension)
        cells = (part.group_by("function", "target", "player").agg(pl.col("runtime").sort())
                 .sort("function", "target", "player").filter(pl.len().over("function", "target") >= 2)
                 .with_columns(problem=pl.struct("function", "target").rle_id()))
        u = rng.random((cells.height, rounds))
        picks = (u * cells["runtime"].list.len().to_numpy()[:, None]).astype(np.int64)
        picked = pl.Series(picks.tolist(), dtype=pl.List(pl.Int64))
        drawn = cells.select("problem", "player", pl.col("runtime").list.gather(picked).alias("t"))
        games = drawn.join(drawn, on="problem", suffix="_b").filter(pl.col("player") != pl.col("player_b"))
        played = np.zeros((k, k))
        np.add.at(played, (games["player"].to_numpy(), games["player_b"].to_numpy()), 1)
        mu, phi, sigma = np.zeros(k), np.full(k, 350 / SCALE), np.full(k, 0.06)
        for r in range(rounds):
            t, t_b = games["t"].list.get(r).to_numpy(), games["t_b"].list.get(r).to_numpy()
            score = np.zeros((k, k))
            np.add.at(score, (games["player"].to_numpy(), games["player_b"].to_numpy()), (t < t_b) + 0.5 * (t == t_b))
            mu, phi, sigma = period(mu, phi, sigma, score, played)
        frame = pl.DataFrame({"algorithm": algs, "score": 1500 + SCALE * mu, "deviation": SCALE * phi,
                              "volatility": sigma}).sort("score", descending=True).with_columns(
            rank=pl.int_range(1, k + 1))
        out.append(frame.with_columns(dimension=pl.lit(dimension)) if by_dimension else frame)
    cols = (["dimension"] if by_dimension else []) + ["algorithm", "rank", "score", "deviation", "volatility"]
    return pl.concat(out).select(cols) if out else pl.DataFrame()


def glicko2(hits: pl.LazyFrame, rounds: int = 25, seed: int = 1, by_dimension: bool = True) -> pl.DataFrame:
    """Glicko-2 ratings of the algorithms as IOHanalyzer computes them (`glicko2_spec` states the games).

    One rating period per round of games on all problems: a period per problem instead lets the
    volatility run away with many algorithms (an algorithm that wins where it usually loses looks
    erratic, and with ~k games per period the ratings diverge).

    Parameters
    ----------
    hits : polars.LazyFrame
        First hitting times: dimension, algorithm, function, target, hit (null where not reached).
    rounds : int
        Rounds of games (rating periods).
    seed : int
        Seed of the draws (one generator, dimension after dimension).
    by_dimension : bool
        Rate per dimension, or over all problems of every dimension.

    Returns
    -------
    polars.DataFrame
        [dimension,] algorithm, rank (1: the highest rating), score (the rating), deviation and
        volatility, by rank.
    """
    return kernel.ratings(hits, rounds, seed, by_dimension)
