"""Reference algorithms: the artificial best algorithm (seed 000 "best 2009") and the packaged sets."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

from conftest import SHARED, shared_or_skip
from logs import write_new2
from pipeline.api import Analysis
from pipeline.cli import app
from pipeline.ingest import ingest
from pipeline import reference_sets as sets, references as ref
from pipeline.selection import open_reference
from pipeline.store import Store

KEYS = ["suite", "function", "dimension", "target"]
FIXTURES = Path(__file__).parent / "fixtures"
TARGETS = [10.0, 1.0, 1e-8, 1e-10]


@pytest.fixture
def two(tmp_path) -> Analysis:
    """A is quick to 10 (aRT 4.5) but slow below; B is slower to 10 (aRT 11) and quick below."""
    write_new2(tmp_path / "A", alg="A", dim=2, runs=[
        {"instance": 1, "dat": [(1, 50.0), (3, 5.0), (1000, 1e-9)]},
        {"instance": 2, "dat": [(1, 50.0), (6, 0.5), (2000, 1e-9)]},
    ])
    write_new2(tmp_path / "B", alg="B", dim=2, runs=[
        {"instance": 1, "dat": [(1, 50.0), (10, 0.5), (20, 1e-9)]},
        {"instance": 2, "dat": [(1, 50.0), (12, 0.5), (30, 1e-9)]},
    ])
    st = Store(tmp_path / "store", create=True)
    ingest([tmp_path / "A", tmp_path / "B"], st)
    return Analysis(st)


def test_best_of_two_by_hand(two):
    ch = ref.build_reference(two, "best", targets=TARGETS)
    # aRT per target: A 4.5, (1000 + 6) / 2 = 503, 1500; B 11, 11, 25; nobody reaches 1e-10
    assert ch.select("target", "chosen", "art").rows() == [(10.0, "A", 4.5), (1.0, "B", 11.0), (1e-8, "B", 25.0)]
    best = two.select(algorithm="best")
    runs = best.runs().collect()
    assert runs.select("instance", "trial", "evaluations", "final_delta").rows() == [(0, 0, 25, 1e-8)]
    events = best.events().collect().sort("evaluations")
    # one artificial trial reaching each target at round(aRT) evaluations; 4.5 rounds half to even as cocopp's np.round
    assert events.select("evaluations", "best_delta").rows() == [(4, 10.0), (11, 1.0), (25, 1e-8)]
    art = best.art(TARGETS, dispersion=False).collect().sort("target", descending=True)
    assert art["art"].to_list() == [4.0, 11.0, 25.0, float("inf")]
    assert best.reference_choices().collect().equals(ch)


def test_ties_go_to_the_first_listed_algorithm_and_names_must_be_new(two, tmp_path):
    both_at_one = [60.0]  # A and B reach 60 at their first evaluation
    assert ref.best_choices(two, "tie", both_at_one)["chosen"].to_list() == ["A"]  # name order
    assert ref.best_choices(two.select(algorithm=["B", "A"]), "tie", both_at_one)["chosen"].to_list() == ["B"]
    with pytest.raises(sets.ReferenceError, match="'A' is one of the algorithms"):
        ref.build_reference(two.select(algorithm=["A", "B"]), "A")
    # without a selection, a rebuild leaves the earlier reference out of its members, and replaces it
    first = ref.build_reference(two, "best", targets=TARGETS)
    again = ref.build_reference(two, "best", targets=TARGETS)
    assert again.equals(first) and set(again["chosen"]) == {"A", "B"}
    assert two.select(algorithm="best").runs().collect().height == 1
    # a name that is also a source's name (or holds a slash) replaces no ingested data
    sources = set(two.store.sources())
    ref.build_reference(two.select(algorithm=["A", "B"]), "B/2", targets=TARGETS)
    assert set(two.store.sources()) == sources | {"reference:B/2"}
    assert two.select(algorithm="B/2").reference_choices().collect().height == 3
    with pytest.raises(sets.ReferenceError, match="no algorithm in the selection reaches any target"):
        ref.best_algorithm(two.select(algorithm=["A", "B"]), "none", targets=[1e-12])


def test_default_targets_extend_the_standard_set_to_the_first_record():
    assert ref.target_grid("bbob", 50.0) == [10 ** (k / 5) for k in range(10, -41, -1)]
    grid = ref.target_grid("bbob", 1000.0)
    assert grid[:5] == [10 ** (k / 5) for k in (15, 14, 13, 12, 11)] and grid[5] == 100.0
    assert ref.target_grid("bbob-biobj", 3.0)[:5] == [10 ** (k / 10) for k in (5, 4, 3, 2, 1)]


def test_best_of_shared_algorithms_has_the_smallest_art_and_equals_cocopps(tmp_path):
    """On real data: per (function, dimension, target) the best algorithm's aRT is the members' minimum
    (rounded to whole evaluations as cocopp stores it), infinite where no member reaches the target;
    its records and choices are those of cocopp's `bestalg.custom_generate` (fixtures/best3_cocopp.csv)."""
    shared_or_skip()
    st = Store(tmp_path / "store", create=True)
    ingest([SHARED / "data" / "real" / "DIRECT_posik_noiseless.tgz", SHARED / "data" / "real" / "BrentSTEPqi_Posik.tgz",
            SHARED / "data" / "generated" / "RS_on_bbob.tgz"], st)
    a = Analysis(st, algorithm=["DIRECT", "BrentSTEPqi", "RS"])  # cocopp's argument order decides ties
    members = a.art("bbob", dispersion=False).collect()
    ch = ref.build_reference(a, "best3")
    best = a.select(algorithm="best3").art("bbob", dispersion=False).collect()
    least = members.group_by(KEYS).agg(min_art=pl.col("art").min())
    j = least.join(best.select(*KEYS, "art"), on=KEYS, how="full", coalesce=True)
    assert j.height == least.height == best.height == 24 * 6 * 51
    assert np.array_equal(j["art"].to_numpy(), np.round(j["min_art"].to_numpy()))
    assert j.filter(pl.col("min_art").is_finite()).height > 1000 and j.filter(pl.col("min_art").is_infinite()).height > 100
    chosen = ch.join(least, on=KEYS)
    assert chosen.height == j.filter(pl.col("min_art").is_finite()).height
    assert (chosen["art"] == chosen["min_art"]).all()

    grid = (pl.col("target").log10() * 5).round().cast(pl.Int64).alias("k")
    cocopp = pl.read_csv(FIXTURES / "best3_cocopp.csv").with_columns(grid)
    source = dict(a.runs().select("algorithm", "source").unique().collect().iter_rows())
    records = (a.select(algorithm="best3").events().join(a.select(algorithm="best3").runs(), on="run_id")
               .select("function", "dimension", "evaluations", target="best_delta").collect().with_columns(grid))
    ours = records.join(ch.with_columns(grid).select("function", "dimension", "k", "chosen"),
                        on=["function", "dimension", "k"], how="left")
    both = cocopp.join(ours, on=["function", "dimension", "evaluations"], how="full", suffix="_ours")
    assert both.height == cocopp.height == ours.height == 4214
    assert (both["k"] == both["k_ours"]).all()
    assert ((both["target"] / both["target_ours"] - 1).abs() < 1e-12).all()
    assert (both["chosen"] == both["chosen_ours"].replace_strict(source)).all()


def test_open_reference_by_name_offline():
    a = open_reference("best2009")
    assert a.algorithms() == ["best2009-bbob"] and a.suites() == ["bbob"]
    assert a.runs().collect().height == 24 * 6
    assert open_reference("best09-16", "bbob-noisy").algorithms() == ["best09-16-bbob-noisy"]
    assert open_reference("best2016").suites() == ["bbob-biobj"]
    assert open_reference("best2019").algorithms() == ["best2019-bbob-largescale"]
    assert open_reference("best2009-bbob-noisy").suites() == ["bbob-noisy"]
    assert sets.data_dir().name == "refalgs"


def test_unknown_reference_names_list_the_known_ones():
    with pytest.raises(sets.ReferenceError) as exc:
        open_reference("best2010")
    assert str(exc.value) == "unknown reference 'best2010': known are " + ", ".join(sets.known_references())
    assert "best2009, best2016, best2019" in str(exc.value)
    with pytest.raises(sets.ReferenceError, match="'best2016' has no set for suite 'bbob': it has bbob-biobj"):
        open_reference("best2016", "bbob")


def test_published_choices_are_read_from_the_records():
    ch = sets.reference_choices("best2009").collect()
    f1 = ch.filter((pl.col("function") == 1) & (pl.col("dimension") == 2))
    # best2009-bbob_f01_d02.dat: 1 15.8 MCS, 2 6.3 MCS, 3 2.5 MCS, 5 1.58 DIRECT, 6 1e-8 NEWUOA
    assert f1.select("art", "chosen").rows() == [(1.0, "MCS_huyer_noiseless"), (2.0, "MCS_huyer_noiseless"),
                                                 (3.0, "MCS_huyer_noiseless"), (5.0, "DIRECT_posik_noiseless"),
                                                 (6.0, "NEWUOA_ros_noiseless")]
    # targets as the grid values they were printed from: 10^(6/5), 10^(4/5), ... as in targets.BBOB
    assert f1["target"].to_list() == [10 ** (k / 5) for k in (6, 4, 2, 1, -40)]
    # every record of the packaged store has its choice
    events = open_reference("best2009").events().collect()
    assert ch.height == events.height


def test_packaged_sets_equal_a_fresh_ingest(tmp_path):
    shared_or_skip()
    archives = sorted((SHARED / "data" / "refalgs").glob("*.tar.gz"))
    fresh = ref.package_references(archives, tmp_path / "refalgs")
    for table in ("runs", "events"):
        ours = Store(fresh).scan(table).collect().sort("run_id", *(["evaluations"] if table == "events" else []))
        packaged = Store(sets.data_dir()).scan(table).collect().sort("run_id", *(["evaluations"] if table == "events" else []))
        assert ours.equals(packaged), table
    assert sets.choices(Store(fresh)).collect().equals(sets.choices(Store(sets.data_dir())).collect())
    assert sorted(Store(fresh).sources()) == sorted(a.name.split(".tar")[0] for a in archives)
    def entries(store):  # each ingest has commits of its own
        m = store.manifest
        return dict(m, sources={k: {f: v for f, v in e.items() if f != "commit_id"} for k, e in m["sources"].items()})

    assert entries(Store(fresh)) == entries(Store(sets.data_dir()))  # packaged_references: true in both


def test_a_reference_in_a_store_must_be_named_and_the_error_says_which_exist(two):
    for args in (["targets", "--runlength"], ["reference", "choices"]):
        r = CliRunner().invoke(app, [*args, "--store", str(two.store.path)])
        text = " ".join(r.output.split())
        assert r.exit_code == 1 and "name the reference algorithm of the store" in text and "it holds A, B" in text, text


def test_cli_build_and_choices(two, tmp_path):
    out = tmp_path / "choices.csv"
    r = CliRunner().invoke(app, ["reference", "build", "--store", str(two.store.path), "--name", "best", "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert "built best on 1 problem into" in " ".join(r.output.split())
    assert pl.read_csv(out)["chosen"].unique().sort().to_list() == ["A", "B"]
    r = CliRunner().invoke(app, ["reference", "choices", "--store", str(two.store.path), "--reference", "best", "--out", "-"])
    assert r.exit_code == 0 and "A" in r.output
    r = CliRunner().invoke(app, ["reference", "build", "--store", str(two.store.path), "--name", "x", "-a", "C"])
    assert r.exit_code == 1 and "no algorithm 'C' in the store" in r.output
    r = CliRunner().invoke(app, ["targets", "--runlength", "--store", str(two.store.path), "--runlength-reference", "best",
                                 "--budgets", "1,100"])
    assert r.exit_code == 0, r.output


def test_cli_reference_list():
    r = CliRunner().invoke(app, ["reference", "list", "--out", "-"])
    assert r.exit_code == 0, r.output
    assert "best2019,bbob-largescale,best2019-bbob-largescale,24,20 40 80 160 320 640" in r.output.replace('"', "")
