"""The eigenvalue-decay figure says what it draws: title, curves and guides of one quantity
(μ_k, or N(p, k) μ_k weighted by multiplicity), a legend that leaves the plot its room, rows of
exact-zero markers that do not overlap."""
from __future__ import annotations

import math

import numpy as np
import pytest
from PySide6 import QtCore

from ntkviz.core import KernelSpec, mercer_spectrum
from ntkviz.gui.panels.spectrum import QtSpectrumPanel

ALL_KERNELS = {"kernels": ["arccos0", "arccos1", "ntk", "nngp"], "extra_depths": [3], "dim": 5,
               "kmax": 500, "weighted": True}


def _panel(qtbot, dispatcher, state):
    panel = QtSpectrumPanel(dispatcher)
    qtbot.addWidget(panel)
    panel.resize(1100, 700)
    panel.show()
    with qtbot.waitSignal(panel.computed, timeout=120000):
        panel.set_state({**panel.state(), **state})
    return panel


def _text(html: str) -> str:
    import re

    return re.sub(r"<[^>]+>", "", html).replace("μk", "μₖ")


def _multiplicity(p: int, k: np.ndarray) -> np.ndarray:
    """N(p, k) = (2k + p − 2)/k · C(k + p − 3, p − 2) (k >= 1), from the binomial."""
    return np.array([(2 * kk + p - 2) / kk * math.comb(kk + p - 3, p - 2) for kk in k], float)


def test_weighted_slope_view_names_plots_and_guides_one_quantity(qtbot, dispatcher):
    """Weighted by multiplicity at p = 5: the curves are the local slopes of N(p, k) μ_k
    (checked against the core's μ_k times N(p, k) from the binomial formula), which tend to
    −p + (p − 2) = −2; the guide lines sit at −2 (not −p = −5) and the title names
    N(p, k) μ_k."""
    p, kmax = 5, 400
    panel = _panel(qtbot, dispatcher, {"kernels": ["arccos0", "ntk"], "dim": p, "kmax": kmax,
                                       "weighted": True, "slope": True, "guides": True})
    slope_item = panel.plot_slope.getPlotItem()
    title = _text(slope_item.titleLabel.text)
    assert "N(p, k) μₖ" in title, title
    for spec in (KernelSpec("arccos0"), KernelSpec("ntk", depth=2)):
        sp = mercer_spectrum(spec, p, kmax)
        k = np.arange(1, kmax + 1)
        y = sp.mu[1:] * _multiplicity(p, k)
        ok = y > 0
        k0 = k[:-2][ok[:-2] & ok[2:]]
        expected = np.log(y[k0 + 1] / y[k0 - 1]) / np.log((k0 + 2) / k0)  # y index = k - 1
        curve = next(c for c in slope_item.listDataItems() if c.name() == spec.label)
        np.testing.assert_allclose(curve.xData, k0 + 1.0)
        np.testing.assert_allclose(curve.yData, expected, rtol=1e-9, atol=1e-12)
        assert abs(curve.yData[-1] - (-p + p - 2)) < 0.05  # the tail of N(p, k) μ_k ~ k^-2
    import pyqtgraph as pg

    levels = sorted({line.value() for line in slope_item.items if isinstance(line, pg.InfiniteLine)
                     and line.angle == 0})
    assert levels == [-2.0]
    # the guide curves of the eigenvalue view: N(p, k) C k^-p, whose log-log slope tends to -2
    guides = [c for c in panel.plot.getPlotItem().listDataItems()
              if c.name() and c.name().startswith("guide")]
    assert guides and all("N(p, k)" in c.name() for c in guides)
    for c in guides:
        x, ly = c.xData, c.yData
        assert abs((ly[-1] - ly[-3]) / math.log10(x[-1] / x[-3]) - (-2.0)) < 0.02


def test_unweighted_slope_view_keeps_the_eigenvalue_exponents(qtbot, dispatcher):
    p = 5
    panel = _panel(qtbot, dispatcher, {"kernels": ["arccos0", "arccos1"], "dim": p, "kmax": 100,
                                       "weighted": False, "slope": True, "guides": True})
    import pyqtgraph as pg

    item = panel.plot_slope.getPlotItem()
    assert "N(p" not in _text(item.titleLabel.text) and "μₖ" in _text(item.titleLabel.text)
    levels = sorted(line.value() for line in item.items if isinstance(line, pg.InfiniteLine))
    assert levels == [-p - 2.0, -float(p)]


def _laid_out(item, size):
    from ntkviz.gui.export import export_layout

    return export_layout(item, size)


def test_rows_of_exact_zeros_do_not_overlap_and_the_legend_leaves_room(qtbot, dispatcher):
    """Six kernels, four with exact zeros, at 640×400: the rows of triangles are at least a
    triangle (8 px) apart; the legend lists the kernels first, then the guides, then the
    markers, and takes at most half of the plot area (ten guides once took more than the
    plot)."""
    panel = _panel(qtbot, dispatcher, ALL_KERNELS)
    item = panel.plot.getPlotItem()
    with _laid_out(item, (640, 400)):
        vb = item.getViewBox()
        vb.prepareForPaint()
        rows = []
        for c in item.listDataItems():
            if c.opts.get("symbol") == "t1" and c.xData is not None and len(c.xData):
                ys = set(np.round(c.yData, 12))
                assert len(ys) == 1  # one row per kernel
                rows.append(vb.mapViewToScene(QtCore.QPointF(float(c.xData[0]), ys.pop())).y())
        assert len(rows) == 4
        rows.sort()
        assert min(np.diff(rows)) >= 8.0, rows
        legend = item.legend
        names = [label.text for _, label in legend.items]
        kinds = ["marker" if "(△)" in n or "(×)" in n else "guide" if n.startswith("guide")
                 else "kernel" for n in names]
        assert kinds == sorted(kinds, key=["kernel", "guide", "marker"].index), names
        area = legend.sceneBoundingRect().width() * legend.sceneBoundingRect().height()
        view = vb.sceneBoundingRect()
        assert area <= 0.5 * view.width() * view.height(), (area, view)


@pytest.mark.parametrize("weighted", [False, True])
def test_declared_quantity_matches_the_curves(qtbot, dispatcher, weighted):
    """What each view declares it plots (the gallery checks titles against it) is what the
    curves are: μ_k or N(p, k) μ_k, as the model's display-only weighting says."""
    from ntkviz.gui.plot_style import declared_quantity

    panel = _panel(qtbot, dispatcher, {"kernels": ["ntk"], "dim": 4, "kmax": 50,
                                       "weighted": weighted})
    quantity, _ = declared_quantity(panel.plot)
    assert ("N(p, k)" in quantity) == weighted == panel.model.params.weighted
    s = panel.response.series[0]
    curve = next(c for c in panel.plot.getPlotItem().listDataItems() if c.name() == s.label)
    expected = s.mu * (s.multiplicity if weighted else 1.0)
    np.testing.assert_allclose(10.0 ** curve.yData, expected[s.shown & (s.k >= 1)], rtol=1e-12)
