"""The editor's pictures: four image views with colour bars, and the context bar chart.

Pure drawing: :class:`ImageViews` and :class:`ContextPlot` take a response (and
context levels) and draw them; they hold no parameters.
"""
from __future__ import annotations

import math
from contextlib import contextmanager

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from ntkviz.gui.plot_style import (PALETTE, DecadeLogAxis, empty_note, style_legend,
                                   use_tick_style)
from ntkviz.gui.ticks import log_tick_strings

__all__ = ["ImageViews", "ContextPlot", "IMAGE_VIEWS", "CONTEXT_LABELS", "CONTEXT_MAPS",
           "arrow_segments", "nice_ceil", "nice_floor", "image_beside_bar", "IMAGE_MARGINS"]

IMAGE_VIEWS = ("original", "deformed", "difference", "displacement")
#: legend of each context category (keys: ntkviz.jobs.CONTEXT_CATEGORIES)
CONTEXT_LABELS = {
    "deformation": "this deformation L<sub>τ</sub>x",
    "nearest_same": "nearest same-label digit",
    "mean_same": "mean over same-label digits",
    "nearest_other": "nearest other-label digit",
    "mean_other": "mean over other-label digits",
}
#: the groups of the context chart: (key of ntkviz.jobs.ContextResult.MAPS, label, name in
#: ntkviz.core.deformations.maps.MAPS)
CONTEXT_MAPS = (("ckn", "CKN", "ckn"), ("ntk", "NTK", "ntk"), ("scattering", "scattering", "scattering"),
                ("fourier", "Fourier modulus", "fourier"), ("pixel", "pixels", "pixels"))
#: smallest pixel width of a colour bar's tick-label column (room for "−0.5", "12.5"); it
#: grows for longer labels such as "1.5·10⁻³"
BAR_AXIS_WIDTH = 42
#: the image views' smallest height in pixels (a short window shrinks them to this)
MIN_VIEW_HEIGHT = 120
#: each image view's smallest width in pixels: its title above the image and colour bar
MIN_VIEW_WIDTH = 180


def nice_ceil(value: float) -> float:
    """The smallest of (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8) x 10^k that is >= ``value``
    (1 for ``value <= 0``): a colour-scale limit wasting at most a third of the scale."""
    if not value > 0:
        return 1.0
    e = math.floor(math.log10(value))
    for m in (1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0):
        if m * 10.0 ** e >= value * (1 - 1e-12):
            return m * 10.0 ** e
    return 10.0 ** (e + 1)


def nice_floor(value: float) -> float:
    """The largest of 1, 2, 5 x 10^k that is <= ``value`` (``value > 0``)."""
    e = math.floor(math.log10(value))
    for m in (5.0, 2.0, 1.0):
        if m * 10.0 ** e <= value * (1 + 1e-12):
            return m * 10.0 ** e
    return 10.0 ** (e - 1)


def arrow_segments(tau: np.ndarray, step: int = 2, length_px: float = 2.4):
    """Arrow line segments of a displacement field for ``PlotCurveItem(connect="pairs")``.

    Arrows start at pixel centres every ``step`` pixels; they are scaled by a
    common "nice" factor (1, 2, 5 x 10^k) so that the longest is at most
    ``length_px`` pixels (the factor is returned, to be shown beside the
    arrows). Each arrow is a shaft and two head strokes.

    Returns
    -------
    x, y : ndarray
        Segment end points in view coordinates (x right, y down).
    factor : float
        Arrow length / displacement (0 when tau is zero).
    """
    _, h, w = tau.shape
    r, c = np.mgrid[step // 2:h:step, step // 2:w:step]
    dy, dx = tau[0][r, c].ravel(), tau[1][r, c].ravel()
    mag = np.hypot(dx, dy)
    big = mag.max() if mag.size else 0.0
    if big <= 0:
        return np.zeros(0), np.zeros(0), 0.0
    factor = nice_floor(length_px / big)
    keep = mag > 0.02 * big
    x0, y0 = c.ravel()[keep] + 0.5, r.ravel()[keep] + 0.5
    ux, uy = dx[keep] * factor, dy[keep] * factor
    x1, y1 = x0 + ux, y0 + uy
    head = 0.35 * np.hypot(ux, uy)
    ang = np.arctan2(uy, ux)
    segs_x, segs_y = [x0, x1], [y0, y1]
    for turn in (2.6, -2.6):
        segs_x += [x1, x1 + head * np.cos(ang + turn)]
        segs_y += [y1, y1 + head * np.sin(ang + turn)]
    # per arrow: (start, end) of the shaft, then of the two head strokes
    return np.stack(segs_x, axis=1).ravel(), np.stack(segs_y, axis=1).ravel(), factor


def _set_title(plot: pg.PlotItem, text: str) -> None:
    """Set a (short) title: a title wider than image + bar would widen a narrow cell."""
    plot.setTitle(text)


#: the image plots' own contents margins (left, top, right, bottom)
_MARGINS = IMAGE_MARGINS = (1, 2, 2, 10)


@contextmanager
def image_beside_bar(plot: pg.PlotItem, aspect: float = 1.0):
    """Within this block (an export of one image view at its own size) the image (square,
    or ``aspect`` = its width / height) and its colour bar stay together, centred in the
    plot item: the spare width of a wide export (640×400, 2400×1500) goes to equal left
    and right margins instead of a blank band between the image and its bar (the
    aspect-locked view box centres the image in all the width the bar leaves). On screen
    the views are image-shaped (:meth:`ImageViews.fit_height`): nothing to do there."""
    vb = plot.getViewBox()
    left0, top, right0, bottom = _MARGINS

    def fit() -> None:
        left, _, right, _ = plot.getContentsMargins()
        fixed = plot.width() - left - right - vb.width()  # bar, its axis, spacing
        spare = max(0.0, plot.width() - left0 - right0 - fixed - aspect * vb.height())
        new_left, new_right = left0 + spare / 2, right0 + spare / 2
        if abs(new_left - left) > 0.5 or abs(new_right - right) > 0.5:
            plot.setContentsMargins(new_left, top, new_right, bottom)
            plot.layout.activate()

    # the wide margins raise the item's minimum width, so that the exporter's restore
    # of the on-screen size could not shrink it (nor its layout) back: restore both here
    parent = plot.parentItem()
    before = [(it, it.geometry()) for it in (parent, plot) if it is not None]
    vb.sigResized.connect(fit)
    try:
        yield
    finally:
        vb.sigResized.disconnect(fit)
        plot.setContentsMargins(*_MARGINS)
        for it, geometry in before:
            it.setGeometry(geometry)


class ImageViews(QtWidgets.QWidget):
    """x, L_τx, L_τx − x and |τ| (with arrows) side by side, each with a colour bar.

    Colour scales use "nice" limits (:func:`nice_ceil`) so they stay put while a
    slider is dragged; only what changed is redrawn.
    """

    TITLES = {"original": "original x", "deformed": "deformed L<sub>τ</sub>x",
              "difference": "L<sub>τ</sub>x − x", "displacement": "τ"}

    def __init__(self, parent=None):
        super().__init__(parent)
        self.plots: dict[str, pg.PlotItem] = {}
        self.images: dict[str, pg.ImageItem] = {}
        self.widgets: dict[str, pg.GraphicsLayoutWidget] = {}
        row = QtWidgets.QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(2)
        for name in IMAGE_VIEWS:
            widget = pg.GraphicsLayoutWidget()
            widget.ci.setContentsMargins(2, 2, 2, 2)
            widget.setMinimumWidth(MIN_VIEW_WIDTH)
            plot = widget.addPlot(row=0, col=0)
            _set_title(plot, self.TITLES[name])
            plot.setAspectLocked(True)
            plot.invertY(True)
            plot.hideButtons()
            plot.setMenuEnabled(False)
            plot.setMouseEnabled(x=False, y=False)
            plot.hideAxis("left")
            plot.hideAxis("bottom")
            plot.getViewBox().setDefaultPadding(0.0)
            # room inside the item (what an export takes) for the bar's end labels "0", "−1.0"
            plot.titleLabel.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored,
                                          QtWidgets.QSizePolicy.Policy.Fixed)
            plot.setContentsMargins(*_MARGINS)
            img = pg.ImageItem(axisOrder="row-major")
            plot.addItem(img)
            empty_note(plot, "computing…")
            plot.setRange(xRange=(0, 28), yRange=(0, 28), padding=0)
            self.widgets[name], self.plots[name], self.images[name] = widget, plot, img
            row.addWidget(widget, 1)
        grey = pg.colormap.get("CET-L1")
        specs = {"original": ((0, 1), grey, "intensity"),
                 "deformed": ((0, 1), grey, "intensity"),
                 "difference": ((-1, 1), pg.colormap.get("CET-D1"), "L<sub>τ</sub>x − x"),
                 "displacement": ((0, 1), pg.colormap.get("viridis"), "|τ| (px)")}
        self.bars: dict[str, pg.ColorBarItem] = {}
        for name, (values, cmap, label) in specs.items():
            bar = pg.ColorBarItem(values=values, colorMap=cmap, label=label, interactive=False,
                                  width=12, colorMapMenu=False)
            bar.setImageItem(self.images[name], insert_in=self.plots[name])
            axis = bar.getAxis("right")
            use_tick_style(axis)
            axis.setStyle(autoExpandTextSpace=True)
            axis.setWidth(None)
            axis.setMinimumWidth(BAR_AXIS_WIDTH)
            self.bars[name] = bar
        self._fitted = MIN_VIEW_HEIGHT  # the image-shaped height (fit_height)
        self.setMinimumHeight(MIN_VIEW_HEIGHT)
        self.arrows = pg.PlotCurveItem(connect="pairs", pen=pg.mkPen("w", width=1.2))
        self.plots["displacement"].addItem(self.arrows)
        self._arrow_label = ""

    def fit_height(self) -> None:
        """Make each view at most as tall as its square image plus title (so an export
        of one view is image-shaped, not a tall strip): that height is the preferred and
        the largest one. A shorter window shrinks the views down to
        :data:`MIN_VIEW_HEIGHT` (the aspect-locked images shrink with them); the views
        never raise the window's minimum height, so the window never grows by itself."""
        widget = self.widgets["original"]
        title = self.plots["original"].titleLabel.size().height() or 24
        bar = BAR_AXIS_WIDTH + 30
        side = max(60, widget.width() - bar - 8)
        fitted = max(MIN_VIEW_HEIGHT, int(side + title + 10))
        if fitted != self._fitted:
            self._fitted = fitted
            self.setMaximumHeight(fitted)
            self.updateGeometry()

    def sizeHint(self) -> QtCore.QSize:  # noqa: N802 - Qt API
        return QtCore.QSize(super().sizeHint().width(), self._fitted)

    def minimumSizeHint(self) -> QtCore.QSize:  # noqa: N802 - Qt API
        return QtCore.QSize(super().minimumSizeHint().width(), MIN_VIEW_HEIGHT)

    def draw(self, resp) -> None:
        drawn = self.images["original"].image
        if drawn is None or not np.array_equal(drawn, resp.original):
            self.images["original"].setImage(resp.original, autoLevels=False)
            # [0, 1] grey levels; the Gabor probe's values lie in [-1, 1]
            levels = (-1.0 if float(resp.original.min()) < 0 else 0.0, 1.0)
            self.bars["original"].setLevels(levels)
            self.bars["deformed"].setLevels(levels)
        self.images["deformed"].setImage(resp.deformed, autoLevels=False)
        m = nice_ceil(float(np.max(np.abs(resp.difference))))
        self.images["difference"].setImage(resp.difference, autoLevels=False)
        self._set_levels("difference", (-m, m))
        mag = np.hypot(resp.tau[0], resp.tau[1])
        self.images["displacement"].setImage(mag, autoLevels=False)
        self._set_levels("displacement", (0.0, nice_ceil(float(mag.max()))))
        x, y, factor = arrow_segments(resp.tau)
        self.arrows.setData(x, y)
        if factor:
            scale = f"{factor:g}" if factor >= 1e-3 else log_tick_strings([math.log10(factor)])[0]
            title = f"τ, arrows ×{scale}"
        else:
            title = self.TITLES["displacement"]
        if title != self._arrow_label:
            self._arrow_label = title
            _set_title(self.plots["displacement"], title)

    def _set_levels(self, name: str, levels: tuple[float, float]) -> None:
        if tuple(self.bars[name].levels()) != levels:  # (the image keeps the bar's levels)
            self.bars[name].setLevels(levels)


class ContextPlot:
    """Bars: relative distance of the deformation and of other digits, per feature map;
    the legend in its own row below the plot (it covers no bar).

    A value that does not exist is not drawn (never a bar of height 0): a feature map
    with no value at all (the NTK of exp layers) leaves its group out and the x axis
    says why; a category with no value (same-label digits of an image of unknown class,
    the context levels while they are computed) has no bar and no legend entry."""

    TITLE = "Distance from x to L<sub>τ</sub>x and to other digits"

    def __init__(self, layout: pg.GraphicsLayout, categories):
        self.layout = layout
        self.plot = plot = layout.addPlot(row=0, col=0,
                                          axisItems={"left": DecadeLogAxis("left")})
        plot.setTitle(self.TITLE)
        plot.setLabel("left", "relative distance")
        plot.getAxis("left").enableAutoSIPrefix(False)
        # room for the map names' full line height (descenders too) before the first paint
        bottom = plot.getAxis("bottom")
        font = bottom.style["tickFont"] or bottom.font()
        bottom.setStyle(autoExpandTextSpace=False, tickTextHeight=QtGui.QFontMetrics(font).height() + 2)
        plot.setMenuEnabled(False)
        plot.setMouseEnabled(x=False, y=False)
        plot.hideButtons()
        self.legend = style_legend(pg.LegendItem(labelTextSize="8pt", colCount=3))
        # scale with the export (pyqtgraph's legends ignore the painter's scale by default)
        self.legend.setFlag(self.legend.GraphicsItemFlag.ItemIgnoresTransformations, False)
        self.bars: dict[str, pg.BarGraphItem] = {}
        for j, cat in enumerate(categories):
            color = PALETTE[j]
            bar = pg.BarGraphItem(x=np.zeros(0), height=np.zeros(0), width=0.8 / len(categories) * 0.9,
                                  brush=pg.mkBrush(color), pen=pg.mkPen(color),
                                  name=CONTEXT_LABELS[cat])
            plot.addItem(bar)
            self.bars[cat] = bar
        self._entries: tuple = ()
        layout.addItem(self.legend, row=1, col=0)
        self.legend.setSizePolicy(QtWidgets.QSizePolicy.Policy.Preferred,
                                  QtWidgets.QSizePolicy.Policy.Maximum)
        self._maps: tuple = ()
        self._set_maps(tuple((key, label) for key, label, _ in CONTEXT_MAPS))
        self._note = ""
        empty_note(plot, "computing…")

    def _set_maps(self, maps: tuple) -> None:
        """The feature-map groups on the x axis (``(key, label)`` pairs)."""
        if maps == self._maps:
            return
        self._maps = maps
        self.plot.getAxis("bottom").setTicks([[(i, label) for i, (_, label) in enumerate(maps)]])
        self.plot.setXRange(-0.5, max(len(maps), 1) - 0.5, padding=0.02)

    def _set_legend(self, categories: tuple) -> None:
        """Legend entries for ``categories`` (those with a bar), in the bars' order."""
        if categories == self._entries:
            return
        self._entries = categories
        self.legend.clear()
        for cat in categories:
            self.legend.addItem(self.bars[cat], CONTEXT_LABELS[cat])

    def draw(self, values: dict, state: str, reasons: dict | None = None, shown=None) -> None:
        """``values``: ``{category: {map: value}}`` (NaN: the value does not exist or is
        not known yet, nothing drawn; ``inf`` drawn to the top of the axis and named);
        ``reasons``: ``{map: why it has no value}`` for the x-axis note of a map left
        out; ``shown``: the names (of ``MAPS``) of the maps drawn (default all)."""
        reasons = reasons or {}
        maps = tuple((m, label) for m, label, name in CONTEXT_MAPS
                     if (shown is None or name in shown)
                     and any(not math.isnan(row[m]) for row in values.values()))
        self._set_maps(maps)
        finite = [row[m] for row in values.values() for m, _ in maps if math.isfinite(row[m])]
        top = max(finite) if finite else 1.0
        infinite = False
        # the categories with a value share each group's width (a lone one is centred)
        drawn = tuple(cat for cat in self.bars
                      if any(not math.isnan(values[cat][m]) for m, _ in maps))
        width = 0.8 / max(len(drawn), 1)
        for cat, bar in self.bars.items():
            xs, heights = [], []
            for i, (m, _) in enumerate(maps):
                v = values[cat][m] if cat in drawn else math.nan
                if math.isnan(v):
                    continue
                infinite |= math.isinf(v)
                xs.append(i - 0.4 + (drawn.index(cat) + 0.5) * width)
                heights.append(1.05 * top if math.isinf(v) else v)
            bar.setOpts(x=np.array(xs, dtype=float), height=np.array(heights, dtype=float),
                        width=0.9 * width)
            bar.setVisible(bool(xs))
        self._set_legend(drawn)
        notes = [f"{label} not drawn: {reasons[m]}" for m, label, name in CONTEXT_MAPS
                 if m in reasons and m not in dict(maps) and (shown is None or name in shown)]
        if infinite:
            notes.append("∞: distances from an all-zero digit")
        note = "; ".join(notes)
        if note != self._note:
            self._note = note
            self.plot.setLabel("bottom", note)
            self.plot.getAxis("bottom").showLabel(bool(note))
        self.plot.setTitle(f"{self.TITLE} ({state})")
