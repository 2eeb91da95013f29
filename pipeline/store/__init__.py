"""The Parquet store and its fixed schemas."""
from .schema import SchemaError
from .store import SourceData, Store, StoreError

__all__ = ["SchemaError", "SourceData", "Store", "StoreError"]
