"""COCO data archive definition files (`coco_archive_definition.txt`), as cocopp 2.9.1 reads and writes them.

A definition file is a Python literal: a list of `(relative path, sha256, size in kB)` triples, one
per data set (a zipped experiment of one algorithm), the size optional; a `('_url_', URL)` pair may
name the archive's online location (cocopp's `archiving.read_definition_file` and `create`).
"""
from __future__ import annotations

import ast
import hashlib
import os
import re
import shutil
import time
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from . import ArchiveError

FILENAME = "coco_archive_definition.txt"
#: what `create` takes for a data set: the archive kinds cocopipe reads (`ingest.sources.ARCHIVE_SUFFIXES`)
DATA_SUFFIXES = (".tgz", ".tar.gz", ".tar", ".zip", ".tar.bz2", ".tar.xz")
_HEX64 = re.compile(r"[0-9a-f]{64}")
_YEAR = re.compile(r"(19|20)\d\d")


@dataclass(frozen=True)
class Entry:
    """One data set of an archive: its name (relative path), sha256 and size in kB (1000 bytes, floor)."""

    name: str
    sha256: str
    size_kb: int | None = None

    @property
    def year(self) -> int | None:
        """The year of the first folder named by one (`2015-GECCO/...` is 2015), else None."""
        for part in self.name.split("/")[:-1]:
            if _YEAR.match(part):
                return int(part[:4])
        return None

    def suite(self, archive_suite: str | None = None) -> str | None:
        """The suite: the archive's own (a per-suite archive), else the first folder of a name
        `suite/year/file` as the official root lays them out, else None."""
        if archive_suite:
            return archive_suite
        parts = self.name.split("/")
        return parts[0] if len(parts) > 2 and not _YEAR.match(parts[0]) else None


@dataclass
class Definition:
    """The data sets of an archive (in the file's order) and the URL the file names, if any."""

    entries: list[Entry]
    url: str | None = None


def _check_name(name: object, origin: str) -> str:
    """A data set name safe to join to a folder or URL: relative, '/'-separated, no '..'."""
    if not isinstance(name, str) or not name.strip():
        raise ArchiveError(f"{origin}: entry {name!r}: expected a relative file name")
    p = PurePosixPath(name)
    if name.startswith(("/", "\\")) or "\\" in name or ".." in p.parts or re.match(r"^[A-Za-z]:", name):
        raise ArchiveError(f"{origin}: entry {name!r}: not a relative path inside the archive")
    return name


def parse(text: str, origin: str) -> Definition:
    """Read a definition file's text; `origin` (its path or URL) names it in errors."""
    try:
        data = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError) as exc:
        line = getattr(exc, "lineno", None)
        raise ArchiveError(f"{origin}: not an archive definition file"
                           f"{f' (line {line})' if line else ''}: expected a list of (name, sha256, size) entries") from None
    if not isinstance(data, (list, tuple)):
        raise ArchiveError(f"{origin}: not an archive definition file: expected a list of (name, sha256, size) entries")
    entries, url, seen = [], None, set()
    for item in data:
        if not isinstance(item, (list, tuple)) or len(item) < 2:
            raise ArchiveError(f"{origin}: entry {item!r}: expected (name, sha256, size)")
        if item[0] == "_url_":
            url = str(item[1])
            continue
        name = _check_name(item[0], origin)
        sha = str(item[1]).lower()
        if not _HEX64.fullmatch(sha):
            raise ArchiveError(f"{origin}: entry {name!r}: {item[1]!r} is no sha256 (64 hexadecimal digits)")
        size = item[2] if len(item) > 2 else None
        if size is not None and (isinstance(size, bool) or not isinstance(size, (int, float))):
            raise ArchiveError(f"{origin}: entry {name!r}: size {size!r} is no number")
        if name in seen:
            raise ArchiveError(f"{origin}: entry {name!r} appears twice")
        seen.add(name)
        entries.append(Entry(name, sha, None if size is None else int(size)))
    return Definition(entries, url)


def dumps(entries: list[Entry]) -> str:
    """Definition file text, laid out as cocopp's `create` writes it (sorted, one entry a line)."""
    triples = sorted(((e.name, e.sha256, e.size_kb) for e in entries), key=lambda t: (t[0].split("/")[0], t))
    return "[" + ", ".join("\n" + repr(t) for t in triples) + "]"  # cocopp's text, also for names with "("


def file_sha256(path: str | os.PathLike, chunk: int = 1 << 20) -> str:
    """sha256 of a file, read in chunks."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            h.update(block)
    return h.hexdigest()


def data_files(folder: Path) -> list[Path]:
    """The data sets of a local archive folder: archives of COCO logs, hidden files and folders left out."""
    found = []
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for f in sorted(filenames):
            if not f.startswith(".") and f.lower().endswith(DATA_SUFFIXES):
                found.append(Path(dirpath) / f)
    return found


def create(folder: str | os.PathLike) -> tuple[Path, list[Entry]]:
    """Write `FOLDER/coco_archive_definition.txt` for the data sets in the folder (cocopp's `create`);
    an earlier, different definition file is kept beside it as `._coco_archive_definition.txt_<time>`.
    Returns the file written and its entries."""
    root = Path(folder)
    if not root.is_dir():
        raise ArchiveError(f"{root}: no such folder")
    entries = []
    for f in data_files(root):
        name = f.relative_to(root).as_posix()
        if "L)" in name:  # cocopp's rule: the file is written with "L)" removed (Python 2 longs)
            raise ArchiveError(f"{f}: a data set name may not contain 'L)'; rename the file")
        entries.append(Entry(name, file_sha256(f), f.stat().st_size // 1000))
    if not entries:
        raise ArchiveError(f"{root}: no data sets (.tgz, .tar.gz, .zip, ... archives) in this folder")
    text = dumps(entries)
    target = root / FILENAME
    if target.exists() and target.read_text(errors="replace") != text:
        shutil.copy2(target, root / f"._{FILENAME}_{time.strftime('%Y-%m-%dd%Hh%Mm%Ss')}")
    tmp = root / f".{FILENAME}.{os.getpid()}.tmp"
    tmp.write_text(text)
    os.replace(tmp, target)
    return target, entries
