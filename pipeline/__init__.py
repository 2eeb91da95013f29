"""cocopipe: COCO benchmarking logs in a Parquet store, every COCO measure as a lazy Polars frame.

The public API, loaded on first use (`import pipeline.cli` stays light):

- `open_store(path, **selection)`: an `Analysis` of a store (`pipeline.api`), every measure a method;
- `ingest(paths, store)`: read COCO or IOHprofiler logs into a `Store` (`pipeline.ingest`);
- `Selection`, `open_reference(name)`: what an analysis looks at (`pipeline.selection`);
- `Budget`: a budget cut, `Budget.parse("100x")` (`pipeline.hits.budget`).

The examples of the docstrings read the store of the sample data, which `cocopipe ingest data/sample
--store cocopipe-store` makes in a clone's folder (docs/python.md), and the packaged reference sets.

>>> import pipeline
>>> a = pipeline.open_store("cocopipe-store", algorithm="NM", dimension=2)
>>> a.art(targets=[1e-8]).collect().select("function", "art").head(3).rows()
[(1, 123.86666666666666), (2, 176.13333333333333), (3, 14479.5)]
"""
from __future__ import annotations

import importlib

#: the version of cocopipe (the package's version: pyproject.toml reads it from here)
__version__ = "0.1.0"

#: public name -> module that holds it (`ingest` is the package `pipeline.ingest`, callable as its function)
_EXPORTS = {"Analysis": ".api", "open_store": ".api", "Selection": ".selection", "open_reference": ".selection",
            "Budget": ".hits.budget", "Store": ".store", "ingest": ".ingest"}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = importlib.import_module(_EXPORTS[name], __name__)
    value = module if name == "ingest" else getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})
