"""What only some users install (the extras of pyproject.toml), imported where it is used: the module, or
one line naming the extra that brings it.

>>> require("json", "static", "Nothing")  # doctest: +ELLIPSIS
<module 'json' from ...>
"""
from __future__ import annotations

import importlib
from types import ModuleType

#: the distribution that provides each optional module
PACKAGES = {"vl_convert": "vl-convert-python", "ray": "ray", "cocoex": "coco-experiment",
            "sortedcontainers": "sortedcontainers", "selenium": "selenium"}


class MissingExtra(ImportError):
    """An optional dependency is not installed; the message names the extra to install."""


def require(module: str, extra: str, what: str) -> ModuleType:
    """The module `module`, or `MissingExtra`: "`what`: install PACKAGE with pip install 'cocopipe[extra]'"."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingExtra(f"{what}: install {PACKAGES.get(module, module)} with pip install 'cocopipe[{extra}]'") from None
