"""A source of logs in memory (`Source`: its files by path, its content hash), the kinds of file read, the
bounds on reading them, and the names sources and archives share (`sources` walks and reads them, `archives`
unpacks them)."""
from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

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


def is_hidden(name: str) -> bool:
    """Whether a relative path lies in a hidden folder or names a hidden file (`.name`, macOS
    resource forks `._name` among them), which are not read, as cocopp's folder walk skips them."""
    return any(part[:1] == "." and part not in (".", "..") for part in name.replace("\\", "/").split("/"))


def is_log_file(name: str) -> bool:
    """A COCO, IOHprofiler, Nevergrad or plain CSV log file, neither hidden nor in a hidden folder."""
    return name.lower().endswith(LOG_SUFFIXES + IOH_SUFFIXES + TABLE_SUFFIXES) and not is_hidden(name)
