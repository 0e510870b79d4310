"""The app and the panels as real processes: start, draw, quit — no error output."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest
from PySide6 import QtGui

QUIT_DURING_COMPUTATION = """
import sys, time
from PySide6 import QtCore
import ntkviz.gui.app as app_module
from ntkviz.gui import main_window

original_start = main_window.MainWindow.start

def start(self, **options):
    original_start(self, **options)
    self.dispatcher.submit("slow", lambda: time.sleep(1.0), heavy=True, immediate=True)
    self.dispatcher.submit("slow2", lambda: time.sleep(1.0), immediate=True)
    QtCore.QTimer.singleShot(300, QtCore.QCoreApplication.quit)

main_window.MainWindow.start = start
sys.exit(app_module.main())
"""


def run(args, tmp_path, timeout=180):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(tmp_path / "config"),
               PYTHONFAULTHANDLER="1")
    return subprocess.run([sys.executable, *args], env=env, capture_output=True, text=True,
                          timeout=timeout, cwd=tmp_path)


def assert_clean(proc):
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip() == "", proc.stderr


def test_app_starts_draws_and_quits(tmp_path):
    shot = tmp_path / "shot.png"
    proc = run(["-m", "ntkviz", "gui", "--screenshot", str(shot), "--tab", "spectrum"], tmp_path)
    assert_clean(proc)
    image = QtGui.QImage(str(shot))
    assert image.width() > 600 and image.height() > 400


def test_quit_during_computation_exits_cleanly(tmp_path):
    proc = run(["-c", QUIT_DURING_COMPUTATION], tmp_path)
    assert_clean(proc)


@pytest.mark.parametrize("module", ["kernel_curves", "spectrum"])
def test_panel_runs_standalone(tmp_path, module):
    proc = run(["-m", f"ntkviz.gui.panels.{module}", "--quit-after", "2500"], tmp_path)
    assert_clean(proc)
