"""The HTML report on tiny hand-made logs: its pages, charts, settings and exact rebuilds.

Data: algorithms A and B on f1 (separable) and f15 (multi-modal) in 2-D and 5-D, three instances
each. A reaches Δf = 1e-9 on f1 after 10 evaluations (every one of the 51 ECDF targets) and only
Δf = 1 on f15 (the 11 targets 10^2 .. 10^0); B reaches Δf = 1e-3 on both (the 26 targets
10^2 .. 10^-3) after 50 evaluations.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import altair as alt
import polars as pl
import pytest
from typer.testing import CliRunner

from logs import write_new2
from pipeline.api import open_store
from pipeline.charts import theme
from pipeline.cli import app
from pipeline.ingest import ingest
from pipeline.report import Settings, SettingsError, build
from pipeline.report.figures import script_json
from pipeline.report.runner import canonical_names, chart_spec
from pipeline.store import Store

DIMS = (2, 5)


def _trials(evals: int, best: float) -> list[dict]:
    return [dict(instance=i, dat=[(1, 50.0), (evals, best)]) for i in (1, 2, 3)]


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("report-data")
    for alg, runs in {"A": {1: _trials(10, 1e-9), 15: _trials(10, 1.0)},
                      "B": {1: _trials(50, 1e-3), 15: _trials(50, 1e-3)}}.items():
        for f, trials in runs.items():
            for d in DIMS:
                write_new2(root / alg, alg=alg, function=f, dim=d, runs=trials)
    st = Store(root / "store", create=True)
    summary = ingest([root / "A", root / "B"], st)
    assert summary.runs == 2 * 2 * 2 * 3
    return root / "store"


@pytest.fixture(scope="module")
def report(store, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("report") / "r"
    index = build(open_store(store), out, Settings(reference="none", table_samples=50), jobs=1)
    assert index == out / "index.html"
    return out


def pages(out: Path) -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(out.glob("*.html"))}


def page_data(text: str) -> dict[str, object]:
    """The page's data block: {table name: values}."""
    return {m.group(1): json.loads(m.group(2)) for m in
            re.finditer(r'<script type="application/json" class="dataset" id="dataset-([^"]+)">(.*?)</script>', text,
                        re.S)}


def shared_table(root: Path, name: str) -> object:
    """A table several pages use, from the report's data/NAME.js."""
    text = (root / "data" / f"{name}.js").read_text(encoding="utf-8")
    prefix = f'(window.cocopipeTables = window.cocopipeTables || {{}})["{name}"] = '
    assert text.startswith(prefix) and text.endswith(";\n")
    return json.loads(text[len(prefix):-2])


def specs(text: str, root: Path | None = None) -> dict[str, dict]:
    """The embedded Vega-Lite specs of a page by chart id, each with its tables from the page's data
    block or, for tables other pages use too, from the report folder `root`'s data/ (as the page's
    script gives them to vega-embed)."""
    data = page_data(text)
    for name in re.findall(r'<script src="data/([^"]+)\.js"></script>', text):
        assert name not in data, name  # a table is in the page or in data/, not in both
        data[name] = shared_table(root, name)
    names = dict(re.findall(r'<div class="chart" id="chart-([^"]+)" data-spec="[^"]+" data-datasets="([^"]*)"', text))
    out = {}
    for m in re.finditer(r'<script type="application/json" id="spec-([^"]+)">(.*?)</script>', text, re.S):
        spec = json.loads(m.group(2))
        assert "datasets" not in spec, m.group(1)
        if names[m.group(1)]:
            spec["datasets"] = {n: data[n] for n in names[m.group(1)].split()}
        out[m.group(1)] = spec
    return out


def table_rows(values) -> list[dict]:
    """A spec's table as rows: JSON rows as they are, CSV text read with numbers as numbers."""
    if not isinstance(values, str):
        return values
    import io


    return pl.read_csv(io.StringIO(values)).to_dicts()


def ends(spec: dict) -> dict[str, float]:
    """final_fraction per algorithm from the data sets of an ECDF spec."""
    out = {}
    for rows in spec["datasets"].values():
        for r in table_rows(rows):
            if "final_fraction" in r:
                out[r["algorithm"]] = r["final_fraction"]
    return out


# -- pages and charts ---------------------------------------------------------------------------
def test_pages_and_their_charts(report):
    p = pages(report)
    assert sorted(p) == ["alg-a.html", "alg-b.html", *[f"ecdf-{d}d.html" for d in DIMS], "explore.html", "index.html",
                         "pair-a-b.html", "pairwise.html", "ranking.html", "scaling.html", "settings.html",
                         *[f"tables-{d}d.html" for d in DIMS]]
    # overview: one all-function ECDF per dimension; an ECDF page per dimension: 2 groups (separ, multi) + 2
    # functions; one scaling figure; the one pair: scatter, ratio ECDF, aRT ratio, and a rank-sum heat
    # map per dimension (the pair on a page of its own with its log-ratio profile, the heat maps on the Pairwise
    # page); per algorithm:
    # scaling, runtime and precision ECDFs per group in 5-D (cocopp draws one algorithm's in 5-D and
    # 20-D), convergence in 5-D; the attainment function in 5-D on each algorithm's page, their difference on
    # the pair's; the ranking and the Shapley values on the Ranking page; the performance and data profiles
    # beside the overview's ECDFs
    expected = {"index.html": 4, **{f"ecdf-{d}d.html": 4 for d in DIMS},
                "scaling.html": 1, "pairwise.html": len(DIMS), "pair-a-b.html": 5, "alg-a.html": 5,
                "alg-b.html": 5, **{f"tables-{d}d.html": 0 for d in DIMS}, "settings.html": 0, "explore.html": 1,
                "ranking.html": 2}
    for name, text in p.items():
        n = expected[name]
        assert len(re.findall(r'<div class="chart" id="chart-', text)) == n, name
        assert len(specs(text, report)) == n, name
        assert f'data-charts="{n}"' in text, name


def test_the_overview_holds_the_profiles_with_their_definition(report):
    text = pages(report)["index.html"]
    section = text[text.index('id="profiles-bbob"'):]
    assert "Performance and data profiles, bbob" in section[:400]
    for words in ("f0 - f &gt;= (1 - tau)(f0 - f_L)", "f_L the best", "10^-1 .. 10^-10", "simplex gradients",
                  "kappa = work / (n + 1)", "Dolan and Moré 2002", "Moré and Wild 2009", "OptiProfiler 2.0.0"):
        assert words in section, words
    charts = specs(text, report)
    rows = [r for spec in (charts["performance-profile-bbob"],) for v in spec["datasets"].values()
            for r in table_rows(v)]
    # 12 problems (f1, f15 x 2-D, 5-D x 3 instances), every trial starting at 50 (f0): on f1 A reaches 1e-9 after
    # 10 evaluations (f_L), B 1e-3 after 50, which passes tau = 1e-3 (50 tau >= 1e-3); on f15 A reaches 1 after
    # 10, which does not (f_L = 1e-3 by B after 50): A least work on half the problems, B on the others at 1
    # and on the first half at 50 / 10
    at = {(r["algorithm"], r["ratio"]): r["fraction"] for r in rows if r["tolerance"] == 1e-3}
    assert at == {("A", 1.0): 0.5, ("B", 1.0): 0.5, ("B", 5.0): 1.0}
    at = {(r["algorithm"], r["ratio"]): r["fraction"] for r in rows if r["tolerance"] == 0.1}
    assert at == {("A", 1.0): 1.0, ("B", 5.0): 1.0}  # A's 1 passes f15's test at tau = 0.1


def test_every_page_links_every_page_and_states_the_settings(report):
    p = pages(report)
    for name, text in p.items():
        nav = text[text.index('<nav class="topnav"'):text.index("</nav>")]
        for other in p:
            assert f'href="{other}"' in nav, (name, other)
        banner = text[text.index('id="settings-banner"'):text.index("</header>")]
        for label in ("algorithms:", "reference:", "ECDF targets:", "instances:", "budget cut:", "seed:",
                      "data formats:", "cocopipe:"):
            assert label in banner, (name, label)
        assert "51 targets 100..1e-8" in banner and "1-3" in banner and "bbob-new2 2.8.2" in banner
        assert 'src="static/vega-bundle.js"' in text and 'src="static/report.js"' in text
    for f in ("vega-bundle.js", "report.js", "report.css", "THIRD_PARTY_LICENSES.txt"):
        assert (report / "static" / f).is_file()


def test_ecdf_charts_show_the_fractions_solved(report):
    """The dots of the all-function ECDF: A solves 51 + 11 of 102 (function, target) pairs in every
    trial, B 26 + 26; per function: A 51/51 on f1, 11/51 on f15."""
    over = specs(pages(report)["index.html"], report)
    for d in DIMS:
        got = ends(over[f"ecdf-bbob-{d}-all"])
        assert got == pytest.approx({"A": 62 / 102, "B": 52 / 102}, abs=1e-5)
    per = {k: v for d in DIMS for k, v in specs(pages(report)[f"ecdf-{d}d.html"], report).items()}
    assert ends(per["ecdf-bbob-2-f1"]) == pytest.approx({"A": 1.0, "B": 26 / 51}, abs=1e-5)
    assert ends(per["ecdf-bbob-5-f15"]) == pytest.approx({"A": 11 / 51, "B": 26 / 51}, abs=1e-5)
    assert ends(per["ecdf-bbob-5-multi"]) == ends(per["ecdf-bbob-5-f15"])


def tables_text(p: dict[str, str]) -> str:
    """The text of the tables pages (a page per dimension), one after the other."""
    return "".join(text for name, text in sorted(p.items()) if name.startswith("tables-"))


def test_tables_page_holds_the_art_tables(report):
    p = pages(report)
    # a page per dimension, with its aRT table and its pairwise table
    for d in DIMS:
        one = p[f"tables-{d}d.html"]
        assert len(re.findall(r'<table class="cocopipe-table art"', one)) == 1
        assert len(re.findall(r'<table class="cocopipe-table pairwise"', one)) == 1
        assert f'id="art-bbob-{d}"' in one and f"aRT table and tests, bbob, {d}-D" in one
    text = tables_text(p)
    # A reaches 1e-7 on f1 after 10 evaluations in each trial: aRT 10
    assert "aRT table, bbob, 2-D" in text and "aRT table, bbob, 5-D" in text


def test_settings_json_records_selection_instances_data_and_versions(report):
    s = json.loads((report / "settings.json").read_text())
    assert s["format"] == "cocopipe-report/1"
    assert (s["seed"], s["ecdf_samples"], s["table_samples"], s["mode"], s["max_budget"]) == (1, 100, 50, "simulated", None)
    rec = s["record"]
    assert rec["algorithms"] == ["A", "B"] and rec["reference"] is None
    assert rec["dimensions"] == {"bbob": [2, 5]} and rec["functions"] == {"bbob": [1, 15]}
    assert rec["instances"] == {"bbob/A": [1, 2, 3], "bbob/B": [1, 2, 3]}
    assert len(rec["ecdf_targets"]["bbob"]) == 51 and rec["table_targets"]["bbob"][0] == 10.0
    assert {(d["algorithm"], d["data_format"], d["coco_version"], d["trials"]) for d in rec["data_sets"]} == {
        ("A", "bbob-new2", "2.8.2", 12), ("B", "bbob-new2", "2.8.2", 12)}
    assert all(d["source_id"] for d in rec["data_sets"])
    for k in ("cocopipe", "polars", "altair", "vega (JavaScript)", "vega-lite (JavaScript)", "vega-embed (JavaScript)"):
        assert rec["versions"][k]


def test_rebuilt_from_settings_json_is_identical(report, store, tmp_path):
    again = build(open_store(store), tmp_path / "again", Settings.load(report / "settings.json"), jobs=2).parent
    names = sorted(p.relative_to(report) for p in report.rglob("*") if p.is_file())
    assert names == sorted(p.relative_to(again) for p in again.rglob("*") if p.is_file())
    for n in names:
        assert (report / n).read_bytes() == (again / n).read_bytes(), n


def test_reference_from_the_store(store, tmp_path):
    """B as the reference: not among the compared algorithms, drawn thick and grey, and the aRT
    table divides by its aRT."""
    out = build(open_store(store), tmp_path / "r", Settings(reference="B", table_samples=20), jobs=1).parent
    p = pages(out)
    assert "alg-b.html" not in p and "pairwise.html" not in p
    spec = specs(p["index.html"], out)["ecdf-bbob-2-all"]
    text = json.dumps(spec)
    assert theme.REFERENCE_COLOUR in text and f'"strokeWidth": {theme.REFERENCE_WIDTH}' in text
    assert "ref: B" in tables_text(p)
    assert json.loads((out / "settings.json").read_text())["record"]["reference"] == "B"


def drawn(spec: dict) -> set[str]:
    """The algorithms of an ECDF spec's tables."""
    return {r["algorithm"] for rows in spec.get("datasets", {}).values() for r in table_rows(rows) if "algorithm" in r}


def test_reference_only_where_it_covers_the_problems_and_captions_from_the_data(tmp_path):
    """Issue 44: A has f1 and f15, D f1 alone, the reference C f1 alone. The all-function ECDF counts each
    algorithm's functions (not the largest count as everyone's), and C, lacking f15, is not drawn against them (a
    line over 1 function beside lines over 2 does not compare), which a note says; over f1 alone, C is drawn."""
    root = tmp_path / "data"
    for alg, funcs in {"A": (1, 15), "D": (1,), "C": (1,)}.items():
        for f in funcs:
            write_new2(root / alg, alg=alg, function=f, dim=2, runs=_trials(10 if alg == "A" else 50, 1e-9))
    st = Store(tmp_path / "store", create=True)
    ingest([root / a for a in "ADC"], st)
    out = build(open_store(st.path), tmp_path / "r", Settings(reference="C", table_samples=20), jobs=1).parent
    index = pages(out)["index.html"]
    assert "Functions of bbob in 2-D, each line over its algorithm&#39;s own: A 2, D 1." in index
    assert drawn(specs(index, out)["ecdf-bbob-2-all"]) == {"A", "D"}
    notes = json.loads((out / "settings.json").read_text())["record"]["notes"]
    assert "The reference has no trials on some problems compared, so the ECDFs leave it out in: bbob 2-D (f15)." in notes
    one = build(open_store(st.path), tmp_path / "r1", Settings(reference="C", functions=[1], table_samples=20),
                jobs=1).parent
    index = pages(one)["index.html"]
    assert "1 function of bbob in 2-D." in index
    assert drawn(specs(index, one)["ecdf-bbob-2-all"]) == {"A", "C", "D"}


def test_no_profiles_without_a_problem_every_algorithm_ran(tmp_path):
    """A has f1 alone, B f15 alone: nothing to profile, the overview holds no profiles (and the report is made)."""
    root = tmp_path / "data"
    for alg, f in {"A": 1, "B": 15}.items():
        write_new2(root / alg, alg=alg, function=f, dim=2, runs=_trials(10, 1e-9))
    st = Store(tmp_path / "store", create=True)
    ingest([root / a for a in "AB"], st)
    out = build(open_store(st.path), tmp_path / "r", Settings(reference="none", table_samples=20), jobs=1).parent
    index = pages(out)["index.html"]
    assert 'id="ecdf-all-bbob"' in index and "profiles-bbob" not in index


def test_static_svg_renderer(store, tmp_path):
    out = build(open_store(store), tmp_path / "svg", Settings(reference="none", renderer="svg", table_samples=20,
                                                              dimensions=[2]), jobs=1).parent
    text = pages(out)["index.html"]
    assert "vega-bundle.js" not in text and "<script" not in text
    # the all-function ECDF in 2-D, the performance and the data profiles
    assert len(re.findall(r'<div class="chart rendered" id="chart-[^"]+" role="img" aria-label="[^"]+"><svg', text)) == 3
    assert not (out / "static" / "vega-bundle.js").exists()


def test_selection_errors(store, tmp_path):
    with pytest.raises(SettingsError, match="no algorithm 'C' in the store .*: it holds A, B"):
        build(open_store(store), tmp_path / "x", Settings(algorithms=["A", "C"]))
    with pytest.raises(SettingsError, match="no dimension 3 in the store .*: it holds dimensions 2, 5"):
        build(open_store(store), tmp_path / "x", Settings(dimensions=[3]))
    with pytest.raises(SettingsError, match="reference 'Z'"):
        build(open_store(store), tmp_path / "x", Settings(reference="Z"))
    with pytest.raises(SettingsError, match="mode 'fast'"):
        Settings(mode="fast").check()
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "notes.txt").write_text("mine")
    with pytest.raises(SettingsError, match="holds no report"):
        build(open_store(store), busy, Settings(reference="none"))
    assert (busy / "notes.txt").read_text() == "mine"


def test_settings_files(tmp_path):
    s = Settings(algorithms=["A"], max_budget="100x", seed=7)
    p = tmp_path / "s.json"
    p.write_text(s.to_json())
    assert Settings.load(p) == s
    p.write_text(json.dumps({**s.to_dict(), "colour": "red"}))
    with pytest.raises(SettingsError, match="unknown setting\\(s\\) colour"):
        Settings.load(p)
    p.write_text(json.dumps({**s.to_dict(), "format": "other/9"}))
    with pytest.raises(SettingsError, match="format 'other/9'"):
        Settings.load(p)
    p.write_text("{")
    with pytest.raises(SettingsError, match="not JSON"):
        Settings.load(p)


# -- chart specs --------------------------------------------------------------------------------
def _chart(configured: bool = True):
    import polars as pl

    df = pl.DataFrame({"x": [1.0, 10.0], "y": [0.0, 1.0], "algorithm": ["A", "A"]})
    c = alt.Chart(theme.data(df)).mark_line().encode(x="x:Q", y="y:Q")
    return theme.finish(c, "t", "s", configured)


def test_chart_spec_equals_the_configured_chart():
    """Setting the theme once on the spec gives the spec of the chart configured by the theme."""
    def make(configured: bool = True):
        return _chart(configured)

    assert chart_spec(make, (), {}) == _chart(True).to_dict()


def test_numbered_parameter_names_are_renumbered():
    a = {"params": [{"name": "zoom65", "bind": "scales"}, {"name": "pick"}], "layer": [{"x": "zoom65.x"}]}
    b = {"params": [{"name": "zoom7", "bind": "scales"}, {"name": "pick"}], "layer": [{"x": "zoom7.x"}]}
    assert canonical_names(a) == canonical_names(b) == {
        "params": [{"name": "zoom1", "bind": "scales"}, {"name": "pick"}], "layer": [{"x": "zoom1.x"}]}


def test_script_json_cannot_close_the_script_element():
    text = script_json({"title": "</script><!-- & \u2028"})
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text
    assert json.loads(text) == {"title": "</script><!-- & \u2028"}


# -- command line -------------------------------------------------------------------------------
def test_cli_report_from_a_store_and_from_its_settings(store, tmp_path):
    runner = CliRunner()
    a, b = tmp_path / "a", tmp_path / "b"
    r = runner.invoke(app, ["report", "--store", str(store), "--out", str(a), "--reference", "none",
                            "--dimension", "2", "--samples", "20", "--jobs", "1"])
    assert r.exit_code == 0, r.output
    assert "wrote the report to" in r.output and "\x1b[" not in r.output  # no progress bar in a pipe
    s = json.loads((a / "settings.json").read_text())
    assert (s["dimensions"], s["ecdf_samples"], s["table_samples"], s["sources"]) == ([2], 20, 20, None)
    r = runner.invoke(app, ["report", "--store", str(store), "--settings", str(a / "settings.json"), "--out", str(b)])
    assert r.exit_code == 0, r.output
    assert sorted(pages(a)) == sorted(pages(b))
    assert all((a / n).read_bytes() == (b / n).read_bytes() for n in pages(a))


def test_cli_errors_are_one_line(store, tmp_path):
    runner = CliRunner()
    cases = [
        (["report", "--store", str(tmp_path / "nothing"), "--out", str(tmp_path / "o")], "no such store folder"),
        (["report", str(tmp_path / "missing.tgz"), "--out", str(tmp_path / "o")], "no such file or folder"),
        (["report", "--store", str(store), "--mode", "fast", "--out", str(tmp_path / "o")], "mode 'fast'"),
        (["report", "--store", str(store), "-a", "Q", "--out", str(tmp_path / "o")], "no algorithm 'Q' in the store"),
        (["report", "--settings", str(tmp_path / "none.json"), "--out", str(tmp_path / "o")], "no such settings file"),
    ]
    for args, message in cases:
        r = runner.invoke(app, args)
        assert r.exit_code == 1, (args, r.output)
        assert message in r.output and "Traceback" not in r.output, (args, r.output)


# -- page-level tables and many algorithms ------------------------------------------------------
def chart_tables(text: str) -> dict[str, list[str]]:
    """{chart id: names of the page tables it uses}."""
    return {c: names.split() for c, names in
            re.findall(r'<div class="chart" id="chart-([^"]+)" data-spec="[^"]+" data-datasets="([^"]*)"', text)}


def test_tables_shared_by_charts_are_written_once_per_page(report):
    """On an ECDF page the multi-modal group is f15 alone: its chart and f15's draw the same lines,
    held once in the page's data block and named by both charts."""
    for d in DIMS:
        text = pages(report)[f"ecdf-{d}d.html"]
        used = chart_tables(text)
        shared = set(used[f"ecdf-bbob-{d}-multi"]) & set(used[f"ecdf-bbob-{d}-f15"])
        assert shared, d
        for name in shared:
            assert text.count(f'id="dataset-{name}"') == 1
        # every table a chart names is in the block or (used by other pages too) in data/, the block holds no other
        elsewhere = set(re.findall(r'<script src="data/([^"]+)\.js"></script>', text))
        assert set(page_data(text)) | elsewhere == {n for names in used.values() for n in names}
        assert not set(page_data(text)) & elsewhere
        assert sum(len(v) for v in used.values()) > len(page_data(text)) + len(elsewhere)


def rows(spec: dict) -> set[tuple]:
    """Every row of every table of a spec, as (column, value) pairs (CSV text read as text)."""
    out = set()
    for values in spec.get("datasets", {}).values():
        if isinstance(values, str):
            head, *lines = values.splitlines()
            out |= {tuple(zip(head.split(","), line.split(","))) for line in lines}
        else:
            out |= {tuple((k, str(v)) for k, v in r.items()) for r in values}
    return out


def test_large_tables_are_written_as_csv():
    """A table of many rows becomes CSV text with a format that parses its numbers and booleans back; a
    small one, or one CSV cannot carry exactly (text with nulls, empty text), stays rows."""
    from pipeline.charts import theme

    big = pl.DataFrame({"algorithm": [f"A{i}" for i in range(2000)], "x": [i / 4 for i in range(2000)],
                        "n": list(range(2000)), "ok": [i % 2 == 0 for i in range(2000)], "gap": [None] * 2000})
    chart = alt.layer(theme.Chart(theme.data(big)).mark_line(), theme.Chart(theme.data(pl.DataFrame({"a": [1]}))).mark_point(),
                      theme.Chart(theme.data(pl.DataFrame({"s": [None, "x"] * 2000}))).mark_point(),
                      theme.Chart(theme.data(pl.DataFrame({"s": ["", "x"] * 2000}))).mark_point())
    spec = chart.to_dict(validate=False)
    refs = [layer["data"] for layer in spec["layer"]]
    assert refs[0]["format"] == {"type": "csv", "parse": {"x": "number", "n": "number", "ok": "boolean", "gap": "number"}}
    text = spec["datasets"][refs[0]["name"]]
    assert text.splitlines()[:2] == ["algorithm,x,n,ok,gap", "A0,0.0,0,true,"]
    assert len(text) < len(big.write_json()) / 2
    assert all("format" not in r for r in refs[1:])
    assert spec["datasets"][refs[1]["name"]] == [{"a": 1}]
    assert spec["datasets"][refs[2]["name"]][:2] == [{"s": None}, {"s": "x"}]
    assert spec["datasets"][refs[3]["name"]][:2] == [{"s": ""}, {"s": "x"}]


def test_many_algorithms_are_summarised(store, tmp_path):
    """With more compared algorithms than max_detail (here 2 > 1): the ECDF page is one chart per
    dimension with a function drop-down, no page per algorithm, the tables of the best ranked
    algorithm only, no Glicko-2 ratings, and the rule stated on the pages."""
    out = build(open_store(store), tmp_path / "many", Settings(reference="none", table_samples=20, max_detail=1),
                jobs=1).parent
    p = pages(out)
    assert not [n for n in p if n.startswith("alg-")]
    ecdf = specs(p["ecdf.html"], out)
    assert sorted(ecdf) == [f"ecdf-bbob-{d}" for d in DIMS]
    for d in DIMS:
        params = {q["name"]: q for q in ecdf[f"ecdf-bbob-{d}"]["params"]}
        assert params["dimension_shown"]["value"] == d and "bind" not in params["dimension_shown"]
        assert params["group_shown"]["bind"]["options"][0] == "all" and "f15" in params["group_shown"]["bind"]["options"]
    # the ECDF page's charts hold the rows of the explorer's tables of their dimension: together, each row once
    explorer = specs(p["explore.html"], out)["explore-bbob"]
    by_dim = {d: rows(ecdf[f"ecdf-bbob-{d}"]) for d in DIMS}
    assert by_dim[DIMS[0]] and not by_dim[DIMS[0]] & by_dim[DIMS[1]]
    assert by_dim[DIMS[0]] | by_dim[DIMS[1]] == rows(explorer)
    assert sum(len(v) for v in by_dim.values()) == len(rows(explorer))
    for name in ("index.html", "ecdf.html"):  # with many algorithms one ECDF page, a chart per dimension
        assert "more than max_detail = 1" in p[name]
    ranking = p["ranking.html"]
    ranks = ranking[ranking.index('id="ranks-auc"'):]
    best = re.search(r"<tr><td>all</td><td>1</td><td>([AB])</td>", ranks[:ranks.index("</table>")]).group(1)
    other = ({"A", "B"} - {best}).pop()
    assert "Glicko-2 ratings are left out" in ranking and 'id="ranks-glicko2"' not in ranking
    tables = tables_text(p)
    assert "hold the 1 algorithms of best mean rank" in tables
    art = tables[tables.index('<section id="art-bbob">'):]
    art = art[:art.index("</section>")]
    assert f">{best}<" in art and f">{other}<" not in art
    # the pairwise page: every pair of the best ranked (here the one pair)
    assert json.loads((out / "settings.json").read_text())["record"]["pairs"] == [["A", "B"]]


def test_banner_counts_what_it_cannot_list():
    from pipeline.report.build import banner

    rec = {"algorithms": [f"A{i}" for i in range(10)], "reference": None, "reference_label": None,
           "ecdf_targets": {}, "table_targets": {}, "data_sets": [], "versions": {}, "background": ["X", "Y"],
           "instances": {**{f"bbob/A{i}": [1, 2] for i in range(9)}, "bbob/A9": [3]}}
    b = dict(banner(Settings(), rec))
    assert b["algorithms"] == "10: A0, A1, A2, ..., A9 (all on the settings page)"
    assert b["instances"] == "1-2 (9 data sets); 3 (A9)"
    assert b["background"] == "2 algorithms, thin and grey"
