"""What every page of a report shares: the analysis (the compared algorithms and the reference),
the settings, the algorithms' colours and markers, and the measures computed once for all pages.
"""
from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path

import polars as pl

from ..api import Analysis
from ..conventions import is_biobjective
from ..measures import targets as tg
from .runner import Runner
from .settings import Settings, SettingsError, data_sets, software_versions

#: the reference algorithm cocopp shows by default, per suite (`--reference` overrides; "none": none)
DEFAULT_REFERENCE = {"bbob": "best2009"}
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
        return self.store.runs().filter(~pl.col("algorithm").is_in(self.algorithms))

    def events(self) -> pl.LazyFrame:
        """Events of the other algorithms."""
        return self.store.events().filter(~pl.col("algorithm").is_in(self.algorithms))


class _UnionStore:
    """Several stores read as one (the data store and a packaged reference set)."""

    def __init__(self, stores: Sequence):
        self.stores = list(stores)
        self.path = self.stores[0].path

    def runs(self) -> pl.LazyFrame:
        """Runs of every store."""
        return pl.concat([s.runs() for s in self.stores])

    def events(self) -> pl.LazyFrame:
        """Events of every store."""
        return pl.concat([s.events() for s in self.stores])


def _store_algorithms(analysis: Analysis) -> list[str]:
    return analysis.select(algorithm=None).algorithms()


def _match(name: str, present: Sequence[str]) -> str | None:
    """The algorithm of the store a reference name means: itself, or the one name starting with it
    ("best2009" finds "best2009-bbob")."""
    if name in present:
        return name
    cands = [a for a in present if a.lower().startswith(name.lower())]
    return cands[0] if len(cands) == 1 else None


def _packaged_reference(name: str, suites: Sequence[str]) -> Analysis | None:
    """The packaged reference set `name` for the first suite that has it, or None."""
    try:
        from ..measures.reference import open_reference
    except ImportError:
        return None
    for s in suites:
        try:
            return open_reference(name, s)
        except (ValueError, KeyError, FileNotFoundError):
            continue
    return None


def is_store(path: str) -> bool:
    """Whether `path` is a cocopipe store folder (it holds the store's manifest)."""
    from ..store.store import MANIFEST

    return (Path(path) / MANIFEST).is_file()


def background_stores(entries) -> list:
    """The other stores among the `background` entries (folders holding a cocopipe store), opened."""
    from ..store import Store, StoreError

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
        from ..ingest.sources import expand, source_name

        if sources is None:
            sources = base.runs().select("source", "algorithm").unique().collect()
        names = [source_name(Path(x)) for x in expand([Path(e)])]
        found = sorted(set(sources.filter(pl.col("source").is_in(names))["algorithm"]))
        if not found:
            raise SettingsError(f"background {e}: no data of it in the store (ingest it with the report's sources)")
        out += found
    return list(dict.fromkeys(out))


class Context:
    """The data and settings of one report."""

    def __init__(self, analysis: Analysis, settings: Settings, runner: Runner | None = None):
        self.settings = settings.check()
        #: where charts and tables are made (in-process by default)
        self.runner = runner or Runner(1)
        s = self.settings
        base = analysis.select(suite=s.suites, function=s.functions, dimension=s.dimensions,
                               max_budget=s.max_budget, all_instances=s.all_instances, exact=s.exact_hits,
                               algorithm=None)
        present = _store_algorithms(base)
        if not present:
            raise SettingsError("no data in the selection")
        if s.algorithms:
            missing = [a for a in s.algorithms if a not in present]
            if missing:
                raise SettingsError(f"algorithm(s) {', '.join(missing)} not in the store (it holds "
                                    f"{', '.join(present)})")
        suites = base.suites()
        self.notes: list[str] = []
        self.reference, self.reference_label, store = self._resolve_reference(s.reference, base, present, suites)
        #: algorithms drawn thin and grey behind the compared ones in the ECDF and scaling charts
        others = background_stores(s.background)
        self.background: list[str] = background_algorithms(s.background, base, present, others)
        if others:  # another store's algorithms, read through a union (the report's store wins a name clash)
            mine = sorted(set(present) | ({self.reference} if self.reference else set()))
            clash = sorted({a for o in others for a in o.runs().select("algorithm").unique().collect()["algorithm"]}
                           & set(mine))
            if clash:
                self.notes.append(f"Background algorithm(s) {', '.join(clash)} of another store are also in the "
                                  "report's data: the report's data of them are shown.")
            union = store.stores if isinstance(store, _UnionStore) else [store]
            store = _UnionStore([*union, *(_Excluding(o, mine) for o in others)])
        bg = set(self.background) - set(s.algorithms or [])
        algs = list(s.algorithms) if s.algorithms else [a for a in present if a != self.reference]
        self.algorithms: list[str] = [a for a in algs if a != self.reference and a not in bg]
        self.background = [a for a in self.background if a not in set(self.algorithms) | {self.reference}]
        if not self.algorithms:
            raise SettingsError("no algorithm to show besides the reference")
        shown = self.algorithms + ([self.reference] if self.reference else [])
        self.analysis: Analysis = Analysis(store, **{**base.filters, "algorithm": shown}, max_budget=s.max_budget,
                                           all_instances=s.all_instances, exact=s.exact_hits)
        #: the compared algorithms without the reference
        self.compared: Analysis = self.analysis.select(algorithm=self.algorithms)
        #: the shown algorithms with the background ones (the ECDFs draw them all)
        self.with_background: Analysis = (self.analysis.select(algorithm=shown + self.background) if self.background
                                          else self.analysis)
        self.suites: list[str] = self.analysis.suites()
        self.palette = self._palette()
        #: the compared algorithms best first (mean rank of auc over all dimensions), once the measures know it
        self.ranked: list[str] | None = None

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
        hitting times (`pipeline.measures.cache`); their measures concatenated are those of the union."""
        left, out = list(algorithms), []
        for store, names in self._members:
            mine = [a for a in left if a in names]
            if mine:
                out.append(Analysis(store, **{**self.with_background.filters, "algorithm": mine},
                                    max_budget=self.settings.max_budget, all_instances=self.settings.all_instances,
                                    exact=self.settings.exact_hits))
                left = [a for a in left if a not in names]
        return out

    @property
    def all_shown(self) -> list[str]:
        """The compared algorithms, the reference and the background ones."""
        return [*self.algorithms, *([self.reference] if self.reference else []), *self.background]

    # -- reference -----------------------------------------------------------------------------
    def _resolve_reference(self, name: str | None, base: Analysis, present: list[str], suites: list[str]):
        """(algorithm name in the data, label, store) of the reference; (None, None, store) without."""
        auto = name is None
        if auto:
            names = {DEFAULT_REFERENCE[x] for x in suites if x in DEFAULT_REFERENCE}
            if len(names) != 1:
                return None, None, base.store
            name = names.pop()
        if name.lower() in NO_REFERENCE:
            return None, None, base.store
        alg = _match(name, present)
        if alg:
            return alg, name, base.store
        ref = _packaged_reference(name, suites)
        if ref is None:
            if auto:
                self.notes.append(f"The reference algorithm {name} is not in the data and no packaged reference set "
                                  f"of that name could be opened; the report shows no reference.")
                return None, None, base.store
            raise SettingsError(f"reference {name!r}: not an algorithm of the store ({', '.join(present)}) nor a "
                                "packaged reference set")
        ref_algs = ref.algorithms()
        if len(ref_algs) != 1:
            raise SettingsError(f"reference {name!r}: the packaged set holds {len(ref_algs)} algorithms, expected one")
        if ref_algs[0] in present:
            raise SettingsError(f"reference {name!r}: its algorithm name {ref_algs[0]!r} is also in the store")
        return ref_algs[0], name, _UnionStore([base.store, ref.store])

    def _palette(self) -> dict[str, tuple[str, str]]:
        from ..charts import theme

        return theme.palette(self.algorithms + ([self.reference] if self.reference else []), self.reference,
                             fixed=self.settings.fixed_palette())

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

    def functions(self, suite: str) -> list[int]:
        """Functions on which a compared algorithm has data."""
        p = self.problems.filter((pl.col("suite") == suite) & pl.col("algorithm").is_in(self.algorithms))
        return sorted(p["function"].unique().to_list())

    def groups(self, suite: str) -> list[tuple[str, str]]:
        """(group, label) of the suite's function groups that hold a shown function."""
        from ..measures.groups import groups_frame

        g = groups_frame(suite).filter(pl.col("function").is_in(self.functions(suite))).collect()
        return list(dict.fromkeys(zip(g["group"], g["group_label"])))

    def pairs(self) -> list[tuple[str, str]]:
        """Pairs of compared algorithms for the two-algorithm views: every pair when there are at
        most `max_pairs`; with many algorithms (`many`) and their ranking known (`ranked`), every pair
        of the k best ranked, k the largest with k (k - 1) / 2 <= min(max_pairs, MANY_PAIRS) (a page
        of pairs opens in a few seconds); else each algorithm with the first one."""
        a = self.algorithms
        every = [(x, y) for i, x in enumerate(a) for y in a[i + 1:]]
        if len(every) <= self.settings.max_pairs:
            return every
        if self.many and self.ranked:
            k = 2
            while (k + 1) * k // 2 <= min(self.settings.max_pairs, MANY_PAIRS):
                k += 1
            top = set(self.ranked[:k])
            best = [x for x in a if x in top]
            return [(x, y) for i, x in enumerate(best) for y in best[i + 1:]]
        return [(a[0], y) for y in a[1:]][: self.settings.max_pairs]

    def ecdf_targets(self, suite: str) -> tuple[float, ...]:
        """The ECDF targets of a suite."""
        return tg.parse(self.settings.targets, suite)

    def table_targets(self, suite: str) -> tuple[float, ...]:
        """The table targets of a suite."""
        if self.settings.table_targets is not None:
            return tg.parse(self.settings.table_targets, suite)
        return tg.TABLE_BIOBJ if is_biobjective(suite) else tg.TABLE

    # -- the record written into settings.json --------------------------------------------------
    @functools.cached_property
    def record(self) -> dict:
        """Resolved selection, instances, data sets and versions (for settings.json and every page)."""
        runs = self.analysis.runs()
        inst = (runs.group_by("suite", "algorithm").agg(pl.col("instance").unique().sort())
                .sort("suite", "algorithm").collect())
        return {
            "algorithms": self.algorithms,
            "reference": self.reference,
            "reference_label": self.reference_label,
            "background": self.background,
            "suites": self.suites,
            "dimensions": {s: self.dimensions(s) for s in self.suites},
            "functions": {s: self.functions(s) for s in self.suites},
            "instances": {f"{r['suite']}/{r['algorithm']}": r["instance"] for r in inst.iter_rows(named=True)},
            "ecdf_targets": {s: list(self.ecdf_targets(s)) for s in self.suites},
            "table_targets": {s: list(self.table_targets(s)) for s in self.suites},
            "pairs": [list(p) for p in self.pairs()],
            "data_sets": data_sets(runs),
            "versions": software_versions(),
            "notes": list(self.notes),
        }
