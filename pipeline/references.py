"""Reference algorithms built from data: the artificial best algorithm of a set of algorithms, and the
packaged published sets rebuilt from their archives.

The artificial best algorithm (seed 000, "best 2009"; cocopp `bestalg.BestAlgSet`) takes, on every
(function, dimension, target), the data of the algorithm with the smallest aRT. As cocopp writes it
(`bestalg.create_data_files`), it is stored as one artificial trial (instance 0) that reaches each
target after round(aRT) evaluations, so every measure reads it like any other algorithm; which
algorithm it took per (function, dimension, target) is kept beside the store in
`references/<name>.parquet` (see `pipeline.reference_sets.choices`).

The published reference sets (best2009, best09-16, best2016, best2019) ship with the package as a
ready store (`pipeline.reference_sets`, opened by `pipeline.selection.open_reference`);
`package_references` rebuilds it from the archives. Building computes aRT through an `Analysis`: this
module lies above the measures.
"""
from __future__ import annotations

import hashlib
import io
import json
import math
import os
import re
import shutil
import tarfile
import tempfile
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import quote

import numpy as np
import polars as pl

from .conventions import is_biobjective
from .hits import targets as tg
from .hits.spec import PROBLEM
from .ingest import ingest
from .ingest.consistency import inconsistent_records
from .ingest.sources import run_key
from .reference_sets import (CHOICES_DIR, CHOICES_SCHEMA, PACKAGED, PUBLISHED, ReferenceError, data_dir,
                             resolve)
from .store import SourceData, Store


# -- the artificial best algorithm ------------------------------------------------------------
def target_grid(suite: str, top: float) -> list[float]:
    """The targets the best algorithm is built on: the suite's standard set, extended upwards on
    its grid (10^(k/5), 10^(k/10) on bbob-biobj) to the first recorded precision `top`, as cocopp
    aligns the members' data from their first record on."""
    base = tg.default(suite)
    n = 10 if is_biobjective(suite) else 5
    hi = max(base)
    extra = []
    if top > hi:
        k_top = math.ceil(math.log10(top - 1e-12) * n)
        extra = [10 ** (k / n) for k in range(k_top, round(math.log10(hi) * n), -1)]
    return extra + list(base)


def _grid_frame(analysis, targets: Sequence[float] | None) -> pl.LazyFrame:
    """Targets per (suite, function, dimension) for the members of `analysis`."""
    runs, events = analysis.runs(), analysis.events()
    if targets is not None:
        keys = runs.select("suite", "function", "dimension").unique()
        return keys.join(tg.frame(targets), how="cross")
    first = (events.filter((pl.col("trigger") & 1) == 1).group_by("run_id")
             .agg(pl.col("best_delta").sort_by("evaluations").first()))
    tops = (runs.join(first, on="run_id").group_by("suite", "function", "dimension")
            .agg(top=pl.col("best_delta").max()).collect())
    rows = [(s, f, d, t) for s, f, d, top in tops.iter_rows() for t in target_grid(s, top)]
    return pl.LazyFrame(rows, schema={"suite": pl.String, "function": pl.Int32, "dimension": pl.Int32,
                                      "target": pl.Float64}, orient="row")


def best_choices(analysis, name: str, targets: Sequence[float] | None = None) -> pl.DataFrame:
    """Per (suite, function, dimension, target) the member algorithm with the smallest finite aRT
    and that aRT: the choices of the best algorithm `name`. Ties go to the first algorithm in the
    order the selection lists them (as cocopp's `bestalg.generate` takes its arguments' order),
    then in name order."""
    grid = _grid_frame(analysis, targets)
    art = analysis.art(grid).select(*PROBLEM, "target", "art", "successes", "runs").collect()
    finite = art.filter(pl.col("art").is_finite())
    selected = analysis.filters.get("algorithm")
    order = [selected] if isinstance(selected, str) else list(selected or [])
    order += sorted(set(finite["algorithm"]) - set(order))
    rank = pl.col("algorithm").replace_strict(order, list(range(len(order))), return_dtype=pl.Int64)
    best = (finite.sort(pl.col("art"), rank).group_by("suite", "function", "dimension", "target")
            .first())
    return (best.rename({"algorithm": "chosen"}).with_columns(algorithm=pl.lit(name))
            .select([pl.col(c).cast(t) for c, t in CHOICES_SCHEMA.items()])
            .sort("suite", "function", "dimension", pl.col("target"), descending=[False, False, False, True]))


def best_algorithm(analysis, name: str, targets: Sequence[float] | None = None
                   ) -> tuple[SourceData, pl.DataFrame]:
    """The artificial best algorithm of the algorithms in `analysis` as a store source (one
    artificial trial per function and dimension, instance 0), and its choices table.

    Seed 000 "best 2009": per target the data of the algorithm with the smallest aRT. As cocopp's
    `bestalg.create_data_files`, the trial reaches each target at round(aRT) evaluations (half to
    even); of targets with the same rounded aRT the record keeps the smallest.
    """
    ch = best_choices(analysis, name, targets)
    if ch.height == 0:
        raise ReferenceError("no algorithm in the selection reaches any target: nothing to build a reference from")
    members = analysis.algorithms()
    evals = np.round(ch["art"].to_numpy())
    records = (ch.with_columns(evaluations=pl.Series(evals).cast(pl.Int64))
               .group_by("suite", "function", "dimension", "evaluations").agg(best_delta=pl.col("target").min())
               .sort("suite", "function", "dimension", "evaluations"))
    digest = hashlib.sha256(name.encode())
    digest.update(records.write_csv().encode())
    source_id = digest.hexdigest()[:16]
    key = run_key(source_id)
    problems = records.select("suite", "function", "dimension").unique(maintain_order=True).with_row_index("seq")
    records = records.join(problems, on=["suite", "function", "dimension"]).with_columns(
        run_id=pl.lit(key, pl.Int64) * (1 << 24) + pl.col("seq").cast(pl.Int64))
    info = (analysis.runs().group_by("suite", "function", "dimension")
            .agg(pl.col("precision").max(), pl.col("indicator").drop_nulls().first(),
                 pl.col("data_format").first()).collect())
    last = records.group_by("run_id").agg(pl.col("suite", "function", "dimension").first(),
                                         evaluations=pl.col("evaluations").max(),
                                         final_delta=pl.col("best_delta").min())
    comment = "Combination of " + ", ".join(members)
    # a harder target reached earlier: its record comes first
    bad = inconsistent_records(records["seq"].to_numpy(), records["evaluations"].to_numpy(),
                               records["best_delta"].to_numpy(), problems.height)
    runs = (
        last.join(info, on=["suite", "function", "dimension"], how="left")
        .with_columns(
            algorithm=pl.lit(name), instance=pl.lit(0, pl.Int32), trial=pl.lit(0, pl.Int32),
            last_evaluation=pl.col("evaluations"), g_evaluations=pl.lit(0, pl.Int64),
            info_evaluations=pl.col("evaluations"), info_final_delta=pl.col("final_delta"),
            finalized=pl.lit(True), reference_value=pl.lit(None, pl.Float64), maximize=pl.lit(False),
            function_name=pl.lit(None, pl.String), best_y=pl.lit(None, pl.Float64),
            best_x=pl.lit(None, pl.List(pl.Float64)),
            inconsistent_records=pl.lit(pl.Series(bad)).gather(pl.col("run_id") - key * (1 << 24)),
            coco_version=pl.lit(None, pl.String), comment=pl.lit(comment),
            info_file=pl.format("{}-bestalg.info", pl.col("suite")),
            data_file=pl.format("{}-bestalg_f{}_d{}.dat", pl.col("suite"), pl.col("function").cast(pl.String).str.zfill(2),
                                pl.col("dimension").cast(pl.String).str.zfill(2)),
            source=pl.lit(name), source_id=pl.lit(source_id),
        )
        .with_columns(pl.col("function", "dimension").cast(pl.Int32))
        .sort("suite", "function", "dimension")
    )
    events = records.select(
        "suite", pl.lit(name).alias("algorithm"), "run_id", "evaluations", g_evaluations=pl.lit(0, pl.Int64),
        best_delta="best_delta", measured=pl.lit(None, pl.Float64), trigger=pl.lit(3, pl.Int8))
    meta = {"runs": runs.height, "events": events.height, "reference": True, "members": members,
            "suites": sorted(runs["suite"].unique().to_list()), "algorithms": [name],
            "choices": f"{CHOICES_DIR}/{_file_name(name)}.parquet"}
    # the source is keyed "reference:NAME" so that no ingested source (keyed by its file name) is replaced
    return SourceData(f"reference:{name}", source_id, f"reference:{name}", {"runs": runs, "events": events}, meta), ch


def _file_name(name: str) -> str:
    """An algorithm name as a safe file name (percent-encoded as the store's partition folders)."""
    return quote(name, safe=" -_.+()[]{},;=@~!'")


def write_choices(store: Store, name: str, table: pl.DataFrame) -> None:
    """Record a reference algorithm's choices in the store (its side table `references`, one commit)."""
    store.replace_rows(CHOICES_DIR, table.select(list(CHOICES_SCHEMA)), "algorithm", name)


def build_reference(analysis, name: str, store: Store | None = None, targets: Sequence[float] | None = None
                    ) -> pl.DataFrame:
    """Build the best algorithm `name` of the algorithms in `analysis` and add it to `store` (default:
    the analysed store) as an algorithm of its own, replacing an earlier one of that name; returns
    its choices table. Without an explicit algorithm selection, reference algorithms already in the
    store (only instance 0) and `name` itself are left out of the members."""
    store = store or analysis.store
    if analysis.filters.get("algorithm") is None:
        runs = analysis.runs().group_by("algorithm").agg(reference=(pl.col("instance") == 0).all()).collect()
        members = sorted(a for a, is_ref in runs.iter_rows() if not is_ref and a != name)
        if not members:
            raise ReferenceError("no algorithm to build a reference from (the selection holds only reference algorithms)")
        analysis = analysis.select(algorithm=members)
    if name in analysis.algorithms():
        raise ReferenceError(f"{name!r} is one of the algorithms it would be built from: choose another --name")
    source, ch = best_algorithm(analysis, name, targets)
    write_choices(store, name, ch)
    store.write_source(source)
    return ch


# -- the packaged published sets --------------------------------------------------------------
_ARCHIVE_EXT = re.compile(r"\.(tgz|tar\.gz|tar|zip)$")
_DAT_NAME = re.compile(r"_f(\d+)_[dD][iI]?[mM]?(\d+)\.dat$")


def _on_grid(value: float, suite: str) -> float:
    """A recorded target as the grid value 10^(k/5) (10^(k/10) on bbob-biobj) it was printed from, so
    that it equals the targets of `targets.BBOB`/`targets.BIOBJ` and of built references."""
    if not value > 0:
        return value
    n = 10 if is_biobjective(suite) else 5
    grid = 10 ** (round(math.log10(value) * n) / n)
    return grid if abs(value / grid - 1) < 1e-9 else value


def archive_choices(path: str | os.PathLike, suite: str, name: str) -> pl.DataFrame:
    """The choices a published set records in its .dat files (`evals f f algorithm successes runs`):
    one row per record, `target` the record's precision and `art` its evaluations (cocopp's rounded aRT)."""
    rows = []
    with tarfile.open(path) as tar:
        for member in tar.getmembers():
            m = _DAT_NAME.search(member.name)
            if not member.isfile() or not m:
                continue
            fh = tar.extractfile(member)
            for line in io.TextIOWrapper(fh, encoding="utf-8", errors="replace"):
                parts = line.split()
                if len(parts) < 6 or line.startswith("%"):
                    continue
                chosen = _ARCHIVE_EXT.sub("", re.split(r"[\\/]", parts[3])[-1])
                rows.append((suite, name, int(m.group(1)), int(m.group(2)), _on_grid(float(parts[1]), suite), chosen,
                             float(parts[0]), float(parts[4]), float(parts[5])))
    return pl.DataFrame(rows, schema=CHOICES_SCHEMA, orient="row").sort(
        "function", "dimension", pl.col("target"), descending=[False, False, True])


def _portable(entry: str) -> str:
    """A source's entry with its path as the base name and no time of ingest."""
    e = json.loads(entry)
    e["path"] = Path(e["path"]).name if e.get("path") else e.get("path")
    e.pop("ingested", None)
    return json.dumps(e, sort_keys=True)


def package_references(archives: Sequence[str | os.PathLike], out: str | os.PathLike | None = None) -> Path:
    """Rebuild the packaged reference store (default: `data_dir()`) from the published archives
    (e.g. ../shared/data/refalgs/*.tar.gz): each archive becomes the algorithm of its own name."""
    out = Path(out) if out is not None else data_dir()
    names = {Path(a).name: _ARCHIVE_EXT.sub("", Path(a).name) for a in archives}
    known = {s for sets in PUBLISHED.values() for s in sets.values()}
    unknown = [n for n in names.values() if n not in known]
    if unknown:
        raise ReferenceError(f"{', '.join(unknown)}: not a published reference set ({', '.join(sorted(known))})")
    stage = Path(tempfile.mkdtemp(prefix=".refalgs-", dir=out.parent))
    try:
        store = Store(stage, create=True)
        for path in sorted(archives, key=lambda p: Path(p).name):
            name = names[Path(path).name]
            summary = ingest([path], store, name=name, force=True, source_name=name)
            if not summary.runs or summary.problems:
                raise ReferenceError(f"{path}: could not be read cleanly ({summary.problems[:1]})")
            suite = resolve(name)[0]
            write_choices(store, name, archive_choices(path, suite, name))
        # no machine-specific paths or times in the package
        store.rewrite_sources(lambda df: df.with_columns(
            path=pl.col("path").map_elements(lambda p: Path(p).name, return_dtype=pl.String),
            ingested=pl.lit(None, pl.String),
            entry=pl.col("entry").map_elements(_portable, return_dtype=pl.String)))
        store.set_property(PACKAGED, "true")  # read only: no cache is written beside it, wherever it is
        store.vacuum(side=[CHOICES_DIR])
        if out.exists():
            shutil.rmtree(out)
        os.replace(stage, out)
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
    return out
