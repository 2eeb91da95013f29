"""The ECDF chart's bootstrap confidence band and per-instance lines (issue 11): the band's values
against `Analysis.ecdf_band`, low <= fraction <= high at every step and the estimate on the line;
one faint line per (algorithm, instance) against `Analysis.ecdf_per_instance`; drawn to SVG and PNG;
the command line options; the band's points on a hand-made table."""
from __future__ import annotations

import polars as pl
import pytest

from pipeline.api import Analysis
from pipeline.charts import theme
from pipeline.charts.ecdf import INSTANCE_WIDTH, band_points, instance_lines, value_at
from pipeline.recipes.kinds import chart
from test_charts import REF, cli, find, marks, rendered, store, subtitle  # noqa: F401 (store: the shared fixture)


@pytest.fixture(scope="module")
def two(store):
    return Analysis(store, algorithm=["DIRECT", "NM"], dimension=5)


def measure_at(table: pl.DataFrame, rows: list[dict], column: str) -> list[float]:
    """The measure's `column` at each spec row's (algorithm, x): at the step the spec's x (rounded to 5
    digits) stands for, else (the zeros at the left edge, the end held to max_x) the last step before x."""
    pts = pl.DataFrame({"algorithm": [r["algorithm"] for r in rows], "x": [r["x"] for r in rows]}).with_row_index()
    steps = table.select("algorithm", step_x="x", value=column).sort("step_x")
    near, before = (pts.sort("x").join_asof(steps, left_on="x", right_on="step_x", by="algorithm", strategy=s,
                                            check_sortedness=False).sort("index") for s in ("nearest", "backward"))
    same = (near["step_x"] - near["x"]).abs() <= 5e-5 * near["x"]
    return [a if ok else (b if b is not None else 0.0) for ok, a, b in zip(same, near["value"], before["value"])]


def test_band_holds_the_estimate_and_matches_the_bootstrap(two, tmp_path):
    c = chart("ecdf", two, mode="trials", reference="best2009", band=True, level=0.9, replicates=30, seed=3)
    spec = rendered(c, tmp_path, "band")
    (area, rows), = find(spec, "area")
    assert area["mark"]["interpolate"] == "step-after"  # the same steps as the lines
    assert area["encoding"]["y"]["field"] == "low" and area["encoding"]["y2"]["field"] == "high"
    assert area["encoding"]["opacity"]["condition"]["param"] == "pick"  # follows the highlight
    colours = dict(zip(area["encoding"]["color"]["scale"]["domain"], area["encoding"]["color"]["scale"]["range"]))
    lines = find(spec, "line", interpolate="step-after")
    assert [n for n, _ in marks(spec)].index(area) < min([n for n, _ in marks(spec)].index(n) for n, _ in lines)
    assert {r["algorithm"] for r in rows} == {"DIRECT", "NM"}  # the compared algorithms, not the reference
    assert all(r["low"] <= r["fraction"] <= r["high"] for r in rows)
    assert sum(r["low"] < r["high"] for r in rows) > len(rows) / 2  # a band, not a line
    # the band's values are the measure's at each step (the zeros at the left edge before any step)
    band = two.ecdf_band(group="all", mode="trials", level=0.9, replicates=30, seed=3).collect()
    for alg in ("DIRECT", "NM"):
        mine = [r for r in rows if r["algorithm"] == alg]
        b = band.filter(pl.col("algorithm") == alg)
        for col in ("low", "high", "fraction"):
            assert [r[col] for r in mine] == pytest.approx(measure_at(b, mine, col), rel=1e-4, abs=1e-9)
        # the estimate is the drawn line: the line's value at each of the band's steps
        (line_rows,) = [[x for x in rows_ if x["algorithm"] == alg] for n, rows_ in lines
                        if n["mark"].get("strokeWidth") != theme.REFERENCE_WIDTH]
        on_line = value_at(pl.DataFrame(line_rows).select("algorithm", "x", "fraction"),
                           pl.DataFrame({"algorithm": [alg] * len(mine), "x": [r["x"] for r in mine]}))
        assert [r["fraction"] for r in mine] == pytest.approx(on_line["fraction"].to_list(), rel=1e-9)
        assert colours[alg] != theme.REFERENCE_COLOUR
    sub = subtitle(spec)
    assert "band: 90 % bootstrap interval, 30 replicates resampling the trials within each problem, seed 3" in sub


def test_one_faint_line_per_instance(two, tmp_path):
    c = chart("ecdf", two, mode="trials", per_instance=True, legend=True, labels=False)
    spec = rendered(c, tmp_path, "instances")
    (node, rows), = find(spec, "line", strokeWidth=INSTANCE_WIDTH)
    assert {d["field"] for d in node["encoding"]["detail"]} == {"algorithm", "instance"}
    assert node["encoding"]["opacity"]["condition"]["param"] == "pick" and node["encoding"]["opacity"]["value"] < 0.1
    runs = two.runs().select("algorithm", "instance").unique().collect()
    assert {(r["algorithm"], r["instance"]) for r in rows} == set(runs.iter_rows())
    per = two.ecdf_per_instance(group="all", mode="trials").collect()
    summ = two.ecdf_summary(group="all", mode="trials").collect()
    for (alg, inst), pts in pl.DataFrame(rows).group_by("algorithm", "instance"):
        xs, fs = pts["x"].to_list(), pts["fraction"].to_list()
        assert xs == sorted(xs) and fs == sorted(fs) and fs[0] == 0.0
        top = summ.filter(pl.col("algorithm") == alg)["max_x"][0]
        assert xs[-1] == pytest.approx(top, rel=1e-4)  # held to the plotted end of its algorithm
        mine = per.filter((pl.col("algorithm") == alg) & (pl.col("instance") == inst) & (pl.col("x") <= top))
        assert fs[-1] == pytest.approx(mine["fraction"].max(), rel=1e-4)
    assert "thin lines: each instance alone" in subtitle(spec)
    # the legend stays the lines' (strokes at full opacity), drawn after the faint lines
    legend = node["encoding"]["color"]["legend"]
    assert legend["symbolType"] == "stroke" and legend["symbolOpacity"] == 1


def test_band_points_by_hand():
    # one algorithm plotted to x = 100; steps at 2 and 2.01 fall into one bin of 0.02 in log10(x): the last is kept
    band = pl.DataFrame({"algorithm": ["a"] * 5, "x": [2.0, 2.01, 10.0, 50.0, 500.0],
                         "fraction": [0.1, 0.2, 0.2, 0.5, 0.9], "low": [0.05, 0.1, 0.15, 0.3, 0.8],
                         "high": [0.2, 0.3, 0.3, 0.7, 1.0]})
    summ = pl.DataFrame({"algorithm": ["a"], "max_x": [100.0]})
    got = band_points(band, summ, x_lo=1.0, resolution=0.02)
    assert got.rows() == [("a", 1.0, 0.0, 0.0, 0.0),      # zeros at the left edge
                          ("a", 2.01, 0.2, 0.1, 0.3),     # the bin's last step
                          ("a", 10.0, 0.2, 0.15, 0.3),    # only the lower bound rises: kept
                          ("a", 50.0, 0.5, 0.3, 0.7),
                          ("a", 100.0, 0.5, 0.3, 0.7)]    # held to max_x; the step at 500 is beyond it
    inst = pl.DataFrame({"algorithm": ["a"] * 3, "instance": [1, 1, 2], "x": [3.0, 200.0, 5.0],
                         "fraction": [0.5, 1.0, 0.25]})
    lines = instance_lines(inst, summ, x_lo=1.0)
    assert lines.rows() == [("a", 1, 1.0, 0.0), ("a", 1, 3.0, 0.5), ("a", 1, 100.0, 0.5),
                            ("a", 2, 1.0, 0.0), ("a", 2, 5.0, 0.25), ("a", 2, 100.0, 0.25)]


def test_cli_band_options(store, tmp_path):
    out = tmp_path / "band.png"
    r = cli("chart", "ecdf", "--store", store.path, "-a", "NM", "-a", "RS", "-d", "2", "-O", "mode=trials",
            "-O", "replicates=20", "--band", "--level", "0.9", "--per-instance", "--out", out)
    assert r.returncode == 0, r.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    r = cli("chart", "ecdf", "--store", store.path, "--level", "0.9", "--out", out)
    assert r.returncode == 1 and r.stderr.startswith("error: --level applies to the band") and "Traceback" not in r.stderr
    r = cli("chart", "scaling", "--store", store.path, "--band", "--out", out)
    assert r.returncode == 1 and "--band does not apply" in r.stderr
    r = cli("chart", "ecdf", "--store", store.path, "--band", "--level", "95", "--out", out)
    assert r.returncode == 1 and "--level 95: expected a number in (0, 1)" in r.stderr  # as Python says it
