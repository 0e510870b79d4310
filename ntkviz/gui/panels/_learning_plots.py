"""The Learning panel's plots: (a) the learning curve, test MSE against n (theory lines
from the Mercer spectrum, Monte-Carlo means ± 95 % confidence intervals over seeds as points),
(b) learnabilities L_k at the current n with exact zeros marked, (c) one of: the fit along a
great circle, GP prior samples, Funk–Hecke partial sums, the bounded-norm approximation error.

:class:`LearningPlots` draws a :class:`ntkviz.jobs.GeneralisationResponse` (and a
Monte-Carlo response of the same kernels, if any); it holds no parameters.
"""
from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from ntkviz.gui.panels._curve_plots import log_plot
from ntkviz.gui.plot_style import PALETTE, empty_note, pen, use_angle_axis

__all__ = ["LearningPlots", "MC_LEVEL", "THEORY_NAME", "MC_NAME", "CURVE_TIP",
           "VIEW_TITLES"]

#: confidence level of the Monte-Carlo error bars (Student t over seeds)
MC_LEVEL = 0.95
THEORY_NAME = "lines: eigenlearning theory"
MC_NAME = "points: Monte-Carlo, mean ± 95 % CI"
CURVE_TIP = ("Lines: eigenlearning theory, an approximation (exact for Gaussian features as n → ∞).\n"
             "On low-dimensional spheres at small δ Monte-Carlo departs from it by a few per cent\n"
             "(p = 3, NTK, δ = 1e-3: about +4 % at n = 50, −3 to −4 % for n = 400 … 3200).\n"
             "Points: Monte-Carlo mean over seeds ± 95 % confidence interval (Student t); every seed\n"
             "draws its own training and test points, so the bars hold the test-set sampling error.")
#: smallest widths of the learning-curve and learnability plots (room for their axes and
#: the two-column legend below each) and smallest height of every plot, in pixels
CURVE_MIN_WIDTH, LEARN_MIN_WIDTH, PLOT_MIN_HEIGHT = 410, 330, 290
VIEW_TITLES = {"fit": "Fit along a great circle", "gp": "GP prior samples (great circle)",
               "partial_sums": "Funk–Hecke partial sums",
               "approximation": "Best ‖g‖_H ≤ B approximation"}
#: the angle θ of the fit and GP views (radians): the fit on [−π, π], the samples on [0, 2π)
ANGLE_RANGES = {"fit": (-math.pi, math.pi), "gp": (0.0, 2 * math.pi)}
FIT_NOT_DRAWN = "fit not drawn for n > 3000 (one n × n solve per kernel)"


def _log10(values) -> np.ndarray:
    v = np.asarray(values, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(v > 0, np.log10(np.where(v > 0, v, 1.0)), np.nan)


def _decade_axes(plot_item, x: bool, y: bool) -> None:
    """Axes that hold log10 values and label them as 10ⁿ (never a scale factor)."""
    for name, on in (("bottom", x), ("left", y)):
        axis = plot_item.getAxis(name)
        axis.enableAutoSIPrefix(False)
        axis.setLogMode(on)


def _colour(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def _reset(plot) -> None:
    plot.clear()
    if plot.legend is not None:
        plot.legend.clear()


class LearningPlots(QtWidgets.QWidget):
    """The learning curve and the learnabilities side by side, the chosen view below them;
    ``plots``: view name -> ``PlotItem`` (``curve``, ``learnability``, ``view``)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.curve_widget = log_plot("Learning curve", "n", "test MSE")
        self.curve_widget.setToolTip(CURVE_TIP)
        self.learn_widget = log_plot("Learnability at n", "degree k", "L<sub>k</sub>")
        self.view_widget = log_plot("", "", "")
        self.plots = {"curve": self.curve_widget.getPlotItem(),
                      "learnability": self.learn_widget.getPlotItem(),
                      "view": self.view_widget.getPlotItem()}
        _decade_axes(self.plots["curve"], True, True)
        # legend samples of the line and point styles (one entry each, in black)
        self._theory_sample = pg.PlotDataItem(pen=pen("k", 2.0))
        self._mc_sample = pg.PlotDataItem(pen=None, symbol="o", symbolSize=7, symbolBrush="k",
                                          symbolPen="k")
        grid = QtWidgets.QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.addWidget(self.curve_widget, 0, 0)
        grid.addWidget(self.learn_widget, 0, 1)
        grid.addWidget(self.view_widget, 1, 0, 1, 2)
        grid.setColumnStretch(0, 1)
        grid.setColumnStretch(1, 1)
        # room for the axes, titles and the legend rows below the plots
        for w, width in ((self.curve_widget, CURVE_MIN_WIDTH), (self.learn_widget, LEARN_MIN_WIDTH),
                         (self.view_widget, 0)):
            w.setMinimumSize(width, PLOT_MIN_HEIGHT)

    def draw(self, r, mc, view: str, dim: int) -> None:
        """Draw the response ``r``, the Monte-Carlo response ``mc`` when it is of the same
        kernels (``None``: none), and the lower-right ``view`` (on S^{dim−1})."""
        if mc is not None and list(mc.labels) != list(r.theory.labels):
            mc = None
        self._draw_curve(r, mc)
        self._draw_learnability(r, mc)
        self._draw_view(r, view, dim)

    def _draw_curve(self, r, mc) -> None:
        """Theory lines (one legend entry per kernel), Monte-Carlo points with their error
        bars, the current n; the legend names the line and point styles once."""
        plot = self.plots["curve"]
        _reset(plot)
        th = r.theory
        for i, (lab, t) in enumerate(zip(th.labels, th.theories)):
            trusted = np.where(t.trustworthy, _log10(t.test_mse), np.nan)
            plot.addItem(pg.PlotDataItem(_log10(t.n), trusted, pen=pen(_colour(i), 2.0), name=lab,
                                         connect="finite"))
        shown = [_log10(t.test_mse)[t.trustworthy] for t in th.theories]
        plot.legend.addItem(self._theory_sample, THEORY_NAME)
        if mc is not None:
            mean, half = mc.mean_ci(MC_LEVEL)
            x = _log10(mc.n_values)
            for i in range(len(th.labels)):
                y = _log10(mean[i])
                h = np.nan_to_num(half[i])
                top = _log10(mean[i] + h) - y
                low = y - _log10(np.maximum(mean[i] - h, mean[i] * 1e-3))
                plot.addItem(pg.ErrorBarItem(x=x, y=y, top=top, bottom=low, beam=0.03,
                                             pen=pen(_colour(i), 1.5)))
                plot.addItem(pg.PlotDataItem(x, y, pen=None, symbol="o", symbolSize=7,
                                             symbolBrush=_colour(i), symbolPen=_colour(i)))
                shown += [y + top, y - low]  # the whole interval stays in view
            plot.legend.addItem(self._mc_sample, MC_NAME)
        finite = np.concatenate(shown + [np.empty(0)])
        finite = finite[np.isfinite(finite)]
        if finite.size:  # at least one decade, so the axis shows several labelled ticks
            lo, hi = float(finite.min()), float(finite.max())
            if hi - lo < 1.0:
                mid = 0.5 * (lo + hi)
                plot.setYRange(mid - 0.5, mid + 0.5, padding=0.02)
            else:
                plot.enableAutoRange(axis="y")
        plot.addItem(pg.InfiniteLine(math.log10(r.n), angle=90,
                                     pen=pen("#888888", 1.0, QtCore.Qt.PenStyle.DashLine)))
        cut = any(not np.all(t.trustworthy) for t in th.theories)
        reason = "spectrum untrusted" if any(not t.spectrum_ok for t in th.theories) \
            else "cut: untrusted"
        plot.setTitle(f"Test MSE, δ = {th.ridge:g}, σ = {th.noise:g}"
                      + (f" ({reason})" if cut else ""))

    def _draw_learnability(self, r, mc) -> None:
        """L_k of each kernel at n (exact zeros: crosses), the target's power per degree as
        bars, and the Monte-Carlo learned fractions when n is one of its sizes."""
        plot = self.plots["learnability"]
        _reset(plot)
        th = r.current
        kshow = int(min(th.spectra[0].k[-1], 40))
        ks = np.arange(kshow + 1)
        for i, (lab, t) in enumerate(zip(th.labels, th.theories)):
            plot.addItem(pg.PlotDataItem(ks + 0.12 * i, t.learnability[0, :kshow + 1], pen=None,
                                         symbol="o", symbolSize=6, symbolBrush=_colour(i),
                                         symbolPen=_colour(i), name=lab))
        marked = False  # one legend entry, after the kernels', for the zeros of every kernel
        for i, sp in enumerate(th.spectra):
            zeros = ks[np.asarray(sp.exact_zero[:kshow + 1])]
            if zeros.size:
                plot.addItem(pg.PlotDataItem(zeros + 0.12 * i, np.zeros(zeros.size), pen=None,
                                             symbol="x", symbolSize=10,
                                             symbolPen=pen(_colour(i), 2.0),
                                             name=None if marked else "μₖ = 0: never learned"))
                marked = True
        y_lo, y_hi = -0.05, 1.05
        if mc is not None and r.n in mc.n_values:
            j = mc.n_values.index(r.n)
            for i, degs in enumerate(mc.degrees):
                if degs is None or not degs.size:
                    continue
                keep = degs <= kshow
                shown = mc.learned_fraction[i][j][keep]
                if shown.size:  # a noisy fraction may leave [0, 1]: never clip it
                    y_lo = min(y_lo, float(shown.min()) - 0.05)
                    y_hi = max(y_hi, float(shown.max()) + 0.05)
                plot.addItem(pg.PlotDataItem(degs[keep] + 0.12 * i, shown, pen=None, symbol="s",
                                             symbolSize=9, symbolBrush=None,
                                             symbolPen=pen(_colour(i), 1.5),
                                             name=None if i else "Monte-Carlo learned fraction"))
        power = th.projection.power[:kshow + 1]
        top = power.max() if power.size and power.max() > 0 else 1.0
        plot.addItem(pg.BarGraphItem(x=ks, height=power / top, width=0.5,
                                     brush=pg.mkBrush(0, 0, 0, 40), pen=None))
        plot.setYRange(y_lo, y_hi, padding=0)
        plot.setXRange(-0.5, kshow + 0.8, padding=0)
        untrusted = any(not t.trustworthy[0] for t in th.theories)
        plot.setTitle(f"L<sub>k</sub> at n = {r.n} (bars: target power)"
                      + (" — untrusted" if untrusted else ""))

    def _draw_view(self, r, view: str, dim: int) -> None:
        """The lower-right view; the angle of the fit and of the GP samples is labelled in
        multiples of π, as every angle axis of ntkviz."""
        plot = self.plots["view"]
        _reset(plot)
        title = VIEW_TITLES[view]
        if dim == 2:  # S¹ is the circle itself, not a great circle of it
            title = title.replace("along a great circle", "on the circle").replace(
                "(great circle)", "(on the circle)")
        plot.setTitle(title)
        labels = r.theory.labels
        bottom = plot.getAxis("bottom")
        if view in ANGLE_RANGES:
            use_angle_axis(plot, *ANGLE_RANGES[view])
        else:
            bottom.setTicks(None)
        empty_note(plot, FIT_NOT_DRAWN if view == "fit" and not r.fits else "")
        _decade_axes(plot, view == "approximation", view == "approximation")
        if view == "fit":
            plot.setLabel("bottom", "angle θ along the circle")
            plot.setLabel("left", "f(x(θ))")
            if r.fits:
                self._draw_fit(plot, r, labels)
        elif view == "gp":
            plot.setLabel("bottom", "angle θ along the circle")
            plot.setLabel("left", "sample value")
            for i, (lab, smp) in enumerate(zip(r.gp.labels, r.gp.samples)):
                for j in range(smp.shape[0]):
                    plot.addItem(pg.PlotDataItem(r.gp.theta, smp[j], pen=pen(_colour(i), 1.5),
                                                 name=lab if j == 0 else None))
        elif view == "partial_sums":
            ps = r.partial
            plot.setLabel("bottom", "u = ⟨x, x′⟩")
            plot.setLabel("left", f"Σ<sub>k≤K</sub> N μ<sub>k</sub> P<sub>k</sub>(u), {ps.label}")
            plot.addItem(pg.PlotDataItem(ps.u, ps.exact, pen=pen("k", 3.0), name="κ(u)"))
            for j, k in enumerate(ps.degrees):
                plot.addItem(pg.PlotDataItem(ps.u, ps.sums[j], pen=pen(_colour(j), 1.5),
                                             name=f"K = {k}"))
        else:
            plot.setLabel("bottom", "norm bound B")
            plot.setLabel("left", "approximation error")
            for i, (lab, errs) in enumerate(zip(labels, r.approximation)):
                plot.addItem(pg.PlotDataItem(_log10(r.bounds), _log10(errs),
                                             pen=pen(_colour(i), 2.0), name=lab, connect="finite"))

    @staticmethod
    def _draw_fit(plot, r, labels) -> None:
        fit0 = r.fits[0]
        plot.addItem(pg.PlotDataItem(fit0.theta, fit0.target, pen=pen("k", 2.5), name="target"))
        for i, (lab, fit) in enumerate(zip(labels, r.fits)):
            plot.addItem(pg.PlotDataItem(fit.theta, fit.prediction, pen=pen(_colour(i), 2.0),
                                         name=f"{lab} prediction"))
        if fit0.train_theta.size:
            plot.addItem(pg.PlotDataItem(fit0.train_theta, fit0.train_y, pen=None, symbol="o",
                                         symbolSize=5, symbolBrush="#555555", symbolPen=None,
                                         name="training points near it"))
