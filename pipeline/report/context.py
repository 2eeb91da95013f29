"""What every page of a report shares: the analysis (the compared algorithms and each suite's
reference), the settings, the algorithms' colours and markers, and the measures computed once for all pages.

A report may hold several suites: each has its own reference algorithm (by default cocopp's, the
packaged set of that suite, or none where there is none; `--reference` applies to the suites it
fits), and every page has a section per suite.
"""
from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path

import polars as pl

from ..api import Analysis
from ..charts import theme
from ..conventions import is_biobjective
from ..execution import Plan
from ..hits import targets as tg
from ..ingest import source_names
from ..measures.groups import groups_frame
from ..measures.significance import FAMILY_TEXT, PAIR_FAMILY
from ..reference_sets import DEFAULT_FOR_SUITE, known_references
from ..selection import Selection, check, listing, open_reference, ranges
from ..store import Store, StoreError
from ..words import plural
from .runner import Runner
from .settings import Settings, SettingsError, data_sets, software_versions

NO_REFERENCE = ("none", "")
#: with many algorithms, the pairs of the best ranked compared on the Pairwise page (3: the three best)
MANY_PAIRS = 3


class _Excluding:
    """A store without some algorithms (those another store of a union already holds)."""

    def __init__(self, store, algorithms: Sequence[str]):
        self.store, self.algorithms = store, list(algorithms)
        self.path = store.path

    def runs(self) -> pl.LazyFrame:
        """Runs of the other algorithms."""
        return self.scan("runs")

    def events(self) -> pl.LazyFrame:
        """Events of the other algorithms."""
        return self.scan("events")

    def scan(self, table: str, *, commits: bool = False) -> pl.LazyFrame:
        """A table of the other algorithms (as `Store.scan`)."""
        return self.store.scan(table, commits=commits).filter(~pl.col("algorithm").is_in(self.algorithms))

    def stamp(self) -> tuple:
        """The store's snapshot (`Store.stamp`)."""
        return self.store.stamp()

    def members(self) -> list[Store]:
        """The store read (for the hits cache: `pipeline.hits.cache`)."""
        return [self.store]


class _UnionStore:
    """Several stores read as one (the data store and a packaged reference set)."""

    def __init__(self, stores: Sequence):
        self.stores = list(stores)
        self.path = self.stores[0].path

    def runs(self) -> pl.LazyFrame:
        """Runs of every store."""
        return self.scan("runs")

    def events(self) -> pl.LazyFrame:
        """Events of every store."""
        return self.scan("events")

    def archive(self) -> pl.LazyFrame:
        """Archived bbob-biobj points of every store (the `biobj_eaf` measures read them)."""
        return self.scan("archive")

    def scan(self, table: str, *, commits: bool = False) -> pl.LazyFrame:
        """A table of every store, as one (as `Store.scan`; with `commits`, the commit of each row, the key of
        each store's cache of hitting times)."""
        return pl.concat([s.scan(table, commits=commits) for s in self.stores])

    def stamp(self) -> tuple:
        """The snapshots of every store (`Store.stamp`): what was read of the union is kept until one changes."""
        return tuple(s.stamp() for s in self.stores)

    def members(self) -> list[Store] | None:
        """The stores read, each with its own cache of hitting times (`pipeline.hits.cache`); None where one is
        not a store."""
        out = [m for s in self.stores for m in (s.members() if isinstance(s, _Excluding) else [s])]
        return out if all(isinstance(m, Store) for m in out) else None

    def scan_side(self, table: str) -> pl.LazyFrame | None:
        """A side table of every store that has it (e.g. the reference choices), as one."""
        parts = [lf for s in self.stores if hasattr(s, "scan_side") and (lf := s.scan_side(table)) is not None]
        return pl.concat(parts, how="diagonal_relaxed") if parts else None

    def sources(self) -> dict[str, dict]:
        """The entries of every store's sources, by key (the first store's on a clash)."""
        out: dict[str, dict] = {}
        for s in reversed(self.stores):
            out.update(s.sources() if hasattr(s, "sources") else {})
        return out


def _plan(analysis: Analysis) -> dict:
    """The executor and group size of `analysis`, for the analyses a report makes of it (`report --executor`)."""
    return dict(executor=analysis.plan.executor, group_size=analysis.plan.group_size)


def _store_algorithms(analysis: Analysis) -> list[str]:
    return analysis.select(algorithm=None).algorithms()


def _match(name: str, present: Sequence[str]) -> str | None:
    """The algorithm of the store a reference name means: itself, or the one name starting with it
    ("best2009" finds "best2009-bbob")."""
    if name in present:
        return name
    cands = [a for a in present if a.lower().startswith(name.lower())]
    return cands[0] if len(cands) == 1 else None


def default_reference(suite: str) -> str | None:
    """The reference algorithm cocopp shows by default on a suite: the packaged set of that suite, or None."""
    return DEFAULT_FOR_SUITE.get(suite)


def _packaged_reference(name: str, suite: str) -> Selection | None:
    """The packaged reference set `name` of `suite`, or None when it has none for that suite."""
    try:
        return open_reference(name, suite)
    except (ValueError, KeyError, FileNotFoundError):
        return None


def is_store(path: str) -> bool:
    """Whether `path` is a cocopipe store (a folder or URI holding its `sources` table)."""
    try:
        Store(path)
    except StoreError:
        return False
    return True


def background_stores(entries) -> list:
    """The other stores among the `background` entries (folders holding a cocopipe store), opened."""
    out = []
    for e in entries or []:
        if is_store(e):
            try:
                out.append(Store(e))
            except StoreError as exc:
                raise SettingsError(f"background {e}: {exc}") from None
    return out


def background_algorithms(entries, base: Analysis, present: list[str], stores: Sequence = ()) -> list[str]:
    """The algorithms the `background` setting means: names of the store as they are; a source
    (folder or archive, ingested into the store) stands for the algorithms read from it; another
    store (`stores`, opened from its entry) for every algorithm of it in the selection."""
    if not entries:
        return []
    out: list[str] = []
    sources = None
    by_path = {str(s.path): s for s in stores}
    for e in entries:
        if e in present and e not in by_path:
            out.append(e)
            continue
        if e in by_path:
            other = Analysis(by_path[e], **{**base.filters, "algorithm": None}, max_budget=base.max_budget,
                             all_instances=base.all_instances, exact=base.exact)
            found = other.algorithms()
            if not found:
                raise SettingsError(f"background {e}: the store holds no data in the report's selection")
            out += found
            continue
        if not Path(e).exists():
            raise SettingsError(f"background {e!r}: neither an algorithm of the store ({', '.join(present[:8])}"
                                f"{', ...' if len(present) > 8 else ''}), nor a store, nor an existing folder or "
                                "archive")
        if sources is None:
            sources = base.runs().select("source", "algorithm").unique().collect()
        names = source_names([e])
        found = sorted(set(sources.filter(pl.col("source").is_in(names))["algorithm"]))
        if not found:
            raise SettingsError(f"background {e}: no data of it in the store (ingest it with the report's sources)")
        out += found
    return list(dict.fromkeys(out))


def unknown_optimum_notes(unknown: pl.DataFrame) -> list[str]:
    """A note per suite of the IOHprofiler runs without a known optimum (`Analysis.precision_unknown`), which every
    measure of the report (of precisions) leaves out, naming their algorithms and what measures their values."""
    out = []
    for (suite,), g in unknown.group_by(["suite"], maintain_order=True):
        algs = sorted(set(g["algorithm"]))
        out.append(f"{plural(int(g['runs'].sum()), 'IOHprofiler run')} of suite {suite} ({', '.join(algs[:8])}"
                   f"{', ...' if len(algs) > 8 else ''}; functions {ranges(g['function'].to_list())}) have no known "
                   "optimum, so no precision: every measure of this report leaves them out. `cocopipe ert`, `aocc`, "
                   "`budget` and `fixed-budget-ecdf` measure their logged values (`--values`: those alone), and "
                   "`cocopipe ingest --optimum Y` gives them an optimum (docs/ioh.md).")
    return out


class Context:
    """The data and settings of one report."""

    def __init__(self, analysis: Analysis, settings: Settings, runner: Runner | None = None):
        self.settings = settings.check()
        #: where charts and tables are made (in-process by default)
        self.runner = runner or Runner(1)
        #: the groups of algorithms the ECDF tables are computed in (the analysis's)
        self.plan: Plan = analysis.plan
        #: follows the long work: progress(stage, done, total, label) (`build.Progress`; set by `build`)
        self.progress = lambda stage, done, total, label="": None
        s = self.settings
        base = analysis.select(suite=s.suites, function=s.functions, dimension=s.dimensions,
                               max_budget=s.max_budget, all_instances=s.all_instances, exact=s.exact,
                               algorithm=None)
        try:  # every suite, algorithm, function and dimension asked has trials
            check(base.store.runs(), dict(suite=s.suites, algorithm=s.algorithms, function=s.functions,
                                          dimension=s.dimensions), s.all_instances, what=f"the store {base.store.path}")
        except ValueError as exc:
            raise SettingsError(str(exc)) from None
        present = _store_algorithms(base)
        suites = base.suites()
        self.notes: list[str] = []
        #: per suite, the reference algorithm (its name in the data) and the name it was asked by
        self.references: dict[str, str] = {}
        self.reference_labels: dict[str, str] = {}
        store = self._resolve_references(s.reference, base, suites)
        refs = self.reference_names
        #: algorithms drawn thin and grey behind the compared ones in the ECDF and scaling charts
        others = background_stores(s.background)
        self.background: list[str] = background_algorithms(s.background, base, present, others)
        if others:  # another store's algorithms, read through a union (the report's store wins a name clash)
            mine = sorted(set(present) | set(refs))
            clash = sorted({a for o in others for a in o.runs().select("algorithm").unique().collect()["algorithm"]}
                           & set(mine))
            if clash:
                self.notes.append(f"Background algorithm(s) {', '.join(clash)} of another store are also in the "
                                  "report's data: the report's data of them are shown.")
            union = store.stores if isinstance(store, _UnionStore) else [store]
            store = _UnionStore([*union, *(_Excluding(o, mine) for o in others)])
        bg = set(self.background) - set(s.algorithms or [])
        algs = list(s.algorithms) if s.algorithms else [a for a in present if a not in refs]
        self.algorithms: list[str] = [a for a in algs if a not in refs and a not in bg]
        self.background = [a for a in self.background if a not in set(self.algorithms) | set(refs)]
        if not self.algorithms:
            raise SettingsError("no algorithm to show besides the reference")
        shown = self.algorithms + refs
        self.analysis: Analysis = Analysis(store, **{**base.filters, "algorithm": shown}, max_budget=s.max_budget,
                                           all_instances=s.all_instances, exact=s.exact, **_plan(analysis))
        #: the compared algorithms without the reference
        self.compared: Analysis = self.analysis.select(algorithm=self.algorithms)
        #: the shown algorithms with the background ones (the ECDFs draw them all)
        self.with_background: Analysis = (self.analysis.select(algorithm=shown + self.background) if self.background
                                          else self.analysis)
        self.suites: list[str] = self.analysis.suites()
        if len(self.algorithms) == 1:
            self.notes.append(f"One compared algorithm ({self.algorithms[0]}): nothing to compare it with, so the "
                              "pairwise tests, the Pairwise page and the Ranking page are left out.")
        if len(self.algorithms) > 1 and not self.has_pairs:
            self.notes.append("No two compared algorithms have trials on a common problem (suite, function and "
                              "dimension): the pairwise tests, the Pairwise page and the Ranking page are left out.")
        self.notes += unknown_optimum_notes(base.select(algorithm=s.algorithms).precision_unknown())
        for suite in self.suites:
            if not self.algorithms_of(suite):
                self.notes.append(f"Suite {suite} holds data of the reference {self.reference_of(suite)} only: its "
                                  "sections show the reference alone.")
        #: {(suite, dimension): the compared functions} where the suite's reference has them all (`_cover`)
        self.reference_cover: dict[tuple[str, int], list[int]] = self._cover()
        self.palette = self._palette()
        #: the compared algorithms best first (mean rank of auc over all dimensions): `set_ranking`
        self.ranked: list[str] | None = None

    def set_ranking(self, ranked: list[str]) -> None:
        """Take the ranking (`Measures.start_ranked`): the compared algorithms best first."""
        self.ranked = list(ranked)

    @property
    def ranking_pending(self) -> bool:
        """Whether the pairs wait for the ranking: many algorithms, more pairs than shown, no ranking yet."""
        return self.many and self.ranked is None

    @property
    def many(self) -> bool:
        """More compared algorithms than `max_detail`: the views summarise (see `pages.MANY_RULES`)."""
        return len(self.algorithms) > self.settings.max_detail

    @functools.cached_property
    def _members(self) -> list[tuple[object, set[str]]]:
        """(store, its algorithms) of every store the report reads (the union's members, in order)."""
        store = self.analysis.store
        members = store.stores if isinstance(store, _UnionStore) else [store]
        return [(m.store if isinstance(m, _Excluding) else m,
                 set(m.runs().select("algorithm").unique().collect()["algorithm"])) for m in members]

    def parts(self, algorithms: Sequence[str]) -> list[Analysis]:
        """The selection of `algorithms` as one Analysis per store that holds them (the report's store,
        a packaged reference set, other background stores), so that each reads its own cache of
        hitting times (`pipeline.hits.cache`); their measures concatenated are those of the union."""
        left, out = list(algorithms), []
        for store, names in self._members:
            mine = [a for a in left if a in names]
            if mine:
                out.append(Analysis(store, **{**self.with_background.filters, "algorithm": mine},
                                    max_budget=self.settings.max_budget, all_instances=self.settings.all_instances,
                                    exact=self.settings.exact, **_plan(self.analysis)))
                left = [a for a in left if a not in names]
        return out

    def covered(self, algorithm: str) -> list[Analysis]:
        """`parts([algorithm])`, a reference's cut to the problems it is compared on: a part per (suite, dimension)
        it covers (`reference_cover`) with the functions the compared algorithms have there (cocopp draws the
        reference over the functions shown, not over all of its own)."""
        if algorithm not in self.reference_names:
            return self.parts([algorithm])
        return [p.select(suite=su, dimension=[d], function=fs) for p in self.parts([algorithm])
                for (su, d), fs in self.reference_cover.items() if self.reference_of(su) == algorithm]

    def _cover(self) -> dict[tuple[str, int], list[int]]:
        """{(suite, dimension): the compared functions} where the suite's reference has every one of them; where it
        lacks some, the ECDFs leave it out (a line over fewer functions than the others would not compare), as a
        note says."""
        compared = (self.problems.filter(pl.col("algorithm").is_in(self.algorithms))
                    .group_by("suite", "dimension").agg(pl.col("function").unique().sort()).sort("suite", "dimension"))
        out, lacking = {}, []
        for su, d, fs in compared.rows():
            ref = self.reference_of(su)
            if ref is None:
                continue
            have = set(self.problems.filter((pl.col("suite") == su) & (pl.col("dimension") == d)
                                            & (pl.col("algorithm") == ref))["function"])
            if set(fs) <= have:
                out[(su, d)] = list(fs)
            else:
                lacking.append(f"{su} {d}-D (f{ranges(sorted(set(fs) - have))})")
        if lacking:
            self.notes.append(f"The reference has no trials on some problems compared, so the ECDFs leave it out in: "
                              f"{'; '.join(lacking)}.")
        return out

    @property
    def all_shown(self) -> list[str]:
        """The compared algorithms, the references and the background ones."""
        return [*self.algorithms, *self.reference_names, *self.background]

    # -- references ----------------------------------------------------------------------------
    @property
    def reference_names(self) -> list[str]:
        """The reference algorithms of the suites (each once, in the order of the suites)."""
        return list(dict.fromkeys(self.references.values()))

    def reference_of(self, suite: str) -> str | None:
        """The reference algorithm of a suite (its name in the data), or None."""
        return self.references.get(suite)

    def reference_label_of(self, suite: str) -> str | None:
        """The name the reference of a suite was asked by (e.g. best2009 for best2009-bbob), or None."""
        return self.reference_labels.get(suite)

    def algorithms_of(self, suite: str) -> list[str]:
        """The compared algorithms with data on a suite."""
        have = set(self.problems.filter(pl.col("suite") == suite)["algorithm"])
        return [a for a in self.algorithms if a in have]

    def _resolve_references(self, name: str | None, base: Analysis, suites: list[str]):
        """Set `references` and `reference_labels` of every suite, and return the store to read (the data,
        with the packaged reference sets when one is used). `name` None: each suite's default (cocopp's,
        where a packaged set exists); else an algorithm of the store or a packaged set, for the suites it
        fits; none fitting is an error, and the suites it does not fit are named in the notes."""
        if name is not None and name.lower() in NO_REFERENCE:
            return base.store
        packaged = None
        unfit = []
        for suite in suites:
            asked = name if name is not None else default_reference(suite)
            if asked is None:
                continue
            here = base.select(suite=suite).algorithms()
            alg = _match(asked, here)
            if alg is None:
                ref = _packaged_reference(asked, suite)
                if ref is None:
                    unfit.append(suite)
                    continue
                ref_algs = ref.algorithms()
                if len(ref_algs) != 1:
                    raise SettingsError(f"reference {asked!r}: the packaged set holds {len(ref_algs)} algorithms, "
                                        "expected one", "reference")
                if ref_algs[0] in here:
                    raise SettingsError(f"reference {asked!r}: its algorithm name {ref_algs[0]!r} is also in the store",
                                        "reference")
                alg, packaged = ref_algs[0], ref.store
            self.references[suite], self.reference_labels[suite] = alg, asked
        if name is None:
            for suite in unfit:
                self.notes.append(f"The reference algorithm {default_reference(suite)} of suite {suite} is not in the "
                                  "data and its packaged set could not be opened: that suite shows no reference.")
        elif not self.references:
            present = base.algorithms()
            held = listing(name, present)
            raise SettingsError(f"reference {name!r}: not an algorithm of the store nor a packaged reference set of "
                                f"suite(s) {', '.join(suites)} (the store holds {held}; packaged sets: "
                                f"{', '.join(known_references())})", "reference")
        elif unfit:
            self.notes.append(f"The reference {name} applies to suite(s) {', '.join(self.references)} only; "
                              f"{', '.join(unfit)} (no such algorithm or packaged set there) show no reference.")
        return _UnionStore([base.store, packaged]) if packaged is not None else base.store

    def _palette(self) -> dict[str, tuple[str, str]]:
        refs = self.reference_names
        return theme.palette(self.algorithms + refs, refs, fixed=self.settings.fixed_palette())

    # -- facts shared by the pages ----------------------------------------------------------
    @functools.cached_property
    def problems(self) -> pl.DataFrame:
        """(suite, dimension, function, algorithm, trials) of the shown algorithms."""
        return (self.analysis.runs().group_by("suite", "dimension", "function", "algorithm")
                .agg(trials=pl.len()).sort("suite", "dimension", "function", "algorithm").collect())

    def dimensions(self, suite: str) -> list[int]:
        """Dimensions in which a compared algorithm has data."""
        p = self.problems.filter((pl.col("suite") == suite) & pl.col("algorithm").is_in(self.algorithms))
        return sorted(p["dimension"].unique().to_list())

    def functions(self, suite: str, algorithms: Sequence[str] | None = None) -> list[int]:
        """Functions on which a compared algorithm (one of `algorithms`) has data."""
        algs = self.algorithms if algorithms is None else list(algorithms)
        p = self.problems.filter((pl.col("suite") == suite) & pl.col("algorithm").is_in(algs))
        return sorted(p["function"].unique().to_list())

    def groups(self, suite: str, algorithms: Sequence[str] | None = None) -> list[tuple[str, str]]:
        """(group, label) of the suite's function groups that hold a shown function (of `algorithms`)."""
        g = groups_frame(suite).filter(pl.col("function").is_in(self.functions(suite, algorithms))).collect()
        return list(dict.fromkeys(zip(g["group"], g["group_label"])))

    @functools.cached_property
    def _problems_of(self) -> dict[str, set[tuple]]:
        """The (suite, dimension, function) problems of each compared algorithm."""
        p = self.problems.filter(pl.col("algorithm").is_in(self.algorithms))
        out: dict[str, set[tuple]] = {a: set() for a in self.algorithms}
        for su, d, f, a in p.select("suite", "dimension", "function", "algorithm").iter_rows():
            out[a].add((su, d, f))
        return out

    def comparable(self, x: str, y: str) -> bool:
        """Whether two compared algorithms have trials on a common problem."""
        return bool(self._problems_of.get(x, set()) & self._problems_of.get(y, set()))

    @functools.cached_property
    def has_pairs(self) -> bool:
        """Whether two compared algorithms have trials on a common problem (else there is nothing to compare)."""
        a = self.algorithms
        return any(self.comparable(x, y) for i, x in enumerate(a) for y in a[i + 1:])

    def pairs(self) -> list[tuple[str, str]]:
        """Pairs of compared algorithms for the two-algorithm views, each pair with trials on a common
        problem: every pair when there are at most `max_pairs`; with many algorithms (`many`) and their
        ranking known (`ranked`), every pair of the k best ranked, k the largest with k (k - 1) / 2 <=
        min(max_pairs, MANY_PAIRS) (a page of pairs opens in a few seconds); else each algorithm with the
        first one."""
        a = self.algorithms
        every = [(x, y) for i, x in enumerate(a) for y in a[i + 1:] if self.comparable(x, y)]
        if len(every) <= self.settings.max_pairs:
            return every
        if self.ranking_pending:
            raise RuntimeError("the pairs of many algorithms are asked for before the ranking: "
                               "call Measures.start_ranked first")
        if self.many and self.ranked:
            k = 2
            while (k + 1) * k // 2 <= min(self.settings.max_pairs, MANY_PAIRS):
                k += 1
            top = set(self.ranked[:k])
            best = [x for x in a if x in top]
            return [(x, y) for i, x in enumerate(best) for y in best[i + 1:] if self.comparable(x, y)]
        return [(a[0], y) for y in a[1:] if self.comparable(a[0], y)][: self.settings.max_pairs]

    def ecdf_targets(self, suite: str) -> tuple[float, ...]:
        """The ECDF targets of a suite: the setting's, else its standard set, or for a suite without one whose
        precisions are whole numbers (PBO) the integers below the largest precision logged (`tg.whole`)."""
        if self.settings.targets is None and suite in self._whole_worst:
            return tg.whole(self._whole_worst[suite])
        return tg.parse(self.settings.targets, suite)

    def table_targets(self, suite: str) -> tuple[float, ...]:
        """The table targets of a suite: the setting's, else cocopp's, or as many of the whole-number targets of
        `ecdf_targets` (PBO), evenly spread."""
        if self.settings.table_targets is not None:
            return tg.parse(self.settings.table_targets, suite)
        if suite in self._whole_worst:
            return tg.whole(self._whole_worst[suite], most=len(tg.TABLE))
        return tg.TABLE_BIOBJ if is_biobjective(suite) else tg.TABLE

    def few_targets(self, suite: str, n: int) -> dict:
        """The `targets` option of a chart of a few targets (cocopp's pprldistr, ppfigdim) on a suite of whole-number
        targets (`ecdf_targets`): n of them, evenly spread; {} elsewhere (the chart's own, cocopp's)."""
        if self.settings.targets is None and suite in self._whole_worst:
            return {"targets": list(tg.whole(self._whole_worst[suite], most=n))}
        return {}

    @functools.cached_property
    def _whole_worst(self) -> dict[str, float]:
        """The largest precision logged in each suite without a standard target set whose precisions are all
        whole numbers (PBO's OneMax and LeadingOnes)."""
        out = {}
        for suite in [x for x in self.suites if not tg.standard(x)]:
            d = pl.col("best_delta")
            worst, whole = self.analysis.select(suite=suite).events().select(
                worst=d.max(), whole=(d == d.round()).all()).collect().row(0)
            if worst is not None and whole:
                out[suite] = float(worst)
        return out

    # -- the record written into settings.json --------------------------------------------------
    @functools.cached_property
    def record(self) -> dict:
        """Resolved selection, instances, data sets and versions (for settings.json and every page)."""
        runs = self.analysis.runs()
        inst = (runs.group_by("suite", "algorithm").agg(pl.col("instance").unique().sort())
                .sort("suite", "algorithm").collect())
        return {
            "algorithms": self.algorithms,
            "reference": refs[0] if len(refs := self.reference_names) == 1 else (refs or None),
            "reference_label": (labels[0] if len(labels := list(dict.fromkeys(self.reference_labels.values()))) == 1
                                else (labels or None)),
            "references": {s: self.reference_of(s) for s in self.suites},
            "reference_labels": {s: self.reference_label_of(s) for s in self.suites},
            "background": self.background,
            "suites": self.suites,
            "dimensions": {s: self.dimensions(s) for s in self.suites},
            "functions": {s: self.functions(s) for s in self.suites},
            "instances": {f"{r['suite']}/{r['algorithm']}": r["instance"] for r in inst.iter_rows(named=True)},
            "ecdf_targets": {s: list(self.ecdf_targets(s)) for s in self.suites},
            "table_targets": {s: list(self.table_targets(s)) for s in self.suites},
            "tests": {"family": list(PAIR_FAMILY), "family_text": FAMILY_TEXT, "correction": self.settings.correction,
                      "alpha": self.settings.alpha},
            "pairs": None if self.ranking_pending else [list(p) for p in self.pairs()],  # build sets it after
            "data_sets": data_sets(runs, getattr(self.analysis, "store", None)),
            "versions": software_versions(),
            "notes": list(self.notes),
        }
