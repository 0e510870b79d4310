"""The sweep figures of the lazy-training tab: against α, against the width m, double descent.

Each figure draws a :class:`ntkviz.jobs.LazySweepSetResponse` (partial or final) on a canvas of
its own: a title line (the parameters, the seeds, the state: running or partial), its plots, a
legend row under them (covering no data) and a row of notes (what the reader must know: the
method, why a quantity is missing, why there is no peak on the circle, diverged runs). Every
point is the mean over the finished seeds with ± one standard error (s/√k) as error bars; a mean
that does not exist (no finished seed, a quantity that does not apply) is a gap, and a zero —
an exact one, e.g. no ReLU flip at a lazy α — is left off a log axis and said so. A figure holds
no parameters: the panel passes the model's display fields with each drawing.

* :class:`AlphaSweepFigure`: test losses of the net, of its linearisation and of the
  infinite-width kernel against α (or τ = √α), the rich end left and the lazy end right, the
  crossover α*(m) of each width as a vertical line in its colour; beside it the chosen quantity
  (``sweep_metric``) with an α⁻¹ guide for ‖w − w₀‖/‖w₀‖ and κ_α.
* :class:`WidthSweepFigure`: the same against the width m, one curve per scaling (and α), with an
  m^−½ guide for ‖w − w₀‖/‖w₀‖ under the NTK scaling.
* :class:`DoubleDescentFigure`: the last layer alone (random features): test loss against m/n,
  the interpolation threshold m = n and the exact kernel-ridge (or kernel-flow) limit m → ∞ as a
  horizontal line.
"""
from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from ntkviz.gui.plot_style import (PALETTE, DecadeLogAxis, declare_quantity, empty_note,
                                   grid_below, pen, style_legend)
from ntkviz.gui.ticks import log_tick_strings

__all__ = ["AlphaSweepFigure", "WidthSweepFigure", "DoubleDescentFigure", "SweepState",
           "METRIC_NAMES", "SCALING_NAMES", "KINDS"]

#: short names of the output scalings of the width
SCALING_NAMES = {"ntk": "NTK 1/√m", "meanfield": "mean field 1/m", "none": "s = 1"}
#: what the quantities of a sweep are called on the plots
METRIC_NAMES = {
    "test_loss_net": "test loss (net)", "test_loss_linear": "test loss (linearisation)",
    "test_loss_kernel": "test loss (kernel, m → ∞)", "train_loss_net": "train loss (net)",
    "displacement": "‖w − w₀‖/‖w₀‖", "kernel_drift": "kernel drift ‖Kₜ − K₀‖/‖K₀‖",
    "flip_share": "share of flipped ReLU patterns", "kappa_alpha": "laziness κ_α at w₀",
}
#: the test losses on the left plot: (quantity, legend text, line style, marker)
KINDS = (("test_loss_net", "net", QtCore.Qt.PenStyle.SolidLine, "o"),
         ("test_loss_linear", "linearisation", QtCore.Qt.PenStyle.DashLine, None),
         ("test_loss_kernel", "kernel, m → ∞", QtCore.Qt.PenStyle.DotLine, None))
#: series colours (the palette without black and yellow: those are the guides' and unreadable)
COLOURS = tuple(PALETTE[i] for i in (0, 1, 2, 3, 4, 5))
#: a mean minus its standard error below this share of the mean ends the bar there (log axis)
BAR_FLOOR = 1e-3
#: characters per line of the notes row (8-pt text in a 560-px figure)
NOTE_CHARS = 100
GUIDE = "#555555"
#: the space between an axis title and the ends it names (three em spaces)
SPACE = "\u2003" * 3
#: legend texts at most this long fit six columns
SHORT_TEXT = 18


@dataclass(frozen=True)
class SweepState:
    """How far the sweep drawn has come: ``done`` (finished), ``cancelled`` (stopped, partial),
    else running; ``finished`` of ``total`` runs."""

    finished: int
    total: int
    done: bool = True
    cancelled: bool = False

    def text(self) -> str:
        """What the title adds: nothing once done, else the runs so far."""
        if self.done:
            return ""
        if self.cancelled:
            return f" · partial: cancelled after {self.finished} of {self.total} runs"
        return f" · running: {self.finished} of {self.total} runs"


@dataclass
class _Series:
    """One curve of every plot: ``label``, colour index, the x values and how to read a
    (width, α) array of the sweep ``response`` along them (``pick``)."""

    label: str
    colour: int
    x: np.ndarray
    response: object
    pick: object
    scaling: str = ""
    width_index: int = -1

    def mean(self, name: str) -> np.ndarray:
        if not self.response.applies(name):
            return np.full(self.x.shape, np.nan)
        return np.asarray(self.pick(self.response.mean(name)), dtype=float)

    def sem(self, name: str) -> np.ndarray:
        if not self.response.applies(name):
            return np.full(self.x.shape, np.nan)
        return np.asarray(self.pick(self.response.sem(name)), dtype=float)


def _log10(values) -> np.ndarray:
    v = np.asarray(values, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(v > 0, np.log10(np.where(v > 0, v, 1.0)), np.nan)


def _plot(title: str, xlabel: str, ylabel: str = "") -> pg.PlotItem:
    """A plot of a sweep: log axes labelled 10ⁿ (and 2·10ⁿ, 5·10ⁿ over few decades), the grid
    under the curves, no ticks while empty (it then says why)."""
    item = pg.PlotItem(axisItems={"bottom": DecadeLogAxis("bottom"), "left": DecadeLogAxis("left")})
    item.setTitle(title, size="9pt")
    item.setLabel("bottom", xlabel)
    item.setLabel("left", ylabel)
    item.showGrid(x=True, y=True, alpha=0.15)
    item.setLogMode(x=True, y=True)
    item.setMenuEnabled(False)
    grid_below(item)
    empty_note(item, "")
    return item


def _legend(columns: int) -> pg.LegendItem:
    legend = style_legend(pg.LegendItem(labelTextSize="8pt", colCount=columns))
    # a cell of the figure's layout: it scales with the export (pyqtgraph's legends ignore
    # the painter's scale by default)
    legend.setFlag(legend.GraphicsItemFlag.ItemIgnoresTransformations, False)
    return legend


def _sample(colour, style=QtCore.Qt.PenStyle.SolidLine, symbol=None) -> pg.PlotDataItem:
    """A legend sample (drawn from its own options, not shown in a plot)."""
    return pg.PlotDataItem(pen=pen(colour, 2.0, style), symbol=symbol, symbolSize=6,
                           symbolBrush=colour, symbolPen=colour)


def _number(value: float) -> str:
    """``1.7``, ``0.012``, ``3·10⁴``: three significant digits, powers of ten outside [10⁻², 10⁴)."""
    if not math.isfinite(value):
        return "–"
    if 1e3 <= abs(value) < 1e4:  # 3160, not 3.16e+03
        return f"{float(f'{value:.3g}'):.0f}"
    if 1e-2 <= abs(value) < 1e4 or value == 0:
        return f"{value:.3g}"
    exponent = math.floor(math.log10(abs(value)))
    text = log_tick_strings([math.log10(abs(value))])[0]
    mantissa = abs(value) / 10.0 ** exponent
    if abs(mantissa - round(mantissa)) < 5e-3:  # 3·10⁴ rather than 3.00·10⁴
        text = log_tick_strings([exponent + math.log10(round(mantissa))])[0]
    return ("−" if value < 0 else "") + text


class _SweepFigure:
    """A canvas holding the title, the plots (``plots``: name -> PlotItem), the legend and the
    notes; subclasses build the plots (:meth:`_build`) and draw (:meth:`_draw`)."""

    #: the figure's name in the title
    name = ""
    #: the plots in their cells of row 1
    plot_names: tuple = ()

    def __init__(self):
        self.canvas = pg.GraphicsLayoutWidget()
        self.canvas.setBackground("w")
        self.canvas.setMinimumSize(560, 380)
        self.layout_item = self.canvas.ci
        self.layout_item.setContentsMargins(4, 4, 4, 4)
        self.title = pg.LabelItem("", size="9pt", color="k")
        self.plots: dict[str, pg.PlotItem] = self._build()
        columns = len(self.plots)
        self.layout_item.addItem(self.title, row=0, col=0, colspan=columns)
        for c, plot in enumerate(self.plots.values()):
            self.layout_item.addItem(plot, row=1, col=c)
        self.legend = _legend(3)
        self.layout_item.addItem(self.legend, row=2, col=0, colspan=columns)
        self.layout_item.layout.setAlignment(self.legend, QtCore.Qt.AlignmentFlag.AlignHCenter)
        self.notes = pg.LabelItem("", size="8pt", color="#333333", justify="left")
        self.layout_item.addItem(self.notes, row=3, col=0, colspan=columns)
        fixed = QtWidgets.QSizePolicy.Policy
        for item in (self.title, self.legend, self.notes):  # the plots take the height left
            item.setSizePolicy(fixed.Preferred, fixed.Fixed)
        for r, stretch in enumerate((0, 1, 0, 0)):
            self.layout_item.layout.setRowStretchFactor(r, stretch)
        self.drawn = None  #: the (response, display fields, state) drawn, or the empty note
        #: the curves drawn: (plot, series index, quantity) -> (PlotDataItem, ErrorBarItem or None)
        self.items: dict = {}
        self.show_nothing("")

    # -------------------------------------------------------------- building
    def _build(self) -> dict:
        raise NotImplementedError

    def _title(self, request, state: SweepState) -> str:
        """Two lines: the figure's name, the seeds and the state, then the parameters
        (subclasses add theirs, :meth:`_parameters`)."""
        sweep = request.sweeps[0]
        seeds = f"mean ± s.e. over {sweep.seeds} seeds" if sweep.seeds > 1 else \
            "1 seed (no error bars)"
        return f"<b>{self.name}</b> · {seeds}{state.text()}<br>" + ", ".join(self._parameters(request))

    def _parameters(self, request) -> list[str]:
        sweep = request.sweeps[0]
        scalings = " and ".join(SCALING_NAMES[s] for s in request.scalings)
        t = "closed form" if sweep.ridge is not None else f"t = {_number(sweep.lr * sweep.steps)}"
        return [f"d = {sweep.dim}", f"n = {sweep.samples}", f"m₀ = {sweep.teacher}", t, scalings]

    # -------------------------------------------------------------- drawing
    def show_nothing(self, note: str) -> None:
        """Nothing drawn: every plot empty, saying ``note``; no legend, no notes."""
        if self.drawn == ("nothing", note):
            return
        self.drawn = ("nothing", note)
        self.items = {}
        for plot in self.plots.values():
            plot.clear()
            empty_note(plot, note)
        self.legend.clear()
        self._show_legend(False)
        self.title.setText(f"<b>{self.name}</b>")
        self._set_notes([])

    def draw(self, response, params, state: SweepState) -> None:
        """Draw ``response`` (computed for the model's ``params``) as far as ``state`` says."""
        key = (id(response), params.sweep_x, params.sweep_metric, state)
        if self.drawn == key:
            return
        self.drawn = key
        self.items = {}
        for plot in self.plots.values():
            plot.clear()
            empty_note(plot, "no run finished yet" if not state.done else "")
        self.legend.clear()
        self._show_legend(False)
        self.title.setText(self._title(response.request, state))
        notes = self._draw(response, params)
        self._set_notes([n for n in response.notes if self._relevant(n)] + notes)

    def _relevant(self, note: str) -> bool:
        """Whether a note of the sweep is shown under this figure (the title already says
        the time t)."""
        return not note.startswith("gradient descent to t")

    def _draw(self, response, params) -> list[str]:
        """Draw the plots and fill the legend; returns the figure's own notes."""
        raise NotImplementedError

    def _set_notes(self, notes) -> None:
        lines = [line for note in notes for line in textwrap.wrap(note, NOTE_CHARS)]
        self.notes.setText("<br>".join(lines))
        self.notes.setVisible(bool(lines))
        # no notes: no row (a hidden item keeps its cell's height)
        self.notes.setMaximumHeight(16777215 if lines else 0)
        self.notes.setMinimumHeight(0)

    def _fill_legend(self, entries) -> None:
        """The legend in four columns, six when every text is short (many α of one width
        figure), so that it takes fewer rows."""
        self.legend.clear()
        columns = 6 if len(entries) > 8 and max(len(t) for _, t in entries) <= SHORT_TEXT else 4
        self.legend.setColumnCount(min(columns, max(1, len(entries))))
        for item, text in entries:
            self.legend.addItem(item, text)
        self._show_legend(bool(entries))

    def _show_legend(self, shown: bool) -> None:
        """A legend without entries has no row (a hidden item keeps its cell's height)."""
        self.legend.setVisible(shown)
        self.legend.setMaximumHeight(16777215 if shown else 0)

    # -------------------------------------------------------------- pieces
    def _curve(self, plot_name: str, key: tuple, x, mean, sem, colour, style, symbol,
               log_y: bool, dodge: float = 0.0) -> int:
        """One curve of means with ± s.e. bars (moved ``dodge`` decades right of their points,
        so that the bars of curves at the same x stay apart) on plot ``plot_name``, recorded in
        :attr:`items` under ``(plot_name, *key)``; returns how many points are zero (not drawn
        on a log axis). Points without a mean are gaps."""
        plot = self.plots[plot_name]
        y = np.array(mean, dtype=float)
        zeros = int(np.sum(y == 0)) if log_y else 0
        if log_y:
            y[~(y > 0)] = np.nan
        if not np.isfinite(y).any():
            return zeros
        curve = pg.PlotDataItem(np.asarray(x, dtype=float), y, pen=pen(colour, 2.0, style),
                                symbol=symbol, symbolSize=6, symbolBrush=colour, symbolPen=colour,
                                connect="finite")
        plot.addItem(curve)
        bars = None
        e = np.asarray(sem, dtype=float)
        ok = np.isfinite(y) & np.isfinite(e) & (e > 0)
        if ok.any():
            xv = np.log10(np.asarray(x, dtype=float)[ok]) + dodge
            if log_y:
                yv = np.log10(y[ok])
                top = np.log10(y[ok] + e[ok]) - yv
                bottom = yv - np.log10(np.maximum(y[ok] - e[ok], BAR_FLOOR * y[ok]))
            else:
                yv, top, bottom = y[ok], e[ok], e[ok]
            bars = pg.ErrorBarItem(x=xv, y=yv, top=top, bottom=bottom, beam=0.05,
                                   pen=pen(colour, 1.2 if style == QtCore.Qt.PenStyle.SolidLine
                                           else 0.8))
            plot.addItem(bars)
        self.items[(plot_name, *key)] = (curve, bars)
        return zeros

    @staticmethod
    def _fit_ranges(plot, xs, log_y: bool) -> None:
        """x: the whole grid (points of a running sweep appear in place); y: every mean, bar
        end and guide drawn, at least a decade on a log axis."""
        x = np.log10(np.asarray(xs, dtype=float))
        span = max(x.max() - x.min(), 0.2)
        pad = 0.06 * span + 0.15  # room for the labels of decades at the ends (10⁻², 10⁴)
        lo, hi = x.min() - pad, x.max() + pad
        while math.floor(hi) - math.ceil(lo) + 1 < 3:  # three decades to label (a short axis
            below, above = lo - math.floor(lo - 1e-9), math.ceil(hi + 1e-9) - hi  # drops 2·10ⁿ)
            if below <= above:
                lo = math.floor(lo - 1e-9) - 0.25
            else:
                hi = math.ceil(hi + 1e-9) + 0.25
        plot.setXRange(lo, hi, padding=0)
        ys = []
        for item in plot.items:
            if isinstance(item, pg.PlotDataItem):
                ys.append(item.getData()[1])  # log10 values on a log axis
            elif isinstance(item, pg.ErrorBarItem):
                y = np.asarray(item.opts["y"], dtype=float)
                ys += [y + np.asarray(item.opts["top"]), y - np.asarray(item.opts["bottom"])]
        y = np.concatenate([np.asarray(v, dtype=float) for v in ys] + [np.empty(0)])
        y = y[np.isfinite(y)]
        if y.size == 0:
            return
        lo, hi = float(y.min()), float(y.max())
        if log_y and hi - lo < 1.0:
            mid = 0.5 * (lo + hi)
            lo, hi = mid - 0.5, mid + 0.5
        elif not log_y:
            lo, hi = min(lo, 0.0), max(hi, 1e-3)
        pad = 0.05 * (hi - lo)
        plot.setYRange(lo - pad, hi + pad, padding=0)

    @staticmethod
    def _guide(plot, xs, through, slope: float) -> np.ndarray:
        """A guide line ∝ x^slope over ``xs``, parallel to the data at half the value of the
        point ``through`` = (x, y) (through it, it would hide under a curve that follows it)."""
        x0, y0 = through
        xs = np.asarray(xs, dtype=float)
        y = 0.5 * y0 * (xs / x0) ** slope
        plot.addItem(pg.PlotDataItem(xs, y, pen=pen(GUIDE, 1.4, QtCore.Qt.PenStyle.DashDotLine)))
        return y

    @staticmethod
    def _set_log_y(plot, log_y: bool) -> None:
        plot.setLogMode(x=True, y=log_y)


def _with_scaling(text: str, series_scaling: str, scalings) -> str:
    return f"{text}, {SCALING_NAMES[series_scaling]}" if len(scalings) > 1 else text


class _AgainstGrid(_SweepFigure):
    """Test losses (left) and the chosen quantity (right) against one axis of the grid."""

    plot_names = ("losses", "metric")
    #: how many grid values the axis needs for a curve
    needs = 2

    def _build(self) -> dict:
        return {"losses": _plot("test loss", ""), "metric": _plot("", "")}

    def _series(self, response, params) -> list[_Series]:
        raise NotImplementedError

    def _axis(self, response, params) -> tuple[np.ndarray, str]:
        """The x values (the grid) and the x axis title."""
        raise NotImplementedError

    def _too_few(self, response) -> str:
        """Why there is no curve (a grid of one value), or ""."""
        raise NotImplementedError

    def _extras(self, series, response, params, entries) -> None:
        """Lines of the figure besides the curves (crossovers); legend entries added."""

    def _metric_guide(self, series, params, xs) -> tuple | None:
        """``(x values, through, slope, legend text)`` of the guide of the chosen quantity
        (:meth:`_guide`), or None."""
        return None

    def _draw(self, response, params) -> list[str]:
        losses, metric = self.plots["losses"], self.plots["metric"]
        xs, xlabel = self._axis(response, params)
        why = self._too_few(response)
        name = params.sweep_metric
        log_y = name != "flip_share"
        self._set_log_y(metric, log_y)
        t = response.request.sweeps[0]
        losses.setTitle("test loss" + ("" if t.ridge is not None else
                                       f" at t = {_number(t.lr * t.steps)}"), size="9pt")
        declare_quantity(losses, "test loss")
        metric.setTitle(METRIC_NAMES[name], size="9pt")
        declare_quantity(metric, METRIC_NAMES[name])
        for plot in (losses, metric):
            plot.setLabel("bottom", xlabel)
        if why:
            for plot in (losses, metric):
                empty_note(plot, why)
            return []
        series = self._series(response, params)
        entries = [(_sample(COLOURS[s.colour % len(COLOURS)], symbol="o"), s.label) for s in series]
        notes = []
        dodge = 0.012 * float(np.ptp(np.log10(xs)))  # the bars of the three losses side by side
        for s in series:
            colour = COLOURS[s.colour % len(COLOURS)]
            for k, (kind, _, style, symbol) in enumerate(KINDS):
                self._curve("losses", (s.colour, kind), s.x, s.mean(kind), s.sem(kind), colour,
                            style, symbol, True, dodge=(0, 1, -1)[k] * dodge)
        kernel_text = "kernel ridge, m → ∞" if t.ridge is not None else "kernel flow, m → ∞"
        for kind, text, style, symbol in KINDS:
            if any(s.response.applies(kind) for s in series):
                entries.append((_sample("#000000", style, symbol),
                                kernel_text if kind == "test_loss_kernel" else text))
        if not response.responses[0].applies(name):
            empty_note(metric, f"{METRIC_NAMES[name]}:\nnot reported here (see the notes)")
        else:
            zeros = sum(self._curve("metric", (s.colour, name), s.x, s.mean(name), s.sem(name),
                                    COLOURS[s.colour % len(COLOURS)], QtCore.Qt.PenStyle.SolidLine,
                                    "o", log_y) for s in series)
            guide = self._metric_guide(series, params, xs)
            if guide is not None:
                over, through, slope, text = guide
                self._guide(metric, over, through, slope)
                entries.append((_sample(GUIDE, QtCore.Qt.PenStyle.DashDotLine), text))
            if zeros:
                drawn = any(isinstance(i, pg.PlotDataItem) for i in metric.items)
                text = (f"{METRIC_NAMES[name]} is 0 at {zeros} point(s), left off the log axis"
                        if drawn else f"{METRIC_NAMES[name]} is 0 at every point")
                notes.append(text)
                if not drawn:
                    empty_note(metric, f"{METRIC_NAMES[name]}\n= 0 at every point")
        self._extras(series, response, params, entries)
        for plot, log in ((losses, True), (metric, log_y)):
            self._fit_ranges(plot, xs, log)
        self._fill_legend(entries)
        return notes


class AlphaSweepFigure(_AgainstGrid):
    """Test losses and the chosen quantity against α (or τ = √α), one curve per width (and
    scaling), the crossover α*(m) of each width marked and stated."""

    name = "Lazy ↔ rich against α"

    def _axis(self, response, params):
        sweep = response.responses[0]
        if params.sweep_x == "tau":
            return sweep.taus, f"← rich{SPACE}τ = √α{SPACE}lazy →"
        return sweep.alphas, f"← rich{SPACE}output scale α{SPACE}lazy →"

    def _too_few(self, response) -> str:
        n = len(response.request.sweeps[0].alphas)
        return "" if n >= 2 else (f"one α ({_number(response.request.sweeps[0].alphas[0])}):\nthis "
                                  "figure needs two α or more\n(the sweep's α values)")

    def _series(self, response, params) -> list[_Series]:
        x = self._axis(response, params)[0]
        scalings = response.request.scalings
        out = []
        for sweep in response.responses:
            for iw, m in enumerate(sweep.request.widths):
                label = _with_scaling(f"m = {m}: {self._star_text(sweep.crossover(iw), sweep)}",
                                      sweep.request.scaling, scalings)
                out.append(_Series(label, len(out), x, sweep, lambda a, iw=iw: a[iw, :],
                                   sweep.request.scaling, iw))
        return out

    @staticmethod
    def _star_text(star, sweep) -> str:
        if math.isfinite(star.alpha):
            return f"α* = {_number(star.alpha)}"
        if "above the grid" in star.note:
            return f"α* > {_number(sweep.alphas[-1])}"
        if "below the grid" in star.note:
            return f"α* < {_number(sweep.alphas[0])}"
        if "linear" in star.note:
            return "no α* (linear model)"
        return "α* not known yet"

    def _extras(self, series, response, params, entries) -> None:
        marked = False
        for s in series:
            star = s.response.crossover(s.width_index).alpha
            if not math.isfinite(star):
                continue
            x = math.sqrt(star) if params.sweep_x == "tau" else star
            for plot in self.plots.values():
                plot.addItem(pg.InfiniteLine(math.log10(x), angle=90,
                                             pen=pen(COLOURS[s.colour % len(COLOURS)], 1.2,
                                                     QtCore.Qt.PenStyle.DashLine)))
            marked = True
        if marked:
            gap = response.request.sweeps[0].gap
            entries.append((_sample("#777777", QtCore.Qt.PenStyle.DashLine),
                            f"α*: net and linearisation {gap:.0%} apart"))

    def _metric_guide(self, series, params, xs):
        if params.sweep_metric not in ("displacement", "kappa_alpha"):
            return None
        for s in series:  # through the lazy end of the first curve that reaches it
            y = s.mean(params.sweep_metric)
            ok = np.flatnonzero(np.isfinite(y) & (y > 0))
            if ok.size:
                k = ok[-1]
                slope, text = (-2.0, "∝ τ⁻² = α⁻¹") if params.sweep_x == "tau" else (-1.0, "∝ α⁻¹")
                return xs[len(xs) // 2:], (float(xs[k]), float(y[k])), slope, text + " (lazy half)"
        return None


class WidthSweepFigure(_AgainstGrid):
    """Test losses and the chosen quantity against the width m, one curve per scaling (and α),
    with an m^−½ guide for ‖w − w₀‖/‖w₀‖ under the NTK scaling."""

    name = "Against the width m"

    def _axis(self, response, params):
        return response.responses[0].widths.astype(float), "width m"

    def _too_few(self, response) -> str:
        widths = response.request.sweeps[0].widths
        return "" if len(widths) >= 2 else (f"one width (m = {widths[0]}):\nthis figure needs two "
                                            "widths or more\n(the sweep's widths)")

    def _series(self, response, params) -> list[_Series]:
        x = self._axis(response, params)[0]
        out = []
        for sweep in response.responses:
            alphas = sweep.request.alphas
            for ia, alpha in enumerate(alphas):
                label = (f"α = {_number(alpha)}" if len(alphas) > 1 else "") + (
                    f", {SCALING_NAMES[sweep.request.scaling]}" if len(response.responses) > 1
                    else "")
                label = label.removeprefix(", ") or SCALING_NAMES[sweep.request.scaling]
                out.append(_Series(label, len(out), x, sweep, lambda a, ia=ia: a[:, ia],
                                   sweep.request.scaling))
        return out

    def _parameters(self, request) -> list[str]:
        alphas = request.sweeps[0].alphas
        return super()._parameters(request) + ([f"α = {_number(alphas[0])}"] if len(alphas) == 1
                                               else [])

    def _metric_guide(self, series, params, xs):
        if params.sweep_metric != "displacement":
            return None
        for s in series:
            if s.scaling != "ntk":
                continue
            y = s.mean("displacement")
            ok = np.flatnonzero(np.isfinite(y) & (y > 0))
            if ok.size:
                k = ok[ok.size // 2]
                return xs, (float(xs[k]), float(y[k])), -0.5, "∝ 1/√m (NTK scaling)"
        return None


class DoubleDescentFigure(_SweepFigure):
    """Random features (the last layer alone): test loss against m/n with ± s.e. bars, the
    interpolation threshold m = n and the infinite-width kernel's test loss as the limit m → ∞."""

    name = "Double descent of random features (last layer alone)"
    plot_names = ("loss",)

    def _build(self) -> dict:
        return {"loss": _plot("test loss", "m/n  (features per training input)")}

    def _relevant(self, note: str) -> bool:
        """Why there is no peak on the circle, and diverged runs (the title and the legend say
        the method)."""
        from ntkviz.core.training.random_features import CIRCLE_NOTE

        return note == CIRCLE_NOTE or "diverged" in note

    def _parameters(self, request) -> list[str]:
        sweep = request.sweeps[0]
        ridge = [] if sweep.ridge is None else [f"ridge δ = {_number(sweep.ridge)}"]
        alphas = [] if len(sweep.alphas) > 1 else [f"α = {_number(sweep.alphas[0])}"]
        return super()._parameters(request) + [f"label noise σ = {_number(sweep.noise)}",
                                               *ridge, *alphas]

    def _draw(self, response, params) -> list[str]:
        plot = self.plots["loss"]
        sweep0 = response.request.sweeps[0]
        declare_quantity(plot, "test loss")
        if sweep0.layers != "last":
            empty_note(plot, f"trained layers: {sweep0.layers}\ndouble descent is the last layer's "
                             "alone (random features):\nset trained layers to last")
            return []
        if len(sweep0.widths) < 2:
            empty_note(plot, f"one width (m = {sweep0.widths[0]}):\nthis figure needs two widths "
                             "or more\n(the sweep's widths)")
            return []
        entries, levels, limits = [], [], []
        series = []
        for sweep in response.responses:
            for ia, alpha in enumerate(sweep.request.alphas):
                text = "random features" if len(response.responses) == 1 else \
                    SCALING_NAMES[sweep.request.scaling]
                if len(sweep.request.alphas) > 1:
                    text += f", α = {_number(alpha)}"
                series.append(_Series(text, len(series), sweep.width_ratio, sweep,
                                      lambda a, ia=ia: a[:, ia], sweep.request.scaling))
        kernel = "kernel ridge" if sweep0.ridge is not None else "kernel flow"
        for s in series:
            colour = COLOURS[s.colour % len(COLOURS)]
            self._curve("loss", (s.colour, "test_loss_net"), s.x, s.mean("test_loss_net"),
                        s.sem("test_loss_net"), colour,
                        QtCore.Qt.PenStyle.SolidLine, "o", True)
            entries.append((_sample(colour, symbol="o"), f"{s.label}: test loss"))
            limit = s.mean("test_loss_kernel")
            finite = limit[np.isfinite(limit)]
            if finite.size == 0:
                continue
            dash = QtCore.Qt.PenStyle.DashLine
            if np.allclose(finite, finite[0], rtol=1e-9, atol=0.0) and finite[0] > 0:
                # the same kernel at every width (NTK scaling: (m s²/2)κ₁ = κ₁/2): one level
                levels.append(math.log10(float(finite[0])))
                plot.addItem(pg.InfiniteLine(levels[-1], angle=0, pen=pen(colour, 1.6, dash)))
                limits.append(float(finite[0]))
            else:  # the kernel (m s²/2)κ₁ changes with m (another scaling and a ridge)
                self._curve("loss", (s.colour, "test_loss_kernel"), s.x, limit,
                            s.sem("test_loss_kernel"), colour, dash, None, True)
            entries.append((_sample(colour, dash), f"{kernel} (m s²/2)κ₁, m → ∞"))
        declare_quantity(plot, "test loss", levels=levels)
        plot.addItem(pg.InfiniteLine(0.0, angle=90, pen=pen(GUIDE, 1.4, QtCore.Qt.PenStyle.DashDotLine)))
        entries.append((_sample(GUIDE, QtCore.Qt.PenStyle.DashDotLine), "m = n: interpolation threshold"))
        self._fit_ranges(plot, np.asarray(sweep0.widths, dtype=float) / sweep0.samples, True)
        if limits:  # the levels stay in view with the data
            (lo, hi), want = plot.viewRange()[1], [math.log10(v) for v in limits]
            plot.setYRange(min(lo, min(want) - 0.1), max(hi, max(want) + 0.1), padding=0)
        self._fill_legend(entries)
        return []
