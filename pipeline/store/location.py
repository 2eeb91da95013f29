"""Where a store lives: a local folder or an object-storage URI (`s3://`, `gs://`, `az://`, ...).

A store is named by one string. A URI with a scheme is taken as it is; anything else is a local path,
made absolute here, at the edge, so that every process (a Ray task on another node included) reads the
same folder. Credentials and endpoints come from the environment, as delta-rs and Polars take them
(`AWS_ENDPOINT_URL`, `AWS_ACCESS_KEY_ID`, `AWS_ALLOW_HTTP`, `GOOGLE_APPLICATION_CREDENTIALS`,
`AZURE_STORAGE_ACCOUNT_NAME`, ...: docs/scale.md).
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

#: schemes delta-rs and Polars read (object stores, and file:// for a local folder)
SCHEMES = ("s3", "s3a", "gs", "gcs", "az", "azure", "abfs", "abfss", "file")
_URI = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://(.*)$")


class LocationError(ValueError):
    """A store URI that names no store place (an unknown scheme, a bucket missing)."""


@dataclass(frozen=True)
class Location:
    """A store's place: `uri` as delta-rs and Polars take it, and the local folder where it is one."""

    uri: str
    local: Path | None

    @property
    def remote(self) -> bool:
        """True on object storage."""
        return self.local is None

    def join(self, *parts: str) -> str:
        """The URI (or local path) of a place inside the store."""
        if self.local is not None:
            return str(self.local.joinpath(*parts))
        return "/".join([self.uri.rstrip("/"), *parts])

    def read_root(self) -> str:
        """The root Polars reads the store's files from: a local store's folder by a link of a plain name
        where its path is not plain (`engine_path`), the URI otherwise."""
        return engine_path(self.local) if self.local is not None else self.uri

    def table(self, name: str) -> str:
        """The URI of a Delta table of the store (a derived table's name percent-encoded)."""
        return self.join(*(quote(p, safe=" -_.~") for p in name.split("/")))

    def __str__(self) -> str:
        return str(self.local) if self.local is not None else self.uri


#: the characters of a local path Polars reads files under as they are (a `key=value` folder above a table
#: would be read as a partition column)
_PLAIN = re.compile(r"^[A-Za-z0-9/_.,+:@~-]+$")
#: what delta-rs (1.6) cannot take in a local table's path: it panics or misreads the path
_REFUSED = re.compile(r"[\[\]\\^|\x00-\x1f\x7f]|%[0-9A-Fa-f]{2}")


def engine_path(folder: Path) -> str:
    """The path Polars is given for the files of a local store: its folder where the path is plain, else a
    link to it of a plain name in this machine's temporary folder (made once, atomically; every process, a
    Ray task's included, makes its own). delta-rs resolves links, and is given the folder itself."""
    text = str(folder)
    if _PLAIN.match(text):
        return text
    import hashlib
    import uuid

    # not tempfile.gettempdir(), which tries to write: a confined process (a query's) only reads the link
    links = Path(os.environ.get("TMPDIR") or "/tmp") / f"cocopipe-{os.getuid() if hasattr(os, 'getuid') else 0}-links"
    link = links / hashlib.sha256(os.fsencode(text)).hexdigest()[:24]
    try:
        if os.readlink(link) == text:
            return str(link)
    except OSError:
        pass
    links.mkdir(parents=True, exist_ok=True)
    tmp = links / f".{uuid.uuid4().hex}"
    os.symlink(text, tmp)
    os.replace(tmp, link)
    return str(link)


def locate(where: str | os.PathLike | Location) -> Location:
    """The `Location` a store string names (LocationError for a URI no engine reads)."""
    if isinstance(where, Location):
        return where
    text = os.fspath(where)
    m = _URI.match(text)
    if m is None:
        folder = Path(text).absolute()
        bad = _REFUSED.search(str(folder))
        if bad:
            raise LocationError(f"{folder}: a store cannot lie under a path holding {bad.group()!r} (the Delta Lake "
                                "engine cannot take [ ] \\ ^ | %XX, tabs or line breaks in a folder's path); choose "
                                "another folder")
        return Location(str(folder), folder)
    scheme, rest = m.group(1).lower(), m.group(2)
    if scheme == "file":
        return Location(str(Path(rest).absolute()), Path(rest).absolute())
    if scheme not in SCHEMES:
        raise LocationError(f"{text}: unknown store scheme {scheme!r} (a local folder, or one of "
                            f"{', '.join(s + '://' for s in SCHEMES if s != 'file')})")
    bucket = rest.split("/", 1)[0]
    if not bucket:
        raise LocationError(f"{text}: no bucket in the store URI (write {scheme}://BUCKET/PATH)")
    return Location(f"{scheme}://{rest.rstrip('/')}", None)


def is_uri(text: str | os.PathLike) -> bool:
    """True for a string with a scheme (`s3://...`), not a local path."""
    return isinstance(text, str) and _URI.match(text) is not None
