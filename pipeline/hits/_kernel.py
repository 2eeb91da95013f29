"""The fast path of `pipeline.hits.spec.hitting_times` (private): numpy sorts and binary searches.

The store's cache (`pipeline.hits.cache`) computes the first hits of all trials of a source against
the standard targets at once. `first_hits` gives what `hitting_times` gives (tests/test_hits.py
checks it on random logs): the same steps of the best-so-far precision, the same keys
(`spec.cocopp_keys`) and target levels (`conventions.target_level`), and the same as-of match (the
step with the largest key at or below the level, ties to the later step), found by binary searches
in (run, key) codes instead of a join.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from .. import alignment
from ..conventions import target_level
from .spec import cocopp_keys, dataset_codes


def first_hits(runs: pl.DataFrame, events: pl.DataFrame, targets: dict[str, Sequence[float]], exact: bool = False
               ) -> pl.DataFrame | None:
    """`hitting_times` of every run and each target of its suite, eager: run_id, target, hit (null where
    never reached), the runs in their order in `runs` and each run's targets ascending.

    `runs` has run_id and suite (and the columns of `spec.dataset_columns`, which group the trials as
    cocopp aligns them), `events` run_id, evaluations, best_delta, trigger (records of other runs are
    ignored); None where a value is null or NaN (then `hitting_times` applies)."""
    cols = ["run_id", "evaluations", "best_delta", "trigger"]
    if any(events[c].null_count() for c in cols) or runs["run_id"].null_count() or runs["suite"].null_count():
        return None
    if not exact:
        events = events.filter((pl.col("trigger") & 1) == 1)
    best = events["best_delta"].to_numpy()
    if np.isnan(best).any() or runs["run_id"].is_duplicated().any():
        return None
    ids = runs["run_id"].to_numpy()
    # each record's run as its position in `runs`, records sorted by run and evaluations
    run, evals, best = _by_run(ids, events["run_id"].to_numpy(), events["evaluations"].to_numpy(), best)
    aligned = np.zeros(len(run), bool)
    if not exact and len(run) and (best[1:] > best[:-1])[run[1:] == run[:-1]].any():  # a .dat precision may rise
        order = np.lexsort((-best, evals, run))  # as the store has them: the larger precision first at one count
        run, evals, best = run[order], evals[order], best[order]
        codes = dataset_codes(runs)
        best, aligned = alignment.read_records(codes["dataset"].to_numpy()[run], run, best,
                                               codes["points"].to_numpy()[run])
    new_run = np.r_[True, run[1:] != run[:-1]] if len(run) else np.zeros(0, bool)
    best = running_min(best, new_run)
    step = new_run | np.r_[False, best[1:] < best[:-1]]
    steps = pl.DataFrame({"run": run[step], "best": best[step], "hit": evals[step], "aligned": aligned[step]})
    if exact:
        key = steps["best"].to_numpy()
    else:
        key = cocopp_keys(steps.with_columns(run_id=steps["run"], suite=runs["suite"].gather(steps["run"]))).to_numpy()
    step_run, step_hit = steps["run"].to_numpy(), steps["hit"].to_numpy()
    suites = runs["suite"].to_numpy()
    levels = {}
    for s in np.unique(suites):
        ts = np.sort(np.asarray(targets[s], float))
        levels[s] = ts, ts if exact else pl.DataFrame({"t": ts}).select(target_level(pl.col("t")))["t"].to_numpy()
    decreasing = np.all(np.r_[True, step_run[1:] != step_run[:-1]][1:] | (key[1:] < key[:-1]))
    match = _asof_decreasing if decreasing else _asof_ranked
    parts = match(step_run, key, step_hit, suites, levels)
    if parts:
        pair_run, pair_target, pair_hit, pair_reached = (np.concatenate(x) for x in zip(*parts))
    else:
        pair_run = pair_target = pair_hit = pair_reached = np.zeros(0, np.int64)
    order = np.lexsort((pair_target, pair_run)) if len(parts) > 1 else slice(None)
    out = pl.DataFrame({"run_id": ids[pair_run[order]], "target": pair_target[order], "hit": pair_hit[order],
                        "reached": pair_reached[order]},
                       schema={"run_id": pl.Int64, "target": pl.Float64, "hit": pl.Int64, "reached": pl.Boolean})
    return out.select("run_id", "target", hit=pl.when("reached").then("hit"))


def _by_run(ids: np.ndarray, record_run: np.ndarray, evals: np.ndarray, best: np.ndarray
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The records of the runs `ids` as (run, evaluations, best): `run` the position of the record's run
    in `ids` (records of other runs left out), sorted by run, then evaluations (stably)."""
    by_id = np.argsort(ids, kind="stable")
    at = np.minimum(np.searchsorted(ids[by_id], record_run), max(len(ids) - 1, 0))
    known = (ids[by_id][at] == record_run) if len(ids) else np.zeros(len(record_run), bool)
    run, evals, best = by_id[at[known]], evals[known], best[known]

    def in_order(run: np.ndarray, evals: np.ndarray) -> bool:
        return bool(np.all((run[1:] > run[:-1]) | ((run[1:] == run[:-1]) & (evals[1:] >= evals[:-1]))))

    if len(run) and not in_order(run, evals):  # by run (one stable integer sort), else by run and evaluations
        order = np.argsort(run.astype(np.uint16) if len(ids) < 2 ** 16 else run, kind="stable")
        if not in_order(run[order], evals[order]):
            order = np.lexsort((evals, run))
        run, evals, best = run[order], evals[order], best[order]
    return run, evals, best


def _asof_decreasing(step_run: np.ndarray, key: np.ndarray, hit: np.ndarray, suites: np.ndarray, levels: dict
                     ) -> list:
    """`first_hits`' as-of match where every run's keys strictly decrease (in order of evaluations, runs
    in order): the step with the largest key at or below a level is the run's first step at or below
    it. A step reaches the levels from j = (levels below its key) on; (run, number of levels - j) is
    sorted, so one binary search per (run, level) finds it. Per suite (run indices, targets, hit, reached)."""
    parts = []
    step_suite = suites[step_run] if len(step_run) else np.zeros(0, suites.dtype)
    for s, (ts, lv) in levels.items():
        width = len(ts) + 1
        runs_of_suite = np.flatnonzero(suites == s)
        mine = step_suite == s
        my_run, my_hit = step_run[mine], hit[mine]
        code = my_run.astype(np.int64) * width + (len(ts) - np.searchsorted(lv, key[mine], side="left"))
        # the levels of every run from the largest down: ascending queries
        query = (np.repeat(runs_of_suite.astype(np.int64) * width, len(ts))
                 + np.tile(np.arange(1, width), len(runs_of_suite)))
        pos = np.searchsorted(code, query, side="left").reshape(len(runs_of_suite), len(ts))[:, ::-1].ravel()
        pair_run = np.repeat(runs_of_suite, len(ts))
        reached = pos < len(code)
        reached[reached] = my_run[pos[reached]] == pair_run[reached]
        got = my_hit[np.minimum(pos, len(my_hit) - 1)] if len(my_hit) else np.zeros(len(pos), np.int64)
        parts.append((pair_run, np.tile(ts, len(runs_of_suite)), np.where(reached, got, 0), reached))
    return parts


def _asof_ranked(step_run: np.ndarray, key: np.ndarray, hit: np.ndarray, suites: np.ndarray, levels: dict) -> list:
    """`first_hits`' as-of match in general: codes (run, rank of key) sorted; the largest code at or below
    (run, rank of level), ties to the later step (as `join_asof`). Per suite as `_asof_decreasing`."""
    values, rank = np.unique(key, return_inverse=True)
    width = len(values) + 1
    code = step_run.astype(np.int64) * width + rank.ravel() + 1
    by_code = np.argsort(code, kind="stable")
    code, step_run, hit = code[by_code], step_run[by_code], hit[by_code]
    parts = []
    for s, (ts, lv) in levels.items():
        runs_of_suite = np.flatnonzero(suites == s)
        pair_run = np.repeat(runs_of_suite, len(ts))
        pos = np.searchsorted(code, pair_run * width + np.tile(np.searchsorted(values, lv, side="right"),
                                                                len(runs_of_suite)), side="right") - 1
        reached = pos >= 0
        reached[reached] = step_run[pos[reached]] == pair_run[reached]
        got = hit[np.maximum(pos, 0)] if len(hit) else np.zeros(len(pos), np.int64)
        parts.append((pair_run, np.tile(ts, len(runs_of_suite)), np.where(reached, got, 0), reached))
    return parts


def running_min(x: np.ndarray, new: np.ndarray, passes: int = 64) -> np.ndarray:
    """The running minimum of `x` within each run (`new` marks a run's first value). Values above
    their predecessor (few: e.g. old loggers' last line) take its value, pass after pass over the
    places that changed (a pass can only make the next value worse than its predecessor; values are
    copied, never computed); a window in polars for what is left after `passes`, or with NaN
    (unless the values only fall)."""
    if np.isnan(x).any():
        if (new[1:] | (np.diff(x) <= 0)).all():
            return x
        passes = 0
    rise = np.flatnonzero(~new[1:] & (x[1:] > x[:-1])) + 1
    if not len(rise) and passes:
        return x
    x = x.copy()
    for _ in range(passes):
        x[rise] = x[rise - 1]
        rise = rise[rise + 1 < len(x)] + 1
        rise = rise[~new[rise]]
        rise = rise[x[rise] > x[rise - 1]]
        if not len(rise):
            return x
    return pl.DataFrame({"b": np.cumsum(new), "x": x}).select(pl.col("x").cum_min().over("b"))["x"].to_numpy()
