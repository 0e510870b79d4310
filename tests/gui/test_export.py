"""PNG/SVG/CSV export of plot items, including the SVG workaround for Qt >= 6.11."""
from __future__ import annotations

import csv
import xml.dom.minidom
from xml.etree import ElementTree

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6 import QtGui

from ntkviz.gui import export


@pytest.fixture
def plot(qtbot):
    w = pg.PlotWidget()
    qtbot.addWidget(w)
    w.addLegend()
    x = np.linspace(-1, 1, 101)
    w.plot(x, x**2, pen=pg.mkPen("#0072B2", width=2), name="square")
    w.plot(x, -x, pen=pg.mkPen("#D55E00", width=2), name="minus")
    w.resize(600, 400)
    w.show()
    qtbot.waitExposed(w)
    return w


def _pixels(image: QtGui.QImage) -> np.ndarray:
    return pg.functions.ndarray_from_qimage(image.convertToFormat(QtGui.QImage.Format.Format_RGB32))


def test_png_has_requested_width_and_curve_pixels(plot, tmp_path):
    path = export.export_plot(plot.getPlotItem(), tmp_path / "p.png", width=900)
    image = QtGui.QImage(str(path))
    assert image.width() == 900
    assert image.height() == pytest.approx(900 * 400 / 600, abs=40)
    px = _pixels(image)[..., :3].astype(int)
    # white background, and pixels of the blue curve colour (0, 114, 178) present
    assert (px == 255).all(axis=-1).mean() > 0.5
    blue = (abs(px[..., 0] - 178) < 40) & (abs(px[..., 1] - 114) < 40) & (px[..., 2] < 60)
    assert blue.sum() > 200


def test_png_width_validated(plot):
    with pytest.raises(ValueError, match="width"):
        export.render_image(plot.getPlotItem(), width=3)


def test_svg_parses_and_contains_both_curves(plot, tmp_path):
    path = export.export_plot(plot.getPlotItem(), tmp_path / "p.svg")
    root = ElementTree.parse(path).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    paths = [p.get("d", "") for p in root.iter(ns + "path")]
    polylines = [p.get("points", "") for p in root.iter(ns + "polyline")]
    # each 101-point curve becomes one long path/polyline
    long_items = [d for d in paths + polylines if d.count(",") >= 100]
    assert len(long_items) >= 2
    text = path.read_text()
    assert "square" in text and "minus" in text


def test_close_tokens_stripped_and_restored():
    doc = xml.dom.minidom.parseString(
        '<g><path d="M1,2 L3,4 L5,6 Z M7,8 L9,10 Z"/><path d="M0,0 L1,1"/></g>')
    removed = export._strip_close_tokens(doc)
    p0, p1 = doc.getElementsByTagName("path")
    assert p0.getAttribute("d") == "M1,2 L3,4 L5,6 M7,8 L9,10"
    assert p1.getAttribute("d") == "M0,0 L1,1"
    export._restore_close_tokens(removed)
    assert p0.getAttribute("d") == "M1,2 L3,4 L5,6 Z M7,8 L9,10 Z"


def test_workaround_is_idempotent():
    import importlib

    mod = importlib.import_module("pyqtgraph.exporters.SVGExporter")
    export.install_svg_workaround()
    first = mod.correctCoordinates
    export.install_svg_workaround()
    assert mod.correctCoordinates is first


def test_csv_table_round_trip(tmp_path):
    rows = [[0.1, 1 / 3, "a"], [2.0, np.pi, "b"]]
    path = export.write_csv_table(tmp_path / "t.csv", ["x", "y", "tag"], rows)
    with open(path) as fh:
        got = list(csv.reader(fh))
    assert got[0] == ["x", "y", "tag"]
    assert float(got[1][1]) == 1 / 3 and float(got[2][1]) == np.pi


def test_bad_suffix(plot, tmp_path):
    with pytest.raises(ValueError, match=".png, .svg, .csv"):
        export.export_plot(plot.getPlotItem(), tmp_path / "p.jpg")
