"""Fast paths of simulated restarts (`pipeline.measures.restarts`) and of aRT with its dispersion
(`pipeline.measures.art`): numpy over arrays of trials, equal to the Polars definitions there
(tests/test_kernels.py).

The trials of a measure come as arrays ordered by group (a (problem, target) pair), each trial repeated
by its instance-balancing weight as cocopp repeats trials in its balanced columns: `gid` (group index,
ascending), `cost` (hitting time of a successful trial, evaluations of an unsuccessful one) and `success`.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import numpy.ma  # noqa: F401 (Polars reads numpy arrays through it: loaded here, not at the first)
import polars as pl

from ..generators import BLOCK, block_rng
from ..runtime import PROBLEM



def problem_index(df: pl.DataFrame, keys: Sequence[str]) -> tuple[np.ndarray, pl.DataFrame]:
    """Per row, the index of its `keys` values among the distinct ones in sorted order, and the table of
    those (the keys and the index `_p`). Where `run_id` identifies trials, the names are looked up once
    per trial (per block of rows, where each trial's rows are together, as the store's hits come)."""
    keys = list(keys)
    if "run_id" in df.columns and df.height:
        rid = df["run_id"].to_numpy()
        starts = np.flatnonzero(np.r_[True, rid[1:] != rid[:-1]])
        if len(np.unique(rid[starts])) == len(starts):
            runs = df.select(keys)[starts]
            problems = runs.unique().sort(keys).with_row_index("_p")
            p = runs.join(problems, on=keys, how="left", maintain_order="left")["_p"].to_numpy()
            return np.repeat(p, np.diff(np.r_[starts, len(rid)])), problems
        runs = df.select("run_id", *keys).unique("run_id")
        problems = runs.select(keys).unique().sort(keys).with_row_index("_p")
        p = df.select("run_id").join(runs.join(problems, on=keys).select("run_id", "_p"), on="run_id", how="left",
                                     maintain_order="left")["_p"]
        return p.to_numpy(), problems
    problems = df.select(keys).unique().sort(keys).with_row_index("_p")
    return df.select(keys).join(problems, on=keys, how="left", maintain_order="left")["_p"].to_numpy(), problems


def _block_order(run: np.ndarray, group: np.ndarray, target: np.ndarray, trial: np.ndarray,
                 tie: np.ndarray | None) -> np.ndarray | None:
    """`trial_order` where the rows come in blocks of one trial (`run`) each, every block the same
    targets ascending (as the store's cache gives them): the trials sorted alone, then each group's
    trials laid out target by target. None where the rows are not so."""
    n = len(run)
    starts = np.flatnonzero(np.r_[True, run[1:] != run[:-1]])
    nb = len(starts)
    width = n // nb
    if nb * width != n or not np.array_equal(starts, np.arange(nb) * width):
        return None
    t = target.reshape(nb, width)
    if width > 1 and not np.all(t[0, 1:] > t[0, :-1]):
        return None
    if not (t == t[0]).all():
        return None
    g, tr = group.reshape(nb, width), trial.reshape(nb, width)
    if not ((g == g[:, :1]).all() and (tr == tr[:, :1]).all()):
        return None
    if tie is not None and not (tie.reshape(nb, width) == tie[starts][:, None]).all():
        return None
    runs = np.lexsort((tie[starts] if tie is not None else np.arange(nb), tr[:, 0], g[:, 0]))
    gs = g[runs, 0]
    first = np.flatnonzero(np.r_[True, gs[1:] != gs[:-1]])
    m = np.diff(np.r_[first, nb])  # trials per group
    per = m * width
    local = np.arange(n) - np.repeat(np.cumsum(per) - per, per)
    mb = np.repeat(m, per)
    tgt = local // mb
    return runs[np.repeat(first, per) + local - tgt * mb] * width + tgt


def trial_order(group: np.ndarray, target: np.ndarray, trial: np.ndarray, tie: np.ndarray | None = None,
                run: np.ndarray | None = None) -> np.ndarray:
    """The order by group index, target, trial, then `tie` (or the position) where trial numbers repeat,
    as `np.lexsort` gives it: by one integer sort when the three fit in 63 bits, or (given each row's
    `run`, constant over a trial's rows) trial by trial where the rows come as the store's cache gives them."""
    if not len(group):
        return np.zeros(0, np.int64)
    if run is not None:
        order = _block_order(run, group, target, trial, tie)
        if order is not None:
            return order
    group, trial = group.astype(np.int64), trial.astype(np.int64)
    values = np.unique(pl.Series(target).unique().to_numpy())  # few targets: their index by a binary search
    lo, span = int(trial.min()), int(trial.max()) - int(trial.min()) + 1
    if (int(group.max()) + 1) * len(values) * span < 2 ** 62:
        key = (group * len(values) + np.searchsorted(values, target)) * span + (trial - lo)
        order = np.argsort(key)
        k = key[order]
        if np.all(k[1:] != k[:-1]):
            return order
    return np.lexsort((trial, target, group) if tie is None else (tie, trial, target, group))


def flat_trials(hits: pl.DataFrame) -> tuple[pl.DataFrame, np.ndarray, np.ndarray, np.ndarray]:
    """The groups (problem, target) of an eager frame of hitting times in a fixed order (a frame, one
    row each), and per trial its group index, cost and success, trials repeated by their weight.

    The order is (suite, algorithm, function, dimension, target, trial), as `restarts.balanced_trials`
    orders them; the names are sorted once per problem (looked up once per trial where `run_id`
    identifies trials), not per row."""
    df = hits.select(
        *PROBLEM, "target", "trial", "success", "weight", *(["run_id"] if "run_id" in hits.columns else []),
        cost=pl.when(pl.col("success")).then(pl.col("hit")).otherwise(pl.col("evaluations")).cast(pl.Float64),
    )
    p, problems = problem_index(df, PROBLEM)
    target = df["target"].to_numpy()
    order = trial_order(p, target, df["trial"].to_numpy(), run=df["run_id"].to_numpy() if "run_id" in df.columns else None)
    p, target = p[order], target[order]
    first = np.ones(len(order), bool)
    first[1:] = (p[1:] != p[:-1]) | (target[1:] != target[:-1])
    gid = np.cumsum(first) - 1
    keys = problems.drop("_p")[p[first]].with_columns(target=pl.Series(target[first], dtype=df.schema["target"]))
    rep = np.maximum(df["weight"].to_numpy()[order], 1)
    return (keys, np.repeat(gid, rep), np.repeat(df["cost"].to_numpy()[order], rep),
            np.repeat(df["success"].to_numpy()[order], rep))


def _exact_sums(values: np.ndarray, draws: int) -> bool:
    """Whether any `draws` of the integer-valued `values` add up exactly in any order (every partial sum
    below 2^53): then a sample's sum of draws is a difference of running sums over all draws."""
    return bool(len(values)) and np.abs(values).max() * float(draws + 1) < 2.0 ** 53 and bool(
        np.all(np.floor(values) == values))


def simulate(gid: np.ndarray, cost: np.ndarray, success: np.ndarray, ngroups: int, samples: int,
             rng: np.random.Generator, first_deterministic: bool = True, max_draws: int = 4_000_000
             ) -> tuple[np.ndarray, np.ndarray]:
    """Simulated restart runtimes of all groups at once: (group index per sample, runtime).

    Trials must be ordered by group. Sample j of a group starts with trial j mod N (or a random
    one); an unsuccessful start is followed by a geometric number of further unsuccessful trials
    drawn uniformly, then one successful trial drawn uniformly (seed 000).
    """
    n = np.bincount(gid, minlength=ngroups)
    start = np.concatenate([[0], np.cumsum(n)[:-1]])
    nsucc = np.bincount(gid, weights=success, minlength=ngroups).astype(np.int64)
    order = np.lexsort((~success, gid))  # per group: successful trials first
    sorted_cost = cost[order]
    size = np.where(nsucc > 0, (np.ceil(samples / np.maximum(n, 1)) * n).astype(np.int64) if first_deterministic
                    else samples, 0)
    sg = np.repeat(np.arange(ngroups), size)
    if first_deterministic:  # sample j of a group starts with its trial j mod n: whole groups of equal n at once
        first = np.empty(len(sg), np.int64)
        offset = np.cumsum(size) - size
        for m in np.unique(n[size > 0]):
            g = np.flatnonzero((n == m) & (size > 0))
            per = int(size[g[0]])
            first[(offset[g][:, None] + np.arange(per)).ravel()] = (
                start[g][:, None] + np.tile(np.arange(m), per // m)).ravel()
    else:
        first = start[sg] + rng.integers(0, n[sg])
    out = cost[first].astype(float)
    failed = np.flatnonzero(~success[first])
    if len(failed):
        g = sg[failed]
        ns, nf = nsucc[g], n[g] - nsucc[g]
        k = rng.geometric(ns / n[g]) - 1
        pick = start[g] + rng.integers(0, ns)  # a successful trial (they come first in `order`)
        extra = sorted_cost[pick]
        # sums of k uniform draws among the group's unsuccessful trials, in bounded chunks
        cum = np.cumsum(k)
        base = start[g] + ns  # the group's first unsuccessful trial in `order`
        exact = _exact_sums(sorted_cost, int(cum[-1]) if len(cum) else 0)
        lo = 0
        while lo < len(failed):
            hi = int(np.searchsorted(cum, (cum[lo - 1] if lo else 0) + max_draws, side="right"))
            hi = max(hi, lo + 1)
            kk = k[lo:hi]
            total = int(kk.sum())
            if total:
                draw = np.repeat(base[lo:hi], kk) + (rng.random(total) * np.repeat(nf[lo:hi], kk)).astype(np.int64)
                if exact:
                    run = np.r_[0.0, np.cumsum(sorted_cost[draw])]
                    ends = np.cumsum(kk)
                    extra[lo:hi] += run[ends] - run[ends - kk]
                else:
                    owner = np.repeat(np.arange(hi - lo), kk)  # repeats, not gathers: the same numbers
                    extra[lo:hi] += np.bincount(owner, weights=sorted_cost[draw], minlength=hi - lo)
            lo = hi
        out[failed] += extra
    return sg, out


def group_percentiles(sg: np.ndarray, rt: np.ndarray, ngroups: int, percentiles: Sequence[float]) -> np.ndarray:
    """Percentiles (linear interpolation, as numpy.percentile) of the values `rt` of every group, the
    groups `sg` being contiguous blocks in increasing order: one row per percentile, NaN for an empty
    group. Groups of equal size are sorted together as the rows of one matrix."""
    size = np.bincount(sg, minlength=ngroups)
    start = np.cumsum(size) - size
    out = np.full((len(percentiles), ngroups), np.nan)
    for s in np.unique(size[size > 0]):
        g = np.flatnonzero(size == s)
        block = np.sort(rt[start[g][:, None] + np.arange(s)], axis=1)
        for i, p in enumerate(percentiles):
            pos = p / 100 * (s - 1)
            lo = int(np.floor(pos))
            a, b = block[:, lo], block[:, min(lo + 1, s - 1)]
            out[i, g] = np.where(np.isinf(a) | np.isinf(b), np.maximum(a, b), a + (pos - lo) * (b - a))
    return out


def restart_percentiles(gid: np.ndarray, cost: np.ndarray, success: np.ndarray, ngroups: int, samples: int,
                        rng: np.random.Generator, percentiles: Sequence[float], first_deterministic: bool = True
                        ) -> np.ndarray:
    """`group_percentiles` of `simulate`'s runtimes (one row per percentile, NaN without success).

    With a deterministic first trial, a group whose trials all succeed draws nothing: its samples are
    its trials, each repeated size / n times, so its percentiles are read from its sorted trials; only
    the other groups are simulated, which draw from `rng` exactly what they draw among all groups."""
    if not first_deterministic:
        return group_percentiles(*simulate(gid, cost, success, ngroups, samples, rng, False), ngroups, percentiles)
    n = np.bincount(gid, minlength=ngroups)
    nsucc = np.bincount(gid, weights=success, minlength=ngroups)
    whole = (nsucc == n) & (n > 0)
    out = np.full((len(percentiles), ngroups), np.nan)
    mixed = np.flatnonzero(~whole & (nsucc > 0))
    if len(mixed):
        at = np.full(ngroups, -1)
        at[mixed] = np.arange(len(mixed))
        sub = at[gid] >= 0
        sg, rt = simulate(at[gid[sub]], cost[sub], success[sub], len(mixed), samples, rng, True)
        out[:, mixed] = group_percentiles(sg, rt, len(mixed), percentiles)
    g = np.flatnonzero(whole)
    if len(g):
        sub = whole[gid]
        cs = _sorted_within(gid[sub], cost[sub].astype(float))  # every such group's trials sorted, groups in order
        start = np.cumsum(n[g]) - n[g]
        reps = np.ceil(samples / n[g]).astype(np.int64)  # the sample is reps copies of the n trials
        size = reps * n[g]
        for i, p in enumerate(percentiles):
            pos = p / 100 * (size - 1)
            lo = np.floor(pos).astype(np.int64)
            a, b = cs[start + lo // reps], cs[start + np.minimum(lo + 1, size - 1) // reps]
            out[i, g] = np.where(np.isinf(a) | np.isinf(b), np.maximum(a, b), a + (pos - lo) * (b - a))
    return out


def block_codes(frame: pl.DataFrame) -> tuple[np.ndarray, list[tuple]]:
    """Per row of `frame` (with the `BLOCK` columns), the index of its (suite, algorithm, dimension)
    among those of the frame in the order met, and those keys (Python values, for `block_rng`)."""
    blocks = frame.select(BLOCK)
    names = blocks.unique(maintain_order=True)
    code = blocks.join(names.with_row_index("_b"), on=BLOCK, how="left", maintain_order="left")["_b"].to_numpy()
    return code, names.rows()


def by_block(keys: pl.DataFrame, gid: np.ndarray, cost: np.ndarray, success: np.ndarray, seed: int,
             fn: Callable[[np.ndarray, np.ndarray, np.ndarray, int, np.random.Generator], np.ndarray]) -> np.ndarray:
    """`fn(gid, cost, success, ngroups, rng)` (rows of values, one column per group) for the groups of each
    (suite, algorithm, dimension) of `keys` (one row per group, with the `BLOCK` columns) and their trials,
    in their order here, with that block's generator (`block_rng`); the columns put back in the groups' order."""
    ng = keys.height
    if not ng:
        return fn(gid[:0], cost[:0], success[:0], 0, block_rng(seed, ()))
    code, names = block_codes(keys)
    gorder = np.argsort(code, kind="stable")  # groups block by block, in their order within each
    gcount = np.bincount(code, minlength=len(names))
    gstart = np.cumsum(gcount) - gcount
    local = np.empty(ng, np.int64)
    local[gorder] = np.arange(ng) - gstart[code[gorder]]
    tcode = code[gid]
    torder = np.argsort(tcode, kind="stable")  # trials block by block, in their order within each
    tcount = np.bincount(tcode, minlength=len(names))
    tstart = np.cumsum(tcount) - tcount
    out = None
    for b, key in enumerate(names):
        rows = torder[tstart[b]:tstart[b] + tcount[b]]
        part = fn(local[gid[rows]], cost[rows], success[rows], int(gcount[b]), block_rng(seed, key))
        if out is None:
            out = np.full((len(part), ng), np.nan)
        out[:, gorder[gstart[b]:gstart[b] + gcount[b]]] = part
    return out


def block_percentiles(keys: pl.DataFrame, gid: np.ndarray, cost: np.ndarray, success: np.ndarray, samples: int,
                      seed: int, percentiles: Sequence[float], first_deterministic: bool = True) -> np.ndarray:
    """`restart_percentiles` of the groups (one row of `keys` each) drawn with one generator per (suite,
    algorithm, dimension) (`by_block`)."""
    return by_block(keys, gid, cost, success, seed, lambda g, c, s, n, rng: restart_percentiles(
        g, c, s, n, samples, rng, percentiles, first_deterministic))


def percentile_names(percentiles: Sequence[float]) -> list[str]:
    """The column of each percentile: p10, p37.5."""
    return [f"p{int(p) if float(p).is_integer() else p}" for p in percentiles]


def _sorted_within(gid: np.ndarray, values: np.ndarray) -> np.ndarray:
    """`values[np.lexsort((values, gid))]` (`gid` in increasing order): by one sort of integer keys (group,
    value) where the values are integers (or integer-valued floats without sign bit) below 2^40."""
    if not len(values) or gid[-1] >= 2 ** 22:
        return values[np.lexsort((values, gid))]
    if values.dtype.kind == "i":
        ints = values
    elif values.dtype.kind == "f" and not np.signbit(values).any() and values.max() < 2 ** 40 and bool(
            np.all(np.floor(values) == values)):
        ints = values.astype(np.int64)
    else:
        return values[np.lexsort((values, gid))]
    if ints.min() < 0 or ints.max() >= 2 ** 40:
        return values[np.lexsort((values, gid))]
    return (np.sort((gid.astype(np.int64) << 40) | ints) & (2 ** 40 - 1)).astype(values.dtype)


def _segment_medians(gid: np.ndarray, values: np.ndarray, ngroups: int) -> np.ndarray:
    """The median of `values` in every group (NaN for an empty one); `gid` in increasing order."""
    v = _sorted_within(gid, values).astype(float)
    n = np.bincount(gid, minlength=ngroups)
    start = np.cumsum(n) - n
    lo, hi = start + np.maximum(n - 1, 0) // 2, start + n // 2
    out = np.full(ngroups, np.nan)
    some = n > 0
    out[some] = (v[lo[some]] + v[hi[some]]) / 2
    return out


def art_one_pass(hits: pl.DataFrame, dispersion: bool = False, percentiles: Sequence[float] = (10, 50, 90),
                 samples: int = 1000, seed: int = 1, first_deterministic: bool = True) -> pl.DataFrame | None:
    """`art.art_spec` of an eager frame of hitting times, with the columns of `restarts.art_dispersion`
    when asked, in one pass over the trials ordered as `flat_trials` orders them; sorted by problem, then
    target descending. Counts as Int64 (`art.art` casts them to its schema). None where a weight, an
    evaluation count or the hit of a success is null (then `art.art_spec` applies). The sums are of
    integer-valued numbers, equal in any order."""
    if not hits.height or hits.select(pl.col("weight", "evaluations", "success").null_count()).row(0) != (0, 0, 0) \
            or hits.select((pl.col("success") & pl.col("hit").is_null()).any()).item():
        return None
    p, problems = problem_index(hits, PROBLEM)
    target = hits["target"].to_numpy()
    order = trial_order(p, target, hits["trial"].to_numpy(),
                        run=hits["run_id"].to_numpy() if "run_id" in hits.columns else None)
    p, target = p[order], target[order]
    first = np.ones(len(order), bool)
    first[1:] = (p[1:] != p[:-1]) | (target[1:] != target[:-1])
    gid = np.cumsum(first) - 1
    ng = int(first.sum())
    w = hits["weight"].to_numpy()[order].astype(np.int64)
    success = hits["success"].to_numpy()[order].astype(bool)
    evals = hits["evaluations"].to_numpy()[order]
    hit = hits["hit"].fill_null(0).to_numpy()[order]
    cost = np.where(success, hit, evals).astype(float)
    successes = np.bincount(gid, weights=success * w, minlength=ng).astype(np.int64)
    runs = np.bincount(gid, weights=w, minlength=ng).astype(np.int64)
    total = np.bincount(gid, weights=cost * w, minlength=ng)
    succ_total = np.bincount(gid, weights=hit.astype(float) * w, minlength=ng)
    with np.errstate(divide="ignore", invalid="ignore"):
        art = np.where(successes > 0, total / successes, np.inf)
        mean_succ = np.where(successes > 0, succ_total / successes, np.nan)
        rate = successes / runs
    cols = {
        "art": art, "successes": successes, "runs": runs, "success_rate": rate,
        "trials": np.bincount(gid, minlength=ng), "mean_success_runtime": mean_succ,
        "median_success_runtime": _segment_medians(gid[success], hit[success], ng),
        "median_unsuccessful_evaluations": _segment_medians(gid[~success], evals[~success], ng),
    }
    if dispersion:
        rep = np.maximum(w, 1)
        if np.any(rep > 1):  # balanced columns, as cocopp repeats trials (no copies where every weight is 1)
            gid_r, cost_r, success_r = np.repeat(gid, rep), np.repeat(cost, rep), np.repeat(success, rep)
        else:
            gid_r, cost_r, success_r = gid, cost, success
        values = block_percentiles(problems.drop("_p")[p[first]], gid_r, cost_r, success_r, samples, seed,
                                   percentiles, first_deterministic)
        cols.update(zip(percentile_names(percentiles), values))
    gp = p[first]
    starts = np.flatnonzero(np.r_[True, gp[1:] != gp[:-1]])
    ends = np.r_[starts[1:], ng]
    block = np.repeat(np.arange(len(starts)), ends - starts)
    back = starts[block] + ends[block] - 1 - np.arange(ng)  # each problem's targets from the largest
    keys = problems.drop("_p")[gp[back]].with_columns(target=pl.Series(target[first][back], dtype=hits.schema["target"]))
    nulls = {"mean_success_runtime", "median_success_runtime", "median_unsuccessful_evaluations",
             *(percentile_names(percentiles) if dispersion else [])}
    return keys.with_columns(
        pl.Series(k, v[back], nan_to_null=k in nulls) for k, v in cols.items())
