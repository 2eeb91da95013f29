-- Question:   Which algorithm is fastest on each function and dimension at target 1e-8,
--             measured by aRT (average runtime, instance-balanced, cocopp's hit rule)?
-- Tables:     art (derived view: aRT per suite, algorithm, function, dimension, target), runs
-- Run:        cocopipe query queries/best_algorithm_per_problem.sql --store STORE [--out best.csv]
-- Parameters: the target (1e-8 below; any target of the suite's default set, 10^(k/5) on the
--             single-objective suites, e.g. 1e-5 or 1e-3, works).
--             Reference-algorithm data sets (best2009, ... recognisable by instance 0) are left
--             out; delete the `AND a.algorithm NOT IN (...)` line to compare with them too.
-- Output:     one row per (suite, function, dimension) that at least one algorithm solved:
--             the best algorithm, its aRT and success rate, how many algorithms solved the
--             problem, and the runner-up's aRT divided by the best aRT.
WITH solved AS (
    SELECT a.suite, a.algorithm, a.function, a.dimension, a.art, a.success_rate
    FROM art a
    WHERE a.target = 1e-8
      AND a.successes > 0
      AND a.algorithm NOT IN (SELECT algorithm FROM runs WHERE instance = 0)
),
ranked AS (
    SELECT *,
           ROW_NUMBER() OVER (PARTITION BY suite, function, dimension ORDER BY art, algorithm) AS place,
           COUNT(*) OVER (PARTITION BY suite, function, dimension) AS solvers
    FROM solved
),
runner_up AS (
    SELECT suite, function, dimension, art AS art_second
    FROM ranked
    WHERE place = 2
)
SELECT r.suite, r.function, r.dimension, r.algorithm AS best_algorithm, r.art AS best_art,
       r.success_rate, r.solvers, u.art_second / r.art AS second_over_best
FROM ranked r
LEFT JOIN runner_up u ON r.suite = u.suite AND r.function = u.function AND r.dimension = u.dimension
WHERE r.place = 1
ORDER BY r.suite, r.function, r.dimension;
