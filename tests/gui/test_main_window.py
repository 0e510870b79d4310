"""Main window: sessions, export, status bar, settings, progress/cancel, help."""
from __future__ import annotations

import csv
import json
import re
import time
from xml.etree import ElementTree

import pytest
from PySide6 import QtGui

from ntkviz.gui.main_window import MainWindow

MINE = ["kernel", "spectrum"]


@pytest.fixture
def window(qtbot, dispatcher, settings):
    w = MainWindow(dispatcher, settings, panels=MINE)
    qtbot.addWidget(w)
    w.show()
    with qtbot.waitSignals([p.computed for p in w.panels.values()], timeout=60000):
        w.start()
    return w


def test_tabs_menus_and_warm_up(qtbot, window):
    assert [window.tabs.tabText(i) for i in range(window.tabs.count())] == [
        "Kernel curves", "Eigenvalue decay"]
    menus = [a.text() for a in window.menuBar().actions()]
    assert menus == ["&File", "&View", "&Help"]
    shortcuts = {a.shortcut().toString() for m in window.menuBar().actions()
                 for a in m.menu().actions()}
    assert {"Ctrl+E", "Ctrl+S", "Ctrl+O", "Ctrl+Q", "F1", "Ctrl+1", "Ctrl+2"} <= shortcuts
    qtbot.waitUntil(lambda: window.compile_label.text() == "", timeout=60000)


def test_session_round_trip(qtbot, window, tmp_path):
    kernel, spectrum = window.panels["kernel"], window.panels["spectrum"]
    with qtbot.waitSignal(kernel.computed, timeout=30000):
        kernel.kernels.depth.setValue(7)
    with qtbot.waitSignal(spectrum.computed, timeout=30000):
        spectrum.dim.setValue(12)
    saved = {k: p.state() for k, p in window.panels.items()}
    path = tmp_path / "s.json"
    window.save_session(path)
    data = json.loads(path.read_text())
    assert data["app"] == "ntkviz" and data["session_format"] == 1 and "version" in data
    with qtbot.waitSignal(kernel.computed, timeout=30000):
        kernel.kernels.depth.setValue(3)
    spectrum.dim.setValue(4)
    window.show_panel("spectrum")
    assert window.open_session(path)
    assert {k: p.state() for k, p in window.panels.items()} == saved
    assert window.current_panel() is kernel  # saved while "kernel" was current


@pytest.mark.parametrize("content, match", [
    ("{not json", "cannot open session"),
    ('{"app": "other"}', "not an ntkviz session"),
    ('{"app": "ntkviz", "panels": {"kernel": {"depth": 99}}}', "depth L must be in"),
    ('{"app": "ntkviz", "session_format": 99, "panels": {}}', "newer"),
])
def test_bad_session_keeps_everything(qtbot, window, tmp_path, content, match):
    before = {k: p.state() for k, p in window.panels.items()}
    path = tmp_path / "bad.json"
    path.write_text(content)
    assert not window.open_session(path)
    assert match in window.statusBar().currentMessage()
    assert {k: p.state() for k, p in window.panels.items()} == before
    assert not window.open_session(tmp_path / "missing.json")


def test_export_png_svg_csv(qtbot, window, tmp_path):
    png = window.export_current(tmp_path / "k.png", "curves", 1000)
    assert QtGui.QImage(str(png)).width() == 1000
    svg = window.export_current(tmp_path / "k.svg", "curves")
    ElementTree.parse(svg)
    kernel = window.panels["kernel"]
    text = "".join(re.sub(r"<[^>]+>", "", svg.read_text()).split())  # legend text, no spaces
    assert all("".join(c.label.split()) in text for c in kernel.response.curves)
    path = window.export_current(tmp_path / "k.csv", "curves")
    with open(path) as fh:
        rows = list(csv.reader(fh))
    assert rows[0][0] == "u" and len(rows) == 1 + kernel.points.value()
    values = [float(r[1]) for r in rows[1:]]
    assert values == list(kernel.response.curves[0].value)
    with pytest.raises(ValueError, match="view must be one of"):
        window.export_current(tmp_path / "x.png", "nope")


def test_errors_reach_status_bar_and_app_keeps_working(qtbot, window):
    kernel = window.panels["kernel"]
    kernel.kernels.extra.setText("1")
    kernel.kernels.extra.editingFinished.emit()
    assert "extra depths must be in [2, 50]" in window.statusBar().currentMessage()
    kernel.kernels.extra.setText("")
    with qtbot.waitSignal(kernel.computed, timeout=30000):
        kernel.kernels.extra.editingFinished.emit()
    assert "Kernel curves:" in window.statusBar().currentMessage()


def test_settings_restore_parameters_and_geometry(qtbot, window, dispatcher, settings):
    kernel = window.panels["kernel"]
    with qtbot.waitSignal(kernel.computed, timeout=30000):
        kernel.kernels.depth.setValue(9)
    window.resize(700, 500)
    window.close()
    again = MainWindow(dispatcher, settings, panels=MINE)
    qtbot.addWidget(again)
    assert again.panels["kernel"].kernels.depth.value() == 9
    assert (again.width(), again.height()) == (700, 500)


def test_progress_and_cancel_for_long_job(qtbot, window):
    window.dispatcher.submit("slow", lambda: time.sleep(1.5), immediate=True)
    qtbot.waitUntil(lambda: window.cancel_button.isVisible(), timeout=5000)
    assert window.progress.isVisible()
    window.cancel_button.click()
    qtbot.waitUntil(lambda: not window.progress.isVisible(), timeout=5000)
    assert "cancelled" in window.statusBar().currentMessage()


def test_progress_fraction_from_generator(qtbot, window):
    from types import SimpleNamespace

    def job():
        for i in range(5):
            time.sleep(0.15)
            yield SimpleNamespace(fraction=(i + 1) / 5)

    with qtbot.waitSignal(window.dispatcher.returned, timeout=10000):
        window.dispatcher.submit_generator("gen", job)
    assert window.progress.maximum() == 1000 and window.progress.value() == 1000


def test_help_dialogs(qtbot, window):
    window.show_maths()
    assert "Kernel" in window.current_panel().help_html()
    from ntkviz.gui.main_window import ABOUT_HTML

    assert "CC BY-SA 3.0" in ABOUT_HTML and "{version}" in ABOUT_HTML
