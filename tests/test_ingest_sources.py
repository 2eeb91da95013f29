"""What a source is made of: hidden files and folders left out, each source read once, trials that
arrive twice reported, archives whose expansion is capped, cut short or oddly named."""
from __future__ import annotations

import gzip
import io
import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from logs import write_new2
from pipeline.ingest import ingest, parse_source, read_source
from pipeline.ingest.sources import Limits, SourceError, expand
from pipeline.store import Store

TWO_RUNS = [{"instance": 1, "dat": [(1, 5.0), (3, 2.0), (7, 0.5)]}, {"instance": 2, "dat": [(1, 4.0), (5, 1.0)]}]


def cli(*args):
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *map(str, args)], capture_output=True, text=True)


def one_line(text: str) -> str:
    return " ".join(text.split())


def tgz(folder: Path, out: Path, arcname: str | None = None) -> Path:
    with tarfile.open(out, "w:gz") as tf:
        tf.add(folder, arcname=arcname or folder.name)
    return out


def messages(problems) -> list[str]:
    return [str(p) for p in problems]


# -- hidden files and folders, and sources counted once ---------------------------------------
def test_hidden_folders_beside_archives_are_not_read(tmp_path):
    # cocopp unpacks A.tgz into .extracted_A beside it: ingesting the folder must read A.tgz once
    data = tmp_path / "data"
    exp = write_new2(tmp_path / "A", runs=TWO_RUNS)
    data.mkdir()
    tgz(exp, data / "A.tgz")
    write_new2(data / ".extracted_A" / "A", runs=TWO_RUNS)
    assert expand([data]) == [data / "A.tgz"]
    r = cli("ingest", data, "--store", tmp_path / "st")
    assert r.returncode == 0, r.stderr
    assert "1 of 1 sources read: 2 runs read" in one_line(r.stderr)


def test_sources_named_twice_or_found_twice_are_read_once(tmp_path):
    data = tmp_path / "data"
    write_new2(data / "B", runs=TWO_RUNS)  # a folder with an .info file ...
    tgz(write_new2(tmp_path / "A", alg="A", runs=TWO_RUNS), data / "A.tgz")  # ... and an archive inside it
    once = expand([data])
    assert once == [data, data / "A.tgz"]
    assert expand(once) == once and expand([data, data / "A.tgz", data]) == once
    r = cli("ingest", data, data / "A.tgz", "--store", tmp_path / "st")
    assert "2 of 2 sources read: 4 runs read" in one_line(r.stderr), r.stderr


def test_hidden_files_and_folders_of_a_source_are_left_out(tmp_path):
    root = write_new2(tmp_path / "A", runs=TWO_RUNS)
    write_new2(root / ".backup", runs=TWO_RUNS)
    (root / ".bbobexp_f1.info").write_text((root / "bbobexp_f1.info").read_text())
    assert sorted(read_source(root).files) == ["bbobexp_f1.info", "data_f1/bbobexp_f1_DIM2.dat",
                                               "data_f1/bbobexp_f1_DIM2.tdat"]
    archive = tgz(root, tmp_path / "A.tgz")  # the same inside an archive
    assert sorted(read_source(archive).files) == ["A/bbobexp_f1.info", "A/data_f1/bbobexp_f1_DIM2.dat",
                                                  "A/data_f1/bbobexp_f1_DIM2.tdat"]


# -- trials that arrive twice -------------------------------------------------------------------
def test_a_trial_copied_inside_a_source_is_reported_as_a_duplicate(tmp_path):
    root = tmp_path / "exp"
    write_new2(root / "run1", runs=TWO_RUNS)
    write_new2(root / "run2", runs=TWO_RUNS)  # a copy
    res = parse_source(read_source(root))
    dups = [m for m in messages(res.problems) if "duplicate" in m]
    assert len(dups) == 2 and all(m.startswith("run2/bbobexp_f1.info:3") for m in dups), messages(res.problems)
    assert "same records as run1/bbobexp_f1.info:3" in dups[0]
    assert res.runs.height == 4  # reported, kept


def test_repeated_instances_of_one_data_file_are_no_duplicates(tmp_path):
    # a deterministic algorithm run three times on instance 1 logs identical trials: not a copy
    same = {"instance": 1, "dat": [(1, 5.0), (3, 2.0)]}
    res = parse_source(read_source(write_new2(tmp_path / "A", runs=[same, same, same])))
    assert not res.problems and res.runs.height == 3


def test_trials_arriving_in_two_sources_are_stored_once_and_said_once(tmp_path):
    a = write_new2(tmp_path / "A", runs=TWO_RUNS)
    b = tgz(a, tmp_path / "B.tgz")
    st = Store(tmp_path / "st", create=True)
    summary = ingest([a, b], st)
    assert [(s.status, s.runs, s.runs_duplicate) for s in summary.sources] == [("ingested", 2, 0), ("duplicate", 0, 2)]
    assert summary.sources[1].notes == [f"2 trials identical (same records) to those of {a.resolve()}, which the "
                                        "store holds: left out, each counted once"]
    assert not summary.problems and st.runs().collect().height == 2
    # and against what the store holds from an earlier ingest
    c = tgz(a, tmp_path / "C.tgz", arcname="C")
    later = ingest([c], st)
    assert later.sources[0].status == "duplicate" and st.runs().collect().height == 2
    # a source ingested again replaces itself: no duplicates of its own trials
    alone = Store(tmp_path / "alone", create=True)
    ingest([a], alone)
    write_new2(a, function=2, runs=TWO_RUNS, info_name="bbobexp_f2.info")
    again = ingest([a], alone)
    assert again.sources[0].status == "ingested" and not again.problems


def test_trials_of_a_source_of_the_same_base_name_elsewhere_are_duplicates(tmp_path):
    # sources are known by their paths: another folder's A holding the same trials is another source
    a = write_new2(tmp_path / "one" / "A", runs=TWO_RUNS)
    other = write_new2(tmp_path / "two" / "A", runs=TWO_RUNS)
    write_new2(other, function=2, runs=TWO_RUNS, info_name="bbobexp_f2.info")
    st = Store(tmp_path / "st", create=True)
    ingest([a], st)
    later = ingest([other], st)
    assert [n for n in later.sources[0].notes if "identical" in n] == [
        f"2 trials identical (same records) to those of {a.resolve()}, which the store holds: left out, each "
        "counted once"]
    assert st.runs().collect().height == 4  # its own 2 trials of f2 stored, the 2 of f1 once
    assert st.sources()[str(other.resolve())]["runs"] == 2


# -- archives: caps on expansion, cut short, odd names -----------------------------------------
def gz_bomb(path: Path, member: str, size: int, block: int = 64 << 20) -> Path:
    """A .tgz holding one member of `size` zero bytes, as gzip members joined (quick to write)."""
    info = tarfile.TarInfo(member)
    info.size = size
    zeros = gzip.compress(bytes(block), compresslevel=1)
    with open(path, "wb") as fh:
        fh.write(gzip.compress(info.tobuf(format=tarfile.GNU_FORMAT)))
        for _ in range(size // block):
            fh.write(zeros)
        fh.write(gzip.compress(bytes(size % block) + bytes(-size % 512) + bytes(1024)))
    return path


def test_a_gzip_bomb_is_refused_naming_its_member_with_bounded_memory(tmp_path):
    bomb = gz_bomb(tmp_path / "bomb.tgz", "exp/data_f1/bbobexp_f1_DIM2.dat", 1 << 30)  # 1 GiB from 4 MB
    assert bomb.stat().st_size < 8 << 20
    good = write_new2(tmp_path / "A", runs=TWO_RUNS)
    # the CLI run by a process of its own that prints the CLI's peak memory (KiB) when it is done
    measured = ("import resource, subprocess, sys; r = subprocess.run([sys.executable, '-m', 'pipeline.cli', "
                "*sys.argv[1:]]); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    r = subprocess.run([sys.executable, "-c", measured, "ingest", bomb, good, "--store", tmp_path / "st"],
                       capture_output=True, text=True)
    text = one_line(r.stderr)
    assert "Traceback" not in r.stderr
    assert "bomb.tgz" in text and "exp/data_f1/bbobexp_f1_DIM2.dat" in text and "--max-ratio" in text, text
    assert "1 of 2 sources read: 2 runs read" in text
    # the decompression stopped at the cap (256 MiB for so small an archive), far below the 1 GiB
    assert int(r.stdout.split()[-1]) < 900 << 10


def test_the_caps_can_be_raised(tmp_path):
    root = write_new2(tmp_path / "A", runs=TWO_RUNS)
    archive = tgz(root, tmp_path / "A.tgz")
    with pytest.raises(SourceError, match=r"A/.*expands beyond .* --max-ratio"):
        read_source(archive, Limits(ratio=3.0, floor=0))
    assert len(read_source(archive, Limits(ratio=1000.0, floor=0)).files) == 3
    r = cli("ingest", archive, "--store", tmp_path / "st", "--max-member", "100")
    assert r.returncode == 1 and "A/bbobexp_f1.info" in r.stderr and "--max-member" in r.stderr, r.stderr
    # 300 MiB from 1 MB: beyond the cap of so small an archive, unless the ratio is raised
    bomb = gz_bomb(tmp_path / "zeros.tgz", "exp/zeros.bin", 300 << 20)
    assert "expands beyond" in cli("ingest", bomb, "--store", tmp_path / "st").stderr
    r = cli("ingest", bomb, "--store", tmp_path / "st", "--max-ratio", "5000")
    assert "no COCO log files" in r.stderr and "expands beyond" not in r.stderr, r.stderr


def test_a_member_above_the_size_cap_is_skipped_and_named(tmp_path):
    root = write_new2(tmp_path / "A", runs=TWO_RUNS)
    big = root / "data_f1" / "bbobexp_f1_DIM2.tdat"
    big.write_text(big.read_text() + "\n" * 100)  # blank lines: larger than the .dat, same records
    size = big.stat().st_size
    for archive in (tgz(root, tmp_path / "A.tgz"), zipped(root, tmp_path / "A.zip")):
        src = read_source(archive, Limits(member=size - 1))
        assert "A/data_f1/bbobexp_f1_DIM2.tdat" not in src.files
        res = parse_source(src)
        assert any("A/data_f1/bbobexp_f1_DIM2.tdat" in m and f"{size} bytes" in m
                   and "--max-member" in m for m in messages(res.problems)), messages(res.problems)
        assert res.runs.height == 2  # from the .dat


def zipped(root: Path, out: Path) -> Path:
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for f in sorted(root.rglob("*")):
            if f.is_file():
                zf.write(f, f"{root.name}/{f.relative_to(root).as_posix()}")
    return out


def test_a_zip_bomb_is_refused_naming_its_member(tmp_path):
    path = tmp_path / "bomb.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("exp/bbobexp_f1.info", bytes(64 << 20))
    with pytest.raises(SourceError, match=r"bomb.zip: .*exp/bbobexp_f1.info.*expands beyond"):
        read_source(path, Limits(floor=1 << 20))


def test_a_tar_bomb_of_many_members_is_refused(tmp_path):
    path = tmp_path / "many.tar.xz"
    with tarfile.open(path, "w:xz") as tf:
        for k in range(8):
            info = tarfile.TarInfo(f"exp/f{k}.dat")
            info.size = 4 << 20
            tf.addfile(info, io.BytesIO(bytes(info.size)))
    with pytest.raises(SourceError, match=r"many.tar.xz: .*exp/f\d.dat.*expands beyond"):
        read_source(path, Limits(floor=1 << 20))


def two_experiments(tmp_path: Path) -> Path:
    """exp/a (f1) and exp/b (f2), two runs each."""
    root = tmp_path / "exp"
    write_new2(root / "a", runs=TWO_RUNS)
    write_new2(root / "b", function=2, runs=TWO_RUNS)
    return root


def test_a_truncated_tgz_keeps_its_whole_members_and_names_the_cut(tmp_path):
    root = two_experiments(tmp_path)
    archive = tmp_path / "exp.tgz"
    with tarfile.open(archive, "w:gz") as tf:
        for f in sorted(root.rglob("*")):  # a/ first, then b/ (its .info before its data)
            tf.add(f, arcname=f.relative_to(tmp_path).as_posix(), recursive=False)
        tf.add(Path(__file__), arcname="exp/padding.txt")  # a large last member to cut into
    raw = archive.read_bytes()
    archive.write_bytes(raw[: len(raw) * 3 // 4])
    src = read_source(archive)
    res = parse_source(src)
    assert any("exp.tgz" in m and "cut short" in m for m in messages(res.problems)), messages(res.problems)
    assert sorted(res.runs["function"].to_list()) == [1, 1, 2, 2]
    r = cli("ingest", archive, "--store", tmp_path / "st")
    assert r.returncode == 0 and "4 runs read" in one_line(r.stderr), r.stderr


def test_a_truncated_zip_keeps_its_whole_members_and_names_the_cut(tmp_path):
    root = two_experiments(tmp_path)
    (root / "padding.txt").write_text(Path(__file__).read_text())  # a large last member to cut into
    archive = zipped(root, tmp_path / "exp.zip")
    raw = archive.read_bytes()
    archive.write_bytes(raw[: len(raw) * 3 // 4])  # the central directory, at the end, is gone
    res = parse_source(read_source(archive))
    assert any("exp.zip" in m and "cut short" in m for m in messages(res.problems)), messages(res.problems)
    assert sorted(res.runs["function"].to_list()) == [1, 1, 2, 2]
    r = cli("ingest", archive, "--store", tmp_path / "st")
    assert r.returncode == 0 and "4 runs read" in one_line(r.stderr), r.stderr
    # cut inside a log file: the members before it are kept, the one cut is named
    archive.write_bytes(raw[: raw.index(b"exp/b/data_f2/bbobexp_f2_DIM2.dat") + 60])
    res = parse_source(read_source(archive))
    assert any("cut short in exp/b/data_f2/bbobexp_f2_DIM2.dat" in m for m in messages(res.problems)), \
        messages(res.problems)
    assert sorted(res.runs["function"].to_list()) == [1, 1]


class Unseekable(io.RawIOBase):
    """A file zipfile cannot seek in: it writes each member's sizes after its data (a data descriptor)."""

    def __init__(self, fh):
        self.fh = fh

    def writable(self):
        return True

    def write(self, b):
        return self.fh.write(b)


def test_a_truncated_streamed_zip_keeps_its_whole_members(tmp_path):
    root = two_experiments(tmp_path)
    archive = tmp_path / "exp.zip"
    with open(archive, "wb") as fh, zipfile.ZipFile(Unseekable(fh), "w", zipfile.ZIP_DEFLATED) as zf:
        for f in sorted(root.rglob("*")):
            if f.is_file():
                zf.write(f, f"exp/{f.relative_to(root).as_posix()}")
    raw = archive.read_bytes()
    assert raw.count(b"PK\x07\x08") == 6  # every member's sizes after its data
    archive.write_bytes(raw[: raw.index(b"PK\x01\x02")])  # the central directory gone
    res = parse_source(read_source(archive))
    assert any("cut short after its last whole member" in m for m in messages(res.problems)), messages(res.problems)
    assert sorted(res.runs["function"].to_list()) == [1, 1, 2, 2]


def test_a_zip_bomb_without_its_central_directory_is_refused_naming_its_member(tmp_path):
    path = tmp_path / "bomb.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("exp/zeros.bin", bytes(64 << 20))  # not a log file: inflated only to find its end
        zf.writestr("exp/bbobexp_f1.info", b"x")
    raw = bytearray(path.read_bytes()[: path.read_bytes().index(b"PK\x01\x02")])  # the central directory gone
    raw[6] |= 0x8  # the first member's sizes said to follow its data, as a streamed zip says: it must be inflated
    path.write_bytes(bytes(raw))
    with pytest.raises(SourceError, match=r"bomb.zip: .*exp/zeros.bin.*expands beyond"):
        read_source(path, Limits(floor=1 << 20))


def test_a_zip_member_that_cannot_be_inflated_is_named_and_the_others_kept(tmp_path):
    root = two_experiments(tmp_path)
    archive = zipped(root, tmp_path / "exp.zip")
    raw = bytearray(archive.read_bytes())
    with zipfile.ZipFile(archive) as zf:
        info = zf.getinfo("exp/b/data_f2/bbobexp_f2_DIM2.dat")
    data = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    raw[data:data + 8] = b"\xff" * 8  # its deflate stream spoilt
    archive.write_bytes(bytes(raw))
    res = parse_source(read_source(archive))
    assert any("exp/b/data_f2/bbobexp_f2_DIM2.dat" in m and "unreadable member" in m
               for m in messages(res.problems)), messages(res.problems)
    assert sorted(res.runs["function"].to_list()) == [1, 1] and res.runs_skipped == 2  # f2's data file is lost


def test_non_utf8_member_names_are_read(tmp_path):
    root = write_new2(tmp_path / "A", runs=TWO_RUNS)
    archive = tmp_path / "A.tgz"
    with tarfile.open(archive, "w:gz", format=tarfile.GNU_FORMAT, encoding="latin-1") as tf:
        for f in sorted(root.rglob("*")):
            tf.add(f, arcname="Ergebnisse_\xe9/" + f.relative_to(root).as_posix(), recursive=False)
    folder = tmp_path / os.fsdecode(b"C_\xe9")  # the same bytes in a file name on disk
    write_new2(folder / os.fsdecode(b"Ergebnisse_\xe9"), alg="C", runs=TWO_RUNS)  # other trials than the archive's
    r = cli("ingest", archive, folder, write_new2(tmp_path / "B", alg="B", runs=TWO_RUNS), "--store", tmp_path / "st")
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert "3 of 3 sources read: 6 runs read" in one_line(r.stderr)
    # the names read as the .info files naming them are decoded: bytes that are not UTF-8 as U+FFFD
    assert "Ergebnisse_\ufffd/bbobexp_f1.info" in read_source(archive).files
    assert "Ergebnisse_\ufffd/bbobexp_f1.info" in read_source(folder).files


def test_paths_are_named_once_in_messages(tmp_path):
    # once in the warning that says what is wrong with it, once in the error that ends the ingest (exit 1)
    (tmp_path / "broken.tgz").write_bytes(b"\x1f\x8b\x08\x00garbage")
    r = cli("ingest", tmp_path / "broken.tgz", "--store", tmp_path / "st")
    lines = r.stderr.splitlines()
    assert r.returncode == 1 and all(line.count("broken.tgz") <= 1 for line in lines), r.stderr
    assert [line.split(":")[0] for line in lines if "broken.tgz" in line] == ["warning", "error"], r.stderr


# -- data printed as text ----------------------------------------------------------------------
def test_markup_and_emoji_codes_in_data_are_printed_as_they_are(tmp_path):
    # a name with Rich markup, a closing tag without an opening one, and a problem on line 100
    # (`file:100:` is Rich's emoji code for 💯)
    a = write_new2(tmp_path / "A", alg="[/red] a[x] [bold]", runs=TWO_RUNS)
    info = a / "bbobexp_f1.info"
    info.write_text("\n" * 99 + "garbage line\n" + info.read_text())
    b = write_new2(tmp_path / "[red]B", alg="B", runs=TWO_RUNS)
    r = cli("ingest", a, b, "--store", tmp_path / "st")
    assert r.returncode == 0 and "MarkupError" not in r.stderr, r.stderr
    text = one_line(r.stderr)
    assert "bbobexp_f1.info:100: unreadable .info line" in text and "💯" not in text, text
    assert "[red]B: 2 runs" in text and "2 of 2 sources read: 4 runs read" in text
    r = cli("query", "SELECT DISTINCT algorithm FROM runs ORDER BY 1", "--store", tmp_path / "st")
    assert r.returncode == 0 and "[/red] a[x] [bold]" in r.stdout, r.stdout + r.stderr
    r = cli("ingest", a, "--store", tmp_path / "st2", "--name", "[/red]")
    assert r.returncode == 0 and "MarkupError" not in r.stderr and "info:100:" in r.stderr, r.stderr


def test_the_terminal_shows_the_first_problems_of_a_source_and_a_file_takes_them_all(tmp_path):
    root = tmp_path / "exp"
    many = [{"instance": i, "dat": [(1, 5.0 + i), (3, 2.0)]} for i in range(1, 26)]
    write_new2(root / "run1", runs=many)
    write_new2(root / "run2", runs=many)  # a copy: 25 duplicates
    r = cli("ingest", root, "--store", tmp_path / "st", "--problems", tmp_path / "problems.csv")
    assert r.returncode == 0, r.stderr
    shown = [ln for ln in r.stderr.splitlines() if "is a duplicate" in ln]
    assert len(shown) == 20 and "exp: 5 more problems; all of them: --problems FILE" in one_line(r.stderr)
    rows = (tmp_path / "problems.csv").read_text().splitlines()
    assert rows[0] == "source,file,line,message,action" and len(rows) == 26
    assert all("is a duplicate" in row for row in rows[1:])
