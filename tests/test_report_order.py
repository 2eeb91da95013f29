"""With many algorithms the report ranks them first, as a step of its own: the tables and the pairs compared
depend on the ranking, and asking for them before it is an error, never a silent other answer."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from logs import write_new2
from pipeline.api import open_store
from pipeline.ingest import ingest
from pipeline.report import Settings, build
from pipeline.report.context import Context
from pipeline.report.measures import Measures
from pipeline.report.runner import Runner
from pipeline.store import Store

#: each algorithm's best precision and when it gets there (of 100 evaluations): C best, then B, then A (the
#: compared order is A, B, C)
FINAL = {"A": (20, 1.0), "B": (10, 1e-3), "C": (5, 1e-9)}
#: more compared algorithms (3) than max_detail, more pairs (3) than max_pairs: the pairs are the two best ranked
MANY = Settings(reference="none", table_samples=20, max_detail=1, max_pairs=1)


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("order")
    for alg, (evals, best) in FINAL.items():
        for d in (2, 5):
            write_new2(root / alg, alg=alg, function=1, dim=d,
                       runs=[dict(instance=i, dat=[(1, 50.0), (evals, best), (100, best)]) for i in (1, 2, 3)])
    ingest([root / a for a in FINAL], Store(root / "store", create=True))
    return root / "store"


def test_the_lists_asked_for_before_the_ranking_are_refused(store):
    """Pairs and tables asked for first raise; after `start_ranked` they are those of the best ranked."""
    with Runner(1) as runner:
        ctx = Context(open_store(store), MANY, runner)
        m = Measures(ctx)
        with pytest.raises(RuntimeError, match="before the ranking"):
            ctx.pairs()
        with pytest.raises(RuntimeError, match="before the ranking"):
            m.art_table  # noqa: B018 - the property is what is asked for
        assert m.start_ranked() == ["C", "B", "A"]
        assert ctx.pairs() == [("B", "C")]
        assert m.table_algorithms == ["C"]
        assert m.art_table.height > 0


def test_a_report_of_many_shows_the_pairs_of_the_best_ranked_everywhere(store, tmp_path):
    """The settings page and settings.json name the same pair: the two best ranked (not A with B)."""
    out = build(open_store(store), tmp_path / "r", MANY, jobs=1).parent
    assert json.loads((out / "settings.json").read_text())["record"]["pairs"] == [["B", "C"]]
    settings = (out / "settings.html").read_text(encoding="utf-8")
    assert "<td>pairs compared</td><td>B / C</td>" in settings
    tables = "".join(p.read_text(encoding="utf-8") for p in sorted(out.glob("tables-*.html")))
    assert "hold the 1 algorithms of best mean rank" in tables and ": C." in tables
