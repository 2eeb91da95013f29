"""Sources of COCO logs: folders and .tgz/.tar.gz/.zip archives, read without unpacking."""
from __future__ import annotations

import hashlib
import os
import tarfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

ARCHIVE_SUFFIXES = (".tgz", ".tar.gz", ".tar", ".zip", ".tar.bz2", ".tar.xz")
LOG_SUFFIXES = (".info", ".dat", ".tdat", ".adat")  # .rdat/.mdat (restarts, recommendations) are not read


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


@dataclass
class Source:
    """The log files of one source, in memory, by POSIX path relative to the source root."""

    name: str
    path: str
    files: dict[str, bytes] = field(default_factory=dict)
    source_id: str = ""

    def info_files(self) -> list[str]:
        """The .info files, sorted."""
        return sorted(p for p in self.files if p.lower().endswith(".info"))


def _keep(name: str) -> bool:
    base = PurePosixPath(name).name
    return name.lower().endswith(LOG_SUFFIXES) and not base.startswith("._")


def _read_archive(path: Path) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    try:
        if path.name.lower().endswith(".zip"):
            with zipfile.ZipFile(path) as zf:
                for info in zf.infolist():
                    if not info.is_dir() and _keep(info.filename):
                        files[info.filename.replace("\\", "/")] = zf.read(info)
        else:
            with tarfile.open(path, "r:*") as tf:
                for m in tf:
                    if m.isfile() and _keep(m.name):
                        fh = tf.extractfile(m)
                        if fh is not None:
                            files[m.name.replace("\\", "/").removeprefix("./")] = fh.read()
    except (tarfile.TarError, zipfile.BadZipFile, EOFError, OSError) as exc:
        raise SourceError(f"{path}: corrupt or unreadable archive ({exc})") from exc
    return files


def read_source(path: str | os.PathLike) -> Source:
    """Read every COCO log file of a folder (archives inside excluded) or an archive."""
    p = Path(path)
    if not p.exists():
        raise SourceError(f"{p}: no such file or folder")
    if p.is_dir():
        files = {}
        for f in sorted(p.rglob("*")):
            if f.is_file() and _keep(f.name):
                files[f.relative_to(p).as_posix()] = f.read_bytes()
        h = hashlib.sha256()
        for name in sorted(files):
            h.update(name.encode())
            h.update(b"\0")
            h.update(hashlib.sha256(files[name]).digest())
    elif is_archive(p):
        files = _read_archive(p)
        h = hashlib.sha256(p.read_bytes())  # the archive's bytes identify its content
    else:
        raise SourceError(f"{p}: unknown format (expected a folder or a .tgz, .tar.gz, .zip archive)")
    return Source(name=source_name(p), path=str(p.resolve()), files=files, source_id=h.hexdigest()[:16])


def expand(paths: list[str | os.PathLike]) -> list[Path]:
    """Sources named by the arguments: archives, and folders holding .info files; archives
    found inside folders are sources of their own."""
    out: list[Path] = []
    for path in paths:
        p = Path(path)
        if not p.exists():
            out.append(p)  # reported when read
        elif p.is_dir():
            if any(f.suffix.lower() == ".info" for f in p.rglob("*.info")):
                out.append(p)
            out.extend(sorted(f for f in p.rglob("*") if is_archive(f)))
            if not any(q == p or q.is_relative_to(p) for q in out):
                out.append(p)  # an empty folder: reported when parsed
        else:
            out.append(p)
    return out
