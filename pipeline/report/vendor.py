"""The JavaScript the report ships: Vega, Vega-Lite and vega-embed in one file, made offline by
vl-convert-python, so that a report opens from a file:// URL without network.

`static/vega-bundle.js` and `static/vendor.json` (its versions) are committed; regenerate them
after upgrading vl-convert-python or altair with `python -m pipeline.report.vendor`. Licences of
the bundled npm packages are in `static/THIRD_PARTY_LICENSES.txt` (made from the packages'
own LICENSE files: `npm install vega@V vega-lite@V vega-embed@V`, every production dependency).
"""
from __future__ import annotations

import json
from pathlib import Path

import altair as alt

from ..charts.export import vegalite_version

STATIC = Path(__file__).resolve().parent / "static"
BUNDLE = "vega-bundle.js"
VENDOR = "vendor.json"

_HEADER = ("/* Vega {vega}, Vega-Lite {vegalite}, vega-embed {embed}: BSD-3-Clause, University of Washington "
           "Interactive Data Lab and contributors; bundled with their dependencies by vl-convert-python {vlc}. "
           "Licences: THIRD_PARTY_LICENSES.txt beside this file. */\n")


def versions() -> dict[str, str]:
    """Versions of the shipped JavaScript (from `static/vendor.json`)."""
    return json.loads((STATIC / VENDOR).read_text())


def write_bundle(static: Path = STATIC) -> dict[str, str]:
    """Write `vega-bundle.js` (global `vegaEmbed`, `vega`, `vegaLite`) and `vendor.json`."""
    from ..extras import require

    vlc = require("vl_convert", "static", "the Vega bundle")
    vl = vegalite_version()
    info = {"vega": vlc.get_vega_version(), "vega-lite": alt.SCHEMA_VERSION.lstrip("v"),
            "vega-embed": vlc.get_vega_embed_version(), "vl-convert": vlc.__version__}
    head = _HEADER.format(vega=info["vega"], vegalite=info["vega-lite"], embed=info["vega-embed"], vlc=info["vl-convert"])
    (static / BUNDLE).write_text(head + vlc.javascript_bundle(vl_version=vl) + "\n", encoding="utf-8")
    (static / VENDOR).write_text(json.dumps(info, indent=1, sort_keys=True) + "\n")
    return info


if __name__ == "__main__":
    print(write_bundle())
