"""Input widgets: LabeledSlider mappings and Readout."""
from __future__ import annotations

import math

import pytest

from ntkviz.gui.controls import LabeledSlider, Readout


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
