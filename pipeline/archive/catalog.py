"""An archive of COCO data sets: where it is (a URL or a local folder), its definition file, and its
data sets by name, downloaded on demand into the user's cache.

The archive's root comes from `--archive-url`, else COCOPIPE_ARCHIVE_URL, else the official COCO data
archive; a name of cocopp's `OfficialArchives` (`all`, `bbob`, `bbob-biobj`, ...) stands for the
official root or its sub-archive of that suite. The cache folder is COCOPIPE_CACHE, else the
platform's user cache folder (platformdirs), and holds per archive its definition file and the data
sets downloaded, laid out as in the archive (a suite's sub-archive shares the root's files).
"""
from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit

import platformdirs

from . import ArchiveError
from .definition import FILENAME, Definition, Entry, file_sha256, is_definition, name_problem, parse, read_file
from .download import download, fetch_text
from .resolve import NoMatch, resolve

#: the official COCO data archive (cocopp 2.9.1's `archiving.coco_url`)
OFFICIAL_URL = "https://numbbo.github.io/data-archive/data-archive"
#: its sub-archives, one per suite (cocopp's `OfficialArchives`); "all" is the root
OFFICIAL_SUITES = ("bbob", "bbob-noisy", "bbob-biobj", "bbob-largescale", "bbob-mixint", "bbob-constrained",
                   "bbob-boxed", "sbox-cost", "test")
ENV_URL = "COCOPIPE_ARCHIVE_URL"
ENV_CACHE = "COCOPIPE_CACHE"
#: what a data set's name keeps unencoded in its URL (RFC 3986 path characters, less "%")
_URL_SAFE = "/-._~!$&'()*+,;=:@"


def archive_location(given: str | None = None) -> str:
    """The archive's root: `given`, else COCOPIPE_ARCHIVE_URL, else the official archive; an official
    archive's name (`all`, `bbob`, ...) stands for its URL."""
    loc = (given or os.environ.get(ENV_URL) or OFFICIAL_URL).strip()
    if loc == "all":
        return OFFICIAL_URL
    if loc in OFFICIAL_SUITES and not Path(loc).exists():
        return f"{OFFICIAL_URL}/{loc}"
    return loc


def cache_dir() -> Path:
    """cocopipe's cache folder: COCOPIPE_CACHE, else the platform's user cache folder."""
    if os.environ.get(ENV_CACHE):
        return Path(os.environ[ENV_CACHE]).expanduser()
    return Path(platformdirs.user_cache_dir("cocopipe", appauthor=False))


def _is_url(loc: str) -> bool:
    return loc.lower().startswith(("http://", "https://"))


def _slug(url: str) -> Path:
    """A cache folder for an archive URL: host (and port), then the URL's path, each part made safe."""
    parts = urlsplit(url)
    segs = [parts.netloc.replace(":", "_"), *unquote(parts.path).split("/")]
    safe = [re.sub(r"[^A-Za-z0-9._-]", "_", s) for s in segs if s and s not in (".", "..")]
    return Path("archives", *safe)


class Archive:
    """A COCO data archive: a URL (data downloaded into the cache) or a local folder (used in place)."""

    def __init__(self, location: str | None = None, cache: Path | None = None):
        loc = archive_location(location)
        if loc.lower().startswith("file://"):
            loc = unquote(urlsplit(loc).path)
        self.remote = _is_url(loc)
        self.url = loc.rstrip("/") if self.remote else str(Path(loc).expanduser().resolve())
        try:
            self.folder = (cache or cache_dir()) / _slug(self.url) if self.remote else Path(self.url)
        except ValueError as exc:  # urllib's: an IPv6 host without its "]", a port that is no number, ...
            raise ArchiveError(f"{self.url}: not a usable URL ({exc})") from None
        last = self.url.rstrip("/").rsplit("/", 1)[-1]
        #: the suite of a per-suite archive (its folder or URL ends with the suite's name)
        self.suite = last if last in OFFICIAL_SUITES or last.startswith("bbob") else None
        self._definition: Definition | None = None
        self._fresh = False

    def __str__(self) -> str:
        return self.url

    # -- the definition file -------------------------------------------------------------------
    @property
    def definition_url(self) -> str:
        return f"{self.url}/{FILENAME}" if self.remote else str(Path(self.url) / FILENAME)

    def definition(self, offline: bool = False, refresh: bool = False) -> Definition:
        """The archive's definition: of a URL, the cached copy unless `refresh` (downloaded when there
        is none); with `offline`, the cached copy only."""
        if self._definition is not None and not refresh:
            return self._definition
        path = self.folder / FILENAME
        if not self.remote:
            if not self.folder.is_dir():
                raise ArchiveError(f"{self.url}: no such archive folder (nor a http(s) URL)")
            if not path.exists():
                raise ArchiveError(f"{self.url}: no {FILENAME} in this folder (write one with "
                                   f"`cocopipe archive create {self.url}`)")
            self._definition = parse(read_file(path), str(path))
            return self._definition
        if offline and refresh:
            raise ArchiveError(f"{self.url}: --refresh downloads the definition file again, --offline forbids it")
        if offline and not path.is_file():
            raise ArchiveError(f"{self.url}: its definition file is not in the cache ({path}); run once "
                               "without --offline")
        if refresh or not path.is_file():
            text = fetch_text(self.definition_url)
            definition = parse(text, self.definition_url)  # a bad file is not cached
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                tmp = path.with_name(f".{FILENAME}.{os.getpid()}.tmp")
                tmp.write_text(text, encoding="utf-8")
                os.replace(tmp, path)
            except OSError as exc:
                raise ArchiveError(f"{self.url}: cannot write its definition file to the cache "
                                   f"({exc.filename or path}: {exc.strerror or exc}; {ENV_CACHE} sets the cache)") from None
            self._definition, self._fresh = definition, True
            return definition
        self._definition = parse(read_file(path), str(path))
        return self._definition

    def entries(self, offline: bool = False, refresh: bool = False) -> list[Entry]:
        """The data sets of the archive, in the definition file's order."""
        return self.definition(offline, refresh).entries

    def resolve(self, pattern: str, one: bool = False, offline: bool = False) -> list[Entry]:
        """The data sets `pattern` names (`pipeline.archive.resolve`). A pattern that matches nothing in
        a cached definition file is tried again on a fresh one (as cocopp does), unless offline. In a
        suite's archive, a pattern may start with the suite (`bbob/2009/` in `bbob` is `2009/`)."""
        if self.suite and pattern.startswith(f"{self.suite}/"):
            pattern = pattern[len(self.suite) + 1:]
        try:
            return resolve(self.entries(offline), pattern, one, where=self.url)
        except NoMatch as exc:
            if not self.remote or offline or self._fresh:
                raise
            first = exc
        try:
            entries = self.entries(refresh=True)
        except ArchiveError:
            raise first from None
        return resolve(entries, pattern, one, where=self.url)

    # -- data sets -------------------------------------------------------------------------------
    def path(self, entry: Entry) -> Path:
        """Where the data set is (local archive) or is kept once downloaded (the cache); ArchiveError
        naming the entry when that path would lie outside the archive's folder (in the cache, also
        with links resolved; a local archive's own links are the user's)."""
        why = name_problem(entry.name)
        if why:
            raise ArchiveError(f"{entry.name!r}: not a relative path inside the archive ({why})")
        if is_definition(entry.name):  # an entry made by hand: never written over a definition file
            raise ArchiveError(f"{entry.name!r}: a definition file is no data set (refused: it would replace "
                               "the archive's own)")
        path = self.folder.joinpath(*entry.name.split("/"))
        if not self.remote:
            return path
        try:
            inside = path.resolve().is_relative_to(self.folder.resolve())
        except (OSError, RuntimeError) as exc:  # a loop of links
            raise ArchiveError(f"{entry.name}: {path}: cannot resolve ({exc})") from None
        if not inside:
            raise ArchiveError(f"{entry.name}: {path} leads outside {self.folder} (a link); refused")
        return path

    def data_url(self, entry: Entry) -> str:
        """The data set's URL (its path for a local archive), the name percent-encoded where needed
        (`#`, `?`, `%`, spaces and non-ASCII letters)."""
        return f"{self.url}/{quote(entry.name, safe=_URL_SAFE)}" if self.remote else str(self.path(entry))

    def cached(self, entry: Entry) -> bool:
        """True when the data set is on this machine (in the cache, or in a local archive)."""
        try:
            return self.path(entry).is_file()
        except ArchiveError:
            return False

    def fetch(self, entry: Entry, offline: bool = False, progress=None) -> Path:
        """The data set's local file, downloaded first when needed and checked against the sha256 of
        the definition file; ArchiveError naming the data set, its URL and why otherwise."""
        try:
            return self._fetch(entry, offline, progress)
        except OSError as exc:  # a cached or local file that cannot be read
            raise ArchiveError(f"{entry.name}: {exc.filename or self.path(entry)}: {exc.strerror or exc}") from None

    def _fetch(self, entry: Entry, offline: bool, progress) -> Path:
        path = self.path(entry)
        if path.is_file():
            got = file_sha256(path)
            if got == entry.sha256:
                return path
            if not self.remote:
                raise ArchiveError(f"{entry.name}: {path}: hash mismatch (sha256 {got[:16]}..., the definition "
                                   f"file says {entry.sha256[:16]}...); write the definition again with "
                                   f"`cocopipe archive create {self.url}`")
            if offline:
                raise ArchiveError(f"{entry.name}: the cached copy {path} differs from the definition file "
                                   "(hash mismatch) and --offline forbids downloading it again")
        elif not self.remote:
            raise ArchiveError(f"{entry.name}: {path}: no such file in the archive folder")
        elif offline:
            raise ArchiveError(f"{entry.name}: not in the cache (--offline); download it with "
                               f"`cocopipe archive get {entry.name}` (from {self.url})")
        download(self.data_url(entry), path, entry.sha256, entry.name, progress, size_kb=entry.size_kb)
        return path

    def rows(self, entries: Sequence[Entry]) -> list[dict]:
        """The listing: name, suite, year, size_kb, sha256 and cached, per data set."""
        return [{"name": e.name, "suite": e.suite(self.suite), "year": e.year, "size_kb": e.size_kb,
                 "sha256": e.sha256, "cached": self.cached(e)} for e in entries]
