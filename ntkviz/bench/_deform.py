"""Benchmarks of the deformation editor and the stability view.

* one editor update (DeformRequest with cached reference norms: warp, norms of
  the deformed digit, one cross kernel, and the explicit maps' read-outs) on M1 -- the
  slider-to-read-out compute latency; its pictures alone (warp, the pixel, scattering and
  Fourier-modulus read-outs: what is drawn before the kernel distances); and the same through
  the model (DeformationModel.build_request: the
  digit, the architecture and the request built from the parameters, the
  digit's norms from the core's cache), as the panel does per change;
* a scripted drag in the real panel, offscreen: 100 slider positions fed at
  ~60 events/s through the Qt event loop; reports read-out updates per second
  during the drag (target >= 20) and the latency from the last slider event to
  the drawing of its read-out;
* the default stability sweep (:class:`ntkviz.models.stability.StabilityParams` defaults);
* the default "sets" computation of the stability view (the paper's Fig. 1: 4 sets x 20
  digits x 4 last-pooling values x CKN and NTK, :class:`ntkviz.jobs.StabilitySetsRequest`
  defaults), its distance cache emptied before every run.

Allocator: glibc defaults (no MALLOC_* tuning).
"""
from __future__ import annotations

import statistics
import time

import numpy as np

from ntkviz.bench import Result, median_time

DRAG_EVENTS = 100
DRAG_INTERVAL_MS = 16


def _request_latency(repeats: int) -> Result:
    from ntkviz.core.conv.architecture import PRESETS
    from ntkviz.core.conv.gram import image_norms
    from ntkviz.core.deformations.deform import Deformation
    from ntkviz.core.deformations.digits import digit_image
    from ntkviz.jobs import DeformRequest

    x = digit_image(3, 0)
    arch = PRESETS["M1"]
    norms = image_norms(x, arch)
    counter = iter(np.linspace(0.1, 3.0, 10 * (repeats + 2)))  # a new deformation each call

    def one():
        DeformRequest(x, Deformation(translate_x=next(counter), rotation_deg=3.0), arch,
                      reference_norms=norms)()

    return Result("deform: one editor update (M1, warp + norms + cross kernel)",
                  median_time(one, repeats), target=0.05)


def _pictures_latency(repeats: int) -> Result:
    from ntkviz.core.conv.architecture import PRESETS
    from ntkviz.core.deformations.deform import Deformation
    from ntkviz.core.deformations.digits import digit_image
    from ntkviz.jobs import DeformRequest

    x = digit_image(3, 0)
    arch = PRESETS["M1"]
    DeformRequest(x, Deformation(translate_x=0.05), arch).images()   # features of x kept
    counter = iter(np.linspace(0.1, 3.0, 10 * (repeats + 2)))

    def one():
        DeformRequest(x, Deformation(translate_x=next(counter), rotation_deg=3.0), arch).images()

    return Result("deform: pictures + pixel, scattering, Fourier read-outs (no kernel)",
                  median_time(one, max(repeats, 30)), target=0.01,
                  note="warp, S_J (J=2, L=8, order 2) and |x^| of L_tau x")


def _model_update(repeats: int) -> Result:
    from ntkviz.models.deformation import DeformationModel

    model = DeformationModel()
    model.update(label=3)
    model.request()()  # the digit's norms into the core's cache
    counter = iter(np.linspace(0.1, 3.0, 10 * (repeats + 2)))

    def one():
        model.update(translate_x=float(next(counter)), rotation_deg=3.0)
        model.request()()

    return Result("deform: one editor update through the model (as the panel)",
                  median_time(one, repeats), target=0.05)


def _scripted_drag(repeats: int) -> list[Result]:
    from PySide6 import QtCore

    from ntkviz.gui.headless import ensure_app
    from ntkviz.gui.panels.deformation import QtDeformationPanel
    from ntkviz.gui.workers import Dispatcher

    app = ensure_app()
    dispatcher = Dispatcher()
    panel = QtDeformationPanel(dispatcher)
    panel.model.context_per_class = 1  # the context job is not what is measured
    panel.resize(1300, 850)
    panel.show()
    rates, latencies = [], []
    try:
        loop = QtCore.QEventLoop()
        done = panel.computed.connect(lambda rid: loop.quit())
        panel.start()
        loop.exec()  # first draw (numba loaded)
        panel.computed.disconnect(done)
        slider = panel.sliders["rotation_deg"].slider
        for rep in range(max(1, repeats)):
            times, ids = [], []
            conn = panel.computed.connect(
                lambda rid: (times.append(time.perf_counter()), ids.append(rid)))
            positions = np.linspace(0, slider.maximum(), DRAG_EVENTS).astype(int)
            if rep % 2:
                positions = positions[::-1]
            t0 = time.perf_counter()
            for pos in positions:
                t_event = time.perf_counter()
                slider.setValue(int(pos))
                end = time.perf_counter() + DRAG_INTERVAL_MS / 1000
                while time.perf_counter() < end:
                    app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 2)
            t_last = time.perf_counter()
            want = dispatcher.latest_id(panel.key)
            while want not in ids:
                app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 5)
            app.processEvents()
            panel.computed.disconnect(conn)
            during = [t for t in times if t <= t_last]
            rates.append(len(during) / (t_last - t0))
            latencies.append(times[ids.index(want)] - t_event)
    finally:
        dispatcher.shutdown()
        panel.close()
    note = f"{DRAG_EVENTS} events at {1000 // DRAG_INTERVAL_MS}/s, offscreen"
    return [Result("deform: read-out updates per second during a drag", statistics.median(rates),
                   target=20.0, unit="updates/s", note=note),
            Result("deform: last slider event -> its read-out drawn", statistics.median(latencies),
                   note="the dispatcher's throttle, then its computation")]


def _default_sweep(repeats: int) -> Result:
    from ntkviz.models.stability import StabilityModel

    model = StabilityModel()
    req = model.request()
    size = (f"{len(req.digits)} digits x {len(req.amplitudes)} amplitudes x {len(req.seeds)} seed, "
            f"{model.params.family}, {model.params.architecture}, "
            f"{req.reference_per_class} reference digits/label")
    return Result("stability: default sweep", median_time(req, max(1, min(repeats, 3))),
                  note=size)


def _default_sets(repeats: int) -> Result:
    from ntkviz.core.deformations import sets
    from ntkviz.jobs import StabilitySetsRequest

    req = StabilitySetsRequest()

    def one():
        with sets._CACHE_LOCK:
            sets._DISTANCES.clear()
        req()

    size = (f"{len(req.sets)} sets x {req.set_size} digits x {len(req.values)} {req.sweep} values, "
            f"CKN and NTK, {req.architecture.label}")
    return Result("stability: default sets computation (Fig. 1)", median_time(one, max(1, min(repeats, 3))),
                  target=30.0, note=size)


def run(repeats: int) -> list[Result]:
    results = [_request_latency(repeats), _pictures_latency(repeats), _model_update(repeats)]
    results += _scripted_drag(min(repeats, 3))
    results.append(_default_sweep(repeats))
    results.append(_default_sets(repeats))
    return results
