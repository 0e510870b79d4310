"""LabeledSlider mappings and Readout."""
from __future__ import annotations

import math

import pytest

from ntkviz.gui.widgets import LabeledSlider, Readout


def test_int_slider_syncs_spin_and_emits_once(qtbot):
    s = LabeledSlider("depth L", 2, 50, 2)
    qtbot.addWidget(s)
    got = []
    s.valueChanged.connect(got.append)
    s.slider.setValue(5)  # position 5 -> value 7
    assert s.value() == 7 and s.spin.value() == 7 and got == [7]
    s.spin.setValue(20)
    assert s.slider.value() == 18 and got == [7, 20]
    s.setValue(20)
    assert got == [7, 20]  # unchanged: no signal


def test_log_slider_maps_ends_and_is_monotone(qtbot):
    s = LabeledSlider("width m", 10, 100000, 100, mapping="log", integer=True, steps=400)
    qtbot.addWidget(s)
    values = []
    for pos in (0, 100, 200, 300, 400):
        s.slider.setValue(pos)
        values.append(s.value())
    assert values[0] == 10 and values[-1] == 100000
    assert values[2] == 1000  # geometric midpoint
    assert values == sorted(values) and all(isinstance(v, int) for v in values)


def test_float_slider_and_clamping(qtbot):
    s = LabeledSlider("bias β", 0.0, 2.0, 0.5, mapping="float", steps=200, decimals=3, units=" u")
    qtbot.addWidget(s)
    assert s.value() == 0.5 and s.slider.value() == 50
    s.setValue(5.0)
    assert s.value() == 2.0
    assert s.spin.suffix() == " u"


def test_restore_is_strict(qtbot):
    s = LabeledSlider("depth L", 2, 50, 2)
    qtbot.addWidget(s)
    s.restore(9)
    assert s.value() == 9
    with pytest.raises(ValueError, match=r"depth L must be in \[2, 50\]"):
        s.restore(99)
    with pytest.raises(ValueError, match="integer"):
        s.restore(2.5)
    with pytest.raises(ValueError, match="number"):
        s.restore("3")
    with pytest.raises(ValueError, match="must be in"):
        s.restore(math.nan)


def test_bad_construction():
    with pytest.raises(ValueError, match="mapping"):
        LabeledSlider("x", 0, 1, mapping="sqrt")
    with pytest.raises(ValueError, match="minimum > 0"):
        LabeledSlider("x", 0, 1, mapping="log")


def test_readout(qtbot):
    r = Readout("κ(1)", fmt="{:.3f}", units=" nats")
    qtbot.addWidget(r)
    assert r.text() == "κ(1) = –"
    r.setValue(2)
    assert r.text() == "κ(1) = 2.000 nats"


# ------------------------------------------------------------------ tick labels
def test_log_tick_strings_are_true_values_in_one_style():
    from ntkviz.gui.widgets import log_tick_strings

    assert log_tick_strings([-5, 0, 1, 13, -117]) == ["10⁻⁵", "10⁰", "10¹", "10¹³", "10⁻¹¹⁷"]
    two, five = math.log10(2), math.log10(5)
    assert log_tick_strings([-3 + two, 2 + five]) == ["2·10⁻³", "5·10²"]


def test_linear_tick_strings_never_mix_styles():
    from ntkviz.gui.widgets import linear_tick_strings

    assert linear_tick_strings([0.0, 0.5, 1.0], 0.5) == ["0.0", "0.5", "1.0"]
    assert linear_tick_strings([-1, 0, 1], 1) == ["-1", "0", "1"]
    small = linear_tick_strings([0.0, 2e-5, 4e-5, 1e-4], 2e-5)
    assert small == ["0", "0.2·10⁻⁴", "0.4·10⁻⁴", "1.0·10⁻⁴"]
    big = linear_tick_strings([0, 5e4, 1e5], 5e4)
    assert big == ["0", "0.5·10⁵", "1.0·10⁵"]
    for labels in (small, big):  # one style: never "0.0001" beside "10⁻⁵"
        assert all("·10" in t for t in labels if t != "0")


def test_linear_ticks_over_a_tiny_range_are_distinct_and_offset_free():
    """Ticks 1.6420388 … 1.6420392 read as plain decimals (no "·10⁰"), each distinct
    and each within half a spacing of the value it labels."""
    from ntkviz.gui.widgets import linear_tick_strings

    values = [1.6420388 + i * 1e-7 for i in range(5)]
    labels = linear_tick_strings(values, 1e-7)
    assert not any("·10" in t for t in labels)
    assert len(set(labels)) == len(labels)
    assert all(abs(float(t) - v) <= 0.5e-7 for t, v in zip(labels, values))


def test_log_axis_labels_at_least_three_ticks(qtbot):
    """Over one decade (0.1 … 1) the axis labels 0.1, 0.2, 0.5, 1 rather than only two."""
    from ntkviz.gui.widgets import DecadeLogAxis

    axis = DecadeLogAxis("left")
    axis.setLogMode(False, True)
    values = [-1.0, -1 + math.log10(2), -1 + math.log10(5), 0.0]
    labels = [t for t in axis.logTickStrings(values, 1.0, 1.0) if t]
    assert labels == ["10⁻¹", "2·10⁻¹", "5·10⁻¹", "10⁰"]


# --------------------------------------------------------------- legend placement
@pytest.mark.parametrize("data_corner, expected", [
    ("top_right", ((0, 0), (0, 0))),  # a curve through the top right: legend top left
    ("nowhere", ((1, 0), (1, 0))),    # empty corners: the preferred top right
])
def test_legend_goes_where_it_covers_no_data(qtbot, data_corner, expected):
    import numpy as np
    import pyqtgraph as pg

    from ntkviz.gui.widgets import _data_pixels, make_plot, place_legend

    w = make_plot("t", "x", "y")
    qtbot.addWidget(w)
    if data_corner == "top_right":
        x = np.linspace(0, 1, 200)
        w.plot(x, x ** 8, pen=pg.mkPen("r", width=2), name="rises in the top right")
    else:
        x = np.linspace(0.3, 0.7, 50)
        w.plot(x, 0.5 + 0 * x, pen=pg.mkPen("r", width=2), name="flat middle")
        w.plot([0, 1], [0, 1], pen=None, symbol=None)  # sets the range only
    w.resize(600, 400)
    w.show()
    qtbot.waitExposed(w)
    w.getPlotItem().getViewBox().prepareForPaint()
    assert place_legend(w) == expected
    qtbot.wait(10)
    legend = w.getPlotItem().legend
    vb = w.getPlotItem().getViewBox()
    rect = vb.mapRectFromScene(legend.sceneBoundingRect())
    pts = _data_pixels(vb)
    inside = ((pts[:, 0] >= rect.left()) & (pts[:, 0] <= rect.right())
              & (pts[:, 1] >= rect.top()) & (pts[:, 1] <= rect.bottom()))
    assert not inside.any()
    assert legend.brush().color().alpha() > 200  # an opaque background
