"""The measures: functions of LazyFrames of trials, records or first hitting times, each stated as its
seed defines it (the seeds: 000 performance assessment, 002 biobjective, 003 practical guide, 004
target-free profiles).

- `art`: average runtime (seed 000, "Averaging Runtime"), its dispersion and bootstrap interval.
- `restarts`: simulated restarts (seed 000, "Simulated Restarts and Runtimes").
- `ecdf`: runtime ECDFs (seed 000, "Empirical Distribution Functions"); `groups`: the function groups.
- `runlength`: runlength-based targets (seed 000, "Runlength-based Target Values").
- `auc`, `ranking`, `glicko`: areas under the ECDF, rankings (Friedman, Nemenyi, Glicko-2).
- `significance`: rank-sum tests and corrections (seed 003, "Statistical Analysis").
- `profiles`: target-free runtime profiles (seed 004).
- `uncertainty`: bootstrap intervals and bands; `generators`: the seeded generators of the draws.
- `ert`, `aocc`, `params`: IOHprofiler's ERT, fixed-budget ECDF and AOCC, tracked parameters.
- `distributions`, `logloss`: cocopp's single-trial distributions (pprldistr, pprldistr2) and aRT loss
  ratios (pplogloss); `table_stats`: what the aRT tables show beside the aRT.
- `runtime`: fixed-budget measures (the best precision within given budgets). First hitting times,
  instance balancing and the budget cut are in `pipeline.hits` (`spec`, `budget`).

Where a measure is computed by a numpy fast path, that path is private (`_kernels`) and a property test
(tests/test_kernels.py) holds it equal to the readable definition beside the measure (`*_spec`).

Registered measures (written by `python docs/make_measures.py`):
- 'art' (`Analysis.art(targets, ...)`): Average runtime per problem and target, its dispersion and bootstrap
  interval.
- 'simulated_runtimes' (`Analysis.simulated_runtimes(targets, ...)`): Runtimes of simulated restarts per
  problem, target and sample.
- 'ert' (`Analysis.ert(targets, ...)`): IOHprofiler's expected running time per problem and target, on
  precisions and values.
- 'ecdf.steps' (`Analysis.ecdf.steps(targets, ...)`): Runtime ECDF step table per function group and
  dimension.
- 'ecdf.summary' (`Analysis.ecdf.summary(targets, ...)`): What an ECDF figure marks besides its steps: final
  fraction, range, median length.
- 'ecdf.band' (`Analysis.ecdf.band(targets, ...)`): The runtime ECDF with a bootstrap confidence band.
- 'ecdf.per_instance' (`Analysis.ecdf.per_instance(targets, ...)`): The runtime ECDF of every instance alone.
- 'auc' (`Analysis.auc(targets, ...)`): Area under the ECDF of the trials' own first hitting times per
  problem.
- 'rank' (`Analysis.rank(targets, ...)`): Mean rank of per-function auc, the Friedman test and the Nemenyi
  critical difference.
- 'glicko2' (`Analysis.glicko2(targets, ...)`): Glicko-2 ratings of the algorithms, from games of drawn
  trials.
- 'pairwise' (`Analysis.pairwise(targets, ...)`): Rank-sum test of every pair of algorithms per problem and
  target.
- 'profile.steps' (`Analysis.profile.steps(...)`): Target-free runtime profile as a step table.
- 'profile.summary' (`Analysis.profile.summary(...)`): Last value and range of each target-free profile.
- 'fixed_budget' (`Analysis.fixed_budget(...)`): Best precision reached within given budgets, per trial or as
  quantiles.
- 'fixed_budget_ecdf' (`Analysis.fixed_budget_ecdf(...)`): IOHprofiler's fixed-budget ECDF per problem and
  budget.
- 'aocc' (`Analysis.aocc(...)`): IOHprofiler's area over the convergence curve per problem.
- 'final_medians' (`Analysis.final_medians()`): Median final precision and evaluations of the trials per
  problem.
- 'median_max_evaluations' (`Analysis.median_max_evaluations(...)`): Median of the trials' evaluations /
  dimension per function group and dimension.
- 'biobj_eaf' (`Analysis.biobj_eaf(...)`): Attainment surfaces of bbob-biobj runs from their archives of non-
  dominated points.
- 'biobj_eaf_diff' (`Analysis.biobj_eaf_diff(...)`): Difference of two algorithms' attainment functions on
  bbob-biobj (left minus right).
- 'eaf' (`Analysis.eaf(...)`): Empirical attainment function: fraction of runs reaching each level within each
  budget.
- 'eaf_diff' (`Analysis.eaf_diff(...)`): Difference of the empirical attainment functions of two algorithms
  (left minus right).
- 'eaf_area' (`Analysis.eaf_area(...)`): Area under the empirical attainment function per problem, normalised
  to [0, 1].
- 'median_runtime' (`Analysis.median_runtime(targets)`): Median runtime of the successful trials per problem
  and target, and their count.
- 'vbs' (`Analysis.vbs(targets, ...)`): The virtual best solver: the best ECDF value of any algorithm per
  target and budget.
- 'shapley' (`Analysis.shapley(targets, ...)`): Shapley value of each algorithm's contribution to the virtual
  best solver's ECDF.
- 'performance_profile' (`Analysis.performance_profile(...)`): Performance profiles (Dolan and Moré 2002) as
  OptiProfiler draws them.
- 'data_profile' (`Analysis.data_profile(...)`): Data profiles in simplex gradients (Moré and Wild 2009) as
  OptiProfiler draws them.
- 'log_ratio_profile' (`Analysis.log_ratio_profile(...)`): Log-ratio profile of two algorithms' work, as
  OptiProfiler draws it.
"""
