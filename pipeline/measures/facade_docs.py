"""The docstrings of the facade methods of the measures declared in `catalog` (`Measure.doc`): the prose and
examples a declaration carries beyond its settings' one-line help, as the methods had them when written by hand.
Plain text: declaring loads no library."""

ART = """Average runtime per (suite, algorithm, function, dimension, target) (`pipeline.measures.art`).

Parameters
----------
targets : str, list of float, frame or None
    As `target_frame`.
dispersion : bool
    Add the `percentiles` of simulated restart runtimes (cocopp's tables: 10, 50, 90).
samples, seed : int
    Simulated restarts per problem, and their seed (one generator per suite, algorithm and
    dimension: an algorithm's figures do not depend on what else is selected).
percentiles : tuple of float
    Of the dispersion.
confidence : float, optional
    Add a bootstrap interval art_low..art_high at this level (e.g. 0.95).

Returns
-------
polars.LazyFrame
    art, successes, runs (weighted by instance balancing), success_rate, trials, ... sorted by
    problem, then from the easiest target to the hardest.

Examples
--------
>>> a = open_store("cocopipe-store", algorithm="NM", function=1, dimension=5)
>>> a.art([1e-8], samples=100).collect().select("art", "successes", "runs").row(0)
(1150.0666666666666, 15, 15)
"""

SIMULATED_RUNTIMES = """Runtimes of simulated restarts per (problem, target, sample) (`pipeline.measures.restarts`).

Every draw comes from one generator over the whole selection (as cocopp draws them), so the
selection is one part: a Ray task with `executor="ray"`; the group size does not split it (a
split would change the draws).

Parameters
----------
targets : str, list of float, frame or None
    As `target_frame`.
samples, seed : int
    Simulated runs per problem and target, and their seed.
first_deterministic : bool
    The first sample starts from the first trial (as cocopp).

Returns
-------
polars.LazyFrame
    suite, algorithm, function, dimension, target, sample, runtime; no row for a (problem,
    target) that no trial reached.

Examples
--------
>>> a = open_store("cocopipe-store", algorithm="NM", function=1, dimension=5)
>>> a.simulated_runtimes([1.0], samples=10).collect().height
15
"""

FIXED_BUDGET = """Best precision reached within given budgets, per trial or summarised per problem.

Parameters
----------
budgets : list of float
    Budgets in evaluations, or in multiples of the dimension with `per_dimension`.
per_dimension : bool
    The budgets are multiples of the dimension.
summary : bool
    Quantiles per (problem, budget); False: one row per trial and budget.
quantity : {"precision", "value"}, optional
    Only runs whose optimum is known (precisions) or only those without (logged values); default both.

Returns
-------
polars.LazyFrame
    suite, algorithm, function, dimension, quantity, budget, and the quantiles q10..q90 of the best
    precisions, or of the best logged values of runs without a known optimum (quantity "value"),
    runs, runs_with_data (with `summary`).

Examples
--------
>>> a = open_store("cocopipe-store", algorithm="DIRECT", function=1, dimension=5)
>>> a.fixed_budget([100, 1000]).collect()["budget"].to_list()
[100.0, 1000.0]
"""

ERT = """IOHprofiler's ERT per (problem, target) (`pipeline.measures.ert`, docs/ioh.md), on precisions
where the optimum is known and on logged values where it is not (`quantity`).

Parameters
----------
targets : str, list of float, frame or None
    As `target_frame` (precisions); on values the numbers are raw values, and None takes
    `pipeline.measures.values.default_targets` from the data.
eval_max : float, optional
    What an unsuccessful run is charged; default (IOHanalyzer's ERT): each run its own length,
    its last logged evaluation (at most the budget cut).

Returns
-------
polars.LazyFrame
    suite, algorithm, function, dimension, quantity, target, ert, successes, runs.

Examples
--------
>>> a = open_store("cocopipe-store", algorithm="NM", function=1, dimension=5)
>>> a.ert([1e-8]).collect()["ert"].to_list()
[1150.0666666666666]
"""

FIXED_BUDGET_ECDF = """IOHprofiler's fixed-budget ECDF per (problem, budget) (`pipeline.measures.aocc`, docs/ioh.md).

Parameters
----------
budgets : list of float
    Budgets in evaluations, or multiples of the dimension with `per_dimension`.
per_dimension : bool
    The budgets are multiples of the dimension.
lower, upper : float
    Bounds of the precisions normalised to [0, 1] (IOHinspector's defaults 1e-8, 1e8).
log : bool
    Normalise on a log scale.

Returns
-------
polars.LazyFrame
    suite, algorithm, function, dimension, quantity, budget, fraction, runs.

Examples
--------
>>> a = open_store("cocopipe-store", algorithm="NM", function=1, dimension=5)
>>> a.fixed_budget_ecdf([10, 100], per_dimension=True).collect()["budget"].to_list()
[50.0, 500.0]
"""

AOCC = """IOHprofiler's area over the convergence curve per problem (`pipeline.measures.aocc`, docs/ioh.md).

The budget B is the budget cut, else per algorithm and problem the longest run (its largest last
logged evaluation), so an algorithm's AOCC does not depend on what else is selected. On runs
without a known optimum the bounds are logged values (quantity "value").

Parameters
----------
lower, upper, log
    As `fixed_budget_ecdf`.

Returns
-------
polars.LazyFrame
    suite, algorithm, function, dimension, quantity, budget, aocc, runs.

Examples
--------
>>> a = open_store("cocopipe-store", algorithm=["DIRECT", "NM"], function=1, dimension=5)
>>> a.aocc().collect().select("algorithm", "aocc").rows()
[('DIRECT', 0.829935...), ('NM', 0.651282...)]
"""

AUC = """Area under the ECDF of the trials' own first hitting times per problem (`pipeline.measures.auc`).

x = log10(evaluations / dimension) from 0 to log10(B / dimension), B being the budget cut, else per
function and dimension the smallest budget among the selected algorithms (`auc.default_budgets`),
so that their areas compare. The input of `pipeline.measures.ranking.rank_by_auc`.

Parameters
----------
targets : str, sequence of float or polars.DataFrame, optional
    As `art` (default: the suite's standard targets).
budgets : polars.DataFrame, optional
    The budgets to end the areas at (`auc_budgets` of a larger selection, so that this part's
    areas compare with its); default this selection's.

Returns
-------
polars.LazyFrame
    suite, algorithm, function, dimension, budget and auc (in [0, 1]), sorted by problem.

Examples
--------
>>> a = open_store("cocopipe-store", algorithm=["DIRECT", "NM"], function=1, dimension=5)
>>> a.auc().collect().select("algorithm", "budget", "auc").rows()
[('DIRECT', 2718.0, 0.338...), ('NM', 2718.0, 0.245...)]
"""

ECDF_STEPS = """Runtime ECDF step table (seed 000, "Empirical Distribution Functions"; `pipeline.measures.ecdf`).

The fraction of (problem, run) pairs solved within x = evaluations / dimension, a problem being
a (function, target) pair, per function group and dimension.

Parameters
----------
targets : str, list of float, frame or None
    As `target_frame` (default: each suite's standard set).
group : str or list of str, optional
    Only these groups: "fN" (one function), a cocopp group (separ, lcond, ...), "all".
mode : {"simulated", "exact", "trials"}
    cocopp's simulated restarts (seeded), their expectation in closed form, or the trials' own
    hitting times.
samples, seed : int
    Simulated restarts per problem (K x max(2, samples // K), K trials) and their seed.
max_x : float or str, optional
    The plotted range: a number, "budget" or "cocopp" (1e7); the budget cut when one is set.
reference : str, optional
    With `targets="runlength"`: the reference set.

Returns
-------
polars.LazyFrame
    suite, algorithm, dimension, group, x, fraction: one row per step.

Examples
--------
>>> a = open_store("cocopipe-store", algorithm="DIRECT", dimension=5)
>>> a.ecdf(group="all", mode="exact").collect().select("x", "fraction").head(2).rows()
[(0.2, 0.033496...), (0.4, 0.038071...)]
"""

ECDF_SUMMARY = """What an ECDF figure marks besides its steps, per (suite, algorithm, dimension, group) of `ecdf`.

Parameters
----------
targets, group, mode, max_x, reference
    As `ecdf`.

Returns
-------
polars.LazyFrame
    final_fraction (successes / runs: the dot), solvable_fraction, max_x, median_max_evaluations
    (the cross), instance_targets ((function, instance, target) triples), functions, trials.

Examples
--------
>>> a = open_store("cocopipe-store", dimension=5)
>>> a.ecdf_summary(group="all").collect().select("algorithm", "instance_targets", "trials").rows()
[('DIRECT', 6120, 120), ('NM', 18360, 360), ('RS', 18360, 360)]
"""

ECDF_BAND = """`ecdf` with a bootstrap confidence band (`pipeline.measures.uncertainty.ecdf_band`).

Parameters
----------
targets, group, mode, samples, max_x, reference
    As `ecdf` (default mode: the trials' own hitting times).
level : float
    Confidence level of the band.
replicates, seed : int
    Bootstrap replicates (trials resampled within each function and dimension) and their seed.

Returns
-------
polars.LazyFrame
    The columns of `ecdf` and low, high.

Examples
--------
>>> a = open_store("cocopipe-store", algorithm="NM", function=1, dimension=5)
>>> band = a.ecdf_band(group="all", replicates=20).collect()
>>> bool((band["low"] <= band["fraction"]).all() and (band["fraction"] <= band["high"]).all())
True
"""

ECDF_PER_INSTANCE = """`ecdf` of every instance alone, to draw faintly behind the aggregate.

Parameters
----------
targets, group, mode, samples, seed, max_x, reference
    As `ecdf` (default mode: the trials' own hitting times).

Returns
-------
polars.LazyFrame
    The columns of `ecdf` and instance.

Examples
--------
>>> a = open_store("cocopipe-store", algorithm="NM", function=1, dimension=5)
>>> a.ecdf_per_instance(group="all").collect()["instance"].n_unique()
15
"""

PROFILE_STEPS = """Target-free runtime profile (seed 004) as a step table (`pipeline.measures.profiles`).

Each record's best-so-far precision is mapped to [0, 1], a trial's profile is its running
maximum, and profiles are averaged with equal weight per function.

Parameters
----------
group : str or list of str, optional
    As `ecdf`.
transform, f0, delta, f_inf, eps
    The seed's parameters (their meaning and defaults: `pipeline.measures.profiles`).
shared : bool
    Parameters shared by the algorithms selected together (False: each its own).

Returns
-------
polars.LazyFrame
    suite, algorithm, dimension, group, x (evaluations / dimension), value.

Examples
--------
>>> a = open_store("cocopipe-store", algorithm="NM", dimension=5)
>>> p = a.profile(group="all").collect()
>>> bool(p["value"].is_between(0, 1).all() and p["value"].is_sorted())
True
"""

PROFILE_SUMMARY = """Per (suite, algorithm, dimension, group) of `profile`: its last value and range.

Parameters
----------
group, transform, f0, delta, f_inf, eps, shared
    As `profile`.

Returns
-------
polars.LazyFrame
    final_value, start_x, max_x, functions, trials.

Examples
--------
>>> a = open_store("cocopipe-store", dimension=5)
>>> a.profile_summary(group="all").collect().select("algorithm", "max_x").rows()
[('DIRECT', 63545.0), ('NM', 1000.0), ('RS', 1000.0)]
"""

MEDIAN_MAX_EVALUATIONS = """Median of the trials' evaluations / dimension per (algorithm, dimension, group)
(`pipeline.measures.groups.median_max_evaluations`: the cross of the ECDF figures).

Examples
--------
>>> a = open_store("cocopipe-store", algorithm="NM", function=1, dimension=5)
>>> a.median_max_evaluations().collect()["median_max_evaluations"].to_list()
[228.8]
"""

FINAL_MEDIANS = """Median final precision and evaluations per problem (`pipeline.measures.table_stats`).

Examples
--------
>>> a = open_store("cocopipe-store", algorithm="NM", function=1, dimension=5)
>>> a.final_medians().collect().select("median_final_delta", "median_evaluations").rows()
[(0.0, 1144.0)]
"""
