"""Downloads of archived data sets with httpx: streamed into a partial file beside the cache entry,
checked against the sha256 of the definition file, then renamed into place (a partial or corrupt file
is never used). An interrupted download is resumed by a later call (an HTTP range request).

A download is bounded: in size (the entry's stated size plus a margin, else COCOPIPE_DOWNLOAD_MAX_MB),
in time (COCOPIPE_DOWNLOAD_DEADLINE seconds in all) and in silence (COCOPIPE_DOWNLOAD_STALL seconds
without a byte); see docs/archive.md.
"""
from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from . import ArchiveError
from .definition import MAX_BYTES, file_sha256

#: progress(label, bytes done, bytes in all or None); called as bytes arrive
Progress = Callable[[str, int, "int | None"], None]
#: seconds a whole download may take (also the definition file's)
ENV_DEADLINE = "COCOPIPE_DOWNLOAD_DEADLINE"
#: seconds without a byte (or to connect) before a download is given up
ENV_STALL = "COCOPIPE_DOWNLOAD_STALL"
#: MB (10**6 bytes) a data set whose size the definition file does not state may have
ENV_MAX_MB = "COCOPIPE_DOWNLOAD_MAX_MB"
DEFAULTS = {ENV_DEADLINE: 1800.0, ENV_STALL: 60.0, ENV_MAX_MB: 2000.0}
# httpx loads in the functions that go online (about 0.1 s, which reading local sources does not need)


@dataclass(frozen=True)
class Limits:
    """How long a download may take in all (`deadline`) and without a byte (`stall`), in seconds, and
    how many bytes a data set of unstated size may have (`max_bytes`)."""

    deadline: float
    stall: float
    max_bytes: int

    @classmethod
    def from_env(cls) -> Limits:
        """The limits set by the environment, else the defaults; ArchiveError naming a bad variable."""
        got = {}
        for var, default in DEFAULTS.items():
            raw = os.environ.get(var, "").strip()
            try:
                got[var] = float(raw) if raw else default
            except ValueError:
                got[var] = -1.0
            if not got[var] > 0 or got[var] == float("inf"):
                raise ArchiveError(f"{var}={raw!r}: expected a positive number")
        return cls(got[ENV_DEADLINE], got[ENV_STALL], int(got[ENV_MAX_MB] * 1e6))

    def cap(self, size_kb: int | None) -> tuple[int, str]:
        """The most bytes a data set stated as `size_kb` kB (floor of bytes / 1000) may have, and why:
        that size plus 1 % and 64 KiB, at most `max_bytes` (a definition file may state any size)."""
        if size_kb is not None and (size_kb + 1) * 1000 + size_kb * 10 + 65536 <= self.max_bytes:
            return (size_kb + 1) * 1000 + size_kb * 10 + 65536, f"the {size_kb} kB the definition file states"
        return self.max_bytes, f"{ENV_MAX_MB}={self.max_bytes / 1e6:g}"


def _client(limits: Limits):
    """An HTTP client: redirects followed, no content encoding (the bytes hashed are the file's), the
    stall timeout on connecting and on every read."""
    import httpx

    try:
        agent = f"cocopipe/{version('cocopipe')}"
    except PackageNotFoundError:
        agent = "cocopipe"
    return httpx.Client(follow_redirects=True, max_redirects=10, timeout=httpx.Timeout(limits.stall),
                        headers={"Accept-Encoding": "identity", "User-Agent": agent})


class _Deadline:
    """Ends a request at a moment even while it waits for a byte (a server dripping its headers or
    body): at `end`, the connections the request opened are shut down, which ends any read at once.
    `trace` is httpx's trace extension, which hands over each socket as it connects."""

    def __init__(self, end: float):
        self.sockets: list = []
        self.fired = False
        self._lock = threading.Lock()
        self._timer = threading.Timer(max(end - time.monotonic(), 0.0), self._fire)
        self._timer.daemon = True

    def __enter__(self) -> _Deadline:
        self._timer.start()
        return self

    def __exit__(self, *exc) -> None:
        self._timer.cancel()

    def trace(self, event: str, info: dict) -> None:
        """httpx's trace callback: keep each socket the request connects (shut at once if late)."""
        if event == "connection.connect_tcp.complete":
            sock = info["return_value"].get_extra_info("socket")
            with self._lock:
                self.sockets.append(sock)
                if self.fired:
                    self._shut(sock)

    def _fire(self) -> None:
        """The deadline: shut down every socket of the request."""
        with self._lock:
            self.fired = True
            for sock in self.sockets:
                self._shut(sock)

    @staticmethod
    def _shut(sock) -> None:
        """Shut a socket down both ways (a read waiting on it returns at once)."""
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except (OSError, AttributeError):
            pass


def _printable(text: str, most: int = 80) -> str:
    """What a server said, cut to `most` characters, without the characters a terminal would act on."""
    return "".join(c if c.isprintable() else "?" for c in text[:most])


def _where(exc: Exception) -> str:
    """host:port of the request that failed."""
    try:
        url = exc.request.url  # type: ignore[attr-defined]
    except (AttributeError, RuntimeError):
        return "the server"
    port = url.port or {"http": 80, "https": 443}.get(url.scheme, "")
    host = f"[{url.host}]" if ":" in url.host else url.host
    return f"{host}:{port}"


def _why(exc: Exception, limits: Limits) -> str:
    """What went wrong in a request, in a few words (no traceback): connection refused at host:port,
    DNS failure, timeout, ..."""
    import httpx

    cause: BaseException | None = exc
    while cause is not None and not isinstance(cause, OSError):
        cause = cause.__cause__ or cause.__context__
    if isinstance(exc, httpx.ConnectTimeout):
        return f"timed out connecting to {_where(exc)} (no answer in {limits.stall:g} s, {ENV_STALL})"
    if isinstance(exc, httpx.TimeoutException):
        return f"no data from {_where(exc)} for {limits.stall:g} s ({ENV_STALL})"
    if isinstance(exc, httpx.ConnectError):
        if isinstance(cause, ConnectionRefusedError):
            return f"connection refused at {_where(exc)} (no server listening there)"
        if isinstance(cause, socket.gaierror):
            host = _where(exc).rsplit(":", 1)[0]
            return f"DNS failure: cannot resolve host {host} ({cause.strerror or cause})"
        return f"cannot connect to {_where(exc)}: {cause or exc}"
    if isinstance(exc, httpx.TooManyRedirects):
        return "too many redirects"
    if isinstance(exc, (httpx.InvalidURL, httpx.UnsupportedProtocol)):
        return f"not a usable URL ({exc})"
    return f"{type(exc).__name__}: {exc}"


def fetch_text(url: str, limits: Limits | None = None) -> str:
    """The text at `url` (a definition file, at most `definition.MAX_BYTES`); ArchiveError naming the
    URL and why otherwise."""
    import httpx

    limits = limits or Limits.from_env()
    start, body = time.monotonic(), bytearray()
    watch = _Deadline(start + limits.deadline)
    try:
        with watch, _client(limits) as client, client.stream("GET", url, extensions={"trace": watch.trace}) as r:
            if r.status_code != 200:
                raise ArchiveError(f"{url}: HTTP {r.status_code} {_printable(r.reason_phrase)} "
                                   "(no archive definition file there)")
            _check_length(r, MAX_BYTES, url, "no archive definition file")
            for chunk in r.iter_bytes():
                body += chunk
                if len(body) > MAX_BYTES:
                    raise ArchiveError(f"{url}: larger than {MAX_BYTES / 1e6:g} MB: no archive definition file")
                if time.monotonic() - start > limits.deadline:
                    raise ArchiveError(f"{url}: not received in {limits.deadline:g} s ({ENV_DEADLINE})")
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        if watch.fired:
            raise ArchiveError(f"{url}: not received in {limits.deadline:g} s ({ENV_DEADLINE})") from None
        raise ArchiveError(f"{url}: {_why(exc, limits)}") from None
    return body.decode("utf-8", errors="replace")


def _check_length(r, cap: int, label: str, what: str) -> None:
    """ArchiveError when the response states a body longer than `cap` bytes."""
    length = r.headers.get("content-length", "")
    if length.isdigit() and int(length) > cap:
        raise ArchiveError(f"{label}: the server sends {int(length)} bytes, more than the {cap} allowed ({what})")


def partial_path(dest: Path, sha256: str) -> Path:
    """Where the download of `dest` with this hash collects its bytes (hidden, never read as data)."""
    return dest.parent / f".{dest.name}.{sha256[:16]}.part"


def download(url: str, dest: Path, sha256: str, label: str, progress: Progress | None = None,
             size_kb: int | None = None, limits: Limits | None = None) -> None:
    """Download `url` to `dest` if its sha256 is `sha256` and it has at most the bytes `size_kb` allows
    (`Limits.cap`); ArchiveError naming `label`, the URL and why (HTTP status, connection refused,
    timeout, too large, connection closed, hash mismatch) otherwise, and `dest` left as it was."""
    limits = limits or Limits.from_env()
    part = partial_path(dest, sha256)
    cap = limits.cap(size_kb)
    deadline = time.monotonic() + limits.deadline
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        if part.is_symlink() or (part.exists() and not part.is_file()):
            raise ArchiveError(f"{label}: {part} is no regular file; remove it")
        resumed = _stream(url, part, label, progress, cap, deadline, limits)
        got = file_sha256(part)
        if got != sha256 and resumed:  # the bytes kept from before may be another file's: once from scratch
            part.unlink()
            _stream(url, part, label, progress, cap, deadline, limits)
            got = file_sha256(part)
        if got != sha256:
            part.unlink()
            raise ArchiveError(f"{label}: {url}: hash mismatch (sha256 {got[:16]}..., the definition file says "
                               f"{sha256[:16]}...); nothing cached")
        os.replace(part, dest)
    except OSError as exc:
        raise ArchiveError(f"{label}: cannot write {exc.filename or dest}: {exc.strerror or exc}") from None


def _stream(url: str, part: Path, label: str, progress: Progress | None, cap: tuple[int, str], deadline: float,
            limits: Limits) -> bool:
    """Append the body at `url` to `part`, from where an earlier attempt stopped if the server allows
    ranges; True when it resumed. Raises ArchiveError: the partial file is kept for a later resume when
    the bytes are a prefix of what the server sends (cut, stalled, too slow), else removed (too large)."""
    import httpx

    have = part.stat().st_size if part.exists() else 0
    if have > cap[0]:
        part.unlink()
        have = 0
    headers = {"Range": f"bytes={have}-"} if have else {}
    done = 0
    watch = _Deadline(deadline)
    late = (f"{label}: {url}: not done in {limits.deadline:g} s ({ENV_DEADLINE}), {{}} bytes received; "
            "nothing cached (run again to resume)")
    try:
        with watch, _client(limits) as client, \
                client.stream("GET", url, headers=headers, extensions={"trace": watch.trace}) as r:
            if r.status_code == 416 and have:  # nothing left to send: the partial file is no prefix of it
                part.unlink()
                return _stream(url, part, label, progress, cap, deadline, limits)
            if r.status_code >= 400:
                raise ArchiveError(f"{label}: {url}: HTTP {r.status_code} {_printable(r.reason_phrase)}")
            resumed = r.status_code == 206 and have > 0 and _range_start(r) == have
            if r.status_code == 206 and not resumed and have:  # a range not asked for: once from scratch
                part.unlink()
                return _stream(url, part, label, progress, cap, deadline, limits)
            if r.status_code == 206 and not resumed:
                raise ArchiveError(f"{label}: {url}: the server sent a range that was not asked for "
                                   f"({_printable(r.headers.get('content-range', ''))!r})")
            done = have if resumed else 0
            length = r.headers.get("content-length", "")
            total = done + int(length) if length.isdigit() else None
            if total is not None and total > cap[0]:
                _drop(part)
                raise ArchiveError(f"{label}: {url}: the server sends {total} bytes, more than the {cap[0]} "
                                   f"allowed ({cap[1]}); nothing cached")
            if progress:
                progress(label, done, total)
            with open(part, "ab" if resumed else "wb") as fh:
                for chunk in r.iter_bytes():
                    if done + len(chunk) > cap[0]:
                        fh.close()
                        _drop(part)
                        raise ArchiveError(f"{label}: {url}: more than the {cap[0]} bytes allowed ({cap[1]}), "
                                           "stopped there; nothing cached")
                    fh.write(chunk)
                    done += len(chunk)
                    if progress:
                        progress(label, done, total)
                    if time.monotonic() > deadline:
                        raise ArchiveError(late.format(done))
            return resumed
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        if watch.fired:
            raise ArchiveError(late.format(done)) from None
        if isinstance(exc, httpx.RemoteProtocolError) and "peer closed" not in str(exc):
            raise ArchiveError(f"{label}: {url}: the server broke the HTTP protocol ({_printable(str(exc))}) "
                               f"after {done} bytes; nothing cached") from None
        if isinstance(exc, (httpx.RemoteProtocolError, httpx.ReadError)):
            raise ArchiveError(f"{label}: {url}: connection closed after {done} bytes; nothing cached "
                               "(run again to resume)") from None
        raise ArchiveError(f"{label}: {url}: {_why(exc, limits)}; nothing cached") from None


def _range_start(r) -> int | None:
    """The first byte of a 206 response's Content-Range (`bytes START-END/SIZE`), None if unreadable."""
    value = r.headers.get("content-range", "")
    unit, _, rest = value.partition(" ")
    start = rest.split("-", 1)[0]
    return int(start) if unit == "bytes" and start.isdigit() else None


def _drop(part: Path) -> None:
    """Remove a partial file that is no prefix of the data set (too large)."""
    part.unlink(missing_ok=True)
