"""COCO data archive definition files (`coco_archive_definition.txt`), as cocopp 2.9.1 reads and writes them.

A definition file is a Python literal: a list of `(relative path, sha256, size in kB)` triples, one
per data set (a zipped experiment of one algorithm), the size optional; a `('_url_', URL)` pair may
name the archive's online location (cocopp's `archiving.read_definition_file` and `create`).
"""
from __future__ import annotations

import ast
import hashlib
import io
import math
import os
import re
import shutil
import stat
import time
import tokenize
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from . import ArchiveError

FILENAME = "coco_archive_definition.txt"
#: what `create` takes for a data set: the archive kinds cocopipe reads (`ingest.sources.ARCHIVE_SUFFIXES`)
DATA_SUFFIXES = (".tgz", ".tar.gz", ".tar", ".zip", ".tar.bz2", ".tar.xz")
_HEX64 = re.compile(r"[0-9a-f]{64}")
_YEAR = re.compile(r"(19|20)\d\d")
#: the largest definition file read (the official root's holds about 400 entries in 50 kB)
MAX_BYTES = 4_000_000
#: the longest entry of a definition file, in characters (an entry is parsed on its own)
MAX_ENTRY = 4096
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
#: Unicode categories refused in names: control, format (bidirectional marks, zero widths), line and
#: paragraph separators, surrogates: they end a line or hide what a name says
_HIDDEN = {"Cc", "Cf", "Zl", "Zp", "Cs"}


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


def name_problem(name: object) -> str | None:
    """Why `name` is no safe data set name (relative, '/'-separated, inside the archive), or None."""
    if not isinstance(name, str) or not name.strip():
        return "expected a relative file name"
    if any(unicodedata.category(c) in _HIDDEN for c in name):
        return "a control or format character (NUL, newline, a right-to-left mark, ...) in the name"
    if "\\" in name:
        return "a backslash in the name"
    if name.startswith("/"):
        return "an absolute path"
    if _SCHEME.match(name):
        return "a URL scheme or drive letter"
    parts = name.split("/")
    if any(p in ("", ".", "..") for p in parts):
        return "an empty, '.' or '..' path segment"
    return None


def is_definition(name: str) -> bool:
    """Whether a data set of this name would lie where a definition file does (any case: a file system may
    not tell them apart), its archive's or a sub-archive's sharing the cache."""
    return name.rsplit("/", 1)[-1].casefold() == FILENAME.casefold()


def _check_name(name: object, origin: str) -> str:
    """A data set name safe to join to a folder or URL; ArchiveError naming the entry otherwise."""
    why = name_problem(name)
    if why:
        raise ArchiveError(f"{origin}: entry {name!r}: not a relative path inside the archive ({why})")
    return name  # type: ignore[return-value]


def _not_definition(origin: str, line: int | None = None) -> ArchiveError:
    return ArchiveError(f"{origin}: not an archive definition file{f' (line {line})' if line else ''}: "
                        "expected a list of (name, sha256, size) entries")


def _items(text: str, origin: str) -> Iterator[tuple[int, object]]:
    """The items of the file's top-level list, each with its line, parsed one at a time (memory of the
    order of one entry, not of the whole file as `ast.literal_eval` of it takes)."""
    starts = [0]
    for m in re.finditer("\n", text):
        starts.append(m.end())

    def offset(pos: tuple[int, int]) -> int:
        return starts[pos[0] - 1] + pos[1]

    depth, opened, closed, begin = 0, False, False, None
    skip = (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.ENCODING, tokenize.ENDMARKER,
            tokenize.INDENT, tokenize.DEDENT)
    line = 1
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            line = tok.start[0]
            if tok.type in skip:
                continue
            if closed:
                raise _not_definition(origin, line)
            if depth == 0:
                if tok.string not in ("[", "("):
                    raise _not_definition(origin, line)
                depth, opened = 1, True
                continue
            if depth == 1 and tok.string in (",", "]", ")"):
                if begin is not None:
                    yield begin[0], ast.literal_eval(text[offset(begin):offset(tok.start)])
                    begin = None
                if tok.string != ",":
                    depth, closed = 0, True
                continue
            if begin is None:
                begin = tok.start
            elif offset(tok.end) - offset(begin) > MAX_ENTRY:
                raise ArchiveError(f"{origin}: entry at line {begin[0]}: longer than {MAX_ENTRY} characters")
            if tok.string in ("(", "[", "{"):
                depth += 1
            elif tok.string in (")", "]", "}"):
                depth -= 1
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError, tokenize.TokenError):
        raise _not_definition(origin, line) from None
    if not (opened and closed):
        raise _not_definition(origin, line)


def parse(text: str, origin: str) -> Definition:
    """Read a definition file's text; `origin` (its path or URL) names it in errors."""
    if len(text) > MAX_BYTES:
        raise ArchiveError(f"{origin}: larger than {MAX_BYTES / 1e6:g} MB: no archive definition file")
    entries, url, seen = [], None, set()
    for line, item in _items(text, origin):
        if not isinstance(item, (list, tuple)) or len(item) < 2:
            raise ArchiveError(f"{origin}: entry {item!r} (line {line}): expected (name, sha256, size)")
        if item[0] == "_url_":
            url = str(item[1])
            continue
        name = _check_name(item[0], origin)
        if is_definition(name):
            raise ArchiveError(f"{origin}: entry {name!r}: a definition file is no data set")
        sha = str(item[1]).lower()
        if not _HEX64.fullmatch(sha):
            raise ArchiveError(f"{origin}: entry {name!r}: {item[1]!r} is no sha256 (64 hexadecimal digits)")
        size = item[2] if len(item) > 2 else None
        if size is not None and (isinstance(size, bool) or not isinstance(size, (int, float))
                                 or not math.isfinite(size) or size < 0):
            raise ArchiveError(f"{origin}: entry {name!r}: size {size!r} is no number of kB")
        if name in seen:
            raise ArchiveError(f"{origin}: entry {name!r} appears twice")
        seen.add(name)
        entries.append(Entry(name, sha, None if size is None else int(size)))
    return Definition(entries, url)


def read_file(path: Path) -> str:
    """A local definition file's text, refused when larger than MAX_BYTES or no regular file."""
    try:
        with _open_regular(path) as fh:
            data = fh.read(MAX_BYTES + 1)
    except OSError as exc:
        raise ArchiveError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if len(data) > MAX_BYTES:
        raise ArchiveError(f"{path}: larger than {MAX_BYTES / 1e6:g} MB: no archive definition file")
    return data.decode("utf-8", errors="replace")


def dumps(entries: list[Entry]) -> str:
    """Definition file text, laid out as cocopp's `create` writes it (sorted, one entry a line)."""
    triples = sorted(((e.name, e.sha256, e.size_kb) for e in entries), key=lambda t: (t[0].split("/")[0], t))
    return "[" + ", ".join("\n" + repr(t) for t in triples) + "]"  # cocopp's text, also for names with "("


def _open_regular(path: str | os.PathLike):
    """`path` opened for reading in binary, without blocking; ArchiveError when it is no regular file
    (a FIFO, a device, a folder), which would block or never end."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise ArchiveError(f"{path}: not a regular file ({_kind(mode)})")
    return os.fdopen(fd, "rb")


def _kind(mode: int) -> str:
    return ("a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "a device"
            if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a folder" if stat.S_ISDIR(mode) else "not a file")


def file_sha256(path: str | os.PathLike, chunk: int = 1 << 20) -> str:
    """sha256 of a regular file, read in chunks (ArchiveError for a FIFO, device or folder)."""
    h = hashlib.sha256()
    with _open_regular(path) as fh:
        while block := fh.read(chunk):
            h.update(block)
    return h.hexdigest()


#: folders nested deeper than this below an archive folder are named, not searched (as ingest does)
MAX_DEPTH = 64


def data_files(folder: Path, too_deep: Callable[[Path], None]) -> list[Path]:
    """The data sets of a local archive folder: archives of COCO logs, hidden files and folders left out;
    a folder nested deeper than MAX_DEPTH is shown to `too_deep` (a walk without recursion, as os.walk's
    in Python 3.11 is not)."""
    found: list[Path] = []
    stack = [(Path(folder), 0)]
    while stack:
        here, depth = stack.pop()
        with os.scandir(here) as it:
            entries = sorted(it, key=lambda e: e.name)
        below = []
        for e in entries:
            if e.name.startswith("."):
                continue
            try:
                is_dir, is_link = e.is_dir(), e.is_symlink()
            except OSError:
                is_dir, is_link = False, False
            if is_dir:
                if is_link:  # as os.walk: a link to a folder is not followed
                    continue
                if depth + 1 > MAX_DEPTH:
                    too_deep(Path(e.path))
                else:
                    below.append((Path(e.path), depth + 1))
            elif e.name.lower().endswith(DATA_SUFFIXES):
                found.append(Path(e.path))
        stack.extend(reversed(below))
    return found


def create(folder: str | os.PathLike, on_skip: Callable[[Path, str], None] | None = None) -> tuple[Path, list[Entry]]:
    """Write `FOLDER/coco_archive_definition.txt` for the data sets in the folder (cocopp's `create`);
    an earlier, different definition file is kept beside it as `._coco_archive_definition.txt_<time>`.
    A name that is no regular file (a FIFO, a device, a broken link) or no safe name is left out and
    shown to `on_skip(path, why)` (without it, an ArchiveError naming it). Returns the file written
    and its entries."""
    root = Path(folder)
    if not root.is_dir():
        raise ArchiveError(f"{root}: no such folder")
    entries = []

    def too_deep(path: Path) -> None:
        why = f"folder nested deeper than {MAX_DEPTH} levels"
        if on_skip is None:
            raise ArchiveError(f"{path}: {why}; no definition file written")
        on_skip(path, f"{why} (not searched)")

    for f in data_files(root, too_deep):
        name = f.relative_to(root).as_posix()
        if "L)" in name:  # cocopp's rule: the file is written with "L)" removed (Python 2 longs)
            raise ArchiveError(f"{f}: a data set name may not contain 'L)'; rename the file")
        why = name_problem(name)
        try:
            if why:
                raise ArchiveError(f"{f}: {why}")
            with _open_regular(f) as fh:
                size = os.fstat(fh.fileno()).st_size
            entries.append(Entry(name, file_sha256(f), size // 1000))
        except (ArchiveError, OSError) as exc:
            why = str(exc).removeprefix(f"{f}: ") if isinstance(exc, ArchiveError) else exc.strerror or str(exc)
            if on_skip is None:
                raise ArchiveError(f"{f}: {why}; no definition file written") from None
            on_skip(f, why)
    if not entries:
        raise ArchiveError(f"{root}: no data sets (.tgz, .tar.gz, .zip, ... archives) in this folder")
    text = dumps(entries)
    target = root / FILENAME
    try:
        if target.is_file() and read_file(target) != text:  # a FIFO there is replaced, never read
            shutil.copy2(target, root / f"._{FILENAME}_{time.strftime('%Y-%m-%dd%Hh%Mm%Ss')}")
        tmp = root / f".{FILENAME}.{os.getpid()}.tmp"
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, target)
    except OSError as exc:
        raise ArchiveError(f"{exc.filename or target}: cannot write: {exc.strerror or exc}") from None
    return target, entries
