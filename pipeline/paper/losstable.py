"""cocopp 2.9's pploglosstable_DDD_<group>.tex: per budget (2, 10, 100, ... evaluations / dimension, up to the
largest finite aRT), the best, 10 %, 25 %, median, 75 % and 90 % of the aRT loss ratios of the functions
(cocopipe's `pipeline.measures.logloss`, cocopp's percentiles), and a last row of the same percentiles of the
run lengths of the trials that did not reach 1e-8 (RL_US/D)."""
from __future__ import annotations

import math
from collections.abc import Sequence

import polars as pl

from ..measures.logloss import function_ratios

#: cocopp's percentiles of the table (0: the best)
PERCENTILES = (0, 10, 25, 50, 75, 90)
#: the precision a trial must reach not to count in the RL_US row (cocopp's f_thresh)
F_THRESH = 1e-8


def prctile(x: Sequence[float], ps: Sequence[float] = PERCENTILES) -> list[float]:
    """cocopp's toolsstats.prctile: the value at rank p/100 * N - 0.5 of the sorted values, linearly interpolated
    (the nearer value where a neighbour is infinite), the extremes beyond; nan for no values."""
    v = sorted(float(a) for a in x if a is not None and not math.isnan(a))
    n = len(v)
    res = []
    for p in ps:
        i = -0.5 + p / 100 * n
        lo, hi = math.floor(i), math.ceil(i)
        if n == 0:
            res.append(math.nan)
        elif i <= 0:
            res.append(v[0])
        elif i >= n - 1:
            res.append(v[-1])
        elif lo == hi:
            res.append(v[lo])
        elif not (math.isfinite(v[lo]) and math.isfinite(v[hi])):
            res.append(v[hi] if hi - i <= 0.5 else v[lo])
        else:
            res.append((hi - i) * v[lo] + (i - lo) * v[hi])
    return res


def fevals2(x: float, precision: int = 2) -> str:
    """cocopp's writeFEvals2: the shorter of 1.2e3 and the number with `precision` significant digits."""
    if math.isinf(x):
        return r"$\infty$"
    sci = f"{x:.{precision - 1}e}"
    mant, exp = sci.split("e")
    short = f"{mant}e{int(exp)}"
    full = f"{float(sci):.{precision + 1}f}".rstrip("0").rstrip(".")
    return full if len(short) > len(full) else short


def fevals_digits(n: int, maxdigits: int = 6) -> str:
    """cocopp's writeFEvals2(n, maxdigits=6): the integer, or 1.2e7 beyond `maxdigits` digits."""
    if len(str(n)) <= maxdigits:
        return str(n)
    prec = max(0, maxdigits - 4 - (1 if math.log10(n) > 10 else 0))
    mant, exp = f"{n:.{prec}e}".split("e")
    return f"{mant}e{int(exp)}"


def ratio_cell(j: float) -> str:
    """A loss ratio as cocopp writes it in the table (---: no function gave a ratio at that budget)."""
    if math.isnan(j):
        return "---"
    if j == 0:
        return r"~\,0"
    if j < 1:
        return rf"~\,{j:1.2f}"
    if j < 10:
        return rf"\hspace*{{1ex}}{j:1.1f}"
    if j < 100:
        return f"{j:2.0f}"
    mant, exp = f"{j:1.1e}".split("e")
    return f"{mant}e{int(exp)}"


def budgets(art: pl.DataFrame, dimension: int) -> list[float]:
    """cocopp's budgets / dimension: 2, then 10, 100, ... below the largest finite aRT over dimension."""
    finite = art.filter(pl.col("art").is_finite())["art"]
    top = float(finite.max()) if finite.len() else 0.0
    stop = math.log10(1e-9 + top / dimension)
    return [2.0] + [10.0 ** k for k in range(1, math.ceil(stop))]


def _header(functions: Sequence[int], dimension: int, max_evals: float) -> list[str]:
    f = r"\textit{f}\raisebox{-0.35ex}"
    title = (rf"\textbf{{{f}{{{min(functions)}}}--{f}{{{max(functions)}}} in {dimension}-D}}, "
             f"maxFE/D={fevals_digits(int(max_evals / dimension))}")
    names = ["best" if p == 0 else r"\textbf{med}" if p == 50 else rf"{p}\%" for p in PERCENTILES]
    return [rf" & \multicolumn{{{len(PERCENTILES)}}}{{|c}}{{{title}}}", " & ".join([r"\#FEs/D", *names])]


def _tabular(lines: Sequence[str]) -> str:
    return r"\begin{tabular}{c|" + "l" * len(PERCENTILES) + "}\n" + (r"\\" + "\n").join(lines) + "\n\\end{tabular}\n"


def table_tex(art: pl.DataFrame, ref_art: pl.DataFrame | None, runs: pl.DataFrame, algorithm: str, reference: str,
              dimension: int) -> str:
    """The table of `algorithm` in `dimension`: `art` and `ref_art` at the loss ratios' targets (Analysis.art rows),
    `runs` its trials (evaluations, final_delta); a one-row table saying why where there is nothing to show."""
    own = art.filter((pl.col("algorithm") == algorithm) & (pl.col("dimension") == dimension))
    trials = runs.filter((pl.col("algorithm") == algorithm) & (pl.col("dimension") == dimension))
    why = ("no reference algorithm" if ref_art is None or not ref_art.height
           else f"no data in {dimension}-D" if not trials.height else None)
    if why:
        return _tabular([rf"\multicolumn{{{len(PERCENTILES) + 1}}}{{c}}{{aRT loss ratios in {dimension}-D: {why}}}"])
    xs = budgets(own, dimension)
    ref = ref_art.filter(pl.col("dimension") == dimension).with_columns(algorithm=pl.lit(reference))
    both = pl.concat([own.select(ref.columns), ref.cast(own.select(ref.columns).schema)])
    loss = function_ratios(both.lazy(), reference, xs).collect()
    lines = _header(sorted(set(own["function"].to_list())), dimension, float(trials["evaluations"].max()))
    for x in xs:
        values = loss.filter(pl.col("x") == x)["loss"].to_list()
        lines.append(" & ".join([fevals2(x, 3 if x < 200 else 1), *map(ratio_cell, prctile(values))]))
    failed = trials.filter(~(pl.col("final_delta") <= F_THRESH))["evaluations"].to_list()
    if failed:
        lines.append(" & ".join([r"$\text{RL}_{\text{US}}$/D",
                                 *(fevals2(v / dimension, 1) for v in prctile(failed))]))
    return _tabular(lines)
