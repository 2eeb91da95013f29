"""cocopp's reading of the .dat records of one data set whose best precision rises (readalign).

cocopp 2.9.1 reads first hitting times by aligning the .dat records of all trials of one .info
entry at once (`readalign.HMultiReader`, `align_data`): level after level of the grid 10^(k/points),
it moves each trial's reader to its first record at or within 1e-9 of the level, looking one record
ahead (`isFinished`), and writes one row: the level of the grid at or just above the largest
precision held (less 1e-12), and the evaluations of the record each trial holds; `DataSet.detEvals`
answers a target with the first row whose level is at or below it. Where no trial's precision
rises, that is the first record that reaches the target (`pipeline.hits.spec` reads it so).
Where one rises (logs that disagree with themselves, e.g. from distributed runs), the look-ahead
moves a reader past a record that reaches the level whenever the record after it does not, and the
level at which all trials hold a record may jump (from 0 to the negative levels): `dat_values`
replays the alignment and gives each record the lowest level of the rows that held it.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .conventions import reaches


class _Reader:
    """One trial's records as `readalign.MultiReader.SingleReader` walks them: `cur` the current
    record, `nxt` the record looked ahead at (the last one again once all were read)."""

    def __init__(self, values: np.ndarray):
        self.v = values
        self.held = np.full(len(values), math.inf)  # the lowest level of a row that held each record
        self.cur, self.nxt = -1, 0
        self.nearly = self.finished = False

    def next(self) -> None:
        if self.finished:
            return
        if self.nearly:
            self.finished = True
        else:
            self.cur = self.nxt
            if self.nxt + 1 < len(self.v):
                self.nxt += 1
            else:
                self.nearly = True


def dat_values(trials: Sequence[np.ndarray], points: int) -> list[np.ndarray]:
    """The precision each .dat record counts with when cocopp aligns the trials of one data set: the
    lowest level of the aligner's rows that held the record, +inf for a record no row held.

    `trials`: each trial's .dat best precisions in file order; `points`: levels per decade (5, 10 on
    the biobjective suites). A trial's first record whose value is at or below a target (compared as
    they are: the rows hold cocopp's tolerance) is the hit `DataSet.detEvals` gives for that target.
    ValueError where cocopp fails (a level that no trial reaches) or never ends (an infinite
    precision)."""
    readers = [_Reader(np.asarray(v, float)) for v in trials]
    live = [r for r in readers if len(r.v)]
    if not live:
        return [r.v.copy() for r in readers]
    state = {"idx": 0.0, "negative": False, "old": 0.0}

    def level() -> float:
        # numpy's power, as cocopp: for a few levels it differs from Python's in the last bit
        return (-1.0 if state["negative"] else 1.0) * float(np.power(10.0, state["idx"] / points))

    def finished() -> bool:  # HMultiReader.isFinished
        lv = level()
        for r in live:
            while r.v[r.nxt] > lv and not r.finished:
                r.next()
        return not any(r.v[r.nxt] <= lv for r in live)

    def align(lv: float) -> None:  # HMultiReader.align: a record at or within 1e-9 of the level reaches it
        fvalues = []
        for r in live:
            while not r.finished and not reaches(r.v[r.cur], lv):
                r.next()
            if reaches(r.v[r.cur], lv):
                fvalues.append(r.v[r.cur])
        if not fvalues:
            raise ValueError(f"level {lv} reached by no trial")
        maxf = max(fvalues)
        if maxf <= 0.0:
            if lv > 0.0:
                state["old"], state["idx"] = state["idx"], -math.inf
            else:
                state["idx"] = max(state["idx"], float(np.floor(np.log10(-maxf + 1e-12) * points)))
        else:
            maxf = maxf - 1e-12 if maxf >= 2e-12 else maxf / 2
            state["idx"] = min(state["idx"], float(np.ceil(np.log10(maxf) * points)))
        row = level()
        for r in live:
            if not r.finished:
                r.held[r.cur] = row

    def lower() -> float:  # HMultiReader.newCurrentValue
        if state["idx"] == -math.inf:
            state["idx"], state["negative"] = state["old"], True
        elif state["negative"]:
            state["idx"] += 1
        else:
            state["idx"] -= 1
        return level()

    for r in live:  # getInitialValue
        r.next()
    top = max(r.v[r.cur] for r in live)
    state["idx"] = float(np.ceil(np.log10(top if top > 0 else 1e-19) * points))
    if not math.isfinite(state["idx"]):
        raise ValueError("an infinite precision: cocopp never ends the alignment")
    lv = level()
    if finished():
        align(lv)
    while not finished():
        align(lv)
        if math.isnan(state["idx"]) or state["idx"] == math.inf:
            raise ValueError("an infinite precision: cocopp never ends the alignment")
        lv = lower()
    return [r.held for r in readers]


def read_records(dataset: np.ndarray, run: np.ndarray, values: np.ndarray, points: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """The values cocopp counts .dat records with (see `dat_values`), and which records it read by
    replaying the alignment: those of the data sets where some trial's value rises (elsewhere a
    record counts with its value).

    The records come sorted by trial (`run`, a code), then as logged (by evaluations, the larger
    precision first at one evaluation count, as the store has them); `dataset` (a code: one .info
    entry) and `points` (levels per decade) are given per record. A data set cocopp cannot align
    (`dat_values` raises) is read as if its values never rose."""
    new = np.r_[True, run[1:] != run[:-1]] if len(run) else np.zeros(0, bool)
    rise = ~new[1:] & (values[1:] > values[:-1])
    replayed = np.zeros(len(values), bool)
    if not rise.any():
        return values, replayed
    replayed = np.isin(dataset, np.unique(dataset[1:][rise]))
    rows = np.flatnonzero(replayed)
    rows = rows[np.argsort(dataset[rows], kind="stable")]  # each data set's records, trials in order
    out = values.astype(float, copy=True)
    cuts = np.flatnonzero(np.diff(dataset[rows])) + 1
    for part in np.split(rows, cuts):
        starts = np.flatnonzero(new[part] | np.r_[True, run[part][1:] != run[part][:-1]])
        trials = np.split(part, starts[1:])
        try:
            counted = dat_values([values[t] for t in trials], int(points[part[0]]))
        except ValueError:  # cocopp cannot read this data set: read as monotone
            replayed[part] = False
            continue
        for rows_of, value in zip(trials, counted):
            out[rows_of] = value
    return out, replayed
