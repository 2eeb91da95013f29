"""Recompute the bbob-biobj indicator from the archive table and store it as a second indicator
version beside the logged one (a derived copy of `events`, `derived/biobj-recomputed/`)."""
from __future__ import annotations

import csv
import hashlib
import re
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path

import polars as pl

from ..conventions import is_biobjective
from ..store import Store
from ..words import plural
from .indicator import trajectory
from .points import BiobjError, problem_points

NAME = "biobj-recomputed"
#: version of the recomputation (bump when its conventions change)
VERSION = "1.0.0"
CONVENTIONS = ("COCO logger_biobj (coco-experiment 2.x): objectives normalised to ideal (0,0) / nadir (1,1) "
               "on a 5e-13 grid; hypervolume of archived points in [0,1]^2 with the nadir as reference; "
               "distance to [0,1]^2 while the hypervolume is 0; best_delta = reference - hv + distance")
EVENT_COLUMNS = ["suite", "algorithm", "run_id", "evaluations", "g_evaluations", "best_delta", "measured", "trigger"]
_ID = re.compile(r"^(?P<suite>[\w-]+?)_f(?P<f>\d+)_i(?P<i>\d+)_d(?P<d>\d+)$")


@dataclass
class RecomputeSummary:
    """What a recomputation did."""

    runs: int = 0
    solutions: int = 0
    events: int = 0
    skipped: list[str] = field(default_factory=list)  # one line per run group left out, with the reason
    reference_values: str = "logged"
    missing_references: int = 0  # problems absent from a reference-value file (kept their logged value)


def read_reference_values(path: str | Path) -> pl.DataFrame:
    """Reference indicator values from a file: lines `bbob-biobj_f01_i01_d02 0.833...` (COCO's
    format; `%`/`#` comments) or a CSV with columns function, dimension, instance, reference_value
    (and optionally suite). Returns suite (null: any), function, dimension, instance, reference_value."""
    p = Path(path)
    if not p.is_file():
        raise BiobjError(f"{p}: no such reference-value file")
    text = p.read_text(errors="replace")
    rows: list[tuple] = []
    first = next((ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith(("%", "#"))), "")
    if "reference_value" in first:
        reader = csv.DictReader(ln for ln in text.splitlines() if not ln.lstrip().startswith(("%", "#")))
        for k, rec in enumerate(reader, 2):
            try:
                rows.append((rec.get("suite") or None, int(rec["function"]), int(rec["dimension"]), int(rec["instance"]),
                             float(rec["reference_value"])))
            except (KeyError, TypeError, ValueError):
                raise BiobjError(f"{p}:{k}: expected function, dimension, instance, reference_value") from None
    else:
        for k, line in enumerate(text.splitlines(), 1):
            line = line.strip().strip('",')
            if not line or line.startswith(("%", "#", "/", "*", "{", "}")):
                continue
            parts = line.replace('"', " ").replace(",", " ").split()
            m = _ID.match(parts[0]) if parts else None
            try:
                value = float(parts[1]) if m and len(parts) == 2 else None
            except ValueError:
                value = None
            if m is None or value is None:
                raise BiobjError(f"{p}:{k}: expected `<suite>_fNN_iNN_dNN <value>`, got {line[:60]!r}")
            rows.append((m["suite"], int(m["f"]), int(m["d"]), int(m["i"]), value))
    if not rows:
        raise BiobjError(f"{p}: no reference values found")
    df = pl.DataFrame(rows, schema={"suite": pl.String, "function": pl.Int32, "dimension": pl.Int32,
                                    "instance": pl.Int32, "reference_value": pl.Float64}, orient="row")
    bad = df.filter(~pl.col("reference_value").is_finite())
    if bad.height:
        raise BiobjError(f"{p}: reference value {bad['reference_value'][0]} is not a finite number")
    return df


def recomputed_frame(archive: pl.DataFrame, runs: pl.DataFrame, points: pl.DataFrame) -> pl.DataFrame:
    """Events of the recomputed indicator: one record at every evaluation at which a run's archive
    changed (trigger 1, as target records) and one at the run's last evaluation (trigger 3).

    `archive`: run_id, evaluations, f1, f2; `runs`: run_id, suite, algorithm, function, dimension,
    instance, last_evaluation, reference (the reference hypervolume value); `points`: suite,
    function, dimension, instance, ideal1, ideal2, nadir1, nadir2."""
    keys = ["suite", "function", "dimension", "instance"]
    data = (
        archive.select("run_id", "evaluations", "f1", "f2")
        .join(runs.select("run_id", *keys, "reference"), on="run_id")
        .join(points.select(*keys, "ideal1", "ideal2", "nadir1", "nadir2"), on=keys)
    )
    traj = trajectory(data).filter(pl.col("accepted"))
    changes = traj.group_by("run_id", "evaluations").agg(pl.col("best_delta").last())
    last = (
        changes.sort("evaluations").group_by("run_id").agg(pl.col("evaluations").last().alias("last_change"),
                                                           pl.col("best_delta").last().alias("last_delta"))
        .join(runs.select("run_id", "last_evaluation"), on="run_id")
    )
    final = last.select("run_id", evaluations=pl.max_horizontal("last_evaluation", "last_change"),
                        best_delta="last_delta")
    ev = (
        pl.concat([changes.with_columns(trigger=pl.lit(1, pl.Int8)), final.with_columns(trigger=pl.lit(2, pl.Int8))])
        .group_by("run_id", "evaluations")
        .agg(pl.col("best_delta").first(), pl.col("trigger").sum().cast(pl.Int8))
    )
    return (
        ev.join(runs.select("run_id", "suite", "algorithm"), on="run_id")
        .with_columns(g_evaluations=pl.lit(0, pl.Int64), measured=pl.lit(None, pl.Float64),
                      evaluations=pl.col("evaluations").cast(pl.Int64))
        .select(EVENT_COLUMNS)
        .sort("run_id", "evaluations")
    )


def recompute(store: Store, reference_values: str | Path | None = None,
              points: pl.DataFrame | None = None) -> RecomputeSummary:
    """Recompute the indicator of every biobjective run with an archive and write it to the store
    (replacing an earlier recomputation); the logged indicator is kept. Reference values come
    from the logs' headers, or from `reference_values` (a file, see `read_reference_values`) for the
    problems it lists. `points` (ideal and nadir per problem) defaults to coco-experiment's."""
    summary = RecomputeSummary()
    runs = store.runs().collect()
    runs = runs.filter(pl.col("suite").is_in([s for s in runs["suite"].unique().to_list() if is_biobjective(s)]))
    archive = store.archive().join(runs.lazy().select("run_id"), on="run_id", how="semi").collect()
    if archive.height == 0:
        raise BiobjError(f"{store.path}: no biobjective archive (.adat) data; ingest logs written with "
                         "log_nondominated: all (COCO's default) to recompute the indicator")
    keys = ["suite", "function", "dimension", "instance"]
    has = archive.select("run_id").unique()
    without = runs.join(has, on="run_id", how="anti")
    if without.height:
        summary.skipped.append(f"{plural(without.height, 'biobjective run')} without archive data keep the logged "
                               "indicator")
    runs = runs.join(has, on="run_id", how="semi").with_columns(reference=pl.col("reference_value"))
    if reference_values is not None:
        refs = read_reference_values(reference_values)
        digest = hashlib.sha256(Path(reference_values).read_bytes()).hexdigest()[:16]
        summary.reference_values = f"{Path(reference_values).resolve()} (sha256 {digest})"
        exact = refs.filter(pl.col("suite").is_not_null())
        anysuite = refs.filter(pl.col("suite").is_null()).drop("suite")
        runs = (
            runs.join(exact.rename({"reference_value": "_ref_s"}), on=keys, how="left")
            .join(anysuite.rename({"reference_value": "_ref_a"}), on=keys[1:], how="left")
            .with_columns(reference=pl.coalesce("_ref_s", "_ref_a", "reference"))
        )
        summary.missing_references = runs.filter(pl.col("_ref_s").is_null() & pl.col("_ref_a").is_null()) \
            .select(keys).unique().height
        runs = runs.drop("_ref_s", "_ref_a")
    noref = runs.filter(pl.col("reference").is_null() | pl.col("reference").is_nan())
    if noref.height:
        summary.skipped.append(f"{plural(noref.height, 'run')} without a reference value (none logged, none given): "
                               "left out")
        runs = runs.join(noref.select("run_id"), on="run_id", how="anti")
    if points is None:
        points = problem_points(runs.select(keys).unique())
    # the archive header names the two single-objective problems: they must be those of the points
    if "problem" in points.columns:
        names = archive.group_by("run_id").agg(pl.col("problem").first()).join(runs.select("run_id", *keys), on="run_id")
        clash = names.join(points.select(*keys, expected="problem"), on=keys).filter(
            (pl.col("problem") != "") & (pl.col("problem") != pl.col("expected")))
        if clash.height:
            f, d, i, got, exp = clash.select("function", "dimension", "instance", "problem", "expected").row(0)
            summary.skipped.append(f"{plural(clash.height, 'run')} whose archive names other problems than coco-experiment's "
                                   f"(e.g. f{f} {d}-D instance {i}: {got} != {exp}): left out")
            runs = runs.join(clash.select("run_id"), on="run_id", how="anti")
    bad = points.filter(~pl.all_horizontal(pl.col(c).is_finite() for c in ("ideal1", "ideal2", "nadir1", "nadir2"))
                        | (pl.col("nadir1") <= pl.col("ideal1")) | (pl.col("nadir2") <= pl.col("ideal2")))
    if bad.height:
        f, d, i = bad.select("function", "dimension", "instance").row(0)
        raise BiobjError(f"f{f} {d}-D instance {i}: ideal and nadir points do not span a region of interest")
    events = recomputed_frame(archive.join(runs.select("run_id"), on="run_id", how="semi"), runs, points)
    summary.runs = events["run_id"].n_unique()
    summary.solutions = archive.join(runs.select("run_id"), on="run_id", how="semi").height
    summary.events = events.height
    sources = {n: s["source_id"] for n, s in store.sources().items()}
    store.write_derived(NAME, "events", events, {
        "version": VERSION, "indicator": "hyp", "conventions": CONVENTIONS,
        "reference_values": summary.reference_values, "runs": summary.runs, "solutions": summary.solutions,
        "sources": sources, "points": _points_origin(),
    })
    return summary


def _points_origin() -> str:
    try:
        return f"coco-experiment {version('coco-experiment')}"
    except Exception:  # not installed: points were given
        return "given"


def stale_sources(store: Store) -> list[str]:
    """Sources with archive data ingested (or replaced) after the last recomputation."""
    done = store.derived().get(NAME, {}).get("sources", {})
    return sorted(n for n, s in store.sources().items() if s.get("archive") and done.get(n) != s["source_id"])


def recomputed_events(store: Store) -> pl.LazyFrame:
    """The events table with the recomputed biobjective indicator: recomputed records for the runs
    that have them, the logged records for every other run (single-objective suites, biobjective
    runs without archive data). Raises when the store holds no recomputation."""
    if NAME not in store.derived():
        raise BiobjError(f"{store.path}: the biobjective indicator was not recomputed; run "
                         f"`cocopipe biobj recompute --store {store.path}` first")
    rec = store.scan_derived(NAME)
    done = rec.select("run_id").unique()
    return pl.concat([rec, store.events().join(done, on="run_id", how="anti")])
