"""The Python API: `open_store(path, **selection)` and every measure as a method returning a LazyFrame.

An `Analysis` is a `Selection` of a store's trials (what to look at, `pipeline.selection`), a `Plan`
(how to compute: groups of algorithms on local threads or Ray tasks, `pipeline.execution`) and one
method per measure, which calls the measure functions of `pipeline.measures` on the selection's first
hitting times, trials or records.

The examples of this module read the store of the sample data (`cocopipe ingest data/sample --store
cocopipe-store`, in a clone's folder) and the packaged reference sets (`data/refalgs`).

>>> a = open_store("cocopipe-store", algorithm=["DIRECT", "NM"], function=1, dimension=5)
>>> a.art(targets=[1.0, 1e-8], dispersion=False).collect().select("algorithm", "target", "art", "successes")
shape: (4, 4)
┌───────────┬───────────┬─────────────┬───────────┐
│ algorithm ┆ target    ┆ art         ┆ successes │
│ ---       ┆ ---       ┆ ---         ┆ ---       │
│ str       ┆ f64       ┆ f64         ┆ i64       │
╞═══════════╪═══════════╪═════════════╪═══════════╡
│ DIRECT    ┆ 1.0       ┆ 86.0        ┆ 5         │
│ DIRECT    ┆ 1.0000e-8 ┆ 2314.8      ┆ 5         │
│ NM        ┆ 1.0       ┆ 734.933333  ┆ 15        │
│ NM        ┆ 1.0000e-8 ┆ 1150.066667 ┆ 15        │
└───────────┴───────────┴─────────────┴───────────┘
"""
from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from numbers import Real

import polars as pl

from . import reference_sets
from . import engine
from .binding import bind
from .execution import KeptTrials, Plan, per_group
from .hits import targets as tg
from .hits.budget import Budget
from .hits.spec import PROBLEM
from .measures import auc as auc_m
from .measures import registry, runlength, values as values_m
from .selection import KEYS, Selection, open_reference
from .unregistered import Distribution, Group, Targets, Unregistered  # noqa: F401 - named by the facade
from .store import Store
from .vocabulary import SELECTION_SETTINGS


class Analysis(Unregistered):
    """A selection of a store's trials, how to compute, and every measure as a method.

    Each measure returns a `polars.LazyFrame`: nothing is read until it is collected.

    Parameters
    ----------
    data : Store or Selection
        The store (everything in it) or a selection of it; the keywords narrow it.
    suite, algorithm : str or list of str, optional
        Only these suites, algorithms.
    function, dimension : int or list of int, optional
        Only these functions, dimensions.
    max_budget : str, float or Budget, optional
        A budget cut: "1000" evaluations, "100x" times the dimension (`Budget.parse`).
    all_instances : bool, optional
        Every instance counts, not only cocopp's instances of interest (bbob-biobj: 1-10).
    exact : bool, optional
        Seed 000's hit rule on every record, not cocopp's reading of the .dat records.
    indicator : {"logged", "recomputed"}, optional
        The biobjective indicator (`cocopipe biobj recompute` makes the recomputed one).
    cache : bool, optional
        Read first hitting times through the store's cache (default True).
    executor : {"local", "ray"}
        Where groups of algorithms are computed: threads of this process, or Ray tasks.
    group_size : int or None
        Algorithms computed at a time (bounded memory); None: all at once.

    Examples
    --------
    >>> a = Analysis(Store("cocopipe-store"), algorithm="NM", dimension=[2, 5])
    >>> a.algorithms(), a.filters["dimension"], a.max_budget
    (['NM'], (2, 5), None)
    >>> a.select(max_budget="100x").max_budget
    Budget(value=100.0, per_dimension=True)
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
        """A copy with other values of some keywords of `Analysis`.

        Parameters
        ----------
        **changes
            Keywords of `Analysis` (None clears a filter or the budget cut); not checked against the
            store (see `check`).

        Returns
        -------
        Analysis

        Examples
        --------
        >>> a = open_store("cocopipe-store", algorithm="NM")
        >>> a.select(algorithm=None).algorithms()
        ['DIRECT', 'NM', 'RS']
        """
        executor = changes.pop("executor", self.plan.executor)
        group_size = changes.pop("group_size", self.plan.group_size)
        return Analysis(self.selection.narrow(**_selection_changes(**changes)), executor=executor,
                        group_size=group_size)

    def check(self) -> Analysis:
        """This Analysis, once its selection is known to match trials of the store.

        Returns
        -------
        Analysis
            self.

        Raises
        ------
        pipeline.selection.SelectionError
            Naming what was asked and what the store holds (sorted, the closest name named).

        Examples
        --------
        >>> open_store("cocopipe-store").select(algorithm="CMAES").check()
        Traceback (most recent call last):
        ...
        pipeline.selection.SelectionError: no algorithm 'CMAES' in the store ...cocopipe-store: it holds ...
        """
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
        return self.selection.max_budget

    @property
    def all_instances(self) -> bool:
        """Whether every instance counts, not only cocopp's instances of interest."""
        return self.selection.all_instances

    @property
    def exact(self) -> bool:
        """Whether first hits follow seed 000's definition on every record (asked, or on values: always)."""
        return self.selection.every_record

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
        """Suites present in the selection.

        Examples
        --------
        >>> open_store("cocopipe-store").suites()
        ['bbob']
        """
        return self.selection.suites()

    def algorithms(self) -> list[str]:
        """Algorithms in the selection (read from the partition keys and sources only).

        Examples
        --------
        >>> open_store("cocopipe-store").algorithms()
        ['DIRECT', 'NM', 'RS']
        """
        return self.selection.algorithms()

    def runs(self) -> pl.LazyFrame:
        """Trials of the selection, one row per trial (the store's `runs` table, schemas/runs.json).

        Returns
        -------
        polars.LazyFrame
            With the budget cut applied (evaluations and final_delta as at the cut).

        Examples
        --------
        >>> open_store("cocopipe-store", algorithm="DIRECT", dimension=2).runs().collect().height
        120
        """
        return self.selection.runs()

    def events(self) -> pl.LazyFrame:
        """Records of the selection's trials, one row per logged record (schemas/events.json).

        Returns
        -------
        polars.LazyFrame
            With the budget cut applied (records after it dropped).

        Examples
        --------
        >>> a = open_store("cocopipe-store", algorithm="DIRECT", function=1, dimension=5)
        >>> a.events().collect().height, a.select(max_budget="10x").events().collect().height
        (442, 121)
        """
        return self.selection.events()

    def precision_unknown(self) -> pl.DataFrame:
        """Trials left out of every measure for want of a known optimum (docs/ioh.md).

        Returns
        -------
        polars.DataFrame
            runs per (suite, algorithm, function, dimension): IOHprofiler runs whose raw values cannot be
            made precisions.

        Examples
        --------
        >>> open_store("cocopipe-store").precision_unknown().height
        0
        """
        return self.selection.precision_unknown()

    # -- targets -------------------------------------------------------------------------------
    def target_frame(self, targets: Targets = None, reference=None, budgets: int | Sequence[float] = 31
                     ) -> pl.LazyFrame:
        """Targets as a frame: a frame as given, a name or list, or each suite's default set.

        Parameters
        ----------
        targets : str, list of float, frame or None
            A set's name (bbob, biobj, table, scaling), "runlength", numbers or "v1,v2", a frame with a
            column `target` (and key columns), or None for each suite's standard set.
        reference : str or Analysis, optional
            With "runlength": the reference algorithm (a packaged set's name; default each suite's).
        budgets : int or list of float
            With "runlength": the budgets (`runlength_targets`).

        Returns
        -------
        polars.LazyFrame
            A column `target`, with suite (and function, dimension) where targets depend on them. On an
            analysis of values (`values`), numbers are raw values and None takes targets from the data
            (`pipeline.measures.values`), oriented per (suite, function, dimension): -value when maximising.

        Examples
        --------
        >>> open_store("cocopipe-store").target_frame("table").collect()["target"].to_list()
        [10.0, 1.0, 0.1, 0.01, 0.001, 1e-05, 1e-07]
        """
        if isinstance(targets, Real) and not isinstance(targets, bool):  # one target: a.art(1e-8)
            targets = [targets]
        if isinstance(targets, pl.DataFrame):
            targets = targets.lazy()
        if isinstance(targets, pl.LazyFrame):
            # a runlength table's budget column is no key of the runs
            return targets.drop("budget_per_dimension", strict=False)
        if self.selection.quantity == "value":  # raw values, oriented per problem (pipeline.measures.values)
            runs = self.runs()
            return (values_m.default_targets(runs, self.events()) if targets is None
                    else values_m.given_targets(runs, self._numbers(targets)))
        if isinstance(targets, str) and targets == "runlength":
            return self.runlength_targets(reference, budgets).drop("budget_per_dimension").unique(maintain_order=True)
        try:
            values = tg.parse(targets)
        except ValueError as exc:
            text = str(exc).replace(", or finite", ", runlength, or finite")
            raise registry.InvalidSetting(text, setting="targets") from None
        return tg.frame(values, self.suites())

    def runlength_targets(self, reference=None, budgets: int | Sequence[float] = 31, **options) -> pl.LazyFrame:
        """Runlength-based targets for the suites of the selection (seed 000, "Runlength-based Target Values").

        Parameters
        ----------
        reference : str or Analysis, optional
            A packaged set's name or an Analysis; default cocopp's reference of each suite: best2009 on
            bbob and bbob-noisy, best2016 on bbob-biobj, best2019 on bbob-largescale.
        budgets : int or list of float
            Budgets per dimension, or a number of budgets log-uniform in 0.5..50 (31: cocopp's ECDF targets).
        **options
            Of `pipeline.measures.runlength.runlength_targets`.

        Returns
        -------
        polars.LazyFrame
            suite, function, dimension, budget_per_dimension, target.

        Examples
        --------
        >>> t = open_store("cocopipe-store").runlength_targets(budgets=[1, 10]).collect()
        >>> t.filter(function=1, dimension=2)["target"].to_list()
        [3.981071709516045, 1e-08]
        """
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
        """For the reference algorithms in the selection, which algorithm each took per problem and target.

        Returns
        -------
        polars.LazyFrame
            suite, algorithm, function, dimension, target, chosen, and the chosen one's art, successes
            and runs (`pipeline.reference_sets.choices`).

        Examples
        --------
        >>> r = Analysis(open_reference("best2009"), function=1, dimension=2)
        >>> r.reference_choices().collect()["chosen"][0]
        'MCS_huyer_noiseless'
        """
        return reference_sets.choices(self.store, self.filters["algorithm"])

    # -- how groups of algorithms are computed -----------------------------------------------
    def _grouped(self, measure: Callable[[Selection], pl.LazyFrame], sort: Sequence[str] = (),
                 descending: Sequence[bool] | bool = False, balance: bool = False, presorted: bool = False
                 ) -> pl.LazyFrame:
        return per_group(self.selection, measure, self.plan, sort, descending, balance, presorted)

    def per_algorithm(self, measure: Callable[[Analysis], pl.LazyFrame], sort: Sequence[str] = (),
                      descending: Sequence[bool] | bool = False, balance: bool = False, presorted: bool = False
                      ) -> pl.LazyFrame:
        """A measure computed per group of algorithms (`group_size` at a time, on the executor).

        Parameters
        ----------
        measure : callable
            `measure(part)` of an Analysis of one group, a LazyFrame.
        sort, descending
            The columns the result is sorted by (those present), and their order.
        balance : bool
            Spread the algorithms evenly over the groups.
        presorted : bool
            Each part comes sorted by `sort` (merged, not sorted again).

        Returns
        -------
        polars.LazyFrame
            The parts concatenated (`pipeline.execution.per_group`).

        Examples
        --------
        >>> a = open_store("cocopipe-store", function=1, dimension=2, group_size=1)
        >>> a.per_algorithm(lambda part: part.runs().select("algorithm"), sort=["algorithm"]).collect().height
        35
        """
        executor = self.plan.executor
        return self._grouped(lambda sel: measure(Analysis(sel, executor=executor, group_size=None)), sort,
                             descending, balance, presorted)

    # -- every registered measure, through the one engine ------------------------------------
    def measure(self, name: str, targets: Targets = None, *, reference=None, **settings) -> pl.LazyFrame:
        """The registered measure `name` (`pipeline.measures.registry`) of the selection, computed by
        `pipeline.engine` as the measure declares (groups of algorithms, parts, executor).

        Parameters
        ----------
        name : str
            A registered measure: "art", "ecdf.steps", "median_runtime", ... (`measures()` lists them).
        targets : str, list of float, frame or None
            As `target_frame` (measures of first hitting times).
        reference : str, optional
            With `targets="runlength"`: the reference set.
        **settings
            The measure's settings, checked against their declared constraints.

        Returns
        -------
        polars.LazyFrame
            The measure's declared columns, in its declared row order.

        Examples
        --------
        >>> a = open_store("cocopipe-store", algorithm="NM", function=1, dimension=5)
        >>> a.measure("art", [1e-8]).collect().select("art", "successes").row(0)
        (1150.0666666666666, 15)
        """
        return engine.run(self._job(name, targets, reference, settings), self.selection)

    def stream(self, name: str, targets: Targets = None, *, reference=None, **settings) -> Iterator[pl.DataFrame]:
        """The rows of `measure(name, ...)`, in the same order, as DataFrames a part at a time (a part of
        the selection per group of algorithms, or per suite): what a writer appends without holding the
        whole result (on Ray, the parts come back as their tasks end).

        Examples
        --------
        >>> a = open_store("cocopipe-store", algorithm=["DIRECT", "NM"], function=1, dimension=5, group_size=1)
        >>> [part.height for part in a.stream("auc")]
        [1, 1]
        """
        return engine.stream(self._job(name, targets, reference, settings), self.selection)

    @staticmethod
    def measures() -> list[str]:
        """The names of the registered measures (`measure(name)`).

        Examples
        --------
        >>> "art" in Analysis.measures() and "ecdf.steps" in Analysis.measures()
        True
        """
        return list(registry.load())

    def _job(self, name: str, targets: Targets, reference, settings: dict) -> engine.Job:
        """The engine's job of measure `name`: its settings checked, targets resolved as `target_frame`."""
        plan = self.plan

        def resolve(selection: Selection) -> pl.DataFrame:
            part = self if selection == self.selection else Analysis(selection, executor=plan.executor,
                                                                     group_size=plan.group_size)
            return part.target_frame(targets, reference=reference).collect()

        job = engine.job(name, plan, resolve, self.kept, **settings)
        self._check_asked()
        return job

    def _check_asked(self) -> None:
        """`SelectionError` when the selection holds no trial because it asks for a suite, algorithm, function
        or dimension the store does not hold at all (`a.select(function=99)`: the command line's words); a
        selection of values the store holds, none together (an algorithm without that dimension), stays empty.
        Suites and algorithms are looked up in the log of the runs table (`Store.partitions`: no file read, so
        that a measure's plan still reads nothing until collected); functions and dimensions in the trials."""
        filters = self.selection.filters
        if all(v is None for v in filters.values()):
            return
        store = self.selection.store
        if filters["function"] is None and filters["dimension"] is None and hasattr(store, "partitions"):
            held = store.partitions("runs")
            if set(filters["suite"] or ()) <= {s for s, _ in held} and \
                    set(filters["algorithm"] or ()) <= {a for _, a in held}:
                return
        if self.selection.keys().height:
            return
        from .selection import check

        runs, what = store.runs(), f"the store {store.path}" if hasattr(store, "path") else "the data"
        for key, asked in filters.items():
            if asked is not None:
                check(runs, {key: asked}, all_instances=True, what=what)

    def auc_budgets(self) -> pl.DataFrame:
        """The budgets at which `auc` ends its areas, across every algorithm of the selection: the budget
        cut, else per problem the smallest of the algorithms' (`pipeline.measures.auc.budgets`); give them
        to `auc(budgets=...)` of a part so that its areas compare with the others'.

        Examples
        --------
        >>> open_store("cocopipe-store", function=1, dimension=5).auc_budgets()["budget"].to_list()
        [5000.0]
        """

        return auc_m.budgets(self.runs(), self.max_budget).collect()

    @staticmethod
    def cliques(ranking: pl.DataFrame) -> pl.DataFrame:
        """The critical-difference cliques of a ranking by auc (`rank`): algorithms not significantly
        different (`pipeline.measures.ranking.cliques`).

        Examples
        --------
        >>> a = open_store("cocopipe-store", dimension=5)
        >>> a.cliques(a.rank().collect()).select("clique", "algorithms").rows()
        [(1, ['DIRECT', 'NM'])]
        """
        from .measures import ranking as ranking_m

        return ranking_m.cliques(ranking)

    # -- measures --------------------------------------------------------------------------
    def hits(self, targets: Targets = None) -> pl.LazyFrame:
        """First hitting times per (trial, target): the base of every measure (`pipeline.hits.spec`).

        With a budget cut B a target counts as reached only if the trial's first hitting time is <= B
        (and the trial's columns are those of the cut trial). Read from the store's cache of hitting
        times where it can answer (`pipeline.hits.cache`), else computed from the records.

        Parameters
        ----------
        targets : str, list of float, frame or None
            As `target_frame`.

        Returns
        -------
        polars.LazyFrame
            The trial's columns (run_id, suite, algorithm, function, dimension, instance, trial,
            evaluations, final_delta, weight), target, hit (evaluations, null if never) and success.

        Examples
        --------
        >>> a = open_store("cocopipe-store", algorithm="NM", function=1, dimension=5)
        >>> a.hits([1e-8]).collect().sort("instance", "trial").select("instance", "evaluations", "hit").head(2).rows()
        [(1, 1287, 1287), (2, 1293, 1293)]
        """
        return self.selection.hits(self.target_frame(targets))

    def params(self, names: Sequence[str] | None = None, positions: bool = False) -> pl.LazyFrame:
        """Tracked parameters of every selected run, its optimum known or not (`pipeline.measures.params`).

        Parameters
        ----------
        names : list of str, optional
            Only these parameters (default: every one but the positions).
        positions : bool
            Keep the positions x0, x1, ... too (when `names` is not given).

        Returns
        -------
        polars.LazyFrame
            suite, algorithm, function, dimension, instance, trial, run_id, evaluations, name, value.

        Examples
        --------
        >>> open_store("cocopipe-store").params().collect().height
        0
        """
        from .measures import params as params_m

        runs = pl.concat([a.runs().select(*PROBLEM, "instance", "trial", "run_id") for a in self._quantities()]
                         or [self.runs().select(*PROBLEM, "instance", "trial", "run_id")])
        table = params_m.params_table(self.store)
        if table is None:
            return params_m.values(runs, pl.LazyFrame(schema={"run_id": pl.Int64, "evaluations": pl.Int64,
                                                              "name": pl.String, "value": pl.Float64}), names, positions)
        return params_m.values(runs, table, names, positions)

    def _quantities(self) -> list[Analysis]:
        """This analysis on precisions (if it has runs with a known optimum) and on values (if it has
        runs without): each measure computed on both says which is which (`quantity`), never mixing them."""
        parts = [self] if self.selection.keys().height else []
        if self.selection.quantity == "value":
            return parts
        values = self._values()
        return parts + ([values] if values is not None else [])

    def values(self) -> Analysis:
        """This analysis on the logged values of the IOHprofiler runs without a known optimum (docs/ioh.md).

        Every measure of first hitting times then reads targets as raw values (numbers, or None: taken
        from the data, `pipeline.measures.values`), reached at or below them (at or above when
        maximising); `ert`, `aocc`, `fixed_budget` and `fixed_budget_ecdf` of any analysis already
        measure these runs beside the others (column `quantity`).

        Returns
        -------
        Analysis

        Examples
        --------
        >>> open_store("cocopipe-store").values().runs().collect().height
        0
        """
        return Analysis(self.selection.narrow(quantity="value"), executor=self.plan.executor,
                        group_size=self.plan.group_size)

    def _values(self) -> Analysis | None:
        """`values`, if it has runs."""
        values = self.values()
        return values if values.selection.keys().height else None

    def _numbers(self, targets: Targets) -> list[float]:
        """Value targets as numbers (a list, "v1,v2" or a frame's `target` column)."""
        if isinstance(targets, (pl.DataFrame, pl.LazyFrame)):
            targets = targets.lazy().select("target").collect()["target"].to_list()
        try:
            return list(tg.numbers(targets))
        except ValueError as exc:
            raise registry.InvalidSetting(f"{exc}; logged values need numbers (e.g. 10,1,0.1)", setting="targets") from None

    def ingest(self, *sources: str | os.PathLike, archive_url: str | None = None, offline: bool = False, **options):
        """Read sources into the store (`pipeline.ingest.ingest`).

        Parameters
        ----------
        *sources : str or path
            Folders, .tgz/.zip archives, and `archive:NAME` data sets of a COCO data archive
            (docs/archive.md), fetched from `archive_url` into the cache.
        archive_url : str, optional
            The archive of `archive:NAME` (default: COCOPIPE_ARCHIVE_URL, else the official one).
        offline : bool
            Use only the cache for `archive:NAME`.
        **options
            Of `pipeline.ingest.ingest`: name, force, jobs, executor, wait, ...

        Returns
        -------
        IngestSummary
            A `SourceOutcome` per source (status, runs, problems), and their sums.

        Examples
        --------
        >>> import tempfile
        >>> a = open_store(Store(tempfile.mkdtemp() + "/s", create=True).path)
        >>> summary = a.ingest("data/sample/RS_on_bbob.tgz")
        >>> [s.status for s in summary.sources], summary.runs, a.algorithms()
        (['ingested'], 1080, ['RS'])
        """
        # the readers load when logs are read, not when pipeline.api is imported
        from .archive.sources import add_outcomes, expand
        from .ingest import ingest

        fetched = expand(list(sources), url=archive_url, offline=offline, store=self.store,
                         force=options.get("force", False), one=options.get("name") is not None)
        return add_outcomes(ingest(fetched.paths, self.store, meta=fetched.meta, **options), fetched)


bind(Analysis)  # a method for every registered measure without one (`pipeline.binding`)


def _selection_changes(**options) -> dict:
    """The fields of a `Selection` that the keywords of `Analysis` give (only those given; None for
    all_instances, exact, indicator or cache: as they are)."""
    out = {}
    for key, value in options.items():
        if key not in (*KEYS, *SELECTION_SETTINGS, "indicator", "cache"):
            raise TypeError(f"unknown selection keyword {key!r}")
        if key == "max_budget":
            out[key] = Budget.parse(value)
        elif value is not None or key in KEYS:
            out[key] = value
    return out


def open_store(path: str | os.PathLike, **selection) -> Analysis:
    """Open a store for analysis.

    Parameters
    ----------
    path : str or path
        The store's folder (`cocopipe ingest ... --store path` made it).
    **selection
        Keywords of `Analysis`: suite, algorithm, function, dimension, max_budget, all_instances, exact,
        indicator, cache, executor, group_size.

    Returns
    -------
    Analysis

    Raises
    ------
    pipeline.selection.SelectionError
        When the suites, algorithms, functions or dimensions asked match no trial, naming what was asked
        and what the store holds.

    Examples
    --------
    >>> a = open_store("cocopipe-store", algorithm="NM", max_budget="100x")
    >>> a.art().collect().height
    3672
    >>> open_store("cocopipe-store", function=25)
    Traceback (most recent call last):
    ...
    pipeline.selection.SelectionError: no function 25 in the store ...cocopipe-store: it holds functions 1-24
    """
    a = Analysis(Store(path), **selection)
    if any(v is not None for v in a.filters.values()):
        a.check()
    return a
