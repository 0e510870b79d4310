"""The figures of the Classification tab that its classification draws: accuracy with error
bars, and the confusion matrix of one run.

* :class:`AccuracyPlots` — accuracy against the training size and against the deformation
  amplitude of the test digits, one colour per kernel (:data:`STYLE`), each point with its
  error bar: the 95 % Wilson interval of one split, or ± one standard error over the random
  splits; a note under the plot says which, and the number of test digits n_test.
* :class:`ConfusionPlot` — test digits of each true class (rows) by predicted class
  (columns) for one kernel: counts written in the cells, cells shaded by the share of
  their row (the recall on the diagonal).
* :func:`note_below` — a wrapped note inside a plot item, under its x axis (exported with it).
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from ntkviz.gui.panels._curve_plots import legend_below
from ntkviz.gui.plot_style import PALETTE, declare_quantity, make_plot, pen, set_title

__all__ = ["STYLE", "AccuracyPlots", "ConfusionPlot", "FigureNote", "note_below", "kernel_label",
           "kernel_colour", "error_bars", "set_error_bars"]

#: kernel -> (legend name, colour index): CKN, NTK, pixels as in the stability view
STYLE = {"ckn": ("CKN", 0), "ntk": ("NTK", 1), "pixels": ("pixels", 2), "scattering": ("scattering", 3)}
#: the accuracy axis: 0 … 1 with a little room for the top error bars
ACCURACY_RANGE = (0.0, 1.02)
#: image pixels per cell of the confusion matrix (its exported image stays sharp when scaled)
CELL_PIXELS = 24
#: smallest size of each plot (px): its title, axes, legend and note uncut
PLOT_MIN = (320, 240)


def kernel_label(kernel: str) -> str:
    """Legend name of a kernel (its own name when not a kernel of the tab)."""
    return STYLE.get(kernel, (kernel or "kernel", 0))[0]


def kernel_colour(kernel: str) -> str:
    return PALETTE[STYLE.get(kernel, ("", 0))[1]]


class FigureNote(pg.GraphicsWidget):
    """Text inside a plot item, wrapped to the plot's width (so it is exported with the
    plot and never leaves the figure); empty: takes no room."""

    def __init__(self, plot_item, size_pt: float = 8.5):
        super().__init__()
        self._plot_item = plot_item
        self.text_item = QtWidgets.QGraphicsTextItem(self)
        font = self.text_item.font()
        font.setPointSizeF(size_pt)
        self.text_item.setFont(font)
        self.text_item.setDefaultTextColor(QtGui.QColor("#333333"))
        self._html = ""
        plot_item.geometryChanged.connect(self.fit)
        self.fit()

    def set_html(self, html: str) -> None:
        if html != self._html:
            self._html = html
            self.text_item.setHtml(html)
            self.fit()

    def html(self) -> str:
        return self._html

    def plain_text(self) -> str:
        return self.text_item.toPlainText()

    def fit(self) -> None:
        """Wrap to the plot's width and take the height the text needs."""
        width = max(self._plot_item.geometry().width() - 24.0, 60.0)
        self.text_item.setTextWidth(width)
        height = self.text_item.boundingRect().height() if self._html else 0.0
        self.setMinimumSize(0, height)
        self.setPreferredSize(width, height)
        self.setMaximumSize(width, height)
        self.text_item.setVisible(bool(self._html))


def note_below(plot, row: int = 5) -> FigureNote:
    """A :class:`FigureNote` in row ``row`` of ``plot``'s layout (under the x axis, and under
    a :func:`~ntkviz.gui.panels._curve_plots.legend_below` legend in row 4)."""
    item = getattr(plot, "getPlotItem", lambda: plot)()
    note = FigureNote(item)
    item.layout.addItem(note, row, 0, 1, 3)  # under the axes too: the plot's whole width
    item.layout.setAlignment(note, QtCore.Qt.AlignmentFlag.AlignLeft)
    return note


def error_bars(colour: str, width: float = 1.5) -> pg.PlotDataItem:
    """An empty curve that draws error bars (:func:`set_error_bars`): drawn as line segments,
    so exports widen them with the figure as they do the curves."""
    return pg.PlotDataItem([], [], pen=pen(colour, width), connect="pairs")


def set_error_bars(item: pg.PlotDataItem, x, low, high, cap: float) -> None:
    """Bars from ``low`` to ``high`` at each ``x`` with caps ``cap`` wide (view coordinates);
    bars with a non-finite end are left out."""
    x, low, high = (np.asarray(a, dtype=float) for a in (x, low, high))
    ok = np.isfinite(x) & np.isfinite(low) & np.isfinite(high)
    x, low, high = x[ok], low[ok], high[ok]
    h = 0.5 * cap
    xs = np.column_stack([x, x, x - h, x + h, x - h, x + h]).ravel()
    ys = np.column_stack([low, high, high, high, low, low]).ravel()
    item.setData(xs, ys, connect="pairs")


def _accuracy_plot(title: str, xlabel: str) -> pg.PlotWidget:
    widget = make_plot(title, xlabel, "test accuracy", legend=False)
    widget.setMinimumSize(*PLOT_MIN)
    plot = widget.getPlotItem()
    legend_below(plot)
    plot.setYRange(*ACCURACY_RANGE, padding=0)
    plot.getAxis("left").setTicks([[(v / 10, f"{v / 10:g}") for v in range(0, 11, 2)]])
    plot.getViewBox().setMouseEnabled(y=False)
    declare_quantity(plot, "accuracy")
    return widget


class AccuracyPlots:
    """Accuracy against the training size and against the deformation amplitude (module
    docstring): ``plots`` (``train_size``, ``deformation``), ``curves[(view, kernel)]`` the
    points, ``bars[(view, kernel)]`` their error bars, ``notes[view]`` what the bars are."""

    def __init__(self):
        self.size_widget = _accuracy_plot("Accuracy vs training size", "training digits n")
        self.amp_widget = _accuracy_plot("Accuracy vs test deformation", "amplitude")
        self.widgets = {"train_size": self.size_widget, "deformation": self.amp_widget}
        self.plots = {view: w.getPlotItem() for view, w in self.widgets.items()}
        self.curves, self.bars, self.notes = {}, {}, {}
        for view, plot in self.plots.items():
            for k in STYLE:
                name, ci = STYLE[k]
                colour = PALETTE[ci]
                bars = error_bars(colour)
                plot.addItem(bars)
                self.bars[(view, k)] = bars
                self.curves[(view, k)] = plot.plot([], [], pen=pen(colour, 2.5), symbol="o", symbolSize=7,
                                                   symbolBrush=colour, symbolPen=colour, name=name)
            self.notes[view] = note_below(plot)

    def set_family_label(self, family: str, unit: str) -> None:
        self.plots["deformation"].setLabel(
            "bottom", "amplitude (no deformation)" if family == "none" else f"{family} amplitude ({unit})")

    def draw(self, response) -> None:
        """Points and error bars of ``response`` (a :class:`~ntkviz.jobs.ClassifyResponse`,
        possibly partial) in both plots."""
        note = _bars_note(response)
        for view, plot in self.plots.items():
            series = response.series(view)
            shown = [k for k in STYLE if k in response.kernels]
            legend = plot.legend
            if [label.text for _, label in legend.items] != [STYLE[k][0] for k in shown]:
                legend.clear()  # the legend lists only the kernels computed
                for k in shown:
                    legend.addItem(self.curves[(view, k)], STYLE[k][0])
            xs, top = [], ACCURACY_RANGE[1]
            for k in STYLE:
                s = series.get(k)
                if s is None or not s.x:
                    self.curves[(view, k)].setData([], [])
                    self.bars[(view, k)].setData([], [])
                    continue
                x, y = np.asarray(s.x), np.asarray(s.accuracy)
                self.curves[(view, k)].setData(x, y)
                set_error_bars(self.bars[(view, k)], x, s.low, s.high, _beam(x))
                xs += list(x)
                top = max(top, float(np.nanmax(s.high)) + 0.01)
            if xs:
                lo, hi = min(xs), max(xs)
                pad = 0.05 * (hi - lo) if hi > lo else max(abs(lo) * 0.1, 1.0)
                plot.setXRange(lo - pad, hi + pad, padding=0)
            plot.setYRange(ACCURACY_RANGE[0], top, padding=0)
            self.notes[view].set_html(note)


def _beam(x: np.ndarray) -> float:
    """Width of the bars' caps: 1/50 of the x span (a visible tick at any scale)."""
    span = float(np.ptp(x)) if x.size > 1 else max(abs(float(x[0])), 1.0)
    return span / 50.0 if span > 0 else 0.1


def _bars_note(response) -> str:
    """What the error bars of ``response`` are, with the number of test digits."""
    n_test = response.n_test
    if response.splits > 1:
        done = response.splits_done
        part = f"{done} of {response.splits}" if done < response.splits else f"{response.splits}"
        return (f"mean over {part} random splits, bars ± one standard error over the splits; "
                f"n<sub>test</sub> = {n_test} test digits per split")
    return f"n<sub>test</sub> = {n_test} test digits; bars: 95 % Wilson interval of each accuracy"


class ConfusionPlot:
    """The confusion matrix of one run (module docstring): ``widget``, ``plot``, ``image``
    (cells shaded by the share of their row), ``texts`` (the counts)."""

    def __init__(self):
        self.widget = make_plot("Confusion matrix", "predicted digit", "true digit", legend=False)
        self.widget.setMinimumSize(*PLOT_MIN)
        self.plot = self.widget.getPlotItem()
        self.plot.getViewBox().setMouseEnabled(x=False, y=False)
        self.plot.getViewBox().setAspectLocked(False)
        self.plot.getViewBox().invertY(True)
        self.plot.showGrid(x=False, y=False)
        self.image = pg.ImageItem(axisOrder="row-major")
        self.image.setLookupTable(_blues())
        self.plot.addItem(self.image)
        self.texts: list = []
        self.note = note_below(self.plot)
        self.matrix = None  #: the counts drawn (true class x predicted class)
        self.classes: tuple = ()

    def clear(self) -> None:
        self.image.clear()
        for t in self.texts:
            self.plot.removeItem(t)
        self.texts = []
        self.matrix = None

    def draw(self, kernel: str, matrix: np.ndarray, classes, train_size: int, amplitude: float, family: str,
             n_test: int) -> None:
        """Draw the counts ``matrix`` (rows: true class, columns: prediction) of ``kernel``."""
        self.clear()
        matrix = np.asarray(matrix)
        self.matrix, self.classes = matrix, tuple(classes)
        c = len(classes)
        totals = matrix.sum(axis=1, keepdims=True)
        share = np.where(totals > 0, matrix / np.maximum(totals, 1), 0.0)
        # each cell a block of pixels: an SVG viewer that smooths images blurs only the cell edges
        self.image.setImage(np.kron(share, np.ones((CELL_PIXELS, CELL_PIXELS))), levels=(0.0, 1.0))
        self.image.setRect(QtCore.QRectF(-0.5, -0.5, c, c))
        for i in range(c):
            for j in range(c):
                if matrix[i, j] == 0:
                    continue
                colour = "w" if share[i, j] > 0.55 else "k"
                text = pg.TextItem(str(int(matrix[i, j])), color=colour, anchor=(0.5, 0.5))
                text.setPos(j, i)
                self.plot.addItem(text)
                self.texts.append(text)
        ticks = [[(k, str(cl)) for k, cl in enumerate(classes)]]
        self.plot.getAxis("bottom").setTicks(ticks)
        self.plot.getAxis("left").setTicks(ticks)
        self.plot.setXRange(-0.5, c - 0.5, padding=0)
        self.plot.setYRange(-0.5, c - 0.5, padding=0)
        correct = int(np.trace(matrix))
        set_title(self.plot, f"Confusion matrix: {kernel_label(kernel)}, n = {train_size}")
        deformed = "clean test digits" if family == "none" or amplitude == (1.0 if family == "scale" else 0.0) \
            else f"test digits {family} {amplitude:g}"
        self.note.set_html(f"{correct} of {n_test} right ({correct / max(n_test, 1):.1%}); {deformed}, "
                           f"split 0; cell shade: share of the row (recall on the diagonal)")


def _blues() -> np.ndarray:
    """A white → blue lookup table (256 × 3)."""
    t = np.linspace(0.0, 1.0, 256)[:, None]
    white, blue = np.array([255.0, 255.0, 255.0]), np.array([8.0, 69.0, 148.0])
    return ((1 - t) * white + t * blue).astype(np.ubyte)
