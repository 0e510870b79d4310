"""Fixtures for the Qt tests (offscreen; see tests/conftest.py)."""
from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _pyqtgraph_look(qapp):
    from ntkviz.gui.headless import configure_pyqtgraph

    configure_pyqtgraph()


@pytest.fixture(autouse=True)
def _gc_on_the_gui_thread(request, qapp):
    """As in the app, whose dispatcher holds the collector from start to quit, every GUI test
    runs with garbage collected on this thread only, and its garbage is collected here when it
    ends: threads other tests left running (Dask's, zarr's I/O loop) never collect a Qt
    object. Tests of the collector itself
    opt out (``@pytest.mark.own_gc``)."""
    import gc

    if request.node.get_closest_marker("own_gc"):
        yield
        return
    from ntkviz.gui.collector import GUI_THREAD_GC

    GUI_THREAD_GC.hold()
    yield
    # the test's garbage (Qt and pyqtgraph items in cycles) is freed here, on the GUI thread,
    # before automatic collection comes back and a later test's thread could free it; the heap
    # that existed at hold is frozen, so this collection only traverses the test's objects
    gc.collect()
    GUI_THREAD_GC.release()


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
def stability_panel(qtbot, dispatcher):
    """A Stability panel on the test's dispatcher, shown at 1100×700."""
    from ntkviz.gui.panels.stability import QtStabilityPanel

    panel = QtStabilityPanel(dispatcher)
    qtbot.addWidget(panel)
    panel.resize(1100, 700)
    panel.show()
    return panel


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


@pytest.fixture
def drawn_ticks():
    """``drawn_ticks(axis)``: ``(scene rect, text)`` of the tick labels the axis draws now."""
    from PySide6 import QtGui

    def labels(axis) -> list[tuple]:
        image = QtGui.QImage(8, 8, QtGui.QImage.Format.Format_ARGB32)
        painter = QtGui.QPainter(image)
        try:
            specs = axis.generateDrawSpecs(painter)
        finally:
            painter.end()
        return [] if specs is None else [(axis.mapRectToScene(rect), text)
                                         for rect, _, text in specs[2] if text.strip()]

    return labels


@pytest.fixture
def two_tab_window(qtbot, dispatcher, settings):
    """A main window of the Kernel curves and Eigenvalue decay tabs, shown and exposed,
    not started (nothing computed yet)."""
    from ntkviz.gui.main_window import MainWindow

    w = MainWindow(dispatcher, settings, panels=["kernel", "spectrum"])
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    return w
