"""The figures' PDFs drawn by worker processes: vl-convert draws one chart at a time per process, so a paper's
few dozen figures are drawn by `jobs` processes side by side. A worker is `python -m pipeline.paper.pdf`
(it imports vl-convert only, and nothing of the caller's main module, so a script calling `build` needs no
`if __name__ == "__main__"` guard); it draws a small chart when it starts, so that its JavaScript engine is
ready by the time the first figure comes (started before the tables, it warms up while they are made).
A specification goes to it as JSON, length first, and the PDF (or vl-convert's error) comes back alike."""
from __future__ import annotations

import json
import queue
import struct
import subprocess
import sys
from typing import BinaryIO

from ..extras import require

#: the chart a worker draws when it starts (vl-convert's engine and fonts loaded before the first figure)
_WARM = {"data": {"values": [{"x": 1}]}, "mark": "point", "encoding": {"x": {"field": "x", "type": "quantitative"}}}
_HEAD = struct.Struct("<cQ")  # b"P" (a PDF) or b"E" (an error's text), then the length of what follows


def _read(stream: BinaryIO) -> tuple[bytes, bytes] | None:
    """(kind, payload) of one message, None at the end of the stream."""
    head = stream.read(_HEAD.size)
    if len(head) < _HEAD.size:
        return None
    kind, n = _HEAD.unpack(head)
    return kind, stream.read(n)


def _send(stream: BinaryIO, kind: bytes, payload: bytes) -> None:
    stream.write(_HEAD.pack(kind, len(payload)) + payload)
    stream.flush()


def serve(version: str, stdin: BinaryIO, stdout: BinaryIO) -> None:
    """The worker: specifications in, PDFs out, until its input ends."""
    import vl_convert

    vl_convert.vegalite_to_pdf(_WARM, vl_version=version)
    while (msg := _read(stdin)) is not None:
        try:
            _send(stdout, b"P", vl_convert.vegalite_to_pdf(json.loads(msg[1]), vl_version=version))
        except Exception as exc:  # noqa: BLE001 (vl-convert's errors are the caller's to report)
            _send(stdout, b"E", str(exc).encode("utf-8", "replace"))


class Renderer:
    """`jobs` worker processes drawing PDFs (`pdf`, from any thread: a free worker takes the chart), warmed
    up from the start; `close` ends them."""

    def __init__(self, jobs: int, version: str):
        require("vl_convert", "static", "PDF figures")  # missing: one clear line, before any worker starts
        self._free: queue.Queue = queue.Queue()
        self._workers = [subprocess.Popen([sys.executable, "-m", __name__, version], stdin=subprocess.PIPE,
                                          stdout=subprocess.PIPE) for _ in range(max(1, jobs))]
        for w in self._workers:
            self._free.put(w)

    def pdf(self, spec: dict) -> bytes:
        """The PDF of a Vega-Lite specification (ValueError with vl-convert's message where it fails, or where
        the worker ended)."""
        w = self._free.get()
        try:
            _send(w.stdin, b"S", json.dumps(spec, allow_nan=False).encode())
            msg = _read(w.stdout)
        except (BrokenPipeError, OSError):
            msg = None
        finally:
            self._free.put(w)
        if msg is None:  # a ValueError: the command says so in one line and exits 1
            raise ValueError(f"the PDF worker (process {w.pid}, python -m {__name__}) ended with exit status "
                             f"{w.poll()}: figures not drawn")
        if msg[0] == b"E":
            raise ValueError(f"vl-convert: {msg[1].decode()}")
        return msg[1]

    def close(self) -> None:
        """End the workers (their input closed: each ends after its chart)."""
        for w in self._workers:
            try:
                w.stdin.close()
            except OSError:  # a worker that ended: nothing to flush to
                pass
        for w in self._workers:
            try:
                w.wait(timeout=30)
            except subprocess.TimeoutExpired:
                w.kill()
                w.wait()

    def __enter__(self) -> Renderer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


if __name__ == "__main__":
    serve(sys.argv[1], sys.stdin.buffer, sys.stdout.buffer)
