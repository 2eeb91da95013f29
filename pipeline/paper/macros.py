"""cocopp_commands.tex: the algorithms' names and folders, the table header macros and the caption and legend
macros every COCO template reads, all defined with \\providecommand (a template's own definitions win)."""
from __future__ import annotations

import string
from collections.abc import Sequence

from ..tables.render import tex_escape
from .tables import header_macros

#: \algorithmA, \algorithmB, ...: cocopp's names of the algorithms' macros (A-Z, then AA, AB, ...)
LETTERS = string.ascii_uppercase


def letter(i: int) -> str:
    """The letter of the i-th algorithm's macros (0: A, 25: Z, 26: AA)."""
    return LETTERS[i] if i < 26 else LETTERS[i // 26 - 1] + LETTERS[i % 26]


def latex_name(name: str) -> str:
    """An algorithm's name for pdflatex: LaTeX's special characters escaped; characters outside Latin-1 (which
    pdflatex's T1 fonts cannot show) written as U+XXXX (the name in UTF-8 is noted beside, for xelatex)."""
    out = "".join(ch if ord(ch) < 256 else f"U+{ord(ch):04X}" for ch in name)
    return tex_escape(out)


def _caption_texts(suite: str, names: Sequence[str], markers: Sequence[str], reference: str | None) -> dict:
    """The caption and legend macros: {name: (number of arguments, text)}; `markers` say how each algorithm is
    drawn, so that a caption's markers are those of the plots."""
    ref = tex_escape(reference) if reference else "none"
    per = f"divided by the aRT of the reference {ref}" if reference else "(no reference algorithm: not divided)"
    grey = f"; the reference {ref} in grey" if reference else " (no reference algorithm)"
    algs = ", ".join(f"{n} ({m})" for n, m in zip(names, markers))
    target = r"$10^{-5}$" if "biobj" in suite else r"$10^{-8}$"
    tests = (r"Statistically significant better results than the reference, by the rank-sum test with "
             r"Bonferroni correction by the number of functions, are marked with $\downarrow$ "
             r"(followed by $k$ when $p<10^{-k}$)")
    return {
        "bbobpptablecaption": (1, rf"Average runtime (aRT in number of function evaluations) {per} in #1, for the "
                                  rf"targets given in the first row; the first "
                                  rf"line of each function gives the reference's aRT. The subscripts and "
                                  rf"superscripts are the 10\%- and 90\%-tile of simulated restart runtimes "
                                  rf"relative to the aRT; a leading subscript is the success rate below 95\%; "
                                  rf"\#succ is the number of trials reaching {target}. {tests}."),
        "bbobpptablesmanylegend": (1, rf"Average runtime (aRT) {per} in #1, "
                                      rf"as in the one-algorithm table, for the algorithms {algs}. The best "
                                      rf"algorithm of a column is bold and marked with $\star$ where it is "
                                      rf"significantly better than every other. {tests}."),
        "bbobppfigdimlegend": (1, rf"Scaling of the aRT with dimension, divided by dimension, for the target "
                                  rf"{target} on #1: {algs}{grey}."),
        "bbobppfigslegend": (1, rf"Average runtime divided by dimension versus dimension on #1, target {target}: "
                                rf"{algs}{grey}."),
        "bbobECDFslegend": (1, rf"Empirical cumulative distributions (ECDF) of runtimes divided by dimension, over "
                               rf"all targets, in dimension #1: {algs}{grey}."),
        "bbobecdfcaptionsinglefunctionssingledim": (1, rf"ECDFs of runtimes over all targets per function in "
                                                       rf"dimension #1: {algs}."),
        "bbobecdfcaptionsinglefcts": (2, rf"ECDFs of runtimes over all targets per function, functions $f_{{#1}}$ "
                                         rf"to $f_{{#2}}$, all dimensions: {algs}."),
        "bbobecdfcaptionallgroups": (0, rf"ECDFs of runtimes over all targets per function group: {algs}."),
        "bbobppscatterlegend": (1, rf"Average runtimes of {names[-1] if names else ''} (y-axis) versus "
                                   rf"{names[0] if names else ''} (x-axis) divided by dimension, per target, on #1."),
        "bbobloglossfigurecaption": (1, rf"aRT loss ratios against the reference {ref} versus budget, #1."),
        "bbobloglosstablecaption": (1, rf"aRT loss ratios against the reference {ref} at some budgets, #1."),
        "bbobpprldistrlegend": (1, rf"ECDFs of runtimes for a few targets and of the precisions reached within "
                                   rf"budgets: {algs}. #1"),
        "bbobpprldistrlegendtwo": (1, rf"ECDFs of runtimes for a few targets: {algs}. #1"),
    }


def commands(suite: str, names: Sequence[str], folder: str, targets: Sequence[float], markers: Sequence[str],
             reference: str | None, version: str) -> str:
    """The text of cocopp_commands.tex for algorithms `names` (in the order of their plots and tables)."""
    esc = [latex_name(n) for n in names]
    lines = [f"% written by cocopipe {version} for the suite {suite}",
             rf"\providecommand{{\numofalgs}}{{{len(names)}}}",
             rf"\providecommand{{\algname}}{{{esc[0] if len(names) == 1 else ', '.join(esc)}}}",
             rf"\providecommand{{\algfolder}}{{{folder}/}}",
             rf"\providecommand{{\algsfolder}}{{{folder}/}}",
             rf"\providecommand{{\cocoversion}}{{\hspace{{\textwidth}}\scriptsize\sffamily{{}}\color{{Gray}}"
             rf"Data produced with cocopipe {tex_escape(version)}}}"]
    for i, (n, e) in enumerate(zip(names, esc)):
        if e != tex_escape(n):
            lines.append(f"% {letter(i)}: {n} (its name in UTF-8: compile with xelatex or lualatex to show it)")
        if i < 6:  # the templates ask for a manual split from \algorithmG on: the tables are split here instead
            lines.append(rf"\providecommand{{\algorithm{letter(i)}}}{{{e}}}")
        lines.append(rf"\providecommand{{\alg{letter(i)}tables}}{{{e}}}")
    lines.append(rf"\providecommand{{\ntables}}{{{len(names)}}}")
    lines.append(header_macros(targets, len(names)).rstrip("\n"))
    for name, (nargs, text) in _caption_texts(suite, esc, markers, reference).items():
        lines.append(rf"\providecommand{{\{name}}}" + (f"[{nargs}]" if nargs else "") + f"{{{text}}}")
    return "\n".join(lines) + "\n"


def perfprof_legend(algorithms: Sequence[str], order: Sequence[str], reference: str | None,
                    markers: Sequence[str] = ()) -> str:
    """cocopp's legend beside an \\includeperfprof ECDF: \\algAperfprof.. (the first \\nperfprof letters of each
    name, in `algorithms`' order), \\algzeroperfprof (the reference), \\algAperfprofmarker.. (how each is drawn)
    and \\perfprofsidepanel naming them top to bottom as the figure ends (`order`: its colour scale's)."""
    letters = {a: letter(i) for i, a in enumerate(algorithms)}
    out = [r"\providecommand{\nperfprof}{7}"]
    out += [rf"\providecommand{{\alg{letters[a]}perfprof}}{{\StrLeft{{{latex_name(a.replace('_', ' '))}}}{{\nperfprof}}}}"
            for a in algorithms]
    out += [rf"\providecommand{{\alg{letters[a]}perfprofmarker}}{{{m}}}" for a, m in zip(algorithms, markers)]
    if reference:
        out.append(rf"\providecommand{{\algzeroperfprof}}{{{latex_name(reference)}}}")
    shown = [a for a in order if a in letters or a == reference] or [*([reference] if reference else []), *algorithms]
    panel = "\n\\vfill ".join(r"\mbox{\alg" + ("zero" if a == reference else letters[a]) + "perfprof}" for a in shown)
    out.append(r"\providecommand{\perfprofsidepanel}{{" + panel + "}}")
    return "".join(out) + "\n"
