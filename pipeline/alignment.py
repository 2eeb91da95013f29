"""cocopp's reading of the .dat records of one data set whose best precision rises (readalign).

cocopp 2.9.1 reads first hitting times by aligning the .dat records of all trials of one .info
entry at once on a grid of levels 10^(k/points) (`readalign.HMultiReader`, `align_data`): at each
level it moves each trial's reader to its first record at or below the level, looking one record
ahead (`isFinished`), and records one row (level, evaluations of each trial); `DataSet.detEvals`
answers a target with the first row whose level is at or below it. Where a trial's best precision
never rises, this is the first record that reaches the target (`pipeline.measures.runtime`). Where
it rises (logs that disagree with themselves, e.g. from distributed runs), the look-ahead moves a
reader past a record that reaches the level whenever the record after it does not, so that record
stops counting at levels it reaches: `dat_values` finds, by replaying the alignment, the value each
record counts with. A row's level is the grid level at or just above the largest precision it holds
(`align`: that precision minus 1e-12), so a record can also count at a level up to 1e-12 below it.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

#: cocopp's relative tolerance of `readalign.is_close`
_RTOL = 1e-9


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= _RTOL * max(abs(a), abs(b))


def _reaches(value: float, level: float) -> bool:
    """A record at or within 1e-9 relative of the level reaches it (`HMultiReader.align`)."""
    return value <= level or _close(value, level)


class _Reader:
    """One trial's records as `readalign.MultiReader.SingleReader` walks them: `cur` the current
    record, `nxt` the record looked ahead at (the last one again once all were read)."""

    def __init__(self, values: np.ndarray):
        self.v = values
        self.held = np.full(len(values), math.nan)  # the lowest level of a row that held each record
        self.lost = np.zeros(len(values), bool)  # left at a level it reaches
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
    """The best precision each .dat record counts with when cocopp aligns the trials of one data set.

    `trials`: each trial's .dat best precisions in file order; `points`: levels per decade (5, 10 on
    the biobjective suites). A record counts with the smaller of its value and the lowest level of
    the rows that held it, except one that the reader left at a level it reaches (the record after
    it did not): that one counts with the lowest level of the rows that held it, or not at all
    (+inf) if no row did. Reading targets from these values as from
    monotone logs gives the hits of `DataSet.detEvals` at the levels of the grid."""
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
                if _reaches(r.v[r.cur], lv):
                    r.lost[r.cur] = True
                r.next()
        return not any(r.v[r.nxt] <= lv for r in live)

    def align(lv: float) -> None:  # HMultiReader.align
        fvalues = []
        for r in live:
            while not r.finished and not _reaches(r.v[r.cur], lv):
                r.next()
            if _reaches(r.v[r.cur], lv):
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
        return [r.v.copy() for r in readers]  # an infinite precision: cocopp never ends the alignment
    lv = level()
    if finished():
        align(lv)
    while not finished():
        align(lv)
        if math.isnan(state["idx"]) or state["idx"] == math.inf:
            break  # an infinite precision: cocopp never ends the alignment
        lv = lower()
    return [np.where(np.isnan(r.held), np.where(r.lost, math.inf, r.v), np.where(r.lost, r.held, np.fmin(r.v, r.held)))
            for r in readers]


def read_records(dataset: np.ndarray, run: np.ndarray, values: np.ndarray, points: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """The values cocopp counts .dat records with (see `dat_values`), and which records it read by
    replaying the alignment: those of the data sets where some trial's value rises (elsewhere a
    record counts with its value).

    The records come sorted by trial (`run`, a code), then as logged (by evaluations, the larger
    precision first at one evaluation count, as the store has them); `dataset` (a code: one .info
    entry) and `points` (levels per decade) are given per record. A data set cocopp cannot align
    (it raises: a level that no trial reaches) is read as if its values never rose."""
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
        except ValueError:  # cocopp fails on this data set (a level no trial reaches): read as monotone
            replayed[part] = False
            continue
        for rows_of, value in zip(trials, counted):
            out[rows_of] = value
    return out, replayed
