-- Question:   Between which dimensions does an algorithm's scaling degrade: its aRT at target
--             1e-8 grows faster than quadratically in the dimension, or it stops solving the
--             function at all?
-- Tables:     art (derived view)
-- Run:        cocopipe query queries/scaling_degrades.sql --store STORE [--out scaling.csv]
-- Parameters: the target (1e-8) and the exponent limit (2: aRT ~ dimension^2); use 1 for
--             "worse than linear". Only dimensions an algorithm ran are compared, each with the
--             next larger one.
-- Output:     one row per (suite, algorithm, function, dimension -> next dimension) where the
--             scaling exponent log(aRT2 / aRT1) / log(d2 / d1) exceeds the limit, or where the
--             target was reached in the smaller dimension but not in the larger one
--             (exponent null, `lost_success` true).
WITH a AS (
    SELECT suite, algorithm, function, dimension, art, successes
    FROM art
    WHERE target = 1e-8
),
steps AS (
    SELECT suite, algorithm, function,
           dimension AS dimension_from,
           LEAD(dimension) OVER (PARTITION BY suite, algorithm, function ORDER BY dimension) AS dimension_to,
           art AS art_from,
           LEAD(art) OVER (PARTITION BY suite, algorithm, function ORDER BY dimension) AS art_to,
           successes AS successes_from,
           LEAD(successes) OVER (PARTITION BY suite, algorithm, function ORDER BY dimension) AS successes_to
    FROM a
),
exponents AS (
    SELECT *,
           CASE WHEN successes_from > 0 AND successes_to > 0
                THEN LN(art_to / art_from) / LN(CAST(dimension_to AS DOUBLE) / dimension_from) END AS exponent,
           successes_from > 0 AND successes_to = 0 AS lost_success
    FROM steps
    WHERE dimension_to IS NOT NULL
)
SELECT suite, algorithm, function, dimension_from, dimension_to, art_from, art_to, exponent, lost_success
FROM exponents
WHERE exponent > 2 OR lost_success
ORDER BY suite, algorithm, function, dimension_from;
