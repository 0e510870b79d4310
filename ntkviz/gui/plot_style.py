"""The look of every ntkviz plot: palette, pens, axes, titles, empty states.

* :data:`PALETTE`, :func:`pen` — colour-blind-safe colours, HiDPI-aware cosmetic pens.
* :class:`DecadeLogAxis` — tick labels in one style (:mod:`ntkviz.gui.ticks`), never a
  scale factor, no overlapping labels, no ticks on an empty view; :func:`use_angle_axis`
  labels an angle axis in multiples of π.
* :func:`make_plot` — a white pyqtgraph plot with labelled axes, grid and legend, which
  says ``computing…`` (:class:`EmptyNote`) until it has data.
* :func:`declare_quantity` — what a plot shows (the gallery checks its title against it).
* :func:`mark_transient` — hover markers and selections that exports leave out.

Legends are :mod:`ntkviz.gui.legends`; inputs are :mod:`ntkviz.gui.controls`.
"""
from __future__ import annotations

import html
import math
import re

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from ntkviz.gui.ticks import angle_ticks, linear_tick_strings, log_tick_strings

__all__ = ["PALETTE", "pen", "DecadeLogAxis", "make_plot", "grid_below", "set_item_name",
           "set_label", "set_title", "settle", "style_legend", "LegendSample",
           "SmallLegendSample", "mark_transient", "is_transient", "has_data",
           "EmptyNote", "empty_note", "use_angle_axis", "use_tick_style", "declare_quantity",
           "declared_quantity", "plain_text", "without_overlaps"]

#: colour-blind-safe palette (Okabe–Ito) for curves, in order
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000",
           "#F0E442")
_TRANSIENT = 0x4E54  # QGraphicsItem.data() key marking hover/selection items


def pen(color, width: float = 2.0, style=QtCore.Qt.PenStyle.SolidLine):
    """A cosmetic pen: ``color`` is a palette index (wraps around) or any pyqtgraph
    colour. ``width`` is in logical pixels: it is multiplied by the screen's device
    pixel ratio, since cosmetic pens count device pixels (HiDPI screens)."""
    if isinstance(color, int):
        color = PALETTE[color % len(PALETTE)]
    app = QtGui.QGuiApplication.instance()
    ratio = app.devicePixelRatio() if app is not None else 1.0
    return pg.mkPen(color, width=width * ratio, style=style)


# ---------------------------------------------------------------- transient items
def mark_transient(item) -> None:
    """Mark a hover marker, crosshair or selection ``item``: exports hide it."""
    QtWidgets.QGraphicsItem.setData(item, _TRANSIENT, True)  # PlotDataItem overrides setData


def is_transient(item) -> bool:
    return bool(QtWidgets.QGraphicsItem.data(item, _TRANSIENT))


# ------------------------------------------------------------------- empty views
def _holds_data(item) -> bool:
    """``item`` (added to a view box) draws data: points of a curve or scatter, bars,
    an image (or a colour bar's pixmap). Guide lines, notes, bands and error bars alone
    are not data."""
    if isinstance(item, pg.ImageItem):
        return item.image is not None
    if isinstance(item, QtWidgets.QGraphicsPixmapItem):  # e.g. the bar of a colour bar
        return not item.pixmap().isNull()
    if isinstance(item, pg.BarGraphItem):
        height = item.opts.get("height")
        return height is not None and np.size(height) > 0
    if isinstance(item, (pg.InfiniteLine, pg.TextItem, pg.FillBetweenItem, pg.ErrorBarItem)):
        return False
    if hasattr(item, "getData"):
        x, y = item.getData()
        return x is not None and y is not None and len(x) > 0
    x = getattr(item, "xData", None)
    return x is not None and len(x) > 0


def has_data(view_box) -> bool:
    """The view box shows data (see :func:`_holds_data`; hidden and transient items,
    such as a hover marker, do not count)."""
    return any(it.isVisible() and not is_transient(it) and _holds_data(it)
               for it in view_box.addedItems)


class EmptyNote(pg.GraphicsObject):
    """A note centred in a view box, drawn while the view has no data (``computing…``
    before the first result, or why nothing is drawn). It paints its text itself and
    checks for data when it paints, so an export shows it only over an empty view; on
    screen it also follows the data before every repaint of the scene (a newly drawn curve
    hides it at once)."""

    def __init__(self, view_box, text: str = ""):
        super().__init__()
        self._view = view_box
        self._text = text
        self._scene = None
        self.setParentItem(view_box)
        self.setZValue(1000)
        view_box.sigResized.connect(self._resized)

    def text(self) -> str:
        return self._text

    def set_text(self, text: str) -> None:
        if text != self._text:
            self._text = text
            self.update()
        self.refresh()

    def _resized(self, *_) -> None:
        self.prepareGeometryChange()

    def boundingRect(self) -> QtCore.QRectF:  # noqa: N802 - Qt API
        return self._view.boundingRect()

    def shown(self) -> bool:
        """The note is drawn: it has a text and its view no data."""
        return bool(self._text) and not has_data(self._view)

    def refresh(self) -> None:
        """Show the note when its view has no data (and it has a text)."""
        if self.scene() is not self._scene:  # follow the scene's repaints
            self._scene = self.scene()
            if self._scene is not None and hasattr(self._scene, "sigPrepareForPaint"):
                self._scene.sigPrepareForPaint.connect(self.refresh)
        show = self.shown()
        if show != self.isVisible():
            self.setVisible(show)

    def itemChange(self, change, value):  # noqa: N802 - Qt API
        out = super().itemChange(change, value)
        if change == self.GraphicsItemChange.ItemSceneHasChanged:
            self.refresh()
        return out

    def paint(self, p, *args):
        if not self.shown():
            return
        p.setPen(pg.mkPen("#555555"))
        p.drawText(self.boundingRect(), QtCore.Qt.AlignmentFlag.AlignCenter, self._text)


def empty_note(plot, text: str | None = None) -> EmptyNote:
    """The :class:`EmptyNote` of ``plot`` (``PlotWidget`` or ``PlotItem``), made on
    first use; ``text`` replaces its text (``""``: an empty view says nothing)."""
    item = getattr(plot, "getPlotItem", lambda: plot)()
    note = getattr(item, "_ntkviz_empty_note", None)
    if note is None:
        note = item._ntkviz_empty_note = EmptyNote(item.getViewBox())
    if text is not None:
        note.set_text(text)
    return note


def without_overlaps(text_specs: list, pad: float = 2.0) -> list:
    """The tick labels ``(rect, flags, text)`` of one axis with those that would overlap
    a label already kept left out: decades (``10ⁿ``) and plain numbers are kept first,
    then the others in order."""
    kept: list = []
    order = sorted(range(len(text_specs)), key=lambda i: ("·" in text_specs[i][2], i))
    for i in order:
        rect = text_specs[i][0].adjusted(-pad, -pad, pad, pad)
        if not any(rect.intersects(text_specs[j][0]) for j in kept):
            kept.append(i)
    return [text_specs[i] for i in sorted(kept)]


# ------------------------------------------------------------------------- axes
class DecadeLogAxis(pg.AxisItem):
    """An axis whose log mode labels only the decades (and 2, 5 when fewer than two
    decades are visible); the minor ticks stay, unlabelled. Linear ticks read as
    :func:`ntkviz.gui.ticks.linear_tick_strings` writes them.

    An axis of a view that shows no data (nothing computed yet, or nothing to show)
    draws no ticks, no labels and no grid: an empty plot shows no arbitrary range.
    Labels that would overlap a neighbour are left out (decades and plain numbers
    are kept first), so a short axis never prints ``5·10⁰6·10⁰``.

    Grid lines are drawn with opaque pens whose colour is pyqtgraph's faded
    (semi-transparent) grid colour composited over the plot background (lines that
    several tick levels draw at the same place composited together): the same
    pixels, but blending long translucent lines made up to three quarters of a
    plot's repaint (~15 ms on a log axis)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.enableAutoSIPrefix(False)  # ticks are true values: never "(x1e+27)"

    def enableAutoSIPrefix(self, enable: bool = True) -> None:  # noqa: N802 - pyqtgraph API
        """Refused: an ntkviz axis never shows a scale factor (ticks are true values)."""
        super().enableAutoSIPrefix(False)

    def boundingRect(self):  # noqa: N802 - Qt API
        """As pyqtgraph's, but with a grid the tick labels keep their allowance to
        extend past the axis ends (pyqtgraph drops it, and so the label of a tick
        near the top, e.g. 10⁰)."""
        rect = super().boundingRect()
        if self.grid is not False and self.linkedView() is not None:
            grid, self.grid = self.grid, False
            try:
                rect = rect | super().boundingRect()
            finally:
                self.grid = grid
        return rect

    def tickValues(self, minVal, maxVal, size):  # noqa: N802 - pyqtgraph API
        view = self.linkedView()
        if view is not None and not has_data(view):
            return []
        return super().tickValues(minVal, maxVal, size)

    def tickSpacing(self, minVal, maxVal, size):  # noqa: N802 - pyqtgraph API
        """As pyqtgraph's, but a log axis's labelled (major) ticks are at most as far
        apart as leaves three of them in view (e.g. every 2 decades, not every 5)."""
        levels = super().tickSpacing(minVal, maxVal, size)
        if not self.logMode or not levels or self._tickLevels is not None:
            return levels
        major = levels[0][0]

        def count(step):
            return math.floor(maxVal / step + 1e-9) - math.ceil(minVal / step - 1e-9) + 1

        if major > 1 and count(major) < 3:
            for step in (10, 5, 2, 1):
                if step < major and count(step) >= 3:
                    levels = [(float(step), 0.0)] + [lv for lv in levels[1:] if lv[0] < step]
                    break
        return levels

    def tickStrings(self, values, scale, spacing):  # noqa: N802 - pyqtgraph API
        if self.logMode:
            return self.logTickStrings(values, scale, spacing)
        return linear_tick_strings([v * scale for v in values], spacing * scale)

    def generateDrawSpecs(self, p):  # noqa: N802 - pyqtgraph API
        specs = super().generateDrawSpecs(p)
        if specs is None:
            return specs
        specs = (specs[0], specs[1], without_overlaps(specs[2]))
        if self.grid is False:
            return specs
        try:
            bg = pg.mkColor(pg.getConfigOption("background"))
        except (TypeError, ValueError):  # no colour (transparent background)
            return specs
        if bg.alpha() < 255:
            return specs
        axis_spec, tick_specs, text_specs = specs
        solid = QtCore.Qt.BrushStyle.SolidPattern
        pens: dict = {}  # id(pen) -> (pen, alpha); pyqtgraph shares one pen per tick level
        lines: dict = {}  # (x1, y1, x2, y2, width) -> [pen, 1 - composite alpha, p1, p2]
        for tick_pen, p1, p2 in tick_specs:
            level = pens.get(id(tick_pen))
            if level is None:
                if tick_pen.brush().style() != solid:
                    return specs
                level = pens[id(tick_pen)] = (tick_pen, tick_pen.color().alphaF())
            entry = lines.setdefault((p1.x(), p1.y(), p2.x(), p2.y(), tick_pen.widthF()),
                                     [tick_pen, 1.0, p1, p2])
            entry[1] *= 1.0 - level[1]
        opaque: dict = {}
        ticks = []
        for (*_, width), (tick_pen, clear, p1, p2) in lines.items():
            c, a = tick_pen.color(), 1.0 - clear
            rgb = (round(a * c.red() + clear * bg.red()), round(a * c.green() + clear * bg.green()),
                   round(a * c.blue() + clear * bg.blue()))
            pen_ = opaque.get((rgb, width))
            if pen_ is None:
                pen_ = opaque[(rgb, width)] = QtGui.QPen(tick_pen)
                pen_.setColor(QtGui.QColor(*rgb))
            ticks.append((pen_, p1, p2))
        return axis_spec, ticks, text_specs

    def logTickStrings(self, values, scale, spacing):  # noqa: N802 - pyqtgraph API
        """Labels ``10ⁿ`` (and ``2·10ⁿ``, ``5·10ⁿ`` when fewer than three decades are
        visible; every minor tick when fewer than three of those are): at least three
        labelled ticks whenever pyqtgraph offers three."""
        strings = log_tick_strings(values)
        frac = [float(v) - math.floor(float(v) + 1e-9) for v in values]
        for allowed in ((0.0,), (0.0, math.log10(2), math.log10(5))):
            keep = [any(abs(f - a) < 1e-6 or abs(f - 1 - a) < 1e-6 for a in allowed)
                    for f in frac]
            if sum(keep) >= 3:
                return [t if k else "" for t, k in zip(strings, keep)]
        return strings



def make_plot(title: str = "", xlabel: str = "", ylabel: str = "", *, xunits: str | None = None,
              yunits: str | None = None, legend: bool = True, log_x: bool = False,
              log_y: bool = False, legend_offset: tuple = (-10, 10),
              empty_text: str = "computing…") -> pg.PlotWidget:
    """A ``PlotWidget`` with labelled axes (symbols in the text, HTML allowed), a light
    grid and a legend (``legend_offset``: pyqtgraph convention, negative = from the
    right/bottom). Log axes label only the decades. Until it has data the plot shows
    no ticks and says ``empty_text`` (:class:`EmptyNote`)."""
    w = pg.PlotWidget(axisItems={"bottom": DecadeLogAxis("bottom"),
                                 "left": DecadeLogAxis("left")})
    item = w.getPlotItem()
    if title:
        item.setTitle(title)
    item.setLabel("bottom", xlabel, units=xunits)
    item.setLabel("left", ylabel, units=yunits)
    # an opaque light grid: semi-transparent grid lines cost ~half of a repaint
    item.showGrid(x=True, y=True, alpha=1.0)
    for name in ("left", "bottom"):
        axis = item.getAxis(name)
        axis.setTickPen(pg.mkPen("#e4e4e4"))
        axis.setTextPen(pg.mkPen("k"))
        axis.setPen(pg.mkPen("k"))
    grid_below(item)
    item.setLogMode(x=log_x, y=log_y)
    item.layout.setContentsMargins(4, 4, 10, 8)  # room for the axis titles' descenders
    if legend:
        style_legend(item.addLegend(offset=legend_offset, labelTextSize="9pt"))
    empty_note(item, empty_text)
    return w


def grid_below(plot) -> None:
    """Draw the grid of ``plot`` (``PlotWidget`` or ``PlotItem``) under the curves and
    the legend, on screen and in SVG: its left and bottom axes (which draw the grid)
    stack behind the plot area."""
    item = getattr(plot, "getPlotItem", lambda: plot)()
    for name in ("left", "bottom"):
        axis = item.getAxis(name)
        axis.setZValue(-1)
        axis.setFlag(axis.GraphicsItemFlag.ItemStacksBehindParent, True)


def set_item_name(plot, item, name: str) -> None:
    """Rename a ``PlotDataItem`` already in ``plot`` (a ``PlotWidget`` or ``PlotItem``)
    and its legend entry in place: cheaper than removing and re-adding it, and the
    legend keeps its order."""
    if item.name() == name:
        return
    item.opts["name"] = name
    legend = getattr(plot, "getPlotItem", lambda: plot)().legend
    label = legend.getLabel(item) if legend is not None else None
    if label is not None:
        label.setText(name)


def settle(*plots) -> None:
    """Apply the auto-range and view-transform updates that pyqtgraph defers to the
    next paint, now: done during the paint they change the axes and the layout and
    so schedule another full repaint (about half the repaints while a slider moves).
    The ranges are the same either way. ``plots``: ``PlotWidget`` or ``PlotItem``."""
    for plot in plots:
        getattr(plot, "getPlotItem", lambda p=plot: p)().getViewBox().prepareForPaint()


def set_label(plot_item: pg.PlotItem, axis: str, text: str) -> None:
    """``plot_item.setLabel(axis, text)`` unless the axis already shows ``text``
    (setting a label re-lays the plot out, even to the same text)."""
    if plot_item.getAxis(axis).labelText != text:
        plot_item.setLabel(axis, text)


def set_title(plot_item: pg.PlotItem, text: str) -> None:
    """``plot_item.setTitle(text)`` unless it is already the title."""
    if plot_item.titleLabel.text != text or not plot_item.titleLabel.isVisible():
        plot_item.setTitle(text)


class LegendSample(pg.ItemSample):
    """A legend sample drawn from the plotted item's own options: the curve's pen, its
    symbol with its symbol pen and brush, a bar's brush. (pyqtgraph draws the symbol
    with the options of the curve's scatter, which are pyqtgraph's grey defaults until
    the curve first holds data: a legend made before the first result showed grey
    markers.)"""

    def paint(self, p, *args):
        item = self.item
        if not item.isVisible() or not isinstance(item, (pg.PlotDataItem, pg.BarGraphItem)):
            super().paint(p, *args)
            return
        opts = item.opts
        if opts.get("antialias"):
            p.setRenderHint(p.RenderHint.Antialiasing)
        if isinstance(item, pg.BarGraphItem):
            p.setPen(pg.mkPen(opts.get("pen")))
            p.setBrush(pg.mkBrush(opts.get("brush")))
            p.drawRect(QtCore.QRectF(2, 2, 16, 16))
            return
        if opts.get("pen") is not None:
            p.setPen(pg.mkPen(opts["pen"]))
            p.drawLine(0, 11, 20, 11)
        symbol = opts.get("symbol")
        if symbol is not None:
            from pyqtgraph.graphicsItems.ScatterPlotItem import drawSymbol

            p.translate(10, 10)
            drawSymbol(p, symbol, opts.get("symbolSize", 10), pg.mkPen(opts.get("symbolPen")),
                       pg.mkBrush(opts.get("symbolBrush")))


class SmallLegendSample(LegendSample):
    """A :class:`LegendSample` at 0.7 of the size (14 px rows: a legend of a small figure)."""

    SIDE = 14

    def __init__(self, item):
        super().__init__(item)
        self.setFixedWidth(self.SIDE)
        self.setFixedHeight(self.SIDE)

    def boundingRect(self):  # noqa: N802 - Qt API
        return QtCore.QRectF(0, 0, self.SIDE, self.SIDE)

    def paint(self, p, *args):
        p.scale(self.SIDE / 20.0, self.SIDE / 20.0)
        super().paint(p, *args)


def style_legend(legend) -> object:
    """An opaque white legend box with a thin frame (data under it stays readable
    only if it is not under it: see :func:`ntkviz.gui.legends.place_legend`), whose
    samples show the items' own colours (:class:`LegendSample`; set before entries are
    added)."""
    legend.setBrush(pg.mkBrush(255, 255, 255, 235))
    legend.setPen(pg.mkPen("#b0b0b0"))
    legend.sampleType = LegendSample
    return legend



def use_tick_style(axis) -> None:
    """Give an axis made by pyqtgraph itself (a colour bar's) the tick text of every
    ntkviz axis (:func:`ntkviz.gui.ticks.linear_tick_strings`: ``0.0005`` reads ``5·10⁻⁴``)."""
    axis.enableAutoSIPrefix(False)
    axis.tickStrings = lambda values, scale, spacing: linear_tick_strings(
        [v * scale for v in values], spacing * scale)


def use_angle_axis(plot, lo: float, hi: float, side: str = "bottom") -> None:
    """Label the ``side`` axis of ``plot`` as an angle in radians over ``[lo, hi]``: ticks
    at multiples of π (and π/2, π/4 between: :func:`ntkviz.gui.ticks.angle_ticks`),
    the one angle style of every view."""
    item = getattr(plot, "getPlotItem", lambda: plot)()
    item.getAxis(side).setTicks(angle_ticks(lo, hi))


# ------------------------------------------------------------ declared quantity
#: the characters Unicode has as subscripts, and those subscripts
_SUB_FROM, _SUB_TO = "0123456789+-=()aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ"
_SUB = str.maketrans(_SUB_FROM, _SUB_TO)
_SUP = str.maketrans("0123456789+-−=()n", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ⁿ")


def plain_text(text: str) -> str:
    """The text of a title or label as read: HTML tags dropped, ``<sub>k</sub>`` as
    ``ₖ`` and ``<sup>2</sup>`` as ``²`` (where Unicode has the character), entities
    decoded, runs of spaces as one."""
    def sub(m):
        inner = m.group(1)
        return inner.translate(_SUB) if all(c in _SUB_FROM for c in inner) else inner

    text = re.sub(r"<sub>(.*?)</sub>", sub, text or "")
    text = re.sub(r"<sup>(.*?)</sup>", lambda m: m.group(1).translate(_SUP), text)
    text = html.unescape(re.sub(r"<[^>]+>", "", text))
    return re.sub(r"\s+", " ", text).strip()


def declare_quantity(plot, quantity: str, levels=None) -> None:
    """Say what ``plot`` draws: ``quantity`` (plain text, e.g. ``"N(p, k) μₖ"``) is what
    its title or an axis title names, ``levels`` the values of its horizontal guide lines
    (``None``: none declared). The gallery checks the figure against it: a title that
    names another quantity than the curves, or guides of another quantity, is a problem."""
    item = getattr(plot, "getPlotItem", lambda: plot)()
    item._ntkviz_quantity = (str(quantity), None if levels is None else
                             tuple(sorted(float(v) for v in levels)))


def declared_quantity(plot) -> tuple[str, tuple | None] | None:
    """``(quantity, levels)`` declared by :func:`declare_quantity`, or ``None``."""
    item = getattr(plot, "getPlotItem", lambda: plot)()
    return getattr(item, "_ntkviz_quantity", None)
