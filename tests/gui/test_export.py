"""PNG/SVG/PDF/CSV export of plot items, including the SVG workaround for Qt >= 6.11; the
recipe every figure of a panel carries; PDF against the PNG of the same export."""
from __future__ import annotations

import csv
import json
import re
import shutil
import subprocess
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
    with pytest.raises(ValueError, match=".png, .svg, .pdf, .csv"):
        export.export_plot(plot.getPlotItem(), tmp_path / "p.jpg")


# ------------------------------------------------------------ registry and figures
def test_registry_has_one_writer_per_suffix():
    assert set(export.WRITERS) == {".png", ".svg", ".pdf", ".csv", ".gif"}
    assert export.writer_for("a/B.PNG") is export.WRITERS[".png"]
    with pytest.raises(ValueError, match=r"x\.jpg: .*one of \.png, \.svg, \.pdf, \.csv, \.gif"):
        export.writer_for("x.jpg")
    assert export.file_filter().count("(*.") == 5


def test_failed_write_keeps_the_existing_file(plot, tmp_path, monkeypatch):
    target = tmp_path / "p.svg"
    target.write_text("previous")

    def broken(item, width=None, height=None):
        raise OSError("disk full")

    monkeypatch.setattr(export, "svg_string", broken)
    with pytest.raises(OSError):
        export.export_plot(plot.getPlotItem(), target)
    assert target.read_text() == "previous"
    assert [p.name for p in tmp_path.iterdir()] == ["p.svg"]  # no fragment left


def _make(qtbot, **kw):
    from ntkviz.gui.plot_style import make_plot

    w = make_plot("title", "x label", "y label", **kw)
    qtbot.addWidget(w)
    return w


def test_hover_marker_never_in_exports(qtbot, tmp_path):
    """Hover a curve, export: the marker is absent from PNG and SVG, and back after."""
    from PySide6 import QtWidgets

    from ntkviz.gui.hover import CurveHover

    w = _make(qtbot)
    x = np.linspace(0, 1, 50)
    w.plot(x, x, pen=pg.mkPen("#0072B2", width=2), name="line")
    label = QtWidgets.QLabel()
    hover = CurveHover(w.getPlotItem(), label)
    w.resize(600, 400)
    w.show()
    qtbot.waitExposed(w)
    vb = w.getPlotItem().getViewBox()
    hover._on_moved([vb.mapViewToScene(pg.Point(0.5, 0.5))])
    assert "line" in label.text() and hover.marker.isVisible() and len(hover.marker.data) == 1

    def marker_pixels(image):
        px = _pixels(image)[..., :3].astype(int)
        return int(((px < 40).all(axis=-1)).sum())  # the black marker ring

    item = w.getPlotItem()
    with_marker = marker_pixels(QtGui.QImage(w.grab().toImage()))
    hover.marker.hide()
    without = marker_pixels(QtGui.QImage(w.grab().toImage()))
    hover.marker.show()
    assert with_marker > without  # the marker is drawn on screen
    png = export.render_image(item, 600, 400)  # marker visible on screen meanwhile
    hover.marker.hide()
    assert marker_pixels(export.render_image(item, 600, 400)) == marker_pixels(png)
    hover.marker.show()
    svg = export.svg_string(item)
    assert "ScatterPlotItem" not in svg
    assert hover.marker.isVisible()  # restored after the export


def test_svg_grid_before_curves_and_legend(qtbot):
    """In the SVG the grid (axis groups) comes before the curves and the legend."""
    w = _make(qtbot, log_y=True)
    x = np.linspace(1, 100, 40)
    w.plot(x, x ** -2.0, pen=pg.mkPen("r", width=2), name="curve")
    w.resize(600, 400)
    w.show()
    qtbot.waitExposed(w)
    text = export.svg_string(w.getPlotItem())
    root = ElementTree.fromstring(text)
    ns = "{http://www.w3.org/2000/svg}"
    order = [g.get("id", "") for g in root.iter(ns + "g") if g.get("id")]
    axes = [i for i, name in enumerate(order) if "Axis" in name]
    curve = next(i for i, name in enumerate(order) if name.startswith("PlotCurveItem"))
    legend = next(i for i, name in enumerate(order) if name.startswith("LegendItem"))
    assert axes and max(axes) < curve < legend


def test_no_scale_factor_and_true_value_ticks(qtbot):
    """A log axis spanning 10⁻¹¹⁷…10¹³ and a linear axis of 1e-30-sized values
    show no "(x1e…)" factor; the log ticks read 10ⁿ."""
    w = _make(qtbot, log_y=True)
    k = np.arange(1.0, 200.0)
    w.plot(k, 10.0 ** (13 - 130 * (k - 1) / 198), name="decay")
    w.resize(600, 400)
    w.show()
    qtbot.waitExposed(w)
    text = export.svg_string(w.getPlotItem())
    texts = ["".join(t.itertext()) for t in ElementTree.fromstring(text).iter(
        "{http://www.w3.org/2000/svg}text")]
    assert not [t for t in texts if "(x" in t.replace(" ", "")]
    assert any(t.startswith("10") and t[2:3] in "⁰¹²³⁴⁵⁶⁷⁸⁹⁻" for t in texts)
    axis = w.getPlotItem().getAxis("left")
    axis.enableAutoSIPrefix(True)  # refused: ntkviz axes never scale
    assert not axis.autoSIPrefix


def test_text_grows_with_the_export_width(qtbot):
    """At 2400 px the legend and the axis text are as large relative to the image
    as at 1200 px (layout at most 1200 logical px wide, then scaled)."""
    w = _make(qtbot)
    w.getPlotItem().legend.setLabelTextColor("#ff00ff")  # a colour nothing else has
    x = np.linspace(0, 1, 20)
    w.plot(x, x, pen=pg.mkPen("#0072B2", width=2), name="a legend entry")
    w.resize(1000, 600)
    w.show()
    qtbot.waitExposed(w)
    item = w.getPlotItem()


    def legend_text_height(image):
        px = _pixels(image)[..., :3].astype(int)  # BGR
        rows = np.nonzero(((px[..., 2] > 180) & (px[..., 1] < 120) & (px[..., 0] > 180)).any(1))[0]
        return rows.max() - rows.min() + 1

    small = legend_text_height(export.render_image(item, 1200, 720))
    large = legend_text_height(export.render_image(item, 2400, 1440))
    assert small >= 6
    assert large == pytest.approx(2 * small, rel=0.2)


# ---------------------------------------------------------------- the CLI's export path
def test_run_export_csv_needs_no_qt_and_bad_state_is_refused_first(tmp_path):
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from ntkviz.cli._export import run_export\n"
        f"out = run_export({str(tmp_path / 'k.csv')!r}, 'kernel', {{'depth': 4}}, 'curves')\n"
        "try:\n"
        f"    run_export({str(tmp_path / 'bad.png')!r}, 'kernel', {{'depth': 999}}, 'curves')\n"
        "except ValueError as exc:\n"
        "    assert 'depth' in str(exc), exc\n"
        "else:\n"
        "    raise SystemExit('not refused')\n"
        "bad = [m for m in sys.modules if m.startswith(('PySide6', 'pyqtgraph'))]\n"
        "assert not bad, bad\n")
    subprocess.run([sys.executable, "-c", code], check=True)
    with open(tmp_path / "k.csv") as fh:
        rows = list(csv.reader(fh))
    assert rows[0][0] == "u" and len(rows) > 10
    assert not (tmp_path / "bad.png").exists()


def test_run_export_png_is_the_panels_figure(qapp, tmp_path):
    from ntkviz.cli._export import run_export

    out = tmp_path / "k.png"
    response = run_export(out, "kernel", {"depth": 4}, None, 640)
    assert [c.spec.depth for c in response.curves if c.spec.name == "ntk"] == [4]
    image = QtGui.QImage(str(out))
    assert image.width() == 640 and image.height() > 100
    with pytest.raises(ValueError, match="one of"):
        run_export(tmp_path / "k.jpg", "kernel", {}, None)


def test_large_export_scales_line_widths_and_restores_them(qtbot):
    w = _make(qtbot)
    x = np.linspace(0, 1, 20)
    item = w.plot(x, x, pen=pg.mkPen("#0072B2", width=2), name="line")
    w.resize(1000, 600)
    w.show()
    qtbot.waitExposed(w)
    plot = w.getPlotItem()

    def blue_rows(image):  # thickness of a horizontal-ish line: rows hit in one column
        px = _pixels(image)[..., :3].astype(int)
        blue = (abs(px[..., 0] - 178) < 50) & (abs(px[..., 1] - 114) < 50) & (px[..., 2] < 80)
        col = blue[:, blue.shape[1] // 2]
        return int(col.sum())

    item.setData([0, 1], [0.5, 0.5])
    thin, thick = blue_rows(export.render_image(plot, 1200, 720)), blue_rows(
        export.render_image(plot, 2400, 1440))
    assert thin >= 1 and thick >= 2 * thin - 1
    assert item.curve.opts["pen"].widthF() == 2.0  # the screen pen is back


def test_axes_have_room_for_their_labels_in_a_large_export():
    """The deformation view's colour bar (12 px wide on screen) laid out for a 2400×1500
    export is as wide as its labels, so pyqtgraph draws every one of them: it drops a
    label that does not fit inside the axis and widened the axis only on a later paint
    (the layout check saw '0' of 0 … 2.5 while the PNG, painted twice, was right)."""
    from ntkviz.gallery import cases_of
    from ntkviz.gallery._checks import layout_problems
    from ntkviz.gui.headless import build_panel
    from ntkviz.gui.panels.deformation import QtDeformationPanel

    panel = build_panel(QtDeformationPanel, cases_of("deform")["m4_exp"])
    try:
        item = panel.plot_items()["displacement"]
        assert layout_problems(item, 2400, 1500) == []  # every axis: >= 3 labelled ticks
    finally:
        panel.dispatcher.shutdown()
        panel.close()


# ------------------------------------------------------------ recipes and PDF
POPPLER = pytest.mark.skipif(
    shutil.which("pdftoppm") is None or shutil.which("pdfinfo") is None,
    reason="pdftoppm/pdfinfo not installed (Debian package poppler-utils; ./test.sh installs it)")


@pytest.fixture(scope="module")
def built():
    """Panels built offscreen with non-default parameters, by key (closed at the end)."""
    from ntkviz import panels
    from ntkviz.gui.headless import build_panel

    states = {"kernel": {"kernels": ["ntk", "nngp"], "depth": 3, "bias": 0.25},
              "deformation": {"label": 4, "rotation_deg": 12.5},
              "training": {"steps": 200, "frames": 8, "alpha2": 50.0}}
    out = {}

    def get(key):
        if key not in out:
            out[key] = build_panel(panels.view_class(key), states[key], timeout_s=300)
        return out[key]

    yield get
    for panel in out.values():
        panel.dispatcher.shutdown()
        panel.close()


def _pdfinfo(path, *options) -> dict:
    proc = subprocess.run(["pdfinfo", *options, str(path)], capture_output=True, text=True,
                          check=True)
    return {k.strip(): v.strip() for k, _, v in
            (line.partition(":") for line in proc.stdout.splitlines())}


@POPPLER
def test_png_svg_pdf_carry_the_same_recipe(built, tmp_path):
    """Read back by other readers than ntkviz's: Pillow (PNG text chunks, pHYs),
    ElementTree (SVG metadata), poppler's pdfinfo (PDF document information)."""
    from PIL import Image

    from ntkviz import __version__
    from ntkviz.recipe import SVG_NAMESPACE, parse_command, read_recipe

    panel = built("kernel")
    files = {s: export.export_view(panel, "curves", tmp_path / f"k{s}", 640, 400, 150)
             for s in (".png", ".svg", ".pdf")}
    with Image.open(files[".png"]) as im:
        chunks, dpi = dict(im.text), im.info["dpi"]
    assert dpi == pytest.approx((150, 150), abs=0.1)
    root = ElementTree.parse(files[".svg"]).getroot()
    node = root.find(f".//{{{SVG_NAMESPACE}}}recipe")
    svg = {f"ntkviz-{c.tag.rpartition('}')[2]}": c.text for c in node}
    assert (root.get("width"), root.get("height")) == ("640", "400")
    pdf = _pdfinfo(files[".pdf"], "-custom")
    for items, suffix in ((chunks, ".png"), (svg, ".svg"), (pdf, ".pdf")):
        assert items["ntkviz-version"] == __version__ and items["ntkviz-tab"] == "kernel"
        assert items["ntkviz-view"] == "curves"
        assert json.loads(items["ntkviz-params"]) == panel.model.to_session()
        parsed = parse_command(items["ntkviz-command"])
        assert parsed.params == panel.model.params and parsed.out == f"k{suffix}"
        assert (parsed.width, parsed.height, parsed.dpi) == (640, 400, 150)
        assert read_recipe(files[suffix]).command == items["ntkviz-command"]
    assert pdf["Subject"] == pdf["ntkviz-command"] and pdf["Title"].startswith("ntkviz — Kernel")
    assert pdf["Keywords"] == "ntkviz, kernel, curves"


def _raster(pdf, width, height, folder):
    """The PDF rendered by pdftoppm at ``width`` × ``height`` pixels: oversampled and
    area-averaged, as an anti-aliasing screen renderer does (poppler snaps hairlines to
    whole pixels at low resolution: the dense minor grid lines of a log axis then read as
    grey bands that no viewer shows when zoomed)."""
    from PIL import Image

    k = 4 if width <= 1000 else 2
    subprocess.run(["pdftoppm", "-png", "-singlefile", "-scale-to-x", str(k * width),
                    "-scale-to-y", str(k * height), str(pdf), str(folder / "raster")],
                   check=True, timeout=120)
    with Image.open(folder / "raster.png") as im:
        return np.asarray(im.convert("RGB").resize((width, height), Image.BOX), dtype=int)


@POPPLER
@pytest.mark.parametrize("key, view", [("kernel", "curves"), ("deformation", "difference"),
                                       ("training", "figure")])
@pytest.mark.parametrize("size", [(640, 400), (2400, 1500)])
def test_pdf_is_the_png_drawn_with_vectors(built, tmp_path, key, view, size):
    """pdftoppm renders the PDF; rasterised at the PNG's size it matches the PNG (most
    pixels within a few grey levels: anti-aliasing differs along edges); the page is
    width/dpi × height/dpi inches and its text is text (pdftotext finds the title)."""
    from PIL import Image

    panel = built(key)
    w, h = size
    png = export.export_view(panel, view, tmp_path / "f.png", w, h)
    pdf = export.export_view(panel, view, tmp_path / "f.pdf", w, h)
    with Image.open(png) as im:
        expected = np.asarray(im.convert("RGB"), dtype=int)
    got = _raster(pdf, w, h, tmp_path)
    assert got.shape == expected.shape == (h, w, 3)
    close = (np.abs(got - expected).max(axis=2) <= 48).mean()
    assert close >= 0.97, close
    pts = [float(v) for v in _pdfinfo(pdf)["Page size"].split()[0:3:2]]  # "W x H pts"
    assert pts == pytest.approx([w * 72 / 96, h * 72 / 96], abs=1.0)
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True).stdout
    title = panel.plot_items()[view]
    titles = [re.sub(r"<[^>]+>", "", it.titleLabel.text) for it in _scene_plot_items(title)]
    assert any(t and t in text for t in titles), (titles, text[:200])


def _scene_plot_items(item):
    stack, out = [item], []
    while stack:
        it = stack.pop()
        if isinstance(it, pg.PlotItem):
            out.append(it)
        stack.extend(it.childItems())
    return out


def test_png_and_svg_of_a_plot_alone_carry_no_recipe(plot, tmp_path):
    """A plot item alone does not say its parameters: no recipe, but its size and dpi."""
    from PIL import Image

    png = export.export_plot(plot.getPlotItem(), tmp_path / "p.png", 300, 200, dpi=300)
    with Image.open(png) as im:
        assert "ntkviz-command" not in im.text and im.info["dpi"] == pytest.approx((300, 300),
                                                                                   abs=0.1)
    svg = export.export_plot(plot.getPlotItem(), tmp_path / "p.svg", 300, 200)
    assert "ntkviz:recipe" not in svg.read_text()
