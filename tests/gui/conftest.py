"""Fixtures for the Qt tests (offscreen; see tests/conftest.py)."""
from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _pyqtgraph_look(qapp):
    from ntkviz.gui.headless import configure_pyqtgraph

    configure_pyqtgraph()


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
