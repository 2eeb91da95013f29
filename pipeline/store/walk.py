"""Walking a folder tree without recursion (os.walk and Path.rglob recurse in Python 3.11: a tree nested
deeper than the recursion limit would end in a RecursionError)."""
from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path


def walk(top: str | os.PathLike) -> Iterator[tuple[str, list[str], list[str]]]:
    """os.walk(top) top-down, without recursion: (folder, folder names, file names); the folder names may be
    pruned in place; links to folders are listed, not followed; unlistable folders are passed over."""
    stack = [os.fspath(top)]
    while stack:
        here = stack.pop()
        try:
            with os.scandir(here) as it:
                entries = list(it)
        except OSError:
            continue
        dirs, files = [], []
        for e in entries:
            try:
                is_dir = e.is_dir()
            except OSError:
                is_dir = False
            (dirs if is_dir else files).append(e.name)
        yield here, dirs, files
        stack.extend(os.path.join(here, d) for d in reversed(dirs)
                     if not os.path.islink(os.path.join(here, d)))


def files_named(top: str | os.PathLike, suffix: str) -> Iterator[Path]:
    """Every file under `top` whose name ends in `suffix` (Path.rglob('*' + suffix) without recursion)."""
    for here, _, files in walk(top):
        for f in files:
            if f.endswith(suffix):
                yield Path(here, f)


def folders(top: str | os.PathLike) -> Iterator[Path]:
    """Every folder under `top`, `top` aside (not following links)."""
    for here, dirs, _ in walk(top):
        for d in dirs:
            yield Path(here, d)


def remove_tree(top: str | os.PathLike) -> None:
    """shutil.rmtree(top, ignore_errors=True) without recursion (or a file's or link's removal): files and
    links first, then the folders from the deepest up; what cannot be removed stays."""
    if os.path.islink(top) or not os.path.isdir(top):
        try:
            os.unlink(top)
        except OSError:
            pass
        return
    found = [os.fspath(top)]
    for here, dirs, files in walk(top):
        for name in files:
            try:
                os.unlink(os.path.join(here, name))
            except OSError:
                pass
        found.extend(os.path.join(here, d) for d in dirs)
    for d in reversed(found):
        try:
            os.unlink(d) if os.path.islink(d) else os.rmdir(d)
        except OSError:
            pass
