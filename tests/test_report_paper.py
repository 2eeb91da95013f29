"""The report's charts as a paper needs them (issue 32, item 3), on tiny hand-made logs.

Data: algorithms A and B on f1 (Sphere, separable) and f15 (Rastrigin, multi-modal) in 2-D and 5-D,
three instances each; R, the reference, also in 10-D (only the reference has data there). A reaches
Δf = 1e-9 on f1 after 10 evaluations and Δf = 1 on f15; B Δf = 1e-3 on both after 50; R Δf = 1e-9
after 5 evaluations everywhere.
"""
from __future__ import annotations

import json
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


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("paper-data")
    runs = {"A": {1: _trials(10, 1e-9), 15: _trials(10, 1.0)}, "B": {1: _trials(50, 1e-3), 15: _trials(50, 1e-3)},
            "R": {1: _trials(5, 1e-9), 15: _trials(5, 1e-9)}}
    for alg, by_f in runs.items():
        for f, trials in by_f.items():
            for d in (2, 5, 10) if alg == "R" else (2, 5):
                write_new2(root / alg, alg=alg, function=f, dim=d, runs=trials)
    st = Store(root / "store", create=True)
    ingest([root / a for a in runs], st)
    return root / "store"


@pytest.fixture(scope="module")
def report(store) -> Path:
    out = store.parent / "report"
    build(open_store(store), out, Settings(algorithms=["A", "B"], reference="R", table_samples=20), jobs=1)
    return out


def _specs(page: Path) -> dict[str, dict]:
    """{chart id: its spec (without tables)} of a page."""
    text = page.read_text(encoding="utf-8")
    return {m.group(1): json.loads(m.group(2)) for m in
            re.finditer(r'<script type="application/json" id="spec-([^"]+)">(.*?)</script>', text)}


def _titles(spec: dict) -> list[str]:
    t = spec.get("title")
    return [t["text"] if isinstance(t, dict) else t] if t else []


def _walk(node, key: str):
    """Every value of `key` anywhere in a spec."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k == key:
                yield v
            yield from _walk(v, key)
    elif isinstance(node, list):
        for v in node:
            yield from _walk(v, key)


def test_a_functions_chart_is_titled_with_its_name(report):
    titles = [t for page in sorted(report.glob("ecdf-*.html")) for s in _specs(page).values() for t in _titles(s)]
    assert "f1 Sphere, 2-D" in titles and "f15 Rastrigin, 5-D" in titles
    assert not [t for t in titles if re.fullmatch(r"f\d+, \d+-D", t)]


def test_what_an_ecdf_shows_is_said_once_per_section_not_under_every_chart(report):
    found = sorted(report.glob("ecdf-*.html"))
    assert [p.name for p in found] == ["ecdf-2d.html", "ecdf-5d.html"]  # a page per dimension
    text = "".join(p.read_text(encoding="utf-8") for p in found)
    sentence = "the fraction of (function, target, instance) problems solved within x evaluations"
    assert text.count(sentence) == text.count('<section id="ecdf-') == 2  # 2-D and 5-D
    captions = re.findall(r"<figcaption>(.*?)</figcaption>", text, re.S)
    assert len(captions) > 2 and not [c for c in captions if "problems solved" in c]


def test_the_y_axis_says_what_the_caption_says(report):
    for page in (*[p.name for p in report.glob("ecdf-*.html")], "index.html", "explore.html"):
        titles = [t for s in _specs(report / page).values() for a in _walk(s, "axis") if isinstance(a, dict)
                  for t in [a.get("title")] if t and "fraction" in str(t)]
        assert titles and all(t == ["fraction of problems", "(function, target, instance)"] for t in titles), page


def test_explorer_and_overview_share_the_x_range_and_the_explorer_only_the_compared_dimensions(report):
    def x_domains(spec):
        return {tuple(s["domain"]) for s in _walk(spec, "scale") if isinstance(s, dict) and s.get("type") == "log"}

    # the overview's ECDFs (not the profiles beside them, on work ratios)
    overview = set().union(*(x_domains(s) for n, s in _specs(report / "index.html").items() if n.startswith("ecdf-")))
    explorer = _specs(report / "explore.html")
    (spec,) = explorer.values()
    assert len(overview) == 1 and x_domains(spec) == overview
    dims = [p for p in spec["params"] if p["name"] == "dimension_shown"][0]["bind"]["options"]
    assert dims == [2, 5]  # not 10: only the reference R has data there


def test_function_groups_go_by_one_name_on_every_page(report):
    text = "".join(p.read_text(encoding="utf-8") for p in report.glob("*.html"))
    panels = [v for s in _specs(report / "alg-a.html").values() for f in _walk(s, "facet") if isinstance(f, dict)
              for v in (f.get("sort") or []) if isinstance(v, str)]
    assert any("Separable functions" in p for p in panels) and not any(re.search(r"\bsepar\b", p) for p in panels)
    assert "Separable functions" in text


def test_the_ranking_says_all_dimensions_not_dimension_0(report):
    text = (report / "ranking.html").read_text(encoding="utf-8")
    assert "<td>all</td>" in text and "<td>0</td>" not in text.split("Mean ranks of auc")[1].split("</table>")[0]
    assert "0: over all" not in text and "Dimension 0" not in text


def test_the_functions_solved_labels_are_explained(report):
    text = (report / "alg-a.html").read_text(encoding="utf-8")
    assert re.search(r"k/n[^<]*of the n functions", text)


def test_a_reference_sets_instances_are_not_shown_as_0(tmp_path):
    """Issue 32: best2009's instances were shown as `0` (its logs' placeholder)."""
    from pipeline.report.pages import NO_INSTANCES, instances_text

    assert instances_text([0]) == NO_INSTANCES
    assert instances_text([1, 2, 3, 5]) == "1-3, 5"
    assert instances_text([0, 1]) == "0-1"  # a real instance 0 among others stays


def test_a_one_algorithm_report_says_why_ranking_and_pairwise_are_left_out(store, tmp_path):
    """Issue 32, item 5: the Ranking and Pairwise pages were left out without the note docs/report.md promises."""
    out = build(open_store(store), tmp_path / "one", Settings(algorithms=["A"], reference="R", table_samples=20),
                jobs=1).parent
    assert not (out / "ranking.html").exists() and not (out / "pairwise.html").exists()
    text = (out / "index.html").read_text(encoding="utf-8")
    assert re.search(r'<p class="note">One compared algorithm \(A\): nothing to compare[^<]*Pairwise page and the '
                     r"Ranking page are left out", text)


def test_every_stage_of_a_report_counts_what_is_done(store, tmp_path):
    """Issue 32, item 2: the measures stage sat at 0/1 with a spinner; every stage now counts its items: the
    measures an algorithm at a time (A, B and the reference R), the writing a file at a time."""
    seen: list[tuple] = []
    build(open_store(store), tmp_path / "r", Settings(algorithms=["A", "B"], reference="R", table_samples=20),
          jobs=2, progress=lambda stage, done, total, label="": seen.append((stage, done, total)))
    assert all(total is not None and 0 <= done <= total for _, done, total in seen), seen
    stages = list(dict.fromkeys(s for s, _, _ in seen))
    assert stages[0] == "selection" and stages[-1] == "writing" and {"pages", "measures", "charts"} <= set(stages)
    measures = [(d, t) for s, d, t in seen if s == "measures"]
    assert measures[0] == (0, 3) and measures[-1] == (3, 3)
    writing = [(d, t) for s, d, t in seen if s == "writing"]
    assert writing[-1][0] == writing[-1][1] > 10  # the pages and settings.json


def test_with_more_pairs_than_the_page_shows_the_heat_maps_hold_the_pages_pairs(store, tmp_path):
    """Issue 32, item 1: with 20 algorithms the heat maps held all 190 pairs (6.5 MB a dimension, the Pairwise
    page 32 MB); they now hold the pairs the pair pages compare, the Tables page every pair's tests."""
    out = build(open_store(store), tmp_path / "r", Settings(algorithms=["A", "B", "R"], reference="none", max_pairs=1,
                                                             table_samples=20), jobs=1).parent
    text = (out / "pairwise.html").read_text(encoding="utf-8")
    tables = re.findall(r'class="dataset" id="dataset-([^"]+)">(.*?)</script>', text)
    heat = {n for c, names in re.findall(r'id="chart-(ranksum-heat[^"]*)" data-spec="[^"]+" data-datasets="([^"]*)"',
                                         text) for n in names.split()}
    pairs = {r["pair"] for name, values in tables if name in heat for r in json.loads(values)}
    assert pairs == {"A vs B"}
    assert "The pairs compared on their pages" in text
    every = "".join(p.read_text(encoding="utf-8") for p in sorted(out.glob("tables-*.html")))
    assert "<td>A</td><td>R</td>" in every and "<td>B</td><td>R</td>" in every


def test_a_large_table_is_closed_until_asked_for():
    """A table of more HTML than OPEN_TABLE_LIMIT (the pairwise tests of 20 algorithms: 8 MB a dimension) is
    a closed <details>: the browser lays out only what is opened."""
    from types import SimpleNamespace

    from pipeline.report.pages import OPEN_TABLE_LIMIT, _table

    ctx = SimpleNamespace(many=False)
    small = _table(ctx, "t", "Small", "<table></table>")
    large = _table(ctx, "t", "Large", "<table>" + "x" * OPEN_TABLE_LIMIT + "</table>")
    assert (small.collapsed, large.collapsed) == (False, True) and "click to open" in large.title


def test_the_group_labels_are_the_suites_group_labels():
    """The charts' names of the groups (conventions.GROUP_LABELS) are those the suites' groups carry."""
    import polars as pl

    from pipeline.conventions import GROUP_LABELS, group_label_expr
    from pipeline.measures.groups import groups_frame

    g = groups_frame(["bbob", "bbob-noisy"]).select("group", "group_label").unique().collect()
    assert all(GROUP_LABELS[a] == b for a, b in g.rows()) and len(g) == 8
    names = pl.DataFrame({"g": ["hcond", "all", "f12", "1-separable_2-moderate"]})
    assert names.select(group_label_expr(pl.col("g")))["g"].to_list() == [
        "Ill-conditioned functions", "All functions", "f12", "1-separable 2-moderate"]
