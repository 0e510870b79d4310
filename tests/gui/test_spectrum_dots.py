"""Eigenvalue-decay dots: at a large k max the plain dots of a curve are drawn one per
screen cell (in log k they pile up on the same pixels), while the line, the hover data,
the exact-zero triangles and the untrusted crosses keep every point."""
from __future__ import annotations

import math

import numpy as np
import pytest
from PySide6 import QtCore

from ntkviz.core import KernelSpec, mercer_spectrum
from ntkviz.gui.panels._spectrum_figure import DOT_CELL_PX, DottedCurve, spaced_dots
from ntkviz.gui.panels.spectrum import QtSpectrumPanel

#: a dropped point lies within √2 cells of a dot; the dots are placed again when the view's
#: scale changes by more than 20 %, so at most 1.2 times that on screen
REACH_PX = DottedCurve.RESCALE * math.sqrt(2.0) * DOT_CELL_PX + 0.01


def screen(item, x, y) -> tuple[np.ndarray, np.ndarray]:
    """Device-independent screen pixels (the view box's own transform) of display
    coordinates ``x``, ``y`` of ``item``'s view."""
    t = item.getViewBox().childGroup.transform()
    return t.m11() * x + t.m31(), t.m22() * y + t.m32()


def farthest_from_a_dot(item) -> float:
    """Largest screen distance (px) from a point of ``item``'s line, inside the view, to
    the nearest dot drawn."""
    data = item.getData()
    x, y = np.asarray(data[0]), np.asarray(data[1])  # as displayed: log10 k
    (x0, x1), (y0, y1) = item.getViewBox().viewRange()
    inside = (x >= x0) & (x <= x1) & (y >= y0) & (y <= y1)
    dots = item.scatter.data
    px, py = screen(item, x[inside], y[inside])
    dx, dy = screen(item, dots["x"], dots["y"])
    d = np.hypot(px[:, None] - dx[None, :], py[:, None] - dy[None, :])
    return float(d.min(axis=1).max())


def make(qtbot, dispatcher, **params):
    panel = QtSpectrumPanel(dispatcher)
    qtbot.addWidget(panel)
    panel.resize(1100, 700)
    panel.show()
    with qtbot.waitSignal(panel.computed, timeout=120000):
        panel.model.update(**params)
        panel.start()
    qtbot.wait(50)
    return panel


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_spaced_dots_cover_every_point_one_per_cell(seed):
    rng = np.random.default_rng(seed)
    px = np.cumsum(rng.exponential(0.3, 3000))  # dense, increasing, as log k is
    py = 40 * np.sin(px / 30) + rng.normal(0, 3, px.size)
    py[::97] = np.nan
    keep = spaced_dots(px, py, 2.0)
    assert np.all(np.diff(keep) > 0) and np.all(np.isfinite(py[keep]))
    assert 50 < keep.size < 0.8 * np.isfinite(py).sum()
    ok = np.isfinite(py)
    cells = {(math.floor((a - px[ok].min()) / 2), math.floor((b - py[ok].min()) / 2))
             for a, b in zip(px[ok], py[ok])}
    assert keep.size == len(cells)  # one dot per occupied cell
    d = np.hypot(px[ok][:, None] - px[keep][None, :], py[ok][:, None] - py[keep][None, :])
    assert d.min(axis=1).max() <= 2.0 * math.sqrt(2.0) + 1e-9
    sparse = np.arange(50) * 2.5  # points farther apart than a cell all keep their dot
    np.testing.assert_array_equal(spaced_dots(sparse, np.zeros(50), 2.0), np.arange(50))


def test_large_k_max_draws_fewer_dots_but_keeps_the_line_zeros_and_hover(qtbot, dispatcher):
    panel = make(qtbot, dispatcher, kernels=("ntk",), dim=3, kmax=2000, slope=True)
    sp = mercer_spectrum(KernelSpec(name="ntk", depth=2), 3, 2000)
    zero = sp.exact_zero & (sp.k >= 1)
    line = panel.figure.items[("mu", 0)][1]
    np.testing.assert_array_equal(line.xData, sp.k[~zero & (sp.k >= 1)])  # every point
    np.testing.assert_allclose(10.0 ** line.yData, sp.mu[~zero & (sp.k >= 1)], rtol=1e-12)
    assert line.opts["symbol"] == "o" and line.scatter.opts["size"] == 4  # legend sample
    for item in (line, panel.figure.items[("slope", 0)][1]):
        n_dots = len(item.scatter.data)
        assert 20 < n_dots < 0.7 * len(item.xData)
        assert set(item.scatter.data["x"]) <= set(item.getData()[0])
        assert farthest_from_a_dot(item) <= REACH_PX
    (_, x1), (_, y1) = panel.plot.getPlotItem().getViewBox().viewRange()
    assert x1 >= math.log10(2000) and y1 >= line.yData.max()  # auto-range: every point
    zeros = panel.figure.items[("zero", 0)][1]
    assert len(zeros.scatter.data) == zero.sum() == 999  # every exact zero keeps its triangle


def test_zooming_in_puts_a_dot_on_every_point_again(qtbot, dispatcher):
    panel = make(qtbot, dispatcher, kernels=("ntk",), dim=3, kmax=2000)
    line = panel.figure.items[("mu", 0)][1]
    before = len(line.scatter.data)
    panel.plot.getPlotItem().getViewBox().setXRange(math.log10(1500), math.log10(1600),
                                                    padding=0)
    QtCore.QCoreApplication.processEvents()
    x = np.log10(line.xData)
    inside = (x >= math.log10(1500)) & (x <= math.log10(1600))
    drawn = set(line.scatter.data["x"])
    assert inside.sum() == 51 and all(v in drawn for v in x[inside])  # even k: ~17 px apart
    assert len(line.scatter.data) != before
    assert farthest_from_a_dot(line) <= REACH_PX


def test_every_untrusted_cross_is_drawn(qtbot, dispatcher):
    """Depth 50 at p = 1000: the rounding noise of the far tail is marked untrusted; each
    of those degrees keeps its cross (never thinned out like the plain dots)."""
    panel = make(qtbot, dispatcher, kernels=("ntk",), depth=50, dim=1000, kmax=2000)
    s = panel.response.series[0]
    bad = s.untrusted
    assert bad.sum() > 100
    crosses = panel.figure.items[("bad", 0)][1]
    assert len(crosses.scatter.data) == bad.sum()
    np.testing.assert_array_equal(crosses.xData, s.k[bad])
    line = panel.figure.items[("mu", 0)][1]
    assert len(line.xData) > 100 and not set(line.xData) & set(s.k[bad])
    assert farthest_from_a_dot(line) <= REACH_PX
