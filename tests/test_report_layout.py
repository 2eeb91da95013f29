"""The report's layout on tiny hand-made logs: page names that never collide, one number format,
colours that stay with an algorithm, charts whose marks stay inside their panels and whose small
multiples share their axes. (The browser side is tests/test_report_browser.py.)
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from logs import write_new2
from pipeline.api import open_store
from pipeline.ingest import ingest
from pipeline.report import Settings, build
from pipeline.store import Store


def _trials(evals: int, best: float) -> list[dict]:
    return [dict(instance=i, dat=[(1, 50.0), (evals, best)]) for i in (1, 2, 3)]


def _store(root: Path, algorithms: dict[str, tuple[int, float]]) -> Path:
    """A store of the given algorithms, each with (evaluations, final precision) on f1 and f15 in 2-D and 5-D."""
    for i, (alg, (evals, best)) in enumerate(algorithms.items()):
        for f in (1, 15):
            for d in (2, 5):
                write_new2(root / f"alg{i}", alg=alg, function=f, dim=d, runs=_trials(evals, best))
    st = Store(root / "store", create=True)
    ingest([root / f"alg{i}" for i in range(len(algorithms))], st)
    return root / "store"


# -- page names (issue 20) -----------------------------------------------------------------------
def test_names_without_readable_letters_get_their_own_page(tmp_path):
    """'..' and 'αβγ' leave no ASCII letter: each still has its own page (they both became alg-x.html)."""
    store = _store(tmp_path, {"..": (10, 1e-9), "αβγ": (50, 1e-3)})
    out = tmp_path / "report"
    build(open_store(store), out, Settings(reference="none", table_samples=20), jobs=1)
    alg_pages = sorted(out.glob("alg-*.html"))
    assert len(alg_pages) == 2
    titles = {re.search(r"<h1>(.*?)</h1>", p.read_text(encoding="utf-8")).group(1) for p in alg_pages}
    assert titles == {"..", "αβγ"}
    # the navigation of every page links both, and the ids of the pairwise pages are unique
    nav = (out / "index.html").read_text(encoding="utf-8")
    assert all(f'href="{p.name}"' in nav for p in alg_pages)
    pair_pages = sorted(out.glob("pair*.html"))
    assert len(pair_pages) == 2 and all(f'href="{p.name}"' in nav for p in pair_pages)  # the tests, the one pair
    for page in pair_pages:
        ids = re.findall(r'\bid="([^"]+)"', page.read_text(encoding="utf-8"))
        assert len(ids) == len(set(ids)), page.name


def test_unique_slugs_are_readable_where_they_can_be():
    from pipeline.report.figures import unique_slugs

    s = unique_slugs(["DIRECT", "NM", "nm", "..", "αβγ", "Müller-ES", "a b", "a-b"])
    assert s["DIRECT"] == "direct" and s["Müller-ES"] == "muller-es"
    assert len(set(s.values())) == len(s)  # different names, different slugs, even ignoring case
    assert s["NM"].startswith("nm-") and s["nm"].startswith("nm-") and s["a b"].startswith("a-b-")
    assert re.fullmatch(r"[0-9a-f]{8}", s[".."]) and re.fullmatch(r"[0-9a-f]{8}", s["αβγ"])
    assert unique_slugs(["NM", "DIRECT"]) == {"NM": "nm", "DIRECT": "direct"}  # no digits where none are needed


# -- a report of three algorithms: R (the reference), P (the same trials as R), Q (slower) -------------
@pytest.fixture(scope="module")
def three(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("layout")
    store = _store(root, {"R": (10, 1e-9), "P": (10, 1e-9), "Q": (50, 1e-3)})
    out = root / "report"
    build(open_store(store), out, Settings(reference="R", table_samples=20), jobs=1)
    return out


NUMBER = re.compile(r"^-?(\d+(?:\.\d+)?)(?:e-?\d+)?$")


def significant_digits(text: str) -> tuple[int, bool]:
    """(significant digits, whether a decimal point or exponent fixes them) of a number as written."""
    mantissa = NUMBER.match(text).group(1)
    digits = mantissa.replace(".", "").lstrip("0")
    return len(digits), "." in mantissa or "e" in text


def test_table_numbers_follow_one_rule(three):
    """Every number with a fraction or an exponent in the report's tables shows two significant digits
    (P's aRT equals R's: its ratio 1 was written "1" beside "1.0" and "1.00"; ranks and p-values had 3-4)."""
    seen = []
    for page in (*sorted(p.name for p in three.glob("tables-*.html")), "alg-p.html", "ranking.html"):
        text = (three / page).read_text(encoding="utf-8")
        for cell in re.findall(r"<td[^>]*>(.*?)</td>", text, re.S):
            for token in re.findall(r"[-\d.e]+", re.sub(r"<[^>]+>", " ", cell)):
                # integers are counts or evaluations; 1e-k are targets (a measured 1e-3 is 1.0e-3)
                if NUMBER.match(token) and not re.fullmatch(r"\d+|1e[-+]?\d+", token):
                    seen.append((page, token))
    assert any(t == "1.0" for _, t in seen)  # P / R
    bad = [(p, t) for p, t in seen if significant_digits(t) != (2, True)]
    assert not bad, bad[:10]


def legend_colours(page: Path) -> dict[str, str]:
    """{algorithm: colour} of the page's legend."""
    text = page.read_text(encoding="utf-8")
    return dict(re.findall(r'data-algorithm="([^"]+)"><span class="swatch[^"]*" style="background: ([^"]+)"', text))


def test_an_algorithm_keeps_its_colour_in_another_report(three, tmp_path):
    """Q has the same colour in a report of P and Q as in a report of Q alone (it took the second
    colour after P before); the settings can fix it."""
    store = Path(str(three).replace("/report", "/store"))
    alone = tmp_path / "alone"
    build(open_store(store), alone, Settings(algorithms=["Q"], reference="none", table_samples=20), jobs=1)
    both = legend_colours(three / "ecdf-2d.html")
    assert set(both) == {"P", "Q", "R"}
    assert legend_colours(alone / "ecdf-2d.html")["Q"] == both["Q"]
    fixed = tmp_path / "fixed"
    build(open_store(store), fixed, Settings(algorithms=["Q"], reference="none", table_samples=20,
                                             colours={"Q": ["#123456", "square"]}), jobs=1)
    assert legend_colours(fixed / "ecdf-2d.html")["Q"] == "#123456"
    assert '"#123456"' in (fixed / "index.html").read_text(encoding="utf-8")  # in the charts' colour scales


def test_a_malformed_colour_setting_is_an_error():
    from pipeline.report import SettingsError

    with pytest.raises(SettingsError, match="colours"):
        Settings(colours={"Q": ["#123456", "square", "extra"]}).check()
    with pytest.raises(SettingsError, match="colours"):
        Settings(colours=["#123456"]).check()


# -- axes shared by small multiples ---------------------------------------------------------------
def x_domains(spec: dict) -> set[tuple[float, float]]:
    """The domains of the x scales of a chart's layers that draw the field "x"."""
    out = set()

    def walk(node):
        if isinstance(node, dict):
            x = node.get("encoding", {}).get("x", {})
            if isinstance(x, dict) and x.get("field") == "x" and "domain" in x.get("scale", {}):
                out.add(tuple(x["scale"]["domain"]))
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(spec)
    return out


def test_the_ecdfs_of_a_suite_share_one_x_range(tmp_path):
    """A function whose trials stop after 2 evaluations and one whose trials run 1000 (exact ECDFs
    end at the largest budget): every ECDF of the report, per dimension, group and function, spans
    the same x range (it went to 1 for f1 and to 1000 for f15)."""
    from test_report import specs

    root = tmp_path
    for f, (evals, best) in {1: (2, 1e-9), 15: (1000, 1e-3)}.items():
        for alg in ("A", "B"):
            for d in (2, 5):
                write_new2(root / alg, alg=alg, function=f, dim=d, runs=_trials(evals if alg == "A" else 2 * evals, best))
    st = Store(root / "store", create=True)
    ingest([root / "A", root / "B"], st)
    out = root / "report"
    build(open_store(root / "store"), out, Settings(reference="none", mode="exact", table_samples=20), jobs=1)
    ranges = set()
    for page in ("index.html", *[p.name for p in out.glob("ecdf-*.html")]):
        for name, spec in specs((out / page).read_text(encoding="utf-8"), out).items():
            if "profile" in name:  # the overview's profiles: work ratios, not evaluations
                continue
            assert len(x_domains(spec)) == 1, name
            ranges |= x_domains(spec)
    assert len(ranges) == 1
    (lo, hi), = ranges
    assert lo <= 2 / 5 and hi >= 2 * 1000 / 2  # from the first hit in 5-D to twice the largest budget in 2-D


def test_scaling_panels_give_their_ranges_and_keep_marks_inside():
    """Every panel of the scaling figure has an explicit y range around all it draws (its points,
    crosses at the median budget of unsuccessful trials): two rows of its own in the facet's table,
    drawn invisibly, so that Vega computes no panel's range from an empty layer; the scale is padded
    by pixels, so that the marks at the range's ends stay inside the panel, and not made nice."""
    import polars as pl

    from pipeline.charts import panels
    from pipeline.charts.scaling import scaling_chart

    art = pl.DataFrame({
        "suite": "bbob", "algorithm": ["A"] * 4 + ["B"] * 4, "function": [1, 1, 2, 2] * 2, "dimension": [2, 5] * 4,
        "target": 1e-8, "art": [20.0, 500.0, float("inf"), float("inf"), 40.0, 1e5, 8.0, float("inf")],
        "successes": [15.0, 15.0, 0.0, 0.0, 15.0, 3.0, 15.0, 0.0], "runs": 15.0, "success_rate": 1.0,
        "median_unsuccessful_evaluations": [None, None, 1e4, 3e4, None, 2e5, None, 5e3]})
    spec = scaling_chart(art, series="algorithm").to_dict()
    assert "concat" not in spec and spec["facet"]["sort"] == ["f1", "f2"]
    assert spec["resolve"]["scale"]["y"] == "independent"
    y = spec["spec"]["encoding"]["y"]["scale"]
    assert y["padding"] == panels.PADDING and y["nice"] is False and "domain" not in y
    rows = spec["datasets"][spec["data"]["name"]]
    ranges = {}
    for r in rows:
        if r.get(panels.RANGE) is not None:
            ranges.setdefault(r["function"], []).append(r[panels.RANGE])
    assert sorted(ranges) == [1, 2] and all(len(v) == 2 for v in ranges.values())
    invisible = [lay for lay in spec["spec"]["layer"] if lay["encoding"].get("y", {}).get("field") == panels.RANGE]
    assert len(invisible) == 1 and invisible[0]["encoding"]["opacity"] == {"value": 0}
    for f, (lo, hi) in ranges.items():
        drawn = art.filter(pl.col("function") == f)
        vals = [v / d for v, d in zip(drawn["art"], drawn["dimension"]) if v != float("inf")]
        vals += [v / d for v, d, k in zip(drawn["median_unsuccessful_evaluations"], drawn["dimension"],
                                          drawn["successes"]) if k == 0]
        assert lo <= min(vals) and max(vals) <= hi
    # f2: A never succeeds (crosses only), B in 2-D: the range holds both
    assert ranges[2][0] <= 4 and ranges[2][1] >= 3e4 / 5
