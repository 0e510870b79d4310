"""Kernel-curve panel: κ(u) on [-1, 1] for several kernels and depths, the
behaviour near u = 1 on log axes, and a finite-width overlay.

Runs standalone: ``python -m ntkviz.gui.panels.kernel_curves``.
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from ntkviz.gui.panels._base import QtPanel
from ntkviz.gui.panels._kernel_controls import KernelChooser
from ntkviz.gui.widgets import (CurveHover, LabeledSlider, Readout, html_maths, make_plot, pen,
                                set_item_name, set_label, set_title, settle)

__all__ = ["QtKernelCurvesPanel"]

HELP = """
<h3>Kernel curves κ(u)</h3>
<p>Dot-product kernels on the unit sphere, as functions of the cosine
u = ⟨x, x′⟩ ∈ [−1, 1] (Bietti &amp; Mairal 2019, §2–3):</p>
<ul>
<li>κ0(u) = (π − arccos u)/π and κ1(u) = (√(1 − u²) + u(π − arccos u))/π, the arc-cosine kernels;</li>
<li>two-layer ReLU NTK: κ(u) = u κ0(u) + κ1(u), with κ(1) = 2;</li>
<li>deep NTK/NNGP with L weight layers and bias variance β: Σ_0 = u + β, q_0 = 1 + β,
Σ_k = k̂(Σ_{k−1}; q_{k−1}) + β, Θ_k = Σ_k + Θ_{k−1} k̂′(Σ_{k−1}; q_{k−1});
NNGP_L = Σ_{L−1}, NTK_L = Θ_{L−1}, where k̂ and k̂′ are the dual maps of the activation σ
normalised by c_σ = 1/E[σ(z)²]. For ReLU and β = 0, NTK_L(1) = L (the paper's convention);
“divided by κ(1)” shows κ(u)/κ(1) instead.</li>
</ul>
<p><b>Near u = 1.</b> For unit vectors with ‖x − y‖² = 2ε (u = 1 − ε), the feature-space distance is
‖Φ(x) − Φ(y)‖² = 2κ(1) − 2κ(1 − ε). For the NTK, κ = 2 − (√2/π)√ε − 2ε + …, so this is
≈ (2√2/π) ε^½: the NTK feature map is only Hölder-½ (slope ½ on the log–log plot), while for κ1
it is ≈ 2ε = ‖x − y‖² (Lipschitz, slope 1).</p>
<p><b>Finite width.</b> Empirical NTK/NNGP of random networks of hidden width m (NTK
parameterisation, N(0, 1) weights) at the same depth and activation, drawn as mean ± standard
deviation over the samples; they converge to the limit as m → ∞ with fluctuations ∝ 1/√m.</p>
"""


class QtKernelCurvesPanel(QtPanel):
    """κ(u) curves, near-one log–log view and finite-width overlay."""

    key = "kernel"
    title = "Kernel curves"

    def __init__(self, dispatcher, parent=None):
        super().__init__(dispatcher, parent)
        self._items: dict[str, list] = {"curves": [], "near_one": []}
        self._labels: dict[str, tuple] = {"curves": (), "near_one": ()}

        # ---------------------------------------------------------- controls
        self.kernels = KernelChooser(default=("ntk", "arccos1"))
        self.derivative = QtWidgets.QCheckBox("derivative κ′(u)")
        self.derivative.setToolTip("plot dκ/du instead of κ(u); e.g. κ′ = 2κ0 + u/(π√(1−u²)) "
                                   "for the two-layer NTK, infinite at u = ±1")
        self.near_one = QtWidgets.QCheckBox("near u = 1 view (log–log in 1 − u)")
        self.near_one.setToolTip("plot 2κ(1) − 2κ(1 − ε) = ‖Φ(x) − Φ(y)‖² against ε = 1 − u on "
                                 "log–log axes with the ε^½ (Hölder) and ε (Lipschitz) guides")
        self.near_one.setChecked(True)
        self.points = LabeledSlider("grid points", 101, 4001, 801, mapping="log", integer=True,
                                    tooltip="number of equally spaced u in [−1, 1]")

        self.overlay = QtWidgets.QGroupBox("finite-width overlay")
        self.overlay.setCheckable(True)
        self.overlay.setChecked(False)
        self.overlay.setToolTip("empirical kernel of random networks of width m against the "
                                "limit of the first NTK/NNGP curve (same depth, σ, β)")
        self.width_m = LabeledSlider("width m", 10, 65536, 100, mapping="log", integer=True,
                                     steps=400, tooltip="hidden-layer width m of the random "
                                     "networks (log scale)")
        self.seed = LabeledSlider("seed", 0, 999, 0, tooltip="random seed of the first network")
        self.samples = LabeledSlider("samples", 1, 32, 4, tooltip="number of random networks "
                                     "(mean ± std drawn)")
        ol = QtWidgets.QVBoxLayout(self.overlay)
        for w in (self.width_m, self.seed, self.samples):
            ol.addWidget(w)

        self.at_one = Readout("κ(1)", tooltip="value at u = 1 of each curve (NTK_L(1) = L for "
                                              "ReLU, β = 0, paper normalisation)")
        self.at_one.setWordWrap(True)

        controls = QtWidgets.QWidget()
        cl = QtWidgets.QVBoxLayout(controls)
        for w in (self.kernels, self.derivative, self.near_one, self.points, self.overlay,
                  self.at_one):
            cl.addWidget(w)
        cl.addStretch(1)
        scroll = QtWidgets.QScrollArea()
        scroll.setWidget(controls)
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setMinimumWidth(controls.sizeHint().width() + 24)

        # ------------------------------------------------------------- plots
        self.plot = make_plot("Kernel curves", "u = cos(x, x′)", "κ(u)", legend_offset=(10, 10))
        self.plot_near = make_plot("Near u = 1: feature-map distance",
                                   "ε = 1 − u  (‖x − y‖² = 2ε)",
                                   "2κ(1) − 2κ(1 − ε) = ‖Φ(x) − Φ(y)‖²",
                                   log_x=True, log_y=True, legend_offset=(-10, -10))
        self.hover = Readout(tooltip="hover a curve for its exact value")
        self.hover.setText("hover a curve to read exact values")
        self._hovers = [CurveHover(self.plot.getPlotItem(), self.hover, "u", "κ"),
                        CurveHover(self.plot_near.getPlotItem(), self.hover, "ε", "value")]
        self._err_items = []
        splitter = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        splitter.addWidget(self.plot)
        splitter.addWidget(self.plot_near)
        right = QtWidgets.QWidget()
        rl = QtWidgets.QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addWidget(splitter, 1)
        rl.addWidget(self.hover)

        lay = QtWidgets.QHBoxLayout(self)
        lay.addWidget(scroll)
        lay.addWidget(right, 1)

        self.kernels.changed.connect(self.refresh)
        for w in (self.derivative, self.near_one):
            w.toggled.connect(self.refresh)
        self.overlay.toggled.connect(self.refresh)
        for w in (self.points, self.width_m, self.seed, self.samples):
            w.valueChanged.connect(self.refresh)

    # ------------------------------------------------------------ requests
    def build_request(self):
        from ntkviz.jobs import KernelCurveRequest

        self.kernels.ensure_activations()
        return KernelCurveRequest.from_state(self.state())

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
        labels = tuple(f"{c.label}′" if deriv else c.label for c in r.curves)
        emp = r.empirical if not deriv else None
        if emp is not None:
            labels += (f"{emp.label} (mean ± std, {emp.samples.shape[0]} nets)",)
        items = self._sync("curves", self.plot, labels)
        for i, c in enumerate(r.curves):
            y = c.derivative if deriv else c.value
            items[i].setData(r.u, np.where(np.isfinite(y), y, np.nan), pen=pen(i),
                             connect="finite")
        for e in self._err_items:
            pi.removeItem(e)
        self._err_items = []
        if emp is not None:
            ref = next(i for i, c in enumerate(r.curves) if c.spec == r.request.overlay_spec())
            items[-1].setData(emp.u, emp.mean, pen=None, symbol="o", symbolSize=6,
                              symbolPen=pen(ref, 1.2), symbolBrush=pg.mkBrush("w"))
            bars = pg.ErrorBarItem(x=np.asarray(emp.u), y=np.asarray(emp.mean),
                                   height=2 * np.asarray(emp.std), pen=pen(ref, 1.0), beam=0.0)
            pi.addItem(bars)
            self._err_items.append(bars)
        self.plot_near.setVisible(r.near_one is not None)
        if r.near_one is not None:
            n = r.near_one
            labels = tuple(c.label for c in r.curves) + tuple(g[0] for g in n.guides)
            items = self._sync("near_one", self.plot_near, labels)
            for i, gap in enumerate(n.gap):
                ok = gap > 0
                items[i].setData(n.eps[ok], gap[ok], pen=pen(i))
            for j, g in enumerate(n.guides):
                style = QtCore.Qt.PenStyle.DashLine if j == 0 else QtCore.Qt.PenStyle.DotLine
                items[len(n.gap) + j].setData(n.eps, g[3], pen=pen("#555555", 1.5, style))
        settle(self.plot, self.plot_near)
        at_one = ", ".join(f"{c.label}: {c.value_at_one:.6g}" for c in r.curves)
        self.at_one.setValue(at_one)
        msg = f"{self.title}: {len(r.curves)} curve(s), {len(r.u)} points"
        if emp is not None:
            dev = float(np.max(np.abs(np.asarray(emp.mean) - np.asarray(emp.limit))))
            msg += f"; width m = {emp.width}: max |mean − limit| = {dev:.3g}"
        self.status.emit(msg)

    # ------------------------------------------------------------- export
    def plot_items(self) -> dict:
        return {"curves": self.plot.getPlotItem(), "near_one": self.plot_near.getPlotItem()}

    def state(self) -> dict:
        return {
            **self.kernels.state(),
            "derivative": self.derivative.isChecked(),
            "near_one": self.near_one.isChecked(),
            "n_points": self.points.value(),
            "overlay": self.overlay.isChecked(),
            "width": self.width_m.value(),
            "seed": self.seed.value(),
            "n_samples": self.samples.value(),
        }

    def set_state(self, state: dict) -> None:
        with self.refresh_suspended():  # one computation for the whole state
            self.kernels.set_state(state)
            self.derivative.setChecked(bool(state.get("derivative", self.derivative.isChecked())))
            self.near_one.setChecked(bool(state.get("near_one", self.near_one.isChecked())))
            self.overlay.setChecked(bool(state.get("overlay", self.overlay.isChecked())))
            self.points.restore(state.get("n_points", self.points.value()))
            self.width_m.restore(state.get("width", self.width_m.value()))
            self.seed.restore(state.get("seed", self.seed.value()))
            self.samples.restore(state.get("n_samples", self.samples.value()))
        self.refresh()

    def help_html(self) -> str:
        return html_maths(HELP)


if __name__ == "__main__":
    import sys

    from ntkviz.gui.app import run_standalone

    sys.exit(run_standalone(QtKernelCurvesPanel))
