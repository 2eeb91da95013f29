"""The archives of COCO logs, read in memory without unpacking, by container kind: compressed tar streams
(gzip by ISA-L, bzip2, xz; `decompress`), tar members from their 512-byte headers (`tarfile` for the streams
that need it), zip members from the central directory or, when it is cut off, from the local headers; an
archive inside a .zip read as a folder of it. Every kind is bounded by `sources.Limits` (a cap on one log
file, on the expansion: decompression bombs are named)."""
from __future__ import annotations

import bz2
import io
import lzma
import struct
import tarfile
import zipfile
import zlib
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from isal import igzip_lib, isal_zlib

from .source import ARCHIVE_SUFFIXES, ArchiveFiles, Limits, SourceError, is_hidden, is_log_file

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
            if kind in _FILE_TYPES and not path.endswith("/") and is_log_file(path):
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
                if m.isfile() and is_log_file(m.name):
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
            if not info.is_dir() and name.lower().endswith(ARCHIVE_SUFFIXES) and not is_hidden(name):
                total += _read_inner(path, zf, info, name, limits, depth, cap, total, files, problems)
                continue
            if info.is_dir() or not is_log_file(name):
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
        inner, found = read_archive(Path(name), data, replace(limits, ratio=0.0, floor=room - len(data)),
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
        wanted = is_log_file(name)
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


def read_archive(path: Path, raw: bytes | None = None, limits: Limits | None = None, depth: int = 0
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
