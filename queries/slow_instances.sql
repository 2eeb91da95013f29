-- Question:   On which instances is an algorithm much slower than on the other instances of the
--             same function and dimension (instance-specific difficulty, or a bug in a logger)?
-- Tables:     hitting_times (derived view)
-- Run:        cocopipe query queries/slow_instances.sql --store STORE [--out slow.csv]
-- Parameters: the target (1e-5; a target of the suite's default set) and the factor (10):
--             an instance is listed when its aRT is at least 10 times the median aRT over the
--             instances of the problem, or when it was never solved while the median instance was.
-- Output:     one row per listed (suite, algorithm, function, dimension, instance): its aRT
--             (null: never reached), the median over instances and their ratio.
--             aRT per instance = (sum of the evaluations of its trials up to the hit, or all of
--             them when the target was missed) / number of its trials that reached the target.
WITH per_instance AS (
    SELECT suite, algorithm, function, dimension, instance,
           COUNT(*) AS trials,
           SUM(CASE WHEN success THEN 1 ELSE 0 END) AS successes,
           SUM(CASE WHEN success THEN hit ELSE evaluations END) AS cost
    FROM hitting_times
    WHERE target = 1e-5
    GROUP BY suite, algorithm, function, dimension, instance
),
with_art AS (
    SELECT *,
           CASE WHEN successes > 0 THEN CAST(cost AS DOUBLE) / successes END AS art_instance,
           -- unsolved instances rank above any solved one in the median
           CASE WHEN successes > 0 THEN CAST(cost AS DOUBLE) / successes ELSE CAST('inf' AS DOUBLE) END AS art_or_inf
    FROM per_instance
),
medians AS (
    SELECT suite, algorithm, function, dimension,
           COUNT(*) AS instances,
           MEDIAN(art_or_inf) AS median_art
    FROM with_art
    GROUP BY suite, algorithm, function, dimension
    HAVING COUNT(*) >= 3
)
SELECT w.suite, w.algorithm, w.function, w.dimension, w.instance, w.trials, w.successes,
       w.art_instance, m.median_art, m.instances,
       w.art_instance / m.median_art AS ratio_to_median
FROM with_art w
JOIN medians m
  ON w.suite = m.suite AND w.algorithm = m.algorithm AND w.function = m.function AND w.dimension = m.dimension
WHERE m.median_art < CAST('inf' AS DOUBLE)
  AND (w.successes = 0 OR w.art_instance >= 10 * m.median_art)
ORDER BY w.suite, w.algorithm, w.function, w.dimension, w.instance;
