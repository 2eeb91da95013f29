"""Write runs of the store in the IOHprofiler layout that IOHinspector and IOHanalyzer read (as ioh's
`logger.Analyzer` writes it; see pipeline.ingest.ioh): per (suite, algorithm, function) a json
`SUITE/ALGORITHM/IOHprofiler_f<id>_<name>.json` and per dimension its `.dat`, one section per run
(header line `evaluations raw_y [parameters] [x0 ...]`, then the run's records).

raw_y: an IOHprofiler run's own logged values (events.measured); for COCO data the best precision so
far (best_delta), as IOHanalyzer and IOHinspector read COCO logs (`best noise-free fitness - Fopt`), with
the run attribute `optimum` = 0 so that `cocopipe ingest` reads it back as precisions. Every run attribute
`optimum` is the optimum in raw_y units where it is known. Values are written in full precision (repr).
What the format holds comes back unchanged through `cocopipe ingest`: suite, algorithm and its info,
function and name, dimension, instance, the order of runs, evaluations and precision of every record,
the json's evals and best (`best.y` in full precision and `best.x`, as ingested), maximisation, optimum
and tracked parameters; COCO's .info fields (comment, coco_version, g evaluations, the .dat/.tdat origin
of each record) are not held.

IOHinspector 0.0.8 tells runs apart by their records at evaluation 1 (`run_id = (evaluations == 1).cum_sum()`),
so a run whose first record comes later (a fixed-budget log without `At(1)`, a COCO run) gets a first
record `1 inf` (`1 -inf` when maximising): no value yet, what IOHinspector assumes before a run's first
record anyway; `cocopipe ingest` leaves such a worst-possible record out, so the round trip is exact.
"""
from __future__ import annotations

import json
import re
from importlib.metadata import version
from pathlib import Path

import polars as pl

from ..ingest.ioh import FORMAT, SUITES

_IOH_SUITE = {v: k for k, v in SUITES.items()}


def _slug(name: str) -> str:
    """A file-name-safe form of a name."""
    return re.sub(r"[^A-Za-z0-9._+-]", "_", name).strip(".") or "_"


def _num(v: float | None) -> str:
    """A value as the .dat holds it: repr of the float (round-trips exactly), `nan` when missing."""
    if v is None or v != v:
        return "nan"
    return repr(float(v))


def _version() -> str:
    try:
        return f"cocopipe {version('cocopipe')}"
    except Exception:  # noqa: BLE001 (not installed: a source checkout)
        return "cocopipe"


def _raw(runs: pl.DataFrame, events: pl.DataFrame) -> pl.DataFrame:
    """Events with `raw_y` (see the module's docstring), in run and evaluation order."""
    ioh = runs.select("run_id", ioh=pl.col("data_format") == FORMAT)
    return (events.join(ioh, on="run_id").sort("run_id", "evaluations", maintain_order=True)
            .with_columns(raw_y=pl.when("ioh").then(pl.col("measured")).otherwise(pl.col("best_delta"))))


def _best(runs: pl.DataFrame, ev: pl.DataFrame) -> pl.DataFrame:
    """Per run the json's `evals` and `best` (evals, y in raw units) and `optimum` (raw units or null)."""
    r = runs.with_columns(
        opt=pl.when(pl.col("data_format") == FORMAT).then(pl.col("reference_value")).otherwise(0.0),
        ioh=pl.col("data_format") == FORMAT)
    known = r.select("run_id", "opt", "maximize", "final_delta", "info_final_delta", "ioh")
    e = ev.join(known, on="run_id")
    raw_best = pl.when(pl.col("maximize").first()).then(pl.col("raw_y").max()).otherwise(pl.col("raw_y").min())
    b = e.group_by("run_id").agg(
        best_evals=pl.col("evaluations").filter(
            pl.when(pl.col("final_delta").is_not_null()).then(pl.col("best_delta") <= pl.col("final_delta"))
            .otherwise(pl.col("raw_y") == raw_best)).min(),
        raw_best=raw_best)
    d = pl.coalesce(pl.when("ioh").then(pl.col("info_final_delta")), pl.col("final_delta"))
    y = pl.when(pl.col("opt").is_null() | d.is_null()).then(pl.col("raw_best")) \
        .when(pl.col("maximize")).then(pl.col("opt") - d).otherwise(pl.col("opt") + d)
    stated = pl.col("best_y") if "best_y" in runs.columns else pl.lit(None, pl.Float64)
    return r.join(b, on="run_id", how="left").with_columns(
        evals=pl.coalesce(pl.when("ioh").then(pl.col("info_evaluations")), pl.col("last_evaluation")),
        best_y=pl.coalesce(pl.when("ioh").then(stated), y))


def _param_names(params: pl.DataFrame) -> list[str]:
    """Tracked parameters first (sorted), then the positions x0, x1, ... in order."""
    names = params["name"].unique().to_list()
    pos = sorted((n for n in names if re.fullmatch(r"x\d+", n)), key=lambda n: int(n[1:]))
    return sorted(n for n in names if n not in pos) + pos


def write(runs: pl.DataFrame, events: pl.DataFrame, params: pl.DataFrame, out: str | Path) -> list[Path]:
    """Write the runs (store columns), their events and params under `out`; the json files written."""
    out = Path(out)
    ev = _raw(runs, events)
    info = _best(runs, ev).sort("suite", "algorithm", "function", "dimension", "trial")
    by_run = ev.partition_by("run_id", as_dict=True)
    par_by_run = params.partition_by("run_id", as_dict=True) if params.height else {}
    written: list[Path] = []
    folders: dict[tuple[str, str], Path] = {}
    for (suite, alg, fid), grp in info.group_by("suite", "algorithm", "function", maintain_order=True):
        folder = folders.get((suite, alg))
        if folder is None:
            folder = out / _slug(suite) / _slug(alg)
            while folder in folders.values():
                folder = folder.with_name(folder.name + "_")
            folders[(suite, alg)] = folder
        fname = grp["function_name"].drop_nulls().first() or f"f{fid}"
        data_dir = f"data_f{fid}_{_slug(fname)}"
        (folder / data_dir).mkdir(parents=True, exist_ok=True)
        scenarios, attrs = [], set()
        for (dim,), scen in grp.group_by("dimension", maintain_order=True):
            rel = f"{data_dir}/IOHprofiler_f{fid}_DIM{dim}.dat"
            ids = scen["run_id"].to_list()
            maximize = dict(zip(ids, scen["maximize"].to_list()))
            pars = [par_by_run[(i,)] for i in ids if (i,) in par_by_run]
            names = _param_names(pl.concat(pars)) if pars else []
            attrs.update(names)
            lines = []
            for rid in ids:
                rows = by_run.get((rid,))
                lines.append(" ".join(["evaluations", "raw_y", *names]))
                if rows is None:
                    continue
                cols = [rows["evaluations"].to_list(), rows["raw_y"].to_list()]
                if names:
                    p = par_by_run.get((rid,))
                    wide = (p.unique(["evaluations", "name"], keep="first", maintain_order=True)
                            .pivot("name", index="evaluations", values="value") if p is not None else None)
                    at = rows.select("evaluations").join(wide, on="evaluations", how="left") if wide is not None else None
                    cols += [at[n].to_list() if at is not None and n in at.columns else [None] * rows.height
                             for n in names]
                if cols[0][0] != 1:  # IOHinspector numbers runs by their records at evaluation 1: "none yet"
                    lines.append(" ".join(["1", "-inf" if maximize[rid] else "inf", *["nan"] * len(names)]))
                for vals in zip(*cols):
                    lines.append(" ".join([str(int(vals[0])), *(_num(v) for v in vals[1:])]))
            (folder / rel).write_text("\n".join(lines) + "\n")
            entries = []
            for r in scen.iter_rows(named=True):
                e = {"instance": r["instance"], "evals": int(r["evals"]),
                     "best": {"evals": int(r["best_evals"] or r["evals"]), "y": r["best_y"],
                              "x": list(r.get("best_x") or [])}}
                if r["opt"] is not None:
                    e["optimum"] = r["opt"]
                entries.append(e)
            scenarios.append({"dimension": dim, "path": rel, "runs": entries})
        first = grp.row(0, named=True)
        meta = {
            "version": _version(), "suite": _IOH_SUITE.get(suite, suite), "function_id": fid, "function_name": fname,
            "maximization": bool(first["maximize"]),
            "algorithm": {"name": alg, "info": first["comment"] if first["data_format"] == FORMAT and first["comment"]
                          else ""},
            "run_attributes": ["optimum"],
            "attributes": ["evaluations", "raw_y", *sorted(attrs - {n for n in attrs if re.fullmatch(r"x\d+", n)}),
                           *sorted((n for n in attrs if re.fullmatch(r"x\d+", n)), key=lambda n: int(n[1:]))],
            "scenarios": scenarios,
        }
        path = folder / f"IOHprofiler_f{fid}_{_slug(fname)}.json"
        path.write_text(json.dumps(meta, indent=1) + "\n")
        written.append(path)
    return written
