"""Settings refuse nonsense at the edge (issue 44): each case the issue names, from Python and from the
command line, on a tiny store answered by hand. The generated contract over every command and setting is
tests/test_settings_contract.py."""
from __future__ import annotations

import json
import time

import pytest
from typer.testing import CliRunner

from logs import two_algorithm_store
from pipeline.api import Analysis
from pipeline.cli import app
from pipeline.engine import extent
from pipeline.measures.registry import Extent, InvalidSetting, get, memory_limit
from pipeline.report.settings import Settings as ReportSettings, SettingsError
from pipeline.store import Store


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> str:
    """A reaches 1e-9 at evaluation 9 + instance; B stops at 1e-3: f1 and f2 in 2-D, three trials each."""
    return two_algorithm_store(tmp_path_factory.mktemp("refused"))


@pytest.fixture
def limit(monkeypatch):
    """A memory bound of 256 MiB for the settings' estimates."""
    monkeypatch.setenv("COCOPIPE_MEMORY_LIMIT", "256M")
    return 256 * 2 ** 20


def run(*args: str):
    r = CliRunner().invoke(app, list(args))
    assert isinstance(r.exception, SystemExit), r.exception  # no traceback
    return r.exit_code, " ".join(r.output.split())


# -- targets ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("targets", ["nan", "1e-8,nan", "", ",", " ", "inf"])
@pytest.mark.parametrize("command", ["art", "ecdf", "auc", "ert", "median-runtime"])
def test_nan_and_empty_targets_are_refused_by_every_command(store, command, targets):
    # before: `art --targets nan` claimed "aRT 1, 1 of 1" for every trial; '' and ',' gave 0 rows with exit 0
    code, out = run(command, "--store", store, "--targets", targets)
    assert code == 1 and out.startswith(f"error: --targets {targets!r}: "), out
    assert "no target given" in out or "is no target" in out


@pytest.mark.parametrize("targets", ["nan", [1e-8, float("nan")], "", ",", []])
def test_nan_and_empty_targets_are_refused_from_python(store, targets):
    a = Analysis(Store(store))
    for measure in (a.art, a.auc, a.ert, a.median_runtime):
        with pytest.raises(InvalidSetting) as exc:
            measure(targets)
        assert exc.value.setting == "targets" and str(exc.value).startswith(f"targets {targets!r}: ")


def test_the_report_and_the_charts_refuse_them_too(store, tmp_path):
    for name in ("targets", "table_targets"):
        with pytest.raises(SettingsError, match=f"^{name} 'nan': nan is no target"):
            ReportSettings(**{name: "nan"}).check()
    code, out = run("chart", "ecdf", "--store", store, "-O", "targets=1e-8,nan", "--out", str(tmp_path / "e.svg"))
    assert code == 1 and "nan is no target" in out and not (tmp_path / "e.svg").exists()


@pytest.mark.parametrize("option, said", [
    (["--mode", "trials"], "--mode 'trials': expected one of simulated, exact"),
    (["--renderer", "png"], "--renderer 'png': expected one of vega, svg"),
    (["--samples", "0"], "--samples 0: expected an integer >= 1"),
    (["--targets", "nan"], "--targets 'nan': nan is no target"),
    (["--reference", "Z"], "--reference 'Z': not an algorithm of the store nor a packaged reference set"),
])
def test_the_report_names_a_refused_setting_as_the_command_line_spells_it(store, tmp_path, option, said):
    # issue 45: `cocopipe report --mode trials` said "mode 'trials': ..."; Python and settings.json say "mode"
    code, out = run("report", "--store", store, "--out", str(tmp_path / "r"), *option)
    assert code == 1 and out.startswith(f"error: {said}"), out
    assert not (tmp_path / "r").exists()


def test_a_settings_file_names_its_refused_value_by_its_key_and_the_file(store, tmp_path):
    with pytest.raises(SettingsError, match=r"^mode 'trials': expected one of simulated, exact$"):
        ReportSettings(mode="trials").check()
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({**ReportSettings().to_dict(), "renderer": "png"}))
    code, out = run("report", "--store", store, "--out", str(tmp_path / "r"), "--settings", str(path))
    assert code == 1 and out == f"error: {path}: renderer 'png': expected one of vega, svg", out


# -- counts bounded by the memory they imply ---------------------------------------------------------------------
def test_the_extent_of_a_selection_is_counted_as_the_estimates_read_it(store):
    a = Analysis(Store(store))
    targets = a.target_frame([1e-2, 1e-8]).collect()
    # 12 trials x 2 targets; (A, B) x (f1, f2) x 2 targets; one (algorithm, dimension): 2 functions x 2 targets
    assert extent(a.selection, targets) == Extent(trials=12, hits=24, cells=8, block_cells=4)
    per_suite = a.target_frame().collect()  # 51 bbob targets, per suite
    assert extent(a.selection, per_suite) == Extent(trials=12, hits=12 * 51, cells=4 * 51, block_cells=2 * 51)


def test_samples_beyond_memory_are_refused_with_the_figure_and_the_limit(store, limit):
    # before: `art --samples 1e9` was numpy's traceback (cannot allocate 298 GiB)
    a = Analysis(Store(store))
    with pytest.raises(InvalidSetting) as exc:
        a.art([1e-8], dispersion=True, samples=10 ** 9)
    said = str(exc.value)
    # 1e9 samples x 2 (function, target) pairs of one algorithm and dimension x 24 bytes = 44.7 GiB
    assert said == ("samples 1000000000: needs about 44.7 GiB of memory (1e+09 x 2 (function, target) pairs of one "
                    "algorithm and dimension x 24 bytes), above the limit of 256 MiB (environment "
                    "COCOPIPE_MEMORY_LIMIT; default half of this machine's memory)")
    code, out = run("art", "--store", store, "--targets", "1e-8", "--samples", str(10 ** 9))
    assert code == 1 and out == f"error: --{said}"


def test_a_count_within_the_bound_is_computed_as_before(store, limit):
    a = Analysis(Store(store), algorithm="B")
    two = a.art([1e-2], dispersion=True, samples=2000).collect()  # above the default, well within the bound
    # B reaches 1e-2 at evaluations 10, 11, 12 on each function: aRT 11; every trial successful, the samples
    # are the trials' runtimes, each as often: median 11
    assert two["art"].to_list() == [11.0, 11.0] and two["p50"].to_list() == [11.0, 11.0]


def test_bootstrap_replicates_beyond_memory_are_refused_at_once(store, limit):
    # before: `ecdf --band 0.9 --replicates 100000000` held over 4 GB after 10 s, silent
    began = time.monotonic()
    code, out = run("ecdf", "--store", store, "--band", "0.9", "--replicates", "100000000")
    assert code == 1 and out.startswith("error: --replicates 100000000: needs about ") and "limit of 256 MiB" in out
    assert time.monotonic() - began < 10


def test_one_replicate_is_refused_by_the_declaration():
    # issue 45: declared >= 1, needed >= 2 deep inside; now declared >= 2, refused where the settings are made
    with pytest.raises(InvalidSetting, match=r"^replicates 1: expected an integer >= 2$"):
        get("ecdf.band").configure(replicates=1)


@pytest.mark.parametrize("rounds", ["-1", "0", "10001"])
def test_glicko_rounds_outside_their_declaration_are_one_line(store, rounds):
    # before: the traceback of InvalidSetting
    code, out = run("rank", "--store", store, "--by", "glicko2", "--rounds", rounds)
    assert code == 1 and out == f"error: --rounds {rounds}: expected an integer in [1, 10000]"


def test_a_memory_limit_that_is_no_size_is_named(monkeypatch):
    monkeypatch.setenv("COCOPIPE_MEMORY_LIMIT", "lots")
    with pytest.raises(InvalidSetting, match="^environment COCOPIPE_MEMORY_LIMIT 'lots': expected a size"):
        memory_limit()
    monkeypatch.setenv("COCOPIPE_MEMORY_LIMIT", "1.5GiB")
    assert memory_limit() == 3 * 2 ** 29


# -- aocc's bounds -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("bounds, said", [
    (["--upper", "0"], "--upper 0.0: expected a number > lower 1e-08"),
    (["--upper", "-1"], "--upper -1.0: expected a number > lower 1e-08"),
    (["--lower", "1", "--upper", "1"], "--upper 1.0: expected a number > lower 1.0"),
    (["--lower", "10", "--upper", "1"], "--upper 1.0: expected a number > lower 10.0"),
    (["--upper", "nan"], "--upper nan: expected a finite number"),
    (["--lower", "inf"], "--lower inf: expected a finite number"),
    (["--lower", "0"], "--lower 0.0: expected a number > 0 on a log scale (log=True)"),
])
@pytest.mark.parametrize("command", [["aocc"], ["fixed-budget-ecdf", "--budgets", "10,100"]])
def test_aocc_bounds_are_finite_and_ordered(store, command, bounds, said):
    # before: `--upper 0` was a traceback (math domain error); `--lower 1 --upper 1`, nan and inf gave NaN, exit 0
    code, out = run(*command, "--store", store, *bounds)
    assert code == 1 and out == f"error: {said}"


def test_aocc_bounds_say_the_same_from_python(store):
    a = Analysis(Store(store))
    with pytest.raises(InvalidSetting, match=r"^upper 1: expected a number > lower 1$"):
        a.aocc(lower=1, upper=1)
    with pytest.raises(InvalidSetting, match=r"^upper 1: expected a number > lower 10$"):
        a.fixed_budget_ecdf([10], lower=10, upper=1)
    # on a linear scale a bound may be 0 or negative (logged values), ordered still
    assert a.aocc(lower=0.0, upper=10.0, log=False).collect().height == 4


def test_every_item_of_a_list_is_checked(store):
    # issue 45: `budgets=[-5]` was accepted
    a = Analysis(Store(store))
    for budgets in ([-5], [10, float("nan")], []):
        with pytest.raises(InvalidSetting, match=r"^budgets .*: expected a list of numbers > 0$"):
            a.fixed_budget(budgets).collect()
    with pytest.raises(InvalidSetting, match=r"^percentiles \(10, 150\): expected a list of numbers in \[0, 100\]$"):
        a.art(percentiles=(10, 150))


def test_a_required_setting_is_named_when_missing(store):
    # the budgets of the fixed-budget measures have no default: none given was 0 rows before
    with pytest.raises(InvalidSetting, match=r"^fixed_budget: setting 'budgets' is required \(a list of numbers > 0\)$"):
        Analysis(Store(store)).measure("fixed_budget")
