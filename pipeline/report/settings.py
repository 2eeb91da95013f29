"""What a report was made with: the selection, the measure settings and the versions of the
software and of every data set. Written as `settings.json` beside `index.html`; a report built
again from that file (and the same data) is byte-identical.
"""
from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import polars as pl

from ..hits import targets as tg
from ..measures import catalog
from ..measures.registry import BOOL, Interval, InvalidSetting, Options, Param
from .vendor import versions as js_versions

#: the settings.json format
FORMAT = "cocopipe-report/1"
#: the ECDF modes a report draws (its texts say simulated restarts or their expectation; not the trials' own)
MODES = ("simulated", "exact")
RENDERERS = ("vega", "svg")
#: default number of simulated restarts: per trial for ECDFs (cocopp's pprldmany), per problem for
#: the aRT dispersion of the tables (cocopp's pptable)
ECDF_SAMPLES = 100
TABLE_SAMPLES = 1000


class SettingsError(InvalidSetting):
    """A settings file or value that cannot be used; `setting` names a refused value's setting (None: a file's
    error, or one of the selection), so that the command line can name it as its option."""


def _as(param: Param, name: str, **changes) -> Param:
    """A measure's declared setting under the report's name (its constraints the measure's)."""
    return dataclasses.replace(param, name=name, **changes)


#: the report's settings that measures declare, checked by the declarations (`pipeline.measures.catalog`): the
#: same words as Python's and the commands' refusals, under the report's names
PARAMS = (
    _as(catalog.MODE, "mode", constraints=(Options(MODES),)), _as(catalog.SEED, "seed"),
    _as(catalog.SAMPLES_ECDF, "ecdf_samples", default=ECDF_SAMPLES),
    _as(catalog.SAMPLES_ART, "table_samples", default=TABLE_SAMPLES),
    catalog.CORRECTION, catalog.ALPHA,
    Param("all_instances", False, (BOOL,), "Every instance, not only the suite's standard ones."),
    Param("exact", False, (BOOL,), "First hits on every record (seed 000)."),
    Param("renderer", "vega", (Options(RENDERERS),), "Interactive charts (vega) or static SVG."),
    Param("max_pairs", 10, (Interval(int, 0, None),), "Every pair of algorithms compared up to this many."))


@dataclass
class Settings:
    """Everything a report depends on besides the data."""

    # what is shown
    algorithms: list[str] | None = None  #: None: every algorithm of the store (reference excluded)
    suites: list[str] | None = None
    functions: list[int] | None = None
    dimensions: list[int] | None = None
    #: algorithm of the store or packaged reference set; None: each suite's default (its packaged set, as
    #: cocopp); "none": none
    reference: str | None = None
    #: drawn thin and grey behind the compared algorithms in every ECDF and scaling chart: algorithm names of
    #: the store, other cocopipe stores (all their algorithms), or sources (folders, archives) ingested with the data
    background: list[str] | None = None
    # how it is measured
    max_budget: str | None = None  #: budget cut: B evaluations or "Nx" (N x dimension); None: none
    targets: str | None = None  #: ECDF targets: None = each suite's standard set, or a name/list
    table_targets: str | None = None  #: None = cocopp's table targets per suite
    all_instances: bool = False
    exact: bool = False  #: first hits on every record (seed 000), not cocopp's reading (`--exact-hits`)
    mode: str = "simulated"  #: ECDF of simulated restarts ("simulated", seeded) or its expectation ("exact")
    seed: int = 1
    ecdf_samples: int = ECDF_SAMPLES
    table_samples: int = TABLE_SAMPLES
    correction: str = "bonferroni"
    alpha: float = 0.05
    # how it is drawn
    renderer: str = "vega"  #: "vega": interactive charts with the shipped JavaScript; "svg": static SVG
    max_pairs: int = 10  #: pairwise comparisons: every pair up to this many, else pairs with the first algorithm
    #: {algorithm: colour, or [colour, marker]}: fixed colours (CSS) and markers (Vega-Lite shapes); every other
    #: algorithm keeps the colour its name chooses (charts.theme.palette), in every report
    colours: dict[str, str | list[str]] | None = None
    #: above this many compared algorithms the report summarises (pages.MANY_RULES: one ECDF chart per dimension
    #: with a function control, no page per algorithm, tables of the best ranked, no Glicko-2)
    max_detail: int = 20
    # where the data came from (recorded, and used by `cocopipe report --settings` when given)
    sources: list[str] | None = None
    # filled in by the report: instances, data sets, versions
    record: dict = field(default_factory=dict)

    def check(self) -> Settings:
        """Raise `SettingsError` on a value the report cannot use; return self."""
        for param in PARAMS:
            try:
                param.check(getattr(self, param.name))
            except InvalidSetting as exc:  # "ecdf_samples 0: expected an integer >= 1"
                raise SettingsError(str(exc), param.name) from None
        for name in ("targets", "table_targets"):
            if getattr(self, name) is not None:
                try:
                    tg.parse(getattr(self, name))
                except ValueError as exc:  # "targets 'nan': nan is no target; expected ..."
                    raise SettingsError(f"{name}{str(exc).removeprefix('targets')}", name) from None
        self.fixed_palette()
        return self

    def fixed_palette(self) -> dict[str, tuple[str, str | None]]:
        """The `colours` setting as {algorithm: (colour, marker or None)}; a malformed entry is a `SettingsError`."""
        if self.colours is None:
            return {}
        if not isinstance(self.colours, dict):
            raise SettingsError(f"colours {self.colours!r}: expected {{algorithm: colour or [colour, marker]}}")
        out = {}
        for alg, v in self.colours.items():
            parts = [v] if isinstance(v, str) else v
            if not (isinstance(parts, list) and 1 <= len(parts) <= 2 and all(isinstance(x, str) and x for x in parts)):
                raise SettingsError(f"colours[{alg!r}] = {v!r}: expected a colour (\"#0072B2\") or [colour, marker]")
            out[str(alg)] = (parts[0], parts[1] if len(parts) == 2 else None)
        return out

    # -- files -----------------------------------------------------------------------------
    def to_dict(self) -> dict:
        """The settings as JSON-ready data, with the format tag first."""
        return {"format": FORMAT, **dataclasses.asdict(self)}

    def to_json(self) -> str:
        """settings.json text (stable: sorted lists come from the report, keys in field order)."""
        return json.dumps(self.to_dict(), indent=1, allow_nan=False) + "\n"

    @classmethod
    def from_dict(cls, data: dict, origin: str = "settings") -> Settings:
        """Settings from `to_dict` data; unknown keys and a wrong format are errors."""
        if not isinstance(data, dict):
            raise SettingsError(f"{origin}: expected a JSON object")
        data = dict(data)
        fmt = data.pop("format", None)
        if fmt != FORMAT:
            raise SettingsError(f"{origin}: format {fmt!r}, expected {FORMAT!r}")
        if "exact_hits" in data and "exact" not in data:  # its name in settings.json of cocopipe before 2026-12
            data["exact"] = data.pop("exact_hits")
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise SettingsError(f"{origin}: unknown setting(s) {', '.join(unknown)}")
        try:
            return cls(**data).check()
        except SettingsError as exc:  # the file's value, named as the file spells it
            raise SettingsError(f"{origin}: {exc}") from None

    @classmethod
    def load(cls, path: str | Path) -> Settings:
        """Read a settings.json file."""
        p = Path(path)
        if p.exists() and not p.is_file() and not p.is_dir():  # a FIFO or a device: the read would block
            raise SettingsError(f"{p}: not a regular file, not a settings file")
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise SettingsError(f"{p}: no such settings file") from None
        except json.JSONDecodeError as exc:
            raise SettingsError(f"{p}: not JSON ({exc.msg}, line {exc.lineno})") from None
        except UnicodeDecodeError:
            raise SettingsError(f"{p}: not a settings file (not UTF-8 text)") from None
        except OSError as exc:
            what = "a folder, not a settings file" if p.is_dir() else f"cannot read the settings file ({exc.strerror})"
            raise SettingsError(f"{p}: {what}") from None
        return cls.from_dict(data, str(p))

    def replace(self, **changes) -> Settings:
        """A copy with some values changed (None values are ignored: "not given")."""
        return dataclasses.replace(self, **{k: v for k, v in changes.items() if v is not None})


def software_versions() -> dict[str, str]:
    """Versions of cocopipe and of the libraries that shape the numbers and the charts."""
    out = {}
    for dist in ("cocopipe", "polars", "numpy", "scipy", "altair", "vl-convert-python"):
        try:
            out[dist] = version(dist)
        except PackageNotFoundError:
            out[dist] = "not installed"
    out.update({f"{k} (JavaScript)": v for k, v in js_versions().items() if k != "vl-convert"})
    return out


def data_sets(runs: pl.LazyFrame, store=None) -> list[dict]:
    """One entry per data set (suite, algorithm, source) of the runs shown: its COCO log format and
    COCO version, content hash, and what it covers; where `store`'s sources came from a COCO data
    archive (`cocopipe ingest archive:NAME`), every entry also names its archive data set (archive,
    archive_url, sha256; None for the others)."""
    df = (
        runs.group_by("suite", "algorithm", "source")
        .agg(source_id=pl.col("source_id").first(),
             data_format=pl.col("data_format").drop_nulls().unique().sort().str.join(", "),
             coco_version=pl.col("coco_version").drop_nulls().unique().sort().str.join(", "),
             trials=pl.len(), functions=pl.col("function").n_unique(),
             dimensions=pl.col("dimension").unique().sort(),
             instances=pl.col("instance").unique().sort())
        .sort("suite", "algorithm", "source").collect()
    )
    rows = df.to_dicts()
    sources = store.sources() if hasattr(store, "sources") else {}
    if any(e.get("archive_sha256") for e in sources.values()):
        by_name = {(e.get("name", key), e.get("source_id")): e for key, e in sources.items()}  # keys are paths
        for r in rows:
            e = by_name.get((r["source"], r["source_id"]), {})
            r.update(archive=e.get("archive_name"), archive_url=e.get("archive_url"), sha256=e.get("archive_sha256"))
    return rows
