"""`cocopipe check`: the manifest of a store against its files, and `--repair`."""
from __future__ import annotations

from typing import Annotated

import typer

from ._common import fail, one_line, out, plural, say
from ._options import STORE, StoreOpt, WaitOpt


def register(app: typer.Typer) -> None:
    """Add the commands of this module."""

    @app.command()
    def check(
        store: StoreOpt = STORE,
        repair: Annotated[bool, typer.Option("--repair", help="Keep what is readable, drop the rest, and say what was dropped.")] = False,
        wait: WaitOpt = 0,
    ) -> None:
        """Check that the manifest and the files of a store agree: files missing, orphaned, unreadable or
        of another schema version, and every source's run count. Exits non-zero while problems remain."""
        from ..store import StoreError
        from ..store.check import check as run_check, repair as run_repair

        try:
            if repair:
                done, left = run_repair(store, wait, on_wait=say)
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
        say(f"store {store}: the manifest and the files agree")
