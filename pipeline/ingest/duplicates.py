"""Trials that arrive twice: the same problem instance (suite, algorithm, function, dimension,
instance) with identical records, within a source in another data file (the repetitions of an
instance in one data file are trials of their own, as a deterministic algorithm logs them: reported
and kept), or in another source (of the same ingest call, or one the store holds: left out of the
source stored later, so that no selection counts a trial twice, and said in one note per source).
"""
from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from ..vocabulary import PROBLEM_INSTANCE

#: what the records of a trial are compared by
RECORD = ("evaluations", "g_evaluations", "best_delta", "measured", "trigger")
#: run facts equal for identical records: a cheap first match on the runs table of the store
FACTS = ("evaluations", "last_evaluation", "final_delta")


@dataclass
class Trials:
    """The runs of a parsed source as duplicates are looked for: key, facts, where each is
    (`info_file`, `info_line`, `data_file`); and the source's events, whose records are hashed only
    for the runs whose key and facts another run shares."""

    runs: pl.DataFrame
    events: pl.DataFrame


def trials(runs: pl.DataFrame, events: pl.DataFrame, lines: pl.DataFrame) -> Trials:
    """The `Trials` of a parsed source (`lines`: run_id and info_line)."""
    return Trials(runs.select("run_id", *PROBLEM_INSTANCE, *FACTS, "info_file", "data_file")
                  .join(lines.select("run_id", "info_line"), on="run_id", how="left", maintain_order="left"), events)


def _hashed(runs: pl.DataFrame, events: pl.LazyFrame) -> pl.DataFrame:
    """`runs` with a hash of each one's records in any order (`records`) and their count (`n`)."""
    ids = runs["run_id"].implode()
    hashes = (events.filter(pl.col("run_id").is_in(ids)).group_by("run_id")
              .agg(records=pl.struct(*RECORD).hash().sum(), n=pl.len()).collect())
    return runs.join(hashes, on="run_id", how="inner", maintain_order="left")


def _trial(r: dict) -> str:
    return f"trial of f{r['function']} {r['dimension']}-D instance {r['instance']}"


def within(found: Trials) -> list[tuple]:
    """(file, line, what, action) of the trials of one source whose records another data file of
    it already holds for the same problem instance."""
    runs = found.runs
    shared = runs.filter(pl.col("data_file").n_unique().over(*PROBLEM_INSTANCE, *FACTS) > 1)
    if not shared.height:  # the usual case: each problem's trials in one data file
        return []
    hashed = _hashed(shared, found.events.lazy()).sort("run_id")
    same = [*PROBLEM_INSTANCE, *FACTS, "records", "n"]
    firsts = hashed.group_by(same, maintain_order=True).agg(
        pl.col("data_file", "info_file", "info_line").first().name.prefix("first_"))
    dups = hashed.join(firsts, on=same).filter(pl.col("data_file") != pl.col("first_data_file")).sort("run_id")
    return [(r["info_file"], r["info_line"], f"{_trial(r)} is a duplicate: same records as "
             f"{r['first_info_file']}:{r['first_info_line']}", "kept") for r in dups.iter_rows(named=True)]


def _may_share(store, runs: pl.DataFrame, keys: set[str]) -> bool:
    """Whether another source of the store (not one stored under `keys`) may hold runs of the same
    suite and algorithm, by what the manifest says of each source (no table is read)."""
    suites, algorithms = set(runs["suite"].unique()), set(runs["algorithm"].unique())
    for other, meta in store.sources().items():
        if other in keys:
            continue
        if "suites" not in meta or "algorithms" not in meta:  # a manifest that does not say: look
            return True
        if suites & set(meta["suites"]) and algorithms & set(meta["algorithms"]):
            return True
    return False


def against(store, found: Trials, key: str, source_id: str, replaced: list[str] | tuple = ()) -> dict[str, list[int]]:
    """The trials of a source (content `source_id`) whose records the store holds already from another
    source, by the key of that source: their run_ids. Not compared: the version of itself stored under
    its `key`, the sources it replaces (`replaced`: gone in the same commit), and sources of the same content
    (whose commit it names: counted once).
    First matched on the runs table, then on the records of the few matches; a trial the store holds k
    times matches k trials of the source at most."""
    runs = found.runs
    gone = {key, *replaced}
    if not runs.height or not _may_share(store, runs, gone):
        return {}
    sources = store.sources()
    # itself (its earlier version, what it replaces) and sources of the same content, whose commit it names
    # (`Store.commit`: stored once, counted once)
    skip = [e["commit_id"] for k, e in sources.items() if e.get("commit_id") and (k in gone or e.get("source_id") == source_id)]
    # partition filters, so that only the partitions of the source's suites and algorithms are read
    parts = pl.col("suite").is_in(runs["suite"].unique().implode()) \
        & pl.col("algorithm").is_in(runs["algorithm"].unique().implode())
    stored = (store.scan("runs", commits=True).filter(parts & ~pl.col("commit_id").is_in(skip))
              .select("run_id", *PROBLEM_INSTANCE, *FACTS, "commit_id")
              .join(runs.lazy().select(*PROBLEM_INSTANCE, *FACTS), on=[*PROBLEM_INSTANCE, *FACTS], how="semi").collect())
    if not stored.height:
        return {}
    same = [*PROBLEM_INSTANCE, *FACTS, "records", "n"]
    mine = _hashed(runs.join(stored.select(*PROBLEM_INSTANCE, *FACTS), on=[*PROBLEM_INSTANCE, *FACTS], how="semi"),
                   found.events.lazy())
    theirs = _hashed(stored, store.events().filter(parts))
    # the k-th trial of the source with given records matches the k-th stored one with them
    mine = mine.sort("run_id").with_columns(k=pl.int_range(pl.len()).over(same))
    theirs = theirs.sort("commit_id", "run_id").with_columns(k=pl.int_range(pl.len()).over(same))
    dups = mine.join(theirs.select(*same, "k", "commit_id"), on=[*same, "k"]).sort("run_id")
    keys = {e.get("commit_id"): k for k, e in sources.items()}  # sources are known by their keys (paths)
    out: dict[str, list[int]] = {}
    for cid, run_id in dups.select("commit_id", "run_id").iter_rows():
        out.setdefault(keys.get(cid, cid), []).append(run_id)
    return out


def without(tables: dict[str, pl.DataFrame], run_ids: list[int]) -> dict[str, pl.DataFrame]:
    """The tables of a source (each with a run_id column) without the trials `run_ids`."""
    gone = pl.Series(run_ids, dtype=pl.Int64).implode()
    return {name: df.filter(~pl.col("run_id").is_in(gone)) for name, df in tables.items()}
