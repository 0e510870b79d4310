"""The main window: one tab per registered panel, menus, messages, sessions.

* Tabs: one per line of :data:`ntkviz.gui.panels.PANELS` (a panel is built when
  its tab is first shown or it is looked up in ``panels``); the window never
  needs editing for a new panel. Start-up: :mod:`ntkviz.gui.startup`; session
  files: :mod:`ntkviz.gui.session`.
* File: Export… (Ctrl+E: a view of the current panel, in any format of
  :data:`ntkviz.gui.export.WRITERS`; an existing file is replaced only after
  asking), Save session… (Ctrl+S), Open session… (Ctrl+O), Quit (Ctrl+Q).
* View: one entry per panel (Ctrl+1, Ctrl+2, …) and the message log.
* Help: the maths of the current panel (F1), About.
* Errors appear in a message bar above the tabs and stay there until dismissed
  or replaced by the next message; every message is kept in the log (View →
  Messages…). The status bar shows the current panel's own text only, the
  numba warm-up state, and a progress bar with Cancel for long jobs of panels
  that have no Cancel button of their own (one Cancel per job).
* QSettings keep the geometry, the current tab and every panel's parameters.
"""
from __future__ import annotations

import json
import sys
import time
from collections.abc import Mapping
from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets

from ntkviz.gui.panels import PANELS, TITLES, resolve
from ntkviz.gui.session import SESSION_FORMAT, Session, read_session, validate_session, \
    write_session
from ntkviz.gui.startup import BACKGROUND_KEYS, import_core, start_window, warm_up_kernels

__all__ = ["MainWindow", "ExportDialog", "MessageBar", "SESSION_FORMAT", "warm_up_kernels"]

#: show the progress bar when a job has been running this long
PROGRESS_DELAY_MS = 400


class _LazyPanels(Mapping):
    """``MainWindow.panels``: key -> panel, building a panel on first lookup."""

    def __init__(self, window):
        self._window = window

    def __getitem__(self, key):
        return self._window._panel(key)

    def __iter__(self):
        return iter(list(self._window._targets))

    def __len__(self):
        return len(self._window._targets)

    def __contains__(self, key):
        return key in self._window._targets


class ExportDialog(QtWidgets.QDialog):
    """Choose a view, a format (from the file name) and a PNG width."""

    def __init__(self, panel, default_dir: str = "", parent=None):
        super().__init__(parent)
        self.setWindowTitle(f"Export — {panel.title}")
        self.view = QtWidgets.QComboBox()
        self.view.addItems(list(panel.plot_items()))
        self.width = QtWidgets.QSpinBox()
        self.width.setRange(200, 8000)
        self.width.setValue(1600)
        self.width.setSuffix(" px")
        self.width.setToolTip("PNG width; the height keeps the on-screen aspect ratio")
        self.path = QtWidgets.QLineEdit(str(Path(default_dir or Path.home()) / f"{panel.key}.png"))
        browse = QtWidgets.QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        row = QtWidgets.QHBoxLayout()
        row.addWidget(self.path, 1)
        row.addWidget(browse)
        form = QtWidgets.QFormLayout(self)
        form.addRow("view", self.view)
        from ntkviz.gui.export import EXPORT_SUFFIXES

        form.addRow(f"file ({', '.join(EXPORT_SUFFIXES)})", row)
        form.addRow("PNG width", self.width)
        buttons = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.StandardButton.Save
                                             | QtWidgets.QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def _browse(self) -> None:
        from ntkviz.gui.export import file_filter

        path, _ = QtWidgets.QFileDialog.getSaveFileName(
            self, "Export", self.path.text(), file_filter(),
            options=QtWidgets.QFileDialog.Option.DontConfirmOverwrite)  # asked once, in accept
        if path:
            self.path.setText(path)

    def accept(self) -> None:
        """Check the file name; an existing file is replaced only if the user says so
        (every time, typed or browsed)."""
        from ntkviz.gui.export import writer_for

        path = Path(self.path.text()).expanduser()
        try:
            writer_for(path)
            if not path.parent.is_dir():
                raise ValueError(f"{path.name}: the folder {path.parent} does not exist")
        except ValueError as exc:
            QtWidgets.QMessageBox.warning(self, "Export", str(exc))
            return
        if path.exists():
            answer = QtWidgets.QMessageBox.question(
                self, "Replace file?", f"{path} already exists. Replace it?",
                QtWidgets.QMessageBox.StandardButton.Yes | QtWidgets.QMessageBox.StandardButton.No,
                QtWidgets.QMessageBox.StandardButton.No)
            if answer != QtWidgets.QMessageBox.StandardButton.Yes:
                return
        super().accept()


class MessageBar(QtWidgets.QFrame):
    """An error shown until dismissed (×) or replaced; every message also goes to
    ``log`` (``[(time, text, error)]``).

    One line, never more: a long message is elided to the bar's width (the whole text
    is its tooltip and in the message log), and the bar asks for no minimum size, so
    showing a message never grows the window (a wrapped three-line message once made a
    1280×720 window 1280×727, and it stayed so after dismissing)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.log: list[tuple[str, str, bool]] = []
        self._text = ""
        self.setObjectName("messageBar")
        self.setStyleSheet("#messageBar { background: #fdecea; border-bottom: 1px solid #e0b4b4; }"
                           " QLabel { color: #8a1c1c; }")
        self.label = QtWidgets.QLabel()
        self.label.setTextFormat(QtCore.Qt.TextFormat.PlainText)
        self.label.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.label.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored,
                                 QtWidgets.QSizePolicy.Policy.Preferred)
        close = QtWidgets.QToolButton()
        close.setText("×")
        close.setToolTip("dismiss this message")
        close.setAutoRaise(True)
        close.clicked.connect(self.dismiss)
        lay = QtWidgets.QHBoxLayout(self)
        lay.setContentsMargins(8, 4, 4, 4)
        lay.addWidget(self.label, 1)
        lay.addWidget(close)
        self.hide()

    def minimumSizeHint(self) -> QtCore.QSize:  # noqa: N802 - Qt API
        return QtCore.QSize(0, 0)  # the window's minimum is the tabs': a message never grows it

    def record(self, text: str, error: bool) -> None:
        self.log.append((time.strftime("%H:%M:%S"), text, error))
        del self.log[:-500]

    def show_error(self, text: str) -> None:
        self._text = text
        self.setToolTip(text)
        self._elide()
        self.show()

    def text(self) -> str:
        """The error shown now, whole ("" when none)."""
        return self._text if self.isVisible() else ""

    def dismiss(self) -> None:
        self._text = ""
        self.setToolTip("")
        self.label.setText("")
        self.hide()

    def _elide(self) -> None:
        """The message on one line, cut with "…" where the bar ends."""
        line = " ".join(self._text.split())
        width = max(self.label.width(), 40)
        self.label.setText(self.label.fontMetrics().elidedText(
            line, QtCore.Qt.TextElideMode.ElideRight, width))

    def resizeEvent(self, event):  # noqa: N802 - Qt API
        super().resizeEvent(event)
        self._elide()


#: the window's size at first start, shrunk to a smaller screen (every tab fits 1280×720)
DEFAULT_SIZE = (1280, 820)


def default_size(screen) -> tuple[int, int]:
    """:data:`DEFAULT_SIZE`, at most the screen's available area (a 1280×720 laptop
    screen gets a window that fits it, not one that hangs below the taskbar)."""
    if screen is None:
        return DEFAULT_SIZE
    free = screen.availableGeometry()
    return min(DEFAULT_SIZE[0], free.width()), min(DEFAULT_SIZE[1], free.height())


class MainWindow(QtWidgets.QMainWindow):
    """Tabs built from :data:`ntkviz.gui.panels.PANELS` around a shared dispatcher.

    ``settings`` defaults to the application's ``QSettings``; ``panels`` limits the
    tabs to these keys (tests)."""

    def __init__(self, dispatcher, settings: QtCore.QSettings | None = None,
                 panels: list[str] | None = None, parent=None):
        super().__init__(parent)
        from ntkviz import __version__

        self.dispatcher = dispatcher
        self.settings = settings if settings is not None else QtCore.QSettings()
        self.setWindowTitle(f"ntkviz {__version__} — neural tangent kernels")
        #: every panel by key; a panel is built (imported, constructed, given its
        #: restored parameters) the first time it is looked up or its tab is shown
        self.panels = _LazyPanels(self)
        self._targets: dict[str, str] = {}
        self._built: dict[str, object] = {}
        self._pending: dict[str, dict] = {}  # restored parameters of panels not built yet
        self._pages: dict[str, QtWidgets.QWidget] = {}
        self._started = False
        self._start_requested = False
        self._start_on_demand = False
        dispatcher.returned.connect(self._on_job_done)
        dispatcher.errored.connect(self._on_job_error)
        self._panel_text: dict[str, str] = {}  # each panel's last status text
        self.tabs = QtWidgets.QTabWidget()
        self.tabs.setDocumentMode(True)
        self.messages = MessageBar()
        central = QtWidgets.QWidget()
        lay = QtWidgets.QVBoxLayout(central)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        lay.addWidget(self.messages)
        lay.addWidget(self.tabs, 1)
        self.setCentralWidget(central)
        self._build_status_bar()
        for key, _title, target in PANELS:
            if panels is not None and key not in panels:
                continue
            page = QtWidgets.QWidget()
            QtWidgets.QVBoxLayout(page).setContentsMargins(0, 0, 0, 0)
            self._targets[key] = target
            self._pages[key] = page
            self.tabs.addTab(page, TITLES.get(key, key))
        self._build_menus()
        dispatcher.busy.connect(self._on_busy)
        dispatcher.yielded.connect(self._on_yielded)
        self._busy_since: dict[str, QtCore.QElapsedTimer] = {}
        self._progress_timer = QtCore.QTimer(self)
        self._progress_timer.setInterval(100)
        self._progress_timer.timeout.connect(self._update_progress)
        self.resize(*default_size(self.screen()))
        self.restore_settings()
        self._panel_at(self.tabs.currentIndex())  # only the visible panel is built now
        self.tabs.currentChanged.connect(self._on_tab_changed)

    # ------------------------------------------------------------- building
    def _build_status_bar(self) -> None:
        sb = self.statusBar()
        self.compile_label = QtWidgets.QLabel("")
        self.progress = QtWidgets.QProgressBar()
        self.progress.setMaximumWidth(220)
        self.progress.setTextVisible(True)
        self.cancel_button = QtWidgets.QPushButton("Cancel")
        self.cancel_button.setToolTip("stop the running computation (its panel keeps its "
                                      "last result)")
        self.cancel_button.clicked.connect(self.cancel_jobs)
        for w in (self.compile_label, self.progress, self.cancel_button):
            sb.addPermanentWidget(w)
        self.progress.hide()
        self.cancel_button.hide()

    def _action(self, menu, text, slot, shortcut=None, tip=""):
        act = QtGui.QAction(text, self)
        if shortcut:
            act.setShortcut(QtGui.QKeySequence(shortcut))
        if tip:
            act.setStatusTip(tip)
        act.triggered.connect(slot)
        menu.addAction(act)
        return act

    def _build_menus(self) -> None:
        mb = self.menuBar()
        f = mb.addMenu("&File")
        self._action(f, "&Export…", self.export_dialog, "Ctrl+E",
                     "export the current plot as PNG/SVG or its data as CSV")
        f.addSeparator()
        self._action(f, "&Open session…", self.open_session_dialog, "Ctrl+O",
                     "restore every panel's parameters from a JSON session file")
        self._action(f, "&Save session…", self.save_session_dialog, "Ctrl+S",
                     "save every panel's parameters and seeds to a JSON file")
        f.addSeparator()
        self._action(f, "&Quit", self.close, "Ctrl+Q")
        v = mb.addMenu("&View")
        for i, key in enumerate(self._targets):
            self._action(v, TITLES.get(key, key), lambda _=False, k=key: self.show_panel(k),
                         f"Ctrl+{i + 1}" if i < 9 else None)
        v.addSeparator()
        self._action(v, "&Messages…", self.show_log, "Ctrl+M",
                     "every message and error of this session")
        h = mb.addMenu("&Help")
        self._action(h, "&Maths of this panel", self.show_maths, "F1")
        self._action(h, "&About ntkviz", self.show_about)

    # ------------------------------------------------------------ start-up
    def start(self, *, on_demand: bool = False) -> None:
        """Import the core on a worker, compute the visible panel, then the other
        built panels and the numba warm-up (:func:`ntkviz.gui.startup.start_window`).
        A panel that computes only on demand (``auto_compute`` False) is not started,
        unless it is the visible one and ``on_demand`` (``ntkviz gui --screenshot``)."""
        self._start_requested = True
        self._start_on_demand = on_demand
        if "ntkviz.jobs" not in sys.modules:
            # the numeric core (numba, scipy: about a second) is imported on a worker
            # after the window has shown (importing it meanwhile delays the window
            # and not the first plot); computing starts once it is loaded
            self.compile_label.setText("loading the computation modules…")
            model = getattr(self.current_panel(), "model", None)
            self.dispatcher.submit("_core", lambda: import_core(model), immediate=True)
            return
        start_window(self)

    # ------------------------------------------------------- lazy panels
    def _panel(self, key: str):
        """The panel ``key``, built now if needed (``KeyError`` if it is unknown or
        cannot be built; the reason then goes to the status bar)."""
        panel = self._built.get(key)
        if panel is not None:
            return panel
        if key not in self._targets:
            raise KeyError(key)
        try:
            panel = resolve(self._targets[key])(self.dispatcher)
        except Exception as exc:  # noqa: BLE001 - one broken panel must not stop the app
            self.show_message(f"the {TITLES.get(key, key)} tab cannot be shown: "
                              f"{type(exc).__name__}: {exc}", error=True)
            raise KeyError(key) from None
        self._built[key] = panel
        panel.status.connect(self._on_panel_status)
        self._pages[key].layout().addWidget(panel)
        state = self._pending.pop(key, None)
        if state is not None:
            try:
                with panel.refresh_suspended():
                    panel.set_state(state)
            except (ValueError, TypeError, KeyError):
                self.show_message(f"{panel.title}: the last parameters could not be restored; "
                                  f"defaults used")
        if self._started and panel.auto_compute:
            panel.start()
        return panel

    def _key_at(self, index: int) -> str | None:
        page = self.tabs.widget(index)
        return next((k for k, p in self._pages.items() if p is page), None)

    def _panel_at(self, index: int):
        key = self._key_at(index)
        if key is None:
            return None
        try:
            return self._panel(key)
        except KeyError:
            return None

    def _on_tab_changed(self, index: int) -> None:
        panel = self._panel_at(index)
        text = self._panel_text.get(getattr(panel, "key", None), "")
        self._show_status(text, error=bool(getattr(panel, "last_error", "")))

    def _on_job_done(self, key: str, rid: int, response) -> None:
        if key == "_core":
            if self._start_requested and not self._started:
                start_window(self)
        elif key == "_warmup":
            self.compile_label.setText("")
            self._show_note("computations ready")

    def _on_job_error(self, key: str, rid: int, message: str) -> None:
        if key == "_core":
            self.compile_label.setText("")
            self.show_message(f"cannot load the computation modules: {message}", error=True)
        elif key == "_warmup":
            self.compile_label.setText("")
            self.show_message(f"preparing the computations failed: {message}", error=True)

    # ------------------------------------------------------------- panels
    def current_panel(self):
        """The panel of the current tab (built if needed), or ``None``."""
        return self._panel_at(self.tabs.currentIndex())

    def show_panel(self, key: str) -> None:
        if key not in self._pages:
            self.show_message(f"no panel {key!r}; panels: {', '.join(self._pages)}", error=True)
            return
        self.tabs.setCurrentWidget(self._pages[key])

    def show_message(self, text: str, error: bool = False) -> None:
        """A message of the window (sessions, exports, start-up): an error stays in the
        message bar until dismissed or replaced; other messages show in the status bar
        for a while. Both go to the log. A new message replaces the shown error."""
        if error:
            self.messages.record(text, error)
            self.messages.show_error(text)
        else:
            self.messages.dismiss()
            self._show_note(text)

    def _show_note(self, text: str, seconds: float = 15.0) -> None:
        """A passing note (logged): shown in the status bar for a while, then the
        current panel's status line comes back. An error in the message bar stays
        (a note of the window's own, e.g. the end of start-up, supersedes nothing)."""
        self.messages.record(text, False)
        self.statusBar().setStyleSheet("")
        self.statusBar().showMessage(text)

        def back_to_panel():
            if self.statusBar().currentMessage() == text:
                self._on_tab_changed(self.tabs.currentIndex())

        QtCore.QTimer.singleShot(int(seconds * 1000), self, back_to_panel)

    def error_text(self) -> str:
        """The error shown in the message bar ("" when none)."""
        return self.messages.text()

    def _show_status(self, text: str, error: bool = False) -> None:
        self.statusBar().setStyleSheet("QStatusBar { color: #b00020; }" if error else "")
        if text:
            self.statusBar().showMessage(text)
        else:
            self.statusBar().clearMessage()

    def _on_panel_status(self, text: str) -> None:
        """A panel's status line: logged; shown only if that panel is the current one."""
        panel = self.sender()
        key = getattr(panel, "key", None)
        error = bool(getattr(panel, "last_error", ""))
        self._panel_text[key] = text
        self.messages.record(text, error)
        if panel is self._built.get(self._key_at(self.tabs.currentIndex())):
            self._show_status(text, error)

    def show_log(self) -> None:
        """The message log (View → Messages…)."""
        dlg = QtWidgets.QDialog(self)
        dlg.setWindowTitle("Messages")
        view = QtWidgets.QPlainTextEdit()
        view.setReadOnly(True)
        view.setPlainText("\n".join(f"{t}  {'error: ' if e else ''}{m}"
                                    for t, m, e in self.messages.log) or "no messages")
        lay = QtWidgets.QVBoxLayout(dlg)
        lay.addWidget(view)
        dlg.resize(720, 400)
        dlg.show()
        self._log_dialog = dlg

    # ------------------------------------------------------------ progress
    def _on_busy(self, key: str, busy: bool) -> None:
        if busy:
            t = QtCore.QElapsedTimer()
            t.start()
            self._busy_since[key] = t
            self._progress_timer.start()
        else:
            self._busy_since.pop(key, None)
            if not self._busy_since:
                self._progress_timer.stop()
                self.progress.hide()
                self.cancel_button.hide()

    def _long_jobs(self) -> list[str]:
        return [k for k, t in self._busy_since.items()
                if t.elapsed() >= PROGRESS_DELAY_MS and k not in BACKGROUND_KEYS]

    def _cancellable_here(self) -> list[str]:
        """Long jobs whose panel has no Cancel button of its own (one Cancel per job):
        a panel's ``own_cancel`` covers the jobs under its key, ``own_cancel_jobs``
        lists its other ones."""
        own = {k for k, panel in self._built.items() if getattr(panel, "own_cancel", False)}
        for panel in self._built.values():
            own.update(getattr(panel, "own_cancel_jobs", ()))
        return [k for k in self._long_jobs() if k not in own]

    def _update_progress(self) -> None:
        show = bool(self._long_jobs())
        if show and not self.progress.isVisible():
            self.progress.setRange(0, 0)  # indeterminate until a fraction arrives
        self.progress.setVisible(show)
        self.cancel_button.setVisible(bool(self._cancellable_here()))

    def _on_yielded(self, key: str, rid: int, item) -> None:
        fraction = getattr(item, "fraction", None)
        if fraction is not None:
            self.progress.setRange(0, 1000)
            self.progress.setValue(int(round(1000 * max(0.0, min(1.0, float(fraction))))))

    def cancel_jobs(self) -> None:
        """Cancel every running job (the panels keep their last result)."""
        for key in self._cancellable_here():
            self.dispatcher.cancel(key)
        self.show_message("computation cancelled")

    # -------------------------------------------------------------- export
    def export_current(self, path, view: str | None = None, width: int | None = None) -> Path:
        """Export ``view`` (default: the first) of the current panel to ``path`` (format
        from the suffix: :data:`ntkviz.gui.export.WRITERS`; PNG ``width`` px)."""
        from ntkviz.gui.export import export_view

        return export_view(self.current_panel(), view, path, width)

    def export_dialog(self) -> None:
        panel = self.current_panel()
        if panel is None:
            return
        dlg = ExportDialog(panel, str(self.settings.value("export_dir", "")), self)
        if dlg.exec() != QtWidgets.QDialog.DialogCode.Accepted:
            return
        try:
            path = self.export_current(Path(dlg.path.text()).expanduser(),
                                       dlg.view.currentText(), dlg.width.value())
        except (ValueError, OSError) as exc:
            self.show_message(f"export failed: {exc}", error=True)
            return
        self.settings.setValue("export_dir", str(Path(path).parent))
        self.show_message(f"exported {path}")

    # ------------------------------------------------------------- sessions
    def session(self) -> dict:
        """The JSON-serialisable session: every panel's state and the current tab."""
        from ntkviz import __version__

        current = self.current_panel()
        return Session(getattr(current, "key", None), self._states()).to_json(__version__)

    def _states(self) -> dict:
        """Every panel's parameters: built panels are asked, the others keep the
        parameters they were restored with (panels never built and never restored
        have their defaults, so they are left out)."""
        states = {k: dict(v) for k, v in self._pending.items()}
        states.update({k: p.state() for k, p in self._built.items()})
        return {k: states[k] for k in self._targets if k in states}

    def save_session(self, path) -> None:
        from ntkviz import __version__

        write_session(path, Session(self.session()["current"], self._states()), __version__)

    def apply_session(self, data, build: bool = True) -> None:
        """Validate the whole session ``data`` (every panel's parameters through its
        model), then apply it; ``ValueError`` naming the first bad field and nothing
        changed otherwise. ``build=False`` (start-up): panels not built yet keep their
        parameters until they are built."""
        try:
            session = validate_session(data, list(self._targets))
        except RecursionError:
            raise ValueError("not a session (nested too deeply)") from None
        self._apply(session, build)

    def _apply(self, session: Session, build: bool) -> None:
        states = session.states
        if build:  # build first, so that a failure restores every panel it touched
            for key in states:
                try:
                    self._panel(key)
                except KeyError:
                    pass
        backup = {k: p.state() for k, p in self._built.items()}
        try:
            for key, state in states.items():
                if key in self._built:
                    self._built[key].set_state(state)
        except (ValueError, TypeError, KeyError) as exc:
            for key, state in backup.items():
                self._built[key].set_state(state)
            raise ValueError(f"panels.{key}: {exc}") from None
        for key, state in states.items():
            if key not in self._built:
                self._pending[key] = dict(state)
        if session.current in self._pages:
            self.show_panel(session.current)

    def open_session(self, path) -> bool:
        """Open a session file; a problem is shown (message bar) and changes nothing
        (returns ``False``)."""
        try:
            self._apply(read_session(path, list(self._targets)), build=True)
        except ValueError as exc:
            self.show_message(f"cannot open session {exc}", error=True)
            return False
        self.show_message(f"session {Path(path).name} opened")
        return True

    def save_session_dialog(self) -> None:
        path, _ = QtWidgets.QFileDialog.getSaveFileName(
            self, "Save session", str(self.settings.value("session_dir", "")),
            "ntkviz session (*.json)")
        if not path:
            return
        if not path.endswith(".json"):
            path += ".json"
        try:
            self.save_session(path)
        except OSError as exc:
            self.show_message(f"cannot save session: {exc}", error=True)
            return
        self.settings.setValue("session_dir", str(Path(path).parent))
        self.show_message(f"session saved to {path}")

    def open_session_dialog(self) -> None:
        path, _ = QtWidgets.QFileDialog.getOpenFileName(
            self, "Open session", str(self.settings.value("session_dir", "")),
            "ntkviz session (*.json)")
        if path:
            self.open_session(path)

    # ------------------------------------------------------------- settings
    def restore_settings(self) -> None:
        """Geometry, current tab and panel parameters from QSettings (errors ignored)."""
        geometry = self.settings.value("geometry")
        if isinstance(geometry, QtCore.QByteArray):
            self.restoreGeometry(geometry)
        text = self.settings.value("session")
        if text:
            try:
                self.apply_session(json.loads(str(text)), build=False)
            except (ValueError, TypeError, RecursionError):
                self.show_message("the last parameters could not be restored; defaults used")

    def save_settings(self) -> None:
        self.settings.setValue("geometry", self.saveGeometry())
        self.settings.setValue("session", json.dumps(self.session()))
        self.settings.sync()

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt API
        self.save_settings()
        super().closeEvent(event)

    # ---------------------------------------------------------------- help
    def show_maths(self) -> None:
        panel = self.current_panel()
        if panel is None:
            return
        dlg = QtWidgets.QDialog(self)
        dlg.setWindowTitle(f"Maths — {panel.title}")
        text = QtWidgets.QTextBrowser()
        text.setHtml(panel.help_html())
        text.setOpenExternalLinks(True)
        lay = QtWidgets.QVBoxLayout(dlg)
        lay.addWidget(text)
        dlg.resize(720, 560)
        dlg.show()

    def show_about(self) -> None:
        from ntkviz import __version__

        QtWidgets.QMessageBox.about(self, "About ntkviz", ABOUT_HTML.format(version=__version__))


ABOUT_HTML = """
<h3>ntkviz {version}</h3>
<p>A desktop explorer for neural tangent kernel theory: kernel curves, Mercer eigenvalue
decay, CKN/NTK deformation stability and lazy training.</p>
<p>Kernel conventions follow A. Bietti and J. Mairal, <i>On the Inductive Bias of Neural
Tangent Kernels</i>, NeurIPS 2019, and the reference implementation albietz/ckn_kernel;
lazy training follows L. Chizat, E. Oyallon and F. Bach, <i>On Lazy Training in
Differentiable Programming</i>, NeurIPS 2019.</p>
<p>MNIST digits (bundled 5,000-digit subset): Yann LeCun and Corinna Cortes,
licensed CC BY-SA 3.0.</p>
<p>Built with PySide6 (Qt), pyqtgraph, NumPy, SciPy and numba. Licence: MIT.</p>
"""
