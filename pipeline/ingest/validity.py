"""Which .dat/.tdat records cannot be right, and why: each one a named problem (file:line), skipped.

A record is bad when its field count differs from its file's usual one (a record cut short, or two
records run together because a newline was lost), when a number is missing, when its evaluations are
negative, too large for a count or fall below an earlier record's of the same trial, when its
precision is NaN or -inf (which would reach every target), or when its precision is negative beyond
rounding in a suite whose precisions are f - f_opt >= 0 (bbob-biobj indicator differences and
bbob-constrained precisions can be negative; real logs write +inf before any finite value).
"""
from __future__ import annotations

import numpy as np
import polars as pl

#: evaluation counts at or above this are no counts (they would not fit the store's 64-bit integers)
MAX_EVALUATIONS = 2.0**62
#: suites whose precisions are f - f_opt of the true optimum, hence never negative but for rounding
NONNEGATIVE_SUITES = frozenset({"bbob", "bbob-noisy", "bbob-largescale", "bbob-mixint"})
#: how far below 0 rounding takes f - f_opt, relative to max(1, |f_opt|) (real bbob logs reach -1.1e-13
#: with |f_opt| near 1000: one unit in the last place)
ROUNDING = 1e-9
#: bad records named one by one; the others are counted
MAX_NAMED = 200


def bad(section: pl.Expr, few: pl.Expr, raw_n: pl.Expr, usual_n: pl.Expr, f_ev: pl.Expr, g_ev: pl.Expr,
        best_delta: pl.Expr) -> pl.Expr:
    """True for the records that are skipped for what they hold alone (`few`: fewer fields than
    the format needs); `flag` adds the checks of values that real logs (almost) never hold."""
    return (few | (raw_n != usual_n) | (section < 0) | f_ev.is_null() | g_ev.is_null()
            | best_delta.is_null() | best_delta.is_nan()).fill_null(True)


def flag(recs: pl.DataFrame, heads: pl.DataFrame, checked: pl.Series) -> pl.DataFrame:
    """`recs` (in file order) with `bad` also set on the records whose evaluations are negative, too
    large or fall below an earlier record's of the same section (trial), whose precision is -inf,
    and on negative precisions beyond rounding in the files `checked` (a Boolean per file index),
    the tolerance scaled by the section's f_opt. Each check runs on every record only when the
    column's extremes call for it."""
    return _negative(_decreasing(_out_of_range(recs)), heads, checked)


def _out_of_range(recs: pl.DataFrame) -> pl.DataFrame:
    f_ev, g_ev, best_delta = pl.col("f_ev"), pl.col("g_ev"), pl.col("best_delta")
    lo, hi, low, nan = recs.select(lo=pl.min_horizontal(f_ev.min(), g_ev.min()),
                                   hi=pl.max_horizontal(f_ev.max(), g_ev.max()), low=best_delta.min(),
                                   nan=(f_ev.is_nan() | g_ev.is_nan()).any()).row(0)  # min and max pass NaN by
    if (lo is None or lo >= 0) and (hi is None or hi < MAX_EVALUATIONS) and (low is None or low > float("-inf")) \
            and not nan:
        return recs
    # -inf would reach every target; +inf is what real logs write before any finite value
    out = ~f_ev.is_between(0, MAX_EVALUATIONS, closed="left") | ~g_ev.is_between(0, MAX_EVALUATIONS, closed="left") \
        | (best_delta == float("-inf"))
    return recs.with_columns(bad=pl.col("bad") | out.fill_null(True))


def _decreasing(recs: pl.DataFrame) -> pl.DataFrame:
    same = (pl.col("file") == pl.col("file").shift(1)) & (pl.col("section") == pl.col("section").shift(1))
    drop = same & ((pl.col("f_ev") < pl.col("f_ev").shift(1)) | (pl.col("g_ev") < pl.col("g_ev").shift(1)))
    rows = recs.select(pl.arg_where(drop.fill_null(False))).to_series()
    if not rows.len():  # the usual case: no record below its predecessor, hence none below an earlier one
        return recs
    # below the largest evaluations of the good records before it in its section (a bad record, such as
    # evaluations of inf, does not take the records after it along): on the sections concerned only
    sections = recs[rows].select("file", "section").unique()
    sub = recs.with_row_index("row").join(sections, on=["file", "section"], maintain_order="left")
    back = sub.filter(~pl.col("bad")).filter(
        (pl.col("f_ev") < pl.col("f_ev").cum_max().shift(1).over("file", "section"))
        | (pl.col("g_ev") < pl.col("g_ev").cum_max().shift(1).over("file", "section")))
    return recs.with_columns(recs["bad"].scatter(back["row"], True))


def _negative(recs: pl.DataFrame, heads: pl.DataFrame, checked: pl.Series) -> pl.DataFrame:
    rows = recs.select(pl.arg_where((pl.col("best_delta") < 0) & ~pl.col("bad"))).to_series()
    if not rows.len() or not checked.any():
        return recs
    neg = (recs[rows].with_columns(row=rows)
           .filter(pl.lit(checked).gather(pl.col("file")))
           .join(heads.select("file", "section", "fopt"), on=["file", "section"], how="left")
           .filter(pl.col("best_delta") < -ROUNDING * pl.max_horizontal(1.0, pl.col("fopt").abs().fill_null(1.0))))
    return recs.with_columns(recs["bad"].scatter(neg["row"], True)) if neg.height else recs


def problems(recs: pl.DataFrame, paths: list[str], source: str) -> list[tuple[str, int | None, str, str]]:
    """(file, line, what, action) of the bad records, the first `MAX_NAMED` by name, then a count."""
    bad_recs = recs.filter("bad")
    if not bad_recs.height:
        return []
    named = bad_recs.head(MAX_NAMED)
    # the largest evaluations before each named record in its section (for "evaluations decrease")
    before = (recs.join(named.select("file", "section").unique(), on=["file", "section"], maintain_order="left")
              .with_columns(pl.when(~pl.col("bad")).then(pl.col("f_ev", "g_ev")))
              .select("file", "lineno", f_max=pl.col("f_ev").cum_max().forward_fill().shift(1).over("file", "section"),
                      g_max=pl.col("g_ev").cum_max().forward_fill().shift(1).over("file", "section")))
    named = named.join(before, on=["file", "lineno"], how="left", maintain_order="left")
    out = []
    for r in named.iter_rows(named=True):
        out.append((paths[r["file"]], r["lineno"], _why(r), "line skipped"))
    if bad_recs.height > MAX_NAMED:
        out.append((source, None, f"{bad_recs.height - MAX_NAMED} more malformed records", "lines skipped"))
    return out


def _why(r: dict) -> str:
    """What is wrong with one bad record (the checks of `bad` and `flag`, in order)."""
    f, g, best = r["f_ev"], r["g_ev"], r["best_delta"]
    if r["section"] < 0:
        return "data before any header"
    if r["raw_n"] != r["usual_n"]:
        cut = "truncated" if r["raw_n"] < r["usual_n"] else "run-together"
        return f"malformed or {cut} record ({r['raw_n']} fields, expected {r['usual_n']})"
    if f is None or g is None or best is None or np.isnan(best):
        return "malformed or truncated record"
    if np.isnan(f) or np.isnan(g):
        return f"{'evaluations' if np.isnan(f) else 'g-evaluations'} nan (not a number)"
    if f < 0 or g < 0:
        return f"negative evaluations {min(f, g):g}"
    if max(f, g) >= MAX_EVALUATIONS or not np.isfinite(f + g):
        return f"evaluations {max(f, g):g} out of range"
    if best == float("-inf"):
        return "precision -inf (non-finite)"
    if best < 0:
        return f"negative precision {best:g} (below 0 beyond rounding, in a suite of f - f_opt)"
    if r["f_max"] is not None and f < r["f_max"]:
        return f"evaluations decrease ({f:g} after {r['f_max']:g})"
    if r["g_max"] is not None and g < r["g_max"]:
        return f"g-evaluations decrease ({g:g} after {r['g_max']:g})"
    return "malformed record (too few fields for its format)"
