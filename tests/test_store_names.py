"""Any algorithm name round-trips through the store's Delta tables and their partition folders, for every
reader of Delta tables (the store, Polars, delta-rs's pyarrow dataset), and no name makes the store
unreadable."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from deltalake import DeltaTable
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from logs import write_new2
from pipeline.ingest import ingest
from pipeline.store import Store, hive

HOSTILE = ["DE F=0.5", "<img src=x onerror=alert(1)>", "a/b", "..", "100%", "%3D", "a\\b", "[red]x[/red]",
           "\"quoted\" 'single'", "tab\there", "new\nline", "+plus+", "émoji 😀", "NULL", " ", "x=y/z=w"]


def cli(*args):
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *map(str, args)], capture_output=True, text=True)


@pytest.fixture(scope="module")
def logs(tmp_path_factory) -> Path:
    return write_new2(tmp_path_factory.mktemp("names") / "exp", alg="plain",
                      runs=[{"instance": 1, "dat": [(1, 5.0), (4, 0.5)]}])


def readers(root: Path) -> dict[str, list[str]]:
    """The algorithm names of the runs table as each reader decodes them: the rows of committed writes, taken
    by a semi-join with the sources table on commit_id (docs/store.md, "Reading the store without cocopipe")."""
    runs, sources = str(root / "runs"), str(root / "sources")
    committed = pl.scan_delta(sources).select("commit_id")
    out = {"polars": pl.scan_delta(runs).join(committed, on="commit_id", how="semi").select("algorithm").collect()
           ["algorithm"].to_list(),
           "pyarrow": pl.from_arrow(DeltaTable(runs).to_pyarrow_dataset().to_table(columns=["algorithm", "commit_id"]))
           .join(committed.collect(), on="commit_id", how="semi")["algorithm"].to_list()}
    return {k: sorted(v) for k, v in out.items()}


def test_names_with_equals_signs_and_markup_keep_the_store_readable(logs, tmp_path):
    store = tmp_path / "st"
    assert cli("ingest", logs, "--store", store).returncode == 0  # data stored before
    for name in ("DE F=0.5", "<img src=x onerror=alert(1)>"):
        r = cli("ingest", logs, "--store", store, "--name", name, "--source-name", name)
        assert r.returncode == 0, r.stderr
    r = cli("runs", "--store", store, "--out", "-")
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert sorted(pl.read_csv(r.stdout.encode())["algorithm"].to_list()) == sorted(
        ["plain", "DE F=0.5", "<img src=x onerror=alert(1)>"])
    assert all(v == sorted(["plain", "DE F=0.5", "<img src=x onerror=alert(1)>"]) for v in readers(store).values())


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_names_round_trip(logs, tmp_path, name):
    st = Store(tmp_path / "st", create=True)
    ingest([logs], st, name=name)
    assert st.runs().collect()["algorithm"].to_list() == [name]
    assert all(v == [name] for v in readers(st.path).values())
    folder = next((st.path / "runs").glob("_writes/*/*/suite=bbob/*")).name  # under the write's folder
    assert folder.count("=") == 1 and "/" not in folder


names = st.text(alphabet=st.one_of(st.characters(blacklist_categories=("Cs",)), st.sampled_from("=/\\%[]<>\"'&?#:*|+ .😀")),
                min_size=1, max_size=20)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=names)
def test_any_name_round_trips_through_every_reader(logs, tmp_path_factory, name):
    assume(name != hive.NULL)
    st = Store(tmp_path_factory.mktemp("prop") / "st", create=True)
    summary = ingest([logs], st, name=name)
    assert summary.runs == 1, summary.problems
    assert st.runs().collect()["algorithm"].to_list() == [name]
    assert st.events().select("algorithm").unique().collect()["algorithm"].to_list() == [name]
    for reader, got in readers(st.path).items():
        assert got == [name], reader


def test_names_no_folder_can_hold_are_a_failed_source_not_a_traceback(logs, tmp_path):
    store = tmp_path / "st"
    for name, why in ((hive.NULL, "reserved"), ("x" * 300, "too long")):
        r = cli("ingest", logs, "--store", store, "--name", name)
        assert r.returncode == 1 and why in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert cli("ingest", logs, "--store", store).returncode == 0
    assert cli("runs", "--store", store).returncode == 0


def test_the_same_logs_stored_under_two_names_are_two_algorithms_with_their_own_runs(logs, tmp_path):
    # a copy of a data set kept under another name (as cocopp's users compare a data set with itself): its trials
    # are the other name's too, so their run ids once collided and one name's rows answered for both (the
    # copy had 2 hits a target, the original no aRT)
    from pipeline.api import open_store

    import shutil

    store, copy = tmp_path / "st", tmp_path / "copy"
    shutil.copytree(logs, copy)
    for path, name in ((logs, "ORIGINAL"), (copy, "COPY")):
        r = cli("ingest", path, "--store", store, "--name", name, "-q")
        assert r.returncode == 0, r.stderr
    a = open_store(store)
    runs = a.runs().collect()
    assert sorted(runs["algorithm"]) == ["COPY", "ORIGINAL"] and runs["run_id"].n_unique() == 2
    art = a.art(targets=[1.0]).collect().sort("algorithm")
    assert art["algorithm"].to_list() == ["COPY", "ORIGINAL"]
    assert art["art"].to_list() == [4.0, 4.0] and art["successes"].to_list() == [1, 1]
