"""Generalisation view: what kernel ridge regression learns on the sphere.

Four plots: (a) the learning curve, test MSE against n (theory lines from the Mercer
spectrum, Monte-Carlo means ± 95 % confidence intervals over seeds as points), (b) learnabilities L_k at
the current n with exact zeros marked, (c) one of: the fit along a great circle (target,
prediction, training points), GP prior samples, Funk–Hecke partial sums, or the
bounded-norm approximation error; (d) read-outs κ, E0, RKHS norms. The theory job is
light and live; the Monte-Carlo runs on the heavy worker on demand (key
``learning_mc``) with progress and cancel. Maths: :mod:`ntkviz.core.learning`.
"""
from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from ntkviz import limits
from ntkviz.gui.panels._curve_plots import log_plot
from ntkviz.gui.panels._kernel_controls import (KernelChoicePanel, log_int_slider, scroll_column,
                                                set_slider, write_through)
from ntkviz.gui.controls import Readout, combo, int_spin, line_edit
from ntkviz.gui.plot_style import PALETTE, pen
from ntkviz.models.generalisation import VIEWS, GeneralisationModel

__all__ = ["QtGeneralisationPanel"]

MC_KEY = "learning_mc"
#: confidence level of the Monte-Carlo error bars (Student t over seeds)
MC_LEVEL = 0.95
THEORY_NAME = "eigenlearning theory"
MC_NAME = "Monte-Carlo, mean ± 95 % CI"
CURVE_TIP = ("Lines: eigenlearning theory, an approximation (exact for Gaussian features as n → ∞).\n"
             "On low-dimensional spheres at small δ Monte-Carlo departs from it by a few per cent\n"
             "(p = 3, NTK, δ = 1e-3: about +4 % at n = 50, −3 to −4 % for n = 400 … 3200).\n"
             "Points: Monte-Carlo mean over seeds ± 95 % confidence interval (Student t); every seed\n"
             "draws its own training and test points, so the bars hold the test-set sampling error.")
#: degrees with a bar in the target editor
BAR_DEGREES = 9
#: smallest widths of the learning-curve and learnability plots (room for their axes and
#: the two-column legend below each) and smallest height of every plot, in pixels
CURVE_MIN_WIDTH, LEARN_MIN_WIDTH, PLOT_MIN_HEIGHT = 410, 330, 290
TARGET_PRESETS = ("1:1,2:1,4:1,7:1", "harmonic:3", "ridge:0.2", "step:0", "abs")
VIEW_TITLES = {"fit": "Fit along a great circle", "gp": "GP prior samples (great circle)",
               "partial_sums": "Funk–Hecke partial sums", "approximation": "Best ‖g‖_H ≤ B approximation"}

HELP = """<h3>Generalisation: what a kernel learns</h3>
<p>Kernel ridge regression f̂(x) = K(x, X)(K(X, X) + δ I)^{−1} y on n uniform points of the sphere
S^{p−1}, labels y = f + σε. <b>δ is not multiplied by n.</b> Test MSE is the error against a fresh
noisy label (it includes σ²).</p>
<p>Theory (eigenlearning; Bordelon, Canatar &amp; Pehlevan 2020; Simon et al. 2021; Jacot et al.
2020): κ solves n = Σ_k N(p,k) μ_k/(μ_k+κ) + δ/κ, L_k = μ_k/(μ_k+κ), E0 = n/(n − Σ N L_k²), test MSE
= E0 (Σ_k (1−L_k)² P_k + σ²), P_k the target's power in degree k. The spectrum's tail beyond k max
enters through the trace κ(1) − Σ N μ_k. Degrees where μ_k = 0 are never learned.</p>
<p>The theory is an approximation (exact for Gaussian features as n → ∞). On low-dimensional
spheres at small δ the Monte-Carlo departs from it by a few per cent (p = 3, two-layer NTK,
δ = 1e-3: about +4 % at n = 50, −3 to −4 % for n = 400 … 3200; within 0.5 % at δ ≥ 0.01 and
n ≥ 200). Monte-Carlo points: mean over seeds ± 95 % confidence interval (Student t); every seed
draws its own training and test points, so the bars include the test-set sampling error.</p>
<p>Target: degree components k:c (c·P_k(⟨x, z_k⟩), power c²/N(p,k)), or harmonic:K, ridge:T
(max(0, ⟨x,z⟩ − T)), step:T (sign(⟨x,z⟩ − T)), abs (|⟨x,z⟩|) with exact Funk–Hecke powers.
RKHS norm² Σ_k P_k/μ_k (∞ with power on an exact zero).</p>"""


def _log10(values) -> np.ndarray:
    v = np.asarray(values, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(v > 0, np.log10(np.where(v > 0, v, 1.0)), np.nan)


def _decade_axes(plot_item, x: bool, y: bool) -> None:
    """Axes that hold log10 values and label them as 10ⁿ (never a scale factor)."""
    for name, on in (("bottom", x), ("left", y)):
        axis = plot_item.getAxis(name)
        axis.enableAutoSIPrefix(False)
        if on:
            axis.setLogMode(True)


class QtGeneralisationPanel(KernelChoicePanel):
    """Learning curve, learnabilities, fit / GP samples / partial sums, read-outs."""

    key = "learning"
    title = "Generalisation"
    model_cls = GeneralisationModel
    own_cancel_jobs = (MC_KEY,)  # Monte-Carlo has the panel's Cancel button
    HELP = HELP

    def __init__(self, dispatcher, parent=None, model=None):
        super().__init__(dispatcher, parent, model)
        self.mc_response = None
        self._add_chooser()
        self.target_edit = QtWidgets.QLineEdit()
        self.target_edit.setToolTip("k:c,k:c (c·P_k(⟨x,z_k⟩)), harmonic:K, ridge:T, step:T or abs")
        self.target_combo = QtWidgets.QComboBox()
        self.target_combo.addItems(["presets…", *TARGET_PRESETS])
        self.bars_box, self.bars = self._degree_bars()
        self.dim = log_int_slider("dimension p", limits.DIM_RANGE, 3, "input dimension p (sphere S^{p−1})")
        self.n = log_int_slider("n (samples)", (1, 100_000), 200, "training points n")
        self.ridge_edit = line_edit("ridge δ >= 0 (not multiplied by n), e.g. 1e-3; 0..1e6")
        self.noise_edit = line_edit("label noise σ in [0, 1000]")
        self.kmax_spin = int_spin((10, 2000), "highest degree of the spectrum (the tail above is analytic)")
        self.view_combo = combo(VIEWS)
        self.sizes_edit = line_edit("Monte-Carlo sample sizes, comma-separated, each in [1, 20000]")
        self.seeds_spin = int_spin((1, 1000))
        self.seed_spin = int_spin((0, 2**31 - 1))
        self.mc_button = QtWidgets.QPushButton("Run Monte-Carlo")
        self.mc_cancel = QtWidgets.QPushButton("Cancel")
        self.mc_cancel.setEnabled(False)
        self.progress = QtWidgets.QProgressBar()
        self.progress.setRange(0, 1000)
        self.readout = Readout("", tooltip="effective ridge κ, E0 and RKHS norms at the current n")
        self.readout.setWordWrap(True)
        self.readout.setTextFormat(QtCore.Qt.TextFormat.RichText)

        form_box = QtWidgets.QGroupBox("Regression")
        form = QtWidgets.QFormLayout(form_box)
        form.addRow("target", self.target_edit)
        form.addRow("", self.target_combo)
        form.addRow(self.bars_box)
        form.addRow("ridge δ", self.ridge_edit)
        form.addRow("noise σ", self.noise_edit)
        form.addRow("k max", self.kmax_spin)
        form.addRow("lower-right view", self.view_combo)
        mc_box = QtWidgets.QGroupBox("Monte-Carlo")
        mcf = QtWidgets.QFormLayout(mc_box)
        mcf.addRow("sizes n", self.sizes_edit)
        mcf.addRow("seeds", self.seeds_spin)
        mcf.addRow("first seed", self.seed_spin)
        buttons = QtWidgets.QHBoxLayout()
        buttons.addWidget(self.mc_button)
        buttons.addWidget(self.mc_cancel)
        mcf.addRow(buttons)
        mcf.addRow(self.progress)
        # the parameters scroll (vertically only); Monte-Carlo, its Cancel and its progress
        # stay in view below them at every window height
        self.controls = controls = QtWidgets.QWidget()
        column = QtWidgets.QVBoxLayout(controls)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(4)
        column.addWidget(scroll_column(self.kernels, self.dim, self.n, form_box, self.readout), 1)
        column.addWidget(mc_box)
        controls.setMaximumWidth(controls.minimumSizeHint().width())

        self.curve_widget = log_plot("Learning curve", "n", "test MSE")
        self.curve_widget.setToolTip(CURVE_TIP)
        self.learn_widget = log_plot("Learnability at n", "degree k", "L<sub>k</sub>")
        self.view_widget = log_plot("", "", "")
        self.plots = {"curve": self.curve_widget.getPlotItem(),
                      "learnability": self.learn_widget.getPlotItem(),
                      "view": self.view_widget.getPlotItem()}
        _decade_axes(self.plots["curve"], True, True)
        _decade_axes(self.plots["learnability"], False, False)
        _decade_axes(self.plots["view"], False, False)
        grid = QtWidgets.QGridLayout()
        grid.addWidget(self.curve_widget, 0, 0)
        grid.addWidget(self.learn_widget, 0, 1)
        grid.addWidget(self.view_widget, 1, 0, 1, 2)
        grid.setColumnStretch(0, 1)
        grid.setColumnStretch(1, 1)
        # room for the axes, titles and the legend rows below the plots
        for w, width in ((self.curve_widget, CURVE_MIN_WIDTH), (self.learn_widget, LEARN_MIN_WIDTH),
                         (self.view_widget, 0)):
            w.setMinimumSize(width, PLOT_MIN_HEIGHT)
        lay = QtWidgets.QHBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addWidget(controls)
        lay.addLayout(grid, 1)

        self.target_edit.editingFinished.connect(
            lambda: self._set_text(self.target_edit, "target", str.strip))
        self.target_combo.activated.connect(self._on_preset)
        self.dim.valueChanged.connect(lambda v: write_through(self, dim=int(v)))
        self.n.valueChanged.connect(lambda v: write_through(self, n=int(v)))
        self.ridge_edit.editingFinished.connect(lambda: self._set_text(self.ridge_edit, "ridge", float))
        self.noise_edit.editingFinished.connect(lambda: self._set_text(self.noise_edit, "noise", float))
        self.kmax_spin.valueChanged.connect(lambda v: write_through(self, kmax=int(v)))
        self.view_combo.currentTextChanged.connect(lambda v: write_through(self, view=v))
        self.sizes_edit.editingFinished.connect(
            lambda: self._set_text(self.sizes_edit, "mc_sizes",
                                   lambda t: tuple(int(float(s)) for s in t.split(",") if s.strip())))
        self.seeds_spin.valueChanged.connect(lambda v: write_through(self, seeds=int(v)))
        self.seed_spin.valueChanged.connect(lambda v: write_through(self, seed=int(v)))
        self.mc_button.clicked.connect(self.start_monte_carlo)
        self.mc_cancel.clicked.connect(self.cancel_monte_carlo)
        dispatcher.returned.connect(self._on_mc_returned)
        dispatcher.yielded.connect(self._on_mc_yielded)
        dispatcher.errored.connect(self._on_mc_errored)
        if hasattr(dispatcher, "busy"):
            dispatcher.busy.connect(self._on_busy)
        self.sync_widgets(frozenset(f for f in self.model.to_session()))

    def _degree_bars(self):
        """Per-degree bars: one vertical slider per degree k = 0..BAR_DEGREES - 1 setting c_k
        in [-2, 2] (steps of 0.1) of the components target Σ c_k P_k(⟨x, z_k⟩)."""
        box = QtWidgets.QGroupBox("degree components c_k")
        grid = QtWidgets.QGridLayout(box)
        grid.setSpacing(2)
        bars = []
        for k in range(BAR_DEGREES):
            bar = QtWidgets.QSlider(QtCore.Qt.Orientation.Vertical)
            bar.setRange(-20, 20)
            bar.setMinimumHeight(60)
            bar.setToolTip(f"c_{k}: coefficient of P_{k}(⟨x, z_{k}⟩), -2..2 (the text field takes any value)")
            bar.valueChanged.connect(self._on_bars)
            grid.addWidget(bar, 0, k)
            grid.addWidget(QtWidgets.QLabel(str(k)), 1, k, QtCore.Qt.AlignmentFlag.AlignHCenter)
            bars.append(bar)
        return box, bars

    def _on_bars(self, _value: int) -> None:
        pairs = [(k, bar.value() / 10) for k, bar in enumerate(self.bars) if bar.value()]
        text = ",".join(f"{k}:{c:g}" for k, c in pairs) or "0:0"
        write_through(self, target=text)

    def _sync_bars(self, target: str) -> None:
        from ntkviz.models.generalisation import parse_target_text

        parsed = parse_target_text(target, self.model.params.kmax)
        coefs = dict(parsed["components"]) if parsed["kind"] == "components" else {}
        for k, bar in enumerate(self.bars):
            value = int(round(10 * max(-2.0, min(2.0, coefs.get(k, 0.0)))))
            if bar.value() != value:
                bar.blockSignals(True)
                bar.setValue(value)
                bar.blockSignals(False)

    # ------------------------------------------------------------ parameters
    def _set_text(self, edit, field, parse) -> None:
        try:
            value = parse(edit.text())
        except ValueError:
            self._report_error(f"{field}: cannot read {edit.text()!r}")
            self.sync_widgets(frozenset({field}))
            return
        write_through(self, **{field: value})

    def _on_preset(self, index: int) -> None:
        if index > 0:
            write_through(self, target=TARGET_PRESETS[index - 1])
        self.target_combo.setCurrentIndex(0)

    def sync_widgets(self, changed: frozenset) -> None:
        super().sync_widgets(changed)
        p = self.model.params
        set_slider(self.dim, p.dim)
        set_slider(self.n, p.n)
        self._sync_bars(p.target)
        for edit, text in ((self.target_edit, p.target), (self.ridge_edit, f"{p.ridge:g}"),
                           (self.noise_edit, f"{p.noise:g}"),
                           (self.sizes_edit, ",".join(str(v) for v in p.mc_sizes))):
            if edit.text() != text:
                edit.setText(text)
        for box, value in ((self.kmax_spin, p.kmax), (self.seeds_spin, p.seeds), (self.seed_spin, p.seed)):
            if box.value() != value:
                box.blockSignals(True)
                box.setValue(value)
                box.blockSignals(False)
        if self.view_combo.currentText() != p.view:
            self.view_combo.blockSignals(True)
            self.view_combo.setCurrentText(p.view)
            self.view_combo.blockSignals(False)

    # ------------------------------------------------------------ Monte-Carlo
    def start_monte_carlo(self) -> int:
        """Run the Monte-Carlo on the heavy worker (progress, cancel)."""
        try:
            job = self.model.monte_carlo_request(self.model.params)
        except ValueError as exc:
            self._report_error(str(exc))
            return 0
        self.progress.setValue(0)
        return self.dispatcher.submit_generator(MC_KEY, job.iterate, heavy=True, immediate=True)

    def cancel_monte_carlo(self) -> None:
        self.dispatcher.cancel(MC_KEY)

    def _on_busy(self, key: str, busy: bool) -> None:
        if key == MC_KEY:
            self.mc_cancel.setEnabled(busy)

    def _on_mc_yielded(self, key: str, request_id: int, item) -> None:
        if key == MC_KEY:
            self.progress.setValue(int(1000 * item.fraction))

    def _on_mc_returned(self, key: str, request_id: int, response) -> None:
        if key == MC_KEY:
            self.mc_response = response
            self.progress.setValue(1000)
            self.redraw()
            if self.model.params.n not in response.n_values:
                self.status.emit(f"{self.title}: learned fractions are drawn when n is one of the "
                                 "Monte-Carlo sizes")

    def _on_mc_errored(self, key: str, request_id: int, message: str) -> None:
        if key == MC_KEY:
            self._report_error(message)

    # ------------------------------------------------------------ drawing
    def apply_response(self, response) -> None:
        self._draw_curve(response)
        self._draw_learnability(response)
        self._draw_view(response)
        self._draw_readout(response)

    @staticmethod
    def _reset(plot) -> None:
        plot.clear()
        if plot.legend is not None:
            plot.legend.clear()

    def _draw_curve(self, r) -> None:
        plot = self.plots["curve"]
        self._reset(plot)
        th = r.theory
        labels = list(th.labels)
        for i, (lab, t) in enumerate(zip(labels, th.theories)):
            color = PALETTE[i % len(PALETTE)]
            trusted = np.where(t.trustworthy, _log10(t.test_mse), np.nan)
            plot.addItem(pg.PlotDataItem(_log10(t.n), trusted, pen=pen(color, 2.0),
                                         name=f"{lab} {THEORY_NAME}", connect="finite"))
        shown = [_log10(t.test_mse)[t.trustworthy] for t in th.theories]
        mc = self.mc_response
        if mc is not None and list(mc.labels) == labels:
            mean, half = mc.mean_ci(MC_LEVEL)
            for i, lab in enumerate(labels):
                color = PALETTE[i % len(PALETTE)]
                x = _log10(mc.n_values)
                y = _log10(mean[i])
                h = np.nan_to_num(half[i])
                top = _log10(mean[i] + h) - y
                low = y - _log10(np.maximum(mean[i] - h, mean[i] * 1e-3))
                plot.addItem(pg.ErrorBarItem(x=x, y=y, top=top, bottom=low, beam=0.03, pen=pen(color, 1.5)))
                plot.addItem(pg.PlotDataItem(x, y, pen=None, symbol="o", symbolSize=7, symbolBrush=color,
                                             symbolPen=color, name=f"{lab} {MC_NAME}"))
                shown += [y + top, y - low]  # the whole interval stays in view
        finite = np.concatenate(shown + [np.empty(0)])
        finite = finite[np.isfinite(finite)]
        if finite.size:  # at least one decade, so the axis shows several labelled ticks
            lo, hi = float(finite.min()), float(finite.max())
            if hi - lo < 1.0:
                mid = 0.5 * (lo + hi)
                plot.setYRange(mid - 0.5, mid + 0.5, padding=0.02)
            else:
                plot.enableAutoRange(axis="y")
        n_line = pg.InfiniteLine(math.log10(r.n), angle=90, pen=pen("#888888", 1.0, QtCore.Qt.PenStyle.DashLine))
        plot.addItem(n_line)
        cut = any(not np.all(t.trustworthy) for t in th.theories)
        spectrum_bad = any(not t.spectrum_ok for t in th.theories)
        reason = "spectrum untrusted" if spectrum_bad else "cut: untrusted"
        plot.setTitle(f"Test MSE, δ = {r.theory.ridge:g}, σ = {r.theory.noise:g}"
                      + (f" ({reason})" if cut else ""))

    def _draw_learnability(self, r) -> None:
        plot = self.plots["learnability"]
        self._reset(plot)
        th = r.current
        kshow = int(min(th.spectra[0].k[-1], 40))
        ks = np.arange(kshow + 1)
        marked = False
        for i, (lab, t, sp) in enumerate(zip(th.labels, th.theories, th.spectra)):
            color = PALETTE[i % len(PALETTE)]
            plot.addItem(pg.PlotDataItem(ks + 0.12 * i, t.learnability[0, :kshow + 1], pen=None, symbol="o",
                                         symbolSize=6, symbolBrush=color, symbolPen=color, name=lab))
            zeros = ks[np.asarray(sp.exact_zero[:kshow + 1])]
            if zeros.size:
                plot.addItem(pg.PlotDataItem(zeros + 0.12 * i, np.zeros(zeros.size), pen=None, symbol="x",
                                             symbolSize=10, symbolPen=pen(color, 2.0),
                                             name=None if marked else "μ_k = 0: never learned"))
                marked = True
        mc = self.mc_response
        y_lo, y_hi = -0.05, 1.05
        if mc is not None and list(mc.labels) == list(th.labels) and r.n in mc.n_values:
            j = mc.n_values.index(r.n)
            for i, degs in enumerate(mc.degrees):
                if degs is None or not degs.size:
                    continue
                keep = degs <= kshow
                shown = mc.learned_fraction[i][j][keep]
                if shown.size:  # a noisy fraction may leave [0, 1]: never clip it
                    y_lo, y_hi = min(y_lo, float(shown.min()) - 0.05), max(y_hi, float(shown.max()) + 0.05)
                color = PALETTE[i % len(PALETTE)]
                plot.addItem(pg.PlotDataItem(degs[keep] + 0.12 * i, mc.learned_fraction[i][j][keep], pen=None,
                                             symbol="s", symbolSize=9, symbolBrush=None,
                                             symbolPen=pen(color, 1.5),
                                             name=None if i else "Monte-Carlo learned fraction"))
        power = r.current.projection.power[:kshow + 1]
        top = power.max() if power.size and power.max() > 0 else 1.0
        plot.addItem(pg.BarGraphItem(x=ks, height=power / top, width=0.5, brush=pg.mkBrush(0, 0, 0, 40),
                                     pen=None))
        plot.setYRange(y_lo, y_hi, padding=0)
        plot.setXRange(-0.5, kshow + 0.8, padding=0)
        untrusted = any(not t.trustworthy[0] for t in th.theories)
        plot.setTitle(f"L<sub>k</sub> at n = {r.n} (bars: target power)"
                      + (" — untrusted" if untrusted else ""))

    def _draw_view(self, r) -> None:
        plot = self.plots["view"]
        self._reset(plot)
        view = self.model.params.view
        title = VIEW_TITLES[view]
        if self.model.params.dim == 2:  # S¹ is the circle itself, not a great circle of it
            title = title.replace("along a great circle", "on the circle").replace(
                "(great circle)", "(on the circle)")
        plot.setTitle(title)
        labels = r.theory.labels
        if view == "fit":
            plot.setLabel("bottom", "angle θ along the circle")
            plot.setLabel("left", "f(x(θ))")
            if not r.fits:
                plot.setTitle("Fit not drawn for n > 3000 (one n × n solve per kernel)")
                return
            fit0 = r.fits[0]
            plot.addItem(pg.PlotDataItem(fit0.theta, fit0.target, pen=pen("k", 2.5), name="target"))
            for i, (lab, fit) in enumerate(zip(labels, r.fits)):
                plot.addItem(pg.PlotDataItem(fit.theta, fit.prediction, pen=pen(PALETTE[i % len(PALETTE)], 2.0),
                                             name=f"{lab} prediction"))
            if fit0.train_theta.size:
                plot.addItem(pg.PlotDataItem(fit0.train_theta, fit0.train_y, pen=None, symbol="o", symbolSize=5,
                                             symbolBrush="#555555", symbolPen=None, name="training points near it"))
        elif view == "gp":
            plot.setLabel("bottom", "angle θ along the circle")
            plot.setLabel("left", "sample value")
            for i, (lab, smp) in enumerate(zip(r.gp.labels, r.gp.samples)):
                for j in range(smp.shape[0]):
                    plot.addItem(pg.PlotDataItem(r.gp.theta, smp[j], pen=pen(PALETTE[i % len(PALETTE)], 1.5),
                                                 name=lab if j == 0 else None))
        elif view == "partial_sums":
            ps = r.partial
            plot.setLabel("bottom", "u = ⟨x, x′⟩")
            plot.setLabel("left", f"Σ<sub>k≤K</sub> N μ<sub>k</sub> P<sub>k</sub>(u), {ps.label}")
            plot.addItem(pg.PlotDataItem(ps.u, ps.exact, pen=pen("k", 3.0), name="κ(u)"))
            for j, k in enumerate(ps.degrees):
                plot.addItem(pg.PlotDataItem(ps.u, ps.sums[j], pen=pen(PALETTE[j % len(PALETTE)], 1.5),
                                             name=f"K = {k}"))
        else:
            plot.setLabel("bottom", "norm bound B")
            plot.setLabel("left", "approximation error")
            plot.getAxis("bottom").setLogMode(True)
            plot.getAxis("left").setLogMode(True)
            for i, (lab, errs) in enumerate(zip(labels, r.approximation)):
                plot.addItem(pg.PlotDataItem(_log10(r.bounds), _log10(errs), pen=pen(PALETTE[i % len(PALETTE)], 2.0),
                                             name=lab, connect="finite"))
            return
        plot.getAxis("bottom").setLogMode(False)
        plot.getAxis("left").setLogMode(False)

    def _draw_readout(self, r) -> None:
        rows = []
        for lab, t, norm in zip(r.current.labels, r.current.theories, r.current.norms):
            if norm.zero_degrees:
                shown = ", ".join(map(str, norm.zero_degrees[:6]))
                nrm = f"∞ (power on μ<sub>k</sub> = 0 at k = {shown})"
            else:
                nrm = f"{norm.squared:.4g}" + (" (k ≤ k max)" if norm.partial else "")
            trust = "" if t.trustworthy[0] else " <b>untrusted</b> (raise k max or check the spectrum)"
            rows.append(f"<b>{lab}</b>: κ = {t.effective_ridge[0]:.4g}, E0 = {t.e0[0]:.4g}, "
                        f"test MSE = {t.test_mse[0]:.4g}, train MSE = {t.train_mse[0]:.3g}, "
                        f"‖f‖²<sub>H</sub> = {nrm}{trust}")
        self.readout.setText("<br>".join(rows))

    # ------------------------------------------------------------ export
    def plot_items(self) -> dict[str, object]:
        return dict(self.plots)

    def csv_table(self, view: str) -> tuple[list[str], list[list]]:
        if self.response is None:
            raise ValueError("nothing computed yet")
        if view == "view":
            view = self.model.params.view
        if view == "curve" and self.mc_response is not None:
            head, rows = self.response.csv_table("curve")
            mh, mrows = self.mc_response.csv_table("curve")
            return head + mh[2:], [r + [""] * (len(mh) - 2) for r in rows] + \
                [[m[0], m[1]] + [""] * (len(head) - 2) + m[2:] for m in mrows]
        return self.response.csv_table(view)


if __name__ == "__main__":  # pragma: no cover - demo
    import sys

    from ntkviz.gui.app import run_standalone

    sys.exit(run_standalone(QtGeneralisationPanel))
