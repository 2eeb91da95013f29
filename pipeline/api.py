"""The notebook API: `open_store(path)` and its measures as LazyFrames.

>>> s = open_store("cocopipe-store")
>>> s.art(targets="bbob", algorithm="DIRECT").collect()
"""
from __future__ import annotations

import os
import threading
from collections.abc import Sequence

import polars as pl

from . import distributed, reference_sets
from .hits import targets as tg
from .hits.budget import Budget
from .measures import ecdf as ecdf_m, restarts, runlength, runtime
from .selection import KEYS, Selection, open_reference
from .store import Store
from .store.store import MANIFEST


class Analysis:
    """A selection of a store's trials (`pipeline.selection.Selection`), how to compute (executor), and
    every measure as a method."""

    def __init__(self, data: Store | Selection, *, suite=None, algorithm=None, function=None, dimension=None,
                 max_budget: str | float | Budget | None = None, all_instances: bool | None = None,
                 exact: bool | None = None, indicator: str | None = None, executor: str = "local",
                 cache: bool | None = None):
        sel = data if isinstance(data, Selection) else Selection(data)
        changes = _selection_changes(suite=suite, algorithm=algorithm, function=function, dimension=dimension,
                                     max_budget=max_budget, all_instances=all_instances, exact=exact,
                                     indicator=indicator, cache=cache)
        self.selection: Selection = sel.narrow(**{k: v for k, v in changes.items() if v is not None})
        self.executor = distributed.check(executor)

    # the selection's fields, as the analysis commands and charts name them
    @property
    def store(self) -> Store:
        return self.selection.store

    @property
    def filters(self) -> dict:
        """suite, algorithm, function and dimension as asked (a tuple each, or None)."""
        return self.selection.filters

    @property
    def max_budget(self) -> Budget | None:
        """The budget cut, or None."""
        return self.selection.budget

    @property
    def all_instances(self) -> bool:
        return self.selection.all_instances

    @property
    def exact(self) -> bool:
        return self.selection.exact

    @property
    def indicator(self) -> str:
        return self.selection.indicator

    @property
    def cache(self) -> bool:
        return self.selection.cache

    def check(self) -> Analysis:
        """This Analysis, once its selection is known to match trials of the store: else `SelectionError`
        names what was asked and what the store holds (`pipeline.selection.check`)."""
        self.selection.check()
        return self

    def select(self, **changes) -> Analysis:
        """A copy with other filters or settings (not checked against the store: see `check`): the
        keywords of `Analysis`, None clearing a filter."""
        executor = changes.pop("executor", self.executor)
        return Analysis(self.selection.narrow(**_selection_changes(**changes)), executor=executor)

    # -- base tables -----------------------------------------------------------------------
    def precision_unknown(self) -> pl.DataFrame:
        """Trials of the selection left out of every measure for want of a known optimum, per (suite,
        algorithm, function, dimension): IOHprofiler runs whose raw values cannot be made precisions."""
        return self.selection.precision_unknown()

    def runs(self) -> pl.LazyFrame:
        """Trials of the selection (budget cut applied)."""
        return self.selection.runs()

    def events(self) -> pl.LazyFrame:
        """Records of the selection (budget cut applied)."""
        return self.selection.events()

    def suites(self) -> list[str]:
        """Suites present in the selection."""
        return self.selection.suites()

    def target_frame(self, targets: str | Sequence[float] | pl.LazyFrame | None = None, reference=None,
                     budgets: int | Sequence[float] = 31) -> pl.LazyFrame:
        """Targets as a frame: a LazyFrame as given, a name or list, or each suite's default set.

        `targets="runlength"`: runlength-based targets (suite, function, dimension, target) of
        `reference` (a packaged set's name, default "best2009", or an `Analysis`) for `budgets`
        (see `pipeline.measures.runlength.runlength_targets`)."""
        if isinstance(targets, pl.DataFrame):
            targets = targets.lazy()
        if isinstance(targets, pl.LazyFrame):
            # a runlength table's budget column is no key of the runs
            return targets.drop("budget_per_dimension", strict=False)
        if isinstance(targets, str) and targets == "runlength":
            return self.runlength_targets(reference, budgets).drop("budget_per_dimension").unique(maintain_order=True)
        try:
            values = tg.parse(targets)
        except ValueError:
            raise ValueError(f"targets {targets!r}: expected one of {', '.join(tg.NAMED)}, runlength, or numbers "
                             "separated by commas") from None
        return tg.frame(values, self.suites())

    def runlength_targets(self, reference=None, budgets: int | Sequence[float] = 31, **options) -> pl.LazyFrame:
        """Runlength-based targets for the suites of the selection: suite, function, dimension,
        budget_per_dimension, target; `reference` a packaged set's name or an Analysis (default: cocopp's
        reference of each suite, best2009 on bbob and bbob-noisy, best2016 on bbob-biobj, best2019 on
        bbob-largescale)."""
        if reference is None or isinstance(reference, str):
            parts = []
            for suite in self.suites():
                name = reference or reference_sets.DEFAULT_FOR_SUITE.get(suite)
                try:
                    if name:
                        parts.append(runlength.runlength_targets(open_reference(name, suite), budgets, **options))
                except reference_sets.ReferenceError:
                    continue
            if not parts:
                if reference:
                    reference_sets.resolve(reference)  # an unknown name raises here, listing the known ones
                label = f"reference {reference!r}" if reference else "no default reference (cocopp's)"
                raise ValueError(f"{label} has no data for the suites {', '.join(self.suites()) or '(none)'}")
            return pl.concat(parts)
        return runlength.runlength_targets(reference, budgets, **options)

    def reference_choices(self) -> pl.LazyFrame:
        """For the reference algorithms in the selection, which algorithm each took per (suite,
        function, dimension, target) (see `pipeline.reference_sets.choices`)."""
        return reference_sets.choices(self.store, self.filters["algorithm"])

    # -- measures --------------------------------------------------------------------------
    def hits(self, targets=None) -> pl.LazyFrame:
        """First hitting times per (run, target); with a budget cut B a target counts as reached
        only if the trial's first hitting time is <= B (and the run's columns are those of the cut
        trial). Read from the store's cache of hitting times where it can answer
        (`pipeline.hits.cache`), else computed from the events."""
        return self.selection.hits(self.target_frame(targets))

    def _fill_cache(self, target_frame: pl.DataFrame) -> None:
        """Fill the store's hitting-time cache for the whole selection at once, in batches over the
        workers, where `hits` will read it (before groups of algorithms do, each its own sources)."""
        if self.executor == "local":
            self.selection.fill_cache(target_frame)

    def algorithms(self) -> list[str]:
        """Algorithms in the selection (read from the partition keys and sources only)."""
        return self.selection.algorithms()

    def per_algorithm(self, measure, chunk: int | None = 8, sort: Sequence[str] = (),
                      descending: Sequence[bool] | bool = False, balance: bool = False,
                      presorted: bool = False) -> pl.LazyFrame:
        """Apply `measure(analysis) -> LazyFrame` to groups of `chunk` algorithms and concatenate,
        sorted by the `sort` columns present, so that memory stays bounded by the largest group
        (measures are independent per algorithm); with executor "ray" each group is a Ray task.
        `measure` must not chunk again (pass chunk=None to the measures it calls). `balance`: groups of
        equal sizes, at least one per worker (`distributed.split`), for measures whose result does not
        depend on the grouping (no generator shared by a group); `presorted`: `measure` gives its rows
        in the `sort` order already."""
        algs = self.algorithms() if chunk else []
        if not chunk or (len(algs) <= chunk and self.executor == "local"):
            return measure(self)
        parts = [self.select(algorithm=g) for g in distributed.split(algs, chunk, balance)]
        order = list(zip(sort, [descending] * len(sort) if isinstance(descending, bool) else descending))
        # every group sorted where it is computed; the whole sorted again only where groups interleave
        return distributed.concat_sorted(distributed.collect_parts(measure, parts, self.executor, order, presorted),
                                         order).lazy()

    def art(self, targets=None, dispersion: bool = False, samples: int = 1000, seed: int = 1,
            percentiles: tuple[float, ...] = (10, 50, 90), confidence: float | None = None,
            chunk: int | None = 8) -> pl.LazyFrame:
        """aRT, successes and trials per (suite, algorithm, function, dimension, target); with
        `dispersion` the percentiles of simulated restarts, with `confidence` (e.g. 0.95) a
        bootstrap interval art_low..art_high. Computed `chunk` algorithms at a time."""
        if chunk:
            if targets is None or isinstance(targets, str) and targets != "runlength":
                targets = self.target_frame(targets).collect()  # once, not per group
                self._fill_cache(targets)
            # balanced groups: the result does not depend on the grouping (the dispersion and the
            # confidence intervals draw from one generator per suite, algorithm and dimension)
            return self.per_algorithm(lambda a: a.art(targets, dispersion, samples, seed, percentiles, confidence,
                                                      chunk=None), chunk, [*runtime.PROBLEM, "target"],
                                      [False] * 4 + [True], balance=True)
        h = self.hits(targets)
        if not confidence:  # aRT and dispersion in one pass over the trials (restarts.art_frame)
            h = h.select([c for c in h.collect_schema().names() if c not in ("instance", "final_delta")])  # unread
            return h.map_batches(lambda df: restarts.art_frame(df, dispersion, percentiles, samples, seed),
                                 schema=restarts.art_schema(h.collect_schema(), dispersion, percentiles),
                                 streamable=False)
        a = runtime.art(h)
        if dispersion:
            d = restarts.art_dispersion(h, percentiles, samples, seed)
            a = a.join(d, on=restarts.GROUP, how="left")
        if confidence:
            from .measures.uncertainty import art_confidence

            a = a.join(art_confidence(h, confidence, samples, seed), on=restarts.GROUP, how="left")
        return a.sort(*runtime.PROBLEM, "target", descending=[False] * 4 + [True])

    def simulated_runtimes(self, targets=None, samples: int = 1000, seed: int = 1,
                           first_deterministic: bool = True) -> pl.LazyFrame:
        """Runtimes of simulated restarts per (problem, target, sample)."""
        return restarts.simulated_runtimes(self.hits(targets), samples, seed, first_deterministic)

    def fixed_budget(self, budgets: Sequence[float], per_dimension: bool = False, summary: bool = True
                     ) -> pl.LazyFrame:
        """Best precision reached within given budgets, per run or summarised per problem."""
        runs, events = self.runs(), self.events()
        v = runtime.fixed_budget(runs, events, list(budgets), per_dimension)
        return runtime.fixed_budget_summary(v) if summary else v

    def ert(self, targets=None, eval_max: float | None = None) -> pl.LazyFrame:
        """IOHprofiler's ERT per (problem, target): unsuccessful runs charged `eval_max` (default: each
        problem's largest run evaluations); see `pipeline.measures.ert`."""
        from .measures.ert import ert

        cap = pl.col("evaluations").max().over(runtime.PROBLEM) if eval_max is None else eval_max
        return ert(self.hits(targets), cap)

    def fixed_budget_ecdf(self, budgets: Sequence[float], per_dimension: bool = False, lower: float = 1e-8,
                          upper: float = 1e8, log: bool = True) -> pl.LazyFrame:
        """IOHprofiler's fixed-budget ECDF per (problem, budget); see `pipeline.measures.aocc`."""
        from .measures import aocc

        runs, events = self.runs(), self.events()
        if not per_dimension:
            return aocc.fixed_budget_ecdf(runs, events, budgets, lower, upper, log)
        dims = runs.select("dimension").unique().collect()["dimension"].to_list()
        return pl.concat([aocc.fixed_budget_ecdf(runs.filter(pl.col("dimension") == d), events,
                                                 [b * d for b in budgets], lower, upper, log) for d in dims])

    def aocc(self, lower: float = 1e-8, upper: float = 1e8, log: bool = True) -> pl.LazyFrame:
        """IOHprofiler's AOCC per problem, with the budget cut as B (default: each problem's largest run
        evaluations, `auc.budgets`' default); see `pipeline.measures.aocc`."""
        from .measures import aocc, auc

        runs, events = self.runs(), self.events()
        b = (auc.budgets(runs, self.max_budget) if self.max_budget else
             runs.group_by("suite", "function", "dimension").agg(budget=pl.col("last_evaluation").max().cast(pl.Float64)))
        return aocc.aocc(runs, events, b, lower, upper, log)

    def ecdf(self, targets=None, group=None, mode: str = "simulated", samples: int = 100, seed: int = 1,
             max_x: float | str | None = None, reference=None, chunk: int | None = 8) -> pl.LazyFrame:
        """Runtime ECDF step table (seed 000): suite, algorithm, dimension, group, x (evaluations /
        dimension), fraction; modes simulated, exact, trials (see `pipeline.measures.ecdf`). The plotted
        range is the budget cut when one is set, else `max_x`. Computed `chunk` algorithms at a time."""
        ecdf_m.check(mode, self.max_budget, max_x)
        return self._ecdf_parts(lambda d: ecdf_m.ecdf_table(d, group, mode=mode, samples=samples, seed=seed,
                                                       max_budget=self.max_budget, max_x=max_x),
                                targets, reference, chunk, ["group", "x"], independent=True, schema=ecdf_m.STEP_SCHEMA)

    def ecdf_summary(self, targets=None, group=None, mode: str = "simulated", max_x: float | str | None = None,
                     reference=None, chunk: int | None = 8) -> pl.LazyFrame:
        """Per (suite, algorithm, dimension, group) of `ecdf`: final_fraction, solvable_fraction, max_x,
        median_max_evaluations, problems, functions, trials."""
        ecdf_m.check(mode, self.max_budget, max_x)
        return self._ecdf_parts(lambda d: ecdf_m.summary_table(d, group, mode=mode, max_budget=self.max_budget,
                                                               max_x=max_x),
                                targets, reference, chunk, ["group"], independent=True, schema=ecdf_m.SUMMARY_SCHEMA)

    def ecdf_band(self, targets=None, group=None, mode: str = "trials", level: float = 0.95, replicates: int = 100,
                  seed: int = 1, samples: int = 100, max_x: float | str | None = None, reference=None,
                  chunk: int | None = 8) -> pl.LazyFrame:
        """`ecdf` with a bootstrap confidence band `low`..`high` at `level` (trials resampled within each
        function and dimension, seeded; `pipeline.measures.uncertainty.ecdf_band`)."""
        from .measures.uncertainty import ecdf_band

        return self._ecdf_parts(lambda h: ecdf_band(h, group, mode, level, replicates, seed, samples, self.max_budget,
                                                    max_x), targets, reference, chunk, ["group", "x"])

    def ecdf_per_instance(self, targets=None, group=None, mode: str = "trials", samples: int = 100, seed: int = 1,
                          max_x: float | str | None = None, reference=None, chunk: int | None = 8) -> pl.LazyFrame:
        """`ecdf` of every instance alone (column `instance`), to draw faintly behind the aggregate."""
        from .measures.uncertainty import ecdf_per_instance

        return self._ecdf_parts(lambda h: ecdf_per_instance(h, group, mode, samples, seed, self.max_budget, max_x),
                                targets, reference, chunk, ["group", "instance", "x"])

    def _ecdf_parts(self, table, targets, reference, chunk, order, independent: bool = False,
                    schema: pl.Schema | None = None) -> pl.LazyFrame:
        """`table(hits)` over groups of `chunk` algorithms (each algorithm's ECDF is independent);
        `independent`: each algorithm's table is its own and comes sorted (ecdf, ecdf_summary: one
        generator per suite, algorithm and dimension), so the groups are balanced over the workers.
        With `schema`, `table` takes a group's prepared trials instead (`_ecdf_trials`) and gives that schema."""
        tf = self.target_frame(targets, reference=reference)
        if chunk or schema is not None:
            tf = tf.collect()  # the targets once, not per group
            if chunk:
                self._fill_cache(tf)
        if schema is not None:
            def measure(a: Analysis) -> pl.LazyFrame:
                return pl.defer(lambda: table(self._ecdf_trials(a, tf)), schema=schema)
        else:
            def measure(a: Analysis) -> pl.LazyFrame:
                return table(a.hits(tf.lazy()))
        return self.per_algorithm(measure, chunk, ["suite", "algorithm", "dimension", *order],
                                  balance=independent, presorted=independent)

    #: trial rows of prepared ECDF data an Analysis keeps for its next ECDF table (about 50 bytes a row)
    ECDF_KEEP_ROWS = 2_000_000
    _ecdf_lock = threading.Lock()

    def _ecdf_trials(self, part: Analysis, tf: pl.DataFrame):
        """`ecdf.prepare` of the hits of `part` (this Analysis or a group of its algorithms) for the targets
        `tf`, kept on this Analysis (the latest, up to ECDF_KEEP_ROWS trial rows) for the next ECDF table of
        the same part, settings, targets and state of the store: `ecdf` then `ecdf_summary` (as the charts
        draw them) read and order the hits once."""
        try:
            stamp = (self.store.path / MANIFEST).stat().st_mtime_ns
        except (OSError, AttributeError):  # no manifest (a stand-in serving frames): nothing kept
            stamp = None
        if stamp is None or part.indicator != "logged" or self.executor != "local":  # (Ray tasks keep nothing)
            return ecdf_m.prepare(part.hits(tf.lazy()).collect())
        key = (stamp, tuple((k, tuple(v) if isinstance(v, (list, tuple)) else v) for k, v in part.filters.items()),
               part.max_budget, part.all_instances, part.exact, part.cache,
               tuple(tf.columns), tuple(map(str, tf.dtypes)), tuple(tf.iter_rows()))
        kept = self.__dict__.setdefault("_ecdf_kept", {})
        with self._ecdf_lock:
            data = kept.get(key)
        if data is None:
            data = ecdf_m.prepare(part.hits(tf.lazy()).collect())
            rows = data.trials.height
            with self._ecdf_lock:
                if rows <= self.ECDF_KEEP_ROWS:
                    while kept and sum(d.trials.height for d in kept.values()) + rows > self.ECDF_KEEP_ROWS:
                        kept.pop(next(iter(kept)))  # the oldest first
                    kept[key] = data
        return data

    def profile(self, group=None, transform="log10", f0="observed", delta=0.0, f_inf="target", eps="target",
                shared: bool = True, chunk: int | None = 8) -> pl.LazyFrame:
        """Target-free runtime profile (seed 004) as a step table: suite, algorithm, dimension, group, x
        (evaluations / dimension), value; parameters and defaults in `pipeline.measures.profiles`.
        Computed `chunk` algorithms at a time, with parameters from the whole selection."""
        from .measures import profiles

        s = profiles.Settings(transform, f0, delta, f_inf, eps, shared)
        return self._profile_parts(profiles.steps, group, s, chunk)

    def profile_summary(self, group=None, transform="log10", f0="observed", delta=0.0, f_inf="target",
                        eps="target", shared: bool = True, chunk: int | None = 8) -> pl.LazyFrame:
        """Per (suite, algorithm, dimension, group) of `profile`: final_value, start_x, max_x, functions, trials."""
        from .measures import profiles

        s = profiles.Settings(transform, f0, delta, f_inf, eps, shared)
        return self._profile_parts(profiles.summary, group, s, chunk)

    def _profile_parts(self, table, group, settings, chunk) -> pl.LazyFrame:
        """`table(run_profiles, runs, group)` over groups of `chunk` algorithms (bounded memory)."""
        from .measures import profiles

        profiles.check_groups(self.runs(), group)
        # parameters of the whole selection, so that every group of algorithms shares one scale
        params = profiles.parameters(self.runs(), self.events(), settings).collect().lazy() if chunk else None
        return self.per_algorithm(
            lambda a: table(profiles.checked_run_profiles(a.runs(), a.events(), settings, params), a.runs(), group),
            chunk, [*profiles.STEP_KEYS, "x"])

    def ingest(self, *sources: str | os.PathLike, archive_url: str | None = None, offline: bool = False, **options):
        """Read sources into the store: folders, .tgz/.zip archives, and `archive:NAME` data sets of a COCO
        data archive (`pipeline.archive`; fetched from `archive_url` into the cache); `options` of
        `pipeline.ingest.ingest` (name, force, jobs, executor). Returns its `IngestSummary`."""
        from .archive.sources import add_outcomes, expand
        from .ingest import ingest

        fetched = expand(list(sources), url=archive_url, offline=offline, store=self.store,
                         force=options.get("force", False), one=options.get("name") is not None)
        return add_outcomes(ingest(fetched.paths, self.store, meta=fetched.meta, **options), fetched)


def open_store(path: str | os.PathLike, **selection) -> Analysis:
    """Open a store for analysis; keyword arguments select data and settings (see `Analysis`). A
    selection of suites, algorithms, functions or dimensions that matches no trial raises
    `pipeline.selection.SelectionError`, naming what was asked and what the store holds."""
    a = Analysis(Store(path), **selection)
    if any(a.filters.get(k) not in (None, []) for k in a.filters):
        a.check()
    return a


def _selection_changes(**options) -> dict:
    """The fields of a `Selection` that the keywords of `Analysis` give (only those given; None for
    all_instances, exact, indicator or cache: as they are)."""
    names = {"max_budget": "budget", "all_instances": "instances", "exact": "hit_rule"}
    flags = {"all_instances": ("interesting", "all"), "exact": ("cocopp", "exact")}
    out = {}
    for key, value in options.items():
        if key not in (*KEYS, "max_budget", "all_instances", "exact", "indicator", "cache"):
            raise TypeError(f"unknown selection keyword {key!r}")
        if key == "max_budget":
            value = Budget.parse(value)
        elif value is None and key not in KEYS:
            continue
        elif key in flags:
            value = flags[key][bool(value)]
        out[names.get(key, key)] = value
    return out
