"""The main window's sessions: save, open, as text, recent files, and the last
parameters kept in QSettings.

:class:`SessionController` works on the window through its public methods
(``panels``, ``built_panels``, ``keys``, ``current_panel``, ``show_panel``,
``show_message``). Files and strings are read and checked by :mod:`ntkviz.gui.session`
(whole session validated before anything changes); a panel not built yet keeps the
parameters it was given until its tab is first shown (:meth:`SessionController.take`).
Opening a session is one undoable step on each panel it changes ("open session").

* File → Copy session as text puts :func:`ntkviz.gui.session.session_text` of the
  session on the clipboard; File → Open session from text… reads one back
  (:class:`SessionTextDialog`: a bad string is refused in one line, in the dialog, and
  nothing changes).
* File → Open recent: the last :data:`RECENT_MAX` session files opened or saved (Qt
  settings ``recent_sessions``); files that no longer exist are dropped from the list
  with a message.
"""
from __future__ import annotations

import json
from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets

from ntkviz.gui.session import (Session, read_session, read_session_text, session_text,
                                validate_session, write_session)

__all__ = ["SessionController", "SessionTextDialog", "RECENT_MAX"]

#: session files kept in File → Open recent
RECENT_MAX = 8


class SessionController:
    """Sessions of ``window``, with its ``settings`` (QSettings)."""

    def __init__(self, window, settings: QtCore.QSettings):
        self.window = window
        self.settings = settings
        self._pending: dict[str, dict] = {}  # parameters of panels not built yet

    def take(self, key: str) -> dict | None:
        """The parameters panel ``key`` was given before it was built (once)."""
        return self._pending.pop(key, None)

    # ------------------------------------------------------------------ states
    def states(self) -> dict:
        """Every panel's parameters: built panels are asked, the others keep the
        parameters they were given (panels never built and never given any have their
        defaults, so they are left out)."""
        states = {k: dict(v) for k, v in self._pending.items()}
        states.update({p.key: p.state() for p in self.window.built_panels()})
        return {k: states[k] for k in self.window.keys() if k in states}

    def session(self) -> dict:
        """The JSON-serialisable session: every panel's state and the current tab."""
        from ntkviz import __version__

        current = self.window.current_panel()
        return Session(getattr(current, "key", None), self.states()).to_json(__version__)

    def save(self, path) -> None:
        from ntkviz import __version__

        write_session(path, Session(self.session()["current"], self.states()), __version__)
        self.remember(path)

    def apply(self, data, build: bool = True) -> None:
        """Validate the whole session ``data`` (every panel's parameters through its
        model), then apply it; ``ValueError`` naming the first bad field and nothing
        changed otherwise. ``build=False`` (start-up): panels not built yet keep their
        parameters until they are built."""
        try:
            session = validate_session(data, self.window.keys())
        except RecursionError:
            raise ValueError("not a session (nested too deeply)") from None
        self._apply(session, build)

    def _apply(self, session: Session, build: bool) -> None:
        states = session.states
        if build:  # build first, so that a failure restores every panel it touched
            for key in states:
                self.window.panels.get(key)
        built = {p.key: p for p in self.window.built_panels()}
        backup = {k: p.state() for k, p in built.items()}
        steps = {k: len(p.model.history) for k, p in built.items()}
        failed = None
        try:
            for failed, state in states.items():
                if failed in built:
                    built[failed].set_state(state, label="open session")
        except (ValueError, TypeError, KeyError) as exc:
            for key, state in backup.items():  # back as it was, and no undo step left
                history = built[key].model.history
                with history.paused():
                    built[key].set_state(state)
                if len(history) != steps[key]:
                    history.truncate(steps[key])
            raise ValueError(f"panels.{failed}: {exc}") from None
        for key, state in states.items():
            if key not in built:
                self._pending[key] = dict(state)
        if session.current is not None:
            self.window.show_panel(session.current)

    def open(self, path) -> bool:
        """Open a session file; a problem is shown (message bar) and changes nothing
        (returns ``False``)."""
        try:
            self._apply(read_session(path, self.window.keys()), build=True)
        except ValueError as exc:
            self.window.show_message(f"cannot open session {exc}", error=True)
            return False
        self.remember(path)
        self.window.show_message(f"session {Path(path).name} opened")
        return True

    # -------------------------------------------------------------------- text
    def text(self) -> str:
        """The session as one URL-safe line (:func:`ntkviz.gui.session.session_text`)."""
        return session_text(self.session())

    def copy_text(self) -> str:
        """Put :meth:`text` on the clipboard (File → Copy session as text); returns it."""
        text = self.text()
        QtGui.QGuiApplication.clipboard().setText(text)
        self.window.show_message(f"session copied as text ({len(text):,} characters): "
                                 "File → Open session from text… or ntkviz gui --session-text "
                                 "reads it")
        return text

    def open_text(self, text: str) -> None:
        """Apply a session string; ``ValueError`` ("session text: …", one line) and nothing
        changed if it is foreign, damaged or invalid."""
        self._apply(read_session_text(text, self.window.keys()), build=True)
        self.window.show_message("session opened from text")

    def open_text_dialog(self) -> None:
        """File → Open session from text…: paste a string (the clipboard's, if it holds one)."""
        dlg = SessionTextDialog(self, self.window)
        dlg.exec()

    # ------------------------------------------------------------------ recent
    def recent(self) -> list[str]:
        """The recent session files, newest first (as remembered; see :meth:`prune_recent`)."""
        value = self.settings.value("recent_sessions", [])
        if isinstance(value, str):  # QSettings gives one value for a one-item list
            value = [value]
        return [str(v) for v in (value or []) if v][:RECENT_MAX]

    def remember(self, path) -> None:
        """Put ``path`` first in the recent session files."""
        path = str(Path(path).expanduser().resolve())
        self.settings.setValue("recent_sessions",
                               [path, *(p for p in self.recent() if p != path)][:RECENT_MAX])

    def prune_recent(self) -> list[str]:
        """Drop the recent files that no longer exist (a message names them); returns the
        files that remain."""
        kept, gone = [], []
        for path in self.recent():
            (kept if Path(path).is_file() else gone).append(path)
        if gone:
            self.settings.setValue("recent_sessions", kept)
            names = ", ".join(Path(p).name for p in gone)
            self.window.show_message(f"removed from Open recent (no longer there): {names}")
        return kept

    def clear_recent(self) -> None:
        self.settings.setValue("recent_sessions", [])

    def fill_recent_menu(self, menu: QtWidgets.QMenu) -> None:
        """File → Open recent: the existing recent files (Ctrl+Alt+1 … for the first ones),
        then Clear."""
        menu.clear()
        paths = self.prune_recent()
        for i, path in enumerate(paths):
            act = menu.addAction(f"&{i + 1} {Path(path).name}")
            act.setStatusTip(path)
            act.setToolTip(path)
            act.triggered.connect(lambda _=False, p=path: self.open_recent(p))
        if not paths:
            menu.addAction("no recent sessions").setEnabled(False)
        menu.addSeparator()
        clear = menu.addAction("Clear the list")
        clear.setEnabled(bool(paths))
        clear.triggered.connect(self.clear_recent)

    def open_recent(self, path: str) -> bool:
        """Open a recent session file (one gone meanwhile is dropped from the list)."""
        if not Path(path).is_file():
            self.prune_recent()
            return False
        return self.open(path)

    # ----------------------------------------------------------------- dialogs
    def save_dialog(self) -> None:
        path, _ = QtWidgets.QFileDialog.getSaveFileName(
            self.window, "Save session", str(self.settings.value("session_dir", "")),
            "ntkviz session (*.json)")
        if not path:
            return
        if not path.endswith(".json"):
            path += ".json"
        try:
            self.save(path)
        except OSError as exc:
            self.window.show_message(f"cannot save session: {exc}", error=True)
            return
        self.settings.setValue("session_dir", str(Path(path).parent))
        self.window.show_message(f"session saved to {path}")

    def open_dialog(self) -> None:
        path, _ = QtWidgets.QFileDialog.getOpenFileName(
            self.window, "Open session", str(self.settings.value("session_dir", "")),
            "ntkviz session (*.json)")
        if path:
            self.open(path)

    # ---------------------------------------------------------------- settings
    def restore_settings(self) -> None:
        """Geometry, current tab and panel parameters from QSettings (errors ignored)."""
        geometry = self.settings.value("geometry")
        if isinstance(geometry, QtCore.QByteArray):
            self.window.restoreGeometry(geometry)
        text = self.settings.value("session")
        if text:
            try:
                self.apply(json.loads(str(text)), build=False)
            except (ValueError, TypeError, RecursionError):
                self.window.show_message("the last parameters could not be restored; "
                                         "defaults used")

    def save_settings(self) -> None:
        self.settings.setValue("geometry", self.window.saveGeometry())
        self.settings.setValue("session", json.dumps(self.session()))
        self.settings.sync()


class SessionTextDialog(QtWidgets.QDialog):
    """File → Open session from text…: a field to paste a session string into (filled
    from the clipboard when it holds one). Open applies it; a bad string is refused in
    one line under the field, the dialog stays open with the text, and nothing changes."""

    def __init__(self, sessions: SessionController, parent=None):
        super().__init__(parent)
        self.sessions = sessions
        self.setWindowTitle("Open session from text")
        self.edit = QtWidgets.QPlainTextEdit()
        self.edit.setPlaceholderText("paste a session string: ntkviz1.eNq…")
        self.edit.setToolTip("a string made by File → Copy session as text (spaces and line "
                             "breaks are ignored)")
        clip = QtGui.QGuiApplication.clipboard().text().strip()
        if clip.startswith("ntkviz"):
            self.edit.setPlainText(clip)
        self.error = QtWidgets.QLabel("")
        self.error.setWordWrap(True)
        self.error.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error.setStyleSheet("QLabel { color: #b00020; }")
        buttons = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.StandardButton.Open
                                             | QtWidgets.QDialogButtonBox.StandardButton.Close)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay = QtWidgets.QVBoxLayout(self)
        lay.addWidget(QtWidgets.QLabel("Every tab's parameters, as File → Copy session as text "
                                       "wrote them:"))
        lay.addWidget(self.edit, 1)
        lay.addWidget(self.error)
        lay.addWidget(buttons)
        self.resize(560, 260)

    def accept(self) -> None:
        try:
            self.sessions.open_text(self.edit.toPlainText())
        except ValueError as exc:
            self.error.setText(str(exc))
            self.sessions.window.messages.record(f"cannot open session {exc}", True)
            return
        super().accept()
