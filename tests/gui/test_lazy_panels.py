"""Start-up work kept small: tabs are built when first shown, restored parameters of
panels not built yet survive sessions, the activation list completes itself."""
from __future__ import annotations

import json

from ntkviz.gui.main_window import MainWindow
from ntkviz.panels import specs, view_class

MINE = ["kernel", "spectrum"]


def test_views_take_key_title_and_model_from_their_spec(dispatcher, qtbot):
    """Each view, built with nothing but a dispatcher, is its spec's tab: key, title, a
    model of the spec's model class, and one exportable view per view of the model that
    exists with its parameters (e.g. the sweep views of the Lazy training tab exist on its
    sweep page)."""
    for spec in specs():
        cls = view_class(spec.key)
        assert not {"key", "title", "model_cls"} & set(vars(cls)), cls
        panel = cls(dispatcher)
        qtbot.addWidget(panel)
        assert (panel.key, panel.title) == (spec.key, spec.title)
        assert type(panel.model).__name__ == spec.model.rpartition(":")[2]
        assert list(panel.plot_items()) == panel.model.view_names(panel.model.params)


def test_only_the_visible_panel_is_built_until_its_tab_is_shown(qtbot, dispatcher, settings):
    w = MainWindow(dispatcher, settings, panels=MINE)
    qtbot.addWidget(w)
    w.show()
    assert list(w._built) == ["kernel"]
    assert [w.tabs.tabText(i) for i in range(w.tabs.count())] == ["Kernel curves",
                                                                  "Eigenvalue decay"]
    with qtbot.waitSignal(w.panels["kernel"].computed, timeout=60000):
        w.start()
    w.tabs.setCurrentIndex(1)  # builds the spectrum panel, which computes at once
    spectrum = w._built["spectrum"]
    assert w.current_panel() is spectrum
    qtbot.waitUntil(lambda: spectrum.response is not None, timeout=60000)
    assert spectrum.response.request.dim == spectrum.dim.value()


def test_restored_parameters_wait_for_their_panel(qtbot, dispatcher, settings):
    state = {"app": "ntkviz", "session_format": 1, "current": "kernel",
             "panels": {"spectrum": {"dim": 17, "activation": "tanh"}}}
    settings.setValue("session", json.dumps(state))
    w = MainWindow(dispatcher, settings, panels=MINE)
    qtbot.addWidget(w)
    assert "spectrum" not in w._built
    assert w.session()["panels"]["spectrum"] == {"dim": 17, "activation": "tanh"}
    spectrum = w.panels["spectrum"]  # built on lookup, with its restored parameters
    assert spectrum.dim.value() == 17
    assert spectrum.kernels.activation.currentText() == "tanh"
    assert w.session()["panels"]["spectrum"] == spectrum.state()


def test_activation_box_offers_every_activation(qtbot, dispatcher):
    from ntkviz.core import ACTIVATIONS
    from ntkviz.gui.panels.kernel_curves import QtKernelCurvesPanel

    panel = QtKernelCurvesPanel(dispatcher)
    qtbot.addWidget(panel)
    with qtbot.waitSignal(panel.computed, timeout=60000):
        panel.start()
    box = panel.kernels.activation
    assert [box.itemText(i) for i in range(box.count())] == list(ACTIVATIONS)
    assert box.currentText() == "relu"
