"""Lazy-training benchmarks: one training run, and the animation's drawn frame rate.

* ``train m=200 n=20 5000 steps``: :func:`ntkviz.core.dynamics.train` from scratch (draws,
  K0 and NTK eigendecompositions, net + linearisation gradient descent in lock-step,
  kernel flows evaluated at every frame) — target <= 1 s.
* ``animation drawn frame rate``: the panel (offscreen, two runs side by side) draws
  successive frames as fast as it can, each followed by a full repaint of the plot
  canvas into an image (what a screen would show) — target >= 30 frames/s.
"""
from __future__ import annotations

import time

from ntkviz.bench import Result, median_time

RUN = dict(alpha=1.0, width=200, samples=20, steps=5000, lr=0.01, frames=120)


def _train_once() -> None:
    from ntkviz.core.dynamics import TrainConfig, train

    result = train(TrainConfig(**RUN))
    if result.diverged:
        raise RuntimeError(result.message)


def _drawn_fps(repeats: int) -> float:
    """Frames per second of show_frame + a synchronous repaint of the canvas."""
    from PySide6 import QtGui

    from ntkviz.gui.headless import build_panel
    from ntkviz.gui.panels.training import QtTrainingPanel

    panel = build_panel(QtTrainingPanel, {"autoplay": False})
    try:
        canvas = panel.canvas
        image = QtGui.QImage(canvas.size(), QtGui.QImage.Format.Format_ARGB32)
        n = panel.frame_count()
        rates = []
        for _ in range(max(1, repeats)):
            t0 = time.perf_counter()
            for i in range(n):
                panel.show_frame(i)
                painter = QtGui.QPainter(image)
                canvas.render(painter)  # the paint a visible window would do
                painter.end()
            rates.append(n / (time.perf_counter() - t0))
        rates.sort()
        return rates[len(rates) // 2]
    finally:
        panel.dispatcher.shutdown()
        panel.close()
        panel.deleteLater()


def run(repeats: int) -> list[Result]:
    results = [Result(f"train m={RUN['width']} n={RUN['samples']} {RUN['steps']} steps "
                      "(+ linearised, kernel flows)", median_time(_train_once, repeats), 1.0,
                      note=f"{RUN['frames']} frames")]
    try:
        fps = _drawn_fps(min(repeats, 3))
    except ImportError as exc:  # no Qt available
        results.append(Result("animation drawn frame rate", float("nan"), note=f"skipped: {exc}"))
    else:
        results.append(Result("animation drawn frame rate (2 runs, offscreen)", fps, 30.0,
                              unit="frames/s"))
    return results
