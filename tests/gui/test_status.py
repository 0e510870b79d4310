"""Progress with elapsed and remaining time (status bar and a tab's own bar), and the Start
(Ctrl+Return) / Cancel (Esc) shortcuts of the on-demand jobs."""
from __future__ import annotations

import re
import time

import pytest
from PySide6 import QtCore
from PySide6.QtTest import QTest

from ntkviz.gui.main_window import MainWindow
from ntkviz.gui.status import duration_text, eta_text
from ntkviz.jobs import Progress

CTRL = QtCore.Qt.KeyboardModifier.ControlModifier
#: "<percent> · <elapsed> · <remaining> left", as the command line's bars say it
CLOCK = re.compile(r"%p% · (\d+):(\d\d) · (\d+):(\d\d) left$")


@pytest.mark.parametrize("seconds, text", [(0, "0:00"), (7.4, "0:07"), (59.6, "1:00"),
                                           (725, "12:05"), (3725, "1:02:05")])
def test_durations_read_like_the_command_line_s(seconds, text):
    assert duration_text(seconds) == text


def test_the_time_left_is_the_average_rate_so_far():
    assert eta_text(0.25, 10.0) == "0:10 · 0:30 left"  # 10 s for a quarter: 30 s to go
    assert eta_text(0.8, 100.0) == "1:40 · 0:25 left"
    assert eta_text(0.005, 10.0) == "0:10"  # too little done to say
    assert eta_text(0.5, 0.4) == "0:00"  # too early to say
    assert eta_text(1.0, 12.0) == "0:12"


class Slow:
    """An on-demand job of ``steps`` progress items, ``pause`` seconds apart."""

    heavy = iterated = True

    def __init__(self, steps=60, pause=0.05):
        self.steps, self.pause = steps, pause

    def iterate(self):
        for i in range(self.steps):
            time.sleep(self.pause)
            yield Progress((i + 1) / self.steps, "a step")
        raise RuntimeError("not meant to finish")


def _seconds(match, first: int) -> int:
    return 60 * int(match.group(first)) + int(match.group(first + 1))


def test_the_status_bar_says_elapsed_and_left(qtbot, dispatcher, settings):
    from ntkviz.gui.workers import JobSlot

    w = MainWindow(dispatcher, settings, panels=["kernel"])
    qtbot.addWidget(w)
    slot = JobSlot(dispatcher, "demo", "Demo", w)
    seen = []
    dispatcher.yielded.connect(lambda key, rid, item: seen.append(w.progress.format()))
    with qtbot.waitSignal(slot.errored, timeout=20000):
        slot.submit(Slow(steps=12, pause=0.15))
    clocks = [CLOCK.search(f) for f in seen if f.startswith("Demo: ")]
    assert [c for c in clocks if c], seen
    last = [c for c in clocks if c][-1]  # 11/12 done after ≥ 1.65 s: a tenth of that left
    assert _seconds(last, 1) >= 1 and _seconds(last, 3) <= 1 + _seconds(last, 1) / 11


def _window_with_slow_job(qtbot, dispatcher, settings, monkeypatch, key, model, method):
    """A window of panel ``key`` whose ``model.method`` (a request builder) makes :class:`Slow`."""
    monkeypatch.setattr(model, method, classmethod(lambda cls, p: Slow()))
    w = MainWindow(dispatcher, settings, panels=[key])
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    w.activateWindow()
    return w, w.current_panel()


@pytest.fixture
def stability(qtbot, dispatcher, settings, monkeypatch):
    from ntkviz.models.stability import StabilityModel

    return _window_with_slow_job(qtbot, dispatcher, settings, monkeypatch, "stability",
                                 StabilityModel, "build_request")


def test_ctrl_return_starts_and_esc_cancels_the_tab_s_job(qtbot, stability):
    window, panel = stability
    assert panel.run_button.toolTip().endswith("(Ctrl+Return)")
    assert panel.cancel_button.toolTip().endswith("(Esc)")
    spin = panel.seeds_spin
    spin.setFocus()
    spin.selectAll()
    QTest.keyClicks(spin, "3")  # typed, not yet committed
    assert panel.model.params.seeds == 1
    QTest.keyClick(spin, QtCore.Qt.Key.Key_Return, CTRL)
    assert panel.model.params.seeds == 3  # committed before the start
    qtbot.waitUntil(panel.slot.is_busy, timeout=5000)
    qtbot.waitUntil(lambda: CLOCK.search(panel.progress.format()) is not None, timeout=10000)
    QTest.keyClick(window.tabs, QtCore.Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not panel.slot.is_busy(), timeout=5000)
    assert panel.info.text().startswith("cancelled at")
    assert panel.progress.format() == "%p%"


def test_esc_with_no_job_of_the_tab_cancels_the_status_bar_s(qtbot, stability):
    window, panel = stability
    window.dispatcher.submit("other", lambda: time.sleep(1.5), immediate=True)
    qtbot.waitUntil(lambda: window.cancel_button.isVisible(), timeout=5000)
    QTest.keyClick(window.tabs, QtCore.Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not window.progress.isVisible(), timeout=5000)
    assert "cancelled" in window.statusBar().currentMessage()


def test_the_monte_carlo_has_the_same_keys_and_clock(qtbot, dispatcher, settings, monkeypatch):
    from ntkviz.models.learning import LearningModel

    w, panel = _window_with_slow_job(qtbot, dispatcher, settings, monkeypatch, "learning",
                                     LearningModel, "monte_carlo_request")
    assert panel.controls.mc_button.toolTip().endswith("(Ctrl+Return)")
    assert w.press_job_button(0)
    qtbot.waitUntil(panel.mc_slot.is_busy, timeout=5000)
    qtbot.waitUntil(lambda: CLOCK.search(panel.controls.progress.format()) is not None,
                    timeout=10000)
    QTest.keyClick(w.tabs, QtCore.Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not panel.mc_slot.is_busy(), timeout=5000)
    assert panel.controls.mc_note.text().startswith("Monte-Carlo cancelled")


def test_the_deformation_context_bar_has_the_clock_behind_its_label(qtbot, dispatcher):
    from ntkviz.gui.panels.deformation import QtDeformationPanel

    panel = QtDeformationPanel(dispatcher)
    qtbot.addWidget(panel)
    bar = panel.context_progress
    panel._on_context_busy(True)  # as the context job starts
    assert bar.format() == "context distances: %p%"
    QTest.qWait(1100)
    panel._on_context_yielded(1, Progress(0.25, "a digit"), None)
    found = re.fullmatch(r"context distances: %p% · (\d+):(\d\d) · (\d+):(\d\d) left", bar.format())
    assert found and bar.value() == 250, bar.format()
    elapsed, left = _seconds(found, 1), _seconds(found, 3)
    assert 1 <= elapsed <= 5 and left == pytest.approx(3 * elapsed, abs=1)  # a quarter done
    panel._on_context_busy(False)
    assert bar.format() == "context distances: %p%"
