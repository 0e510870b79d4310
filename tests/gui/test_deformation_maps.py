"""The deformation editor's scattering and Fourier-modulus read-outs, the maps shown, the
Gabor probe and the dilation control (offscreen, pytest-qt): what is read equals the map
registry's distances of the images drawn."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from ntkviz.core.deformations.maps import map_distances
from ntkviz.core.scattering.transform import ScatteringParams

TIMEOUT = 60000


@pytest.fixture
def panel(qtbot, dispatcher):
    from ntkviz.gui.panels.deformation import QtDeformationPanel

    p = QtDeformationPanel(dispatcher)
    p.model.context_per_class = 2
    qtbot.addWidget(p)
    p.resize(1300, 850)
    p.show()
    with qtbot.waitSignal(p.computed, timeout=TIMEOUT):
        p.start()
    return p


def value(panel, key) -> str:
    return panel.readouts[key].text().split(" = ", 1)[1]


def settle(qtbot, panel):
    """Wait for the newest request's response and pictures."""
    want = panel.dispatcher.latest_id(panel.key)
    qtbot.waitUntil(lambda: not panel.dispatcher.is_busy(panel.key)
                    and not panel.dispatcher.is_busy(panel.images_key), timeout=TIMEOUT)
    qtbot.waitUntil(lambda: panel.is_current() and panel.slot.latest_id() >= want, timeout=TIMEOUT)


def test_read_outs_are_the_registry_distances_of_the_drawn_images(qtbot, panel):
    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        panel.model.update(label=4, rotation_deg=7.0, scattering_j=3, scattering_l=6)
    settle(qtbot, panel)
    x = panel.images["original"].image
    y = panel.images["deformed"].image[None]
    params = ScatteringParams(J=3, L=6)
    assert value(panel, "scattering") == f"{map_distances('scattering', x, y, scattering=params)[0]:.4g}"
    assert value(panel, "fourier") == f"{map_distances('fourier', x, y)[0]:.4g}"
    assert value(panel, "pixel") == f"{map_distances('pixels', x, y)[0]:.4g}"
    # the context chart's own bar of this deformation, per map, is the same number
    heights = panel.context.bars["deformation"].opts["height"]
    assert heights[2] == pytest.approx(map_distances("scattering", x, y, scattering=params)[0], rel=1e-12)


def test_choosing_the_maps_hides_read_outs_and_bars_without_computing(qtbot, panel):
    before = panel.dispatcher.latest_id(panel.key)
    panel.map_choice.boxes["ntk"].setChecked(False)
    panel.map_choice.boxes["pixels"].setChecked(False)
    assert panel.model.params.maps == ("ckn", "scattering", "fourier")
    assert panel.dispatcher.latest_id(panel.key) == before           # display only
    assert not panel.readouts["ntk"].isVisibleTo(panel) and not panel.readouts["ratio"].isVisibleTo(panel)
    assert panel.readouts["scattering"].isVisibleTo(panel)
    labels = [t for _, t in panel.context_plot.getAxis("bottom")._tickLevels[0]]
    assert labels == ["CKN", "scattering", "Fourier modulus"]
    _, rows = panel.csv_table("context")
    assert {r[1] for r in rows} <= {"ckn", "scattering", "fourier"}
    for name in ("ckn", "scattering", "fourier"):                    # no map left: refused
        panel.map_choice.boxes[name].setChecked(False)
    assert panel.model.params.maps == ("fourier",)
    assert panel.map_choice.boxes["fourier"].isChecked()
    assert "maps must be distinct names" in panel.last_error


def test_the_gabor_probe_and_the_dilation(qtbot, panel):
    from ntkviz.core.deformations.deform import displacement_field
    from ntkviz.core.deformations.probes import gabor_image

    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        panel.digit_picker.probe_button.click()
    assert panel.model.params.is_probe
    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        panel.sliders["dilation"].spin.setValue(0.05)
    settle(qtbot, panel)
    omega0 = panel.model.params.gabor_omega0
    np.testing.assert_array_equal(panel.images["original"].image, gabor_image((28, 28), omega0))
    tau = displacement_field(panel.deformation(), (28, 28))
    np.testing.assert_allclose(panel.images["deformed"].image, gabor_image((28, 28), omega0, tau=tau),
                               rtol=0, atol=1e-15)
    assert value(panel, "jacobian_sup") == f"{0.05:.4g}"
    assert tuple(panel.bars["original"].levels()) == (-1.0, 1.0)
    assert "Gabor probe" in panel.context_plot.titleLabel.text
    assert panel.context_result() is None and not panel.context_progress.isVisible()
    # the one category with a value (this deformation) is centred on each map's group
    bar = panel.context.bars["deformation"]
    groups = len(panel.context_plot.getAxis("bottom")._tickLevels[0])
    np.testing.assert_allclose(bar.opts["x"], np.arange(groups), rtol=0, atol=1e-12)
    assert all(not panel.context.bars[c].isVisible() for c in panel.context.bars if c != "deformation")
    # a larger omega0: the Fourier-modulus distance grows, the scattering one hardly
    first = (panel.response.fourier_distance, panel.response.scattering_distance)
    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        panel.digit_picker.omega0.spin.setValue(2 * omega0)
    settle(qtbot, panel)
    assert panel.response.fourier_distance > 1.5 * first[0]
    assert panel.response.scattering_distance < 1.5 * first[1]
    # back to a digit
    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        panel.digit_picker.label_spin.setValue(6)
    assert panel.model.params.source == "digit"
    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        panel.deformation_controls.reset_button.click()
    assert panel.model.params.dilation == 0.0


def test_session_round_trip_of_the_new_fields(qtbot, panel, dispatcher):
    from ntkviz.gui.panels.deformation import QtDeformationPanel

    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        panel.model.update(source="gabor", gabor_omega0=math.pi / 3, dilation=0.02, scattering_j=1,
                           scattering_l=12, maps=("scattering", "fourier"))
    state = json.loads(json.dumps(panel.state()))
    other = QtDeformationPanel(dispatcher)
    qtbot.addWidget(other)
    other.set_state(state)
    assert other.model.params == panel.model.params
    assert other.map_choice.j_spin.value() == 1 and other.map_choice.l_spin.value() == 12
    assert other.sliders["dilation"].spin.value() == pytest.approx(0.02)
