"""What an analysis looks at: a frozen `Selection` of a store's trials, below every measure.

A selection names suites, algorithms, functions and dimensions (None: all), a budget cut (`Budget`,
parsed once where the user gave it), which instances count (cocopp's instances of interest, or all),
the hit rule (cocopp's reading of the .dat records, or seed 000's exact one on every record) and the
biobjective indicator (as logged, or recomputed). It reads the trials and records it selects (cut at
the budget), and their first hitting times through the store's cache (`pipeline.hits.cache`). A
selection that matches nothing is an error naming what was asked and what exists (`check`).

>>> sel = open_reference("best2009").narrow(function=[1, 2])
>>> sel.algorithms(), sel.suites()
(['best2009-bbob'], ['bbob'])
"""
from __future__ import annotations

import dataclasses
import difflib
import re
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import polars as pl
from polars.io.plugins import register_io_source

from . import biobj
from .conventions import interesting_instances
from .hits import cache, spec
from .hits.budget import Budget, cut, cut_hits
from .reference_sets import data_dir, resolve
from .store import Store

#: the selection's columns in the order they narrow each other (a function is looked for in the suites asked)
KEYS = ("suite", "algorithm", "function", "dimension")
#: names listed in a message at most
LISTED = 12


#: what the measures read: precisions (the optimum known), or logged values (IOHprofiler runs without one)
QUANTITIES = ("precision", "value")


def oriented(value: pl.Expr, maximize: pl.Expr) -> pl.Expr:
    """A logged value oriented so that smaller is better (-value when maximising): what the measures
    read on values as they read precisions; `target` of a raw value target t is `oriented(t)` too."""
    return pl.when(maximize).then(-value).otherwise(value)


class SelectionError(ValueError):
    """A selection that matches no data."""


def natural(name: str) -> tuple:
    """A sort key of a name: case ignored, its runs of digits compared as numbers (A2 before A10)."""
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"(\d+)", name.lower()) if p)


def ranges(values: Sequence[int]) -> str:
    """Integers as compact ranges: 1-5, 7, 9-10."""
    v = sorted({int(x) for x in values})
    out, i = [], 0
    while i < len(v):
        j = i
        while j + 1 < len(v) and v[j + 1] == v[j] + 1:
            j += 1
        out.append(str(v[i]) if i == j else f"{v[i]}-{v[j]}")
        i = j + 1
    return ", ".join(out)


def listing(asked: str, present: Sequence[str]) -> str:
    """The names `present` sorted (`natural`), at most `LISTED` of them, and the closest to `asked` when one
    is close (difflib's cutoff 0.6, case ignored): what a message says a store holds."""
    names = sorted({str(p) for p in present}, key=natural)
    text = ", ".join(names[:LISTED]) + (f", ... ({len(names)} in all)" if len(names) > LISTED else "")
    low = {n.lower(): n for n in names}
    near = difflib.get_close_matches(asked.lower(), list(low), n=1)
    return text + (f" (closest: {low[near[0]]})" if near else "")


def _where(narrowed: dict[str, list]) -> str:
    parts = [f"{k} {', '.join(map(str, v))}" for k, v in narrowed.items()]
    return f" with {' and '.join(parts)}" if parts else ""


def _values(v) -> tuple | None:
    """The values of one selection key as a tuple, in the order given (None: no filter)."""
    if v is None or (isinstance(v, (list, tuple)) and not v):
        return None
    return (v,) if isinstance(v, (str, int)) else tuple(v)


def filter_frame(lf: pl.LazyFrame, **criteria: Sequence | str | int | None) -> pl.LazyFrame:
    """Keep rows whose columns take one of the given values (None or empty: no filter)."""
    for col, values in criteria.items():
        if (vals := _values(values)) is not None:
            lf = lf.filter(pl.col(col).is_in(list(vals)))
    return lf


def check(runs: pl.LazyFrame, filters: dict, all_instances: bool = False, what: str = "the store") -> None:
    """Raise `SelectionError` when a value of the selection `filters` (suite, algorithm, function,
    dimension: a value, a list or None) has no trial among the `runs` that the earlier keys select, or when
    nothing is left once cocopp's instances of interest are kept; the message names what was asked and
    what exists there (sorted, numbers as numbers, with the name closest to the asked one)."""
    cols = [*KEYS, "instance"]
    have = runs.select(cols).unique().collect()
    if have.height == 0:
        raise SelectionError(f"{what} holds no trials (add some with `cocopipe ingest`)")
    narrowed: dict[str, list] = {}
    for key in KEYS:
        asked = _values(filters.get(key))
        if asked is None:
            continue
        present = have[key].unique().to_list()
        missing = [v for v in asked if v not in set(present)]
        if missing:
            where = _where(narrowed)
            if key in ("function", "dimension"):
                nums = [int(x) for x in missing]
                held = ranges(present) if key == "function" else ", ".join(map(str, sorted(map(int, present))))
                raise SelectionError(f"no {key} {', '.join(map(str, nums))} in {what}{where}: it holds {key}s {held}")
            raise SelectionError(f"no {key} {', '.join(repr(str(m)) for m in missing)} in {what}{where}: it holds "
                                 f"{listing(str(missing[0]), present)}")
        have = have.filter(pl.col(key).is_in(list(asked)))
        narrowed[key] = list(asked)
    if interesting_instances(have.lazy(), all_instances).select(pl.len()).collect().item() == 0:
        raise SelectionError(f"the selection{_where(narrowed)} holds only instances cocopp leaves out by default "
                             f"(instances {ranges(have['instance'].to_list())}); --all-instances keeps them")


INDICATORS = ("logged", "recomputed")

#: `Selection.keys` of the latest selections of this process, by store state and filters (at most `_KEYS_KEPT`)
_KEYS: dict[tuple, pl.DataFrame] = {}
_KEYS_KEPT = 256
#: the process-wide caches of this module are written under it (measures run on threads too)
_LOCK = threading.Lock()
#: per state of a store (`Store.stamp`) and (suite, algorithm) filters, the selection's trials (rows of the
#: `runs` table with their commits) as first read in this process: a chart's recipe asks several questions of
#: them (its dimensions, groups, budgets, keys), each a scan of the table's files (20-40 ms) otherwise; at most
#: `RUNS_KEPT_ROWS` trials in all (None: a selection of more, scanned each time)
_RUNS: dict[tuple, pl.DataFrame | None] = {}
#: the plans that read them, by the same keys (made once: a plan of the store's tables takes a few ms to make)
_RUNS_READ: dict[tuple, pl.LazyFrame] = {}
_RUNS_KEPT = 64
RUNS_KEPT_ROWS = 500_000


def _keep(cache: dict, key: tuple, value, kept: int, rows: int | None = None) -> None:
    """`cache[key] = value`, the oldest entries dropped so that at most `kept` remain; with `rows`, also so that
    the frames kept hold at most that many rows in all (a larger `value` is kept as None)."""
    size = 0 if rows is None or value is None else value.height
    with _LOCK:
        while cache and (len(cache) >= kept or (rows is not None and size + sum(
                f.height for f in cache.values() if f is not None) > rows)):
            cache.pop(next(iter(cache)))
        cache[key] = value if rows is None or size <= rows else None


@dataclass(frozen=True)
class Selection:
    """Trials of a store, and how to read them: what every measure starts from.

    Frozen: `narrow(**changes)` gives another selection. Nothing is read until a method asks.

    Parameters
    ----------
    store : Store
        The store.
    suite, algorithm, function, dimension : value or sequence, optional
        Only these (kept as tuples, in the order given); None: all.
    max_budget : Budget, optional
        A budget cut (`Budget.parse("100x")`); None: none.
    all_instances : bool
        Every instance, not only those cocopp considers by default (bbob-biobj: 1-10).
    exact : bool
        First hits by seed 000's definition on every record, not cocopp's reading of the .dat records.
    indicator : {"logged", "recomputed"}
        The biobjective indicator as logged, or recomputed (`cocopipe biobj recompute`).
    cache : bool
        Read first hitting times through the store's cache.

    Examples
    --------
    >>> sel = Selection(Store("cocopipe-store"), algorithm="NM", dimension=[2, 5])
    >>> sel.algorithm, sel.dimension, sel.runs().collect().height
    (('NM',), (2, 5), 720)
    >>> sel.narrow(max_budget=Budget.parse("10x")).runs().collect()["evaluations"].max()
    50
    """

    store: Store
    suite: tuple[str, ...] | None = None
    algorithm: tuple[str, ...] | None = None
    function: tuple[int, ...] | None = None
    dimension: tuple[int, ...] | None = None
    max_budget: Budget | None = None
    all_instances: bool = False
    exact: bool = False
    indicator: str = "logged"
    cache: bool = True
    quantity: str = "precision"

    def __post_init__(self) -> None:
        for key in KEYS:
            object.__setattr__(self, key, _values(getattr(self, key)))
        if self.max_budget is not None and not isinstance(self.max_budget, Budget):
            raise TypeError(f"max_budget {self.max_budget!r}: a Budget (Budget.parse('100x')) or None")
        for name in ("all_instances", "exact"):
            if not isinstance(getattr(self, name), bool):
                raise TypeError(f"{name} {getattr(self, name)!r}: True or False")
        for name, value, known in (("indicator", self.indicator, INDICATORS), ("quantity", self.quantity, QUANTITIES)):
            if value not in known:
                raise ValueError(f"{name} {value!r}: expected {' or '.join(repr(k) for k in known)}")
        if self.indicator == "recomputed":  # a one-line error now, not one at collect time
            if biobj.NAME not in self.store.derived():
                raise ValueError(f"{self.store.path}: the biobjective indicator was not recomputed; run "
                                 f"`cocopipe biobj recompute --store {self.store.path}` first")
            if stale := biobj.stale_sources(self.store):
                raise ValueError(f"{self.store.path}: source {stale[0]} changed after the biobjective indicator "
                                 f"was recomputed; run `cocopipe biobj recompute --store {self.store.path}` again")

    def narrow(self, **changes) -> Selection:
        """A copy with other values of some fields (not checked against the store: see `check`).

        Examples
        --------
        >>> open_reference("best2009").narrow(function=(1, 2)).function
        (1, 2)
        """
        return dataclasses.replace(self, **changes)

    @property
    def filters(self) -> dict:
        """suite, algorithm, function and dimension as asked (a tuple each, or None)."""
        return {k: getattr(self, k) for k in KEYS}

    @property
    def every_record(self) -> bool:
        """Whether hits follow seed 000's definition on every record: `exact` asked, and always on values
        (as IOHanalyzer and IOHinspector read them)."""
        return self.exact or self.quantity == "value"

    def check(self) -> Selection:
        """This selection, once each suite, algorithm, function and dimension asked has trials in the store.

        Raises
        ------
        SelectionError
            Naming what was asked and what the store holds (sorted, the closest name named).

        Examples
        --------
        >>> Selection(Store("cocopipe-store"), algorithm="nm").check()
        Traceback (most recent call last):
        ...
        pipeline.selection.SelectionError: no algorithm 'nm' in the store ...cocopipe-store: it holds DIRECT, NM, RS (closest: NM)
        """
        check(self.store.runs(), self.filters, self.all_instances, what=f"the store {self.store.path}")
        return self

    # -- trials and records ------------------------------------------------------------------
    def _runs_read(self) -> pl.LazyFrame:
        """The trials of the selection's suites and algorithms, with the commit each came with where the store
        says (the key of the hits cache): read when first collected, then kept in this process for the state of
        the store (`_RUNS`); only the partitions of those suites and algorithms are read."""
        if not hasattr(self.store, "scan"):
            return self.store.runs()
        stamp = self.store.stamp() if hasattr(self.store, "stamp") else None
        key = (stamp, self.suite, self.algorithm)
        known = _RUNS_READ.get(key) if stamp is not None else None
        if known is not None:
            return known
        scan = filter_frame(self.store.scan("runs", commits=True), suite=self.suite, algorithm=self.algorithm)
        if stamp is None:
            return scan

        def source(with_columns: list[str] | None, predicate: pl.Expr | None, n_rows: int | None,
                   batch_size: int | None) -> Iterator[pl.DataFrame]:
            kept = _RUNS.get(key, scan)
            if kept is scan:  # not read yet in this process
                kept = scan.collect()
                _keep(_RUNS, key, kept, _RUNS_KEPT, rows=RUNS_KEPT_ROWS)  # the latest read kept
            lf = scan if kept is None else kept.lazy()
            if predicate is not None:
                lf = lf.filter(predicate)
            if with_columns is not None:
                lf = lf.select(with_columns)
            yield (lf if n_rows is None else lf.head(n_rows)).collect()

        read = register_io_source(source, schema=scan.collect_schema(), is_pure=True, explain_name="cocopipe trials",
                                  explain_detail="read once per state of the store")
        _keep(_RUNS_READ, key, read, _RUNS_KEPT)
        return read

    def _matching(self) -> pl.LazyFrame:
        """The trials the filters select."""
        return interesting_instances(filter_frame(self._runs_read(), **self.filters), self.all_instances)

    def _trials(self) -> pl.LazyFrame:
        """The selection's trials of its quantity, not cut: those whose precision is known, or with
        `quantity="value"` the IOHprofiler runs without a known optimum, their `final_delta` being the
        best oriented value (`oriented`)."""
        runs = self._matching()
        if "final_delta" not in runs.collect_schema():
            return runs if self.quantity == "precision" else runs.filter(pl.lit(False))
        if self.quantity == "precision":
            return runs.filter(pl.col("final_delta").is_not_null())
        best = self._records().group_by("run_id").agg(best=pl.col("best_delta").min())
        return (runs.filter(pl.col("final_delta").is_null()).join(best, on="run_id", how="inner")
                .with_columns(final_delta="best").drop("best"))

    def _records(self) -> pl.LazyFrame:
        """The records of the selection's trials, not cut (on values: `best_delta` the oriented value)."""
        events = (biobj.recomputed_events(self.store) if self.indicator == "recomputed" else self.store.events())
        events = filter_frame(events, suite=self.suite, algorithm=self.algorithm)
        if self.quantity == "precision":
            return events.join(self._trials().select("run_id"), on="run_id", how="semi")
        runs = self._matching()
        if "final_delta" not in runs.collect_schema():
            return events.filter(pl.lit(False))
        valued = runs.filter(pl.col("final_delta").is_null()).select("run_id", "maximize")
        return (events.join(valued, on="run_id", how="inner")
                .with_columns(best_delta=oriented(pl.col("measured"), pl.col("maximize")))
                .filter(pl.col("best_delta").is_finite()).drop("maximize"))

    def runs(self) -> pl.LazyFrame:
        """The selection's trials (the store's `runs` columns), cut at the budget.

        Examples
        --------
        >>> open_reference("best2009").narrow(dimension=2).runs().collect().height
        24
        """
        return self._cut_runs().drop("commit_id", strict=False)

    def _cut_runs(self) -> pl.LazyFrame:
        """`runs` with the commit each trial came with (the hits cache's key)."""
        return cut(self._trials(), self._records(), self.max_budget)[0]

    def events(self) -> pl.LazyFrame:
        """The records of the selection's trials (the store's `events` columns), cut at the budget.

        Examples
        --------
        >>> open_reference("best2009").narrow(function=2, dimension=2).events().collect()["evaluations"].max()
        30
        """
        return cut(self._trials(), self._records(), self.max_budget)[1]

    def precision_unknown(self) -> pl.DataFrame:
        """Trials of the selection left out of every measure for want of a known optimum, per (suite,
        algorithm, function, dimension): IOHprofiler runs whose raw values cannot be made precisions."""
        return (self._matching().filter(pl.col("final_delta").is_null())
                .group_by("suite", "algorithm", "function", "dimension").agg(runs=pl.len())
                .sort("suite", "algorithm", "function", "dimension").collect())

    # -- first hitting times -----------------------------------------------------------------
    def _cached(self) -> bool:
        return self.cache and self.indicator == "logged" and self.quantity == "precision"

    def hits(self, targets: pl.LazyFrame | pl.DataFrame) -> pl.LazyFrame:
        """First hitting times per (trial, target) (`pipeline.hits.spec.hitting_times`).

        With a budget cut B a target counts as reached only if its first hitting time is <= B (the
        trial's columns are those of the cut trial). Read from the store's cache where it can answer,
        else computed from the records.

        Parameters
        ----------
        targets : polars.LazyFrame or polars.DataFrame
            A column `target`, and optionally key columns of the runs (suite; function and dimension).

        Returns
        -------
        polars.LazyFrame
            The trial's columns, target, hit (evaluations, null if never) and success.

        Examples
        --------
        >>> import polars as pl
        >>> sel = open_reference("best2009").narrow(function=2, dimension=2)
        >>> hits = sel.hits(pl.DataFrame({"target": [10.0, 1e-8]})).collect()
        >>> hits.sort("target", descending=True).select("target", "hit").rows()
        [(10.0, 16), (1e-08, 30)]
        """
        runs = self._cut_runs()
        if self._cached():
            frame = targets.collect() if isinstance(targets, pl.LazyFrame) else targets
            cached = cache.hits(self.store, runs, frame, self.every_record, self.max_budget)
            if cached is not None:
                return cached
            targets = frame
        hits = spec.hitting_times(runs, self._records(), targets.lazy(), exact=self.every_record)
        return cut_hits(hits, self.max_budget)

    def fill_cache(self, targets: pl.DataFrame) -> None:
        """Fill the store's cache of hitting times for the whole selection at once (in batches over the
        workers), where `hits` of `targets` will read it."""
        if self._cached():
            cache.prefill(self.store, self.keys().lazy(), targets, self.every_record)

    # -- what the selection holds --------------------------------------------------------------
    def keys(self) -> pl.DataFrame:
        """suite, algorithm, commit_id of the selection's trials (a budget cut keeps every trial): read
        once per state of the store (its versions, `Store.stamp`) and set of filters in this process (a
        chart's recipe narrows its selection several times, each narrowed copy asking again)."""
        stamp = self.store.stamp() if hasattr(self.store, "stamp") else None  # else: read every time
        key = (stamp, self.suite, self.algorithm, self.function, self.dimension, self.all_instances, self.quantity,
               self.indicator)
        known = _KEYS.get(key) if stamp is not None else None
        if known is None:
            runs = self._trials()
            cols = [c for c in ("suite", "algorithm", "commit_id") if c in runs.collect_schema().names()]
            known = runs.select(cols).unique().collect()
            if stamp is not None:
                _keep(_KEYS, key, known, _KEYS_KEPT)
        return known

    def suites(self) -> list[str]:
        """Suites present in the selection.

        Examples
        --------
        >>> open_reference("best2016").suites()
        ['bbob-biobj']
        """
        return sorted(self.keys()["suite"].unique().to_list())

    def algorithms(self) -> list[str]:
        """Algorithms in the selection (read from the partition keys and sources only).

        Examples
        --------
        >>> Selection(Store("cocopipe-store"), suite="bbob").algorithms()
        ['DIRECT', 'NM', 'RS']
        """
        return sorted(self.keys()["algorithm"].unique().to_list())


def open_reference(name: str, suite: str | None = None) -> Selection:
    """A packaged reference algorithm (`data/refalgs`), as a selection of the packaged store.

    Parameters
    ----------
    name : str
        'best2009', 'best09-16', 'best2016', 'best2019', or a full name such as 'best2009-bbob-noisy'.
    suite : str, optional
        The suite whose set is meant (default: the name's first suite).

    Returns
    -------
    Selection
        Of the packaged store (never written to: its hits are computed, not cached).

    Raises
    ------
    pipeline.reference_sets.ReferenceError
        For an unknown name, or a suite the set has no data for.

    Examples
    --------
    >>> ref = open_reference("best2009", suite="bbob-noisy")
    >>> ref.algorithm, ref.suite
    (('best2009-bbob-noisy',), ('bbob-noisy',))
    >>> from pipeline import Analysis
    >>> Analysis(ref, function=101, dimension=2).art([1e-8]).collect()["art"].to_list()
    [24.0]
    """
    su, full = resolve(name, suite)
    return Selection(Store(data_dir()), suite=su, algorithm=full)
