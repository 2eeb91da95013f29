"""`cocopipe report --out DIR` replaces only a report folder cocopipe wrote (and nobody added to);
any other folder is refused, before any work, unless --force."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from logs import write_new2
from pipeline.api import open_store
from pipeline.ingest import ingest
from pipeline.report import Settings, SettingsError, build
from pipeline.report.output import MARKER
from pipeline.store import Store


def cli(*args):
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *map(str, args)], capture_output=True, text=True)


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("out-data")
    for alg, best in (("A", 1e-9), ("B", 1e-3)):
        write_new2(root / alg, alg=alg, runs=[dict(instance=i, dat=[(1, 50.0), (10, best)]) for i in (1, 2, 3)])
    ingest([root / "A", root / "B"], Store(root / "store", create=True))
    return root / "store"


SETTINGS = Settings(reference="none", table_samples=20)


def test_a_folder_cocopipe_did_not_write_is_refused_unless_forced(store, tmp_path):
    mine = tmp_path / "thesis"
    mine.mkdir()
    (mine / "thesis.tex").write_text("my thesis")
    (mine / "settings.json").write_text("{}")  # a settings.json is no proof of a report
    r = cli("report", "--store", store, "--out", mine)
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    text = " ".join(r.stderr.split())
    assert "holds no report that cocopipe may replace" in text and "thesis.tex" in text and "--force" in text
    assert (mine / "thesis.tex").read_text() == "my thesis"
    index = build(open_store(store), mine, SETTINGS, jobs=1, force=True)
    assert index.is_file() and not (mine / "thesis.tex").exists() and (mine / MARKER).is_file()


def test_a_report_folder_is_replaced_unless_someone_added_to_it(store, tmp_path):
    out = tmp_path / "r"
    build(open_store(store), out, SETTINGS, jobs=1)
    first = (out / MARKER).read_text()
    build(open_store(store), out, SETTINGS, jobs=1)  # cocopipe's own folder: replaced
    assert (out / MARKER).read_text() == first and (out / "index.html").is_file()
    (out / "notes.txt").write_text("mine")
    with pytest.raises(SettingsError, match="notes.txt"):
        build(open_store(store), out, SETTINGS, jobs=1)
    assert (out / "notes.txt").read_text() == "mine"
    (out / "notes.txt").unlink()
    (out / MARKER).write_text('{"signature": "forged", "files": []}')
    with pytest.raises(SettingsError, match="holds no report"):
        build(open_store(store), out, SETTINGS, jobs=1)
