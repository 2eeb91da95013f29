"""Shared fixtures: paths to ../shared, and a writer of tiny hand-made COCO logs."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("COCOPIPE_SHARED", ROOT.parent / "shared"))


def shared_or_skip() -> Path:
    """The shared materials folder (fails in CI when missing, skips elsewhere)."""
    if not (SHARED / "data").is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"{SHARED} is missing: CI must run with ../shared beside the clone")
        pytest.skip(f"{SHARED} not found")
    return SHARED


@pytest.fixture
def shared() -> Path:
    return shared_or_skip()


#: every shared data set (real, generated, reference algorithms) and its name (the archive's base name)
DATASETS = sorted(p for kind in ("real", "generated", "refalgs") for p in (SHARED / "data" / kind).glob("*.t*gz"))
NAMES = [p.name.split(".t")[0] for p in DATASETS] or ["none"]


@pytest.fixture(scope="session")
def stores(tmp_path_factory):
    """One store per shared data set, ingested once for the whole session (tests only read them)."""
    from pipeline.ingest import ingest
    from pipeline.store import Store

    shared_or_skip()
    out = {}
    for path, name in zip(DATASETS, NAMES):
        st = Store(tmp_path_factory.mktemp(name), create=True)
        summary = ingest([path], st)
        # the only problems: .dat files the published data sets hold and no .info names (BrentSTEPqi's 1-D
        # runs, TPB's 40-D file), which cocopp passes over too
        assert all(p.message == "a .dat file no .info file names" and ("DIM1." in p.file or "_d40_" in p.file)
                   for p in summary.problems), summary.problems
        out[name] = st
    return out


#: the kind of each test file that is not `unit` (pyproject.toml registers the markers); a test that uses
#: the `driver` fixture (headless Chromium) is `browser` wherever it is
KINDS = {
    "parity": {"test_parity.py", "test_biobj_parity.py", "test_ioh_parity.py", "test_ioh_export.py",
               "test_ioh_real.py", "test_ioh_old.py", "test_inconsistent_logs.py"},
    "distributed": {"test_executors.py", "test_ray_cluster.py"},
    "browser": {"test_report_browser.py"},
    "hostile": {"test_store_integrity.py"},  # issue 43's damaged logs: hostile cases, whatever the file's name
}


#: the files whose tests start Ray (a local instance or the two-node cluster): one xdist worker runs them
#: one after another (two local Ray instances starting at once on one machine can take the same GCS port)
RAY_FILES = ("test_executors.py", "test_measure_contract.py", "test_ray_cluster.py")


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist's: without it, never called
def pytest_xdist_make_scheduler(config, log):
    """With `-n 2` (pytest-xdist): each test file's tests in one worker, in order (as `--dist loadfile`),
    the files of RAY_FILES together."""
    from xdist.scheduler import LoadScopeScheduling

    class ByFile(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            file = nodeid.split("::", 1)[0]
            return "ray" if file.rsplit("/", 1)[-1] in RAY_FILES else file

    return ByFile(config, log)


def pytest_collection_modifyitems(config, items):
    """Mark every test with its kind (unit, parity, browser, distributed, hostile): `pytest -m "not browser"`."""
    for item in items:
        kinds = {kind for kind, files in KINDS.items() if item.path.name in files}
        if item.path.name.startswith("test_hostile"):
            kinds.add("hostile")
        if "driver" in getattr(item, "fixturenames", ()):
            kinds.add("browser")
        for kind in sorted(kinds or {"unit"}):
            item.add_marker(kind)


def pytest_terminal_summary(terminalreporter):
    """One line at the end naming what was skipped and why (what to install to run every test)."""
    from collections import Counter

    reasons: Counter = Counter()
    for report in terminalreporter.stats.get("skipped", []):
        longrepr = report.longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
        reasons[reason.removeprefix("Skipped: ")] += 1
    if reasons:
        text = "; ".join(f"{r} ({n} tests)" if n > 1 else r for r, n in reasons.items())
        terminalreporter.write_line(f"not run: {sum(reasons.values())} skipped test(s): {text}", yellow=True, bold=True)


def pytest_unconfigure(config):
    """Collect garbage before the interpreter ends: a pyarrow dataset scan a test made (as the docs show other
    engines reading the store) then ends its threads while Arrow is still alive, not at the interpreter's
    exit, where they can abort it ("terminate called without an active exception", apache/arrow#34314)."""
    import gc

    gc.collect()
