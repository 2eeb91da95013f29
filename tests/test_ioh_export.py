"""`cocopipe export --format iohprofiler`: the round trip ingest -> export -> ingest keeps what the
format holds, and IOHinspector reading an export of shared COCO data gives cocopipe's ERT
(tests/fixtures/ioh/export_oracle.csv, made by tests/fixtures/ioh/make_export_oracle.py)."""
from __future__ import annotations

import hashlib
import math
from pathlib import Path

import polars as pl
import pytest

from pipeline.api import open_store
from pipeline.export import iohprofiler
from pipeline.ingest import ingest
from pipeline.store import Store

ROOT = Path(__file__).resolve().parent.parent
IOH = ROOT / "data" / "ioh"
ORACLE = pl.read_csv(ROOT / "tests" / "fixtures" / "ioh" / "export_oracle.csv")
RUN_KEYS = ["suite", "algorithm", "function", "dimension", "trial"]
#: the runs' columns the format holds (IOHprofiler data), and those of COCO data
HELD = [*RUN_KEYS, "instance", "function_name", "maximize", "evaluations", "final_delta", "last_evaluation",
        "info_evaluations", "info_final_delta", "reference_value", "precision", "comment", "data_format"]
HELD_COCO = [*RUN_KEYS, "instance", "maximize", "final_delta", "last_evaluation"]


def _store(path: Path, sources) -> Store:
    st = Store(path, create=True)
    summary = ingest(list(sources), st)
    assert not summary.problems, summary.problems
    return st


def _export(st: Store, out: Path, **selection) -> list[Path]:
    from pipeline.selection import filter_frame

    runs = filter_frame(st.runs(), **selection).collect()
    ids = runs.select("run_id").lazy()
    return iohprofiler.write(runs, st.events().join(ids, on="run_id", how="semi").collect(),
                             st.scan("params").join(ids, on="run_id", how="semi").collect(), out)


def _tables(st: Store, cols: list[str]) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    runs = st.runs().collect()
    key = runs.select("run_id", *RUN_KEYS)
    events = (st.events().collect().join(key, on=["run_id", "suite", "algorithm"])
              .select(*RUN_KEYS, "evaluations", "best_delta", "measured").sort(*RUN_KEYS, "evaluations", maintain_order=True))
    params = (st.scan("params").collect().join(key, on=["run_id", "suite", "algorithm"])
              .select(*RUN_KEYS, "evaluations", "name", "value").sort(*RUN_KEYS, "evaluations", "name"))
    return runs.select(cols).sort(RUN_KEYS), events, params


def test_round_trip_of_ioh_data_is_lossless(tmp_path):
    first = _store(tmp_path / "a", [IOH / "bbob.tgz", IOH / "pbo.tgz", IOH / "modes.tgz"])
    _export(first, tmp_path / "export")
    second = _store(tmp_path / "b", [tmp_path / "export"])
    a, b = _tables(first, HELD), _tables(second, HELD)
    for x, y in zip(a, b):
        assert x.equals(y)
    assert a[2].height and a[2]["name"].unique().sort().to_list() == ["sigma", "x0", "x1"]


def test_round_trip_of_coco_data_keeps_records_and_precisions(tmp_path):
    first = _store(tmp_path / "a", [ROOT / "data" / "sample" / "NM_on_bbob.tgz"])
    _export(first, tmp_path / "export", function=[1, 7], dimension=[2, 5])
    second = _store(tmp_path / "b", [tmp_path / "export"])
    runs_a, ev_a, _ = _tables(first, HELD_COCO)
    runs_b, ev_b, _ = _tables(second, HELD_COCO)
    sel = pl.col("function").is_in([1, 7]) & pl.col("dimension").is_in([2, 5])
    assert runs_a.filter(sel).equals(runs_b)
    assert ev_a.filter(sel).select(*RUN_KEYS, "evaluations", "best_delta").equals(
        ev_b.select(*RUN_KEYS, "evaluations", "best_delta"))
    assert second.runs().select(pl.col("data_format").unique()).collect().item() == "iohprofiler"


def test_export_names_the_optimum_and_suite_as_ioh_does(tmp_path):
    import json

    st = _store(tmp_path / "a", [IOH / "pbo.tgz", ROOT / "data" / "sample" / "RS_on_bbob.tgz"])
    files = _export(st, tmp_path / "export", function=[1], dimension=[2, 16])
    metas = {json.loads(p.read_text())["suite"]: json.loads(p.read_text()) for p in files}
    where = {json.loads(p.read_text())["suite"]: p.parent for p in files}
    assert set(metas) == {"PBO", "BBOB"}
    pbo, bbob = metas["PBO"], metas["BBOB"]
    assert pbo["maximization"] is True and pbo["function_name"] == "OneMax"
    assert {r["optimum"] for s in pbo["scenarios"] for r in s["runs"]} == {16.0}
    assert bbob["maximization"] is False and {r["optimum"] for s in bbob["scenarios"] for r in s["runs"]} == {0.0}
    first = (where["PBO"] / pbo["scenarios"][0]["path"]).read_text().splitlines()
    assert first[0] == "evaluations raw_y" and first[1].split()[0] == "1"


def _dat_hash(folder: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(folder.rglob("*.dat")):
        h.update(p.relative_to(folder).as_posix().encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


def test_iohinspector_reads_the_ert_of_the_store_from_an_export(shared, tmp_path):
    st = _store(tmp_path / "s", [shared / "data" / "generated" / "NM_on_bbob.tgz",
                                 shared / "data" / "generated" / "RS_on_bbob.tgz"])
    _export(st, tmp_path / "export", function=[1, 2, 5, 8], dimension=[2, 5])
    want_hash = ORACLE.filter(pl.col("measure") == "dat-sha256")["algorithm"][0]
    assert _dat_hash(tmp_path / "export") == want_hash  # the oracle read this very export
    checked = 0
    for (alg, f, d), g in ORACLE.filter(pl.col("measure") == "ERT").group_by("algorithm", "function", "dimension"):
        a = open_store(st.path, algorithm=alg, function=f, dimension=d, exact=True)  # IOH reads every record
        targets = g["x"].to_list()
        got = a.ert(targets, eval_max=g["eval_max"][0]).collect()
        got = dict(zip(got["target"], got["ert"]))
        for t, want in zip(targets, g["value"]):
            assert got[t] == pytest.approx(want, rel=1e-12) or (math.isinf(want) and math.isinf(got[t])), (alg, f, d, t)
            checked += 1
        if alg == "RS":  # every RS run has the same budget: cocopp's aRT is the same number
            art = a.art(targets).collect()
            art = dict(zip(art["target"], art["art"]))
            assert all(art[t] == pytest.approx(got[t], rel=1e-12) or math.isinf(got[t]) for t in targets)
    assert checked == ORACLE.filter(pl.col("measure") == "ERT").height
