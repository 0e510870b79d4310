"""Kernel-curve and spectrum panels: controls -> computed -> plotted arrays equal the core."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest

from ntkviz.core import KernelSpec, evaluate_kernel, mercer_spectrum
from ntkviz.gui.panels.kernel_curves import QtKernelCurvesPanel
from ntkviz.gui.panels.spectrum import QtSpectrumPanel


def make(qtbot, cls, dispatcher):
    panel = cls(dispatcher)
    qtbot.addWidget(panel)
    panel.resize(1100, 700)
    panel.show()
    with qtbot.waitSignal(panel.computed, timeout=60000):
        panel.start()
    return panel


def curves(plot_widget) -> dict:
    return {item.name(): item for item in plot_widget.getPlotItem().listDataItems() if item.name()}


@pytest.fixture
def kernel_panel(qtbot, dispatcher):
    return make(qtbot, QtKernelCurvesPanel, dispatcher)


@pytest.fixture
def spectrum_panel(qtbot, dispatcher):
    return make(qtbot, QtSpectrumPanel, dispatcher)


# ---------------------------------------------------------------- kernel curves
def test_depth_slider_updates_plot_to_core_values(qtbot, kernel_panel):
    with qtbot.waitSignal(kernel_panel.computed, timeout=30000):
        kernel_panel.kernels.depth.slider.setValue(3)  # position 3 -> L = 5
    spec = KernelSpec(name="ntk", depth=5)
    item = curves(kernel_panel.plot)[spec.label]
    u = np.linspace(-1, 1, kernel_panel.points.value())
    np.testing.assert_array_equal(item.xData, u)
    np.testing.assert_array_equal(item.yData, evaluate_kernel(spec, u)[0])
    assert item.yData[-1] == pytest.approx(5.0)  # NTK_L(1) = L


def test_burst_of_50_changes_ends_with_last_value(qtbot, kernel_panel):
    ids = []
    kernel_panel.computed.connect(ids.append)
    for i in range(50):
        kernel_panel.kernels.depth.setValue(2 + (i * 7) % 40)
    last = 2 + (49 * 7) % 40
    qtbot.waitUntil(lambda: bool(ids) and ids[-1] == kernel_panel.dispatcher.latest_id("kernel"),
                    timeout=30000)
    assert len(ids) < 50  # throttled, superseded requests dropped
    spec = KernelSpec(name="ntk", depth=last)
    item = curves(kernel_panel.plot)[spec.label]
    np.testing.assert_array_equal(item.yData, evaluate_kernel(spec, item.xData)[0])
    assert kernel_panel.response.request.specs[-1].depth == last


def test_derivative_and_near_one_views(qtbot, kernel_panel):
    with qtbot.waitSignal(kernel_panel.computed, timeout=30000):
        kernel_panel.derivative.setChecked(True)
    r = kernel_panel.response
    c = r.curves[0]
    item = curves(kernel_panel.plot)[f"{c.label}′"]
    finite = np.isfinite(c.derivative)
    np.testing.assert_array_equal(item.yData[finite], c.derivative[finite])
    assert np.isnan(item.yData[~finite]).all()  # ±inf at u = ±1 drawn as gaps
    near = curves(kernel_panel.plot_near)
    np.testing.assert_array_equal(near[c.label].yData, r.near_one.gap[0][r.near_one.gap[0] > 0])
    assert any("Hölder" in name for name in near) and any("Lipschitz" in name for name in near)


def test_finite_width_overlay(qtbot, kernel_panel):
    with qtbot.waitSignal(kernel_panel.computed, timeout=60000):
        kernel_panel.overlay.setChecked(True)
    e = kernel_panel.response.empirical
    item = next(v for k, v in curves(kernel_panel.plot).items() if k.startswith("empirical"))
    np.testing.assert_array_equal(item.yData, e.mean)
    assert any(isinstance(i, pg.ErrorBarItem) for i in kernel_panel.plot.getPlotItem().items)


def test_invalid_parameter_reaches_status_and_panel_recovers(qtbot, kernel_panel):
    messages = []
    kernel_panel.status.connect(messages.append)
    kernel_panel.kernels.extra.setText("99")
    kernel_panel.kernels.extra.editingFinished.emit()
    assert messages and "extra depths must be in [2, 50]" in messages[-1]
    kernel_panel.kernels.extra.setText("3")
    with qtbot.waitSignal(kernel_panel.computed, timeout=30000):
        kernel_panel.kernels.extra.editingFinished.emit()
    assert not kernel_panel.last_error


def test_job_error_reaches_status_and_panel_keeps_working(qtbot, kernel_panel, monkeypatch):
    messages = []
    kernel_panel.status.connect(messages.append)

    def failing_job():
        raise RuntimeError("kernel exploded")

    monkeypatch.setattr(kernel_panel, "build_request", lambda: failing_job)
    kernel_panel.start()
    qtbot.waitUntil(lambda: any("kernel exploded" in m for m in messages), timeout=10000)
    assert kernel_panel.last_error == "RuntimeError: kernel exploded"
    monkeypatch.undo()
    with qtbot.waitSignal(kernel_panel.computed, timeout=30000):
        kernel_panel.kernels.depth.setValue(4)
    assert kernel_panel.last_error == ""


def test_kernel_state_round_trip(qtbot, kernel_panel, dispatcher):
    state = {"kernels": ["arccos0", "nngp"], "activation": "tanh", "depth": 4,
             "extra_depths": "6", "bias": 0.25, "normalize": True, "derivative": False,
             "near_one": False, "n_points": 301, "overlay": True, "width": 500, "seed": 3,
             "n_samples": 2}
    with qtbot.waitSignal(kernel_panel.computed, timeout=60000):
        kernel_panel.set_state(state)
    assert kernel_panel.state() == state
    assert not kernel_panel.plot_near.isVisible()
    with pytest.raises(ValueError, match="depth L must be in"):
        kernel_panel.set_state({"depth": 80})
    assert "<h3>" in kernel_panel.help_html() and "κ0" in kernel_panel.help_html()


# --------------------------------------------------------------------- spectrum
def test_dimension_slider_updates_spectrum_to_core_values(qtbot, spectrum_panel):
    panel = spectrum_panel
    with qtbot.waitSignal(panel.computed, timeout=30000):
        panel.dim.setValue(5)
    spec = KernelSpec(name="ntk", depth=2)
    sp = mercer_spectrum(spec, 5, panel.kmax.value())
    item = curves(panel.plot)[spec.label]
    shown = ~sp.exact_zero & (sp.k >= 1)
    np.testing.assert_array_equal(item.xData, sp.k[shown])
    np.testing.assert_array_equal(item.yData, sp.mu[shown])
    zeros = curves(panel.plot)[f"{spec.label}: exact zeros μ_k = 0 (on axis)"]
    np.testing.assert_array_equal(zeros.xData, sp.k[sp.exact_zero & (sp.k >= 1)])
    assert np.all(zeros.yData < item.yData.min())  # below every data point
    panel.right.setCurrentWidget(panel.table)  # the table fills when shown
    assert panel.table_model.rowCount() == 2 * (panel.kmax.value() + 1)
    assert panel.table_model.rows == panel.response.csv_table("spectrum")[1]


def test_weighting_and_slope_views(qtbot, spectrum_panel):
    panel = spectrum_panel
    with qtbot.waitSignal(panel.computed, timeout=30000):
        panel.weighted.setChecked(True)
    s = panel.response.series[0]
    item = curves(panel.plot)[s.label]
    np.testing.assert_array_equal(item.yData, s.y[s.shown & (s.k >= 1)])
    slope = curves(panel.plot_slope)[s.label]
    np.testing.assert_array_equal(slope.yData, s.slope)
    assert any(name.startswith("guide") for name in curves(panel.plot))


def test_burst_on_dimension_ends_with_last(qtbot, spectrum_panel):
    panel = spectrum_panel
    for p in range(2, 52):
        panel.dim.setValue(p)
    qtbot.waitUntil(lambda: panel.response.request.dim == 51 and
                    not panel.dispatcher.is_busy("spectrum"), timeout=60000)
    assert "p = 51" in panel.plot.getPlotItem().titleLabel.text


def test_spectrum_state_round_trip(qtbot, spectrum_panel):
    state = {"kernels": ["arccos0"], "activation": "relu", "depth": 2, "extra_depths": "",
             "bias": 0.0, "normalize": False, "dim": 10, "kmax": 40, "weighted": True,
             "guides": False, "slope": False}
    with qtbot.waitSignal(spectrum_panel.computed, timeout=30000):
        spectrum_panel.set_state(state)
    assert spectrum_panel.state() == state
    assert not any(n.startswith("guide") for n in curves(spectrum_panel.plot))
