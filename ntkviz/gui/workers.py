"""Run Qt-free jobs on thread pools and deliver the latest result per key.

The :class:`Dispatcher` is the only place where ntkviz touches threads. A panel
hands it a *job*, a zero-argument callable (usually a frozen request dataclass
from :mod:`ntkviz.jobs`), under a *key* (the panel's key). The dispatcher

* throttles bursts per key on the trailing edge (a single-shot ``QTimer``; one
  delay, fixed when the dispatcher is made, default 30 ms; ``immediate=True``
  skips it): dragging a slider computes at most ~30 times a second and the
  last position is always computed;
* keeps at most one job per key running; while it runs, newer submissions
  replace each other in a single pending slot (superseded jobs are dropped,
  never queued);
* numbers every submission (``request_id``) and delivers a result only if it
  is newer than every result already delivered for that key (``returned``):
  while a slider is dragged, each finished job is shown at once (live
  updates), an older result can never overwrite a newer one, and the newest
  request is always computed and shown last; results of cancelled requests
  are dropped;
* runs ``heavy=True`` jobs (``parallel=True`` numba kernels, long jobs) on a
  one-thread pool, so at most one parallel kernel runs at a time
  (numba allows one parallel region at a time), and everything else on a small
  light pool;
* runs generator jobs (:meth:`Dispatcher.submit_generator`), forwarding each
  item on ``yielded`` (progress or partial results) and stopping between
  items when cancelled or superseded; ``returned`` then carries the
  generator's return value;
* turns exceptions into one readable line on ``errored``;
* on :meth:`shutdown` cancels everything and waits for both pools, at most
  until one deadline (a numba call cannot be interrupted: the caller then ends
  the process);
* while it is open, keeps Python's cyclic garbage collector on the GUI thread
  (:mod:`ntkviz.gui.collector`).

A panel owns one :class:`JobSlot` per job it runs: the slot submits requests
(whether a request runs on the heavy pool and whether it is iterated are the
request's own class attributes ``heavy`` and ``iterated``, see
:mod:`ntkviz.jobs`) and receives only the results of its own submissions,
each with the tag it was submitted with (the parameters it was computed for).
The dispatcher's own signals carry every key (the status bar's progress).

Each worker's signals live on a ``QObject`` created on the GUI thread and kept
referenced until the worker has finished (a signal object freed while its
queued calls are pending crashes PySide6); results
cross threads through queued connections, so every public signal is emitted on
the GUI thread.

Example
-------
>>> d = Dispatcher()                                   # doctest: +SKIP
>>> slot = JobSlot(d, "kernel", "Kernel curves")
>>> slot.returned.connect(lambda rid, response, tag: print(rid, response, tag))
>>> slot.submit(KernelCurveRequest(...), tag=params)   # returns the request id
"""
from __future__ import annotations

import logging
import threading
import traceback
from dataclasses import dataclass, field
from typing import Callable, Iterator

from PySide6 import QtCore
from PySide6.QtCore import QObject, QRunnable, QThreadPool, QTimer, Signal, Slot

from ntkviz.gui.collector import GUI_THREAD_GC

__all__ = ["Dispatcher", "JobSlot", "readable_error", "QUIT_WAIT_MS"]

log = logging.getLogger("ntkviz.gui.workers")

#: the longest a quitting app waits for running jobs (after cancelling them), in ms
QUIT_WAIT_MS = 1200


def readable_error(exc: BaseException) -> str:
    """One line for the status bar: the message of a ``ValueError`` (our validation
    errors name the argument and range), else ``TypeName: message``."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    if isinstance(exc, ValueError) and text:
        return text
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class _WorkerSignals(QObject):
    """Signals of one worker; created on the GUI thread (receivers get queued calls)."""

    returned = Signal(str, int, object)
    yielded = Signal(str, int, object)
    errored = Signal(str, int, str)
    finished = Signal(str, int)


class _Worker(QRunnable):
    """Run ``job`` once (or iterate it when ``generator``), emitting on ``signals``."""

    def __init__(self, key: str, request_id: int, job: Callable, generator: bool):
        super().__init__()
        self.key = key
        self.request_id = request_id
        self.setAutoDelete(False)  # the dispatcher owns us until `finished` is delivered
        self.job = job
        self.generator = generator
        self.cancelled = threading.Event()
        self.signals = _WorkerSignals()

    def _emit(self, signal, *args) -> None:
        try:
            signal.emit(*args)
        except RuntimeError:  # the app quit and Qt deleted our signals object: nobody listens
            pass

    def run(self) -> None:  # worker thread
        key, rid = self.key, self.request_id
        sig = self.signals
        try:
            if self.cancelled.is_set():
                return
            if not self.generator:
                result = self.job()
                if not self.cancelled.is_set():
                    self._emit(sig.returned, key, rid, result)
                return
            gen = self.job()
            try:
                while True:
                    if self.cancelled.is_set():
                        return
                    try:
                        item = next(gen)
                    except StopIteration as stop:
                        result = stop.value
                        break
                    if not self.cancelled.is_set():
                        self._emit(sig.yielded, key, rid, item)
            finally:
                close = getattr(gen, "close", None)
                if close is not None:
                    close()
            if not self.cancelled.is_set():
                self._emit(sig.returned, key, rid, result)
        except BaseException as exc:  # noqa: BLE001 - everything goes to the status bar
            log.debug("job failed:\n%s", traceback.format_exc())
            if not self.cancelled.is_set():
                self._emit(sig.errored, key, rid, readable_error(exc))
        finally:
            self._emit(sig.finished, key, rid)


@dataclass
class _Pending:
    request_id: int
    job: Callable
    heavy: bool
    generator: bool


@dataclass
class _KeyState:
    """Book-keeping for one key (GUI thread only)."""

    latest: int = 0
    delivered: int = 0  # newest request id whose result was delivered
    dropped_upto: int = 0  # results of requests <= this id were cancelled
    pending: _Pending | None = None
    running: _Worker | None = None
    running_id: int = 0
    timer: QTimer | None = None
    workers: dict = field(default_factory=dict)  # request_id -> _Worker kept alive
    last_busy: bool = False
    slots: dict = field(default_factory=dict)  # request_id -> (JobSlot, tag) of the submission
    owners: list = field(default_factory=list)  # every JobSlot that submitted under this key


class Dispatcher(QObject):
    """Latest-wins job runner keyed by panel (see the module docstring).

    Signals (all emitted on the GUI thread)
    ---------------------------------------
    returned(key, request_id, response)
        A result newer than any delivered so far for ``key`` (superseded
        results still show progress during a drag; older ones are dropped).
    yielded(key, request_id, item)
        An item produced by a generator job (progress or a partial result).
    errored(key, request_id, message)
        The newest request for ``key`` raised; ``message`` is one readable line.
    busy(key, is_busy)
        ``True`` when a job for ``key`` is pending or running, ``False`` when idle.
    """

    returned = Signal(str, int, object)
    yielded = Signal(str, int, object)
    errored = Signal(str, int, str)
    busy = Signal(str, bool)

    def __init__(self, parent: QObject | None = None, light_threads: int | None = None,
                 throttle_ms: int = 30):
        super().__init__(parent)
        if not 0 <= int(throttle_ms) <= 1000:
            raise ValueError(f"throttle_ms must be in [0, 1000], got {throttle_ms}")
        #: the one trailing-edge throttle delay, fixed at construction
        self.throttle_ms = int(throttle_ms)
        self._light = QThreadPool(self)
        # numba kernels release the GIL: a few threads more than cores keeps one slow
        # panel from holding up the others (each key runs at most one job at a time)
        self._light.setMaxThreadCount(light_threads or 4)
        self._heavy = QThreadPool(self)
        self._heavy.setMaxThreadCount(1)
        self._keys: dict[str, _KeyState] = {}
        #: key -> the job's name (from its :class:`JobSlot`), for progress texts
        self.titles: dict[str, str] = {}
        #: keys whose panel has a Cancel button of its own for the job
        self.own_cancel: set[str] = set()
        self._closed = False
        self._done = True
        self._deadline = None
        GUI_THREAD_GC.hold()  # released by shutdown()

    # ------------------------------------------------------------------ API
    def submit(self, key: str, job: Callable[[], object], *, heavy: bool = False,
               immediate: bool = False) -> int:
        """Schedule ``job()`` for ``key`` and return its request id.

        The job starts after the dispatcher's throttle delay (trailing edge), or at
        once when ``immediate``, unless a newer submission replaces it first, and
        only after the running job of the same key has finished. A result is
        delivered unless a newer one already was.
        """
        return self._submit(key, job, heavy=heavy, generator=False, immediate=immediate)

    def submit_generator(self, key: str, job: Callable[[], Iterator], *, heavy: bool = True,
                         immediate: bool = True) -> int:
        """Schedule a generator job: ``job()`` returns a generator whose items go to
        ``yielded``; ``returned`` then carries the generator's return value. Cancelled
        between items by :meth:`cancel` or by a newer submission for ``key``."""
        return self._submit(key, job, heavy=heavy, generator=True, immediate=immediate)

    def cancel(self, key: str) -> None:
        """Drop the pending job for ``key``, ask the running one to stop at its next
        yield, and ignore any result still on its way."""
        st = self._keys.get(key)
        if st is None:
            return
        st.latest += 1  # anything in flight is now stale
        st.dropped_upto = st.latest
        st.pending = None
        if st.timer is not None:
            st.timer.stop()
        if st.running is not None:
            st.running.cancelled.set()
        self._update_busy(key)

    def latest_id(self, key: str) -> int:
        """The id of the newest request submitted for ``key`` (0 if none)."""
        st = self._keys.get(key)
        return st.latest if st else 0

    def is_busy(self, key: str) -> bool:
        """``True`` while a job for ``key`` is pending or running."""
        st = self._keys.get(key)
        return bool(st and (st.pending is not None or st.running is not None))

    def busy_keys(self) -> list[str]:
        """Keys with a pending or running job."""
        return [k for k in self._keys if self.is_busy(k)]

    def shutdown(self, timeout_ms: int = QUIT_WAIT_MS) -> bool:
        """Cancel every job and wait for the running ones, until ``timeout_ms`` after the
        first call (one deadline for both pools and for every later call).

        Returns ``True`` if no job is still running (a numba call cannot be
        interrupted; the caller may then end the process without finalising).
        Safe to call again (it then waits, up to the same deadline, for a job that was
        still running); later submissions are ignored (they return id 0). Once no job
        runs, the dispatcher lets go of :data:`GUI_THREAD_GC`."""
        if self._closed and self._done:
            return True
        if not self._closed:
            self._closed = True
            self._deadline = QtCore.QDeadlineTimer(max(0, int(timeout_ms)))
            for st in self._keys.values():
                st.pending = None
                if st.timer is not None:
                    st.timer.stop()
                for worker in st.workers.values():
                    worker.cancelled.set()
            for pool in (self._light, self._heavy):
                pool.clear()
        self._done = all([pool.waitForDone(self._deadline) for pool in (self._light, self._heavy)])
        if self._done:  # a job still running keeps the collector off its thread
            GUI_THREAD_GC.release()
        return self._done

    # ------------------------------------------------------------ internals
    def _state(self, key: str) -> _KeyState:
        st = self._keys.get(key)
        if st is None:
            st = self._keys[key] = _KeyState()
            st.timer = QTimer(self)
            st.timer.setSingleShot(True)
            st.timer.setTimerType(QtCore.Qt.TimerType.PreciseTimer)
            st.timer.timeout.connect(lambda k=key: self._launch(k))
        return st

    def _submit(self, key, job, *, heavy, generator, immediate, slot=None, tag=None) -> int:
        if self._closed:
            return 0
        if not callable(job):
            raise TypeError(f"job must be callable, got {type(job).__name__}")
        st = self._state(key)
        st.latest += 1
        if st.pending is not None:
            st.slots.pop(st.pending.request_id, None)  # superseded before it started
        if slot is not None:
            st.slots[st.latest] = (slot, tag)
            if slot not in st.owners:
                st.owners.append(slot)
        st.pending = _Pending(st.latest, job, bool(heavy), bool(generator))
        if generator and st.running is not None:
            st.running.cancelled.set()  # a generator is long: stop the superseded one now
        self._update_busy(key)
        if immediate or self.throttle_ms == 0:
            st.timer.stop()
            self._launch(key)
        elif not st.timer.isActive():
            st.timer.start(self.throttle_ms)
        return st.latest

    def _launch(self, key: str) -> None:
        st = self._keys[key]
        if self._closed or st.pending is None or st.running is not None:
            return  # a running job launches the pending one when it finishes
        p, st.pending = st.pending, None
        rid = p.request_id
        worker = _Worker(key, rid, p.job, p.generator)
        # bound slots of this GUI-thread QObject: queued delivery on the GUI thread
        worker.signals.returned.connect(self._on_returned)
        worker.signals.yielded.connect(self._on_yielded)
        worker.signals.errored.connect(self._on_errored)
        worker.signals.finished.connect(self._on_finished)
        st.workers[rid] = worker
        st.running, st.running_id = worker, rid
        (self._heavy if p.heavy else self._light).start(worker)

    @Slot(str, int, object)
    def _on_returned(self, key: str, rid: int, response) -> None:
        st = self._keys[key]
        if not self._closed and rid > st.delivered and rid > st.dropped_upto:
            st.delivered = rid
            _to_slot(st.slots.get(rid), "returned", rid, response)  # the panel first, then the others
            self.returned.emit(key, rid, response)

    @Slot(str, int, object)
    def _on_yielded(self, key: str, rid: int, item) -> None:
        st = self._keys[key]
        if not self._closed and rid == st.latest:
            _to_slot(st.slots.get(rid), "yielded", rid, item)  # the panel first, then the others
            self.yielded.emit(key, rid, item)

    @Slot(str, int, str)
    def _on_errored(self, key: str, rid: int, message: str) -> None:
        st = self._keys[key]
        if not self._closed and rid == st.latest:
            _to_slot(st.slots.get(rid), "errored", rid, message)  # the panel first, then the others
            self.errored.emit(key, rid, message)

    @Slot(str, int)
    def _on_finished(self, key: str, rid: int) -> None:
        st = self._keys[key]
        st.workers.pop(rid, None)
        st.slots.pop(rid, None)
        if st.running_id == rid:
            st.running, st.running_id = None, 0
        if self._closed:
            return
        if st.pending is not None and not st.timer.isActive():
            self._launch(key)
        self._update_busy(key)

    def _update_busy(self, key: str) -> None:
        busy = self.is_busy(key)
        st = self._keys[key]
        if st.last_busy != busy:
            st.last_busy = busy
            self.busy.emit(key, busy)
            for slot in list(st.owners):
                try:
                    slot.busy.emit(busy)
                except RuntimeError:  # the slot's panel was deleted
                    st.owners.remove(slot)


def _to_slot(owner, signal: str, *args) -> None:
    """Emit ``signal`` of the submitting slot (``owner = (slot, tag)``) with ``args`` and
    the tag; nothing if there is none or its panel was deleted."""
    if owner is None:
        return
    try:
        getattr(owner[0], signal).emit(*args, owner[1])
    except RuntimeError:
        pass


class JobSlot(QObject):
    """The jobs of one panel under one dispatcher key (see the module docstring).

    ``title`` names the job where the window shows its progress ("Classification",
    "Generalisation: Monte-Carlo"); ``own_cancel``: the panel shows a Cancel button of
    its own for this job (the window then adds none). Signals (GUI thread):
    ``returned(request_id, response, tag)``, ``yielded(request_id, item, tag)``,
    ``errored(request_id, message, tag)`` for this slot's own submissions,
    ``busy(is_busy)``."""

    returned = Signal(int, object, object)
    yielded = Signal(int, object, object)
    errored = Signal(int, str, object)
    busy = Signal(bool)

    def __init__(self, dispatcher: "Dispatcher", key: str, title: str = "", parent=None,
                 own_cancel: bool = False):
        super().__init__(parent)
        self.dispatcher = dispatcher
        self.key = key
        self.title = title or key
        dispatcher.titles[key] = self.title
        if own_cancel:
            dispatcher.own_cancel.add(key)

    def submit(self, request, *, immediate: bool = False, tag=None) -> int:
        """Run ``request`` (a request of :mod:`ntkviz.jobs`, or any zero-argument callable):
        on the heavy pool if its class says ``heavy``, through its ``iterate()`` if it
        says ``iterated``. ``tag`` comes back with its results. Returns the request id
        (0 once the dispatcher is shut down)."""
        iterated = bool(getattr(request, "iterated", False))
        job = request.iterate if iterated else request
        return self.dispatcher._submit(self.key, job, heavy=bool(getattr(request, "heavy", False)),
                                       generator=iterated, immediate=immediate, slot=self,
                                       tag=tag)

    def cancel(self) -> None:
        """Stop this key's running job at its next item, drop its pending one and ignore
        any result still on its way."""
        self.dispatcher.cancel(self.key)

    def is_busy(self) -> bool:
        return self.dispatcher.is_busy(self.key)

    def latest_id(self) -> int:
        return self.dispatcher.latest_id(self.key)
