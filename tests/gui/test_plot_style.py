"""The look of plots: log axes, empty states, legend placement."""
from __future__ import annotations

import math

import pytest


def test_log_axis_labels_at_least_three_ticks(qtbot):
    """Over one decade (0.1 … 1) the axis labels 0.1, 0.2, 0.5, 1 rather than only two."""
    from ntkviz.gui.plot_style import DecadeLogAxis

    axis = DecadeLogAxis("left")
    axis.setLogMode(False, True)
    values = [-1.0, -1 + math.log10(2), -1 + math.log10(5), 0.0]
    labels = [t for t in axis.logTickStrings(values, 1.0, 1.0) if t]
    assert labels == ["10⁻¹", "2·10⁻¹", "5·10⁻¹", "10⁰"]


# --------------------------------------------------------------- legend placement (A.7)
@pytest.mark.parametrize("data_corner, expected", [
    ("top_right", ((0, 0), (0, 0))),  # a curve through the top right: legend top left
    ("nowhere", ((1, 0), (1, 0))),    # empty corners: the preferred top right
])
def test_legend_goes_where_it_covers_no_data(qtbot, data_corner, expected):
    import numpy as np
    import pyqtgraph as pg

    from ntkviz.gui.legends import _data_pixels, place_legend
    from ntkviz.gui.plot_style import make_plot

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
