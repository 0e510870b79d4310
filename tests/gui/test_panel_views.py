"""Kernel-curve and spectrum panels: model -> computed -> plotted arrays equal the core;
widgets write through the model; figures readable (no scale factor, legends off the data)."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6 import QtCore, QtGui

from ntkviz.core import KernelSpec, evaluate_kernel, mercer_spectrum
from ntkviz.gui.panels._curve_plots import sci
from ntkviz.gui.panels.kernel_curves import QtKernelCurvesPanel
from ntkviz.gui.panels._spectrum_figure import ZERO_ENTRY
from ntkviz.gui.panels.spectrum import QtSpectrumPanel, cell_text


def make(qtbot, cls, dispatcher, size=(1100, 700)):
    panel = cls(dispatcher)
    qtbot.addWidget(panel)
    panel.resize(*size)
    panel.show()
    with qtbot.waitSignal(panel.computed, timeout=60000):
        panel.start()
    return panel


def curves(plot_widget) -> dict:
    return {item.name(): item for item in plot_widget.getPlotItem().listDataItems() if item.name()}


def set_params(qtbot, panel, **changes):
    with qtbot.waitSignal(panel.computed, timeout=120000):
        panel.model.update(**changes)


def tick_texts(axis) -> list[tuple[QtCore.QRectF, str]]:
    """The labelled ticks an axis draws now: (scene rectangle, text)."""
    image = QtGui.QImage(10, 10, QtGui.QImage.Format.Format_ARGB32)
    painter = QtGui.QPainter(image)
    try:
        _, _, texts = axis.generateDrawSpecs(painter)
    finally:
        painter.end()
    return [(axis.mapRectToScene(rect), text) for rect, _, text in texts if text]


@pytest.fixture
def kernel_panel(qtbot, dispatcher):
    return make(qtbot, QtKernelCurvesPanel, dispatcher)


@pytest.fixture
def spectrum_panel(qtbot, dispatcher):
    return make(qtbot, QtSpectrumPanel, dispatcher)


# ---------------------------------------------------------------- kernel curves
def test_depth_slider_writes_the_model_and_plot_shows_core_values(qtbot, kernel_panel):
    with qtbot.waitSignal(kernel_panel.computed, timeout=30000):
        kernel_panel.kernels.depth.slider.setValue(3)  # position 3 -> L = 5
    assert kernel_panel.model.params.depth == 5
    spec = KernelSpec(name="ntk", depth=5)
    item = curves(kernel_panel.plot)[spec.label]
    u = np.linspace(-1, 1, kernel_panel.model.params.n_points)
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


def test_model_values_outside_the_sliders_are_drawn_and_shown_exactly(qtbot, kernel_panel):
    set_params(qtbot, kernel_panel, bias=0.12345, n_points=20001)
    spec = KernelSpec(name="ntk", depth=2, bias=0.12345)
    assert kernel_panel.response.request.specs[-1] == spec
    item = curves(kernel_panel.plot)[spec.label]
    assert "β=0.12345" in spec.label and len(item.xData) == 20001
    np.testing.assert_array_equal(item.yData, evaluate_kernel(spec, item.xData)[0])
    assert kernel_panel.kernels.bias.spin.value() == pytest.approx(0.12345, abs=0)
    set_params(qtbot, kernel_panel, bias=40.0)
    assert kernel_panel.kernels.bias.spin.value() == 40.0  # beyond the slider: in the box
    set_params(qtbot, kernel_panel, overlay=True, width=1)
    assert kernel_panel.width_m.value() == 1 and kernel_panel.response.empirical.width == 1


def test_refused_edit_reports_and_resyncs_the_widget(qtbot, kernel_panel):
    messages = []
    kernel_panel.status.connect(messages.append)
    kernel_panel.kernels.extra.setText("99")
    kernel_panel.kernels.extra.editingFinished.emit()
    assert messages and "extra_depths must be in [2, 50], got 99" in messages[-1]
    assert kernel_panel.model.params.extra_depths == ()
    assert kernel_panel.kernels.extra.text() == ""  # shows the model again
    kernel_panel.kernels.extra.setText("3,,")
    kernel_panel.kernels.extra.editingFinished.emit()
    assert "extra depths must be integers separated by commas" in messages[-1]
    kernel_panel.kernels.extra.setText("3")
    with qtbot.waitSignal(kernel_panel.computed, timeout=30000):
        kernel_panel.kernels.extra.editingFinished.emit()
    assert kernel_panel.model.params.extra_depths == (3,) and not kernel_panel.last_error


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


def test_infinite_kernel_at_one_is_said_not_hidden(qtbot, kernel_panel):
    """The deep step-activation NTK is infinite at u = 1: its near-one gap is inf, so
    the curve cannot be drawn on log axes; the legend says so."""
    set_params(qtbot, kernel_panel, kernels=("ntk",), activation="step", depth=50)
    c = kernel_panel.response.curves[0]
    assert c.value_at_one == np.inf
    near = curves(kernel_panel.plot_near)
    name = f"{c.label}: not drawn (κ(1) = inf)"
    assert name in near
    x = near[name].getData()[0]
    assert x is None or len(x) == 0
    assert "inf" in kernel_panel.at_one.text()


def test_near_one_toggle_redraws_without_computing(qtbot, kernel_panel):
    before = kernel_panel.dispatcher.latest_id("kernel")
    kernel_panel.near_one.setChecked(False)
    assert not kernel_panel.model.params.near_one and not kernel_panel.plot_near.isVisible()
    kernel_panel.near_one.setChecked(True)
    assert kernel_panel.plot_near.isVisible()
    assert kernel_panel.dispatcher.latest_id("kernel") == before


def test_finite_width_overlay(qtbot, kernel_panel):
    with qtbot.waitSignal(kernel_panel.computed, timeout=60000):
        kernel_panel.overlay.setChecked(True)
    e = kernel_panel.response.empirical
    item = next(v for k, v in curves(kernel_panel.plot).items() if k.startswith("empirical"))
    np.testing.assert_array_equal(item.yData, e.mean)
    assert any(isinstance(i, pg.ErrorBarItem) for i in kernel_panel.plot.getPlotItem().items)


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


def test_kernel_state_round_trip_sets_the_widgets(qtbot, kernel_panel):
    state = {"kernels": ["arccos0", "nngp"], "activation": "tanh", "depth": 4,
             "extra_depths": [6], "bias": 0.25, "normalize": True, "derivative": False,
             "near_one": False, "n_points": 301, "overlay": True, "width": 500, "seed": 3,
             "n_samples": 2}
    with qtbot.waitSignal(kernel_panel.computed, timeout=60000):
        kernel_panel.set_state(state)
    assert kernel_panel.state() == state
    k = kernel_panel.kernels
    assert [n for n, cb in k.checks.items() if cb.isChecked()] == ["arccos0", "nngp"]
    assert (k.activation.currentText(), k.depth.value(), k.extra.text()) == ("tanh", 4, "6")
    assert k.normalize.currentIndex() == 1 and kernel_panel.points.value() == 301
    assert kernel_panel.overlay.isChecked() and int(kernel_panel.seed.value()) == 3
    assert not kernel_panel.plot_near.isVisible()
    with pytest.raises(ValueError, match="depth must be in"):
        kernel_panel.set_state({"depth": 80})
    assert kernel_panel.state() == state
    assert "<h3>" in kernel_panel.help_html() and "κ0" in kernel_panel.help_html()


def test_near_one_view_readable_at_small_size(qtbot, dispatcher):
    panel = make(qtbot, QtKernelCurvesPanel, dispatcher)
    plot = panel.plot_near
    plot.setParent(None)
    plot.resize(640, 400)
    plot.show()
    qtbot.waitUntil(lambda: plot.width() == 640)
    item = plot.getPlotItem()
    title = item.titleLabel.sceneBoundingRect()
    for name in ("left", "bottom"):
        ticks = tick_texts(item.getAxis(name))
        assert len(ticks) >= 3, ticks
        assert all(text.startswith("10") for _, text in ticks)  # one style: 10ⁿ
        assert not any(rect.intersects(title) for rect, _ in ticks)
    assert not item.legend.sceneBoundingRect().intersects(item.getViewBox().sceneBoundingRect())


# --------------------------------------------------------------------- spectrum
def test_dimension_slider_updates_spectrum_to_core_values(qtbot, spectrum_panel):
    panel = spectrum_panel
    with qtbot.waitSignal(panel.computed, timeout=30000):
        panel.dim.setValue(5)
    spec = KernelSpec(name="ntk", depth=2)
    sp = mercer_spectrum(spec, 5, panel.model.params.kmax)
    item = curves(panel.plot)[spec.label]
    shown = ~sp.exact_zero & (sp.k >= 1)
    np.testing.assert_array_equal(item.xData, sp.k[shown])
    np.testing.assert_allclose(10.0 ** item.yData, sp.mu[shown], rtol=1e-13)  # log10 drawn
    assert ZERO_ENTRY in curves(panel.plot)  # one legend entry for all rows of zeros
    index = [s.label for s in panel.response.series].index(spec.label)
    zeros = panel.figure.items[("zero", index)][1]
    np.testing.assert_array_equal(zeros.xData, sp.k[sp.exact_zero & (sp.k >= 1)])
    assert np.all(zeros.yData < item.yData.min())  # below every data point
    panel.right.setCurrentWidget(panel.table)  # the table fills when shown
    assert panel.table_model.rowCount() == 2 * (panel.model.params.kmax + 1)
    header, rows = panel.csv_table("spectrum")
    y = header.index("y_plotted")  # μ_k itself (not weighted): not a second column
    assert [r[-1] for r in panel.table_model.rows] == rows  # each row ends with its CSV row
    assert [r[:-1] for r in panel.table_model.rows] == [
        [v for i, v in enumerate(row) if i != y] for row in rows]


def test_weighting_redraws_without_computing(qtbot, spectrum_panel):
    """Weighting by multiplicity is display-only: no new job, the curve becomes
    N(p, k) μ_k (from the core's μ_k and the multiplicities), the slopes its slopes."""
    from ntkviz.core import mercer_spectrum, multiplicity

    panel = spectrum_panel
    before = panel.dispatcher.latest_id("spectrum")
    panel.weighted.setChecked(True)
    assert panel.dispatcher.latest_id("spectrum") == before  # nothing recomputed
    s = panel.response.series[0]
    sp = mercer_spectrum(s.spec, panel.model.params.dim, panel.model.params.kmax)
    item = curves(panel.plot)[s.label]
    drawn = s.shown & (s.k >= 1) & ~s.untrusted
    np.testing.assert_allclose(10.0 ** item.yData, (multiplicity(sp.dim, sp.k) * sp.mu)[drawn],
                               rtol=1e-12)
    slope = curves(panel.plot_slope)[s.label]
    np.testing.assert_array_equal(slope.yData, s.slopes(weighted=True)[1])
    assert any(name.startswith("guide") for name in curves(panel.plot))
    panel.weighted.setChecked(False)
    assert panel.dispatcher.latest_id("spectrum") == before
    np.testing.assert_allclose(10.0 ** curves(panel.plot)[s.label].yData, sp.mu[drawn],
                               rtol=1e-12)


def test_guides_and_slope_toggle_without_computing(qtbot, spectrum_panel):
    panel = spectrum_panel
    before = panel.dispatcher.latest_id("spectrum")
    panel.guides.setChecked(False)
    assert not any(n.startswith("guide") for n in curves(panel.plot))
    panel.slope.setChecked(False)
    assert not panel.plot_slope.isVisible()
    panel.guides.setChecked(True)
    assert any(n.startswith("guide") for n in curves(panel.plot))
    assert panel.dispatcher.latest_id("spectrum") == before


def test_hover_reads_the_value_not_its_log(qtbot, spectrum_panel):
    panel = spectrum_panel
    s = next(s for s in panel.response.series if s.label.startswith("NTK"))
    item = curves(panel.plot)[s.label]
    vb = panel.plot.getPlotItem().getViewBox()
    k = 4
    i = int(np.flatnonzero(item.xData == k)[0])
    scene = vb.mapViewToScene(QtCore.QPointF(np.log10(k), item.yData[i]))
    panel.figure._hovers[0]._on_moved((scene,))
    text = panel.figure.hover.text()
    value = float(text.split("μ = ")[1])
    assert f"k = {k}" in text and value == pytest.approx(float(s.mu[k]), rel=1e-9)


def core_like(spec, dim, kmax, **overrides):
    """The core's spectrum of ``spec`` as a plain namespace, some fields replaced (what the
    job's series are made from)."""
    from types import SimpleNamespace

    from ntkviz.core import mercer_spectrum

    sp = mercer_spectrum(spec, dim, kmax)
    fields = {name: getattr(sp, name) for name in (
        "k", "multiplicity", "mu", "error_estimate", "exact_zero", "log10_mu",
        "log10_multiplicity", "relative_error", "trustworthy", "log10_trustworthy", "method")}
    return SimpleNamespace(**{**fields, **overrides})


def draw_series(panel, series):
    from ntkviz.jobs import SpectrumResponse

    r = panel.response
    panel.apply_response(SpectrumResponse(r.request, (series,), ()))


def test_eigenvalues_below_the_float64_range_are_drawn_from_log10_mu(qtbot, spectrum_panel):
    """A response carrying log10 μ_k (here μ_k = 10^(−3k), below 10⁻³⁰⁸ from k = 103) is
    drawn as far as it is vouched for, and the points it does not vouch for are marked
    (crosses at their values, not joined by the curve's line)."""
    panel = spectrum_panel
    set_params(qtbot, panel, kernels=("ntk",), kmax=200)
    spec = panel.response.series[0].spec
    k = np.arange(201)
    log10_mu = -3.0 * k
    with np.errstate(under="ignore"):
        mu = 10.0 ** log10_mu  # 0.0 from k = 108
    trust = k < 150
    fake = core_like(spec, 3, 200, mu=mu, log10_mu=log10_mu, exact_zero=np.zeros(201, bool),
                     relative_error=np.zeros(201), trustworthy=trust, log10_trustworthy=trust)
    draw_series(panel, panel.response.request._series(fake, spec))
    item = curves(panel.plot)[spec.label]
    line = (k >= 1) & trust
    np.testing.assert_array_equal(item.xData, k[line])
    np.testing.assert_array_equal(item.yData, log10_mu[line])  # down to 10⁻⁴⁴⁷
    assert item.yData.min() < -308
    bottom = panel.plot.getPlotItem().getViewBox().viewRange()[1][0]
    assert bottom <= -600.0  # the view is not limited to the float64 range
    marked = panel.figure.items[("bad", 0)][1]
    np.testing.assert_array_equal(marked.xData, k[~trust])
    np.testing.assert_array_equal(marked.yData, log10_mu[~trust])


def test_untrusted_values_are_crosses_not_part_of_the_line_or_the_slopes(qtbot,
                                                                       spectrum_panel):
    """Degrees the computation does not vouch for are left out of the curve's line and of
    the local slopes that use them (the slope drawn at k + 1 joins μ_k and μ_{k+2}); the
    job says which (``untrusted``), the view draws what it says."""
    panel = spectrum_panel
    set_params(qtbot, panel, kernels=("ntk",), kmax=60, slope=True)
    spec = panel.response.series[0].spec
    real = core_like(spec, 3, 60)
    trust = (real.k < 20) | (real.k > 30)
    s = panel.response.request._series(core_like(spec, 3, 60, log10_trustworthy=trust), spec)
    np.testing.assert_array_equal(s.untrusted, ~trust & ~real.exact_zero & (real.k >= 1))
    draw_series(panel, s)
    line = curves(panel.plot)[s.label]
    assert len(line.xData) and not set(line.xData) & set(s.k[~trust])
    drawn = panel.figure.items[("slope", 0)][1]
    shown = set(real.k[trust & ~real.exact_zero & (real.k >= 1)])
    kept = [k + 1 for k in range(1, 59) if k in shown and k + 2 in shown]
    assert 0 < len(kept) < len(panel.response.series[0].slope_k) + 10
    np.testing.assert_array_equal(drawn.xData, kept)
    want = [(real.log10_mu[k + 1] - real.log10_mu[k - 1]) / np.log10((k + 1) / (k - 1))
            for k in kept]
    np.testing.assert_allclose(drawn.yData, want, rtol=1e-12)


def test_burst_on_dimension_ends_with_last(qtbot, spectrum_panel):
    panel = spectrum_panel
    for p in range(2, 52):
        panel.dim.setValue(p)
    qtbot.waitUntil(lambda: panel.response.request.dim == 51 and
                    not panel.dispatcher.is_busy("spectrum"), timeout=60000)
    assert "p = 51" in panel.plot.getPlotItem().titleLabel.text


def test_spectrum_state_round_trip(qtbot, spectrum_panel):
    state = {"kernels": ["arccos0"], "activation": "relu", "depth": 2, "extra_depths": [],
             "bias": 0.0, "normalize": False, "dim": 10, "kmax": 40, "weighted": True,
             "guides": False, "slope": False}
    with qtbot.waitSignal(spectrum_panel.computed, timeout=30000):
        spectrum_panel.set_state(state)
    assert spectrum_panel.state() == state
    assert spectrum_panel.dim.value() == 10 and spectrum_panel.kmax.value() == 40
    assert not any(n.startswith("guide") for n in curves(spectrum_panel.plot))


def test_high_dimension_axes_have_no_scale_factor_and_legend_off_data(qtbot, spectrum_panel):
    panel = spectrum_panel
    set_params(qtbot, panel, dim=39, kmax=1807)
    for plot in (panel.plot, panel.plot_slope):
        item = plot.getPlotItem()
        for name in ("left", "bottom"):
            axis = item.getAxis(name)
            assert "x1e" not in axis.labelString() and "(x" not in axis.labelString()
        vb = item.getViewBox().sceneBoundingRect()
        assert not item.legend.sceneBoundingRect().intersects(vb)
    ticks = [t for _, t in tick_texts(panel.plot.getPlotItem().getAxis("left"))]
    assert len(ticks) >= 3 and all(t.startswith("10") for t in ticks)
    # the y range is the data's (plus padding), not stretched by the guide lines
    highest = max(np.log10(s.mu[1:][s.mu[1:] > 0]).max() for s in panel.response.series)
    bottom, top = panel.plot.getPlotItem().getViewBox().viewRange()[1]
    assert top - highest < 0.1 * (top - bottom)
    guides = [it for name, it in curves(panel.plot).items() if name.startswith("guide")]
    assert guides and all(bottom <= g.yData.min() and g.yData.max() <= top for g in guides)
    # the exponents of the guides on the slope view (-39, -41) do not overlap
    lines = [i for i in panel.plot_slope.getPlotItem().items if isinstance(i, pg.InfiniteLine)]
    assert len(lines) == 2
    a, b = (line.label.sceneBoundingRect() for line in lines)
    assert not a.intersects(b)


def test_svg_export_has_no_scale_factor(qtbot, spectrum_panel, tmp_path):
    from ntkviz.gui.export import export_plot

    set_params(qtbot, spectrum_panel, kernels=("ntk", "arccos1"), dim=20)
    for view, item in spectrum_panel.plot_items().items():
        export_plot(item, tmp_path / f"{view}.svg")
        text = (tmp_path / f"{view}.svg").read_text()
        assert "x1e" not in text and "x0.001" not in text


@pytest.mark.parametrize("cls", [QtKernelCurvesPanel, QtSpectrumPanel])
def test_nothing_clipped_in_a_narrow_window(qtbot, dispatcher, cls):
    """At 800 × 700 (a small window) every plot fits its widget: no title, axis or
    legend wider than the plot area."""
    panel = make(qtbot, cls, dispatcher, size=(800, 700))
    qtbot.wait(50)
    for item in panel.plot_items().values():
        widget = item.getViewWidget()
        if not widget.isVisible():
            continue
        rect = item.sceneBoundingRect()
        assert rect.width() <= widget.width() + 1 and rect.height() <= widget.height() + 1
        assert rect.contains(item.legend.sceneBoundingRect())


def test_svg_draws_the_grid_before_the_curves(qtbot, dispatcher, tmp_path):
    """SVG keeps the screen's stacking: every light-grey grid line comes before the
    first curve in document order (else the grid is drawn over the curves)."""
    import re

    from ntkviz.gui.export import export_plot
    from ntkviz.gui.plot_style import PALETTE

    for cls in (QtKernelCurvesPanel, QtSpectrumPanel):
        panel = make(qtbot, cls, dispatcher)
        for view, item in panel.plot_items().items():
            export_plot(item, tmp_path / f"{view}.svg")
            text = (tmp_path / f"{view}.svg").read_text()
            strokes = [m.group(1).lower() for m in re.finditer(r'stroke="#([0-9a-f]{6})"', text,
                                                                re.IGNORECASE)]
            grey = [i for i, c in enumerate(strokes)
                    if all(int(c[j:j + 2], 16) >= 0xd0 for j in (0, 2, 4))]
            first_curve = min(i for i, c in enumerate(strokes)
                              if c in {p[1:].lower() for p in PALETTE[:2]})
            assert grey and max(grey) < first_curve, (view, strokes[:12])


def test_values_table_is_scientific_to_the_vouched_digits_right_aligned(qtbot, spectrum_panel):
    """Every mu_k cell is within half its error estimate of the float64 (exact values,
    error 0, whole), in scientific notation, right-aligned."""
    panel = spectrum_panel
    set_params(qtbot, panel, dim=20, kmax=30)
    panel.right.setCurrentWidget(panel.table)
    model = panel.table_model
    header = model.header
    col_mu, col_n = header.index("mu_k"), header.index("N(p,k)")
    col_err = header.index("error_estimate")
    for row in range(model.rowCount()):
        mu, err = model.rows[row][col_mu], model.rows[row][col_err]
        text = model.data(model.index(row, col_mu))
        assert abs(float(text) - mu) <= err / 2 * (1 + 1e-12), (text, mu, err)
        if mu != 0:
            assert "e" in text
        align = model.data(model.index(row, col_mu), QtCore.Qt.ItemDataRole.TextAlignmentRole)
        assert align & int(QtCore.Qt.AlignmentFlag.AlignRight.value)
    for row in (5, 20):  # N(p, k): every digit, its magnitude visible (2.8e10, not 2.77…)
        n, n_text = model.rows[row][col_n], model.data(model.index(row, col_n))
        assert float(n_text) == n and ("e+" in n_text or n_text == str(int(n)))
    assert cell_text(1.1423490692e-07) == "1.1423490692e-07"
    assert cell_text(2.777326712e10) == "2.777326712e+10"


def _atlas_sizes(plot_widget) -> dict:
    return {item.name(): len(item.scatter.fragmentAtlas)
            for item in plot_widget.getPlotItem().listDataItems()
            if item.name() and item.opts.get("symbol") is not None}


def test_symbol_atlases_do_not_grow_while_a_slider_moves(qtbot, spectrum_panel, kernel_panel):
    """Each dotted curve renders its symbol once: pyqtgraph keys its symbol atlas by the
    pen and brush objects, so new ones on every update re-rendered the symbol and grew the
    atlas by one entry per update (spectrum curves and the finite-width overlay)."""
    set_params(qtbot, kernel_panel, overlay=True, width=10, n_samples=2)
    views = [(spectrum_panel, spectrum_panel.plot, "dim", (4, 5, 6, 7)),
             (spectrum_panel, spectrum_panel.plot_slope, "dim", (8, 9, 10)),
             (kernel_panel, kernel_panel.plot, "width", (11, 12, 13))]
    for panel, plot, field, values in views:
        set_params(qtbot, panel, **{field: values[0]})
        before = _atlas_sizes(plot)
        assert before and all(n == 1 for n in before.values()), before
        for v in values[1:]:
            set_params(qtbot, panel, **{field: v})
        assert list(_atlas_sizes(plot).values()) == list(before.values())


def _significant_digits(text: str) -> int:
    from decimal import Decimal

    return len(Decimal(text).normalize().as_tuple().digits)


def test_mu0_reads_its_closed_form_and_the_table_says_what_it_shows(qtbot, spectrum_panel):
    """At p = 3, μ₀ of κ1 is 2p (Γ(p/2) / (2√π Γ((p+1)/2)))² = 6 (1/4)² = 3/8 and μ₀ of the
    two-layer NTK is μ₁(κ0) + μ₀(κ1) = 1/8 + 3/8 = 1/2 (closed forms by hand): the table
    and the read-out show 3.75e-01 and 5e-01 although the float64 of κ1's μ₀ is a few ulp
    off (its error estimate vouches for ~15 digits, not 17). No cell has more digits than
    Python's shortest repr. The plotted value is not a second μ_k column: left out when it
    is μ_k, named and explained when it is N(p, k) μ_k."""
    panel = spectrum_panel
    set_params(qtbot, panel, kernels=("ntk", "arccos1"), dim=3, kmax=20)
    panel.right.setCurrentWidget(panel.table)
    model = panel.table_model
    col_label, col_k, col_mu = 0, model.header.index("k"), model.header.index("mu_k")
    exact = {"κ1": "3.75e-01", "NTK": "5e-01"}
    seen = set()
    for row in range(model.rowCount()):
        mu, text = model.rows[row][col_mu], model.data(model.index(row, col_mu))
        if mu != 0:
            assert _significant_digits(text) <= _significant_digits(repr(mu)), (text, repr(mu))
        label = model.rows[row][col_label]
        if model.rows[row][col_k] == 0:
            name = label.split()[0]
            assert text == exact[name], (label, text, repr(mu))
            assert f"{label}: {exact[name]}" in panel.mu0.text()
            seen.add(name)
    assert seen == set(exact)
    assert "y_plotted" not in model.header and "N(p,k) mu_k" not in model.header
    panel.model.update(weighted=True)  # display only: drawn again at once, no new job
    col_y = model.header.index("N(p,k) mu_k")
    assert "y_plotted" not in model.header
    tip = model.headerData(col_y, QtCore.Qt.Orientation.Horizontal,
                           QtCore.Qt.ItemDataRole.ToolTipRole)
    assert "log10" in tip and "vouches" in tip
    # κ1's odd part is u/2 = N(3, 1) μ₁ P₁(u) (arccos u = π/2 − arcsin u): the weighted
    # value at k = 1 is 1/2, within the error its log10 route carries
    k1 = next(r for r in range(model.rowCount())
              if model.rows[r][col_label].startswith("κ1") and model.rows[r][col_k] == 1)
    assert model.data(model.index(k1, col_y)) == "5e-01"
    for row in range(model.rowCount()):
        assert ".e" not in model.data(model.index(row, col_y))
    assert cell_text(0.1 + 0.2) == "3.0000000000000004e-01" and cell_text(0.375) == "3.75e-01"


# ------------------------------------------------------------------ plot helpers
def test_sci_from_log10_beyond_float64():
    assert sci(log10=-400.0 + np.log10(3.66463469)) == "3.66463469e-400"
    assert sci(log10=-1300.0) == "1e-1300"
    assert sci(1.142349069e-07) == "1.142349069e-07" and sci(0.375) == "3.75e-01"
    assert sci(0.0) == "0"


@pytest.mark.parametrize("width", [640, 2400])
def test_slope_view_exported_alone_keeps_the_spectrum_k_range(qtbot, spectrum_panel, tmp_path,
                                                             monkeypatch, width):
    """pyqtgraph links x axes through their pixel geometry: the slope plot exported at
    another width than the spectrum plot on screen showed the wrong k range (up to ~1400
    of 2000 at 640 px, up to 2e6 at 2400 px). At render time its range is the spectrum's."""
    from ntkviz.gui import export

    panel = spectrum_panel
    with qtbot.waitSignal(panel.computed, timeout=60000):
        panel.model.update(dim=1000, kmax=2000)
    k_range = panel.plot.getViewBox().viewRange()[0]
    seen = []

    class Spy(export.exporters.ImageExporter):
        def export(self, *args, **kwargs):
            seen.append(self.item.getViewBox().viewRange()[0])
            return super().export(*args, **kwargs)

    monkeypatch.setattr(export.exporters, "ImageExporter", Spy)
    export.export_view(panel, "slope", tmp_path / "slope.png", width, width * 5 // 8)
    assert len(seen) == 1
    np.testing.assert_allclose(seen[0], k_range, atol=1e-9)
    assert seen[0][1] >= np.log10(2000)
    assert panel.plot_slope.getViewBox().linkedView(0) is panel.plot.getViewBox()  # linked again
