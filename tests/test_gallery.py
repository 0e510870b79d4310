"""The reduced figure gallery: every registered panel's views at 640×400 and 2400×1500,
PNG and SVG, checked for what can be checked without looking (see ntkviz.gallery)."""
from __future__ import annotations

import re
from xml.etree import ElementTree

import pytest

from ntkviz.gui.panels import keys

pytestmark = pytest.mark.usefixtures("qapp")

#: cheaper case than "default" for panels whose default computation takes a minute
CI_CASE = {"classification": "tiny"}


@pytest.mark.parametrize("key", keys())
def test_reduced_gallery_has_no_problem(key, tmp_path):
    from PySide6 import QtGui

    from ntkviz.gallery import REDUCED_SIZES, SIZES, render_gallery

    cases = [CI_CASE[key]] if key in CI_CASE else None
    report = render_gallery(tmp_path, reduced=True, panels=[key], cases=cases, log=lambda _: None)
    assert report.files, "nothing rendered"
    pngs = [p for p in report.files if p.suffix == ".png"]
    svgs = [p for p in report.files if p.suffix == ".svg"]
    assert pngs and len(svgs) == len(pngs)
    for png in pngs:  # sizes as requested (checked independently of the report)
        size = next(s for s in REDUCED_SIZES if png.stem.endswith(s))
        image = QtGui.QImage(str(png))
        assert (image.width(), image.height()) == SIZES[size], png
    for svg in svgs:
        root = ElementTree.parse(svg).getroot()
        texts = ["".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text")]
        assert not [t for t in texts if re.search(r"\(\s*[x×]\s*[0-9]", t)], svg
    assert report.problems == []


def test_checks_catch_what_they_should(qtbot, tmp_path):
    """The gallery's checks fail on the defects they exist for (a check that cannot
    fail tests nothing)."""
    import numpy as np
    import pyqtgraph as pg

    from ntkviz.gallery._checks import layout_problems, svg_problems
    from ntkviz.gui.export import svg_string

    w = pg.PlotWidget()  # pyqtgraph defaults: SI prefix, grid above the curves
    qtbot.addWidget(w)
    w.showGrid(x=True, y=True)
    w.setLabel("left", "a left axis title far too long for a figure 400 pixels high " * 2)
    w.plot(np.arange(5.0), 1e-30 * np.arange(5.0), name="tiny")
    w.getPlotItem().getAxis("left").enableAutoSIPrefix(True)
    w.resize(600, 400)
    w.show()
    qtbot.waitExposed(w)
    problems = layout_problems(w.getPlotItem(), 640, 400)
    assert any("outside the figure" in p for p in problems)
    cramped = pg.PlotWidget()
    qtbot.addWidget(cramped)
    cramped.setLabel("left", "value")
    axis = cramped.getPlotItem().getAxis("left")
    axis.setStyle(autoExpandTextSpace=False, autoReduceTextSpace=False)
    axis.setWidth(24)  # too narrow for the title beside the tick labels
    cramped.plot([0.0, 1.0], [1.0, 5.0])
    cramped.resize(600, 400)
    cramped.show()
    qtbot.waitExposed(cramped)
    assert any("overlaps the tick labels" in p for p in layout_problems(cramped.getPlotItem()))
    assert any("drawn over the data" in p for p in problems)
    bad_svg = ('<svg xmlns="http://www.w3.org/2000/svg"><text>μ (x1e-30)</text>'
               '<g id="PlotItem_1"><g id="ViewBox_1"/><g id="AxisItem_1">'
               + '<polyline points="0,0 500,0"/>' * 4 + '</g></g></svg>')
    got = svg_problems(bad_svg)
    assert any("scale factor" in p for p in got) and any("grid of AxisItem_1" in p for p in got)
    exported = svg_problems(svg_string(w.getPlotItem()))
    assert not any("scale factor" in p for p in exported)  # the exporter removes it
    assert any("grid of" in p for p in exported)  # stacked like the screen: grid over data
    from ntkviz.gui.plot_style import grid_below

    grid_below(w)  # the fix panels use: grid under the data on screen and in SVG
    assert svg_problems(svg_string(w.getPlotItem())) == []
    assert not any("drawn over the data" in p for p in layout_problems(w.getPlotItem()))


def test_check_catches_a_curve_cut_by_its_axes(qtbot):
    """A curve reaching beyond its plot's range is a problem; zeros on a log axis (log10 0
    is not drawn) are not."""
    import numpy as np
    import pyqtgraph as pg

    from ntkviz.gallery._checks import layout_problems

    w = pg.PlotWidget()
    qtbot.addWidget(w)
    w.plot(np.arange(1.0, 11.0), np.arange(1.0, 11.0), name="cut")
    w.resize(600, 400)
    w.show()
    qtbot.waitExposed(w)
    assert not any("beyond" in p for p in layout_problems(w.getPlotItem(), 640, 400))
    w.setXRange(1.0, 6.0, padding=0.0)
    assert any("'cut' reaches beyond" in p for p in layout_problems(w.getPlotItem(), 640, 400))
    logw = pg.PlotWidget()
    qtbot.addWidget(logw)
    logw.setLogMode(y=True)
    logw.plot([1.0, 2.0, 3.0], [0.0, 0.0, 0.0], name="zeros")
    logw.plot([1.0, 2.0, 3.0], [1.0, 10.0, 100.0], name="data")
    logw.resize(600, 400)
    logw.show()
    qtbot.waitExposed(logw)
    assert not any("beyond" in p for p in layout_problems(logw.getPlotItem(), 640, 400))
