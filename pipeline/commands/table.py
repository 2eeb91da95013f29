"""`cocopipe table`: aRT tables with dispersion, #succ and significance, or pairwise tests."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from ._common import error_text, fail, flat, outside_store, plural, say, whole_file
from ._options import SamplesOpt, SeedOpt, SelectionOptions, setting, uses

if TYPE_CHECKING:
    import polars as pl

TableTargetsOpt = Annotated[Optional[str], typer.Option("--targets", "-t", help="bbob, biobj, table, table-biobj, scaling, or v1,v2,... (default: cocopp's table targets of each suite).")]
FORMATS = ("md", "html", "tex", "csv", "parquet")
_EXT = {".md": "md", ".markdown": "md", ".html": "html", ".htm": "html", ".tex": "tex", ".csv": "csv",
        ".parquet": "parquet"}


def _format(fmt: str | None, out: str | None) -> str:
    if fmt is None:
        fmt = _EXT.get(Path(out).suffix.lower(), None) if out and out != "-" else "md"
        if fmt is None:
            fail(f"--out {out}: cannot tell the format from the extension; give --format ({', '.join(FORMATS)})")
    if fmt not in FORMATS:
        fail(f"--format {fmt!r}: expected one of {', '.join(FORMATS)}")
    if fmt == "parquet" and (out is None or out == "-"):
        fail("--format parquet needs --out FILE")
    return fmt


def register(app: typer.Typer) -> None:
    """Add the commands of this module."""

    @app.command()
    @uses(SelectionOptions)
    def table(
        sel: SelectionOptions,
        out: Annotated[Optional[str], typer.Option("--out", "-o", help="Output file; stdout when omitted.")] = None,
        fmt: Annotated[Optional[str], typer.Option("--format", help="md, html, tex, csv or parquet (default: from --out, else md).")] = None,
        reference: Annotated[Optional[str], typer.Option("--reference", "-r", help="Reference algorithm (one of the store) whose aRT divides the others' (and which each is tested against).")] = None,
        absolute: Annotated[bool, typer.Option("--absolute", help="Absolute aRT, no reference (the default without --reference).")] = False,
        correction: Annotated[str, typer.Option("--correction", help="Multiple-testing correction: bonferroni or holm.")] = "bonferroni",
        pairwise: Annotated[bool, typer.Option("--pairwise", help="Rank-sum tests for every pair of algorithms instead of the aRT table.")] = False,
        targets: TableTargetsOpt = None, samples: SamplesOpt = 1000, seed: SeedOpt = 1,
        alpha: Annotated[float, typer.Option(parser=setting("ALPHA"), help="Significance level of the markers (after correction).")] = 0.05,
        standalone: Annotated[bool, typer.Option(help="LaTeX: a complete document (pdflatex; xelatex or lualatex for names beyond Latin scripts), not a fragment.")] = False,
    ) -> None:
        """aRT table per function and dimension (ratio to a reference, dispersion, #succ, significance), or
        pairwise rank-sum tests (--pairwise); Markdown, HTML, LaTeX (booktabs), CSV or Parquet."""
        from ..tables import art_table, pairwise_table

        kind = _format(fmt, out)
        if out and out != "-":
            outside_store(out, sel.store)
        from ..tables.art import check_tests

        try:  # the declared correction and level (`catalog.CORRECTION`, `catalog.ALPHA`), before the store is read
            check_tests(correction, alpha)
        except ValueError as exc:
            fail(error_text(exc))  # "--correction 'x': expected one of bonferroni, holm"
        if absolute and reference:
            fail("--absolute and --reference exclude each other")
        if pairwise and reference:
            fail("--pairwise tests every pair of algorithms; --reference does not apply")
        a = sel.analysis()
        try:
            if pairwise:
                df = pairwise_table(a, targets, correction, alpha=alpha)
            else:
                df = art_table(a, reference=None if absolute else reference, targets=targets, correction=correction,
                               samples=samples, seed=seed, alpha=alpha)
        except ValueError as exc:
            fail(str(exc))
        try:
            _write(df, kind, out, standalone)
        except BrokenPipeError:  # a reader that stopped early: the command line's quiet end
            raise
        except OSError as exc:  # a read-only folder, a full disk
            fail(f"{out}: cannot write {out} ({exc.strerror or exc})")


def _write(df: pl.DataFrame, kind: str, out: str | None, standalone: bool) -> None:
    """Write an aRT or pairwise table in a format to a file, or to stdout without one."""
    from ..tables import to_html, to_latex, to_markdown

    if kind in ("csv", "parquet"):
        if kind == "csv" and (out is None or out == "-"):
            flat(df).write_csv(sys.stdout)  # numbers as every CSV writes them (`pipeline.decimals`)
            return
        with whole_file(Path(out)) as tmp:
            df.write_parquet(tmp, compression="zstd") if kind == "parquet" else flat(df).write_csv(tmp)
        say(f"wrote {plural(df.height, 'row')} to {out}")
        return
    render = {"md": to_markdown, "html": lambda d: to_html(d, css=True),
              "tex": lambda d: to_latex(d, standalone=standalone)}[kind]
    text = render(df)
    if out is None or out == "-":
        sys.stdout.write(text)
        return
    with whole_file(Path(out)) as tmp:
        tmp.write_text(text, encoding="utf-8")
    say(f"wrote {kind} table to {out}")
