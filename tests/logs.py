"""Writers of tiny hand-made COCO logs in each format generation, for tests."""
from __future__ import annotations

from pathlib import Path


def fmt(v: float) -> str:
    return f"{v:+.9e}"


def write_new2(root: Path, alg: str = "ALG", suite: str = "bbob", function: int = 1, dim: int = 2,
               runs: list[dict] | None = None, fopt: float = 10.0, info_name: str | None = None) -> Path:
    """A bbob-new2 experiment: runs = [{instance, dat: [(evals, best)], tdat: [(evals, best)], g: 0}]."""
    root.mkdir(parents=True, exist_ok=True)
    ddir = root / f"data_f{function}"
    ddir.mkdir(exist_ok=True)
    head = (f"% f evaluations | g evaluations | best noise-free fitness - Fopt ({fopt:.12e}) + sum g_i+ | "
            "measured fitness | best measured fitness or single-digit g-values | x1 | x2...")
    dat, tdat, entries = [], [], []
    for r in runs or []:
        for lines, recs in ((dat, r["dat"]), (tdat, r.get("tdat", r["dat"]))):
            lines.append(head)
            for ev, best in recs:
                lines.append(f"{ev} {r.get('g', 0)} {fmt(best)} {fmt(best + fopt)} {fmt(best + fopt)} +0.0e+00 +0.0e+00")
        last = max(max(e for e, _ in r["dat"]), max(e for e, _ in r.get("tdat", r["dat"])))
        final = min(b for _, b in r["dat"] + r.get("tdat", []))
        entries.append(f"{r['instance']}:{last}|{final:.1e}")
    stem = f"bbobexp_f{function}_DIM{dim}"
    (ddir / f"{stem}.dat").write_text("\n".join(dat) + "\n")
    (ddir / f"{stem}.tdat").write_text("\n".join(tdat) + "\n")
    info = root / (info_name or f"bbobexp_f{function}.info")
    with info.open("a") as fh:
        fh.write(f"suite = '{suite}', funcId = {function}, DIM = {dim}, Precision = 1.000e-08, algId = '{alg}', "
                 f"coco_version = '2.8.2', logger = 'bbob', data_format = 'bbob-new2'\n% hand-made\n"
                 f"data_f{function}/{stem}.dat, {', '.join(entries)}\n")
    return root


def drop_columns(store: Path, table: str, columns: list[str]) -> None:
    """Rewrite a store's Delta table without some columns, as an older cocopipe wrote it (its rows, their
    commits and partitions kept)."""
    import polars as pl
    from deltalake import DeltaTable, write_deltalake

    dt = DeltaTable(str(store / table))
    rows = pl.scan_delta(dt).collect().drop([c for c in columns if c in dt.schema().to_arrow().names])
    write_deltalake(str(store / table), rows.to_arrow(), mode="overwrite", schema_mode="overwrite",
                    partition_by=dt.metadata().partition_columns)


def as_runs_1_0_0(store: Path) -> None:
    """Rewrite a store's runs table as schema 1.0.0 wrote it: without the columns 1.1.0 added, its sources
    recording 1.0.0."""
    import json

    import polars as pl

    from pipeline.store import Store

    drop_columns(store, "runs", ["maximize", "function_name", "inconsistent_records"])

    def old(df: pl.DataFrame) -> pl.DataFrame:
        def one(entry: str) -> str:
            e = json.loads(entry)
            e["schema_versions"] = {t: "1.0.0" for t in e.get("schema_versions") or {"runs": 1, "events": 1}}
            return json.dumps(e, sort_keys=True)
        return df.with_columns(entry=pl.col("entry").map_elements(one, return_dtype=pl.String))

    Store(store).rewrite_sources(old)


def two_algorithm_store(root: Path) -> str:
    """A store of two algorithms on f1 and f2 in 2-D, three trials each: A reaches 1e-9 at evaluation
    9 + instance, B stops at 1e-3 (the settings tests' store)."""
    from pipeline.ingest import ingest
    from pipeline.store import Store

    for alg, last in (("A", 1e-9), ("B", 1e-3)):
        for f in (1, 2):
            write_new2(root / alg, alg=alg, function=f, dim=2,
                       runs=[dict(instance=i, dat=[(1, 5.0), (9 + i, last)]) for i in (1, 2, 3)])
    st = Store(root / "store", create=True)
    assert ingest([root / "A", root / "B"], st).runs == 12
    return str(st.path)
