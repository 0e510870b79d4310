"""The one exporter registry: file suffix -> writer (PNG, SVG, PDF, CSV, GIF).

Every export of ntkviz — File → Export… in the app, headless rendering
(:func:`ntkviz.gui.headless.render_panel`, ``ntkviz export``), the gallery —
goes through :func:`export_view` (a panel's view) or :func:`export_plot` (one
plot item), which pick the writer from :data:`WRITERS` by the file's suffix.
Every file is written atomically (:mod:`ntkviz._io`): a failed export never
destroys an existing file.

What an export shows
--------------------
* The figure is laid out again at the size asked for, then painted: a plot is
  never a shrunken or blown-up screenshot. Up to ``LAYOUT_MAX`` logical pixels
  the fonts keep their screen size (a 640×400 PNG is as readable as the
  screen); larger images are drawn at that layout and scaled, so the text of
  axes, titles and legends grows with the image (2400×1500 looks like the
  screen on a HiDPI display). The on-screen figure is restored afterwards.
* Hover markers, crosshairs and selections (items marked with
  :func:`ntkviz.gui.plot_style.mark_transient`) are hidden while exporting.
* No axis shows pyqtgraph's automatic SI scale factor.
* SVG elements come in the order the screen paints them (grid under curves
  under legend).
* PDF is the PNG's drawing on a vector device (``QPdfWriter``): the same layout,
  curves as paths, text as text (selectable, searchable); the page is
  ``width/dpi`` × ``height/dpi`` inches.
* Every PNG, SVG and PDF carries its recipe (:mod:`ntkviz.recipe`): the ntkviz
  version, the tab, the view, all parameters (JSON) and the ``ntkviz export``
  command that writes the figure again — PNG text chunks (``ntkviz-command``,
  ``ntkviz-params``, …), an SVG ``<metadata>`` element, the PDF's document
  information (Subject: the command; Keywords; the same keys as the PNG's).

SVG on Qt >= 6.11: ``QSvgGenerator`` now closes sub-paths with a ``Z`` token,
which pyqtgraph 0.14's path-coordinate parser (``correctCoordinates`` in
``pyqtgraph.exporters.SVGExporter``) cannot read (pyqtgraph issue #3495,
:func:`install_svg_workaround` wraps that function: it
removes the ``Z`` tokens before the original runs and puts them back, at the
same place, afterwards. On older Qt no ``Z`` appears and the wrapper is inert.
"""
from __future__ import annotations

import importlib
import os
import re
import sys
import tempfile
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import pyqtgraph as pg
from pyqtgraph import exporters
from PySide6 import QtCore, QtGui, QtWidgets

from ntkviz import limits
from ntkviz._io import atomic_write, write_csv, write_text_atomic
from ntkviz.recipe import Recipe
from ntkviz.gui.legends import replace_legends
from ntkviz.gui.plot_style import is_transient

__all__ = ["WRITERS", "Writer", "FigureInfo", "writer_for", "export_view", "export_plot",
           "render_image", "svg_string", "write_csv_table", "export_layout", "view_recipe",
           "install_svg_workaround", "file_filter", "export_geometry", "EXPORT_SUFFIXES",
           "LAYOUT_MAX", "copy_figure", "copy_command"]

#: largest logical size (w, h) a figure is laid out at; bigger images are scaled up
LAYOUT_MAX = (1200, 800)
#: allowed image widths and heights (pixels)
SIZE_RANGE = limits.EXPORT_WIDTH_RANGE
_CLOSE = re.compile(r"^[Zz]$")


def _strip_close_tokens(node) -> list[tuple[object, list[int]]]:
    """Remove ``Z``/``z`` tokens from every ``<path d=…>`` under ``node``.

    Returns ``[(path_element, positions)]`` where ``positions`` are the indices of
    the coordinate tokens after which a close token stood."""
    removed = []
    for path in node.getElementsByTagName("path"):
        d = path.getAttribute("d")
        if "Z" not in d and "z" not in d:
            continue
        tokens = d.replace("Z", " Z ").replace("z", " z ").split()
        kept, positions = [], []
        for tok in tokens:
            if _CLOSE.match(tok):
                positions.append(len(kept) - 1)
            else:
                kept.append(tok)
        path.setAttribute("d", " ".join(kept))
        removed.append((path, positions))
    return removed


def _restore_close_tokens(removed) -> None:
    for path, positions in removed:
        tokens = path.getAttribute("d").split()
        for pos in sorted(positions, reverse=True):
            tokens.insert(pos + 1, "Z")
        path.setAttribute("d", " ".join(tokens))


def install_svg_workaround() -> None:
    """Make pyqtgraph's SVG exporter work on Qt >= 6.11 (idempotent)."""
    mod = importlib.import_module("pyqtgraph.exporters.SVGExporter")
    original = mod.correctCoordinates
    if getattr(original, "_ntkviz_patched", False):
        return

    def correct_coordinates(node, defs, item, options):
        removed = _strip_close_tokens(node)
        original(node, defs, item, options)
        _restore_close_tokens(removed)

    correct_coordinates._ntkviz_patched = True
    mod.correctCoordinates = correct_coordinates


def _scene_items(item) -> list:
    """``item`` and all its descendants."""
    out, stack = [], [item]
    while stack:
        it = stack.pop()
        out.append(it)
        stack.extend(it.childItems())
    return out


# ----------------------------------------------------------------- export layout
def _export_size(item, width: int | None, height: int | None) -> tuple[int, int]:
    """Image size in pixels: the on-screen size by default; a missing height keeps
    the on-screen aspect ratio."""
    rect = item.sceneBoundingRect()
    sw, sh = max(rect.width(), 1.0), max(rect.height(), 1.0)
    if width is None and height is None:
        width, height = round(sw), round(sh)
    elif height is None:
        height = round(int(width) * sh / sw)
    elif width is None:
        width = round(int(height) * sw / sh)
    width, height = int(width), int(height)
    lo, hi = SIZE_RANGE
    for name, v in (("width", width), ("height", height)):
        if not lo <= v <= hi:
            raise ValueError(f"{name} must be in [{lo}, {hi}] pixels, got {v}")
    return width, height


def export_geometry(item, width: int | None = None,
                    height: int | None = None) -> tuple[int, int, float]:
    """``(width, height, scale)`` of an export of ``item``: the image size in pixels
    and the image pixels per logical pixel it is laid out with."""
    width, height = _export_size(item, width, height)
    return width, height, _layout_scale(width, height)


def _layout_scale(width: int, height: int) -> float:
    """Image pixels per logical pixel: 1 up to :data:`LAYOUT_MAX`, then growing."""
    return max(1.0, width / LAYOUT_MAX[0], height / LAYOUT_MAX[1])


def _axes(item) -> list:
    return [it for it in _scene_items(item) if isinstance(it, pg.AxisItem)]


def _activate_layouts(item) -> None:
    for it in _scene_items(item):
        if isinstance(it, QtWidgets.QGraphicsWidget):
            lay = QtWidgets.QGraphicsWidget.layout(it)  # PlotItem shadows layout()
            if lay is not None:
                lay.activate()
    app = QtWidgets.QApplication.instance()
    if app is not None:
        app.sendPostedEvents(None, QtCore.QEvent.Type.LayoutRequest)
    for it in _scene_items(item):
        if isinstance(it, pg.ViewBox):
            it.prepareForPaint()  # apply deferred auto-range now


def _fit_axes_to_labels(item) -> None:
    """Give every axis the width (height) its tick labels need at the new size, as a
    window's second paint would: pyqtgraph drops a label that does not fit inside the
    axis and widens the axis only when it draws (a colour bar 13 px wide at 2400×1500
    kept "0" of 0 … 2.5 until then). Measuring the labels once and laying out again
    settles it before anything is rendered or checked."""
    axes = [axis for axis in _axes(item) if axis.isVisible()]
    if not axes:
        return
    with measuring_painter() as painter:
        for axis in axes:
            axis.generateDrawSpecs(painter)  # records the widest label, asks for room
    _activate_layouts(item)


@contextmanager
def measuring_painter():
    """A ``QPainter`` on a tiny scratch image, for measuring text (pyqtgraph's axes lay
    out their tick labels with one)."""
    image = QtGui.QImage(8, 8, QtGui.QImage.Format.Format_ARGB32)
    painter = QtGui.QPainter(image)
    try:
        yield painter
    finally:
        painter.end()


def _others(item) -> list:
    """Items of the scene that are neither ``item``, its ancestors nor its
    descendants (e.g. the other plots of a multi-plot figure)."""
    chain, it = [], item
    while it is not None:
        chain.append(it)
        it = it.parentItem()
    out = []
    for ancestor in chain[1:]:
        out += [c for c in ancestor.childItems() if c not in chain]
    scene = item.scene()
    if scene is not None:
        out += [c for c in scene.items() if c.parentItem() is None and c is not chain[-1]]
    return out


def _leave_grid(item):
    """Take ``item`` (one plot of a multi-plot ``pg.GraphicsLayout``) out of its
    parent's grid for an export, so that the grid does not put it back into its cell
    (a single plot exported alone then fills the whole image). Returns what
    :func:`_return_to_grid` needs (``None``: not in such a grid)."""
    parent = item.parentItem()
    cells = parent.items.get(item) if isinstance(parent, pg.GraphicsLayout) else None
    if not cells:
        return None
    grid = parent.layout
    rows, cols = [r for r, _ in cells], [c for _, c in cells]
    cell = (grid, min(rows), min(cols), max(rows) - min(rows) + 1, max(cols) - min(cols) + 1,
            grid.alignment(item))
    grid.removeItem(item)
    return cell


def _return_to_grid(item, cell) -> None:
    if cell is None:
        return
    grid, row, col, rowspan, colspan, alignment = cell
    grid.addItem(item, row, col, rowspan, colspan)
    if alignment:
        grid.setAlignment(item, alignment)


@contextmanager
def export_layout(item, size: tuple[float, float] | None = None, scale: float = 1.0):
    """Within this block ``item`` is laid out at ``size`` (logical pixels; default:
    as on screen), transient items are hidden and no axis uses an SI scale factor.
    ``scale`` (image pixels per logical pixel): items that ignore the view's
    transformations (legends, text labels) are scaled by it too, and so are the
    widths of curves and lines, so that the figure grows as a whole with the
    image. Items that cache their painting (``QGraphicsItem.cacheMode``) paint afresh.
    Everything is restored afterwards."""
    hidden = [it for it in _scene_items(item) if is_transient(it) and it.isVisible()]
    for it in hidden:
        it.hide()
    no_cache = QtWidgets.QGraphicsItem.CacheMode.NoCache
    cached = [(it, it.cacheMode()) for it in _scene_items(item) if it.cacheMode() != no_cache]
    for it, _ in cached:  # painted afresh: text as text in SVG and PDF, crisp at any size
        it.setCacheMode(no_cache)
    ignores = QtWidgets.QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations
    legends, scaled, pens = [], [], []
    if scale != 1.0:
        for it in _scene_items(item):
            if not it.flags() & ignores:
                continue
            if isinstance(it, pg.LegendItem):  # untransformed parent: the flag is not needed
                it.setFlag(ignores, False)
                legends.append(it)
            else:
                scaled.append((it, it.scale()))
                it.setScale(it.scale() * scale)
        for it in _scene_items(item):  # curve widths are in screen pixels: scale them too
            if isinstance(it, (pg.PlotCurveItem, pg.InfiniteLine)):
                old_pen = it.opts["pen"] if isinstance(it, pg.PlotCurveItem) else it.pen
                if isinstance(old_pen, QtGui.QPen) and old_pen.isCosmetic():
                    wide = QtGui.QPen(old_pen)
                    wide.setWidthF(max(old_pen.widthF(), 1.0) * scale)
                    it.setPen(wide)
                    pens.append((it, old_pen))
    for axis in _axes(item):
        if axis.autoSIPrefix:
            axis.enableAutoSIPrefix(False)
    old = item.geometry() if isinstance(item, QtWidgets.QGraphicsWidget) else None
    cell = None
    if size is not None and old is not None:
        others = [it for it in _others(item) if it.isVisible()]
        for it in others:  # neighbours in a layout: the grown item would cover them
            it.hide()
        hidden += others
        cell = _leave_grid(item)
    try:
        if size is not None and old is not None:
            item.setGeometry(QtCore.QRectF(old.topLeft(), QtCore.QSizeF(*size)))
            _activate_layouts(item)
            _fit_axes_to_labels(item)
            replace_legends(item)
        yield item
    finally:
        if size is not None and old is not None:
            _return_to_grid(item, cell)
            item.setGeometry(old)
            _activate_layouts(item)
            replace_legends(item)
        for it in hidden:
            it.show()
        for it, mode in cached:
            it.setCacheMode(mode)
        for it in legends:
            it.setFlag(ignores, True)
        for it, old_scale in scaled:
            it.setScale(old_scale)
        for it, old_pen in pens:
            it.setPen(old_pen)


# ----------------------------------------------------------------------- writers
def render_image(item, width: int | None = None, height: int | None = None):
    """``item`` (PlotItem / GraphicsLayout) as a ``QImage`` of ``width``×``height``
    pixels (default: the on-screen size; a missing height keeps the on-screen aspect
    ratio), laid out for that size (see the module notes)."""
    width, height = _export_size(item, width, height)
    scale = _layout_scale(width, height)
    with export_layout(item, (width / scale, height / scale), scale):
        exp = exporters.ImageExporter(item)
        exp.params.param("width").setValue(width, blockSignal=exp.widthChanged)
        exp.params.param("height").setValue(height, blockSignal=exp.heightChanged)
        return exp.export(toBytes=True)


@contextmanager
def _screen_stacking(item):
    """Make pyqtgraph's SVG exporter (which orders siblings by z value only) stack
    like the screen: Qt paints children flagged ``ItemStacksBehindParent`` (the
    axes, which draw the grid) before their siblings whatever their z value. Their
    z values are lowered below every sibling for the block, then restored."""
    behind = QtWidgets.QGraphicsItem.GraphicsItemFlag.ItemStacksBehindParent
    moved = []
    for it in _scene_items(item):
        if it is not item and it.flags() & behind:
            siblings = it.parentItem().childItems() if it.parentItem() is not None else []
            floor = min((c.zValue() for c in siblings), default=0.0)
            moved.append((it, it.zValue()))
            it.setZValue(floor - 1e6 + it.zValue())
    try:
        yield
    finally:
        for it, z in moved:
            it.setZValue(z)


def svg_string(item, width: int | None = None, height: int | None = None) -> str:
    """The SVG document of ``item`` (laid out like :func:`render_image`; the
    document's size is ``width``×``height``)."""
    install_svg_workaround()
    width, height = _export_size(item, width, height)
    scale = _layout_scale(width, height)
    with export_layout(item, (width / scale, height / scale)), _screen_stacking(item):
        exp = exporters.SVGExporter(item)
        exp.params.param("width").setValue(width, blockSignal=exp.widthChanged)
        exp.params.param("height").setValue(height, blockSignal=exp.heightChanged)
        return exp.export(toBytes=True).decode("utf-8")


@contextmanager
def _libpng_messages(kept: list):
    """libpng prints its errors (``libpng error: Write Error``) straight to the C
    stderr: while the block runs, file descriptor 2 goes to a temporary file; the
    libpng lines are put in ``kept`` (the caller's one-line error says what went
    wrong), any other line is passed on to stderr."""
    sys.stderr.flush()
    saved_fd = os.dup(2)
    with tempfile.TemporaryFile() as capture:
        os.dup2(capture.fileno(), 2)
        try:
            yield kept
        finally:
            sys.stderr.flush()
            os.dup2(saved_fd, 2)
            os.close(saved_fd)
            capture.seek(0)
            text = capture.read().decode("utf-8", "replace")
    for line in text.splitlines(keepends=True):
        if line.startswith("libpng"):
            kept.append(line.strip().removeprefix("libpng error: "))
        else:
            sys.stderr.write(line)


@dataclass(frozen=True)
class FigureInfo:
    """What a figure file says beside its picture: its resolution (dots per inch: the
    PNG's ``pHYs`` tag, the PDF's page size) and its :class:`~ntkviz.recipe.Recipe`
    (None: a plot exported outside a panel, no recipe)."""

    dpi: int = limits.EXPORT_DPI
    recipe: Recipe | None = None

    def title(self) -> str:
        return self.recipe.title_line() if self.recipe is not None else "ntkviz figure"


def png_image(item, width: int | None = None, height: int | None = None,
              info: FigureInfo = FigureInfo()):
    """The ``QImage`` a PNG export writes: :func:`render_image` with the resolution tag
    and the recipe's text (``QImage.setText``: written as PNG text chunks)."""
    image = render_image(item, width, height)
    dots_per_metre = round(info.dpi / 0.0254)
    image.setDotsPerMeterX(dots_per_metre)
    image.setDotsPerMeterY(dots_per_metre)
    if info.recipe is not None:
        for key, text in info.recipe.text_items().items():
            image.setText(key, text)
    return image


def _write_png(item, path: Path, width, height, info: FigureInfo = FigureInfo()) -> None:
    image = png_image(item, width, height, info)

    def save(tmp: Path) -> None:
        with _libpng_messages([]) as messages:
            saved = image.save(str(tmp), "PNG")
        if not saved:
            why = "; ".join(messages)
            raise OSError(f"{path}: cannot write the PNG image" + (f" ({why})" if why else ""))

    atomic_write(path, save)


def _write_svg(item, path: Path, width, height, info: FigureInfo = FigureInfo()) -> None:
    width, height = _export_size(item, width, height)
    text = svg_string(item, width, height)
    write_text_atomic(path, svg_with_recipe(text, width, height, info))


_SVG_ROOT = re.compile(r"<svg\b[^>]*>")
_SVG_TITLE = re.compile(r"<title>[^<]*</title>\s*(<desc>[^<]*</desc>)?")


def svg_with_recipe(text: str, width: int, height: int, info: FigureInfo) -> str:
    """pyqtgraph's SVG document with its size (``width``/``height`` attributes: the
    document's natural size, the viewBox keeps the layout), a title saying what it
    shows and the recipe as ``<metadata>`` (:meth:`ntkviz.recipe.Recipe.svg_metadata`)."""
    from xml.sax.saxutils import escape

    root = _SVG_ROOT.search(text)
    if root is None:
        raise ValueError("the SVG exporter wrote no <svg> element")
    tag = root.group(0)
    if " width=" not in tag:
        tag = tag[:-1].rstrip() + f' width="{width}" height="{height}">'
    head = f"\n<title>{escape(info.title())}</title>"
    if info.recipe is not None:
        head += f"\n<desc>{escape(info.recipe.command)}</desc>\n{info.recipe.svg_metadata()}"
    rest = _SVG_TITLE.sub("", text[root.end():], count=1)
    return text[:root.start()] + tag + head + rest


class _PdfExporter(exporters.ImageExporter):
    """pyqtgraph's image exporter painting on a ``QPdfWriter`` instead of a ``QImage``:
    the same export mode, background and scene rendering, so a PDF is the PNG drawn
    with vectors (paths stay paths, text stays text)."""

    def write(self, writer, width: int, height: int) -> None:
        source = self.getSourceRect()
        painter = QtGui.QPainter()
        if not painter.begin(writer):
            raise OSError("cannot start the PDF document")
        try:
            self.setExportMode(True, {"antialias": True, "background": self.params["background"],
                                      "painter": painter,
                                      "resolutionScale": width / max(source.width(), 1.0)})
            painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, True)
            # images (digits, colour bars) Flate-compressed as in the PNG, not as JPEG
            painter.setRenderHint(QtGui.QPainter.RenderHint.LosslessImageRendering, True)
            target = QtCore.QRectF(0, 0, width, height)
            painter.fillRect(target, self.params["background"])
            self.getScene().render(painter, target, QtCore.QRectF(source))
        finally:
            self.setExportMode(False)
            painter.end()


def _write_pdf(item, path: Path, width, height, info: FigureInfo = FigureInfo()) -> None:
    """One PDF page of ``width/dpi`` × ``height/dpi`` inches: the figure laid out and
    scaled exactly as the PNG of ``width`` × ``height`` pixels (one device pixel of the
    PDF is one pixel of the PNG), drawn with vectors; the recipe goes into the document
    information (:func:`ntkviz.recipe.add_pdf_info`)."""
    from ntkviz.recipe import add_pdf_info

    width, height = _export_size(item, width, height)
    scale = _layout_scale(width, height)
    dpi = int(info.dpi)

    def write(tmp: Path) -> None:
        with export_layout(item, (width / scale, height / scale), scale):
            writer = QtGui.QPdfWriter(str(tmp))
            writer.setResolution(dpi)
            writer.setPageMargins(QtCore.QMarginsF(0, 0, 0, 0))
            writer.setPageSize(QtGui.QPageSize(QtCore.QSizeF(width * 72.0 / dpi,
                                                             height * 72.0 / dpi),
                                               QtGui.QPageSize.Unit.Point))
            writer.setTitle(info.title())
            from ntkviz import __version__

            writer.setCreator(f"ntkviz {__version__}")
            _PdfExporter(item).write(writer, width, height)
            del writer  # closes the file
        if info.recipe is not None:
            add_pdf_info(tmp, info.recipe)

    atomic_write(path, write)


def _write_gif(panel, view: str, path: Path, width, height) -> None:
    """An animated GIF of ``view``: the panel yields the frames
    (``panel.animation_frames(view, width, height)`` -> iterable of ``QImage``) and
    gives the frame time (``panel.frame_ms``, default 66 ms)."""
    frames_of = getattr(panel, "animation_frames", None)
    if frames_of is None:
        raise ValueError(f"{path.name}: {panel.title} has no animation; "
                         f"export it as .png, .svg or .csv")
    from PIL import Image

    frames = []
    for qimage in frames_of(view, width, height):
        # keep the converted image referenced while its pixels are copied: the array is
        # only a view of its memory (a temporary would be freed before .copy() reads it)
        converted = qimage.convertToFormat(qimage.Format.Format_RGBA8888)
        rgba = pg.functions.ndarray_from_qimage(converted).copy()
        del converted
        frames.append(Image.fromarray(rgba, "RGBA").convert("RGB"))
    if not frames:
        raise ValueError(f"{path.name}: nothing to animate yet")
    duration = int(getattr(panel, "frame_ms", 66))
    atomic_write(path, lambda tmp: frames[0].save(tmp, format="GIF", save_all=True,
                                                  append_images=frames[1:], duration=duration,
                                                  loop=0))


@dataclass(frozen=True)
class Writer:
    """How one file type is written.

    ``plot``: ``plot(item, path, width, height, info)`` writes one plot item (PNG,
    SVG, PDF; ``info`` a :class:`FigureInfo`); ``panel``: ``panel(panel, view, path,
    width, height)`` writes a panel's view (every format; for image formats it exports
    ``panel.plot_items()[view]`` with the view's recipe)."""

    suffix: str
    description: str
    plot: Callable | None = None
    panel: Callable | None = None

    def write_view(self, panel, view: str, path: Path, width, height,
                   dpi: int | None = None) -> None:
        exporting = getattr(panel, "exporting", None)
        with exporting(view, width, height) if exporting is not None else nullcontext():
            if self.panel is not None:
                self.panel(panel, view, path, width, height)
            else:
                item = panel.plot_items()[view]
                width, height = _export_size(item, width, height)
                dpi = limits.EXPORT_DPI if dpi is None else int(dpi)
                recipe = view_recipe(panel, view, path.name, width, height, dpi)
                self.plot(item, path, width, height, FigureInfo(dpi, recipe))


def _write_csv_view(panel, view: str, path: Path, width, height) -> None:
    header, rows = panel.csv_table(view)
    write_csv(path, header, rows)


#: suffix -> writer: the one table of export formats (dialog filters are built from it)
WRITERS: dict[str, Writer] = {w.suffix: w for w in (
    Writer(".png", "PNG image", plot=_write_png),
    Writer(".svg", "SVG vector image", plot=_write_svg),
    Writer(".pdf", "PDF vector document", plot=_write_pdf),
    Writer(".csv", "CSV data (the plotted values)", panel=_write_csv_view),
    Writer(".gif", "GIF animation", panel=_write_gif),
)}
EXPORT_SUFFIXES = tuple(WRITERS)


def writer_for(path) -> Writer:
    """The writer for ``path``'s suffix (``ValueError`` naming the file otherwise)."""
    path = Path(path)
    writer = WRITERS.get(path.suffix.lower())
    if writer is None:
        raise ValueError(f"{path.name}: the file name must end in one of "
                         f"{', '.join(WRITERS)}")
    return writer


def file_filter(suffixes: Sequence[str] = EXPORT_SUFFIXES) -> str:
    """A ``QFileDialog`` filter for ``suffixes`` (one entry each)."""
    return ";;".join(f"{WRITERS[s].description} (*{s})" for s in suffixes)


def export_view(panel, view: str | None, path, width: int | None = None,
                height: int | None = None, dpi: int | None = None) -> Path:
    """Write ``view`` (default: the first) of ``panel`` to ``path``; the format comes
    from the suffix (:data:`WRITERS`), images are ``width`` × ``height`` pixels
    (default: the on-screen size; one given: the on-screen aspect ratio) at ``dpi`` and
    carry the view's recipe (:func:`view_recipe`). A panel whose plots show no result of
    its current parameters is refused (``ValueError``: what the plots say instead)."""
    path = Path(path)
    writer = writer_for(path)
    view = _checked_view(panel, view)
    writer.write_view(panel, view, path, width, height, dpi)
    return path


def _checked_view(panel, view: str | None) -> str:
    """``view`` (default: the first) of a panel that shows a result of its parameters."""
    check = getattr(panel, "check_current", None)
    if check is not None:
        check()
    items = panel.plot_items()
    view = view or next(iter(items))
    if view not in items:
        raise ValueError(f"view must be one of {', '.join(items)}; got {view!r}")
    return view


def view_recipe(panel, view: str, out: str, width: int | None = None,
                height: int | None = None, dpi: int | None = None) -> Recipe | None:
    """The :class:`~ntkviz.recipe.Recipe` of ``view`` of ``panel`` written to the file
    named ``out``: its parameters and the ``ntkviz export`` command that writes the same
    figure (None for a panel that no declared panel spec names)."""
    from ntkviz import panels
    from ntkviz.recipe import recipe_for

    spec = getattr(panel, "spec", None)
    model = getattr(panel, "model", None)
    if spec is None or model is None or spec not in panels.specs():
        return None
    return recipe_for(spec.key, model.params, view, out, width, height, dpi)


def export_plot(item, path, width: int | None = None, height: int | None = None,
                dpi: int | None = None) -> Path:
    """Write one plot ``item`` to ``path`` (``.png`` at ``width``×``height`` pixels,
    ``.svg`` or ``.pdf``; no recipe: the item alone does not say its parameters)."""
    path = Path(path)
    writer = writer_for(path)
    if writer.plot is None:
        raise ValueError(f"{path.name}: a single plot exports to "
                         f"{', '.join(s for s, w in WRITERS.items() if w.plot)}")
    writer.plot(item, path, width, height,
                FigureInfo(limits.EXPORT_DPI if dpi is None else int(dpi)))
    return path


# --------------------------------------------------------------------- clipboard
def copy_figure(panel, view: str | None = None, width: int | None = None,
                height: int | None = None) -> Recipe | None:
    """Put ``view`` of ``panel`` on the clipboard as an image (a PNG with its recipe, and
    the plain image for programs that take no PNG) of ``width`` × ``height`` pixels
    (default: the view's export size); returns the recipe. Refused like
    :func:`export_view` when the plots show no result of the current parameters."""
    view = _checked_view(panel, view)
    declared = next((v for v in getattr(getattr(panel, "model", None), "views", ())
                     if v.name == view), None)
    if declared is not None and width is None and height is None:
        width, height = declared.export_size()
    exporting = getattr(panel, "exporting", None)
    with exporting(view, width, height) if exporting is not None else nullcontext():
        item = panel.plot_items()[view]
        width, height = _export_size(item, width, height)
        recipe = view_recipe(panel, view, f"{panel.key}.png", width, height)
        image = png_image(item, width, height, FigureInfo(recipe=recipe))
    data = QtCore.QByteArray()
    buffer = QtCore.QBuffer(data)
    buffer.open(QtCore.QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    buffer.close()
    mime = QtCore.QMimeData()
    mime.setImageData(image)
    mime.setData("image/png", data)
    QtWidgets.QApplication.clipboard().setMimeData(mime)
    return recipe


def copy_command(panel, view: str | None = None, out: str | None = None) -> str:
    """Put the ``ntkviz export`` command of ``view`` (default: the model's default view)
    of ``panel``'s current parameters on the clipboard (as text); returns it. The
    command writes ``out`` (default ``<panel>.png``) at the view's export size."""
    from ntkviz.cli._export import default_view
    from ntkviz.recipe import command_for

    model = panel.model
    view = view or default_view(model)
    command = command_for(panel.spec.key, model.params, view, out or f"{panel.key}.png")
    QtWidgets.QApplication.clipboard().setText(command)
    return command


def write_csv_table(path, header: Sequence[str], rows) -> Path:
    """Write ``header`` and ``rows`` as CSV (floats in full precision), atomically."""
    return write_csv(Path(path), header, rows)
