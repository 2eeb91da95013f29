"""Ingest of tiny hand-written logs of each format generation, and of folder/archive layouts."""
from __future__ import annotations

import io
import tarfile
import zipfile
from pathlib import Path

import polars as pl
import pyarrow.parquet as pq
import pytest

from logs import write_new2
from pipeline.ingest import ingest, parse_source, read_source
from pipeline.store import Store

OLD_INFO = """funcId = 5, DIM = 2, Precision = 1.000e-008, algId = 'OLD'
% 2009 style
data_f5\\bbobexp_f5_DIM2.dat, 1:19|-1.0e-009, 1:25|3.0e+000
"""
OLD_HEAD = ("% function evaluation | noise-free fitness - Fopt (-9.210000000000e+000) | best noise-free fitness - Fopt | "
            "measured fitness | best measured fitness | x1 | x2...")
OLD_DAT = f"""{OLD_HEAD}
1 +5.500000000e+001 +5.500000000e+001 +4.579000000e+001 +4.579000000e+001 +0.0000e+000 +0.0000e+000
13 +1.000000000e+000 +1.000000000e+000 -8.210000000e+000 -8.210000000e+000 +0.0000e+000 +0.0000e+000
19 +0.000000000e+000 +0.000000000e+000 -9.210000000e+000 -9.210000000e+000 +0.0000e+000 +0.0000e+000
{OLD_HEAD}
1 +5.500000000e+001 +5.500000000e+001 +4.579000000e+001 +4.579000000e+001 +0.0000e+000 +0.0000e+000
7 +3.000000000e+000 +3.000000000e+000 -6.210000000e+000 -6.210000000e+000 +0.0000e+000 +0.0000e+000
"""
OLD_TDAT = f"""{OLD_HEAD}
1 +5.500000000e+001 +5.500000000e+001 +4.579000000e+001 +4.579000000e+001 +0.0000e+000 +0.0000e+000
10 +2.000000000e+000 +1.000000000e+001 +2.000000000e+000 +1.000000000e+001 +0.0000e+000 +0.0000e+000
19 +0.000000000e+000 +0.000000000e+000 -9.210000000e+000 -9.210000000e+000 +0.0000e+000 +0.0000e+000
{OLD_HEAD}
1 +5.500000000e+001 +5.500000000e+001 +4.579000000e+001 +4.579000000e+001 +0.0000e+000 +0.0000e+000
25 +4.000000000e+000 +3.000000000e+000 -6.210000000e+000 -6.210000000e+000 +0.0000e+000 +0.0000e+000
"""

BIOBJ_INFO = """suite = 'bbob-biobj', algorithm = 'MO', indicator = 'hyp', folder = 'g1', coco_version = '2.4'
% biobj
function =  3, dim =  2, bbob-biobj_f03_d02_hyp.dat, 1:40|5.0e-02, 2:30|-1.0e-05
"""
BIOBJ_DAT = """%
% index = 0, name = bbob_f001_i02_d02__bbob_f002_i04_d02
% instance = 1, reference value = 8.333329238494520e-01
% function evaluation | indicator value | target hit
1\t3.0e+00\t3.1e+00
20\t5.0e-02\t5.1e-02
%
% index = 1, name = bbob_f001_i03_d02__bbob_f002_i05_d02
% instance = 2, reference value = 8.0e-01
% function evaluation | indicator value | target hit
1\t1.0e+00\t1.0e+00
30\t-1.0e-05\t-1.0e-05
"""
BIOBJ_TDAT = """%
% index = 0, name = bbob_f001_i02_d02__bbob_f002_i04_d02
% instance = 1, reference value = 8.333329238494520e-01
% function evaluation | indicator value
1\t3.0e+00
40\t5.0e-02
%
% index = 1, name = bbob_f001_i03_d02__bbob_f002_i05_d02
% instance = 2, reference value = 8.0e-01
% function evaluation | indicator value
1\t1.0e+00
30\t-1.0e-05
"""

BEST_INFO = """funcId = 1, DIM = 2, Precision = 1.000000000000000e-08, algId = 'bestX', suite = 'bbob'
% Combination of A.tgz, B.tgz
bbob-bestalg_f01_d02.dat, 0:6|1.000000000000000e-08
"""
BEST_DAT = """% Artificial instance
% algorithm type = best
1 1.584893192461113e+01 1.584893192461113e+01 A.tgz 15 15
3 2.511886431509580e+00 2.511886431509580e+00 B.tgz 15 15
6 1.000000000000000e-08 1.000000000000000e-08 A.tgz 14 15
"""


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return root


def test_old_2009_layout_with_backslash_paths(tmp_path):
    root = write(tmp_path / "OLD", {"bbobexp_f5.info": OLD_INFO, "data_f5/bbobexp_f5_DIM2.dat": OLD_DAT,
                                    "data_f5/bbobexp_f5_DIM2.tdat": OLD_TDAT})
    p = parse_source(read_source(root))
    assert not p.problems
    r = p.runs.sort("trial")
    assert r["suite"].to_list() == ["bbob", "bbob"] and r["data_format"].to_list() == ["bbob-old"] * 2
    assert r["instance"].to_list() == [1, 1]  # instance repetitions
    # evaluations: when the final precision is reached, where it was reached (cocopp maxevals); else the last record
    assert r["evaluations"].to_list() == [19, 25]
    assert r["final_delta"].to_list() == [0.0, 3.0]
    assert r["reference_value"].to_list() == [-9.21, -9.21]
    assert r["info_evaluations"].to_list() == [19, 25]
    ev = p.events.filter(pl.col("run_id") == r["run_id"][0]).sort("evaluations")
    # union of .dat and .tdat, without duplicates, trigger 1 = .dat, 2 = .tdat, 3 = both
    assert ev["evaluations"].to_list() == [1, 10, 13, 19]
    assert ev["trigger"].to_list() == [3, 2, 1, 3]
    assert ev["best_delta"].to_list() == [55.0, 10.0, 1.0, 0.0]


def test_biobj_hyp_format(tmp_path):
    root = write(tmp_path / "MO", {"g1_hyp.info": BIOBJ_INFO, "g1/bbob-biobj_f03_d02_hyp.dat": BIOBJ_DAT,
                                   "g1/bbob-biobj_f03_d02_hyp.tdat": BIOBJ_TDAT})
    p = parse_source(read_source(root))
    assert not p.problems
    r = p.runs.sort("trial")
    assert r["algorithm"].to_list() == ["MO", "MO"] and r["suite"][0] == "bbob-biobj"
    assert r["indicator"][0] == "hyp" and r["precision"][0] is None
    assert r["evaluations"].to_list() == [40, 30]  # biobj: the last evaluation logged
    assert r["final_delta"].to_list() == [0.05, -1e-05]
    assert r["reference_value"].to_list() == [8.333329238494520e-01, 0.8]


def test_reference_algorithm_set(tmp_path):
    root = write(tmp_path / "bestX", {"bbob-bestalg.info": BEST_INFO, "bbob-bestalg_f01_d02.dat": BEST_DAT,
                                      "bbob-bestalg_f01_d02.tdat": BEST_DAT})
    p = parse_source(read_source(root))
    assert not p.problems
    assert p.runs["instance"].to_list() == [0]
    assert p.runs["evaluations"].to_list() == [6] and p.runs["final_delta"].to_list() == [1e-08]
    assert p.events.sort("evaluations")["best_delta"].to_list() == [1.584893192461113e+01, 2.511886431509580e+00, 1e-8]


def test_new2_format_with_constraint_evaluations(tmp_path):
    root = write_new2(tmp_path / "C", suite="bbob-constrained", runs=[
        {"instance": 1, "g": 5, "dat": [(1, 50.0), (10, 2.0)], "tdat": [(1, 50.0), (12, 2.0)]}])
    p = parse_source(read_source(root))
    r = p.runs.row(0, named=True)
    # cost = f + g evaluations; on bbob-constrained cocopp's maxevals is the last .tdat record's f + g
    assert r["evaluations"] == 17 and r["g_evaluations"] == 5 and r["last_evaluation"] == 17
    assert p.events.sort("evaluations")["evaluations"].to_list() == [6, 15, 17]


def test_archives_read_without_unpacking_and_nested_batches(tmp_path):
    root = tmp_path / "exp"
    write_new2(root / "RUN_batch001of2", alg="A", runs=[{"instance": 1, "dat": [(1, 5.0), (9, 1e-9)]}])
    write_new2(root / "RUN_batch002of2", alg="A", function=2, runs=[{"instance": 2, "dat": [(1, 5.0), (4, 1.0)]}])
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        tf.add(root, arcname="exp")
    (tmp_path / "exp.tgz").write_bytes(buf.getvalue())
    with zipfile.ZipFile(tmp_path / "exp.zip", "w") as zf:
        for f in root.rglob("*"):
            if f.is_file():
                zf.write(f, f"exp/{f.relative_to(root)}")
    results = [parse_source(read_source(p)).runs.sort("function") for p in (root, tmp_path / "exp.tgz", tmp_path / "exp.zip")]
    for r in results:
        assert r.select("function", "instance", "evaluations").rows() == [(1, 1, 9), (2, 2, 4)]


@pytest.mark.parametrize("fmt", ["gnu", "pax", "ustar"])
@pytest.mark.parametrize("compression", ["gz", "bz2", "xz", ""])
def test_archives_of_every_tar_format_read_as_tarfile_reads_them(tmp_path, fmt, compression):
    long_dir = "d" * 60 + "/" + "e" * 60  # beyond the 100 characters of a plain tar name
    members = {f"{long_dir}/bbobexp_f1.info": b"info", f"{long_dir}/data_f1/bbobexp_f1_DIM2.dat": b"1 2 3\n",
               "./top.tdat": b"4 5 6\n", "notes.txt": b"skipped", "x/._bbobexp_f2.info": b"resource fork"}
    path = tmp_path / f"exp.tar{'.' + compression if compression else ''}"
    with tarfile.open(path, f"w:{compression}", format=getattr(tarfile, f"{fmt.upper()}_FORMAT")) as tf:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
        for kind, name in ((tarfile.DIRTYPE, "folder.dat"), (tarfile.SYMTYPE, "link.dat"), (tarfile.LNKTYPE, "hard.dat")):
            info = tarfile.TarInfo(name)
            info.type, info.linkname = kind, "top.tdat"
            tf.addfile(info)
    assert read_source(path).files == {f"{long_dir}/bbobexp_f1.info": b"info",
                                       f"{long_dir}/data_f1/bbobexp_f1_DIM2.dat": b"1 2 3\n", "top.tdat": b"4 5 6\n"}


def test_several_info_files_for_the_same_problem_are_merged(tmp_path):
    root = tmp_path / "split"
    write_new2(root / "part1", alg="A", runs=[{"instance": 1, "dat": [(1, 5.0), (3, 2.0)]}])
    write_new2(root / "part2", alg="A", runs=[{"instance": 2, "dat": [(1, 4.0), (5, 1.0)]}])
    st = Store(tmp_path / "store", create=True)
    ingest([root], st)
    runs = st.runs().collect().sort("instance")
    assert runs.select("algorithm", "function", "dimension", "instance", "trial").rows() == [
        ("A", 1, 2, 1, 0), ("A", 1, 2, 2, 1)]


def test_store_files_carry_schema_version_and_open_without_our_code(tmp_path):
    root = write_new2(tmp_path / "A", runs=[{"instance": 1, "dat": [(1, 5.0), (3, 2.0)]}])
    st = Store(tmp_path / "store", create=True)
    ingest([root], st)
    from deltalake import DeltaTable

    files = sorted(f for f in (tmp_path / "store").rglob("*.parquet")
                   if f.relative_to(tmp_path / "store").parts[0] in ("runs", "events") and "_delta_log" not in f.parts)
    assert {f.relative_to(tmp_path / "store").parts[0] for f in files} == {"runs", "events"}
    for f in files:
        assert pq.ParquetFile(f).metadata.row_group(0).column(0).compression == "ZSTD"
    for table, version in (("runs", "1.2.0"), ("events", "1.1.0")):  # runs 1.2.0 (issue 31), events 1.1.0 (issue 24)
        commit = DeltaTable(str(tmp_path / "store" / table)).history(1)[0]
        assert commit["cocopipe.schema_version"] == version
    # a Delta table any engine reads without cocopipe: its rows, the partition values from the log
    t = DeltaTable(str(tmp_path / "store" / "runs")).to_pyarrow_table()
    assert t.num_rows == 1 and set(t.column("algorithm").to_pylist()) == {"ALG"}
