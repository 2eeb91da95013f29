"""The command line run as a user runs it, in a subprocess: its output into a pipe, or on a terminal
(a pseudo-terminal of a given width), outside CI."""
from __future__ import annotations

import fcntl
import os
import pty
import re
import struct
import subprocess
import sys
import termios

#: the environment of a command run on a terminal: not CI, no forced or suppressed colours, no width set
TERMINAL_ENV = {**{k: v for k, v in os.environ.items() if k not in ("CI", "FORCE_COLOR", "NO_COLOR", "COLUMNS",
                                                                     "LINES", "TTY_COMPATIBLE", "TTY_INTERACTIVE")},
                "TERM": "xterm-256color"}


def cli(*args, **kwargs) -> subprocess.CompletedProcess:
    """`cocopipe ARGS` with stdout and stderr into pipes (text)."""
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *map(str, args)], capture_output=True, text=True,
                          **kwargs)


def on_terminal(*args, columns: int = 120, rows: int = 50, timeout: float = 300) -> tuple[str, int]:
    """(everything written, exit code) of `cocopipe ARGS` with stdout and stderr on a terminal `columns` wide and
    `rows` high."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    proc = subprocess.Popen([sys.executable, "-m", "pipeline.cli", *map(str, args)], stdin=slave, stdout=slave,
                            stderr=slave, env=TERMINAL_ENV, close_fds=True)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 1 << 16)
        except OSError:  # the terminal closed with the command
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    return b"".join(chunks).decode("utf-8", errors="replace"), proc.wait(timeout=timeout)


def plain(text: str) -> str:
    """Terminal output without its escape sequences (styles, cursor moves) and carriage returns."""
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\r", "", text)
