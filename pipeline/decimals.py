"""How a number is written as text, the same in every output of cocopipe (CSV, the terminal, Markdown, JSON).

- A value: the shortest text that reads back as the same float, Python's `repr` (734.9333333333333, 0.1,
  1e-05, 2.5e+16: positional from 1e-4 up to 1e16, scientific outside), NaN as `NaN`, infinities as `inf`,
  `-inf`. One rule for every value: never `0.00001` in one cell and `1e-7` in the next.
- A target (a column `target`, `targets` or ending in `_target`): its value rounded to 12 significant
  digits, then written as a value. A target list is made from short decimals (1e-8, 10^-5.8); the float
  arithmetic that makes it leaves noise in the last digits: bbob's 10**(k/5) and cocopp's
  10**np.arange(2, -8.1, -0.2) differ by up to 6e-15 relative, in the 15th digit (32 of the 51 targets
  differ there, 4 in the 14th), none in the 12th or 13th. So both lists are written alike (1.58489319246e-06,
  10.0 for cocopp's 10.000000000000005), a decimal of up to 12 digits given as a target is written as given,
  and 12 digits (those the cocopp oracles key targets by) are more than COCO's logs hold of a precision
  (10). The text reads back within 5e-13 of the target, not to its last bit (the store and Parquet files keep every bit).
"""
from __future__ import annotations

import math

import polars as pl

#: the significant digits a target is written with
TARGET_DIGITS = 12


def float_text(x: float) -> str:
    """A value as every output writes it: its shortest round-trip text (Python's repr), NaN as `NaN`.

    >>> float_text(734.9333333333333), float_text(1e-5), float_text(1e-7), float_text(0.1), float_text(3.0)
    ('734.9333333333333', '1e-05', '1e-07', '0.1', '3.0')
    >>> float_text(float("nan")), float_text(-math.inf), float_text(1e16)
    ('NaN', '-inf', '1e+16')
    """
    x = float(x)
    return "NaN" if math.isnan(x) else repr(x)


def target_value(t: float) -> float:
    """A target rounded to `TARGET_DIGITS` significant digits (infinite and NaN as they are).

    >>> target_value(10 ** (-29 / 5)), target_value(10.000000000000005), target_value(0.1 + 0.2)
    (1.58489319246e-06, 10.0, 0.3)
    """
    t = float(t)
    return float(f"{t:.{TARGET_DIGITS}g}") if math.isfinite(t) else t


def target_text(t: float) -> str:
    """A target as every output writes it: `float_text` of `target_value`.

    >>> target_text(10 ** (-29 / 5)), target_text(1e-8), target_text(100.0), target_text(10 ** -0.2)
    ('1.58489319246e-06', '1e-08', '100.0', '0.63095734448')
    """
    return float_text(target_value(t))


def is_target(column: str) -> bool:
    """Whether a column holds targets (written by `target_text`): `target`, `targets`, `..._target`."""
    return column in ("target", "targets") or column.endswith("_target")


def _floats(dtype: pl.DataType) -> bool:
    """Whether a type holds floats: a float column, or a list or array of floats."""
    return dtype.is_float() or (isinstance(dtype, (pl.List, pl.Array)) and dtype.inner.is_float())


def _texts(s: pl.Series, write) -> pl.Series:
    """A float column (or a list or array of floats) with each number as `write` writes it."""
    if s.dtype.is_float():
        return pl.Series(s.name, [None if v is None else write(v) for v in s.to_list()], dtype=pl.String)
    return pl.Series(s.name, [None if v is None else [None if x is None else write(x) for x in v] for v in s.to_list()],
                     dtype=pl.List(pl.String))


def as_text(df: pl.DataFrame) -> pl.DataFrame:
    """The frame with every float column (and list of floats) as text: targets by `target_text`, other values
    by `float_text`; other columns as they are."""
    return df.with_columns(_texts(df[c], target_text if is_target(c) else float_text)
                           for c, t in df.schema.items() if _floats(t))


def json_value(v: object, target: bool = False) -> object:
    """A value as JSON holds it: NaN and infinities as null (JSON has no number for them), a target rounded
    (`target_value`), lists and structs value by value (Python's json writes floats by repr, as `float_text`)."""
    if isinstance(v, float):
        return None if not math.isfinite(v) else target_value(v) if target else v
    if isinstance(v, (list, tuple)):
        return [json_value(x, target) for x in v]
    if isinstance(v, dict):
        return {k: json_value(x, is_target(k)) for k, x in v.items()}
    return v
