"""First hitting times, the base of every measure, as seed 000 defines them and cocopp reads them.

The first hitting time of a target by a trial is the number of evaluations after which the trial's
best-so-far precision first reaches the target (seed 000, "Runtime and Fixed-Target Measures"),
by the hit rule of `pipeline.conventions` (`reached`). `hitting_times` states it as one as-of join:
each trial's best-so-far precision falls in steps; for every (trial, target) the answer is the
first step whose key is at or below the target's level (`record_key`, `target_level`).

cocopp reads hits from the target-triggered (.dat) records alone, with two twists that `cocopp_keys`
and `dat_records` reproduce: a run's last record must reach a target exactly unless cocopp's aligner
met it at a coarser level (`HMultiReader.isFinished`), and in a data set whose .dat precision rises
(logs that disagree with themselves) records count with the levels of the aligner's rows
(`pipeline.alignment`). The fast path of the store's cache (`pipeline.hits._kernel`) must equal
this definition (tests/test_hits.py).

All functions take and return LazyFrames unless said otherwise; `runs` and `events` have the store's columns.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from .. import alignment
from ..conventions import record_key, target_level
from ..vocabulary import PROBLEM
RUN_COLS = ["run_id", *PROBLEM, "instance", "trial", "evaluations", "final_delta"]


def hitting_times(runs: pl.LazyFrame, events: pl.LazyFrame, targets: pl.LazyFrame, exact: bool = False
                  ) -> pl.LazyFrame:
    """First hitting time of every target by every run, in one as-of join.

    `targets` has a column `target` (a precision) and optionally key columns shared with `runs`
    (e.g. suite, or function and dimension for runlength-based targets). Returns one row per
    (run, target) with the run's columns, `target`, `hit` (evaluations, null if never reached),
    `success`, and `weight` (instance balancing).

    By default hits are read as cocopp reads them (`readalign.HMultiReader`): from the
    target-triggered (.dat) records only, a precision within 1e-9 relative above the target counts
    as reaching it, except on the last .dat record of a run, which must reach it exactly; in a data
    set where some trial's .dat precision rises, with the values cocopp's alignment counts the
    records with (`dat_records`).
    `exact=True` applies seed 000's definition to every record (.dat and .tdat): the first
    evaluation at which the best-so-far precision is <= the target. The two differ where an old
    logger's .dat missed a record whose value equals a target (see tests/test_measures_hand.py), and
    on logs that disagree with themselves (tests/test_inconsistent_logs.py).
    """
    keys = [c for c in targets.collect_schema().names() if c != "target"]
    trials = instance_weights(runs.select(RUN_COLS))
    level = pl.col("target") if exact else target_level(pl.col("target"))
    # the pairs come out of the join in the order of the targets' levels: no sort of the wide rows
    levels = targets.with_columns(level=level).sort("level")
    pairs = (levels.join(trials, on=keys, how="inner", maintain_order="left") if keys
             else levels.join(trials, how="cross", maintain_order="left"))
    pairs = pairs.select(*trials.collect_schema().names(),
                         *[c for c in levels.collect_schema().names() if c not in keys])
    hits = pairs.join_asof(steps(runs, events, exact), left_on="level", right_on="key", by="run_id",
                           strategy="backward", check_sortedness=False)
    return hits.drop("level", "key").with_columns(success=pl.col("hit").is_not_null())


def steps(runs: pl.LazyFrame, events: pl.LazyFrame, exact: bool = False) -> pl.LazyFrame:
    """Each run's best-so-far precision as steps (run_id, key, hit), sorted by key: one step per
    distinct best-so-far value, at the first evaluation it was reached at (`hit`), with the `key` a
    target's level must be at or above to count as reached by it (see `hitting_times`)."""
    records = events.select("run_id", "evaluations", "best_delta", "trigger")
    if not exact:
        records = dat_records(runs, records.filter((pl.col("trigger") & 1) == 1))
    records = records.sort("run_id", "evaluations").with_columns(best=pl.col("best_delta").cum_min().over("run_id"))
    new_run = pl.col("run_id") != pl.col("run_id").shift(1)
    out = records.filter(new_run.fill_null(True) | (pl.col("best") < pl.col("best").shift(1))).select(
        "run_id", "best", *(["aligned"] if not exact else []), hit=pl.col("evaluations"))
    if exact:
        out = out.with_columns(key=pl.col("best"))
    else:
        out = cocopp_keys(out.join(runs.select("run_id", "suite"), on="run_id", maintain_order="left"))
    return out.select("run_id", "key", "hit").sort("key")


def cocopp_keys(steps: pl.DataFrame | pl.LazyFrame) -> pl.Series | pl.LazyFrame:
    """The smallest target each step reaches as cocopp's aligner counts it, as a key (`record_key`):
    for a frame the Series of keys, for a LazyFrame the frame with a column `key`.

    A positive precision within 1e-9 relative above a target reaches it (`readalign.is_close`),
    except on a run's last record when the aligner meets it at that very target level, which
    happens when the previous record's level is less than two grid steps (10^(1/5), or 10^(1/10)
    on bbob-biobj) above it: `HMultiReader.isFinished` compares strictly there.

    `steps` (run_id, suite, best, hit) come sorted by run and evaluations, one row per improvement of
    the best precision. Steps marked `aligned` carry the levels of the aligner's rows (their data
    set's alignment was replayed, see `dat_records`), which reach a target at or above them, as
    `DataSet.detEvals` reads them.
    """
    n = pl.when(pl.col("suite").str.contains("biobj")).then(10.0).otherwise(5.0)
    starts = pl.col("run_id") != pl.col("run_id").shift(1)
    ends = pl.col("run_id") != pl.col("run_id").shift(-1)
    s = steps.with_columns(
        first=pl.col("hit") == pl.when(starts.fill_null(True)).then(pl.col("hit")).forward_fill(),
        last=pl.col("hit") == pl.when(ends.fill_null(True)).then(pl.col("hit")).backward_fill(),
        prev=pl.when(starts.fill_null(True)).then(None).otherwise(pl.col("best").shift(1)),
    )
    k_below = (pl.col("best").log10() * n + 1e-9).floor()  # grid index at or just below the value
    k_prev = ((pl.col("prev") - 1e-12).log10() * n - 1e-9).ceil()  # label of the previous record
    close_ok = ~pl.col("last") | pl.col("first") | (k_prev >= k_below + 2)
    key = pl.when(close_ok).then(record_key(pl.col("best"))).otherwise(pl.col("best"))
    if "aligned" in steps.collect_schema().names():
        # levels of the replayed aligner's rows, which detEvals compares with targets as they are (the
        # tolerance is in the rows already): a negative one as negative targets' levels are moved
        key = pl.when(pl.col("aligned")).then(target_level(pl.col("best"))).otherwise(key)
    s = s.with_columns(key=key)
    return s if isinstance(s, pl.LazyFrame) else s["key"]


def dat_records(runs: pl.LazyFrame, dat: pl.LazyFrame) -> pl.LazyFrame:
    """The .dat records `dat` (run_id, evaluations, best_delta, trigger) with the values cocopp counts
    them with (`alignment.read_records`) and `aligned`, true for the records of replayed data sets.

    Read when the frame is collected (nothing at planning): only the data sets holding a trial whose
    records may disagree (`dataset_codes`) are sorted and replayed."""
    def replay(df: pl.DataFrame) -> pl.DataFrame:
        sets = df.filter("candidate")["dataset"].unique()
        out = df.select(*names, aligned=pl.lit(False))
        if not len(sets):
            return out
        sub = (df.with_row_index("row").filter(pl.col("dataset").is_in(sets.implode()))
               .sort("run_id", "evaluations", "best_delta", descending=[False, False, True]))
        value, aligned = alignment.read_records(sub["dataset"].to_numpy(), sub["run_id"].to_numpy(),
                                                sub["best_delta"].to_numpy(), sub["points"].to_numpy())
        rows = sub["row"]
        return out.with_columns(out["best_delta"].scatter(rows, value), out["aligned"].scatter(rows, aligned))

    schema = dat.collect_schema()
    names = schema.names()
    keyed = dat.join(dataset_codes(runs), on="run_id", how="left", maintain_order="left")
    return keyed.map_batches(replay, schema=pl.Schema({**schema, "aligned": pl.Boolean}))


def dataset_columns(names: Sequence[str]) -> list[str]:
    """The columns of a runs frame that group trials into cocopp's data sets (the trials of one .info
    entry, which share a data file): source_id and data_file (as the ingest groups them,
    `ingest.consistency`), or where a frame lacks them (hand-built frames) those of suite, algorithm,
    function and dimension it has."""
    entry = ["source_id", "data_file"]
    return entry if all(c in names for c in entry) else [c for c in PROBLEM if c in names]


def dataset_codes(runs: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame | pl.LazyFrame:
    """Per run (in the order of `runs`): `dataset`, a code of its data set (`dataset_columns`); `points`,
    the levels per decade of cocopp's alignment (10 on the biobjective suites, else 5); `candidate`,
    whether its records may disagree (`inconsistent_records` not 0, or not counted)."""
    names = runs.collect_schema().names()
    counted = pl.col("inconsistent_records").fill_null(1) > 0 if "inconsistent_records" in names else pl.lit(True)
    return runs.select("run_id", dataset=pl.struct(dataset_columns(names)).rank("dense"),
                       points=pl.when(pl.col("suite").str.contains("biobj")).then(10).otherwise(5), candidate=counted)


def instance_weights(runs: pl.LazyFrame) -> pl.LazyFrame:
    """Add `weight`: how often cocopp counts a trial so every instance weighs the same.

    cocopp (`DataSet.instance_multipliers`, `genericsettings.balance_instances`) repeats the
    trials of under-represented instances; a weight of lcm / repetitions does the same.
    """
    counts = runs.group_by([*PROBLEM, "instance"]).agg(reps=pl.len())
    stats = counts.group_by(PROBLEM).agg(lo=pl.col("reps").min(), hi=pl.col("reps").max(), reps=pl.col("reps"))
    # the common multiple in Python only where the repetitions differ (rare)
    mixed = stats.filter(pl.col("lo") != pl.col("hi")).select(
        *PROBLEM, lcm=pl.col("reps").map_elements(_common_multiple, return_dtype=pl.Int64))
    lcm = pl.concat([stats.filter(pl.col("lo") == pl.col("hi")).select(*PROBLEM, lcm=pl.col("lo").cast(pl.Int64)),
                     mixed])
    w = counts.join(lcm, on=PROBLEM).select(*PROBLEM, "instance", weight=(pl.col("lcm") // pl.col("reps")).cast(pl.Int64))
    return runs.join(w, on=[*PROBLEM, "instance"], how="left", maintain_order="left")


def _common_multiple(counts: list[int]) -> int:
    """cocopp's common multiple of the repetitions per instance (pproc.instance_multipliers)."""
    values = sorted(set(counts))
    if len(values) == 1:
        return values[0]
    lcm = int(np.lcm.reduce(values))
    if lcm > 24:
        lcm = max(values) * max(1, int(24 / max(values)))
    return lcm
