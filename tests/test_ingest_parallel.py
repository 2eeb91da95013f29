"""Ingest internals that must not change results: data files read in parallel chunks, and the
merge of .dat and .tdat records into sorted events without duplicates."""
from __future__ import annotations

import tarfile

import polars as pl
import pytest

from logs import write_new2
from pipeline.ingest import coco, parse_source, read_source

RUNS = [{"instance": 1, "dat": [(1, 5.0), (3, 2.0), (7, 0.5)], "tdat": [(1, 5.0), (4, 2.0), (8, 0.5)]},
        {"instance": 2, "dat": [(1, 4.0), (5, 1.0)]}]


def experiment(root):
    """Four problems; one .dat with a garbage line, one cut in its last record."""
    for f in (1, 2):
        for d in (2, 3):
            write_new2(root, function=f, dim=d, runs=RUNS, info_name=f"bbobexp_f{f}.info")
    p = root / "data_f1" / "bbobexp_f1_DIM3.dat"
    lines = p.read_text().splitlines()
    lines.insert(3, "not a record")
    p.write_text("\n".join(lines) + "\n")
    q = root / "data_f2" / "bbobexp_f2_DIM2.tdat"
    q.write_text(q.read_text().rstrip("\n")[:-30])
    return root


@pytest.mark.parametrize("workers", [2, 3])
def test_chunks_read_in_parallel_give_what_one_pass_gives(tmp_path, monkeypatch, workers):
    src = read_source(experiment(tmp_path / "A"))
    whole = parse_source(src)
    monkeypatch.setattr(coco, "CHUNK_BYTES", 1)  # as many chunks as workers, whatever the size
    monkeypatch.setenv("COCOPIPE_WORKERS", str(workers))
    chunked = parse_source(src)
    assert whole.runs.height == 8 and whole.events.height > 0
    assert chunked.runs.equals(whole.runs) and chunked.events.equals(whole.events)
    assert [str(p) for p in chunked.problems] == [str(p) for p in whole.problems]
    assert {(p.file.rsplit("/", 1)[-1], p.line) for p in whole.problems} == {
        ("bbobexp_f1_DIM3.dat", 4), ("bbobexp_f2_DIM2.tdat", 7)}


def events_of(root, **run):
    write_new2(root, runs=[{"instance": 1, **run}])
    p = parse_source(read_source(root))
    assert not p.problems
    return p.runs, p.events.select("evaluations", "best_delta", "trigger").rows()


def test_record_in_both_files_is_one_event_and_ties_are_ordered_by_precision(tmp_path):
    # evaluation 5 in both files with the same precision: one event from both (3);
    # evaluation 7 in both with different precisions: two events, the larger precision first
    runs, ev = events_of(tmp_path / "A", dat=[(1, 9.0), (5, 3.0), (7, 1.0)], tdat=[(1, 9.0), (5, 3.0), (7, 2.0)])
    assert ev == [(1, 9.0, 3), (5, 3.0, 3), (7, 2.0, 2), (7, 1.0, 1)]
    assert runs["final_delta"].to_list() == [1.0] and runs["last_evaluation"].to_list() == [7]


def test_events_beyond_two_to_the_forty_evaluations_are_sorted_too(tmp_path):
    big = 3 * 2 ** 40
    runs, ev = events_of(tmp_path / "A", dat=[(1, 9.0), (big, 1.0)], tdat=[(1, 9.0), (2 ** 40, 4.0), (big + 1, 1.0)])
    assert ev == [(1, 9.0, 3), (2 ** 40, 4.0, 2), (big, 1.0, 1), (big + 1, 1.0, 2)]
    assert runs["last_evaluation"].to_list() == [big + 1]


def test_merge_keeps_the_first_record_of_equal_ones_and_ors_their_files():
    events = pl.DataFrame({"seq": [0, 0, 0, 1, 0], "evaluations": [1.0, 4.0, 4.0, 2.0, 1.0],
                           "best_delta": [5.0, 2.0, 3.0, 1.0, 5.0], "kind": pl.Series([1, 1, 2, 1, 2], dtype=pl.Int8),
                           "measured": [10.0, 20.0, 30.0, 40.0, 50.0]})
    out = coco._merged(events)
    assert out.select("seq", "evaluations", "best_delta", "trigger", "measured").rows() == [
        (0, 1.0, 5.0, 3, 10.0), (0, 4.0, 3.0, 2, 30.0), (0, 4.0, 2.0, 1, 20.0), (1, 2.0, 1.0, 1, 40.0)]


def test_gzip_of_several_members_is_read_whole_and_a_cut_one_is_reported(tmp_path):
    import gzip

    root = experiment(tmp_path / "A")
    with tarfile.open(tmp_path / "a.tar", "w") as tf:
        tf.add(root, arcname="A")
    tar = (tmp_path / "a.tar").read_bytes()
    half = len(tar) // 2
    (tmp_path / "two.tgz").write_bytes(gzip.compress(tar[:half]) + gzip.compress(tar[half:]))
    assert dict(read_source(tmp_path / "two.tgz").files) == dict(read_source(tmp_path / "a.tar").files)
    whole = gzip.compress(tar)
    (tmp_path / "cut.tgz").write_bytes(whole[: len(whole) // 2])
    cut = read_source(tmp_path / "cut.tgz")  # the whole members before the cut are kept, the cut named
    assert [p[0].endswith("cut.tgz") and "cut short" in p[2] for p in cut.problems] == [True]
    full = dict(read_source(tmp_path / "a.tar").files)
    assert 0 < len(cut.files) < len(full) and all(full[n] == cut.files[n] for n in cut.files)
