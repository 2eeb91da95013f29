"""Downloads of archived data sets with httpx: streamed into a partial file beside the cache entry,
checked against the sha256 of the definition file, then renamed into place (a partial or corrupt file
is never used). An interrupted download is resumed by a later call (an HTTP range request)."""
from __future__ import annotations

import os
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from . import ArchiveError
from .definition import file_sha256

#: progress(label, bytes done, bytes in all or None); called as bytes arrive
Progress = Callable[[str, int, "int | None"], None]
CHUNK = 1 << 16
# httpx loads in the functions that go online (about 0.1 s, which reading local sources does not need)


def _client():
    """An HTTP client: redirects followed, no content encoding (the bytes hashed are the file's)."""
    import httpx

    try:
        agent = f"cocopipe/{version('cocopipe')}"
    except PackageNotFoundError:
        agent = "cocopipe"
    return httpx.Client(follow_redirects=True, timeout=httpx.Timeout(60.0, connect=15.0),
                        headers={"Accept-Encoding": "identity", "User-Agent": agent})


def _why(exc: Exception) -> str:
    """What went wrong in a request, in a few words (no traceback)."""
    import httpx

    if isinstance(exc, httpx.ConnectError):
        return f"no network (cannot connect: {exc})"
    if isinstance(exc, httpx.TimeoutException):
        return "no answer in time (timed out)"
    return f"{type(exc).__name__}: {exc}"


def fetch_text(url: str) -> str:
    """The text at `url` (a definition file); ArchiveError naming the URL and why otherwise."""
    import httpx

    try:
        with _client() as client:
            r = client.get(url)
    except httpx.HTTPError as exc:
        raise ArchiveError(f"{url}: {_why(exc)}") from None
    if r.status_code != 200:
        raise ArchiveError(f"{url}: HTTP {r.status_code} {r.reason_phrase} (no archive definition file there)")
    return r.content.decode("utf-8", errors="replace")


def partial_path(dest: Path, sha256: str) -> Path:
    """Where the download of `dest` with this hash collects its bytes (hidden, never read as data)."""
    return dest.parent / f".{dest.name}.{sha256[:16]}.part"


def download(url: str, dest: Path, sha256: str, label: str, progress: Progress | None = None) -> None:
    """Download `url` to `dest` if its sha256 is `sha256`; ArchiveError naming `label`, the URL and why
    (HTTP status, no network, connection closed, hash mismatch) otherwise, and `dest` left as it was."""
    part = partial_path(dest, sha256)
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        resumed = _stream(url, part, label, progress)
        got = file_sha256(part)
        if got != sha256 and resumed:  # the bytes kept from before may be another file's: once from scratch
            part.unlink()
            _stream(url, part, label, progress)
            got = file_sha256(part)
        if got != sha256:
            part.unlink()
            raise ArchiveError(f"{label}: {url}: hash mismatch (sha256 {got[:16]}..., the definition file says "
                               f"{sha256[:16]}...); nothing cached")
        os.replace(part, dest)
    except OSError as exc:
        raise ArchiveError(f"{label}: cannot write {exc.filename or dest}: {exc.strerror or exc}") from None


def _stream(url: str, part: Path, label: str, progress: Progress | None) -> bool:
    """Append the body at `url` to `part`, from where an earlier attempt stopped if the server allows
    ranges; True when it resumed. Raises ArchiveError (the partial file kept for a later resume)."""
    import httpx

    have = part.stat().st_size if part.exists() else 0
    headers = {"Range": f"bytes={have}-"} if have else {}
    done = 0
    try:
        with _client() as client, client.stream("GET", url, headers=headers) as r:
            if r.status_code == 416 and have:  # nothing left to send: the partial file is no prefix of it
                part.unlink()
                return _stream(url, part, label, progress)
            if r.status_code >= 400:
                raise ArchiveError(f"{label}: {url}: HTTP {r.status_code} {r.reason_phrase}")
            resumed = r.status_code == 206 and have > 0
            done = have if resumed else 0
            length = r.headers.get("content-length")
            total = done + int(length) if length and length.isdigit() else None
            if progress:
                progress(label, done, total)
            with open(part, "ab" if resumed else "wb") as fh:
                for chunk in r.iter_bytes(CHUNK):
                    fh.write(chunk)
                    done += len(chunk)
                    if progress:
                        progress(label, done, total)
            return resumed
    except (httpx.RemoteProtocolError, httpx.ReadError):
        raise ArchiveError(f"{label}: {url}: connection closed after {done} bytes; nothing cached "
                           "(run again to resume)") from None
    except httpx.HTTPError as exc:
        raise ArchiveError(f"{label}: {url}: {_why(exc)}; nothing cached") from None
