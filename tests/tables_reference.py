"""Per-trial reference implementations the vectorised aRT-table tests are held to (one run, one
pair at a time, as cocopp computes them): `Trajectories` (best precision after a number of
evaluations), `Trials` and `trial_groups` (the trials of each algorithm per problem and target)."""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from pipeline.vocabulary import TABLE_CELL


class Trajectories:
    """Best precision of each run after a number of evaluations, from its budget-triggered (.tdat)
    records, as cocopp's `DataSet.funvals` (runs without any .tdat record use all records); one run
    at a time: the reference the tests hold the vectorised `pipeline.measures._kernels.ranksum.precision_at` to."""

    def __init__(self, events: pl.LazyFrame):
        self._events = events
        self.span = None

    def _load(self) -> None:
        ev = self._events.select("run_id", "evaluations", "best_delta", "trigger")
        has_t = ev.group_by("run_id").agg(has_t=((pl.col("trigger") & 2) != 0).any())
        df = (
            ev.join(has_t, on="run_id").filter(~pl.col("has_t") | ((pl.col("trigger") & 2) != 0))
            .sort("run_id", "evaluations")
            .with_columns(best=pl.col("best_delta").cum_min().over("run_id"))
            .select("run_id", "evaluations", "best").collect()
        )
        self.evals = df["evaluations"].to_numpy().astype(float)
        self.best = df["best"].to_numpy().astype(float)
        ids = df["run_id"].to_numpy()
        starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]]) if len(ids) else np.array([], int)
        ends = np.r_[starts[1:], len(ids)]
        self.span = {int(ids[s]): (int(s), int(e)) for s, e in zip(starts, ends)}

    def at(self, run_ids: Sequence[int], fe: float) -> np.ndarray:
        """Best precision of each run after `fe` evaluations (inf before its first record)."""
        if self.span is None:
            self._load()
        out = np.full(len(run_ids), np.inf)
        for i, r in enumerate(run_ids):
            s, e = self.span.get(int(r), (0, 0))
            k = int(np.searchsorted(self.evals[s:e], fe, side="right")) - 1
            if k >= 0:
                out[i] = self.best[s + k]
        return out


@dataclass
class Trials:
    """The trials of one algorithm on one (problem, target)."""

    run_ids: np.ndarray
    hit: np.ndarray  # NaN where not reached
    evals: np.ndarray

    def prec(self, traj: Trajectories):
        return lambda fe: traj.at(self.run_ids, fe)


def trial_groups(hits: pl.DataFrame) -> Iterator[tuple[tuple, dict[str, Trials]]]:
    """((suite, dimension, function, target), {algorithm: Trials}) for every problem and target."""
    g = (
        hits.sort("trial", "run_id")
        .group_by(*TABLE_CELL, "target", "algorithm", maintain_order=True)
        .agg("run_id", pl.col("hit").cast(pl.Float64), pl.col("evaluations").cast(pl.Float64))
        .sort(*TABLE_CELL, "target", "algorithm")
    )
    cur, group = None, {}
    for row in g.iter_rows(named=True):
        key = (row["suite"], row["dimension"], row["function"], row["target"])
        if key != cur:
            if cur is not None:
                yield cur, group
            cur, group = key, {}
        group[row["algorithm"]] = Trials(np.asarray(row["run_id"]),
                                         np.array([np.nan if h is None else h for h in row["hit"]], float),
                                         np.asarray(row["evaluations"], float))
    if cur is not None:
        yield cur, group
