"""Sources of COCO logs: folders, object-store prefixes and archives (`pipeline.ingest.archives`: .tgz, .tar.gz,
.tar.bz2, .tar.xz, .tar and .zip, read without unpacking), walked and read into memory as `Source`s."""
from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

from ..store.errors import StoreError
from ..store.location import is_uri
from ..store.remote import filesystem, timed_out
from ..store.store import LEGACY_MANIFEST as STORE_MANIFEST
from . import archives
from .source import (ARCHIVE_SUFFIXES, IOH_SUFFIXES, LOG_SUFFIXES, TABLE_SUFFIXES, ArchiveFiles, Limits, Source,  # noqa: F401
                     SourceError, is_archive, is_hidden, is_log_file, run_key, source_name)


def _text(name: str) -> str:
    """A file name as valid text: bytes that are not UTF-8 (kept as surrogates) become U+FFFD, as the
    .info files naming them are decoded."""
    return name if name.isascii() else name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


#: deepest folder searched below a folder given (deeper ones are named and left out, not walked)
MAX_DEPTH = 64

_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISDIR, "a folder"))


def file_kind(path: str | os.PathLike) -> str | None:
    """What a path is when it is no regular file (`a FIFO`, `a socket`, ..., `a broken link`); None for
    a regular file (links followed)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "a broken link" if os.path.islink(path) else "gone"
    except OSError as exc:
        return f"unreadable ({exc.strerror})"
    return None if stat.S_ISREG(mode) else next((k for test, k in _KINDS if test(mode)), "not a regular file")


def walk(root: Path) -> tuple[list[Path], list[tuple], list[Path]]:
    """The regular files under a folder, sorted, hidden files and folders left out (see `is_hidden`); the
    problems met, as (file, line, what, action) relative to `root`: log files that are no regular file
    (FIFOs, devices, sockets: never opened), folders that cannot be listed or lie deeper than `MAX_DEPTH`
    levels; and the entries named like archives that are no regular file (sources of their own, which
    fail to be read). Walked with a stack, not recursively; links to folders are named and not followed,
    cocopipe stores inside the folder passed over."""
    files: list[Path] = []
    problems: list[tuple] = []
    odd: list[Path] = []
    stack = [(root, 0)]

    def rel(p: str) -> str:
        return _text(Path(p).relative_to(root).as_posix())

    while stack:
        folder, depth = stack.pop()
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            problems.append((rel(folder) if folder != root else str(root), None,
                             f"folder cannot be listed ({exc.strerror})", "folder skipped"))
            continue
        for e in entries:
            if e.name.startswith("."):
                continue
            try:
                is_dir = e.is_dir()
                is_link = e.is_symlink()
            except OSError:
                is_dir, is_link = False, False
            if is_dir:
                if is_link:  # never followed (a loop, logs counted twice): named
                    problems.append((rel(e.path), None, "a link to a folder", "not followed; give its target "
                                     "as a source of its own"))
                    continue
                if os.path.isdir(os.path.join(e.path, "sources", "_delta_log")) or \
                        os.path.isfile(os.path.join(e.path, STORE_MANIFEST)):  # a store: not its logs
                    continue
                if depth + 1 > MAX_DEPTH:
                    problems.append((rel(e.path), None, f"folder nested deeper than {MAX_DEPTH} levels",
                                     "not searched"))
                else:
                    stack.append((Path(e.path), depth + 1))
                continue
            kind = file_kind(e.path)
            if kind is None:
                files.append(Path(e.path))
            elif e.name.lower().endswith(ARCHIVE_SUFFIXES):
                odd.append(Path(e.path))
            elif is_log_file(e.name):
                problems.append((rel(e.path), None, f"{kind}, not a regular file", "not opened, skipped"))
    return sorted(files), problems, sorted(odd)


def visible_files(root: Path) -> list[Path]:
    """The regular files under a folder, sorted, hidden files and folders left out (see `walk`), and so are
    cocopipe stores inside it (their manifest would change the folder's content at every ingest)."""
    return walk(root)[0]


#: bytes left after each file of a folder read into one buffer (readers may look a few bytes past a file's end)
_PAD = 16


def _read_folder(root: Path) -> tuple[ArchiveFiles, list[tuple]]:
    """The COCO log files of a folder (archives inside, hidden files and folders excluded), read one
    after the other into one buffer, as an archive's are held: no per-file bytes to join again for
    parsing; and the problems met (see `walk`; files that cannot be opened, or are no regular file
    when opened: never blocking on a FIFO put in place of a file)."""
    regular, problems, _ = walk(root)
    found, sizes = [], []
    for f in regular:
        if is_log_file(f.name):
            name = _text(f.relative_to(root).as_posix())
            try:
                sizes.append(f.stat().st_size)
            except OSError as exc:
                problems.append((name, None, f"unreadable file ({exc.strerror})", "file skipped"))
                continue
            found.append((name, f))
    buf = bytearray(sum(sizes) + _PAD * len(sizes))
    view, spans, pos = memoryview(buf), {}, 0
    for (name, f), size in zip(found, sizes):
        try:
            fd = os.open(f, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        except OSError as exc:
            problems.append((name, None, f"unreadable file ({exc.strerror})", "file skipped"))
            continue
        with open(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                problems.append((name, None, "not a regular file (any more)", "not read, skipped"))
                continue
            n = fh.readinto(view[pos:pos + size])  # a file that shrank since: what it holds now
        spans[name] = (pos, pos + n)
        pos += size + _PAD
    return ArchiveFiles(buf, spans), problems


def _object_store(uri: str):
    """(file system, path) of an object-storage URI (pyarrow, with the time limits of `store.remote`)."""
    try:
        return filesystem(uri)
    except StoreError as exc:  # no credentials
        raise SourceError(uri, str(exc).removeprefix(f"{uri}: ")) from None
    except Exception as exc:  # noqa: BLE001 - an unknown scheme, a malformed URI
        raise SourceError(uri, f"cannot read from there ({' '.join(str(exc).split())[:200]})") from None


def _read_uri(uri: str, limits: Limits | None) -> Source:
    """A source on object storage: an archive object, or the log files under a prefix (a folder)."""
    import pyarrow.fs as pafs

    if uri in _UNANSWERED:  # its server did not answer `expand` already: not asked again, however long it takes
        raise SourceError(uri, f"cannot read it ({_UNANSWERED.pop(uri)})")
    fs, where = _object_store(uri)
    limits = limits or Limits()
    name = uri.rstrip("/").rsplit("/", 1)[-1]
    try:
        info = fs.get_file_info(where)
        if info.type == pafs.FileType.File:
            if not name.lower().endswith(ARCHIVE_SUFFIXES):
                raise SourceError(uri, "unknown format (expected a .tgz, .tar.gz, .zip archive or a prefix of log files)")
            with fs.open_input_stream(where) as fh:
                raw = fh.read()
            try:
                files, problems = archives.read_archive(Path(name), raw, limits)
            except SourceError as exc:
                raise SourceError(uri, exc.reason) from None
            return Source(name=source_name(Path(name)), path=uri, files=files,
                          source_id=hashlib.sha256(raw).hexdigest()[:16], problems=problems)
        found = fs.get_file_info(pafs.FileSelector(where, recursive=True, allow_not_found=True))
        logs = sorted((f for f in found if f.type == pafs.FileType.File and is_log_file(f.base_name)
                       and not any(is_hidden(part) for part in f.path[len(where):].split("/") if part)),
                      key=lambda f: f.path)
        if info.type == pafs.FileType.NotFound and not logs:
            raise SourceError(uri, "no such object or prefix")
        files: dict[str, bytes] = {}
        h = hashlib.sha256()
        for f in logs:
            rel = _text(f.path[len(where):].lstrip("/"))
            with fs.open_input_stream(f.path) as fh:
                files[rel] = fh.read()
            h.update(rel.encode())
            h.update(b"\0")
            h.update(hashlib.sha256(files[rel]).digest())
    except OSError as exc:
        raise SourceError(uri, f"cannot read it ({timed_out(exc) or ' '.join(str(exc).split())[:200]})") from None
    return Source(name=name, path=uri.rstrip("/"), files=files, source_id=h.hexdigest()[:16])


def read_source(path: str | os.PathLike, limits: Limits | None = None) -> Source:
    """Read every COCO log file of a folder (archives inside excluded) or an archive (within
    `limits`), locally or on object storage (`s3://bucket/logs/X.tgz`, a prefix of log files); the
    problems met on the way are the source's `problems`."""
    if is_uri(path):
        return _read_uri(str(path), limits)
    p = Path(path)
    if not p.exists():
        raise SourceError(p, "no such file or folder")
    kind = file_kind(p)
    if kind is not None and not p.is_dir():
        raise SourceError(p, f"{kind}, neither a folder nor a regular file (not opened)")
    problems: list[tuple] = []
    if p.is_dir():
        files, problems = _read_folder(p)
        h = hashlib.sha256()
        for name in sorted(files):
            h.update(name.encode())
            h.update(b"\0")
            h.update(hashlib.sha256(files.view(name)).digest())
    elif is_archive(p):
        raw = p.read_bytes()
        files, problems = archives.read_archive(p, raw, limits)
        h = hashlib.sha256(raw)  # the archive's bytes identify its content
    else:
        raise SourceError(p, "unknown format (expected a folder or a .tgz, .tar.gz, .zip archive)")
    return Source(name=source_name(p), path=str(p.resolve()), files=files, source_id=h.hexdigest()[:16],
                  problems=problems)


#: the object-storage URIs whose server did not answer within the time limits while `expand` looked at them
_UNANSWERED: dict[str, str] = {}


def _expand_uri(uri: str) -> list[str]:
    """The sources under an object-storage URI: the archives under a prefix, each a source of its own, and
    the prefix itself where log files lie beside them; an archive object; the URI itself otherwise (read
    and reported then)."""
    import pyarrow.fs as pafs

    if uri in _UNANSWERED:
        return [uri]
    fs, where = _object_store(uri)
    try:
        if fs.get_file_info(where).type == pafs.FileType.File:
            return [uri]
        found = [f for f in fs.get_file_info(pafs.FileSelector(where, recursive=True, allow_not_found=True))
                 if f.type == pafs.FileType.File
                 and not any(is_hidden(part) for part in f.path[len(where):].split("/") if part)]
    except OSError as exc:  # read, and reported, as the source it names
        if said := timed_out(exc):
            _UNANSWERED[uri] = said
        return [uri]
    base = uri.rstrip("/")
    archives = sorted(f"{base}/{f.path[len(where):].lstrip('/')}" for f in found
                      if f.base_name.lower().endswith(ARCHIVE_SUFFIXES))
    logs = any(f.base_name.lower().endswith(".info") or f.base_name.lower().endswith(".json") for f in found)
    return ([base] if logs or not archives else []) + archives


def expand(paths: list[str | os.PathLike]) -> list[Path | str]:
    """Sources named by the arguments, each once (the same resolved path named again, or found again
    in a folder named, is left out): archives, and folders holding .info (or IOHprofiler .json) files; archives found
    inside folders are sources of their own. Hidden files and folders are not searched. Object-storage URIs
    (`s3://bucket/logs/`) are expanded the same way and stay URIs."""
    out: list[Path | str] = []
    seen: set = set()

    def add(p: Path | str) -> None:
        key = p if isinstance(p, str) else p.resolve()
        if key not in seen:
            seen.add(key)
            out.append(p)

    for path in paths:
        if is_uri(path):
            for uri in _expand_uri(str(path)):
                add(uri)
            continue
        p = Path(path)
        if not p.exists():
            add(p)  # reported when read
        elif p.is_dir():
            found, _, odd = walk(p)
            if any(f.suffix.lower() == ".info" or f.name.lower().startswith("iohprofiler_") and f.suffix.lower() == ".json"
                   for f in found):
                add(p)
            for f in found:
                if is_archive(f):
                    add(f)
            for f in odd:  # named like an archive, but a FIFO, a device...: a source that is not read
                add(f)
            if not any(isinstance(q, Path) and (q == p or q.is_relative_to(p)) for q in out):
                add(p)  # an empty folder: reported when parsed
        else:
            add(p)
    return out


