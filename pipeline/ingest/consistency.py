"""Logs that disagree with themselves: a trial's records whose best precision contradicts the others'.

A best-so-far precision never rises, and one evaluation count has one best-so-far value. Logs
written outside COCO's observers (e.g. by distributed runs, several workers writing one trial) may
break both: a .dat or .tdat record above an earlier record of the trial, or the .dat and .tdat
giving two values at one evaluation count. cocopp reads such logs in its own way (the last record
of each file for the final value, `pipeline.alignment` for the hits); the runs table counts them
per trial (`inconsistent_records`) so that a user knows which trials are affected.
"""
from __future__ import annotations

import numpy as np
import polars as pl

from .. import alignment


def inconsistent_records(seq: np.ndarray, evaluations: np.ndarray, best: np.ndarray, trials: int) -> np.ndarray:
    """How many records of each trial (0..trials-1) disagree with its others: a best precision larger
    than that of a record at fewer evaluations, or than another record's at the same evaluations.

    The records of both files come as one stream sorted by trial (`seq`), evaluations, and best
    precision from the largest (records equal in both files once). Int32 counts per trial."""
    counts = np.zeros(trials, np.int32)
    if len(seq) < 2:
        return counts
    same = seq[1:] == seq[:-1]
    tie = same & (evaluations[1:] == evaluations[:-1])  # the larger of two values at one evaluation count
    rise = same & (best[1:] > best[:-1])
    if not (tie.any() or rise.any()):  # consistent logs: one pass
        return counts
    bad = np.r_[tie, False]
    if rise.any():  # against the smallest precision of the earlier records, in the trials that rise
        rows = np.flatnonzero(np.isin(seq, np.unique(seq[1:][rise])))
        prev = (pl.DataFrame({"s": seq[rows], "b": best[rows]})
                .select(pl.col("b").cum_min().shift(1).over("s"))["b"].to_numpy())
        bad[rows] |= best[rows] > np.nan_to_num(prev, nan=np.inf)
    return np.bincount(seq[bad], minlength=trials).astype(np.int32)


def last_values(seq: np.ndarray, best: np.ndarray, mask: np.ndarray, trials: int) -> np.ndarray:
    """Per trial, the best precision of its last record among those in `mask` (NaN where none), the
    records sorted by trial and evaluations."""
    out = np.full(trials, np.nan)
    rows = np.flatnonzero(mask)
    if len(rows):
        s = seq[rows]
        last = rows[np.r_[s[1:] != s[:-1], True]]
        out[seq[last]] = best[last]
    return out


def cocopp_reading(events: pl.DataFrame, trials: pl.DataFrame) -> tuple[pl.DataFrame, np.ndarray]:
    """What cocopp 2.9.1 reads of each trial's records where they may disagree (`pproc.DataSet`).

    `events`: the merged records (seq, evaluations, best_delta, trigger: 1 .dat, 2 .tdat, 3 both),
    sorted as `inconsistent_records` wants them; `trials`: one row per seq with its `key` (data file
    pair * 2^32 + section) and suite. Returns per trial `final_delta`, the smaller best precision of
    the last .dat and the last .tdat record (`finalfunvals`: the smallest of all where the logs never
    rise), and `inconsistent_records`; and per record the precision cocopp reads a hit from: that of
    the .dat records (with the alignment replayed in a data set whose .dat precision rises, see
    `pipeline.alignment`), NaN for .tdat-only records and those cocopp never reads."""
    seq, best = events["seq"].to_numpy(), events["best_delta"].to_numpy()
    trigger, n = events["trigger"].to_numpy(), trials.height
    dat = (trigger & 1) == 1
    final = np.fmin(last_values(seq, best, dat, n), last_values(seq, best, (trigger & 2) == 2, n))
    dataset = (trials["key"] // (1 << 32)).to_numpy()  # the data file: one .info entry
    points = np.where(trials["suite"].str.contains("biobj").to_numpy(), 10, 5)
    s = seq[dat]
    hit_delta = np.full(len(best), np.nan)
    hit_delta[dat] = alignment.read_records(dataset[s], s, best[dat], points[s])[0]
    hit_delta[hit_delta == np.inf] = np.nan  # a record cocopp never reads (reached() counts inf as close to all)
    facts = pl.DataFrame({"final_delta": final,
                          "inconsistent_records": inconsistent_records(seq, events["evaluations"].to_numpy(), best, n)})
    return facts, hit_delta


def note(runs: pl.DataFrame) -> str | None:
    """One line saying how many trials and data sets of a parsed source log records that disagree with
    themselves (None where none do): what `cocopipe ingest` reports per source."""
    if "inconsistent_records" not in runs.columns or not runs.height:
        return None
    bad = runs.filter(pl.col("inconsistent_records") > 0)
    if not bad.height:
        return None
    problem = ["suite", "algorithm", "function", "dimension"]
    sets = bad.select(problem).unique().sort(problem)
    which = (": " + ", ".join(f"f{f} {d}-D" for f, d in sets.select("function", "dimension").rows())
             if sets.height <= 6 else "")
    return (f"{bad.height} of {runs.height} runs ({sets.height} of {runs.select(problem).n_unique()} data sets{which}) "
            "log records that disagree with "
            f"themselves ({bad['inconsistent_records'].sum()} records: a best precision above an earlier one, or two "
            "values at one evaluation count); numbers follow cocopp's reading of them (seed 000's definition of "
            "hitting times under --exact-hits); "
            "`cocopipe runs` shows the inconsistent_records of each run")
