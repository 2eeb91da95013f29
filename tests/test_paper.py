"""`cocopipe paper`: the files COCO's LaTeX templates read. Cells in cocopp 2.9's format from hand-made numbers,
the templates' layout from a hand-made template, the table numbers against cocopp's (DIRECT, BrentSTEPqi), and
the templates compiled with pdflatex (skipped, saying so, where pdflatex is missing)."""
from __future__ import annotations

import csv
import json
import math
import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import polars as pl
import pytest

from pipeline.paper import figures, layout, macros, placeholder, tables
from tests.conftest import SHARED, shared_or_skip

TEMPLATES = SHARED / "latex-templates"
CHECK = SHARED / "tools" / "latex_check.sh"


# -- numbers and cells ---------------------------------------------------------------------------
@pytest.mark.parametrize("x, text", [(1.0, "1"), (2.63, "2.6"), (0.456, "0.46"), (12.4, "12"), (538.2, "538"),
                                     (123456.0, "1.2e5"), (math.inf, r"$\infty$")])
def test_max_prec_is_cocopps_writefevalsmaxprec(x, text):
    assert tables.max_prec(x) == text


@pytest.mark.parametrize("ratio, text", [(1.0, "0\\%"), (1.12, "+12\\%"), (0.7, "-30\\%"), (2.5, r"\times 2.5"),
                                         (0.25, r"\div 4.0"), (40.0, r"\times 40")])
def test_ratio_tex_is_cocopps_ratio2tex(ratio, text):
    assert tables.ratio_tex(ratio) == text


def _cell(**kw):
    base = dict(value=2.6, art=26.0, ratio=True, p10=None, p90=None, success_rate=1.0, bold=False, marks="",
                median_evaluations=None)
    return tables.Cell(**{**base, **kw})


def test_cell_splits_at_the_point_and_adds_dispersion_success_and_marker():
    assert tables.cell_tex(_cell(), last=False) == "2 & .6"
    assert tables.cell_tex(_cell(value=12.0), last=False) == "12&"
    d = tables.cell_tex(_cell(p10=13.0, p90=52.0), last=False)
    assert d == r"2 & .6$_{\,-50\%\,\,}^{\,\times 2.0}$"
    s = tables.cell_tex(_cell(success_rate=0.4), last=False)
    assert s.startswith(r"$\!\!\!\!{}_{.4}$2 & .6")
    m = tables.cell_tex(_cell(marks="↓3", bold=True), last=False)
    assert m == r"\textbf{2} & .\textbf{6}$^{\downarrow3}$" or m == r"\textbf{2} & .\textbf{6$^{\downarrow3}$}"


def test_unsolved_last_cell_shows_infinity_and_median_budget_and_unsolved_reference_italic():
    c = tables.cell_tex(_cell(value=math.inf, art=math.inf, median_evaluations=2e4), last=True)
    assert c == r"\multicolumn{2}{@{}c|@{}}{$\infty$\textit{2e4}}"
    i = tables.cell_tex(_cell(value=300.0, art=300.0, ratio=False), last=False)
    assert i == r"\multicolumn{2}{@{}c@{}}{\textit{300}}"


def test_header_macros_name_the_targets():
    text = tables.header_macros([10.0, 1e-8])
    assert r"\multicolumn{2}{c}{1e+1}" in text and r"\multicolumn{2}{c}{1e-8}" in text
    assert r"\providecommand{\pptablesheader}{\begin{tabularx}" in text and "*{2}" in text


def test_missing_function_row_says_so():
    row = tables.missing_rows(3, 40, 7)
    assert row.startswith(r"${\bf f_{3}}$ & \multicolumn{16}") and "no data for f3 in 40-D" in row


# -- names and commands --------------------------------------------------------------------------
def test_names_escaped_and_non_latin_noted():
    assert macros.latex_name("CMA_ES 50% & co") == r"CMA\_ES 50\% \& co"
    assert macros.latex_name("Сила") == "U+0421U+0438U+043BU+0430"
    text = macros.commands("bbob", ["A_1", "Сила"], "A-1_x", [1e-8], ["blue circle", "red square"], None, "0.1")
    assert r"\providecommand{\algorithmA}{A\_1}" in text and r"\providecommand{\numofalgs}{2}" in text
    assert "compile with xelatex" in text
    assert r"\providecommand{\algsfolder}{A-1_x/}" in text


def test_captions_name_the_markers_in_plot_order():
    text = macros.commands("bbob", ["Z", "A"], "Z_A", [1e-8], ["blue circle", "red square"], "best2009", "0.1")
    line = next(x for x in text.splitlines() if "bbobECDFslegend" in x)
    assert line.index("Z (blue circle)") < line.index("A (red square)")


def test_more_than_six_algorithms_do_not_trigger_the_templates_manual_split():
    text = macros.commands("bbob", list("ABCDEFGH"), "x", [1e-8], ["m"] * 8, None, "0.1")
    assert r"\algorithmF" in text and r"\algorithmG" not in text and r"\algHtables" in text


# -- layout --------------------------------------------------------------------------------------
TINY = r"""
\input{\bbobdatapath cocopp_commands.tex}
\ifthenelse{\equal{\numofalgs}{1}}{
\includegraphics[width=0.2\textwidth]{ppfigdim_f001} % \includegraphics{commented}
\input{\bbobdatapath\algfolder pptable_f001_05D}
}{} % end of 1 algorithm template
\ifthenelse{\numofalgs > 1}{
\includegraphics{"pprldmany_05D_separ m=0n+1"}
\input{\bbobdatapath\algsfolder pptables_f001_05D}
}{} % end of all that comes for 2 or 3+ algorithms
\includeperfprof{pprldmany_05D_noiselessall}
"""


def test_scan_reads_the_parts_of_one_and_of_several_algorithms():
    lay = layout.scan(TINY)
    assert lay.one == ("pptable_f001_05D", "pprldmany_05D_noiselessall")
    assert lay.many == ("pptables_f001_05D", "pprldmany_05D_noiselessall")
    assert lay.figures_one == ("ppfigdim_f001", "pprldmany_05D_noiselessall")
    assert lay.figures_many == ("pprldmany_05D_separ m=0n+1", "pprldmany_05D_noiselessall")


def test_shipped_manifest_is_the_scan_of_cocos_templates():
    shared_or_skip()
    for name in layout.TEMPLATE_SUITES:
        assert layout.layouts()[name] == layout.scan((TEMPLATES / f"{name}.tex").read_text("utf-8")), name


@pytest.mark.parametrize("name, kind, fs, dim, group", [
    ("ppfigdim_f003", "scaling", (3,), None, None),
    ("pprldmany-single-functions/pprldmany_f024_20D", "ecdf", (24,), 20, None),
    ("pprldmany_05D_noiselessall", "ecdf", None, 5, "all"),
    ("pprldmany_10D_separ m=0n+1", "ecdf", None, 10, "separ m=0n+1"),
    ("pprldmany-single-functions/pprldmany", "ecdf", None, None, "all"),
    ("ppfigcons1_Bent Cigar_d20", "ecdf", (31, 32, 33, 34, 35, 36), 20, None),
    ("pplogloss_20D_nzsev", "logloss", None, 20, "nzsev"),
    ("ppfvdistr_80D_hcond", "precision-ecdf", None, 80, "hcond"),
])
def test_figure_names_read_as_chart_kinds(name, kind, fs, dim, group):
    f = figures.parse(name)
    assert (f.kind, f.function, f.dimension, f.options.get("group")) == (kind, fs, dim, group)


def test_unknown_figure_name_is_an_error_naming_it():
    with pytest.raises(ValueError, match="ppfoo_f001"):
        figures.parse("ppfoo_f001")


def test_placeholder_is_a_one_page_pdf_with_valid_offsets():
    pdf = placeholder.placeholder_pdf("no data for f3 in 40-D (x)")
    assert pdf.startswith(b"%PDF-1.4") and b"(no data for f3 in 40-D \\(x\\))" in pdf
    xref = int(pdf.rsplit(b"startxref\n", 1)[1].split(b"\n")[0])
    assert pdf[xref:xref + 4] == b"xref"
    offsets = [int(x.split()[0]) for x in pdf[xref:].split(b"\n")[3:8]]
    assert [pdf[o:o + 7] for o in offsets] == [b"%d 0 obj" % i for i in range(1, 6)][:5] or all(
        pdf[o:].startswith(b"%d 0 obj" % i) for i, o in enumerate(offsets, 1))


# -- parity of the table numbers with cocopp -----------------------------------------------------
def _oracle(name: str) -> dict:
    with open(SHARED / "oracle" / f"{name}.art.csv", newline="") as fh:
        return {(int(r["function"]), int(r["dimension"]), round(math.log10(float(r["target"])) * 5)): float(r["art"])
                for r in csv.DictReader(fh)}


@pytest.mark.parametrize("name", ["DIRECT_posik_noiseless", "BrentSTEPqi_Posik"])
def test_pptable_cell_numbers_equal_cocopps(name, stores):
    from pipeline.api import Analysis
    from pipeline.hits import targets as tg
    from pipeline.paper.build import _reference
    from pipeline.tables import art_table

    _, ref_art, label = _reference("bbob", "default")
    table = art_table(Analysis(stores[name]).select(dimension=[5, 20]), reference=ref_art, reference_name=label,
                      targets=list(tg.TABLE), samples=10)
    mine = table.filter(table["role"] == "algorithm")
    oracle = _oracle(name)
    assert mine.height > 300
    for r in mine.iter_rows(named=True):
        expect = oracle[(r["function"], r["dimension"], round(math.log10(r["target"]) * 5))]
        assert (math.isinf(expect) and math.isinf(r["art"])) or math.isclose(r["art"], expect, rel_tol=1e-9), r
        cell = tables._cells(mine.filter((mine["function"] == r["function"]) & (mine["dimension"] == r["dimension"])
                                         & (mine["target"] == r["target"])), many=False)[0]
        shown = expect / r["ref_art"] if cell.ratio and math.isfinite(expect) else expect
        assert tables.max_prec(cell.value) == tables.max_prec(shown)


# -- the templates compile -----------------------------------------------------------------------
def _pdflatex_or_skip():
    if shutil.which("pdflatex") and shutil.which("pdfinfo"):
        return
    reason = "pdflatex or pdfinfo missing: install texlive-latex-extra and poppler-utils (see .ci/run)"
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


#: (template, data sets, algorithm names): each case's files made by `cocopipe paper` on the shared data,
#: with few functions drawn (the others' figures say "no data", which is what is tested there too)
CASES = {
    "bbob-1": ("templateBBOBarticle", ["real/DIRECT_posik_noiseless.tgz"], [1, 2]),
    "bbob-2": ("templateBBOBarticle", ["real/DIRECT_posik_noiseless.tgz", "real/BrentSTEPqi_Posik.tgz"], [1, 2]),
    "biobj-1": ("templateBIOBJarticle", ["real/MAT-DIRECT_Al-Dujaili_bbob-biobj.tgz"], [1, 2]),
    "biobj-2": ("templateBIOBJmultiple", ["real/MAT-DIRECT_Al-Dujaili_bbob-biobj.tgz", "real/TPB_Tanabe.tgz"], [1, 2]),
    "noisy": ("templateNOISYarticle", ["generated/RS_on_bbob-noisy.tgz"], [101, 102]),
    "mixint": ("templateMIXINTarticle", ["generated/RS_on_bbob-mixint.tgz"], [1, 2]),
    "largescale": ("templateBBOBLSarticle", ["refalgs/best2019-bbob-largescale.tar.gz"], [1, 2]),
    "constrained": ("templateBBOBconstrained", ["generated/RS_on_bbob-constrained.tgz"], [1, 2]),
    "bbob-4": ("templateBBOBarticle", ["store", "DIRECT", "BrentSTEPqi", "RS", "NM"], [1, 2]),
    "bbob-8": ("templateBBOBarticle", ["store"], [1, 2]),
}
#: four bbob data sets, each also under another name (copies of the archive): eight algorithms
BBOB4 = ["real/DIRECT_posik_noiseless.tgz", "real/BrentSTEPqi_Posik.tgz", "generated/RS_on_bbob.tgz",
         "generated/NM_on_bbob.tgz"]


def _eight(tmp: Path) -> Path:
    """A store of the four bbob data sets and their copies named NAME-copy."""
    store = tmp / "store8"
    for d in BBOB4:
        src = SHARED / "data" / d
        copy = tmp / "copies" / src.name
        copy.parent.mkdir(exist_ok=True)
        shutil.copy(src, copy)
        for path, name in ((src, []), (copy, ["--name", src.name.split("_")[0] + "-copy"])):
            run = subprocess.run(["cocopipe", "ingest", str(path), "--store", str(store), "-q", *name],
                                 capture_output=True, text=True, timeout=600)
            assert run.returncode == 0, run.stderr[-1000:]
    return store


_STORE8: list[Path] = []


def _make(case: str, tmp: Path) -> tuple[str, Path]:
    template, data, functions = CASES[case]
    out = tmp / case
    if data[0] == "store":
        given = ["--store", str(_STORE8[0]), *[x for a in data[1:] for x in ("--algorithm", a)]]
    else:
        given = [str(SHARED / "data" / d) for d in data]
    cmd = ["cocopipe", "paper", *given, "--out", str(out), "--samples", "10",
           *[x for f in functions for x in ("--function", str(f))], "-j", "1"]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stderr[-2000:]
    return template, out


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """Every case made and compiled once, in parallel (two at a time)."""
    shared_or_skip()
    _pdflatex_or_skip()
    tmp = tmp_path_factory.mktemp("paper")
    _STORE8[:] = [_eight(tmp)]

    def one(case: str) -> tuple[str, subprocess.CompletedProcess]:
        template, out = _make(case, tmp)
        env = dict(os.environ, LATEX_CHECK_STRICT="1")
        return case, subprocess.run(["bash", str(CHECK), template, str(out), str(tmp / f"tex-{case}")], env=env,
                                    capture_output=True, text=True, timeout=900)

    with ThreadPoolExecutor(2) as pool:
        return dict(pool.map(one, CASES))


@pytest.mark.parametrize("case", list(CASES))
def test_template_compiles_strictly(case, compiled):
    run = compiled[case]
    assert run.returncode == 0, run.stdout + run.stderr[-3000:]
    assert re.search(r"exit 0, [1-9]\d* pages, 0 missing files, 0 undefined macros, [1-9]\d* figures", run.stdout)


# -- the command ---------------------------------------------------------------------------------
def test_paper_from_its_settings_writes_the_same_tables_and_commands(tmp_path):
    """settings.json beside the files: `--settings` makes the same tables and commands, byte for byte, and the
    figures of functions the data lack say so."""
    from pipeline.paper.build import folder_name

    src = Path(__file__).resolve().parent.parent / "data" / "sample" / "NM_on_bbob.tgz"
    a, b = tmp_path / "a", tmp_path / "b"
    first = subprocess.run(["cocopipe", "paper", str(src), "--function", "1", "--dimension", "5", "--out", str(a),
                            "--samples", "20"], capture_output=True, text=True, timeout=900)
    assert first.returncode == 0, first.stderr[-2000:]
    assert "ppfigdim_f002: no data for f2" in first.stderr
    again = subprocess.run(["cocopipe", "paper", "--settings", str(a / "settings.json"), "--out", str(b)],
                           capture_output=True, text=True, timeout=900)
    assert again.returncode == 0, again.stderr[-2000:]
    texs = sorted(p.relative_to(a) for p in a.rglob("*.tex"))
    assert len(texs) == 51 and (a / folder_name(["NM"]) / "pptable_f001_05D.tex").exists()
    assert all((a / t).read_bytes() == (b / t).read_bytes() for t in texs)
    assert "no data for f2 in 5-D" in (a / folder_name(["NM"]) / "pptable_f002_05D.tex").read_text()
    record = json.loads((a / "settings.json").read_text())
    assert record["functions"] == [1] and record["record"]["algorithms"] == ["NM"]


def test_paper_refuses_a_folder_it_did_not_write(tmp_path):
    (tmp_path / "mine.txt").write_text("keep")
    run = subprocess.run(["cocopipe", "paper", "--store", str(tmp_path / "none"), "--out", str(tmp_path)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 1 and "was not written by cocopipe paper" in run.stderr
    assert (tmp_path / "mine.txt").exists()


def test_success_rate_goes_inside_a_multicolumn():
    c = tables.cell_tex(_cell(value=300.0, art=300.0, ratio=False, success_rate=0.4), last=False)
    assert c == r"\multicolumn{2}{@{}c@{}}{$\!\!\!\!{}_{.4}$\textit{300}}"


def test_scatter_puts_the_first_algorithm_on_x_as_its_caption_says():
    """The caption names the second algorithm on the y-axis and the first on the x-axis: the chart agrees."""
    asked = figures.chart_options(figures.parse("ppscatter_f001"), None, {"Zeta": ("#000000", "circle"),
                                                                         "Alpha": ("#0072B2", "square")})
    assert (asked["a_name"], asked["b_name"]) == ("Zeta", "Alpha")
    text = macros.commands("bbob", ["Zeta", "Alpha"], "x", [1e-8], ["a", "b"], None, "0.1")
    assert "Alpha (y-axis) versus Zeta (x-axis)" in text


@pytest.mark.parametrize("x, text", [(538, "538"), (20000, "2e4"), (100000, "1e5"), (150000, "2e5"), (1234, "1e3")])
def test_budget_after_infinity_is_cocopps_writefevals2(x, text):
    assert tables.evals_short(x) == text


def test_worse_runs_than_the_reference_as_a_subscript_arrow():
    c = tables.cell_tex(_cell(marks="★", worse=0), last=False)
    assert c == r"2 & .6$^{\star}_{\,\,\uparrow0\,}$"
    assert tables.cell_tex(_cell(worse=2), last=False) == r"2 & .6$_{\,\,\uparrow2\,}$"


def test_worse_runs_counted_as_cocopp(tmp_path):
    """Four trials hit at 10, 20, 30 and 60 evaluations; the reference's aRT 40 > the aRT: 3 better, so not shown
    (3 <= 0.9 * 4); with the reference at 70 all four are better: 0 worse."""
    import polars as pl

    from pipeline.paper.build import with_worse_runs

    class Hits:
        def hits(self, targets):
            return pl.LazyFrame({"algorithm": ["A"] * 4, "function": [1] * 4, "dimension": [5] * 4,
                                 "target": [1e-8] * 4, "hit": [10.0, 20.0, 30.0, 60.0]})

    table = pl.DataFrame({"role": ["algorithm"] * 2, "algorithm": ["A"] * 2, "function": [1, 1], "dimension": [5, 5],
                          "target": [1e-8, 1e-8], "art": [30.0, 30.0], "ref_art": [40.0, 70.0]})
    got = with_worse_runs(table[:1], Hits(), [1e-8])["worse_ref"].to_list()
    assert got == [None]
    assert with_worse_runs(table[1:], Hits(), [1e-8])["worse_ref"].to_list() == [0]


def test_beyond_six_algorithms_the_tables_shrink_to_fit_a_page():
    assert tables.table_font(6) == ""
    font = tables.table_font(8)
    lead = float(re.search(r"\\fontsize\{[\d.]+\}\{([\d.]+)\}", font)[1])
    # twelve functions of 8 rows and 2 of the reference (parts of at most six), and the header: at most 500 pt
    assert (12 * (8 + 2) + 1) * lead <= 500 < (12 * (8 + 2) + 1) * (lead + 0.01)
    assert font in tables.header_macros([1e-8], 8) and font not in tables.header_macros([1e-8], 6)


def test_loss_table_cells_by_hand():
    from pipeline.paper import losstable as lt
    # A reaches 10 in f1 at 4 and 1 at 40 evaluations, 10 in f2 at 6 (never 1); the reference R twice as fast
    # on f1, at 3 and 30 on f2; in 2-D the budgets are 2 and 10 evaluations / dimension (40 / 2 < 100).
    art = pl.DataFrame({"suite": "bbob", "algorithm": "A", "function": [1, 1, 2, 2], "dimension": 2,
                        "target": [10.0, 1.0, 10.0, 1.0], "art": [4.0, 40.0, 6.0, math.inf]})
    ref = art.with_columns(algorithm=pl.lit("R"), art=pl.Series([2.0, 8.0, 3.0, 30.0]))
    runs = pl.DataFrame({"algorithm": "A", "function": [1, 2], "dimension": 2, "evaluations": [50, 100],
                         "final_delta": [1e-9, 0.5]})
    rows = lt.table_tex(art, ref, runs, "A", "R", 2).splitlines()
    assert "in 2-D}, maxFE/D=50}" in rows[1] and rows[2].startswith(r"\#FEs/D & best & 10\% & 25\% & \textbf{med}")
    # budget 4 evaluations: f1 only (4 / 2); budget 20: f1 10 (the reference reached 1 within 20: 20 / 2), f2 6 / 3
    two = r"\hspace*{1ex}2.0"
    assert rows[3] == " & ".join(["2", *[two] * 6]) + r"\\"
    assert rows[4] == " & ".join(["10", two, two, two, r"\hspace*{1ex}6.0", "10", "10"]) + r"\\"
    assert rows[5] == " & ".join([r"$\text{RL}_{\text{US}}$/D", *["50"] * 6])  # f2's 100 evaluations / 2
    assert rows[0] == r"\begin{tabular}{c|llllll}" and rows[-1] == r"\end{tabular}"
    assert "no reference algorithm" in lt.table_tex(art, None, runs, "A", "R", 2)
    assert "no data in 5-D" in lt.table_tex(art, ref, runs, "A", "R", 5)


@pytest.mark.parametrize(("values", "expected"), [([2, 10], [2, 2, 2, 6, 10, 10]), ([], [math.nan] * 6),
                                                  ([1, 2, 3, 4], [1, 1, 1.5, 2.5, 3.5, 4])])
def test_loss_table_percentiles_are_cocopps_prctile(values, expected):
    from pipeline.paper.losstable import prctile
    assert prctile(values) == pytest.approx(expected, nan_ok=True)


@pytest.mark.parametrize(("j", "text"), [(0.0, r"~\,0"), (0.874, r"~\,0.87"), (1.04, r"\hspace*{1ex}1.0"),
                                         (13.4, "13"), (254.0, "2.5e2"), (1100.0, "1.1e3")])
def test_loss_ratio_cell_is_cocopps_format(j, text):
    from pipeline.paper.losstable import ratio_cell
    assert ratio_cell(j) == text


def test_perfprof_legend_names_the_algorithms_in_the_figures_order():
    # the figure ends with B on top, then the reference, then A: the side panel lists them so; letters follow
    # the command line's order, as the captions
    tex = macros.perfprof_legend(["alg_one", "B"], ["B", "best2009", "alg_one"], "best2009",
                                 ["blue circle", "red square"])
    assert tex.startswith(r"\providecommand{\nperfprof}{7}")
    assert r"\providecommand{\algAperfprof}{\StrLeft{alg one}{\nperfprof}}" in tex
    assert r"\providecommand{\algBperfprof}{\StrLeft{B}{\nperfprof}}" in tex
    assert r"\providecommand{\algAperfprofmarker}{blue circle}" in tex
    assert r"\providecommand{\algzeroperfprof}{best2009}" in tex
    assert tex.endswith(r"\providecommand{\perfprofsidepanel}{{\mbox{\algBperfprof}" "\n"
                        r"\vfill \mbox{\algzeroperfprof}" "\n" r"\vfill \mbox{\algAperfprof}}}" "\n")


def test_colour_order_is_the_first_colour_scales_domain():
    spec = {"layer": [{"mark": "line"}, {"encoding": {"x": {"field": "x"},
                                                       "color": {"scale": {"domain": ["B", "A"]}}}},
                      {"encoding": {"color": {"scale": {"domain": ["A", "B"]}}}}]}
    assert figures.colour_order(spec) == ["B", "A"]
    assert figures.colour_order({"mark": "text"}) == []


def test_more_than_six_algorithms_split_into_parts_each_led_by_the_reference():
    algs = [f"a{i}" for i in range(8)]
    base = {"function": 1, "dimension": 5, "target": 1e-8, "art": 20.0, "value": 2.0, "value_kind": "ratio",
            "p10": 10.0, "p90": 30.0, "successes": 15, "runs": 15, "best_marker": None, "ref_marker": None,
            "best": False, "median_evaluations": None, "worse_ref": None, "succ": 15, "succ_trials": 15}
    rows = [{**base, "role": "reference", "algorithm": "ref", "art": 10.0, "value": 10.0}]
    rows += [{**base, "role": "algorithm", "algorithm": a} for a in algs]
    text = tables.function_rows(pl.DataFrame(rows), 1, 5, algs, algs, 1, many=True)
    parts = text.split("\\hline\\hline\n")
    assert len(parts) == 2  # 6 + 2 algorithms, each part with the reference's row first
    assert [p.count("\\hspace*{\\fill}") for p in parts] == [6, 2]
    assert all(p.startswith("${\\bf f_{1}}$ & \\multicolumn{2}{@{}c|@{}}{10}") for p in parts)
    few = tables.function_rows(pl.DataFrame(rows[:7]), 1, 5, algs[:6], algs[:6], 1, many=True)
    assert "\\hline\\hline" not in few and few.count("{10}") == 1


# -- the figures' data computed once and sliced per figure ---------------------------------------
@pytest.fixture(scope="module")
def two_store(tmp_path_factory):
    """DIRECT and BrentSTEPqi in one store."""
    from pipeline.ingest import ingest
    from pipeline.store import Store

    shared_or_skip()
    st = Store(tmp_path_factory.mktemp("two"), create=True)
    ingest([SHARED / "data" / "real" / "DIRECT_posik_noiseless.tgz", SHARED / "data" / "real" / "BrentSTEPqi_Posik.tgz"],
           st)
    return st


def _same_drawing(before, after, name):
    from polars.testing import assert_frame_equal

    if isinstance(before, ValueError) or isinstance(after, ValueError):
        assert str(before) == str(after), name
        return
    assert sorted(before) == sorted(after), name
    for k, v in before.items():
        if isinstance(v, pl.DataFrame):
            assert_frame_equal(v, after[k], check_exact=True), (name, k)
        else:
            assert v == after[k], (name, k)


@pytest.mark.parametrize("algorithms, reference", [(["DIRECT", "BrentSTEPqi"], "default"),
                                                   (["DIRECT"], "default"), (["BrentSTEPqi", "DIRECT"], None),
                                                   (["DIRECT"], None)])
def test_batched_figure_data_equal_each_figures_own_recipe(two_store, algorithms, reference):
    """Every figure's chart data (the frames, names and texts its chart function draws) computed for all
    figures at once (`batch.drawings`) equal those of the figure's own recipe on its narrowed selection: the
    ECDFs' simulated restarts drawn the same."""
    from pipeline.api import Analysis
    from pipeline.charts import theme
    from pipeline.paper import batch
    from pipeline.reference_sets import DEFAULT_FOR_SUITE

    ana = Analysis(two_store).select(suite="bbob", algorithm=algorithms, function=[1, 2, 7, 15, 24])
    ref = DEFAULT_FOR_SUITE["bbob"] if reference else None
    pal = theme.palette(algorithms, None)
    problems = ana.runs().select("function", "dimension").unique().collect()
    figs = [figures.parse(n) for n in layout.needed("bbob", len(algorithms))[1]]
    figs = [f for f in figs if not figures.covers(f, problems, len(algorithms))]
    after = batch.drawings(ana, figs, ref, pal)
    assert {f.name for f in figs if f.kind in ("ecdf", "scaling")} == set(after) and len(after) > 12
    assert any(isinstance(v, ValueError) for v in after.values())  # hcond: none of the functions
    for f in figs:
        if f.name not in after:
            continue
        try:
            before = figures.drawing(f, ana, ref, pal)
        except ValueError as exc:
            before = exc
        _same_drawing(before, after[f.name], f.name)


def test_pdf_workers_draw_charts_and_report_vl_converts_errors():
    from pipeline.charts.export import vegalite_version
    from pipeline.paper.pdf import Renderer

    spec = {"data": {"values": [{"x": 1}, {"x": 2}]}, "mark": "point",
            "encoding": {"x": {"field": "x", "type": "quantitative"}}}
    with Renderer(1, vegalite_version()) as r:
        assert r.pdf(spec).startswith(b"%PDF")
        with pytest.raises(ValueError, match="vl-convert"):
            r.pdf({"mark": "no-such-mark"})
        assert r.pdf(spec).startswith(b"%PDF")  # the worker goes on after an error


def test_reference_succ_is_cocopps(stores):
    """The reference's #succ (first row of each pptable): the successes and trials best2009's records hold at
    1e-8, as cocopp 2.9 writes them, in 5-D and 20-D (tests/fixtures/paper/make_oracle.py)."""
    from pipeline.api import Analysis
    from pipeline.hits import targets as tg
    from pipeline.paper.build import _reference, with_reference_successes
    from pipeline.tables import art_table

    name, ref_art, label = _reference("bbob", "default")
    table = art_table(Analysis(stores["DIRECT_posik_noiseless"]), reference=ref_art, reference_name=label,
                      targets=list(tg.TABLE), samples=10)
    table = with_reference_successes(table, name, "bbob")
    with open(Path(__file__).parent / "fixtures" / "paper" / "ref_succ_cocopp.csv", newline="") as fh:
        oracle = {(int(r["function"]), int(r["dimension"])): (int(r["succ"]), int(r["trials"]))
                  for r in csv.DictReader(fh)}
    assert len(oracle) == 48 and {(3, 15), (9, 15), (15, 15)} <= set(oracle.values())
    for f, d in oracle:
        row = tables._reference_row("x", table.filter((pl.col("function") == f) & (pl.col("dimension") == d)
                                                      & (pl.col("role") == "reference")), 7)
        assert row.endswith(f" & {oracle[f, d][0]} & /{oracle[f, d][1]}\\\\"), (f, d, row[-30:])


def test_loss_ratios_are_cocopps_at_every_budget(stores):
    """pploglosstable's numbers: the loss ratio of every function at every budget of the table equals cocopp
    2.9.1's `pplogloss.generateData` (tests/fixtures/paper/make_oracle.py), on cocopp's targets (above 100 too:
    at 2 evaluations / dimension many functions reach none of the standard 51)."""
    from pipeline.api import Analysis
    from pipeline.measures.logloss import function_ratios
    from pipeline.paper import losstable
    from pipeline.paper.build import loss_targets
    from pipeline.reference_sets import DEFAULT_FOR_SUITE
    from pipeline.selection import open_reference

    with open(Path(__file__).parent / "fixtures" / "paper" / "logloss_cocopp.csv", newline="") as fh:
        oracle = {(int(r["dimension"]), float(r["x"]), int(r["function"])): float(r["loss"]) for r in csv.DictReader(fh)}
    ref_name = DEFAULT_FOR_SUITE["bbob"]
    for d in (5, 20):
        a = Analysis(stores["DIRECT_posik_noiseless"]).select(dimension=d)
        grid = loss_targets(Analysis(stores["DIRECT_posik_noiseless"]), "bbob", d)
        own, ref = a.art(grid).collect(), Analysis(open_reference(ref_name, "bbob")).art(grid).collect()
        xs = losstable.budgets(own, d)
        assert xs == sorted(x for (dd, x, _) in oracle if dd == d and _ == 1)
        ref = ref.filter(pl.col("dimension") == d).with_columns(algorithm=pl.lit(ref_name))
        both = pl.concat([own.select(ref.columns), ref.cast(own.select(ref.columns).schema)])
        mine = {(d, r["x"], r["function"]): r["loss"] for r in function_ratios(both.lazy(), ref_name, xs).collect()
                .iter_rows(named=True)}
        want = {k: v for k, v in oracle.items() if k[0] == d}
        assert set(mine) == set(want)
        bad = [(k, mine[k], v) for k, v in want.items() if not math.isclose(mine[k], v, rel_tol=1e-9)]
        assert not bad, bad[:10]


def test_a_pdf_worker_that_ends_is_a_clear_error():
    from pipeline.charts.export import vegalite_version
    from pipeline.paper.pdf import Renderer

    with Renderer(1, vegalite_version()) as r:
        r._workers[0].kill()
        r._workers[0].wait()
        with pytest.raises(ValueError, match=r"PDF worker \(process \d+, python -m pipeline.paper.pdf\) ended"):
            r.pdf({"mark": "point"})
