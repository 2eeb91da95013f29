"""Sources of COCO logs: folders and .tgz/.tar.gz/.zip archives, read without unpacking."""
from __future__ import annotations

import bz2
import hashlib
import io
import lzma
import os
import stat
import struct
import tarfile
import zipfile
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from isal import igzip_lib, isal_zlib

from ..store.errors import StoreError
from ..store.location import is_uri
from ..store.remote import filesystem, timed_out
from ..store.store import LEGACY_MANIFEST as STORE_MANIFEST

ARCHIVE_SUFFIXES = (".tgz", ".tar.gz", ".tar", ".zip", ".tar.bz2", ".tar.xz")
LOG_SUFFIXES = (".info", ".dat", ".tdat", ".adat")  # .rdat/.mdat (restarts, recommendations) are not read
IOH_SUFFIXES = (".json", ".cdat", ".idat")  # IOHprofiler metadata (pipeline.ingest.ioh); data files of ioh < 0.3
TABLE_SUFFIXES = (".csv",)  # Nevergrad results, IOHanalyzer plain CSV (ingest.nevergrad, .purecsv)


class SourceError(RuntimeError):
    """A source cannot be read at all: its `path` and what is wrong (`reason`); str() joins them."""

    def __init__(self, path: str | os.PathLike, reason: str = ""):
        super().__init__(f"{path}: {reason}" if reason else str(path))
        self.path, self.reason = str(path), reason


@dataclass(frozen=True)
class Limits:
    """Caps on what an archive may expand to in memory: `ratio` times the archive's size (at least
    `floor` bytes), beyond which the archive is refused as a decompression bomb, and `member` bytes
    per log file, beyond which the file is left out; both are named. Real COCO archives expand 4 to
    10 times, small ones of many short files up to about 30 times."""

    ratio: float = 50.0
    member: int = 1 << 30
    floor: int = 256 << 20

    def expanded(self, size: int) -> int:
        """The most bytes an archive of `size` bytes may expand to."""
        return max(int(self.ratio * size), self.floor)


def is_archive(path: Path) -> bool:
    """True for the archive kinds we read directly."""
    return path.is_file() and path.name.lower().endswith(ARCHIVE_SUFFIXES)


def source_name(path: Path | str) -> str:
    """Name of a source: the archive's base name (its whole name when that is blank, as `.tgz`) or the
    folder's name (of an object-storage URI, its last part)."""
    name = path.rstrip("/").rsplit("/", 1)[-1] if isinstance(path, str) else path.name
    for suf in ARCHIVE_SUFFIXES:
        if name.lower().endswith(suf):
            return name[: -len(suf)] if name[: -len(suf)].strip() else name
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
    problems: list[tuple] = field(default_factory=list)  # (file, line, what, action) met while reading

    def info_files(self) -> list[str]:
        """The .info files, sorted."""
        return sorted(p for p in self.files if p.lower().endswith(".info"))

    def view(self, name: str) -> bytes | memoryview:
        """A file's bytes, without a copy where the source allows it."""
        files = self.files
        return files.view(name) if isinstance(files, ArchiveFiles) else files[name]


def run_key(source_id: str, algorithm: str | None = None) -> int:
    """The high bits of a source's run ids (run_id = key * 2^24 + trial number): the first 32 bits of its content
    hash, or, stored under an algorithm name given, of the hash of content and name (the same bytes stored under
    two names are two sets of runs, never one run id for two algorithms' trials)."""
    if not source_id:
        return 0
    if algorithm is None:
        return int(source_id[:8], 16)
    return int(hashlib.sha256(f"{source_id}\0{algorithm}".encode()).hexdigest()[:8], 16)


def _hidden(name: str) -> bool:
    """Whether a relative path lies in a hidden folder or names a hidden file (`.name`, macOS
    resource forks `._name` among them), which are not read, as cocopp's folder walk skips them."""
    return any(part[:1] == "." and part not in (".", "..") for part in name.replace("\\", "/").split("/"))


def _keep(name: str) -> bool:
    """A COCO, IOHprofiler, Nevergrad or plain CSV log file, neither hidden nor in a hidden folder."""
    return name.lower().endswith(LOG_SUFFIXES + IOH_SUFFIXES + TABLE_SUFFIXES) and not _hidden(name)


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
    """The regular files under a folder, sorted, hidden files and folders left out (see `_hidden`); the
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
            elif _keep(e.name):
                problems.append((rel(e.path), None, f"{kind}, not a regular file", "not opened, skipped"))
    return sorted(files), problems, sorted(odd)


def visible_files(root: Path) -> list[Path]:
    """The regular files under a folder, sorted, hidden files and folders left out (see `walk`), and so are
    cocopipe stores inside it (their manifest would change the folder's content at every ingest)."""
    return walk(root)[0]


_ZERO_BLOCK = bytes(512)
_FILE_TYPES = (b"0", b"\0", b"7")  # what tarfile counts as regular files, sparse files aside


def _decompressor(raw: bytes):
    """A factory of decompressors of one stream of the archive's kind, and the stream's magic bytes
    (None for a plain .tar)."""
    if raw[:2] == b"\x1f\x8b":  # ISA-L's gunzip (docs/internals.md)
        return (lambda: igzip_lib.IgzipDecompressor(flag=igzip_lib.DECOMP_GZIP)), b"\x1f\x8b"
    if raw[:3] == b"BZh":
        return bz2.BZ2Decompressor, b"BZh"
    if raw[:6] == b"\xfd7zXZ\x00":
        return lzma.LZMADecompressor, b"\xfd7zXZ\x00"
    return None, b""


def _decompress(raw: bytes, cap: int) -> tuple[bytes | bytearray, str]:
    """The tar stream of a .tgz/.tar.gz/.tar.bz2/.tar.xz archive (or of a plain .tar), by its first
    bytes, every compressed stream of it one after the other, but never more than `cap` + 1 bytes;
    and how it ended: "whole", "cut" (the compressed data stop early) or "capped" (beyond `cap`)."""
    make, magic = _decompressor(raw)
    if make is None:
        return raw, "whole"
    out: bytes | bytearray = b""
    data = raw
    while True:
        d = make()
        part = d.decompress(data, cap + 1 - len(out))
        if out:
            out += part
        else:
            out = part  # one stream, the usual case: no copy
        if len(out) > cap:
            return out, "capped"
        if not d.eof:
            return out, "cut"
        data = d.unused_data
        if not data.startswith(magic):  # the end, or trailing bytes that are no stream
            return out, "whole"
        if isinstance(out, bytes):
            out = bytearray(out)


def _octal(field: bytes) -> int:
    return int(field.strip(b" \0") or b"0", 8)


def _tar_members(tar: bytes | bytearray, max_member: int) -> tuple[ArchiveFiles, str | None, list] | None:
    """The regular files of a tar stream held in memory, by name, in archive order, as views into
    it (no copy): one pass over the 512-byte headers (ustar, GNU long names, pax paths). Also where
    the stream stops short (None: at its end-of-archive block; "": at a member's end; else the member
    it cuts) and the log files above `max_member` bytes, left out, as (name, size). None when the
    stream needs `tarfile` (a bad checksum, sparse files, sizes in base 256)."""
    files: dict[str, tuple[int, int]] = {}
    big: list[tuple[str, int]] = []
    pos, end = 0, len(tar)
    long_name: bytes | None = None
    pax: dict[str, str] = {}
    cut: str | None = ""
    last = ""  # the last member met
    try:
        while pos + 512 <= end:
            h = tar[pos:pos + 512]
            if h == _ZERO_BLOCK:
                cut = None
                break
            if h[124] & 0x80 or sum(h) - sum(h[148:156]) + 256 != _octal(h[148:156]):
                return None
            size = _octal(h[124:136])
            kind = h[156:157]
            start = pos + 512
            pos = start + ((size + 511) & ~511)
            if kind in (b"L", b"x") and start + size > end:
                cut = _after(last)
                break
            if kind == b"L":  # GNU long name of the next member
                long_name = tar[start:start + size].split(b"\0", 1)[0]
                continue
            if kind == b"x":  # pax extended header of the next member
                for rec in tar[start:start + size].decode("utf-8", "replace").split("\n"):
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
            path = pax.get("path") or (long_name or name).decode("utf-8", "replace")
            long_name, pax = None, {}
            last = path
            if start + size > end:
                cut = path
                break
            if kind in _FILE_TYPES and not path.endswith("/") and _keep(path):
                path = path.replace("\\", "/").removeprefix("./")
                if size > max_member:
                    big.append((path, size))
                else:
                    files[path] = (start, start + size)
        else:  # no end-of-archive block: a cut inside a header, or after the header of a pax path or long name
            if pos < end or long_name is not None or pax:
                cut = _after(last)
    except ValueError:
        return None
    return ArchiveFiles(tar, files), cut, big


def _after(member: str) -> str:
    """The member after `member` (whose header is cut), or the first."""
    return f"the member after {member}" if member else "the first member"


def _tarfile_members(tar: bytes | bytearray, max_member: int) -> tuple[dict[str, bytes], str | None, list]:
    """As `_tar_members`, read by `tarfile` (for the tar streams it needs), the files as copies."""
    files: dict[str, bytes] = {}
    big: list[tuple[str, int]] = []
    with tarfile.open(fileobj=io.BytesIO(tar), mode="r:", errors="replace") as tf:
        name = _after("")
        try:
            for m in tf:
                name = m.name
                if m.isfile() and _keep(m.name):
                    path = m.name.replace("\\", "/").removeprefix("./")
                    if m.size > max_member:
                        big.append((path, m.size))
                        continue
                    fh = tf.extractfile(m)
                    if fh is not None:
                        data = fh.read()
                        if len(data) < m.size:
                            return files, path, big
                        files[path] = data
                name = _after(m.name)
        except (tarfile.ReadError, EOFError):
            return files, name, big
    return files, None, big


#: how deep archives inside a .zip are opened: an archive inside the zip is read (ioh's `ioh_data.zip` zipped
#: again, IOHdata's MABBOB_GettingStarted.zip holding MABBOB_Baselines.zip), one inside that is named, not opened
MAX_NESTING = 1


class ArchiveBomb(SourceError):
    """An archive expanding beyond its cap (`member`: the member expanding then)."""

    member: str = ""


def _read_zip(path: Path, raw: bytes | None, limits: Limits, depth: int = 0, cap: int | None = None
              ) -> tuple[dict[str, bytes], list[tuple]]:
    """The COCO log files of a .zip archive and the problems met, each member read to its cap at
    most (the sizes a zip states may lie). A zip cut short has lost its central directory (at the
    end): its whole members are then read from their local headers (`_zip_local_members`). Archives
    inside it are read as folders named like them (`_read_inner`), their expansion counted in the zip's
    (`cap`: the bytes it may expand to, its own by default)."""
    files: dict[str, bytes] = {}
    problems: list[tuple] = []
    cap = cap if cap is not None else limits.expanded(len(raw) if raw is not None else path.stat().st_size)
    total = 0
    try:
        zf = zipfile.ZipFile(io.BytesIO(raw) if raw is not None else path)
    except zipfile.BadZipFile:
        raw = raw if raw is not None else path.read_bytes()
        if not raw.startswith(_ZIP_LOCAL):
            raise
        files, cut, big = _zip_local_members(raw, limits, cap, path)
        if not files and not big:
            raise SourceError(path, "corrupt or unreadable archive (it ends before any whole log file)") from None
        where = f"in {cut}" if cut else "after its last whole member"
        problems = [_too_big(name, size, limits) for name, size in big]
        problems.append((str(path), None, f"archive cut short {where} (no central directory)",
                         "the whole members before the cut read"))
        return files, problems
    with zf:
        for info in zf.infolist():
            name = info.filename.replace("\\", "/")
            if not info.is_dir() and name.lower().endswith(ARCHIVE_SUFFIXES) and not _hidden(name):
                total += _read_inner(path, zf, info, name, limits, depth, cap, total, files, problems)
                continue
            if info.is_dir() or not _keep(name):
                continue
            if info.file_size <= limits.member:
                try:
                    with zf.open(info) as fh:
                        data = fh.read(min(limits.member, cap - total) + 1)
                except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError) as exc:
                    problems.append((name, None, f"unreadable member of the archive ({exc})", "file skipped"))
                    continue
                if len(data) <= limits.member:
                    total += len(data)
                    if total > cap:
                        raise _bomb(path, name, cap, limits)
                    files[name] = data
                    continue
            problems.append(_too_big(name, max(info.file_size, limits.member + 1), limits))
    return files, problems


def _read_inner(path: Path, zf: zipfile.ZipFile, info: zipfile.ZipInfo, name: str, limits: Limits, depth: int,
                cap: int, used: int, files: dict[str, bytes], problems: list[tuple]) -> int:
    """Read the archive `name` inside the zip `path` into `files` as `name/<its path>` (its problems named
    alike) and return the bytes it took, within what the outer zip may still expand by (its `cap` less the
    bytes `used`). Deeper than `MAX_NESTING`, or unreadable: named in `problems`, not read."""
    room = cap - used
    if depth >= MAX_NESTING:
        problems.append((name, None, "archive inside an archive inside an archive", "not opened, skipped"))
        return 0
    try:
        with zf.open(info) as fh:
            data = fh.read(min(limits.member, room) + 1)
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError) as exc:
        problems.append((name, None, f"unreadable member of the archive ({exc})", "file skipped"))
        return 0
    if len(data) > room:
        raise _bomb(path, name, cap, limits)
    if len(data) > limits.member:
        problems.append(_too_big(name, len(data), limits))
        return 0
    try:  # its expansion bounded by what the outer zip may still take
        inner, found = _read_archive(Path(name), data, replace(limits, ratio=0.0, floor=room - len(data)),
                                     depth + 1)
    except ArchiveBomb as exc:
        raise _bomb(path, f"{name}/{exc.member}", cap, limits) from None
    except SourceError as exc:
        problems.append((name, None, f"unreadable archive inside the archive ({exc.reason})", "not read, skipped"))
        return 0
    for member in inner:
        files[f"{name}/{member}"] = inner[member]
    for file, line, what, action in found:
        problems.append((f"{name}/{file}" if file != name else name, line, what, action))
    return len(data) + sum(len(inner[m]) for m in inner)


_ZIP_LOCAL = b"PK\x03\x04"
_ZIP_HEADER = struct.Struct("<4sHHHHHIIIHH")  # a local file header: 30 bytes (APPNOTE 4.3.7)
_ZIP_DESCRIPTOR = b"PK\x07\x08"


def _zip_local_members(raw: bytes, limits: Limits, cap: int, path: Path
                       ) -> tuple[dict[str, bytes], str, list[tuple[str, int]]]:
    """The log files of a zip without its central directory, from the local file headers in archive
    order: the whole members (stored or deflated, their CRC checked), where the archive stops short
    ("": after a whole member; else the member the cut falls in) and the log files above the cap on
    one file, left out, as (name, size)."""
    files: dict[str, bytes] = {}
    big: list[tuple[str, int]] = []
    pos, total, last = 0, 0, ""
    while raw.startswith(_ZIP_LOCAL, pos):
        if pos + _ZIP_HEADER.size > len(raw):
            return files, _after(last), big
        _, _, flags, method, _, _, crc, csize, usize, nlen, xlen = _ZIP_HEADER.unpack_from(raw, pos)
        name = raw[pos + 30:pos + 30 + nlen].decode("utf-8" if flags & 0x800 else "cp437", "replace")
        name = name.replace("\\", "/")
        start = pos + 30 + nlen + xlen
        if start > len(raw) or method not in (0, 8) or flags & 0x1 or (flags & 0x8 and method == 0):
            return files, name, big  # cut in its header, or a member that cannot be read without its sizes
        if csize == 0xFFFFFFFF or usize == 0xFFFFFFFF:  # zip64: the sizes in the extra field 0x0001
            extra = raw[pos + 30 + nlen:start]
            while len(extra) >= 4:
                tag, n = struct.unpack_from("<HH", extra)
                if tag == 1 and n >= 16:
                    usize, csize = struct.unpack_from("<QQ", extra, 4)
                extra = extra[4 + n:]
        wanted = _keep(name)
        keep = wanted and (usize <= limits.member or flags & 0x8)
        if not keep and not flags & 0x8:  # left out: passed by its stated size, not inflated
            data, end = b"", (start + csize if start + csize <= len(raw) else None)
        else:  # at most `room` bytes kept; a member of unknown size inflated to its end, up to the cap
            room = min(limits.member, cap - total) + 1 if keep else 0
            data, end = _zip_member(raw, start, method, csize if not flags & 0x8 else None, room, cap)
        if end is None:
            return files, name, big
        if end < 0:
            raise _bomb(path, name, cap, limits)
        if flags & 0x8:  # the sizes and CRC follow the data, after an optional signature
            at = end + (4 if raw.startswith(_ZIP_DESCRIPTOR, end) else 0)
            if at + 12 > len(raw):
                return files, name, big
            crc = struct.unpack_from("<I", raw, at)[0]
            end = at + 12
        if wanted and (not keep or len(data) > limits.member):
            big.append((name, max(usize, limits.member + 1)))
        elif keep:
            total += len(data)
            if total > cap:
                raise _bomb(path, name, cap, limits)
            if zlib.crc32(data) != crc:
                return files, name, big
            if not name.endswith("/"):
                files[name] = data
        last, pos = name, end
    return files, "" if raw.startswith(b"PK\x01\x02", pos) or pos >= len(raw) else _after(last), big


def _zip_member(raw: bytes, start: int, method: int, csize: int | None, room: int, cap: int
                ) -> tuple[bytes, int | None]:
    """A member's data (its first `room` bytes expanded) and where its compressed data ends: None beyond
    the archive's end, -1 when it expands beyond `cap` bytes. `csize` None: unknown, found by inflating
    to the end of the stream (what lies beyond `room` is counted, not kept)."""
    if csize is not None and start + csize > len(raw):
        return b"", None
    if method == 0:
        return raw[start:start + min(csize, room)], start + csize
    inflate = zlib.decompressobj(-15)
    stream = memoryview(raw)[start:start + csize if csize is not None else len(raw)]
    data = inflate.decompress(stream, room) if room else b""
    expanded, tail = len(data), (inflate.unconsumed_tail if room else stream)
    while not inflate.eof:
        chunk = inflate.decompress(tail, 1 << 20)
        tail = inflate.unconsumed_tail
        expanded += len(chunk)
        if expanded > cap:
            return b"", -1
        if not chunk and not tail:
            break
    if not inflate.eof:
        return b"", None
    return data, start + len(stream) - len(inflate.unused_data)


def _bytes(n: int) -> str:
    return f"{n} bytes" if n < 1 << 20 else f"{n / (1 << 20):.0f} MiB"


def _bomb(path: Path, member: str, cap: int, limits: Limits) -> ArchiveBomb:
    """The error of an archive that expands beyond `cap` bytes, naming the member expanding then."""
    bomb = ArchiveBomb(path, f"{member or 'the member after the last one read'}: the archive expands beyond "
                             f"{_bytes(cap)} ({limits.ratio:g} times its size, at least {_bytes(limits.floor)}: "
                             "a decompression bomb?); raise the cap with --max-ratio")
    bomb.member = member
    return bomb


def _too_big(member: str, size: int, limits: Limits) -> tuple:
    """The problem of a log file above the cap on one file."""
    return (member, None, f"{size} bytes, above the cap of {_bytes(limits.member)} per log file (raise it with "
                          "--max-member)", "file skipped")


def _read_archive(path: Path, raw: bytes | None = None, limits: Limits | None = None, depth: int = 0
                  ) -> tuple[Mapping[str, bytes], list[tuple]]:
    """The COCO log files of an archive, by POSIX path (`raw`: the archive's bytes when read), and
    the problems met as (file, line, what, action): log files above the cap, the archive cut short;
    `depth`: how many archives hold it."""
    limits = limits or Limits()
    try:
        if path.name.lower().endswith(".zip"):
            return _read_zip(path, raw, limits, depth)
        raw = raw if raw is not None else path.read_bytes()
        cap = limits.expanded(len(raw))
        tar, ending = _decompress(raw, cap)
        found = _tar_members(tar, limits.member)
        files, cut, big = found if found is not None else _tarfile_members(tar, limits.member)
    except (tarfile.TarError, zipfile.BadZipFile, EOFError, OSError, zlib.error, isal_zlib.error, lzma.LZMAError) as exc:
        raise SourceError(path, f"corrupt or unreadable archive ({exc})") from exc
    if ending == "capped":
        raise _bomb(path, cut, cap, limits)
    if ending == "cut" and not files and not big:
        raise SourceError(path, "corrupt or unreadable archive (it ends before any whole log file)")
    problems = [_too_big(name, size, limits) for name, size in big]
    if cut is not None and (cut or ending == "cut"):
        where = f"in {cut}" if cut else "after its last whole member"
        problems.append((str(path), None, f"archive cut short {where}", "the whole members before the cut read"))
    return files, problems


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
        if _keep(f.name):
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
                files, problems = _read_archive(Path(name), raw, limits)
            except SourceError as exc:
                raise SourceError(uri, exc.reason) from None
            return Source(name=source_name(Path(name)), path=uri, files=files,
                          source_id=hashlib.sha256(raw).hexdigest()[:16], problems=problems)
        found = fs.get_file_info(pafs.FileSelector(where, recursive=True, allow_not_found=True))
        logs = sorted((f for f in found if f.type == pafs.FileType.File and _keep(f.base_name)
                       and not any(_hidden(part) for part in f.path[len(where):].split("/") if part)),
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
        files, problems = _read_archive(p, raw, limits)
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
                 and not any(_hidden(part) for part in f.path[len(where):].split("/") if part)]
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
