"""Charts: every kind built from real shared data, its spec checked against the measures it draws
(values that could be wrong), and rendered to SVG and PNG; the theme, thinning and export on
hand-made data."""
from __future__ import annotations

import io
import json
import math
import random
import re
import subprocess
import sys

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings, strategies as st

from conftest import SHARED, shared_or_skip
from pipeline.api import Analysis
from pipeline.charts import export, theme
from pipeline.charts.ecdf import dodge, ecdf_chart, thin, value_at
from pipeline.ingest import ingest
from pipeline.recipes import KIND_NAMES
from pipeline.recipes.kinds import KINDS, chart, options
from pipeline.store import Store

SOURCES = ["real/DIRECT_posik_noiseless.tgz", "generated/NM_on_bbob.tgz", "generated/RS_on_bbob.tgz"]
REF = "best2009-bbob"


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    shared_or_skip()
    st = Store(tmp_path_factory.mktemp("charts"), create=True)
    ingest([SHARED / "data" / p for p in SOURCES] + [SHARED / "data" / "refalgs" / "best2009-bbob.tar.gz"], st)
    return st


@pytest.fixture(scope="module")
def three(store):
    """DIRECT, NM and RS (the reference set is in the store too, left out here)."""
    return Analysis(store, algorithm=["DIRECT", "NM", "RS"])


# -- spec helpers ---------------------------------------------------------------------------------
def table(spec: dict, ref: dict) -> list[dict]:
    """The rows of the spec's table `ref` names: JSON rows, or CSV text (`theme.data`'s large tables) read back."""
    values = spec["datasets"][ref["name"]]
    if isinstance(values, str):
        assert ref["format"]["type"] == "csv"
        return pl.read_csv(io.StringIO(values), infer_schema_length=None).to_dicts()
    return values


def marks(spec: dict) -> list[tuple[dict, list[dict]]]:
    """Every (unit spec with a mark, its data rows), data and encodings inherited from the parents
    (a unit with inherited encodings is a copy with them merged in)."""
    def rows(d, inherited):
        if not d:
            return inherited
        if "name" in d:
            return table(spec, d)
        return d.get("values", inherited)

    out = []

    def walk(node, inherited, encoding):
        if isinstance(node, dict):
            here = rows(node.get("data"), inherited)
            enc = {**encoding, **node.get("encoding", {})}
            if "mark" in node:
                out.append((node if enc == node.get("encoding", {}) else {**node, "encoding": enc}, here))
            for key in ("layer", "concat", "hconcat", "vconcat"):
                for child in node.get(key, []):
                    walk(child, here, enc if key == "layer" else {})
            if "spec" in node:
                walk(node["spec"], here, {})

    walk(spec, [], {})
    return out


def mark_type(node: dict) -> str:
    m = node["mark"]
    return m if isinstance(m, str) else m["type"]


def find(spec: dict, kind: str, **props) -> list[tuple[dict, list[dict]]]:
    """Units of a mark type whose mark has the given properties."""
    return [(n, r) for n, r in marks(spec) if mark_type(n) == kind
            and all(isinstance(n["mark"], dict) and n["mark"].get(k) == v for k, v in props.items())]


def rendered(c, tmp_path, name: str) -> dict:
    """The chart's spec after writing it as SVG and PNG (checked to be real images) and JSON."""
    svg = export.save(c, tmp_path / f"{name}.svg")
    png = export.save(c, tmp_path / f"{name}.png")
    js = export.save(c, tmp_path / f"{name}.json")
    assert svg.read_text().lstrip().startswith("<svg") and "<path" in svg.read_text()
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 20_000
    return json.loads(js.read_text())


def panel_rows(spec: dict) -> list[dict]:
    """The rows a chart of panels draws (a facet's table without the rows giving each panel's y range)."""
    from pipeline.charts.panels import RANGE

    return [r for r in table(spec, spec["data"]) if r.get(RANGE) is None]


def subtitle(spec: dict) -> str:
    t = spec["title"]
    return " ".join(t["subtitle"]) if isinstance(t["subtitle"], list) else t["subtitle"]


# -- theme, thinning, export on hand-made data -----------------------------------------------------------
def test_palette_is_stable_distinct_and_keeps_the_reference_grey():
    algs = [f"A{i}" for i in range(20)]
    p = theme.palette(algs, reference="A3")
    assert list(p) == algs
    assert p["A3"] == (theme.REFERENCE_COLOUR, "diamond")
    others = [v for k, v in p.items() if k != "A3"]
    assert len(set(others)) == len(others)  # colour and marker together tell every algorithm apart
    assert all(c != theme.REFERENCE_COLOUR and s != "diamond" for c, s in others)
    assert len({c for c, _ in theme.palette(algs[:8]).values()}) == 8  # a colour each while there are enough
    ext = theme.extend({"B": ("#123456", "square")}, ["A0", "B"])
    assert ext["B"] == ("#123456", "square") and ext["A0"] != ext["B"]
    fixed = theme.palette(["A0", "A1"], fixed={"A1": (theme.palette(["A0"])["A0"][0], None)})
    assert fixed["A1"][0] == theme.palette(["A0"])["A0"][0] != fixed["A0"][0]  # a fixed colour is A1's alone


def test_an_algorithm_keeps_its_colour_from_one_report_to_the_next():
    """An algorithm's colour and marker come from its name: the same whatever other algorithms a
    report shows, in whatever order, unless one before it in name order chose the same colour."""
    own = {}  # three names that choose different colours alone
    for name in ("DIRECT", "NM", "RS", "CMA-ES", "BFGS", "DE", "PSO", "GA", "MCS", "LSstep"):
        if theme.palette([name])[name][0] not in {c for c, _ in own.values()} and len(own) < 3:
            own[name] = theme.palette([name])[name]
    a, b, c = own
    for report in ([a, b], [c, a], [c, b, a], [a, b, c, "ZZZ"], [b, "AAA"]):
        pal = theme.palette(report, reference="AAA")
        assert all(pal[x] == own[x] for x in report if x in own), report
    # over many reports of 2-6 algorithms drawn from 30 names, most keep the colour they have alone (8 colours:
    # at best about 77 %, as a uniform choice of colours collides that often; the old order-based palette: 36 %)
    rng = random.Random(1)
    pool = [f"alg{i}" for i in range(30)]
    alone = {a: theme.palette([a])[a][0] for a in pool}
    kept = total = 0
    for _ in range(300):
        report = rng.sample(pool, rng.randint(2, 6))
        pal = theme.palette(report)
        kept += sum(pal[a][0] == alone[a] for a in report)
        total += len(report)
    assert kept / total > 0.7


def test_thin_merges_close_steps_without_rising_early_and_keeps_the_last():
    s = pl.DataFrame({"algorithm": ["a"] * 5, "x": [1.0, 1.001, 1.002, 10.0, 10.01],
                      "fraction": [0.1, 0.2, 0.3, 0.5, 0.6]})
    t = thin(s, 0.02)
    assert t["x"].to_list() == [1.002, 10.01]  # the largest x of each bin
    assert t["fraction"].to_list() == [0.3, 0.6]
    # the thinned line is never above the original one anywhere
    probe = pl.DataFrame({"algorithm": ["a"] * 6, "x": [0.5, 1.0, 1.0015, 5.0, 10.0, 20.0]})
    assert (value_at(t, probe)["fraction"] <= value_at(s, probe)["fraction"]).all()
    assert value_at(t, probe)["fraction"].to_list() == [0.0, 0.0, 0.0, 0.3, 0.3, 0.6]


def test_dodge_keeps_labels_apart_and_in_range():
    ys = dodge([0.5, 0.5, 0.49, 0.02, 0.0], gap=0.05)
    assert sorted(ys, reverse=True) == [ys[0], ys[1], ys[2], ys[3], ys[4]]
    assert all(a - b >= 0.05 - 1e-12 for a, b in zip(sorted(ys, reverse=True), sorted(ys, reverse=True)[1:]))
    assert min(ys) >= -0.02 and ys[0] == 0.5
    assert dodge([0.9, 0.1], gap=0.05) == [0.9, 0.1]  # far apart: left where they are


def test_export_formats(tmp_path):
    import altair as alt

    c = alt.Chart(theme.data(pl.DataFrame({"x": [1.0, 10.0, math.inf], "y": [0.1, 0.5, float("nan")]}))).mark_line().encode(
        x=alt.X("x:Q", scale=theme.log_scale()), y="y:Q")
    c = theme.finish(c, "t", ["settings line"])
    spec = json.loads(export.save(c, tmp_path / "c.json").read_text())
    assert marks(spec)[0][1][2] == {"x": None, "y": None}  # inf and NaN become null: valid JSON
    assert export.save(c, tmp_path / "c.pdf").read_bytes()[:5] == b"%PDF-"
    html = export.save(c, tmp_path / "c.html").read_text()
    assert "settings line" in html and "vega" in html.lower() and "cdn.jsdelivr" not in html  # offline
    with pytest.raises(ValueError, match="unknown chart format"):
        export.save(c, tmp_path / "c.gif")


def test_kind_names_listed_for_the_cli():
    assert tuple(KINDS) == KIND_NAMES
    assert "samples" in options("ecdf") and "reference" in options("logloss")


# -- ECDF -----------------------------------------------------------------------------------------------
def ecdf_tables(a, **kw):
    from pipeline.recipes.inputs import ecdf_tables as tables

    return tables(a, **kw)


def test_ecdf_chart_matches_the_measure(three, tmp_path):
    a = three.select(dimension=5)
    c = chart("ecdf", a, reference="best2009", samples=50)
    spec = rendered(c, tmp_path, "ecdf")
    steps, summ = ecdf_tables(a, group="all", samples=50)
    (dots, dot_rows), = find(spec, "point", size=70)
    got = {r["algorithm"]: r["final_fraction"] for r in dot_rows}
    want = dict(zip(summ["algorithm"], summ["final_fraction"]))
    assert set(got) == {"DIRECT", "NM", "RS", REF}
    for alg in ("DIRECT", "NM", "RS"):
        assert got[alg] == pytest.approx(want[alg], rel=1e-4)
    # the dot is the fraction of (function, target, trial) triples solved: from the hits themselves
    h = a.hits().collect()
    rate = h.group_by("algorithm", "function", "target").agg(r=(pl.col("success") * pl.col("weight")).sum()
                                                            / pl.col("weight").sum())
    for alg, r in rate.group_by("algorithm").agg(pl.col("r").mean()).iter_rows():
        assert got[alg] == pytest.approx(r, rel=1e-4)
    # crosses at the median of the trials' evaluations / dimension; none for the reference
    (_, cross_rows), = find(spec, "point", shape="cross")
    r = a.runs().collect()
    med = r.group_by("algorithm").agg((pl.col("evaluations") / pl.col("dimension")).median())
    assert {x["algorithm"]: x["cross_x"] for x in cross_rows} == pytest.approx(dict(med.iter_rows()), rel=1e-4)
    # step lines on a log axis in evaluations / dimension; the reference thick and grey
    lines = find(spec, "line", interpolate="step-after")
    assert len(lines) == 2
    ref_line = [n for n, _ in lines if n["mark"].get("strokeWidth") == theme.REFERENCE_WIDTH]
    assert ref_line and ref_line[0]["encoding"]["x"]["scale"]["type"] == "log"
    assert ref_line[0]["encoding"]["x"]["axis"]["title"] == "evaluations / dimension"
    colours = ref_line[0]["encoding"]["color"]["scale"]
    assert dict(zip(colours["domain"], colours["range"]))[REF] == theme.REFERENCE_COLOUR
    # each line reaches, at its end, the measure's fraction at the plotted range (never above it)
    line_rows = [row for _, rows in lines for row in rows]
    for alg in ("DIRECT", "NM"):
        pts = [row for row in line_rows if row["algorithm"] == alg]
        s = steps.filter(pl.col("algorithm") == alg)
        top = summ.filter(pl.col("algorithm") == alg)["max_x"][0]
        assert pts[-1]["x"] == pytest.approx(top, rel=1e-4)
        assert pts[-1]["fraction"] == pytest.approx(s.filter(pl.col("x") <= top)["fraction"].max(), rel=1e-4)
        assert all(p["fraction"] <= q["fraction"] for p, q in zip(pts, pts[1:]))
    # names beside the dots, the settings in the subtitle
    (_, labels), = find(spec, "text")
    assert {x["algorithm"] for x in labels} == set(got)
    sub = subtitle(spec)
    for words in ("5-D", "51 targets", "50 samples, seed 1", "no budget cut", "instances as cocopp", REF):
        assert words in sub
    assert len(json.dumps(spec)) < 400_000  # steps thinned: small enough for a report page


def test_ecdf_one_chart_per_dimension_and_group_share_colours(three):
    c = chart("ecdf", three.select(dimension=[2, 10]), group=["all", "separ"], mode="trials")
    spec = c.to_dict()
    assert len(spec["concat"]) == 4
    titles = [s["title"]["text"] for s in spec["concat"]]
    assert titles == ["ECDF of runtimes, 2-D, all functions", "ECDF of runtimes, 2-D, separ",
                      "ECDF of runtimes, 10-D, all functions", "ECDF of runtimes, 10-D, separ"]
    scales = {json.dumps(n["encoding"]["color"]["scale"], sort_keys=True) for n, _ in marks(spec)
              if "color" in n.get("encoding", {}) and "scale" in n["encoding"]["color"]}
    maps = [dict(zip(json.loads(s)["domain"], json.loads(s)["range"])) for s in scales]
    for alg in ("DIRECT", "NM", "RS"):
        assert len({m[alg] for m in maps if alg in m}) == 1  # one colour per algorithm in every panel


def test_ecdf_chart_function_refuses_two_dimensions(three):
    steps, summ = ecdf_tables(three.select(dimension=[2, 3]), mode="trials")
    with pytest.raises(ValueError, match="one dimension and group"):
        ecdf_chart(steps, summ)


# -- scaling ------------------------------------------------------------------------------------------
def test_scaling_one_algorithm_shows_art_per_dimension(store, tmp_path):
    a = Analysis(store, algorithm="DIRECT", function=[1, 7, 15])
    spec = rendered(chart("scaling", a), tmp_path, "scaling1")
    assert spec["facet"]["sort"] == ["f1", "f7", "f15"]  # a panel per function
    rows = panel_rows(spec)
    art = a.art("scaling").collect()
    want = {(r["function"], r["dimension"], r["target"]): r["art"] / r["dimension"]
            for r in art.iter_rows(named=True) if math.isfinite(r["art"])}
    got = {(r["function"], r["dimension"], r["target"]): r["art_per_dimension"] for r in rows
           if r["art_per_dimension"] is not None}
    assert got.keys() == want.keys() and len(got) > 20
    assert all(got[k] == pytest.approx(want[k], rel=1e-4) for k in want)
    # partial successes of the hardest target annotated k/n
    part = art.filter((pl.col("successes") > 0) & (pl.col("successes") < pl.col("runs")) & (pl.col("target") == 1e-8))
    assert {(r["function"], r["dimension"]): r["label"] for r in rows if r["hardest"] and r["label"]} == {
        (f, d): f"{int(k)}/{int(n)}" for f, d, k, n in part.select("function", "dimension", "successes", "runs").iter_rows()}
    assert part.height > 0
    # no success: the median evaluations / dimension of the trials
    none = art.filter((pl.col("successes") == 0) & (pl.col("target") == 1e-8))
    unsucc = {(r["function"], r["dimension"]): r["unsuccessful"] for r in rows if r["hardest"] and r["unsuccessful"]}
    for f, d, m in none.select("function", "dimension", "median_unsuccessful_evaluations").iter_rows():
        assert unsucc[(f, d)] == pytest.approx(m / d, rel=1e-4)
    panel = spec["spec"]
    assert {mark_type(n) for n in panel["layer"]} == {"line", "point", "text"}
    assert panel["encoding"]["x"]["scale"]["type"] == "log" and panel["encoding"]["y"]["scale"]["type"] == "log"
    assert "targets 10, 0.1, 1e-3, 1e-5, 1e-8" in subtitle(spec)


def test_scaling_many_algorithms_with_reference(three, tmp_path):
    a = three.select(function=[1, 2, 3])
    spec = rendered(chart("scaling", a, reference="best2009", target=1e-8), tmp_path, "scaling2")
    rows = panel_rows(spec)
    assert {r["algorithm"] for r in rows} == {"DIRECT", "NM", "RS", REF}
    assert {r["target"] for r in rows} == {1e-8}
    thick = [n for n in spec["spec"]["layer"] if isinstance(n["mark"], dict) and n["mark"].get("strokeWidth")]
    assert thick and thick[0]["transform"][0]["filter"].find(REF) >= 0


# -- two algorithms -----------------------------------------------------------------------------------
def test_scatter_points_are_the_two_arts(three, tmp_path):
    a = three.select(function=[1, 8, 20], dimension=[2, 5, 10])
    spec = rendered(chart("scatter", a, a_name="DIRECT", b_name="NM"), tmp_path, "scatter")
    (_, rows), = find(spec, "point")
    art = a.select(algorithm=["DIRECT", "NM"]).art().collect()
    arts = {(r["algorithm"], r["function"], r["dimension"], float(f"{r['target']:.4g}")): r["art"]
            for r in art.iter_rows(named=True)}  # the spec keeps 4 significant digits
    top = max(max(r["x"], r["y"]) for r in rows)
    assert len(rows) > 100
    for r in rows:
        key = (r["function_label"], r["dimension"], r["target"])
        xa = arts[("DIRECT", int(key[0][1:]), key[1], key[2])] / key[1]
        yb = arts[("NM", int(key[0][1:]), key[1], key[2])] / key[1]
        assert r["x"] == pytest.approx(xa if math.isfinite(xa) else top, rel=1e-3)
        assert r["y"] == pytest.approx(yb if math.isfinite(yb) else top, rel=1e-3)
        assert r["solved"] == ("both" if math.isfinite(xa) and math.isfinite(yb) else
                               "DIRECT only" if math.isfinite(xa) else "NM only")
    assert find(spec, "rule")  # the diagonal


def test_ratio_ecdf_counts_trial_pairs(three, tmp_path):
    a = three.select(dimension=5)
    spec = rendered(chart("ratio-ecdf", a, a_name="DIRECT", b_name="NM", targets=[1e-1]), tmp_path, "ratio")
    (_, rows), = find(spec, "line")
    # by hand: all pairs of DIRECT x NM trials per function at 0.1, left out where both failed
    h = a.select(algorithm=["DIRECT", "NM"]).hits([1e-1]).collect()
    rt = {k: np.where(g["success"], g["hit"], np.inf).astype(float)
          for k, g in h.partition_by("algorithm", "function", as_dict=True).items()}
    pairs = []
    for (alg, f), ra in rt.items():
        if alg == "DIRECT":
            rb = rt[("NM", f)]
            with np.errstate(invalid="ignore"):
                r = rb[None, :] / ra[:, None]
            pairs += [v for v in r.ravel() if not (np.isnan(v))]
    pairs = np.array(pairs)  # inf/inf is nan: both failed
    with np.errstate(divide="ignore"):
        lr = np.log10(pairs)  # -inf where only a failed, +inf where only b failed
    ends = [r["fraction"] for r in rows if r["x"] == 4.0]
    starts = [r["fraction"] for r in rows if r["x"] == -4.0]
    assert ends == [pytest.approx(np.mean(lr <= 4), rel=1e-4)]
    assert starts == [pytest.approx(np.mean(lr <= -4), rel=1e-4)]
    assert np.mean(lr == -np.inf) > 0 and np.mean(lr == np.inf) > 0  # both kinds of one-sided failure occur
    at = max(r["fraction"] for r in rows if r["x"] <= -1)
    assert np.mean(lr <= -1.02) * (1 - 1e-3) <= at <= np.mean(lr <= -1) * (1 + 1e-3)  # steps merged within 0.02


def test_art_ratio_versus_target(three, tmp_path):
    a = three.select(function=[2, 9], dimension=[2, 5])
    spec = rendered(chart("art-ratio", a, a_name="DIRECT", b_name="NM"), tmp_path, "artratio")
    (_, rows), = find(spec, "line")
    art = a.select(algorithm=["DIRECT", "NM"]).art().collect()
    p = art.pivot("algorithm", index=["function", "dimension", "target"], values="art")
    cells = p.select("function", "dimension", "target", "DIRECT", "NM").iter_rows()
    want = {(f"f{f}", d, float(f"{t:.4g}")): n / dd for f, d, t, dd, n in cells if math.isfinite(dd) and math.isfinite(n)}
    got = {(r["function_label"], r["dimension"], r["target"]): r["ratio"] for r in rows}
    assert got.keys() == want.keys() and len(got) > 50
    assert all(got[k] == pytest.approx(want[k], rel=1e-3) for k in want)


# -- distributions ----------------------------------------------------------------------------------
def test_runtime_ecdf_per_target(three, tmp_path):
    a = three.select(dimension=3, algorithm=["DIRECT", "RS"])
    spec = rendered(chart("rt-ecdf", a, group="separ"), tmp_path, "rtecdf")
    rows = table(spec, spec["data"])
    h = a.hits([1e1, 1e-1, 1e-4, 1e-8]).collect().filter(pl.col("function") <= 5)
    want = h.group_by("algorithm", "target").agg(
        f=(pl.col("success") * pl.col("weight")).sum() / pl.col("weight").sum(),
        n=pl.col("function").filter("success").n_unique())
    ends = {(r["algorithm"], r["target"]): (r["final_fraction"], r["solved"]) for r in rows if r["kind"] == "end"}
    assert len(ends) == 8
    for alg, t, f, n in want.iter_rows():
        assert ends[(alg, t)][0] == pytest.approx(f, rel=1e-4)
        assert ends[(alg, t)][1] == f"{n}/5"
    assert "targets 10, 0.1, 1e-4, 1e-8" in subtitle(spec)


def test_precision_ecdf_at_fixed_budgets(three, tmp_path):
    a = three.select(dimension=2, algorithm="NM")
    spec = rendered(chart("precision-ecdf", a, budgets=[10, 100]), tmp_path, "precision")
    (node, rows), = find(spec, "line")
    assert node["encoding"]["color"]["scale"]["domain"] == ["10 x D", "100 x D", "final"]
    v = a.fixed_budget([10, 100], per_dimension=True, summary=False).collect()
    r = a.runs().collect()
    for label, vals in (("10 x D", v.filter(pl.col("budget") == 10)["best_delta"]),
                        ("100 x D", v.filter(pl.col("budget") == 100)["best_delta"]),
                        ("final", r["final_delta"])):
        pts = [x for x in rows if x["budget"] == label]
        at_floor = max(x["fraction"] for x in pts if x["x"] <= 1e-8)
        assert at_floor == pytest.approx((vals.fill_null(np.inf) <= 1e-8).mean(), rel=1e-4)
        assert max(x["fraction"] for x in pts) == pytest.approx(vals.is_not_null().mean(), rel=1e-4)
        at_one = max(x["fraction"] for x in pts if x["x"] <= 1.0)
        assert at_one == pytest.approx((vals.fill_null(np.inf) <= 1.0).mean(), abs=0.03)  # bins of 10^0.05


def test_logloss_against_the_reference(three, tmp_path):
    a = three.select(dimension=5, algorithm=["DIRECT", "NM"])
    spec = rendered(chart("logloss", a, reference="best2009"), tmp_path, "logloss")
    (_, rows), = find(spec, "line")
    assert {r["algorithm"] for r in rows} == {"DIRECT", "NM"}
    assert all(r["p10"] <= r["p50"] <= r["p90"] and r["functions"] <= 24 for r in rows)
    assert all(r["min"] <= r["geomean"] <= r["max"] and r["p25"] <= r["p75"] for r in rows)
    assert max(r["x"] for r in rows) <= a.runs().select(pl.col("evaluations").max()).collect().item() / 5
    assert spec["title"]["text"] == f"aRT loss ratio versus {REF}"


def test_a_loss_chart_with_no_finite_ratio_says_so_in_a_chart_of_bounded_size():
    # no algorithm reached a target its reference reached: no rows, no panel; Vega sized a facet of no panels
    # 1.8e308 px wide (seen in a bbob-biobj report)
    from pipeline.charts.logloss import logloss_chart
    from pipeline.measures.logloss import LOSS_KEY

    empty = pl.DataFrame(schema={**{k: pl.Utf8 for k in LOSS_KEY}, "dimension": pl.Int32, "x": pl.Float64})
    svg = export.render(logloss_chart(empty, "GAUSS"), "svg")
    width, height = (float(v) for v in re.search(r'<svg[^>]* width="([0-9.]+)" height="([0-9.]+)"', svg).groups())
    assert width < 2000 and height < 500
    assert "No finite aRT loss ratio" in svg and "GAUSS" in svg


def test_convergence_median_and_band(three, tmp_path):
    a = three.select(function=[1, 10])
    spec = rendered(chart("convergence", a, dimension=10, runs=True), tmp_path, "convergence")
    rows = panel_rows(spec)
    summ = {(r["algorithm"], r["function_label"], r["budget"]): r for r in rows if r["kind"] == "summary"}
    grid = sorted({k[2] for k in summ})
    fb = a.select(dimension=10).fixed_budget(grid, per_dimension=True).collect()
    checked = 0
    for r in fb.filter(pl.col("runs_with_data") > 0).iter_rows(named=True):
        key = (r["algorithm"], f"f{r['function']}", r["budget"])
        if key in summ:  # rows that do not change the step are left out
            assert summ[key]["median"] == pytest.approx(max(r["median"], 1e-9), rel=1e-3)
            assert summ[key]["q25"] == pytest.approx(max(r["q25"], 1e-9), rel=1e-3)
            checked += 1
    assert checked > 30
    assert {r["kind"] for r in rows} == {"summary", "run"}
    assert find(spec, "area") and "10-D" in subtitle(spec)
    from pipeline.charts.convergence import convergence_chart

    with pytest.raises(ValueError, match="one dimension"):
        convergence_chart(pl.concat([fb, fb.with_columns(dimension=pl.lit(20, fb.schema["dimension"]))]))


def test_profile_chart_matches_profile_summary(three, tmp_path):
    if not hasattr(Analysis, "profile"):
        pytest.skip("Analysis.profile not available")
    a = three.select(dimension=3)
    spec = rendered(chart("profile", a), tmp_path, "profile")
    (_, dots), = find(spec, "point", size=70)
    want = dict(a.profile_summary(group="all").collect().select("algorithm", "final_value").iter_rows())
    assert {r["algorithm"]: r["final_fraction"] for r in dots} == pytest.approx(want, rel=1e-4)


# -- command line -------------------------------------------------------------------------------------
def cli(*args):
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *map(str, args)], capture_output=True, text=True)


def test_cli_chart(store, tmp_path):
    out = tmp_path / "scaling.svg"
    r = cli("chart", "scaling", "--store", store.path, "-a", "DIRECT", "-f", "1", "-f", "2", "--out", out)
    assert r.returncode == 0, r.stderr
    assert out.read_text().lstrip().startswith("<svg")
    r = cli("chart", "ecdf", "--store", store.path, "--group", "nothing", "--out", tmp_path / "x.png")
    assert r.returncode == 1 and r.stderr.startswith("error: group nothing") and "Traceback" not in r.stderr
    r = cli("chart", "scatter", "--store", store.path, "--out", tmp_path / "x.png")
    assert r.returncode == 1 and "a_name" in r.stderr
    r = cli("chart", "ecdf", "--store", store.path, "-O", "sample=3", "--out", tmp_path / "x.png")
    assert r.returncode == 1 and "unknown option 'sample'" in r.stderr
    r = cli("chart", "pie", "--store", store.path, "--out", tmp_path / "x.png")
    assert r.returncode == 1 and "unknown chart kind" in r.stderr


def colour_maps(spec: dict) -> list[dict[str, str]]:
    """Every colour scale of a spec as {value: colour}."""
    return [dict(zip(n["encoding"]["color"]["scale"]["domain"], n["encoding"]["color"]["scale"]["range"]))
            for n, _ in marks(spec) if "scale" in n.get("encoding", {}).get("color", {})]


def test_one_palette_gives_an_algorithm_the_same_colour_in_every_chart(three):
    pal = theme.palette(["RS", "NM", "DIRECT", REF], reference=REF)  # a report's fixed order
    a = three.select(dimension=[2, 3], function=[1, 2, 3])
    specs = [chart("ecdf", a.select(dimension=2), palette=pal, mode="trials", reference=REF).to_dict(),
             chart("scaling", a, palette=pal, reference=REF).to_dict(),
             chart("logloss", a, palette=pal, reference=REF).to_dict(),
             chart("convergence", a, palette=pal, dimension=3).to_dict(),
             chart("profile", a.select(dimension=2), palette=pal, reference=REF).to_dict()]
    for spec in specs:
        maps = colour_maps(spec)
        assert maps
        for m in maps:
            for alg, colour in m.items():
                assert colour == pal[alg][0], (spec["title"], alg)


def test_alike_colours_never_share_a_marker():
    """Issue 32: RS and R-SHADE-10e2 came out in the two oranges with one marker; colours alike (the
    two oranges, the two blues) now get different markers."""
    pal = theme.palette(["DIRECT", "BrentSTEPqi", "NM", "RS", "R-SHADE-10e2", "best2009"], "best2009")
    for family in theme.FAMILIES:
        shapes = [s for c, s in pal.values() if c in family]
        assert len(shapes) == len(set(shapes)), pal
    assert {pal["RS"][0], pal["R-SHADE-10e2"][0]} == {"#D55E00", "#E69F00"}  # the case of the issue is there


def test_scaling_success_labels_stay_off_the_markers():
    """Issue 32: k/n labels overlapped the markers (f19-f22). They now sit in rows along the panel's top
    edge (pixel y from the top, not at a data value): a row per series, neighbouring dimensions a row apart."""
    from pipeline.charts.scaling import scaling_chart, scaling_table

    art = pl.DataFrame({"suite": "bbob", "algorithm": ["A", "A", "A", "B", "B"], "function": 1,
                        "dimension": [2, 3, 5, 2, 3], "target": 1e-8, "art": [10.0, 20.0, 40.0, 10.0, 30.0],
                        "successes": [1, 2, 3, 1, 5], "runs": [5] * 5, "success_rate": 0.5,
                        "median_unsuccessful_evaluations": 1.0})
    t = scaling_table(art, "algorithm")
    rows = {(a, d): r for a, d, r in t.select("algorithm", "dimension", "label_row").rows()}
    assert rows == {("A", 2): 0, ("A", 3): 1, ("A", 5): 0, ("B", 2): 2, ("B", 3): None}
    spec = scaling_chart(art, series="algorithm").to_dict()
    text = [lay for lay in spec["spec"]["layer"] if lay["mark"]["type"] == "text"]
    assert text and all(lay["encoding"]["y"] == {"value": 1} and lay["encoding"]["yOffset"]["field"] == "label_row"
                        for lay in text)


# -- the runtime ECDFs of a page prepared at once -----------------------------------------------------
@st.composite
def ecdf_tables_drawn(draw):
    """Steps and summary of a few (dimension, group, algorithm): nondecreasing fractions at increasing x,
    each line's budget and median maximal evaluations anywhere around them; some lines without steps."""
    steps, summ = [], []
    for d in (2, 5):
        for g in ("all", "f1"):
            for a in draw(st.lists(st.sampled_from(["A", "B", "C"]), min_size=1, max_size=3, unique=True)):
                n = draw(st.integers(0, 12))
                xs = sorted(draw(st.lists(st.floats(-1, 6), min_size=n, max_size=n, unique=True)))
                fs = sorted(draw(st.lists(st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.9, 1.0]), min_size=n, max_size=n)))
                steps += [(d, g, a, 10.0 ** x, f) for x, f in zip(xs, fs)]
                top = 10.0 ** draw(st.floats(-1, 7))
                med = draw(st.one_of(st.none(), st.floats(0.05, 1e7)))
                summ.append((d, g, a, draw(st.sampled_from([0.0, 0.3, 1.0])), top, med))
    schema = {"dimension": pl.Int64, "group": pl.String, "algorithm": pl.String}
    return (pl.DataFrame(steps, schema={**schema, "x": pl.Float64, "fraction": pl.Float64}, orient="row"),
            pl.DataFrame(summ, schema={**schema, "final_fraction": pl.Float64, "max_x": pl.Float64,
                                       "median_max_evaluations": pl.Float64}, orient="row"))


@settings(max_examples=60, deadline=None)
@given(ecdf_tables_drawn(), st.sampled_from([None, (0.01, 1e8)]))
def test_the_ecdfs_of_a_page_prepared_at_once_are_each_as_prepared_alone(tables, x_range):
    """`prepare_all` (the report's ECDF charts of a suite in one query) gives every chart exactly what
    `prepare` gives for its rows alone: the same line points, end marks (ranks, dodged label heights)
    and x domain, column order and types included (the report's bytes depend on them)."""
    from polars.testing import assert_frame_equal

    from pipeline.charts.ecdf import prepare, prepare_all

    steps, summ = tables
    together = prepare_all(steps, summ, gap=0.07, x_range=x_range)
    keys = summ.select("dimension", "group").unique().rows()
    assert sorted(together) == sorted(keys)
    for d, g in keys:
        one = (pl.col("dimension") == d) & (pl.col("group") == g)
        lines, ends, domain = prepare(steps.filter(one), summ.filter(one), gap=0.07, x_range=x_range)
        assert_frame_equal(together[(d, g)][0], lines)
        assert_frame_equal(together[(d, g)][1], ends)
        assert together[(d, g)][2] == domain


def test_scaling_success_labels_of_many_algorithms_stay_in_a_few_rows():
    """Twenty algorithms with partial successes made twenty rows of k/n labels, spilling out of the panels;
    at most LABEL_ROWS rows are written, the others' successes and runs stay in the tooltips."""
    from pipeline.charts.scaling import LABEL_ROWS, scaling_table

    algs = [f"A{i:02d}" for i in range(20)]
    art = pl.DataFrame({"suite": "bbob", "algorithm": algs, "function": 1, "dimension": 5, "target": 1e-8,
                        "art": 100.0, "successes": 2, "runs": 5, "success_rate": 0.4,
                        "median_unsuccessful_evaluations": 1.0})
    t = scaling_table(art, "algorithm")
    assert t["label_row"].drop_nulls().to_list() == list(range(LABEL_ROWS))
    assert t["label"].drop_nulls().to_list() == ["2/5"] * LABEL_ROWS
    assert t["successes"].to_list() == [2] * 20  # the tooltip's counts of every algorithm
