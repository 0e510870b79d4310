"""Work around a reference-counting bug of PySide6 6.12 on Python < 3.12.

Observed with PySide6-Essentials 6.12.0 on CPython 3.11.7: every call of a
``void`` Qt method (``QGraphicsItem.update()``, ``setPos()`` …) and every
``Signal.emit()`` returns ``None`` / ``True`` *without* taking a new reference,
so each call decrements the reference count of ``None`` or ``True`` once. On
Python >= 3.12 these objects are immortal and nothing happens; on 3.11 their
count reaches zero after a few thousand calls — a few seconds of dragging a
slider over a pyqtgraph plot — and the interpreter aborts with ``Fatal Python
error: none_dealloc`` / ``bool_dealloc`` (exit code 134), mid-session or at exit.

:func:`protect_singletons` measures the leak once at import of
:mod:`ntkviz.gui` and, only if it is present, raises the reference counts of
``None``, ``True`` and ``False`` by 2**60, which is what Python 3.12 does for
them anyway (immortal objects). These three objects are statically allocated
and are never freed by a correct program, so a larger count changes nothing else.
"""
from __future__ import annotations

import ctypes
import platform
import sys

__all__ = ["protect_singletons", "singleton_leak"]

_BUMP = 1 << 60
_done = False


def singleton_leak(calls: int = 16) -> int:
    """How many references to ``None`` ``calls`` void Qt calls lose (0 when healthy)."""
    from PySide6 import QtCore

    obj = QtCore.QObject()
    before = sys.getrefcount(None)
    for _ in range(calls):
        obj.setObjectName("ntkviz")
    return before - sys.getrefcount(None)


def protect_singletons() -> bool:
    """Make ``None``/``True``/``False`` effectively immortal if this PySide6 leaks
    their references (CPython < 3.12 only). Returns ``True`` if applied."""
    global _done
    if _done or sys.version_info >= (3, 12) or platform.python_implementation() != "CPython":
        return False
    if singleton_leak() < 8:
        return False
    for obj in (None, True, False):
        # ob_refcnt is the first field (Py_ssize_t) of every CPython object
        ctypes.c_ssize_t.from_address(id(obj)).value += _BUMP
    _done = True
    return True
