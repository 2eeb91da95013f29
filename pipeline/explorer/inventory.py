"""The data sets of a store, as the explorer lists them: one per ingested source, with what its runs hold
(suites, algorithms, dimensions, instances, budget) and where it came from (archive name, year, sha256)."""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

import polars as pl

from ..store import Store

#: a folder of an archive name that tells the year or the workshop: "2009", "2015-GECCO", "2019-BBOB-2019"
YEAR = re.compile(r"(?:^|/)((?:19|20)\d\d)(?:-([^/]+))?/")


@dataclass
class StoredSet:
    """One source of the store: its identity, what it holds, and why it cannot be read (`problem`)."""

    key: str
    name: str
    sha256: str
    source_id: str
    archive_name: str | None = None
    year: int | None = None
    workshop: str | None = None
    suites: list[str] = field(default_factory=list)
    algorithms: list[str] = field(default_factory=list)
    dimensions: list[int] = field(default_factory=list)
    instances: int = 0
    runs: int = 0
    budget: float | None = None
    problem: str | None = None

    @property
    def slug(self) -> str:
        """The file name of its page: its name and the start of its hash (names repeat across years)."""
        safe = re.sub(r"[^A-Za-z0-9._-]+", "_", self.name).strip("_") or "dataset"
        return f"{safe}-{self.sha256[:10]}"

    def row(self) -> dict:
        """Its row of the index table (for people and for tests)."""
        return {"name": self.name, "suite": " ".join(self.suites), "year": self.year, "workshop": self.workshop,
                "algorithm": " ".join(self.algorithms), "dimensions": " ".join(map(str, self.dimensions)),
                "instances": self.instances, "runs": self.runs, "budget": self.budget,
                "archive_name": self.archive_name, "sha256": self.sha256, "problem": self.problem,
                "page": f"sets/{self.slug}.html"}


def year_of(archive_name: str | None) -> tuple[int | None, str | None]:
    """The year and workshop an archive name's folders tell (`bbob/2015-GECCO/X.tgz`: 2015, "GECCO").

    >>> year_of("bbob/2015-GECCO/BrentSTEPqi_Posik.tgz"), year_of("bbob/2009/DIRECT.tgz"), year_of("mine.tgz")
    ((2015, 'GECCO'), (2009, None), (None, None))
    """
    m = YEAR.search(archive_name or "")
    return (int(m[1]), m[2]) if m else (None, None)


def _entry_sha(entry: dict) -> str:
    """A source's sha256: the archive's when it came from one, else a hash of its source_id and commit."""
    if entry.get("archive_sha256"):
        return entry["archive_sha256"]
    return hashlib.sha256(f"{entry.get('source_id')}\0{entry.get('commit_id')}".encode()).hexdigest()


def _summaries(store: Store, source_ids: list[str] | None = None) -> pl.DataFrame:
    """Per source_id: suites, algorithms, dimensions, instances, runs and budget (evaluations / dimension)."""
    runs = store.runs()
    if source_ids is not None:
        runs = runs.filter(pl.col("source_id").is_in(source_ids))
    return runs.group_by("source_id").agg(
        suites=pl.col("suite").unique().sort(), algorithms=pl.col("algorithm").unique().sort(),
        dimensions=pl.col("dimension").unique().sort(), instances=pl.col("instance").n_unique(), runs=pl.len(),
        budget=(pl.col("evaluations") / pl.col("dimension")).max()).collect()


def _fill(ds: StoredSet, row: dict | None) -> None:
    """A data set's fields from its row of `_summaries`; its `problem` when it has none."""
    if row is None:
        ds.problem = "no runs of it are in the store"
        return
    ds.suites, ds.algorithms, ds.dimensions = row["suites"], row["algorithms"], row["dimensions"]
    ds.instances, ds.runs, ds.budget = row["instances"], row["runs"], row["budget"]


def _describe(store: Store, sets: list[StoredSet]) -> None:
    """Fill in what the runs of the data sets hold: in one scan, else (a file cannot be read) one by one, each
    data set that cannot be read given its `problem`."""
    try:
        rows = {r["source_id"]: r for r in _summaries(store).iter_rows(named=True)}
    except Exception:  # noqa: BLE001 - a damaged file: find whose, one data set at a time
        rows = None
    for ds in sets:
        if rows is not None:
            _fill(ds, rows.get(ds.source_id))
            continue
        try:
            one = _summaries(store, [ds.source_id]).iter_rows(named=True)
            _fill(ds, next(one, None))
        except Exception as exc:  # noqa: BLE001 - any failure to read names the data set, never stops the site
            ds.problem = f"its runs cannot be read: {' '.join(str(exc).split())[:200]}"


def inventory(store: Store) -> list[StoredSet]:
    """Every data set of the store, sorted by suite, name and hash; unreadable ones with their `problem`."""
    out = []
    for key, e in store.sources().items():
        year, workshop = year_of(e.get("archive_name"))
        ds = StoredSet(key=key, name=e.get("name") or key, sha256=_entry_sha(e), source_id=e.get("source_id") or "",
                     archive_name=e.get("archive_name"), year=year, workshop=workshop)
        out.append(ds)
    _describe(store, out)
    return sorted(out, key=lambda d: (d.suites[:1], d.name, d.sha256))
