"""Which algorithms the reference algorithm is made of, as the report's settings page shows it."""
from __future__ import annotations

import polars as pl

from pipeline.report.provenance import provenance_table, reference_choices


def test_runs_of_the_same_algorithm_are_joined_in_target_order():
    c = pl.DataFrame({"suite": "bbob", "algorithm": "best", "function": 1, "dimension": 2,
                      "target": [1e-8, 10.0, 1.0, 1e-1, 1e-3], "chosen": ["C", "A", "A", "B", "C"]})
    t = provenance_table(c)
    assert t.height == 1 and t["algorithms (targets)"][0] == "A (to 1), B (to 0.1), C (to 1e-08)"


def test_packaged_best2009_names_its_members_per_function_and_dimension():
    t = provenance_table(reference_choices("best2009-bbob", ["bbob"]))
    assert t.height == 24 * 6  # functions x dimensions 2, 3, 5, 10, 20, 40
    f1 = t.filter(pl.col("function") == 1, pl.col("dimension") == 2)["algorithms (targets)"][0]
    assert f1.endswith("NEWUOA_ros_noiseless (to 1e-08)")


def test_no_reference_no_rows():
    assert provenance_table(reference_choices(None, ["bbob"])).height == 0
    assert provenance_table(reference_choices("best2009-bbob", ["bbob-biobj"])).height == 0
