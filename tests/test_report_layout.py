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
    # the navigation of every page links both, and the ids of the pairwise page are unique
    nav = (out / "index.html").read_text(encoding="utf-8")
    assert all(f'href="{p.name}"' in nav for p in alg_pages)
    pairwise = (out / "pairwise.html").read_text(encoding="utf-8")
    ids = re.findall(r'\bid="([^"]+)"', pairwise)
    assert len(ids) == len(set(ids))


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
    for page in ("tables.html", "alg-p.html", "ranking.html"):
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
    both = legend_colours(three / "ecdf.html")
    assert set(both) == {"P", "Q", "R"}
    assert legend_colours(alone / "ecdf.html")["Q"] == both["Q"]
    fixed = tmp_path / "fixed"
    build(open_store(store), fixed, Settings(algorithms=["Q"], reference="none", table_samples=20,
                                             colours={"Q": ["#123456", "square"]}), jobs=1)
    assert legend_colours(fixed / "ecdf.html")["Q"] == "#123456"
    assert '"#123456"' in (fixed / "index.html").read_text(encoding="utf-8")  # in the charts' colour scales


def test_a_malformed_colour_setting_is_an_error():
    from pipeline.report import SettingsError

    with pytest.raises(SettingsError, match="colours"):
        Settings(colours={"Q": ["#123456", "square", "extra"]}).check()
    with pytest.raises(SettingsError, match="colours"):
        Settings(colours=["#123456"]).check()
