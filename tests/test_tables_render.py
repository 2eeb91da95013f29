"""Renderings of the aRT and pairwise tables (Markdown, HTML, LaTeX) and `cocopipe table`."""
from __future__ import annotations

import html.parser
import re
import shutil
import subprocess

import polars as pl
import pytest
from typer.testing import CliRunner

from conftest import shared_or_skip
from pipeline.api import Analysis
from pipeline.cli import app
from pipeline.hits import targets as tg
from pipeline.tables import art_table, fmt_num, fmt_sci, fmt_target, pairwise_table, to_html, to_latex, to_markdown
from test_tables import FAST, SLOW, build, failure, success


@pytest.fixture(scope="module")
def tables():
    spec = {}
    for f in (1, 2):
        spec[("fast", f)] = [success(h) for h in FAST]
        spec[("slow_alg", f)] = [success(h) for h in SLOW]
        spec[("ref", f)] = [success(h + 100) for h in FAST[:5]] + [failure(0.5, 3000)]
    a = Analysis(build(spec))
    return dict(art=art_table(a, reference="ref", targets=[1.0, 1e-2]),
                absolute=art_table(a, targets=[1.0, 1e-2], correction="holm"),
                pairwise=pairwise_table(a, targets=[1.0, 1e-2]))


def test_number_format():
    assert [fmt_num(x) for x in (1.0, 0.3456, 1.234, 12.34, 123.4, 9999.0, 12345.0, 0.001234, float("inf"))] == [
        "1.0", "0.35", "1.2", "12", "123", "9999", "1.2e4", "1.2e-3", "∞"]
    assert fmt_sci(2.1e-3) == "2.1e-3" and fmt_sci(1e5) == "1.0e5" and fmt_sci(-1.2e-5) == "-1.2e-5"


def test_numbers_near_one_show_the_same_digits():
    """One rule: two significant digits, whatever the value (cocopp wrote 1, 1.0 and 1.00 side by side)."""
    assert [fmt_num(x) for x in (1.0, 1.04, 0.996, 0.95, 0.9, 9.96, 2.0, 0.0996, 9999.7)] == [
        "1.0", "1.0", "1.0", "0.95", "0.90", "10", "2.0", "0.10", "1.0e4"]
    assert [fmt_target(t) for t in tg.TABLE] == ["1e+1", "1e+0", "1e-1", "1e-2", "1e-3", "1e-5", "1e-7"]


CAPTION_WORDS = ["rank-sum", "Mann-Whitney", "two-sided", "FE_umin", "Bonferroni", "N = 2", "10th and 90th",
                 "#succ", "median final precision"]


def test_markdown(tables):
    md = to_markdown(tables["art"])
    plain = md.replace("\\", "")
    for w in CAPTION_WORDS + ["reference ref", "★", "↓"]:
        assert w in plain, w
    lines = [ln for ln in md.splitlines() if ln.startswith("|")]
    assert len({len(re.findall(r"(?<!\\)\|", ln)) for ln in lines}) == 1  # same number of cells in every line
    fast = next(ln for ln in lines if "| fast |" in ln)
    # fast / ref at 1.0: aRT 17 / (mean of 5 hits + 3000) * 5 ... as in the long frame, in bold with a star and an arrow
    r = tables["art"].filter(pl.col("algorithm") == "fast", pl.col("function") == 1, pl.col("target") == 1.0).row(0, named=True)
    assert f"**{fmt_num(r['value'])}**" in fast and r["best_marker"] in fast and r["ref_marker"] in fast
    assert f"[{fmt_num(r['disp_lo'])}, {fmt_num(r['disp_hi'])}\\]" in fast and "15/15" in fast
    assert "*ref: ref*" in md


def test_markdown_without_reference_and_holm(tables):
    md = to_markdown(tables["absolute"]).replace("\\", "")
    assert "divided by the aRT" not in md and "Average runtime" in md and "★" in md
    assert "Holm-corrected (step-down) over the N = 2 functions" in md and "Bonferroni" not in md


class _Checker(html.parser.HTMLParser):
    VOID = {"br", "hr", "img", "meta", "link", "input"}

    def __init__(self):
        super().__init__()
        self.stack, self.errors, self.tables = [], [], 0

    def handle_starttag(self, tag, attrs):
        if tag not in self.VOID:
            self.stack.append(tag)
        self.tables += tag == "table"

    def handle_endtag(self, tag):
        if not self.stack or self.stack.pop() != tag:
            self.errors.append(tag)


def test_html(tables):
    h = to_html(tables["art"])
    c = _Checker()
    c.feed(h)
    assert not c.errors and not c.stack and c.tables == 1
    assert "<caption>" in h and "rank-sum" in h and "Bonferroni" in h and "<b>" in h and "<sup>" in h
    assert h.count("<tr") == 1 + 2 * 3  # header + (reference + 2 algorithms) per function


def _tex_structure(tex: str, ncols: int, names: str = ""):
    """Balanced braces, one row per line, the table's symbols in math; no character outside ASCII but
    those of the algorithms' `names`."""
    assert set(ch for ch in tex if not ch.isascii()) <= set(names), [ch for ch in tex if not ch.isascii()][:5]
    assert tex.count(r"\begin{longtable}") == tex.count(r"\end{longtable}") >= 1
    for rule in (r"\toprule", r"\bottomrule"):
        assert tex.count(rule) == tex.count(r"\begin{longtable}")
    depth = 0
    for ch in re.sub(r"\\[{}]", "", tex):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        assert depth >= 0
    assert depth == 0
    body = tex.split(r"\endhead")[1].split(r"\bottomrule")[0]
    rows = [ln for ln in body.splitlines() if ln.endswith(r"\\")]
    assert rows and all(len(re.findall(r"(?<!\\)&", ln)) == ncols - 1 for ln in rows)
    assert r"\caption{" in tex and "rank-sum" in tex


def test_latex(tables, tmp_path):
    tex = to_latex(tables["art"])
    _tex_structure(tex, 2 + 2 + 1)
    assert r"$\star$" in tex or r"\star" in tex
    assert r"\textbf{" in tex and r"slow\_alg" in tex and r"\#succ" in tex
    doc = to_latex(tables["art"], standalone=True)
    assert doc.startswith(r"\documentclass") and r"\usepackage{booktabs}" in doc and doc.rstrip().endswith(r"\end{document}")
    if shutil.which("pdflatex"):
        (tmp_path / "t.tex").write_text(doc)
        r = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "t.tex"], cwd=tmp_path,
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stdout[-2000:]
        assert (tmp_path / "t.pdf").exists()


def test_latex_keeps_unicode_names():
    """Names in any script reach the LaTeX as they are (UTF-8), not as '?'."""
    names = ["αβγ-ES", "Müller_CMA", "进化"]
    spec = {(n, f): [success(h + 7 * i) for h in FAST] for i, n in enumerate(names) for f in (1, 2)}
    a = Analysis(build(spec))
    for df in (art_table(a, reference=names[0], targets=[1.0, 1e-2]), pairwise_table(a, targets=[1.0, 1e-2])):
        tex = to_latex(df, standalone=True)
        assert "?" not in tex
        assert "αβγ-ES" in tex and r"Müller\_CMA" in tex and "进化" in tex
        _tex_structure(tex, 2 + 2 + 1 if "algorithm_a" not in df.columns else 10, names="".join(names))


def test_pairwise_renderings(tables):
    pw = tables["pairwise"]
    md = to_markdown(pw).replace("\\", "")
    assert "Pairwise" in md and f"m = {pw['tests'][0]}" in md and "Bonferroni" in md
    assert "tests of a family, the functions of a dimension, per pair of algorithms and target" in md
    h = to_html(pw)
    c = _Checker()
    c.feed(h)
    assert not c.errors and c.tables == 1
    _tex_structure(to_latex(pw), 10)


# -- the command line, on real data -------------------------------------------------------------
@pytest.fixture(scope="module")
def store(tmp_path_factory):
    shared = shared_or_skip()
    path = tmp_path_factory.mktemp("tables-store")
    res = CliRunner().invoke(app, ["ingest", str(shared / "data/real/DIRECT_posik_noiseless.tgz"),
                                   str(shared / "data/generated/NM_on_bbob.tgz"), "--store", str(path)])
    assert res.exit_code == 0, res.output
    return path


def test_real_data_numbers_equal_the_measures(store):
    from pipeline.api import open_store

    a = open_store(store, dimension=[5], function=[1, 7, 20])
    df = art_table(a, reference="DIRECT")
    m = a.art("table", dispersion=True).collect()
    j = df.join(m, on=["suite", "algorithm", "function", "dimension", "target"], suffix="_m")
    assert j.height == m.height == 2 * 3 * 7
    for c in ("art", "successes", "trials", "p10", "p90"):
        assert j[c].to_list() == j[f"{c}_m"].to_list(), c
    nm = j.filter(pl.col("algorithm") == "NM")
    ref = m.filter(pl.col("algorithm") == "DIRECT").select("function", "target", ref=pl.col("art"))
    chk = nm.join(ref, on=["function", "target"])
    assert chk["ref_art"].to_list() == chk["ref"].to_list()


@pytest.mark.parametrize("fmt", ["md", "html", "tex", "csv", "parquet"])
def test_cli_formats(store, tmp_path, fmt):
    out = tmp_path / f"t.{fmt}"
    res = CliRunner().invoke(app, ["table", "--store", str(store), "-d", "2", "-f", "1", "-f", "2", "--reference",
                                   "DIRECT", "--format", fmt, "--out", str(out), "--samples", "100"])
    assert res.exit_code == 0, res.output
    if fmt == "parquet":
        df = pl.read_parquet(out)
        assert set(df["algorithm"]) == {"DIRECT", "NM"} and (df["reference"] == "DIRECT").all()
    elif fmt == "csv":
        assert pl.read_csv(out).height == 2 * 2 * 7
    else:
        text = out.read_text()
        assert "rank-sum" in text and "Bonferroni" in text


@pytest.mark.parametrize("fmt", ["csv", "html", "md"])
def test_cli_pairwise(store, fmt):
    res = CliRunner().invoke(app, ["table", "--store", str(store), "-d", "3", "-f", "5", "--pairwise", "--format", fmt,
                                   "--correction", "holm"])
    assert res.exit_code == 0, res.output
    assert ("p_corrected" if fmt == "csv" else "Holm") in res.stdout


def test_cli_errors(store):
    r = CliRunner().invoke(app, ["table", "--store", str(store), "--reference", "nope"])
    assert r.exit_code == 1 and "not an algorithm" in r.output
    r = CliRunner().invoke(app, ["table", "--store", str(store), "--absolute", "--reference", "NM"])
    assert r.exit_code == 1
    r = CliRunner().invoke(app, ["table", "--store", str(store), "--format", "parquet"])
    assert r.exit_code == 1 and "--out" in r.output


#: z of cocopp 2.9.1's toolsstats.significancetest(DIRECT, NM, [target]) (dimension, function, target, z):
#: trials with and without success, all unsuccessful (precisions at FE_umin), all successful
COCOPP_Z = [(2, 16, 1e-2, 2.9241197291622982), (5, 24, 1.0, 3.273268353539886), (2, 6, 1e-3, -3.273268353539886),
            (2, 22, 1e-5, -0.3927922024247863), (5, 17, 1e-7, 3.273268353539886), (20, 13, 1e-5, 3.273268353539886),
            (5, 9, 1.0, -0.3927922024247863), (5, 13, 10.0, 1.9639610121239315)]


def test_test_data_rank_like_cocopp(store):
    """Our score vectors rank exactly as cocopp's: its z (normal approximation) from our vectors equals its own."""
    import numpy as np
    from scipy.stats import rankdata

    from pipeline.api import open_store
    from pipeline.measures import significance
    from tables_reference import Trajectories, trial_groups

    a = open_store(store, dimension=[2, 5, 20], function=sorted({f for _, f, _, _ in COCOPP_Z}))
    want = {(d, f, t): z for d, f, t, z in COCOPP_Z}
    tf = pl.DataFrame({"suite": ["bbob"] * len(tg.TABLE), "target": list(tg.TABLE)})
    traj = Trajectories(a.events())
    seen = 0
    for (_, d, f, t), g in trial_groups(a.hits(tf.lazy()).collect()):
        if (d, f, t) not in want:
            continue
        x, y = g["DIRECT"], g["NM"]
        vx, vy, _ = significance.test_data(x.hit, x.evals, x.prec(traj), y.hit, y.evals, y.prec(traj))
        n1, n2 = len(vx), len(vy)
        s = rankdata(np.r_[vx, vy])[:n1].sum()
        z = (s - n1 * (n1 + n2 + 1) / 2) / np.sqrt(n1 * n2 * (n1 + n2 + 1) / 12)
        assert z == pytest.approx(want[(d, f, t)], rel=1e-9), (d, f, t)
        seen += 1
    assert seen == len(COCOPP_Z)


@pytest.mark.parametrize("correction", ["bonferroni", "holm"])
def test_every_caption_names_the_test_and_the_correction(correction):
    spec = {}
    for f in (1, 2):
        spec[("fast", f)] = [success(h) for h in FAST]
        spec[("slow_alg", f)] = [success(h) for h in SLOW]
    from test_tables import FrameStore

    stores = [build(spec, dim=d) for d in (2, 3)]  # two dimensions: two tables, two captions
    runs, events = ([t.with_columns(run_id=pl.col("run_id") + 1000 * i).to_dicts() for i, t in enumerate(tables)]
                    for tables in ([s._runs for s in stores], [s._events for s in stores]))
    a = Analysis(FrameStore(runs[0] + runs[1], events[0] + events[1]))
    frames = [art_table(a, targets=[1.0], correction=correction),
              art_table(a, reference="slow_alg", targets=[1.0], correction=correction),
              pairwise_table(a, targets=[1.0], correction=correction),
              pairwise_table(a, targets=[1.0], correction=correction, family=("suite", "dimension", "target"))]
    name = "Holm" if correction == "holm" else "Bonferroni"
    for df in frames:
        md = to_markdown(df).replace("\\", "")
        captions = [ln for ln in md.splitlines() if "rank-sum" in ln]
        assert len(captions) == 2  # one table per dimension, each with its caption
        assert all("Mann-Whitney" in c and "two-sided" in c and name in c for c in captions)
        h = to_html(df)
        assert h.count("<caption>") == 2 and h.count("Mann-Whitney") == 2 and h.count(name) >= 2
        tex = to_latex(df)
        assert tex.count(r"\caption{") == 2 and tex.count("Mann-Whitney") == 2 and tex.count(name) >= 2
