"""Write docs/cli.md, the reference of every `cocopipe` command and option, from the command line itself.

    python docs/make_cli.py            # rewrite docs/cli.md
    python docs/make_cli.py --stdout   # print it (tests/test_docs.py compares it with docs/cli.md)

Run it after changing a command, an option or a help text; the commands' own help is the one source.
"""
from __future__ import annotations

import sys
from pathlib import Path

import typer.main

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from pipeline.cli import OTHER_PANEL, PANELS, build_app  # noqa: E402 - the clone's package, not an installed one

OUT = Path(__file__).resolve().parent / "cli.md"

HEAD = """# Command-line reference

Every command and option of `cocopipe`, as `cocopipe COMMAND --help` gives them (this page is written by
`python docs/make_cli.py` from the commands themselves: do not edit it by hand). The user's guide is the
[README](../README.md); the store, the measures and the report are explained in [store.md](store.md),
[measures.md](measures.md) and [report.md](report.md).

Options shared by the measures (`--store`, `--suite`, `--algorithm`, `--function`, `--dimension`,
`--max-budget`, `--all-instances`, `--exact-hits`, `--indicator`) select the trials as `open_store(...)`
does in Python ([python.md](python.md)). Without `--out`, a table is printed on a terminal and written as
CSV in a pipe; `--out -` always writes CSV. On a terminal every column is shown, each value whole, and the
rows that fit the screen: a longer table ends with a line on stderr saying how many rows more there are
(`143877 more rows: --out FILE`), which `--out FILE` or a pipe writes. Columns that do not fit the width
come below in further blocks, each led by the row number (`#`) and the columns naming the row, and a value
wider than the terminal wraps. Every number is written in one form on the terminal and in CSV, Markdown and
JSON files (`pipeline.decimals`): a value as its shortest round-trip text, Python's repr (`734.9333333333333`,
`0.1`, `1e-05`, `2.5e+16`), a target (columns `target`, `..._target`) rounded to 12 significant digits
first (`1e-08`, `63.09573444802`, `1.584893192461e-06`: bbob's 10^(k/5) and cocopp's `10**np.arange` alike).
A list in one cell is written without a comma, so that `column -s, -t` and `cut -d,` split CSV lines right:
numbers apart by a space (`2 3 5`), names by `; `. `cocopipe --version` prints the version.
"""


def cell(text: str) -> str:
    """Text for a Markdown table cell (rich's escaped brackets read as brackets)."""
    return " ".join(str(text).split()).replace("\\[", "[").replace("|", "\\|")


def command(cmd, path: str, ctx) -> list[str]:
    """A command's section: its help, usage, and a row per argument and option as its --help gives them."""
    params = [p for p in cmd.params if not getattr(p, "hidden", False)]
    args = [p for p in params if p.param_type_name == "argument"]
    usage = " ".join((f"{a.name.upper()}..." if a.nargs == -1 else a.name.upper()) if a.required
                     else f"[{a.name.upper()}{'...' if a.nargs == -1 else ''}]" for a in args)
    out = [f"### `cocopipe {path}`", "", cell(cmd.help or ""), "", "```text",
           " ".join(["cocopipe", path, *([usage] if usage else []), "[OPTIONS]"]), "```", "",
           "| option | what |", "| --- | --- |"]
    for p in params:
        if p.param_type_name == "argument":
            out.append(f"| `{p.name.upper()}` | {cell(getattr(p, 'help', None) or '')} |")
        else:
            names, text = p.get_help_record(ctx)
            out.append(f"| `{cell(names)}` | {cell(text)} |")
    return [*out, ""]


def reference() -> str:
    root = typer.main.get_command(build_app())
    ctx = root.make_context("cocopipe", [], resilient_parsing=True)
    panels: dict[str, list[str]] = {}
    for name, cmd in root.commands.items():
        panel = getattr(cmd, "rich_help_panel", None) or OTHER_PANEL
        lines = panels.setdefault(panel, [])
        if getattr(cmd, "commands", None):
            lines += [f"### `cocopipe {name}`", "", cell(cmd.help or ""), ""]
            for sub_name, sub in cmd.commands.items():
                lines += command(sub, f"{name} {sub_name}", ctx)
        else:
            lines += command(cmd, name, ctx)
    parts = [HEAD]
    for panel in [*PANELS, OTHER_PANEL]:
        if panel in panels:
            parts += [f"## {panel}", "", *panels[panel]]
    return "\n".join(parts).rstrip() + "\n"


if __name__ == "__main__":
    text = reference()
    if "--stdout" in sys.argv:
        sys.stdout.write(text)
    else:
        OUT.write_text(text, encoding="utf-8")
        print(f"wrote {OUT}")
