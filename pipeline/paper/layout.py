"""Which files COCO's LaTeX templates read: scanned from a template's text (`scan`), shipped for the seven
templates of numbbo/coco-postprocess in `templates.json`, and looked up per suite and number of algorithms."""
from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path

#: the suite each template is written for
TEMPLATE_SUITES = {
    "templateBBOBarticle": "bbob", "templateBIOBJarticle": "bbob-biobj", "templateBIOBJmultiple": "bbob-biobj",
    "templateNOISYarticle": "bbob-noisy", "templateMIXINTarticle": "bbob-mixint",
    "templateBBOBLSarticle": "bbob-largescale", "templateBBOBconstrained": "bbob-constrained",
}
MANIFEST = Path(__file__).with_name("templates.json")
_REF = re.compile(r"\\(includegraphics|input|includeperfprof)\s*(?:\[[^\]]*\])?\s*\{([^}]*)\}")


@dataclass(frozen=True)
class Layout:
    """The files of one template: tables read from the one-algorithm folder (`one`), from the folder of
    several (`many`), and the figures (`figures`, without extension, relative to the folder)."""

    one: tuple[str, ...]
    many: tuple[str, ...]
    figures: tuple[str, ...]


def _uncommented(text: str) -> str:
    """The template without its comments (a % not escaped ends a line's text)."""
    return "\n".join(re.sub(r"(?<!\\)%.*", "", line) for line in text.splitlines())


def scan(text: str) -> Layout:
    """The files a template's text reads, by the macro that reads them."""
    one, many, figs = [], [], []
    for macro, arg in _REF.findall(_uncommented(text)):
        name = arg.strip().strip('"').replace("\\bbobdatapath", "").strip()
        if "cocopp_commands" in name:
            continue
        if macro == "input":
            if "folder" not in name or "#" in name:  # the template's own files, a macro's parameter
                continue
            (one if "\\algfolder" in name else many).append(name.split("folder", 1)[1].strip(" /"))
            continue
        name = name.replace("\\algsfolder", "").replace("\\algfolder", "").strip(" /")
        figs.append(name)
        if macro == "includeperfprof":  # it also \inputs the figure's name as a table (cocopp writes a .tex beside)
            one.append(name)
            many.append(name)
    uniq = lambda xs: tuple(dict.fromkeys(xs))  # noqa: E731
    return Layout(uniq(one), uniq(many), uniq(figs))


def write_manifest(template_dir: Path, out: Path = MANIFEST) -> None:
    """Scan the templates of a folder into the manifest (run when COCO's templates change)."""
    data = {}
    for name in TEMPLATE_SUITES:
        lay = scan((template_dir / f"{name}.tex").read_text(encoding="utf-8"))
        data[name] = {"one": list(lay.one), "many": list(lay.many), "figures": list(lay.figures)}
    out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


@functools.cache
def layouts() -> dict[str, Layout]:
    """The shipped layout of every template."""
    data = json.loads(MANIFEST.read_text(encoding="utf-8"))
    return {k: Layout(tuple(v["one"]), tuple(v["many"]), tuple(v["figures"])) for k, v in data.items()}


def templates_of(suite: str) -> list[str]:
    """The templates written for a suite (bbob's for a suite without its own)."""
    own = [t for t, s in TEMPLATE_SUITES.items() if s == suite]
    return own or ["templateBBOBarticle"]


def needed(suite: str, n_algorithms: int) -> tuple[list[str], list[str]]:
    """(tables, figures) the templates of a suite read with that many algorithms, in the algorithms' folder."""
    tables, figs = {}, {}
    for t in templates_of(suite):
        lay = layouts()[t]
        for name in (lay.one if n_algorithms == 1 else lay.many):
            tables[name] = None
        for name in lay.figures:
            figs[name] = None
    return list(tables), list(figs)
