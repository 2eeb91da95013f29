"""Each measure setting is checked in one place (issue 30, item 2): the ECDF mode by `ecdf.check_mode`,
the multiple-testing correction by `significance.check_correction`, the confidence level by
`uncertainty.check_level`; the report, the commands and the measures say the same."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipeline.cli import app
from pipeline.measures import ecdf, significance, uncertainty
from pipeline.measures.registry import get
from pipeline.report.settings import MODES as REPORT_MODES, Settings, SettingsError

PIPELINE = Path(__file__).resolve().parent.parent / "pipeline"


def _message(check, *args) -> str:
    with pytest.raises(ValueError) as exc:
        check(*args)
    return str(exc.value)


def test_the_report_checks_with_the_measures_checks():
    assert set(REPORT_MODES) < set(ecdf.MODES)
    with pytest.raises(SettingsError) as exc:
        Settings(mode="trials").check()
    assert str(exc.value) == _message(ecdf.check_mode, "trials", REPORT_MODES)
    with pytest.raises(SettingsError) as exc:
        Settings(correction="sidak").check()
    assert str(exc.value) == _message(significance.check_correction, "sidak") == (
        "correction 'sidak': expected one of bonferroni, holm")


def test_the_commands_say_what_the_checks_say(tmp_path):
    r = CliRunner().invoke(app, ["table", "--store", str(tmp_path / "none"), "--correction", "sidak"])
    assert r.exit_code != 0 and "--correction 'sidak': expected one of bonferroni, holm" in r.output
    r = CliRunner().invoke(app, ["ecdf", "--store", str(tmp_path / "none"), "--mode", "bootstrap"])
    assert r.exit_code != 0 and "--" + _message(ecdf.check_mode, "bootstrap") in r.output
    # a level is the declared setting's (issue 45): the same words from Python, `ecdf --band` and `chart --level`
    python = _message(lambda: get("ecdf.band").configure(level=95.0))
    assert python == "level 95.0: expected a number in (0, 1)"
    r = CliRunner().invoke(app, ["ecdf", "--store", str(tmp_path / "none"), "--band", "95"])
    assert r.exit_code != 0 and "--band" + python.removeprefix("level") in r.output
    r = CliRunner().invoke(app, ["chart", "ecdf", "--store", str(tmp_path / "none"), "--band", "--level", "95",
                                 "--out", str(tmp_path / "e.svg")])
    assert r.exit_code != 0 and "--" + python in r.output
    assert _message(uncertainty.check_level, 0.0) == "level 0.0: expected a confidence level between 0 and 1, e.g. 0.95"


def test_no_other_list_of_modes_or_corrections_and_no_other_level_check():
    lists = {"modes": re.compile(r"\(\s*\"simulated\",\s*\"exact\""),
             "corrections": re.compile(r"\(\s*\"bonferroni\",\s*\"holm\"\s*\)"),
             "levels": re.compile(r"0\s*<\s*(float\()?\w*level\w*\)?\s*<\s*1")}
    found = {name: sorted(str(p.relative_to(PIPELINE)) for p in PIPELINE.rglob("*.py") if rx.search(p.read_text()))
             for name, rx in lists.items()}
    # measures/catalog.py declares the measures without importing them (their copies held equal to the modules'
    # own by tests/test_measure_contract.py): its list of modes is the declaration's, not another check
    assert found == {"modes": ["measures/catalog.py", "measures/ecdf.py", "report/settings.py"],
                     "corrections": ["measures/significance.py"],
                     "levels": ["measures/uncertainty.py"]}
