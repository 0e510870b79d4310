"""Process set-up that must happen before numba or Qt are imported.

* ``NUMBA_CACHE_DIR``: numba's ``cache=True`` writes next to the sources by
  default, which fails at import when both the install folder and ``$HOME``
  are read-only, and numba does not invalidate a cached function when a helper
  in *another* module changes. ntkviz therefore defaults the cache to
  ``$XDG_CACHE_HOME/ntkviz/numba-<version>-<fingerprint>``, where the
  fingerprint hashes the sizes and modification times of ``ntkviz/core/*.py``:
  an upgrade or an edit of the numeric core never loads stale machine code.
  An explicit ``NUMBA_CACHE_DIR`` always wins.
* ``PYQTGRAPH_QT_LIB=PySide6`` so pyqtgraph never picks another binding.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path


def _core_fingerprint() -> str:
    core = Path(__file__).resolve().parent / "core"
    h = hashlib.sha1()
    try:
        for f in sorted(core.glob("*.py")):
            st = f.stat()
            h.update(f"{f.name}:{st.st_size}:{st.st_mtime_ns};".encode())
    except OSError:  # frozen bundle or unreadable tree: version alone
        pass
    return h.hexdigest()[:10]


def default_cache_dir() -> Path:
    """The numba cache directory ntkviz uses when ``NUMBA_CACHE_DIR`` is unset."""
    from ntkviz import __version__

    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "ntkviz" / f"numba-{__version__}-{_core_fingerprint()}"


def configure() -> None:
    """Set environment defaults; idempotent and cheap (no heavy imports)."""
    if not os.environ.get("NUMBA_CACHE_DIR"):
        path = default_cache_dir()
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError:
            import tempfile

            path = Path(tempfile.gettempdir()) / f"ntkviz-numba-{os.getuid()}" / path.name
            path.mkdir(parents=True, exist_ok=True)
        os.environ["NUMBA_CACHE_DIR"] = str(path)
    os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")
