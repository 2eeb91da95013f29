"""Charts, tables and commands show what the measures computed: no aggregation of their own in
pipeline/charts, pipeline/tables or pipeline/commands (issue 30, item 3), but for the layout-only uses
listed here, each with its reason (a call counts in the innermost function that makes it). A new use
fails the test: move the computation to pipeline/measures (reachable from `Analysis`), or, when it only
lays out or counts what is shown, list it here saying why."""
from __future__ import annotations

import ast
from pathlib import Path

PIPELINE = Path(__file__).resolve().parent.parent / "pipeline"
#: calls that aggregate or rank rows (polars' group_by, agg, over, ...)
AGGREGATING = {"group_by", "group_by_dynamic", "rolling", "agg", "over", "partition_by", "mean", "median",
               "quantile", "sum", "cum_sum", "cum_count", "cum_max", "cum_min", "std", "var", "rank", "n_unique"}

#: (module, function): why its aggregation is layout, not a measure
LAYOUT_ONLY = {
    ("charts/convergence.py", "_drop_flat"): "drops points of a line that repeat the previous value (fewer points)",
    ("charts/convergence.py", "convergence_chart"): "a y range per panel (axis domains)",
    ("charts/eaf.py", "ends"): "each grid point's box: the next budget or level of its panel (the far corner)",
    ("charts/portfolio.py", "shapley_chart"): "the chart's height from the algorithms it lists",
    ("charts/distributions.py", "precision_ecdf_chart"): "each line's first and last point at the axis ends",
    ("charts/distributions.py", "runtime_ecdf_chart"): "labels dodged apart within each panel",
    ("charts/ecdf.py", "band_points"): "a band's points thinned to the drawing resolution",
    ("charts/ecdf.py", "ecdf_explorer"): "the legend's order (by mean final fraction over the panels drawn)",
    ("charts/ecdf.py", "explorer_tables"): "the x domain of each panel, label ranks and dodging",
    ("charts/ecdf.py", "prepare_all"): "each chart's x domain, label ranks and dodging, the charts split apart",
    ("charts/ecdf.py", "quantize"): "points that do not rise after rounding to the drawing quantum dropped",
    ("charts/ecdf.py", "thin"): "steps merged into bins of the drawing resolution",
    ("charts/pairs.py", "ratio_ecdf_chart"): "each line's ends at the clip, labels dodged within each panel",
    ("charts/ranking.py", "critical_difference_chart"): "the chart's height from the rows per dimension",
    ("charts/scaling.py", "scaling_chart"): "a y range per panel and the rows of labels it needs",
    ("charts/scaling.py", "scaling_table"): "the row of each label in its panel",
    ("charts/scaling.py", "_series_look"): "one algorithm or one target: the series drawn, checked",
    ("tables/art.py", "_table_hits"): "a filter built per suite (no aggregation of values)",
    ("tables/render.py", "_groups"): "the rows of the HTML table, a block per function and algorithm",
    ("tables/render.py", "unreachable_text"): "the rows shown, one sentence per pair they name (a count of them)",
    ("commands/_options.py", "analysis"): "the runs a note counts",
    ("commands/archive.py", "list_"): "the totals of the archive's listing",
    ("commands/export.py", "export"): "the algorithms a message counts",
    ("commands/ingest.py", "ingest"): "the algorithms a message counts",
    ("commands/ingest.py", "info"): "what the store holds per suite and algorithm (a listing, no measure)",
    ("commands/targets.py", "targets"): "whether the table needs a suite column",
    ("commands/targets.py", "build"): "the reference algorithms chosen, counted for a message",
    ("commands/targets.py", "list_"): "the functions of each packaged set, for its listing",
}
#: the folders that show what the measures compute
PRESENTATION = ("charts", "tables", "commands")


def aggregating_functions(root: Path = PIPELINE) -> dict[tuple[str, str], set[str]]:
    """(module, function) of the `PRESENTATION` folders of `root` -> the aggregating calls it makes itself."""
    found: dict[tuple[str, str], set[str]] = {}
    for path in sorted(p for folder in PRESENTATION for p in root.glob(f"{folder}/*.py")):
        module = path.relative_to(root).as_posix()
        todo = [(node, None) for node in ast.parse(path.read_text(encoding="utf-8")).body]
        while todo:
            node, inside = todo.pop()
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                inside = node.name
            elif (inside and isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                  and node.func.attr in AGGREGATING):
                found.setdefault((module, inside), set()).add(node.func.attr)
            todo += [(child, inside) for child in ast.iter_child_nodes(node)]
    return found


def test_presentation_aggregates_only_for_layout():
    found = aggregating_functions()
    new = sorted(f"{m}:{f} ({', '.join(sorted(c))})" for (m, f), c in found.items() if (m, f) not in LAYOUT_ONLY)
    assert not new, f"aggregation in the presentation layers (move it to pipeline/measures): {new}"


def test_the_allow_list_has_no_stale_entry():
    assert sorted(set(LAYOUT_ONLY) - set(aggregating_functions())) == []


def test_the_scan_sees_an_aggregation(tmp_path):
    (tmp_path / "charts").mkdir()
    (tmp_path / "charts" / "x.py").write_text("def f(df):\n    return df.group_by('a').agg(m=df['b'].mean())\n\n"
                                              "def g(df):\n    def h():\n        return df.sum()\n"
                                              "    return df.sort('a')\n")
    assert aggregating_functions(tmp_path) == {("charts/x.py", "f"): {"group_by", "agg", "mean"},
                                               ("charts/x.py", "h"): {"sum"}}
