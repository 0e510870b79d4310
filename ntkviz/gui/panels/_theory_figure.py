"""The spectrum & theory figure of the Classification tab (also drawn by ``ntkviz gram-spectrum``
and ``ntkviz data-theory``): four plots of the theory of kernel regression on a pool of data.

* ``spectrum`` — the eigenvalues ``λᵢ/N`` of each kernel's Gram matrix against the index i
  (log–log; the tab normalises K to mean diagonal 1, so they sum to 1), eigenvalues below the
  numerical floor ``N ε λ_max`` as hollow circles (not trusted; negative ones cannot be drawn
  and are counted in the note), and, dashed, the Mercer spectrum of the same kernel family on
  a sphere as a reference;
* ``alignment`` — the share ``A(m)`` of the labels' energy on the top m eigenvectors, true
  labels solid, randomly permuted labels dashed;
* ``learning_curve`` — the held-out test MSE against n: the eigenlearning prediction from the
  pool's spectrum (lines) and kernel ridge regression on random subsets (points, mean ± s.e.);
* ``certificate`` — the certificate ``√(2 YᵀH⁻¹Y / n)`` of Arora et al. (2019) against n (log–log),
  true against random labels, mean ± s.e. over the subsets; the note gives ``λ_min(H)``, the ridge,
  how often the pseudo-inverse was needed, and whether the certificate ranks the kernels as
  their accuracy does.

Values are drawn as log10 on linear views whose axes label them ``10ⁿ`` (so error bars are
drawn in the same coordinates). :class:`TheoryPlots` holds no parameters: it draws
:class:`~ntkviz.jobs.DataTheoryResponse` objects (one per kernel) or, for ``gram-spectrum``,
:class:`~ntkviz.jobs.GramSpectrumResponse` objects.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore

from ntkviz._text import superscript
from ntkviz.gui.panels._classification_figures import (PLOT_MIN, error_bars, kernel_colour, kernel_label,
                                                       note_below, set_error_bars)
from ntkviz.gui.panels._curve_plots import log_plot
from ntkviz.gui.panels._learning_plots import _decade_axes, _log10
from ntkviz.gui.plot_style import declare_quantity, empty_note, pen

__all__ = ["TheoryPlots", "SpectrumSeries", "THEORY_VIEWS", "spectrum_series", "ordering_text"]

THEORY_VIEWS = ("spectrum", "alignment", "learning_curve", "certificate")
_SOLID, _DASH = QtCore.Qt.PenStyle.SolidLine, QtCore.Qt.PenStyle.DashLine
#: label set -> (line style, symbol, filled symbol)
KIND_STYLE = {"true": (_SOLID, "o", True), "random": (_DASH, "s", False)}
KIND_NAMES = {"true": "true labels", "random": "random labels"}
GREY = "#555555"
#: width of the error bars' caps on the log n axis (decades)
CAP_DECADES = 0.03


@dataclass(frozen=True)
class SpectrumSeries:
    """What the spectrum and alignment plots draw of one Gram matrix: ``eigenvalues``
    (λᵢ/N, descending) with ``trustworthy`` flags and the ``floor`` (both /N), the sphere
    ``reference`` (a :class:`~ntkviz.core.learning.SphereReference` or None), ``alignment``
    ``{labels: A(m)}`` and the kernel–target alignment; ``normalised``: K was divided by its
    mean diagonal."""

    name: str
    eigenvalues: np.ndarray
    trustworthy: np.ndarray
    floor: float
    reference: object
    alignment: dict
    target_alignment: float | None
    normalised: bool


def spectrum_series(response) -> SpectrumSeries:
    """The :class:`SpectrumSeries` of a ``DataTheoryResponse`` (normalised K̃) or a
    ``GramSpectrumResponse``."""
    sp = response.spectrum
    if hasattr(response, "kinds"):  # a DataTheoryResponse
        align = {kind: response.cumulative_alignment(kind) for kind in response.kinds}
        return SpectrumSeries(response.name, sp.eigenvalues, sp.trustworthy, sp.floor, response.reference,
                              align, sp.target_alignment, True)
    align = {} if sp.cumulative_alignment is None else {"true": sp.cumulative_alignment}
    return SpectrumSeries(response.name, sp.eigenvalues, sp.trustworthy, sp.floor, response.reference,
                          align, sp.target_alignment, False)


def _mean_sem(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and standard error over the draws (last axis); error 0 with one draw."""
    mean = values.mean(axis=-1)
    k = values.shape[-1]
    sem = values.std(axis=-1, ddof=1) / np.sqrt(k) if k > 1 else np.zeros_like(mean)
    return mean, sem


def _fmt(value: float) -> str:
    """Two significant digits, m·10ⁿ below 0.01."""
    if not np.isfinite(value):
        return "–"
    if value != 0 and abs(value) < 0.01:
        m, e = f"{value:.1e}".split("e")
        return f"{m}·10<sup>{int(e)}</sup>"
    return f"{value:.3g}"


def ordering_text(ordering) -> str:
    """The note on the certificate's ranking of the kernels against their accuracy (a
    :class:`~ntkviz.jobs._classify_theory.KernelOrdering`), "" for one kernel."""
    if ordering is None:
        return ""
    cert = " &lt; ".join(kernel_label(k) for k in ordering.by_certificate)
    acc = " &gt; ".join(kernel_label(k) for k in ordering.by_accuracy)
    head = f"At n = {ordering.n}, certificate {cert}; measured accuracy {acc}"
    if ordering.matches:
        text = f"{head}: the same order."
    else:
        text = (f"{head}: <b>the orders do not match</b>: YᵀH⁻¹Y weighs the labels' energy on the smallest "
                f"eigenvalues of H, and the spectra fall at different rates (fastest: "
                f"{kernel_label(ordering.fastest_decay)}). Compare true and random labels within a kernel, "
                f"not kernels.")
    if ordering.vacuous:
        text += " All certificates > 1: vacuous."
    return text


def _subsets(draws: int) -> str:
    """``"10 random subsets"``, or ``"one random subset (no s.e.)"``."""
    return f"{draws} random subsets" if draws > 1 else "one random subset (no s.e.)"


def _reset(plot) -> None:
    plot.clear()
    if plot.legend is not None:
        plot.legend.clear()


def _span(plot, values, axis: str = "y", decades: bool = True) -> None:
    """Range of ``axis`` over the finite ``values``; at least one decade on a log axis (three
    labelled ticks)."""
    v = np.concatenate([np.ravel(np.asarray(a, dtype=float)) for a in values] + [np.empty(0)])
    v = v[np.isfinite(v)]
    if not v.size:
        return
    lo, hi = float(v.min()), float(v.max())
    least = 1.0 if decades else max(0.1 * abs(hi), 1e-3)
    if hi - lo < least:
        mid = 0.5 * (lo + hi)
        lo, hi = mid - 0.5 * least, mid + 0.5 * least
    pad = 0.04 * (hi - lo)
    (plot.setYRange if axis == "y" else plot.setXRange)(lo - pad, hi + pad, padding=0)


class TheoryPlots:
    """The four plots of the spectrum & theory figure (module docstring): ``widgets`` and
    ``plots`` by view name, ``notes`` (the text under each plot)."""

    def __init__(self):
        self.widgets = {
            "spectrum": log_plot("Spectrum of the Gram matrices", "index i", "eigenvalue λ<sub>i</sub>/N"),
            "alignment": log_plot("Label alignment", "number of top eigenvectors m",
                                  "cumulative alignment A(m)"),
            "learning_curve": log_plot("Learning curve on the pool", "training digits n", "held-out test MSE"),
            "certificate": log_plot("Arora et al. certificate", "training digits n",
                                    "certificate √(2 YᵀH⁻¹Y / n)"),
        }
        self.plots = {view: w.getPlotItem() for view, w in self.widgets.items()}
        for widget in self.widgets.values():
            widget.setMinimumSize(*PLOT_MIN)
        for view, (x, y) in {"spectrum": (True, True), "alignment": (True, False),
                             "learning_curve": (True, True), "certificate": (True, True)}.items():
            _decade_axes(self.plots[view], x, y)
        align = self.plots["alignment"]
        align.getAxis("left").setTicks([[(v / 10, f"{v / 10:g}") for v in range(0, 11, 2)]])
        align.getViewBox().setMouseEnabled(y=False)
        declare_quantity(self.plots["spectrum"], "λᵢ/N")
        declare_quantity(align, "A(m)")
        declare_quantity(self.plots["learning_curve"], "test MSE")
        declare_quantity(self.plots["certificate"], "√(2 YᵀH⁻¹Y / n)")
        self.notes = {view: note_below(plot) for view, plot in self.plots.items()}
        #: what was drawn last (tests compare it with the responses)
        self.drawn: dict = {}

    # ------------------------------------------------------------------ empty
    def clear(self, note: str) -> None:
        """Nothing drawn; every plot says ``note``."""
        for view, plot in self.plots.items():
            _reset(plot)
            self.notes[view].set_html("")
            empty_note(plot, note)
        self.drawn = {}

    # ------------------------------------------------------------------ draw
    def draw(self, theories: dict, ordering=None, pool_note: str = "") -> None:
        """Draw ``theories`` (name -> DataTheoryResponse, in the order given) in all four plots;
        ``ordering`` (a ``KernelOrdering`` or None) adds its note to the certificate plot,
        ``pool_note`` says what the pool is."""
        self.clear("")
        self.draw_spectra([spectrum_series(th) for th in theories.values()], pool_note)
        self._draw_learning_curve(theories)
        self._draw_certificate(theories, ordering)

    def draw_spectra(self, series: list, pool_note: str = "") -> None:
        """The spectrum and alignment plots of ``series`` (:class:`SpectrumSeries`)."""
        for view in ("spectrum", "alignment"):
            _reset(self.plots[view])
            empty_note(self.plots[view], "no labels given" if view == "alignment" and
                       not any(s.alignment for s in series) else "")
        self._draw_spectrum(series, pool_note)
        self._draw_alignment(series)

    def _legend_style(self, plot, text: str, style=_SOLID, symbol=None, filled=True, line=True) -> None:
        """A grey legend entry for a line or point style (the kernels are named by colour)."""
        sample = pg.PlotDataItem(pen=pen(GREY, 2.0, style) if line else None, symbol=symbol, symbolSize=7,
                                 symbolBrush=GREY if filled else None, symbolPen=pen(GREY, 1.5))
        plot.legend.addItem(sample, text)

    def _kernel_entry(self, plot, name: str, item) -> None:
        plot.legend.addItem(item, kernel_label(name))

    def _draw_spectrum(self, series: list, pool_note: str) -> None:
        plot = self.plots["spectrum"]
        normalised = all(s.normalised for s in series)
        plot.setLabel("left", "eigenvalue λ<sub>i</sub>(K̃)/N" if normalised else "eigenvalue λ<sub>i</sub>/N")
        declare_quantity(plot, "λᵢ(K̃)/N" if normalised else "λᵢ/N")
        ys, xs, untrusted, negative, drawn, references = [], [], [], [], {}, []
        for s in series:
            colour = kernel_colour(s.name)
            n = s.eigenvalues.size
            x = np.log10(np.arange(1, n + 1, dtype=float))
            y = _log10(s.eigenvalues)
            line = pg.PlotDataItem(x, np.where(s.trustworthy, y, np.nan), pen=pen(colour, 2.0), connect="finite")
            plot.addItem(line)
            self._kernel_entry(plot, s.name, line)
            low = ~s.trustworthy & (s.eigenvalues > 0)
            if low.any():
                plot.addItem(pg.PlotDataItem(x[low], y[low], pen=None, symbol="o", symbolSize=5,
                                             symbolBrush=None, symbolPen=pen(colour, 1.2)))
            untrusted.append((s.name, int(np.count_nonzero(~s.trustworthy))))
            negative.append((s.name, int(np.count_nonzero(s.eigenvalues <= 0))))
            ys.append(y[np.isfinite(y)])
            xs.append(x)
            ref = s.reference
            if ref is not None:
                ry = _log10(ref.eigenvalues)
                rx = np.log10(np.arange(1, ry.size + 1, dtype=float))
                plot.addItem(pg.PlotDataItem(rx, ry, pen=pen(colour, 1.3, _DASH), connect="finite"))
                ys.append(ry[np.isfinite(ry)])
                references.append(f"{kernel_label(s.name)}: " + ref.label.replace(
                    f"S^{ref.dim - 1}", "S" + superscript(ref.dim - 1)))
            drawn[s.name] = (s.eigenvalues, s.trustworthy)
        if references:
            self._legend_style(plot, "sphere reference", _DASH)
        if any(count for _, count in untrusted):
            self._legend_style(plot, "not trusted", symbol="o", filled=False, line=False)
        self.drawn["spectrum"] = drawn
        _span(plot, xs, "x", decades=False)
        _span(plot, ys)
        parts = [("K̃ = K/(tr K/N): eigenvalues sum to 1" if normalised else "eigenvalues of K divided by N")
                 + (f"; {pool_note}" if pool_note else "")]
        counts = ", ".join(f"{kernel_label(k)} {c}" for k, c in untrusted if c)
        parts.append(f"Hollow: below N·ε·λ<sub>max</sub>, not trusted ({counts})" if counts
                     else "All above the floor N·ε·λ<sub>max</sub>")
        negatives = ", ".join(f"{kernel_label(k)} {c}" for k, c in negative if c)
        if negatives:
            parts.append(f"At most 0, not drawn: {negatives}")
        if references:
            parts.append("Dashed: the same ReLU kernel family on the sphere of the first layer's patches ("
                         + "; ".join(references) + "), a reference, not a fit")
        self.notes["spectrum"].set_html(". ".join(parts) + ".")

    def _draw_alignment(self, series: list) -> None:
        plot = self.plots["alignment"]
        drawn, xs, kinds = {}, [], []
        for s in series:
            colour = kernel_colour(s.name)
            for kind, a in s.alignment.items():
                x = np.log10(np.arange(1, a.size + 1, dtype=float))
                item = pg.PlotDataItem(x, np.asarray(a, dtype=float), pen=pen(colour, 2.0, KIND_STYLE[kind][0]))
                plot.addItem(item)
                if kind == "true":
                    self._kernel_entry(plot, s.name, item)
                if kind not in kinds:
                    kinds.append(kind)
                drawn[(s.name, kind)] = np.asarray(a)
                xs.append(x)
        if "random" in kinds:
            for kind in kinds:
                self._legend_style(plot, KIND_NAMES[kind], KIND_STYLE[kind][0])
        self.drawn["alignment"] = drawn
        if not drawn:
            self.notes["alignment"].set_html("")
            return
        _span(plot, xs, "x", decades=False)
        plot.setYRange(0.0, 1.02, padding=0)
        kta = ", ".join(f"{kernel_label(s.name)} {s.target_alignment:.3f}" for s in series
                        if s.target_alignment is not None)
        text = "A(m): the share of the centred one-hot labels' energy on the top m eigenvectors"
        if "random" in kinds:
            text += " (random labels: about m/N)"
        if kta:
            text += f". Kernel–target alignment: {kta}"
        self.notes["alignment"].set_html(text + ".")

    def _measured(self, plot, x, mean, sem, colour, kind) -> list:
        """Points with error bars (mean ± s.e.), in log10 coordinates when the y axis is
        logarithmic; returns the y values the view must hold."""
        _, symbol, filled = KIND_STYLE[kind]
        if plot.getAxis("left").logMode:
            y = _log10(mean)
            low, high = _log10(np.maximum(mean - sem, mean * 1e-3)), _log10(mean + sem)
        else:
            y, low, high = mean, mean - sem, mean + sem
        bars = error_bars(colour, 1.3)
        set_error_bars(bars, x, low, high, CAP_DECADES)
        plot.addItem(bars)
        plot.addItem(pg.PlotDataItem(x, y, pen=None, symbol=symbol, symbolSize=7,
                                     symbolBrush=colour if filled else None, symbolPen=pen(colour, 1.5)))
        return [low, high]

    def _draw_learning_curve(self, theories: dict) -> None:
        plot = self.plots["learning_curve"]
        ys, xs, drawn, kinds, ratios = [], [], {}, [], []
        for name, th in theories.items():
            colour = kernel_colour(name)
            for kind in th.kinds:
                curve = th.curve[kind]
                ok = np.isfinite(curve.heldout_mse) & (curve.heldout_mse > 0)
                line = pg.PlotDataItem(np.log10(curve.n[ok]), np.log10(curve.heldout_mse[ok]),
                                       pen=pen(colour, 2.0, KIND_STYLE[kind][0]))
                plot.addItem(line)
                if kind == "true":
                    self._kernel_entry(plot, name, line)
                mean, sem = _mean_sem(th.test_mse[kind])
                x = np.log10(np.asarray(th.n_values, dtype=float))
                ys += self._measured(plot, x, mean, sem, colour, kind)
                ys.append(np.log10(curve.heldout_mse[ok]))
                xs += [x, np.log10(curve.n[ok])]
                drawn[(name, kind)] = (np.asarray(th.n_values), mean, sem, curve.n[ok], curve.heldout_mse[ok])
                if kind not in kinds:
                    kinds.append(kind)
                if kind == "true":
                    predicted = th.theory[kind].heldout_mse[-1]
                    ratios.append((name, predicted / mean[-1] if mean[-1] > 0 else np.nan))
        self.drawn["learning_curve"] = drawn
        if not drawn:
            return
        self._legend_style(plot, "predicted")
        self._legend_style(plot, "measured ± s.e.", symbol="o", line=False)
        if "random" in kinds:
            self._legend_style(plot, "random labels", _DASH, "s", filled=False)
        _span(plot, xs, "x")
        _span(plot, ys)
        first = next(iter(theories.values()))
        ridge = "δ = 0" if first.ridge == 0 else f"δ = {first.ridge:g}"
        text = (f"Lines: eigenlearning prediction from the pool's spectrum; points: KRR ({ridge}) on "
                f"{_subsets(first.draws)} per n, tested on the other N − n digits.")
        if ratios:
            text += (f" Predicted / measured at n = {first.n_values[-1]}: "
                     + ", ".join(f"{kernel_label(k)} {r:.2f}" for k, r in ratios) + ".")
        self.notes["learning_curve"].set_html(text)

    def _draw_certificate(self, theories: dict, ordering) -> None:
        plot = self.plots["certificate"]
        ys, xs, drawn, kinds, lam_parts = [], [], {}, [], []
        fits = singular = 0
        for name, th in theories.items():
            colour = kernel_colour(name)
            x = np.log10(np.asarray(th.n_values, dtype=float))
            for kind in th.kinds:
                mean, sem = _mean_sem(th.certificate[kind])
                line = pg.PlotDataItem(x, _log10(mean), pen=pen(colour, 1.8, KIND_STYLE[kind][0]))
                plot.addItem(line)
                if kind == "true":
                    self._kernel_entry(plot, name, line)
                ys += self._measured(plot, x, mean, sem, colour, kind)
                xs.append(x)
                drawn[(name, kind)] = (np.asarray(th.n_values), mean, sem)
                if kind not in kinds:
                    kinds.append(kind)
            fits += th.pseudo_inverse.size
            singular += int(np.count_nonzero(th.pseudo_inverse))
            lam_parts.append(f"{kernel_label(name)} {_fmt(float(th.lambda_min[-1].mean()))}")
        self.drawn["certificate"] = drawn
        if not drawn:
            return
        if "random" in kinds:
            for kind in kinds:
                _, symbol, filled = KIND_STYLE[kind]
                self._legend_style(plot, KIND_NAMES[kind], KIND_STYLE[kind][0], symbol, filled)
        _span(plot, xs, "x")
        _span(plot, ys)
        first = next(iter(theories.values()))
        ridge = "δ = 0" if first.ridge == 0 else f"δ = {first.ridge:g}"
        subsets = _subsets(first.draws)
        text = ((f"Mean ± s.e. over {subsets}" if first.draws > 1 else subsets.capitalize())
                + f". H = (K̃<sub>SS</sub> + δI)/2, {ridge}: "
                + (f"pseudo-inverse (H numerically singular) in {singular} of {fits} fits" if singular
                   else f"solved in all {fits} fits")
                + f"; λ<sub>min</sub>(H) at n = {first.n_values[-1]}: " + ", ".join(lam_parts) + ".")
        order = ordering_text(ordering)
        if order:
            text += " " + order
        self.notes["certificate"].set_html(text)
