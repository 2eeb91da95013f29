"""What only some users install is an extra (pyproject.toml): without it, the command that needs it ends
with one line naming the extra, and the rest of cocopipe works."""
from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import ROOT

REFERENCE = str(ROOT / "data" / "refalgs")


def cocopipe_without(module: str, args: list[str], cwd) -> subprocess.CompletedProcess:
    """`cocopipe ARGS` in a process where `module` cannot be imported."""
    code = (f"import sys; sys.modules[{module!r}] = None; sys.argv = ['cocopipe', *{args!r}]; "
            "from pipeline.cli import main; main()")
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True)


@pytest.mark.parametrize("module, args, extra", [
    ("vl_convert", ["chart", "ecdf", "--store", REFERENCE, "-d", "2", "--out", "ecdf.svg"], "static"),
    ("ray", ["art", "--store", REFERENCE, "-d", "2", "--executor", "ray"], "ray"),
])
def test_a_missing_extra_is_one_line_naming_it(module, args, extra, tmp_path):
    r = cocopipe_without(module, args, tmp_path)
    assert r.returncode == 1, r.stderr
    assert r.stderr.strip().splitlines() == [r.stderr.strip()] and f"pip install 'cocopipe[{extra}]'" in r.stderr, r.stderr


def test_what_needs_no_extra_works_without_them(tmp_path):
    code = ("import sys\n"
            "for m in ('vl_convert', 'ray', 'cocoex', 'sortedcontainers', 'selenium'): sys.modules[m] = None\n"
            "from pipeline.cli import main\n"
            f"sys.argv = ['cocopipe', 'chart', 'ecdf', '--store', {REFERENCE!r}, '-d', '2', '--out', 'ecdf.json']\n"
            "try:\n    main()\nexcept SystemExit as e:\n    assert not e.code, e.code\n")
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 0 and (tmp_path / "ecdf.json").stat().st_size > 0, r.stderr
