"""The report's ECDFs assembled without Altair (`charts._ecdf_spec`, through `report.ecdfs.ecdf_spec`) are the
spec Altair writes for `ecdf_chart`, to the byte of the JSON: random algorithms (names with quotes, spaces and
non-ASCII letters), references, palettes given in part, tables large enough to go as CSV, labels and zoom on
or off, titles, settings and y titles of every form; and what the fast path does not take goes through Altair."""
from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings, strategies as st

from pipeline.charts import _ecdf_spec, theme
from pipeline.charts.ecdf import ecdf_chart, label_gap, prepare
from pipeline.report.ecdfs import ecdf_spec
from pipeline.report.runner import chart_spec

NAMES = ["A", "B2", "best2009-bbob", "it's", 'say "x"', "Ünïcode ß", "with space", "a\\b", "CMA-ES"]


@st.composite
def ecdf_inputs(draw) -> tuple[pl.DataFrame, pl.DataFrame, dict]:
    """Steps and summary of one (dimension, group) and the options of a report's ECDF."""
    algs = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=5, unique=True))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    dim, group = draw(st.sampled_from([2, 3, 40])), draw(st.sampled_from(["all", "f1", "hcond", "it's"]))
    steps, summ = [], []
    for a in algs:
        n = int(draw(st.sampled_from([1, 3, 40, 900])))
        x = np.sort(10 ** rng.uniform(-1, 7, n))
        f = np.sort(rng.uniform(0, 1, n))
        steps += [(a, dim, group, float(xi), float(fi)) for xi, fi in zip(x, f)]
        max_x = float(x[-1] * rng.uniform(1, 3))
        med = float(max_x * rng.uniform(0.2, 1)) if rng.random() < 0.8 else None
        summ.append((a, dim, group, float(f[-1]), max_x, med, int(rng.integers(1, 50)), 24, 15))
    steps = pl.DataFrame(steps, schema={"algorithm": pl.String, "dimension": pl.Int64, "group": pl.String,
                                        "x": pl.Float64, "fraction": pl.Float64}, orient="row")
    summary = pl.DataFrame(summ, schema={"algorithm": pl.String, "dimension": pl.Int64, "group": pl.String,
                                         "final_fraction": pl.Float64, "max_x": pl.Float64,
                                         "median_max_evaluations": pl.Float64, "instance_targets": pl.Int64,
                                         "functions": pl.Int64, "trials": pl.Int64}, orient="row")
    if draw(st.booleans()):
        summary = summary.drop("instance_targets", "functions", "trials")
    refs = draw(st.lists(st.sampled_from(algs), max_size=2, unique=True))
    given_pal = draw(st.lists(st.sampled_from(algs), unique=True))
    height = draw(st.sampled_from([180, 190, 240]))
    x_range = draw(st.sampled_from([None, (0.01, 1e8), (1.0, 10.0)]))
    options = dict(palette=theme.palette(given_pal) if given_pal else None,
                   reference=refs[0] if len(refs) == 1 and draw(st.booleans()) else refs,
                   title=draw(st.sampled_from(["f1 Sphere, 2-D", "All functions, 40-D", "it's \"q\""])),
                   settings=draw(st.sampled_from([None, "51 targets 100..1e-8", ["a", "", "b"], []])),
                   y_title=draw(st.sampled_from([["fraction of problems", "(function, target, instance)"], "fraction"])),
                   width=draw(st.sampled_from([240, 280])), height=height, labels=draw(st.booleans()),
                   zoom=draw(st.booleans()), x_range=x_range,
                   prepared=prepare(steps, summary, gap=label_gap(height), x_range=x_range))
    return steps, summary, options


@settings(max_examples=150, deadline=None)
@given(ecdf_inputs())
def test_the_fast_ecdf_spec_is_altairs_to_the_byte(inputs):
    steps, summary, options = inputs
    want = chart_spec(ecdf_chart, (steps, summary), options)
    assert _ecdf_spec.spec(steps, summary, configured=False, **options) is not None  # the fast path took it
    assert json.dumps(ecdf_spec(steps, summary, **options)) == json.dumps(want)


@pytest.mark.parametrize("other", ["background", "legend", "unprepared", "band", "instances"])
def test_what_the_fast_path_does_not_take_goes_through_altair(other):
    steps = pl.DataFrame({"algorithm": ["A", "A", "B2", "B2"], "dimension": 2, "group": "all", "x": [1.0, 5.0, 2.0, 9.0],
                          "fraction": [0.2, 0.5, 0.1, 0.7]})
    summary = pl.DataFrame({"algorithm": ["A", "B2"], "dimension": 2, "group": "all", "final_fraction": [0.5, 0.7],
                            "max_x": [6.0, 10.0], "median_max_evaluations": [5.0, 8.0]})
    options = {"reference": "A", "prepared": prepare(steps, summary, gap=label_gap(theme.HEIGHT)), **{
        "background": dict(background=["B2"]), "legend": dict(legend=True), "unprepared": dict(prepared=None),
        "band": dict(band=steps.with_columns(low=pl.col("fraction") / 2, high=pl.col("fraction"))),
        "instances": dict(instances=steps.with_columns(instance=pl.lit(1)))}[other]}
    assert _ecdf_spec.spec(steps, summary, configured=False, **options) is None
    assert ecdf_spec(steps, summary, **options) == chart_spec(ecdf_chart, (steps, summary), options)
