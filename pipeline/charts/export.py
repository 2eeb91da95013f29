"""Write a chart by file extension: Vega-Lite JSON, SVG, PNG, PDF (vl-convert, offline), HTML."""
from __future__ import annotations

import json
import os
from pathlib import Path

import altair as alt

from ..extras import require

FORMATS = ("json", "svg", "png", "pdf", "html")


def spec(chart: alt.TopLevelMixin) -> dict:
    """The Vega-Lite specification of a chart (with its inline data)."""
    return chart.to_dict(validate=True)


def vegalite_version() -> str:
    """The Vega-Lite version (major.minor) Altair writes specs for, as vl-convert names it (e.g. "6.4")."""
    return ".".join(alt.SCHEMA_VERSION.lstrip("v").split(".")[:2])


def render(chart: alt.TopLevelMixin | dict, fmt: str, scale: float = 2.0) -> bytes | str:
    """The chart in a format: 'json' and 'svg' and 'html' as text, 'png' and 'pdf' as bytes."""
    s = chart if isinstance(chart, dict) else spec(chart)
    v = vegalite_version()
    if fmt == "json":
        return json.dumps(s, indent=1, allow_nan=False)
    if fmt not in FORMATS:
        raise ValueError(f"chart format {fmt!r}: expected one of {', '.join(FORMATS)}")
    vlc = require("vl_convert", "static", f"{fmt.upper()} charts")
    if fmt == "svg":
        return vlc.vegalite_to_svg(s, vl_version=v)
    if fmt == "png":
        return vlc.vegalite_to_png(s, vl_version=v, scale=scale)
    if fmt == "pdf":
        return vlc.vegalite_to_pdf(s, vl_version=v)
    return vlc.vegalite_to_html(s, vl_version=v, bundle=True)


def save(chart: alt.TopLevelMixin | dict, path: str | os.PathLike, scale: float = 2.0) -> Path:
    """Write the chart to `path`, the format chosen by its extension (.json .svg .png .pdf .html);
    HTML embeds the spec and the Vega JavaScript, so it opens offline."""
    p = Path(path)
    fmt = p.suffix.lower().lstrip(".")
    if fmt not in FORMATS:
        raise ValueError(f"{p}: unknown chart format {p.suffix!r} (use {', '.join('.' + f for f in FORMATS)})")
    out = render(chart, fmt, scale)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(p.name + ".tmp")
    try:
        if isinstance(out, str):
            tmp.write_text(out, encoding="utf-8")
        else:
            tmp.write_bytes(out)
        tmp.replace(p)
    except BaseException:  # a full disk: no half-written file left beside it
        tmp.unlink(missing_ok=True)
        raise
    return p
