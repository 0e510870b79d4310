"""Help → What to look for and the text dialogs (Close buttons); no raw TeX anywhere a user
reads maths: tooltips, labels, help, legends, axis titles."""
from __future__ import annotations

import pyqtgraph as pg
import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from ntkviz import panels
from ntkviz.gui.headless import wait_computed
from ntkviz.look_for import RAW_MATHS, observations

#: small, fast states of the panels that compute only on demand (their legends are drawn too)
CHEAP = {"stability": {"digits": [0, 100], "amplitude_count": 2, "amplitude_min": 0.1,
                       "amplitude_max": 1.0, "reference_per_class": 2},
         "classification": {"train_sizes": [2], "test_size": 10, "amplitudes": [0.0],
                            "kernels": ["pixels"], "use_cache": False}}


@pytest.fixture
def window(two_tab_window):
    return two_tab_window


def _close_button(dlg) -> QtWidgets.QPushButton:
    box = dlg.findChild(QtWidgets.QDialogButtonBox)
    return box.button(QtWidgets.QDialogButtonBox.StandardButton.Close)


def test_messages_and_maths_dialogs_close_with_a_button(qtbot, window):
    window.show_message("a note")
    window.show_log()
    for dlg in (window._log_dialog, window.show_maths()):
        qtbot.waitExposed(dlg)
        _close_button(dlg).click()
        qtbot.waitUntil(lambda d=dlg: not d.isVisible(), timeout=2000)


def test_what_to_look_for_lists_the_tab_s_observations_and_shows_them(qtbot, window):
    window.show_panel("spectrum")
    spectrum = window.panels["spectrum"]
    dlg = window.show_look_for()
    assert dlg.windowTitle() == "What to look for — Eigenvalue decay"
    text = dlg.browser.toPlainText()
    found = observations("spectrum")
    assert all(obs.text in text for obs in found) and text.count("Show") >= len(found)
    index = next(i for i, obs in enumerate(found) if "bias" in obs.params)
    dlg.browser.anchorClicked.emit(QtCore.QUrl(f"show:{index}"))
    expected = spectrum.model.parse(dict(found[index].params))  # the defaults and its values
    assert spectrum.model.params == expected
    assert spectrum.model.history.undo_text().startswith("what to look for (")
    window.undo_actions.undo_action.trigger()
    assert spectrum.model.params == type(expected)()
    _close_button(dlg).click()


def test_a_panel_without_observations_says_so(qtbot, window):
    from ntkviz.gui.help_dialogs import look_for_html

    assert "Nothing is written for this tab yet" in look_for_html("Plug-in", "plugin", False)


def test_the_tab_bar_links_open_the_help(qtbot, window):
    assert window.tabs.cornerWidget(QtCore.Qt.Corner.TopRightCorner) is window.help_links
    window.help_links.linkActivated.emit("look")
    assert window._look_for_dialog.panel is window.current_panel()
    window.help_links.linkActivated.emit("maths")
    assert window._maths_dialog.windowTitle() == "Maths — Kernel curves"
    f1 = [a for m in window.menuBar().actions() for a in m.menu().actions()
          if a.shortcut().toString() == "Shift+F1"]
    assert [a.text() for a in f1] == ["&What to look for"]


def _plain(html: str) -> str:
    doc = QtGui.QTextDocument()
    doc.setHtml(html)
    return doc.toPlainText()


def _figure_texts(items) -> list[str]:
    """Legend entries, axis labels and titles of a panel's exported items."""
    out, stack = [], list(items)
    while stack:
        item = stack.pop()
        if isinstance(item, pg.GraphicsLayout):
            stack += list(item.items)
            continue
        legends = [item] if isinstance(item, pg.LegendItem) else []
        if isinstance(item, pg.PlotItem):
            legends += [item.legend] if item.legend is not None else []
            out += [_plain(item.getAxis(a).labelText) for a in ("left", "bottom", "right", "top")]
            out.append(_plain(item.titleLabel.text))
        out += [_plain(label.text) for legend in legends for _, label in legend.items]
    return out


def _widget_texts(panel) -> list[str]:
    out = [_plain(panel.help_html())]
    for w in [panel, *panel.findChildren(QtWidgets.QWidget)]:
        out += [w.toolTip(), w.statusTip(), w.whatsThis()]
        if isinstance(w, QtWidgets.QGroupBox):
            out.append(w.title())
        elif isinstance(w, (QtWidgets.QLabel, QtWidgets.QAbstractButton)):
            out.append(_plain(w.text()))
        elif isinstance(w, QtWidgets.QComboBox):
            out += [w.itemText(i) for i in range(w.count())]
            out += [w.itemData(i, QtCore.Qt.ItemDataRole.ToolTipRole) or ""
                    for i in range(w.count())]
    return out


@pytest.mark.parametrize("key", panels.keys())
def test_no_raw_tex_where_a_user_reads_maths(qtbot, dispatcher, key):
    """Tooltips, labels, combo box items, the maths help, legends, axis labels and titles
    of every panel (drawn at its defaults, or at a small state when it computes on
    demand) are Unicode maths: no x^{…}, x_{…}, \\commands, μ_k or NTK_L."""
    panel = panels.view_class(key)(dispatcher, spec=panels.spec(key))
    qtbot.addWidget(panel)
    panel.resize(1200, 760)
    panel.show()
    if panel.auto_compute or key in CHEAP:
        if key in CHEAP:
            panel.set_state(CHEAP[key])
        panel.start()
        wait_computed(panel, 300)
    texts = _widget_texts(panel) + _figure_texts(panel.plot_items().values())
    bad = sorted({line.strip() for text in texts for line in text.splitlines()
                  if RAW_MATHS.search(line)})
    assert not bad, f"{key}: raw TeX or ASCII maths in: {bad}"


def test_no_raw_tex_in_the_window_s_own_texts(window):
    texts = [a.statusTip() for a in window.findChildren(QtGui.QAction)]
    texts += [window.help_links.toolTip()]
    texts += [_plain(window.show_look_for().browser.toHtml())]
    bad = [t for t in texts for line in t.splitlines() if RAW_MATHS.search(line)]
    assert not bad, bad
