"""The figures' PDFs drawn in worker processes: vl-convert draws one chart at a time per process, so a paper's
few dozen figures are drawn by `jobs` processes side by side. A worker imports only vl-convert (this module
is light: started by "spawn", it reads nothing of the parent), and draws a small chart when it starts, so
that its JavaScript engine is ready by the time the first figure comes (started before the tables, it warms
up while they are computed)."""
from __future__ import annotations

import multiprocessing
from concurrent.futures import Future, ProcessPoolExecutor

#: the chart a worker draws when it starts (vl-convert's engine and fonts loaded before the first figure)
_WARM = {"data": {"values": [{"x": 1}]}, "mark": "point", "encoding": {"x": {"field": "x", "type": "quantitative"}}}


def _warm(version: str) -> None:
    """Load vl-convert and draw a small chart."""
    import vl_convert

    vl_convert.vegalite_to_pdf(_WARM, vl_version=version)


def to_pdf(spec: dict, version: str) -> bytes:
    """The PDF of a Vega-Lite specification (vl-convert, Vega-Lite `version`)."""
    import vl_convert

    return vl_convert.vegalite_to_pdf(spec, vl_version=version)


class Renderer:
    """`jobs` worker processes drawing PDFs (`submit`), warmed up from the start; `close` ends them."""

    def __init__(self, jobs: int, version: str):
        self.version = version
        self.pool = ProcessPoolExecutor(max(1, jobs), mp_context=multiprocessing.get_context("spawn"),
                                        initializer=_warm, initargs=(version,))
        for _ in range(max(1, jobs)):  # start every worker now (the pool starts them as work comes)
            self.pool.submit(int)

    def submit(self, spec: dict) -> Future:
        """The future PDF of a specification."""
        return self.pool.submit(to_pdf, spec, self.version)

    def close(self) -> None:
        """End the workers (after the figures submitted are drawn)."""
        self.pool.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> Renderer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
