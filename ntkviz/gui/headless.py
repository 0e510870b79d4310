"""Render a panel offscreen and export one of its views: the engine of
``ntkviz export <view> ... --out FILE.{png,svg,csv}``.

The figure is drawn by the very panel class the GUI shows, with the same
dispatcher and the same request, so a headless figure matches the app's.
"""
from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path

__all__ = ["ensure_app", "render_panel", "build_panel", "wait_computed", "install_message_filter", "rendering",
           "PANEL_SIZE"]

#: on-screen size of the offscreen panel (sets the figure's aspect ratio)
PANEL_SIZE = (1100, 700)


def ensure_app():
    """Return the ``QApplication``, creating an offscreen one if none exists
    (with ntkviz's white-background pyqtgraph options)."""
    from PySide6 import QtWidgets

    global _APP
    app = QtWidgets.QApplication.instance()
    if app is None:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        install_message_filter()
        app = _APP = QtWidgets.QApplication(["ntkviz"])  # lives as long as the process
    configure_pyqtgraph()
    return app


#: the application :func:`ensure_app` created (a collection must never free it)
_APP = None


#: harmless Qt messages of the offscreen platform
QUIET_MESSAGES = ("This plugin does not support propagateSizeHints()",)


def install_message_filter() -> None:
    """Drop Qt's known-harmless offscreen messages; print every other one on stderr."""
    import sys

    from PySide6 import QtCore

    def handler(mode, context, message):
        if not any(q in message for q in QUIET_MESSAGES):
            print(message, file=sys.stderr)

    QtCore.qInstallMessageHandler(handler)


def configure_pyqtgraph() -> None:
    """ntkviz's global pyqtgraph look (white background, black text, antialiasing)."""
    import pyqtgraph as pg

    pg.setConfigOptions(background="w", foreground="k", antialias=True)


def wait_computed(panel, timeout_s: float = 120.0, request_id: int | None = None) -> None:
    """Process events until ``panel`` has drawn the response to ``request_id``
    (default: the newest request); raise ``ValueError`` with the job's message if
    it failed, ``TimeoutError`` after ``timeout_s``."""
    from PySide6 import QtCore

    loop = QtCore.QEventLoop()
    outcome: dict = {}
    want = panel.slot.latest_id() if request_id is None else request_id

    def on_computed(rid):
        if rid >= want:
            outcome["ok"] = True
            loop.quit()

    def on_error(rid, message, _params):
        if rid >= want:
            outcome["error"] = message
            loop.quit()

    panel.computed.connect(on_computed)
    panel.slot.errored.connect(on_error)
    timer = QtCore.QTimer()
    timer.setSingleShot(True)
    timer.timeout.connect(loop.quit)
    timer.start(int(timeout_s * 1000))
    try:
        if not panel.is_current() or panel.slot.is_busy():
            loop.exec()
        else:
            outcome["ok"] = True
    finally:
        timer.stop()
        panel.computed.disconnect(on_computed)
        panel.slot.errored.disconnect(on_error)
    if "error" in outcome:
        raise ValueError(outcome["error"])
    if not outcome:
        raise TimeoutError(f"{panel.title}: no result within {timeout_s:g} s")


def build_panel(panel_cls, state: dict | None = None, dispatcher=None,
                size: tuple[int, int] = PANEL_SIZE, timeout_s: float = 120.0):
    """Create ``panel_cls`` offscreen with ``state``, show it at ``size`` and wait
    until it has drawn. Returns the panel (its dispatcher is ``panel.dispatcher``)."""
    from ntkviz.gui.workers import Dispatcher

    app = ensure_app()
    own = dispatcher is None
    dispatcher = dispatcher or Dispatcher()
    try:
        panel = panel_cls(dispatcher)
        if panel.last_error:
            raise ValueError(panel.last_error)
        if state:
            panel.set_state(state)
        panel.resize(*size)
        panel.show()
        app.processEvents()
        rid = panel.start()
        if rid == 0:
            raise ValueError(panel.last_error or "invalid parameters")
        wait_computed(panel, timeout_s, rid)
        app.processEvents()
    except BaseException:
        if own:  # nobody else will shut it down
            dispatcher.shutdown()
        raise
    return panel


def render_panel(panel_cls, state: dict | None, view: str | None, path, width: int | None = None,
                 timeout_s: float = 120.0, height: int | None = None, size=None, prepare=None,
                 dpi: int | None = None):
    """Build ``panel_cls`` offscreen with ``state`` and export ``view`` to ``path``;
    returns the response drawn.

    Parameters
    ----------
    panel_cls : type[QtPanel]
    state : dict or None
        As returned by ``panel.state()``; missing keys keep the defaults.
    view : str or None
        One of ``panel.plot_items()`` (default: the first).
    path : str or Path
        Any suffix of :data:`ntkviz.gui.export.WRITERS` (``.png``, ``.svg``,
        ``.pdf``, ``.csv`` …).
    width, height : int, optional
        Image size in pixels (default: the on-screen size; a missing height keeps
        the panel's aspect ratio).
    size : (int, int), optional
        The offscreen panel's size (default :data:`PANEL_SIZE`).
    prepare : callable, optional
        ``prepare(panel)`` once it has drawn, before the file is written.
    dpi : int, optional
        Dots per inch of a PNG's resolution tag and a PDF's page size (default
        :data:`ntkviz.limits.EXPORT_DPI`).

    Raises
    ------
    ValueError
        Bad parameters or file suffix, an unknown view, or a failed computation
        (the job's message).
    """
    from ntkviz.gui.export import export_view, writer_for

    path = Path(path)
    writer_for(path)  # an unknown suffix is refused before computing
    with rendering():
        panel = build_panel(panel_cls, state, size=size or PANEL_SIZE, timeout_s=timeout_s)
        try:
            if prepare is not None:
                prepare(panel)
            export_view(panel, view, path, width, height, dpi)
            response = panel.response
        finally:
            panel.dispatcher.shutdown()
            panel.close()
            del panel
    return response


@contextmanager
def rendering():
    """A headless render: its garbage is collected at the end, on this (the GUI) thread.

    The GUI-thread collector is held throughout (the heap as it is at the start is
    frozen, so the final collection traverses only what the render made). Inside, hide
    or close the widgets and drop every reference to them — never ``deleteLater`` or
    pyqtgraph's ``GraphicsView.close`` (which clears the scene): Qt then deletes the C++
    objects through their Python owners in that collection. Items deleted behind their
    Python wrappers would stay in reference cycles that crash the interpreter when a later
    collection, on any thread, frees them."""
    import gc

    from ntkviz.gui.collector import GUI_THREAD_GC

    ensure_app()  # the collector's timer needs the application's event dispatcher
    GUI_THREAD_GC.hold()
    try:
        yield
    finally:
        gc.collect()
        GUI_THREAD_GC.release()
