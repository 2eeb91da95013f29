"""Markdown, HTML and LaTeX (booktabs) renderings of the aRT and pairwise tables, with captions
that state the measure, the test, the data tested and the multiple-testing correction.

Every renderer takes the long frame of `art_table` or `pairwise_table` and makes one table per
(suite, dimension).
"""
from __future__ import annotations

import html
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from markupsafe import escape
import polars as pl


# -- numbers ------------------------------------------------------------------------------------


def fmt_num(x: float | None, sig: int = 2, maxfloat: float = 1e4) -> str:
    """A number of a table by one rule, cocopp's significant digits (pptables: 2): `sig` significant
    digits (1.0, 0.90, 2.5, 15), every digit of a larger integer part (538, 1080); from `maxfloat`
    on, and below 0.01, scientific (1.2e4, 3.5e-3); inf is ∞. Unlike cocopp's writeFEvalsMaxPrec, an
    exact 1 is "1.0" and 0.996 is "1.0" (there "1" and "1.00"): the digits never depend on the value."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    x = float(x)
    if math.isinf(x):
        return "∞" if x > 0 else "-∞"
    if x == 0:
        return "0"
    r = float(f"{x:.{sig - 1}e}")  # rounded to sig digits first: 0.996 -> 1.0, 9.96 -> 10
    if 0.01 <= abs(r) and abs(round(x)) < maxfloat:
        return f"{x:.{max(sig - 1 - math.floor(math.log10(abs(r))), 0)}f}"
    return fmt_sci(x, sig)


def fmt_sci(x: float | None, sig: int = 2) -> str:
    """Scientific notation with `sig` significant digits and a short exponent: 2.1e-3, 1.0e5,
    -1.2e-5; 0 and ∞ as such."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    x = float(x)
    if math.isinf(x):
        return "∞" if x > 0 else "-∞"
    if x == 0:
        return "0"
    mant, exp = f"{x:.{max(sig - 1, 0)}e}".split("e")
    return f"{mant}e{int(exp)}"


def fmt_target(t: float) -> str:
    """Target labels as cocopp's table header: 1e+1, 1e+0, 1e-7 (other values in short notation)."""
    if t > 0:
        k = math.log10(t)
        if abs(k - round(k)) < 1e-9:
            return f"1e{round(k):+d}"
    return fmt_sci(t)


def target_labels(targets) -> dict[float, str]:
    """The labels of a table's targets: `fmt_target`'s, or the integers themselves for a set of whole numbers that
    are not all powers of ten (PBO's targets 15, 12, ..., 0: not 1.5e1, 1e+1, 0)."""
    ts = [float(t) for t in targets]
    whole = all(t.is_integer() and 0 <= t < 1e15 for t in ts)
    if whole and any(fmt_target(t) == fmt_sci(t) for t in ts):
        return {t: str(int(t)) for t in ts}
    return {t: fmt_target(t) for t in ts}


# -- a format-neutral table ---------------------------------------------------------------------
@dataclass
class Cell:
    text: str = ""
    bold: bool = False
    italic: bool = False
    disp: tuple[str, str] | None = None
    note: str | None = None  # median final precision after ∞
    marks: str = ""  # significance markers: ★2, ↓3, *


@dataclass
class Grid:
    title: str
    caption: str
    header: list[str]
    rows: list[list[Cell]] = field(default_factory=list)
    group_starts: set[int] = field(default_factory=set)
    label: str = ""
    align: str = ""


def _is_pairwise(df: pl.DataFrame) -> bool:
    return "algorithm_a" in df.columns


def _groups(df: pl.DataFrame):
    for (suite, dim), g in df.group_by("suite", "dimension", maintain_order=True):
        yield suite, dim, g


def _correction_text(correction: str, n: str, what: str) -> str:
    if correction == "holm":
        return f"p-values are Holm-corrected (step-down) over the {n} {what}"
    return f"p-values are Bonferroni-corrected: multiplied by the {n} {what}"


TEST_DATA = ("the data cocopp's significancetest ranks: one value per trial, its runtime to reach the target; "
             "trials that did not reach it within FE_umin evaluations (the fewest evaluations of an unsuccessful "
             "trial of either algorithm) rank behind all others, by their precision after FE_umin evaluations; "
             "no instance balancing")
TEST_NAME = "two-sided rank-sum test (Mann-Whitney U, scipy.stats.mannwhitneyu)"


def _nset(values) -> str:
    v = sorted({int(x) for x in values if x is not None})
    if not v:
        return "0"
    return f"N = {v[0]}" if len(v) == 1 else f"N = {v[0]}-{v[-1]} (per target)"


def _art_caption(g: pl.DataFrame, suite: str, dim: int) -> str:
    ref = g["reference"].drop_nulls()
    ref = ref[0] if len(ref) else None
    alg = g.filter(pl.col("role") == "algorithm")
    samples = g["samples"][0]
    parts = []
    if ref is not None:
        parts.append(f"Average runtime (aRT, in evaluations) to reach the precision Δf given in the top row, divided by "
                     f"the aRT of the reference {ref} (its own row, absolute, first for each function; the reference "
                     f"is not among the compared algorithms).")
        if (alg["value_kind"] == "absolute").any():
            parts.append("In italics: the absolute aRT where the reference's aRT is infinite or missing.")
    else:
        parts.append("Average runtime (aRT, in evaluations) to reach the precision Δf given in the top row: the "
                     "evaluations of all trials until they reached Δf or stopped, divided by the number of trials "
                     "that reached it (instances balanced as in cocopp).")
    parts.append(f"In brackets: the 10th and 90th percentiles of the runtimes of {samples} simulated restarts per "
                 "problem, on the same scale.")
    parts.append("∞: no trial reached the target; after ∞ in the last column, Δf: the median final precision of the "
                 "trials.")
    st = g["succ_target"].drop_nulls()
    if len(st):
        parts.append(f"#succ: trials that reached Δf = {fmt_target(st[0])}, out of all trials.")
    parts.append("Bold: the smallest aRT of the column.")
    corr = g["correction"][0]
    alpha = g["alpha"][0]
    has_best = alg["p_best"].is_not_null().any()
    has_ref = alg["p_ref"].is_not_null().any()
    if has_best or has_ref:
        parts.append(f"Significance: {TEST_NAME} per function and target, on {TEST_DATA}.")
        parts.append(_correction_text(corr, _nset(alg["tests"].to_list() + alg["ref_tests"].to_list()),
                                      "functions tested in this dimension for the target") + ".")
        if has_best:
            parts.append(f"★: the best algorithm of the column ranks better than each other algorithm with the "
                         f"largest corrected p-value < {alpha:g} (cocopp's pptables); ★k: that p-value is ≤ 10^-k.")
        if has_ref:
            parts.append(f"↓ / ↑: significantly better / worse than the reference {ref} (corrected p < {alpha:g}); "
                         f"↓k / ↑k: p ≤ 10^-k.")
        parts.append("A marker also requires the better-ranked algorithm to have an aRT not larger than the other's "
                     "and, if finite, fewer evaluations on average (cocopp's rule).")
        parts += [u] if (u := unreachable_text(g)) else []
    else:
        parts.append("No significance test: fewer than two algorithms.")
    return " ".join(parts)


def _art_grid(g: pl.DataFrame, suite: str, dim: int) -> Grid:
    tlist = sorted(g["target"].unique().to_list(), reverse=True)
    labels = target_labels(tlist)
    header = ["Δf", "algorithm", *[labels[float(t)] for t in tlist], "#succ"]
    grid = Grid(title=f"aRT table, {suite}, {dim}-D", caption=_art_caption(g, suite, dim), header=header,
                label=f"tab:art-{suite}-{dim}D", align="ll" + "r" * len(tlist) + "r")
    has_ref = (g["role"] == "reference").any()
    by_function: dict = {}  # function -> algorithm -> rows, each in order of first appearance (one pass)
    for r in g.iter_rows(named=True):
        by_function.setdefault(r["function"], {}).setdefault(r["algorithm"], []).append(r)
    for f, by_alg in by_function.items():
        grid.group_starts.add(len(grid.rows))
        first = True
        for alg, rows in by_alg.items():
            cells = {r["target"]: r for r in rows}
            row0 = rows[0]
            is_ref = row0["role"] == "reference"
            line = [Cell(f"f{f}" if first else "", bold=first), Cell(("ref: " if is_ref else "") + str(alg), italic=is_ref)]
            first = False
            for j, t in enumerate(tlist):
                r = cells.get(t)
                if r is None:
                    line.append(Cell(""))
                    continue
                c = Cell(fmt_num(r["value"]))
                if not is_ref:
                    c.bold = bool(r["best"])
                    c.italic = has_ref and r["value_kind"] == "absolute" and math.isfinite(r["art"])
                    if r["disp_lo"] is not None and math.isfinite(r["art"]):
                        c.disp = (fmt_num(r["disp_lo"]), fmt_num(r["disp_hi"]))
                    c.marks = (r["best_marker"] or "") + (r["ref_marker"] or "")
                if j == len(tlist) - 1 and not math.isfinite(r["art"]) and r["median_final_delta"] is not None:
                    c.note = fmt_sci(r["median_final_delta"])
                line.append(c)
            s, n = row0["succ"], row0["succ_trials"]
            line.append(Cell(f"{s}/{n}" if s is not None and n is not None else ""))
            grid.rows.append(line)
    return grid


def unreachable_text(tests: pl.DataFrame) -> str:
    """A sentence naming the pairs whose trial counts put alpha out of reach (no corrected p-value can fall below
    it), with the counts and the smallest p; "" if none. `tests`: rows of `pairwise_table` (alpha_reachable), or of
    `art_table` (ref_alpha_reachable: each algorithm against the reference)."""
    if "alpha_reachable" in tests.columns:
        a, b, na, nb, p_min, ok = "algorithm_a", "algorithm_b", "trials_a", "trials_b", "p_min", "alpha_reachable"
    elif "ref_alpha_reachable" in tests.columns:
        a, b, na, nb, p_min, ok = "algorithm", "reference", "trials", "ref_trials", "ref_p_min", "ref_alpha_reachable"
        tests = tests.drop("tests").rename({"ref_tests": "tests"}).filter(pl.col(ok).is_not_null())
    else:
        return ""
    if tests.height == 0 or tests[ok].all():
        return ""
    out = (tests.filter(~pl.col(ok)).group_by(a, b, na, nb, maintain_order=True)
           .agg(pl.col(p_min).first(), pl.col("tests").max(), pl.len()))
    what = "; ".join(f"{r[a]} against {r[b]} ({r[na]} against {r[nb]} trials: smallest p {fmt_num(r[p_min])}, "
                     f"{r['tests']} tests in the family; {r['len']} tests)" for r in out.iter_rows(named=True))
    return f"No test can be significant at α = {tests['alpha'][0]:g} with so few trials for the correction: {what}."


def _pairwise_grid(g: pl.DataFrame, suite: str, dim: int) -> Grid:
    corr, alpha = g["correction"][0], g["alpha"][0]
    fam = g["family"][0] if "family" in g.columns else "all"
    if fam == "all":
        what = _correction_text(corr, f"m = {g['tests'][0]}", "tests made (all pairs, functions, dimensions and "
                                                              "targets of the selection)")
    else:
        what = _correction_text(corr, _nset(g["tests"].to_list()).replace("N =", "m ="),
                                f"tests of a family, {fam.removeprefix('per ')}")
    caption = (f"Pairwise {TEST_NAME} for every pair of algorithms per function and target, on "
               f"{TEST_DATA}. p: the two-sided p-value; better: the algorithm with the better ranks; "
               + what
               + f". *: corrected p < {alpha:g} and the better-ranked algorithm has an aRT not larger than the other's "
               f"and, if finite, fewer evaluations on average (cocopp's rule); "
               f"*k: corrected p ≤ 10^-k." + (f" {u}" if (u := unreachable_text(g)) else ""))
    header = ["f", "Δf", "A", "B", "aRT A", "aRT B", "p", "better", "p corrected", "sig."]
    labels = target_labels(g["target"].unique())
    grid = Grid(title=f"pairwise tests, {suite}, {dim}-D", caption=caption, header=header,
                label=f"tab:pairwise-{suite}-{dim}D", align="lrllrrrlrl")
    prev = None
    for r in g.iter_rows(named=True):
        if r["function"] != prev:
            grid.group_starts.add(len(grid.rows))
            prev = r["function"]
        sig = bool(r["significant"])
        grid.rows.append([
            Cell(f"f{r['function']}"), Cell(labels[float(r["target"])]), Cell(r["algorithm_a"]), Cell(r["algorithm_b"]),
            Cell(fmt_num(r["art_a"])), Cell(fmt_num(r["art_b"])), Cell(fmt_num(r["p_value"])),
            Cell(r["better"] or "", bold=sig), Cell(fmt_num(r["p_corrected"]), bold=sig), Cell(r["marker"] or ""),
        ])
    return grid


def grids(df: pl.DataFrame) -> list[Grid]:
    """One format-neutral table per (suite, dimension)."""
    make = _pairwise_grid if _is_pairwise(df) else _art_grid
    return [make(g, suite, dim) for suite, dim, g in _groups(df)]


# -- Markdown -----------------------------------------------------------------------------------
def _md_escape(s: str) -> str:
    return re.sub(r"([\\|*_`\[\]<>#])", r"\\\1", s)


@dataclass(frozen=True)
class _CellFormat:
    """How one output format writes a cell's parts: its escape and a template for each part."""

    escape: Callable[[str], str]
    bold: str
    italic: str
    note: str
    disp: str
    marks: Callable[[str], str]


def _cell(c: Cell, f: _CellFormat) -> str:
    """A cell's text with its emphasis, final-Δf note, dispersion and test marks, in format `f`."""
    s = f.escape(c.text)
    if s and c.bold:
        s = f.bold.format(s)
    if s and c.italic:
        s = f.italic.format(s)
    if c.note:
        s += f.note.format(f.escape(c.note))
    if c.disp:
        s += f.disp.format(f.escape(c.disp[0]), f.escape(c.disp[1]))
    if c.marks:
        s += f.marks(c.marks)
    return s


_MD = _CellFormat(_md_escape, "**{}**", "*{}*", " Δf {}", " \\[{}, {}\\]", lambda m: " " + _md_escape(m))


def to_markdown(df: pl.DataFrame) -> str:
    """Markdown pipe tables, each preceded by its caption."""
    out = []
    for g in grids(df):
        out.append(f"**Table: {g.title}.** {_md_escape(g.caption)}\n")
        out.append("| " + " | ".join(_md_escape(h) for h in g.header) + " |")
        out.append("|" + "|".join(":--" if a == "l" else "--:" for a in g.align) + "|")
        for row in g.rows:
            out.append("| " + " | ".join(_cell(c, _MD) for c in row) + " |")
        out.append("")
    return "\n".join(out)


# -- HTML ---------------------------------------------------------------------------------------
_HTML = _CellFormat(html.escape, "<b>{}</b>", "<i>{}</i>", ' <span class="final">Δf&nbsp;{}</span>',
                    ' <span class="disp">[{}, {}]</span>', lambda m: f"<sup>&thinsp;{html.escape(m)}</sup>")


#: a minimal style for the tables (`to_html(df, css=True)` includes it)
CSS = """<style>
table.cocopipe-table { border-collapse: collapse; font-size: 0.85em; margin: 1em 0; }
table.cocopipe-table caption { caption-side: top; text-align: left; padding-bottom: 0.5em; }
table.cocopipe-table th { border-bottom: 1px solid #444; padding: 2px 6px; }
table.cocopipe-table td { padding: 2px 6px; white-space: nowrap; }
table.cocopipe-table tr.group-start td { border-top: 1px solid #bbb; }
table.cocopipe-table span.disp, table.cocopipe-table span.final { font-size: 0.8em; color: #555; }
</style>
"""


def _html_table(g: Grid, kind: str) -> str:
    """One grid as an HTML <table> with its <caption> (text escaped as Jinja's autoescape does)."""
    parts = [f'<table class="cocopipe-table {escape(kind)}" id="{escape(g.label)}">\n'
             f"<caption><b>{escape(g.title)}.</b> {escape(g.caption)}</caption>\n"
             f"<thead><tr>{''.join(f'<th>{escape(h)}</th>' for h in g.header)}</tr></thead>\n<tbody>\n"]
    tds = ['<td style="text-align:right">' if a == "r" else "<td>" for a in g.align]
    for i, row in enumerate(g.rows):
        parts.append('<tr class="group-start">' if i in g.group_starts else "<tr>")
        parts.append("".join(f"{tds[j]}{_cell(c, _HTML)}</td>" for j, c in enumerate(row)))
        parts.append("</tr>\n")
    parts.append("</tbody>\n</table>\n")
    return "".join(parts)


def to_html(df: pl.DataFrame, css: bool = False) -> str:
    """HTML tables (a fragment for the report), each with a <caption>; `css` prepends `CSS`."""
    kind = "pairwise" if _is_pairwise(df) else "art"
    return (CSS if css else "") + "".join(_html_table(g, kind) for g in grids(df))


# -- LaTeX --------------------------------------------------------------------------------------
_TEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}
_TEX_SYMBOLS = {"★": r"$\star$", "↓": r"$\downarrow$", "↑": r"$\uparrow$", "∞": r"$\infty$", "≤": r"$\le$",
                "Δ": r"$\Delta$", "–": "--", "×": r"$\times$"}


def tex_escape(s: str) -> str:
    """Text for LaTeX: special characters escaped, the table's symbols as math, 10^-k as $10^{-k}$;
    other characters (e.g. of algorithm names) as they are, in UTF-8, LaTeX's input encoding."""
    s = "".join(_TEX_SPECIAL.get(ch, ch) for ch in s)
    s = re.sub(r"10\\textasciicircum\{\}(-?[0-9a-zA-Z]+)", r"$10^{\1}$", s)
    s = s.replace("Δf", "Δ§f")  # keep "Δf" one math group below
    for k, v in _TEX_SYMBOLS.items():
        s = s.replace(k, v)
    return s.replace(r"$\Delta$§f", r"$\Delta f$")


def _tex_marks(m: str) -> str:
    body = m.replace("★", r"\star ").replace("↓", r"\downarrow ").replace("↑", r"\uparrow ").replace("*", r"\ast ")
    return f"$^{{{body.strip()}}}$"


_TEX = _CellFormat(tex_escape, r"\textbf{{{}}}", r"\textit{{{}}}", r" {{\scriptsize $\Delta f$ {}}}",
                   r" {{\scriptsize [{}, {}]}}", _tex_marks)


#: pdflatex reads the UTF-8 of Latin-script names (T1 fonts); xelatex and lualatex (fontspec) any script
#: their font has
_PREAMBLE = r"""\documentclass{article}
\usepackage{iftex}
\ifPDFTeX\usepackage[T1]{fontenc}\else\usepackage{fontspec}\fi
\usepackage[landscape,margin=1.5cm]{geometry}
\usepackage{booktabs}
\usepackage{longtable}
\begin{document}
"""


def to_latex(df: pl.DataFrame, standalone: bool = False) -> str:
    """LaTeX longtables with booktabs rules (needs \\usepackage{booktabs,longtable}), UTF-8; with
    `standalone`, a complete document (pdflatex for names in Latin scripts, xelatex or lualatex for any)."""
    out = []
    for g in grids(df):
        out.append(r"{\footnotesize\setlength{\tabcolsep}{3pt}")
        out.append(rf"\begin{{longtable}}{{{g.align}}}")
        label = re.sub('[^A-Za-z0-9:-]', '-', g.label)
        out.append(rf"\caption{{{tex_escape(g.title)}. {tex_escape(g.caption)}}}\label{{{label}}}\\")
        out.append(r"\toprule")
        out.append(" & ".join(tex_escape(h) for h in g.header) + r" \\")
        out.append(r"\midrule")
        out.append(r"\endhead")
        for i, row in enumerate(g.rows):
            if i in g.group_starts and i > 0:
                out.append(r"\midrule")
            out.append(" & ".join(_cell(c, _TEX) for c in row) + r" \\")
        out.append(r"\bottomrule")
        out.append(r"\end{longtable}}")
        out.append("")
    body = "\n".join(out)
    return _PREAMBLE + body + "\n\\end{document}\n" if standalone else body
