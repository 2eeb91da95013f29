"""The Python API as a Polars user expects it (issue 45, slice 2): one value where a list is taken, an
empty selection of values the store does not hold refused in the command line's words, and the report
computed on the executor asked (`cocopipe report --executor`)."""
from __future__ import annotations

import pytest
from typer.testing import CliRunner

from logs import write_new2
from pipeline.api import Analysis
from pipeline.cli import app
from pipeline.ingest import ingest
from pipeline.report.context import Context
from pipeline.report.settings import Settings
from pipeline.selection import SelectionError
from pipeline.store import Store


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Store:
    """A on f1 and f2, B on f1 only, in 2-D: three trials each, reaching 1e-9 at evaluation 9 + instance."""
    root = tmp_path_factory.mktemp("polars-user")
    for alg, functions in (("A", (1, 2)), ("B", (1,))):
        for f in functions:
            write_new2(root / alg, alg=alg, function=f, dim=2,
                       runs=[dict(instance=i, dat=[(1, 5.0), (9 + i, 1e-9)]) for i in (1, 2, 3)])
    st = Store(root / "store", create=True)
    assert ingest([root / "A", root / "B"], st).runs == 9
    return st


def test_one_target_is_a_list_of_one(store):
    a = Analysis(store, algorithm="A")
    # A hits 1e-8 at evaluations 10, 11, 12 on each function: aRT 11
    assert a.art(1e-8).collect()["art"].to_list() == [11.0, 11.0]
    assert a.art(1e-8).collect().equals(a.art([1e-8]).collect())
    assert a.measure("median_runtime", 1e-8).collect().equals(a.measure("median_runtime", [1e-8]).collect())


def test_one_budget_is_a_list_of_one(store):
    a = Analysis(store, algorithm="A")
    one = a.fixed_budget(100).collect()
    assert one.equals(a.fixed_budget([100]).collect()) and one["budget"].unique().to_list() == [100.0]
    assert a.measure("eaf", budgets=100).collect().equals(a.measure("eaf", budgets=[100]).collect())


@pytest.mark.parametrize(("asked", "option"), [(dict(function=99), ["-f", "99"]),
                                               (dict(algorithm="C"), ["-a", "C"]),
                                               (dict(dimension=3), ["-d", "3"])])
def test_values_the_store_does_not_hold_are_refused_as_on_the_command_line(store, asked, option):
    with pytest.raises(SelectionError) as exc:
        Analysis(store).select(**asked).art([1e-8])
    r = CliRunner().invoke(app, ["art", "--store", str(store.path), *option])
    assert r.exit_code == 1 and " ".join(r.output.split()) == f"error: {exc.value}"
    with pytest.raises(SelectionError, match="^no function 99 in the store .*: it holds functions 1-2$"):
        Analysis(store, function=99).ecdf()


def test_values_the_store_holds_but_not_together_give_no_row(store):
    # B has no run on f2: nothing to refuse, an empty result (a report's part may be so)
    assert Analysis(store, algorithm="B", function=2).art([1e-8]).collect().height == 0
    assert Analysis(Store(store.path.parent / "empty", create=True)).art([1e-8]).collect().height == 0


def test_the_report_computes_on_the_executor_asked(store):
    context = Context(Analysis(store, executor="ray", group_size=1), Settings(reference="none"))
    for a in (context.analysis, context.compared, *context.parts(["A", "B"])):
        assert (a.plan.executor, a.plan.group_size) == ("ray", 1)
    r = CliRunner().invoke(app, ["report", "--store", str(store.path), "--executor", "threads", "--out",
                                 str(store.path.parent / "r")])
    assert r.exit_code == 1 and " ".join(r.output.split()) == "error: executor 'threads': expected one of local, ray"
