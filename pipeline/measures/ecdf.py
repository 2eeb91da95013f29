"""Runtime ECDFs: the fraction of (problem, run) pairs solved within a budget (seed 000, "Empirical
Distribution Functions"), as step tables per function, per function group and over all functions,
always per dimension.

A problem is a (function, target) pair of one dimension; every problem weighs the same, and problems
never solved count in the denominator. x = evaluations / dimension. Three modes:

- "simulated" (cocopp's `pprldmany` default): per problem, `size` simulated restart runtimes
  (`restarts.draw_restarts`, first trial deterministic, instances balanced), size = K * max(2, samples // K)
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

`ecdf_spec` and `ecdf_summary_spec` state the tables in Polars. `ecdf` and `ecdf_summary` (and their eager
forms `ecdf_table` and `summary_table`, which take hitting times `prepare`d once for both) compute them
from arrays (`pipeline.measures._kernels.ecdf_steps`): the same rows and x, and the same fractions up to
the order of their sums (tests/test_kernels.py).

Examples
--------
Two trials of one problem (f1 in 2-D): one reaches the target after 10 evaluations (x = 5), the other
stops after 100 without reaching it. The trials' own ECDF rises to 1/2 at x = 5; the simulated
restarts reach the target in every sample, some after restarts.

>>> import polars as pl
>>> from pipeline.measures.ecdf import ecdf
>>> hits = pl.LazyFrame({"run_id": [1, 2], "suite": "bbob", "algorithm": "A", "function": 1,
...                      "dimension": 2, "instance": [1, 2], "trial": [1, 2], "weight": 1, "target": 1.0,
...                      "evaluations": [10, 100], "hit": [10, None], "success": [True, False]})
>>> ecdf(hits, group="f1", mode="trials").select("x", "fraction").collect().rows()
[(5.0, 0.5)]
>>> ecdf(hits, group="f1", mode="exact", max_x=200).select("x", "fraction").collect().rows()
[(5.0, 0.5), (55.0, 0.75), (105.0, 0.875), (155.0, 0.9375)]
>>> ecdf(hits, group="f1", samples=4).select("fraction").collect()["fraction"].max()
1.0
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import polars as pl

from ..hits.budget import Budget
from ._kernels import ecdf_steps as kernel
from .generators import BLOCK, block_rng
from .groups import membership, select_levels
from .restarts import balanced_trials, draw_restarts
from ..vocabulary import ALGORITHM_DIMENSION

MODES = ("simulated", "exact", "trials")
#: cocopp's default right end of the ECDF plots (genericsettings.xlimit_pprldmany), evaluations / dimension
X_LIMIT = 1e7
#: the geometric tail of restarts left out by the exact mode
TAIL = 1e-12
#: the largest number of restart sums (of one set of unsuccessful trials) the exact mode enumerates
MAX_ATOMS = 2_000_000

STEP_SCHEMA = pl.Schema({"suite": pl.String, "algorithm": pl.String, "dimension": pl.Int64, "group": pl.String,
                         "x": pl.Float64, "fraction": pl.Float64})
SUMMARY_SCHEMA = pl.Schema({"suite": pl.String, "algorithm": pl.String, "dimension": pl.Int64, "group": pl.String,
                            "final_fraction": pl.Float64, "solvable_fraction": pl.Float64, "max_x": pl.Float64,
                            "median_max_evaluations": pl.Float64, "instance_targets": pl.Int64, "functions": pl.Int64,
                            "trials": pl.Int64})
Prepared = kernel.Prepared


def check(mode: str = "simulated", max_budget: Budget | None = None, max_x: float | str | None = None,
          samples: int = 1) -> None:
    """`InvalidSetting` for an unknown mode, a bad plotted range or sample count, before anything is computed:
    the declared settings of the ECDF (`catalog.MODE`, `catalog.MAX_X`, `catalog.SAMPLES_ECDF`) checking the
    arguments of this module's functions.

    Parameters
    ----------
    mode : str
        One of `MODES`.
    max_budget : Budget, optional
        The budget cut (evaluations, or N times the dimension: `Budget.parse("100x")`).
    max_x : float or str, optional
        The plotted range: a positive number, "budget" or "cocopp".
    samples : int
        Simulated restarts per problem (at least 1).

    Examples
    --------
    >>> check("bootstrap")
    Traceback (most recent call last):
    ...
    pipeline.measures.registry.InvalidSetting: mode 'bootstrap': expected one of simulated, exact, trials
    """
    from .checked import MAX_X, MODE, SAMPLES_ECDF

    for param, value in ((MODE, mode), (SAMPLES_ECDF, samples), (MAX_X, max_x)):
        param.check(value)


def _range_spec(mode: str, max_budget: Budget | None, max_x) -> tuple[str, float]:
    """How the plotted range is set: ("fixed", x), ("budget", 1) or ("evaluations", B); `max_x` as `check`
    takes it (checked again: `x_limits` is public)."""
    from .checked import MAX_X

    if MAX_X.check(max_x) is not None:
        if isinstance(max_x, str) and max_x in ("budget", "cocopp"):
            return ("budget", 1.0) if max_x == "budget" else ("fixed", X_LIMIT)
        return "fixed", float(max_x)
    if max_budget is not None:
        return ("fixed", max_budget.value) if max_budget.per_dimension else ("evaluations", max_budget.value)
    return ("budget", 1.0) if mode == "exact" else ("fixed", X_LIMIT)


def x_limits(trials: pl.DataFrame, mode: str = "simulated", max_budget=None, max_x=None) -> pl.DataFrame:
    """The plotted range max_x per (suite, algorithm, dimension) (see the module).

    Parameters
    ----------
    trials : polars.DataFrame
        The key columns (suite, algorithm, dimension) and `evaluations` of trials.
    mode, max_budget, max_x
        As `ecdf`.

    Returns
    -------
    polars.DataFrame
        suite, algorithm, dimension, max_x (evaluations / dimension).
    """
    kind, value = _range_spec(mode, max_budget, max_x)
    dims = trials.group_by(ALGORITHM_DIMENSION).agg(longest=pl.col("evaluations").max().cast(pl.Float64))
    dim = pl.col("dimension").cast(pl.Float64)
    expr = {"fixed": pl.lit(value), "budget": pl.col("longest") / dim, "evaluations": pl.lit(value) / dim}[kind]
    return dims.select(*ALGORITHM_DIMENSION, max_x=expr.cast(pl.Float64))


def members(problems: pl.DataFrame, group: str | Sequence[str] | None) -> pl.DataFrame:
    """(suite, function, group) of the requested groups of the functions of `problems` (suite, function).

    Raises ValueError naming the groups of the selection when a requested group is none of them.
    """
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


def sample_size(trial_counts: np.ndarray, samples: int) -> int:
    """cocopp's simulated runs per problem: K * max(2, samples // K), K the largest trial count."""
    k = int(np.max(trial_counts))
    return k * max(2, samples // k)


# -- the exact mode: the law of the simulated restart runtime --------------------------------------------
def _merge(values: np.ndarray, masses: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Atoms with equal values merged, sorted by value."""
    u, inv = np.unique(values, return_inverse=True)
    return u, np.bincount(inv.ravel(), weights=masses, minlength=len(u))


def _distinct(values: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A discrete distribution: distinct values and their probabilities."""
    v, w = _merge(values, weights)
    return v, w / w.sum()


class RestartSums:
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
                         tail: float = TAIL, prefixes: RestartSums | None = None) -> tuple[np.ndarray, np.ndarray]:
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
    ds = (prefixes or RestartSums()).get(fv, fp, limit - sv[0], kmax)
    pv = np.concatenate([v for v, _ in ds])
    pm = np.concatenate([m * (p * q ** k) for k, (_, m) in enumerate(ds)])
    pv, pm = _merge(pv, pm)
    tv = (pv[:, None] + sv[None, :]).ravel()
    tm = (pm[:, None] * sp[None, :]).ravel()
    keep = tv <= limit
    return _merge(tv[keep], tm[keep])


def exact_atoms(trials: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """The law of the simulated restart runtime of every (problem, target), up to its `limit`.

    Parameters
    ----------
    trials : polars.DataFrame
        One row per trial: the problem's `keys`, target, limit (evaluations), cost, success, weight.
    keys : list of str
        The columns naming a problem.

    Returns
    -------
    polars.DataFrame
        The `keys`, value (evaluations) and mass (probability) of each atom (`restart_distribution`).
    """
    grouped = trials.group_by([*keys, "target", "limit"], maintain_order=True).agg(
        succ=pl.col("cost").filter(pl.col("success")), succ_w=pl.col("weight").filter(pl.col("success")),
        fail=pl.col("cost").filter(~pl.col("success")), fail_w=pl.col("weight").filter(~pl.col("success")),
    ).filter(pl.col("succ").list.len() > 0)
    sums = RestartSums()
    rows, values, masses = [], [], []
    for i, r in enumerate(grouped.select("succ", "succ_w", "fail", "fail_w", "limit").iter_rows()):
        v, m = restart_distribution(np.asarray(r[0], float), np.asarray(r[2], float), r[4],
                                    np.asarray(r[1], float), np.asarray(r[3], float), prefixes=sums)
        rows.append(np.full(len(v), i))
        values.append(v)
        masses.append(m)
    idx = np.concatenate(rows) if rows else np.zeros(0, np.int64)
    return grouped.select(keys)[idx].with_columns(value=pl.Series(np.concatenate(values) if values else np.zeros(0)),
                                                  mass=pl.Series(np.concatenate(masses) if masses else np.zeros(0)))


# -- the definition ----------------------------------------------------------------------------------------
#: a problem keyed in the order of the ECDF lines (`vocabulary.PROBLEM` ordered by line, then function)
LINE_PROBLEM = [*ALGORITHM_DIMENSION, "function"]


def _atoms_spec(hits: pl.DataFrame, mode: str, samples: int, seed: int, limits: pl.DataFrame) -> pl.DataFrame:
    """(problem, target, value, mass) of every problem: the mass of each runtime of the `mode`."""
    w = pl.col("weight").cast(pl.Float64)
    if mode == "trials":  # each trial's own hitting time, weighing its share of the trials
        return hits.with_columns(mass=w / w.sum().over(*LINE_PROBLEM, "target")).filter("success").select(
            *LINE_PROBLEM, "target", value=pl.col("hit").cast(pl.Float64), mass="mass")
    trials = balanced_trials(hits.sort("run_id").lazy()).collect()  # trials of one number by run_id
    if mode == "simulated":  # sample_size simulated runs of every problem of a block, each weighing 1 / runs
        parts = []
        for block in trials.partition_by(BLOCK, maintain_order=True):
            size = sample_size(block.group_by("function", "target").len()["len"].to_numpy(), samples)
            runs = draw_restarts(block, size, block_rng(seed, block.select(BLOCK).row(0)))
            parts.append(runs.select(*LINE_PROBLEM, "target", value="runtime", mass=1.0 / pl.len().over(*LINE_PROBLEM, "target")))
        return pl.concat(parts) if parts else pl.DataFrame(schema={**{c: hits.schema[c] for c in LINE_PROBLEM},
                                                                   "target": pl.Float64, "value": pl.Float64,
                                                                   "mass": pl.Float64})
    by_trial = hits.sort(*LINE_PROBLEM, "target", "trial", "run_id").select(
        *LINE_PROBLEM, "target", "success", weight=w,
        cost=pl.when(pl.col("success")).then(pl.col("hit")).otherwise(pl.col("evaluations")).cast(pl.Float64))
    limit = limits.select(*ALGORITHM_DIMENSION, limit=pl.col("max_x") * pl.col("dimension").cast(pl.Float64))
    return exact_atoms(by_trial.join(limit, on=ALGORITHM_DIMENSION, how="left"), LINE_PROBLEM)


def _per_dimension(column: str) -> pl.Expr:
    """`column` / dimension, correctly rounded (Polars divides a column by a value broadcast over it, such
    as a key of a single group, through its reciprocal, which can differ in the last bit)."""
    return pl.map_batches([column, "dimension"], lambda s: pl.Series(s[0].to_numpy() / s[1].to_numpy().astype(float)),
                          return_dtype=pl.Float64)


def _inputs(hits: pl.DataFrame, group, mode, max_budget, max_x):
    """The problems (rate, solved), group members and plotted ranges of hitting times."""
    w = pl.col("weight").cast(pl.Float64)
    problems = hits.group_by(*LINE_PROBLEM, "target").agg(rate=(w * pl.col("success")).sum() / w.sum(),
                                                     solved=pl.col("success").any())
    return problems, members(problems, group), x_limits(hits, mode, max_budget, max_x)


def ecdf_spec(hits: pl.LazyFrame, group: str | Sequence[str] | None = None, *, mode: str = "simulated",
              samples: int = 100, seed: int = 1, max_budget: Budget | None = None,
              max_x: float | str | None = None) -> pl.LazyFrame:
    """The definition of `ecdf`: each problem's runtimes of the mode as masses, summed per group over x.

    Every problem (function, target) of a group weighs 1 / (the group's problems); the fraction at x
    is the mass of the runtimes at or below x * dimension. Parameters and Returns as `ecdf`.
    """
    check(mode, max_budget, max_x, samples)

    def build(df: pl.DataFrame) -> pl.DataFrame:
        df = df.with_columns(pl.col("dimension").cast(pl.Int64))
        problems, groups, limits = _inputs(df, group, mode, max_budget, max_x)
        counts = (problems.group_by(LINE_PROBLEM).len().join(groups, on=["suite", "function"])
                  .group_by(*ALGORITHM_DIMENSION, "group").agg(n=pl.col("len").sum()))
        atoms = _atoms_spec(df, mode, samples, seed, limits).join(limits, on=ALGORITHM_DIMENSION).with_columns(
            x=_per_dimension("value"))
        steps = (atoms.filter((pl.col("x") <= pl.col("max_x")) & (pl.col("mass") > 0))
                 .join(groups, on=["suite", "function"]).group_by(*ALGORITHM_DIMENSION, "group", "x").agg(pl.col("mass").sum())
                 .sort(*ALGORITHM_DIMENSION, "group", "x")
                 .join(counts, on=[*ALGORITHM_DIMENSION, "group"], maintain_order="left"))
        fraction = (pl.col("mass").cum_sum().over(*ALGORITHM_DIMENSION, "group") / pl.col("n")).clip(upper_bound=1.0)
        return steps.select(*ALGORITHM_DIMENSION, "group", "x", fraction=fraction).cast(dict(STEP_SCHEMA))

    return hits.map_batches(build, schema=STEP_SCHEMA, streamable=False)


def ecdf_summary_spec(hits: pl.LazyFrame, group: str | Sequence[str] | None = None, *, mode: str = "simulated",
                      max_budget: Budget | None = None, max_x: float | str | None = None) -> pl.LazyFrame:
    """The definition of `ecdf_summary`. Parameters and Returns as `ecdf_summary`."""
    check(mode, max_budget, max_x)

    def build(df: pl.DataFrame) -> pl.DataFrame:
        df = df.with_columns(pl.col("dimension").cast(pl.Int64))
        problems, groups, limits = _inputs(df, group, mode, max_budget, max_x)
        per_problem = problems.join(groups, on=["suite", "function"]).group_by(*ALGORITHM_DIMENSION, "group").agg(
            final_fraction=pl.col("rate").mean(), solvable_fraction=pl.col("solved").mean(),
            functions=pl.col("function").n_unique())
        runs = df.unique("run_id").select(*LINE_PROBLEM, "instance", "evaluations").join(groups, on=["suite", "function"])
        per_run = runs.group_by(*ALGORITHM_DIMENSION, "group").agg(
            median_max_evaluations=(pl.col("evaluations").cast(pl.Float64) / pl.col("dimension")).median(),
            trials=pl.len())
        targets = problems.group_by(LINE_PROBLEM).agg(t=pl.len())
        count = (runs.unique([*LINE_PROBLEM, "instance", "group"]).join(targets, on=LINE_PROBLEM)
                 .group_by(*ALGORITHM_DIMENSION, "group").agg(instance_targets=pl.col("t").sum()))
        out = (per_problem.join(per_run, on=[*ALGORITHM_DIMENSION, "group"]).join(limits, on=ALGORITHM_DIMENSION)
               .join(count, on=[*ALGORITHM_DIMENSION, "group"]))
        return out.sort(*ALGORITHM_DIMENSION, "group").select(list(SUMMARY_SCHEMA)).cast(dict(SUMMARY_SCHEMA))

    return hits.map_batches(build, schema=SUMMARY_SCHEMA, streamable=False)


# -- the tables, computed from arrays --------------------------------------------------------------------
def prepare(hits: pl.DataFrame | Prepared) -> Prepared:
    """Hitting times prepared once for `ecdf_table` and `summary_table` (which take either).

    Parameters
    ----------
    hits : polars.DataFrame
        First hitting times (`pipeline.hits.spec.hitting_times`), collected; `run_id` identifies a trial.

    Returns
    -------
    Prepared
        The trials as arrays, ordered, with their functions and problems.
    """
    return kernel.prepare_trials(hits)


def ecdf_table(hits: pl.DataFrame | Prepared, group=None, *, mode: str = "simulated", samples: int = 100,
               seed: int = 1, max_budget: Budget | None = None, max_x: float | str | None = None) -> pl.DataFrame:
    """`ecdf` of an eager frame of hitting times, or of the same `prepare`d. Parameters as `ecdf`."""
    check(mode, max_budget, max_x, samples)
    data = kernel.prepare_trials(hits)
    groups = members(data.problems, group)
    limits = x_limits(kernel.longest(data), mode, max_budget, max_x)
    if mode == "trials":
        atoms = kernel.trial_atoms(data.trials)
    elif mode == "simulated":
        atoms = kernel.simulated_counts(data, samples, seed)
    else:
        limit = data.funcs.join(limits, on=ALGORITHM_DIMENSION, how="left").select(
            "fid", limit=pl.col("max_x") * pl.col("dimension").cast(pl.Float64))
        atoms = exact_atoms(data.trials.join(limit, on="fid", how="left", maintain_order="left"), ["fid"])
    return kernel.step_table(atoms, data, groups, limits).select(list(STEP_SCHEMA)).cast(dict(STEP_SCHEMA))


def summary_table(hits: pl.DataFrame | Prepared, group=None, *, mode: str = "simulated",
                  max_budget: Budget | None = None, max_x: float | str | None = None) -> pl.DataFrame:
    """`ecdf_summary` of an eager frame of hitting times, or of the same `prepare`d. Parameters as `ecdf_summary`."""
    check(mode, max_budget, max_x)
    data = kernel.prepare_trials(hits)
    limits = x_limits(kernel.longest(data), mode, max_budget, max_x)
    out = kernel.summary_frame(data, members(data.problems, group), limits)
    return out.select(list(SUMMARY_SCHEMA)).cast(dict(SUMMARY_SCHEMA))


def ecdf(hits: pl.LazyFrame, group: str | Sequence[str] | None = None, *, mode: str = "simulated", samples: int = 100,
         seed: int = 1, max_budget: Budget | None = None, max_x: float | str | None = None) -> pl.LazyFrame:
    """Runtime ECDF step tables per (suite, algorithm, dimension, group).

    Parameters
    ----------
    hits : polars.LazyFrame
        First hitting times (`pipeline.hits.spec.hitting_times`).
    group : str or sequence of str, optional
        Groups to keep: "fN" (a function), a group of the suite (e.g. "separ"), "all"; None for every one.
    mode : str
        "simulated", "exact" or "trials" (the module).
    samples : int
        Simulated runs per problem in the simulated mode: K * max(2, samples // K), K trials.
    seed : int
        Seed of the simulated restarts (one generator per suite, algorithm and dimension).
    max_budget : Budget, optional
        The budget cut B (evaluations, or N times the dimension), whose B / dimension is the plotted range.
    max_x : float or str, optional
        The plotted range (evaluations / dimension): a number, "budget" or "cocopp" (the module).

    Returns
    -------
    polars.LazyFrame
        One row per step: suite, algorithm, dimension, group, x (evaluations / dimension) and fraction
        (cumulative), sorted by (suite, algorithm, dimension, group, x); `STEP_SCHEMA`.
    """
    check(mode, max_budget, max_x, samples)
    return hits.map_batches(lambda df: ecdf_table(df, group, mode=mode, samples=samples, seed=seed, max_budget=max_budget,
                                                    max_x=max_x),
                            schema=STEP_SCHEMA, streamable=False)


def ecdf_summary(hits: pl.LazyFrame, group: str | Sequence[str] | None = None, *, mode: str = "simulated",
                 max_budget: Budget | None = None, max_x: float | str | None = None) -> pl.LazyFrame:
    """One row per (suite, algorithm, dimension, group) of the ECDF of `mode`.

    Parameters
    ----------
    hits, group, max_budget, mode, max_x
        As `ecdf`.

    Returns
    -------
    polars.LazyFrame
        suite, algorithm, dimension, group; final_fraction (the dot: successes / runs over the group's
        problems), solvable_fraction, max_x (the plotted range of `mode`), median_max_evaluations (the
        cross: median of the trials' evaluations / dimension), instance_targets (how many (function,
        instance, target) triples: each function's targets times its instances), functions, trials;
        `SUMMARY_SCHEMA`.
    """
    check(mode, max_budget, max_x)
    return hits.map_batches(lambda df: summary_table(df, group, mode=mode, max_budget=max_budget, max_x=max_x),
                            schema=SUMMARY_SCHEMA, streamable=False)
