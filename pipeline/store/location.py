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

    def table(self, name: str) -> str:
        """The URI of a Delta table of the store (a derived table's name percent-encoded)."""
        return self.join(*(quote(p, safe=" -_.~") for p in name.split("/")))

    def __str__(self) -> str:
        return str(self.local) if self.local is not None else self.uri


#: what delta-rs (1.6) cannot take in a local table's path: `[ ] ^ |` make it panic, a backslash and control
#: characters are refused, `%` before two hex digits is decoded (the table would be written to another folder)
_REFUSED = re.compile(r"[\[\]\\^|\x00-\x1f\x7f]|%[0-9A-Fa-f]{2}")


def locate(where: str | os.PathLike | Location) -> Location:
    """The `Location` a store string names (LocationError for a URI no engine reads)."""
    if isinstance(where, Location):
        return where
    text = os.fspath(where)
    m = _URI.match(text)
    if m is None:
        return _local(Path(text).absolute())
    scheme, rest = m.group(1).lower(), m.group(2)
    if scheme == "file":
        return _local(Path(rest).absolute())
    if scheme not in SCHEMES:
        raise LocationError(f"{text}: unknown store scheme {scheme!r} (a local folder, or one of "
                            f"{', '.join(s + '://' for s in SCHEMES if s != 'file')})")
    bucket = rest.split("/", 1)[0]
    if not bucket:
        raise LocationError(f"{text}: no bucket in the store URI (write {scheme}://BUCKET/PATH)")
    return Location(f"{scheme}://{rest.rstrip('/')}", None)


def _local(folder: Path) -> Location:
    """The Location of a local folder; LocationError where its path holds what delta-rs cannot use."""
    bad = _REFUSED.search(str(folder))
    if bad:
        raise LocationError(f"{folder}: a store cannot lie under a path holding {bad.group()!r} (delta-rs, the Delta "
                            "Lake engine, cannot take [ ] \\ ^ | %XX, tabs or line breaks in a folder's path); choose "
                            "another folder")
    return Location(str(folder), folder)


def is_uri(text: str | os.PathLike) -> bool:
    """True for a string with a scheme (`s3://...`), not a local path."""
    return isinstance(text, str) and _URI.match(text) is not None
