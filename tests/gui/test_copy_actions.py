"""Edit → Copy as command / Copy figure of the main window, and the export dialog's size:
the clipboard's command reads back (through the command-line parser) to the tab's
parameters; the clipboard's PNG, read by Pillow, is the view's export size and carries
the same recipe."""
from __future__ import annotations

import io

import pytest
from PySide6 import QtWidgets

from ntkviz.gui.main_window import MainWindow


@pytest.fixture
def window(qtbot, dispatcher, settings):
    w = MainWindow(dispatcher, settings, panels=["kernel"])
    qtbot.addWidget(w)
    w.show()
    with qtbot.waitSignals([p.computed for p in w.panels.values()], timeout=60000):
        w.start()
    return w


def _edit_action(window, text: str):
    edit = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Edit")
    return next(a for a in edit.actions() if a.text().replace("&", "") == text)


def _edited(qtbot, window):
    """The kernel tab with parameters other than the defaults, drawn."""
    kernel = window.panels["kernel"]
    with qtbot.waitSignal(kernel.computed, timeout=60000):
        kernel.model.update(depth=5, bias=0.25, kernels=("ntk", "nngp"))
    return kernel


def test_copy_as_command_reads_back_to_the_tabs_parameters(qtbot, window):
    from ntkviz.recipe import parse_command

    kernel = _edited(qtbot, window)
    _edit_action(window, "Copy as command").trigger()
    command = QtWidgets.QApplication.clipboard().text()
    parsed = parse_command(command)  # the real command-line parser
    assert parsed.panel == "kernel" and parsed.out == "kernel.png"
    for field in ("depth", "bias", "kernels"):
        assert getattr(parsed.params, field) == getattr(kernel.model.params, field)
    assert "--depth 5" in command and "--bias 0.25" in command
    assert command in window.messages.log[-1][1]


def test_copy_figure_puts_a_png_with_its_recipe_on_the_clipboard(qtbot, window):
    from PIL import Image

    from ntkviz.recipe import parse_command

    kernel = _edited(qtbot, window)
    _edit_action(window, "Copy figure").trigger()
    mime = QtWidgets.QApplication.clipboard().mimeData()
    assert mime.hasImage() and mime.hasFormat("image/png")
    data = bytes(mime.data("image/png"))
    declared = next(v for v in kernel.model.views if v.name == "curves")
    with Image.open(io.BytesIO(data)) as im:  # read by Pillow, not by ntkviz
        assert im.size == declared.export_size()
        command, tab = im.text["ntkviz-command"], im.text["ntkviz-tab"]
    assert tab == "kernel"
    assert parse_command(command).params == kernel.model.params
    assert not window.error_text()


def test_copy_figure_of_a_tab_without_its_figure_is_refused_in_one_line(qtbot, window,
                                                                       monkeypatch):
    from ntkviz.gui import export

    def refuse(*args, **kwargs):
        raise ValueError("the kernel curves are not drawn for these parameters yet")

    monkeypatch.setattr(export, "copy_figure", refuse)
    before = QtWidgets.QApplication.clipboard().text()
    _edit_action(window, "Copy figure").trigger()
    assert "copy failed: the kernel curves are not drawn" in window.error_text()
    assert QtWidgets.QApplication.clipboard().text() == before


def test_export_dialog_presets_the_views_size_and_its_command_writes_that_size(qtbot, window,
                                                                              tmp_path):
    from ntkviz.gui.export_dialog import ExportDialog
    from ntkviz.recipe import parse_command

    kernel = window.panels["kernel"]
    dlg = ExportDialog(kernel, str(tmp_path), window)
    qtbot.addWidget(dlg)
    for view in kernel.model.views:
        dlg.view.setCurrentText(view.name)
        assert (dlg.width.value(), dlg.height.value()) == view.export_size()
    dlg.view.setCurrentText("curves")
    dlg.width.setValue(640)
    dlg.height.setValue(400)
    dlg.dpi.setValue(200)
    dlg.path.setText(str(tmp_path / "k.pdf"))
    parsed = parse_command(dlg.command())
    assert (parsed.view, parsed.out, parsed.width, parsed.height, parsed.dpi) == (
        "curves", "k.pdf", 640, 400, 200)
    dlg.path.setText(str(tmp_path / "k.csv"))  # a table has no size
    parsed = parse_command(dlg.command())
    assert (parsed.width, parsed.height, parsed.dpi) == (None, None, None)
