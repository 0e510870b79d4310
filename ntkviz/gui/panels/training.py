"""Lazy-training panel: a two-layer ReLU network trained at output scale α, beside its
linearisation and kernel regression with the tangent kernel (Chizat, Oyallon & Bach 2019).

Views per run (one row, or two rows side by side for two values of α): neurons
p_j = s|a_j|b_j with their trajectories coloured by sign(a_j) and the teacher
neurons; the predictors on the circle; the metrics against time on log axes.
Frames arrive progressively from a generator job on the heavy pool; a ``QTimer``
ticking twice per frame period plays them at 30 frames/s, drawing the frame the
wall clock has reached and dropping a tick while the previous frame is still being
drawn (napari's ``_play_ready`` pattern).

Runs standalone: ``python -m ntkviz.gui.panels.training``.
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtCore import Signal

from ntkviz.gui.panels._base import QtPanel
from ntkviz.gui.widgets import PALETTE, DecadeLogAxis, LabeledSlider, Readout, pen

__all__ = ["QtTrainingPanel"]

#: playback rate (frames of the timeline per second)
FPS = 30
#: timer ticks per frame period: a frame is drawn within half a period of falling due, so a
#: late tick (timer jitter, a busy core) does not skip it
TICKS_PER_FRAME = 2
#: metrics drawn by default (keys of ntkviz.core.dynamics.METRICS)
DEFAULT_METRICS = ("train_loss", "test_loss", "relative_displacement", "gap", "kernel_drift",
                   "flip_share")
METRIC_LABELS = {
    "train_loss": "train loss", "test_loss": "test loss",
    "linear_train_loss": "train loss (linearised)", "linear_test_loss": "test loss (linearised)",
    "kernel_test_loss": "test loss (kernel K₀)", "ntk_test_loss": "test loss (NTK ∞)",
    "displacement": "‖w − w₀‖", "relative_displacement": "‖w − w₀‖/‖w₀‖",
    "linear_displacement": "‖w̄ − w₀‖ (linearised)", "gap": "net − linearised (test)",
    "train_gap": "net − linearised (train)", "kernel_drift": "‖K_t − K₀‖/‖K₀‖",
    "flip_share": "ReLU flips",
}
#: colours: sign(a_j) > 0 vermillion, < 0 blue (the paper's red/blue)
POS, NEG = PALETTE[1], PALETTE[0]
#: one distinct colour per metric (Okabe–Ito first, then darker extras)
METRIC_COLOURS = dict(zip(METRIC_LABELS, (
    "#0072B2", "#56B4E9", "#004466", "#7fb8d8", "#009E73", "#9c9c00", "#6b3fa0", "#CC79A7",
    "#a0522d", "#D55E00", "#f08a4b", "#000000", "#E69F00")))

HELP = """
<h3>Lazy training (Chizat, Oyallon &amp; Bach, NeurIPS 2019)</h3>
<p>Student f(x) = s Σ<sub>j≤m</sub> a<sub>j</sub> max(b<sub>j</sub>·x, 0) (s = 1, or 1/√m with
“NTK scaling”), inputs uniform on the circle (d = 2) or on S<sup>d−1</sup>; teacher
y(x) = Σ<sub>k≤m₀</sub> a*<sub>k</sub> max(b*<sub>k</sub>·x, 0) with ‖b*<sub>k</sub>‖ = 1,
a*<sub>k</sub> = ±1. Symmetrised initialisation (b<sub>j+m/2</sub> = b<sub>j</sub>,
a<sub>j+m/2</sub> = −a<sub>j</sub>, weights N(0, 1)) makes f(w₀) = 0 exactly; “centered” uses
i.i.d. weights and h = f − f(w₀).</p>
<p>Gradient descent on F<sub>α</sub>(w) = α<sup>−2</sup> (1/2n) Σ (α h(w; x<sub>i</sub>) − y<sub>i</sub>)²
with the <b>same step size for every α</b>; time t = step size × steps. Because f is
2-homogeneous, output scale α is the same model as initialisation scale τ = √α
(α = τ²): the paper's τ = 0.1 is α = 0.01 (non-lazy), τ = 2 is α = 4 (lazy). Neurons are
drawn in the paper's τ-parameterisation, p<sub>j</sub> = α s |a<sub>j</sub>| b<sub>j</sub>,
coloured by the sign of a<sub>j</sub>; stars are the teacher neurons.</p>
<p><b>Curves.</b> net α h(w<sub>t</sub>); linearised: gradient descent on
α Dh(w₀)(w − w₀), which is kernel gradient descent with the empirical tangent kernel K₀ and
does not depend on α; kernel K₀ and NTK ∞: the closed-form gradient flows
u′ = −(1/n) K (u − y), u(0) = 0, with K₀ and with the infinite-width NTK
(m s²/2) κ(x·x′), κ = uκ₀ + κ₁ (one eigendecomposition, then predict(t)).</p>
<p><b>Metrics.</b> ‖w − w₀‖ in the α-parameterisation (O(1/α), Thm 2.2) and relative to
‖w₀‖; the net–linearised gap (RMS over test inputs or training inputs); the kernel drift
‖K<sub>t</sub> − K₀‖<sub>F</sub>/‖K₀‖<sub>F</sub> on the training inputs; the share of ReLU
patterns 1{b<sub>j</sub>·x<sub>i</sub> &gt; 0} changed since initialisation. Large α: weights
barely move, the net tracks its linearisation and kernel regression with K₀. Small α: neurons
travel O(1) to the teacher directions.</p>
<p><b>Step size.</b> Lazy runs need step size &lt; 2n/λ<sub>max</sub>(K₀) (shown); small α needs
roughly step size ≲ α/2. A diverging run stops with a message; the frames before stay.</p>
"""


def _log_plot(title: str, xlabel: str, ylabel: str, log: bool = False) -> pg.PlotItem:
    axes = {"bottom": DecadeLogAxis("bottom"), "left": DecadeLogAxis("left")} if log else {}
    item = pg.PlotItem(axisItems=axes)
    item.setTitle(title, size="10pt")
    item.setLabel("bottom", xlabel)
    item.setLabel("left", ylabel)
    item.showGrid(x=True, y=True, alpha=0.15)
    item.setLogMode(x=log, y=log)
    for name in ("bottom", "left"):
        item.getAxis(name).enableAutoSIPrefix(False)
    # axes, labels and title are static while a run plays: paint them from a cache
    _static(item.titleLabel, item.getAxis("bottom"), item.getAxis("left"))
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


class _RunView:
    """The three plots of one run and their items (GUI thread only)."""

    def __init__(self):
        self.neurons = _log_plot("", "p₁", "p₂")
        self.neurons.setAspectLocked(True)
        self.neurons.showGrid(x=False, y=False)  # the unit circle and teacher rays guide the eye
        self.predictor = _log_plot("predictor on the circle", "angle θ, x = (cos θ, sin θ)",
                                   "output")
        self.metrics = _log_plot("metrics", "time t = step size × step", "", log=True)
        self.predictor.getAxis("bottom").setTicks(
            [[(k * np.pi / 2, lab) for k, lab in enumerate(("0", "π/2", "π", "3π/2", "2π"))]])
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
        # per-response caches
        self.result = None
        self.positions = np.zeros((0, 0, 2))
        self.radius = 0.0
        self.seen = 0
        self.ylim = (0.0, 1.0)

    def plots(self):
        return self.neurons, self.predictor, self.metrics

    def set_result(self, result, shown_metrics) -> None:
        """A (possibly longer) version of this run's result arrived."""
        fresh = self.result is None or self.result.setup is not result.setup
        self.result = result
        cfg, setup = result.setup.config, result.setup
        if fresh:
            projected = "" if cfg.dim == 2 else ", (e₁, e₂) coordinates"
            self.neurons.setTitle(f"α = {cfg.alpha:.4g} (τ = {cfg.tau:.3g}): neurons "
                                  f"p<sub>j</sub> = s|a<sub>j</sub>|b<sub>j</sub>{projected}",
                                  size="10pt")
            tp = setup.teacher_positions
            for s in (1, -1):
                sel = np.sign(setup.teacher_a) == s
                self.teacher[s].setData(tp[sel, 0], tp[sel, 1])
            if cfg.dim == 2:
                self.train_points.setData(setup.train_angles, setup.y_train)
            else:
                self.train_points.setData([], [])
            self.curves["target"].setData(setup.grid_angles, setup.y_grid)
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
        if f.time > 0:
            self.cursor.setValue(np.log10(f.time))
        return f

    def clear(self) -> None:
        self.result = None
        for item in (*self.paths.values(), *self.dots.values(), *self.curves.values(),
                     *self.teacher.values(), self.train_points, self.rays):
            item.setData([], [])
        for curve in self.metric_curves.values():
            curve.setData([], [])


class QtTrainingPanel(QtPanel):
    """Neurons, predictors and metrics of lazy vs non-lazy training, animated."""

    key = "training"
    title = "Lazy training"
    heavy = True
    generator = True
    throttle_ms = 150

    #: emitted after a frame was drawn: the timeline index
    frame_shown = Signal(int)

    def __init__(self, dispatcher, parent=None):
        super().__init__(dispatcher, parent)
        from ntkviz.core.dynamics import METRICS
        from ntkviz.jobs import TrainRequest

        defaults = TrainRequest()
        d = defaults.config
        self._request = None  # the request whose frames are shown
        self._data = None  # latest TrainResponse (partial or final) for _request
        self._index = 0
        self._requested_frame = -1  # frame to show when a run completes (sessions, export)
        self.autoplay = True
        self.fps = FPS  #: timeline frames per second while playing
        self._hidden = {"frames": d.frames, "log_time": d.log_time}  # no widget: sessions, CLI
        self._play_ready = True
        self._shown = (None, -1)  # (request, index) last drawn
        self.frames_drawn = 0
        self.frames_dropped = 0

        # ---------------------------------------------------------------- controls
        log = dict(mapping="log", steps=400)
        self.alpha = LabeledSlider("α", 1e-3, 1e4, d.alpha, decimals=4, **log,
                                   tooltip="output scale α (= τ², τ the initialisation std)")
        self.tau = Readout("τ = √α", fmt="{:.4g}")
        self.compare = QtWidgets.QGroupBox("side by side with a second α")
        self.compare.setCheckable(True)
        self.compare.setChecked(defaults.compare_alpha is not None)
        self.alpha2 = LabeledSlider("α₂", 1e-3, 1e4, defaults.compare_alpha or 100.0, decimals=4,
                                    **log,
                                    tooltip="output scale of the second run (same data, "
                                            "initialisation and step size)")
        self.tau2 = Readout("τ₂", fmt="{:.4g}")
        cl = QtWidgets.QVBoxLayout(self.compare)
        cl.addWidget(self.alpha2)
        cl.addWidget(self.tau2)
        self.width_m = LabeledSlider("width m", 2, 2000, d.width, mapping="log", integer=True,
                                     steps=300, tooltip="student width m (even: neurons come in "
                                                        "symmetrised pairs)")
        self.samples = LabeledSlider("samples n", 1, 1000, d.samples, mapping="log", integer=True,
                                     steps=300, tooltip="number of training inputs")
        self.teacher = LabeledSlider("teacher m₀", 1, 20, d.teacher,
                                     tooltip="teacher neurons (unit norm, random signs)")
        self.dim = LabeledSlider("dimension d", 2, 100, d.dim, mapping="log", integer=True,
                                 steps=200, tooltip="inputs on S^{d−1}; views use the first two "
                                                    "coordinates (d > 2: the great circle in "
                                                    "the (e₁, e₂) plane)")
        self.lr = LabeledSlider("step size", 1e-5, 10.0, d.lr, decimals=5, **log,
                                tooltip="gradient-descent step size, the same for every α")
        self.steps = LabeledSlider("steps", 10, 200000, d.steps, mapping="log", integer=True,
                                   steps=300, tooltip="number of gradient steps")
        self.seed = LabeledSlider("seed", 0, 9999, d.seed, tooltip="teacher, data and "
                                  "initialisation (the same for every α)")
        self.init = QtWidgets.QComboBox()
        self.init.addItems(["symmetric", "centered"])
        self.init.setToolTip("symmetric: paired neurons, f(w₀) = 0 exactly; centered: i.i.d. "
                             "weights and h = f − f(w₀)")
        self.ntk_scaling = QtWidgets.QCheckBox("NTK scaling 1/√m")
        self.ntk_scaling.setToolTip("multiply the student by 1/√m")
        self.lr_limit = Readout("lazy stability 2n/λmax(K₀)", fmt="{:.3g}",
                                tooltip="step sizes above this make the linearised model "
                                        "(and lazy nets) diverge")
        self.metric_list = QtWidgets.QListWidget()
        self.metric_list.setToolTip("metrics drawn against time (log–log)")
        for key in METRICS:
            it = QtWidgets.QListWidgetItem(METRIC_LABELS[key])
            it.setData(QtCore.Qt.ItemDataRole.UserRole, key)
            it.setFlags(it.flags() | QtCore.Qt.ItemFlag.ItemIsUserCheckable)
            it.setCheckState(QtCore.Qt.CheckState.Checked if key in DEFAULT_METRICS
                             else QtCore.Qt.CheckState.Unchecked)
            it.setToolTip(METRICS[key])
            self.metric_list.addItem(it)
        self.metric_list.setMaximumHeight(150)
        self.message = QtWidgets.QLabel()
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #b00000;")
        self.readouts = [QtWidgets.QLabel(), QtWidgets.QLabel()]
        for r in self.readouts:
            r.setWordWrap(True)
            r.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)

        form = QtWidgets.QWidget()
        fl = QtWidgets.QVBoxLayout(form)
        for w in (self.alpha, self.tau, self.compare, self.width_m, self.samples, self.teacher,
                  self.dim, self.lr, self.lr_limit, self.steps, self.seed):
            fl.addWidget(w)
        row = QtWidgets.QHBoxLayout()
        row.addWidget(QtWidgets.QLabel("initialisation"))
        row.addWidget(self.init, 1)
        fl.addLayout(row)
        fl.addWidget(self.ntk_scaling)
        fl.addWidget(QtWidgets.QLabel("metrics shown"))
        fl.addWidget(self.metric_list)
        fl.addWidget(self.message)
        for r in self.readouts:
            fl.addWidget(r)
        fl.addStretch(1)
        scroll = QtWidgets.QScrollArea()
        scroll.setWidget(form)
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setMinimumWidth(form.sizeHint().width() + 24)
        scroll.setMaximumWidth(360)

        # ------------------------------------------------------------------ plots
        self.canvas = pg.GraphicsLayoutWidget()
        self.canvas.setBackground("w")
        self.canvas.viewport().installEventFilter(self)
        self.layout_item = self.canvas.ci
        self.views = [_RunView(), _RunView()]
        self.legend = pg.LegendItem(labelTextSize="8pt")
        # natural height, top of its column (a stretched legend spreads its rows apart)
        self.legend.setSizePolicy(QtWidgets.QSizePolicy.Policy.Preferred,
                                  QtWidgets.QSizePolicy.Policy.Fixed)
        self._rows_shown = 0
        self._arrange(1 + self.compare.isChecked())
        self._fill_legend()

        # --------------------------------------------------------------- timeline
        style = self.style()
        self.play_button = QtWidgets.QToolButton()
        self.play_button.setCheckable(True)
        self.play_button.setIcon(style.standardIcon(QtWidgets.QStyle.StandardPixmap.SP_MediaPlay))
        self.play_button.setToolTip("play / pause the training animation (30 frames/s)")
        self.back_button = QtWidgets.QToolButton()
        self.back_button.setIcon(
            style.standardIcon(QtWidgets.QStyle.StandardPixmap.SP_MediaSeekBackward))
        self.back_button.setToolTip("previous frame")
        self.step_button = QtWidgets.QToolButton()
        self.step_button.setIcon(
            style.standardIcon(QtWidgets.QStyle.StandardPixmap.SP_MediaSeekForward))
        self.step_button.setToolTip("next frame")
        self.timeline = QtWidgets.QSlider(QtCore.Qt.Orientation.Horizontal)
        self.timeline.setRange(0, 0)
        self.timeline.setToolTip("scrub the recorded frames")
        self.frame_label = QtWidgets.QLabel("no frames yet")
        self.frame_label.setMinimumWidth(240)
        bar = QtWidgets.QHBoxLayout()
        for w in (self.play_button, self.back_button, self.step_button):
            bar.addWidget(w)
        bar.addWidget(self.timeline, 1)
        bar.addWidget(self.frame_label)

        right = QtWidgets.QVBoxLayout()
        right.addWidget(self.canvas, 1)
        right.addLayout(bar)
        lay = QtWidgets.QHBoxLayout(self)
        lay.addWidget(scroll)
        lay.addLayout(right, 1)

        self._timer = QtCore.QTimer(self)
        self._timer.setInterval(int(1000 / (TICKS_PER_FRAME * FPS)))
        self._timer.setTimerType(QtCore.Qt.TimerType.PreciseTimer)
        self._timer.timeout.connect(self._on_tick)
        self._clock = QtCore.QElapsedTimer()
        self._origin = 0

        # ------------------------------------------------------------------ wiring
        for w in (self.alpha, self.alpha2, self.samples, self.teacher, self.dim, self.lr,
                  self.steps, self.seed):
            w.valueChanged.connect(self._on_param)
        self.width_m.valueChanged.connect(self._on_width)
        self.compare.toggled.connect(self._on_param)
        self.init.currentIndexChanged.connect(self._on_param)
        self.ntk_scaling.toggled.connect(self._on_param)
        self.metric_list.itemChanged.connect(self._on_metrics_changed)
        self.play_button.toggled.connect(self._on_play_toggled)
        self.step_button.clicked.connect(lambda: self._step(+1))
        self.back_button.clicked.connect(lambda: self._step(-1))
        self.timeline.valueChanged.connect(self._on_scrub)
        self._update_tau()

    # ------------------------------------------------------------------ requests
    def build_request(self):
        from ntkviz.jobs import TrainRequest

        request = TrainRequest.from_state(self.state())
        return request.iterate

    def refresh(self, *, immediate: bool = False) -> int:
        """Submit the current parameters; on success the old frames are dropped at once."""
        rid = super().refresh(immediate=immediate)
        if rid:
            from ntkviz.jobs import TrainRequest

            self._start_run(TrainRequest.from_state(self.state()))
        return rid

    def _start_run(self, request) -> None:
        self._request, self._data = request, None
        self._index = 0
        for v in self.views:
            v.clear()
        self.message.setText("")
        self._arrange(len(request.configs()))
        self.timeline.blockSignals(True)
        self.timeline.setRange(0, 0)
        self.timeline.blockSignals(False)
        self.frame_label.setText("computing…")
        if self.play_button.isChecked():
            self._restart_clock(0)

    def apply_item(self, item) -> None:
        self._take(item)

    def apply_response(self, response) -> None:
        self._take(response)
        if response.diverged:
            self.message.setText(response.message)
            self.status.emit(f"{self.title}: {response.message}")
        else:
            runs = response.runs
            self.status.emit(f"{self.title}: {len(runs[0].frames)} frames, "
                             + ", ".join(f"α = {r.setup.config.alpha:g}" for r in runs))
        if not self.play_button.isChecked():
            index, self._requested_frame = self._requested_frame, -1  # applied once
            self.show_frame(index if index >= 0 else self.frame_count() - 1)

    def _take(self, response) -> None:
        if response is None or response.request != self._request:
            return  # a stale item of a superseded run
        first = self._data is None
        self._data = response
        for view, run in zip(self.views, response.runs):
            view.set_result(run, self.shown_metrics())
        self.lr_limit.setValue(response.runs[0].setup.lr_limit)
        self.timeline.blockSignals(True)
        self.timeline.setRange(0, max(0, self.frame_count() - 1))
        self.timeline.blockSignals(False)
        if response.diverged:
            self.message.setText(response.message)
        if first:
            restoring = self._requested_frame >= 0  # a session or export asks for one frame
            if self.autoplay and not restoring and not self.play_button.isChecked():
                self.play_button.setChecked(True)  # starts the clock at frame 0
            elif not self.play_button.isChecked():
                self.show_frame(0)

    # ------------------------------------------------------------------ timeline
    def frame_count(self) -> int:
        return 0 if self._data is None else self._data.frame_count

    def current_index(self) -> int:
        return self._index

    def show_frame(self, index: int) -> None:
        """Draw timeline frame ``index`` (clamped) in every run."""
        n = self.frame_count()
        if n == 0:
            return
        index = max(0, min(int(index), n - 1))
        self._play_ready = False
        self._index = index
        self._shown = (self._request, index)
        self.timeline.blockSignals(True)
        self.timeline.setValue(index)
        self.timeline.blockSignals(False)
        texts = []
        for k, (view, run) in enumerate(zip(self.views, self._data.runs)):
            f = view.draw(index)
            if f is None:
                continue
            m = f.metrics
            cfg = run.setup.config
            late = " (stopped)" if index >= len(run.frames) else ""
            texts.append(
                f"<b>α = {cfg.alpha:.4g}</b> (τ = {cfg.tau:.3g}){late}: step {f.step}, "
                f"t = {f.time:.4g}<br>train loss {m['train_loss']:.3g}, test loss "
                f"{m['test_loss']:.3g}<br>‖w − w₀‖/‖w₀‖ = {m['relative_displacement']:.3g}, "
                f"gap {m['gap']:.3g}<br>kernel drift {m['kernel_drift']:.3g}, ReLU flips "
                f"{100 * m['flip_share']:.2g}%")
        for label, text in zip(self.readouts, texts + ["", ""]):
            label.setText(text)
            label.setVisible(bool(text))
        f0 = self._data.frame(0, index)
        self.frame_label.setText(f"frame {index + 1}/{self.frame_count()}, step {f0.step}, "
                                 f"t = {f0.time:.4g}" + ("" if self._data.done else " …"))
        self.frames_drawn += 1
        self.frame_shown.emit(index)
        if not self.canvas.isVisible():
            self._play_ready = True  # nothing will be painted (hidden tab, headless)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt API
        """The canvas is about to paint the last frame: the next tick may draw again."""
        if event.type() == QtCore.QEvent.Type.Paint:
            self._play_ready = True
        return False

    def _restart_clock(self, origin: int) -> None:
        self._origin = origin
        self._clock.start()

    def _on_tick(self) -> None:
        if not self.isVisible():
            return  # another tab is shown: draw nothing, the clock keeps running
        if not self._play_ready:
            self.frames_dropped += 1  # the last frame is still being drawn: skip this tick
            return
        n = self.frame_count()
        if n == 0:
            return
        target = self._origin + int(self._clock.elapsed() * self.fps / 1000)
        if target >= n - 1:
            target = n - 1
            if self._data.done:
                self.play_button.setChecked(False)  # reached the end
        if self._shown != (self._request, target):
            self.show_frame(target)

    def _on_play_toggled(self, playing: bool) -> None:
        style = self.style()
        icon = (QtWidgets.QStyle.StandardPixmap.SP_MediaPause if playing
                else QtWidgets.QStyle.StandardPixmap.SP_MediaPlay)
        self.play_button.setIcon(style.standardIcon(icon))
        if playing:
            start = 0 if self._index >= self.frame_count() - 1 and self._data is not None \
                and self._data.done else self._index
            self._restart_clock(start)
            if self.frame_count():
                self.show_frame(start)
            self._timer.start(max(1, int(1000 / (TICKS_PER_FRAME * self.fps))))
        else:
            self._timer.stop()

    def play(self) -> None:
        self.play_button.setChecked(True)

    def pause(self) -> None:
        self.play_button.setChecked(False)

    def is_playing(self) -> bool:
        return self.play_button.isChecked()

    def _step(self, delta: int) -> None:
        self.pause()
        self.show_frame(self._index + delta)

    def _on_scrub(self, value: int) -> None:
        self.show_frame(value)
        if self.is_playing():
            self._restart_clock(value)

    # ------------------------------------------------------------------ parameters
    def _on_param(self, *_):
        self._update_tau()
        self.refresh()

    def _on_width(self, value) -> None:
        if value % 2:
            self.width_m.setValue(value + 1 if value < self.width_m.maximum else value - 1)
            return  # setValue re-enters with the even width
        self.refresh()

    def _update_tau(self) -> None:
        self.tau.setValue(float(np.sqrt(self.alpha.value())))
        self.tau2.setValue(float(np.sqrt(self.alpha2.value())))

    def shown_metrics(self) -> list[str]:
        out = []
        for i in range(self.metric_list.count()):
            it = self.metric_list.item(i)
            if it.checkState() == QtCore.Qt.CheckState.Checked:
                out.append(it.data(QtCore.Qt.ItemDataRole.UserRole))
        return out

    def _on_metrics_changed(self, *_):
        shown = self.shown_metrics()
        for v in self.views:
            v.set_metrics(shown)
        self._fill_legend()

    def _fill_legend(self) -> None:
        """One legend for every run, in its own column: neurons, predictors, metrics."""
        legend, view = self.legend, self.views[0]
        legend.clear()

        def header(text):
            legend.addItem(pg.PlotDataItem(pen=None), f"<b>{text}</b>")

        header("neurons")
        for item in (*view.dots.values(), *view.teacher.values()):
            legend.addItem(item, item.name())
        header("predictor")
        for item in (*view.curves.values(), view.train_points):
            legend.addItem(item, item.name())
        header("metrics")
        for key in self.shown_metrics():
            curve = view.metric_curves.get(key)
            if curve is None:
                curve = pg.PlotDataItem(pen=pg.mkPen(METRIC_COLOURS[key], width=1.8))
            legend.addItem(curve, METRIC_LABELS[key])
        _static(legend)  # with its new samples and labels

    def _arrange(self, rows: int) -> None:
        """Lay out one row of plots per run."""
        if rows == self._rows_shown:
            return
        lay = self.layout_item
        for view in self.views[: self._rows_shown]:
            for plot in view.plots():
                lay.removeItem(plot)
        if self._rows_shown:
            lay.removeItem(self.legend)
        for r, view in enumerate(self.views[:rows]):
            for c, plot in enumerate(view.plots()):
                lay.addItem(plot, row=r, col=c)
        lay.addItem(self.legend, row=0, col=3, rowspan=rows)
        lay.layout.setAlignment(self.legend, QtCore.Qt.AlignmentFlag.AlignTop)
        grid = lay.layout
        for c, stretch in enumerate((10, 12, 13, 1)):
            grid.setColumnStretchFactor(c, stretch)
        self._rows_shown = rows

    # ------------------------------------------------------------------ export / sessions
    def plot_items(self) -> dict:
        items = {"figure": self.layout_item}
        for k, view in enumerate(self.views[: self._rows_shown]):
            suffix = "" if k == 0 else "_2"
            items.update({f"neurons{suffix}": view.neurons, f"predictor{suffix}": view.predictor,
                          f"metrics{suffix}": view.metrics})
        return items

    def csv_table(self, view: str):
        if self._data is None:
            raise ValueError("nothing computed yet")
        base = view.removesuffix("_2")
        return self._data.csv_table("metrics" if base == "figure" else base, self._index)

    def state(self) -> dict:
        return {
            "alpha": self.alpha.value(),
            "compare_alpha": self.alpha2.value() if self.compare.isChecked() else None,
            "alpha2": self.alpha2.value(),
            "width": self.width_m.value(), "samples": self.samples.value(),
            "teacher": self.teacher.value(), "dim": self.dim.value(), "lr": self.lr.value(),
            "steps": self.steps.value(), "seed": self.seed.value(),
            "init": self.init.currentText(), "ntk_scaling": self.ntk_scaling.isChecked(),
            "metrics": self.shown_metrics(), "frame": self._index if self._data else -1,
            "autoplay": self.autoplay, **self._hidden,
        }

    def set_state(self, state: dict) -> None:
        sliders = {"alpha": self.alpha, "alpha2": self.alpha2, "width": self.width_m,
                   "samples": self.samples, "teacher": self.teacher, "dim": self.dim,
                   "lr": self.lr, "steps": self.steps, "seed": self.seed}
        widgets = (*sliders.values(), self.compare, self.init, self.ntk_scaling, self.metric_list)
        for w in widgets:
            w.blockSignals(True)
        try:
            for key, w in sliders.items():
                if key in state:
                    w.restore(state[key])
            if "compare_alpha" in state:
                compare = state["compare_alpha"]
                self.compare.setChecked(compare is not None)
                if compare is not None:
                    self.alpha2.restore(compare)
            if "init" in state:
                if state["init"] not in ("symmetric", "centered"):
                    raise ValueError(f"init must be symmetric or centered, got {state['init']!r}")
                self.init.setCurrentText(state["init"])
            self.ntk_scaling.setChecked(bool(state.get("ntk_scaling",
                                                       self.ntk_scaling.isChecked())))
            if "metrics" in state:
                wanted = set(state["metrics"])
                for i in range(self.metric_list.count()):
                    it = self.metric_list.item(i)
                    on = it.data(QtCore.Qt.ItemDataRole.UserRole) in wanted
                    it.setCheckState(QtCore.Qt.CheckState.Checked if on
                                     else QtCore.Qt.CheckState.Unchecked)
            self.autoplay = bool(state.get("autoplay", self.autoplay))
            for key in self._hidden:
                self._hidden[key] = state.get(key, self._hidden[key])
            self._requested_frame = int(state.get("frame", -1))
        finally:
            for w in widgets:
                w.blockSignals(False)
        self._update_tau()
        self._on_metrics_changed()
        if not self.autoplay:
            self.pause()
        self.refresh()

    def help_html(self) -> str:
        return HELP

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt API
        self._timer.stop()
        super().closeEvent(event)


if __name__ == "__main__":
    import sys

    from ntkviz.gui.app import run_standalone

    sys.exit(run_standalone(QtTrainingPanel))
