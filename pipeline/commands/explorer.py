"""`cocopipe explorer`: a static, offline site over every data set of a store, rebuilt incrementally."""
from __future__ import annotations

from typing import Annotated, Optional

import typer

from ._common import fail, open_store, outside_store, say
from ._options import STORE, SamplesOpt, SeedOpt, StoreOpt


def register(app: typer.Typer) -> None:
    """Add the commands of this module."""

    @app.command()
    def explorer(
        out: Annotated[str, typer.Option("--out", "-o", help="Site folder (index.html, boards/, sets/, data/, static/).")],
        store: StoreOpt = STORE,
        mine: Annotated[Optional[list[str]], typer.Option("--mine", help="Your algorithms: marked on every leaderboard.")] = None,
        reference: Annotated[Optional[str], typer.Option("--reference", help="The reference algorithm drawn on every data set's ECDFs (an algorithm of the store).")] = None,
        samples: SamplesOpt = None,
        seed: SeedOpt = 1,
        alpha: Annotated[float, typer.Option(help="Level of the Nemenyi critical difference.")] = 0.05,
        competitors: Annotated[int, typer.Option(help="Nearest competitors by mean rank drawn on a data set's ECDFs.")] = 3,
    ) -> None:
        """A static site of every data set of the store: an index (sortable, searchable), a leaderboard per
        suite and dimension (mean rank of auc, Friedman test, critical difference, per function group), a page
        per data set (ECDFs against the reference and nearest competitors, aRT). A second build recomputes only
        what changed; it exits non-zero naming any data set that could not be read."""
        from pathlib import Path

        from ..explorer.build import build
        from ..explorer.compute import Settings

        st = open_store(store)
        outside_store(out, store)
        algorithms = {a for e in st.sources().values() for a in e.get("algorithms") or []}
        for name, given in (("--mine", mine or []), ("--reference", [reference] if reference else [])):
            unknown = [a for a in given if a not in algorithms]
            if unknown:
                fail(f"{name} {' '.join(unknown)}: no such algorithm in the store {store} "
                     f"(it holds {', '.join(sorted(algorithms)) or 'none'})")
        settings = Settings(samples=100 if samples is None else samples, seed=seed, alpha=alpha, competitors=competitors, reference=reference)
        b = build(st, Path(out), mine=mine, settings=settings)
        for file in b.rebuilt:
            say(f"rebuilt {file}")
        for file in b.removed:
            say(f"removed {file}")
        if not b.rebuilt and not b.removed:
            say(f"nothing changed: {len(b.kept)} pages kept, no work done")
        else:
            say(f"{out}: {len(b.rebuilt)} pages rebuilt, {len(b.kept)} kept")
        if b.problems:
            for what, why in b.problems:
                say(f"{what}: {why}", "error:", "red")
            fail(f"{len(b.problems)} data set(s) or leaderboard(s) not on the site: "
                 + ", ".join(w for w, _ in b.problems))
