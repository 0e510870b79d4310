"""Test-wide set-up: headless Qt, a fresh numba cache, temporary app settings, caches and
HOME (for the tests and every process they start), paths to golden data."""
from __future__ import annotations

import atexit
import gc
import os
import shutil
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
if os.environ["QT_QPA_PLATFORM"] == "offscreen":
    # a 1920×1200 virtual screen (Qt's offscreen default is 800×800, smaller than the app's
    # window): geometry is restored and clamped as on a real desktop
    _screen = Path(tempfile.mkdtemp(prefix="ntkviz-test-screen-")) / "screen.json"
    _screen.write_text('{"screens": [{"name": "test", "x": 0, "y": 0, "width": 1920, '
                       '"height": 1200, "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]}')
    atexit.register(shutil.rmtree, _screen.parent, True)
    os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={_screen}"
os.environ.setdefault("LANG", "C.UTF-8")
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")
if not os.environ.get("NUMBA_CACHE_DIR"):
    os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="ntkviz-test-numba-")
#: the user's config folder, where the app keeps its QSettings (``ntkviz/ntkviz.conf``)
USER_CONFIG_HOME = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
# every QSettings of the tests and of the processes they start lives in a temporary folder:
# set before Qt is imported (QSettings reads XDG_CONFIG_HOME once, at its first use)
os.environ["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="ntkviz-test-config-")
atexit.register(shutil.rmtree, os.environ["XDG_CONFIG_HOME"], True)
#: the user's cache folder, where ntkviz keeps numba's kernels and computed results
USER_CACHE_HOME = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
# and every cache (numba's kernels, Gram stores, context distances) too; HOME as well, so
# that a process started without XDG_CACHE_HOME (tests of hostile environments remove it)
# falls back to a temporary ~/.cache, never the user's
os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="ntkviz-test-cache-")
atexit.register(shutil.rmtree, os.environ["XDG_CACHE_HOME"], True)
os.environ["HOME"] = tempfile.mkdtemp(prefix="ntkviz-test-home-")
atexit.register(shutil.rmtree, os.environ["HOME"], True)

import pytest  # noqa: E402

DATA = Path(__file__).resolve().parent / "data"


# Python's cyclic garbage collector is off for the session: a collection started by
# whichever thread crosses the allocation threshold (a Dask or zarr I/O thread), or one that
# comes after the C++ objects behind them are gone, would free the Qt and pyqtgraph objects
# earlier tests left in cycles and crash the interpreter. The GUI tests collect their own
# garbage on the GUI thread while their widgets exist (tests/gui/conftest.py, as the app's
# dispatcher does); reference counting frees everything else.
gc.disable()


@pytest.fixture(scope="session")
def user_settings_file() -> Path:
    """The user's real settings file of the app (tests must never write it)."""
    return USER_CONFIG_HOME / "ntkviz" / "ntkviz.conf"


@pytest.fixture(scope="session")
def user_cache_folder() -> Path:
    """The user's real cache folder of the app (tests must never write it)."""
    return USER_CACHE_HOME / "ntkviz"


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """Folder of reference data files (see tests/data/README.md)."""
    return DATA


def pytest_sessionfinish(session, exitstatus):
    """Leave what is left at the end to the process's exit: pytest collects garbage once
    more when it unconfigures, and a Qt or pyqtgraph object freed then, after the tests
    and their widgets have gone, can crash the interpreter (GUI tests free their own
    garbage on the GUI thread when each ends, see tests/gui/conftest.py)."""
    import gc

    gc.freeze()
