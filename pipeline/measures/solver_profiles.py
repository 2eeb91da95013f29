"""Performance profiles (Dolan and Moré 2002), data profiles (Moré and Wild 2009) and log-ratio profiles of two
algorithms, as OptiProfiler 2.0.0 computes them.

```sh
cocopipe performance-profile --store cocopipe-store --max-tol-order 6 --out perf.csv
cocopipe data-profile --store cocopipe-store --dimension 2,3 --out data.csv
cocopipe log-ratio-profile --store cocopipe-store --a-name DIRECT --b-name NM --out log_ratio.csv
cocopipe chart performance-profile --store cocopipe-store --out perf.html
```

As OptiProfiler 2.0.0 computes its history-based profiles (`optiprofiler.scoring.compute_convergence_work`,
`optiprofiler.plotting._get_performance_data_profile_axes`, `_get_log_ratio_profile_axes`;
`pipeline.measures.solver_profiles`), from E. D. Dolan and J. J. Moré, "Benchmarking optimization software
with performance profiles", Math. Program. 91 (2002) 201-213, and J. J. Moré and S. M. Wild, "Benchmarking
derivative-free optimization algorithms", SIAM J. Optim. 20 (2009) 172-191:

- a **problem** is a (suite, function, dimension, instance, repetition), the repetition the trial's rank among
  the algorithm's trials of the instance (bbob: one per instance; IOHprofiler: the k-th runs of the algorithms
  meet as OptiProfiler's k-th runs); only the problems every compared algorithm of the suite ran are profiled
  (column `problems`);
- on a problem, f0 is the largest first recorded value of the compared algorithms (OptiProfiler has one x0
  for every solver; here each starts where it starts, and f0 is the worst start), fL the least value any of
  them reached, and a trial **passes** at tolerance tau when f(x0) - f >= (1 - tau)(f(x0) - fL), i.e. its
  best-so-far f <= max(tau f0 + (1 - tau) fL, fL); its **work** t is the evaluations of its first record that
  passes (none: it failed). Precisions where the optimum is known, the logged values (oriented) where it is
  not (column `quantity`): the test is the same under a shift;
- tolerances 10^-1 .. 10^-k, k = `--max-tol-order` (default 10, as OptiProfiler);
- **performance profile** rho_s(alpha) = |{p : t_ps / min_s' t_ps' <= alpha}| / P and **data profile**
  d_s(kappa) = |{p : t_ps / (n_p + 1) <= kappa}| / P (kappa in simplex gradients, n_p the dimension): a row
  per step (suite, quantity, algorithm, tolerance, ratio, fraction, problems). OptiProfiler averages the
  profiles of its runs, each over the same problems: the fraction over every (problem, run) pair is that
  mean. The charts draw the ratio on a log2 axis, as OptiProfiler does;
- **log-ratio profile** of a and b (`--a-name`, `--b-name`; default the selection's first two, alphabetically):
  log2(t_pa) - log2(t_pb) per problem (negative: a needed less work), sorted (`position`), a problem only b
  solved at 1.1 m and one only a solved at -1.1 m (`value`), m the largest |log ratio| of the problems both
  solved; a problem neither solved has no `value` (OptiProfiler draws it once at each end). fL and f0 are
  those of a and b alone.

Parity: tests/test_solver_profiles.py holds these equal to OptiProfiler's own functions on the same
histories (the COCO sample, IOHinspector's SO_Data and the MA-BBOB baselines; tests/fixtures/solver_profiles,
made by `make_oracle.py` in a scratch virtualenv: OptiProfiler is no dependency of cocopipe).


Examples
--------
Two algorithms on one problem in 2-D whose starts are 100 and 10 and whose best values reach 1 and 0.5:
f0 = 100, fL = 0.5, at tau = 0.1 the test is f <= 10.45, passed by A after 4 evaluations and by B at its
first; B has ratio 1, A ratio 4, both solve it (data profile: 4 / 3 and 1 / 3 simplex gradients).

>>> import polars as pl
>>> runs = pl.LazyFrame({"run_id": [1, 2], "suite": "bbob", "algorithm": ["A", "B"], "function": 1,
...                      "dimension": 2, "instance": 1, "trial": 0})
>>> events = pl.LazyFrame({"run_id": [1, 1, 2, 2], "evaluations": [1, 4, 1, 9], "best_delta": [100.0, 1.0, 10.0, 0.5]})
>>> w = work(runs, events, [0.1])
>>> performance_profile(w).select("algorithm", "ratio", "fraction").collect().rows()
[('A', 4.0, 1.0), ('B', 1.0, 1.0)]
>>> data_profile(w).select("algorithm", "ratio").collect().rows()
[('A', 1.3333333333333333), ('B', 0.3333333333333333)]
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .registry import Inputs, Interval, Measure, Param, TEXT, NONE, register, settings_class

if TYPE_CHECKING:
    import polars as pl

#: a profile problem: a (suite, function, dimension, instance) and the rank of the trial on it
PROFILE_PROBLEM = ("suite", "function", "dimension", "instance", "repetition")
#: a profile's rows: per (suite, quantity, algorithm, tolerance) its steps from the least ratio up
KEYS = ("suite", "quantity", "algorithm", "tolerance", "ratio")
DESCENDING = (False, False, False, True, False)
LOG_RATIO_KEYS = ("suite", "quantity", "tolerance", "position")
LOG_RATIO_DESCENDING = (False, False, True, False)
#: OptiProfiler's factor beyond the largest ratio where failures are drawn
FAIL_FACTOR = 1.1


def tolerances(max_tol_order: int) -> list[float]:
    """OptiProfiler's tolerances 10^-1 .. 10^-max_tol_order (as `10**(-i)` computes them)."""
    return [10 ** (-i) for i in range(1, max_tol_order + 1)]


def _trials(runs: pl.LazyFrame, events: pl.LazyFrame) -> pl.LazyFrame:
    """Per trial of a problem every compared algorithm ran: its problem, first and least recorded values."""
    import polars as pl

    inst = ["suite", "algorithm", "function", "dimension", "instance"]
    trials = runs.select("run_id", *inst, "trial").with_columns(
        repetition=(pl.col("trial").rank("ordinal").over(inst) - 1).cast(pl.Int64))
    values = (events.sort("run_id", "evaluations").group_by("run_id")
              .agg(first=pl.col("best_delta").first().cast(pl.Float64), least=pl.col("best_delta").min()
                   .cast(pl.Float64)))
    trials = trials.join(values, on="run_id", how="inner")
    compared = pl.col("algorithm").n_unique()
    return (trials.with_columns(n=compared.over(list(PROFILE_PROBLEM)), of=compared.over("suite"))
            .filter(pl.col("n") == pl.col("of")).drop("n", "of", "trial"))


def work(runs: pl.LazyFrame, events: pl.LazyFrame, taus: Sequence[float]) -> pl.LazyFrame:
    """The work of every trial at every tolerance (OptiProfiler's convergence test, the module).

    Parameters
    ----------
    runs : polars.LazyFrame
        Trials: run_id, suite, algorithm, function, dimension, instance, trial.
    events : polars.LazyFrame
        Their records: run_id, evaluations, best_delta (best-so-far precision or oriented value).
    taus : sequence of float
        Tolerances in (0, 1).

    Returns
    -------
    polars.LazyFrame
        `PROFILE_PROBLEM`, algorithm, tolerance, f0, fL, threshold, work (evaluations of the first passing record;
        null: never passed).
    """
    import polars as pl

    trials = _trials(runs, events).with_columns(
        f0=pl.col("first").max().over(list(PROFILE_PROBLEM)), fL=pl.col("least").min().over(list(PROFILE_PROBLEM)))
    trials = trials.with_columns(fL=pl.min_horizontal("fL", "f0"))
    tau = pl.LazyFrame({"tolerance": [float(t) for t in taus]})
    # tau * f0 + (1 - tau) * fL in OptiProfiler's order of operations, and never below fL
    limit = pl.col("tolerance") * pl.col("f0") + (1.0 - pl.col("tolerance")) * pl.col("fL")
    cells = trials.join(tau, how="cross").with_columns(threshold=pl.max_horizontal(limit, pl.col("fL")))
    # the first passing record: the largest running best at or below the threshold (the running best never
    # rises), its first evaluation; an as-of join, not records x tolerances
    best = (events.select("run_id", "evaluations", "best_delta").sort("run_id", "evaluations")
            .with_columns(best=pl.col("best_delta").cum_min().over("run_id"))
            .group_by("run_id", "best").agg(work=pl.col("evaluations").min().cast(pl.Int64)).sort("best"))
    passed = (cells.select("run_id", "tolerance", "threshold").sort("threshold")
              .join_asof(best, left_on="threshold", right_on="best", by="run_id", strategy="backward",
                         check_sortedness=False)  # both sorted by their key above
              .select("run_id", "tolerance", "work"))
    return (cells.join(passed, on=["run_id", "tolerance"], how="left")
            .select(*PROFILE_PROBLEM, "algorithm", "tolerance", "f0", "fL", "threshold", "work"))


def _steps(ratios: pl.LazyFrame) -> pl.LazyFrame:
    """The steps of each (suite, algorithm, tolerance)'s profile from its problems' `ratio` (null: failed)."""
    import polars as pl

    line = ["suite", "algorithm", "tolerance"]
    counted = ratios.with_columns(problems=pl.len().over(line).cast(pl.Int64))
    solved = (counted.filter(pl.col("ratio").is_not_null())
              .group_by(*line, "ratio").agg(count=pl.len(), problems=pl.col("problems").first())
              .sort(*line, "ratio")
              .with_columns(fraction=pl.col("count").cum_sum().over(line) / pl.col("problems")))
    return solved.select(*line, "ratio", "fraction", "problems").sort(line[:2] + ["tolerance", "ratio"],
                                                                         descending=[False, False, True, False])


def performance_profile(w: pl.LazyFrame) -> pl.LazyFrame:
    """Dolan and Moré's performance profile of each algorithm and tolerance from `work`: steps (ratio = work /
    least work of any algorithm on the problem, fraction of the problems solved within it, problems)."""
    import polars as pl

    best = pl.col("work").min().over([*PROFILE_PROBLEM, "tolerance"]).cast(pl.Float64)
    return _steps(w.with_columns(ratio=pl.col("work").cast(pl.Float64) / best))


def data_profile(w: pl.LazyFrame) -> pl.LazyFrame:
    """Moré and Wild's data profile of each algorithm and tolerance from `work`: steps (ratio = work / (n + 1),
    simplex gradients, fraction of the problems solved within it, problems)."""
    import polars as pl

    return _steps(w.with_columns(ratio=pl.col("work").cast(pl.Float64) / (pl.col("dimension") + 1)))


def log_ratio_profile(w: pl.LazyFrame, a: str, b: str) -> pl.LazyFrame:
    """The log-ratio profile of algorithms `a` and `b` from `work`: per (suite, tolerance) a row per problem, in
    the drawn order (position from 1), a, b (the names), work_a, work_b, log_ratio = log2(work_a) - log2(work_b) (null unless both
    solved), solved ("both", "a", "b", "neither": who passed) and value (log_ratio; 1.1 m when only b solved,
    -1.1 m when only a did, m the largest |log_ratio| or machine epsilon; null when neither)."""
    import polars as pl

    key = [*PROFILE_PROBLEM, "tolerance"]
    pick = w.filter(pl.col("algorithm").is_in([a, b]))
    side = [pick.filter(pl.col("algorithm") == n).select(*key, pl.col("work").alias(f"work_{c}"))
            for n, c in ((a, "a"), (b, "b"))]
    both = side[0].join(side[1], on=key, how="inner")
    ok_a, ok_b = pl.col("work_a").is_not_null(), pl.col("work_b").is_not_null()
    ratio = pl.col("work_a").cast(pl.Float64).log(2) - pl.col("work_b").cast(pl.Float64).log(2)
    group = ["suite", "tolerance"]
    eps = float(2.0 ** -52)
    m = pl.col("log_ratio").abs().max().over(group).fill_null(eps)
    m = pl.when((m == 0) | m.is_nan()).then(eps).otherwise(m)
    solved = (pl.when(ok_a & ok_b).then(pl.lit("both")).when(ok_a).then(pl.lit("a")).when(ok_b).then(pl.lit("b"))
              .otherwise(pl.lit("neither")))
    value = (pl.when(ok_a & ok_b).then("log_ratio").when(ok_b).then(FAIL_FACTOR * m)
             .when(ok_a).then(-FAIL_FACTOR * m).otherwise(None))
    table = (both.with_columns(log_ratio=pl.when(ok_a & ok_b).then(ratio), solved=solved)
             .with_columns(value=value)
             .sort(*group, "value", *PROFILE_PROBLEM, descending=[False, True, False, *[False] * len(PROFILE_PROBLEM)],
                   nulls_last=True)
             .with_columns(position=(pl.int_range(pl.len()).over(group) + 1).cast(pl.Int64)))
    return table.select("suite", "tolerance", "position", *PROFILE_PROBLEM[1:], pl.lit(a).alias("a"), pl.lit(b).alias("b"),
                        "work_a", "work_b", "log_ratio", "solved", "value")


# -- the declarations ------------------------------------------------------------------------------------------
MAX_TOL_ORDER = Param("max_tol_order", 10, (Interval(int, 1, 16),),
                      "Tolerances 10^-1 .. 10^-k of the convergence test (OptiProfiler's max_tol_order).")


def _work(inputs: Inputs, s) -> pl.LazyFrame:
    return work(inputs.runs(), inputs.records(), tolerances(s.max_tol_order))


def _labelled(table: pl.LazyFrame, inputs: Inputs) -> pl.LazyFrame:
    """`table` with the selection's quantity after the suite."""
    import polars as pl

    names = table.collect_schema().names()
    return table.with_columns(quantity=pl.lit(inputs.selection.quantity)).select(
        "suite", "quantity", *[c for c in names if c != "suite"])


def _performance(inputs: Inputs, s) -> pl.LazyFrame:
    return _labelled(performance_profile(_work(inputs, s)), inputs)


def _data(inputs: Inputs, s) -> pl.LazyFrame:
    return _labelled(data_profile(_work(inputs, s)), inputs)


def _pair(inputs: Inputs, s) -> tuple[str, str]:
    """The two algorithms of the log-ratio profile: `a_name` and `b_name` as set, else the first two of the
    selection in alphabetical order (a ValueError naming them when they are not two of its algorithms)."""
    names = sorted(inputs.runs().select("algorithm").unique().collect()["algorithm"].to_list())
    a = s.a_name if s.a_name is not None else next((n for n in names if n != s.b_name), "")
    b = s.b_name if s.b_name is not None else next((n for n in names if n != a), "")
    if names and (a == b or not {a, b} <= set(names)):
        raise ValueError(f"log_ratio_profile: a_name {a!r} and b_name {b!r} must be two algorithms of the "
                         f"selection ({', '.join(names)})")
    return a, b


def _log_ratio(inputs: Inputs, s) -> pl.LazyFrame:
    import polars as pl

    a, b = _pair(inputs, s)
    w = work(inputs.runs().filter(pl.col("algorithm").is_in([a, b])), inputs.records(), tolerances(s.max_tol_order))
    return _labelled(log_ratio_profile(w, a, b), inputs)


STEP_COLUMNS = (*KEYS, "fraction", "problems")
_COMMON = dict(inputs=("runs", "records"), groupable=False, split=("suite",), quantities=True, targets=False)

register(Measure(
    name="performance_profile", summary="Performance profiles (Dolan and Moré 2002) as OptiProfiler draws them.",
    seed="Dolan and Moré 2002; OptiProfiler 2.0.0", keys=KEYS, descending=DESCENDING,
    settings=settings_class("performance_profile", [MAX_TOL_ORDER]), spec=_performance, columns=STEP_COLUMNS,
    charts=("performance-profile",), command="performance-profile", **_COMMON))

register(Measure(
    name="data_profile", summary="Data profiles in simplex gradients (Moré and Wild 2009) as OptiProfiler draws them.",
    seed="Moré and Wild 2009; OptiProfiler 2.0.0", keys=KEYS, descending=DESCENDING,
    settings=settings_class("data_profile", [MAX_TOL_ORDER]), spec=_data, columns=STEP_COLUMNS,
    charts=("data-profile",), command="data-profile", **_COMMON))

register(Measure(
    name="log_ratio_profile", summary="Log-ratio profile of two algorithms' work, as OptiProfiler draws it.",
    seed="OptiProfiler 2.0.0 (log-ratio profiles)", keys=LOG_RATIO_KEYS, descending=LOG_RATIO_DESCENDING,
    settings=settings_class("log_ratio_profile", [
        MAX_TOL_ORDER,
        Param("a_name", None, (NONE, TEXT), "Algorithm a (default: the selection's first, alphabetically)."),
        Param("b_name", None, (NONE, TEXT), "Algorithm b (default: the selection's next, alphabetically).")]),
    spec=_log_ratio, columns=(*LOG_RATIO_KEYS, *PROFILE_PROBLEM[1:], "a", "b", "work_a", "work_b", "log_ratio", "solved",
                                                "value"),
    charts=("log-ratio-profile",), command="log-ratio-profile", **_COMMON))
