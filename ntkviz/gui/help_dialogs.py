"""The main window's text dialogs: messages, maths, what to look for.

* :func:`text_dialog` — a non-modal dialog showing plain text or HTML, with a Close
  button (View → Messages…, Help → Maths of this panel).
* :class:`LookForDialog` — Help → What to look for: the observations
  (:mod:`ntkviz.look_for`) of one panel, each with a *Show* link that sets the
  parameters showing it (one undoable step, "what to look for").
"""
from __future__ import annotations

import html

from PySide6 import QtCore, QtWidgets

from ntkviz.look_for import observations

__all__ = ["text_dialog", "LookForDialog", "look_for_html"]


def text_dialog(parent, title: str, text: str, html_text: bool = False, size=(720, 400)):
    """A non-modal dialog showing ``text`` (plain, or HTML with links) above a Close
    button (Esc closes it too)."""
    dlg = QtWidgets.QDialog(parent)
    dlg.setWindowTitle(title)
    if html_text:
        view = QtWidgets.QTextBrowser()
        view.setHtml(text)
        view.setOpenExternalLinks(True)
    else:
        view = QtWidgets.QPlainTextEdit()
        view.setReadOnly(True)
        view.setPlainText(text)
    _with_close_button(dlg, view)
    dlg.resize(*size)
    dlg.show()
    return dlg


def _with_close_button(dlg: QtWidgets.QDialog, view: QtWidgets.QWidget) -> QtWidgets.QVBoxLayout:
    lay = QtWidgets.QVBoxLayout(dlg)
    lay.addWidget(view, 1)
    buttons = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.StandardButton.Close)
    buttons.rejected.connect(dlg.close)
    lay.addWidget(buttons)
    dlg.view, dlg.buttons = view, buttons
    return lay


def look_for_html(title: str, key: str, on_demand: bool) -> str:
    """The observations of panel ``key`` as an HTML list, each with a *Show* link
    (``show:<i>``) and the parameters it sets."""
    try:
        found = observations(key)
    except KeyError:  # a panel of a plug-in or a test that wrote none
        return (f"<h3>What to look for — {html.escape(title)}</h3>"
                "<p>Nothing is written for this tab yet.</p>")
    items = []
    for i, obs in enumerate(found):
        shown = obs.params_text()
        items.append(f"<li style='margin-bottom: 6px'>{html.escape(obs.text)}<br>"
                     f"<a href='show:{i}'>Show</a> "
                     f"<span style='color: #555'>({html.escape(shown)})</span></li>")
    then = " — then press Start (Ctrl+Return) to compute" if on_demand else ""
    return (f"<h3>What to look for — {html.escape(title)}</h3><ol>{''.join(items)}</ol>"
            f"<p style='color: #555'><i>Show</i> sets these parameters (the others to their "
            f"defaults){then}; Edit → Undo (Ctrl+Z) brings yours back.</p>")


class LookForDialog(QtWidgets.QDialog):
    """Help → What to look for of ``panel`` (non-modal, with a Close button).
    ``shown(text)`` after a *Show* link has set the panel's parameters."""

    shown = QtCore.Signal(str)

    def __init__(self, panel, parent=None):
        super().__init__(parent)
        self.panel = panel
        self.setWindowTitle(f"What to look for — {panel.title}")
        self.browser = QtWidgets.QTextBrowser()
        self.browser.setOpenLinks(False)
        self.browser.setHtml(look_for_html(panel.title, panel.key, not panel.auto_compute))
        self.browser.anchorClicked.connect(self._on_link)
        _with_close_button(self, self.browser)
        self.resize(640, 440)

    def show_observation(self, index: int) -> None:
        """Set the parameters of observation ``index`` on the panel: the defaults plus the
        observation's parameters, one undoable step."""
        obs = observations(self.panel.key)[index]
        model = self.panel.model
        model.set_params(model.parse(obs.params), label="what to look for")
        self.shown.emit(f"{self.panel.title}: {obs.params_text()}")

    def _on_link(self, url: QtCore.QUrl) -> None:
        text = url.toString()
        if text.startswith("show:"):
            self.show_observation(int(text[5:]))
