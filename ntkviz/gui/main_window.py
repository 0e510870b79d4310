"""The main window: one tab per registered panel, menus, status bar, sessions.

Start-up is kept short: the window shows before the numeric core (numba, scipy)
is imported — :meth:`MainWindow.start` imports it on a worker — and a panel is
built only when its tab is first shown or it is looked up in ``panels``.

* File: Export… (Ctrl+E: PNG at a chosen width, SVG or CSV of a view of the
  current panel), Save session… (Ctrl+S), Open session… (Ctrl+O), Quit (Ctrl+Q).
* View: one entry per panel (Ctrl+1, Ctrl+2, …).
* Help: the maths of the current panel (F1), About.
* Status bar: messages and errors from the panels, "compiling kernels…" while the
  numba warm-up runs, and a progress bar with Cancel for long jobs.
* QSettings keep the geometry, the current tab and every panel's parameters.

A session file is JSON: ``{"app": "ntkviz", "version": …, "session_format": 1,
"current": <key>, "panels": {<key>: <panel.state()>}}``.
"""
from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Mapping
from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets

from ntkviz.gui.panels import PANELS, TITLES, resolve

__all__ = ["MainWindow", "ExportDialog", "SESSION_FORMAT", "warm_up_kernels"]

SESSION_FORMAT = 1
#: show the progress bar when a job has been running this long
PROGRESS_DELAY_MS = 400


def warm_up_kernels() -> str:
    """Call the numba kernels of the kernel and spectrum panels once on tiny inputs
    (compiles them, or loads them from the cache) — run on a worker at start."""
    from ntkviz.core import KernelSpec
    from ntkviz.jobs import KernelCurveRequest, SpectrumRequest

    specs = (KernelSpec(name="ntk", depth=3), KernelSpec(name="arccos1"))
    KernelCurveRequest(specs=specs, n_points=5, derivative=True, near_one=True, n_near=3)()
    SpectrumRequest(specs=specs, dim=3, kmax=4)()
    return "kernels ready"


def _import_core() -> str:
    """Import the numeric core behind the requests (run on a worker at start-up)."""
    importlib.import_module("ntkviz.jobs")
    return "core loaded"


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
        form.addRow("file (.png, .svg, .csv)", row)
        form.addRow("PNG width", self.width)
        buttons = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.StandardButton.Save
                                             | QtWidgets.QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def _browse(self) -> None:
        path, _ = QtWidgets.QFileDialog.getSaveFileName(
            self, "Export", self.path.text(),
            "PNG image (*.png);;SVG vector image (*.svg);;CSV data (*.csv)")
        if path:
            self.path.setText(path)


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
        self.tabs = QtWidgets.QTabWidget()
        self.tabs.setDocumentMode(True)
        self.setCentralWidget(self.tabs)
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
        dispatcher.returned.connect(self._on_job_done)
        dispatcher.errored.connect(self._on_job_error)
        self._busy_since: dict[str, QtCore.QElapsedTimer] = {}
        self._progress_timer = QtCore.QTimer(self)
        self._progress_timer.setInterval(100)
        self._progress_timer.timeout.connect(self._update_progress)
        self.resize(1280, 820)
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
        self.cancel_button.setToolTip("stop the running computation")
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
        h = mb.addMenu("&Help")
        self._action(h, "&Maths of this panel", self.show_maths, "F1")
        self._action(h, "&About ntkviz", self.show_about)

    # ------------------------------------------------------------ start-up
    def start(self) -> None:
        """Compute the visible panel, then every other built panel, and warm the numba
        kernels in the background (:func:`warm_up_kernels` plus each panel class's
        optional ``warm_up()``). Panels built later compute when they are built."""
        if "ntkviz.jobs" not in sys.modules:
            # import the numeric core (numba, scipy: most of a second) on a worker, so
            # that the window stays responsive meanwhile; start once it is loaded
            self.compile_label.setText("loading the numeric core…")
            self.dispatcher.submit("_core", _import_core, immediate=True)
            return
        self._started = True
        self.compile_label.setText("compiling kernels…")
        current = self.current_panel()
        pending = {"started": False}

        def start_the_rest(*_):
            # numba compiles one function at a time (global lock): the visible panel
            # goes first, the other panels and the warm-up once it has drawn
            if pending["started"]:
                return
            pending["started"] = True
            for panel in list(self._built.values()):
                if panel is not current:
                    panel.start()
            extra = []
            for key, target in self._targets.items():
                try:
                    warm = getattr(resolve(target), "warm_up", None)
                except Exception:  # noqa: BLE001 - reported when its tab is shown
                    continue
                if warm is not None:
                    extra.append(warm)

            def warm_up_all():
                warm_up_kernels()
                for warm in extra:
                    warm()
                return "kernels ready"

            self.dispatcher.submit("_warmup", warm_up_all, immediate=True)

        if current is None or current.start() == 0:
            start_the_rest()
            return
        current.computed.connect(start_the_rest)
        current.status.connect(lambda _text: current.last_error and start_the_rest())

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
            self.show_message(f"panel {key!r} unavailable: {type(exc).__name__}: {exc}",
                              error=True)
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
                self.show_message("last parameters could not be restored; defaults used")
        if self._started:
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
        self._panel_at(index)

    def _on_job_done(self, key: str, rid: int, response) -> None:
        if key == "_core" and not self._started:
            self.start()
        elif key == "_warmup":
            self.compile_label.setText("")
            self.show_message("kernels compiled and ready")

    def _on_job_error(self, key: str, rid: int, message: str) -> None:
        if key == "_core":
            self.compile_label.setText("")
            self.show_message(f"cannot load the numeric core: {message}", error=True)
        elif key == "_warmup":
            self.compile_label.setText("")
            self.show_message(f"kernel warm-up failed: {message}", error=True)

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
        self.statusBar().setStyleSheet("QStatusBar { color: #b00020; }" if error else "")
        self.statusBar().showMessage(text, 0 if error else 15000)

    def _on_panel_status(self, text: str) -> None:
        panel = self.sender()
        self.show_message(text, error=bool(getattr(panel, "last_error", "")))

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
                if t.elapsed() >= PROGRESS_DELAY_MS and k not in ("_warmup", "_core")]

    def _update_progress(self) -> None:
        show = bool(self._long_jobs())
        if show and not self.progress.isVisible():
            self.progress.setRange(0, 0)  # indeterminate until a fraction arrives
        self.progress.setVisible(show)
        self.cancel_button.setVisible(show)

    def _on_yielded(self, key: str, rid: int, item) -> None:
        fraction = getattr(item, "fraction", None)
        if fraction is not None:
            self.progress.setRange(0, 1000)
            self.progress.setValue(int(round(1000 * max(0.0, min(1.0, float(fraction))))))

    def cancel_jobs(self) -> None:
        """Cancel every running job (the panels keep their last result)."""
        for key in self._long_jobs():
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
            path = self.export_current(dlg.path.text(), dlg.view.currentText(), dlg.width.value())
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
        return {
            "app": "ntkviz",
            "version": __version__,
            "session_format": SESSION_FORMAT,
            "current": getattr(current, "key", None),
            "panels": self._states(),
        }

    def _states(self) -> dict:
        """Every panel's parameters: built panels are asked, the others keep the
        parameters they were restored with (panels never built and never restored
        have their defaults, so they are left out)."""
        states = {k: dict(v) for k, v in self._pending.items()}
        states.update({k: p.state() for k, p in self._built.items()})
        return {k: states[k] for k in self._targets if k in states}

    def save_session(self, path) -> None:
        Path(path).write_text(json.dumps(self.session(), indent=2, sort_keys=True),
                              encoding="utf-8")

    def apply_session(self, data: dict, build: bool = True) -> None:
        """Restore a session dict; on any error every panel keeps its previous state
        and ``ValueError`` is raised. ``build=False`` (start-up): panels not built yet
        keep their state until they are built (and are checked then)."""
        if not isinstance(data, dict) or data.get("app") != "ntkviz" or "panels" not in data:
            raise ValueError("not an ntkviz session (expected keys app='ntkviz', panels)")
        fmt = data.get("session_format", SESSION_FORMAT)
        if not isinstance(fmt, int) or fmt > SESSION_FORMAT:
            raise ValueError(f"session format {fmt!r} is newer than this ntkviz "
                             f"(supports {SESSION_FORMAT})")
        states = data["panels"]
        if not isinstance(states, dict):
            raise ValueError("session 'panels' must be an object keyed by panel")
        for key, state in states.items():
            if key in self._targets and not isinstance(state, dict):
                raise ValueError(f"bad session, nothing changed: session state of panel "
                                 f"{key!r} must be an object")
        if not build:
            for key, state in states.items():
                if key in self._targets and key not in self._built:
                    self._pending[key] = dict(state)
        if build:  # build first, so that a failure restores every panel it touched
            for key in states:
                if key in self._targets:
                    try:
                        self._panel(key)
                    except KeyError:
                        pass
        backup = {k: p.state() for k, p in self._built.items()}
        try:
            for key, state in states.items():
                if key in self._built:
                    self._panel(key).set_state(state)
        except (ValueError, TypeError, KeyError) as exc:
            for key, state in backup.items():
                self._built[key].set_state(state)
            raise ValueError(f"bad session, nothing changed: {exc}") from None
        if data.get("current") in self._pages:
            self.show_panel(data["current"])

    def open_session(self, path) -> bool:
        """Open a session file; errors go to the status bar (returns ``False``)."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
            self.apply_session(data)
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, ValueError) as exc:
            self.show_message(f"cannot open session {Path(path).name}: {exc}", error=True)
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
            except (ValueError, TypeError):
                self.show_message("last parameters could not be restored; defaults used")

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
