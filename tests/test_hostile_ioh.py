"""IOHprofiler logs with impossible, non-finite or out-of-range content: each named with its file and
line (or entry) in one line, left out of the measures, everything readable kept (issue 31, 6 and 8;
issue 28)."""
from __future__ import annotations

import polars as pl

from pipeline.api import open_store

from test_ioh import _ingest, write_log


def test_a_value_below_the_known_optimum_is_named_and_not_a_success(tmp_path):
    """ioh BBOB logs raw_y = f - f_opt >= 0: a run logging -0.5 did not hit 1e-8 (1 success, not 2)."""
    write_log(tmp_path / "log", [["1 5.0", "3 -0.5", "9 2.0"], ["1 1.0", "4 1e-9"]])
    st, s = _ingest(tmp_path, tmp_path / "log")
    dat = "data_f1_Sphere/IOHprofiler_f1_DIM2.dat"
    (p,) = s.problems
    assert (p.file, p.line) == (dat, 3) and "-0.5 is beyond the optimum 0" in p.message
    assert "left out" in p.action
    ert = open_store(st.path).ert([1e-8]).collect()
    assert ert["successes"].to_list() == [1]
    assert st.runs().sort("trial").collect()["final_delta"].to_list() == [2.0, 1e-9]


def test_nan_and_infinite_values_are_named_and_left_out(tmp_path):
    """nan and an infinitely good value (-inf minimised) are impossible: named; +inf minimised is the worst
    value ("none yet", as IOHinspector fills a run before its first record): left out, not an error."""
    write_log(tmp_path / "log", [["1 5.0", "2 -inf", "3 nan", "4 2.0"], ["1 -nan", "2 inf", "5 3.0"]],
              suite="unknown_suite")
    st, s = _ingest(tmp_path, tmp_path / "log")
    dat = "data_f1_Sphere/IOHprofiler_f1_DIM2.dat"
    where = {p.line: p.message for p in s.problems if p.file == dat}
    assert sorted(where) == [3, 4, 7]
    assert "-inf is not a possible value" in where[3] and "nan is not a possible value" in where[4]
    fb = open_store(st.path).fixed_budget([10], summary=False).collect().sort("trial")
    assert fb["best_delta"].to_list() == [2.0, 3.0]  # not -inf: the possible records only
    write_log(tmp_path / "max", [["1 inf", "2 3.0"]], suite="unknown_suite", maximize=True, fid=2, name="Max")
    _, s = _ingest(tmp_path / "m", tmp_path / "max")
    assert [p.line for p in s.problems] == [2]  # +inf maximised is impossible


def test_an_infinite_function_id_is_one_line_naming_the_file(tmp_path):
    j = write_log(tmp_path / "log", [["1 5.0"]])
    j.write_text(j.read_text().replace('"function_id": 1', '"function_id": Infinity'))
    k = write_log(tmp_path / "log2", [["1 5.0"]], fid=3, name="Rastrigin")
    k.write_text(k.read_text().replace('"dimension": 2', '"dimension": -Infinity'))
    st, s = _ingest(tmp_path, tmp_path / "log", tmp_path / "log2")
    msgs = [str(p) for p in s.problems]
    assert any(m.startswith("IOHprofiler_f1_Sphere.json:") and "function_id is not a number" in m for m in msgs)
    assert any(m.startswith("IOHprofiler_f3_Rastrigin.json:") and "without a dimension" in m for m in msgs)
    assert st.runs().select(pl.len()).collect().item() == 0


def test_a_dat_without_its_json_is_named(tmp_path):
    """ioh writes the json when the logger closes: a .dat alone is named, not ignored (issue 31, 6)."""
    write_log(tmp_path / "log", [["1 5.0"]])
    lone = write_log(tmp_path / "log" / "B", [["1 4.0"]], fid=2, name="Ellipsoid")
    lone.unlink()
    only = write_log(tmp_path / "only", [["1 4.0"]], fid=3, name="Rastrigin")
    only.unlink()
    st, s = _ingest(tmp_path, tmp_path / "log", tmp_path / "only")
    named = {p.file: str(p) for p in s.problems}
    assert "without the IOHprofiler_*.json" in named["B/data_f2_Ellipsoid/IOHprofiler_f2_DIM2.dat"]
    assert "without the IOHprofiler_*.json" in named["data_f3_Rastrigin/IOHprofiler_f3_DIM2.dat"]
    assert st.runs().select(pl.len()).collect().item() == 1


def test_a_zip_holding_only_another_zip_names_both_formats(tmp_path):
    import zipfile

    inner = tmp_path / "inner.zip"
    with zipfile.ZipFile(inner, "w") as z:
        z.writestr("IOHprofiler_f1_Sphere.json", "{}")
    outer = tmp_path / "outer.zip"
    with zipfile.ZipFile(outer, "w") as z:
        z.write(inner, "inner.zip")
    _, s = _ingest(tmp_path, outer)
    assert any("IOHprofiler" in str(p) for p in s.problems), [str(p) for p in s.problems]


def test_an_evaluation_count_beyond_64_bits_is_named(tmp_path):
    write_log(tmp_path / "log", [["1 5.0", "1e30 2.0", "4 1.0"]], suite="unknown_suite")
    st, s = _ingest(tmp_path, tmp_path / "log")
    assert [(p.line, "malformed" in p.message) for p in s.problems] == [(3, True)]
    assert st.events().collect()["evaluations"].sort().to_list() == [1, 4]


def test_numbers_beyond_32_bits_are_named(tmp_path):
    """function, dimension and instance are 32-bit in the store: larger ones are named, not a traceback."""
    j = write_log(tmp_path / "log", [["1 5.0"]], instances=[3_000_000_000])
    k = write_log(tmp_path / "log2", [["1 5.0"]], fid=3, name="Rastrigin", dim=4_000_000_000)
    old = tmp_path / "old"
    (old / "data_f1").mkdir(parents=True)
    (old / "IOHprofiler_f1_i1.info").write_text("suite = 'PBO', funcId = 5000000000, DIM = 16, algId = 'EA'\n%\n"
                                                "data_f1/IOHprofiler_f1_DIM16_i1.dat, 1:1|3\n")
    (old / "data_f1" / "IOHprofiler_f1_DIM16_i1.dat").write_text('"function evaluation" "current f(x)" '
                                                                  '"best-so-far f(x)"\n1 3 3\n')
    st, s = _ingest(tmp_path, tmp_path / "log", tmp_path / "log2", old)
    files = sorted(p.file for p in s.problems)
    assert files == ["IOHprofiler_f1_Sphere.json", "IOHprofiler_f1_i1.info", "IOHprofiler_f3_Rastrigin.json"], files
    assert st.runs().select(pl.len()).collect().item() == 0
    assert j.exists() and k.exists()  # nothing written to the logs


def test_old_layout_runs_beyond_every_block_naming_a_dat_are_named_once(tmp_path):
    """ioh < 0.3: two .info blocks naming one .dat announce 1 run each; the .dat holds 3 sections: the first
    two are the blocks' runs, the third is named once (its file, both counts) and ignored."""
    head = '"function evaluation" "current f(x)" "best-so-far f(x)" "current af(x)+b" "best af(x)+b"\n'
    log = tmp_path / "log"
    (log / "data_f1").mkdir(parents=True)
    (log / "data_f1" / "IOHprofiler_f1_DIM2.dat").write_text(
        head + "1 5 5 5 5\n4 3 3 3 3\n" + head + "1 7 7 7 7\n" + head + "1 9 9 9 9\n")
    block = 'suite = "unknown_suite", funcId = 1, DIM = 2, maximization = "F", algId = "A"\n%\n'
    (log / "IOHprofiler_f1.info").write_text(block + "data_f1/IOHprofiler_f1_DIM2.dat, 1:4|3\n"
                                             + block + "data_f1/IOHprofiler_f1_DIM2.dat, 2:1|7\n")
    st, s = _ingest(tmp_path, log)
    (p,) = s.problems
    assert p.file == "data_f1/IOHprofiler_f1_DIM2.dat" and p.line is None
    assert "3 runs in the data file but 2 in IOHprofiler_f1.info" in p.message and "1 unannounced run" in p.action
    runs = st.runs().sort("trial").collect()
    assert runs.select("instance", "final_delta", "last_evaluation").rows() == [(1, None, 4), (2, None, 1)]
    ev = st.events().sort("run_id", "evaluations").collect()
    assert sorted(ev["measured"].to_list()) == [3.0, 5.0, 7.0]


def test_an_old_layout_dat_beside_a_json_log_is_named(tmp_path):
    """A data file of ioh < 0.3 that no .info names, in a source whose other logs are IOHprofiler json: its
    reader names it (it was skipped without a word when the json logs were read alone)."""
    write_log(tmp_path / "log", [["1 5.0", "3 1.0"]])
    old = tmp_path / "log" / "old" / "IOHprofiler_f2_DIM2.dat"
    old.parent.mkdir()
    old.write_text('"function evaluation" "current f(x)" "best-so-far f(x)"\n1 4.0 4.0\n')
    st, s = _ingest(tmp_path, tmp_path / "log")
    assert [str(p) for p in s.problems] == [
        "old/IOHprofiler_f2_DIM2.dat:1: IOHprofiler data file of ioh < 0.3 without the .info that names it "
        "(file skipped)"]
    assert st.runs().select(pl.len()).collect().item() == 1


_OLD_HEAD = '"function evaluation" "current f(x)" "best-so-far f(x)" "current af(x)+b" "best af(x)+b"\n'


def _old_log(folder, path="data_f1/IOHprofiler_f1_DIM2.dat", suite="unknown_suite", alg="A"):
    """A log of ioh < 0.3: three runs (instances 1, 2, 3) of f1 in 2-D, their best values 3, 7 and 8."""
    dat = folder / path
    dat.parent.mkdir(parents=True, exist_ok=True)
    dat.write_text(_OLD_HEAD + "1 5 5 5 5\n4 3 3 3 3\n" + _OLD_HEAD + "1 7 7 7 7\n" + _OLD_HEAD + "1 9 9 9 9\n2 8 8 8 8\n")
    block = f'suite = "{suite}", funcId = 1, DIM = 2, maximization = "F", algId = "{alg}"\n%\n'
    (folder / "IOHprofiler_f1.info").write_text(block + f"{path}, 1:4|3, 2:1|7, 3:2|8\n")
    return dat


def test_an_old_layout_log_with_a_byte_order_mark_and_crlf_reads_every_run(tmp_path):
    """Files saved by a Windows editor: a byte-order mark first and CRLF line ends (read 0 of 3 runs, issue 43)."""
    dat = _old_log(tmp_path / "log")
    for f in (dat, tmp_path / "log" / "IOHprofiler_f1.info"):
        f.write_bytes(b"\xef\xbb\xbf" + f.read_bytes().replace(b"\n", b"\r\n"))
    st, s = _ingest(tmp_path, tmp_path / "log")
    assert [str(p) for p in s.problems] == []
    runs = st.runs().sort("instance").collect()
    assert runs.select("instance", "last_evaluation").rows() == [(1, 4), (2, 1), (3, 2)]
    assert sorted(st.events().collect()["measured"].to_list()) == [3.0, 5.0, 7.0, 8.0, 9.0]


def test_a_json_layout_dat_with_a_byte_order_mark_and_crlf_reads_every_run(tmp_path):
    write_log(tmp_path / "log", [["1 5.0", "3 1.0"], ["1 4.0"], ["2 3.0"]])
    dat = next((tmp_path / "log").rglob("*.dat"))
    dat.write_bytes(b"\xef\xbb\xbf" + dat.read_bytes().replace(b"\n", b"\r\n"))
    st, s = _ingest(tmp_path, tmp_path / "log")
    assert [str(p) for p in s.problems] == [] and st.runs().collect().height == 3


def test_negative_evaluations_are_named(tmp_path):
    """A record at evaluation -3 and a json entry announcing -5 evaluations: each named with its line."""
    write_log(tmp_path / "log", [["1 5.0", "-3 1.0", "4 2.0"], ["1 4.0"]], evals=[-5, 0])
    st, s = _ingest(tmp_path, tmp_path / "log")
    msgs = [str(p) for p in s.problems]
    assert msgs == ["IOHprofiler_f1_Sphere.json:18: run entry 1 of data_f1_Sphere/IOHprofiler_f1_DIM2.dat: evals -5 is "
                    "negative (the run's evaluations taken from its data file)",
                    "data_f1_Sphere/IOHprofiler_f1_DIM2.dat:3: malformed record (evaluation count -3 is not a whole number "
                    "from 1 to 2^62) "
                    "(line skipped)"], msgs
    runs = st.runs().sort("trial").collect()
    assert runs["last_evaluation"].to_list() == [4, 1] and runs["final_delta"].to_list() == [2.0, 4.0]


def test_a_json_announcing_a_million_runs_for_a_dat_of_three_is_named_once(tmp_path):
    n = 1_000_000
    write_log(tmp_path / "log", [["1 5.0"], ["1 4.0"], ["2 3.0"]], json_runs=n, instances=[1] * n, evals=[1] * n)
    st, s = _ingest(tmp_path, tmp_path / "log")
    assert [str(p) for p in s.problems] == [
        "IOHprofiler_f1_Sphere.json:18: 1000000 runs announced for data_f1_Sphere/IOHprofiler_f1_DIM2.dat, which holds "
        "3 runs (999997 runs without records skipped)"]
    (o,) = s.sources
    assert st.runs().collect().height == 3 and o.runs_skipped == n - 3


def test_both_ioh_layouts_of_the_same_runs_in_one_folder_are_one_run_each_named(tmp_path):
    """The same three runs logged in the json layout and in the layout of ioh < 0.3 (6 runs from 3, unnamed,
    issue 43): each run read once, from its json, and the old layout's copy named."""
    log = tmp_path / "log"
    write_log(log, [["1 5.0", "4 3.0"], ["1 7.0"], ["1 9.0", "2 8.0"]], instances=[1, 2, 3])
    _old_log(log, "old/IOHprofiler_f1_DIM2.dat", suite="BBOB", alg="ALG")
    st, s = _ingest(tmp_path, log)
    assert [str(p) for p in s.problems] == [
        f"IOHprofiler_f1.info:3: run of f1 2-D instance {i} is also in IOHprofiler_f1_Sphere.json (both IOHprofiler "
        "layouts of one run) (read once, from the json)" for i in (1, 2, 3)]
    runs = st.runs().sort("instance").collect()
    assert runs.select("instance", "final_delta").rows() == [(1, 3.0), (2, 7.0), (3, 8.0)]
    assert st.events().collect().height == 5  # the json layout's records, once
