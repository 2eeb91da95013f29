"""The table cells of cocopp 2.9's pptable (one algorithm) and pptables (several): the aRT over the reference's
(its aRT in the first row, italic where the reference never reached the target), the 10%/90% dispersion of
simulated restarts as sub- and superscript, the success rate below 95% as a leading subscript, the rank-sum
test's marker (arrows against the reference, a star for the best of several) and #succ at the last target."""
from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass

import polars as pl

from ..tables.render import tex_escape

#: the columns of a target: right-aligned integer part and left-aligned decimals (cocopp's `r@{}l`)
SPEC_ONE = r"@{}c@{}|*{%d}{@{}r@{}@{}l@{}}|@{}r@{}@{}l@{}"
#: beyond this many algorithms the dispersion is left out of the cells (rows of one line's height)
MAX_DISPERSED = 6
SPEC_MANY = r"@{}l@{}|*{%d}{@{}r@{}X@{}}|@{}r@{}@{}l@{}"


@dataclass(frozen=True)
class Cell:
    """The numbers of one cell: what is shown (`value`: aRT / reference aRT, or the aRT where the reference's is
    infinite or missing: `ratio` False), the aRT and its dispersion, the success rate and the markers."""

    value: float
    art: float
    ratio: bool
    p10: float | None
    p90: float | None
    success_rate: float
    bold: bool
    marks: str
    median_evaluations: float | None
    worse: int | None = None


def max_prec(x: float, sig: int = 2, maxfloat: float = 1e5) -> str:
    """cocopp's writeFEvalsMaxPrec: at most `sig` significant digits below `maxfloat` (1 as "1"), else 1.2e5."""
    if math.isinf(x):
        return r"$\infty$"
    if x == 1.0:
        return "1"
    if x < maxfloat:
        corr = 1 if abs(x) < 1 else 0
        return f"{x:.{max(sig - len(f'{x:.0f}') + corr, 0)}f}"
    mant, exp = f"{x:.{max(0, sig - 1)}e}".split("e", 1)
    e = exp.lstrip("+-0")
    e = "-" + e if float(exp) < 0 else e
    return f"{mant}e{e}" if e else mant


def evals_short(x: float) -> str:
    """A budget as cocopp writes it after an infinite aRT (writeFEvals2 with three digits): 538, 2e4, 2e5."""
    if x < 1000:
        return str(int(x))
    mant, exp = f"{x:.0e}".split("e")
    return f"{mant}e{int(exp)}"


def _num2str(x: float, sig: int = 2) -> str:
    """cocopp's num2str for the ratios of the dispersion: `sig` significant digits, integers in full."""
    if x == 0:
        return "0"
    mag = math.floor(math.log10(abs(x)))
    if mag + 1 >= sig:
        return str(int(round(x)))
    return f"{x:.{sig - 1 - mag}f}"


def ratio_tex(ratio: float) -> str:
    """cocopp's ratio2tex: a relative change as +12\\%, or as a factor (\\times 2.5, \\div 3.1) beyond 0.5..1.995."""
    if ratio >= 1.995:
        return rf"\times {_num2str(ratio)}"
    if ratio >= 0.5:
        sign = "" if ratio == 1 else ("-" if ratio < 1 else "+")
        return sign + rf"{abs(int(round(100 * (ratio - 1))))}\%"
    return r"\div " + ("inf" if ratio == 0 else _num2str(1 / ratio))


def _marks_tex(marks: str) -> str:
    body = marks.replace("★", r"\star").replace("↓", r"\downarrow").replace("↑", r"\uparrow")
    return rf"$^{{{body}}}$" if body else ""


def _append(entry: str, s: str) -> str:
    """`s` placed at the end of a cell's text, inside its last group as cocopp does."""
    return entry[:-1] + s + "}" if entry.endswith("}") else entry + s


def _multicolumn(text: str, align: str, bold: bool) -> str:
    """A cell's text over both columns of its target."""
    body = rf"\textbf{{{text}}}" if bold else text
    return rf"\multicolumn{{2}}{{@{{}}{align}@{{}}}}{{{body}}}"


def cell_tex(c: Cell, last: bool) -> str:
    """The LaTeX of a cell (two tabular columns), as cocopp 2.9 writes it."""
    align = "c|" if last else "c"
    if not c.ratio and not math.isinf(c.art):  # the reference never reached the target: the aRT, in italics
        entry = _multicolumn(rf"\textit{{{max_prec(c.art)}}}", align, c.bold)
    else:
        t = max_prec(c.value)
        if math.isinf(c.value) and last and c.median_evaluations is not None:
            t += rf"\textit{{{evals_short(c.median_evaluations)}}}"
        if "e" in t or math.isinf(c.value):
            entry = _multicolumn(t, align, c.bold)
        else:
            parts = t.split(".", 1)
            if c.bold:
                parts = [rf"\textbf{{{p}}}" for p in parts]
            entry = " & .".join(parts) + ("&" if len(parts) == 1 else "")
    if 0 < c.success_rate and round(10 * c.success_rate) <= 9:  # inside a \multicolumn: nothing may precede it
        succ = rf"$\!\!\!\!{{}}_{{.{round(10 * c.success_rate)}}}$"
        head, brace, body = entry.rpartition("}{") if entry.startswith(r"\multicolumn") else ("", "", entry)
        entry = head + brace + succ + body
    if c.p10 is not None and c.p90 is not None and math.isfinite(c.art) and c.art > 0:
        entry = _append(entry, rf"$_{{\,{ratio_tex(c.p10 / c.art)}\,\,}}^{{\,{ratio_tex(c.p90 / c.art)}}}$")
    marks = _marks_tex(c.marks)
    if c.worse is not None:  # cocopp 2.9's several-algorithm tables: trials worse than the reference's aRT
        marks = (marks[:-1] if marks else "$") + rf"_{{\,\,\uparrow{c.worse}\,}}$"
    return _append(entry, marks)


def _cells(rows: pl.DataFrame, many: bool) -> list[Cell]:
    """The cells of one algorithm's rows (sorted from the easiest target to the hardest)."""
    out = []
    for r in rows.iter_rows(named=True):
        marks = (r.get("best_marker") or "") if many and math.isfinite(r["art"]) else ""  # no star on an ∞
        marks += r.get("ref_marker") or ""
        success = (r["successes"] or 0) / r["runs"] if r.get("runs") else 0.0
        out.append(Cell(value=float(r["value"]), art=float(r["art"]), ratio=r["value_kind"] == "ratio",
                        p10=r["p10"], p90=r["p90"], success_rate=success, bold=bool(r.get("best")) and many,
                        marks=marks, median_evaluations=r.get("median_evaluations"),
                        worse=r.get("worse_ref") if many else None))
    return out


def _reference_row(label: str, ref: pl.DataFrame, n_targets: int) -> str:
    """The first row: the function's name and the reference's aRT per target, and its #succ."""
    if ref.height == 0:
        return label + "".join(r" & \multicolumn{2}{@{}c@{}}{}" for _ in range(n_targets)) + r" & & \\"
    arts = [max_prec(float(a)) for a in ref.sort("target", descending=True)["art"]]
    cols = [rf"\multicolumn{{2}}{{@{{}}c@{{}}}}{{{a} \quad}}" for a in arts[:-1]]
    cols.append(rf"\multicolumn{{2}}{{@{{}}c|@{{}}}}{{{arts[-1]}}}")
    hardest = ref.sort("target").row(0, named=True)  # #succ at the last target (the table's succ target)
    succ, trials = hardest.get("succ"), hardest.get("succ_trials")  # `build.with_reference_successes`
    tail = f"{int(succ)} & /{int(trials)}" if succ is not None and trials else " & "
    return label + " & " + " & ".join(cols) + f" & {tail}" + r"\\"


def function_rows(table: pl.DataFrame, function: int, dimension: int, algorithms: Sequence[str],
                  names: Sequence[str], n_targets: int, many: bool) -> str:
    """The rows of one function in one dimension; beyond `MAX_DISPERSED` algorithms in parts of at most that
    many, each led by the reference's row and set apart by a double rule (the template's tables hold six)."""
    if not many or len(algorithms) <= MAX_DISPERSED:
        return _part_rows(table, function, dimension, algorithms, names, n_targets, many)
    k = MAX_DISPERSED
    parts = [_part_rows(table, function, dimension, algorithms[i:i + k], names[i:i + k], n_targets, many,
                        shrink=True) for i in range(0, len(algorithms), k)]
    return "\\hline\\hline\n".join(parts)


def _part_rows(table: pl.DataFrame, function: int, dimension: int, algorithms: Sequence[str],
               names: Sequence[str], n_targets: int, many: bool, shrink: bool = False) -> str:
    """The reference's row, then one per algorithm (`names`: how each is written in its first column)."""
    label = rf"${{\bf f_{{{function}}}}}$"
    t = table.filter((pl.col("function") == function) & (pl.col("dimension") == dimension))
    lines = [_reference_row(label, t.filter(pl.col("role") == "reference"), n_targets)]
    for alg, name in zip(algorithms, names if many else [""] * len(algorithms)):
        name = rf"{name}\hspace*{{\fill}}" if name else name
        rows = t.filter((pl.col("algorithm") == alg) & (pl.col("role") == "algorithm")).sort("target", descending=True)
        if rows.height == 0:
            lines.append(rf"{name} & \multicolumn{{{2 * n_targets + 2}}}{{@{{}}l@{{}}}}{{no data}}\\")
            continue
        cells = _cells(rows, many)
        if shrink:  # single-height rows: a table of twelve functions still fits a page
            cells = [dataclasses.replace(c, p10=None, p90=None) for c in cells]
        body = " & ".join(cell_tex(c, i == len(cells) - 1) for i, c in enumerate(cells))
        r0 = rows.row(0, named=True)
        succ = f"{int(r0['succ'] or 0)} & /{int(r0['succ_trials'] or 0)}"
        lines.append(f"{name} & {body} & {succ}" + r"\\")
    return "\n\\hline\n".join(lines[:1] + ["\n".join(lines[1:])]) + "\n" if many else "\n".join(lines) + "\n"


def missing_rows(function: int, dimension: int, n_targets: int, what: str = "") -> str:
    """A row saying the data lack a function or dimension the template shows."""
    text = tex_escape(what or f"no data for f{function} in {dimension}-D")
    return rf"${{\bf f_{{{function}}}}}$ & \multicolumn{{{2 * n_targets + 2}}}{{@{{}}l@{{}}}}{{{text}}}\\" + "\n"


def table_font(n_algorithms: int, rows_per_table: int = 12, height: float = 500.0) -> str:
    """The font of the several-algorithm tables: the template's \\tiny up to `MAX_DISPERSED` algorithms, beyond
    a size (pt) at which a table of twelve functions still fits the page with its caption: each function's
    rows are one per algorithm plus the reference's leading each part of at most `MAX_DISPERSED`, and the
    header's (`height`: what the rows may take of the page; cocopp's caption takes the rest, and a row with
    a success rate's subscript is a little taller than its lead)."""
    if n_algorithms <= MAX_DISPERSED:
        return ""
    rows = rows_per_table * (n_algorithms + math.ceil(n_algorithms / MAX_DISPERSED)) + 1
    lead = math.floor(min(6.0, height / rows) * 100) / 100
    return rf"\fontsize{{{0.8 * lead:.2f}}}{{{lead:.2f}}}\selectfont\renewcommand{{\arraystretch}}{{0.9}}"


def header_macros(targets: Sequence[float], n_algorithms: int = 1) -> str:
    """\\pptableheader, \\pptablefooter, \\pptablesheader, \\pptablesfooter for these table targets."""
    k = len(targets)
    head = [r"$\Delta f$"] + [rf"\multicolumn{{2}}{{c}}{{1e{round(math.log10(t)):+d}}}" if t > 0 else
                              rf"\multicolumn{{2}}{{c}}{{{max_prec(t)}}}" for t in targets]
    head.append(r"\multicolumn{2}{|@{}r@{}}{\#succ}")
    row = " & ".join(head) + r"\\\hline"
    return "\n".join([
        rf"\providecommand{{\pptableheader}}{{\begin{{tabular}}{{{SPEC_ONE % k}}}" + "\n" + row + "}",
        r"\providecommand{\pptablefooter}{\end{tabular}}",
        rf"\providecommand{{\pptablesheader}}{{{table_font(n_algorithms)}\begin{{tabularx}}{{1.0\textwidth}}{{{SPEC_MANY % k}}}"
        + "\n" + row.replace(r"$\Delta f$", r"$\Delta f_\mathrm{opt}$") + "}",
        r"\providecommand{\pptablesfooter}{\end{tabularx}}",
    ]) + "\n"
