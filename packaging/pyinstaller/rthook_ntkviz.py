"""PyInstaller runtime hook (runs before ntkviz): let numba cache into NUMBA_CACHE_DIR.

See ``ntkviz_frozen_cache.py``: in a frozen app numba's own locators ignore
``NUMBA_CACHE_DIR``. numba reads ``NUMBA_CACHE_LOCATOR_CLASSES`` when it is imported;
numba's user-wide locator stays as a fallback. Importing nothing heavy here keeps start-up fast.
"""
import os

os.environ.setdefault(
    "NUMBA_CACHE_LOCATOR_CLASSES", "ntkviz_frozen_cache.FrozenCacheLocator,UserWideCacheLocator"
)
