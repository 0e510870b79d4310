"""File → Export…: the dialog, and Edit → Copy as command / Copy figure.

The dialog chooses a view of the current panel, a file (its suffix picks the format
of :data:`ntkviz.gui.export.WRITERS`: PNG, SVG, PDF, CSV, GIF) and the image's size:
width and height in pixels, preset to the view's export size
(:meth:`ntkviz.models.View.export_size`, the size ``ntkviz export`` uses), and the
dots per inch (the PNG's resolution tag, the PDF's page size). *Copy command* puts the
``ntkviz export`` command of these choices on the clipboard.

:func:`add_copy_actions` adds *Copy as command* and *Copy figure* to the window's Edit
menu (made before the View menu if the window has none yet).
"""
from __future__ import annotations

from pathlib import Path

from PySide6 import QtGui, QtWidgets

from ntkviz import limits

__all__ = ["ExportDialog", "add_copy_actions", "edit_menu"]


class ExportDialog(QtWidgets.QDialog):
    """Choose a view, a file (format from its suffix), the image size and dpi."""

    def __init__(self, panel, default_dir: str = "", parent=None):
        super().__init__(parent)
        from ntkviz.gui.export import EXPORT_SUFFIXES

        self.panel = panel
        self.setWindowTitle(f"Export — {panel.title}")
        self.view = QtWidgets.QComboBox()
        self.view.addItems(list(panel.plot_items()))
        lo, hi = limits.EXPORT_WIDTH_RANGE
        self.width = self._spin(lo, hi, " px", "image width in pixels (PNG, SVG, PDF)")
        self.height = self._spin(lo, hi, " px", "image height in pixels (PNG, SVG, PDF)")
        self.dpi = self._spin(*limits.EXPORT_DPI_RANGE, " dpi",
                              "dots per inch: the PNG's resolution tag and the PDF's page size "
                              "(pixels / dpi inches)")
        self.dpi.setValue(limits.EXPORT_DPI)
        self.path = QtWidgets.QLineEdit(str(Path(default_dir or Path.home()) / f"{panel.key}.png"))
        browse = QtWidgets.QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        row = QtWidgets.QHBoxLayout()
        row.addWidget(self.path, 1)
        row.addWidget(browse)
        size = QtWidgets.QHBoxLayout()
        size.addWidget(self.width)
        size.addWidget(QtWidgets.QLabel("×"))
        size.addWidget(self.height)
        size.addWidget(self.dpi)
        form = QtWidgets.QFormLayout(self)
        form.addRow("view", self.view)
        form.addRow(f"file ({', '.join(EXPORT_SUFFIXES)})", row)
        form.addRow("image size", size)
        buttons = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.StandardButton.Save
                                             | QtWidgets.QDialogButtonBox.StandardButton.Cancel)
        copy = buttons.addButton("Copy command", QtWidgets.QDialogButtonBox.ButtonRole.ActionRole)
        copy.setToolTip("put the ntkviz export command that writes this file on the clipboard")
        copy.clicked.connect(self.copy_command)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        self.view.currentTextChanged.connect(self._view_size)
        self._view_size(self.view.currentText())

    @staticmethod
    def _spin(lo: int, hi: int, suffix: str, tip: str) -> QtWidgets.QSpinBox:
        spin = QtWidgets.QSpinBox()
        spin.setRange(lo, hi)
        spin.setSuffix(suffix)
        spin.setToolTip(tip)
        return spin

    def _declared(self, name: str):
        return next((v for v in self.panel.model.views if v.name == name), None)

    def _view_size(self, name: str) -> None:
        """Preset the size to the view's export size (that of ``ntkviz export``)."""
        declared = self._declared(name)
        if declared is not None:
            width, height = declared.export_size()
            self.width.setValue(width)
            self.height.setValue(height)

    def choices(self) -> dict:
        """``{path, view, width, height, dpi}`` as chosen."""
        return {"path": Path(self.path.text()).expanduser(), "view": self.view.currentText(),
                "width": self.width.value(), "height": self.height.value(),
                "dpi": self.dpi.value()}

    def command(self) -> str:
        """The ``ntkviz export`` command that writes the chosen file."""
        from ntkviz.recipe import command_for

        c = self.choices()
        image = c["path"].suffix.lower() != ".csv"
        return command_for(self.panel.spec.key, self.panel.model.params, c["view"], c["path"].name,
                           c["width"] if image else None, c["height"] if image else None,
                           c["dpi"] if image else None)

    def copy_command(self) -> None:
        try:
            QtWidgets.QApplication.clipboard().setText(self.command())
        except ValueError as exc:
            QtWidgets.QMessageBox.warning(self, "Copy command", str(exc))

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


# ------------------------------------------------------------------ Edit menu
def edit_menu(window) -> QtWidgets.QMenu:
    """The window's Edit menu: the existing one, or a new one placed before View."""
    bar = window.menuBar()
    for action in bar.actions():
        if action.menu() is not None and action.text().replace("&", "") == "Edit":
            return action.menu()
    menu = QtWidgets.QMenu("&Edit", bar)
    before = next((a for a in bar.actions() if a.text().replace("&", "") == "View"), None)
    if before is not None:
        bar.insertMenu(before, menu)
    else:
        bar.addMenu(menu)
    return menu


def add_copy_actions(window) -> tuple[QtGui.QAction, QtGui.QAction]:
    """Edit → *Copy as command* (Ctrl+Shift+C: the ``ntkviz export`` command of the
    current tab's parameters) and *Copy figure* (Ctrl+Alt+C: its default view as an
    image, with its recipe); each says what it did in the window's message bar."""
    menu = edit_menu(window)
    if menu.actions():
        menu.addSeparator()

    def copy_command() -> None:
        from ntkviz.gui.export import copy_command as copy

        panel = window.current_panel()
        if panel is not None:
            window.show_message(f"copied: {copy(panel)}")

    def copy_figure() -> None:
        from ntkviz.cli._export import default_view
        from ntkviz.gui.export import copy_figure as copy

        panel = window.current_panel()
        if panel is None:
            return
        view = default_view(panel.model)
        try:
            copy(panel, view if view in panel.plot_items() else None)
        except ValueError as exc:
            window.show_message(f"copy failed: {exc}", error=True)
            return
        window.show_message(f"copied the figure of {panel.title}")

    actions = []
    for text, slot, key, tip in (
            ("Copy as &command", copy_command, "Ctrl+Shift+C",
             "the ntkviz export command that draws this tab's figure"),
            ("Copy &figure", copy_figure, "Ctrl+Alt+C",
             "this tab's figure as an image (with the command that draws it)")):
        act = QtGui.QAction(text, window)
        act.setShortcut(QtGui.QKeySequence(key))
        act.setStatusTip(tip)
        act.triggered.connect(slot)
        menu.addAction(act)
        actions.append(act)
    return actions[0], actions[1]
