"""Trials that arrive twice: the same problem instance (suite, algorithm, function, dimension,
instance) with identical records, within a source in another data file (the repetitions of an
instance in one data file are trials of their own, as a deterministic algorithm logs them), or in
another source (of the same ingest call, or one the store holds). They are reported and kept.
"""
from __future__ import annotations

import polars as pl

KEY = ("suite", "algorithm", "function", "dimension", "instance")
#: what the records of a trial are compared by
RECORD = ("evaluations", "g_evaluations", "best_delta", "measured", "trigger")
#: run facts equal for identical records: a cheap first match on the runs table of the store
FACTS = ("evaluations", "last_evaluation", "final_delta")


def _hashes(events: pl.LazyFrame) -> pl.LazyFrame:
    """Per run_id, a hash of its records in any order (`records`) and their count (`n`)."""
    return events.group_by("run_id").agg(records=pl.struct(*RECORD).hash().sum(), n=pl.len())


def fingerprints(runs: pl.DataFrame, events: pl.DataFrame, lines: pl.DataFrame) -> pl.DataFrame:
    """One row per run of a parsed source: key, facts, where it is (`info_file`, `info_line` from
    `lines`, `data_file`) and the hash of its records."""
    return (runs.lazy().select("run_id", *KEY, *FACTS, "info_file", "data_file")
            .join(lines.lazy().select("run_id", "info_line"), on="run_id", how="left")
            .join(_hashes(events.lazy()), on="run_id", how="left")
            .sort("run_id").collect())


def _trial(r: dict) -> str:
    return f"trial of f{r['function']} {r['dimension']}-D instance {r['instance']}"


def within(prints: pl.DataFrame) -> list[tuple]:
    """(file, line, what, action) of the trials of one source whose records another data file of
    it already holds for the same problem instance."""
    same = [*KEY, "records", "n"]
    firsts = prints.group_by(same, maintain_order=True).agg(
        pl.col("data_file", "info_file", "info_line").first().name.prefix("first_"))
    dups = prints.join(firsts, on=same).filter(pl.col("data_file") != pl.col("first_data_file"))
    return [(r["info_file"], r["info_line"], f"{_trial(r)} is a duplicate: same records as "
             f"{r['first_info_file']}:{r['first_info_line']}", "kept") for r in dups.iter_rows(named=True)]


def against(store, prints: pl.DataFrame, source: str) -> list[tuple]:
    """(file, line, what, action) of the trials of a source (`prints`) whose records the store holds
    from another source: first matched on the runs table, then on the records of the few matches."""
    if not prints.height:
        return []
    # partition filters, so that only the partitions of the source's suites and algorithms are read
    parts = pl.col("suite").is_in(prints["suite"].unique().implode()) \
        & pl.col("algorithm").is_in(prints["algorithm"].unique().implode())
    runs = (store.runs().filter(parts & (pl.col("source") != source))
            .select("run_id", *KEY, *FACTS, other="source", other_file="info_file"))
    candidates = runs.join(prints.lazy().select(*KEY, *FACTS), on=[*KEY, *FACTS], how="semi").collect()
    if not candidates.height:
        return []
    ids = candidates["run_id"].implode()
    stored = candidates.join(_hashes(store.events().filter(parts & pl.col("run_id").is_in(ids))).collect(),
                             on="run_id")
    dups = prints.join(stored.drop("run_id"), on=[*KEY, *FACTS, "records", "n"]).unique("run_id", keep="first",
                                                                                          maintain_order=True)
    return [(r["info_file"], r["info_line"], f"{_trial(r)} is a duplicate: same records as a trial of source "
             f"{r['other']} ({r['other_file']})", "kept") for r in dups.iter_rows(named=True)]
