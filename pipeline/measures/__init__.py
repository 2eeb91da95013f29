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
"""
