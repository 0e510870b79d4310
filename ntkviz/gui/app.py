"""Start the desktop app (``ntkviz`` / ``ntkviz gui``) or one panel standalone."""
from __future__ import annotations

import sys
from pathlib import Path

__all__ = ["main", "create_app", "run_standalone", "icon_path"]


def icon_path() -> Path | None:
    """``ntkviz/resources/<APP_ID>.svg`` (or ``.png``) if it exists."""
    from ntkviz import APP_ID

    res = Path(__file__).resolve().parent.parent / "resources"
    for suffix in (".svg", ".png"):
        p = res / f"{APP_ID}{suffix}"
        if p.is_file():
            return p
    return None


def create_app(argv: list[str] | None = None):
    """The ``QApplication`` (created if needed) with ntkviz's name, desktop file name,
    icon and pyqtgraph look."""
    from PySide6 import QtGui, QtWidgets

    from ntkviz import APP_ID, __version__
    from ntkviz.gui.headless import configure_pyqtgraph, install_message_filter

    app = QtWidgets.QApplication.instance()
    if app is None:
        install_message_filter()
        app = QtWidgets.QApplication(argv or ["ntkviz"])
    app.setApplicationName("ntkviz")
    app.setOrganizationName("ntkviz")
    app.setApplicationVersion(__version__)
    app.setDesktopFileName(APP_ID)
    icon = icon_path()
    if icon is not None:
        app.setWindowIcon(QtGui.QIcon(str(icon)))
    configure_pyqtgraph()
    return app


def _screenshot_when_ready(app, window, panel, path: str, timeout_ms: int = 120000) -> None:
    """Grab ``window`` to ``path`` once ``panel`` has drawn, then quit."""
    from PySide6 import QtCore

    done = {"flag": False}

    def shoot():
        if done["flag"]:
            return
        done["flag"] = True
        from ntkviz._io import atomic_write

        image = window.grab()

        def save(tmp):
            if not image.save(str(tmp), "PNG"):
                raise OSError(f"{path}: cannot write the screenshot")

        try:
            atomic_write(path, save)
        finally:
            app.quit()

    def on_computed(_rid):
        QtCore.QTimer.singleShot(300, shoot)  # let the plots repaint

    if panel is None:
        QtCore.QTimer.singleShot(500, shoot)
    else:
        panel.computed.connect(on_computed)
        if panel.response is not None:
            on_computed(0)
    QtCore.QTimer.singleShot(timeout_ms, shoot)


def main(session: str | None = None, screenshot: str | None = None, tab: str | None = None) -> int:
    """Run the app. ``session``: a JSON session to open; ``screenshot``: save a PNG of
    the window once the first plots are drawn, then quit; ``tab``: panel key shown first."""
    from ntkviz.gui.main_window import MainWindow
    from ntkviz.gui.workers import Dispatcher

    app = create_app(sys.argv[:1])
    dispatcher = Dispatcher()
    app.aboutToQuit.connect(dispatcher.shutdown)
    window = MainWindow(dispatcher)
    if session:
        window.open_session(session)
    if tab:
        window.show_panel(tab)
    window.show()
    window.start()
    if screenshot:
        _screenshot_when_ready(app, window, window.current_panel(), screenshot)
    rc = app.exec()
    return _finish(dispatcher, rc)


def _finish(dispatcher, rc: int) -> int:
    """Stop the workers; if a job is still running after the wait (a long numba call
    cannot be interrupted), end the process now rather than finalise Python under a
    running thread."""
    if not dispatcher.shutdown():
        import os

        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(rc)
    return rc


def run_standalone(panel_cls, argv: list[str] | None = None) -> int:
    """Show one panel in its own window (``python -m ntkviz.gui.panels.<module>``).

    Options: ``--screenshot FILE.png`` (save once drawn, then quit) and
    ``--quit-after MS`` (smoke tests)."""
    import argparse

    from PySide6 import QtCore

    from ntkviz.gui.workers import Dispatcher

    parser = argparse.ArgumentParser(description=f"ntkviz panel: {panel_cls.title}")
    parser.add_argument("--screenshot", metavar="FILE.png")
    parser.add_argument("--quit-after", type=int, metavar="MS")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    app = create_app(sys.argv[:1])
    dispatcher = Dispatcher()
    app.aboutToQuit.connect(dispatcher.shutdown)
    panel = panel_cls(dispatcher)
    panel.status.connect(lambda text: panel.setWindowTitle(f"ntkviz — {text}"))
    panel.setWindowTitle(f"ntkviz — {panel_cls.title}")
    panel.resize(1200, 760)
    panel.show()
    panel.start()
    if args.screenshot:
        _screenshot_when_ready(app, panel, panel, args.screenshot)
    if args.quit_after:
        QtCore.QTimer.singleShot(args.quit_after, app.quit)
    return _finish(dispatcher, app.exec())
