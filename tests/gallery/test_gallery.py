"""The reduced figure gallery: every registered panel's views at 640×400 and 2400×1500,
PNG and SVG, checked for what can be checked without looking (see ntkviz.gallery)."""
from __future__ import annotations

import re
from xml.etree import ElementTree

import pytest

from ntkviz.panels import keys

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


def _shown_plot(qtbot, title="a plot", size=(640, 400)):
    import pyqtgraph as pg

    w = pg.PlotWidget(title=title)
    qtbot.addWidget(w)
    w.resize(*size)
    w.show()
    qtbot.waitExposed(w)
    return w


def test_figure_checks_catch_figures_that_contradict_themselves(qtbot):
    """Each figure check fails on the defect it exists for, and passes once it is mended:
    a title naming another quantity than the curves and guides of another quantity, a
    category drawn as zero bars, a spread scale factor "0.1·10⁴", overlapping tick labels,
    a legend larger than the plot."""
    import numpy as np
    import pyqtgraph as pg

    from ntkviz.gallery._checks import figure_problems, layout_problems
    from ntkviz.gui.plot_style import declare_quantity

    w = _shown_plot(qtbot, "Local slope d log μ<sub>k</sub> / d log k")
    w.plot(np.arange(1.0, 10.0), -2.0 - 1.0 / np.arange(1.0, 10.0), name="slope")
    w.addItem(pg.InfiniteLine(-5.0, angle=0))
    declare_quantity(w, "d log(N(p, k) μₖ) / d log k", levels=[-2.0])
    got = figure_problems(w.getPlotItem())
    assert any("neither its title nor an axis title names it" in p for p in got)
    assert any("guide lines" in p and "-5.0" in p for p in got)
    w.setTitle("Local slope d log(N(p, k) μ<sub>k</sub>) / d log k")
    [line] = [it for it in w.getPlotItem().items if isinstance(it, pg.InfiniteLine)]
    line.setValue(-2.0)
    assert figure_problems(w.getPlotItem()) == []

    bars = _shown_plot(qtbot, "distances")
    bar = pg.BarGraphItem(x=np.array([0.0, 1.0, 2.0]), height=np.array([0.2, 0.0, 0.5]), width=0.5)
    bars.addItem(bar)
    bars.getPlotItem().getAxis("bottom").setTicks([[(0, "CKN"), (1, "NTK"), (2, "pixels")]])
    assert any("'NTK' are all of height 0" in p for p in figure_problems(bars.getPlotItem()))
    bar.setOpts(x=np.array([0.0, 2.0]), height=np.array([0.2, 0.5]))
    bars.getPlotItem().getAxis("bottom").setTicks([[(0, "CKN"), (2, "pixels")]])
    assert figure_problems(bars.getPlotItem()) == []

    ticks = _shown_plot(qtbot, "big values")
    ticks.plot([0.0, 13000.0], [0.0, 1.0])
    ticks.getPlotItem().getViewBox().prepareForPaint()  # the range pyqtgraph sets at paint
    axis = ticks.getPlotItem().getAxis("bottom")
    axis.setTicks([[(1000.0 * i, f"{i / 10:.1f}·10⁴") for i in range(1, 14, 4)]])
    got = figure_problems(ticks.getPlotItem())
    assert any("0.1·10⁴" in p and "mantissa" in p for p in got), got
    axis.setTicks([[(6000.0, "5·10⁰"), (6050.0, "6·10⁰")]])
    assert any("overlap" in p for p in figure_problems(ticks.getPlotItem()))
    axis.setTicks(None)
    assert figure_problems(ticks.getPlotItem()) == []

    crowded = _shown_plot(qtbot, "many entries")
    crowded.addLegend()
    for i in range(16):
        crowded.plot([0.0, 1.0], [i, i + 1.0], name=f"a rather long legend entry, number {i} of a crowded figure")
    assert any("legends take" in p for p in layout_problems(crowded.getPlotItem(), 640, 400))
