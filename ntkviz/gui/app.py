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


#: seconds ``--screenshot`` waits for the panel without news (a result or a progress item)
SCREENSHOT_STALL_S = 300


def _screenshot_when_ready(app, window, panel, path: str, stall_s: float = SCREENSHOT_STALL_S,
                           progress=None) -> dict:
    """Grab ``window`` to ``path`` once ``panel`` has drawn, then quit (exit code 0).

    Never an empty picture: if the panel reports an error before it has drawn, or sends
    neither a result nor a progress item (``panel.slot.yielded``) for ``stall_s``
    seconds, nothing is saved, the event loop exits with code 1 and the returned dict's
    ``"error"`` says why. ``progress(fraction, final)``, if given, follows the panel's
    job (items with a ``fraction``)."""
    from PySide6 import QtCore

    outcome = {"error": None}
    state = {"phase": "waiting", "fraction": None}  # waiting -> drawn -> done
    stall = QtCore.QTimer(app)
    stall.setSingleShot(True)
    stall.setInterval(int(stall_s * 1000))

    def finish(error: str | None = None):
        if state["phase"] == "done":
            return
        state["phase"] = "done"
        stall.stop()
        if progress is not None and state["fraction"] is not None:
            progress(1.0 if error is None else state["fraction"], True)
        if error is None:
            error = _save_grab(window, path)
        outcome["error"] = error
        app.exit(0 if error is None else 1)

    if panel is None:  # the main window has said why (its message bar)
        reason = window.error_text() if hasattr(window, "error_text") else ""
        QtCore.QTimer.singleShot(0, lambda: finish(reason or "the tab cannot be shown"))
        return outcome

    def on_computed(_rid=0):
        if state["phase"] == "waiting":
            state["phase"] = "drawn"
            stall.stop()
            QtCore.QTimer.singleShot(300, finish)  # let the plots repaint

    def on_status(_text):
        if state["phase"] == "waiting" and panel.last_error:
            finish(f"{panel.title}: {panel.last_error}")

    def on_yielded(_rid, item, _params):
        if state["phase"] != "waiting":
            return
        stall.start()
        fraction = getattr(item, "fraction", None)
        if fraction is not None:
            state["fraction"] = float(fraction)
            if progress is not None:
                progress(state["fraction"], False)

    stall.timeout.connect(lambda: finish(f"{panel.title}: nothing drawn after {stall_s:g} s "
                                         "without progress"))
    panel.computed.connect(on_computed)
    panel.status.connect(on_status)
    panel.slot.yielded.connect(on_yielded)
    stall.start()
    if panel.response is not None:
        on_computed()
    return outcome


def _save_grab(window, path: str) -> str | None:
    """Save ``window.grab()`` as a PNG at ``path`` (atomically); the error text, or None."""
    from ntkviz._io import atomic_write

    image = window.grab()

    def save(tmp):
        if not image.save(str(tmp), "PNG"):
            raise OSError(f"{path}: cannot write the screenshot")

    try:
        atomic_write(path, save)
    except OSError as exc:
        return str(exc)
    return None


def _screenshot_exit(outcome: dict | None, rc: int, prog: str) -> int:
    """``rc``, or 1 with one line on stderr if the screenshot failed."""
    if outcome is None or not outcome["error"]:
        return rc
    print(f"{prog}: error: --screenshot: {outcome['error']}; no screenshot saved", file=sys.stderr)
    return rc or 1


def main(session: str | None = None, screenshot: str | None = None, tab: str | None = None,
         progress=None, session_text: str | None = None) -> int:
    """Run the app. ``session``: a JSON session to open (or ``session_text``, one as text:
    :func:`ntkviz.gui.session.read_session_text`); ``tab``: panel key shown first;
    ``screenshot``: save a PNG of the window once that tab has drawn, then quit. A tab
    that computes only on demand (stability, classification) is started as its Start
    button would; ``progress(fraction, final)`` then follows its job. If the tab fails
    or stalls, nothing is saved: one line on stderr and exit code 1."""
    from ntkviz.gui.main_window import MainWindow
    from ntkviz.gui.workers import Dispatcher

    app = create_app(sys.argv[:1])
    dispatcher = Dispatcher()
    app.aboutToQuit.connect(dispatcher.shutdown)
    window = MainWindow(dispatcher)
    if session:
        window.open_session(session)
    if session_text is not None:
        try:
            window.sessions.open_text(session_text)
        except ValueError as exc:
            window.show_message(f"cannot open session {exc}", error=True)
    if tab:
        window.show_panel(tab)
    window.show()
    window.start(on_demand=bool(screenshot))
    outcome = None
    if screenshot:
        outcome = _screenshot_when_ready(app, window, window.current_panel(), screenshot,
                                         progress=progress)
    return _finish(dispatcher, _screenshot_exit(outcome, app.exec(), "ntkviz gui"))


def _finish(dispatcher, rc: int) -> int:
    """Stop the workers (cancel every job, wait until the one deadline of
    :meth:`Dispatcher.shutdown`, :data:`ntkviz.gui.workers.QUIT_WAIT_MS`); if a job is
    still running then (a long numba call cannot be interrupted), end the process now
    rather than finalise Python under a running thread."""
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

    from ntkviz.gui.panels._base import spec_of_view
    from ntkviz.gui.workers import Dispatcher

    title = spec_of_view(panel_cls).title
    parser = argparse.ArgumentParser(description=f"ntkviz panel: {title}")
    parser.add_argument("--screenshot", metavar="FILE.png")
    parser.add_argument("--quit-after", type=int, metavar="MS")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    app = create_app(sys.argv[:1])
    dispatcher = Dispatcher()
    app.aboutToQuit.connect(dispatcher.shutdown)
    panel = panel_cls(dispatcher)
    panel.status.connect(lambda text: panel.setWindowTitle(f"ntkviz — {text}"))
    panel.setWindowTitle(f"ntkviz — {title}")
    panel.resize(1200, 760)
    panel.show()
    panel.start()
    outcome = None
    if args.screenshot:
        outcome = _screenshot_when_ready(app, panel, panel, args.screenshot)
    if args.quit_after:
        QtCore.QTimer.singleShot(args.quit_after, app.quit)
    return _finish(dispatcher, _screenshot_exit(outcome, app.exec(), title))
