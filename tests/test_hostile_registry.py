"""Bad names and settings of the registered measures: one clear line naming what was asked and what is taken,
from Python and from the commands, never a traceback."""
from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import ROOT
from logs import write_new2
from pipeline.api import Analysis
from pipeline.ingest import ingest
from pipeline.measures.registry import InvalidSetting
from pipeline.store import Store


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Store:
    root = tmp_path_factory.mktemp("hostile-registry")
    write_new2(root / "logs", alg="A", runs=[{"instance": 1, "dat": [(1, 5.0), (20, 0.5)]}])
    st = Store(root / "store", create=True)
    ingest([root / "logs"], st)
    return st


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *args], capture_output=True, text=True, cwd=ROOT)


def test_an_unknown_measure_is_named_with_the_known_ones(store):
    with pytest.raises(ValueError, match=r"^unknown measure 'artt': expected one of art, simulated_runtimes, "):
        Analysis(store).measure("artt")


@pytest.mark.parametrize(("name", "settings", "message"), [
    ("art", dict(samples=-1), "samples -1: expected an integer >= 1"),
    ("art", dict(samples=True), "samples True: expected an integer >= 1"),
    ("art", dict(confidence=float("nan")), "confidence nan: expected None or a number in (0, 1)"),
    ("ecdf.steps", dict(mode="cocopp\nnext"), "mode 'cocopp\\nnext': expected one of simulated, exact, trials"),
    ("ecdf.steps", dict(max_x="-5"),
     "max_x '-5': expected None or a number > 0 or one of budget, cocopp or a number > 0 as text"),
    ("rank", dict(alpha=1), "alpha 1: expected a number in (0, 1)"),
    ("glicko2", dict(wins=3), "glicko2: unknown setting 'wins' (settings: overall, rounds, seed)"),
])
def test_a_bad_setting_is_one_line_naming_it(store, name, settings, message):
    with pytest.raises(InvalidSetting) as info:
        Analysis(store).measure(name, **settings).collect()
    assert str(info.value) == message and "\n" not in str(info.value)


def test_a_namespace_names_its_members(store):
    with pytest.raises(AttributeError, match=r"no measure ecdf\.stepz \(members: steps, summary, band, per_instance\)"):
        Analysis(store).ecdf.stepz  # noqa: B018


def test_the_generated_command_refuses_bad_input_in_one_line(store):
    r = cli("median-runtime", "--store", str(store.path), "--targets", "1,x")
    assert r.returncode != 0 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert "targets '1,x'" in r.stderr
    r = cli("median-runtime", "--store", str(store.path), "--runlength-reference", "best2009")
    assert r.returncode != 0 and r.stderr.strip() == "error: --runlength-reference applies to --targets runlength only"


@pytest.mark.parametrize(("option", "value", "line"), [
    ("--mode", "fast", "error: --mode 'fast': expected one of simulated, exact, trials"),
    ("--samples", "0", "error: --samples 0: expected an integer >= 1"),
])
def test_the_ecdf_command_checks_its_settings_as_the_measure_declares_them(store, option, value, line):
    r = cli("ecdf", "--store", str(store.path), option, value)
    assert r.returncode == 1 and r.stderr.strip() == line
