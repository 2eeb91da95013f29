-- Question:   Which functions does no algorithm solve (reach target 1e-8) within 1e5 x dimension
--             evaluations, per suite and dimension?
-- Tables:     hitting_times (derived view: first hitting time of each default target by each trial)
-- Run:        cocopipe query queries/unsolved_within_budget.sql --store STORE [--out unsolved.csv]
-- Parameters: the target (1e-8) and the budget factor (1e5, in `hit <= 1e5 * dimension`).
--             Reference-algorithm data sets (instance 0) are left out; delete the
--             `WHERE instance <> 0` line to count them as solvers too.
--             Same budget for every algorithm: add `--max-budget 100000x` to cut the trials first
--             (the result is the same, the hits are then at most 1e5 x dimension by construction).
-- Output:     one row per unsolved (suite, function, dimension): the algorithms and trials that
--             tried, and the best final precision any of their trials reached.
WITH trials AS (
    SELECT *
    FROM hitting_times
    WHERE instance <> 0
      AND target = 1e-8
)
SELECT suite, function, dimension,
       COUNT(DISTINCT algorithm) AS algorithms,
       COUNT(*) AS trials,
       MIN(final_delta) AS best_final_delta
FROM trials
GROUP BY suite, function, dimension
HAVING SUM(CASE WHEN success AND hit <= 1e5 * dimension THEN 1 ELSE 0 END) = 0
ORDER BY suite, function, dimension;
