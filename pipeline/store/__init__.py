"""The store (Delta Lake tables, locally or on object storage) and its fixed schemas."""
from .errors import StoreError, StoreWriteError
from .schema import SchemaError
from .store import SourceData, Store

__all__ = ["SchemaError", "SourceData", "Store", "StoreError", "StoreWriteError"]
