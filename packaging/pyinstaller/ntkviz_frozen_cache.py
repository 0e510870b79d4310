"""A numba cache locator for the PyInstaller bundle (bundled as a top-level module).

numba's ``cache=True`` normally honours ``NUMBA_CACHE_DIR`` (ntkviz's ``_env`` sets it to
``$XDG_CACHE_HOME/ntkviz/numba-<version>-…`` with a temporary-folder fallback), but numba's
own locators need the module's ``.py`` file on disk. A frozen app has none: PyInstaller
stores byte code with *relative* file names (``ntkviz/core/kernels/arccos.py``), so numba 0.68

* ignores ``NUMBA_CACHE_DIR`` and writes to ``~/.cache/numba/core_<sha1(cwd + name)>``,
  i.e. one cache per working directory, and
* raises ``RuntimeError: cannot cache function …: no locator available`` **at import**
  when ``~/.cache`` is not writable (checked: read-only ``$HOME`` as an unprivileged user).

:class:`FrozenCacheLocator` keeps the cache in ``NUMBA_CACHE_DIR`` under a sub-folder named
after the relative source folder (independent of the working directory). Its freshness
stamp is numba's frozen-app stamp, a hash of the executable, which embeds all byte code:
a rebuilt bundle never loads machine code compiled by another build. The runtime hook
``rthook_ntkviz.py`` selects it through numba's ``NUMBA_CACHE_LOCATOR_CLASSES``.
"""
from __future__ import annotations

import os

from numba.core import config
from numba.core.caching import UserProvidedCacheLocator

__all__ = ["FrozenCacheLocator"]


class FrozenCacheLocator(UserProvidedCacheLocator):
    """``NUMBA_CACHE_DIR`` locator that does not require the source file to exist."""

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path = os.path.join(config.CACHE_DIR, self.get_suitable_cache_subpath(py_file))

    @classmethod
    def get_suitable_cache_subpath(cls, py_file):
        if os.path.isabs(py_file):  # not expected in a bundle: numba's own naming
            return super().get_suitable_cache_subpath(py_file)
        return os.path.dirname(py_file).replace(os.sep, "_") or "top"  # e.g. "ntkviz_core"

    @classmethod
    def from_function(cls, py_func, py_file):
        if not config.CACHE_DIR:
            return None
        self = cls(py_func, py_file)
        try:
            self.ensure_cache_path()
        except OSError:
            return None
        return self
