"""The report's output folder: only a folder cocopipe wrote is replaced by a new report.

Every report folder holds `.cocopipe-report.json`, a marker naming the files cocopipe wrote there
with a signature of its own. A folder may be replaced when it is new, empty, or marked and holding
none but the files its marker names; anything else (a user's own folder, a report someone added
files to, a report of a cocopipe from before the marker) is refused unless forced.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from ..store.walk import walk
from .settings import SettingsError

MARKER = ".cocopipe-report.json"
SIGNATURE = "cocopipe report folder: replaced by the next `cocopipe report --out` here"


def _files(folder: Path) -> set[str]:
    """The files under a folder, relative (a tree of any depth)."""
    return {Path(here, f).relative_to(folder).as_posix() for here, _, files in walk(folder) for f in files}


def mark(folder: Path) -> None:
    """Write the marker of a finished report folder, naming every file in it."""
    files = sorted(_files(folder) - {MARKER})
    (folder / MARKER).write_text(json.dumps({"signature": SIGNATURE, "files": files}, indent=1), encoding="utf-8")


def _written(folder: Path) -> set[str] | None:
    """The files the folder's marker names; None when it holds no valid marker."""
    try:
        data = json.loads((folder / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("signature") != SIGNATURE or not isinstance(data.get("files"), list):
        return None
    return set(data["files"]) | {MARKER}


def _within(inner: Path, outer: Path) -> bool:
    """Whether `inner` is `outer` or lies inside it (both resolved)."""
    return inner == outer or outer in inner.parents


def check_place(out: Path, stores: tuple[Path | str, ...] = ()) -> None:
    """SettingsError (one line) unless a report folder can be made at `out`: a folder of its own (not the
    current one or one holding it), neither inside one of `stores` nor holding one, and where this process
    may write."""
    out = Path(out)
    where = out.resolve()
    if out.name in ("", ".", "..") or _within(Path.cwd().resolve(), where):
        raise SettingsError(f"{out}: the report needs a folder of its own, not the current folder or one holding "
                            "it; name a new folder (e.g. --out cocopipe-report)")
    for store in stores:
        home = Path(store).resolve()
        if _within(where, home):
            raise SettingsError(f"{out}: inside the store {store}; the report would damage it: give a folder "
                                "outside the store")
        if _within(home, where):
            raise SettingsError(f"{out}: holds the store {store}; replacing it would delete the store: give "
                                "another folder")
    parent = where.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise SettingsError(f"{out}: cannot make the report folder there ({parent} is not a folder)")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise SettingsError(f"{out}: cannot write the report there (no permission to write to {parent}, "
                            "or a read-only file system)")


def check_replaceable(out: Path, force: bool = False) -> None:
    """SettingsError unless a report may be written to `out` (new, empty, a report folder cocopipe
    wrote and nobody added to, or `force`)."""
    out = Path(out)
    check_place(out)
    if force or not out.exists():
        return
    if not out.is_dir():
        raise SettingsError(f"{out}: not a folder; give a new or empty folder for the report")
    found = _files(out)
    if not found and not any(out.iterdir()):
        return
    written = _written(out)
    if written is None:
        what = ("a report of an earlier cocopipe, without its marker" if (out / "settings.json").is_file()
                else "files cocopipe did not write")
        raise SettingsError(f"{out}: the folder holds no report that cocopipe may replace ({what}: "
                            f"{', '.join(sorted(found)[:3])}{', ...' if len(found) > 3 else ''}); give a new or "
                            "empty folder, or --force to replace it with all it holds")
    extra = sorted(found - written)
    if extra:
        raise SettingsError(f"{out}: the report folder also holds files cocopipe did not write ({', '.join(extra[:3])}"
                            f"{', ...' if len(extra) > 3 else ''}); move them, or --force to replace it with all it holds")
