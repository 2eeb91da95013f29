"""Float sums that give the same bits on every run: the measures that add floats (auc, profiles, AOCC, the
fixed-budget ECDF) do not change in their last bits with the order or the chunks in which a parallel join
hands them their rows."""
from __future__ import annotations

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import ROOT
from pipeline.api import open_store
from pipeline.ingest import ingest
from pipeline.measures import auc
from pipeline.measures.sums import ordered_sum
from pipeline.store import Store

values = st.lists(st.floats(-1e6, 1e6, allow_nan=False, allow_subnormal=False), min_size=1, max_size=60)


@settings(max_examples=200, deadline=None)
@given(values, st.randoms(use_true_random=False), st.integers(1, 5))
def test_ordered_sum_does_not_depend_on_the_order_or_the_chunks(terms, rnd, chunks):
    frame = pl.DataFrame({"g": [k % 3 for k in range(len(terms))], "v": terms})
    want = frame.group_by("g").agg(ordered_sum(pl.col("v"))).sort("g")
    shuffled = frame.sample(fraction=1.0, shuffle=True, seed=rnd.randrange(1 << 30))
    size = max(1, shuffled.height // chunks)
    parts = [shuffled.slice(k, size) for k in range(0, shuffled.height, size)]
    got = pl.concat(parts, rechunk=False).lazy().group_by("g").agg(ordered_sum(pl.col("v"))).sort("g").collect()
    assert got.equals(want)
    assert got["v"].to_list() == [sorted_sum(frame.filter(g=g)["v"].to_list()) for g in got["g"]]


def sorted_sum(xs: list[float]) -> float:
    total = 0.0
    for x in sorted(xs):
        total += x
    return total


def test_auc_and_profiles_are_the_same_bits_every_time(tmp_path):
    store = Store(tmp_path / "s", create=True)
    ingest([ROOT / "data" / "sample" / "NM_on_bbob.tgz", ROOT / "data" / "sample" / "RS_on_bbob.tgz"], store)

    def tables():
        a = open_store(store.path)
        return (auc.auc(a.hits(), auc.budgets(a.runs())).collect(), a.profile(group="all").collect(),
                a.profile_summary().collect())

    first = tables()
    for _ in range(5):
        assert all(t.equals(f) for t, f in zip(tables(), first))


def test_aocc_and_fixed_budget_ecdf_are_the_same_bits_every_time(tmp_path):
    store = Store(tmp_path / "s", create=True)
    ingest([ROOT / "data" / "ioh"], store)

    def tables():
        a = open_store(store.path)
        return a.aocc().collect(), a.fixed_budget_ecdf([10, 100, 1000]).collect()

    first = tables()
    for _ in range(5):
        assert all(t.equals(f) for t, f in zip(tables(), first))
