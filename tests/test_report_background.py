"""`--background STORE`: the algorithms of other cocopipe stores drawn in grey behind the compared ones.

Compared: DIRECT, alone in its store (the shared data sets, one store each: conftest's `stores`);
background: the stores of BrentSTEPqi, NM and RS; reference: the packaged best2009. Every ECDF and
scaling chart of the report must draw the three background algorithms in grey and DIRECT and the
reference in colour; the background algorithms get no page, table row or ranking of their own.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipeline.cli import app
from test_report import pages
from test_report_interactive import grey_and_coloured, page_specs

BACKGROUND = {"BrentSTEPqi_Posik": "BrentSTEPqi", "NM_on_bbob": "NM", "RS_on_bbob": "RS"}


@pytest.fixture(scope="module")
def report(stores, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("background") / "report"
    args = ["report", "--store", str(stores["DIRECT_posik_noiseless"].path), "--out", str(out),
            "--reference", "best2009", "--dimension", "2", "--dimension", "5", "--jobs", "2"]
    for name in BACKGROUND:
        args += ["--background", str(stores[name].path)]
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    return out


def test_every_background_algorithm_grey_in_every_ecdf_and_scaling_chart(report):
    rec = json.loads((report / "settings.json").read_text())["record"]
    assert rec["algorithms"] == ["DIRECT"] and rec["background"] == sorted(BACKGROUND.values())
    ref = rec["reference"]
    checked = 0
    for page in ("index.html", *[p.name for p in report.glob("ecdf-*.html")], "explore.html", "scaling.html"):
        for name, spec in page_specs(report / page).items():
            if "profile" in name:  # the overview's profiles beside the ECDFs compare the compared alone
                continue
            grey, colour = grey_and_coloured(spec)
            assert grey == set(BACKGROUND.values()), (page, name)
            assert colour == {"DIRECT", ref}, (page, name)
            checked += 1
    # 2 all-function ECDFs; per dimension 5 groups and 24 functions; the explorer; the scaling chart
    assert checked == 2 + 2 * (5 + 24) + 1 + 1
    p = pages(report)
    assert sorted(n for n in p if n.startswith("alg-")) == ["alg-direct.html"]
    tables = [text for name, text in p.items() if name.startswith("tables-")]
    assert tables and not any(b in t[t.index("<main"):] for t in tables for b in BACKGROUND.values())


def test_unknown_background_is_a_one_line_error(stores, tmp_path):
    r = CliRunner().invoke(app, ["report", "--store", str(stores["DIRECT_posik_noiseless"].path), "--out",
                                 str(tmp_path / "o"), "--background", "NoSuchAlgorithm"])
    assert r.exit_code == 1 and "background 'NoSuchAlgorithm'" in r.output and "Traceback" not in r.output
