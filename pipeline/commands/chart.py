"""`cocopipe chart KIND`: one chart of a store, written by extension (.json .svg .png .pdf .html)."""
from __future__ import annotations

from typing import Annotated, Optional

import typer

from ..recipes import KIND_NAMES
from ._common import error_text, fail, outside_store, say
from ._options import ReferenceOpt, SelectionOptions, TargetsOpt, uses


def parse_value(text: str):
    """An option value from the command line: bool, int, float, list (a,b) or text."""
    t = text.strip()
    if t.lower() in ("true", "yes", "on"):
        return True
    if t.lower() in ("false", "no", "off"):
        return False
    if t.lower() in ("none", "null"):
        return None
    if "," in t:
        return [parse_value(p) for p in t.split(",") if p.strip()]
    for cast in (int, float):
        try:
            return cast(t)
        except ValueError:
            pass
    return t


def declared(kind: str) -> dict:
    """The settings the measures a chart kind draws declare (`Measure.charts`), by name (the first measure's)."""
    from ..measures.registry import load

    out: dict = {}
    for m in load().values():
        if kind in m.charts:
            for p in m.settings.params:
                out.setdefault(p.name, p)
    return out


def parse_options(pairs: list[str], kind: str | None = None) -> dict:
    """KEY=VALUE pairs as a dict (keys with '-' become '_'): a setting the kind's measures declare read by its
    declaration (`Param.parse`: the words of Python's and the measure command's refusal), any other option
    by `parse_value`."""
    params = declared(kind) if kind else {}
    out = {}
    for p in pairs:
        if "=" not in p:
            fail(f"--option {p!r}: expected KEY=VALUE, e.g. -O samples=1000")
        k, v = p.split("=", 1)
        k = k.strip().replace("-", "_")
        try:
            out[k] = params[k].parse(v) if k in params else parse_value(v)
        except ValueError as exc:  # "-O samples=0: expected an integer >= 1"
            text = str(exc)
            fail(f"-O {k}={text[len(k) + 1:]}" if text.startswith(f"{k} ") else text)
    return out


KIND_HELP = "Chart kind: " + ", ".join(KIND_NAMES) + "."


def register(app: typer.Typer) -> None:
    """Add the commands of this module."""
    @app.command(help="Draw a chart of a store. KIND is one of: " + ", ".join(KIND_NAMES)
                 + ". Options of the kind with -O KEY=VALUE (see --list).")
    @uses(SelectionOptions)
    def chart(
        sel: SelectionOptions,
        kind: Annotated[str, typer.Argument(help=KIND_HELP)] = "ecdf",
        out: Annotated[Optional[str], typer.Option("--out", "-o", help="Output file: .json (Vega-Lite), .svg, .png, .pdf or .html.")] = None,
        targets: TargetsOpt = None,
        group: Annotated[Optional[str], typer.Option("--group", "-g", help="Function group: all, separ, lcond, hcond, multi, mult2, fN (kinds that aggregate).")] = None,
        reference: ReferenceOpt = None,
        band: Annotated[bool, typer.Option("--band", help="ECDF: the bootstrap confidence band of each algorithm.")] = False,
        level: Annotated[Optional[float], typer.Option("--level", help="ECDF: confidence level of the band (default 0.95).")] = None,
        per_instance: Annotated[bool, typer.Option("--per-instance", help="ECDF: every instance's ECDF as a thin faint line.")] = False,
        option: Annotated[Optional[list[str]], typer.Option("--option", "-O", help="Kind option KEY=VALUE (repeatable), e.g. -O samples=1000 -O a_name=DIRECT.")] = None,
        scale: Annotated[float, typer.Option(help="Pixel scale of PNG output.")] = 2.0,
        list_: Annotated[bool, typer.Option("--list", help="List the kinds and their options, then exit.")] = False,
    ) -> None:
        """Draw one chart kind from a store and write it by the file extension."""
        from ..charts import export
        from ..recipes import kinds

        if list_:
            for name in kinds.KINDS:
                opts = ", ".join(f"{k}={v!r}" for k, v in kinds.options(name).items())
                typer.echo(f"{name}: {opts}")
            return
        if kind not in kinds.KINDS:
            fail(f"unknown chart kind {kind!r}: expected one of {', '.join(kinds.KINDS)}")
        if out is None:
            fail("--out FILE is required (.json, .svg, .png, .pdf or .html)")
        ext = out.rsplit(".", 1)[-1].lower() if "." in out else ""
        if ext not in export.FORMATS:
            fail(f"{out}: unknown chart format {('.' + ext) if ext else '(none)'} (use .json, .svg, .png, .pdf or .html)")
        outside_store(out, sel.store)
        opts = parse_options(option or [], kind)
        known = kinds.options(kind)
        takes_any = kind == "profile"
        if level is not None and not band:
            fail("--level applies to the band: add --band")
        if level is not None:
            from ..measures.registry import get

            try:  # the band's declared level (`ecdf.band`), as Python and `ecdf --band` check it
                get("ecdf.band").configure(level=level)
            except ValueError as exc:
                fail(error_text(exc))  # "--level 95.0: expected a number in (0, 1)"
        for name, value in (("targets", targets), ("group", group), ("reference", reference),
                            ("band", band or None), ("level", level), ("per_instance", per_instance or None)):
            if value is None:
                continue
            if name not in known:
                fail(f"chart {kind}: --{name.replace('_', '-')} does not apply (options: {', '.join(known)})")
            opts[name] = value
        if sel.dimension and "dimension" in known:
            opts.setdefault("dimension", sel.dimension if len(sel.dimension) > 1 else sel.dimension[0])
        for k in opts:
            if k not in known and not takes_any:
                fail(f"chart {kind}: unknown option {k!r} (options: {', '.join(known)})")
        a = sel.analysis()
        try:
            c = kinds.chart(kind, a, **opts)
        except (ValueError, KeyError, FileNotFoundError) as exc:
            fail(str(exc).splitlines()[0] if str(exc) else repr(exc))
        try:
            path = export.save(c, out, scale=scale)
        except OSError as exc:  # a read-only folder, a full disk
            fail(f"{out}: cannot write {out} ({exc.strerror or exc})")
        except (ValueError, KeyError) as exc:
            fail(str(exc).splitlines()[0] if str(exc) else repr(exc))
        say(f"wrote {kind} chart to {path}")
