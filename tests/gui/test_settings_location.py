"""The tests never write the user's settings: the app's QSettings live in temporary folders
(tests/conftest.py points XDG_CONFIG_HOME at one for the whole run and for the processes it
starts; tests/gui/conftest.py gives every test a fresh folder of its own)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

#: a child process: the app's QApplication set-up, then its default QSettings written
CHILD = """
from PySide6 import QtCore
from ntkviz.gui.app import create_app
create_app()
settings = QtCore.QSettings()
settings.setValue("probe", 1)
settings.sync()
print(settings.fileName())
"""


def _stamp(path: Path):
    """(mtime, size) of ``path``, or None when it does not exist."""
    return (path.stat().st_mtime_ns, path.stat().st_size) if path.exists() else None


def test_main_window_writes_its_settings_in_the_tests_folder(dispatcher, user_settings_file,
                                                             _fresh_app_settings):
    from ntkviz.gui.main_window import MainWindow

    before = _stamp(user_settings_file)
    window = MainWindow(dispatcher, panels=["kernel"])  # default settings: QSettings()
    window.close()  # saves geometry and parameters
    written = Path(window.settings.fileName())
    assert written.is_file(), "the window saved no settings"
    assert Path(_fresh_app_settings) in written.parents
    assert _stamp(user_settings_file) == before, f"{user_settings_file} was written"


def test_started_processes_write_settings_in_a_temporary_folder(user_settings_file):
    before = _stamp(user_settings_file)
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    proc = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True,
                          timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    written = Path(proc.stdout.strip())
    assert written.is_file()
    assert Path(os.environ["XDG_CONFIG_HOME"]) in written.parents
    assert user_settings_file.parent not in written.parents
    assert _stamp(user_settings_file) == before, f"{user_settings_file} was written"
