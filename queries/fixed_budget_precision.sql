-- Question:   What precision does each algorithm reach within 100 x dimension evaluations
--             (fixed-budget view), per function and dimension: median and best trial?
-- Tables:     runs, events
-- Run:        cocopipe query queries/fixed_budget_precision.sql --store STORE [--out fixed_budget.csv]
--             Filter early to read less, e.g. add `AND r.algorithm = 'NM'` to the first WHERE.
-- Parameters: the budget factor (100, in `e.evaluations <= 100 * r.dimension`).
--             Reference-algorithm data sets (instance 0) are left out.
-- Output:     one row per (suite, algorithm, function, dimension): trials, trials with a record
--             within the budget, the median and the smallest best-so-far precision at the budget.
--             A trial without any record within the budget counts as no precision (null).
WITH trials AS (
    SELECT r.run_id, r.suite, r.algorithm, r.function, r.dimension
    FROM runs r
    WHERE r.instance <> 0
),
at_budget AS (
    SELECT t.run_id, MIN(e.best_delta) AS precision_at_budget
    FROM trials t
    JOIN events e ON e.run_id = t.run_id
    WHERE e.evaluations <= 100 * t.dimension
    GROUP BY t.run_id
)
SELECT t.suite, t.algorithm, t.function, t.dimension,
       COUNT(*) AS trials,
       COUNT(b.precision_at_budget) AS trials_with_record,
       MEDIAN(b.precision_at_budget) AS median_precision,
       MIN(b.precision_at_budget) AS best_precision
FROM trials t
LEFT JOIN at_budget b ON t.run_id = b.run_id
GROUP BY t.suite, t.algorithm, t.function, t.dimension
ORDER BY t.suite, t.algorithm, t.function, t.dimension;
