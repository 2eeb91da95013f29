"""What the explorer's pages show, computed with the measures of `pipeline.api.Analysis`: per (suite,
dimension) a leaderboard (mean ranks of auc with the Friedman test and the Nemenyi critical difference, over
all functions and per function group; mean auc), per data set its runtime ECDFs and aRT table."""
from __future__ import annotations

from dataclasses import asdict, dataclass

import polars as pl

from ..api import Analysis
from ..measures.groups import groups_frame
from ..measures.ranking import rank_by_auc
from ..store import Store

#: the targets of the aRT table shown on a data set's page (the CSV holds every target)
ART_TARGETS = (10.0, 1.0, 1e-1, 1e-3, 1e-5, 1e-8)


@dataclass(frozen=True)
class Settings:
    """What the results depend on besides the data: a change rebuilds everything."""

    mode: str = "simulated"
    samples: int = 100
    seed: int = 1
    alpha: float = 0.05
    competitors: int = 3
    reference: str | None = None

    def as_dict(self) -> dict:
        """The settings as JSON-able values (part of a data set page's cache key)."""
        return asdict(self)

    def results(self) -> dict:
        """The settings a data set's ECDFs and aRT depend on (part of their cache key)."""
        return {"mode": self.mode, "samples": self.samples, "seed": self.seed}

    def board(self) -> dict:
        """The settings a leaderboard depends on (part of its cache key)."""
        return {"alpha": self.alpha}


def function_groups(suite: str) -> list[tuple[str, str, list[int]]]:
    """(group, label, functions) of a suite, "all" first (its functions: every one of the suite's groups)."""
    g = groups_frame(suite).collect()
    named = [(name, part["group_label"][0], sorted(part["function"].to_list()))
             for (name,), part in g.group_by("group", maintain_order=True)]
    return [("all", "all functions", sorted(set(g["function"].to_list())))] + named


def leaderboard(store: Store, suite: str, dimension: int, algorithms: list[str], settings: Settings
                ) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The ranking (group, algorithm, rank, score, problems, friedman_statistic, friedman_p,
    critical_difference) and mean auc (group, algorithm, auc) of `algorithms` on one suite and dimension: the
    rank of every group from the areas of one `Analysis.auc` (the budgets of all the algorithms)."""
    a = Analysis(store, suite=suite, dimension=dimension, algorithm=algorithms)
    aucs = a.auc().collect()
    ranks, means = [], []
    for group, _, functions in function_groups(suite):
        part = aucs.filter(pl.col("function").is_in(functions)) if group != "all" else aucs
        if part.height == 0:
            continue
        r = rank_by_auc(part.lazy(), by_dimension=False, alpha=settings.alpha)
        if r.height:
            ranks.append(r.select(pl.lit(group).alias("group"), pl.all()))
        means.append(part.group_by("algorithm").agg(auc=pl.col("auc").mean(), functions=pl.len())
                     .select(pl.lit(group).alias("group"), pl.all()).sort("algorithm"))
    empty = pl.DataFrame(schema={"group": pl.String, "algorithm": pl.String})
    return (pl.concat(ranks) if ranks else empty), (pl.concat(means) if means else empty)


@dataclass
class SetResults:
    """A data set's results: ECDF steps and summary (over all functions and per group) and its aRT."""

    steps: pl.DataFrame
    summary: pl.DataFrame
    art: pl.DataFrame


def set_results(store: Store, suite: str, algorithms: list[str], settings: Settings) -> SetResults:
    """The results of the algorithms of one data set on one suite (they depend on its own runs only)."""
    a = Analysis(store, suite=suite, algorithm=algorithms)
    groups = [g for g, _, _ in function_groups(suite)]
    opts = dict(group=groups, mode=settings.mode)
    steps = a.ecdf(samples=settings.samples, seed=settings.seed, **opts).collect()
    summary = a.ecdf_summary(**opts).collect()
    return SetResults(steps, summary, a.art().collect())


def art_table(art: pl.DataFrame) -> pl.DataFrame:
    """aRT per (algorithm, dimension, function) at the targets of `ART_TARGETS`, one column each, and the
    successes / trials at the last one."""
    rows = art.filter(pl.col("target").is_in(list(ART_TARGETS)))
    wide = rows.with_columns(col=pl.format("aRT {}", pl.col("target").map_elements(lambda t: f"{t:g}",
                                                                                   return_dtype=pl.String)))
    table = wide.pivot(on="col", index=["algorithm", "dimension", "function"], values="art", sort_columns=False)
    last = rows.filter(pl.col("target") == min(ART_TARGETS)).select(
        "algorithm", "dimension", "function", solved=pl.format("{}/{}", "successes", "trials"))
    cols = [f"aRT {t:g}" for t in ART_TARGETS if f"aRT {t:g}" in table.columns]
    return (table.join(last, on=["algorithm", "dimension", "function"], how="left")
            .select("algorithm", "dimension", "function", *cols, "solved").sort("algorithm", "dimension", "function"))


def nearest(ranking: pl.DataFrame, mine: list[str], k: int) -> list[str]:
    """The `k` algorithms nearest `mine` by mean rank of auc over all functions (the leaderboard's "all")."""
    r = ranking.filter(pl.col("group") == "all")
    own = r.filter(pl.col("algorithm").is_in(mine))["score"]
    if own.len() == 0:
        return []
    centre = float(own.mean())
    others = r.filter(~pl.col("algorithm").is_in(mine)).with_columns(gap=(pl.col("score") - centre).abs())
    return others.sort("gap", "algorithm")["algorithm"].head(k).to_list()
