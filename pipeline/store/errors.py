"""Errors of the store layer."""
from __future__ import annotations


class StoreError(RuntimeError):
    """The store folder cannot be used; the message is one line naming it."""


class StoreWriteError(StoreError):
    """Writing to the store failed (a full disk, a read-only file system); the store is left as it was."""
