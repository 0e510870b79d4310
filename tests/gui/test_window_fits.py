"""Every tab fits a 1280×720 window (menus and status bar included) and keeps it whole.

Built in the main window from the registry (:data:`ntkviz.panels.PANELS`), every
panel must

* leave the window at the size it was given: showing, building or computing a tab
  never resizes the window (the deformation editor once grew it to 1280×986);
* need no more than 1280×720 (``window.minimumSizeHint()``);
* need no horizontal scroll bar in its controls column (the generalisation column
  once scrolled sideways and half hid the Monte-Carlo progress bar);
* give every pyqtgraph view at least the size its title, axes and legend need
  (pyqtgraph draws a larger scene cut at the view's edges), at 1280×720 and at the
  smallest size the window allows.
"""
from __future__ import annotations

import math

import pytest
from PySide6 import QtCore, QtWidgets

from ntkviz.gui.main_window import MainWindow
from ntkviz.panels import keys

SCREEN = (1280, 720)


def needs_horizontal_scroll(panel) -> list[str]:
    """Scroll areas of ``panel`` whose content is wider than their viewport."""
    out = []
    for area in panel.findChildren(QtWidgets.QScrollArea):
        content = area.widget()
        if content is None or not area.isVisible():
            continue
        need = max(content.minimumSizeHint().width(), content.minimumWidth())
        if need > area.viewport().width() or area.horizontalScrollBar().maximum() > 0:
            out.append(f"{type(content).__name__} needs {need} px, has {area.viewport().width()}")
    return out


def cut_views(panel) -> list[str]:
    """pyqtgraph views of ``panel`` smaller than their scene's minimum size."""
    import pyqtgraph as pg

    out = []
    for view in panel.findChildren(pg.GraphicsView):
        item = view.centralWidget
        if item is None or not view.isVisible():
            continue
        need = item.effectiveSizeHint(QtCore.Qt.SizeHint.MinimumSize)
        have = view.viewport().size()
        if math.ceil(need.width()) > have.width() + 1 or math.ceil(need.height()) > have.height() + 1:
            out.append(f"{type(view).__name__} needs {need.width():.0f}×{need.height():.0f}, "
                       f"has {have.width()}×{have.height()}")
    return out


def settle(qtbot, ms: int = 150) -> None:
    """Let posted layout requests and deferred fits (single-shot timers) run."""
    qtbot.wait(ms)
    QtWidgets.QApplication.processEvents()


@pytest.fixture(scope="module")
def window(qapp, tmp_path_factory):
    """The main window with every registered panel, at 1280×720, computed (built once:
    computing every tab takes a while)."""
    from ntkviz.gui.headless import configure_pyqtgraph, wait_computed
    from ntkviz.gui.workers import Dispatcher

    configure_pyqtgraph()
    dispatcher = Dispatcher()
    path = tmp_path_factory.mktemp("fits") / "settings.ini"
    w = MainWindow(dispatcher, QtCore.QSettings(str(path), QtCore.QSettings.Format.IniFormat))
    w.resize(*SCREEN)
    w.show()
    panels = [w.panels[k] for k in keys()]  # every panel built now
    w.start()
    for panel in panels:
        if panel.auto_compute:
            wait_computed(panel, timeout_s=180.0)
    yield w
    w.close()
    w.deleteLater()
    dispatcher.shutdown()


def show(qtbot, window, key: str, size=SCREEN) -> None:
    """Show tab ``key`` in a window of ``size``; let the layout settle."""
    window.resize(*size)
    window.show_panel(key)
    settle(qtbot, 200)


def test_registry_is_what_is_tested(window):
    assert list(window.panels) == keys() and len(keys()) >= 7


def test_every_tab_fits_1280x720_and_never_resizes_the_window(qtbot, window):
    problems = []
    for key in keys():
        show(qtbot, window, key)
        panel = window.panels[key]
        size, hint = window.size(), window.minimumSizeHint()
        if (size.width(), size.height()) != SCREEN:
            problems.append(f"{key}: the window became {size.width()}×{size.height()}")
        if hint.width() > SCREEN[0] or hint.height() > SCREEN[1]:
            problems.append(f"{key}: needs a {hint.width()}×{hint.height()} window")
        problems += [f"{key}: {p}" for p in needs_horizontal_scroll(panel)]
        problems += [f"{key}: {p}" for p in cut_views(panel)]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("key", keys())
def test_nothing_is_cut_at_the_smallest_window(qtbot, dispatcher, settings, key):
    """The tab alone (as at start-up: tabs are built when first shown), in the smallest
    window it allows (the window's minimum is the largest of its built tabs')."""
    from ntkviz.gui.headless import wait_computed

    w = MainWindow(dispatcher, settings, panels=[key])
    qtbot.addWidget(w)
    w.resize(*SCREEN)
    w.show()
    panel = w.panels[key]
    w.start()
    if panel.auto_compute:
        wait_computed(panel, timeout_s=180.0)
    smallest = w.minimumSizeHint()
    assert smallest.width() <= SCREEN[0] and smallest.height() <= SCREEN[1]
    show(qtbot, w, key, (smallest.width(), smallest.height()))
    problems = needs_horizontal_scroll(panel) + cut_views(panel)
    assert not problems, f"{key} at {w.width()}×{w.height()}: " + "; ".join(problems)


LONG_MESSAGE = ("export failed: /home/someone/a/rather/long/folder/name/that/goes/on/and/on/"
                "figure.png: cannot write the PNG image (No space left on device); " * 4).strip()


def test_a_long_message_never_grows_the_window(qtbot, window):
    """A long error in the message bar, on every tab of a 1280×720 window: the window keeps
    its size while it is shown and after it is dismissed (it once became 1280×727 and stayed
    so); the whole message stays readable (tooltip and log)."""
    problems = []
    for key in keys():
        show(qtbot, window, key)
        window.show_message(LONG_MESSAGE, error=True)
        settle(qtbot, 200)
        shown = (window.width(), window.height())
        need = window.minimumSizeHint()
        assert window.messages.isVisible() and window.error_text() == LONG_MESSAGE
        window.messages.dismiss()
        settle(qtbot, 200)
        after = (window.width(), window.height())
        if shown != SCREEN or after != SCREEN or need.height() > SCREEN[1]:
            problems.append(f"{key}: {shown} with the message (needs {need.width()}×"
                            f"{need.height()}), {after} after dismissing it")
    assert not problems, "\n".join(problems)
    assert window.messages.log[-1][1] == LONG_MESSAGE
