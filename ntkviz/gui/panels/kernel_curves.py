"""Kernel-curve panel: κ(u) on [-1, 1] for several kernels and depths, the
behaviour near u = 1 on log axes, and a finite-width overlay.

Runs standalone: ``python -m ntkviz.gui.panels.kernel_curves``.
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from ntkviz import limits
from ntkviz.gui.panels._curve_plots import dash, finite_or_nan, log_plot
from ntkviz.gui.panels._kernel_controls import (KernelChoicePanel, log_int_slider,
                                                scroll_column, set_checked, set_slider)
from ntkviz.gui.controls import LabeledSlider, Readout
from ntkviz.gui.hover import CurveHover
from ntkviz.gui.plot_style import (declare_quantity, pen, set_item_name, set_label, set_title,
                                   settle)

__all__ = ["QtKernelCurvesPanel"]

#: smallest size of each plot (px): its title, its axes and its legend (the default
#: kernels' entries in at most two rows) uncut, above a plot area of about 100 px; the two plots
#: and the controls still fit a 1280×720 window
PLOT_MIN = (420, 250)

HELP = """
<h3>Kernel curves κ(u)</h3>
<p>Dot-product kernels on the unit sphere, as functions of the cosine
u = ⟨x, x′⟩ ∈ [−1, 1] (Bietti &amp; Mairal 2019, §2–3):</p>
<ul>
<li>κ0(u) = (π − arccos u)/π and κ1(u) = (√(1 − u²) + u(π − arccos u))/π, the arc-cosine
kernels;</li>
<li>two-layer ReLU NTK: κ(u) = u κ0(u) + κ1(u), with κ(1) = 2;</li>
<li>deep NTK/NNGP with L weight layers and bias variance β: Σ_0 = u + β, q_0 = 1 + β,
Σ_k = k̂(Σ_{k−1}; q_{k−1}) + β, Θ_k = Σ_k + Θ_{k−1} k̂′(Σ_{k−1}; q_{k−1});
NNGP_L = Σ_{L−1}, NTK_L = Θ_{L−1}, where k̂ and k̂′ are the dual maps of the activation σ
normalised by c_σ = 1/E[σ(z)²]. For ReLU and β = 0, NTK_L(1) = L (the paper's convention);
“divided by κ(1)” shows κ(u)/κ(1) instead.</li>
</ul>
<p><b>Near u = 1.</b> For unit vectors with ‖x − y‖² = 2ε (u = 1 − ε), the feature-space distance is
‖Φ(x) − Φ(y)‖² = 2κ(1) − 2κ(1 − ε). For the NTK, κ = 2 − (√2/π)√ε − 2ε + …, so this is
≈ (2√2/π) √ε: the NTK feature map is only Hölder-½ (slope ½ on the log–log plot), while for κ1
it is ≈ 2ε = ‖x − y‖² (Lipschitz, slope 1).</p>
<p><b>Finite width.</b> Empirical NTK/NNGP of random networks of hidden width m (NTK
parameterisation, N(0, 1) weights) at the same depth and activation, drawn as mean ± standard
deviation over the samples; they converge to the limit as m → ∞ with fluctuations ∝ 1/√m.</p>
"""


class QtKernelCurvesPanel(KernelChoicePanel):
    """κ(u) curves, near-one log–log view and finite-width overlay: the view of a
    :class:`~ntkviz.models.kernel_curves.KernelCurvesModel`."""

    HELP = HELP

    def __init__(self, dispatcher, parent=None, model=None, spec=None):
        super().__init__(dispatcher, parent, model, spec)
        self._items: dict[str, list] = {"curves": [], "near_one": []}
        self._labels: dict[str, tuple] = {"curves": (), "near_one": ()}
        self._dots: dict[int, dict] = {}  # overlay symbol options by the reference curve

        # ---------------------------------------------------------- controls
        self._add_chooser()
        self.derivative = QtWidgets.QCheckBox("derivative κ′(u)")
        self.derivative.setToolTip("plot dκ/du instead of κ(u); e.g. κ′ = 2κ0 + u/(π√(1−u²)) "
                                   "for the two-layer NTK, infinite at u = ±1")
        self.near_one = QtWidgets.QCheckBox("near u = 1 view (log–log in 1 − u)")
        self.near_one.setToolTip("plot 2κ(1) − 2κ(1 − ε) = ‖Φ(x) − Φ(y)‖² against ε = 1 − u on "
                                 "log–log axes with the √ε (Hölder-½) and ε (Lipschitz) guides")
        self.points = log_int_slider("grid points", limits.CURVE_POINTS_RANGE, 801,
                                     "number of equally spaced u in [−1, 1]", steps=400)

        self.overlay = QtWidgets.QGroupBox("finite-width overlay")
        self.overlay.setCheckable(True)
        self.overlay.setToolTip("empirical kernel of random networks of width m against the "
                                "limit of the first NTK/NNGP curve (same depth, σ, β)")
        self.width_m = log_int_slider("width m", limits.NET_WIDTH_RANGE, 100,
                                      "hidden-layer width m of the random networks", steps=400)
        self.seed = QtWidgets.QDoubleSpinBox()
        self.seed.setDecimals(0)
        self.seed.setRange(*limits.SEED_RANGE)
        self.seed.setKeyboardTracking(False)
        self.seed.setToolTip("random seed of the networks (the same seed draws the same networks)")
        lo, hi = limits.NET_SAMPLES_RANGE
        self.samples = LabeledSlider("samples", lo, hi, 4, tooltip=f"number of random networks, "
                                     f"{lo}..{hi} (mean ± std drawn)")
        ol = QtWidgets.QVBoxLayout(self.overlay)
        seed_row = QtWidgets.QFormLayout()
        seed_row.addRow("seed", self.seed)
        ol.addWidget(self.width_m)
        ol.addLayout(seed_row)
        ol.addWidget(self.samples)

        self.at_one = Readout("κ(1)", tooltip="value at u = 1 of each curve (κ(1) = L for the "
                                              "depth-L ReLU NTK, β = 0, paper normalisation)")
        self.at_one.setWordWrap(True)

        scroll = scroll_column(self.kernels, self.derivative, self.near_one, self.points,
                               self.overlay, self.at_one)

        # ------------------------------------------------------------- plots
        self.plot = log_plot("Kernel curves κ(u)", "u = cos(x, x′)", "κ(u)")
        self.plot_near = log_plot("Near u = 1: ‖Φ(x) − Φ(y)‖²", "ε = 1 − u",
                                  "2κ(1) − 2κ(1 − ε)", log_x=True, log_y=True)
        self.hover = Readout(tooltip="hover a curve for its exact value")
        self.hover.setText("hover a curve to read exact values")
        self._hovers = [CurveHover(self.plot.getPlotItem(), self.hover, "u", "κ"),
                        CurveHover(self.plot_near.getPlotItem(), self.hover, "ε", "value")]
        self._err_items = []
        splitter = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        for plot in (self.plot, self.plot_near):
            plot.setMinimumSize(*PLOT_MIN)  # a smaller view would cut the figure
            splitter.addWidget(plot)
        splitter.setChildrenCollapsible(False)
        right = QtWidgets.QWidget()
        rl = QtWidgets.QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addWidget(splitter, 1)
        rl.addWidget(self.hover)

        lay = QtWidgets.QHBoxLayout(self)
        lay.addWidget(scroll)
        lay.addWidget(right, 1)

        self.sync_widgets(frozenset(self.model.to_session()))
        # every edit writes through the model (which validates and notifies the view)
        self.derivative.toggled.connect(lambda v: self.write(derivative=v))
        self.near_one.toggled.connect(lambda v: self.write(near_one=v))
        self.overlay.toggled.connect(lambda v: self.write(overlay=v))
        self.points.valueChanged.connect(lambda v: self.write(n_points=int(v)))
        self.width_m.valueChanged.connect(lambda v: self.write(width=int(v)))
        self.seed.valueChanged.connect(lambda v: self.write(seed=int(v)))
        self.samples.valueChanged.connect(lambda v: self.write(n_samples=int(v)))

    # ------------------------------------------------------------- the model
    def sync_widgets(self, changed: frozenset) -> None:
        super().sync_widgets(changed)
        p = self.model.params
        set_checked(self.derivative, p.derivative)
        set_checked(self.near_one, p.near_one)
        set_checked(self.overlay, p.overlay)
        set_slider(self.points, p.n_points)
        set_slider(self.width_m, p.width)
        set_slider(self.samples, p.n_samples)
        if int(self.seed.value()) != p.seed:
            self.seed.blockSignals(True)
            self.seed.setValue(p.seed)
            self.seed.blockSignals(False)

    # --------------------------------------------------------------- drawing
    def _sync(self, view: str, plot: pg.PlotWidget, labels: tuple) -> list:
        """Make ``plot`` hold one PlotDataItem per label: items are re-created only when
        their number changes, otherwise renamed in place (dragging stays cheap).
        No ``dynamicRangeLimit``: it re-processes every curve on each y-range change (twice
        per update) and clips only points 10^6 view heights away."""
        items = self._items[view]
        if len(items) != len(labels):
            for item in items:
                plot.removeItem(item)
            items = self._items[view] = [plot.plot(name=lab, dynamicRangeLimit=None)
                                         for lab in labels]
        elif self._labels[view] != labels:
            for item, lab in zip(items, labels):
                set_item_name(plot, item, lab)
        self._labels[view] = labels
        return items

    def apply_response(self, r) -> None:
        deriv = r.request.derivative
        pi = self.plot.getPlotItem()
        set_label(pi, "left", "κ′(u) = dκ/du" if deriv else "κ(u)")
        set_title(pi, "Derivatives κ′(u)" if deriv else "Kernel curves κ(u)")
        declare_quantity(pi, "κ′(u)" if deriv else "κ(u)")  # what the curves below are
        labels = tuple(f"{c.label}′" if deriv else c.label for c in r.curves)
        emp = r.empirical if not deriv else None
        if emp is not None:
            labels += (f"{emp.label} (mean ± std, {emp.samples.shape[0]} nets)",)
        items = self._sync("curves", self.plot, labels)
        for i, c in enumerate(r.curves):
            items[i].setData(r.u, finite_or_nan(c.derivative if deriv else c.value), pen=pen(i),
                             connect="finite")
        for e in self._err_items:
            pi.removeItem(e)
        self._err_items = []
        if emp is not None:
            ref = next(i for i, c in enumerate(r.curves) if c.spec == r.request.overlay_spec())
            items[-1].setData(emp.u, emp.mean, **self._overlay_dots(ref))
            bars = pg.ErrorBarItem(x=np.asarray(emp.u), y=np.asarray(emp.mean),
                                   height=2 * np.asarray(emp.std), pen=pen(ref, 1.0), beam=0.0)
            pi.addItem(bars)
            self._err_items.append(bars)
        show_near = self.model.params.near_one and r.near_one is not None
        self.plot_near.setVisible(show_near)
        if show_near:
            self._draw_near_one(r)
        settle(self.plot, self.plot_near)
        at_one = ", ".join(f"{c.label}: {c.value_at_one:.10g}" for c in r.curves)
        self.at_one.setValue(at_one)
        msg = f"{self.title}: {len(r.curves)} curve(s), {len(r.u)} points"
        if emp is not None:
            dev = float(np.max(np.abs(np.asarray(emp.mean) - np.asarray(emp.limit))))
            msg += f"; width m = {emp.width}: max |mean − limit| = {dev:.3g}"
        self.status.emit(msg)

    def _overlay_dots(self, ref: int) -> dict:
        """Symbol options of the finite-width overlay in curve ``ref``'s colour: the same
        ``QPen``/``QBrush`` objects on every update (pyqtgraph's symbol atlas keys them by
        identity: new ones render the symbol again and grow the atlas each update)."""
        dots = self._dots.get(ref)
        if dots is None:
            dots = self._dots[ref] = dict(pen=None, symbol="o", symbolSize=6,
                                          symbolPen=pen(ref, 1.2), symbolBrush=pg.mkBrush("w"))
        return dots

    def _draw_near_one(self, r) -> None:
        n = r.near_one
        # a log axis shows positive finite values only (gap = 0 where κ is flat, inf
        # when κ(1) is infinite, e.g. the deep step-activation NTK): say what is missing
        oks = [np.isfinite(gap) & (gap > 0) for gap in n.gap]
        labels = tuple(c.label if ok.any() else f"{c.label}: not drawn (κ(1) = {c.value_at_one:g})"
                       for c, ok in zip(r.curves, oks)) + tuple(g[0] for g in n.guides)
        items = self._sync("near_one", self.plot_near, labels)
        for i, (gap, ok) in enumerate(zip(n.gap, oks)):
            items[i].setData(n.eps[ok], gap[ok], pen=pen(i))
        for j, g in enumerate(n.guides):
            items[len(n.gap) + j].setData(n.eps, g[3], pen=pen("#555555", 1.5, dash(j)))

    # ------------------------------------------------------------- export
    def plot_items(self) -> dict:
        return {"curves": self.plot.getPlotItem(), "near_one": self.plot_near.getPlotItem()}


if __name__ == "__main__":
    from ntkviz.gui.app import run_standalone

    raise SystemExit(run_standalone(QtKernelCurvesPanel))
