"""The Parquet store and its fixed schemas."""
from .errors import StoreBusy, StoreError, StoreWriteError
from .schema import SchemaError
from .store import SourceData, Store

__all__ = ["SchemaError", "SourceData", "Store", "StoreBusy", "StoreError", "StoreWriteError"]
