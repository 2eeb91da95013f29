"""Reports of stores that hold several suites: a section per suite, each suite with its own reference,
pages with nothing to compare left out with a note, failing parts left out and listed, progress.

Data: random searches logged by coco-experiment on f1 and f2 with three instances: A (200 x dimension
evaluations) and B (20 x dimension) on bbob in 2-D and 3-D, A on bbob-biobj in 2-D, C on bbob-largescale
in 20-D.
"""
from __future__ import annotations

import html
import importlib
import json
import os
import re
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from pipeline.api import open_store
from pipeline.cli import app
from pipeline.ingest import ingest
from pipeline.report import Settings, build
from pipeline.store import Store
from terminal import on_terminal, plain
from test_report import pages, specs

#: cocopp's default reference of each suite (the packaged sets)
DEFAULTS = {"bbob": "best2009-bbob", "bbob-biobj": "best2016-bbob-biobj",
            "bbob-largescale": "best2019-bbob-largescale"}
RUNS = [("A", "bbob", "dimensions: 2,3", 200), ("B", "bbob", "dimensions: 2,3", 20),
        ("A", "bbob-biobj", "dimensions: 2", 200), ("C", "bbob-largescale", "dimensions: 20", 20)]


def random_search(root: Path, algorithm: str, suite: str, dims: str, per_dim: int, seed: int) -> Path:
    """Logs of a random search in [-5, 5]^n written by coco-experiment's observer into `root`."""
    cocoex = pytest.importorskip("cocoex")
    rng = np.random.default_rng(seed)
    cwd = Path.cwd()
    os.chdir(root)
    try:
        name = f"{algorithm}_on_{suite}"
        observer = cocoex.Observer(suite, f"result_folder: {name} algorithm_name: {algorithm}")
        for problem in cocoex.Suite(suite, "", f"function_indices: 1,2 {dims} instance_indices: 1-3"):
            problem.observe_with(observer)
            for _ in range(per_dim * problem.dimension):
                problem(rng.uniform(-5, 5, problem.dimension))
            problem.free()
        del observer
    finally:
        os.chdir(cwd)
    return root / "exdata" / name


@pytest.fixture(scope="module")
def logs(tmp_path_factory) -> dict[tuple[str, str], Path]:
    root = tmp_path_factory.mktemp("suites")
    return {(alg, suite): random_search(root, alg, suite, dims, n, seed)
            for seed, (alg, suite, dims, n) in enumerate(RUNS)}


def store_of(root: Path, logs: dict, keys) -> Path:
    st = Store(root, create=True)
    summary = ingest([logs[k] for k in keys], st)
    assert summary.runs > 0 and not summary.problems, summary.problems
    return st.path


@pytest.fixture(scope="module")
def three(logs, tmp_path_factory) -> Path:
    return store_of(tmp_path_factory.mktemp("three") / "store", logs, logs)


@pytest.fixture(scope="module")
def report(three, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("three-report") / "r"
    r = CliRunner().invoke(app, ["report", "--store", str(three), "--out", str(out), "--samples", "20", "--jobs", "1"])
    assert r.exit_code == 0, r.output
    return out


def record(out: Path) -> dict:
    return json.loads((out / "settings.json").read_text())["record"]


def test_a_section_per_suite_each_with_its_default_reference(report):
    rec = record(report)
    assert rec["suites"] == list(DEFAULTS) and rec["references"] == DEFAULTS
    assert rec["algorithms"] == ["A", "B", "C"] and rec["skipped"] == []
    p = pages(report)
    for suite, ref in DEFAULTS.items():
        assert f'<section id="ecdf-all-{suite}">' in p["index.html"]
        assert any(f'<section id="art-{suite}">' in t for n, t in p.items() if re.fullmatch(rf"tables-{suite}-\d+d\.html", n))
        assert f'<section id="scaling-{suite}">' in p["scaling.html"]
        assert f'<section id="explore-{suite}">' in p["explore.html"]
        # the suite's charts draw its reference, no other suite's
        for name, spec in specs(p["index.html"], report).items():
            if re.fullmatch(rf"ecdf-{suite}-\d+-all", name):
                text = json.dumps(spec)
                assert ref in text and not any(r in text for r in DEFAULTS.values() if r != ref), name
    assert "bbob: best2009-bbob; bbob-biobj: best2016-bbob-biobj; bbob-largescale: best2019-bbob-largescale" in (
        p["index.html"])
    # the aRT tables divide by each suite's reference
    for suite, ref in DEFAULTS.items():
        tables = "".join(t for n, t in sorted(p.items()) if re.fullmatch(rf"tables-{suite}-\d+d\.html", n))
        section = tables[tables.index(f'<section id="art-{suite}">'):]
        assert ref in section[:section.index("</section>")]
    # only A and B share problems: they are the pair compared, and ranked on bbob
    assert rec["pairs"] == [["A", "B"]]
    assert '<section id="ranking-cd-bbob">' in p["ranking.html"] and "bbob-biobj: one compared algorithm" in (
        p["ranking.html"])
    assert sorted(n for n in p if n.startswith("alg-")) == ["alg-a.html", "alg-b.html", "alg-c.html"]


def test_a_reference_for_some_suites_applies_to_those(three, tmp_path):
    r = CliRunner().invoke(app, ["report", "--store", str(three), "--out", str(tmp_path / "r"), "--reference",
                                 "best2009", "--suite", "bbob", "--suite", "bbob-biobj", "-d", "2", "--samples", "10",
                                 "--jobs", "1"])
    assert r.exit_code == 0, r.output
    rec = record(tmp_path / "r")
    assert rec["references"] == {"bbob": "best2009-bbob", "bbob-biobj": None}
    note = "The reference best2009 applies to suite(s) bbob only; bbob-biobj (no such algorithm or packaged set there)"
    assert any(n.startswith(note) for n in rec["notes"]) and note in " ".join(r.output.split())
    assert note in pages(tmp_path / "r")["index.html"]


def test_a_reference_that_fits_no_suite_is_an_error_before_the_work(three, tmp_path):
    r = CliRunner().invoke(app, ["report", "--store", str(three), "--out", str(tmp_path / "r"), "--reference",
                                 "best2016", "--suite", "bbob"])
    assert r.exit_code == 1 and not (tmp_path / "r").exists()
    assert "reference 'best2016': not an algorithm of the store nor a packaged reference set of suite(s) bbob" in (
        " ".join(r.output.split()))


def test_one_algorithm_per_suite_leaves_out_what_compares(logs, tmp_path):
    store = store_of(tmp_path / "store", logs, [("B", "bbob"), ("C", "bbob-largescale")])
    r = CliRunner().invoke(app, ["report", "--store", str(store), "--out", str(tmp_path / "r"), "--samples", "10",
                                 "--jobs", "1", "-d", "2", "-d", "20"])
    assert r.exit_code == 0, r.output
    p = pages(tmp_path / "r")
    assert "pairwise.html" not in p and "ranking.html" not in p
    assert {"index.html", "alg-b.html", "alg-c.html"} <= set(p) and any(n.startswith("tables-") for n in p)
    why = "No two compared algorithms have trials on a common problem"
    assert why in p["index.html"] and f"note: {why}" in r.output


def test_the_ecdf_tables_are_computed_in_the_groups_of_the_analysis_plan(three, tmp_path):
    # a group per algorithm, or all of them at once: the same report (each algorithm's measures are its own);
    # the measures are made an algorithm at a time either way, so that the progress counts algorithms (issue 32)
    settings = Settings(suites=["bbob"], dimensions=[2], ecdf_samples=10, table_samples=10)
    groups = {}
    for name, size in (("one", 1), ("all", None)):
        def progress(stage, done, total, label="", name=name):
            if stage == "measures" and total:
                groups[name] = total
        build(open_store(three, group_size=size), tmp_path / name, settings, progress=progress, jobs=1)
    rec = record(tmp_path / "one")
    n = len(rec["algorithms"]) + 1  # the compared algorithms and the reference
    assert groups == {"one": n, "all": n}
    assert pages(tmp_path / "one") == pages(tmp_path / "all")


def test_a_failing_chart_or_page_is_left_out_and_the_rest_written(three, tmp_path, monkeypatch):
    from pipeline.recipes import kinds
    from pipeline.report import pages as views_of_pages, views

    making = importlib.import_module("pipeline.report.build")  # (the package's `build` is the function)

    def broken(*args, **kwargs):
        raise ValueError("no convergence today")

    def scaling(ctx, m):
        raise RuntimeError("no scaling page today")

    monkeypatch.setitem(kinds.KINDS, "convergence", broken)
    monkeypatch.setattr(making, "VIEWS", [scaling if v is views_of_pages.scaling else v for v in views.VIEWS])
    settings = Settings(suites=["bbob"], dimensions=[2], ecdf_samples=10, table_samples=10)
    index = build(open_store(three), tmp_path / "r", settings, jobs=1)
    rec = record(tmp_path / "r")
    assert len(rec["skipped"]) == 3  # the scaling page; the convergence chart of A and of B
    assert rec["skipped"][0] == "The scaling page(s) failed and are left out: RuntimeError: no scaling page today"
    assert all("Convergence" in s and "ValueError: no convergence today" in s for s in rec["skipped"][1:])
    p = pages(tmp_path / "r")
    assert "scaling.html" not in p and "alg-a.html" in p
    assert any(n.startswith("ecdf-") for n in p) and any(n.startswith("tables-") for n in p)
    assert 'The chart "Convergence, A, 2-D" failed and is left out' in html.unescape(p["alg-a.html"])
    assert '<section id="left-out">' in index.read_text()
    # the command line says so, and exits non-zero once the report is written
    r = CliRunner().invoke(app, ["report", "--store", str(three), "--out", str(tmp_path / "r2"), "--suite", "bbob",
                                 "-d", "2", "--samples", "10", "--jobs", "1"])
    assert r.exit_code == 1 and (tmp_path / "r2" / "index.html").is_file()
    assert "warning: The scaling page(s) failed" in r.output and "3 parts of the report failed" in r.output


def test_progress_on_a_terminal_and_none_in_a_pipe(three, tmp_path):
    args = ["report", "--store", three, "--suite", "bbob", "-d", "2", "--samples", "10", "--jobs", "1"]
    text, code = on_terminal(*args, "--out", tmp_path / "t", columns=120)
    assert code == 0, text
    seen = set(re.findall(r"report: (\w+)", plain(text)))
    assert {"pages", "charts"} <= seen, seen
    deep = tmp_path / ("a-report-folder-with-a-long-name-" * 3) / "r"
    r = CliRunner().invoke(app, [*map(str, args), "--out", str(deep)])
    assert r.exit_code == 0 and "\x1b[" not in r.output and "report:" not in r.output
    assert r.output.endswith(f"wrote the report to {deep / 'index.html'} ({len(pages(deep))} pages; settings in "
                             f"{deep / 'settings.json'})\n"), r.output


def test_a_bbob_biobj_report_draws_the_archives_attainment_on_the_algorithm_and_pair_pages(tmp_path):
    # the two algorithms of tests/fixtures/biobj_eaf, logged by coco-experiment's observer with archives (2-D)
    from test_report import specs, table_rows

    from pipeline.api import open_store
    from pipeline.report.pages import BIOBJ_PERCENTILES

    fixture = Path(__file__).parent / "fixtures" / "biobj_eaf" / "logs"
    store, out = store_of(tmp_path / "store", {k: fixture / k for k in ("GAUSS", "UNIFORM")}, ("GAUSS", "UNIFORM")), \
        tmp_path / "r"
    r = CliRunner().invoke(app, ["report", "--store", str(store), "--out", str(out), "--samples", "10", "--jobs", "1"])
    assert r.exit_code == 0, r.output
    a = open_store(store)
    for alg in ("GAUSS", "UNIFORM"):
        spec = specs((out / f"alg-{alg.lower()}.html").read_text(), out)[f"biobj-eaf-bbob-biobj-2-{alg.lower()}"]
        drawn = [row for rows in spec["datasets"].values() for row in table_rows(rows)]
        want = a.select(algorithm=[alg]).biobj_eaf(percentiles=BIOBJ_PERCENTILES).collect()
        # every surface point of the measure is drawn (to the report's 5 significant digits; the chart adds
        # each surface's two open ends)
        assert {(r["level"], r["f1"], r["f2"]) for r in drawn} >= {
            (k, float(f"{x:.5g}"), float(f"{y:.5g}")) for k, x, y in want.select("level", "f1", "f2").rows()}
        assert {r["percentile"] for r in drawn} == set(BIOBJ_PERCENTILES)
    pair = (out / "pair-gauss-uniform.html").read_text()
    assert 'id="chart-biobj-eaf-diff-bbob-biobj-2-gauss-uniform"' in pair
    assert 'id="chart-log-ratio-profile-bbob-biobj-gauss-uniform"' in pair
    assert 'id="chart-eaf-diff-' not in pair  # not the EAF of the indicator's precision
