"""Test-wide set-up: headless Qt, a fresh numba cache, paths to golden data."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("LANG", "C.UTF-8")
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")
if not os.environ.get("NUMBA_CACHE_DIR"):
    os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="ntkviz-test-numba-")

import pytest  # noqa: E402

DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """Folder of reference data files (see tests/data/README.md)."""
    return DATA
