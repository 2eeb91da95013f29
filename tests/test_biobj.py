"""The recomputed bbob-biobj indicator on hand-made archives (seed 002, "Definition of the Quality
Indicator"; the COCO logger's conventions), and its properties."""
from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings, strategies as st

from pipeline.biobj import (BiobjError, distance_to_roi, normalise, read_reference_values, recomputed_frame,
                            trajectory)
from pipeline.hits import targets as tg


def run(points, ideal=(0.0, 0.0), nadir=(1.0, 1.0), reference=0.0, run_id=1, adjust_extremes=True):
    """Trajectory of one run whose solutions are `points` [(f1, f2)], evaluated 1, 2, 3, ..."""
    n = len(points)
    df = pl.DataFrame({
        "run_id": [run_id] * n, "evaluations": list(range(1, n + 1)),
        "f1": [float(p[0]) for p in points], "f2": [float(p[1]) for p in points],
        "ideal1": [ideal[0]] * n, "ideal2": [ideal[1]] * n, "nadir1": [nadir[0]] * n, "nadir2": [nadir[1]] * n,
        "reference": [reference] * n,
    })
    return trajectory(df, adjust_extremes)


def test_archive_never_dominating_the_nadir_gives_the_distance_to_the_region_of_interest():
    # normalised points outside [0,1]^2: distances sqrt(1 + 0.25), sqrt(0.25 + 4), 0.2 (only f1 too large)
    t = run([(2.0, 1.5), (1.5, 3.0), (1.2, 0.9)], reference=0.5)
    assert t["accepted"].to_list() == [True, True, True]
    assert t["hv"].to_list() == [0.0, 0.0, 0.0]
    expected = [0.5 + math.sqrt(1.25), 0.5 + math.sqrt(1.25), 0.5 + 0.2]
    assert t["best_delta"].to_list() == pytest.approx(expected, rel=1e-12)


def test_a_point_exactly_at_the_nadir_gives_indicator_zero():
    t = run([(3.0, 3.0), (1.0, 1.0)])
    assert t["best_delta"].to_list() == pytest.approx([2 * math.sqrt(2), 0.0], abs=1e-15)


def test_the_ideal_point_gives_indicator_minus_one():
    # best_delta = indicator - reference indicator value = -hv + reference hypervolume
    t = run([(0.5, 0.5), (0.0, 0.0)], reference=0.25, adjust_extremes=False)
    assert t["best_delta"].to_list() == pytest.approx([0.25 - 0.25, 0.25 - 1.0], rel=1e-12)
    # with the logger's rule a point one grid step (5e-13) beside the ideal is kept: indicator -1 + 1e-12
    t = run([(0.5, 0.5), (5e-13, 5e-13)], reference=0.25)
    assert t["best_delta"][1] == pytest.approx(0.25 - 1.0, abs=2e-12)


def test_the_logger_moves_an_exact_ideal_value_to_the_extreme_of_the_front():
    # the only solution with f1 = ideal1 is the optimum of f1, whose f2 is nadir2: (0, 0) -> (0, 1)
    t = run([(0.5, 0.5), (0.0, 0.0)], reference=0.25)
    assert (t["n1"][1], t["n2"][1]) == (0.0, 1.0)
    assert t["best_delta"].to_list() == pytest.approx([0.0, 0.0], abs=1e-15)


def test_normalisation_maps_ideal_to_zero_and_nadir_to_one():
    n1, n2 = normalise(np.array([10.0, 20.0, 15.0]), np.array([-5.0, 5.0, 0.0]), np.array([10.0, -5.0]),
                       np.array([20.0, 5.0]))
    # (10, -5) is the ideal; the logger moves a point with one objective at 0 to the nadir's other value
    assert n1.tolist() == [0.0, 1.0, 0.5]
    assert n2.tolist() == [1.0, 1.0, 0.5]
    t = run([(15.0, 0.0)], ideal=(10.0, -5.0), nadir=(20.0, 5.0))
    assert t["hv"].to_list() == pytest.approx([0.25], rel=1e-12)


def test_dominated_points_arriving_later_change_nothing():
    pts = [(0.5, 0.5), (0.6, 0.6), (0.5, 0.5), (0.5, 0.7), (0.25, 0.75), (0.25, 0.25)]
    t = run(pts, reference=1.0)
    assert t["accepted"].to_list() == [True, False, False, False, True, True]
    # 0.5*0.5; unchanged; unchanged; unchanged; + (0.5-0.25)*(1-0.75); the ideal-side point covers both
    hv = [0.25, 0.25, 0.25, 0.25, 0.25 + 0.0625, 0.75 * 0.75]
    assert t["hv"].to_list() == pytest.approx(hv, rel=1e-12)
    assert t["best_delta"].to_list() == pytest.approx([1 - v for v in hv], rel=1e-12)


def test_points_outside_the_region_of_interest_do_not_count_in_the_hypervolume():
    # (0.5, 1.5) is non-dominated but above the nadir in f2: hv stays that of (0.8, 0.2)
    t = run([(0.8, 0.2), (0.5, 1.5)])
    assert t["accepted"].to_list() == [True, True]
    assert t["hv"].to_list() == pytest.approx([0.2 * 0.8, 0.2 * 0.8], rel=1e-12)


def test_distance_to_roi_by_hand():
    d = distance_to_roi(np.array([0.5, 2.0, 2.0, 0.5]), np.array([0.5, 0.5, 3.0, 1.25]))
    assert d.tolist() == pytest.approx([0.0, 1.0, math.sqrt(5.0), 0.25])


def test_events_have_one_record_per_archive_change_and_one_at_the_last_evaluation():
    df = pl.DataFrame({"run_id": [7] * 4, "evaluations": [1, 4, 6, 9], "f1": [0.5, 0.6, 0.25, 0.9],
                       "f2": [0.5, 0.6, 0.75, 0.95]})
    runs = pl.DataFrame({"run_id": [7], "suite": ["bbob-biobj"], "algorithm": ["A"], "function": [1], "dimension": [2],
                         "instance": [1], "last_evaluation": [20], "reference": [0.5]},
                        schema_overrides={"function": pl.Int32, "dimension": pl.Int32, "instance": pl.Int32})
    points = pl.DataFrame({"suite": ["bbob-biobj"], "function": [1], "dimension": [2], "instance": [1],
                           "ideal1": [0.0], "ideal2": [0.0], "nadir1": [1.0], "nadir2": [1.0]},
                          schema_overrides={"function": pl.Int32, "dimension": pl.Int32, "instance": pl.Int32})
    ev = recomputed_frame(df, runs, points)
    assert ev["evaluations"].to_list() == [1, 6, 20]  # 4 and 9 are dominated by the point of evaluation 1
    assert ev["trigger"].to_list() == [1, 1, 2]
    assert ev["best_delta"].to_list() == pytest.approx([0.25, 0.5 - 0.3125, 0.5 - 0.3125])


# -- properties ----------------------------------------------------------------------------------
coords = st.floats(min_value=-0.5, max_value=2.5, allow_nan=False, width=32)


def brute_hypervolume(points: list[tuple[float, float]]) -> float:
    """Area of the union of [p, (1,1)] boxes over the points in [0,1]^2, on the grid of their coordinates."""
    pts = [(a, b) for a, b in points if a <= 1 and b <= 1]
    xs = sorted({a for a, _ in pts} | {1.0})
    ys = sorted({b for _, b in pts} | {1.0})
    area = 0.0
    for i in range(len(xs) - 1):
        for j in range(len(ys) - 1):
            if any(a <= xs[i] and b <= ys[j] for a, b in pts):
                area += (xs[i + 1] - xs[i]) * (ys[j + 1] - ys[j])
    return area


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(coords, coords), min_size=1, max_size=25))
def test_indicator_never_increases_as_the_archive_grows(points):
    t = run(points, reference=0.3)
    d = t["best_delta"].to_numpy()
    assert np.all(np.diff(d) <= 1e-12)
    assert np.all(d >= 0.3 - 1 - 1e-12)  # bounded below by -1 + reference value shift


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(coords, coords), min_size=1, max_size=20))
def test_sweep_hypervolume_equals_the_union_of_boxes(points):
    t = run(points)
    n = list(zip(t["n1"].to_list(), t["n2"].to_list()))
    for k in range(len(n)):
        assert t["hv"][k] == pytest.approx(brute_hypervolume(n[: k + 1]), abs=1e-12)


# -- reference values ----------------------------------------------------------------------------
def test_reference_values_in_cocos_format_and_as_csv(tmp_path):
    a = tmp_path / "ref.txt"
    a.write_text("% new values\nbbob-biobj_f01_i01_d02 8.5e-01\nbbob-biobj_f02_i03_d05 0.5\n")
    df = read_reference_values(a)
    assert df.rows() == [("bbob-biobj", 1, 2, 1, 0.85), ("bbob-biobj", 2, 5, 3, 0.5)]
    b = tmp_path / "ref.csv"
    b.write_text("function,dimension,instance,reference_value\n1,2,1,0.85\n")
    assert read_reference_values(b).rows() == [(None, 1, 2, 1, 0.85)]


def test_bad_reference_value_file_names_file_and_line(tmp_path):
    a = tmp_path / "ref.txt"
    a.write_text("bbob-biobj_f01_i01_d02 0.85\nbbob-biobj_f01_i02_d02 zero\n")
    with pytest.raises(BiobjError, match=r"ref.txt:2"):
        read_reference_values(a)
    with pytest.raises(BiobjError, match="no such"):
        read_reference_values(tmp_path / "missing.txt")


# -- targets and the optional dependency ---------------------------------------------------------
def test_the_58_biobj_target_precisions_of_seed_002():
    t = tg.BIOBJ
    assert len(t) == 58 and len(set(t)) == 58
    assert sorted(x for x in t if x < 0) == pytest.approx(sorted(-(10 ** (-4 - k / 5)) for k in range(6)))
    assert 0.0 in t
    assert sorted(x for x in t if x > 0) == pytest.approx(sorted(10 ** (k / 10) for k in range(-50, 1)))


def test_missing_coco_experiment_gives_an_install_hint(monkeypatch):
    import sys

    from pipeline.biobj import problem_points

    monkeypatch.setitem(sys.modules, "cocoex", None)  # import cocoex raises ImportError
    keys = pl.DataFrame({"suite": ["bbob-biobj"], "function": [1], "dimension": [2], "instance": [1]})
    with pytest.raises(BiobjError, match=r"pip install 'cocopipe\[biobj\]'"):
        problem_points(keys)


def test_long_runs_use_a_sorted_list_with_the_same_results(monkeypatch):
    import pipeline.biobj.indicator as ind

    rng = np.random.default_rng(3)
    u = rng.random(400)
    pts = list(zip(u + rng.random(400) / np.arange(1, 401) ** 0.5, 1 - u ** 0.5 + rng.random(400) / 20))
    short = run(pts)
    monkeypatch.setattr(ind, "SMALL_RUN", 0)
    long = run(pts)
    assert long["accepted"].to_list() == short["accepted"].to_list()
    assert long["hv"].to_list() == short["hv"].to_list()
    n = list(zip(long["n1"].to_list(), long["n2"].to_list()))
    for k in (10, 100, 399):
        assert long["hv"][k] == pytest.approx(brute_hypervolume(n[: k + 1]), abs=1e-12)
