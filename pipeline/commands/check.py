"""`cocopipe check`: the manifest of a store against its files, and `--repair`."""
from __future__ import annotations

from typing import Annotated

import typer

from ._common import fail, one_line, out, plural, say
from ._options import STORE, StoreOpt


def register(app: typer.Typer) -> None:
    """Add the commands of this module."""

    @app.command()
    def check(
        store: StoreOpt = STORE,
        repair: Annotated[bool, typer.Option("--repair", help="Keep what is readable, drop the rest, and say what was dropped.")] = False,
    ) -> None:
        """Check that the tables and the files of a store agree: files missing or unreadable, tables of another
        schema, every source's run count, rows of writes that never committed. Exits non-zero while problems remain."""
        from ..store import StoreError
        from ..store.check import check as run_check, repair as run_repair

        try:
            if repair:
                done, left = run_repair(store)
                for line in done:
                    out.print(one_line(f"repaired: {line}"), markup=False, soft_wrap=True)
            else:
                left = run_check(store)
        except StoreError as exc:
            fail(str(exc))
        for f in left:
            out.print(one_line(f"{f.kind}: {store}/{f}"), markup=False, soft_wrap=True)
        if left:
            hint = "" if repair else f"; `cocopipe check --store {store} --repair` keeps what is readable"
            say(f"store {store}: {plural(len(left), 'problem')}{hint}")
            raise typer.Exit(1)
        say(f"store {store}: the tables and their files agree")

    @app.command()
    def upgrade(store: StoreOpt = STORE) -> None:
        """Make a store of the earlier layout (Parquet files and cocopipe-store.json, cocopipe before 0.9) a Delta
        Lake store with the same sources; the old files are kept aside in the store's layout-v2-backup folder."""
        from pathlib import Path

        from ..store import StoreError
        from ..store.legacy import BACKUP, FILE, upgrade_store

        if not (Path(store) / FILE).is_file():
            fail(f"{store}: no store of the earlier layout here (no {FILE})")
        try:
            done, lost = upgrade_store(store)
        except (StoreError, OSError, ValueError) as exc:
            fail(f"{store}: the upgrade failed, the store is left as it was ({one_line(str(exc))})")
        for line in done:
            say(line)
        for line in lost:
            say(line, "lost:", "red")
        if lost:
            fail(f"{store}: upgraded with what could be read; {len(lost)} lost (named above): those rows are not "
                 f"in the store (the old files are in its {BACKUP} folder)")
