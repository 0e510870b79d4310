"""Lazy-training benchmarks: one training run, and the animation's drawn frame rate.

* ``train m=200 n=20 5000 steps``: :func:`ntkviz.core.training.dynamics.train` from scratch (draws,
  K0 and NTK eigendecompositions, net + linearisation gradient descent in lock-step,
  kernel flows evaluated at every frame) — target <= 1 s.
* ``lazy-sweep 13 α × 3 seeds``: :class:`ntkviz.jobs.LazySweepRequest` with its defaults (13 α
  from 1e-2 to 1e4, the tab's size m = 20, n = 15, 10000 steps, NTK scaling): 39 runs, draws and
  κ_α computed once per seed — target <= 20 s; and the time to its first partial response
  (the generator yields after every (α, seed)).
* ``GUI while the sweep runs``: the same sweep started from the tab's sweep page (its worker
  thread; the figure against α redrawn after every finished run) with a 5 ms timer on the GUI
  thread: the longest gap between its ticks (event-loop stall) — target <= 50 ms, as for the
  dispatcher's slider drags — the median gap, the GUI thread's CPU time per drawing (what a
  drawing stalls on a free core) and the sweep's wall time with its drawings.
* ``animation drawn frame rate``: the panel (offscreen window, two runs side by side)
  calls show_frame and then repaints its whole plot canvas synchronously
  (``viewport().repaint()``: the window's own paint path, into its backing store), back
  to back — target >= 30 frames/s (pessimistic: a window repaints only the changed
  regions). Also reported: frames actually painted per second while the panel's timer
  plays the timeline at 30 frames/s, and the timer ticks dropped because the previous
  frame was still drawing.
"""
from __future__ import annotations

import time

from ntkviz.bench import Result, median_time

RUN = dict(alpha=1.0, width=200, samples=20, steps=5000, lr=0.01, frames=120)


def _train_once() -> None:
    from ntkviz.core.training.dynamics import TrainConfig, train

    result = train(TrainConfig(**RUN))
    if result.diverged:
        raise RuntimeError(result.message)


def _sweep_once() -> None:
    from ntkviz.jobs import LazySweepRequest

    response = LazySweepRequest()()
    if response.runs().sum() != 39:
        raise RuntimeError("; ".join(response.notes))


def _first_partial() -> None:
    from ntkviz.jobs import LazySweepRequest

    gen = LazySweepRequest().iterate()
    next(gen)
    gen.close()


def sweep_results(repeats: int) -> list[Result]:
    """The α-sweep at the tab's size, and the wait for its first partial response."""
    return [Result("lazy-sweep 13 α × 3 seeds (m=20 n=15 10000 steps)",
                   median_time(_sweep_once, repeats), 20.0, note="39 runs, NTK scaling"),
            Result("  first partial response", median_time(_first_partial, repeats),
                   note="one (α, seed) run and the draws of its seed")]


def _sweep_stall() -> tuple[float, float, float, int, float]:
    """The default sweep run from the tab's sweep page (offscreen window) with a 5 ms timer
    on the GUI thread. Returns (longest gap between ticks, median gap, wall time from Run
    sweep to the final drawing, drawings, CPU time of the GUI thread per drawing), in
    seconds."""
    import statistics

    from PySide6 import QtCore, QtWidgets

    from ntkviz.gui.headless import build_panel
    from ntkviz.gui.panels.training import QtTrainingPanel

    panel = build_panel(QtTrainingPanel, {"autoplay": False})
    try:
        panel.model.update(page="sweep", sweep_plot="alpha")
        app = QtWidgets.QApplication.instance()
        for _ in range(2):  # the page shown and painted before the sweep starts
            panel.grab()
            app.processEvents()
        gaps, last, drawings = [], [0.0], {"n": 0}

        def tick():
            now = time.perf_counter()
            gaps.append(now - last[0])
            last[0] = now

        def drawn():
            drawings["n"] += 1

        ticker = QtCore.QTimer()
        ticker.setTimerType(QtCore.Qt.TimerType.PreciseTimer)
        ticker.timeout.connect(tick)
        panel.sweep.drawn.connect(drawn)
        loop = QtCore.QEventLoop()
        panel.sweep.slot.busy.connect(lambda busy: None if busy else loop.quit())
        QtCore.QTimer.singleShot(300_000, loop.quit)
        t0 = last[0] = time.perf_counter()
        cpu0 = time.thread_time()
        ticker.start(5)
        panel.sweep.start()
        loop.exec()
        ticker.stop()
        elapsed = time.perf_counter() - t0
        cpu = time.thread_time() - cpu0
        response = panel.sweep.current()
        if response is None or not response.done:
            raise RuntimeError("the sweep did not finish")
        return max(gaps), statistics.median(gaps), elapsed, drawings["n"], cpu / max(drawings["n"], 1)
    finally:
        panel.dispatcher.shutdown()
        panel.close()  # freed through its Python owner (ntkviz.gui.headless.rendering: never deleteLater)


def stall_results(repeats: int) -> list[Result]:
    """The GUI thread while the tab's sweep page runs the default sweep (medians over runs)."""
    import statistics

    runs = [_sweep_stall() for _ in range(max(1, min(repeats, 3)))]

    def med(i):
        return statistics.median(r[i] for r in runs)

    return [Result("gui: sweep page running 13 α × 3 seeds — longest event-loop stall", med(0), 0.05,
                   note=f"5 ms timer; {med(3):.0f} drawings of partial results"),
            Result("  median timer gap", med(1), note="5 ms asked"),
            Result("  GUI-thread CPU time per drawing", med(4), 0.05,
                   note="load-independent: the stall on a free core"),
            Result("  Run sweep → final drawing", med(2), 20.0, note="worker thread + redraws")]


def _drawn_fps(seconds: float = 3.0) -> tuple[float, float, float, float]:
    """Two runs side by side, offscreen window. Returns (frames/s of show_frame followed by
    a synchronous repaint of the whole canvas viewport, back to back, in wall-clock and in
    CPU time; painted frames/s while the panel's timer plays at 30 frames/s; ticks/s
    dropped there because a frame was still being drawn)."""
    from PySide6 import QtCore

    from ntkviz.gui.headless import build_panel
    from ntkviz.gui.panels.training import QtTrainingPanel

    panel = build_panel(QtTrainingPanel, {"autoplay": False, "steps": 20000, "frames": 400})
    painted = {"n": 0}

    class Counter(QtCore.QObject):
        def eventFilter(self, obj, event):  # noqa: N802 - Qt API
            if event.type() == QtCore.QEvent.Type.Paint:
                painted["n"] += 1
            return False

    counter = Counter()
    viewport = panel.canvas.viewport()
    viewport.installEventFilter(counter)
    def play(duration):
        panel.show_frame(0)
        loop = QtCore.QEventLoop()
        QtCore.QTimer.singleShot(int(duration * 1000), loop.quit)
        drawn0, dropped0 = panel.frames_drawn, panel.player.frames_dropped
        painted["n"] = 0
        t0 = time.perf_counter()
        panel.play()
        loop.exec()
        elapsed = time.perf_counter() - t0
        panel.pause()
        return (min(painted["n"], panel.frames_drawn - drawn0) / elapsed,
                (panel.player.frames_dropped - dropped0) / elapsed)

    try:
        rate, dropped = play(seconds)
        n = min(60, panel.frame_count())

        def repaint_all():
            # (not canvas.render() into a QImage: a Format_ARGB32 target converts every
            # blended pixel to and from premultiplied alpha, which a window never does)
            for i in range(n):
                panel.show_frame(i)
                viewport.repaint()

        full = n / median_time(repaint_all, repeats=3, warmup=0)
        cpu = []
        for _ in range(3):  # the same, in CPU seconds of this process (load-independent)
            t0 = time.process_time()
            repaint_all()
            cpu.append(n / (time.process_time() - t0))
        return full, sorted(cpu)[1], rate, dropped
    finally:
        viewport.removeEventFilter(counter)
        panel.dispatcher.shutdown()
        panel.close()  # freed through its Python owner (ntkviz.gui.headless.rendering: never deleteLater)


def run(repeats: int) -> list[Result]:
    results = [Result(f"train m={RUN['width']} n={RUN['samples']} {RUN['steps']} steps "
                      "(+ linearised, kernel flows)", median_time(_train_once, repeats), 1.0,
                      note=f"{RUN['frames']} frames"), *sweep_results(repeats)]
    try:
        results += stall_results(repeats)
    except ImportError as exc:  # no Qt available
        results.append(Result("gui: sweep page running", float("nan"), note=f"skipped: {exc}"))
    try:
        full, cpu, rate, dropped = _drawn_fps()
    except ImportError as exc:  # no Qt available
        results.append(Result("animation drawn frame rate", float("nan"), note=f"skipped: {exc}"))
    else:
        results.append(Result("animation drawn frame rate (2 runs, full repaint, offscreen)",
                              full, 30.0, unit="frames/s",
                              note="show_frame + whole-canvas repaint, back to back, wall clock"))
        results.append(Result("  the same per CPU second of the process", cpu, 30.0,
                              unit="frames/s", note="what one free core gives"))
        results.append(Result("  playing at 30 frames/s with the panel's timer", rate,
                              unit="frames/s", note=f"painted; {dropped:.1f} ticks/s dropped"))
    return results
