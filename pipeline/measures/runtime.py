"""Fixed-target measures: first hitting times, instance balancing, budget cut (seed 000); aRT is in
`pipeline.measures.art`.

All functions take and return LazyFrames. `runs` and `events` have the store's columns.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from .. import alignment
from ..conventions import HIT_RTOL

PROBLEM = ["suite", "algorithm", "function", "dimension"]
RUN_COLS = ["run_id", *PROBLEM, "instance", "trial", "evaluations", "final_delta"]


def _lcm_weights(counts: list[int]) -> int:
    """cocopp's common multiple of the repetitions per instance (pproc.instance_multipliers)."""
    values = sorted(set(counts))
    if len(values) == 1:
        return values[0]
    lcm = int(np.lcm.reduce(values))
    if lcm > 24:
        lcm = max(values) * max(1, int(24 / max(values)))
    return lcm


def instance_weights(runs: pl.LazyFrame) -> pl.LazyFrame:
    """Add `weight`: how often cocopp counts a trial so every instance weighs the same.

    cocopp (`DataSet.instance_multipliers`, `genericsettings.balance_instances`) repeats the
    trials of under-represented instances; a weight of lcm / repetitions does the same.
    """
    counts = runs.group_by([*PROBLEM, "instance"]).agg(reps=pl.len())
    stats = counts.group_by(PROBLEM).agg(lo=pl.col("reps").min(), hi=pl.col("reps").max(), reps=pl.col("reps"))
    # the common multiple in Python only where the repetitions differ (rare)
    mixed = stats.filter(pl.col("lo") != pl.col("hi")).select(
        *PROBLEM, lcm=pl.col("reps").map_elements(_lcm_weights, return_dtype=pl.Int64))
    lcm = pl.concat([stats.filter(pl.col("lo") == pl.col("hi")).select(*PROBLEM, lcm=pl.col("lo").cast(pl.Int64)),
                     mixed])
    w = counts.join(lcm, on=PROBLEM).select(*PROBLEM, "instance", weight=(pl.col("lcm") // pl.col("reps")).cast(pl.Int64))
    return runs.join(w, on=[*PROBLEM, "instance"], how="left")


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
    records with (`alignment`, `_cocopp_dat`).
    `exact=True` applies seed 000's definition to every record (.dat and .tdat): the first
    evaluation at which the best-so-far precision is <= the target. The two differ where an old
    logger's .dat missed a record whose value equals a target (see tests/test_measures_hand.py), and
    on logs that disagree with themselves (tests/test_inconsistent_logs.py).
    """
    keys = [c for c in targets.collect_schema().names() if c != "target"]
    base = instance_weights(runs.select(RUN_COLS))
    level = pl.col("target")
    if not exact:
        level = pl.when(level < 0).then(level * (1 - HIT_RTOL)).otherwise(level)
    # the pairs come out of the join in the order of the targets' levels: no sort of the wide rows
    tl = targets.with_columns(level=level).sort("level")
    pairs = (tl.join(base, on=keys, how="inner", maintain_order="left") if keys else tl.join(base, how="cross",
                                                                                          maintain_order="left"))
    pairs = pairs.select(*base.collect_schema().names(), *[c for c in tl.collect_schema().names() if c not in keys])
    ev = events.select("run_id", "evaluations", "best_delta", "trigger")
    if not exact:
        ev = _cocopp_dat(runs, ev.filter((pl.col("trigger") & 1) == 1))
    # one step per distinct best-so-far value: the first evaluation it was reached at
    ev = ev.sort("run_id", "evaluations").with_columns(best=pl.col("best_delta").cum_min().over("run_id"))
    new_run = pl.col("run_id") != pl.col("run_id").shift(1)
    steps = ev.filter(new_run.fill_null(True) | (pl.col("best") < pl.col("best").shift(1))).select(
        "run_id", "best", *(["aligned"] if not exact else []), hit=pl.col("evaluations"))
    if not exact:
        steps = _cocopp_levels(steps, runs)
    else:
        steps = steps.with_columns(key=pl.col("best"))
    steps = steps.select("run_id", "key", "hit").sort("key")
    out = pairs.join_asof(steps, left_on="level", right_on="key", by="run_id", strategy="backward",
                          check_sortedness=False)
    return out.drop("level", "key").with_columns(success=pl.col("hit").is_not_null())


def first_hits(runs: pl.DataFrame, events: pl.DataFrame, targets: dict[str, Sequence[float]], exact: bool = False
               ) -> pl.DataFrame | None:
    """`hitting_times` of every run and each target of its suite, eager: run_id, target, hit (null where
    never reached), the runs in their order in `runs` and each run's targets ascending.

    The same rule and the same as-of match as `hitting_times` (the step with the largest key at or
    below the target's level), in numpy sorts and binary searches instead of a join: the store's cache
    (`cache.fill`) computes all trials against the standard targets this way. `runs` has run_id and
    suite (and the columns of `dataset_columns`, which group the trials as cocopp aligns them), `events`
    run_id, evaluations, best_delta, trigger (records of other runs are ignored); None where a value is
    null or NaN (then `hitting_times` applies)."""
    cols = ["run_id", "evaluations", "best_delta", "trigger"]
    if any(events[c].null_count() for c in cols) or runs["run_id"].null_count() or runs["suite"].null_count():
        return None
    if not exact:
        events = events.filter((pl.col("trigger") & 1) == 1)
    rid, evals, best = events["run_id"].to_numpy(), events["evaluations"].to_numpy(), events["best_delta"].to_numpy()
    if np.isnan(best).any() or runs["run_id"].is_duplicated().any():
        return None
    ids = runs["run_id"].to_numpy()
    by_id = np.argsort(ids, kind="stable")
    at = np.minimum(np.searchsorted(ids[by_id], rid), max(len(ids) - 1, 0))
    known = (ids[by_id][at] == rid) if len(ids) else np.zeros(len(rid), bool)
    r, evals, best = by_id[at[known]], evals[known], best[known]
    def in_order(r: np.ndarray, evals: np.ndarray) -> bool:
        return bool(np.all((r[1:] > r[:-1]) | ((r[1:] == r[:-1]) & (evals[1:] >= evals[:-1]))))

    if len(r) and not in_order(r, evals):  # by run (one stable integer sort), else by run and evaluations
        order = np.argsort(r.astype(np.uint16) if len(ids) < 2 ** 16 else r, kind="stable")
        if not in_order(r[order], evals[order]):
            order = np.lexsort((evals, r))
        r, evals, best = r[order], evals[order], best[order]
    aligned = np.zeros(len(r), bool)
    if not exact and len(r) and (best[1:] > best[:-1])[r[1:] == r[:-1]].any():  # a .dat precision may rise
        order = np.lexsort((-best, evals, r))  # as the store has them: the larger precision first at one count
        r, evals, best = r[order], evals[order], best[order]
        codes = _run_keys(runs)
        best, aligned = alignment.read_records(codes["dataset"].to_numpy()[r], r, best, codes["points"].to_numpy()[r])
    new_run = np.r_[True, r[1:] != r[:-1]] if len(r) else np.zeros(0, bool)
    best = running_min(best, new_run)
    step = new_run | np.r_[False, best[1:] < best[:-1]]
    steps = pl.DataFrame({"r": r[step], "best": best[step], "hit": evals[step], "aligned": aligned[step]})
    if exact:
        key = steps["best"].to_numpy()
    else:
        suite = runs["suite"].gather(steps["r"])
        key = _level_key(steps.with_columns(run_id=steps["r"], suite=suite)).to_numpy()
    sr, hit = steps["r"].to_numpy(), steps["hit"].to_numpy()
    suites = runs["suite"].to_numpy()
    levels = {}
    for s in np.unique(suites):
        ts = np.sort(np.asarray(targets[s], float))
        levels[s] = ts, ts if exact else np.where(ts < 0, ts * (1 - HIT_RTOL), ts)
    if np.all(np.r_[True, sr[1:] != sr[:-1]][1:] | (key[1:] < key[:-1])):
        parts = _asof_decreasing(sr, key, hit, suites, levels)
    else:
        parts = _asof_ranked(sr, key, hit, suites, levels)
    pr, tv, hv, ok = (np.concatenate(x) for x in zip(*parts)) if parts else (np.zeros(0, np.int64),) * 4
    o = np.lexsort((tv, pr)) if len(parts) > 1 else slice(None)
    out = pl.DataFrame({"run_id": ids[pr[o]], "target": tv[o], "hit": hv[o], "ok": ok[o]},
                       schema={"run_id": pl.Int64, "target": pl.Float64, "hit": pl.Int64, "ok": pl.Boolean})
    return out.select("run_id", "target", hit=pl.when("ok").then("hit"))


def _asof_decreasing(sr: np.ndarray, key: np.ndarray, hit: np.ndarray, suites: np.ndarray, levels: dict) -> list:
    """`first_hits`' as-of match where every run's keys strictly decrease (in order of evaluations, runs
    in order): the step with the largest key at or below a level is the run's first step at or below
    it. A step reaches the levels from j = (levels below its key) on; (run, number of levels - j) is
    sorted, so one binary search per (run, level) finds it. Per suite (run indices, targets, hit, reached)."""
    parts = []
    step_suite = suites[sr] if len(sr) else np.zeros(0, suites.dtype)
    for s, (ts, lv) in levels.items():
        width = len(ts) + 1
        rs = np.flatnonzero(suites == s)
        mine = step_suite == s
        ssr, shit = sr[mine], hit[mine]
        code = ssr.astype(np.int64) * width + (len(ts) - np.searchsorted(lv, key[mine], side="left"))
        # the levels of every run from the largest down: ascending queries
        q = (np.repeat(rs.astype(np.int64) * width, len(ts)) + np.tile(np.arange(1, width), len(rs)))
        pos = np.searchsorted(code, q, side="left").reshape(len(rs), len(ts))[:, ::-1].ravel()
        pr = np.repeat(rs, len(ts))
        ok = pos < len(code)
        ok[ok] = ssr[pos[ok]] == pr[ok]
        got = shit[np.minimum(pos, len(shit) - 1)] if len(shit) else np.zeros(len(pos), np.int64)
        parts.append((pr, np.tile(ts, len(rs)), np.where(ok, got, 0), ok))
    return parts


def _asof_ranked(sr: np.ndarray, key: np.ndarray, hit: np.ndarray, suites: np.ndarray, levels: dict) -> list:
    """`first_hits`' as-of match in general: codes (run, rank of key) sorted; the largest code at or below
    (run, rank of level), ties to the later step (as `join_asof`). Per suite as `_asof_decreasing`."""
    values, rank = np.unique(key, return_inverse=True)
    width = len(values) + 1
    code = sr.astype(np.int64) * width + rank.ravel() + 1
    by_code = np.argsort(code, kind="stable")
    code, sr, hit = code[by_code], sr[by_code], hit[by_code]
    parts = []
    for s, (ts, lv) in levels.items():
        rs = np.flatnonzero(suites == s)
        pr = np.repeat(rs, len(ts))
        pos = np.searchsorted(code, pr * width + np.tile(np.searchsorted(values, lv, side="right"), len(rs)),
                              side="right") - 1
        ok = pos >= 0
        ok[ok] = sr[pos[ok]] == pr[ok]
        got = hit[np.maximum(pos, 0)] if len(hit) else np.zeros(len(pos), np.int64)
        parts.append((pr, np.tile(ts, len(rs)), np.where(ok, got, 0), ok))
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


def _level_key(steps: pl.DataFrame | pl.LazyFrame) -> pl.Series | pl.LazyFrame:
    """`_cocopp_levels` of steps that carry their suite (run_id, suite, best, hit, sorted by run and
    evaluations, and optionally `aligned`): a frame's `key` column, or for a LazyFrame the frame with it."""
    n = pl.when(pl.col("suite").str.contains("biobj")).then(10.0).otherwise(5.0)
    starts = pl.col("run_id") != pl.col("run_id").shift(1)
    ends = pl.col("run_id") != pl.col("run_id").shift(-1)
    s = steps.with_columns(
        first=pl.col("hit") == pl.when(starts.fill_null(True)).then(pl.col("hit")).forward_fill(),
        last=pl.col("hit") == pl.when(ends.fill_null(True)).then(pl.col("hit")).backward_fill(),
        prev=pl.when(starts.fill_null(True)).then(None).otherwise(pl.col("best").shift(1)),
    )
    pos = pl.col("best") > 0
    k_below = (pl.col("best").log10() * n + 1e-9).floor()  # grid index at or just below the value
    k_prev = ((pl.col("prev") - 1e-12).log10() * n - 1e-9).ceil()  # label of the previous record
    close_ok = ~pl.col("last") | pl.col("first") | (k_prev >= k_below + 2)
    key = pl.when(pos & close_ok).then(pl.col("best") * (1 - HIT_RTOL)).otherwise(pl.col("best"))
    if "aligned" in steps.collect_schema().names():
        # levels of the replayed aligner's rows, which detEvals compares with targets as they are (the
        # tolerance is in the rows already): a negative one as negative targets' levels are moved
        as_is = pl.when(pl.col("best") < 0).then(pl.col("best") * (1 - HIT_RTOL)).otherwise(pl.col("best"))
        key = pl.when(pl.col("aligned")).then(as_is).otherwise(key)
    s = s.with_columns(key=key)
    return s if isinstance(s, pl.LazyFrame) else s["key"]


def _cocopp_levels(steps: pl.LazyFrame, runs: pl.LazyFrame) -> pl.LazyFrame:
    """The smallest target each record reaches as cocopp's aligner counts it (column `key`).

    A positive precision within 1e-9 relative above a target reaches it (`readalign.is_close`),
    except on a run's last record when the aligner meets it at that very target level, which
    happens when the previous record's level is less than two grid steps (10^(1/5), or 10^(1/10)
    on bbob-biobj) above it: `HMultiReader.isFinished` compares strictly there.

    `steps` come sorted by run and evaluations (one row per improvement of the best precision). Steps
    marked `aligned` carry the levels of the aligner's rows (their data set's alignment was replayed,
    see `_cocopp_dat`), which reach a target at or above them, as `DataSet.detEvals` reads them.
    """
    return _level_key(steps.join(runs.select("run_id", "suite"), on="run_id", maintain_order="left"))


def dataset_columns(names: Sequence[str]) -> list[str]:
    """The columns of a runs frame that group trials into cocopp's data sets (the trials of one .info
    entry, which share a data file): source_id and data_file (as the ingest groups them,
    `ingest.consistency`), or where a frame lacks them (hand-built frames) those of suite, algorithm,
    function and dimension it has."""
    entry = ["source_id", "data_file"]
    return entry if all(c in names for c in entry) else [c for c in PROBLEM if c in names]


def _run_keys(runs: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame | pl.LazyFrame:
    """Per run (in the order of `runs`): `dataset`, a code of its data set (`dataset_columns`); `points`,
    the levels per decade of cocopp's alignment (10 on the biobjective suites, else 5); `candidate`,
    whether its records may disagree (`inconsistent_records` not 0, or not counted)."""
    names = runs.collect_schema().names()
    counted = pl.col("inconsistent_records").fill_null(1) > 0 if "inconsistent_records" in names else pl.lit(True)
    return runs.select("run_id", dataset=pl.struct(dataset_columns(names)).rank("dense"),
                       points=pl.when(pl.col("suite").str.contains("biobj")).then(10).otherwise(5), candidate=counted)


def _cocopp_dat(runs: pl.LazyFrame, dat: pl.LazyFrame) -> pl.LazyFrame:
    """The .dat records `dat` (run_id, evaluations, best_delta, trigger) with the values cocopp counts
    them with (`alignment.read_records`) and `aligned`, true for the records of replayed data sets.

    Read when the frame is collected (nothing at planning): only the data sets holding a trial whose
    records may disagree (`_run_keys`) are sorted and replayed."""
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
    keyed = dat.join(_run_keys(runs), on="run_id", how="left", maintain_order="left")
    return keyed.map_batches(replay, schema=pl.Schema({**schema, "aligned": pl.Boolean}))


def parse_budget(budget: str | float | int | None) -> tuple[float, bool] | None:
    """A budget as (value, per_dimension): '1000' -> (1000, False), '100x' -> (100, True)."""
    if budget is None or budget == "":
        return None
    if isinstance(budget, str):
        b = budget.strip().lower()
        per_dim = b.endswith("x")
        try:
            value = float(b[:-1] if per_dim else b)
        except ValueError as exc:
            raise ValueError(f"budget {budget!r}: expected evaluations (1000) or a multiple of the dimension (100x)") from exc
    else:
        value, per_dim = float(budget), False
    if not value > 0:
        raise ValueError(f"budget {budget!r} must be positive")
    return value, per_dim


def _budget_expr(budget: tuple[float, bool]) -> pl.Expr:
    value, per_dim = budget
    return pl.lit(value) * pl.col("dimension").cast(pl.Float64) if per_dim else pl.lit(value)


def cut(runs: pl.LazyFrame, events: pl.LazyFrame, budget: str | float | None) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """The experiment as if every trial had stopped at the budget B (evaluations, or 'Nx' = N x dimension).

    evaluations -> min(evaluations, B); only records at or before B are kept, so targets count as
    reached only when hit by B; final_delta -> the best precision reached by B.
    """
    b = parse_budget(budget)
    if b is None:
        return runs, events
    lim = runs.select("run_id", limit=_budget_expr(b))
    ev = events.join(lim, on="run_id").filter(pl.col("evaluations") <= pl.col("limit")).drop("limit")
    best = ev.group_by("run_id").agg(best_by_budget=pl.col("best_delta").min())
    first = events.group_by("run_id").agg(first_delta=pl.col("best_delta").sort_by("evaluations").first())
    r = (
        runs.with_columns(_limit=_budget_expr(b))
        .join(best, on="run_id", how="left")
        .join(first, on="run_id", how="left")
        .with_columns(
            evaluations=pl.min_horizontal(pl.col("evaluations").cast(pl.Float64), pl.col("_limit")).floor().cast(pl.Int64),
            final_delta=pl.coalesce("best_by_budget", "first_delta"),
        )
        .drop("_limit", "best_by_budget", "first_delta")
    )
    return r, ev


def fixed_budget(runs: pl.LazyFrame, events: pl.LazyFrame, budgets: list[float], per_dimension: bool = False
                 ) -> pl.LazyFrame:
    """Best precision each run reached within each budget (null before its first record)."""
    b = pl.LazyFrame({"budget": [float(x) for x in budgets]})
    pairs = runs.select(RUN_COLS).join(b, how="cross").with_columns(
        limit=(pl.col("budget") * pl.col("dimension") if per_dimension else pl.col("budget")).cast(pl.Float64)
    ).sort("limit")
    steps = (
        events.select("run_id", "evaluations", "best_delta").sort("run_id", "evaluations")
        .with_columns(best_delta=pl.col("best_delta").cum_min().over("run_id"),
                      ev=pl.col("evaluations").cast(pl.Float64))
        .sort("ev")
    )
    out = pairs.join_asof(steps.select("run_id", "ev", "best_delta"), left_on="limit", right_on="ev", by="run_id",
                          strategy="backward", check_sortedness=False)
    return out.drop("ev").rename({"limit": "budget_evaluations"})


def fixed_budget_summary(values: pl.LazyFrame, quantiles: tuple[float, ...] = (0.1, 0.25, 0.75, 0.9)
                         ) -> pl.LazyFrame:
    """Median and quantiles of the best precision at each budget per problem."""
    aggs = [pl.col("best_delta").quantile(q, "linear").alias(f"q{int(round(q * 100)):02d}") for q in quantiles]
    return (
        values.group_by([*PROBLEM, "budget"])
        .agg(pl.col("budget_evaluations").first(), pl.col("best_delta").median().alias("median"), *aggs,
             runs=pl.len(), runs_with_data=pl.col("best_delta").is_not_null().sum())
        .sort(*PROBLEM, "budget")
    )
