"""Sources of COCO logs: folders and .tgz/.tar.gz/.zip archives, read without unpacking."""
from __future__ import annotations

import bz2
import hashlib
import io
import lzma
import os
import tarfile
import zipfile
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from isal import igzip, isal_zlib

ARCHIVE_SUFFIXES = (".tgz", ".tar.gz", ".tar", ".zip", ".tar.bz2", ".tar.xz")
LOG_SUFFIXES = (".info", ".dat", ".tdat", ".adat")  # .rdat/.mdat (restarts, recommendations) are not read
IOH_SUFFIXES = (".json",)  # IOHprofiler metadata (pipeline.ingest.ioh); its data files are .dat


class SourceError(RuntimeError):
    """A source cannot be read at all."""


def is_archive(path: Path) -> bool:
    """True for the archive kinds we read directly."""
    return path.is_file() and path.name.lower().endswith(ARCHIVE_SUFFIXES)


def source_name(path: Path) -> str:
    """Name of a source: the archive's base name or the folder's name."""
    name = path.name
    for suf in ARCHIVE_SUFFIXES:
        if name.lower().endswith(suf):
            return name[: -len(suf)]
    return name


class ArchiveFiles(Mapping[str, bytes]):
    """The files of an unpacked archive (or of a folder) by path: views into one buffer holding them
    all, handed out as bytes (a copy) by `[]`, or as they are by `view` (no copy, for readers that
    take any bytes-like); `buffer` is the tar stream (or the folder's files one after the other) and
    `spans` where each file lies in it (start, stop)."""

    def __init__(self, buffer: bytes | bytearray, spans: dict[str, tuple[int, int]]):
        self.buffer = buffer
        self.spans = spans

    def __getitem__(self, name: str) -> bytes:
        start, stop = self.spans[name]
        return self.buffer[start:stop]

    def __contains__(self, name: object) -> bool:
        return name in self.spans

    def __iter__(self) -> Iterator[str]:
        return iter(self.spans)

    def __len__(self) -> int:
        return len(self.spans)

    def view(self, name: str) -> memoryview:
        """The file's bytes without a copy."""
        start, stop = self.spans[name]
        return memoryview(self.buffer)[start:stop]


@dataclass
class Source:
    """The log files of one source, in memory, by POSIX path relative to the source root."""

    name: str
    path: str
    files: Mapping[str, bytes] = field(default_factory=dict)
    source_id: str = ""

    def info_files(self) -> list[str]:
        """The .info files, sorted."""
        return sorted(p for p in self.files if p.lower().endswith(".info"))

    def view(self, name: str) -> bytes | memoryview:
        """A file's bytes, without a copy where the source allows it."""
        files = self.files
        return files.view(name) if isinstance(files, ArchiveFiles) else files[name]


def _keep(name: str) -> bool:
    """A COCO log file, not a macOS resource fork (`._name`)."""
    return name.lower().endswith(LOG_SUFFIXES + IOH_SUFFIXES) and not name.rstrip("/").rpartition("/")[2].startswith("._")


_ZERO_BLOCK = bytes(512)
_FILE_TYPES = (b"0", b"\0", b"7")  # what tarfile counts as regular files, sparse files aside


def _decompress(raw: bytes) -> bytes:
    """The tar stream of a .tgz/.tar.gz/.tar.bz2/.tar.xz archive (or of a plain .tar), by its first bytes."""
    if raw[:2] == b"\x1f\x8b":
        return igzip.decompress(raw)  # ISA-L: twice zlib's speed; every member of the stream
    if raw[:3] == b"BZh":
        return bz2.decompress(raw)
    if raw[:6] == b"\xfd7zXZ\x00":
        return lzma.decompress(raw)
    return raw


def _octal(field: bytes) -> int:
    return int(field.strip(b" \0") or b"0", 8)


def _tar_members(tar: bytes) -> ArchiveFiles | None:
    """The regular files of a tar stream held in memory, by name, in archive order, as views into
    it (no copy): one pass over the 512-byte headers (ustar, GNU long names, pax paths). None when
    the stream needs `tarfile` (a bad checksum, sparse files, sizes in base 256, truncated data, no
    end-of-archive block)."""
    files: dict[str, tuple[int, int]] = {}
    pos, end = 0, len(tar)
    long_name: bytes | None = None
    pax: dict[str, str] = {}
    ended = False
    try:
        while pos + 512 <= end:
            h = tar[pos:pos + 512]
            if h == _ZERO_BLOCK:
                ended = True
                break
            if h[124] & 0x80 or sum(h) - sum(h[148:156]) + 256 != _octal(h[148:156]):
                return None
            size = _octal(h[124:136])
            kind = h[156:157]
            start = pos + 512
            pos = start + ((size + 511) & ~511)
            if start + size > end:
                return None
            if kind == b"L":  # GNU long name of the next member
                long_name = tar[start:start + size].split(b"\0", 1)[0]
                continue
            if kind == b"x":  # pax extended header of the next member
                for rec in tar[start:start + size].decode("utf-8", "surrogateescape").split("\n"):
                    key, _, value = rec.partition(" ")[2].partition("=")
                    if key:
                        pax[key] = value
                continue
            if kind in (b"g", b"K"):
                continue
            if kind == b"S" or "size" in pax:
                return None
            name = h[:100].split(b"\0", 1)[0]
            if h[257:265] == b"ustar\x0000" and h[345]:
                name = h[345:500].split(b"\0", 1)[0] + b"/" + name
            path = pax.get("path") or (long_name or name).decode("utf-8", "surrogateescape")
            long_name, pax = None, {}
            if kind in _FILE_TYPES and not path.endswith("/") and _keep(path):
                files[path.replace("\\", "/").removeprefix("./")] = (start, start + size)
    except ValueError:
        return None
    return ArchiveFiles(tar, files) if ended else None


def _read_archive(path: Path, raw: bytes | None = None) -> Mapping[str, bytes]:
    """The COCO log files of an archive, by POSIX path; `raw` are the archive's bytes when read."""
    files: dict[str, bytes] = {}
    try:
        if path.name.lower().endswith(".zip"):
            with zipfile.ZipFile(io.BytesIO(raw) if raw is not None else path) as zf:
                for info in zf.infolist():
                    if not info.is_dir() and _keep(info.filename):
                        files[info.filename.replace("\\", "/")] = zf.read(info)
            return files
        raw = raw if raw is not None else path.read_bytes()
        tar = _decompress(raw)
        fast = _tar_members(tar)
        if fast is not None:
            return fast
        with tarfile.open(fileobj=io.BytesIO(tar), mode="r:") as tf:
            for m in tf:
                if m.isfile() and _keep(m.name):
                    fh = tf.extractfile(m)
                    if fh is not None:
                        files[m.name.replace("\\", "/").removeprefix("./")] = fh.read()
    except (tarfile.TarError, zipfile.BadZipFile, EOFError, OSError, zlib.error, isal_zlib.error, lzma.LZMAError) as exc:
        raise SourceError(f"{path}: corrupt or unreadable archive ({exc})") from exc
    return files


#: bytes left after each file of a folder read into one buffer (readers may look a few bytes past a file's end)
_PAD = 16


def _read_folder(root: Path) -> ArchiveFiles:
    """The COCO log files of a folder (archives inside excluded), read one after the other into one
    buffer, as an archive's are held: no per-file bytes to join again for parsing."""
    found = [(f.relative_to(root).as_posix(), f) for f in sorted(root.rglob("*")) if f.is_file() and _keep(f.name)]
    sizes = [f.stat().st_size for _, f in found]
    buf = bytearray(sum(sizes) + _PAD * len(sizes))
    view, spans, pos = memoryview(buf), {}, 0
    for (name, f), size in zip(found, sizes):
        with open(f, "rb") as fh:
            n = fh.readinto(view[pos:pos + size])  # a file that shrank since: what it holds now
        spans[name] = (pos, pos + n)
        pos += size + _PAD
    return ArchiveFiles(buf, spans)


def read_source(path: str | os.PathLike) -> Source:
    """Read every COCO log file of a folder (archives inside excluded) or an archive."""
    p = Path(path)
    if not p.exists():
        raise SourceError(f"{p}: no such file or folder")
    if p.is_dir():
        files = _read_folder(p)
        h = hashlib.sha256()
        for name in sorted(files):
            h.update(name.encode())
            h.update(b"\0")
            h.update(hashlib.sha256(files.view(name)).digest())
    elif is_archive(p):
        raw = p.read_bytes()
        files = _read_archive(p, raw)
        h = hashlib.sha256(raw)  # the archive's bytes identify its content
    else:
        raise SourceError(f"{p}: unknown format (expected a folder or a .tgz, .tar.gz, .zip archive)")
    return Source(name=source_name(p), path=str(p.resolve()), files=files, source_id=h.hexdigest()[:16])


def expand(paths: list[str | os.PathLike]) -> list[Path]:
    """Sources named by the arguments: archives, and folders holding .info (or IOHprofiler .json) files; archives
    found inside folders are sources of their own."""
    out: list[Path] = []
    for path in paths:
        p = Path(path)
        if not p.exists():
            out.append(p)  # reported when read
        elif p.is_dir():
            if any(f.suffix.lower() == ".info" or f.name.lower().startswith("iohprofiler_") and f.suffix.lower() == ".json"
                   for f in p.rglob("*.*")):
                out.append(p)
            out.extend(sorted(f for f in p.rglob("*") if is_archive(f)))
            if not any(q == p or q.is_relative_to(p) for q in out):
                out.append(p)  # an empty folder: reported when parsed
        else:
            out.append(p)
    return out
