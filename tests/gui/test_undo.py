"""Edit → Undo / Redo / Reset on the current tab, by keyboard and menu; the figure follows."""
from __future__ import annotations

import json

import pytest
from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest

from ntkviz.gui.main_window import MainWindow

CTRL = QtCore.Qt.KeyboardModifier.ControlModifier
SHIFT = QtCore.Qt.KeyboardModifier.ShiftModifier


@pytest.fixture
def window(qtbot, two_tab_window):
    w = two_tab_window
    w.activateWindow()
    with qtbot.waitSignal(w.panels["kernel"].computed, timeout=60000):
        w.start()
    return w


def _ntk_end(panel) -> float:
    """κ(1) of the drawn NTK curve (closed form for ReLU, bias 0: the depth L)."""
    (curve,) = [c for c in panel.response.curves if c.spec.name == "ntk"]
    return curve.value[-1]


def _key(qtbot, window, key, modifiers, panel):
    with qtbot.waitSignal(panel.computed, timeout=30000):
        window.tabs.setFocus()
        QTest.keyClick(window.tabs, key, modifiers)


def test_ctrl_z_undoes_the_tab_s_last_edit_and_the_figure_follows(qtbot, window):
    kernel = window.panels["kernel"]
    assert not window.undo_actions.undo_action.isEnabled()  # the starting state is not a step
    with qtbot.waitSignal(kernel.computed, timeout=30000):
        kernel.kernels.depth.setValue(7)
    assert _ntk_end(kernel) == pytest.approx(7.0, rel=1e-12)
    assert window.undo_actions.undo_action.text() == "&Undo: depth 2 → 7"
    _key(qtbot, window, QtCore.Qt.Key.Key_Z, CTRL, kernel)
    assert kernel.model.params.depth == 2 and kernel.kernels.depth.value() == 2
    assert kernel.is_current() and _ntk_end(kernel) == pytest.approx(2.0, rel=1e-12)
    assert window.undo_actions.redo_action.text() == "&Redo: depth 2 → 7"
    assert any(m.endswith("undone depth 2 → 7") for _, m, _ in window.messages.log)
    _key(qtbot, window, QtCore.Qt.Key.Key_Z, CTRL | SHIFT, kernel)
    assert kernel.model.params.depth == 7 and _ntk_end(kernel) == pytest.approx(7.0, rel=1e-12)


def test_a_slider_drag_is_one_step(qtbot, window):
    kernel = window.panels["kernel"]
    slider = kernel.kernels.depth.slider
    slider.setSliderDown(True)  # pressed: the panel holds the history
    for position in range(1, 12):
        slider.setValue(position)
    slider.setSliderDown(False)
    assert kernel.model.params.depth == 13
    assert len(kernel.model.history) == 1
    with qtbot.waitSignal(kernel.computed, timeout=30000):
        window.undo_actions.undo_action.trigger()
    assert kernel.model.params.depth == 2


def test_ctrl_z_in_a_spin_box_undoes_the_parameter(qtbot, window):
    kernel = window.panels["kernel"]
    spin = kernel.kernels.depth.spin
    with qtbot.waitSignal(kernel.computed, timeout=30000):
        spin.setValue(5)
    spin.setFocus()
    with qtbot.waitSignal(kernel.computed, timeout=30000):
        QTest.keyClick(spin, QtCore.Qt.Key.Key_Z, CTRL)
    assert kernel.model.params.depth == 2 and spin.value() == 2


def test_each_tab_has_its_own_history_and_reset(qtbot, window):
    kernel, spectrum = window.panels["kernel"], window.panels["spectrum"]
    with qtbot.waitSignal(kernel.computed, timeout=30000):
        kernel.kernels.depth.setValue(4)
    window.show_panel("spectrum")
    qtbot.waitUntil(lambda: spectrum.response is not None, timeout=60000)
    assert not window.undo_actions.undo_action.isEnabled()  # nothing done on this tab
    assert window.undo_actions.reset_action.text() == "Reset Eigenvalue decay to &defaults"
    spectrum.guides.setChecked(False)  # display only: undoing it recomputes nothing
    rid = spectrum.slot.latest_id()
    window.undo_actions.undo_action.trigger()
    assert spectrum.model.params.guides and spectrum.slot.latest_id() == rid
    with qtbot.waitSignal(spectrum.computed, timeout=30000):
        spectrum.dim.setValue(7)
    spectrum.model.history.seal()
    with qtbot.waitSignal(spectrum.computed, timeout=30000):
        spectrum.kmax.setValue(300)
    with qtbot.waitSignal(spectrum.computed, timeout=30000):
        window.undo_actions.reset_action.trigger()
    assert spectrum.model.params == type(spectrum.model.params)()
    assert window.undo_actions.undo_action.text() == "&Undo: reset to defaults (2 changes)"
    with qtbot.waitSignal(spectrum.computed, timeout=30000):
        window.undo_actions.undo_action.trigger()
    assert (spectrum.model.params.dim, spectrum.model.params.kmax) == (7, 300)
    assert kernel.model.params.depth == 4  # the other tab untouched
    window.show_panel("kernel")
    assert window.undo_actions.undo_action.text() == "&Undo: depth 2 → 4"


def test_opening_a_session_is_one_undoable_step_per_tab(qtbot, window, tmp_path):
    kernel = window.panels["kernel"]
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"app": "ntkviz", "session_format": 1,
                                "panels": {"kernel": {"depth": 9, "bias": 0.5}}}))
    with qtbot.waitSignal(kernel.computed, timeout=30000):
        assert window.open_session(path)
    assert len(kernel.model.history) == 1
    assert kernel.model.history.undo_text() == "open session (2 changes)"
    with qtbot.waitSignal(kernel.computed, timeout=30000):
        kernel.model.undo()
    assert (kernel.model.params.depth, kernel.model.params.bias) == (2, 0.0)


def test_a_refused_session_leaves_no_undo_step(qtbot, window):
    kernel = window.panels["kernel"]
    kernel.set_state = _fail_after(kernel.set_state, kernel)  # a view that fails mid-way
    with pytest.raises(ValueError):
        window.apply_session({"app": "ntkviz", "panels": {"kernel": {"depth": 3}}})
    assert kernel.model.params.depth == 2 and len(kernel.model.history) == 0


def _fail_after(set_state, panel):
    def failing(state, label=""):
        set_state(state, label=label)
        if label:
            raise ValueError("broken view")
    return failing


def test_restored_parameters_are_not_undoable(qtbot, dispatcher, settings):
    settings.setValue("session", json.dumps({"app": "ntkviz", "panels": {"kernel": {"depth": 6}}}))
    w = MainWindow(dispatcher, settings, panels=["kernel"])
    qtbot.addWidget(w)
    kernel = w.panels["kernel"]
    assert kernel.model.params.depth == 6 and not kernel.model.history.can_undo()
    assert not w.undo_actions.undo_action.isEnabled()
    assert isinstance(w.edit_menu, QtWidgets.QMenu)
