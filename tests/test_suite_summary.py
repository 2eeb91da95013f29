"""The test suite says in one line what it did not run and why (what to install to run everything)."""
from __future__ import annotations

import shutil
import subprocess
import sys

from conftest import ROOT


def test_skipped_tests_are_named_with_their_reason_in_one_line(tmp_path):
    shutil.copy(ROOT / "tests" / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "test_demo.py").write_text(
        "import pytest\n"
        "def test_browser(): pytest.skip('chromium missing: apt-get install chromium chromium-driver')\n"
        "def test_browser_too(): pytest.skip('chromium missing: apt-get install chromium chromium-driver')\n"
        "def test_duck(): pytest.importorskip('no_such_module_here')\n"
        "def test_runs(): pass\n")
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
                       capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stdout
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith("not run:")]
    assert lines == ["not run: 3 skipped test(s): chromium missing: apt-get install chromium chromium-driver "
                     "(2 tests); could not import 'no_such_module_here': No module named 'no_such_module_here'"]
