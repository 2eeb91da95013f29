"""A selection that matches nothing is an error naming what was asked and what exists, in the API and
in every command; an ingest that reads nothing leaves no store behind.

Data: algorithms CMA-ES and DIRECT on bbob f1 and f2 in 2-D, and BIPOP-CMA-ES on f1 in 2-D and 3-D,
two trials each.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from logs import write_new2
from pipeline.api import open_store
from pipeline.ingest import ingest
from pipeline.selection import SelectionError, check, listing
from pipeline.store import Store
from terminal import cli

TRIALS = [dict(instance=i, dat=[(1, 50.0), (20, 1e-9)]) for i in (1, 2)]


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("selection")
    for alg, problems in {"CMA-ES": [(1, 2), (2, 2)], "DIRECT": [(1, 2), (2, 2)],
                          "BIPOP-CMA-ES": [(1, 2), (1, 3)]}.items():
        for f, d in problems:
            write_new2(root / alg, alg=alg, function=f, dim=d, runs=TRIALS)
    st = Store(root / "store", create=True)
    assert ingest([root / a for a in ("CMA-ES", "DIRECT", "BIPOP-CMA-ES")], st).runs == 12
    return st.path


def test_names_held_are_listed_sorted_numbers_as_numbers_with_the_closest_named():
    assert listing("CMAES", ["DIRECT", "cma-es", "BIPOP-CMA-ES"]) == "BIPOP-CMA-ES, cma-es, DIRECT (closest: cma-es)"
    assert listing("Z", ["A10", "A2", "a1", "B"]) == "a1, A2, A10, B"
    many = [f"alg{i}" for i in range(20, 0, -1)]
    assert listing("alg17x", many) == ", ".join(f"alg{i}" for i in range(1, 13)) + ", ... (20 in all) (closest: alg17)"


def test_the_api_names_what_was_asked_and_what_exists(store):
    with pytest.raises(SelectionError, match=r"no algorithm 'CMAES' in the store .*: it holds BIPOP-CMA-ES, CMA-ES, "
                                             r"DIRECT \(closest: CMA-ES\)$"):
        open_store(store, algorithm="CMAES")
    with pytest.raises(SelectionError, match=r"no function 30 in the store .*: it holds functions 1-2$"):
        open_store(store, function=[1, 30])
    # a dimension is looked for among the algorithms asked
    with pytest.raises(SelectionError, match=r"no dimension 3 in the store .* with algorithm DIRECT: it holds "
                                             r"dimensions 2$"):
        open_store(store, algorithm="DIRECT", dimension=3)
    with pytest.raises(SelectionError, match=r"no suite 'bbob-biobj' in the store .*: it holds bbob$"):
        open_store(store, suite="bbob-biobj")
    assert open_store(store, algorithm="BIPOP-CMA-ES", dimension=3).runs().collect().height == 2
    # Analysis.select does not read the store; check() does
    with pytest.raises(SelectionError, match="no algorithm 'X'"):
        open_store(store).select(algorithm=["X"]).check()


def test_only_instances_left_out_by_default(store):
    import polars as pl

    runs = pl.LazyFrame({"suite": ["bbob-biobj"] * 2, "algorithm": ["A"] * 2, "function": [1, 1],
                         "dimension": [2, 2], "instance": [11, 12]})
    with pytest.raises(SelectionError, match="instances 11-12.*--all-instances"):
        check(runs, {})
    check(runs, {}, all_instances=True)


@pytest.mark.parametrize("args, message", [
    (["art", "-a", "CMAES"], "no algorithm 'CMAES' in the store {store}: it holds BIPOP-CMA-ES, CMA-ES, DIRECT "
                             "(closest: CMA-ES)"),
    (["ecdf", "-f", "7"], "no function 7 in the store {store}: it holds functions 1-2"),
    (["auc", "--suite", "bbob-noisy"], "no suite 'bbob-noisy' in the store {store}: it holds bbob"),
    (["table", "-d", "5"], "no dimension 5 in the store {store}: it holds dimensions 2, 3"),
    (["budget", "-a", "direct"], "no algorithm 'direct' in the store {store}: it holds BIPOP-CMA-ES, CMA-ES, DIRECT "
                                "(closest: DIRECT)"),
    (["profile", "-a", "A"], "no algorithm 'A' in the store {store}"),
    (["rank", "-a", "CMA-ES", "-a", "NM"], "no algorithm 'NM' in the store {store}"),
    (["chart", "ecdf", "-a", "Q", "--out", "x.svg"], "no algorithm 'Q' in the store {store}"),
    (["runs", "--algorithm", "Q"], "no algorithm 'Q' in the store {store}"),
])
def test_every_command_refuses_a_selection_that_matches_nothing(store, args, message):
    r = cli(*args, "--store", store)
    assert r.returncode == 1 and r.stdout == "", (r.stdout, r.stderr)
    assert r.stderr.startswith("error: " + message.format(store=store)), r.stderr
    assert len(r.stderr.splitlines()) == 1


def test_python_and_the_command_line_list_the_same_sorted_values(store):
    for asked, option, tail in ((dict(algorithm="CMAES"), ["-a", "CMAES"], "BIPOP-CMA-ES, CMA-ES, DIRECT (closest: "
                                                                           "CMA-ES)"),
                                (dict(function=99), ["-f", "99"], "functions 1-2")):
        with pytest.raises(SelectionError) as exc:
            open_store(store).select(**asked).art()
        assert str(exc.value).endswith(f": it holds {tail}"), exc.value
        r = cli("art", *option, "--store", store)
        assert r.returncode == 1 and r.stderr == f"error: {exc.value}\n", (r.stderr, exc.value)


def test_numbers_held_are_listed_as_numbers():
    import polars as pl

    runs = pl.LazyFrame({"suite": ["bbob"] * 4, "algorithm": ["A10", "A2", "A1", "A2"], "function": [10, 2, 1, 3],
                         "dimension": [10, 2, 3, 2], "instance": [1] * 4})
    with pytest.raises(SelectionError, match=r"it holds dimensions 2, 3, 10$"):
        check(runs, {"dimension": 5})
    with pytest.raises(SelectionError, match=r"it holds functions 1-3, 10$"):
        check(runs, {"function": 7})
    with pytest.raises(SelectionError, match=r"it holds A1, A2, A10 \(closest: A1\)$"):
        check(runs, {"algorithm": "A1x"})


def test_a_store_without_trials_is_an_error(tmp_path):
    Store(tmp_path / "empty", create=True)
    r = cli("art", "--store", tmp_path / "empty")
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr == f"error: the store {tmp_path / 'empty'} holds no trials (add some with `cocopipe ingest`)\n"


def test_an_ingest_that_reads_nothing_leaves_no_store(tmp_path):
    r = cli("ingest", tmp_path / "no_such_dir", "--store", tmp_path / "S2")
    assert r.returncode == 1 and not (tmp_path / "S2").exists(), r.stderr
    assert "no store created at" in r.stderr
    # an existing folder is left as it was
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / ".keep").write_text("")
    (tmp_path / "empty").mkdir()
    r = cli("ingest", tmp_path / "empty", "--store", tmp_path / "mine")
    assert r.returncode == 1 and sorted(p.name for p in (tmp_path / "mine").iterdir()) == [".keep"]


def test_an_ingest_into_a_store_that_reads_nothing_keeps_the_store(store, tmp_path):
    before = sorted(p.relative_to(store) for p in Path(store).rglob("*"))
    (tmp_path / "empty").mkdir()
    r = cli("ingest", tmp_path / "empty", "--store", store)
    assert r.returncode == 1 and f"store {store} holds 12 runs" in r.stderr
    assert sorted(p.relative_to(store) for p in Path(store).rglob("*")) == before
