"""The published reference sets shipped with the package, and the choices recorded beside a store.

The published reference sets (best2009, best09-16, best2016, best2019) ship with the package as a
ready store in `data/refalgs` (`pipeline/_data/refalgs` in a wheel), which is never written to
(`pipeline.selection.open_reference` opens them offline). A reference algorithm's choices (which
algorithm it took per function, dimension and target) are kept beside its store in
`references/<name>.parquet` (`choices`).
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import polars as pl

from .store import Store

#: published reference sets by short name: suite -> archive (and algorithm) name
PUBLISHED: dict[str, dict[str, str]] = {
    "best2009": {"bbob": "best2009-bbob", "bbob-noisy": "best2009-bbob-noisy"},
    "best09-16": {"bbob": "best09-16-bbob", "bbob-noisy": "best09-16-bbob-noisy"},
    "best2016": {"bbob-biobj": "best2016-bbob-biobj"},
    "best2019": {"bbob-largescale": "best2019-bbob-largescale"},
}
#: cocopp's default reference algorithm per suite (testbedsettings `reference_algorithm_filename`)
DEFAULT_FOR_SUITE = {"bbob": "best2009-bbob", "bbob-noisy": "best2009-bbob-noisy", "bbob-biobj": "best2016-bbob-biobj",
                     "bbob-largescale": "best2019-bbob-largescale"}
#: the store property ("true") of a store written by `cocopipe reference package`: read only, wherever it lies
PACKAGED = "packaged_references"
#: the side table of a store that records the choices of reference algorithms
CHOICES_DIR = "references"
CHOICES_SCHEMA = {"suite": pl.String, "algorithm": pl.String, "function": pl.Int32, "dimension": pl.Int32,
                  "target": pl.Float64, "chosen": pl.String, "art": pl.Float64, "successes": pl.Float64,
                  "runs": pl.Float64}


class ReferenceError(ValueError):
    """An unknown reference set, or data a reference algorithm cannot be built from."""


def data_dir() -> Path:
    """Folder of the packaged reference sets (installed copy, else the repository's `data/refalgs`)."""
    here = Path(__file__).resolve().parent  # the package
    for cand in (here / "_data" / "refalgs", here.parent / "data" / "refalgs"):
        if cand.is_dir():
            return cand
    raise FileNotFoundError("packaged reference sets not found beside the package (data/refalgs)")


def known_references() -> list[str]:
    """Every name `open_reference` accepts: short names and the full set names."""
    return sorted(PUBLISHED) + sorted(s for sets in PUBLISHED.values() for s in sets.values())


def resolve(name: str, suite: str | None = None) -> tuple[str, str]:
    """(suite, set name) of a published reference set: 'best2009' -> ('bbob', 'best2009-bbob')."""
    full = {s: (su, s) for sets in PUBLISHED.values() for su, s in sets.items()}
    if name in full:
        su, s = full[name]
        if suite is not None and suite != su:
            raise ReferenceError(f"reference {name!r} is for suite {su!r}, not {suite!r}")
        return su, s
    if name not in PUBLISHED:
        raise ReferenceError(f"unknown reference {name!r}: known are {', '.join(known_references())}")
    sets = PUBLISHED[name]
    if suite is None:
        suite = next(iter(sets))
    if suite not in sets:
        raise ReferenceError(f"reference {name!r} has no set for suite {suite!r}: it has {', '.join(sets)}")
    return suite, sets[suite]


def choices(store: Store, algorithm: str | Sequence[str] | None = None) -> pl.LazyFrame:
    """Which algorithm each reference algorithm of a store took per (suite, function, dimension,
    target): columns suite, algorithm, function, dimension, target, chosen, art, successes, runs."""
    lf = store.scan_side(CHOICES_DIR)
    if lf is None:
        return pl.LazyFrame(schema=CHOICES_SCHEMA)
    lf = lf.select(list(CHOICES_SCHEMA))
    if algorithm is not None:
        lf = lf.filter(pl.col("algorithm").is_in([algorithm] if isinstance(algorithm, str) else list(algorithm)))
    return lf


def reference_choices(name: str, suite: str | None = None) -> pl.LazyFrame:
    """The choices of a packaged reference set, as recorded in its .dat files (one row per record)."""
    su, full = resolve(name, suite)
    return choices(Store(data_dir()), full).filter(pl.col("suite") == su)
