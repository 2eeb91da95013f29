-- Question:   Which data sets come from which COCO version and log format, and what does each
--             cover (suites, functions, dimensions, instances, trials)?
-- Tables:     runs
-- Run:        cocopipe query queries/data_provenance.sql --store STORE [--out provenance.csv]
-- Parameters: none.
-- Output:     one row per (source, suite, algorithm, data format, COCO version); coco_version is
--             null for logs written before COCO recorded it (the bbob-old format, 2009-2015,
--             and the reference-algorithm sets), `reference_set` marks the reference-algorithm
--             data sets (instance 0).
SELECT source, suite, algorithm, data_format, coco_version,
       COUNT(*) AS trials,
       COUNT(DISTINCT function) AS functions,
       MIN(dimension) AS min_dimension,
       MAX(dimension) AS max_dimension,
       COUNT(DISTINCT dimension) AS dimensions,
       COUNT(DISTINCT instance) AS instances,
       MIN(instance) = 0 AS reference_set,
       SUM(CASE WHEN finalized THEN 0 ELSE 1 END) AS unfinalized_trials
FROM runs
GROUP BY source, suite, algorithm, data_format, coco_version
ORDER BY source, suite, algorithm, data_format, coco_version;
