"""A source is known by its full path (or the name given to it): sources of one base name from
other folders are kept side by side, replacing one is said or asked for, identical content is
stored once (both sources name one commit) and no source loses its rows (or its cached hits) when
another goes. A store of the earlier layout keyed by base name: tests/test_store_upgrade.py."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl

from logs import write_new2
from pipeline.api import Analysis
from pipeline.ingest import ingest
from pipeline.hits import cache
from pipeline.store import Store
from pipeline.store import store as store_module
from pipeline.store.check import check


def cli(*args):
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *map(str, args)], capture_output=True, text=True)


def source(root: Path, alg: str, instances=(1, 2), function: int = 1) -> Path:
    """Hand-made logs of `alg`: one trial per instance on f`function`."""
    return write_new2(root, alg=alg, function=function,
                      runs=[{"instance": i, "dat": [(1, 5.0 * i), (4, 0.5)]} for i in instances],
                      info_name=f"bbobexp_f{function}.info")


def test_sources_of_one_base_name_from_two_folders_are_both_kept(tmp_path):
    first = source(tmp_path / "x" / "NM_on_bbob", "NM", (1, 2))
    second = source(tmp_path / "y" / "NM_on_bbob", "NM", (3, 4, 5))
    store = tmp_path / "st"
    assert cli("ingest", first, "--store", store).returncode == 0
    r = cli("ingest", second, "--store", store)
    assert r.returncode == 0, r.stderr
    text = " ".join(r.stderr.split())
    assert f"another source named NM_on_bbob is in the store ({first.resolve()}): both are kept" in text
    assert "holds 5 runs" in text
    st = Store(store)
    assert sorted(st.sources()) == sorted([str(first.resolve()), str(second.resolve())])
    assert sorted(st.runs().collect()["instance"].to_list()) == [1, 2, 3, 4, 5]


def test_a_changed_source_replaces_its_earlier_version_and_says_so(tmp_path):
    src = source(tmp_path / "NM_on_bbob", "NM", (1, 2))
    store = tmp_path / "st"
    assert cli("ingest", src, "--store", store).returncode == 0
    source(src, "NM", (3,), function=2)  # the logs grow
    r = cli("ingest", src, "--store", store)
    assert r.returncode == 0 and "replaces its earlier version in the store (2 runs)" in " ".join(r.stderr.split())
    assert Store(store).runs().collect().height == 3 and len(Store(store).sources()) == 1


def test_replace_names_the_source_a_moved_one_replaces(tmp_path):
    old = source(tmp_path / "old" / "NM_on_bbob", "NM", (1, 2))
    new = source(tmp_path / "new" / "NM_on_bbob", "NM", (1, 2, 3))
    st = Store(tmp_path / "st", create=True)
    ingest([old], st)
    r = cli("ingest", new, "--store", st.path, "--replace", "NM_on_bbob")  # the base name: one source has it
    assert r.returncode == 0, r.stderr
    assert f"replaces {old.resolve()} (2 runs)" in " ".join(r.stderr.split())
    assert list(st.refresh().sources()) == [str(new.resolve())] and st.runs().collect().height == 3
    r = cli("ingest", old, "--store", st.path, "--replace", tmp_path / "nowhere")
    assert r.returncode == 1 and "no such source" in r.stderr and "Traceback" not in r.stderr
    assert check(st.path) == []


def test_source_name_is_the_identity_given(tmp_path):
    a = source(tmp_path / "a" / "run", "A", (1,))
    b = source(tmp_path / "b" / "run", "A", (1, 2))
    st = Store(tmp_path / "st", create=True)
    ingest([a], st, source_name="my-run")
    assert list(st.sources()) == ["my-run"] and st.sources()["my-run"]["path"] == str(a.resolve())
    ingest([b], st, source_name="my-run")  # the same name from elsewhere: replaces it
    assert list(st.sources()) == ["my-run"] and st.runs().collect().height == 2
    r = cli("ingest", a, b, "--store", st.path, "--source-name", "x")
    assert r.returncode == 1 and "one source" in r.stderr and "Traceback" not in r.stderr


def test_identical_content_under_two_paths_loses_nothing_when_one_changes(tmp_path, monkeypatch):
    """Two sources of identical content share their files (and cached hits); replacing or removing
    one leaves the other's files and hits in place (however old: no grace time); hits no source names go
    at the first collection after their grace time."""
    monkeypatch.setenv("COCOPIPE_HITS_CACHE", "1")
    monkeypatch.setattr(store_module, "GRACE", 0.0)
    a = source(tmp_path / "A", "SAME", (1, 2))
    b = tmp_path / "B"
    shutil.copytree(a, b)
    st = Store(tmp_path / "st", create=True)
    summary = ingest([a, b], st)
    assert st.runs().collect().height == 2  # stored once
    Analysis(st).hits().collect()  # fills the hits cache
    shared_id = {e["source_id"] for e in st.sources().values()}.pop()
    shared = {e["commit_id"] for e in st.sources().values()}
    assert len(shared) == 1  # one commit named by both sources
    shared = shared.pop()
    assert any(cache.folder(st, False).glob(f"{shared}.*parquet"))
    source(a, "SAME", (3,), function=2)  # A changes: its old version goes, B's files stay
    ingest([a], st)
    assert any(cache.folder(st, False).glob(f"{shared}.*parquet"))
    assert check(st.path) == []
    runs = st.runs().collect()
    assert runs.height == 2 + 3
    assert runs.filter(pl.col("source_id") == shared_id).height == 2
    assert [n for o in summary.sources for n in o.notes] == [f"same content as {a.resolve()}: its files are "
                                                             "stored once, for both"]
    st.remove_source(str(a.resolve()))
    assert check(st.path) == [] and st.runs().collect().height == 2
    st.remove_source(str(b.resolve()))
    assert check(st.path) == [] and st.runs().collect().height == 0
    Store(st.path).collect_garbage()
    assert not list(cache.folder(st, False).glob("*.parquet"))
