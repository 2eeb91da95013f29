-- Question:   On how many problems (function x dimension) does each algorithm reach the target
--             1e-8 in at least one trial, and in all of its trials, per suite and dimension?
-- Tables:     art (derived view)
-- Run:        cocopipe query queries/problems_solved.sql --store STORE [--out solved.csv]
-- Parameters: the target (1e-8; any target of the suite's default set). Add
--             `--max-budget 10000x` to count only what is reached within 10^4 x dimension.
-- Output:     one row per (suite, algorithm, dimension): functions run, functions solved at least
--             once, functions solved in every trial, and the median aRT over the solved ones.
SELECT suite, algorithm, dimension,
       COUNT(*) AS functions,
       SUM(CASE WHEN successes > 0 THEN 1 ELSE 0 END) AS solved_once,
       SUM(CASE WHEN successes = runs THEN 1 ELSE 0 END) AS solved_always,
       MEDIAN(CASE WHEN successes > 0 THEN art END) AS median_art_solved
FROM art
WHERE target = 1e-8
GROUP BY suite, algorithm, dimension
ORDER BY suite, algorithm, dimension;
