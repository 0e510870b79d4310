"""Stability view (offscreen, pytest-qt): exported CSV equals the core sweep,
partial results, cancel, sessions, PNG/SVG export."""
from __future__ import annotations

import json

import numpy as np
import pytest
from PySide6 import QtCore, QtGui

from ntkviz.core.conv.architecture import PRESETS
from ntkviz.core.deformations.digits import load_digits

TIMEOUT = 120000
SMALL = {"family": "smooth", "digits": [0, 100], "amplitude_min": 0.05, "amplitude_max": 1.0,
         "amplitude_count": 3, "seeds": 2, "first_seed": 3, "architecture": "M1",
         "reference_per_class": 2}


@pytest.fixture
def panel(stability_panel):
    return stability_panel


def assert_same_table(got, want):
    """Equal headers and rows; floats equal exactly (NaN matches NaN)."""
    assert list(got[0]) == list(want[0])
    assert len(got[1]) == len(want[1])
    for g, w in zip(got[1], want[1]):
        assert len(g) == len(w)
        for a, b in zip(g, w):
            if isinstance(a, float) or isinstance(b, float):
                np.testing.assert_array_equal(float(a), float(b))
            else:
                assert a == b


def core_sweep(state):
    """The same sweep straight from the core (independent of the jobs layer)."""
    from ntkviz.core.deformations.stability import stability_sweep

    images, labels = load_digits()
    idx = state["digits"]
    refs = np.concatenate([np.flatnonzero(labels == k)[:state["reference_per_class"]]
                           for k in range(10)])
    from ntkviz.models.stability import StabilityModel, amplitudes

    amps = np.array(amplitudes(StabilityModel.parse(state)))  # geometric: tests/models
    seeds = tuple(range(state["first_seed"], state["first_seed"] + state["seeds"]))
    item = None
    for item in stability_sweep(images[idx] / 255.0, labels[idx].astype(int),
                                PRESETS[state["architecture"]], state["family"], amps, seeds,
                                reference_images=images[refs] / 255.0,
                                reference_labels=labels[refs].astype(int)):
        pass
    return item.result


def n_points(curve) -> int:
    return 0 if curve.xData is None else len(curve.xData)


def test_title_says_what_is_plotted(panel):
    title = panel.plot.titleLabel.text
    assert "distance against amplitude" in title
    assert panel.plot_items().keys() == {"stability"}  # the figure shown: distance against amplitude


def test_exported_csv_equals_the_core_sweep(qtbot, panel, tmp_path):
    from ntkviz.gui.export import write_csv_table

    panel.set_state(SMALL)
    yielded, drawn_points = [], []

    def on_yielded(key, rid, item):  # runs after the panel drew the item (connected later)
        yielded.append(item)
        drawn_points.append(len(panel.curves["ckn"].xData))

    panel.dispatcher.yielded.connect(on_yielded)
    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        panel.run_button.click()
    want = core_sweep(SMALL)
    header, rows = panel.csv_table("stability")
    assert_same_table((header, rows), want.to_csv_rows())
    path = write_csv_table(tmp_path / "s.csv", header, rows)
    text = path.read_text().splitlines()
    assert len(text) == len(rows) + 1
    # drawn curves are the sweep's means
    curve = panel.curves["ckn"]  # xData/yData: the data (getData() is log10 on log axes)
    np.testing.assert_array_equal(curve.xData, want.amplitudes)
    np.testing.assert_array_equal(curve.yData, want.ckn_mean)
    np.testing.assert_array_equal(panel.curves["ntk"].yData, want.ntk_mean)
    np.testing.assert_array_equal(panel.curves["pixels"].yData, want.pixel_mean)
    assert np.isfinite(want.same_label_ntk)
    level = panel.levels[("ntk", "same")]
    np.testing.assert_array_equal(level.yData, [want.same_label_ntk] * 2)
    assert panel.progress.value() == 1000
    assert yielded and all(0 <= it.fraction <= 1 for it in yielded)
    # partial results drawn as they arrive: one more amplitude per item
    assert drawn_points[:3] == [1, 2, 3]
    assert "slope" in panel.curves["ckn"].name()


def test_cancel_stops_the_sweep(qtbot, panel):
    panel.set_state({**SMALL, "amplitude_count": 8, "seeds": 3, "digits": [0, 100, 200]})
    drawn = []
    panel.computed.connect(drawn.append)
    with qtbot.waitSignal(panel.dispatcher.yielded, timeout=TIMEOUT):
        panel.run_button.click()
    assert panel.cancel_button.isEnabled()
    panel.cancel_button.click()
    qtbot.waitUntil(lambda: not panel.dispatcher.is_busy(panel.key), timeout=TIMEOUT)
    qtbot.wait(50)
    assert drawn == []
    assert "cancelled" in panel.info.text()
    assert not panel.cancel_button.isEnabled()


def test_bad_parameters_go_to_the_status_bar(qtbot, panel):
    panel.digits_edit.setText("0, twelve")
    with qtbot.waitSignal(panel.status, timeout=5000) as blocker:
        panel.digits_edit.editingFinished.emit()
    assert "digits" in blocker.args[0]
    assert panel.model.params.digits == tuple(range(0, 1000, 100))
    assert panel.digits_edit.text() == ", ".join(str(d) for d in range(0, 1000, 100))  # the model's value again


def test_family_sets_the_axis_and_default_amplitudes(panel):
    from ntkviz.models.stability import FAMILY_AXES

    panel.family_combo.setCurrentText("rotation")
    label, lo, hi = FAMILY_AXES["rotation"]
    assert (panel.amp_min.value(), panel.amp_max.value()) == (lo, hi)
    assert label in panel.plot.getAxis("bottom").labelText


def test_session_round_trip(qtbot, panel, dispatcher):
    from ntkviz.gui.panels.stability import QtStabilityPanel

    panel.set_state({**SMALL, "family": "translation", "architecture": "M3"})
    state = json.loads(json.dumps(panel.state()))
    other = QtStabilityPanel(dispatcher)
    qtbot.addWidget(other)
    other.set_state(state)
    assert other.state() == state
    assert state["family"] == "translation" and state["architecture"] == "M3"
    assert state["amplitude_min"] == SMALL["amplitude_min"]


def test_png_and_svg_export(qtbot, panel, tmp_path):
    from xml.dom import minidom

    from PySide6 import QtGui

    from ntkviz.gui.export import export_plot

    panel.set_state({**SMALL, "seeds": 1})
    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        panel.refresh()
    item = panel.plot_items()["stability"]
    png = export_plot(item, tmp_path / "s.png", width=600)
    assert QtGui.QImage(str(png)).width() == 600
    svg = export_plot(item, tmp_path / "s.svg")
    assert minidom.parse(str(svg)).getElementsByTagName("svg")



def test_opening_the_tab_starts_nothing(qtbot, panel):
    qtbot.wait(100)
    assert not panel.dispatcher.is_busy(panel.key) and panel.dispatcher.latest_id(panel.key) == 0
    assert panel.response is None and "Run sweep" in panel.info.text()


def test_cancel_at_zero_shows_nothing_of_the_previous_sweep(qtbot, panel):
    """After a finished sweep, new parameters and a cancel at 0 % show an empty
    plot with a note, never the previous sweep."""
    panel.set_state({**SMALL, "amplitude_count": 2, "seeds": 1})
    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        panel.run_button.click()
    assert len(panel.curves["ckn"].xData) == 2
    panel.amp_count.setValue(12)  # new parameters: what was drawn no longer belongs
    assert panel.response is None and not shows_a_sweep(panel)
    assert "parameters changed" in panel.info.text()
    panel.run_button.click()
    panel.cancel_button.click()
    qtbot.waitUntil(lambda: not panel.dispatcher.is_busy(panel.key), timeout=TIMEOUT)
    qtbot.wait(50)
    assert panel.response is None and not shows_a_sweep(panel)
    assert "cancelled at 0 % before any result" in panel.info.text()
    with pytest.raises(ValueError, match="nothing to export"):
        panel.csv_table("stability")


def shows_a_sweep(panel) -> bool:
    """Whether anything of a sweep is on the figure: a curve or band with data, a level,
    a guide, or the legend (whose entries carry the fitted slopes)."""
    items = [*panel.curves.values(), *panel.levels.values(), *panel.guides.values()]
    drawn = [i for i in items if i.isVisible() and n_points(i)]
    bands = [b for _, _, b in panel.bands.values() if b.isVisible() and not b.path().isEmpty()]
    return bool(drawn or bands or panel.legend.isVisible())


def test_a_stale_sweep_is_neither_drawn_nor_exported(qtbot, panel, tmp_path):
    """After new amplitudes or seeds, or a Cancel at 0 % of a new run, nothing of the
    previous sweep stays on the figure (curves, ±1σ bands, levels, guides, the legend with
    its fitted slopes) and File → Export writes nothing: the plot says why it is empty."""
    from ntkviz.gui.export import export_view

    panel.set_state({**SMALL, "amplitude_count": 2, "seeds": 1})
    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        panel.run_button.click()
    assert shows_a_sweep(panel) and any("slope" in label.text for _, label in panel.legend.items)
    export_view(panel, "stability", tmp_path / "fresh.png", 640)

    def assert_nothing_stale(what: str):
        assert not shows_a_sweep(panel), what
        assert any(n.isVisible() and "press Run sweep" in n.text() for n in panel._notes)
        for suffix in (".png", ".svg", ".csv"):
            with pytest.raises(ValueError, match="nothing to export"):
                export_view(panel, "stability", tmp_path / f"stale{suffix}", 640)
        assert not list(tmp_path.glob("stale*")), what

    panel.amp_max.setValue(2.0)
    assert_nothing_stale("new amplitudes")
    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        panel.run_button.click()
    panel.seeds_spin.setValue(2)
    assert_nothing_stale("new seeds")
    panel.run_button.click()
    panel.cancel_button.click()  # at 0 %
    qtbot.waitUntil(lambda: not panel.dispatcher.is_busy(panel.key), timeout=TIMEOUT)
    assert_nothing_stale("cancel at 0 %")


def test_amplitudes_to_500_are_plotted_to_500(qtbot, panel):
    panel.set_state({**SMALL, "amplitude_min": 1.0, "amplitude_max": 500.0,
                     "amplitude_count": 2, "seeds": 1})
    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        panel.run_button.click()
    assert panel.amp_max.value() == 500.0
    np.testing.assert_array_equal(panel.curves["ckn"].xData, [1.0, 500.0])
    ticks = panel.plot.getAxis("bottom")._tickLevels[0]
    assert max(x for x, _ in ticks) == pytest.approx(np.log10(500.0))


def test_legend_covers_no_data_and_axes_read_true_values(qtbot, panel):
    from ntkviz.gui.panels._stability_figure import PowerLogAxis

    panel.set_state({**SMALL, "amplitude_count": 2, "seeds": 1})
    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        panel.run_button.click()
    qtbot.wait(50)  # the layout places the refilled legend on the next turns of the event loop
    view = panel.plot.getViewBox().sceneBoundingRect()
    assert not panel.legend.sceneBoundingRect().intersects(view)
    assert panel.legend.sceneBoundingRect().bottom() <= panel.figure.sceneBoundingRect().bottom() + 1
    for side in ("left", "bottom"):
        assert not panel.plot.getAxis(side).autoSIPrefix
    assert isinstance(panel.plot.getAxis("left"), PowerLogAxis)
    strings = panel.plot.getAxis("left").logTickStrings([-2.0, -1.0, 0.0, 1.0], 1.0, 1.0)
    assert strings == ["10⁻²", "10⁻¹", "10⁰", "10¹"]


def test_y_title_fits_its_axis_at_640x400(panel):
    """At 640×400 the y title is clearly shorter than its axis and keeps off the top
    edge (the long "relative distance ‖…‖ / ‖…‖" title filled the axis and touched it)."""
    from ntkviz.gui.export import export_layout

    figure = panel.plot_items()["stability"]
    axis = panel.plot.getAxis("left")
    with export_layout(figure, (640, 400)):
        title = axis.label.sceneBoundingRect()
        span = axis.sceneBoundingRect()
        assert title.height() < 0.85 * span.height(), (title, span)
        assert title.top() >= figure.sceneBoundingRect().top() + 4


def sample_colours(sample) -> set[tuple[int, int, int]]:
    """The colours a legend sample paints (on white), without the anti-aliased blends."""
    image = QtGui.QImage(20, 20, QtGui.QImage.Format.Format_ARGB32)
    image.fill(QtGui.QColor("white"))
    painter = QtGui.QPainter(image)
    try:
        sample.paint(painter, None, None)
    finally:
        painter.end()
    counts: dict = {}
    for x in range(20):
        for y in range(20):
            c = image.pixelColor(x, y)
            key = (c.red(), c.green(), c.blue())
            counts[key] = counts.get(key, 0) + 1
    return {c for c, n in counts.items() if n >= 6 and c != (255, 255, 255)}


def test_legend_markers_have_their_curves_colours(qtbot, panel):
    """The marker of each map's legend entry (a disc on the line) is its curve's colour:
    pyqtgraph drew it grey from a scatter that had no data yet. The legend names the maps
    swept, and only them."""
    def check():
        named = {s.item for s, _ in panel.legend.items}
        assert {key for key, curve in panel.curves.items() if curve in named} == set(panel.model.params.maps)
        for key in panel.model.params.maps:
            curve = panel.curves[key]
            sample = next(s for s, _ in panel.legend.items if s.item is curve)
            want = curve.opts["pen"].color()
            assert (want.red(), want.green(), want.blue()) in sample_colours(sample), key
            grey = {(0x96, 0x96, 0x96), (0x64, 0x64, 0x96)}  # pyqtgraph's default symbol
            assert not grey & sample_colours(sample), key

    if panel.legend.isVisible():
        check()
    else:  # an empty figure (nothing of these parameters yet) shows no legend, grey or not
        assert not any(curve.isVisible() for curve in panel.curves.values())
    panel.set_state({**panel.state(), **SMALL, "maps": ["ckn", "ntk", "fourier"]})
    with qtbot.waitSignal(panel.computed, timeout=TIMEOUT):
        panel.start()
    assert panel.response is not None
    check()
    assert QtCore.QRectF(panel.legend.sceneBoundingRect()).isValid()
