"""Lazy-training panel (pytest-qt, offscreen): playback, scrubbing, restarts, divergence,
export and sessions. Frames are compared with the job's own frames (same request)."""
from __future__ import annotations

import json

import numpy as np
from PySide6 import QtGui
import pytest

pytest.importorskip("pytestqt")

from ntkviz.gui.panels.training import QtTrainingPanel  # noqa: E402

SMALL = {"steps": 400, "frames": 40, "autoplay": False, "alpha": 0.01, "compare": True,
         "alpha2": 100.0}


@pytest.fixture
def panel(training_panel):
    return training_panel


def computed(qtbot, panel, state, timeout=60000):
    with qtbot.waitSignal(panel.computed, timeout=timeout):
        panel.set_state(state)
    return panel._data


def drawn_net(panel, run=0):
    return np.asarray(panel.views[run].curves["net"].yData)


def test_play_advances_frames(qtbot, panel):
    data = computed(qtbot, panel, SMALL)
    assert data.done and data.frame_count > 10
    panel.show_frame(0)
    panel.play()
    qtbot.waitUntil(lambda: panel.current_index() >= 5, timeout=5000)
    i = panel.current_index()
    np.testing.assert_array_equal(drawn_net(panel), data.frame(0, i).net)
    qtbot.waitUntil(lambda: not panel.is_playing(), timeout=10000)  # stops at the end
    assert panel.current_index() == data.frame_count - 1


def test_scrubbing_shows_the_recorded_frame(qtbot, panel):
    data = computed(qtbot, panel, SMALL)
    panel.player.timeline.setValue(7)
    assert panel.current_index() == 7
    for run in (0, 1):
        frame = data.frame(run, 7)
        np.testing.assert_array_equal(drawn_net(panel, run), frame.net)
        view = panel.views[run]
        pos = frame.signs > 0
        np.testing.assert_array_equal(view.dots[1].xData, frame.neurons[pos, 0])
        np.testing.assert_array_equal(view.dots[-1].yData, frame.neurons[~pos, 1])
    assert panel.player.label.text().startswith(f"frame 7/{data.frame_count - 1},")
    assert panel.model.params.frame == 7  # the scrub position is the model's (sessions)
    panel.player.step(+1)
    assert panel.current_index() == 8 and not panel.is_playing()
    assert panel.model.params.frame == 8


def test_time_cursor_marks_the_frame_and_hides_at_t0(qtbot, panel):
    data = computed(qtbot, panel, SMALL)
    panel.model.update(frame=0)
    assert data.frame(0, 0).time == 0 and not panel.views[0].cursor.isVisible()
    panel.model.update(frame=9)
    cursor = panel.views[0].cursor
    assert cursor.isVisible() and cursor.value() == pytest.approx(np.log10(data.frame(0, 9).time))


def test_changing_alpha_while_playing_restarts_without_stale_frames(qtbot, panel):
    computed(qtbot, panel, {**SMALL, "autoplay": True, "steps": 3000, "frames": 80})
    panel.show_frame(0)
    panel.play()
    qtbot.waitUntil(lambda: panel.current_index() >= 3, timeout=5000)
    seen = []

    def check(index):
        data = panel._data
        seen.append((data.request.config.alpha, np.array_equal(drawn_net(panel), data.frame(0, index).net)))

    panel.frame_shown.connect(check)
    with qtbot.waitSignal(panel.computed, timeout=60000):
        panel.controls.alpha.setValue(3.0)
        assert panel.frame_count() == 0  # old frames dropped at once
        assert all(c.yData is None or len(c.yData) == 0 for c in panel.views[0].curves.values())
    qtbot.waitUntil(lambda: len(seen) > 0, timeout=5000)
    assert all(alpha == 3.0 and same for alpha, same in seen)
    assert panel._data.request.config.alpha == 3.0 and panel._data.done


def test_unstable_step_size_stops_with_a_message_instead_of_nan(qtbot, panel):
    messages = []
    panel.status.connect(messages.append)
    data = computed(qtbot, panel, {**SMALL, "lr": 0.1, "compare": False})
    assert data.diverged
    message = panel.controls.message.text()
    assert "diverged" in message and "step size" in message
    assert any("diverged" in m for m in messages)
    for index in range(data.frame_count):
        panel.show_frame(index)
        assert np.isfinite(drawn_net(panel)).all()
        assert np.isfinite(panel.views[0].dots[1].xData).all()


def test_export_files(qtbot, panel, tmp_path):
    from ntkviz.gui.export import export_plot, svg_string, write_csv_table

    computed(qtbot, panel, SMALL)
    png = export_plot(panel.plot_items()["figure"], tmp_path / "f.png", width=800)
    assert png.stat().st_size > 10000
    assert "<svg" in svg_string(panel.plot_items()["neurons"])
    svg = svg_string(panel.plot_items()["metrics"])
    # the SVG stacks like the screen: axes (with their grid lines) before the curves' view box
    assert svg.index('id="_LogAxis') < svg.index('id="ViewBox')
    assert "(x0" not in svg and "(x1" not in svg  # no SI scale factor
    header, rows = panel.csv_table("metrics")
    write_csv_table(tmp_path / "m.csv", header, rows)
    assert len(rows) == sum(len(r.frames) for r in panel._data.runs)
    panel.model.update(frame=5)
    header, rows = panel.csv_table("predictor")
    assert {row[1] for row in rows} == {panel._data.frame(0, 5).step}


def test_session_state_round_trip(qtbot, panel):
    state = {**SMALL, "alpha": 0.05, "width": 16, "samples": 9, "seed": 3, "lr": 0.002,
             "init": "centered", "metrics": ["train_loss", "kernel_drift"]}
    data = computed(qtbot, panel, state)
    panel.player.timeline.setValue(4)
    saved = json.loads(json.dumps(panel.state()))
    assert saved["frame"] == 4
    other = QtTrainingPanel(panel.dispatcher)
    qtbot.addWidget(other)
    with qtbot.waitSignal(other.computed, timeout=60000):
        other.set_state(saved)
    assert other.state() == saved
    assert other.current_index() == 4
    np.testing.assert_array_equal(other._data.frame(0, 4).net, data.frame(0, 4).net)
    np.testing.assert_array_equal(drawn_net(other), data.frame(0, 4).net)


def test_odd_width_is_made_even(qtbot, panel):
    computed(qtbot, panel, SMALL)
    panel.controls.width_m.setValue(21)
    assert panel.controls.width_m.value() == 22 == panel.model.params.width


def test_playback_drops_frames_rather_than_falling_behind(qtbot, panel):
    computed(qtbot, panel, SMALL)
    panel.show_frame(0)
    player = panel.player
    player.restart_clock(0)  # the clock of a playing timeline, ticks driven by hand
    player.ready = False  # the last frame is still being painted
    dropped = player.frames_dropped
    player.tick()
    assert player.frames_dropped == dropped + 1 and panel.current_index() == 0
    qtbot.wait(500)  # 15 frames' worth of wall-clock time at 30 frames/s
    player.ready = True
    player.tick()
    assert panel.current_index() >= 12  # jumps to the wall-clock frame, skipping the others


def _screen_pixels(panel, item):
    """RGB array of what the canvas shows (the window's own paint path, not an export) inside
    ``item``'s view box, and nothing else."""
    from PySide6 import QtCore

    panel.canvas.viewport().repaint()
    image = panel.canvas.viewport().grab().toImage().convertToFormat(
        QtGui.QImage.Format.Format_RGB888)
    rect = panel.canvas.mapFromScene(item.getViewBox().sceneBoundingRect()).boundingRect()
    rect = rect.intersected(QtCore.QRect(0, 0, image.width(), image.height()))
    ratio = image.devicePixelRatio()
    data = np.frombuffer(bytes(image.constBits()), np.uint8).reshape(
        image.height(), image.bytesPerLine())[:, : 3 * image.width()].reshape(
        image.height(), image.width(), 3)
    return data[int(rect.top() * ratio): int(rect.bottom() * ratio),
                int(rect.left() * ratio): int(rect.right() * ratio)].astype(int)


def test_metric_curves_are_solid_on_screen(qtbot, panel):
    """Regression: the log axes' opaque grid lines were painted over the curves, cutting
    them into dots and dashes on screen (exports looked right)."""
    from ntkviz.gui.panels.training._plots import METRIC_COLOURS

    computed(qtbot, panel, {**SMALL, "compare": False, "metrics": ["train_loss"]})
    qtbot.wait(50)
    metrics = panel.views[0].metrics
    pixels = _screen_pixels(panel, metrics)
    colour = np.array([int(METRIC_COLOURS["train_loss"][i:i + 2], 16) for i in (1, 3, 5)])
    hit = (np.abs(pixels - colour).max(axis=-1) <= 40).any(axis=0)  # per pixel column
    columns = np.flatnonzero(hit)
    assert len(columns) > 50
    span = hit[columns[0] + 2: columns[-1] - 1]  # the curve's horizontal extent
    assert span.mean() > 0.97, f"curve missing in {np.sum(~span)} of {span.size} pixel columns"


def test_zero_metrics_are_masked_not_drawn_on_log_axes(qtbot, panel):
    data = computed(qtbot, panel, {**SMALL, "compare": False, "alpha": 1000.0,
                                   "metrics": ["flip_share", "train_loss"]})
    flips = np.array([f.metrics["flip_share"] for f in data.runs[0].frames if f.time > 0])
    assert (flips == 0).any()  # the lazy run has frames without any ReLU flip
    curve = panel.views[0].metric_curves["flip_share"]
    assert curve.opts["connect"] == "finite"
    _, y = curve.getData()  # log10 values: a zero would be -inf
    assert not np.isinf(y).any() and np.isnan(y).sum() == (flips <= 0).sum()


def test_read_outs_fit_at_1280x720(qtbot, dispatcher, settings):
    """Nothing of the read-outs or the frame label is clipped in a 1280×720 main window,
    with two runs side by side (the tallest read-out)."""
    from ntkviz.gui.main_window import MainWindow

    window = MainWindow(dispatcher, settings, panels=["training"])
    qtbot.addWidget(window)
    window.resize(1280, 720)
    window.show()
    panel = window.current_panel()
    with qtbot.waitSignal(panel.computed, timeout=60000):
        panel.set_state(SMALL)
        window.start()
    qtbot.wait(50)
    assert window.width() <= 1280 and window.height() <= 720
    shown = [r for r in panel.readouts if r.isVisible()]
    assert len(shown) == 2
    for label in (*shown, panel.player.label):
        hint = label.sizeHint()
        assert hint.height() <= label.height() and hint.width() <= label.width(), label.text()
        bottom_right = label.mapTo(window, label.rect().bottomRight())
        assert window.rect().contains(bottom_right)
    # the figure's layout fits its canvas (a scene larger than its view is cut off)
    need = panel.layout_item.minimumSize()
    assert need.width() <= panel.canvas.width() and need.height() <= panel.canvas.height(), \
        (need, panel.canvas.size())


@pytest.mark.parametrize("alpha", [1e-3, 1e3])
def test_extreme_alphas_draw_finite_frames_with_labelled_axes(qtbot, panel, alpha):
    from ntkviz.models.training import TrainingModel

    case = next(s for s in TrainingModel.gallery_cases().values()
                if s.get("alpha") == alpha and not s.get("compare", True))
    data = computed(qtbot, panel, case)
    assert data.done and not data.diverged
    view = panel.views[0]
    np.testing.assert_array_equal(drawn_net(panel), data.frame(0, -1).net)

    def labelled(axis) -> list[str]:
        image = QtGui.QImage(8, 8, QtGui.QImage.Format.Format_RGB32)
        painter = QtGui.QPainter(image)
        try:
            specs = axis.generateDrawSpecs(painter)  # what the axis paints
        finally:
            painter.end()
        return [] if specs is None else [text for *_, text in specs[2] if text.strip()]

    for plot in view.plots():
        for name in ("bottom", "left"):
            axis = plot.getAxis(name)
            assert axis.labelUnitPrefix == "" and axis.autoSIPrefixScale == 1.0
            try:  # the ranges follow the last frame's layout, a moment later on a busy machine
                qtbot.waitUntil(lambda: len(labelled(axis)) >= 3, timeout=5000)
            except qtbot.TimeoutError:
                pass  # the assertion below says what the axis shows
            assert len(labelled(axis)) >= 3, (plot.titleLabel.text, name, labelled(axis))


def test_invalid_session_changes_nothing(qtbot, panel):
    data = computed(qtbot, panel, SMALL)
    before = panel.state()
    for bad in ({"seed": 1e10}, {"frame": 1e9}, {"alpha": "big"}, {"nope": 1}):
        with pytest.raises(ValueError):
            panel.set_state(bad)
        assert panel.state() == before
    assert panel._data is data


def test_legend_samples_show_their_colours_on_screen(qtbot, panel):
    """Regression: cached legend samples clipped the teacher stars to small black marks."""
    from ntkviz.gui.panels.training._plots import NEG, POS

    computed(qtbot, panel, {**SMALL, "compare": False})
    panel.canvas.viewport().repaint()
    image = panel.canvas.viewport().grab().toImage().convertToFormat(
        QtGui.QImage.Format.Format_RGB888)
    data = np.frombuffer(bytes(image.constBits()), np.uint8).reshape(
        image.height(), image.bytesPerLine())[:, : 3 * image.width()].reshape(
        image.height(), image.width(), 3).astype(int)
    ratio = image.devicePixelRatio()
    samples = {label.text: sample for sample, label in panel.legend.items}
    for name, colour in (("teacher, a* &gt; 0", POS), ("teacher, a* &lt; 0", NEG)):
        rect = panel.canvas.mapFromScene(samples[name].sceneBoundingRect()).boundingRect()
        patch = data[int(rect.top() * ratio): int(rect.bottom() * ratio) + 1,
                     int(rect.left() * ratio): int(rect.right() * ratio) + 1]
        rgb = np.array([int(colour[i:i + 2], 16) for i in (1, 3, 5)])
        assert (np.abs(patch - rgb).max(axis=-1) <= 30).sum() >= 20, name


def test_gif_through_the_exporter_registry(qtbot, panel, tmp_path):
    pytest.importorskip("PIL")
    from PIL import Image

    from ntkviz.gui.export import export_view

    data = computed(qtbot, panel, SMALL)
    panel.player.timeline.setValue(5)
    export_view(panel, "metrics", tmp_path / "a.gif", width=320)
    gif = Image.open(tmp_path / "a.gif")
    assert gif.n_frames == data.frame_count and gif.size[0] == 320
    assert panel.current_index() == 5  # the frame shown before comes back


@pytest.mark.parametrize("size, below", [((640, 417), False), ((640, 900), True),
                                         ((1200, 800), False)])
def test_export_layouts_keep_everything_inside_with_labelled_axes(qtbot, panel, size, below,
                                                                  drawn_ticks):
    """At an export's own size the legend moves under a single run's plots when the figure
    is narrow and tall enough that the plots keep twice the legend's height (at 640×417 it
    stays beside them: under them it took more than the plots' area); every plot and the
    legend stay inside the figure; axes keep >= 3 labels."""
    from ntkviz.gui.export import export_layout

    computed(qtbot, panel, {**SMALL, "compare": False})
    with export_layout(panel.layout_item, size):
        figure = panel.layout_item.geometry()
        view = panel.views[0]
        for item in (*view.plots(), panel.legend):
            assert figure.contains(item.geometry()), (item, item.geometry(), figure)
        assert (panel.legend.geometry().top() >= view.metrics.geometry().bottom()) == below
        assert len(drawn_ticks(view.metrics.getAxis("bottom"))) >= 3
        assert len(drawn_ticks(view.predictor.getAxis("bottom"))) >= 3
    assert panel.legend.geometry().left() >= view.metrics.geometry().right()  # restored


def test_legend_lists_training_points_only_where_they_are_drawn(qtbot, panel):
    names = lambda: [label.text for _, label in panel.legend.items]  # noqa: E731
    computed(qtbot, panel, {**SMALL, "dim": 3})
    x = panel.views[0].train_points.xData
    assert (x is None or len(x) == 0) and "training points" not in names()
    computed(qtbot, panel, {**SMALL, "dim": 2})
    assert len(panel.views[0].train_points.xData) == 15 and "training points" in names()


@pytest.mark.parametrize("view", ["neurons", "predictor", "metrics", "metrics_2"])
def test_a_plot_exported_alone_fills_the_image_and_has_its_legend(qtbot, panel, view):
    """Exported alone at 2400×1500 a plot is laid out at the whole image (not at its
    cell of the figure, which left a blank right part), with its own group of the
    legend beside its plot area (off the data); the figure is as before afterwards."""
    import pyqtgraph as pg

    from ntkviz.gui.export import export_layout
    from ntkviz.gui.panels.training._plots import METRIC_LABELS

    computed(qtbot, panel, SMALL)
    for _ in range(2):  # painted as on screen: axes take their tick labels' width when painted
        panel.canvas.grab()
        qtbot.wait(10)
    item = panel.plot_items()[view]
    before = item.geometry()
    with panel.exporting(view, 2400, 1500), export_layout(item, (1200, 750), 2.0):
        assert item.geometry().width() == 1200 and item.geometry().height() == 750
        legends = [c for c in item.childItems() if isinstance(c, pg.LegendItem)]
        assert len(legends) == 1
        texts = [label.text for _, label in legends[0].items]
        box = item.getViewBox().sceneBoundingRect()
        assert box.width() > 0.6 * item.sceneBoundingRect().width()
        assert legends[0].sceneBoundingRect().left() >= box.right() - 1  # off the data
        assert item.sceneBoundingRect().contains(legends[0].sceneBoundingRect())
    if view.startswith("metrics"):
        assert {METRIC_LABELS[k] for k in panel.model.params.metrics} <= set(texts)
    else:
        assert not set(METRIC_LABELS.values()) & set(texts)  # its own group only
    assert not [c for c in item.childItems() if isinstance(c, pg.LegendItem)]
    assert item.geometry() == before


def test_angle_axis_reads_multiples_of_pi_as_every_angle_axis(qtbot, panel, drawn_ticks):
    """The predictors' θ axis is labelled as the Generalisation tab's fit and GP samples:
    multiples of π (0, π/2, π, 3π/2, 2π), never radians as decimals."""
    import re

    computed(qtbot, panel, SMALL)
    axis = panel.views[0].predictor.getAxis("bottom")
    labels = [text for _, text in drawn_ticks(axis)]
    assert {"0", "π", "2π"} <= set(labels), labels
    assert all(re.match(r"^(0|−?[0-9]*π(/[0-9]+)?)$", t) for t in labels), labels
