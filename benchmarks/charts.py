"""Chart benchmark (issues 5 and 12): the CPU time to turn computed tables into a Vega-Lite spec, per
chart kind: "chart" = the chart function and `to_dict` (Altair validation off, no theme configuration,
as the report calls it), "spec" = all of `pipeline.report.runner.chart_spec` (plus the report's
renaming of parameters). The tables are computed once beforehand from a store of the five bbob data
sets (made on first use in --store); minimum and median of --repeat calls. Goal: an ECDF chart in at
most 25 ms.

Measured 2026-11-23 on 2 shared cores under a load average of about 10 (other work running: the
figures are inflated and noisy), chart ms, minimum / median of 7, before (commit 8279d1d: inline
values deep-copied by every Altair call, shorthand and dict encodings parsed by `from_dict`) and after:
  ecdf 176/216 -> 28/36, ecdf-explorer 1597/1670 -> 203/234, scaling 144/153 -> 16/19,
  scatter 92/99 -> 24/27, art-ratio 65/68 -> 17/18, ratio-ecdf 78/84 -> 19/21, rt-ecdf 112/118 -> 29/33,
  precision-ecdf 53/58 -> 8/9, logloss 88/91 -> 7/8, convergence 81/82 -> 14/15,
  critical-difference 55/55 -> 8/9, heatmap 60/63 -> 6/6.
An ECDF chart of 200 algorithms: 0.94 s CPU for chart_spec, most of it Polars (the step table) and the
report's renaming walk over the spec.

usage: python benchmarks/charts.py [--store DIR] [--repeat N] [--only KIND ...] [--profile KIND]
"""
from __future__ import annotations

import argparse
import cProfile
import inspect
import json
import os
import pstats
import statistics
import sys
import time
from pathlib import Path

SHARED = Path(os.environ.get("COCOPIPE_SHARED", Path(__file__).resolve().parents[2] / "shared"))
SOURCES = ("real/DIRECT_posik_noiseless.tgz", "real/BrentSTEPqi_Posik.tgz", "generated/NM_on_bbob.tgz",
           "generated/RS_on_bbob.tgz", "refalgs/best2009-bbob.tar.gz")
REF = "best2009-bbob"


def store(path: Path):
    """The store of the five data sets (ingested when `path` holds none)."""
    from pipeline.ingest import ingest
    from pipeline.store import Store

    if (path / "runs").exists() or any(path.glob("*.parquet")):
        return Store(path)
    st = Store(path, create=True)
    ingest([SHARED / "data" / p for p in SOURCES], st)
    return st


def cases(st) -> dict[str, tuple]:
    """(chart function, args, kwargs) per kind, the tables computed as `pipeline.recipes` does."""
    import polars as pl

    from pipeline.api import Analysis
    from pipeline.charts import convergence, distributions, ecdf, logloss, pairs, ranking, scaling, theme
    from pipeline.recipes.inputs import ecdf_tables

    a = Analysis(st)
    algs = [x for x in a.algorithms() if x != REF]
    pal = theme.palette([*algs, REF], reference=REF)
    five = a.select(dimension=5)
    steps, summ = ecdf_tables(five, group="all")
    steps_all, summ_all = ecdf_tables(a, group=None, samples=20)
    out: dict[str, tuple] = {
        "ecdf": (ecdf.ecdf_chart, (steps, summ), dict(palette=pal, reference=REF, settings=["a", "b"], zoom=False)),
        "ecdf-explorer": (ecdf.ecdf_explorer, (steps_all, summ_all), dict(palette=pal, reference=REF)),
    }
    b = [x for x in algs if x in ("DIRECT", "NM")] or algs[:2]
    art = a.select(algorithm=[*algs, REF]).art([1e-8]).collect()
    out["scaling"] = (scaling.scaling_chart, (art,), dict(series="algorithm", palette=pal, reference=REF))
    art_all = a.select(algorithm=b).art().collect()
    out["scatter"] = (pairs.scatter_chart, (art_all, *b), {})
    out["art-ratio"] = (pairs.art_ratio_chart, (art_all, *b), {})
    sel = a.select(algorithm=b)
    out["ratio-ecdf"] = (pairs.ratio_ecdf_chart, (pairs.ratio_steps(sel.hits(distributions.RT_TARGETS).collect(), *b),
                                                  *b), {})
    rs, ru = distributions.runtime_steps(a.select(algorithm=algs).hits(distributions.RT_TARGETS).collect())
    out["rt-ecdf"] = (distributions.runtime_ecdf_chart, (rs, ru), {})
    v = a.select(algorithm=algs[:1]).fixed_budget([10.0, 100.0], per_dimension=True, summary=False).collect()
    v = v.with_columns(budget=pl.col("budget").cast(pl.String))
    out["precision-ecdf"] = (distributions.precision_ecdf_chart, (distributions.precision_steps(v),), {})
    art5 = five.art().collect()
    runs = five.runs().collect()
    top = float((runs["evaluations"] / runs["dimension"]).max())
    out["logloss"] = (logloss.logloss_chart, (logloss.loss_table(art5, REF, logloss.budgets_grid(top)), REF),
                      dict(palette=pal))
    c = a.select(dimension=5, algorithm=algs)
    grid = convergence.budget_grid(top)
    out["convergence"] = (convergence.convergence_chart, (c.fixed_budget(grid, per_dimension=True).collect(),),
                          dict(palette=pal))
    ranks = pl.DataFrame({"dimension": [5] * len(algs), "algorithm": algs, "rank": list(range(1, len(algs) + 1)),
                          "score": [float(i) for i in range(1, len(algs) + 1)], "problems": [24] * len(algs),
                          "friedman_statistic": [9.0] * len(algs), "friedman_p": [0.01] * len(algs),
                          "critical_difference": [0.6] * len(algs)})
    out["critical-difference"] = (ranking.critical_difference_chart, (ranks,), dict(palette=pal))
    tests = pl.DataFrame({"suite": "bbob", "dimension": 5, "function": [f for f in range(1, 25) for _ in range(3)],
                          "target": [1e-1, 1e-3, 1e-8] * 24, "algorithm_a": b[0], "algorithm_b": b[1],
                          "p_corrected": [10.0 ** -(i % 7) for i in range(72)],
                          "better": [b[i % 2] for i in range(72)], "significant": [i % 3 == 0 for i in range(72)]})
    out["heatmap"] = (pairs.pairwise_heatmap, (tests,), {})
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--store", type=Path, default=Path("/tmp/cocopipe-bench-charts"))
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--profile", help="profile this kind instead of timing all")
    p.add_argument("--only", nargs="*", help="time only these kinds")
    args = p.parse_args()
    from altair.utils.schemapi import debug_mode

    from pipeline.report.runner import chart_spec

    todo = cases(store(args.store))
    if args.profile:
        fn, a, kw = todo[args.profile]
        chart_spec(fn, a, kw)
        pr = cProfile.Profile()
        pr.enable()
        for _ in range(args.repeat):
            chart_spec(fn, a, kw)
        pr.disable()
        pstats.Stats(pr, stream=sys.stdout).sort_stats("cumulative").print_stats(30)
        return
    print(f"{'kind':22} {'chart ms':>12} {'spec ms':>8} {'spec kB':>8}")
    for kind, (fn, a, kw) in todo.items():
        if args.only and kind not in args.only:
            continue
        spec = chart_spec(fn, a, kw)  # warm up
        extra = {"configured": False} if "configured" in inspect.signature(fn).parameters else {}
        charts, specs = [], []
        for _ in range(args.repeat):
            with debug_mode(False):
                c = time.process_time()
                fn(*a, **extra, **kw).to_dict(validate=False)
                charts.append(time.process_time() - c)
            c = time.process_time()
            chart_spec(fn, a, kw)
            specs.append(time.process_time() - c)
        size = len(json.dumps(spec)) / 1024
        print(f"{kind:22} {min(charts) * 1e3:5.0f} / {statistics.median(charts) * 1e3:4.0f} "
              f"{statistics.median(specs) * 1e3:8.0f} {size:8.0f}")


if __name__ == "__main__":
    main()
