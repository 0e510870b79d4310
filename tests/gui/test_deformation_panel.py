"""Deformation editor panel (offscreen, pytest-qt): a view of DeformationModel. Sliders
and spin boxes -> model -> core values, drag, values beyond the sliders drawn exactly,
zero deformation, user images, architecture editor, context bars, sessions, exports."""
from __future__ import annotations

import json

import numpy as np
import pytest

from ntkviz.core.conv.architecture import PRESETS, Layer
from ntkviz.core.conv.gram import image_norms, rel_distances
from ntkviz.core.deformations.deform import Deformation, deform_image, jacobian_sup_norm, tau_sup_norm
from ntkviz.core.deformations.digits import digit_image

TIMEOUT = 60000


def wait_latest(qtbot, panel):
    """Wait until the newest request of the panel has been drawn."""
    want = panel.dispatcher.latest_id(panel.key)
    qtbot.waitUntil(lambda: not panel.dispatcher.is_busy(panel.key), timeout=TIMEOUT)
    qtbot.waitUntil(lambda: panel.response is not None and panel._drawn_id >= want, timeout=TIMEOUT)


@pytest.fixture
def panel(qtbot, dispatcher):
    from ntkviz.gui.panels.deformation import QtDeformationPanel

    p = QtDeformationPanel(dispatcher)
    p.model.context_per_class = 2  # keep the background context job small in tests
    p._drawn_id = 0
    p.computed.connect(lambda rid: setattr(p, "_drawn_id", rid))
    qtbot.addWidget(p)
    p.resize(1300, 850)
    p.show()
    with qtbot.waitSignal(p.computed, timeout=TIMEOUT):
        p.start()
    return p


def core_values(image, d, arch):
    deformed, tau = deform_image(image, d)
    ckn, ntk = rel_distances(image_norms(image, arch), image_norms(deformed, arch), arch)
    pixel = np.linalg.norm(deformed - image) / np.linalg.norm(image)
    return deformed, tau, ckn, ntk, pixel


def readout_value(panel, key):
    return panel.readouts[key].text().split(" = ", 1)[1]


def assert_shows(panel, image, d, arch):
    deformed, tau, ckn, ntk, pixel = core_values(image, d, arch)
    np.testing.assert_array_equal(panel.images["deformed"].image, deformed)
    np.testing.assert_array_equal(panel.images["difference"].image, deformed - image)
    np.testing.assert_array_equal(panel.images["original"].image, image)
    assert readout_value(panel, "ckn") == f"{ckn:.4g}"
    assert readout_value(panel, "ntk") == f"{ntk:.4g}"
    assert readout_value(panel, "ratio") == f"{ntk / ckn:.4g}"
    assert readout_value(panel, "pixel") == f"{pixel:.4g}"
    assert readout_value(panel, "tau_sup") == f"{tau_sup_norm(tau):.4g} px"
    assert readout_value(panel, "jacobian_sup") == f"{jacobian_sup_norm(tau):.4g}"


def test_starts_on_the_identity(panel):
    assert panel.deformation() == Deformation()
    assert readout_value(panel, "ckn") == "0 (identical images)"
    assert readout_value(panel, "ntk") == "0 (identical images)"
    for key in ("pixel", "scattering", "fourier"):
        assert readout_value(panel, key) == "0 (identical images)"


def test_moving_a_slider_shows_the_core_values(qtbot, panel):
    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        panel.sliders["translate_x"].slider.setValue(170)  # the QSlider itself, as a drag does
    value = panel.model.params.translate_x
    assert value == -6.0 + 12.0 * 170 / 240
    assert panel.deformation() == Deformation(translate_x=value)
    assert_shows(panel, panel.digit, Deformation(translate_x=value), PRESETS["M1"])


def test_spin_box_and_several_controls(qtbot, panel):
    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        panel.sliders["rotation_deg"].spin.setValue(7.5)
    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        panel.sliders["smooth_amplitude"].spin.setValue(0.6)
    d = Deformation(rotation_deg=7.5, smooth_amplitude=0.6)
    assert panel.deformation() == d
    assert_shows(panel, panel.digit, d, PRESETS["M1"])


def test_drag_of_100_events_ends_on_the_final_position(qtbot, qapp, panel):
    slider = panel.sliders["rotation_deg"].slider
    positions = np.linspace(slider.maximum() // 2, slider.maximum(), 100).astype(int)
    drawn = []
    panel.computed.connect(drawn.append)
    for i, pos in enumerate(positions):
        slider.setValue(int(pos))
        if i % 5 == 0:
            qapp.processEvents()  # events interleave with a real drag
    wait_latest(qtbot, panel)
    final = panel.model.params.rotation_deg
    assert final == 45.0
    assert_shows(panel, panel.digit, Deformation(rotation_deg=final), PRESETS["M1"])
    assert drawn[-1] == panel.dispatcher.latest_id(panel.key)
    assert len(drawn) < len(positions)  # throttled: intermediate positions were dropped


def test_reset_returns_to_zero_distance(qtbot, panel):
    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        panel.sliders["translate_y"].spin.setValue(2.0)
    assert readout_value(panel, "pixel") != "0"
    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        panel.deformation_controls.reset_button.click()
    assert panel.deformation() == Deformation()
    assert panel.response.ckn_distance == 0.0 and panel.response.ntk_distance == 0.0
    assert readout_value(panel, "ckn") == "0 (identical images)"
    np.testing.assert_array_equal(panel.images["difference"].image, 0.0)


def test_tiny_deformation_reads_below_resolution(qtbot, panel):
    from ntkviz.jobs import DeformRequest

    # finer than the sliders' resolution (0.01 px): draw the job's response directly
    resp = DeformRequest(panel.digit, Deformation(translate_x=1e-7), PRESETS["M1"])()
    assert resp.pixel_distance > 0
    panel.apply_response(resp)
    assert readout_value(panel, "ntk") == "< 1e-04 (below resolution)"
    assert readout_value(panel, "ckn") == "< 1e-07 (below resolution)"
    assert readout_value(panel, "ratio") == "–"


@pytest.mark.parametrize("content, words", [
    (np.full((28, 28), np.nan), "NaN"),
    (np.zeros(28), "shape"),
    (np.zeros((3, 28, 28, 2)), "shape"),
])
def test_bad_user_image_keeps_the_current_digit(qtbot, panel, tmp_path, content, words):
    before = panel.digit.copy()
    path = tmp_path / "mine.npy"
    np.save(path, content)
    with qtbot.waitSignal(panel.status, timeout=5000) as blocker:
        assert panel.load_user_image(path) is False
    assert words in blocker.args[0] and "current digit kept" in blocker.args[0]
    assert "mine.npy: " in blocker.args[0]  # the file, then what is wrong
    np.testing.assert_array_equal(panel.digit, before)
    assert not panel.model.params.is_user_image


def test_unreadable_png_keeps_the_current_digit(qtbot, panel, tmp_path):
    before = panel.digit.copy()
    path = tmp_path / "broken.png"
    path.write_bytes(b"not a png at all")
    with qtbot.waitSignal(panel.status, timeout=5000) as blocker:
        assert panel.load_user_image(path) is False
    assert "broken.png" in blocker.args[0]
    np.testing.assert_array_equal(panel.digit, before)


def test_png_of_any_size_is_loaded(qtbot, panel, tmp_path):
    from PySide6 import QtGui

    digit = digit_image(7, 0)
    big = np.kron(np.round(digit * 255).astype(np.uint8), np.ones((2, 2), np.uint8))
    img = QtGui.QImage(big.tobytes(), 56, 56, 56, QtGui.QImage.Format.Format_Grayscale8).copy()
    path = tmp_path / "seven.png"
    assert img.save(str(path))
    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        assert panel.load_user_image(path) is True
    np.testing.assert_allclose(panel.digit, np.round(digit * 255) / 255, atol=1e-12)
    assert panel.model.params.is_user_image and panel.model.params.user_name == "seven.png"
    np.testing.assert_array_equal(panel.images["original"].image, panel.digit)
    assert "seven.png" in panel.digit_picker.source_label.text()


def test_picking_a_bundled_digit(qtbot, panel):
    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        panel.digit_picker.label_spin.setValue(4)
    wait_latest(qtbot, panel)
    np.testing.assert_array_equal(panel.digit, digit_image(4, 0))
    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        panel.digit_picker.random_button.click()
    p = panel.model.params
    np.testing.assert_array_equal(panel.images["original"].image, digit_image(p.label, p.index))


def test_preset_change_recomputes(qtbot, panel):
    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        panel.sliders["translate_x"].spin.setValue(1.0)
    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        panel.architecture_editor.preset_combo.setCurrentText("M2")
    assert panel.architecture == PRESETS["M2"]
    assert_shows(panel, panel.digit, Deformation(translate_x=1.0), PRESETS["M2"])


def test_invalid_architecture_is_refused_with_the_reason(qtbot, panel):
    messages = []
    panel.status.connect(messages.append)
    editor = panel.architecture_editor
    editor.add_layer_button.click()        # M1 + (3, sub 2): 28 -> 13 -> 1 -> nothing
    assert panel.architecture == PRESETS["M1"] and panel.model.params.preset == "M1"
    assert "Refused" in editor.message.text()
    assert "layer 3: patch 3×3 is larger than its 1×1 input map" in editor.message.text()
    assert any("layer 3" in m for m in messages)
    assert editor.layer_table.rowCount() == 2  # the table shows the model's layers again


def test_layer_edit_makes_a_custom_architecture(qtbot, panel):
    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        panel.architecture_editor.layer_table.cellWidget(1, 1).setValue(4)  # subsampling 5 -> 4
    assert panel.architecture_editor.preset_combo.currentText() == "custom"
    assert panel.architecture.layers[1] == Layer(3, 4, "gaussian", "relu")
    assert panel.response.architecture == panel.architecture


def test_context_bars_show_the_context_job(qtbot, panel):
    from ntkviz.jobs import ContextRequest

    if panel.context_result() is None:
        with qtbot.waitSignal(panel.context_computed, timeout=TIMEOUT):
            pass
    want = ContextRequest(panel.digit, 0, PRESETS["M1"], per_class=2)()
    got = panel.context_result()
    assert got.levels == want.levels
    heights = panel.context.bars["mean_same"].opts["height"]
    np.testing.assert_array_equal(heights, [want.levels[m]["mean_same"]
                                            for m in ("ckn", "ntk", "scattering", "fourier", "pixel")])
    header, rows = panel.csv_table("context")
    assert header == ["category", "map", "relative_distance"]
    assert ["nearest_other", "ntk", want.levels["ntk"]["nearest_other"]] in rows


def test_session_round_trip(qtbot, panel, dispatcher):
    from ntkviz.gui.panels.deformation import QtDeformationPanel

    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        panel.model.update(label=6, index=3)
    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        panel.model.update(translate_x=0.5, smooth_amplitude=1.0, smooth_seed=7,
                           infimnist_alpha=0.5, infimnist_seed=3)
    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        panel.architecture_editor.preset_combo.setCurrentText("M3")
    state = json.loads(json.dumps(panel.state()))
    other = QtDeformationPanel(dispatcher)
    other.context_per_class = 2
    qtbot.addWidget(other)
    other.set_state(state)
    assert other.state() == state
    assert other.architecture == PRESETS["M3"]
    np.testing.assert_array_equal(other.digit, digit_image(6, 3))
    assert other.deformation() == panel.deformation()


def test_exports(qtbot, panel, tmp_path):
    from PySide6 import QtGui

    from ntkviz.gui.export import export_plot

    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        panel.sliders["translate_x"].spin.setValue(1.0)
    header, rows = panel.csv_table("deformed")
    assert header == ["row", "col", "value"] and len(rows) == 28 * 28
    np.testing.assert_array_equal(np.array([r[2] for r in rows]).reshape(28, 28),
                                  panel.response.deformed)
    header, rows = panel.csv_table("displacement")
    np.testing.assert_array_equal(np.array([r[2:] for r in rows]).T.reshape(2, 28, 28),
                                  panel.response.tau)
    for view in panel.plot_items():
        path = export_plot(panel.plot_items()[view], tmp_path / f"{view}.png", width=400)
        assert QtGui.QImage(str(path)).width() == 400


@pytest.mark.parametrize("value, ceil, floor", [(0.37, 0.4, 0.2), (1.0, 1.0, 1.0), (7.2e-3, 8e-3, 5e-3),
                                                (2.0, 2.0, 2.0), (19.0, 20.0, 10.0),
                                                (2.175, 2.5, 2.0), (0.96, 1.0, 0.5)])
def test_nice_limits(value, ceil, floor):
    from ntkviz.gui.panels.deformation import nice_ceil, nice_floor

    assert nice_ceil(value) == pytest.approx(ceil) and nice_floor(value) == pytest.approx(floor)
    assert nice_ceil(0.0) == 1.0


def test_arrows_of_a_constant_field():
    from ntkviz.gui.panels.deformation import arrow_segments

    tau = np.zeros((2, 28, 28))
    tau[0], tau[1] = 3.0, 4.0  # |tau| = 5 px everywhere: down 3, right 4
    x, y, factor = arrow_segments(tau, step=2, length_px=2.4)
    assert factor == 0.2  # the largest 1-2-5 factor with 5 px * factor <= 2.4 px
    shafts_x, shafts_y = x.reshape(-1, 3, 2)[:, 0], y.reshape(-1, 3, 2)[:, 0]  # shaft, 2 strokes
    assert len(shafts_x) == 14 * 14
    np.testing.assert_allclose(shafts_x[:, 1] - shafts_x[:, 0], 4.0 * 0.2)
    np.testing.assert_allclose(shafts_y[:, 1] - shafts_y[:, 0], 3.0 * 0.2)
    assert arrow_segments(np.zeros((2, 28, 28)))[2] == 0.0


@pytest.mark.parametrize("module", ["deformation", "stability"])
def test_runs_standalone_and_quits_cleanly_mid_computation(tmp_path, module):
    """Both panels of this issue as real processes: the context job / the sweep is still
    running when the quit timer fires; no error output, exit code 0."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(tmp_path),
               PYTHONFAULTHANDLER="1")
    proc = subprocess.run([sys.executable, "-m", f"ntkviz.gui.panels.{module}", "--quit-after", "1500"],
                          env=env, capture_output=True, text=True, timeout=180, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip() == "", proc.stderr


def test_cancelled_context_restarts_at_the_next_change(qtbot, dispatcher, tmp_path, monkeypatch):
    from ntkviz.gui.panels.deformation import QtDeformationPanel

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))  # nothing computed before
    p = QtDeformationPanel(dispatcher)
    p.model.context_per_class = 3
    qtbot.addWidget(p)
    with qtbot.waitSignal(dispatcher.yielded, timeout=TIMEOUT):
        p.refresh()
    dispatcher.cancel(p.context_key)  # what the main window's Cancel button does
    qtbot.waitUntil(lambda: not dispatcher.is_busy(p.context_key), timeout=TIMEOUT)
    assert p.context_result() is None and "stopped" in p.context_plot.titleLabel.text
    with qtbot.waitSignal(p.context_computed, timeout=TIMEOUT):
        p.sliders["translate_x"].spin.setValue(0.5)
    assert p.context_result() is not None


def test_values_beyond_the_sliders_are_drawn_exactly(qtbot, panel):
    """The model's range is the one truth; a slider never clamps what is drawn."""
    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        panel.model.update(rotation_deg=90.0, translate_x=100.0, scale=3.0, shear=5.0)
    wait_latest(qtbot, panel)
    d = Deformation(rotation_deg=90.0, translate_x=100.0, scale=3.0, shear=5.0)
    assert panel.response.deformation == d
    np.testing.assert_array_equal(panel.images["deformed"].image, deform_image(panel.digit, d)[0])
    controls = panel.sliders
    assert controls["rotation_deg"].spin.value() == 90.0
    assert controls["rotation_deg"].slider.value() == controls["rotation_deg"].slider.maximum()
    assert controls["translate_x"].spin.value() == 100.0 and controls["shear"].spin.value() == 5.0


def test_image_exports_are_image_shaped_and_clip_nothing(qtbot, panel, tmp_path):
    """One image view is about as tall as wide, its colour-bar labels inside."""
    from PySide6 import QtGui

    from ntkviz.gui.export import export_plot

    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        panel.model.update(translate_x=1.5)
    for view in ("original", "difference", "displacement"):
        for width in (None, 1600):
            path = export_plot(panel.plot_items()[view], tmp_path / f"{view}.png", width)
            img = QtGui.QImage(str(path)).convertToFormat(QtGui.QImage.Format.Format_Grayscale8)
            w, h = img.width(), img.height()
            assert 0.5 * w <= h <= 1.0 * w, (view, w, h)
            arr = np.frombuffer(img.constBits(), np.uint8, img.bytesPerLine() * h).reshape(
                h, img.bytesPerLine())[:, :w]
            for edge in (arr[0], arr[-1], arr[:, 0], arr[:, -1]):  # nothing touches the border
                assert edge.min() > 200, (view, width)


def test_architecture_editor_offers_the_even_patch_offsets(qtbot, panel):
    editor = panel.architecture_editor
    tip = editor.offsets_combo.toolTip()
    assert "{−1, 0}" in tip and "'SAME'" in tip and "{0, 1}" in tip
    assert [editor.offsets_combo.itemText(i) for i in range(editor.offsets_combo.count())] == \
        ["reference", "same"]
    for w in (editor.preset_combo, editor.norm_combo):
        assert "Oracle" not in w.toolTip() and "HEAD" not in w.toolTip() and "spec" not in w.toolTip()


def test_transparent_png_loads_its_alpha_as_the_stroke(qtbot, panel, tmp_path):
    from PySide6 import QtGui

    digit = np.round(digit_image(2, 5) * 255).astype(np.uint8)
    rgba = np.zeros((28, 28, 4), np.uint8)
    rgba[..., 3] = digit  # black ink on a transparent background
    img = QtGui.QImage(rgba.tobytes(), 28, 28, 28 * 4, QtGui.QImage.Format.Format_RGBA8888).copy()
    path = tmp_path / "ink.png"
    assert img.save(str(path))
    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        assert panel.load_user_image(path) is True
    np.testing.assert_allclose(panel.digit, digit / 255.0, atol=1e-12)
    assert "alpha" in panel.digit_picker.source_label.text()


def test_a_large_png_is_downsampled_with_a_note(qtbot, panel, tmp_path):
    from PySide6 import QtGui

    img = QtGui.QImage(500, 300, QtGui.QImage.Format.Format_Grayscale8)
    img.fill(255)
    painter = QtGui.QPainter(img)
    painter.fillRect(200, 50, 100, 200, QtGui.QColor("black"))
    painter.end()
    path = tmp_path / "wide.png"
    assert img.save(str(path))
    messages = []
    panel.status.connect(messages.append)
    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        assert panel.load_user_image(path) is True
    assert any("wide.png" in m and "downsampled" in m and "500×300" in m for m in messages)


def test_context_legend_covers_no_bar(qtbot, panel):
    view = panel.context_plot.getViewBox().sceneBoundingRect()
    assert not panel.context.legend.sceneBoundingRect().intersects(view)
    assert "context" in panel.plot_items()


def test_fits_a_1280_by_720_window(panel):
    hint = panel.minimumSizeHint()
    assert hint.width() <= 1260 and hint.height() <= 640  # tab frame and menus around it


def test_image_views_are_not_clipped_in_a_narrow_window(qtbot, panel):
    """At the panel's minimum width every image view fits its cell (bar labels included)."""
    from PySide6 import QtCore

    panel.resize(panel.minimumSizeHint().width(), 700)
    qtbot.wait(50)
    for name, widget in panel.views.widgets.items():
        need = panel.plots[name].effectiveSizeHint(QtCore.Qt.SizeHint.MinimumSize).width()
        assert need <= widget.width(), (name, need, widget.width())


def test_tiny_colour_scales_keep_three_labelled_ticks(qtbot, panel):
    """A 1e-3 px deformation: the colour bars still label >= 3 ticks (none dropped for
    lack of room)."""
    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        panel.model.update(translate_x=1e-3)
    wait_latest(qtbot, panel)
    for _ in range(3):  # axes size their label column while painting
        panel.grab()
        qtbot.wait(20)
    from PySide6 import QtGui

    for name in ("difference", "displacement"):
        axis = panel.bars[name].getAxis("right")
        image = QtGui.QImage(400, 400, QtGui.QImage.Format.Format_ARGB32)
        painter = QtGui.QPainter(image)
        try:
            _, _, texts = axis.generateDrawSpecs(painter)  # the labels pyqtgraph draws
        finally:
            painter.end()
        drawn = [text for _, _, text in texts if text]
        assert len(drawn) >= 3, (name, drawn)


def test_even_patch_offsets_choice_recomputes(qtbot, panel):
    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        panel.model.update(preset="custom", translate_x=1.0,
                           layers=((2, 2, "gaussian", "relu", 1.0, None),
                                   (4, 3, "average", "relu", 1.0, None)))
    wait_latest(qtbot, panel)
    reference = panel.response.ckn_distance
    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        panel.architecture_editor.offsets_combo.setCurrentText("same")
    wait_latest(qtbot, panel)
    assert panel.response.architecture.even_patch_offsets == "same"
    assert panel.response.ckn_distance != reference  # {0, 1} offsets: another kernel


@pytest.mark.parametrize("size", [(640, 400), (1200, 750)])
@pytest.mark.parametrize("view", ["original", "difference"])
def test_an_image_export_keeps_its_bar_beside_the_image(panel, view, size):
    """Exported at a wide size the square image and its colour bar stay together,
    centred (before: the image centred in all the width, a blank band before the bar);
    the on-screen layout is as before afterwards."""
    from ntkviz.gui.export import export_layout

    item, bar = panel.views.plots[view], panel.views.bars[view]
    before = item.geometry()
    with panel.exporting(view, *size), export_layout(item, size):
        figure = item.sceneBoundingRect()
        image = panel.views.images[view].sceneBoundingRect()
        colours = bar.sceneBoundingRect()
        assert figure.width() == size[0]
        assert 0 <= colours.left() - image.right() < 0.05 * size[0]  # side by side
        left, right = image.left() - figure.left(), figure.right() - colours.right()
        assert abs(left - right) < 0.1 * size[0]  # the pair is centred
    assert item.geometry() == before


def test_context_distances_are_not_computed_again_at_the_next_start(qtbot, dispatcher,
                                                                      tmp_path, monkeypatch):
    """The context distances are kept in the user's cache folder: a later start (the
    memory cache empty) draws them without running the context job."""
    import ntkviz.jobs._deform as jobs_deform
    from ntkviz.gui.panels.deformation import QtDeformationPanel

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(jobs_deform, "_CONTEXT_CACHE", {})
    first = QtDeformationPanel(dispatcher)
    first.model.context_per_class = 2
    qtbot.addWidget(first)
    with qtbot.waitSignal(first.context_computed, timeout=TIMEOUT):
        first.refresh()
    assert list((tmp_path / "ntkviz" / "context").glob("context-*.json"))
    monkeypatch.setattr(jobs_deform, "_CONTEXT_CACHE", {})  # a new session
    started = []
    dispatcher.busy.connect(lambda key, busy: busy and started.append(key))
    again = QtDeformationPanel(dispatcher)
    again.model.context_per_class = 2
    qtbot.addWidget(again)
    with qtbot.waitSignal(again.context_computed, timeout=TIMEOUT):
        again.refresh()
    assert again.context_slot.key not in started  # no context job ran
    assert again.context_result().levels == first.context_result().levels
