"""Start-up of the main window: first plot soon, compilation in the background.

The window shows before the numeric core (numba, scipy) is imported. Then:

1. the core is imported on a worker (``_core`` job) once the window is shown:
   the window stays responsive meanwhile;
2. the visible panel computes first (numba compiles one function at a time, so
   nothing else competes with the first plot);
3. once it has drawn (or failed), the other built panels compute and every
   panel class's optional ``warm_up()`` runs on a worker (``_warmup`` job), so
   the kernels of the other tabs are compiled or loaded from the cache before
   the user opens them.

A panel that computes only on demand (``auto_compute`` False: a stability sweep, a
classification) is never started here: its Start button does it (or ``ntkviz gui
--screenshot`` on its tab: ``on_demand``). :class:`Startup` works through the
window's public methods only (``current_panel``, ``built_panels``, ``specs``,
``status``, ``show_message``).
"""
from __future__ import annotations

import importlib
import sys

from ntkviz import panels
from ntkviz.gui.workers import JobSlot

__all__ = ["Startup", "warm_up_kernels", "import_core"]


def warm_up_kernels() -> str:
    """Call the numba kernels of the kernel and spectrum panels once on tiny inputs
    (compiles them, or loads them from the cache)."""
    from ntkviz.core import KernelSpec
    from ntkviz.jobs import KernelCurveRequest, SpectrumRequest

    specs = (KernelSpec(name="ntk", depth=3), KernelSpec(name="arccos1"))
    KernelCurveRequest(specs=specs, n_points=5, derivative=True, near_one=True, n_near=3)()
    SpectrumRequest(specs=specs, dim=3, kmax=4)()
    return "kernels ready"


def import_core(model=None) -> str:
    """Import the numeric core behind the requests (run on a worker).

    ``model``: the visible panel's Qt-free parameter model. Its request is built once
    here, from a snapshot of its (frozen) parameters, which imports the job module and
    the kernel definitions it needs (numba, scipy: most of a second): the GUI thread then
    builds the first request without importing anything and stays responsive."""
    importlib.import_module("ntkviz.jobs")
    if model is not None:
        try:
            type(model).build_request(model.params)
        except Exception:  # noqa: BLE001 - the panel reports its own error when it starts
            pass
    return "core loaded"


class Startup:
    """The start-up sequence of ``window`` (a :class:`~ntkviz.gui.main_window.MainWindow`)."""

    def __init__(self, window, dispatcher):
        self.window = window
        #: the panels compute (set once the core is loaded and the visible panel started)
        self.started = False
        #: the visible panel computes even if it computes only on demand (screenshots)
        self.on_demand = False
        self._requested = False
        self._rest_started = False
        self._first = None  # the panel computed first
        self._core = JobSlot(dispatcher, "_core", "loading the computation modules", window)
        self._warm = JobSlot(dispatcher, "_warmup", "preparing the computations", window)
        self._core.returned.connect(lambda *_: self._requested and not self.started
                                    and self._start_panels())
        self._core.errored.connect(lambda _rid, message, _tag: self._failed(
            f"cannot load the computation modules: {message}"))
        self._warm.returned.connect(self._warmed)
        self._warm.errored.connect(lambda _rid, message, _tag: self._failed(
            f"preparing the computations failed: {message}"))

    def start(self, on_demand: bool = False) -> None:
        """Import the core on a worker, then compute the visible panel, then the others
        and the numba warm-up."""
        self._requested = True
        self.on_demand = on_demand
        if "ntkviz.jobs" not in sys.modules:
            # the numeric core (numba, scipy: about a second) is imported on a worker
            # after the window has shown (importing it meanwhile delays the window
            # and not the first plot); computing starts once it is loaded
            self.window.status.set_preparing("loading the computation modules…")
            model = getattr(self.window.current_panel(), "model", None)
            self._core.submit(lambda: import_core(model), immediate=True)
            return
        self._start_panels()

    def _start_panels(self) -> None:
        """Compute the visible panel, then the rest (steps 2 and 3 above)."""
        self.started = True
        self.window.status.set_preparing("preparing the computations (compiling on first use)…")
        current = self._first = self.window.current_panel()
        compute = current is not None and (current.auto_compute or self.on_demand)
        if not compute or current.start() == 0:
            self._start_rest()
            return
        current.computed.connect(self._start_rest)
        current.status.connect(lambda _text: current.last_error and self._start_rest())

    def _start_rest(self, *_) -> None:
        if self._rest_started:
            return
        self._rest_started = True
        for panel in self.window.built_panels():
            if panel is not self._first and panel.auto_compute:
                panel.start()
        extra = []
        for spec in self.window.specs():
            try:
                warm = getattr(panels.resolve(spec.view), "warm_up", None)
            except Exception:  # noqa: BLE001 - reported when its tab is shown
                continue
            if warm is not None:
                extra.append(warm)

        def warm_up_all():
            warm_up_kernels()
            for warm in extra:
                warm()
            return "kernels ready"

        self._warm.submit(warm_up_all, immediate=True)

    def _warmed(self, *_) -> None:
        self.window.status.set_preparing("")
        self.window.show_note("computations ready")

    def _failed(self, message: str) -> None:
        self.window.status.set_preparing("")
        self.window.show_message(message, error=True)
