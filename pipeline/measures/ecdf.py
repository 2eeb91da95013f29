"""Runtime ECDFs: the fraction of (problem, run) pairs solved within a budget (seed 000, "Empirical
Distribution Functions"), as step tables per function, per function group and over all functions,
always per dimension.

A problem is a (function, target) pair of one dimension; every problem weighs the same, and problems
never solved count in the denominator. x = evaluations / dimension. Three modes:

- "simulated" (cocopp's `pprldmany` default): per problem, `size` simulated restart runtimes
  (`restarts.simulate`, first trial deterministic, instances balanced), size = K * max(2, samples // K)
  with K the largest trial count of the algorithm in that dimension (cocopp's `samplesize` with
  `in_a_hurry`). Simulated runtimes may exceed the trials' budget; as in cocopp they stay in the ECDF
  up to the plotted range `max_x`.
- "exact": the expectation of the simulated ECDF in closed form. The simulated runtime is
  T = F_1 + ... + F_K + S with P(K = k) = p q^k (p = success fraction), F_i uniform over the
  unsuccessful trials' evaluations, S uniform over the successful trials' hitting times (seed 000,
  "Simulated Restarts and Runtimes"); P(T <= t) is summed exactly over k and the multiset of F drawn,
  pruned only where T would exceed max_x * dimension or q^k < 1e-12.
- "trials": the trials' own first hitting times, no restarts (as `auc.py`).

The plotted range `max_x` (x beyond it gives no step; evaluations / dimension): an explicit number, or
"budget" (the largest evaluations / dimension among the algorithm's trials in that dimension), or
"cocopp" (cocopp's `xlimit_pprldmany`, 1e7); with a budget B (or "Nx") the range is B / dimension.
Default: "cocopp" for the simulated and trials modes, as cocopp draws simulated runtimes beyond the
trials' budget; "budget" for the exact mode, whose number of steps grows combinatorially with the
restarts that fit in the range when unsuccessful trials stop at many different budgets (a range of
ten budgets already needs millions of steps on real data; `MAX_ATOMS` stops it with a clear error).

`final_fraction` (the dot) is the fraction of (problem, trial) pairs the trials solve, as cocopp's aRT
tables count successes / runs; `solvable_fraction` is the fraction of problems with at least one
success, which the simulated ECDF approaches as x grows (cocopp's own dot, the simulated fraction at
x = 1e7^1.21, is close to it). Unlike cocopp, K is taken per algorithm, not over every algorithm
compared, so that an algorithm's ECDF does not depend on the others selected; each (suite, algorithm,
dimension) draws from its own generator seeded by `seed` and its name.
"""
from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import NamedTuple

import numpy as np
import polars as pl

from ..hits.budget import Budget
from . import restarts
from .groups import membership, select_levels

MODES = ("simulated", "exact", "trials")
#: cocopp's default right end of the ECDF plots (genericsettings.xlimit_pprldmany), evaluations / dimension
X_LIMIT = 1e7
#: the geometric tail of restarts left out by the exact mode
TAIL = 1e-12
#: the largest number of restart sums (of one set of unsuccessful trials) the exact mode enumerates
MAX_ATOMS = 2_000_000

KEY = ["suite", "algorithm", "dimension"]
STEP_SCHEMA = pl.Schema({"suite": pl.String, "algorithm": pl.String, "dimension": pl.Int64, "group": pl.String,
                         "x": pl.Float64, "fraction": pl.Float64})
SUMMARY_SCHEMA = pl.Schema({"suite": pl.String, "algorithm": pl.String, "dimension": pl.Int64, "group": pl.String,
                            "final_fraction": pl.Float64, "solvable_fraction": pl.Float64, "max_x": pl.Float64,
                            "median_max_evaluations": pl.Float64, "problems": pl.Int64, "functions": pl.Int64,
                            "trials": pl.Int64})


def _range_spec(mode: str, max_budget: Budget | None, max_x) -> tuple[str, float]:
    """How the plotted range is set: ("fixed", x), ("budget", 1) or ("evaluations", B)."""
    if max_x is not None:
        if isinstance(max_x, str) and max_x in ("budget", "cocopp"):
            return ("budget", 1.0) if max_x == "budget" else ("fixed", X_LIMIT)
        try:
            value = float(max_x)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"max_x {max_x!r}: expected a positive number, 'budget' or 'cocopp'") from exc
        if not value > 0:
            raise ValueError(f"max_x {max_x!r}: expected a positive number, 'budget' or 'cocopp'")
        return "fixed", value
    if max_budget is not None:
        return ("fixed", max_budget.value) if max_budget.per_dimension else ("evaluations", max_budget.value)
    return ("budget", 1.0) if mode == "exact" else ("fixed", X_LIMIT)


def x_limits(trials: pl.DataFrame, mode: str = "simulated", max_budget=None, max_x=None) -> pl.DataFrame:
    """The plotted range max_x per (suite, algorithm, dimension) (see the module); `trials` has the
    key columns and `evaluations`."""
    kind, value = _range_spec(mode, max_budget, max_x)
    dims = trials.group_by(KEY).agg(longest=pl.col("evaluations").max().cast(pl.Float64))
    dim = pl.col("dimension").cast(pl.Float64)
    expr = {"fixed": pl.lit(value), "budget": pl.col("longest") / dim, "evaluations": pl.lit(value) / dim}[kind]
    return dims.select(*KEY, max_x=expr.cast(pl.Float64))


class _Data(NamedTuple):
    """Hitting times prepared once for every table: numbers per row, names per function."""

    #: one row per (problem, trial), sorted by fid, target, trial: fid, target, trial, instance, run_id,
    #: success, evaluations, weight, cost (hit if successful, else evaluations)
    trials: pl.DataFrame
    #: one row per fid, the index of (suite, algorithm, dimension, function) in sorted order
    funcs: pl.DataFrame
    #: one row per problem, sorted by fid, target: success fraction (instance-balanced) `rate`, `solved`
    #: (any success), and the function's suite, algorithm, dimension, function
    problems: pl.DataFrame


def _prepare(hits: pl.DataFrame) -> _Data:
    """Trials, functions and problems of an eager frame of hitting times (`run_id` identifies a trial,
    as in the store, so names are looked up once per trial, not per target)."""
    fid, funcs = restarts.problem_index(hits, [*KEY, "function"])
    funcs = funcs.rename({"_p": "fid"}).select("fid", *KEY, "function").with_columns(pl.col("dimension").cast(pl.Int64))
    trials = hits.select(
        "target", "trial", "instance", "run_id", "success", "evaluations",
        weight=pl.col("weight").cast(pl.Float64),
        cost=pl.when(pl.col("success")).then(pl.col("hit")).otherwise(pl.col("evaluations")).cast(pl.Float64),
    ).with_columns(fid=pl.Series(fid, dtype=pl.UInt32)).rechunk()  # one chunk: a gather 3-4x faster
    trials = trials[_trial_order(trials)]
    f, target = trials["fid"].to_numpy(), trials["target"].to_numpy()
    w, success = trials["weight"].to_numpy(), trials["success"].to_numpy()
    first = np.flatnonzero(np.r_[True, (f[1:] != f[:-1]) | (target[1:] != target[:-1])]) if len(f) else np.zeros(0, int)
    if len(f):  # integer-valued weights: the sums are exact in any order
        rate = np.add.reduceat(w * success, first) / np.add.reduceat(w, first)
        solved = np.maximum.reduceat(success, first)
    else:
        rate, solved = np.zeros(0), np.zeros(0, bool)
    problems = pl.DataFrame({"fid": f[first], "target": target[first], "rate": rate, "solved": solved},
                            schema={"fid": pl.UInt32, "target": pl.Float64, "rate": pl.Float64, "solved": pl.Boolean})
    return _Data(trials, funcs, problems.join(funcs, on="fid", how="left", maintain_order="left"))


def prepare(hits: pl.DataFrame | _Data) -> _Data:
    """An eager frame of hitting times prepared for `ecdf_table` and `summary_table` (which take either):
    prepared once, it serves both tables of the same hits."""
    return hits if isinstance(hits, _Data) else _prepare(hits)


def _trial_order(trials: pl.DataFrame) -> np.ndarray:
    """The order by fid, target, trial (run_id where trial numbers repeat)."""
    rid = trials["run_id"].to_numpy()
    return restarts.trial_order(trials["fid"].to_numpy(), trials["target"].to_numpy(), trials["trial"].to_numpy(),
                                rid, run=rid)


def _limits(data: _Data, mode: str, max_budget, max_x) -> pl.DataFrame:
    """`x_limits` of the prepared trials."""
    longest = data.trials.group_by("fid").agg(pl.col("evaluations").max()).join(data.funcs, on="fid")
    return x_limits(longest, mode, max_budget, max_x)


def _members(problems: pl.DataFrame, group) -> pl.DataFrame:
    """(suite, function, group) for the requested levels and names."""
    levels, names = select_levels(group)
    m = membership(problems.lazy().select("suite", "function"), levels).collect()
    m = m.with_columns(pl.col("function").cast(problems.schema["function"]))
    if names is None:
        return m
    missing = sorted(names - set(m["group"].unique().to_list()))
    if missing and problems.height:
        known = membership(problems.lazy().select("suite", "function")).collect()["group"].unique().to_list()
        fn = sorted((g for g in known if g.startswith("f") and g[1:].isdigit()), key=lambda g: int(g[1:]))
        other = sorted(g for g in known if g not in fn)
        raise ValueError(f"group {missing[0]!r} is not in the selection; groups: {', '.join(other)}, "
                         f"{fn[0]}..{fn[-1]}" if fn else f"group {missing[0]!r} is not in the selection")
    return m.filter(pl.col("group").is_in(sorted(names)))


# -- atoms: (problem, x, mass), the mass of a problem summing to at most 1 ------------------------------
def _trial_atoms(trials: pl.DataFrame) -> pl.DataFrame:
    """The trials' own hitting times, each weighing its share of the problem's (balanced) trials."""
    return (
        trials.with_columns(mass=pl.col("weight") / pl.col("weight").sum().over("fid", "target"))
        .filter(pl.col("success"))
        .select("fid", value=pl.col("cost"), mass=pl.col("mass"))
    )


def sample_size(trial_counts: np.ndarray, samples: int) -> int:
    """cocopp's samples per problem: K * max(2, samples // K), K the largest trial count."""
    k = int(np.max(trial_counts))
    return k * max(2, samples // k)


class _Block(NamedTuple):
    """The trials of one (suite, algorithm, dimension), with its own generator: problem keys (fid)
    and, per trial repeated by its weight, its problem `gid`, `cost` and `success`; trials per
    problem `n` and cocopp's sample size."""

    keys: np.ndarray
    gid: np.ndarray
    cost: np.ndarray
    success: np.ndarray
    n: np.ndarray
    size: int
    rng: np.random.Generator


def _blocks(data: _Data, samples: int, seed: int) -> Iterator[_Block]:
    """Every (suite, algorithm, dimension) of the trials (sorted by fid, target, trial: one block
    each), with a generator seeded by the key, so a result does not depend on what else is selected."""
    trials, funcs = data.trials, data.funcs
    fid, target = trials["fid"].to_numpy().astype(np.int64), trials["target"].to_numpy()
    rep_all = np.maximum(trials["weight"].to_numpy().astype(np.int64), 1)  # balanced columns, as cocopp
    cost_all, success_all = trials["cost"].to_numpy(), trials["success"].to_numpy()
    repeat = np.repeat if np.any(rep_all > 1) else lambda a, rep: a  # no copies where every weight is 1
    new_key = np.r_[True, np.any([funcs[c].to_numpy()[1:] != funcs[c].to_numpy()[:-1] for c in KEY], axis=0)]
    key_start = np.flatnonzero(new_key)
    bounds = np.r_[np.searchsorted(fid, key_start), len(fid)]
    for i, k in enumerate(key_start):
        lo, hi = bounds[i], bounds[i + 1]
        f, t = fid[lo:hi], target[lo:hi]
        first = np.r_[True, (f[1:] != f[:-1]) | (t[1:] != t[:-1])]
        keys = f[first]
        rep = rep_all[lo:hi]
        gid = repeat(np.cumsum(first) - 1, rep)
        n = np.bincount(gid, minlength=len(keys))
        key = tuple(funcs.row(int(k))[1:4])  # (suite, algorithm, dimension)
        yield _Block(keys, gid, repeat(cost_all[lo:hi], rep), repeat(success_all[lo:hi], rep), n,
                     sample_size(n, samples), restarts.block_rng(seed, key))


def _simulated_atoms(data: _Data, samples: int, seed: int) -> pl.DataFrame | tuple[np.ndarray, ...]:
    """Simulated restart runtimes, each sample weighing 1 / samples of its problem; one generator per
    (suite, algorithm, dimension), so a result does not depend on what else is selected. Arrays
    (fid, value, mass) where there are any."""
    empty = pl.DataFrame(schema={"fid": pl.UInt32, "value": pl.Float64, "mass": pl.Float64})
    if not data.trials.height:
        return empty
    parts = []
    for b in _blocks(data, samples, seed):
        sg, rt = restarts.simulate(b.gid, b.cost, b.success, len(b.keys), b.size, b.rng, first_deterministic=True)
        per = np.bincount(sg, minlength=len(b.keys))  # samples drawn per problem (a multiple of its trials)
        parts.append((b.keys[sg], rt, 1.0 / per[sg]))
    return tuple(np.concatenate(x) for x in zip(*parts))


class _Counted(NamedTuple):
    """Atoms of equal mass per function given as (fid, value, count): `count` atoms of mass
    `mass[fid]` each, as many as `_simulated_atoms` draws (a problem whose trials all succeed draws
    its trials, each size / n times: counted, not drawn)."""

    fid: np.ndarray
    value: np.ndarray
    count: np.ndarray
    mass: np.ndarray


def _simulated_counts(data: _Data, samples: int, seed: int) -> _Counted:
    """`_simulated_atoms` counted: the same generators draw the same restarts (only problems with an
    unsuccessful trial draw anything), the samples of problems whose trials all succeed are counted."""
    fids, values, counts = [np.zeros(0, np.int64)], [np.zeros(0)], [np.zeros(0, np.int64)]
    mass = np.zeros(data.funcs.height)
    if not data.trials.height:
        return _Counted(fids[0], values[0], counts[0], mass)
    for keys, gid, cost, success, n, size, rng in _blocks(data, samples, seed):
        nsucc = np.bincount(gid, weights=success, minlength=len(keys))
        per = (np.ceil(size / np.maximum(n, 1)) * n).astype(np.int64)  # samples per problem, as `simulate`
        mass[keys[nsucc > 0]] = 1.0 / per[nsucc > 0]
        whole = (nsucc == n) & (n > 0)
        mixed = np.flatnonzero(~whole & (nsucc > 0))
        if len(mixed):
            at = np.full(len(keys), -1)
            at[mixed] = np.arange(len(mixed))
            sub = at[gid] >= 0
            sg, rt = restarts.simulate(at[gid[sub]], cost[sub], success[sub], len(mixed), size, rng, True)
            fids.append(keys[mixed][sg])
            values.append(rt)
            counts.append(np.ones(len(rt), np.int64))
        w = whole[gid]
        fids.append(keys[gid[w]])
        values.append(cost[w].astype(float))
        counts.append(per[gid[w]] // n[gid[w]])
    return _Counted(np.concatenate(fids), np.concatenate(values), np.concatenate(counts), mass)


def _equal_sums(count: np.ndarray, mass: np.ndarray) -> np.ndarray:
    """`np.add.reduceat` over `count` copies of `mass`, element by element: the sum `_steps` gives
    `count` merged atoms of equal mass (the same additions, in the same order)."""
    out = np.empty(len(count))
    for m in np.unique(mass):
        at = np.flatnonzero(mass == m)
        ks, inv = np.unique(count[at], return_inverse=True)
        sums = np.add.reduceat(np.full(int(ks.sum()), m), np.cumsum(ks) - ks)
        out[at] = sums[inv.ravel()]
    return out


def _merge(values: np.ndarray, masses: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Atoms with equal values merged, sorted by value."""
    u, inv = np.unique(values, return_inverse=True)
    return u, np.bincount(inv.ravel(), weights=masses, minlength=len(u))


def _distinct(values: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A discrete distribution: distinct values and their probabilities."""
    v, w = _merge(values, weights)
    return v, w / w.sum()


class _Prefixes:
    """Distributions D_k of the sum of k unsuccessful trials drawn uniformly, cut at a budget, cached
    per set of unsuccessful trials (harder targets of a function often share it)."""

    def __init__(self) -> None:
        self.cache: dict[tuple, list[tuple[np.ndarray, np.ndarray]]] = {}

    def get(self, fail_v: np.ndarray, fail_p: np.ndarray, budget: float, kmax: int) -> list[tuple[np.ndarray, np.ndarray]]:
        key = (fail_v.tobytes(), fail_p.tobytes(), budget)
        ds = self.cache.setdefault(key, [(np.zeros(1), np.ones(1))])
        total = sum(len(v) for v, _ in ds)
        while len(ds) < kmax and len(ds[-1][0]):
            v, m = ds[-1]
            total += len(v) * len(fail_v)
            if total > MAX_ATOMS:
                raise ValueError(f"exact ECDF: more than {MAX_ATOMS} restart sums of {len(fail_v)} distinct "
                                 f"unsuccessful budgets fit below {budget:g} evaluations; choose a smaller max_x "
                                 "(e.g. 'budget') or mode 'simulated'")
            nv = (v[:, None] + fail_v[None, :]).ravel()
            nm = (m[:, None] * fail_p[None, :]).ravel()
            keep = nv <= budget
            ds.append(_merge(nv[keep], nm[keep]))
        return ds[:kmax]


def restart_distribution(succ: np.ndarray, fail: np.ndarray, limit: float = math.inf,
                         succ_weights: np.ndarray | None = None, fail_weights: np.ndarray | None = None,
                         tail: float = TAIL, prefixes: _Prefixes | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The law of the simulated restart runtime T <= limit as atoms (values, probabilities).

    `succ`: hitting times of the successful trials, `fail`: evaluations of the unsuccessful ones
    (weights: instance balancing). P(T = s + f_1 + ... + f_k) = p q^k P(S = s) P(F_1 + ... + F_k = f),
    summed exactly over k until q^k < tail; atoms beyond `limit` are left out. No success: no atoms.
    """
    ws = np.ones(len(succ)) if succ_weights is None else np.asarray(succ_weights, float)
    wf = np.ones(len(fail)) if fail_weights is None else np.asarray(fail_weights, float)
    if len(succ) == 0 or ws.sum() <= 0:
        return np.zeros(0), np.zeros(0)
    sv, sp = _distinct(np.asarray(succ, float), ws)
    total_f = wf.sum() if len(fail) else 0.0
    p = ws.sum() / (ws.sum() + total_f)
    if total_f == 0 or sv[0] > limit:
        keep = sv <= limit
        return sv[keep], sp[keep]
    q = 1.0 - p
    kmax = int(math.ceil(math.log(tail) / math.log(q))) if q > 0 else 1  # q^k < tail for k >= kmax
    fv, fp = _distinct(np.asarray(fail, float), wf)
    ds = (prefixes or _Prefixes()).get(fv, fp, limit - sv[0], kmax)
    pv = np.concatenate([v for v, _ in ds])
    pm = np.concatenate([m * (p * q ** k) for k, (_, m) in enumerate(ds)])
    pv, pm = _merge(pv, pm)
    tv = (pv[:, None] + sv[None, :]).ravel()
    tm = (pm[:, None] * sp[None, :]).ravel()
    keep = tv <= limit
    return _merge(tv[keep], tm[keep])


def _exact_atoms(data: _Data, limits: pl.DataFrame) -> pl.DataFrame:
    """The closed-form law of the simulated restart runtime of every problem, cut at max_x * dimension."""
    lim = data.funcs.join(limits, on=KEY, how="left").select(
        "fid", limit=pl.col("max_x") * pl.col("dimension").cast(pl.Float64))
    df = data.trials.join(lim, on="fid", how="left", maintain_order="left")
    grouped = df.group_by(["fid", "target", "limit"], maintain_order=True).agg(
        succ=pl.col("cost").filter(pl.col("success")), succ_w=pl.col("weight").filter(pl.col("success")),
        fail=pl.col("cost").filter(~pl.col("success")), fail_w=pl.col("weight").filter(~pl.col("success")),
    ).filter(pl.col("succ").list.len() > 0)
    prefixes = _Prefixes()
    rows, values, masses = [], [], []
    for i, r in enumerate(grouped.select("succ", "succ_w", "fail", "fail_w", "limit").iter_rows()):
        v, m = restart_distribution(np.asarray(r[0], float), np.asarray(r[2], float), r[4],
                                    np.asarray(r[1], float), np.asarray(r[3], float), prefixes=prefixes)
        rows.append(np.full(len(v), i))
        values.append(v)
        masses.append(m)
    idx = np.concatenate(rows) if rows else np.zeros(0, np.int64)
    return pl.DataFrame({"fid": grouped["fid"].to_numpy()[idx].astype(np.uint32),
                         "value": np.concatenate(values) if values else np.zeros(0),
                         "mass": np.concatenate(masses) if masses else np.zeros(0)})


# -- tables ---------------------------------------------------------------------------------------------
def ecdf_table(hits: pl.DataFrame | _Data, group=None, mode: str = "simulated", samples: int = 100, seed: int = 1,
               max_budget: Budget | None = None, max_x: float | str | None = None) -> pl.DataFrame:
    """The step table of an eager frame of hitting times, or of the same `prepare`d (see `ecdf`)."""
    if mode not in MODES:
        raise ValueError(f"mode {mode!r}: expected one of {', '.join(MODES)}")
    if samples < 1:
        raise ValueError(f"samples {samples}: expected a positive number")
    data = prepare(hits)
    members = _members(data.problems, group)
    limits = _limits(data, mode, max_budget, max_x)
    if mode == "trials":
        atoms = _trial_atoms(data.trials)
    elif mode == "simulated":
        atoms = _simulated_counts(data, samples, seed)
    else:
        atoms = _exact_atoms(data, limits)
    return _steps(atoms, data, members, limits)


def _sorted_by(key: np.ndarray, x: np.ndarray, mass: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(key, x, mass) sorted by key, then x, as `np.lexsort((x, key))` orders them: ties of x within a
    key keep their order where the key's masses differ (so that sums of tied masses do not depend on
    the sort). Keys in ascending blocks (as atoms come) are sorted block by block."""
    if not len(key):
        return key, x, mass
    rep = np.zeros(int(key.max()) + 1)
    rep[key] = mass
    uniform = bool(np.all(rep[key] == mass))  # one mass per key: tied atoms are interchangeable
    change = np.flatnonzero(key[1:] != key[:-1]) + 1
    if np.all(key[change] > key[change - 1]) and len(change) < len(key) // 16:
        bounds = np.r_[0, change, len(key)]
        if uniform:
            return key, np.concatenate([np.sort(x[lo:hi]) for lo, hi in zip(bounds[:-1], bounds[1:])]), mass
        order = np.concatenate([lo + np.argsort(x[lo:hi], kind="stable") for lo, hi in zip(bounds[:-1], bounds[1:])])
    else:
        o = np.argsort(x) if uniform else np.argsort(x, kind="stable")
        k = key[o]
        order = o[np.argsort(k.astype(np.uint16) if k.max() < 2 ** 16 else k, kind="stable")]
    return key[order], x[order], mass[order]


def _steps(atoms: pl.DataFrame | tuple[np.ndarray, ...], data: _Data, members: pl.DataFrame, limits: pl.DataFrame
           ) -> pl.DataFrame:
    """Cumulative fractions per (suite, algorithm, dimension, group) from atoms (fid, value, mass; a
    frame or arrays):
    each problem weighs 1 / (problems in the group); one row per distinct x <= max_x."""
    n = data.problems.group_by("fid").agg(n=pl.len())
    funcs = data.funcs.join(n, on="fid", how="left").join(limits, on=KEY, how="left").sort("fid")
    link = funcs.join(members, on=["suite", "function"])
    cells = link.group_by(*KEY, "group").agg(n=pl.col("n").sum()).sort(*KEY, "group").with_row_index("cell")
    link = link.join(cells.select(*KEY, "group", "cell"), on=[*KEY, "group"]).sort("cell", "fid")
    dim, lim = funcs["dimension"].to_numpy().astype(float), funcs["max_x"].to_numpy()
    if isinstance(atoms, _Counted):  # equal masses per function: one atom per (function, x), counted
        fid = atoms.fid.astype(np.int64)
        x = atoms.value / dim[fid]
        keep = (x <= lim[fid]) & (atoms.mass[fid] > 0)
        fid, x, count = fid[keep], x[keep], atoms.count[keep]
        # by function (one stable integer sort), then each function's atoms by x alone (tied x of a function:
        # their counts add up, in any order)
        order = np.argsort(fid.astype(np.uint16) if funcs.height < 2 ** 16 else fid, kind="stable")
        fid, x = fid[order], x[order]
        bounds = np.r_[0, np.flatnonzero(fid[1:] != fid[:-1]) + 1, len(fid)].tolist()
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            by_x = np.argsort(x[lo:hi])
            x[lo:hi], order[lo:hi] = x[lo:hi][by_x], order[lo:hi][by_x]
        count = count[order]
        if len(x):
            first = np.flatnonzero(np.r_[True, (fid[1:] != fid[:-1]) | (x[1:] != x[:-1])])
            fid, x = fid[first], x[first]
            mass = _equal_sums(np.add.reduceat(count, first), atoms.mass[fid])
        else:
            mass = np.zeros(0)
    else:
        if isinstance(atoms, pl.DataFrame):
            atoms = atoms["fid"].to_numpy(), atoms["value"].to_numpy(), atoms["mass"].to_numpy()
        fid, value, mass = atoms
        fid = fid.astype(np.int64)
        x = value / dim[fid]
        keep = (x <= lim[fid]) & (mass > 0)
        fid, x, mass = _sorted_by(fid[keep], x[keep], mass[keep])
        if len(x):  # one atom per (function, x)
            first = np.flatnonzero(np.r_[True, (fid[1:] != fid[:-1]) | (x[1:] != x[:-1])])
            fid, x, mass = fid[first], x[first], np.add.reduceat(mass, first)
    # every atom of a function once for each group the function is in: per group, the functions' atoms
    # one after the other in function order, then sorted by x (ties in function order)
    f_start = np.searchsorted(fid, np.arange(funcs.height))
    f_len = np.searchsorted(fid, np.arange(funcs.height), side="right") - f_start
    lf, lc = link["fid"].to_numpy().astype(np.int64), link["cell"].to_numpy().astype(np.int64)
    take = np.repeat(f_start[lf], f_len[lf]) + (np.arange(f_len[lf].sum()) - np.repeat(np.cumsum(f_len[lf]) - f_len[lf], f_len[lf]))
    cell, x, mass = _sorted_by(np.repeat(lc, f_len[lf]), x[take], mass[take])
    # one row per (cell, x)
    change = np.r_[True, (cell[1:] != cell[:-1]) | (x[1:] != x[:-1])] if len(x) else np.zeros(0, bool)
    first = np.flatnonzero(change)
    mass = np.add.reduceat(mass, first) if len(first) else mass
    cell, x = cell[first], x[first]
    # cumulative per group on its own, so that a group's fractions do not depend on what else is selected
    bounds = np.r_[np.flatnonzero(np.r_[True, cell[1:] != cell[:-1]]), len(cell)] if len(cell) else np.zeros(1, np.int64)
    cum = np.concatenate([np.cumsum(mass[lo:hi]) for lo, hi in zip(bounds[:-1], bounds[1:])]) if len(cell) else mass
    n = cells["n"].to_numpy().astype(float)
    fraction = np.minimum(cum / n[cell], 1.0)
    out = cells.select(*KEY, "group")[cell].with_columns(x=pl.Series(x, dtype=pl.Float64),
                                                         fraction=pl.Series(fraction, dtype=pl.Float64))
    return out.select(list(STEP_SCHEMA)).cast(dict(STEP_SCHEMA))


def summary_table(hits: pl.DataFrame | _Data, group=None, mode: str = "simulated",
                  max_budget: Budget | None = None, max_x: float | str | None = None) -> pl.DataFrame:
    """The summary of an eager frame of hitting times, or of the same `prepare`d (see `ecdf_summary`)."""
    data = prepare(hits)
    members = _members(data.problems, group)
    limits = _limits(data, mode, max_budget, max_x)
    per_problem = data.problems.join(members, on=["suite", "function"], maintain_order="left").group_by(
        *KEY, "group").agg(
        final_fraction=pl.col("rate").mean(), solvable_fraction=pl.col("solved").mean(),
        functions=pl.col("function").n_unique(),
    )
    runs = (data.trials.unique("run_id").select("fid", "instance", "evaluations").join(data.funcs, on="fid")
            .join(members, on=["suite", "function"]))
    per_run = runs.group_by(*KEY, "group").agg(
        median_max_evaluations=(pl.col("evaluations").cast(pl.Float64) / pl.col("dimension")).median(),
        trials=pl.len(),
    )
    targets = data.problems.group_by("fid").agg(t=pl.len())
    out = (
        per_problem.join(per_run, on=[*KEY, "group"])
        .join(limits, on=KEY, how="left")
        .join(runs.unique(["fid", "instance", "group"]).join(targets, on="fid")
              .group_by(*KEY, "group").agg(problems=pl.col("t").sum()), on=[*KEY, "group"])
        .sort(*KEY, "group")
    )
    return out.select(list(SUMMARY_SCHEMA)).cast(dict(SUMMARY_SCHEMA))


def check(mode: str = "simulated", max_budget: Budget | None = None, max_x: float | str | None = None) -> None:
    """A ValueError for an unknown mode or a bad plotted range (before anything is computed)."""
    if mode not in MODES:
        raise ValueError(f"mode {mode!r}: expected one of {', '.join(MODES)}")
    _range_spec(mode, max_budget, max_x)


def _lazy(hits: pl.LazyFrame, build, schema: pl.Schema) -> pl.LazyFrame:
    return hits.map_batches(build, schema=schema, streamable=False)


def ecdf(hits: pl.LazyFrame, group: str | Sequence[str] | None = None, mode: str = "simulated", samples: int = 100,
         seed: int = 1, max_budget: Budget | None = None, max_x: float | str | None = None) -> pl.LazyFrame:
    """Runtime ECDF step tables from hitting times (`pipeline.hits.spec.hitting_times`): one row per step,
    columns suite, algorithm, dimension, group, x (evaluations / dimension), fraction (cumulative).

    `group`: None for every level (fN, the suite's cocopp groups, "all"), or names to keep;
    `mode`: simulated, exact or trials; `max_budget` (a `Budget`) or `max_x`: the plotted range
    (see the module)."""
    check(mode, max_budget, max_x)
    return _lazy(hits, lambda df: ecdf_table(df, group, mode, samples, seed, max_budget, max_x), STEP_SCHEMA)


def ecdf_summary(hits: pl.LazyFrame, group: str | Sequence[str] | None = None,
                 max_budget: Budget | None = None, mode: str = "simulated",
                 max_x: float | str | None = None) -> pl.LazyFrame:
    """One row per (suite, algorithm, dimension, group): final_fraction (the dot: successes / runs over
    the group's problems), solvable_fraction, max_x (the plotted range of `mode`), median_max_evaluations
    (the cross: median of the trials' evaluations / dimension), problems (function x target x instance),
    functions, trials."""
    check(mode, max_budget, max_x)
    return _lazy(hits, lambda df: summary_table(df, group, mode, max_budget, max_x), SUMMARY_SCHEMA)
