"""Shared fixtures: paths to ../shared, and a writer of tiny hand-made COCO logs."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("COCOPIPE_SHARED", ROOT.parent / "shared"))


def shared_or_skip() -> Path:
    """The shared materials folder (fails in CI when missing, skips elsewhere)."""
    if not (SHARED / "data").is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"{SHARED} is missing: CI must run with ../shared beside the clone")
        pytest.skip(f"{SHARED} not found")
    return SHARED


@pytest.fixture
def shared() -> Path:
    return shared_or_skip()
