"""`cocopipe explorer`: the site of every data set of a store, ingested from a loopback copy of the archive
(cocopp's definition-file layout, served on 127.0.0.1 as tests/test_archive.py serves it): its numbers are
the measures' (`rank`, `auc`, `art`), a second build does no work, adding a data set rebuilds exactly its
page and the leaderboards of its dimensions, a damaged data set is named on the index and in the exit code."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal
from altair.utils.schemapi import validate_jsonschema
from altair.vegalite.v6.schema import load_schema
from typer.testing import CliRunner

from conftest import shared_or_skip
from pipeline.api import Analysis
from pipeline.cli import app
from pipeline.measures.groups import groups_frame
from pipeline.store import Store
from test_archive import ArchiveServer

LAYOUT = {
    "bbob/2009/DIRECT_posik_noiseless.tgz": "real/DIRECT_posik_noiseless.tgz",
    "bbob/2023/RS_on_bbob.tgz": "generated/RS_on_bbob.tgz",
    "bbob/2023-GECCO/NM_on_bbob.tgz": "generated/NM_on_bbob.tgz",
}


def cli(*args: str):
    return CliRunner().invoke(app, list(args))


@pytest.fixture(scope="module")
def archive(tmp_path_factory):
    """The loopback archive: three shared data sets and the definition file `cocopipe archive create` writes."""
    shared = shared_or_skip()
    root = tmp_path_factory.mktemp("archive")
    for name, src in LAYOUT.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shared / "data" / src, root / name)
    assert cli("archive", "create", str(root)).exit_code == 0
    with ArchiveServer(root) as srv:
        yield srv


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("COCOPIPE_CACHE", str(tmp_path / "cache"))
    for var in ("COCOPIPE_ARCHIVE_URL", "HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    return tmp_path


def ingest(store: Path, url: str, *names: str) -> None:
    res = cli("ingest", *[f"archive:{n}" for n in names], "--store", str(store), "--archive-url", url)
    assert res.exit_code == 0, res.stderr


def rebuilt(res) -> list[str]:
    return sorted(line.removeprefix("rebuilt ") for line in res.stderr.splitlines() if line.startswith("rebuilt "))


def test_site_numbers_are_the_measures_and_a_new_data_set_rebuilds_only_what_depends_on_it(archive, env):
    store, site = env / "store", env / "site"
    ingest(store, archive.url, "bbob/2009/DIRECT", "bbob/2023/RS_on_bbob")
    res = cli("explorer", "--store", str(store), "--out", str(site), "--mine", "RS")
    assert res.exit_code == 0, res.stderr
    # DIRECT: 2 3 5 10 20 40; RS: 2 3 5 10
    boards = [f"boards/bbob-{d}d.html" for d in (2, 3, 5, 10, 20, 40)]
    direct, rs = "sets/DIRECT_posik_noiseless-5cfe3e57d8.html", "sets/RS_on_bbob-9d6b95a8cb.html"
    assert rebuilt(res) == sorted([*boards, direct, rs, "index.html"])

    again = cli("explorer", "--store", str(store), "--out", str(site), "--mine", "RS")
    assert again.exit_code == 0 and rebuilt(again) == [] and "nothing changed" in again.stderr

    kept_areas = set((site / ".explorer" / "aucs").iterdir())
    ingest(store, archive.url, "bbob/2023-GECCO/NM")  # NM: dimensions 2 3 5 10 20
    third = cli("explorer", "--store", str(store), "--out", str(site), "--mine", "RS")
    assert third.exit_code == 0, third.stderr
    nm = "sets/NM_on_bbob-37b245c08f.html"
    assert rebuilt(third) == sorted([*[f"boards/bbob-{d}d.html" for d in (2, 3, 5, 10, 20)], nm, "index.html"])
    # the areas computed again: NM's on its five boards, the others' only where NM's budget is the smallest
    st = Store(store)
    changed = [d for d in (2, 3, 5, 10, 20) if not Analysis(st, suite="bbob", dimension=d, algorithm=["DIRECT", "RS"])
               .auc_budgets().equals(Analysis(st, suite="bbob", dimension=d).auc_budgets())]
    others = 2 * len([d for d in changed if d <= 10]) + len([d for d in changed if d == 20])  # RS: up to 10-D
    new_areas = sorted(p.name[:10] for p in set((site / ".explorer" / "aucs").iterdir()) - kept_areas)
    assert new_areas.count("37b245c08f") == 5 and len(new_areas) == 5 + others

    st = Store(store)
    a = Analysis(st, suite="bbob", dimension=5)
    ranking = pl.read_csv(site / "data" / "bbob-5d.ranking.csv")
    mine = a.rank().collect().drop("suite", "dimension")
    assert_frame_equal(ranking.filter(pl.col("group") == "all").drop("group"), mine, check_dtypes=False)
    separ = groups_frame("bbob").filter(pl.col("group") == "separ").collect()["function"].to_list()
    assert_frame_equal(ranking.filter(pl.col("group") == "separ").drop("group"),
                       a.select(function=separ).rank().collect().drop("suite", "dimension"), check_dtypes=False)
    means = pl.read_csv(site / "data" / "bbob-5d.auc.csv").filter(pl.col("group") == "all")
    auc = a.auc().collect().group_by("algorithm").agg(pl.col("auc").mean()).sort("algorithm")
    assert means["algorithm"].to_list() == ["DIRECT", "NM", "RS"]
    assert means["auc"].to_list() == pytest.approx(auc["auc"].to_list(), rel=1e-12)
    expected = Analysis(st, suite="bbob", algorithm="NM").art().collect()
    art = pl.read_csv(site / "data" / "NM_on_bbob-37b245c08f.art.csv", schema=expected.schema)
    assert_frame_equal(art, expected)

    index = (site / "index.html").read_text()
    for name, year in (("DIRECT_posik_noiseless", "2009"), ("RS_on_bbob", "2023"), ("NM_on_bbob", "2023")):
        assert f">{name}</a>" in index and f">{year}<" in index
    assert ">GECCO<" in index and "9d6b95a8cbbaca0c9877085db01ca2f272bb4053f023031c850fb21716845760" in index
    assert '<tr class="mine">' in (site / "boards" / "bbob-5d.html").read_text()
    page = (site / nm).read_text()
    assert "cocopipe report --store" in page and "ECDF of runtimes" in page
    assert "src=\"http" not in page and "href=\"http" not in page  # offline: nothing from the network
    # the charts are embedded unchecked: every one is a valid Vega-Lite spec
    schema = load_schema()
    specs = [json.loads(m.replace("<\\/", "</")) for f in [site / nm, site / "boards" / "bbob-5d.html"]
             for m in re.findall(r'<script type="application/json" id="spec-[^"]*">(.*?)</script>', f.read_text(), re.S)]
    assert len(specs) == 7  # the page's ECDFs; the leaderboard's all functions and five groups
    for spec in specs:
        validate_jsonschema(spec, schema)


def test_a_damaged_data_set_is_named_on_the_index_and_in_the_exit_code(archive, env):
    store, site = env / "store", env / "site"
    ingest(store, archive.url, "bbob/2009/DIRECT", "bbob/2023/RS_on_bbob", "bbob/2023-GECCO/NM")
    (part,) = [p for p in (store / "runs").rglob("*.parquet") if "algorithm=RS" in p.as_posix()]
    data = bytearray(part.read_bytes())
    data[-64:] = b"\xff" * 64  # the same size, its footer damaged: a damaged file, not a missing one
    part.write_bytes(bytes(data))
    res = cli("explorer", "--store", str(store), "--out", str(site))
    assert res.exit_code != 0
    assert "RS_on_bbob" in res.stderr.splitlines()[-1] and "Traceback" not in res.stderr
    index = (site / "index.html").read_text()
    assert "Not on the site" in index and '<tr class="problem">' in index
    assert (site / "sets" / "NM_on_bbob-37b245c08f.html").is_file()  # the others are on the site
    assert not list((site / "sets").glob("RS_on_bbob*"))


def test_the_reference_is_drawn_on_every_page_and_unknown_names_are_errors(archive, env):
    store, site = env / "store", env / "site"
    ingest(store, archive.url, "bbob/2009/DIRECT", "bbob/2023/RS_on_bbob")
    res = cli("explorer", "--store", str(store), "--out", str(site), "--mine", "NOPE")
    assert res.exit_code != 0 and "--mine NOPE: no such algorithm" in res.stderr and not site.exists()
    res = cli("explorer", "--store", str(store), "--out", str(site), "--reference", "DIRECT", "--competitors", "0")
    assert res.exit_code == 0, res.stderr
    page = (site / "sets" / "RS_on_bbob-9d6b95a8cb.html").read_text()
    assert "Against the reference DIRECT" in page
    assert '"algorithm":"DIRECT"' in page  # its ECDF on the chart, the only other line (no competitors)
    again = cli("explorer", "--store", str(store), "--out", str(site), "--reference", "RS", "--competitors", "0")
    # another reference: the data set pages (and the index, which names the settings), not the leaderboards
    assert rebuilt(again) == sorted(["index.html", "sets/DIRECT_posik_noiseless-5cfe3e57d8.html",
                                     "sets/RS_on_bbob-9d6b95a8cb.html"])
