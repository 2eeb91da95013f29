"""The package's import contract (pyproject.toml, [tool.importlinter], checked by import-linter):
the layers import one way (cli -> commands -> report, query, export -> recipes -> charts, tables -> api
-> ... -> conventions, store), charts draw tidy frames without computing a measure, the modules of no
package import each other in a cycle, and the fast paths (`measures._kernels`, `hits._kernel`) are
private to their package. Imports inside functions count as much as those at the top."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = "One-way imports between the layers of pipeline"
CHARTS = "Charts draw tidy frames: they compute no measure and read no store"
CYCLES = "No import cycle among the modules of any package"
KERNELS = "The measures' fast paths are private to pipeline.measures"
HITS_KERNEL = "The hitting times' fast path is private to hits and the measures' kernels"


def lint(folder: Path) -> subprocess.CompletedProcess:
    """`lint-imports` on the package `pipeline` and the contract of `folder` (its pyproject.toml)."""
    code = "from importlinter.cli import lint_imports_command as c; c(['--no-cache', '--no-logo'])"
    env = {**os.environ, "PYTHONPATH": str(folder), "COLUMNS": "200"}  # (no line of the report wrapped)
    return subprocess.run([sys.executable, "-c", code], cwd=folder, env=env, capture_output=True, text=True)


def test_the_package_keeps_its_import_contract():
    r = lint(ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
    for name in (LAYERS, CHARTS, CYCLES, KERNELS, HITS_KERNEL):
        assert f"{name} KEPT" in r.stdout


@pytest.mark.parametrize("module, line, broken, chain", [
    # an upward import, inside a function: the lowest layer must not know the chart recipes
    ("sql_calls.py", "def _late():\n    from .recipes import kinds\n", LAYERS,
     "pipeline.sql_calls -> pipeline.recipes"),
    # a chart that computes a measure
    ("charts/scaling.py", "def _late():\n    from ..measures import art\n", CHARTS,
     "pipeline.charts.scaling -> pipeline.measures"),
    # a cycle within a package (report.pages imports report.figures)
    ("report/figures.py", "def _late():\n    from . import pages\n", CYCLES, ".figures -> .pages"),
    # a kernel used outside its package
    ("tables/art.py", "def _late():\n    from ..measures._kernels import ranksum\n", KERNELS,
     "pipeline.tables.art -> pipeline.measures._kernels.ranksum"),
])
def test_an_import_against_the_contract_fails(tmp_path, module, line, broken, chain):
    shutil.copytree(ROOT / "pipeline", tmp_path / "pipeline", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    with open(tmp_path / "pipeline" / module, "a") as f:
        f.write("\n\n" + line)
    r = lint(tmp_path)
    assert r.returncode == 1, r.stdout
    assert f"{broken} BROKEN" in r.stdout and chain in r.stdout, r.stdout
    assert [n for n in (LAYERS, CHARTS, CYCLES, KERNELS, HITS_KERNEL) if f"{n} BROKEN" in r.stdout] == [broken]
