"""The eigenvalue-decay figure: μ_k (or N(p, k) μ_k) against k on log–log axes with exact
zeros as rows of triangles below the data and untrusted values as crosses, guide lines C k^a,
and the local-slope view with the guides' exponents.

:class:`SpectrumFigure` draws a :class:`ntkviz.jobs.SpectrumResponse` with the display
options of the panel's parameters; it holds no parameters. Title, curves and guides always
name one quantity (:func:`plotted_quantity`, :func:`slope_quantity`; declared to the
gallery's checks).
"""
from __future__ import annotations

import re
from contextlib import contextmanager

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from ntkviz._text import superscript
from ntkviz.gui.controls import Readout
from ntkviz.gui.hover import CurveHover
from ntkviz.gui.panels._curve_plots import Log10Hover, dash, log_plot
from ntkviz.gui.plot_style import (declare_quantity, pen, set_item_name, set_label, set_title,
                                   settle)

__all__ = ["SpectrumFigure", "DottedCurve", "spaced_dots", "plotted_quantity", "slope_quantity",
           "guide_exponent", "row_gap", "ZERO_ENTRY", "BAD_ENTRY", "DOT_CELL_PX"]

#: legend entries of the markers (one each, whatever the number of kernels)
ZERO_ENTRY = "μₖ = 0 exactly (△)"
BAD_ENTRY = "not trustworthy (×)"
#: at most this many guide lines get a legend entry each; more share one entry
GUIDE_ENTRIES_MAX = 4
#: pixels between two rows of exact-zero markers (the triangles are 8 px)
ROW_PX = 11.0
#: legend order of the plot items' kinds: curves, guides, then the markers
_LEGEND_RANK = {"mu": 0, "slope": 0, "guide": 1, "guides": 1, "zero": 2, "bad": 3}

#: smallest sizes (px) of the eigenvalue and local-slope plots: their titles, axes and
#: legends (the default kernels' and guides' entries in three rows, one for the slopes)
#: uncut, above a plot area of about 100 px; with the controls they fit a 1280×720 window
SPECTRUM_PLOT_MIN, SLOPE_PLOT_MIN = (480, 320), (480, 230)


def dotted_line(i: int) -> dict:
    """Plot options of curve ``i``: a line through dots (:class:`DottedCurve`). The dots'
    pen and brush are ``QPen``/``QBrush`` objects, which pyqtgraph keeps: given ``None``
    or a colour it makes new ones on every ``setData``, so its symbol atlas misses,
    renders the symbol again and grows by one entry per update while a slider moves."""
    return dict(pen=pen(i, 1.5), symbol="o", symbolSize=4, symbolPen=pg.mkPen(None),
                symbolBrush=pg.mkBrush(pen(i).color()))


#: side (px) of the screen cells holding one dot each of a dotted curve
DOT_CELL_PX = 1.0


def spaced_dots(px: np.ndarray, py: np.ndarray, cell: float = DOT_CELL_PX) -> np.ndarray:
    """Indices (increasing) of the points that get a dot: the first point, in data
    order, of every ``cell``×``cell`` square of the screen that holds any (``px``,
    ``py``: screen coordinates); non-finite points get none. A dropped point is
    within √2·``cell`` of a kept one, under the 4 px dot drawn there."""
    ok = np.flatnonzero(np.isfinite(px) & np.isfinite(py))
    if ok.size == 0:
        return ok
    cx = np.floor((px[ok] - px[ok].min()) / cell).astype(np.int64)
    cy = np.floor((py[ok] - py[ok].min()) / cell).astype(np.int64)
    _, first = np.unique(cx * (int(cy.max()) + 1) + cy, return_index=True)
    return ok[np.sort(first)]


class DottedCurve(pg.PlotDataItem):
    """A line through every point with a dot only on :func:`spaced_dots` of them (and
    on the points with the largest x and y), at the view's current scale: in log k the
    dots of a large k max pile up on the same pixels, and setting and painting each of
    them is part of every redraw. The line, the hover read-out (``xData``, ``yData``)
    and the CSV hold every point; the legend sample is unchanged. The dots are placed
    again when the view's scale grows or shrinks by more than ``RESCALE`` (zoom,
    resize, export at another size)."""

    RESCALE = 1.2
    _scale = (0.0, 0.0)  # px per data unit (x, y) of the dots drawn

    def updateItems(self, styleUpdate: bool = True):  # noqa: N802 - pyqtgraph API
        symbol = self.opts["symbol"]
        self.opts["symbol"] = None  # the line alone, through every point
        try:
            super().updateItems(styleUpdate)
        finally:
            self.opts["symbol"] = symbol
        self._place_dots()

    def _view_scale(self) -> tuple[float, float]:
        view = self.getViewBox()
        rect = view.viewRect() if view is not None else None
        if rect is None or rect.width() <= 0 or rect.height() <= 0:
            return 0.0, 0.0
        return view.width() / rect.width(), view.height() / rect.height()

    def _place_dots(self) -> None:
        o = self.opts
        style = dict(symbol=o["symbol"], size=o["symbolSize"], pen=o["symbolPen"],
                     brush=o["symbolBrush"], pxMode=o["pxMode"], antialias=o["antialias"])
        data = self._getDisplayDataset()
        x, y = (data.x, data.y) if data is not None else (np.empty(0), np.empty(0))
        sx, sy = self._scale = self._view_scale()
        if sx > 0 and sy > 0 and len(x):  # laid out: one dot per screen cell (else all)
            keep = spaced_dots(x * sx, y * sy)
            # and the points with the largest x and y: pyqtgraph 0.14 bounds the item by
            # the smaller of its line's and its dots' maxima, so the view's auto-range
            # stays that of every point
            ends = [int(np.nanargmax(v)) for v in (x, y) if np.isfinite(v).any()]
            keep = np.union1d(keep, ends)
            x, y = x[keep], y[keep]
        self.scatter.setData(x=x, y=y, **style)
        self.scatter.setVisible(o["symbol"] is not None and len(x) > 0)

    def _rescaled(self) -> None:
        new = self._view_scale()
        if any(n > 0 and not 1 / self.RESCALE <= (o / n if o > 0 else 0) <= self.RESCALE
               for o, n in zip(self._scale, new)):
            self._place_dots()

    def viewRangeChanged(self, vb=None, ranges=None, changed=None):  # noqa: N802 - pyqtgraph API
        super().viewRangeChanged(vb, ranges, changed)
        self._rescaled()

    def viewTransformChanged(self):  # noqa: N802 - pyqtgraph API
        super().viewTransformChanged()
        self._rescaled()


def superscript_powers(text: str) -> str:
    """``"C(p)·k^-39"`` -> ``"C(p)·k⁻³⁹"`` (legend text)."""
    return re.sub(r"\^(-?\d+)", lambda m: superscript(m.group(1)), text)


def plotted_quantity(weighted: bool) -> str:
    """The quantity the eigenvalue view plots: ``μₖ``, or ``N(p, k) μₖ`` weighted."""
    return "N(p, k) μₖ" if weighted else "μₖ"


def slope_quantity(weighted: bool) -> str:
    """The quantity the local-slope view plots: the log–log slope of :func:`plotted_quantity`."""
    return "d log(N(p, k) μₖ) / d log k" if weighted else "d log μₖ / d log k"


def guide_exponent(exponent: float, dim: int, weighted: bool) -> float:
    """The exponent of a guide ``C k^exponent`` of μ_k on the plotted quantity: the same, or
    ``exponent + p − 2`` weighted by multiplicity (N(p, k) ~ 2 k^{p−2}/(p−2)! as k → ∞)."""
    return float(exponent) + (dim - 2 if weighted else 0)


def row_gap(span: float, rows: int, height_px: float, minimum: float) -> float:
    """The gap (data units) between the rows of markers stacked below the data, so that
    each row is :data:`ROW_PX` pixels below the previous one on a view ``height_px`` high
    showing ``span`` (the data's own range) plus ``rows + 1`` gaps; at least ``minimum``."""
    if height_px <= 0:
        return minimum
    room = max(height_px - ROW_PX * (rows + 1), 0.5 * height_px)  # the data's own pixels
    return max(minimum, ROW_PX * span / room)


class SpectrumFigure(QtWidgets.QWidget):
    """The eigenvalue plot above the local-slope plot (a splitter; their k axes linked) and
    the hover read-out under them. Plot items are kept per kind and position
    (``items``: key -> ``(plot, item, style)``) and updated in place while a slider moves."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.items: dict[tuple, tuple] = {}  # key -> (plot item, graphics item, style)
        self._used: set = set()
        self._rows: list = []  # (marker item, log10 values or None) per row below the data
        self._span = (0.0, 1.0)  # log10 range of the data drawn
        self._gap_for = 0.0  # view height the rows were placed for
        self._levels: tuple = ()  # guide exponents of the plotted quantity
        self.plot = log_plot("Mercer eigenvalues", "degree k", "μ<sub>k</sub>", log_x=True,
                             log_y_values=True)
        self.plot_slope = log_plot("Local slope d log μ<sub>k</sub> / d log k", "degree k",
                                   "local slope", log_x=True)
        self.plot_slope.setXLink(self.plot)
        self.plot.getPlotItem().getViewBox().sigResized.connect(self._on_view_resized)
        self.hover = Readout()
        self.hover.setText("hover a point to read exact values")
        self._hovers = [Log10Hover(self.plot.getPlotItem(), self.hover, "k", "μ"),
                        CurveHover(self.plot_slope.getPlotItem(), self.hover, "k", "slope")]
        splitter = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        for plot, size in ((self.plot, SPECTRUM_PLOT_MIN), (self.plot_slope, SLOPE_PLOT_MIN)):
            plot.setMinimumSize(*size)  # a smaller view would cut the figure
            splitter.addWidget(plot)
        splitter.setChildrenCollapsible(False)
        splitter.setSizes([500, 360])  # the slope view keeps >= 3 labelled ticks
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(splitter, 1)
        lay.addWidget(self.hover)

    def _item(self, plot, key: tuple, make, style=None, name: str | None = None,
              bounds: bool = True):
        """The plot item cached under ``key`` (a kind and a position, stable while a
        slider moves): created by ``make()`` and added to ``plot`` on first use or when
        its ``style`` changes, renamed in place (legend included) when only ``name``
        changes; items not requested during an update are removed at its end.
        ``bounds=False``: the item does not take part in the auto-range."""
        entry = self.items.get(key)
        if entry is None or entry[2] != style:
            if entry is not None:
                entry[0].removeItem(entry[1])
            entry = self.items[key] = (plot, make(), style)
            plot.addItem(entry[1], ignoreBounds=not bounds)
        elif name is not None:
            set_item_name(plot, entry[1], name)
        self._used.add(key)
        return entry[1]

    def _curve(self, plot, key: tuple, x, y, style=None, bounds: bool = True,
               cls=pg.PlotDataItem, **opts):
        # dynamicRangeLimit=None: pyqtgraph would otherwise redo every item's display data
        # (symbols included) whenever the y range changes, i.e. twice per update; it only
        # clips points more than 10^6 view heights away, never the case with auto-range
        item = self._item(plot, key, lambda: cls(dynamicRangeLimit=None, **opts), style,
                          opts.get("name"), bounds)
        item.setData(x, y)
        return item

    def _drop_unused(self) -> None:
        for key in [k for k in self.items if k not in self._used]:
            plot, item, _ = self.items.pop(key)
            plot.removeItem(item)

    def draw(self, r, params) -> tuple[int, int]:
        """Draw the response ``r`` with the display options of ``params`` (weighting by
        multiplicity, guides, slope view: the response holds the values, slopes and guides
        of both μ_k and N(p, k) μ_k, nothing is recomputed); returns the numbers of exact
        zeros and of untrusted values drawn."""
        req = r.request
        weighted = params.weighted  # display only: the quantity the curves, guides and slopes are of
        pi, ps = self.plot.getPlotItem(), self.plot_slope.getPlotItem()
        set_label(pi, "left", "N(p, k) μ<sub>k</sub>" if weighted else "μ<sub>k</sub>")
        set_title(pi, f"Mercer eigenvalues on S<sup>{req.dim - 1}</sup>  (p = {req.dim})")
        set_title(ps, f"Local slope {slope_quantity(weighted)}")
        self._used = set()
        logs = [s.log10_y(weighted) for s in r.series]
        drawn = [ly[s.shown & (s.k >= 1) & np.isfinite(ly)] for s, ly in zip(r.series, logs)]
        lowest = min((float(d.min()) for d in drawn if d.size), default=0.0)
        highest = max((float(d.max()) for d in drawn if d.size), default=1.0)
        # exact zeros and unplottable points sit below the data, one row per kernel with
        # zeros, ROW_PX pixels apart (placed again when the view's height changes)
        self._rows = []
        n_zero = n_bad = 0
        for i, (s, ly) in enumerate(zip(r.series, logs)):
            b = s.untrusted
            # the line joins the values the computation vouches for only: untrusted ones
            # are the red crosses (a line through them read as data, e.g. the rounding
            # noise of the depth-50 NTK at p = 1000 drawn as a solid band)
            m = s.shown & (s.k >= 1) & np.isfinite(ly) & ~b
            self._curve(pi, ("mu", i), s.k[m], ly[m], name=s.label, cls=DottedCurve,
                        **dotted_line(i))
            z = s.zero & (s.k >= 1)
            if z.any():
                named = n_zero == 0  # one legend entry for every row of zeros
                n_zero += int(z.sum())
                item = self._curve(pi, ("zero", i), s.k[z], np.zeros(int(z.sum())), named,
                                   pen=None, symbol="t1", symbolSize=8, symbolPen=pen(i, 1),
                                   symbolBrush=pg.mkBrush(None),
                                   name=ZERO_ENTRY if named else None)
                self._rows.append((item, None))
            if b.any():
                named = n_bad == 0
                n_bad += int(b.sum())
                item = self._curve(pi, ("bad", i), s.k[b], np.zeros(int(b.sum())), named,
                                   pen=None, symbol="x", symbolSize=9,
                                   symbolPen=pen("#d00000", 1.5),
                                   symbolBrush=pg.mkBrush("#d00000"),
                                   name=BAD_ENTRY if named else None)
                self._rows.append((item, ly[b]))
            sk, slope = s.slopes(weighted)  # between trusted degrees only
            if params.slope and len(slope):
                self._curve(ps, ("slope", i), sk, slope, name=s.label, cls=DottedCurve,
                            **dotted_line(i))
        self._span = (lowest, highest)
        floor, gap = self._place_rows()
        if params.guides:
            rows = sum(ly is None for _, ly in self._rows)
            self._draw_guides(r, weighted, params.slope, (floor - rows * gap, highest + gap))
        self._drop_unused()
        self._order_legend(pi)
        declare_quantity(pi, plotted_quantity(weighted))
        declare_quantity(ps, slope_quantity(weighted), levels=self._levels if params.guides
                         else ())
        self.plot_slope.setVisible(params.slope)
        settle(self.plot, self.plot_slope)
        return n_zero, n_bad

    def _place_rows(self) -> tuple[float, float]:
        """Put the rows of exact-zero triangles (and the crosses of points with no finite
        value) below the data, :data:`ROW_PX` pixels apart at the view's current height;
        returns ``(floor, gap)``: the first row's log10 level and the gap between rows."""
        lowest, highest = self._span
        height = self.plot.getPlotItem().getViewBox().height()
        span = highest - lowest
        rows = sum(ly is None for _, ly in self._rows)
        gap = row_gap(span, rows, height if height > 50 else 300.0,
                      max(0.04 * span, np.log10(3.0)))
        floor = lowest - gap
        row = 0
        for item, ly in self._rows:
            x = item.xData
            if ly is None:  # a row of exact zeros
                item.setData(x, np.full(len(x), floor - row * gap))
                row += 1
            else:  # crosses: at their value, or on the first row when it is not finite
                item.setData(x, np.where(np.isfinite(ly), ly, floor))
        self._gap_for = height
        return floor, gap

    def _on_view_resized(self) -> None:
        """The view's height changed by more than a fifth: place the marker rows again
        (exports lay the figure out at their own size)."""
        height = self.plot.getPlotItem().getViewBox().height()
        if self._rows and height > 50 and not 0.8 <= height / max(self._gap_for, 1.0) <= 1.25:
            self._place_rows()

    def _order_legend(self, plot_item) -> None:
        """Legend entries in a fixed order: the kernels, their guides, then the markers (the
        entries are made as items first appear, which interleaved them)."""
        legend = plot_item.legend
        rank = {id(item): (_LEGEND_RANK.get(key[0], 9), key[1:]) for key, (_, item, _) in
                self.items.items()}
        order = sorted(legend.items, key=lambda entry: rank.get(id(entry[0].item), (9,)))
        if order != legend.items:
            legend.items[:] = order
            legend._regrid()

    def _draw_guides(self, r, weighted: bool, slope: bool, shown: tuple[float, float]) -> None:
        """Guide lines C k^exponent of the plotted quantity (log10 drawn, only within
        ``shown``, the log10 range of the data: a guide far above the data never squeezes
        it, nor leaves the plot area in an SVG) and their exponents on the slope view.
        Weighted by multiplicity the guides are N(p, k) C k^exponent, whose slope tends to
        exponent + p − 2. Up to :data:`GUIDE_ENTRIES_MAX` guides have a legend entry each;
        more share one entry naming their exponents."""
        pi, ps = self.plot.getPlotItem(), self.plot_slope.getPlotItem()
        dim = r.request.dim
        levels: list[float] = []  # one labelled line per exponent on the slope view
        drawn = False  # a guide line is on the eigenvalue view
        own_entries = len(r.guides) <= GUIDE_ENTRIES_MAX
        prefix = "N(p, k)·" if weighted else ""
        for j, g in enumerate(r.guides):
            first = j == 0 or r.guides[j - 1].kernel_index != g.kernel_index
            gp = pen(g.kernel_index, 1.2, dash(0 if first else 1))
            style = (g.kernel_index, first)
            ly = g.log10_of(weighted)  # from the closed form: right below 10⁻³⁰⁸ too
            ok = np.isfinite(ly) & (ly >= shown[0]) & (ly <= shown[1])
            if ok.any():  # not when the constant is beyond float64 (p = 1000)
                drawn = True
                name = f"guide {prefix}{superscript_powers(g.label)}" if own_entries else None
                self._curve(pi, ("guide", j), g.k[ok], ly[ok], style, bounds=False, pen=gp,
                            name=name)
            level = guide_exponent(g.exponent, dim, weighted)
            if level not in levels:
                levels.append(level)
                if slope:
                    self._level_line(ps, len(levels) - 1, level, gp, style)
        if not own_entries and drawn:
            powers = ", ".join(f"k{superscript(f'{v:g}')}" for v in levels)
            self._curve(pi, ("guides", 0), [], [], bounds=False, pen=pen("#555555", 1.2, dash(0)),
                        name=f"guides ∝ {powers} (dashed, kernel's colour)")
        self._levels = tuple(levels)

    def _level_line(self, plot, index: int, level: float, gp, style) -> None:
        """The horizontal guide at slope ``level`` on the slope view, labelled with it."""
        text = f"{level:g}"
        line = self._item(plot, ("level", index), lambda: pg.InfiniteLine(
            angle=0, pen=gp, label=text, labelOpts={
                "position": 0.04 + 0.09 * (index % 8), "color": gp.color(),
                "fill": pg.mkBrush(255, 255, 255, 220), "anchors": [(0.5, 0.5)] * 2}), style)
        if line.label.format != text:
            line.label.setFormat(text)
        line.setValue(level)

    def plot_items(self) -> dict:
        return {"spectrum": self.plot.getPlotItem(), "slope": self.plot_slope.getPlotItem()}

    @contextmanager
    def exporting(self, view: str, width: int | None = None, height: int | None = None):
        """The slope plot alone: unlinked from the spectrum plot, with the spectrum plot's k
        range. (pyqtgraph links two x axes through their pixel geometry: exported at
        another width than the spectrum plot on screen, the slope plot showed k up to
        ~1400 of 2000 at 640 px and up to 2e6 at 2400 px.)"""
        if view != "slope":
            yield
            return
        k_range = self.plot.getViewBox().viewRange()[0]
        self.plot_slope.setXLink(None)
        self.plot_slope.setXRange(*k_range, padding=0.0)
        try:
            yield
        finally:
            self.plot_slope.setXLink(self.plot)
