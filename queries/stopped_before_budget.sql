-- Question:   Which trials stopped well before their budget without reaching the final target
--             (an algorithm's own termination, a crash, a lost log)?
-- Tables:     runs
-- Run:        cocopipe query queries/stopped_before_budget.sql --store STORE [--out stopped.csv]
-- Parameters: a trial's budget is taken as the largest number of evaluations any trial of the
--             same suite, algorithm and dimension used (COCO logs do not record the budget);
--             "well before" is less than half of it (the 0.5 below). Unsolved means a final
--             precision above the experiment's precision (1e-8; 0 on bbob-biobj, which logs none).
--             Reference-algorithm data sets (instance 0) are left out.
-- Output:     one row per such trial, the ones that used the smallest share of their budget first.
WITH trials AS (
    SELECT * FROM runs WHERE instance <> 0
),
budgets AS (
    SELECT suite, algorithm, dimension, MAX(last_evaluation) AS budget
    FROM trials
    GROUP BY suite, algorithm, dimension
)
SELECT t.suite, t.algorithm, t.function, t.dimension, t.instance, t.run_id,
       t.last_evaluation, b.budget,
       t.last_evaluation / CAST(b.budget AS DOUBLE) AS budget_used,
       t.final_delta, t.finalized, t.source
FROM trials t
JOIN budgets b ON t.suite = b.suite AND t.algorithm = b.algorithm AND t.dimension = b.dimension
WHERE t.final_delta > COALESCE(t.precision, 0)
  AND t.last_evaluation < 0.5 * b.budget
ORDER BY budget_used, t.suite, t.algorithm, t.function, t.dimension, t.instance, t.run_id;
