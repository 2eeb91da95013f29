"""Errors of the store layer."""
from __future__ import annotations


class StoreError(RuntimeError):
    """The store folder cannot be used; the message is one line naming it."""


class StoreBusy(StoreError):
    """Another process is writing to the store."""
