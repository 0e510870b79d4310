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
--screenshot`` on its tab, see :meth:`MainWindow.start`).
"""
from __future__ import annotations

import importlib

from ntkviz.gui.panels import resolve

__all__ = ["warm_up_kernels", "import_core", "start_window", "BACKGROUND_KEYS"]

#: dispatcher keys of the start-up jobs (not the user's: no progress bar, no Cancel)
BACKGROUND_KEYS = ("_core", "_warmup")


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


def start_window(window) -> None:
    """Compute the visible panel of ``window`` (a :class:`MainWindow`), then the rest
    (steps 2 and 3 above); the window calls it once the core is loaded."""
    window._started = True
    window.compile_label.setText("preparing the computations (compiling on first use)…")
    current = window.current_panel()
    pending = {"started": False}

    def start_the_rest(*_):
        if pending["started"]:
            return
        pending["started"] = True
        for panel in list(window._built.values()):
            if panel is not current and panel.auto_compute:
                panel.start()
        extra = []
        for target in window._targets.values():
            try:
                warm = getattr(resolve(target), "warm_up", None)
            except Exception:  # noqa: BLE001 - reported when its tab is shown
                continue
            if warm is not None:
                extra.append(warm)

        def warm_up_all():
            warm_up_kernels()
            for warm in extra:
                warm()
            return "kernels ready"

        window.dispatcher.submit("_warmup", warm_up_all, immediate=True)

    compute_current = current is not None and (current.auto_compute or window._start_on_demand)
    if not compute_current or current.start() == 0:
        start_the_rest()
        return
    current.computed.connect(start_the_rest)
    current.status.connect(lambda _text: current.last_error and start_the_rest())
