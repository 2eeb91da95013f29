"""Building the explorer's site incrementally: results kept per data set under `DIR/.explorer/`, keyed by the
data set's sha256 and the settings; a leaderboard keyed by the hashes of the data sets it ranks. A build
recomputes what a key no longer matches and says so; with nothing changed it does no work."""
from __future__ import annotations

import hashlib
import json
import shlex
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from .. import __version__
from ..store import Store
from . import compute, site
from .inventory import StoredSet, inventory

STATE = ".explorer/state.json"
#: the layout of the results and pages: a change of it rebuilds every page
FORMAT = 1


@dataclass
class Built:
    """What a build did: pages rebuilt and kept, data sets that could not be read (with why), pages removed."""

    rebuilt: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)


def _key(*parts) -> str:
    """A cache key: the sha256 of the parts' JSON."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:24]


@dataclass
class _Site:
    """A build in progress: the store, the folder, the settings, what is kept from the last build."""

    store: Store
    out: Path
    settings: compute.Settings
    mine: list[str]
    sets: list[StoredSet]
    old: dict
    new: dict = field(default_factory=lambda: {"boards": {}, "sets": {}})
    built: Built = field(default_factory=Built)
    rankings: dict[tuple[str, int], pl.DataFrame] = field(default_factory=dict)

    @property
    def cache(self) -> Path:
        return self.out / ".explorer"

    def readable(self) -> list[StoredSet]:
        return [d for d in self.sets if not d.problem]

    def fresh(self, kind: str, file: str, key: str) -> bool:
        """Whether the page `file` of the last build had this key and is still there."""
        return self.old.get(kind, {}).get(file) == key and (self.out / file).is_file()


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".part")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def board_file(suite: str, dimension: int) -> str:
    """The page of the leaderboard of a suite and dimension."""
    return f"boards/{suite}-{dimension}d.html"


def _board_cached(s: _Site, key: str) -> tuple[Path, Path]:
    return s.cache / "boards" / f"{key}.ranking.parquet", s.cache / "boards" / f"{key}.auc.parquet"


def _boards(s: _Site) -> None:
    """Every leaderboard: read from the kept results when its data sets are those of the last build, else
    computed (and its page written)."""
    pairs = sorted({(suite, d) for ds in s.readable() for suite in ds.suites for d in ds.dimensions})
    for suite, dim in pairs:
        members = [d for d in s.readable() if suite in d.suites and dim in d.dimensions]
        algorithms = sorted({a for d in members for a in d.algorithms})
        file = board_file(suite, dim)
        key = _key(FORMAT, site.TEMPLATES, s.settings.board(), sorted(s.mine), suite, dim, sorted(d.sha256 for d in members))
        rank_p, auc_p = _board_cached(s, key)
        if s.fresh("boards", file, key) and rank_p.is_file():
            s.rankings[(suite, dim)] = pl.read_parquet(rank_p)
            s.new["boards"][file] = key
            s.built.kept.append(file)
            continue
        try:
            ranking, means = compute.leaderboard(s.store, suite, dim, algorithms, s.settings)
        except Exception as exc:  # noqa: BLE001 - one leaderboard that cannot be made is named, the rest go on
            s.built.problems.append((f"leaderboard {suite} {dim}-D", " ".join(str(exc).split())[:300]))
            continue
        rank_p.parent.mkdir(parents=True, exist_ok=True)
        ranking.write_parquet(rank_p)
        means.write_parquet(auc_p)
        s.rankings[(suite, dim)] = ranking
        s.new["boards"][file] = key
        s.built.rebuilt.append(file)
        _publish_board(s, suite, dim, members, ranking, means)


def _publish_board(s: _Site, suite: str, dim: int, members: list[StoredSet], ranking: pl.DataFrame,
                   means: pl.DataFrame) -> None:
    """A leaderboard's CSV files and page."""
    stem = f"{suite}-{dim}d"
    data = s.out / "data"
    data.mkdir(parents=True, exist_ok=True)
    ranking.write_csv(data / f"{stem}.ranking.csv")
    means.write_csv(data / f"{stem}.auc.csv")
    page_of = {a: f"../sets/{d.slug}.html" for d in members for a in d.algorithms}
    sections = []
    for group, label, _ in compute.function_groups(suite):
        r = ranking.filter(pl.col("group") == group)
        if r.height == 0:
            continue
        m = means.filter(pl.col("group") == group).select("algorithm", mean_auc="auc")
        t = (r.join(m, on="algorithm", how="left")
             .select("rank", "algorithm", pl.col("score").alias("mean rank"), pl.col("mean_auc").alias("mean auc"),
                     "problems", pl.col("friedman_p").alias("Friedman p"),
                     pl.col("critical_difference").alias("critical difference"))
             .with_columns(page=pl.col("algorithm").replace_strict(page_of, default=None)))
        classes = ["mine" if a in s.mine else None for a in t["algorithm"]]
        chart = site.ranking_chart(r.with_columns(dimension=pl.lit(dim)), s.mine,
                                   f"{suite} {dim}-D, {label}: mean rank of auc")
        cd = r["critical_difference"][0]
        note = (f"Friedman test over {r['problems'][0]} functions: p = {r['friedman_p'][0]:.3g}; "
                f"Nemenyi critical difference {cd:.3g} (alpha {s.settings.alpha}): intervals are mean rank "
                f"± half of it; two algorithms whose intervals do not overlap differ significantly."
                if r["friedman_p"][0] is not None and cd is not None else
                "Too few algorithms or functions for the Friedman test.")
        sections.append({"id": group, "title": label, "note": note, "chart": site.spec_json(chart),
                         "table": site.table(t, links={"algorithm": "page"}, row_class=classes)})
    intro = (f"{len(members)} data sets ranked by the area under their runtime ECDF per function "
             f"(rank 1 = largest area); data: ../data/{stem}.ranking.csv, ../data/{stem}.auc.csv."
             + (f" Marked: {', '.join(s.mine)}." if s.mine else ""))
    _write(s.out / board_file(suite, dim), site.page(f"Leaderboard {suite}, {dim}-D", sections, root="../",
                                                     nav=[], intro=intro, store=str(s.store.path),
                                                     settings=json.dumps(s.settings.board())))


def _results(s: _Site, ds: StoredSet, suite: str) -> compute.SetResults:
    """A data set's results on a suite: kept ones, else computed and kept (keyed by its sha256, settings)."""
    folder = s.cache / "sets" / f"{ds.sha256[:16]}-{_key(FORMAT, __version__, s.settings.results(), suite)}"
    names = ("steps", "summary", "art")
    if all((folder / f"{n}.parquet").is_file() for n in names):
        return compute.SetResults(*(pl.read_parquet(folder / f"{n}.parquet") for n in names))
    r = compute.set_results(s.store, suite, ds.algorithms, s.settings)
    folder.mkdir(parents=True, exist_ok=True)
    for n in names:
        getattr(r, n).write_parquet(folder / f"{n}.parquet")
    return r


def _sets(s: _Site) -> None:
    """Every data set's page: kept when its key (its sha256, the reference's, the settings) is unchanged."""
    ref = next((d for d in s.readable() if s.settings.reference in d.algorithms), None)
    by_alg = {a: d for d in s.readable() for a in d.algorithms}
    for ds in s.readable():
        file = f"sets/{ds.slug}.html"
        key = _key(FORMAT, site.TEMPLATES, s.settings.as_dict(), ds.sha256, ref.sha256 if ref else None)
        if s.fresh("sets", file, key):
            s.new["sets"][file] = key
            s.built.kept.append(file)
            continue
        try:
            _set_page(s, ds, ref, by_alg, file)
        except Exception as exc:  # noqa: BLE001 - a data set that cannot be computed is named on the index
            ds.problem = f"its measures cannot be computed: {' '.join(str(exc).split())[:300]}"
            continue
        s.new["sets"][file] = key
        s.built.rebuilt.append(file)


def _set_page(s: _Site, ds: StoredSet, ref: StoredSet | None, by_alg: dict[str, StoredSet], file: str) -> None:
    """One data set's page: its facts, its place on the leaderboards, ECDFs against the reference and its
    nearest competitors, its aRT table (and the full one in CSV), the command of a report of them."""
    suite = ds.suites[0]
    own = _results(s, ds, suite)
    steps, summary = [own.steps], [own.summary]
    places, compared = [], set()
    for dim in ds.dimensions:
        ranking = s.rankings.get((suite, dim))
        if ranking is None:
            continue
        near = compute.nearest(ranking, ds.algorithms, s.settings.competitors)
        others = [by_alg[a] for a in near if a in by_alg] + ([ref] if ref and ref is not ds else [])
        for o in others:
            r = _results(s, o, suite)
            steps.append(r.steps.filter((pl.col("dimension") == dim) & pl.col("algorithm").is_in(o.algorithms)))
            summary.append(r.summary.filter(pl.col("dimension") == dim))
            compared.add(o.algorithms[0])
        mine = ranking.filter((pl.col("group") == "all") & pl.col("algorithm").is_in(ds.algorithms))
        for r in mine.iter_rows(named=True):
            places.append({"dimension": dim, "algorithm": r["algorithm"], "rank": r["rank"],
                           "of": ranking.filter(pl.col("group") == "all").height, "mean rank": r["score"],
                           "nearest": " ".join(near), "leaderboard": f"../{board_file(suite, dim)}"})
    all_steps = pl.concat(steps, how="vertical_relaxed").filter(pl.col("group") == "all").unique(maintain_order=True)
    all_summary = pl.concat(summary, how="vertical_relaxed").filter(pl.col("group") == "all").unique(maintain_order=True)
    chart = site.ecdf_chart(all_steps, all_summary, ref.algorithms[0] if ref else None, ds.algorithms)
    data = s.out / "data"
    data.mkdir(parents=True, exist_ok=True)
    own.art.write_csv(data / f"{ds.slug}.art.csv")
    facts = pl.DataFrame({"": [k.replace("_", " ") for k in ds.row() if k not in ("page", "problem")],
                          "value": [str(v) if v is not None else "" for k, v in ds.row().items()
                                    if k not in ("page", "problem")]})
    algs = [*ds.algorithms, *sorted(compared)]
    command = shlex.join(["cocopipe", "report", "--store", str(s.store.path), "--suite", suite,
                          *[w for a in algs for w in ("--algorithm", a)], "--out", f"report-{ds.slug}"])
    sections = [{"id": "facts", "title": "", "table": site.table(facts, cls="facts")},
                {"id": "place", "title": "On the leaderboards (over all functions)",
                 "table": site.table(pl.DataFrame(places), links={"dimension": "leaderboard"}) if places else None,
                 "note": None if places else "On no leaderboard."},
                {"id": "ecdf", "title": "Runtime ECDFs over all functions", "chart": site.spec_json(chart),
                 "note": f"Against the reference {ref.algorithms[0] if ref else '(none in the store)'} and the "
                         f"{s.settings.competitors} nearest competitors by mean rank of auc, per dimension, as the "
                         "leaderboards stood when this page was made (a data set added later rebuilds the "
                         "leaderboards, not this page)."},
                {"id": "art", "title": "aRT (evaluations) at some targets; every target: "
                                       f"../data/{ds.slug}.art.csv",
                 "table": site.table(compute.art_table(own.art), cls="sortable filtered")},
                {"id": "report", "title": "A report of this data set and its competitors", "code": command}]
    _write(s.out / file, site.page(ds.name, sections, root="../", nav=[], store=str(s.store.path),
                                   settings=json.dumps(s.settings.as_dict())))


def _index(s: _Site) -> None:
    """The index of every data set (those that cannot be read named, in red) and of the leaderboards."""
    rows = [d.row() for d in s.sets]
    df = pl.DataFrame(rows, schema={k: (pl.Float64 if k == "budget" else pl.Int64 if k in ("year", "instances", "runs")
                                        else pl.String) for k in rows[0]}) if rows else pl.DataFrame()
    sections = []
    if s.built.problems or any(d.problem for d in s.sets):
        bad = [f"{d.name} ({d.key}): {d.problem}" for d in s.sets if d.problem] + [
            f"{what}: {why}" for what, why in s.built.problems]
        sections.append({"id": "problems", "title": "Not on the site", "note": " · ".join(bad)})
    boards = [{"suite": f.split("/")[1].rsplit("-", 1)[0], "dimension": int(f.rsplit("-", 1)[1][:-6]),
               "file": f} for f in sorted(s.new["boards"])]
    if df.height:
        df = df.with_columns(page=pl.when(pl.col("problem").is_null()).then(pl.col("page")))
        shown = df.drop([c for c in ("workshop", "problem") if df[c].null_count() == df.height])
        classes = ["problem" if d.problem else ("mine" if set(d.algorithms) & set(s.mine) else None) for d in s.sets]
        sections.append({"id": "sets", "title": f"{df.height} data sets",
                         "table": site.table(shown, cls="sortable filtered", links={"name": "page"}, row_class=classes,
                                             col_class={"sha256": "sha"})})
        df.drop("page").write_csv(s.out / "data" / "index.csv")
    nav = [(suite, [{"file": b["file"], "dimension": b["dimension"]}
                    for b in sorted(boards, key=lambda b: b["dimension"]) if b["suite"] == suite])
           for suite in sorted({b["suite"] for b in boards})]
    text = site.page("Every data set of the store", sections, root="", nav=nav, store=str(s.store.path),
                     settings=json.dumps(s.settings.as_dict()),
                     intro="The leaderboards of every suite and dimension are linked at the top. Click a column to sort, "
                           "type in the box to filter; a name opens its page.")
    path = s.out / "index.html"
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        _write(path, text)
        s.built.rebuilt.append("index.html")
    else:
        s.built.kept.append("index.html")


def _remove_stale(s: _Site) -> None:
    """The pages of the last build that this one no longer has (a data set removed or replaced)."""
    for kind in ("boards", "sets"):
        for file in sorted(set(s.old.get(kind, {})) - set(s.new[kind])):
            if (s.out / file).is_file():
                (s.out / file).unlink()
            s.built.removed.append(file)


def build(store: Store, out: Path, *, mine: list[str] | None = None,
          settings: compute.Settings | None = None) -> Built:
    """Build or bring up to date the site of every data set of `store` in `out`; what was rebuilt, kept,
    removed, and the data sets or leaderboards that could not be made (`Built.problems`)."""
    out = Path(out)
    settings = settings or compute.Settings()
    try:
        old = json.loads((out / STATE).read_text())
    except (OSError, ValueError):
        old = {}
    if not isinstance(old, dict):
        old = {}
    s = _Site(store, out, settings, sorted(mine or []), inventory(store), old)
    (out / "data").mkdir(parents=True, exist_ok=True)
    site.copy_static(out)
    _boards(s)
    _sets(s)
    for d in s.sets:
        if d.problem:
            s.built.problems.append((d.name, d.problem))
    _remove_stale(s)
    _index(s)
    _write(out / STATE, json.dumps(s.new, indent=1, sort_keys=True))
    return s.built
