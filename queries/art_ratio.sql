-- Question:   How much faster is algorithm A than algorithm B on each function and dimension?
--             aRT(A) / aRT(B) at targets 1e1, 1e-1, 1e-3 and 1e-5 (below 1: A is faster).
-- Tables:     art (derived view)
-- Run:        cocopipe query queries/art_ratio.sql --store STORE [--out ratio.csv]
-- Parameters: edit the two algorithm names ('NM' as A, 'BrentSTEPqi' as B), the suite ('bbob')
--             and the list of targets (any target of the suite's default set, 10^(k/5)) below.
-- Output:     one row per (function, dimension, target) both algorithms ran: both aRTs and
--             success rates and the ratio; the ratio is null when either never reached the target
--             (aRT infinite), and `faster` names the algorithm with the smaller aRT
--             ('neither' when none reached it).
WITH a AS (
    SELECT function, dimension, target, art, success_rate
    FROM art
    WHERE algorithm = 'NM' AND suite = 'bbob'               -- algorithm A
      AND target IN (1e1, 1e-1, 1e-3, 1e-5)
),
b AS (
    SELECT function, dimension, target, art, success_rate
    FROM art
    WHERE algorithm = 'BrentSTEPqi' AND suite = 'bbob'      -- algorithm B
      AND target IN (1e1, 1e-1, 1e-3, 1e-5)
)
SELECT a.function, a.dimension, a.target,
       a.art AS art_a, b.art AS art_b,
       a.success_rate AS success_rate_a, b.success_rate AS success_rate_b,
       CASE WHEN a.success_rate > 0 AND b.success_rate > 0 THEN a.art / b.art END AS ratio,
       CASE WHEN a.success_rate = 0 AND b.success_rate = 0 THEN 'neither'
            WHEN a.art < b.art THEN 'A'
            WHEN b.art < a.art THEN 'B'
            ELSE 'tie' END AS faster
FROM a
JOIN b ON a.function = b.function AND a.dimension = b.dimension AND a.target = b.target
ORDER BY a.function, a.dimension, a.target DESC;
