"""The main window's sessions: save, open, and the last parameters kept in QSettings.

:class:`SessionController` works on the window through its public methods
(``panels``, ``built_panels``, ``keys``, ``current_panel``, ``show_panel``,
``show_message``). Files are read and checked by :mod:`ntkviz.gui.session` (whole
session validated before anything changes); a panel not built yet keeps the
parameters it was given until its tab is first shown (:meth:`SessionController.take`).
"""
from __future__ import annotations

import json
from pathlib import Path

from PySide6 import QtCore, QtWidgets

from ntkviz.gui.session import Session, read_session, validate_session, write_session

__all__ = ["SessionController"]


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
        try:
            for key, state in states.items():
                if key in built:
                    built[key].set_state(state)
        except (ValueError, TypeError, KeyError) as exc:
            for key, state in backup.items():
                built[key].set_state(state)
            raise ValueError(f"panels.{key}: {exc}") from None
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
        self.window.show_message(f"session {Path(path).name} opened")
        return True

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
