"""How cocopipe's object-store clients are made: every request bounded in time, and no request but to the
configured endpoint (docs/scale.md, "Time limits and credentials").

Every client (delta-rs's, Polars', pyarrow's) gets a connect timeout, a timeout per request and a bounded
number of retries with backoff, within a retry window: a server that accepts connections and never answers
is an error after about `timeout + retry window` seconds, never a wait without end. The knobs are
environment variables (so that Ray tasks get them too):

- `COCOPIPE_STORE_TIMEOUT`: seconds a request may take, its answer included (default 20);
- `COCOPIPE_STORE_CONNECT_TIMEOUT`: seconds to open a connection (default 5);
- `COCOPIPE_STORE_RETRIES`: times a failed request is retried (default 2), with exponential backoff;
- `COCOPIPE_STORE_RETRY_TIMEOUT`: seconds after the first attempt past which no retry starts (default 20).

An S3 client without credentials asks the cloud's metadata service (169.254.169.254) for some: a request
that leaves the machine for an address the user never named. cocopipe sets `AWS_EC2_METADATA_DISABLED=true`
(read by delta-rs's and pyarrow's AWS clients) and asks for credentials up front (`credentials`); a user
on a cloud machine who wants its instance role sets `AWS_EC2_METADATA_DISABLED=false`.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..words import plural
from .errors import StoreError

#: the environment variables of the time limits, and their defaults (seconds; a number of retries)
KNOBS = {"COCOPIPE_STORE_TIMEOUT": 20.0, "COCOPIPE_STORE_CONNECT_TIMEOUT": 5.0, "COCOPIPE_STORE_RETRIES": 2,
         "COCOPIPE_STORE_RETRY_TIMEOUT": 20.0}
#: the AWS SDKs' switch of the metadata service (delta-rs's aws-config, pyarrow's AWS SDK for C++, boto3)
METADATA = "AWS_EC2_METADATA_DISABLED"
_S3 = ("s3", "s3a")
#: where else an S3 client finds credentials than AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY
_OTHER_CREDENTIALS = ("AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_WEB_IDENTITY_TOKEN_FILE",
                      "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_CONTAINER_CREDENTIALS_FULL_URI")


class CredentialsMissing(StoreError):
    """An object store named with no credentials to reach it (and the metadata service not asked)."""


@dataclass(frozen=True)
class Limits:
    """The time limits of every object-store request (`COCOPIPE_STORE_*`)."""

    timeout: float
    connect_timeout: float
    retries: int
    retry_timeout: float

    @property
    def worst(self) -> float:
        """Seconds a request to a server that never answers can take before it is an error."""
        return self.timeout + self.retry_timeout

    def said(self) -> str:
        """The limits as the error of a request that ran out of them says them."""
        return (f"no answer within {self.timeout:g} s, {plural(self.retries, 'retry', 'retries')} within "
                f"{self.retry_timeout:g} s: COCOPIPE_STORE_TIMEOUT, COCOPIPE_STORE_RETRIES")


def timed_out(exc: BaseException) -> str | None:
    """What a request that ran out of the time limits says (delta-rs's, Polars' or pyarrow's error), None for
    another error."""
    text = str(exc)
    if "timed out" in text or "Timeout was reached" in text:
        return f"the server did not answer: {limits().said()}"
    return None


def limits() -> Limits:
    """The time limits the environment sets (a ValueError naming the variable and its value when it is not a
    number, or not a positive one)."""
    got = {}
    for name, default in KNOBS.items():
        text = os.environ.get(name, "").strip()
        try:
            value = type(default)(text) if text else default
        except ValueError:
            value = -1
        if not 0 <= value < float("inf") or (value == 0 and name != "COCOPIPE_STORE_RETRIES"):  # NaN too
            kind = "a whole number of retries" if isinstance(default, int) else "a positive number of seconds"
            raise ValueError(f"{name}={text!r}: expected {kind}")
        got[name.removeprefix("COCOPIPE_STORE_").lower()] = value
    return Limits(**got)


def _scheme(uri: str) -> str:
    return uri.split("://", 1)[0].lower() if "://" in uri else ""


def _duration(seconds: float) -> str:
    return f"{max(1, round(seconds * 1000))}ms"


def credentials(uri: str) -> None:
    """Nothing when an S3 URI can be reached with the credentials this environment gives (or the user asked
    for the metadata service), else `CredentialsMissing` naming the URI and what to set. Also switches the
    metadata service off for every AWS client of this process unless the user switched it on."""
    if _scheme(uri) not in _S3:
        return
    asked = os.environ.get(METADATA, "").strip().lower()
    if asked in ("false", "0", "no"):
        return  # the user's wish: an instance role from the metadata service
    os.environ[METADATA] = "true"
    env = os.environ
    if (env.get("AWS_ACCESS_KEY_ID") and env.get("AWS_SECRET_ACCESS_KEY")) or any(env.get(k) for k in _OTHER_CREDENTIALS) \
            or env.get("AWS_SKIP_SIGNATURE", "").strip().lower() in ("true", "1"):
        return
    shared = env.get("AWS_SHARED_CREDENTIALS_FILE") or str(Path.home() / ".aws" / "credentials")
    if os.path.isfile(shared):
        return
    raise CredentialsMissing(f"{uri}: no credentials for the object store: set AWS_ACCESS_KEY_ID and "
                             "AWS_SECRET_ACCESS_KEY (or AWS_PROFILE), AWS_SKIP_SIGNATURE=true for a public bucket, "
                             f"or {METADATA}=false to ask this cloud machine's metadata service (docs/scale.md)")


def delta_options(uri: str) -> dict[str, str] | None:
    """The storage options of a delta-rs client of `uri` (None for a local path): the time limits, after
    `credentials`."""
    if _scheme(uri) in ("", "file"):
        return None
    credentials(uri)
    lim = limits()
    return {"timeout": _duration(lim.timeout), "connect_timeout": _duration(lim.connect_timeout),
            "max_retries": str(lim.retries), "retry_timeout": _duration(lim.retry_timeout)}


def polars_options(uri: str) -> dict | None:
    """The storage options of a Polars scan of `uri` (None for a local path): Polars takes the retries as its
    own keys, numbers."""
    opts = delta_options(uri)
    if opts is None:
        return None
    lim = limits()
    return {**opts, "max_retries": lim.retries, "retry_timeout_ms": int(lim.retry_timeout * 1000)}


def filesystem(uri: str):
    """(pyarrow file system, path) of an object-storage URI, with the time limits on an S3 one. pyarrow's
    retries have no window: as many are made as would start within it when every attempt takes `timeout`."""
    import pyarrow.fs as pafs

    credentials(uri)
    if _scheme(uri) not in _S3:
        return pafs.FileSystem.from_uri(uri)
    lim = limits()
    retries = min(lim.retries, int(lim.retry_timeout // lim.timeout))
    bucket_and_key = uri.split("://", 1)[1]
    endpoint = os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL") or None
    fs = pafs.S3FileSystem(endpoint_override=endpoint, connect_timeout=lim.connect_timeout,
                           request_timeout=lim.timeout, region=os.environ.get("AWS_REGION") or None,
                           retry_strategy=pafs.AwsStandardS3RetryStrategy(max_attempts=1 + retries),
                           anonymous=os.environ.get("AWS_SKIP_SIGNATURE", "").strip().lower() in ("true", "1"))
    return fs, bucket_and_key.rstrip("/")
