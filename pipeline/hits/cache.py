"""First hitting times cached in the store: computed once per source, read by every later measure.

Every measure (aRT, ECDFs, auc, rankings, tests, the report) starts from the first hitting times
of the trials (`spec.hitting_times`), whose cost is reading and scanning all events. For the
standard target set of each suite they are kept in the store, one Parquet file per source in the
store's cache folder of each hit rule (`Store.cache_dir("hits-<rule>-v<schema major>")`, files
`<commit_id>.<files>.parquet` (`<files>`: a fingerprint of the runs and events files of its rows), schema
`schemas/hits.json`: a row per trial and standard target, the hit
null where it was never reached): written the first time a measure needs them (by the fast path,
`_kernel.first_hits`), never edited (a source written anew has another `commit_id`, and the
store removes the old commit's file a grace time after it: `store.garbage.expire_caches`).
Target sets that are subsets of the standard ones (e.g. the aRT table targets) and budget cuts
(a target counts only if hit within B: `budget.cut_hits`) are answered from the cache; other
targets (runlength-based) and the recomputed biobjective indicator are computed from the events.
`COCOPIPE_HITS_CACHE=0` turns the cache off.
"""
from __future__ import annotations

import os
import uuid
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow.parquet as pq

from .. import distributed
from ..reference_sets import PACKAGED, data_dir
from ..store import schema
from ..store.integrity import made_from
from ..store.store import Store, StoreError
from . import targets as tg
from ._kernel import first_hits
from .budget import Budget, cut_hits
from .spec import RUN_COLS, dataset_columns, hitting_times, instance_weights

TABLE = "hits"
#: sources whose hits are computed together (bounded memory, fewer passes)
BATCH_RUNS = 12_000


def enabled() -> bool:
    """False when the environment turns the cache off (COCOPIPE_HITS_CACHE=0)."""
    return os.environ.get("COCOPIPE_HITS_CACHE", "1").strip().lower() not in ("0", "no", "false", "off")


def folder(store: Store, exact: bool) -> Path:
    """The cache folder of a store for one hit rule (and the cache's schema version)."""
    major = schema.version(TABLE).split(".")[0]
    return store.cache_dir(f"hits-{'exact' if exact else 'cocopp'}-v{major}")


def _asked(target_frame: pl.DataFrame, suites: Iterable[str]) -> dict[str, set[float]] | None:
    """The targets the frame asks for in each suite, or None for a frame of other keys (e.g. per function)."""
    cols = set(target_frame.columns)
    if not cols <= {"suite", "target"} or "target" not in cols:
        return None
    if "suite" in cols:
        return {s: set(target_frame.filter(pl.col("suite") == s)["target"].to_list()) for s in suites}
    return dict.fromkeys(suites, set(target_frame["target"].to_list()))


def covered(target_frame: pl.DataFrame, suites: Iterable[str]) -> bool:
    """True when every (suite, target) the frame asks for is in that suite's standard set, bit for bit."""
    asked = _asked(target_frame, suites)
    return asked is not None and all(t in set(tg.default(s)) for s, ts in asked.items() for t in ts)


def _packaged(store: Store) -> bool:
    """True for a packaged reference store: the one of the installed package, or any store whose manifest
    says it was written by `cocopipe reference package` (e.g. the repository's data/refalgs read by an
    installed package)."""
    try:
        if isinstance(store.path, Path) and store.path.resolve() == data_dir().resolve():
            return True
    except FileNotFoundError:
        pass
    try:
        return store.properties().get(PACKAGED) == "true"
    except StoreError:
        return False


def _write(df: pl.DataFrame, out: Path) -> None:
    tmp = out.with_name(f".{out.name}.{uuid.uuid4().hex[:8]}")
    pq.write_table(schema.conform(TABLE, df), tmp, compression="zstd", row_group_size=1 << 20)
    os.replace(tmp, out)


def _names(store: Store, commit_ids: Iterable[str]) -> dict[str, str]:
    """The cache file of each commit: `<commit_id>.<what its rows are made of>.parquet` (`integrity.made_from`),
    so that a file of the commit dropped since (by a repair) is never answered from."""
    commits = [s for s in dict.fromkeys(commit_ids) if s]
    return {s: f"{s}.{fp}.parquet" for s, fp in made_from(store, commits).items()}


def fill(store: Store, commit_ids: Iterable[str], exact: bool) -> list[str]:
    """Compute and write the cached hits of the sources that have none yet; returns those written.

    All trials of a source (every instance, no budget cut) against its suite's standard targets;
    several sources per pass, up to about BATCH_RUNS trials. Only the partitions the manifest lists
    for these sources are read (every algorithm of a source, whatever the selection asking)."""
    root = folder(store, exact)
    names = _names(store, commit_ids)
    todo = [s for s in names if not (root / names[s]).is_file()]
    if not todo:
        return []
    root.mkdir(parents=True, exist_ok=True)
    entries = {e["commit_id"]: e for e in store.sources().values() if e.get("commit_id") in todo}
    listed = len(entries) == len(todo) and all("suites" in e and "algorithms" in e for e in entries.values())
    runs_all = store.scan("runs", commits=True)
    if listed:
        runs_all = runs_all.filter(pl.col("suite").is_in(sorted({x for e in entries.values() for x in e["suites"]}))
                                   & pl.col("algorithm").is_in(sorted({x for e in entries.values()
                                                                        for x in e["algorithms"]})))
    if listed and all(isinstance(e.get("runs"), int) for e in entries.values()):  # the manifest's counts
        sizes = {s: entries[s]["runs"] for s in todo}
    else:
        sizes = dict(runs_all.filter(pl.col("commit_id").is_in(todo)).group_by("commit_id").len().collect().rows())
    # batches of about BATCH_RUNS trials at most, at least one per worker where the sources allow it,
    # of sizes as equal as can be (the largest sources first, each into the lightest batch)
    count = min(len(todo), max(-(-sum(sizes.values()) // BATCH_RUNS), distributed.workers()))
    batches, load = [[] for _ in range(count)], [0] * count
    for s in sorted(todo, key=lambda s: -sizes.get(s, 0)):
        i = load.index(min(load))
        batches[i].append(s)
        load[i] += sizes.get(s, 0)
    batches = [b for b in batches if b]

    def one(batch: list[str]) -> None:
        runs = runs_all.filter(pl.col("commit_id").is_in(batch))
        if listed:  # the partitions to read, as the manifest lists them
            suites = sorted({x for s in batch for x in entries[s]["suites"]})
            algorithms = sorted({x for s in batch for x in entries[s]["algorithms"]})
        else:
            keys = runs.select("suite", "algorithm").unique().collect()
            suites, algorithms = keys["suite"].unique().to_list(), keys["algorithm"].unique().to_list()
        events = store.events().filter(pl.col("suite").is_in(suites) & pl.col("algorithm").is_in(algorithms))
        parts = _batch_hits(runs, events, exact)
        for s in batch:
            part = parts.get(s, pl.DataFrame(schema={"run_id": pl.Int64, "target": pl.Float64, "hit": pl.Int64}))
            _write(part, root / names[s])

    workers = min(distributed.workers(), len(batches))
    if workers > 1:  # numpy's sorts, Polars and the Parquet writer release the GIL
        with ThreadPoolExecutor(workers) as pool:
            list(pool.map(one, batches))
    else:
        for batch in batches:
            one(batch)
    return todo


def _parts(store, runs: pl.LazyFrame) -> list[tuple[Store, pl.LazyFrame]] | None:
    """The runs of a union of stores (a report's store and a packaged reference set) split by the store each
    came from (by its commit), each store reading its own cache; None for one store, or where the union holds
    something other than stores, or the runs do not name their commits."""
    members = store.members() if hasattr(store, "members") and not isinstance(store, Store) else None
    if not members or "commit_id" not in runs.collect_schema().names():
        return None
    got, out, taken = runs.collect(), [], set()  # the union's runs read once, then split
    for m in members:  # a commit to the first store holding it (a store named twice is read once)
        mine = [c for c in m.snapshot.committed if c not in taken]
        taken.update(mine)
        out.append((m, got.filter(pl.col("commit_id").is_in(mine)).lazy()))
    return out


def prefill(store: Store, runs: pl.LazyFrame, target_frame: pl.DataFrame, exact: bool) -> None:
    """Fill the cache for every source of `runs` at once, in batches over the workers, where `hits`
    would answer from it (before groups of algorithms read it, each filling only its own sources)."""
    parts = _parts(store, runs)
    if parts is not None:
        for member, part in parts:
            prefill(member, part, target_frame, exact)
        return
    found = _sources(runs, target_frame) if _usable(store, runs, target_frame) else None
    if found and found[0]:
        try:
            fill(store, found[0], exact)
        except OSError:
            pass  # `hits` computes from the events


def _batch_hits(runs: pl.LazyFrame, events: pl.LazyFrame, exact: bool) -> dict[str, pl.DataFrame]:
    """The cached rows of the sources of `runs` (every trial against its suite's standard targets,
    sorted by run_id, target), by commit_id: by `_kernel.first_hits`, else by `spec.hitting_times`."""
    edf = events.select("run_id", "evaluations", "best_delta", "trigger")
    if not exact:  # cocopp's rule reads the target-triggered (.dat) records alone: the others never read
        edf = edf.filter((pl.col("trigger") & 1) == 1)
    # the trials with the columns that group them as cocopp aligns them (`_kernel.first_hits`)
    cols = dict.fromkeys(["run_id", "suite", "commit_id", *dataset_columns(runs.collect_schema().names())])
    rdf, edf = pl.collect_all([runs.select(*cols), edf])  # the two scans at once
    rdf = rdf.sort("commit_id", "run_id")
    suites = rdf["suite"].unique().sort().to_list()
    got = first_hits(rdf, edf, {s: tg.default(s) for s in suites}, exact)
    if got is not None:  # rows in the order of rdf's runs: one slice per source
        per_run = pl.col("suite").replace_strict({s: len(tg.default(s)) for s in suites}, return_dtype=pl.Int64)
        sizes = rdf.group_by("commit_id", maintain_order=True).agg(n=per_run.sum())
        ends = np.cumsum(sizes["n"].to_numpy())
        return {s: got.slice(int(e - n), int(n)) for s, n, e in zip(sizes["commit_id"], sizes["n"], ends)}
    events = events.join(runs.select("run_id"), on="run_id", how="semi")
    h = hitting_times(runs, events, tg.frame(None, suites), exact=exact)
    got = h.select("run_id", "target", "hit").join(runs.select("run_id", "commit_id"), on="run_id").collect()
    return {k[0]: part.sort("run_id", "target") for k, part in got.partition_by("commit_id", as_dict=True,
                                                                                include_key=False).items()}


def scan(store: Store, commit_ids: Iterable[str], exact: bool) -> pl.LazyFrame:
    """The cached hits of the given sources (which must have been filled)."""
    root = folder(store, exact)
    files = [str(root / name) for name in _names(store, commit_ids).values()]
    sch = schema.polars_schema(TABLE)
    if not files:
        return pl.LazyFrame(schema=sch)
    return pl.scan_parquet(files, schema=sch, glob=False)  # a path holding [ or * is a name, not a pattern


def _union_hits(parts: list[tuple[Store, pl.LazyFrame]], target_frame: pl.DataFrame, exact: bool,
                budget: Budget | None) -> pl.LazyFrame | None:
    """The hits of the trials of several stores (`_parts`): each store's from its cache, or computed from its
    records where its cache cannot answer; None where no store's cache can. The trials are read once
    (`_parts`): a plan that reads its hits twice, e.g. pairs of algorithms, does not scan the union again."""
    read = [(member, part.collect()) for member, part in parts]
    read = [(m, r) for m, r in read if r.height] or read[:1]
    got = [(member, part.lazy(), hits(member, part.lazy(), target_frame, exact, budget)) for member, part in read]
    if all(h is None for _, _, h in got):
        return None
    out = []
    for member, part, h in got:
        if h is None:
            records = member.scan("events").join(part.select("run_id"), on="run_id", how="semi")
            h = cut_hits(hitting_times(part, records, target_frame.lazy(), exact=exact), budget)
        out.append(h)
    cols = out[0].collect_schema().names()
    return pl.concat([h.select(cols) for h in out])


def _usable(store: Store, runs: pl.LazyFrame, target_frame: pl.DataFrame) -> bool:
    """Whether the cache may answer at all: turned on, a store of ours we may write to, trials that name
    their source, no target asked twice (whose rows are given twice: computed)."""
    if not enabled() or "commit_id" not in runs.collect_schema().names() or not isinstance(store, Store):
        return False
    return not _packaged(store) and not target_frame.is_duplicated().any()  # packaged sets are never written to


def _sources(runs: pl.LazyFrame, target_frame: pl.DataFrame) -> tuple[list[str], dict[str, set[float]]] | None:
    """The sources of `runs` (sorted) and the targets asked for per suite, where they are all among the
    standard ones of their suite; else None."""
    present = runs.select("suite", "commit_id").unique().collect()
    asked = _asked(target_frame, present["suite"].unique().to_list())
    if asked is None or any(not ts <= set(tg.default(s)) for s, ts in asked.items()):
        return None
    return present["commit_id"].unique().sort().to_list(), asked


def hits(store: Store, runs: pl.LazyFrame, target_frame: pl.DataFrame, exact: bool,
         budget: Budget | None = None) -> pl.LazyFrame | None:
    """First hitting times as `spec.hitting_times(runs, events, targets)` gives them, from the
    cache (filled first where missing); None where the cache cannot answer (targets outside the
    standard sets, cache turned off, a store we may not write to). Of a union of stores, each store's trials
    are answered by its own cache, those of a store without one (a packaged reference set) computed."""
    parts = _parts(store, runs)
    if parts is not None:
        return _union_hits(parts, target_frame, exact, budget)
    if not _usable(store, runs, target_frame):
        return None
    runs = runs.select(*RUN_COLS, "commit_id").collect().lazy()  # read once, for the sources and the weights
    found = _sources(runs, target_frame)
    if found is None:
        return None
    sources, asked = found
    try:
        fill(store, sources, exact)
    except OSError:
        return None
    # every trial has a row per standard target of its suite: one join on the trial, then the
    # targets asked for (none to drop when they are the whole standard set of every suite present)
    base = instance_weights(runs.select(RUN_COLS))
    cached = scan(store, sources, exact)
    subset = any(ts != set(tg.default(s)) for s, ts in asked.items())
    if subset:  # the rows of the targets asked for read alone (a filter of the scan), then each suite's own
        cached = cached.filter(pl.col("target").is_in(sorted(set().union(*asked.values()))))
    # in the trials' order, each trial's targets in the cache's: measures that sum floats (auc) give
    # the same bits on every run
    out = base.join(cached, on="run_id", how="inner", maintain_order="left_right")
    if subset:
        keys = [c for c in target_frame.columns if c != "target"]
        out = out.join(target_frame.lazy(), on=[*keys, "target"], how="semi", maintain_order="left")
    return cut_hits(out.with_columns(success=pl.col("hit").is_not_null()), budget)
