-- Question:   Which trials were not closed properly, or whose .info entry disagrees with the
--             logged data (a crashed or killed experiment, a truncated or mixed-up log)?
-- Tables:     runs
-- Run:        cocopipe query queries/unfinished_trials.sql --store STORE [--out unfinished.csv]
-- Parameters: none.
-- Output:     one row per suspicious trial with the reason: `unfinalized` (the .info entry lacks
--             `:evaluations|precision`) or `evaluations differ` (the evaluation count the .info
--             states is not the last one logged in .dat/.tdat); and the files to look at.
--             (The precision an .info states is rounded, so it is not compared.)
SELECT suite, algorithm, function, dimension, instance, run_id,
       CASE WHEN NOT finalized THEN 'unfinalized' ELSE 'evaluations differ' END AS reason,
       info_evaluations, last_evaluation, final_delta, source, info_file, data_file
FROM runs
WHERE NOT finalized
   OR info_evaluations <> last_evaluation
ORDER BY suite, algorithm, function, dimension, instance, run_id;
