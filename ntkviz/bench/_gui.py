"""GUI benchmarks: start-up and responsiveness while dragging sliders.

* start → window shown and start → first plot of the visible (kernel) panel, in a
  fresh process (offscreen Qt), with a cold numba cache (empty temporary
  ``NUMBA_CACHE_DIR``) and a warm one (second run on the same directory);
* a scripted drag of the kernel panel's depth slider and of the spectrum panel's
  dimension slider (one step every 25 ms): the longest gap of a 5 ms timer on the
  GUI thread (event-loop stall) and the time from a slider change to the plot
  showing it (``computed`` of the request that change produced).
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from ntkviz.bench import Result

CHILD = r"""
import json, sys, time
t_launch = float(sys.argv[1])
from PySide6 import QtCore
from ntkviz.gui.app import create_app
from ntkviz.gui.main_window import MainWindow
from ntkviz.gui.workers import Dispatcher
app = create_app(["ntkviz"])
d = Dispatcher()
w = MainWindow(d, QtCore.QSettings(sys.argv[2], QtCore.QSettings.Format.IniFormat))
w.show_panel("kernel")
w.show()
app.processEvents()
out = {"shown": time.time() - t_launch}
panel = w.current_panel()
def done(_rid):
    out["plot"] = time.time() - t_launch
    app.quit()
panel.computed.connect(done)
w.start()
QtCore.QTimer.singleShot(120000, app.quit)
app.exec()
d.shutdown()
print(json.dumps(out))
"""


def _start_times(cache_dir: str, config: str) -> dict:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", NUMBA_CACHE_DIR=cache_dir)
    t = time.time()
    proc = subprocess.run([sys.executable, "-c", CHILD, repr(t), config], env=env,
                          capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        raise RuntimeError(f"GUI start-up benchmark failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def start_up(repeats: int) -> list[Result]:
    cold, warm = [], []
    for _ in range(max(1, min(repeats, 3))):
        with tempfile.TemporaryDirectory(prefix="ntkviz-bench-") as tmp:
            cold.append(_start_times(os.path.join(tmp, "numba"), os.path.join(tmp, "s.ini")))
            warm.append(_start_times(os.path.join(tmp, "numba"), os.path.join(tmp, "s.ini")))

    def med(runs, key):
        return statistics.median(r[key] for r in runs)

    return [
        Result("gui: start → window shown (warm numba cache)", med(warm, "shown"), 1.5,
               "fresh process, offscreen"),
        Result("gui: start → first plot (warm numba cache)", med(warm, "plot"), 1.5),
        Result("gui: start → window shown (cold numba cache)", med(cold, "shown")),
        Result("gui: start → first plot (cold numba cache)", med(cold, "plot"), None,
               "includes numba compilation"),
    ]


def drag(panel, slider, values, step_ms: int = 25) -> tuple[float, float]:
    """Drag ``slider`` through ``values``; return (longest event-loop gap, median
    change → plot latency), in seconds."""
    from PySide6 import QtCore, QtWidgets

    app = QtWidgets.QApplication.instance()
    gaps, last = [], [time.perf_counter()]

    def tick():
        now = time.perf_counter()
        gaps.append(now - last[0])
        last[0] = now

    ticker = QtCore.QTimer()
    ticker.setTimerType(QtCore.Qt.TimerType.PreciseTimer)
    ticker.timeout.connect(tick)
    changed_at: dict[int, float] = {}
    latencies: list[float] = []

    def on_computed(rid):
        if rid in changed_at:
            latencies.append(time.perf_counter() - changed_at[rid])

    panel.computed.connect(on_computed)
    ticker.start(5)
    for v in values:
        slider.setValue(v)
        # the change submitted request ``rid`` at once (it starts after the throttle,
        # unless a later change supersedes it)
        rid = panel.dispatcher.latest_id(panel.key)
        changed_at[rid] = time.perf_counter()
        end = time.perf_counter() + step_ms / 1000
        while time.perf_counter() < end:
            app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 5)
            time.sleep(0.001)
    t_end = time.perf_counter() + 3
    while panel.dispatcher.is_busy(panel.key) and time.perf_counter() < t_end:
        app.processEvents()
    ticker.stop()
    panel.computed.disconnect(on_computed)
    return max(gaps[1:] or [0.0]), statistics.median(latencies or [float("nan")])


def responsiveness(repeats: int) -> list[Result]:
    from ntkviz.gui.headless import build_panel, ensure_app
    from ntkviz.gui.panels.kernel_curves import QtKernelCurvesPanel
    from ntkviz.gui.panels.spectrum import QtSpectrumPanel

    ensure_app()
    out = []
    cases = [
        ("depth", QtKernelCurvesPanel, lambda p: p.kernels.depth,
         list(range(2, 31)) + list(range(30, 1, -1))),
        ("dimension", QtSpectrumPanel, lambda p: p.dim, list(range(3, 60)) + list(range(60, 2, -1))),
    ]
    for name, cls, get_slider, values in cases:
        panel = build_panel(cls)
        stalls, lats = [], []
        for _ in range(max(1, min(repeats, 3))):
            stall, lat = drag(panel, get_slider(panel), values)
            stalls.append(stall)
            lats.append(lat)
        panel.dispatcher.shutdown()
        panel.close()
        out.append(Result(f"gui: drag {name} slider — longest event-loop stall",
                          statistics.median(stalls), 0.05, f"{len(values)} steps / 25 ms"))
        out.append(Result(f"gui: drag {name} slider — change → plot latency (median)",
                          statistics.median(lats), 0.06, "includes the 30 ms throttle"))
    return out


def run(repeats: int) -> list[Result]:
    """All GUI benchmarks (offscreen)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    return start_up(repeats) + responsiveness(repeats)
