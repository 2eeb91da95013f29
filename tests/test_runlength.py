"""Runlength-based targets (seed 000): cocopp's numbers for best2009, hand-made references, the CLI."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

from logs import write_new2
from pipeline.api import Analysis
from pipeline.cli import app
from pipeline.ingest import ingest
from pipeline.measures import runlength as rl
from pipeline.selection import open_reference
from pipeline.store import Store

FIXTURES = Path(__file__).parent / "fixtures"
STEP = 10 ** 0.2
KEYS = ["function", "dimension", "budget_per_dimension"]


def fixture(name: str) -> pl.DataFrame:
    return pl.read_csv(FIXTURES / f"runlength_best2009_{name}.csv")


def assert_equal_targets(ours: pl.DataFrame, theirs: pl.DataFrame) -> None:
    j = theirs.join(ours.with_columns(pl.col("function", "dimension").cast(pl.Int64)), on=KEYS, how="full",
                    suffix="_ours")
    missing = j.filter(pl.col("target").is_null() | pl.col("target_ours").is_null())
    assert missing.height == 0, missing
    different = j.filter(pl.col("target") != pl.col("target_ours"))
    assert different.height == 0, different


@pytest.mark.parametrize("variant, budgets, options", [
    ("pprldmany", 31, {}),                                   # pprldmany: 31 budgets, no rule, distinct targets
    ("default", [0.5, 1.2, 3, 10, 50], {}),                  # the class default: factor 10**0.04
    ("table", [0.5, 1.2, 3, 10, 50], {"factor": 10 ** -0.2}),  # pptable/ppfigdim: factor 10**0.2
])
def test_best2009_targets_equal_cocopp(variant, budgets, options):
    ours = rl.runlength_targets(open_reference("best2009"), budgets, **options).collect()
    theirs = fixture(variant)
    assert ours["suite"].unique().to_list() == ["bbob"]
    assert sorted(ours["dimension"].unique()) == [2, 3, 5, 10, 20, 40]
    assert_equal_targets(ours, theirs)


@pytest.mark.parametrize("name", ["best2009-bbob-noisy", "best2019-bbob-largescale", "best2016-bbob-biobj"])
def test_other_published_sets_equal_cocopp(name):
    """bbob-biobj included: its reference is aligned on 10^(k/10), the step stays 10^0.2."""
    ours = rl.runlength_targets(open_reference(name), [0.5, 1.2, 3, 10, 50]).collect()
    assert_equal_targets(ours, pl.read_csv(FIXTURES / f"runlength_{name}_default.csv"))


@pytest.fixture
def hand_reference(tmp_path) -> Analysis:
    """One trial on f1 2-D: precision 100 at evaluation 2, 10 at 4, 0.1 at 40, 1e-8 at 400."""
    write_new2(tmp_path / "logs", alg="REF", dim=2,
               runs=[{"instance": 1, "dat": [(2, 100.0), (4, 10.0), (40, 0.1), (400, 1e-8)]}])
    st = Store(tmp_path / "store", create=True)
    ingest([tmp_path / "logs"], st)
    return Analysis(st)


def test_targets_by_hand(hand_reference):
    """limit = max(1, 2 b): the smallest precision reached within it, one grid step harder."""
    df = rl.runlength_targets(hand_reference, [0.5, 1, 2, 5, 20, 200, 1000]).collect()
    harder = lambda f: (1 + 1e-9) * f / STEP  # noqa: E731
    expected = [
        100.0,                   # b=0.5: nothing within 1 evaluation: the easiest recorded target
        harder(100.0),           # b=1: 100 reached at 2
        harder(10.0),            # b=2: 10 reached at 4
        harder(10.0) / 10 ** 0.04,  # b=5: still 10, chosen before: previous / 10^0.04
        harder(0.1),             # b=20: 0.1 at 40
        1e-8,                    # b=200: 1e-8 at 400, one step harder is below 1e-8: clipped
        1e-8,                    # b=1000: chosen before, divided, clipped again
    ]
    assert df["budget_per_dimension"].to_list() == [0.5, 1, 2, 5, 20, 200, 1000]
    assert df["target"].to_list() == pytest.approx(expected, rel=1e-14)
    without_rule = rl.runlength_targets(hand_reference, [2, 5], factor=1).collect()
    assert without_rule["target"].to_list() == pytest.approx([harder(10.0)] * 2, rel=1e-14)


def test_count_of_budgets_is_log_uniform_without_rule_and_distinct(hand_reference):
    df = rl.runlength_targets(hand_reference, 31).collect()
    budgets = np.logspace(np.log10(0.5), np.log10(50), 31)
    assert rl.log_uniform_budgets() == budgets.tolist()
    # distinct targets, each with the smallest budget that gives it
    assert df["target"].n_unique() == df.height
    assert df["target"].to_list() == sorted(df["target"].to_list(), reverse=True)
    limit = np.maximum(1, 2 * budgets)
    first_with_10 = budgets[np.argmax(limit >= 4)]
    ten = df.filter((pl.col("target") / ((1 + 1e-9) * 10 / STEP) - 1).abs() < 1e-12)
    assert ten["budget_per_dimension"].to_list() == [first_with_10]


def test_a_reference_with_two_algorithms_is_refused(hand_reference, tmp_path):
    write_new2(tmp_path / "other", alg="OTHER", dim=2, runs=[{"instance": 1, "dat": [(1, 5.0)]}])
    ingest([tmp_path / "other"], hand_reference.store)
    with pytest.raises(ValueError, match="one algorithm per suite.*OTHER, REF"):
        rl.runlength_targets(hand_reference, [1.0]).collect()


def test_measures_run_on_runlength_targets(hand_reference):
    """hits/aRT take the targets as they are: per (suite, function, dimension), budget column ignored."""
    expected = (rl.runlength_targets(open_reference("best2009"), 31).collect()
                .filter((pl.col("function") == 1) & (pl.col("dimension") == 2))["target"].to_list())
    art = hand_reference.art("runlength", dispersion=False).collect()
    assert sorted(art["target"].to_list(), reverse=True) == expected
    direct = hand_reference.art(rl.runlength_targets(open_reference("best2009"), 31), dispersion=False).collect()
    assert direct.equals(art)
    own = hand_reference.target_frame("runlength", reference=hand_reference, budgets=[1, 20]).collect()
    assert own.columns == ["suite", "function", "dimension", "target"]
    hits = hand_reference.hits(own.lazy()).collect().sort("target", descending=True)
    assert hits["hit"].to_list() == [4, 400]  # its own targets 63.1 and 0.063: just not reached within 2 and 40


def test_default_reference_is_cocopps_per_suite(tmp_path):
    write_new2(tmp_path / "ls", alg="LS", suite="bbob-largescale", dim=20, runs=[{"instance": 1, "dat": [(1, 5.0)]}])
    st = Store(tmp_path / "store", create=True)
    ingest([tmp_path / "ls"], st)
    a = Analysis(st)
    assert a.target_frame("runlength", budgets=[0.5, 50]).collect().equals(
        rl.target_frame(open_reference("best2019"), [0.5, 50]).collect())
    hits = a.hits(a.target_frame("runlength", budgets=[0.5, 50])).collect()
    assert hits.height == 2 and hits["suite"].to_list() == ["bbob-largescale"] * 2


def test_unknown_reference_for_the_suite(hand_reference):
    with pytest.raises(ValueError, match="no data for the suites bbob"):
        hand_reference.target_frame("runlength", reference="best2016").collect()


def test_parse_budgets():
    assert rl.parse_budgets("31") == 31
    assert rl.parse_budgets("0.5, 1.2,3") == [0.5, 1.2, 3.0]
    for bad in ("x,1", "0,1", "-1", ""):
        with pytest.raises(ValueError, match="budgets"):
            rl.parse_budgets(bad)


def as_written(targets: pl.DataFrame) -> pl.DataFrame:
    """Targets as a CSV of cocopipe holds them: each rounded to 12 significant digits (`pipeline.decimals`)."""
    from pipeline.decimals import target_value

    return targets.with_columns(pl.col("target").map_elements(target_value, return_dtype=pl.Float64))


def test_cli_targets_runlength(tmp_path):
    # the CSV holds cocopp's targets (equal to the last bit in Python, above) as every target is written:
    # to 12 digits (10.000000009999999, 10 (1 + 1e-9), as 10.00000001)
    out = tmp_path / "t.csv"
    r = CliRunner().invoke(app, ["targets", "--runlength", "--runlength-reference", "best2009", "--budgets", "31",
                                 "--out", str(out)])
    assert r.exit_code == 0, r.output
    df = pl.read_csv(out)
    assert df.columns == ["function", "dimension", "budget_per_dimension", "target"]
    assert_equal_targets(df, as_written(fixture("pprldmany")))
    assert df.filter(function=1, dimension=2)["target"][0] == 10.00000001
    default = tmp_path / "default.csv"  # cocopp's reference of bbob-noisy
    r = CliRunner().invoke(app, ["targets", "--runlength", "--suite", "bbob-noisy", "--budgets", "0.5,1.2,3,10,50",
                                 "--out", str(default)])
    assert r.exit_code == 0, r.output
    assert_equal_targets(pl.read_csv(default), as_written(pl.read_csv(FIXTURES / "runlength_best2009-bbob-noisy_default.csv")))
    out5 = tmp_path / "t5.csv"
    r = CliRunner().invoke(app, ["targets", "--runlength", "--budgets", "0.5,1.2,3,10,50", "--out", str(out5)])
    assert r.exit_code == 0, r.output
    assert_equal_targets(pl.read_csv(out5), as_written(fixture("default")))


@pytest.mark.parametrize("args, message", [
    (["--runlength-reference", "best2010"], "unknown reference 'best2010': known are best09-16, best2009"),
    (["--budgets", "1,x"], "--budgets"),
    (["--runlength-reference", "best2009", "--suite", "bbob-biobj"],
     "'best2009' has no set for suite 'bbob-biobj': it has bbob, bbob-noisy"),
    (["--suite", "bbob-mixint"], "suite 'bbob-mixint' has no default reference: choose one of best09-16"),
])
def test_cli_targets_errors(args, message):
    r = CliRunner().invoke(app, ["targets", "--runlength", *args])
    assert r.exit_code == 1
    assert message in " ".join(r.output.split()), r.output
    assert "Traceback" not in r.output
