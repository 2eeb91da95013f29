"""The readers' seam: readers as a protocol in a registry, `Parsed` fully declared, one merge of the parts
of a source, and a source holding both COCO and IOHprofiler logs read whole, its trials kept for the
duplicate check against other sources (issue 30, item 6)."""
from __future__ import annotations

import shutil
from pathlib import Path

import polars as pl
import pytest

from pipeline.ingest import ingest, readers
from pipeline.ingest.parsed import Parsed, Problem, merge
from pipeline.ingest.sources import read_source
from pipeline.store import Store

from logs import write_new2
from test_ioh import write_log


def _mixed(folder: Path) -> Path:
    """A folder with a COCO experiment (2 trials of f1 2-D) and an IOHprofiler log (2 runs of f3 2-D)."""
    write_new2(folder, alg="ALG", function=1, runs=[{"instance": 1, "dat": [(1, 5.0), (10, 1e-9)]},
                                                   {"instance": 2, "dat": [(1, 4.0), (20, 1e-3)]}])
    write_log(folder / "ioh", [["1 3.0", "5 0.5"], ["1 2.0", "8 0.25"]], fid=3, name="Ellipsoid")
    return folder


def test_every_reader_follows_the_protocol():
    assert [r.name for r in readers.READERS] == ["coco", "ioh-old", "ioh", "nevergrad", "csv"]
    assert all(isinstance(r, readers.Reader) for r in readers.READERS)
    assert not isinstance(object(), readers.Reader)


def test_a_mixed_source_is_read_by_both_readers(tmp_path):
    folder = _mixed(tmp_path / "mixed")
    dat = folder / "data_f1" / "bbobexp_f1_DIM2.dat"
    lines = dat.read_text().splitlines()
    dat.write_text("\n".join([*lines[:2], "5 0 not-a-number", *lines[2:]]) + "\n")  # a damaged record of trial 1
    src = read_source(folder)
    claims = {r.name: bool(r.detect(src)) for r in readers.READERS}
    assert claims == {"coco": True, "ioh-old": False, "ioh": True, "nevergrad": False, "csv": False}
    parsed = readers.parse(src)
    assert sorted(parsed.runs["data_format"].to_list()) == ["bbob-new2"] * 2 + ["iohprofiler"] * 2
    # the trials of both formats are kept for the duplicate check
    assert parsed.trials is not None and sorted(parsed.trials.runs["function"].to_list()) == [1, 1, 3, 3]
    assert parsed.runs_partial == 1  # the COCO trial kept without its damaged record, counted


def test_parsed_takes_no_undeclared_attribute():
    p = Parsed(pl.DataFrame(), pl.DataFrame())
    with pytest.raises(AttributeError):
        p.extra = 1  # type: ignore[attr-defined]


def test_merge_keeps_every_count_and_table():
    a = Parsed(pl.DataFrame({"run_id": [1]}), pl.DataFrame({"run_id": [1]}), [Problem("a", 1, "x", "y")],
               runs_skipped=1, runs_partial=2, archive=pl.DataFrame({"n": [1]}))
    b = Parsed(pl.DataFrame({"run_id": [2]}), pl.DataFrame({"run_id": [2]}), [Problem("b", None, "z", "w")],
               runs_skipped=3, runs_partial=4, params=pl.DataFrame({"v": [1.0]}))
    m = merge([a, b])
    assert m.runs["run_id"].to_list() == [1, 2] and [p.file for p in m.problems] == ["a", "b"]
    assert (m.runs_skipped, m.runs_partial, m.archive.height, m.params.height) == (4, 6, 1, 1)


def test_a_mixed_source_ingested_twice_under_two_names_counts_no_trial_twice(tmp_path):
    first = _mixed(tmp_path / "first")
    second = tmp_path / "second"
    shutil.copytree(first, second)
    # and one more IOHprofiler log: another source, not the same one stored twice
    write_log(second / "more", [["1 3.0", "5 0.5"], ["1 2.0", "8 0.25"]], fid=5, name="Linear")
    st = Store(tmp_path / "store", create=True)
    summary = ingest([first, second], st)
    assert [s.status for s in summary.sources] == ["ingested", "ingested"]
    assert (summary.sources[1].runs, summary.sources[1].runs_duplicate) == (2, 4), summary.sources[1].notes
    runs = st.runs().collect()
    assert runs.height == 6 and sorted(runs["function"].to_list()) == [1, 1, 3, 3, 5, 5]
