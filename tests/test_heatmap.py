"""The heat map of pairwise rank-sum tests: -log10(corrected p) signed by the winner."""
from __future__ import annotations

import math

import polars as pl

from pipeline.charts import export, pairs


def ranksum_frame() -> pl.DataFrame:
    return pl.DataFrame({
        "suite": "bbob", "dimension": 5, "function": [1, 1, 2], "target": [1e-1, 1e-3, 1e-1],
        "algorithm_a": "A", "algorithm_b": "B", "p_corrected": [1e-3, 0.5, 1e-20],
        "better": ["A", "B", None], "significant": [True, False, False],
    })


def test_evidence_is_signed_by_the_winner_and_clipped():
    ev = pairs.evidence_table(ranksum_frame(), clip=6.0)["evidence"].to_list()
    assert math.isclose(ev[0], 3.0)                    # A better, p = 1e-3
    assert math.isclose(ev[1], math.log10(0.5))        # B better: negative, -log10(0.5) = 0.30
    assert ev[2] == 0.0                                # a tie: no sign, whatever p


def test_heatmap_spec_and_rendering():
    chart = pairs.pairwise_heatmap(ranksum_frame(), settings="rank-sum, bonferroni")
    spec = chart.to_dict()
    values = spec["data"]["values"] if "values" in spec.get("data", {}) else spec["datasets"][next(iter(spec["datasets"]))]
    assert math.isclose(max(v["evidence"] for v in values), 3.0, rel_tol=1e-4)
    assert spec["facet"]["row"]["field"] == "pair"
    assert export.render(chart, "svg").lstrip().startswith("<svg")
