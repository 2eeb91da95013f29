"""Runtime ECDFs (seed 000, "Empirical Distribution Functions"): hand-made logs whose steps are computed
by hand, the exact expectation of simulated restarts on paper, parity of the final fraction with
cocopp's aRT tables, and the simulated ECDF within sampling error of its exact expectation."""
from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import polars as pl
import pytest

from conftest import NAMES, SHARED
from logs import write_new2
from pipeline.api import Analysis
from pipeline.ingest import ingest
from pipeline.measures import ecdf as E
from pipeline.measures._kernels import ecdf_steps as K
from pipeline.store import Store

BBOB_SETS = ["DIRECT_posik_noiseless", "NM_on_bbob", "BrentSTEPqi_Posik"]


def store_of(tmp_path, runs, dim=2, function=1) -> Store:
    src = write_new2(tmp_path / "logs", function=function, dim=dim, runs=runs)
    st = Store(tmp_path / "store", create=True)
    assert not ingest([src], st).problems
    return st


def steps(df: pl.DataFrame, group: str) -> list[tuple[float, float]]:
    g = df.filter(pl.col("group") == group).sort("x")
    return list(zip(g["x"].to_list(), g["fraction"].to_list()))


# -- hand-made logs ---------------------------------------------------------------------------------------
ALL_SUCCEED = [  # hits of target 1: 4, 2, 8; of target 1e-2: 10, 6, 12 (dimension 2)
    dict(instance=1, dat=[(1, 5.0), (4, 0.5), (10, 1e-3)]),
    dict(instance=2, dat=[(2, 0.9), (6, 1e-2)]),
    dict(instance=3, dat=[(3, 2.0), (8, 0.05), (12, 1e-4)]),
]


@pytest.mark.parametrize("mode", E.MODES)
def test_all_successful_steps_are_the_sorted_runtimes(tmp_path, mode):
    a = Analysis(store_of(tmp_path, ALL_SUCCEED))
    df = a.ecdf(targets=[1.0, 1e-2], mode=mode).collect()
    expected = [(h / 2, (i + 1) / 6) for i, h in enumerate([2, 4, 6, 8, 10, 12])]
    for group in ("f1", "separ", "all"):
        got = steps(df, group)
        assert [x for x, _ in got] == [x for x, _ in expected]
        assert [f for _, f in got] == pytest.approx([f for _, f in expected], abs=1e-12)
    assert set(df["group"]) == {"f1", "separ", "all"}
    assert df.schema == E.STEP_SCHEMA


HALF = [  # one trial hits 1.0 at 10 evaluations, the other never does and stops at 100 (dimension 2)
    dict(instance=1, dat=[(1, 5.0), (10, 0.5)]),
    dict(instance=2, dat=[(1, 5.0), (100, 2.0)]),
]


def test_exact_mode_on_paper(tmp_path):
    # T = 10 w.p. 1/2, 110 w.p. 1/4, 210 w.p. 1/8, ...: P(T <= 10 + 100k) = 1 - 2^-(k+1)
    a = Analysis(store_of(tmp_path, HALF))
    df = a.ecdf(targets=[1.0], mode="exact", group="f1", max_x=1000).collect()
    got = steps(df, "f1")
    assert len(got) == 20  # 10 + 100k <= 2000 evaluations for k = 0..19
    for k, (x, f) in enumerate(got):
        assert x == (10 + 100 * k) / 2
        assert f == pytest.approx(1 - 2.0 ** -(k + 1), abs=1e-14)
    # the default range of the exact mode is the trials' largest budget: 100 evaluations, x = 50
    assert steps(a.ecdf(targets=[1.0], mode="exact", group="f1").collect(), "f1") == [(5.0, 0.5)]


def test_trials_and_simulated_modes_on_paper(tmp_path):
    a = Analysis(store_of(tmp_path, HALF))
    assert steps(a.ecdf(targets=[1.0], mode="trials", group="f1").collect(), "f1") == [(5.0, 0.5)]
    sim = steps(a.ecdf(targets=[1.0], mode="simulated", group="f1", samples=100, seed=3).collect(), "f1")
    # 100 samples: 50 start with the successful trial (T = 10), 50 with the unsuccessful one (T >= 110)
    assert sim[0] == (5.0, 0.5)
    assert all((x - 5) % 50 == 0 and x >= 55 for x, _ in sim[1:])
    assert sim[-1][1] == pytest.approx(1.0)


def test_summary_on_paper(tmp_path):
    a = Analysis(store_of(tmp_path, HALF))
    for mode, max_x in (("simulated", E.X_LIMIT), ("trials", E.X_LIMIT), ("exact", 50.0)):
        row = a.ecdf_summary(targets=[1.0], group="f1", mode=mode).collect().row(0, named=True)
        assert row["final_fraction"] == 0.5 and row["solvable_fraction"] == 1.0
        assert row["max_x"] == max_x
        assert row["median_max_evaluations"] == (10 / 2 + 100 / 2) / 2
        assert (row["instance_targets"], row["functions"], row["trials"]) == (2, 1, 2)


def test_max_budget_sets_the_range(tmp_path):
    a = Analysis(store_of(tmp_path, HALF), max_budget="60x")  # 120 evaluations
    df = a.ecdf(targets=[1.0], mode="exact", group="f1").collect()
    assert steps(df, "f1") == [(5.0, 0.5), (55.0, pytest.approx(0.75))]


def test_restart_distribution_by_hand():
    v, p = E.restart_distribution(np.array([10.0]), np.array([100.0]))
    assert v[:3].tolist() == [10, 110, 210] and p[:3].tolist() == [0.5, 0.25, 0.125]
    assert 1 - p.sum() < 1e-12 and len(v) == math.ceil(math.log(1e-12) / math.log(0.5))
    # success 5, failures 10 and 20: p = 1/3; T = 25 after one failure 20 or two failures 10 + 10
    v, p = E.restart_distribution(np.array([5.0]), np.array([10.0, 20.0]), limit=25)
    assert v.tolist() == [5, 15, 25]
    assert p.tolist() == pytest.approx([1 / 3, 2 / 3 * 1 / 2 * 1 / 3, 2 / 3 * 1 / 2 * 1 / 3 + (2 / 3) ** 2 / 4 / 3])
    # instance weights count like repeated trials
    v1, p1 = E.restart_distribution(np.array([5.0]), np.array([10.0, 20.0]), 100, np.array([2.0]), np.array([1.0, 3.0]))
    v2, p2 = E.restart_distribution(np.array([5.0, 5.0]), np.array([10.0, 20.0, 20.0, 20.0]), 100)
    assert v1.tolist() == v2.tolist() and p1 == pytest.approx(p2)
    assert E.restart_distribution(np.array([]), np.array([7.0]))[0].size == 0


def test_sampled_converges_to_exact_on_paper(tmp_path):
    a = Analysis(store_of(tmp_path, HALF))
    exact = dict(steps(a.ecdf(targets=[1.0], mode="exact", group="f1", max_x=400).collect(), "f1"))
    sim = a.ecdf(targets=[1.0], mode="simulated", group="f1", max_x=400, samples=40_000, seed=7).collect()
    n = 40_000
    for x, f in exact.items():
        got = sim.filter(pl.col("x") <= x)["fraction"].max()
        assert abs(got - f) < math.sqrt(math.log(2 * len(exact) / 1e-6) / (2 * n))


def test_seeded_and_group_errors(tmp_path):
    a = Analysis(store_of(tmp_path, HALF))
    one = a.ecdf(targets=[1.0], seed=5, max_x=1000).collect()
    assert one.equals(a.ecdf(targets=[1.0], seed=5, max_x=1000).collect())
    assert not one.equals(a.ecdf(targets=[1.0], seed=6, max_x=1000).collect())
    with pytest.raises(ValueError, match="group 'mult3' is not in the selection"):
        a.ecdf(targets=[1.0], group="mult3").collect()
    with pytest.raises(ValueError, match="mode 'bootstrap'"):
        a.ecdf(mode="bootstrap")
    with pytest.raises(ValueError, match="max_x"):
        a.ecdf(max_x="far")


def test_cli(tmp_path):
    st = store_of(tmp_path, HALF)
    out = tmp_path / "e.csv"

    def run(*args):
        return subprocess.run([sys.executable, "-m", "pipeline.cli", "ecdf", "--store", str(st.path), *args],
                              capture_output=True, text=True)

    r = run("--targets", "1.0", "--mode", "exact", "--max-x", "1000", "--group", "f1", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert pl.read_csv(out)["fraction"][:2].to_list() == pytest.approx([0.5, 0.75])
    r = run("--targets", "1.0", "--summary", "--out", "-")
    assert r.returncode == 0 and pl.read_csv(r.stdout.encode())["final_fraction"].to_list() == [0.5, 0.5, 0.5]
    for args, words in ((["--group", "nope"], "group 'nope'"), (["--mode", "x"], "--mode"),
                        (["--max-x", "-1"], "--max-x -1: expected"),
                        (["--runlength-reference", "best2009"], "--targets runlength")):
        r = run(*args)
        lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
        assert r.returncode != 0 and len(lines) == 1 and words in lines[0] and "Traceback" not in r.stderr, r.stderr


# -- shared data sets -------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_final_fraction_is_cocopps_successes_over_runs(stores, name):
    oracle = (
        pl.read_csv(SHARED / "oracle" / f"{name}.art.csv")
        .group_by("function", "dimension").agg(expected=pl.col("successes").sum() / pl.col("runs").sum())
    )
    a = Analysis(stores[name])
    summary = a.ecdf_summary(mode="trials").collect().filter(pl.col("group").str.contains(r"^f\d+$"))
    got = summary.with_columns(function=pl.col("group").str.slice(1).cast(pl.Int64))
    both = oracle.join(got.select("function", "dimension", "final_fraction"), on=["function", "dimension"], how="full")
    assert both.height == oracle.height and both.null_count().sum_horizontal().item() == 0
    assert (both["final_fraction"] - both["expected"]).abs().max() < 1e-12
    # within the trials' largest budget, their ECDF ends at the dot
    last = a.ecdf(mode="trials", max_x="budget").collect().group_by("dimension", "group").agg(pl.col("fraction").last())
    ends = summary.join(last, on=["dimension", "group"], how="left").with_columns(pl.col("fraction").fill_null(0.0))
    assert (ends["fraction"] - ends["final_fraction"]).abs().max() < 1e-9


@pytest.mark.parametrize("name", [n for n in BBOB_SETS if n in NAMES])
def test_steps_are_sorted_runtimes_where_every_trial_succeeds(stores, name):
    a = Analysis(stores[name])
    h = a.hits().collect()
    easy = h.group_by("function", "dimension").agg(pl.col("success").all()).filter("success")
    assert easy.height > 0
    for mode in ("simulated", "exact"):
        df = a.ecdf(mode=mode, group=[f"f{f}" for f in easy["function"].unique()]).collect()
        for f, d in easy.select("function", "dimension").iter_rows():
            hits = h.filter(pl.col("function") == f, pl.col("dimension") == d)["hit"].to_numpy() / d
            xs, counts = np.unique(hits, return_counts=True)
            got = df.filter(pl.col("group") == f"f{f}", pl.col("dimension") == d).sort("x")
            assert got["x"].to_list() == xs.tolist()
            assert got["fraction"].to_numpy() == pytest.approx(np.cumsum(counts) / len(hits), abs=1e-12)


def sup_gap(a: pl.DataFrame, b: pl.DataFrame) -> pl.DataFrame:
    """sup over x of |F_a(x) - F_b(x)| per (dimension, group), both step functions."""
    xs = pl.concat([a.select("dimension", "group", "x"), b.select("dimension", "group", "x")]).unique().sort("x")
    kw = dict(on="x", by=["dimension", "group"], check_sortedness=False)
    fa = xs.join_asof(a.sort("x"), **kw).select("dimension", "group", "x", fa=pl.col("fraction").fill_null(0.0))
    fb = xs.join_asof(b.sort("x"), **kw).select("dimension", "group", "x", fb=pl.col("fraction").fill_null(0.0))
    both = fa.join(fb, on=["dimension", "group", "x"])
    return both.group_by("dimension", "group").agg(gap=(pl.col("fa") - pl.col("fb")).abs().max(), points=pl.len())


RANGES = {"DIRECT_posik_noiseless": "budget", "NM_on_bbob": 1e4, "BrentSTEPqi_Posik": "budget"}


@pytest.mark.parametrize("name", [n for n in BBOB_SETS if n in NAMES])
def test_simulated_within_sampling_error_of_exact(stores, name):
    """Hoeffding: a group's fraction at x averages independent indicators, sample j of problem i
    weighing 1 / (problems * samples_i), with expectation the exact ECDF at x. With the union bound over
    every point tested, the probability of a false alarm is below 1e-6."""
    a = Analysis(stores[name])
    max_x = RANGES[name]  # where restarts fit: unsuccessful NM trials all stop at 1000 x dimension
    exact = a.ecdf(mode="exact", max_x=max_x).collect()
    summary = a.ecdf_summary(mode="exact").collect()
    sizes = (a.runs().collect().group_by("dimension", "function").len()
             .group_by(pl.col("dimension").cast(pl.Int64)).agg(k=pl.col("len").max()))
    bound = summary.join(sizes, on="dimension").with_columns(
        size=pl.col("k") * pl.max_horizontal(pl.lit(2), 100 // pl.col("k")),
        n=pl.col("instance_targets") / (pl.col("trials") / pl.col("functions")),  # (function, target) pairs
    )

    def check(df):
        g = sup_gap(df, exact).join(bound, on=["dimension", "group"])
        m = g["points"].sum()
        eps = ((math.log(2 * m / 1e-6) / (2 * g["n"] * g["size"])) ** 0.5)
        return g.with_columns(eps=eps)

    sim = check(a.ecdf(mode="simulated", max_x=max_x, seed=11).collect())
    assert (sim["gap"] <= sim["eps"]).all(), sim.filter(pl.col("gap") > pl.col("eps"))
    # the bound has power: the trials' ECDF (no restarts) is not the expectation of the simulated one
    trials = check(a.ecdf(mode="trials", max_x=max_x).collect())
    assert (trials["gap"] > trials["eps"]).any()


def test_runlength_targets_of_a_reference(stores):
    """Runlength-based targets (per function and dimension) flow through: the dot of each function is
    successes / runs of aRT over the same target frame."""
    a = Analysis(stores["DIRECT_posik_noiseless"], dimension=[2, 5])
    tf = a.target_frame("runlength", reference="best2009").collect().lazy()
    art = a.art(tf).collect().group_by("function", "dimension").agg(
        expected=pl.col("successes").sum() / pl.col("runs").sum(), targets=pl.len())
    s = a.ecdf_summary(targets="runlength", reference="best2009", mode="trials").collect()
    s = s.filter(pl.col("group").str.contains(r"^f\d+$")).with_columns(
        function=pl.col("group").str.slice(1).cast(pl.Int32), dimension=pl.col("dimension").cast(pl.Int32))
    both = art.join(s, on=["function", "dimension"])
    assert both.height == art.height == 48
    assert (both["final_fraction"] - both["expected"]).abs().max() < 1e-12
    assert (both["instance_targets"] == both["targets"] * 5).all()  # 5 instances
    steps = a.ecdf(targets="runlength", reference="best2009", group="all").collect()
    assert steps.height > 0 and steps["fraction"].is_between(0, 1).all()


def test_sql_view_is_the_default_step_table(stores):
    from pipeline.query import QueryTables, run_sql

    st = stores["DIRECT_posik_noiseless"]
    got = run_sql(st, "SELECT * FROM ecdf WHERE grp = 'all' AND dimension = 5".replace("grp", '"group"'),
                  tables=QueryTables(st)).collect()
    want = Analysis(st, dimension=5).ecdf(group="all").collect()
    assert got.sort("x").equals(want.sort("x"))


def test_exact_mode_stops_with_a_clear_error_when_restart_sums_explode(tmp_path, monkeypatch):
    runs = [dict(instance=1, dat=[(1, 5.0), (10, 0.5)])] + [
        dict(instance=i + 2, dat=[(1, 5.0), (e, 2.0)]) for i, e in enumerate((100, 101, 103))]
    a = Analysis(store_of(tmp_path, runs))
    monkeypatch.setattr(E, "MAX_ATOMS", 1000)
    with pytest.raises(ValueError, match="more than 1000 restart sums of 3 distinct unsuccessful budgets"):
        a.ecdf(targets=[1.0], mode="exact", max_x=1e6).collect()
    assert a.ecdf(targets=[1.0], mode="exact").collect().height > 0  # within the budget: few sums


@pytest.mark.parametrize("mode", E.MODES)
def test_tables_do_not_depend_on_the_order_of_the_hits(stores, mode):
    # the same hitting times in another row order give the same step table and summary, bit for bit
    hits = Analysis(stores["NM_on_bbob"], dimension=[2, 3]).hits().collect()
    shuffled = hits.sample(fraction=1.0, shuffle=True, seed=4)
    kw = {"max_x": 50.0} if mode == "exact" else {}
    assert E.ecdf_table(hits, mode=mode, **kw).equals(E.ecdf_table(shuffled, mode=mode, **kw))
    assert E.summary_table(hits, mode=mode, **kw).equals(E.summary_table(shuffled, mode=mode, **kw))


@pytest.mark.parametrize("name", NAMES)
def test_counted_samples_give_the_drawn_samples_steps(stores, name):
    # problems whose trials all succeed are counted, not drawn: the same steps, bit for bit, as every
    # sample drawn and merged (whole counts, divided once), and the same draws for the others
    h = Analysis(stores[name]).hits().collect()
    data = K.prepare_trials(h)
    members, limits = E.members(data.problems, None), E.x_limits(K.longest(data), "simulated")
    for samples, seed in ((100, 1), (37, 5)):
        drawn = K.step_table(K.simulated_atoms(data, samples, seed), data, members, limits)
        counted = K.step_table(K.simulated_counts(data, samples, seed), data, members, limits)
        assert counted.equals(drawn)


def test_an_analysis_keeps_the_prepared_trials_for_its_next_table_until_the_store_changes(tmp_path):
    # ecdf then ecdf_summary on one Analysis prepare the hits once (kept), and give the tables of fresh
    # Analyses; a source added to the store is in the next table
    st = store_of(tmp_path, HALF)
    a, kw = Analysis(st), dict(targets=[1.0], mode="trials")
    assert a.ecdf(**kw).collect().equals(Analysis(st).ecdf(**kw).collect())
    assert len(a.kept) == 1
    assert a.ecdf_summary(**kw).collect().equals(Analysis(st).ecdf_summary(**kw).collect())
    assert len(a.kept) == 1
    a.ecdf(targets=[1.0, 1e-2], mode="trials").collect()  # other targets: other trials kept beside
    assert len(a.kept) == 2
    assert not ingest([write_new2(tmp_path / "more", alg="OTHER", runs=ALL_SUCCEED)], st).problems
    summary = a.ecdf_summary(**kw).collect()
    assert summary.equals(Analysis(st).ecdf_summary(**kw).collect())
    assert summary["algorithm"].unique().sort().to_list() == ["ALG", "OTHER"]
    monkey = Analysis(st)
    monkey.kept.max_rows = 1  # more trials than may be kept: prepared for every table
    assert monkey.ecdf(**kw).collect().equals(a.ecdf(**kw).collect()) and not len(monkey.kept)
