"""Python's cyclic garbage collector on the GUI thread only.

CPython collects in whichever thread crosses the allocation threshold. A collection
on a worker thread frees pyqtgraph items caught in reference cycles from the wrong
thread while the GUI thread paints them (memory corruption; seen as an abort inside
garbage collection). While a :class:`ntkviz.gui.workers.Dispatcher` is open it holds
:data:`GUI_THREAD_GC`, which turns automatic collection off and collects from a
GUI-thread timer instead.
"""
from __future__ import annotations

import gc

from PySide6.QtCore import QTimer

__all__ = ["GuiThreadGarbageCollector", "GUI_THREAD_GC"]


class GuiThreadGarbageCollector:
    """Python's cyclic garbage collector run by a GUI-thread timer, while held.

    :meth:`hold` (on the GUI thread) turns automatic collection off; every
    ``interval_ms`` a timer collects generation g (and the younger ones) when its
    count has passed ``gc.get_threshold()[g]``, as CPython would: the policy of
    pyqtgraph's ``GarbageCollector``, with an end. Objects that exist at the first
    hold are frozen out of the collections (``gc.freeze``), so no timer collection
    traverses the start-up heap on the GUI thread. The last :meth:`release` unfreezes
    them and turns automatic collection back on (if it was on). Each open
    :class:`~ntkviz.gui.workers.Dispatcher` holds it, so worker threads never run a collection. A process
    has one (:data:`GUI_THREAD_GC`).
    """

    def __init__(self, interval_ms: int = 100):
        self.interval_ms = int(interval_ms)
        self._holders = 0
        self._timer: QTimer | None = None
        self._was_enabled = True

    @property
    def held(self) -> bool:
        """``True`` while automatic collection is replaced by the GUI-thread timer."""
        return self._holders > 0

    def hold(self) -> None:
        """Start (or join) GUI-thread collection; call on the GUI thread."""
        if self._holders == 0:
            self._was_enabled = gc.isenabled()
            gc.disable()
            # what exists now (modules, classes, the app's start-up objects) lives as long
            # as the process: keep it out of every collection, as CPython's own full
            # collections mostly do, so that none traverses it on the GUI thread
            gc.freeze()
            self._timer = QTimer()
            self._timer.timeout.connect(self.collect)
            self._timer.start(self.interval_ms)
        self._holders += 1

    def release(self) -> None:
        """Leave; the last holder restores automatic collection."""
        if self._holders == 0:
            return
        self._holders -= 1
        if self._holders == 0:
            self._timer.stop()
            self._timer = None
            gc.unfreeze()
            if self._was_enabled:
                gc.enable()

    @staticmethod
    def collect() -> int:
        """Collect the oldest generation whose allocation count passed its threshold
        (younger ones with it); returns the number of unreachable objects found."""
        counts, thresholds = gc.get_count(), gc.get_threshold()
        generation = -1
        for g in range(3):
            if counts[g] <= thresholds[g]:
                break
            generation = g
        return gc.collect(generation) if generation >= 0 else 0


#: the process's collector (held by every open :class:`ntkviz.gui.workers.Dispatcher`)
GUI_THREAD_GC = GuiThreadGarbageCollector()


