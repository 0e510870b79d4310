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
    assert menus == ["&File", "&Edit", "&View", "&Help"]
    shortcuts = {a.shortcut().toString() for m in window.menuBar().actions()
                 for a in m.menu().actions()}
    assert {"Ctrl+E", "Ctrl+S", "Ctrl+O", "Ctrl+Q", "F1", "Shift+F1", "Ctrl+1", "Ctrl+2",
            "Ctrl+Z", "Ctrl+Shift+Z", "Ctrl+Shift+C", "Ctrl+Alt+C"} <= shortcuts
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


GOOD = '"app": "ntkviz", "session_format": 1'


@pytest.mark.parametrize("content, match", [
    ("{not json", "not valid JSON"),
    ('{"app": "other"}', 'app must be "ntkviz"'),
    ('{%s, "panels": {"kernel": {"depth": 999}}}' % GOOD, "panels.kernel: depth"),
    ('{"app": "ntkviz", "session_format": 99, "panels": {}}', "session_format must be"),
    ('{"app": "ntkviz", "session_format": true, "panels": {}}', "session_format must be"),
    ('{%s, "current": [1], "panels": {}}' % GOOD, "current must be a panel name"),
    ('{%s, "panels": {"kernel": {"depth": %s}}}' % (GOOD, "9" * 400), "panels.kernel: depth"),
    ('{%s, "panels": {"nope": {}}}' % GOOD, "unknown panel 'nope'"),
    ('{%s, "panels": {"kernel": {"nope": 1}}}' % GOOD, "panels.kernel: unknown parameter"),
    ('{%s, "extra": 1, "panels": {}}' % GOOD, "unknown key 'extra'"),
    ('{%s, "panels": {"kernel": 3}}' % GOOD, "panels.kernel must be an object"),
    ("[" * 100000 + "]" * 100000, "nested too deeply"),
])
def test_bad_session_is_refused_whole_and_the_error_stays(qtbot, window, tmp_path, content, match):
    """A bad session names the field, changes nothing, and its error stays
    visible while panels report their own status."""
    # a valid spectrum entry before the bad one: it must not be applied either
    if content.startswith('{"app": "ntkviz", "session_format": 1, "panels": {"kernel"'):
        content = content.replace('"panels": {', '"panels": {"spectrum": {"dim": 11}, ', 1)
    before = {k: p.state() for k, p in window.panels.items()}
    current = window.current_panel()
    path = tmp_path / "bad.json"
    path.write_text(content)
    assert not window.open_session(path)
    assert match in window.error_text() and "bad.json" in window.error_text()
    assert {k: p.state() for k, p in window.panels.items()} == before
    assert window.current_panel() is current
    kernel = window.panels["kernel"]
    with qtbot.waitSignal(kernel.computed, timeout=30000):
        kernel.start()  # the panel's own status goes to the status bar, not over the error
    assert match in window.error_text()
    window.messages.dismiss()
    assert window.error_text() == ""
    assert any(match in text for _, text, error in window.messages.log if error)


def test_missing_session_file(qtbot, window, tmp_path):
    assert not window.open_session(tmp_path / "missing.json")
    assert "missing.json" in window.error_text()


def test_typed_export_path_that_exists_asks_every_time(qtbot, window, tmp_path, monkeypatch):
    from PySide6 import QtWidgets

    from ntkviz.gui.main_window import ExportDialog

    target = tmp_path / "k.png"
    target.write_bytes(b"keep me")
    asked = []

    def answer(reply):
        def question(*args, **kwargs):
            asked.append(args[2])
            return reply
        return question

    dlg = ExportDialog(window.current_panel(), str(tmp_path), window)
    dlg.path.setText(str(target))
    No, Yes = QtWidgets.QMessageBox.StandardButton.No, QtWidgets.QMessageBox.StandardButton.Yes
    monkeypatch.setattr(QtWidgets.QMessageBox, "question", answer(No))
    dlg.accept()
    assert len(asked) == 1 and str(target) in asked[0] and dlg.result() == 0
    monkeypatch.setattr(QtWidgets.QMessageBox, "question", answer(Yes))
    dlg.accept()
    assert len(asked) == 2 and dlg.result() == QtWidgets.QDialog.DialogCode.Accepted
    dlg.path.setText(str(tmp_path / "new.png"))  # a new file: no question
    dlg.accept()
    assert len(asked) == 2


def test_status_bar_shows_the_current_panel_only(qtbot, window):
    spectrum = window.panels["spectrum"]
    window.show_panel("kernel")
    spectrum._report_error("from another tab")
    assert "from another tab" not in window.statusBar().currentMessage()
    window.show_panel("spectrum")
    assert "from another tab" in window.statusBar().currentMessage()


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
    # the end of the warm-up shows a passing note in the status bar: let it pass first,
    # so the status lines below are the panel's own (the warm-up may end at any time)
    qtbot.waitUntil(lambda: window.compile_label.text() == "", timeout=120000)
    kernel = window.panels["kernel"]
    kernel.kernels.extra.setText("1")
    kernel.kernels.extra.editingFinished.emit()
    assert "must be in [2, 50]" in window.statusBar().currentMessage()
    kernel.kernels.extra.setText("")
    kernel.kernels.extra.editingFinished.emit()
    with qtbot.waitSignal(kernel.computed, timeout=30000):
        kernel.start()
    assert "Kernel curves:" in window.statusBar().currentMessage()


def test_a_passing_note_gives_the_status_bar_back_to_the_panel(qtbot, window):
    """A window note (e.g. "computations ready" at the end of start-up) neither dismisses
    the error in the message bar nor leaves the status bar blank when it expires."""
    kernel = window.panels["kernel"]
    kernel.kernels.extra.setText("1")
    kernel.kernels.extra.editingFinished.emit()
    shown = window.statusBar().currentMessage()
    assert "must be in [2, 50]" in shown
    window.messages.show_error("a session error")
    window.show_note("computations ready", seconds=0.05)
    assert window.statusBar().currentMessage() == "computations ready"
    assert window.error_text() == "a session error"
    qtbot.waitUntil(lambda: window.statusBar().currentMessage() == shown, timeout=2000)


def test_settings_restore_parameters_and_geometry(qtbot, window, dispatcher, settings):
    kernel = window.panels["kernel"]
    with qtbot.waitSignal(kernel.computed, timeout=30000):
        kernel.kernels.depth.setValue(9)
    small = window.minimumSizeHint()
    size = (max(1000, small.width()), max(700, small.height()))  # not the default 1280×820
    window.resize(*size)
    window.close()
    again = MainWindow(dispatcher, settings, panels=MINE)
    qtbot.addWidget(again)
    assert again.panels["kernel"].kernels.depth.value() == 9
    assert (again.width(), again.height()) == size


def test_progress_and_cancel_for_long_job(qtbot, window):
    window.dispatcher.submit("slow", lambda: time.sleep(1.5), immediate=True)
    qtbot.waitUntil(lambda: window.cancel_button.isVisible(), timeout=5000)
    assert window.progress.isVisible()
    window.cancel_button.click()
    qtbot.waitUntil(lambda: not window.progress.isVisible(), timeout=5000)
    assert "cancelled" in window.statusBar().currentMessage()


def test_one_cancel_per_job(qtbot, window):
    """A job whose panel has its own Cancel button gets no second one in the status bar."""
    from ntkviz.gui.workers import JobSlot

    slot = JobSlot(window.dispatcher, "own", "With its own Cancel", window, own_cancel=True)
    slot.submit(lambda: time.sleep(1.0), immediate=True)
    qtbot.waitUntil(lambda: window.progress.isVisible(), timeout=5000)
    assert not window.cancel_button.isVisible()


def test_stability_has_its_own_cancel_only(qtbot, dispatcher, settings):
    """The stability panel (own Cancel button) gets no status-bar Cancel for its job,
    while the progress bar still shows; a job it does not own keeps the bar's Cancel."""
    w = MainWindow(dispatcher, settings, panels=["stability"])
    qtbot.addWidget(w)
    w.show()
    stability = w.current_panel()
    assert stability.own_cancel and stability.key == "stability"
    stability.slot.submit(lambda: time.sleep(1.0), immediate=True)
    qtbot.waitUntil(lambda: w.progress.isVisible(), timeout=5000)
    assert not w.cancel_button.isVisible()
    w.dispatcher.submit("other", lambda: time.sleep(1.0), immediate=True)
    qtbot.waitUntil(lambda: w.cancel_button.isVisible(), timeout=5000)
    assert w.status.cancellable() == ["other"]
    qtbot.waitUntil(lambda: not w.progress.isVisible(), timeout=10000)


def test_the_progress_bar_names_its_job(qtbot, window):
    """The status bar's progress says which tab's job it follows (a job of another tab
    waiting or running is never shown as the current tab's)."""
    from types import SimpleNamespace

    from ntkviz.gui.workers import JobSlot

    def job():
        for i in range(6):
            time.sleep(0.15)
            yield SimpleNamespace(fraction=(i + 1) / 6)

    class Long:
        iterated = True

        def iterate(self):
            return job()

    slot = JobSlot(window.dispatcher, "classification", "Classification", window)
    window.show_panel("spectrum")
    with qtbot.waitSignal(slot.returned, timeout=10000):
        slot.submit(Long())
    assert window.progress.format().startswith("Classification")
    assert window.progress.text().startswith("Classification: ")


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


def test_default_size_fits_a_small_screen():
    from PySide6 import QtCore

    from ntkviz.gui.main_window import DEFAULT_SIZE, default_size

    class Screen:
        def __init__(self, w, h):
            self.rect = QtCore.QRect(0, 0, w, h)

        def availableGeometry(self):  # noqa: N802 - Qt API
            return self.rect

    assert default_size(Screen(1280, 690)) == (1280, 690)  # a 1280×720 screen with a panel
    assert default_size(Screen(1920, 1200)) == DEFAULT_SIZE
    assert default_size(None) == DEFAULT_SIZE


QUIT_DURING_JOBS = """
import sys, time
from PySide6 import QtCore
from ntkviz.gui.app import _finish, create_app
from ntkviz.gui.main_window import MainWindow
from ntkviz.gui.workers import Dispatcher, JobSlot

app = create_app(["ntkviz"])
dispatcher = Dispatcher()
app.aboutToQuit.connect(dispatcher.shutdown)
window = MainWindow(dispatcher, panels=["kernel"])
window.show()


class Stuck:  # a long call that cannot be interrupted (as a numba kernel)
    def __init__(self, heavy):
        self.heavy = heavy

    def __call__(self):
        time.sleep(60)


for key, heavy in (("light", False), ("heavy", True)):
    JobSlot(dispatcher, key, key).submit(Stuck(heavy), immediate=True)


def quit():
    print(time.time(), flush=True)
    window.close()
    app.quit()


QtCore.QTimer.singleShot(800, quit)
sys.exit(_finish(dispatcher, app.exec()))
"""


def test_quit_during_jobs_ends_the_app_within_two_seconds(tmp_path):
    """Quit while jobs run (here: calls that cannot be interrupted, on both pools): the jobs
    are cancelled and waited for until one deadline, then the process ends — within 2 s."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(tmp_path))
    proc = subprocess.Popen([sys.executable, "-c", QUIT_DURING_JOBS], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        quit_at = float(proc.stdout.readline())
        proc.wait(timeout=60)
    finally:
        proc.kill()
    ended = time.time()
    assert proc.returncode == 0, proc.stderr.read()
    assert ended - quit_at < 2.0, f"{ended - quit_at:.1f} s from Quit to the end"


def test_a_session_of_the_earlier_format_opens_under_the_new_names(qtbot, dispatcher, settings,
                                                                   tmp_path):
    """Sessions written before the deformation tab was called ``deformation`` (key
    ``deform``) open: the parameters go to that tab, which becomes the current one."""
    w = MainWindow(dispatcher, settings, panels=["kernel", "deformation"])
    qtbot.addWidget(w)
    path = tmp_path / "old.json"
    path.write_text(json.dumps({"app": "ntkviz", "version": "0.1.0", "session_format": 1,
                                "current": "deform",
                                "panels": {"deform": {"label": 7, "rotation_deg": 12.5},
                                           "kernel": {"depth": 4}}}))
    assert w.open_session(path), w.error_text()
    deformation = w.panels["deformation"]
    assert w.current_panel() is deformation
    assert (deformation.model.params.label, deformation.model.params.rotation_deg) == (7, 12.5)
    assert w.panels["kernel"].model.params.depth == 4
    assert set(w.session()["panels"]) == {"kernel", "deformation"}
