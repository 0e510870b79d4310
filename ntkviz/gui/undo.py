"""Edit → Undo, Redo and Reset to defaults: the current tab's parameter history.

Each panel's model keeps its own history (:class:`ntkviz.models._history.ParamHistory`);
:class:`UndoActions` points the Edit menu's actions at the model of the current tab, so
every tab, and every tab added later, has them with no code of its own. The actions say
what they would do ("Undo: depth 3 → 7", "Redo: 3 changes", "Reset Kernel curves to
defaults") and are disabled when there is nothing to do.

Ctrl+Z and Ctrl+Shift+Z reach the history even from a spin box (the panel hands the
box's own typing undo over, :meth:`ntkviz.gui.panels._base.QtPanel.hold_history`); in a
free text field they undo the typing, as everywhere else.
"""
from __future__ import annotations

from PySide6 import QtGui

__all__ = ["UndoActions", "UNDO_KEY", "REDO_KEY"]

UNDO_KEY = "Ctrl+Z"
REDO_KEY = "Ctrl+Shift+Z"


class UndoActions:
    """The Undo, Redo and Reset actions of ``window`` (a :class:`MainWindow`), added to
    ``menu``; they act on ``window.current_panel()``."""

    def __init__(self, window, menu):
        self.window = window
        self.undo_action = self._action(menu, "&Undo", self.undo, UNDO_KEY)
        self.redo_action = self._action(menu, "&Redo", self.redo, REDO_KEY)
        menu.addSeparator()
        self.reset_action = self._action(menu, "Reset to &defaults", self.reset)
        self.reset_action.setStatusTip("every parameter of the current tab back to its default "
                                       "(undoable)")
        menu.aboutToShow.connect(self.update)
        self._watched: set[int] = set()

    def _action(self, menu, text, slot, shortcut=None):
        act = QtGui.QAction(text, self.window)
        if shortcut:
            act.setShortcut(QtGui.QKeySequence(shortcut))
        act.triggered.connect(slot)
        menu.addAction(act)
        return act

    def watch(self, panel) -> None:
        """Follow the changes of ``panel``'s model (called once a panel is built)."""
        if id(panel.model) not in self._watched:
            self._watched.add(id(panel.model))
            panel.model.connect(lambda _changed, _recompute: self.update())
        self.update()

    def update(self) -> None:
        """The actions' texts and states for the current tab."""
        panel = self.window.current_panel()
        history = None if panel is None else panel.model.history
        texts = ("", "") if history is None else (history.undo_text(), history.redo_text())
        for act, name, text in zip((self.undo_action, self.redo_action), ("Undo", "Redo"), texts):
            act.setText(f"&{name}: {text}" if text else f"&{name}")
            act.setEnabled(bool(text))
        self.reset_action.setText(f"Reset {panel.title} to &defaults" if panel is not None
                                  else "Reset to &defaults")
        self.reset_action.setEnabled(panel is not None)

    def undo(self) -> None:
        """Undo the current tab's last parameter step (a note says what)."""
        self._move("undo", "undone")

    def redo(self) -> None:
        """Redo the current tab's last undone step."""
        self._move("redo", "redone")

    def _move(self, how: str, done: str) -> None:
        panel = self.window.current_panel()
        if panel is None:
            return
        history = panel.model.history
        text = history.undo_text() if how == "undo" else history.redo_text()
        if text and getattr(panel.model, how)():
            self.window.show_note(f"{panel.title}: {done} {text}", seconds=5.0)
        self.update()

    def reset(self) -> None:
        """Every parameter of the current tab back to its default (one undoable step)."""
        panel = self.window.current_panel()
        if panel is None:
            return
        if panel.model.reset():
            self.window.show_note(f"{panel.title}: parameters reset to their defaults "
                                  f"({UNDO_KEY} undoes it)", seconds=8.0)
        else:
            self.window.show_note(f"{panel.title}: the parameters are already the defaults",
                                  seconds=5.0)
        self.update()
