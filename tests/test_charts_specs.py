"""How chart specs carry their data (issues 5 and 12): every table once in the top-level `datasets`,
named by its content (identical tables of the layers of a chart, or of two charts, share one name),
referenced by name; no row limit and no change to Altair's global settings; charts built from shared
parts stay independent when changed afterwards."""
from __future__ import annotations

import json
import pickle

import altair as alt
import polars as pl
import pytest

from pipeline.charts import export, theme
from pipeline.report.figures import spec_of
from pipeline.report.runner import chart_spec


def frame(n: int = 3, shift: float = 0.0) -> pl.DataFrame:
    return pl.DataFrame({"algorithm": ["a", "b", "c"] * (n // 3) + ["a"] * (n % 3),
                         "x": [float(i) + shift for i in range(n)], "y": [i / 7 for i in range(n)]})


def two_layers(df: pl.DataFrame, other: pl.DataFrame) -> alt.LayerChart:
    """A line of `df`, points of `df` again (an identical table), a rule of `other`."""
    x, y = alt.X(**theme.typed("x:Q")), alt.Y(**theme.typed("y:Q"))
    return theme.layer(theme.Chart(theme.data(df)).mark_line().encode(x=x, y=y),
                       theme.Chart(theme.data(df.clone())).mark_point().encode(x=x, y=y),
                       theme.Chart(theme.data(other)).mark_rule().encode(x=x))


def data_refs(node) -> list[dict]:
    """Every `data` entry of a spec."""
    out = []
    if isinstance(node, dict):
        if isinstance(node.get("data"), dict):
            out.append(node["data"])
        for k, v in node.items():
            if k != "datasets":
                out += data_refs(v)
    elif isinstance(node, list):
        for v in node:
            out += data_refs(v)
    return out


def test_tables_live_in_datasets_named_by_content():
    spec = chart_spec(two_layers, (frame(), frame(shift=1.0)), {})
    refs = data_refs(spec)
    assert refs and all(set(r) == {"name"} for r in refs)  # references only, the values are not inline
    assert {r["name"] for r in refs} == set(spec["datasets"])
    assert len(spec["datasets"]) == 2  # the identical table of two layers is there once
    rows = {name: v for name, v in spec["datasets"].items()}
    assert sorted(len(v) for v in rows.values()) == [3, 3]
    # the name is a function of the content: the same tables in another chart get the same names
    again = chart_spec(two_layers, (frame(), frame(shift=1.0)), {})
    assert set(again["datasets"]) == set(spec["datasets"])
    changed = chart_spec(two_layers, (frame(), frame(shift=2.0)), {})
    assert len(set(changed["datasets"]) & set(spec["datasets"])) == 1  # only the unchanged table keeps its name
    # the same with a plain to_dict and in every export format
    assert json.loads(export.render(two_layers(frame(), frame(shift=1.0)), "json"))["datasets"] == spec["datasets"]


def test_csv_tables_keep_their_format_in_the_reference():
    df = frame(6)
    c = theme.Chart(theme.csv_data(df)).mark_line().encode(x=alt.X(**theme.typed("x:Q")), y=alt.Y(**theme.typed("y:Q")))
    spec = c.to_dict()
    (ref,) = data_refs(spec)
    assert ref["format"] == {"type": "csv", "parse": {"x": "number", "y": "number"}}
    text = spec["datasets"][ref["name"]]
    assert text.splitlines()[0] == "algorithm,x,y" and len(text.splitlines()) == 7


def test_no_row_limit_and_no_global_change():
    n = 12_001  # beyond Altair's default limit of 5000 rows
    big = frame(n)
    spec = chart_spec(two_layers, (big, frame()), {})
    small, text = sorted(spec["datasets"].values(), key=len)  # the large table as CSV (theme.data)
    lines = text.splitlines()
    assert len(small) == 3 and len(lines) == n + 1  # every row, none dropped
    assert lines[-1] == f"{'c' if n % 3 == 0 else 'a'},{float(n - 1)},{round((n - 1) / 7, 1)}"
    assert spec_of(two_layers(big, frame()))["datasets"] == spec["datasets"]  # the same without the workers' step
    assert export.render(two_layers(big, frame()), "svg").lstrip().startswith("<svg")
    # Altair's own limit for data frames handed to it is still in force for everyone else
    with pytest.raises(alt.MaxRowsError):
        alt.Chart(big).mark_point().encode(x="x:Q").to_dict()


def test_values_rounded_and_non_finite_as_null():
    df = pl.DataFrame({"x": [1.234567891, float("inf"), float("nan"), None], "k": [1, 2, 3, 4]})
    rows = theme.data(df).values
    assert rows == [{"x": 1.2346, "k": 1}, {"x": None, "k": 2}, {"x": None, "k": 3}, {"x": None, "k": 4}]
    d = theme.data(df)
    assert pickle.loads(pickle.dumps(d)).to_dict() == d.to_dict() == {"name": d.name}


@pytest.mark.parametrize("seed", range(40))
def test_rounding_column_by_column_is_the_query_of_its_definition(seed):
    """`theme._rounded` works on the Series (a query's planning cost more on a chart's small tables): the same
    frame as its definition as one query, for floats of any magnitude with inf, NaN and nulls, float32,
    integers, text and temporals."""
    import datetime

    import numpy as np

    def definition(df: pl.DataFrame, digits: int) -> pl.DataFrame:
        c = pl.col
        return df.with_columns(
            *[pl.when(c(n).is_finite()).then(c(n)).otherwise(None).round_sig_figs(digits) for n, t in df.schema.items()
              if t.is_float()],
            *[c(n).cast(pl.String) for n, t in df.schema.items() if t.is_temporal()])

    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 30))
    x = rng.lognormal(0, 5, n) * rng.choice([-1, 1], n)
    for v in (np.inf, -np.inf, np.nan):
        x[rng.random(n) < 0.1] = v
    xs = pl.Series("x", x).set(pl.Series(rng.random(n) < 0.2), None) if seed % 2 and n else pl.Series("x", x)
    df = pl.DataFrame({"a": [str(i) for i in range(n)], "x": xs, "f32": x.astype(np.float32), "i": list(range(n)),
                       "d": [datetime.date(2020, 1, 1)] * n, "t": [datetime.datetime(2020, 1, 1, 3)] * n})
    for digits in (3, 5):
        got, want = theme._rounded(df, digits), definition(df, digits)
        assert got.schema == want.schema and got.equals(want, null_equal=True)


def test_charts_sharing_parts_stay_independent():
    base = theme.Chart(theme.data(frame())).mark_line().encode(x=alt.X(**theme.typed("x:Q")))
    first = theme.layer(base.encode(y=alt.Y(**theme.typed("y:Q"))), base.mark_point())
    before = json.dumps(first.to_dict(), sort_keys=True)
    # changing copies (new encodings, properties, transforms, layering again) leaves the first chart as it was
    second = theme.layer(base.encode(y=alt.Y(**theme.typed("x:Q")), color=alt.value("red")).transform_filter("datum.x > 0"),
                         base.properties(name="other"))
    second = second.properties(width=99)
    assert json.dumps(first.to_dict(), sort_keys=True) == before
    assert second.to_dict()["width"] == 99 and "width" not in first.to_dict()
    assert alt.concat(first, second).to_dict()["concat"][0]["layer"][0]["encoding"]["y"]["field"] == "y"


def _tick_labels(chart) -> list[str]:
    """The texts of a chart drawn by Vega (vl-convert, offline), the axis title last."""
    import re

    vlc = pytest.importorskip("vl_convert")
    return re.findall(r"<text[^>]*>([^<]*)</text>", vlc.vegalite_to_svg(chart.to_dict()))


def test_log_axis_labels_are_powers_of_ten_in_one_format():
    """Issue 32: 0.1, 10, 1000, 1e5, 1e7 on one axis; now every label is 10 with a superscript exponent."""
    c = alt.Chart(alt.Data(values=[{"x": 0.1}, {"x": 1e7}])).mark_point().encode(
        x=alt.X("x:Q", scale=theme.log_scale((0.1, 1e7)), axis=theme.log_axis("x", (0.1, 1e7), values=[0.1, 10, 1e3, 1e5, 1e7])))
    assert _tick_labels(c) == ["10⁻¹", "10¹", "10³", "10⁵", "10⁷", "x"]
