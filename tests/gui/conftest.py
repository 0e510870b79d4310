"""Fixtures for the Qt tests (offscreen; see tests/conftest.py)."""
from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _pyqtgraph_look(qapp):
    from ntkviz.gui.headless import configure_pyqtgraph

    configure_pyqtgraph()


@pytest.fixture(autouse=True)
def _fresh_app_settings(tmp_path_factory):
    """``QSettings()`` (the main window's default) reads and writes a new empty folder in
    every test: never the user's file, and no parameters carried from one test to the next."""
    from PySide6 import QtCore

    folder = str(tmp_path_factory.mktemp("config"))
    for fmt in (QtCore.QSettings.Format.NativeFormat, QtCore.QSettings.Format.IniFormat):
        QtCore.QSettings.setPath(fmt, QtCore.QSettings.Scope.UserScope, folder)
    yield folder


@pytest.fixture
def dispatcher(qapp):
    from ntkviz.gui.workers import Dispatcher

    d = Dispatcher()
    yield d
    d.shutdown()


@pytest.fixture
def settings(tmp_path):
    from PySide6 import QtCore

    return QtCore.QSettings(str(tmp_path / "settings.ini"), QtCore.QSettings.Format.IniFormat)


@pytest.fixture
def training_panel(qtbot):
    """A lazy-training panel on its own dispatcher, shown at 1200×700 (paused and shut
    down afterwards)."""
    from ntkviz.gui.panels.training import QtTrainingPanel
    from ntkviz.gui.workers import Dispatcher

    dispatcher = Dispatcher()
    panel = QtTrainingPanel(dispatcher)
    qtbot.addWidget(panel)
    panel.resize(1200, 700)
    panel.show()
    yield panel
    panel.pause()
    dispatcher.shutdown()
