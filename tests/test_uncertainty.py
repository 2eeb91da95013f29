"""Uncertainty of ECDFs: bootstrap bands and per-instance curves."""
from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from conftest import SHARED, shared_or_skip
from pipeline.api import Analysis
from pipeline.ingest import ingest
from pipeline.hits import spec, targets
from pipeline.measures import ecdf, uncertainty
from pipeline.store import Store
from test_measures_hand import frames


def hits_of(hit_times, budget=1000, instances=None):
    """One function, one target (1e-8): trial i reaches it at hit_times[i] (None: never, stops at budget)."""
    trials = []
    for i, h in enumerate(hit_times):
        inst = instances[i] if instances else i + 1
        recs = [(1, 10.0)] + ([(h, 0.0)] if h is not None else [(budget, 1.0)])
        trials.append((inst, recs, h if h is not None else budget))
    runs, events = frames(trials)
    return spec.hitting_times(runs, events, targets.frame([1e-8]))


def width(band: pl.DataFrame) -> float:
    return float((band["high"] - band["low"]).mean())


def test_band_holds_the_estimate_and_narrows_with_more_trials():
    rng = np.random.default_rng(3)
    few = [int(x) if x < 800 else None for x in rng.lognormal(5, 1, 10)]
    many = [int(x) if x < 800 else None for x in rng.lognormal(5, 1, 160)]
    b_few = uncertainty.ecdf_band(hits_of(few), group="all", replicates=200).collect()
    b_many = uncertainty.ecdf_band(hits_of(many), group="all", replicates=200).collect()
    for b in (b_few, b_many):
        assert (b["low"] <= b["fraction"]).all() and (b["fraction"] <= b["high"]).all()
        assert (b["low"] >= 0).all() and (b["high"] <= 1).all()
    # the standard error of a fraction shrinks like 1/sqrt(n): 16 times the trials, about a quarter of the width
    assert width(b_many) < 0.5 * width(b_few)


def test_band_steps_are_the_estimates_steps_and_seeded():
    h = hits_of([10, 20, 30, None, 50, None, 70, 80])
    est = ecdf.ecdf(h, group="all", mode="trials").collect()
    b1 = uncertainty.ecdf_band(h, group="all", replicates=50, seed=7).collect()
    assert b1.select(est.columns).equals(est)
    assert b1.equals(uncertainty.ecdf_band(h, group="all", replicates=50, seed=7).collect())
    assert not b1.equals(uncertainty.ecdf_band(h, group="all", replicates=50, seed=8).collect())


def test_band_of_identical_trials_has_no_width():
    # every trial reaches the target at 40: every resampling gives the same ECDF
    b = uncertainty.ecdf_band(hits_of([40] * 6), group="all", replicates=30).collect()
    assert b["x"].to_list() == [20.0]
    assert b["low"].to_list() == pytest.approx([1.0]) and b["high"].to_list() == pytest.approx([1.0])


def test_per_instance_curves():
    # instance 1: trials at 10 and 30; instance 2: one at 20, one failing. Each instance's ECDF alone.
    h = hits_of([10, 30, 20, None], instances=[1, 1, 2, 2])
    per = uncertainty.ecdf_per_instance(h, group="all", mode="trials").collect().sort("instance", "x")
    one, two = per.filter(pl.col("instance") == 1), per.filter(pl.col("instance") == 2)
    assert one["x"].to_list() == [5.0, 15.0] and one["fraction"].to_list() == [0.5, 1.0]
    assert two["x"].to_list() == [10.0] and two["fraction"].to_list() == [0.5]
    assert set(per["algorithm"]) == {"A"}


def test_band_on_real_data_contains_the_estimate(tmp_path):
    shared_or_skip()
    st = Store(tmp_path / "s", create=True)
    ingest([SHARED / "data" / "real" / "DIRECT_posik_noiseless.tgz"], st)
    a = Analysis(st, dimension=[2, 5])
    for mode in ("trials", "simulated"):
        b = a.ecdf_band(group=["all", "separ"], mode=mode, replicates=40).collect()
        est = a.ecdf(group=["all", "separ"], mode=mode).collect()
        assert b.height == est.height > 0
        assert (b["low"] <= b["fraction"]).all() and (b["fraction"] <= b["high"]).all()
        assert width(b) > 0
