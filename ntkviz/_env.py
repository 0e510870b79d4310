"""Process set-up that must happen before numba or Qt are imported.

* ``NUMBA_CACHE_DIR``: numba's ``cache=True`` writes next to the sources by
  default, which fails at import when both the install folder and ``$HOME``
  are read-only, and numba does not invalidate a cached function when a helper
  in *another* module changes. ntkviz therefore defaults the cache to
  ``$XDG_CACHE_HOME/ntkviz/numba-<version>-<fingerprint>``, where the
  fingerprint hashes the sizes and modification times of ``ntkviz/core/**/*.py``:
  an upgrade or an edit of the numeric core never loads stale machine code.
  An explicit ``NUMBA_CACHE_DIR`` always wins. When ntkviz makes a new cache
  folder, it removes the folders of other versions and fingerprints beside it
  that it made earlier (:func:`prune_caches`: only names ``numba-<version>-
  <fingerprint>``, only those nothing wrote to for :data:`STALE_AFTER_S`).
* ``PYQTGRAPH_QT_LIB=PySide6`` so pyqtgraph never picks another binding.
* numba's threading layer: ``parallel=True`` kernels called from several threads at
  once are safe on the ``omp`` (libgomp) and ``tbb`` layers; numba's fallback,
  ``workqueue``, aborts the process ("Concurrent access has been detected"). When
  only ``workqueue`` is available (or it is forced with ``NUMBA_THREADING_LAYER``),
  :func:`parallel_section` serialises every ``parallel=True`` call behind one
  process-wide lock and says so once (a ``RuntimeWarning``); otherwise it costs
  nothing. Install libgomp1 (or TBB) to run parallel kernels concurrently.
"""
from __future__ import annotations

import contextlib
import hashlib
import importlib
import os
import re
import threading
import time
import warnings
from pathlib import Path

#: the names of the numba cache folders ntkviz makes: numba-<version>-<fingerprint>
CACHE_FOLDER = re.compile(r"^numba-[0-9][0-9A-Za-z.+!_]*-(?:[0-9a-f]{10}|frozen)$")
#: a cache folder of another version or fingerprint is removed once nothing has written to
#: it for this long (a process of another version still running keeps its folder)
STALE_AFTER_S = 3600.0


def _core_fingerprint(core: Path | None = None) -> str:
    """sha1 (10 hex digits) of the relative path, size and mtime of every ``.py`` file below
    ``core`` (default: ``ntkviz/core``, all its folders)."""
    import sys

    if getattr(sys, "frozen", False):  # PyInstaller: numba stamps the executable's hash itself
        return "frozen"
    core = Path(__file__).resolve().parent / "core" if core is None else core
    h = hashlib.sha1()
    try:
        for f in sorted(core.rglob("*.py")):  # every concept folder (kernels/, conv/, ...)
            st = f.stat()
            h.update(f"{f.relative_to(core).as_posix()}:{st.st_size}:{st.st_mtime_ns};".encode())
    except OSError:  # frozen bundle or unreadable tree: version alone
        pass
    return h.hexdigest()[:10]


def default_cache_dir() -> Path:
    """The numba cache directory ntkviz uses when ``NUMBA_CACHE_DIR`` is unset."""
    from ntkviz import __version__

    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "ntkviz" / f"numba-{__version__}-{_core_fingerprint()}"


def _private_temp_dir() -> Path:
    """A per-user folder in the temp dir that only this user can write.

    numba cache files are pickles: a predictable folder in a world-writable
    place that someone else created first could run their code as us. Reuse
    ``$TMPDIR/ntkviz-numba-<uid>`` only if it is a real directory owned by us
    and not writable by group or others; otherwise make a fresh private one.
    """
    import stat
    import tempfile

    base = Path(tempfile.gettempdir()) / f"ntkviz-numba-{os.getuid()}"
    try:
        base.mkdir(mode=0o700, exist_ok=True)
        st = os.lstat(base)
        if (stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid()
                and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)):
            return base
    except OSError:
        pass
    return Path(tempfile.mkdtemp(prefix="ntkviz-numba-"))


def _last_written(folder: Path) -> float:
    """The newest modification time of ``folder`` and of the folders and files directly in
    it (numba writes ``<cache>/<module folder>/<function>.nbi|.nbc``), without following
    symbolic links."""
    newest = folder.lstat().st_mtime
    with os.scandir(folder) as entries:
        for entry in entries:
            newest = max(newest, entry.stat(follow_symlinks=False).st_mtime)
            if entry.is_dir(follow_symlinks=False):
                with os.scandir(entry.path) as inner:
                    for item in inner:
                        newest = max(newest, item.stat(follow_symlinks=False).st_mtime)
    return newest


def prune_caches(current: Path, now: float | None = None) -> list[Path]:
    """Remove the numba cache folders beside ``current`` that ntkviz made for another
    version or core fingerprint; returns those removed.

    Only real folders (no symbolic link) named like ntkviz's (:data:`CACHE_FOLDER`,
    ``numba-<version>-<fingerprint>``), never ``current``, and only those nothing wrote to
    for :data:`STALE_AFTER_S` seconds (so a process of another version that still runs
    keeps its cache). Anything else in the parent folder (other caches of ntkviz, other
    programs' files) is left alone. Errors (a folder in use, no permission) are ignored:
    the folder stays."""
    import shutil

    now = time.time() if now is None else now
    removed = []
    try:
        siblings = list(os.scandir(current.parent))
    except OSError:
        return removed
    for entry in siblings:
        if entry.name == current.name or not CACHE_FOLDER.match(entry.name):
            continue
        try:
            if not entry.is_dir(follow_symlinks=False):
                continue
            if now - _last_written(Path(entry.path)) < STALE_AFTER_S:
                continue
            shutil.rmtree(entry.path)
        except OSError:
            continue
        removed.append(Path(entry.path))
    return removed


def configure() -> None:
    """Set environment defaults; idempotent and cheap (no heavy imports). A numba cache
    folder made now (a new version or an edited core) prunes the old ones
    (:func:`prune_caches`)."""
    if not os.environ.get("NUMBA_CACHE_DIR"):
        path = default_cache_dir()
        try:
            new = not path.is_dir()
            path.mkdir(parents=True, exist_ok=True)
        except OSError:
            path = _private_temp_dir() / path.name
            new = not path.is_dir()
            path.mkdir(parents=True, exist_ok=True)
        if new:
            prune_caches(path)
        os.environ["NUMBA_CACHE_DIR"] = str(path)
    os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")


# --------------------------------------------------------------- numba threading layer
#: layers on which concurrent ``parallel=True`` calls from several threads are safe
SAFE_THREADING_LAYERS = ("omp", "tbb")
_PARALLEL_LOCK = threading.Lock()
_LAYER_STATE: dict = {}


def _layer_available(layer: str) -> bool:
    """Whether numba can load the ``omp`` / ``tbb`` thread pool (its shared library)."""
    try:
        importlib.import_module(f"numba.np.ufunc.{layer}pool")
    except (ImportError, OSError):
        return False
    return True


def safe_threading_layer() -> str | None:
    """The safe layer numba will use (``"tbb"`` or ``"omp"``), or ``None`` when it will
    fall back to ``workqueue`` (not safe for concurrent parallel calls). Follows
    ``NUMBA_THREADING_LAYER``: ``workqueue`` forced is unsafe; ``omp``/``tbb`` forced
    are used if available; the defaults (``default``, ``safe``, ``threadsafe``,
    ``forksafe``) try tbb, then omp. Cached after the first call."""
    if "layer" not in _LAYER_STATE:
        forced = os.environ.get("NUMBA_THREADING_LAYER", "default").strip().lower()
        if forced == "workqueue":
            candidates: tuple[str, ...] = ()
        elif forced in SAFE_THREADING_LAYERS:
            candidates = (forced,)
        elif forced == "forksafe":
            candidates = ("tbb", "omp")  # numba: tbb, then omp (forksafe), then workqueue
        else:
            candidates = ("tbb", "omp")
        _LAYER_STATE["layer"] = next((c for c in candidates if _layer_available(c)), None)
    return _LAYER_STATE["layer"]


@contextlib.contextmanager
def parallel_section():
    """Context for every call of a ``parallel=True`` numba kernel: nothing on a safe
    threading layer; a process-wide lock (one parallel kernel at a time) when numba can
    only use ``workqueue``, with a one-time ``RuntimeWarning`` saying so."""
    if safe_threading_layer() is not None:
        yield
        return
    if not _LAYER_STATE.get("warned"):
        _LAYER_STATE["warned"] = True
        warnings.warn("numba has no thread-safe threading layer (OpenMP/TBB) here, only "
                      "'workqueue': ntkviz runs its parallel kernels one at a time "
                      "(install libgomp1 or TBB to run them concurrently)", RuntimeWarning,
                      stacklevel=3)
    with _PARALLEL_LOCK:
        yield
