"""Target-free runtime profiles (seed 004, "Definition of Runtime Profiles without targets").

For function i (here a problem: suite, function, dimension) the profile function maps a
best-so-far precision f to

    P^i(f) = 1                                           if f <= f_inf
           = 0                                           if f >= f0 + delta
           = (T0 - T(f - f_inf + eps)) / (T0 - T(eps))   otherwise,   T0 = T(f0 - f_inf + delta + eps);

a trial's (monotone) profile is t -> max_{s<=t} P^i(f_s), and the aggregate over n functions with
m_i trials each is t -> 1/n sum_i sum_j max_{s<=t} P^i(f^{i,j}_s) / m_i (equal weight per
function). Times t are evaluations; the step table gives x = evaluations / dimension.

Parameters, each a rule name, a number (every function), or a frame with key columns among
suite/algorithm/function/dimension and a column named like the parameter. Defaults and why:

- transform "log10": COCO measures precision on a log scale (its targets are log-uniform), and
  with the default f_inf and eps the profile is then the limit of the runtime ECDF over
  infinitely many log-uniform targets between f0 and the final target. "linear" is x -> x.
- f0 "observed": the seed's definition, max over trials of the first recorded value (COCO logs
  the first evaluation, so this is the initial f-value).
- delta 0.0: the seed's choice "when the initial search point was evaluated", which COCO logs;
  "first-improvement" is the seed's alternative (largest first improvement over the trials).
- f_inf "target": COCO's f* + final target, i.e. the smallest positive precision of the suite's
  standard target set (1e-8; 1e-5 on the biobjective suites); "observed" is the seed's
  min over trials and times.
- eps "target": the seed's "COCO-bbob-default" eps = f_inf - f* = the same final target, so that
  T is applied to the precision itself; "improvement" is the seed's alternative, half the
  smallest nonzero improvement of the best-so-far value over the trials of the function (else
  over all functions, else the final target).
- shared True: parameters are computed over all algorithms of the selection, so that profiles of
  algorithms compared together use the same scale (the seed defines them for one data set;
  with per-algorithm parameters every algorithm's best trial would reach 1). False: per algorithm.

Where f0 + delta <= f_inf (no room between start and end) the cases overlap; a value <= f_inf
then counts 1 (reaching the end level is reaching it), which the seed leaves open.

Examples
--------
One trial in 2-D whose precision is 100 at its first evaluation, 1 after 10 and 1e-8 after 100: with
the defaults (f0 = 100, f_inf = eps = 1e-8, log10) the profile is (2 - log10 1) / (2 + 8) = 0.2 from
x = 5 on, and 1 from x = 50 on.

>>> import polars as pl
>>> from pipeline.measures.profiles import profile
>>> runs = pl.LazyFrame({"run_id": [1], "suite": "bbob", "algorithm": "A", "function": 1, "dimension": 2})
>>> events = pl.LazyFrame({"run_id": 1, "evaluations": [1, 10, 100], "best_delta": [100.0, 1.0, 1e-8]})
>>> profile(runs, events, group="f1").select("x", "value").collect().rows()
[(5.0, 0.2), (50.0, 1.0)]
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import polars as pl

from ..hits import targets as tg
from .groups import membership, select_levels
from .sums import ordered_sum

PROBLEM_KEYS = ["suite", "function", "dimension"]
STEP_KEYS = ["suite", "algorithm", "dimension", "group"]
PARAMETERS = ("f0", "delta", "f_inf", "eps")
#: rule names each parameter accepts besides numbers and frames
RULES = {"f0": ("observed",), "delta": ("first-improvement",), "f_inf": ("target", "observed"),
         "eps": ("target", "improvement")}
TRANSFORMS: dict[str, Callable[[pl.Expr], pl.Expr]] = {"log10": lambda e: e.log10(), "linear": lambda e: e}

Spec = str | float | int | pl.LazyFrame | pl.DataFrame


@dataclass(frozen=True)
class Settings:
    """The parameters of the profile function, as given (rules, numbers or frames)."""

    transform: str | Callable[[pl.Expr], pl.Expr] = "log10"
    f0: Spec = "observed"
    delta: Spec = 0.0
    f_inf: Spec = "target"
    eps: Spec = "target"
    shared: bool = True


def final_target(suite: str) -> float:
    """The smallest positive precision of the suite's standard target set (1e-8; biobj 1e-5)."""
    return min(t for t in tg.default(suite) if t > 0)


def _spec(name: str, value: Spec) -> Spec:
    """A parameter as a rule name, a float or a frame; numbers given as text become floats."""
    if isinstance(value, (pl.LazyFrame, pl.DataFrame)):
        return value.lazy()
    if isinstance(value, str):
        if value in RULES[name]:
            return value
        try:
            value = float(value)
        except ValueError:
            raise ValueError(f"{name} {value!r}: expected a number or one of {', '.join(RULES[name])}") from None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{name} {value!r}: expected a number, one of {', '.join(RULES[name])}, or a frame")
    if value != value:
        raise ValueError(f"{name} is NaN")
    return float(value)


def _transform(transform: str | Callable[[pl.Expr], pl.Expr]) -> Callable[[pl.Expr], pl.Expr]:
    if callable(transform):
        return transform
    if transform not in TRANSFORMS:
        raise ValueError(f"transform {transform!r}: expected one of {', '.join(TRANSFORMS)}")
    return TRANSFORMS[transform]


def profile_value(f: pl.Expr, f0: pl.Expr, delta: pl.Expr, f_inf: pl.Expr, eps: pl.Expr,
                  transform: str | Callable[[pl.Expr], pl.Expr] = "log10") -> pl.Expr:
    """P^i(f) of seed 004: 0 at or above f0 + delta, 1 at or below f_inf, affine in T(f - f_inf + eps) between."""
    t = _transform(transform)
    t0 = t(f0 - f_inf + delta + eps)
    inner = ((t0 - t(f - f_inf + eps)) / (t0 - t(eps))).clip(0.0, 1.0)
    return pl.when(f <= f_inf).then(1.0).when(f >= f0 + delta).then(0.0).otherwise(inner)


def _records(runs: pl.LazyFrame, events: pl.LazyFrame) -> pl.LazyFrame:
    """Events with the problem columns of their run."""
    keys = runs.select("run_id", "suite", "algorithm", "function", "dimension")
    return events.select("run_id", "evaluations", "best_delta").join(keys, on="run_id", how="inner")


def _final_target_expr() -> pl.Expr:
    """The final target of each row's suite (conventions.is_biobjective: a suite named *biobj*)."""
    return (pl.when(pl.col("suite").str.contains("biobj")).then(final_target("bbob-biobj"))
            .otherwise(final_target("bbob")).alias("final_target"))


def parameters(runs: pl.LazyFrame, events: pl.LazyFrame, settings: Settings = Settings()) -> pl.LazyFrame:
    """The parameters of the profile function of every problem, by the rules of `settings` (the module).

    Parameters
    ----------
    runs : polars.LazyFrame
        Trials: run_id, suite, algorithm, function, dimension.
    events : polars.LazyFrame
        Records: run_id, evaluations, best_delta.
    settings : Settings
        The rule, number or frame of each parameter.

    Returns
    -------
    polars.LazyFrame
        suite, [algorithm unless `Settings.shared`,] function, dimension, f0, delta, f_inf, eps.
    """
    keys = PROBLEM_KEYS if settings.shared else ["suite", "algorithm", "function", "dimension"]
    f = pl.col("best_delta").sort_by("evaluations")
    b = f.cum_min()  # best-so-far, also where a log is not monotone
    first = f.first()
    per_run = (
        _records(runs, events).group_by("run_id", *keys)
        .agg(first=first, lowest=pl.col("best_delta").min(),
             first_improvement=first - b.filter(b < first).first(),
             smallest_improvement=(-b.diff()).filter((-b.diff()) > 0).min())
    )
    p = per_run.group_by(keys).agg(
        observed_f0=pl.col("first").max(), observed_f_inf=pl.col("lowest").min(),
        first_improvement=pl.col("first_improvement").max().fill_null(0.0),
        half_improvement=pl.col("smallest_improvement").min() / 2,
    ).with_columns(_final_target_expr())
    rules = {
        "f0": {"observed": pl.col("observed_f0")},
        "delta": {"first-improvement": pl.col("first_improvement")},
        "f_inf": {"target": pl.col("final_target"), "observed": pl.col("observed_f_inf")},
        "eps": {"target": pl.col("final_target"),
                "improvement": pl.coalesce("half_improvement", pl.col("half_improvement").min(), "final_target")},
    }
    for name in PARAMETERS:
        spec = _spec(name, getattr(settings, name))
        if isinstance(spec, pl.LazyFrame):
            on = [c for c in spec.collect_schema().names() if c != name]
            if name not in spec.collect_schema().names() or not on or not set(on) <= set(keys):
                raise ValueError(f"{name}: a frame needs a column {name!r} and key columns among {', '.join(keys)}")
            types = {"suite": pl.String, "algorithm": pl.String, "function": pl.Int32, "dimension": pl.Int32}
            spec = spec.select(*[pl.col(c).cast(types[c]) for c in on], pl.col(name).cast(pl.Float64))
            p = p.join(spec, on=on, how="left")
        else:
            p = p.with_columns((rules[name][spec] if isinstance(spec, str) else pl.lit(spec, pl.Float64)).alias(name))
    return p.select(*keys, *PARAMETERS).sort(keys)


def check_parameters(params: pl.DataFrame, transform: str | Callable[[pl.Expr], pl.Expr] = "log10") -> None:
    """Raise ValueError naming the first problem whose parameters are missing or out of range."""
    for name in PARAMETERS:
        bad = params.filter(pl.col(name).is_null() | pl.col(name).is_nan())
        if bad.height:
            raise ValueError(f"{name} missing or NaN for {bad.row(0, named=True)}")
    for cond, what in ((pl.any_horizontal(pl.col(PARAMETERS).is_infinite()), "parameters must be finite"),
                       (pl.col("delta") < 0, "delta must be >= 0"), (pl.col("eps") < 0, "eps must be >= 0")):
        bad = params.filter(cond)
        if bad.height:
            raise ValueError(f"{what}: {bad.row(0, named=True)}")
    if transform == "log10":
        bad = params.filter(pl.col("eps") <= 0)
        if bad.height:
            raise ValueError(f"eps must be > 0 with the log10 transform (T(eps) is undefined): {bad.row(0, named=True)}")


def run_profiles(runs: pl.LazyFrame, events: pl.LazyFrame, params: pl.LazyFrame,
                 transform: str | Callable[[pl.Expr], pl.Expr] = "log10") -> pl.LazyFrame:
    """The monotone profile of every trial at each of its records: max_{s<=t} P^i(f_s).

    Parameters
    ----------
    runs, events
        As `parameters`.
    params : polars.LazyFrame
        The parameters (`parameters`), keyed by some of suite, algorithm, function, dimension.
    transform : str or callable
        "log10", "linear", or a function of expressions.

    Returns
    -------
    polars.LazyFrame
        run_id, suite, algorithm, function, dimension, evaluations, x (evaluations / dimension) and
        value (in [0, 1], non-decreasing in evaluations per run).
    """
    on = [c for c in params.collect_schema().names() if c not in PARAMETERS]
    rec = _records(runs, events).join(params, on=on, how="left")
    p = profile_value(pl.col("best_delta"), *(pl.col(c) for c in PARAMETERS), transform=transform)
    return rec.with_columns(value=p.cum_max().over("run_id", order_by="evaluations")).select(
        "run_id", "suite", "algorithm", "function", "dimension", "evaluations",
        x=pl.col("evaluations") / pl.col("dimension").cast(pl.Float64), value="value",
    )


def _weights(runs: pl.LazyFrame, group: str | list[str] | None) -> pl.LazyFrame:
    """1 / (m_i n) per (suite, algorithm, function, dimension, group): m_i trials, n functions in the group."""
    levels, names = select_levels(group)
    m = runs.group_by("suite", "algorithm", "function", "dimension").agg(trials=pl.len())
    g = m.join(membership(runs.select("suite", "function"), levels), on=["suite", "function"], how="inner")
    if names is not None:
        g = g.filter(pl.col("group").is_in(sorted(names)))
    return g.with_columns(functions=pl.len().over(STEP_KEYS)).with_columns(
        weight=1.0 / (pl.col("trials") * pl.col("functions")).cast(pl.Float64))


def steps(run_values: pl.LazyFrame, runs: pl.LazyFrame, group: str | list[str] | None = None) -> pl.LazyFrame:
    """Step table of the aggregated profile (seed 004's construction): one row per x where it rises.

    Each rise of a trial's profile at t adds (P_t - P_{t-1}) / (m_i n) at x = t / dimension; the
    value is the running sum, clipped to 1 against rounding; a rise too small to change the sum in
    floating point makes no row. The graph starts at (first x, 0), which is not a row, as a step
    table of the ECDF has no row at zero; `summary` gives where it starts and ends."""
    rise = run_values.with_columns(
        rise=pl.col("value") - pl.col("value").shift(1, fill_value=0.0).over("run_id", order_by="evaluations")
    ).filter(pl.col("rise") > 0)
    w = _weights(runs, group).select("suite", "algorithm", "function", "dimension", "group", "weight")
    return (
        rise.join(w, on=["suite", "algorithm", "function", "dimension"], how="inner")
        .group_by(*STEP_KEYS, "x").agg(step=ordered_sum(pl.col("rise") * pl.col("weight")))
        .sort(*STEP_KEYS, "x")
        .with_columns(value=pl.col("step").cum_sum().over(STEP_KEYS, order_by="x").clip(0.0, 1.0))
        .filter(pl.col("value") > pl.col("value").shift(1, fill_value=0.0).over(STEP_KEYS, order_by="x"))
        .select(*STEP_KEYS, "x", "value")
    )


def summary(run_values: pl.LazyFrame, runs: pl.LazyFrame, group: str | list[str] | None = None) -> pl.LazyFrame:
    """One row per (suite, algorithm, dimension, group): final_value (the value after the last step),
    start_x and max_x (first and last record of any trial: where the graph starts and ends),
    functions (n) and trials (sum of the m_i)."""
    keys = ["suite", "algorithm", "function", "dimension"]
    w = _weights(runs, group)
    per_run = run_values.group_by("run_id", *keys).agg(
        final=pl.col("value").max(), start_x=pl.col("x").min(), max_x=pl.col("x").max())
    s = per_run.join(w, on=keys, how="inner").group_by(STEP_KEYS).agg(
        final_value=ordered_sum(pl.col("final") * pl.col("weight")).clip(0.0, 1.0),
        start_x=pl.col("start_x").min(), max_x=pl.col("max_x").max())
    counts = w.group_by(STEP_KEYS).agg(functions=pl.col("functions").first().cast(pl.Int64),
                                             trials=pl.col("trials").sum().cast(pl.Int64))
    return (counts.join(s, on=STEP_KEYS, how="left")
            .with_columns(pl.col("final_value").fill_null(0.0))
            .select(*STEP_KEYS, "final_value", "start_x", "max_x", "functions", "trials").sort(STEP_KEYS))


def checked_run_profiles(runs: pl.LazyFrame, events: pl.LazyFrame, settings: Settings = Settings(),
                         params: pl.LazyFrame | None = None) -> pl.LazyFrame:
    """`run_profiles` with the parameter table computed by `settings` (or given) and checked eagerly;
    that table is small (one row per problem), the rest stays lazy."""
    _transform(settings.transform)
    p = (parameters(runs, events, settings) if params is None else params).collect()
    check_parameters(p, settings.transform)
    return run_profiles(runs, events, p.lazy(), settings.transform)


def check_groups(runs: pl.LazyFrame, group: str | list[str] | None) -> None:
    """Raise ValueError when a requested group name is not a group of any function in `runs`."""
    levels, names = select_levels(group)
    if names is None:
        return
    known = set(membership(runs.select("suite", "function"), levels).select("group").collect()["group"])
    unknown = sorted(names - known)
    if unknown:
        raise ValueError(f"group {', '.join(unknown)}: not a function or group of the selection "
                         f"(e.g. {', '.join(sorted(known)[:6])})")


def profile(runs: pl.LazyFrame, events: pl.LazyFrame, group: str | list[str] | None = None,
            settings: Settings = Settings(), params: pl.LazyFrame | None = None) -> pl.LazyFrame:
    """Step table of the aggregated target-free runtime profile per (suite, algorithm, dimension, group).

    Parameters
    ----------
    runs, events
        As `parameters`.
    group : str or list of str, optional
        Groups to keep: "fN", a group of the suite, "all"; None for every one.
    settings : Settings
        The parameters' rules (the module).
    params : polars.LazyFrame, optional
        The parameters, when computed already (e.g. over a larger selection, for one scale).

    Returns
    -------
    polars.LazyFrame
        suite, algorithm, dimension, group, x (evaluations / dimension) and value (in [0, 1],
        increasing in x); see `steps`.
    """
    check_groups(runs, group)
    return steps(checked_run_profiles(runs, events, settings, params), runs, group)


def profile_summary(runs: pl.LazyFrame, events: pl.LazyFrame, group: str | list[str] | None = None,
                    settings: Settings = Settings(), params: pl.LazyFrame | None = None) -> pl.LazyFrame:
    """One row per (suite, algorithm, dimension, group) of `profile`; see `summary`.

    Parameters and Returns as `profile` and `summary`.
    """
    check_groups(runs, group)
    return summary(checked_run_profiles(runs, events, settings, params), runs, group)
