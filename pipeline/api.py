"""The Python API: `open_store(path, **selection)` and every measure as a method returning a LazyFrame.

An `Analysis` is a `Selection` of a store's trials (what to look at, `pipeline.selection`), a `Plan`
(how to compute: groups of algorithms on local threads or Ray tasks, `pipeline.execution`) and one
method per measure, which calls the measure functions of `pipeline.measures` on the selection's first
hitting times, trials or records.

>>> a = open_store("data/refalgs", algorithm="best2009-bbob", function=[1, 2], dimension=2)
>>> a.art(targets="table").collect().select("function", "target", "art").head(2).rows()
[(1, 10.0, 2.0), (1, 1.0, 6.0)]
"""
from __future__ import annotations

import os
from collections.abc import Callable, Sequence

import polars as pl

from . import reference_sets
from .execution import KeptTrials, Plan, per_group
from .hits import targets as tg
from .hits.budget import Budget
from .hits.spec import PROBLEM
from .measures import aocc as aocc_m, art as art_m, auc, ecdf as ecdf_m, ert as ert_m, profiles, restarts, runlength, runtime
from .measures.uncertainty import ecdf_band, ecdf_per_instance
from .selection import KEYS, Selection, open_reference
from .store import Store

#: what `targets` may be: a target set's name (bbob, biobj, table, scaling, runlength), numbers, "v1,v2",
#: a frame with a column `target` (and key columns), or None for each suite's standard set
Targets = str | Sequence[float] | pl.LazyFrame | pl.DataFrame | None


class Analysis:
    """A selection of a store's trials, how to compute, and every measure as a method.

    `data` is a `Store` (everything in it) or a `Selection`; the keywords narrow it: suite, algorithm,
    function, dimension (a value or a list), max_budget (a budget cut: "1000" evaluations, "100x" times
    the dimension, or a `Budget`), all_instances (not only cocopp's instances of interest), exact (seed
    000's hit rule on every record, not cocopp's reading of the .dat records), indicator ("logged" or
    "recomputed"), cache (read first hitting times through the store's cache). `executor` ("local" or
    "ray") and `group_size` (algorithms computed at a time; None: all at once) say how to compute.
    """

    def __init__(self, data: Store | Selection, *, suite=None, algorithm=None, function=None, dimension=None,
                 max_budget: str | float | Budget | None = None, all_instances: bool | None = None,
                 exact: bool | None = None, indicator: str | None = None, cache: bool | None = None,
                 executor: str = "local", group_size: int | None = 8):
        selection = data if isinstance(data, Selection) else Selection(data)
        changes = _selection_changes(suite=suite, algorithm=algorithm, function=function, dimension=dimension,
                                     max_budget=max_budget, all_instances=all_instances, exact=exact,
                                     indicator=indicator, cache=cache)
        self.selection: Selection = selection.narrow(**{k: v for k, v in changes.items() if v is not None})
        self.plan: Plan = Plan(executor, group_size)
        #: the ECDF trials prepared for the latest tables (`ecdf` then `ecdf_summary` read the hits once)
        self.kept: KeptTrials = KeptTrials()

    def select(self, **changes) -> Analysis:
        """A copy with other values of some keywords of `Analysis` (None clears a filter or the budget
        cut), not checked against the store (see `check`)."""
        executor = changes.pop("executor", self.plan.executor)
        group_size = changes.pop("group_size", self.plan.group_size)
        return Analysis(self.selection.narrow(**_selection_changes(**changes)), executor=executor,
                        group_size=group_size)

    def check(self) -> Analysis:
        """This Analysis, once its selection is known to match trials of the store: else `SelectionError`
        names what was asked and what the store holds (`pipeline.selection.check`)."""
        self.selection.check()
        return self

    # -- the selection, as the commands, charts and report read it ---------------------------
    @property
    def store(self) -> Store:
        """The store analysed."""
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
        """Whether every instance counts, not only cocopp's instances of interest."""
        return self.selection.all_instances

    @property
    def exact(self) -> bool:
        """Whether first hits follow seed 000's definition on every record."""
        return self.selection.exact

    @property
    def indicator(self) -> str:
        """The biobjective indicator: logged or recomputed."""
        return self.selection.indicator

    @property
    def cache(self) -> bool:
        """Whether first hitting times are read through the store's cache."""
        return self.selection.cache

    @property
    def executor(self) -> str:
        """Where groups of algorithms are computed: local or ray."""
        return self.plan.executor

    def suites(self) -> list[str]:
        """Suites present in the selection."""
        return self.selection.suites()

    def algorithms(self) -> list[str]:
        """Algorithms in the selection (read from the partition keys and sources only)."""
        return self.selection.algorithms()

    def runs(self) -> pl.LazyFrame:
        """Trials of the selection (budget cut applied)."""
        return self.selection.runs()

    def events(self) -> pl.LazyFrame:
        """Records of the selection (budget cut applied)."""
        return self.selection.events()

    def precision_unknown(self) -> pl.DataFrame:
        """Trials of the selection left out of every measure for want of a known optimum, per (suite,
        algorithm, function, dimension): IOHprofiler runs whose raw values cannot be made precisions."""
        return self.selection.precision_unknown()

    # -- targets -------------------------------------------------------------------------------
    def target_frame(self, targets: Targets = None, reference=None, budgets: int | Sequence[float] = 31
                     ) -> pl.LazyFrame:
        """Targets as a frame: a frame as given, a name or list, or each suite's default set.

        `targets="runlength"`: runlength-based targets (suite, function, dimension, target) of
        `reference` (a packaged set's name, default each suite's, or an `Analysis`) for `budgets`
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
        if reference is not None and not isinstance(reference, str):
            return runlength.runlength_targets(reference, budgets, **options)
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

    def reference_choices(self) -> pl.LazyFrame:
        """For the reference algorithms in the selection, which algorithm each took per (suite,
        function, dimension, target) (see `pipeline.reference_sets.choices`)."""
        return reference_sets.choices(self.store, self.filters["algorithm"])

    # -- how groups of algorithms are computed -----------------------------------------------
    def _targets_once(self, targets: Targets, reference=None) -> pl.DataFrame:
        """The target frame, read once for every group of algorithms; the store's cache filled for the
        whole selection at once when groups will read it (each would fill only its own sources)."""
        frame = self.target_frame(targets, reference=reference).collect()
        if self.plan.group_size and self.plan.executor == "local":
            self.selection.fill_cache(frame)
        return frame

    def _grouped(self, measure: Callable[[Selection], pl.LazyFrame], sort: Sequence[str] = (),
                 descending: Sequence[bool] | bool = False, balance: bool = False, presorted: bool = False
                 ) -> pl.LazyFrame:
        return per_group(self.selection, measure, self.plan, sort, descending, balance, presorted)

    def per_algorithm(self, measure: Callable[[Analysis], pl.LazyFrame], sort: Sequence[str] = (),
                      descending: Sequence[bool] | bool = False, balance: bool = False, presorted: bool = False
                      ) -> pl.LazyFrame:
        """`measure(part)` of every group of algorithms (an Analysis each, computed at once), concatenated
        and sorted by the `sort` columns present (`pipeline.execution.per_group`)."""
        executor = self.plan.executor
        return self._grouped(lambda sel: measure(Analysis(sel, executor=executor, group_size=None)), sort,
                             descending, balance, presorted)

    # -- measures --------------------------------------------------------------------------
    def hits(self, targets: Targets = None) -> pl.LazyFrame:
        """First hitting times per (run, target); with a budget cut B a target counts as reached
        only if the trial's first hitting time is <= B (and the run's columns are those of the cut
        trial). Read from the store's cache of hitting times where it can answer
        (`pipeline.hits.cache`), else computed from the events."""
        return self.selection.hits(self.target_frame(targets))

    def art(self, targets: Targets = None, dispersion: bool = False, samples: int = 1000, seed: int = 1,
            percentiles: tuple[float, ...] = (10, 50, 90), confidence: float | None = None) -> pl.LazyFrame:
        """aRT, successes and trials per (suite, algorithm, function, dimension, target); with
        `dispersion` the percentiles of simulated restarts, with `confidence` (e.g. 0.95) a
        bootstrap interval art_low..art_high."""
        frame = self._targets_once(targets)
        # balanced groups: the result does not depend on the grouping (the dispersion and the
        # confidence intervals draw from one generator per suite, algorithm and dimension)
        return self._grouped(lambda sel: art_m.art(sel.hits(frame), dispersion, percentiles, samples, seed, confidence),
                             [*PROBLEM, "target"], [False] * 4 + [True], balance=True)

    def simulated_runtimes(self, targets: Targets = None, samples: int = 1000, seed: int = 1,
                           first_deterministic: bool = True) -> pl.LazyFrame:
        """Runtimes of simulated restarts per (problem, target, sample)."""
        return restarts.simulated_runtimes(self.hits(targets), samples, seed, first_deterministic)

    def fixed_budget(self, budgets: Sequence[float], per_dimension: bool = False, summary: bool = True
                     ) -> pl.LazyFrame:
        """Best precision reached within given budgets, per run or summarised per problem."""
        values = runtime.fixed_budget(self.runs(), self.events(), list(budgets), per_dimension)
        return runtime.fixed_budget_summary(values) if summary else values

    def ert(self, targets: Targets = None, eval_max: float | None = None) -> pl.LazyFrame:
        """IOHprofiler's ERT per (problem, target): unsuccessful runs charged `eval_max` (default: each
        problem's largest run evaluations); see `pipeline.measures.ert`."""
        cap = pl.col("evaluations").max().over(PROBLEM) if eval_max is None else eval_max
        return ert_m.ert(self.hits(targets), cap)

    def fixed_budget_ecdf(self, budgets: Sequence[float], per_dimension: bool = False, lower: float = 1e-8,
                          upper: float = 1e8, log: bool = True) -> pl.LazyFrame:
        """IOHprofiler's fixed-budget ECDF per (problem, budget); see `pipeline.measures.aocc`."""
        runs, events = self.runs(), self.events()
        if not per_dimension:
            return aocc_m.fixed_budget_ecdf(runs, events, budgets, lower, upper, log)
        dims = runs.select("dimension").unique().collect()["dimension"].to_list()
        return pl.concat([aocc_m.fixed_budget_ecdf(runs.filter(pl.col("dimension") == d), events,
                                                   [b * d for b in budgets], lower, upper, log) for d in dims])

    def aocc(self, lower: float = 1e-8, upper: float = 1e8, log: bool = True) -> pl.LazyFrame:
        """IOHprofiler's AOCC per problem, with the budget cut as B (default: each problem's largest run
        evaluations, `auc.budgets`' default); see `pipeline.measures.aocc`."""
        runs, events = self.runs(), self.events()
        longest = pl.col("last_evaluation").max().cast(pl.Float64)
        b = (auc.budgets(runs, self.max_budget) if self.max_budget is not None else
             runs.group_by("suite", "function", "dimension").agg(budget=longest))
        return aocc_m.aocc(runs, events, b, lower, upper, log)

    def ecdf(self, targets: Targets = None, group=None, mode: str = "simulated", samples: int = 100, seed: int = 1,
             max_x: float | str | None = None, reference=None) -> pl.LazyFrame:
        """Runtime ECDF step table (seed 000): suite, algorithm, dimension, group, x (evaluations /
        dimension), fraction; modes simulated, exact, trials (see `pipeline.measures.ecdf`). The plotted
        range is the budget cut when one is set, else `max_x`."""
        budget = self.max_budget
        ecdf_m.check(mode, budget, max_x, samples)
        return self._ecdf_parts(lambda d: ecdf_m.ecdf_table(d, group, mode=mode, samples=samples, seed=seed,
                                                            max_budget=budget, max_x=max_x),
                                targets, reference, ["group", "x"], independent=True, schema=ecdf_m.STEP_SCHEMA)

    def ecdf_summary(self, targets: Targets = None, group=None, mode: str = "simulated",
                     max_x: float | str | None = None, reference=None) -> pl.LazyFrame:
        """Per (suite, algorithm, dimension, group) of `ecdf`: final_fraction, solvable_fraction, max_x,
        median_max_evaluations, problems, functions, trials."""
        budget = self.max_budget
        ecdf_m.check(mode, budget, max_x)
        return self._ecdf_parts(lambda d: ecdf_m.summary_table(d, group, mode=mode, max_budget=budget, max_x=max_x),
                                targets, reference, ["group"], independent=True, schema=ecdf_m.SUMMARY_SCHEMA)

    def ecdf_band(self, targets: Targets = None, group=None, mode: str = "trials", level: float = 0.95,
                  replicates: int = 100, seed: int = 1, samples: int = 100, max_x: float | str | None = None,
                  reference=None) -> pl.LazyFrame:
        """`ecdf` with a bootstrap confidence band `low`..`high` at `level` (trials resampled within each
        function and dimension, seeded; `pipeline.measures.uncertainty.ecdf_band`)."""
        budget = self.max_budget
        return self._ecdf_parts(lambda h: ecdf_band(h, group, mode, level, replicates, seed, samples, budget, max_x),
                                targets, reference, ["group", "x"])

    def ecdf_per_instance(self, targets: Targets = None, group=None, mode: str = "trials", samples: int = 100,
                          seed: int = 1, max_x: float | str | None = None, reference=None) -> pl.LazyFrame:
        """`ecdf` of every instance alone (column `instance`), to draw faintly behind the aggregate."""
        budget = self.max_budget
        return self._ecdf_parts(lambda h: ecdf_per_instance(h, group, mode, samples, seed, budget, max_x),
                                targets, reference, ["group", "instance", "x"])

    def _ecdf_parts(self, table: Callable, targets: Targets, reference, order: list[str], independent: bool = False,
                    schema: pl.Schema | None = None) -> pl.LazyFrame:
        """`table(hits)` over groups of algorithms (each algorithm's ECDF is independent); `independent`:
        each algorithm's table is its own and comes sorted (ecdf, ecdf_summary: one generator per suite,
        algorithm and dimension), so the groups are balanced over the workers. With `schema`, `table`
        takes a group's prepared trials instead (kept for the next table, `execution.KeptTrials`) and gives
        that schema."""
        frame = self._targets_once(targets, reference)
        if schema is not None:
            kept, plan = self.kept, self.plan

            def measure(sel: Selection) -> pl.LazyFrame:
                return pl.defer(lambda: table(kept.trials(sel, frame, plan)), schema=schema)
        else:
            def measure(sel: Selection) -> pl.LazyFrame:
                return table(sel.hits(frame))
        return self._grouped(measure, ["suite", "algorithm", "dimension", *order], balance=independent,
                             presorted=independent)

    def profile(self, group=None, transform="log10", f0="observed", delta=0.0, f_inf="target", eps="target",
                shared: bool = True) -> pl.LazyFrame:
        """Target-free runtime profile (seed 004) as a step table: suite, algorithm, dimension, group, x
        (evaluations / dimension), value; parameters and defaults in `pipeline.measures.profiles`.
        Computed per group of algorithms, with parameters from the whole selection."""
        return self._profile_parts(profiles.steps, group, profiles.Settings(transform, f0, delta, f_inf, eps, shared))

    def profile_summary(self, group=None, transform="log10", f0="observed", delta=0.0, f_inf="target",
                        eps="target", shared: bool = True) -> pl.LazyFrame:
        """Per (suite, algorithm, dimension, group) of `profile`: final_value, start_x, max_x, functions, trials."""
        return self._profile_parts(profiles.summary, group,
                                   profiles.Settings(transform, f0, delta, f_inf, eps, shared))

    def _profile_parts(self, table: Callable, group, settings: profiles.Settings) -> pl.LazyFrame:
        """`table(run_profiles, runs, group)` over groups of algorithms (bounded memory)."""
        profiles.check_groups(self.runs(), group)
        # parameters of the whole selection, so that every group of algorithms shares one scale
        params = (profiles.parameters(self.runs(), self.events(), settings).collect().lazy()
                  if self.plan.group_size else None)
        def measure(sel: Selection) -> pl.LazyFrame:
            return table(profiles.checked_run_profiles(sel.runs(), sel.events(), settings, params), sel.runs(), group)

        return self._grouped(measure, [*profiles.STEP_KEYS, "x"])

    def ingest(self, *sources: str | os.PathLike, archive_url: str | None = None, offline: bool = False, **options):
        """Read sources into the store: folders, .tgz/.zip archives, and `archive:NAME` data sets of a COCO
        data archive (`pipeline.archive`; fetched from `archive_url` into the cache); `options` of
        `pipeline.ingest.ingest` (name, force, jobs, executor). Returns its `IngestSummary`."""
        # the readers load when logs are read: about 0.1 s more for `import pipeline.api` otherwise
        from .archive.sources import add_outcomes, expand
        from .ingest import ingest

        fetched = expand(list(sources), url=archive_url, offline=offline, store=self.store,
                         force=options.get("force", False), one=options.get("name") is not None)
        return add_outcomes(ingest(fetched.paths, self.store, meta=fetched.meta, **options), fetched)


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


def open_store(path: str | os.PathLike, **selection) -> Analysis:
    """Open a store for analysis; keyword arguments select data and settings (see `Analysis`). A
    selection of suites, algorithms, functions or dimensions that matches no trial raises
    `pipeline.selection.SelectionError`, naming what was asked and what the store holds."""
    a = Analysis(Store(path), **selection)
    if any(v is not None for v in a.filters.values()):
        a.check()
    return a
