"""The EAF of bbob-biobj runs (`biobj_eaf`, `biobj_eaf_diff`): attainment surfaces answered by hand, then
equal to moocore 0.3.2's `eaf` / `eafdiff` and IOHinspector 0.0.8's `get_eaf_pareto_data` /
`get_eaf_diff_data` on archives logged by coco-experiment (tests/fixtures/biobj_eaf: logs/ of two small
algorithms, and a few problems of RS_on_bbob-biobj; oracles made by make_oracle.py there)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest

from conftest import SHARED, shared_or_skip
from pipeline.measures.biobj_eaf import differences, level_of, surfaces
from pipeline.measures.registry import InvalidSetting, get

HERE = Path(__file__).parent / "fixtures" / "biobj_eaf"
ORACLE = pl.read_csv(HERE / "surfaces_oracle.csv", infer_schema_length=None,
                     schema_overrides={"budget": pl.Float64, "instances": pl.String})
DIFF_ORACLE = pl.read_csv(HERE / "diff_oracle.csv", infer_schema_length=None,
                          schema_overrides={"budget": pl.Float64, "instances": pl.String})


# -- by hand ---------------------------------------------------------------------------------------------------
def test_two_runs_surfaces_by_hand():
    # run 0: (1, 3), (2, 2), (4, 1); run 1: (1.5, 2.5), (3, 0.5)
    # 50% (either run): the minimal points of the union: (1, 3), (1.5, 2.5), (2, 2), (3, 0.5)  [(4, 1) dominated]
    # 100% (both): where both staircases are below: x=1.5 -> max(3, 2.5) = 3; x=2 -> max(2, 2.5) = 2.5;
    #   x=3 -> max(2, 0.5) = 2; x=4 -> max(1, 0.5) = 1
    f1, f2 = np.array([1, 2, 4, 1.5, 3.]), np.array([3, 2, 1, 2.5, 0.5])
    run = np.array([0, 0, 0, 1, 1])
    assert surfaces(f1, f2, run, 2, [1, 2]) == [
        (1, 1.0, 3.0), (1, 1.5, 2.5), (1, 2.0, 2.0), (1, 3.0, 0.5),
        (2, 1.5, 3.0), (2, 2.0, 2.5), (2, 3.0, 2.0), (2, 4.0, 1.0)]


def test_a_run_without_points_counts_in_n():
    # three runs, one empty: the 2/3 surface is the one both others attain, the 3/3 surface is empty
    f1, f2, run = np.array([1., 2.]), np.array([2., 1.]), np.array([0, 1])
    assert surfaces(f1, f2, run, 3, [1, 2, 3]) == [(1, 1.0, 2.0), (1, 2.0, 1.0), (2, 2.0, 2.0)]


def test_difference_by_hand():
    # left: one run (1, 2); right: one run (2, 1). Left alone attains [1, 2) x [2, inf), right alone
    # [2, inf) x [1, 2); both attain [2, inf) x [2, inf) (difference 0, left out)
    rows = differences((np.array([1.]), np.array([2.]), np.array([0]), 1),
                       (np.array([2.]), np.array([1.]), np.array([0]), 1))
    assert rows == [(1.0, 2.0, 2.0, np.inf, 1.0, 0.0), (2.0, np.inf, 1.0, 2.0, 0.0, 1.0)]


def test_percentile_levels_as_moocore():
    # p% of n runs is the level ceil(p n / 100): 34% of 3 is 2, 50% of 3 is 2, 25% of 4 is 1
    assert [level_of(34, 3), level_of(50, 3), level_of(25, 4), level_of(100, 5), level_of(0.1, 5)] == [2, 2, 1, 5, 1]


def test_raw_values_of_pooled_instances_are_refused():
    with pytest.raises(InvalidSetting, match="per_instance False: expected True with normalise=False"):
        get("biobj_eaf").configure(normalise=False)
    assert get("biobj_eaf").configure(normalise=False, per_instance=True).per_instance


# -- parity with moocore and IOHinspector ------------------------------------------------------------------------
def store_of(tmp_path_factory, name: str, source: Path):
    """A store of `source`, ingested."""
    from pipeline.ingest import ingest
    from pipeline.store import Store

    st = Store(tmp_path_factory.mktemp(name), create=True)
    ingest([source], st)
    return st


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    pytest.importorskip("cocoex", reason="coco-experiment (pip install '.[biobj]') gives ideal and nadir points")
    return store_of(tmp_path_factory, "biobj-eaf-logs", HERE / "logs")


@pytest.fixture(scope="module")
def rs(tmp_path_factory):
    pytest.importorskip("cocoex", reason="coco-experiment (pip install '.[biobj]') gives ideal and nadir points")
    shared_or_skip()
    return store_of(tmp_path_factory, "biobj-eaf-rs", SHARED / "data" / "generated" / "RS_on_bbob-biobj.tgz")


def ours(store, problems, **settings) -> pl.DataFrame:
    """cocopipe's surfaces of the problems [(function, dimension)] at budgets final, 50, 150."""
    from pipeline.api import Analysis

    out = []
    for f, d in problems:
        a = Analysis(store, function=f, dimension=d)
        for budgets in (None, [50.0, 150.0]):
            out.append(a.measure("biobj_eaf", budgets=budgets, **settings).collect())
    return pl.concat(out)


def keyed(frame: pl.DataFrame) -> list[tuple]:
    """The rows as sorted (algorithm, function, dimension, instances, budget, percentile, f1, f2) tuples."""
    return sorted(frame.select("algorithm", "function", "dimension", "instances", pl.col("budget").fill_null(-1.0),
                               pl.col("percentile").round(9), "f1", "f2").rows())


@pytest.mark.parametrize("source", ["moocore", "iohinspector"])
def test_surfaces_equal_the_peers_on_coco_experiment_logs(logs, source):
    got = ours(logs, [(1, 2), (10, 2)])
    want = ORACLE.filter((pl.col("data") == "logs") & (pl.col("space") == "normalised") & (pl.col("source") == source))
    assert got.height > 500
    expected = every_level(want) if source == "moocore" else want
    assert keyed(got) == keyed(expected)


def every_level(want: pl.DataFrame) -> pl.DataFrame:
    """moocore's rows of its every-level call (dropping those of its `percentiles=[25, 50, 100]` call)."""
    return want.filter(is_every_level(want))


def is_every_level(want: pl.DataFrame) -> pl.Series:
    """Whether each row of moocore's oracle came from its every-level call: the percentile call's rows
    come after them in each group (its first row is where the percentile falls below the one before)."""
    key = ["data", "algorithm", "function", "dimension", "instances", "space", "budget"]
    w = want.with_row_index("i").with_columns(
        drop=(pl.col("percentile") < pl.col("percentile").shift(1)).fill_null(False).cum_sum().over(key))
    return w["drop"] == 0


def test_chosen_percentiles_equal_moocore(logs):
    got = ours(logs, [(1, 2), (10, 2)], percentiles=[25, 50, 100])
    want = ORACLE.filter((pl.col("data") == "logs") & (pl.col("space") == "normalised")
                         & (pl.col("source") == "moocore"))
    assert keyed(got) == keyed(want.filter(~is_every_level(want)))


def test_raw_values_of_one_instance_equal_moocore(logs):
    got = ours(logs, [(1, 2), (10, 2)], normalise=False, per_instance=True).filter(pl.col("instances") == "1")
    want = ORACLE.filter((pl.col("data") == "logs") & (pl.col("space") == "raw") & (pl.col("source") == "moocore"))
    assert got.height and keyed(got) == keyed(every_level(want))


def test_surfaces_equal_moocore_on_rs_on_bbob_biobj(rs):
    got = ours(rs, [(1, 2), (30, 3), (46, 5)])
    want = ORACLE.filter((pl.col("data") == "rs") & (pl.col("space") == "normalised"))
    assert got["runs"].unique().to_list() == [10]
    assert keyed(got) == keyed(every_level(want.filter(pl.col("source") == "moocore")))
    assert keyed(got) == keyed(want.filter(pl.col("source") == "iohinspector"))


def value_at(rects: pl.DataFrame, x: np.ndarray, y: np.ndarray, value: str) -> np.ndarray:
    """The value of the half-open rectangle [x_min, x_max) x [y_min, y_max) holding each point, 0 outside."""
    out = np.zeros(len(x))
    for x0, y0, x1, y1, v in rects.select("x_min", "y_min", "x_max", "y_max", value).rows():
        inside = (x0 <= x) & (x < x1) & (y0 <= y) & (y < y1)
        assert not np.any(out[inside] != 0) or v == 0
        out[inside] += v
    return out


@pytest.mark.parametrize("source", ["moocore", "iohinspector"])
def test_differences_equal_the_peers_at_every_cell(logs, source):
    from pipeline.api import Analysis

    checked = 0
    for f in (1, 10):
        a = Analysis(logs, function=f, dimension=2)
        for budgets in (None, [50.0, 150.0]):
            got = a.measure("biobj_eaf_diff", budgets=budgets).collect()
            assert set(got["left"]) == {"GAUSS"} and set(got["right"]) == {"UNIFORM"}
            for (budget,), mine in got.group_by("budget", maintain_order=True):
                want = DIFF_ORACLE.filter((pl.col("function") == f) & (pl.col("space") == "normalised")
                                          & (pl.col("source") == source)
                                          & (pl.col("budget").is_null() if budget is None else pl.col("budget") == budget))
                n = want["n"][0]
                # probes: the midpoints of the cells between consecutive coordinates of every rectangle, and beyond
                xs = np.unique(np.concatenate([mine["f1_min"], want["x_min"]]))
                ys = np.unique(np.concatenate([mine["f2_min"], want["y_min"]]))
                px = np.concatenate([(xs[1:] + xs[:-1]) / 2, [xs[-1] + 1]])
                py = np.concatenate([(ys[1:] + ys[:-1]) / 2, [ys[-1] + 1]])
                gx, gy = (g.ravel() for g in np.meshgrid(px, py))
                theirs = value_at(want.with_columns(pl.col("diff") / n), gx, gy, "diff")
                mine_at = value_at(mine.rename({"f1_min": "x_min", "f2_min": "y_min", "f1_max": "x_max",
                                                "f2_max": "y_max"}), gx, gy, "difference")
                np.testing.assert_allclose(mine_at, theirs, atol=1e-12)
                checked += len(gx)
    assert checked > 10000
