"""The main window: one tab per declared panel, menus, messages.

* Tabs: one per :class:`~ntkviz.panels.PanelSpec` of :data:`ntkviz.panels.PANELS` (a
  panel is built when its tab is first shown or it is looked up in ``panels``); the
  window never needs editing for a new panel. Start-up: :mod:`ntkviz.gui.startup`;
  sessions and settings: :mod:`ntkviz.gui.session_controller`; jobs' progress and
  Cancel: :mod:`ntkviz.gui.status`.
* File: Export… (Ctrl+E: a view of the current panel, in any format of
  :data:`ntkviz.gui.export.WRITERS`; an existing file is replaced only after
  asking; :mod:`ntkviz.gui.export_dialog`), Open session… (Ctrl+O), Open recent, Save
  session… (Ctrl+S), Copy session as text, Open session from text…, Quit (Ctrl+Q).
* Edit: Undo (Ctrl+Z) and Redo (Ctrl+Shift+Z) of the current tab's parameters, Reset
  to defaults (:mod:`ntkviz.gui.undo`); Copy as command, Copy figure
  (:func:`ntkviz.gui.export_dialog.add_copy_actions`).
* View: one entry per panel (Ctrl+1, Ctrl+2, …) and the message log.
* Help: the maths of the current panel (F1), what to look for in it (Shift+F1; also the
  links at the right of the tab bar), About.
* Ctrl+Return and Esc press the current tab's Start and Cancel buttons of a job that
  runs on demand (:meth:`ntkviz.gui.panels._base.QtPanel.use_job_buttons`); Esc also
  cancels the jobs the status bar's Cancel stands for.
* Errors appear in a message bar above the tabs and stay there until dismissed
  or replaced by the next message; every message is kept in the log (View →
  Messages…). The status bar shows the current panel's own text only, what the
  start-up prepares, and the progress of long jobs (named by their tab) with a
  Cancel for jobs whose panel has none of its own.
"""
from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets

from ntkviz import panels as panel_specs
from ntkviz.gui.export_dialog import ExportDialog, add_copy_actions
from ntkviz.gui.help_dialogs import LookForDialog, text_dialog
from ntkviz.gui.session import SESSION_FORMAT
from ntkviz.gui.session_controller import SessionController
from ntkviz.gui.startup import Startup, warm_up_kernels
from ntkviz.gui.status import CANCEL_KEY, START_KEY, JobStatus
from ntkviz.gui.undo import UndoActions

__all__ = ["MainWindow", "ExportDialog", "MessageBar", "SESSION_FORMAT", "warm_up_kernels"]


class _LazyPanels(Mapping):
    """``MainWindow.panels``: key -> panel, building a panel on first lookup."""

    def __init__(self, window):
        self._window = window

    def __getitem__(self, key):
        return self._window._panel(key)

    def __iter__(self):
        return iter(self._window.keys())

    def __len__(self):
        return len(self._window.keys())

    def __contains__(self, key):
        return key in self._window.keys()


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
    """Tabs of the declared panels around a shared dispatcher.

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
        self._specs = {s.key: s for s in panel_specs.specs() if panels is None or s.key in panels}
        self._built: dict[str, object] = {}
        self._pages: dict[str, QtWidgets.QWidget] = {}
        self._panel_text: dict[str, str] = {}  # each panel's last status text
        self.tabs = QtWidgets.QTabWidget()
        self.tabs.setDocumentMode(True)
        self.help_links = QtWidgets.QLabel(
            "<a href='look'>What to look for</a> &nbsp;·&nbsp; <a href='maths'>Maths</a>&nbsp;")
        self.help_links.setToolTip("Help on the current tab: what to look for (Shift+F1) and "
                                   "the maths behind it (F1)")
        self.help_links.linkActivated.connect(
            lambda link: self.show_look_for() if link == "look" else self.show_maths())
        self.tabs.setCornerWidget(self.help_links, QtCore.Qt.Corner.TopRightCorner)
        self.messages = MessageBar()
        central = QtWidgets.QWidget()
        lay = QtWidgets.QVBoxLayout(central)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        lay.addWidget(self.messages)
        lay.addWidget(self.tabs, 1)
        self.setCentralWidget(central)
        self.status = JobStatus(dispatcher)
        self.statusBar().addPermanentWidget(self.status)
        self.status.cancelled.connect(lambda: self.show_message("computation cancelled"))
        self.progress, self.cancel_button = self.status.progress, self.status.cancel_button
        self.compile_label = self.status.compile_label
        for key, spec in self._specs.items():
            page = QtWidgets.QWidget()
            QtWidgets.QVBoxLayout(page).setContentsMargins(0, 0, 0, 0)
            self._pages[key] = page
            self.tabs.addTab(page, spec.title)
        self.sessions = SessionController(self, self.settings)
        self.startup = Startup(self, dispatcher)
        self._build_menus()
        self.resize(*default_size(self.screen()))
        self.sessions.restore_settings()
        self._panel_at(self.tabs.currentIndex())  # only the visible panel is built now
        self.tabs.currentChanged.connect(self._on_tab_changed)

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
        self._action(f, "&Open session…", self.sessions.open_dialog, "Ctrl+O",
                     "restore every panel's parameters from a JSON session file")
        self.recent_menu = f.addMenu("Open &recent")
        self.recent_menu.aboutToShow.connect(
            lambda: self.sessions.fill_recent_menu(self.recent_menu))
        self._action(f, "&Save session…", self.sessions.save_dialog, "Ctrl+S",
                     "save every panel's parameters and seeds to a JSON file")
        f.addSeparator()
        self._action(f, "&Copy session as text", self.sessions.copy_text, None,
                     "every panel's parameters as one line on the clipboard, to paste in a "
                     "message or give to ntkviz gui --session-text")
        self._action(f, "Open session from &text…", self.sessions.open_text_dialog, None,
                     "restore every panel's parameters from a string of Copy session as text")
        f.addSeparator()
        self._action(f, "&Quit", self.close, "Ctrl+Q")
        #: Edit: Undo, Redo, Reset to defaults (other actions may be added after them)
        self.edit_menu = mb.addMenu("&Edit")
        self.undo_actions = UndoActions(self, self.edit_menu)
        v = mb.addMenu("&View")
        for i, (key, spec) in enumerate(self._specs.items()):
            self._action(v, spec.title, lambda _=False, k=key: self.show_panel(k),
                         f"Ctrl+{i + 1}" if i < 9 else None)
        v.addSeparator()
        self._action(v, "&Messages…", self.show_log, "Ctrl+M",
                     "every message and error of this session")
        add_copy_actions(self)  # Edit → Copy as command, Copy figure
        h = mb.addMenu("&Help")
        self._action(h, "&Maths of this panel", self.show_maths, "F1")
        self._action(h, "&What to look for", self.show_look_for, "Shift+F1",
                     "a few observations in the current tab, with the parameters that show them")
        self._action(h, "&About ntkviz", self.show_about)
        for key, slot in ((START_KEY, lambda: self.press_job_button(0)),
                          (CANCEL_KEY, lambda: self.press_job_button(1))):
            act = QtGui.QAction(self)  # no menu entry: the buttons' tooltips name the keys
            act.setShortcut(QtGui.QKeySequence(key))
            act.triggered.connect(slot)
            self.addAction(act)
        self._start_keypad = QtGui.QShortcut(QtGui.QKeySequence("Ctrl+Enter"), self,
                                             lambda: self.press_job_button(0))

    def press_job_button(self, which: int) -> bool:
        """Press the current tab's Start (``which`` 0) or Cancel (1) button of its
        on-demand job, if it is enabled; Cancel with none of the tab's running also stands
        for the status bar's Cancel. A value being typed is committed first. Returns
        whether a button was pressed."""
        panel = self.current_panel()
        buttons = getattr(panel, "job_buttons", None)
        button = buttons[which] if buttons else None
        if button is None or not (button.isEnabled() and button.isVisibleTo(panel)):
            if which == 1 and self.status.cancellable():
                self.status.cancel_jobs()
                return True
            return False
        focus = QtWidgets.QApplication.focusWidget()
        if focus is not None and which == 0:  # a spin box or text field commits on losing focus
            focus.clearFocus()
            focus.setFocus()
        button.click()
        return True

    def start(self, *, on_demand: bool = False) -> None:
        """Start computing (:class:`ntkviz.gui.startup.Startup`); ``on_demand``: the
        visible panel computes even if it computes only when asked (screenshots)."""
        self.startup.start(on_demand)

    # --------------------------------------------------------------- panels
    def keys(self) -> list[str]:
        """The keys of the window's panels, in tab order."""
        return list(self._specs)

    def specs(self) -> list:
        """The :class:`~ntkviz.panels.PanelSpec` of the window's panels, in tab order."""
        return list(self._specs.values())

    def built_panels(self) -> list:
        """The panels built so far."""
        return list(self._built.values())

    def _panel(self, key: str):
        """The panel ``key``, built now if needed (``KeyError`` if it is unknown or
        cannot be built; the reason then goes to the message bar)."""
        panel = self._built.get(key)
        if panel is not None:
            return panel
        spec = self._specs[key]
        try:
            panel = panel_specs.resolve(spec.view)(self.dispatcher, spec=spec)
        except Exception as exc:  # noqa: BLE001 - one broken panel must not stop the app
            self.show_message(f"the {spec.title} tab cannot be shown: "
                              f"{type(exc).__name__}: {exc}", error=True)
            raise KeyError(key) from None
        self._built[key] = panel
        panel.status.connect(self._on_panel_status)
        self._pages[key].layout().addWidget(panel)
        state = self.sessions.take(key)
        if state is not None:
            try:
                with panel.refresh_suspended():
                    panel.set_state(state)
            except (ValueError, TypeError, KeyError):
                self.show_message(f"{panel.title}: the last parameters could not be restored; "
                                  f"defaults used")
            panel.model.history.clear()  # the parameters a tab starts with are not undoable
        self.undo_actions.watch(panel)
        if self.startup.started and panel.auto_compute:
            panel.start()
        return panel

    def _key_at(self, index: int) -> str | None:
        page = self.tabs.widget(index)
        return next((k for k, p in self._pages.items() if p is page), None)

    def _panel_at(self, index: int):
        key = self._key_at(index)
        return None if key is None else self.panels.get(key)

    def current_panel(self):
        """The panel of the current tab (built if needed), or ``None``."""
        return self._panel_at(self.tabs.currentIndex())

    def show_panel(self, key: str) -> None:
        """Show the tab of panel ``key`` (or of a panel of that earlier name)."""
        try:
            key = panel_specs.spec(key).key
        except ValueError:
            pass
        if key not in self._pages:
            self.show_message(f"no panel {key!r}; panels: {', '.join(self._pages)}", error=True)
            return
        self.tabs.setCurrentWidget(self._pages[key])

    def _on_tab_changed(self, index: int) -> None:
        panel = self._panel_at(index)
        text = self._panel_text.get(getattr(panel, "key", None), "")
        self._show_status(text, error=bool(getattr(panel, "last_error", "")))
        self.undo_actions.update()

    # ------------------------------------------------------------- messages
    def show_message(self, text: str, error: bool = False) -> None:
        """A message of the window (sessions, exports, start-up): an error stays in the
        message bar until dismissed or replaced; other messages show in the status bar
        for a while. Both go to the log. A new message replaces the shown error."""
        if error:
            self.messages.record(text, error)
            self.messages.show_error(text)
        else:
            self.messages.dismiss()
            self.show_note(text)

    def show_note(self, text: str, seconds: float = 15.0) -> None:
        """A passing note (logged): shown in the status bar for a while, then the
        current panel's status line comes back. An error in the message bar stays."""
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
        error = bool(getattr(panel, "last_error", ""))
        self._panel_text[panel.key] = text
        self.messages.record(text, error)
        if panel is self._built.get(self._key_at(self.tabs.currentIndex())):
            self._show_status(text, error)

    def show_log(self) -> None:
        """The message log (View → Messages…)."""
        self._log_dialog = text_dialog(self, "Messages", "\n".join(
            f"{t}  {'error: ' if e else ''}{m}" for t, m, e in self.messages.log) or "no messages")

    # --------------------------------------------------------------- export
    def export_current(self, path, view: str | None = None, width: int | None = None,
                       height: int | None = None, dpi: int | None = None) -> Path:
        """Export ``view`` (default: the first) of the current panel to ``path`` (format
        from the suffix: :data:`ntkviz.gui.export.WRITERS`; images ``width`` × ``height``
        px at ``dpi``)."""
        from ntkviz.gui.export import export_view

        return export_view(self.current_panel(), view, path, width, height, dpi)

    def export_dialog(self) -> None:
        panel = self.current_panel()
        if panel is None:
            return
        dlg = ExportDialog(panel, str(self.settings.value("export_dir", "")), self)
        if dlg.exec() != QtWidgets.QDialog.DialogCode.Accepted:
            return
        c = dlg.choices()
        try:
            path = self.export_current(c["path"], c["view"], c["width"], c["height"], c["dpi"])
        except (ValueError, OSError) as exc:
            self.show_message(f"export failed: {exc}", error=True)
            return
        self.settings.setValue("export_dir", str(Path(path).parent))
        self.show_message(f"exported {path}")

    # ------------------------------------------------------------- sessions
    def session(self) -> dict:
        """The JSON-serialisable session (:meth:`SessionController.session`)."""
        return self.sessions.session()

    def save_session(self, path) -> None:
        self.sessions.save(path)

    def apply_session(self, data, build: bool = True) -> None:
        self.sessions.apply(data, build)

    def open_session(self, path) -> bool:
        return self.sessions.open(path)

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt API
        self.sessions.save_settings()
        super().closeEvent(event)

    # ----------------------------------------------------------------- help
    def show_maths(self):
        """Help → Maths of this panel (F1): the formulas behind the current tab."""
        panel = self.current_panel()
        if panel is not None:
            self._maths_dialog = text_dialog(self, f"Maths — {panel.title}", panel.help_html(),
                                             html_text=True, size=(720, 560))
            return self._maths_dialog
        return None

    def show_look_for(self):
        """Help → What to look for (Shift+F1): observations in the current tab, each with
        a Show link setting the parameters that show it (:mod:`ntkviz.look_for`)."""
        panel = self.current_panel()
        if panel is None:
            return None
        self._look_for_dialog = LookForDialog(panel, self)
        self._look_for_dialog.shown.connect(lambda text: self.show_note(f"shown: {text}"))
        self._look_for_dialog.show()
        return self._look_for_dialog

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
