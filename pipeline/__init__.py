"""cocopipe: COCO benchmarking logs in a Parquet store, every COCO measure as a lazy Polars frame.

The public API, loaded on first use (`import pipeline.cli` stays light):

- `open_store(path, **selection)`: an `Analysis` of a store (`pipeline.api`), every measure a method;
- `ingest(paths, store)`: read COCO or IOHprofiler logs into a `Store` (`pipeline.ingest`);
- `Selection`, `open_reference(name)`: what an analysis looks at (`pipeline.selection`);
- `Budget`: a budget cut, `Budget.parse("100x")` (`pipeline.hits.budget`).

>>> import pipeline
>>> a = pipeline.open_store("data/refalgs", algorithm="best2009-bbob", dimension=2)
>>> a.art(targets=[1e-8]).collect().height
24
"""
from __future__ import annotations

import importlib

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
