"""Which files COCO's LaTeX templates read: scanned from a template's text (`scan`), shipped for the seven
templates of numbbo/coco-postprocess in `templates.json`, and looked up per suite and number of algorithms."""
from __future__ import annotations

import functools
import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path

#: the suite each template is written for, and the numbers of algorithms it is for (None: any)
TEMPLATE_SUITES = {
    "templateBBOBarticle": "bbob", "templateBIOBJarticle": "bbob-biobj", "templateBIOBJmultiple": "bbob-biobj",
    "templateNOISYarticle": "bbob-noisy", "templateMIXINTarticle": "bbob-mixint",
    "templateBBOBLSarticle": "bbob-largescale", "templateBBOBconstrained": "bbob-constrained",
}
ONE_ONLY, MANY_ONLY = {"templateBIOBJarticle"}, {"templateBIOBJmultiple"}
MANIFEST = Path(__file__).with_name("templates.json")
_REF = re.compile(r"\\(includegraphics|input|includeperfprof)\s*(?:\[[^\]]*\])?\s*\{([^}]*)\}")
#: the lines that open the part of a template read with one algorithm, with several, and that close either
_ONE = re.compile(r"\\ifthenelse\{\\equal\{\\(?:numofalgs\}\{1|numberofalgorithms\}\{one)\}\}\{\s*$")
_MANY = re.compile(r"\\ifthenelse\{.*(?:\\numofalgs\s*[>=]|\{two\}).*\}\{\s*$")
_END = re.compile(r"%\s*end of (?:1|2|all)")


@dataclass(frozen=True)
class Layout:
    """The files of one template: tables read with one algorithm (`one`) and with several (`many`), and the
    figures read with one and with several (without extension, relative to the algorithms' folder)."""

    one: tuple[str, ...]
    many: tuple[str, ...]
    figures_one: tuple[str, ...]
    figures_many: tuple[str, ...]


def _uncommented(line: str) -> str:
    """A line without its comment (a % not escaped ends a line's text)."""
    return re.sub(r"(?<!\\)%.*", "", line)


def _name(macro: str, arg: str) -> str:
    name = arg.strip().strip('"').replace("\\bbobdatapath", "").strip()
    if macro == "input":
        return name.split("folder", 1)[1].strip(" /")
    return name.replace("\\algsfolder", "").replace("\\algfolder", "").strip(" /").strip('"')


def scan(text: str) -> Layout:
    """The files a template's text reads, by the macro that reads them and the part (one algorithm, several,
    or both) they are read in."""
    parts: dict[str, tuple[list, list]] = {"one": ([], []), "many": ([], [])}  # (tables, figures)
    mode: tuple[str, ...] = ("one", "many")
    for raw in text.splitlines():
        if _END.search(raw):
            mode = ("one", "many")
        line = _uncommented(raw)
        if _ONE.search(line):
            mode = ("one",)
        elif _MANY.search(line):
            mode = ("many",)
        for macro, arg in _REF.findall(line):
            if "cocopp_commands" in arg or (macro == "input" and ("folder" not in arg or "#" in arg)):
                continue  # the commands, the template's own files, a macro's parameter
            name = _name(macro, arg)
            for m in mode:
                if macro in ("input", "includeperfprof"):  # \includeperfprof also \inputs the name (a legend)
                    parts[m][0].append(name)
                if macro != "input":
                    parts[m][1].append(name)
    uniq = lambda xs: tuple(dict.fromkeys(xs))  # noqa: E731
    return Layout(uniq(parts["one"][0]), uniq(parts["many"][0]), uniq(parts["one"][1]), uniq(parts["many"][1]))


def write_manifest(template_dir: Path, out: Path = MANIFEST) -> None:
    """Scan the templates of a folder into the manifest (run when COCO's templates change)."""
    data = {name: {k: list(v) for k, v in asdict(scan((template_dir / f"{name}.tex").read_text("utf-8"))).items()}
            for name in TEMPLATE_SUITES}
    out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


@functools.cache
def layouts() -> dict[str, Layout]:
    """The shipped layout of every template."""
    data = json.loads(MANIFEST.read_text(encoding="utf-8"))
    return {k: Layout(**{f: tuple(v) for f, v in d.items()}) for k, d in data.items()}


def templates_of(suite: str, n_algorithms: int | None = None) -> list[str]:
    """The templates written for a suite (bbob's for a suite without its own) and that many algorithms."""
    own = [t for t, s in TEMPLATE_SUITES.items() if s == suite] or ["templateBBOBarticle"]
    if n_algorithms is None:
        return own
    return [t for t in own if not (t in ONE_ONLY and n_algorithms > 1) and not (t in MANY_ONLY and n_algorithms < 2)]


def needed(suite: str, n_algorithms: int) -> tuple[list[str], list[str]]:
    """(tables, figures) the templates of a suite read with that many algorithms, in the algorithms' folder."""
    tables: dict[str, None] = {}
    figs: dict[str, None] = {}
    for t in templates_of(suite, n_algorithms):
        lay = layouts()[t]
        tables.update(dict.fromkeys(lay.one if n_algorithms == 1 else lay.many))
        figs.update(dict.fromkeys(lay.figures_one if n_algorithms == 1 else lay.figures_many))
    if n_algorithms != 2:  # the scatter plots compare two algorithms: a template reads them only then
        figs = {f: None for f in figs if not f.rsplit("/", 1)[-1].startswith("ppscatter_")}
    return list(tables), list(figs)
