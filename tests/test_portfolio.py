"""The virtual best solver and the Shapley values of its ECDF (`pipeline.measures.portfolio`): on hand-made
trials answered by hand; the exact values equal a brute-force enumeration of every ordering of a portfolio
of five, and the sampled ones converge to them; the commands and charts the registry gives them."""
from __future__ import annotations

import itertools
import random
import subprocess
import sys

import pytest

from conftest import ROOT
from logs import write_new2
from pipeline.api import Analysis
from pipeline.ingest import ingest
from pipeline.store import Store

#: (algorithm, [(instance, .dat records (evaluations, precision))])
TRIALS = {"A": [(1, [(1, 10.0), (10, 1.0), (100, 0.01)]), (2, [(1, 5.0), (50, 0.1)])],
          "B": [(1, [(1, 1.0), (20, 0.5)]), (2, [(1, 100.0), (200, 1e-3)])]}


def make(root, trials) -> Store:
    for alg, runs in trials.items():
        write_new2(root / "logs" / alg, alg=alg, runs=[{"instance": i, "dat": recs} for i, recs in runs])
    st = Store(root / "store", create=True)
    ingest([root / "logs"], st)
    return st


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Store:
    return make(tmp_path_factory.mktemp("portfolio"), TRIALS)


def test_the_vbs_is_the_best_fraction_of_any_algorithm_per_target_and_budget(store):
    # target 1: A reaches it at 10 (A1) and 50 (A2); B at 1 (B1) and 200 (B2, beyond 100)
    table = Analysis(store).vbs([1.0], budgets=[10, 100]).collect()
    assert table.select("budget", "fraction", "algorithm", "algorithms").rows() == [
        (10.0, 0.5, "A", 2), (100.0, 1.0, "A", 2)]  # at 10 A and B tie at 1/2: the first by name


def test_the_shapley_values_share_the_vbs_area(store):
    # cells (target 1; budgets 10, 100): A 1/2, 1; B 1/2, 1/2; v(all) = 1/2 + 1 = 1.5
    # at 10 each is first half the time: 1/4 each; at 100 A adds 1 - 1/2 after B, 1 first: 3/4; B 1/4
    table = Analysis(store).shapley([1.0], budgets=[10, 100]).collect()
    assert table.select("algorithm", "shapley").rows() == [("A", pytest.approx(1.0 / 1.5)),
                                                          ("B", pytest.approx(0.5 / 1.5))]
    assert table["vbs_area"].to_list() == [1.5, 1.5] and table["method"].to_list() == ["exact", "exact"]


# -- a portfolio of five: brute force over the 120 orderings --------------------------------------------------
TARGETS = [10.0, 1.0, 1e-2, 1e-5]
BUDGETS = [3, 10, 30, 100, 300]


@pytest.fixture(scope="module")
def five(tmp_path_factory):
    rng = random.Random(7)
    trials = {}
    for alg in "PQRST":
        runs = []
        for inst in range(1, 4):
            ev, best, recs = 1, 10 ** rng.uniform(0, 2), []
            while ev < 400:
                recs.append((ev, best))
                ev, best = ev + rng.randint(1, 40 if alg in "PQ" else 120), best * 10 ** -rng.uniform(0, 1.2)
            runs.append((inst, recs))
        trials[alg] = runs
    return make(tmp_path_factory.mktemp("five"), trials), trials


def fractions(trials) -> dict[str, list[float]]:
    """F_i(cell) per algorithm over the (target, budget) cells, from the records by hand."""
    def hit(recs, t):
        return next((ev for ev, best in recs if best <= t), None)

    return {alg: [sum(1 for _, recs in runs if (h := hit(recs, t)) is not None and h <= b) / len(runs)
                  for t in TARGETS for b in BUDGETS] for alg, runs in trials.items()}


def brute_force(f: dict[str, list[float]]) -> dict[str, float]:
    """Every ordering's marginal contributions to v(S) = sum over cells of max over S, averaged, / v(all)."""
    algs, cells = sorted(f), range(len(next(iter(f.values()))))
    total = {a: 0.0 for a in algs}
    orders = list(itertools.permutations(algs))
    for order in orders:
        best = [0.0] * len(cells)
        for a in order:
            total[a] += sum(max(f[a][c] - best[c], 0.0) for c in cells)
            best = [max(best[c], f[a][c]) for c in cells]
    v = sum(max(f[a][c] for a in algs) for c in cells)
    return {a: total[a] / len(orders) / v for a in algs}


def test_exact_values_equal_the_enumeration_of_every_ordering_of_five(five):
    st, trials = five
    want = brute_force(fractions(trials))
    got = dict(Analysis(st).shapley(TARGETS, budgets=BUDGETS).collect().select("algorithm", "shapley").rows())
    assert got == pytest.approx(want, abs=1e-12)
    assert sum(got.values()) == pytest.approx(1.0)  # efficiency: the values share v(all)
    assert len({round(v, 6) for v in want.values()}) == 5  # five different values: not a degenerate case


def test_sampled_values_converge_to_the_exact_ones(five):
    st, _ = five
    a = Analysis(st)
    exact = dict(a.shapley(TARGETS, budgets=BUDGETS).collect().select("algorithm", "shapley").rows())

    def error(n: int) -> float:
        got = a.shapley(TARGETS, budgets=BUDGETS, method="sampled", permutations=n, seed=3).collect()
        assert got["permutations"].to_list() == [n] * 5
        return max(abs(v - exact[k]) for k, v in got.select("algorithm", "shapley").rows())

    few, many = error(20), error(5000)
    assert many < 0.01 and many < few / 3
    again = a.shapley(TARGETS, budgets=BUDGETS, method="sampled", permutations=20, seed=3).collect()
    assert again.equals(a.shapley(TARGETS, budgets=BUDGETS, method="sampled", permutations=20, seed=3).collect())


def test_an_empty_selection_has_no_value_by_either_method(tmp_path):
    empty = Analysis(Store(tmp_path / "empty", create=True))
    for method in ("exact", "sampled"):
        table = empty.shapley([1.0], method=method, permutations=3).collect()
        assert table.height == 0 and table.columns == ["suite", "algorithm", "shapley", "vbs_area", "method",
                                                       "permutations"]


def test_the_commands_from_the_registry_write_the_tables(store, tmp_path):
    out = tmp_path / "shapley.csv"
    r = subprocess.run([sys.executable, "-m", "pipeline.cli", "shapley", "--store", str(store.path), "--targets", "1",
                        "--method", "sampled", "--permutations", "10", "--out", str(out)],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    lines = out.read_text().splitlines()
    assert lines[0] == "suite,algorithm,shapley,vbs_area,method,permutations" and len(lines) == 3
    r = subprocess.run([sys.executable, "-m", "pipeline.cli", "shapley", "--store", str(store.path), "--method", "all"],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode != 0 and "method 'all': expected one of exact, sampled" in r.stderr


@pytest.mark.parametrize("kind", ["vbs", "shapley"])
def test_the_charts_draw(store, kind):
    from pipeline.recipes import kinds

    spec = kinds.chart(kind, Analysis(store), targets=[1.0], budgets=[10, 100]).to_dict()
    assert spec["spec"]["mark"]["type"] == ("rect" if kind == "vbs" else "bar")
