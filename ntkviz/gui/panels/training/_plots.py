"""The plots of one lazy-training run: neurons, predictors on the circle, metrics.

:class:`RunView` owns the three ``PlotItem`` of a run and the items redrawn on every
animation frame (bare curves and :class:`_Dots`: a ``PlotDataItem``'s ``setData``
costs more); :func:`fill_legend` writes the one legend shared by every run.
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from ntkviz.gui.plot_style import (PALETTE, DecadeLogAxis, LegendSample, SmallLegendSample,
                                   empty_note, pen, use_angle_axis)
from ntkviz.gui.ticks import log_tick_strings

__all__ = ["RunView", "fill_legend", "make_legend", "METRIC_LABELS", "METRIC_COLOURS"]

METRIC_LABELS = {
    "train_loss": "train loss", "test_loss": "test loss",
    "linear_train_loss": "train loss (linearised)", "linear_test_loss": "test loss (linearised)",
    "kernel_test_loss": "test loss (kernel K₀)", "ntk_test_loss": "test loss (NTK ∞)",
    "displacement": "‖w − w₀‖", "relative_displacement": "‖w − w₀‖/‖w₀‖",
    "linear_displacement": "‖w̄ − w₀‖ (linearised)", "gap": "net − linearised (test)",
    "train_gap": "net − linearised (train)", "kernel_drift": "‖Kₜ − K₀‖/‖K₀‖",
    "flip_share": "ReLU flips",
}
#: colours: sign(a_j) > 0 vermillion, < 0 blue (the paper's red/blue)
POS, NEG = PALETTE[1], PALETTE[0]
#: one distinct colour per metric (Okabe–Ito first, then darker extras)
METRIC_COLOURS = dict(zip(METRIC_LABELS, (
    "#0072B2", "#56B4E9", "#004466", "#7fb8d8", "#009E73", "#9c9c00", "#6b3fa0", "#CC79A7",
    "#a0522d", "#D55E00", "#f08a4b", "#000000", "#E69F00")))


class _LogAxis(DecadeLogAxis):
    """A log axis labelled in powers of ten (:func:`ntkviz.gui.ticks.log_tick_strings`: one
    style, short labels), a label every 1, 2, 3, 5, 10 … decades: the densest step that leaves
    :attr:`label_px` pixels per label (pyqtgraph's own choice left two labels on the
    15 decades of a metric plot)."""

    #: pixels per labelled tick (a "10⁻¹⁰" label is ~24 px wide, ~14 px high)
    label_px = {"bottom": 24.0, "top": 24.0, "left": 20.0, "right": 20.0}
    steps = (1, 2, 3, 5, 10, 20, 50, 100)

    def tickSpacing(self, minVal, maxVal, size):  # noqa: N802,N803 - pyqtgraph API
        levels = super().tickSpacing(minVal, maxVal, size)
        span = abs(maxVal - minVal)
        if not self.logMode or span < 2 or size <= 0:
            return levels  # within two decades: pyqtgraph's 1, 2, 5 ticks
        room = size / self.label_px[self.orientation]
        step = next((s for s in self.steps if span / s <= room), self.steps[-1])
        return [(float(step), 0.0)] + [level for level in levels if level[0] < step]

    def logTickStrings(self, values, scale, spacing):  # noqa: N802 - pyqtgraph API
        strings = super().logTickStrings(values, scale, spacing)  # which ticks are labelled
        labels = log_tick_strings(values)
        return [label if text else "" for label, text in zip(labels, strings)]


def _log_plot(title: str, xlabel: str, ylabel: str, log: bool = False) -> pg.PlotItem:
    """A plot of a run: ntkviz's axes (one tick style; no ticks while the plot is empty,
    which then says ``computing…``), log–log when ``log``."""
    item = pg.PlotItem(axisItems={"bottom": _LogAxis("bottom"), "left": _LogAxis("left")})
    item.setTitle(title, size="10pt")
    item.setLabel("bottom", xlabel)
    item.setLabel("left", ylabel)
    item.showGrid(x=True, y=True, alpha=0.15)
    item.setLogMode(x=log, y=log)
    for name in ("bottom", "left"):
        axis = item.getAxis(name)
        axis.enableAutoSIPrefix(False)  # never a "(x0.001)" scale factor: ticks are true values
        # the grid lines are the axes' (opaque) drawing: under the view box and its curves
        # (screen and SVG stacking), or the dense minor lines of a log axis cut every curve
        # into dots and dashes
        axis.setZValue(item.getViewBox().zValue() - 1)
    # axes, labels and title are static while a run plays: paint them from a cache
    _static(item.titleLabel, item.getAxis("bottom"), item.getAxis("left"))
    empty_note(item, "computing…")
    return item


def _static(*items) -> None:
    """Items that change only when new frames arrive: cache their painting, and that of
    their descendants (a PlotDataItem paints through its curve and scatter children, an
    axis or a title through a text item: uncached text is laid out again on every repaint)."""
    cache = QtWidgets.QGraphicsItem.CacheMode.DeviceCoordinateCache
    for item in items:
        item.setCacheMode(cache)
        _static(*item.childItems())


class _Dots(pg.GraphicsObject):
    """Filled discs of a fixed size in pixels at points (x, y): the moving neurons.

    A light ``ScatterPlotItem`` (no per-point records, spot items or symbol atlas) for the
    few points redrawn on every animation frame; ``xData``/``yData`` hold what is drawn,
    ``opts`` is what a ``LegendItem`` sample reads."""

    def __init__(self, size: float, colour, name: str):
        super().__init__()
        self.opts = {"pen": None, "symbol": "o", "size": size, "brush": pg.mkBrush(colour),
                     "antialias": True, "name": name}
        self.xData = self.yData = np.zeros(0)
        self._rect = QtCore.QRectF()

    def name(self) -> str:
        return self.opts["name"]

    def setData(self, x, y) -> None:  # noqa: N802 - pyqtgraph API
        self.xData = np.asarray(x, dtype=float)
        self.yData = np.asarray(y, dtype=float)
        self.prepareGeometryChange()
        if len(self.xData):
            x0, x1 = float(self.xData.min()), float(self.xData.max())
            y0, y1 = float(self.yData.min()), float(self.yData.max())
            self._rect = QtCore.QRectF(x0, y0, x1 - x0, y1 - y0)
        else:
            self._rect = QtCore.QRectF()
        self.informViewBoundsChanged()
        self.update()

    def dataBounds(self, ax: int, frac: float = 1.0, orthoRange=None):  # noqa: N802
        data = self.xData if ax == 0 else self.yData
        return (None, None) if not len(data) else (float(data.min()), float(data.max()))

    def pixelPadding(self) -> float:  # noqa: N802 - pyqtgraph API
        return self.opts["size"] / 2 + 1

    def boundingRect(self) -> QtCore.QRectF:  # noqa: N802 - Qt API
        if not len(self.xData):
            return QtCore.QRectF()
        pw, ph = self.pixelWidth(), self.pixelHeight()
        pad = self.pixelPadding()
        return self._rect.adjusted(-pad * pw, -pad * ph, pad * pw, pad * ph)

    def paint(self, p, *args) -> None:
        if not len(self.xData):
            return
        # radii in item units that are r pixels of the view (like a ScatterPlotItem's symbols:
        # an export scales them with the rest of the scene)
        r = self.opts["size"] / 2
        rx, ry = r * self.pixelWidth(), r * self.pixelHeight()
        if not (rx > 0 and ry > 0):  # not in a view: pixels of the paint device
            t = p.transform()
            rx, ry = r / np.hypot(t.m11(), t.m12()), r / np.hypot(t.m21(), t.m22())
        discs = QtGui.QPainterPath()  # one path (an SVG export keeps paths in place)
        discs.setFillRule(QtCore.Qt.FillRule.WindingFill)  # overlapping discs stay filled
        point = QtCore.QPointF
        for x, y in zip(self.xData.tolist(), self.yData.tolist()):
            discs.addEllipse(point(x, y), rx, ry)
        p.setRenderHint(p.RenderHint.Antialiasing, True)
        p.fillPath(discs, self.opts["brush"])


class _Cursor(pg.InfiniteLine):
    """The time cursor, added with ``ignoreBounds``: moving it must not queue an auto-range
    of its (log-axis) view on every frame."""

    def informViewBoundsChanged(self) -> None:  # noqa: N802 - pyqtgraph API
        pass


class RunView:
    """The three plots of one run and their items (GUI thread only)."""

    def __init__(self):
        self.neurons = _log_plot("", "p₁", "p₂")
        self.neurons.setAspectLocked(True)
        self.neurons.showGrid(x=False, y=False)  # the unit circle and teacher rays guide the eye
        # short titles and labels: they set the plots' minimum widths (a 640-px export);
        # the help says x = (cos θ, sin θ)
        self.predictor = _log_plot("predictors", "angle θ", "output")
        self.metrics = _log_plot("metrics", "time t", "", log=True)
        # room for a label per decade of time (3–6 decades) beside the neurons and predictors
        self.metrics.setMinimumWidth(140)
        # 0, π, 2π always (at the ends of the axis: let their text reach past it by a few
        # pixels), π/2 and 3π/2 where they fit (a second tick level): the angle style of
        # every view
        use_angle_axis(self.predictor, 0.0, 2 * np.pi)
        self.predictor.getAxis("bottom").setStyle(hideOverlappingLabels=False)
        self.predictor.showGrid(x=False, y=True, alpha=0.15)  # (an axis with a grid clips them)
        circle = np.linspace(0, 2 * np.pi, 200)
        unit = pg.PlotDataItem(np.cos(circle), np.sin(circle),
                               pen=pg.mkPen("#888888", width=1, style=QtCore.Qt.PenStyle.DotLine))
        self.neurons.addItem(unit)
        dash = QtCore.Qt.PenStyle.DashLine
        self.rays = pg.PlotDataItem(pen=pg.mkPen("#555555", width=1, style=dash), connect="pairs")
        self.neurons.addItem(self.rays)
        # redrawn on every frame: bare curves and discs (a PlotDataItem's setData costs more)
        self.paths = {s: pg.PlotCurveItem(pen=pg.mkPen(c, width=1), connect="finite",
                                          antialias=False)
                      for s, c in ((1, POS), (-1, NEG))}
        # a > 0 drawn larger, under a < 0: a symmetrised pair (same p_j) shows as a ring
        self.dots = {s: _Dots(size, c, f"neuron, a<sub>j</sub> {op} 0")
                     for s, c, op, size in ((1, POS, "&gt;", 9), (-1, NEG, "&lt;", 5))}
        self.teacher = {s: pg.PlotDataItem(pen=None, symbol="star", symbolSize=16,
                                           symbolPen=pg.mkPen("k", width=1),
                                           symbolBrush=pg.mkBrush(c),
                                           name=f"teacher, a* {op} 0")
                        for s, c, op in ((1, POS, "&gt;"), (-1, NEG, "&lt;"))}
        for s in (1, -1):
            self.neurons.addItem(self.paths[s])
        for s in (1, -1):
            self.neurons.addItem(self.teacher[s])
        for s in (1, -1):
            self.neurons.addItem(self.dots[s])
        dot = QtCore.Qt.PenStyle.DotLine
        self.curves = {
            "target": pg.PlotCurveItem(pen=pg.mkPen("k", width=1.5, style=dash), name="target"),
            "net": pg.PlotCurveItem(pen=pen(0, 2.2), name="net α h"),
            "linear": pg.PlotCurveItem(pen=pen(1, 1.8, dash), name="linearised"),
            "kernel": pg.PlotCurveItem(pen=pen(2, 2.0, dot), name="kernel K₀ flow"),
            "ntk": pg.PlotCurveItem(pen=pen(3, 1.6, QtCore.Qt.PenStyle.DashDotLine),
                                    name="NTK ∞ flow"),
        }
        self.train_points = pg.PlotDataItem(pen=None, symbol="o", symbolSize=6,
                                            symbolPen=pg.mkPen("k"), symbolBrush=pg.mkBrush("w"),
                                            name="training points")
        for c in self.curves.values():
            self.predictor.addItem(c)
        self.predictor.addItem(self.train_points)
        self.predictor.setXRange(0, 2 * np.pi, padding=0.01)
        _static(unit, self.rays, *self.teacher.values(), self.curves["target"], self.train_points)
        self.metric_curves: dict[str, pg.PlotDataItem] = {}
        self.cursor = _Cursor(angle=90, pen=pg.mkPen("#444444", width=1, style=dash))
        self.metrics.addItem(self.cursor, ignoreBounds=True)
        self.compact = False  # short titles (a narrow figure)
        # per-response caches
        self.result = None
        self.positions = np.zeros((0, 0, 2))
        self.radius = 0.0
        self.seen = 0
        self.ylim = (0.0, 1.0)

    def plots(self):
        return self.neurons, self.predictor, self.metrics

    def shows_training_points(self) -> bool:
        """The training inputs are drawn on the predictor plot (d = 2: they lie on its
        circle; for d > 2 they do not)."""
        return self.result is None or self.result.setup.config.dim == 2

    def set_compact(self, compact: bool) -> None:
        """Title the neurons with α only (a narrow figure: the title is the plot's minimum
        width) or with α and τ."""
        self.compact = compact
        if self.result is not None:
            cfg = self.result.setup.config
            text = f"α = {cfg.alpha:.4g}" + ("" if compact else f", τ = {cfg.tau:.3g}")
            self.neurons.setTitle(text, size="10pt")

    def set_result(self, result, shown_metrics) -> None:
        """A (possibly longer) version of this run's result arrived."""
        fresh = self.result is None or self.result.setup is not result.setup
        self.result = result
        cfg, setup = result.setup.config, result.setup
        if fresh:
            # short: a long title is the plot's minimum width (the formula is in the legend)
            self.set_compact(self.compact)
            for axis, sub in (("bottom", "₁"), ("left", "₂")):  # d > 2: (e₁, e₂) coordinates
                self.neurons.setLabel(axis, f"p{sub}" if cfg.dim == 2 else f"p{sub} (e{sub})")
            tp = setup.teacher_positions
            for s in (1, -1):
                sel = np.sign(setup.teacher_a) == s
                self.teacher[s].setData(tp[sel, 0], tp[sel, 1])
            if cfg.dim == 2:
                self.train_points.setData(setup.train_angles, setup.y_train)
            else:
                self.train_points.setData([], [])
            self.curves["target"].setData(setup.grid_angles, setup.y_grid)
            # the whole run's time span, fixed: frames streaming in do not re-range it, and
            # auto-range padding (almost a decade on a narrow log plot) costs labels
            steps = cfg.frame_steps()
            times = cfg.lr * steps[steps > 0]
            self.metrics.setXRange(np.log10(times[0]), np.log10(times[-1]), padding=0.01)
            self.radius = 0.0
            self.seen = 0
            self.ylim = (float(setup.y_grid.min()), float(setup.y_grid.max()))
        if result.frames:
            self.positions = np.stack([f.neurons for f in result.frames])
            radius = max(1.15, 1.08 * float(np.sqrt((self.positions ** 2).sum(-1)).max()))
            if radius > self.radius * 1.05 or fresh:
                self.radius = radius
                self.neurons.setRange(xRange=(-radius, radius), yRange=(-radius, radius),
                                      padding=0.02)
            tp = setup.teacher_positions
            norms = np.linalg.norm(tp, axis=1, keepdims=True)
            ends = self.radius * tp / np.where(norms > 0, norms, 1.0)
            pairs = np.zeros((2 * len(tp), 2))
            pairs[1::2] = ends
            self.rays.setData(pairs[:, 0], pairs[:, 1])
            # fixed output range for the whole run (no auto-range work per drawn frame)
            new = result.frames[self.seen:]
            values = [getattr(f, k) for f in new for k in ("net", "linear", "kernel", "ntk")]
            lo = min([self.ylim[0]] + [float(np.min(v)) for v in values])
            hi = max([self.ylim[1]] + [float(np.max(v)) for v in values])
            if (lo, hi) != self.ylim:
                self.ylim = (lo, hi)
                pad = 0.05 * (hi - lo or 1.0)
                self.predictor.setYRange(lo - pad, hi + pad, padding=0)
            self.seen = len(result.frames)
        self.set_metrics(shown_metrics)

    def set_metrics(self, shown) -> None:
        for key in list(self.metric_curves):
            if key not in shown:
                self.metrics.removeItem(self.metric_curves.pop(key))
        if self.result is None:
            return
        frames = [f for f in self.result.frames if f.time > 0]
        t = np.array([f.time for f in frames])
        for key in shown:
            y = np.array([f.metrics[key] for f in frames], dtype=float)
            y[~(y > 0)] = np.nan  # zero (no flips yet) cannot sit on a log axis
            curve = self.metric_curves.get(key)
            if curve is None:
                curve = self.metric_curves[key] = pg.PlotDataItem(
                    pen=pg.mkPen(METRIC_COLOURS[key], width=1.8), name=METRIC_LABELS[key],
                    connect="finite")
                _static(curve)
                self.metrics.addItem(curve)
            curve.setData(t, y)

    def draw(self, index: int):
        """Draw frame ``index`` (clamped); returns the frame drawn or None."""
        if self.result is None or not self.result.frames:
            return None
        frames = self.result.frames
        index = max(0, min(index, len(frames) - 1))
        f = frames[index]
        P = self.positions[: index + 1]  # (T, m, 2)
        for s in (1, -1):
            sel = f.signs == s if s > 0 else f.signs <= 0
            path = np.full((int(sel.sum()), index + 2, 2), np.nan)
            path[:, : index + 1] = P[:, sel].transpose(1, 0, 2)
            flat = path.reshape(-1, 2)
            self.paths[s].setData(flat[:, 0], flat[:, 1])
            self.dots[s].setData(f.neurons[sel, 0], f.neurons[sel, 1])
        x = self.result.setup.grid_angles
        for key in ("net", "linear", "kernel", "ntk"):
            self.curves[key].setData(x, getattr(f, key))
        # t = 0 (the initialisation) has no place on the log time axis: no cursor then
        self.cursor.setVisible(f.time > 0)
        if f.time > 0:
            self.cursor.setValue(np.log10(f.time))
        return f

    def clear(self) -> None:
        self.result = None
        self.cursor.setVisible(False)
        for item in (*self.paths.values(), *self.dots.values(), *self.curves.values(),
                     *self.teacher.values(), self.train_points, self.rays):
            item.setData([], [])
        for curve in self.metric_curves.values():
            curve.setData([], [])



def make_legend() -> pg.LegendItem:
    """The figure's one legend, in its own column beside the plots (it covers no data),
    on a white background with a frame, at its natural height."""
    legend = pg.LegendItem(labelTextSize="8pt", brush=pg.mkBrush(255, 255, 255, 235),
                           pen=pg.mkPen("#bbbbbb"), sampleType=LegendSample)
    # a cell of the figure's layout, not an overlay: it scales with the rest in an export
    # (pyqtgraph's legends ignore the painter's scale, so a 2400-px PNG had 8-px legend text)
    legend.setFlag(legend.GraphicsItemFlag.ItemIgnoresTransformations, False)
    # natural height, top of its column (a stretched legend spreads its rows apart)
    legend.setSizePolicy(QtWidgets.QSizePolicy.Policy.Preferred,
                         QtWidgets.QSizePolicy.Policy.Fixed)
    return legend


#: the legend's groups, in order (``fill_legend(..., groups=...)``)
LEGEND_GROUPS = ("neurons", "predictor", "metrics")


def fill_legend(legend: pg.LegendItem, view: RunView, shown_metrics, columns: int = 1,
                groups=LEGEND_GROUPS, compact: bool = False) -> None:
    """One legend for every run: neurons, predictors, then the metrics shown; in one
    column, or (``columns=3``, a legend under a narrow figure) one column per group.
    ``groups``: the groups listed (a plot exported alone lists its own). ``compact`` (a
    small figure): no group titles (the plots' titles name the groups) and small samples,
    so that the legend leaves the plots at least twice its area."""
    blank = pg.PlotDataItem(pen=None)
    titles = ("<b>neurons p<sub>j</sub> = s|a<sub>j</sub>|b<sub>j</sub></b>", "<b>predictor</b>",
              "<b>metrics</b>")
    heads = [[] if compact else [(blank, title)] for title in titles]
    every_group = [
        heads[0] + [(item, item.name()) for item in (*view.dots.values(), *view.teacher.values())],
        heads[1] + [(item, item.name()) for item in (*view.curves.values(), view.train_points)
                    if item is not view.train_points or view.shows_training_points()],
        heads[2] + [(view.metric_curves.get(key)
                     or pg.PlotDataItem(pen=pg.mkPen(METRIC_COLOURS[key], width=1.8)),
                     METRIC_LABELS[key]) for key in shown_metrics],
    ]
    groups = [entries for name, entries in zip(LEGEND_GROUPS, every_group) if name in groups]
    legend.sampleType = SmallLegendSample if compact else LegendSample
    legend.clear()
    legend.setColumnCount(1 if columns == 1 else len(groups))
    if columns == 1:
        entries = [entry for group in groups for entry in group]
    else:  # the legend fills its rows left to right: interleave the groups, pad with blanks
        depth = max(len(g) for g in groups)
        entries = [g[r] if r < len(g) else (pg.PlotDataItem(pen=None), "")
                   for r in range(depth) for g in groups]
    for item, text in entries:
        legend.addItem(item if item is not blank else pg.PlotDataItem(pen=None), text)
    if compact:  # tight rows: the text's own height, not the default 4-px margins around it
        for _, label in legend.items:
            label.item.document().setDocumentMargin(1)
            label.setText(label.text)
    # exactly as wide as its rows: a narrower cell would let it spill over the metric plot
    # on screen and past the figure's edge in an export
    width = legend.layout.effectiveSizeHint(QtCore.Qt.SizeHint.PreferredSize).width()
    legend.setMinimumWidth(width)
    legend.setMaximumWidth(width)
    # cache the labels' text layout; not the samples (a cached 16-px star sample was clipped
    # to a small black star: its painting overflows the sample's bounding rectangle)
    _static(*(label for _, label in legend.items))
