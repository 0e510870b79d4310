"""Plot pieces shared by the kernel-curve and eigenvalue-decay panels.

* :func:`log_plot` — :func:`ntkviz.gui.plot_style.make_plot` with the legend
  under the x axis (:func:`legend_below`, covering no data) and optionally a y axis of log10 values labelled 10ⁿ that is not
  limited to the float64 range (the spectrum plots log10 μ_k, which may be −2000);
* :class:`Log10Hover` — the hover read-out for curves drawn as log10 values;
* :func:`sci` — full-precision scientific notation from a value or its log10.
"""
from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore

from ntkviz.gui.hover import CurveHover
from ntkviz.gui.plot_style import make_plot, style_legend

__all__ = ["log_plot", "Log10Hover", "sci", "legend_below", "finite_or_nan", "dash"]


def sci(value: float | None = None, log10: float | None = None, digits: int = 10) -> str:
    """``value`` (or ``10**log10``) in scientific notation: every significant digit of a
    float64 (the shortest text that reads back as it, e.g. ``1.142349069e-07``,
    ``3.75e-01``), or ``digits`` significant digits from a log10 beyond the float64
    range (``3.66463469e-1301``)."""
    if value is not None:
        if value == 0 or not math.isfinite(value):
            return f"{value:g}"
        return np.format_float_scientific(float(value), unique=True, trim="-", exp_digits=2)
    if not math.isfinite(log10):
        return "0" if log10 < 0 else "inf"
    n = math.floor(log10)
    text = f"{10.0 ** (log10 - n):.{digits - 1}f}"
    if text.startswith("10"):
        n, text = n + 1, "1"
    return f"{text.rstrip('0').rstrip('.')}e{n:+03d}"


def log_plot(title: str, xlabel: str, ylabel: str, *, log_x: bool = False, log_y: bool = False,
             log_y_values: bool = False) -> pg.PlotWidget:
    """A plot as :func:`ntkviz.gui.plot_style.make_plot` (axes labelled 10ⁿ on log scales,
    never a scale factor, grid under the curves) with its legend under the x axis
    (:func:`legend_below`). ``log_y_values``: the curves hold log10 of the values on
    a linear view and the left axis labels them as 10ⁿ (values below 10⁻³⁰⁸ stay
    drawable: the view is not limited to the float64 range)."""
    w = make_plot(title, xlabel, ylabel, log_x=log_x, log_y=log_y, legend=False)
    item = w.getPlotItem()
    vb = item.getViewBox()
    if log_y_values:
        item.getAxis("left").setLogMode(True)
        vb.setLogMode("y", False)
    legend_below(item)
    return w


class _LegendInLayout(pg.LegendItem):
    """A legend placed by its plot's layout (under the x axis), not floating over the
    data; entries in as many columns as fit the plot's width."""

    def __init__(self, plot_item, **kwargs):
        super().__init__(**kwargs)
        self._plot_item = plot_item
        plot_item.geometryChanged.connect(self.fit)

    def _regrid(self) -> None:
        for i in range(self.layout.count() - 1, -1, -1):
            self.layout.removeAt(i)
        left = QtCore.Qt.AlignmentFlag.AlignVCenter | QtCore.Qt.AlignmentFlag.AlignLeft
        for index, (sample, label) in enumerate(self.items):
            row, col = divmod(index, self.columnCount)
            self.layout.addItem(sample, row, 2 * col, alignment=left)
            self.layout.addItem(label, row, 2 * col + 1, alignment=left)
        self.rowCount = -(-len(self.items) // self.columnCount)
        self.updateSize()

    def _addItemToLayout(self, sample, label):  # noqa: N802 - pyqtgraph API
        self._regrid()

    def removeItem(self, item):  # noqa: N802 - pyqtgraph API
        super().removeItem(item)
        self._regrid()

    def setColumnCount(self, columnCount):  # noqa: N802 - pyqtgraph API
        if columnCount != self.columnCount:
            self.columnCount = columnCount
            self._regrid()

    def fit(self) -> None:
        """Use as many columns as fit the plot's width (entries fill rows left to right;
        each column as wide as its widest entry)."""
        if not self.items:
            return
        # 15% slack: an SVG viewer may draw the text with a slightly wider font. The
        # labels' own text widths: a label's cell is as wide as its column's widest entry,
        # so measuring cells made the count depend on the previous one (1 column at the
        # first export at 640 px, 2 at the next)
        # 10 px: the layout's spacing after the sample and after the label (5 px each)
        widths = [1.15 * (s.boundingRect().width() + lab.item.boundingRect().width()) + 10
                  for s, lab in self.items]
        available = self._plot_item.geometry().width() - 24
        columns = 1
        for n in range(len(widths), 1, -1):
            if sum(max(widths[c::n]) for c in range(n)) <= available:
                columns = n
                break
        self.setColumnCount(columns)

    def paint(self, p, *args):
        if self.items:  # no empty frame under a plot that has nothing to name yet
            super().paint(p, *args)

    def updateSize(self):  # noqa: N802 - pyqtgraph API
        hint = self.layout.effectiveSizeHint(QtCore.Qt.SizeHint.PreferredSize)
        self.setMinimumSize(0, hint.height())
        self.setPreferredSize(hint)
        self.setMaximumSize(hint)
        self.fit()


def legend_below(plot) -> pg.LegendItem:
    """Replace the legend of ``plot`` by one under the x axis, inside the plot item (so
    exported with it), covering no data."""
    item = getattr(plot, "getPlotItem", lambda: plot)()
    old = item.legend
    if old is not None and old.scene() is not None:
        old.scene().removeItem(old)
    legend = style_legend(_LegendInLayout(item, labelTextSize="9pt", frame=True))
    item.layout.addItem(legend, 4, 1)
    item.layout.setAlignment(legend, QtCore.Qt.AlignmentFlag.AlignHCenter)
    item.legend = legend
    return legend


class _FromLog10(float):
    """A log10 value that formats as the value itself (``format(v, ".10g")`` gives
    e.g. ``3.66463469e-400``), or as an exact zero."""

    exact_zero = False

    def __format__(self, spec: str) -> str:
        return "0 (exact)" if self.exact_zero else sci(log10=float(self))


class Log10Hover(CurveHover):
    """Hover read-out of curves whose y data are log10 of the values: shows the value
    (:func:`sci` of its log10), or 0 for the exact-zero markers (curve names
    containing ``zero_tag``)."""

    def __init__(self, *args, zero_tag: str = "= 0 exactly", **kwargs):
        super().__init__(*args, **kwargs)
        self.zero_tag = zero_tag

    def nearest(self, scene_pos):
        hit = super().nearest(scene_pos)
        if hit is None:
            return None
        name, x, y, vx, vy = hit
        value = _FromLog10(y)
        value.exact_zero = self.zero_tag in name
        return name, x, value, vx, vy


def finite_or_nan(y) -> np.ndarray:
    """``y`` with ±inf replaced by NaN (drawn as gaps with ``connect="finite"``)."""
    y = np.asarray(y, dtype=np.float64)
    return np.where(np.isfinite(y), y, np.nan)


def dash(j: int):
    """Dashed for the first guide of a group, dotted for the others."""
    return QtCore.Qt.PenStyle.DashLine if j == 0 else QtCore.Qt.PenStyle.DotLine
