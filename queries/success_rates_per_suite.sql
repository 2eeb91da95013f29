-- Question:   What fraction of its trials does each algorithm solve, per suite, and what fraction
--             of all (trial, target) pairs of the suite's default target set does it reach
--             (the height the runtime ECDF ends at)?
-- Tables:     hitting_times (derived view)
-- Run:        cocopipe query queries/success_rates_per_suite.sql --store STORE [--out success.csv]
-- Parameters: none. "Solved" means reaching the smallest positive target of the suite's default
--             set: 1e-8 on the single-objective suites, 1e-5 on bbob-biobj. The rates are plain
--             fractions of trials (no instance balancing); add `--max-budget 1000x` to compare
--             algorithms at the same budget.
-- Output:     one row per (suite, algorithm).
WITH final_target AS (
    SELECT suite, MIN(target) AS final_target
    FROM hitting_times
    WHERE target > 0
    GROUP BY suite
)
SELECT h.suite, h.algorithm,
       COUNT(DISTINCT h.run_id) AS trials,
       SUM(CASE WHEN h.target = f.final_target AND h.success THEN 1 ELSE 0 END) AS solved_trials,
       CAST(SUM(CASE WHEN h.target = f.final_target AND h.success THEN 1 ELSE 0 END) AS DOUBLE)
           / COUNT(DISTINCT h.run_id) AS success_rate,
       AVG(CAST(h.success AS DOUBLE)) AS targets_reached,
       MIN(f.final_target) AS final_target
FROM hitting_times h
JOIN final_target f ON h.suite = f.suite
GROUP BY h.suite, h.algorithm
ORDER BY h.suite, success_rate DESC, h.algorithm;
