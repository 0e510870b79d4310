"""Stability view (offscreen, pytest-qt): exported CSV equals the core sweep,
partial results, cancel, sessions, PNG/SVG export."""
from __future__ import annotations

import json

import numpy as np
import pytest

from ntkviz.core.cntk import PRESETS
from ntkviz.core.digits import load_digits

TIMEOUT = 120000
SMALL = {"family": "smooth", "digits": [0, 100], "amplitude_min": 0.05, "amplitude_max": 1.0,
         "amplitude_count": 3, "seeds": 2, "first_seed": 3, "architecture": "M1",
         "reference_per_class": 2}


@pytest.fixture
def panel(qtbot, dispatcher):
    from ntkviz.gui.panels.stability import QtStabilityPanel

    p = QtStabilityPanel(dispatcher)
    qtbot.addWidget(p)
    p.resize(1100, 700)
    p.show()
    return p


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
    from ntkviz.core.stability import stability_sweep

    images, labels = load_digits()
    idx = state["digits"]
    refs = np.concatenate([np.flatnonzero(labels == k)[:state["reference_per_class"]]
                           for k in range(10)])
    amps = np.geomspace(state["amplitude_min"], state["amplitude_max"], state["amplitude_count"])
    seeds = tuple(range(state["first_seed"], state["first_seed"] + state["seeds"]))
    item = None
    for item in stability_sweep(images[idx] / 255.0, labels[idx].astype(int),
                                PRESETS[state["architecture"]], state["family"], amps, seeds,
                                reference_images=images[refs] / 255.0,
                                reference_labels=labels[refs].astype(int)):
        pass
    return item.result


def test_title_says_not_a_reproduction(panel):
    title = panel.plot.titleLabel.text
    assert "in the spirit of Fig. 1" in title and "not a reproduction" in title


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
    np.testing.assert_array_equal(panel.curves["pixel"].yData, want.pixel_mean)
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
        assert panel.refresh() == 0
    assert "digits" in blocker.args[0]


def test_family_sets_the_axis_and_default_amplitudes(panel):
    from ntkviz.jobs import FAMILY_AMPLITUDES

    panel.family_combo.setCurrentText("rotation")
    label, lo, hi, _ = FAMILY_AMPLITUDES["rotation"]
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

