"""Small reusable widgets (no business logic).

* :class:`LabeledSlider` — a label, a slider and a spin box kept in sync, with an
  integer, linear-float or logarithmic mapping, units and a tooltip; one
  ``valueChanged(object)`` signal carrying the exact value.
* :class:`Readout` — a selectable label showing ``name = value units``.
* :func:`make_plot` — a white pyqtgraph plot with labelled axes, grid and legend.
* :class:`CurveHover` — hover read-out of the nearest plotted point.
"""
from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets
from PySide6.QtCore import Signal

__all__ = ["LabeledSlider", "Readout", "make_plot", "CurveHover", "DecadeLogAxis", "PALETTE", "pen",
           "html_maths"]

#: colour-blind-safe palette (Okabe–Ito) for curves, in order
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000",
           "#F0E442")


def pen(color, width: float = 2.0, style=QtCore.Qt.PenStyle.SolidLine):
    """A cosmetic pen: ``color`` is a palette index (wraps around) or any pyqtgraph
    colour. ``width`` is in logical pixels: it is multiplied by the screen's device
    pixel ratio, since cosmetic pens count device pixels (HiDPI, docs/stack.md §5.7)."""
    from PySide6 import QtGui

    if isinstance(color, int):
        color = PALETTE[color % len(PALETTE)]
    app = QtGui.QGuiApplication.instance()
    ratio = app.devicePixelRatio() if app is not None else 1.0
    return pg.mkPen(color, width=width * ratio, style=style)


def html_maths(text: str) -> str:
    """Turn ``x^{a b}``, ``x^p``, ``x_{k+2}`` and ``x_k`` in help text into HTML
    superscripts and subscripts (help dialogs are rich text, not LaTeX)."""
    import re

    text = re.sub(r"\^\{([^}]*)\}", r"<sup>\1</sup>", text)
    text = re.sub(r"_\{([^}]*)\}", r"<sub>\1</sub>", text)
    text = re.sub(r"\^([\w−-]\w*)", r"<sup>\1</sup>", text)
    return re.sub(r"(?<=[^\W_])_(\w)", r"<sub>\1</sub>", text)


class LabeledSlider(QtWidgets.QWidget):
    """Slider + spin box for one parameter.

    Parameters
    ----------
    label : str
        Text on the left (may contain symbols, e.g. ``"depth L"``).
    minimum, maximum : float
        Allowed range (inclusive); the spin box rejects anything else.
    value : float, optional
        Initial value (default ``minimum``).
    mapping : {"int", "float", "log"}
        ``"int"``: one slider step per integer. ``"float"``: ``steps`` equal steps.
        ``"log"``: ``steps`` steps equally spaced in ``log(value)`` (``minimum > 0``).
    integer : bool
        Values are integers (implied by ``mapping="int"``; useful with ``"log"``,
        e.g. a network width).
    steps : int
        Slider resolution for ``"float"`` and ``"log"``.
    decimals : int
        Spin-box decimals for non-integer values.
    units : str
        Suffix shown in the spin box (e.g. ``" px"``).
    tooltip : str
        Shown on the label, slider and spin box.

    Signals
    -------
    valueChanged(object)
        The new exact value (``int`` when integer, else ``float``), once per change,
        from the slider or the spin box (after editing, not per keystroke).
    """

    valueChanged = Signal(object)

    def __init__(self, label: str, minimum: float, maximum: float, value: float | None = None,
                 *, mapping: str = "int", integer: bool | None = None, steps: int = 200,
                 decimals: int = 3, units: str = "", tooltip: str = "", parent=None):
        super().__init__(parent)
        if mapping not in ("int", "float", "log"):
            raise ValueError(f"mapping must be one of int, float, log; got {mapping!r}")
        if not minimum < maximum:
            raise ValueError(f"minimum must be < maximum, got {minimum} >= {maximum}")
        if mapping == "log" and minimum <= 0:
            raise ValueError(f"a log slider needs minimum > 0, got {minimum}")
        self.mapping = mapping
        self.integer = mapping == "int" if integer is None else bool(integer or mapping == "int")
        self.minimum, self.maximum = minimum, maximum
        self.steps = int(maximum - minimum) if mapping == "int" else int(steps)

        self.label = QtWidgets.QLabel(label)
        self.slider = QtWidgets.QSlider(QtCore.Qt.Orientation.Horizontal)
        self.slider.setRange(0, self.steps)
        self.slider.setPageStep(max(1, self.steps // 10))
        if self.integer:
            self.spin = QtWidgets.QSpinBox()
            self.spin.setRange(int(minimum), int(maximum))
        else:
            self.spin = QtWidgets.QDoubleSpinBox()
            self.spin.setDecimals(decimals)
            self.spin.setRange(minimum, maximum)
            self.spin.setSingleStep((maximum - minimum) / max(self.steps, 1)
                                    if mapping == "float" else 10 ** -decimals)
        self.spin.setKeyboardTracking(False)
        self.spin.setAccelerated(True)
        if units:
            self.spin.setSuffix(units)
        self.spin.setMinimumWidth(self.spin.sizeHint().width())
        if tooltip:
            for w in (self, self.label, self.slider, self.spin):
                w.setToolTip(tooltip)

        lay = QtWidgets.QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.label)
        lay.addWidget(self.slider, 1)
        lay.addWidget(self.spin)

        self._value = None
        self.setValue(minimum if value is None else value, emit=False)
        self.slider.valueChanged.connect(self._on_slider)
        self.spin.valueChanged.connect(self._on_spin)

    # mapping between slider positions and values
    def _to_position(self, value: float) -> int:
        if self.mapping == "int":
            return int(round(value - self.minimum))
        if self.mapping == "float":
            frac = (value - self.minimum) / (self.maximum - self.minimum)
        else:
            frac = math.log(value / self.minimum) / math.log(self.maximum / self.minimum)
        return int(round(frac * self.steps))

    def _from_position(self, pos: int) -> float:
        if self.mapping == "int":
            return self.minimum + pos
        frac = pos / self.steps
        if self.mapping == "float":
            v = self.minimum + frac * (self.maximum - self.minimum)
        else:
            v = self.minimum * (self.maximum / self.minimum) ** frac
        return v

    def _coerce(self, value: float):
        value = min(max(float(value), self.minimum), self.maximum)
        if self.integer:
            return int(round(value))
        return round(value, self.spin.decimals())

    def value(self):
        """The exact current value (``int`` or ``float``)."""
        return self._value

    def setValue(self, value, emit: bool = True) -> None:  # noqa: N802 - Qt naming
        """Set the value (clamped to the range); emits ``valueChanged`` if it changed."""
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"{self.label.text()} must be finite, got {value!r}")
        new = self._coerce(value)
        changed = new != self._value
        self._value = new
        for w, v in ((self.spin, new), (self.slider, self._to_position(new))):
            w.blockSignals(True)
            w.setValue(v)
            w.blockSignals(False)
        if changed and emit:
            self.valueChanged.emit(new)

    def restore(self, value) -> None:
        """Set a saved value exactly (sessions): ``ValueError`` naming the control if it is
        not a number in range, instead of clamping."""
        name = self.label.text()
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"{name} must be a number, got {value!r}")
        if not (math.isfinite(value) and self.minimum <= value <= self.maximum):
            raise ValueError(f"{name} must be in [{self.minimum:g}, {self.maximum:g}], got {value!r}")
        if self.integer and value != int(value):
            raise ValueError(f"{name} must be an integer, got {value!r}")
        self.setValue(value)

    def _on_slider(self, pos: int) -> None:
        self.setValue(self._from_position(pos))

    def _on_spin(self, value) -> None:
        self.setValue(value)


class Readout(QtWidgets.QLabel):
    """A selectable ``name = value units`` label for derived quantities."""

    def __init__(self, name: str = "", fmt: str = "{:.6g}", units: str = "", tooltip: str = "",
                 parent=None):
        super().__init__(parent)
        self.name, self.fmt, self.units = name, fmt, units
        self.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        if tooltip:
            self.setToolTip(tooltip)
        self.setValue(None)

    def setValue(self, value) -> None:  # noqa: N802 - Qt naming
        """Show ``value`` (``None`` shows a dash; strings are shown verbatim)."""
        units = self.units
        if value is None:
            text, units = "–", ""
        elif isinstance(value, str):
            text = value
        else:
            text = self.fmt.format(value)
        prefix = f"{self.name} = " if self.name else ""
        self.setText(f"{prefix}{text}{units}")


class DecadeLogAxis(pg.AxisItem):
    """An axis whose log mode labels only the decades (and 2, 5 when fewer than two
    decades are visible); the minor ticks stay, unlabelled."""

    def logTickStrings(self, values, scale, spacing):  # noqa: N802 - pyqtgraph API
        strings = super().logTickStrings(values, scale, spacing)
        frac = [float(v) - math.floor(float(v) + 1e-9) for v in values]
        for allowed in ((0.0,), (0.0, math.log10(2), math.log10(5))):
            keep = [any(abs(f - a) < 1e-6 or abs(f - 1 - a) < 1e-6 for a in allowed)
                    for f in frac]
            if sum(keep) >= 2:
                return [t if k else "" for t, k in zip(strings, keep)]
        return strings


def make_plot(title: str = "", xlabel: str = "", ylabel: str = "", *, xunits: str | None = None,
              yunits: str | None = None, legend: bool = True, log_x: bool = False,
              log_y: bool = False, legend_offset: tuple = (-10, 10)) -> pg.PlotWidget:
    """A ``PlotWidget`` with labelled axes (symbols in the text, HTML allowed), a light
    grid and a legend (``legend_offset``: pyqtgraph convention, negative = from the
    right/bottom). Log axes label only the decades."""
    w = pg.PlotWidget(axisItems={"bottom": DecadeLogAxis("bottom"),
                                 "left": DecadeLogAxis("left")})
    item = w.getPlotItem()
    if title:
        item.setTitle(title)
    item.setLabel("bottom", xlabel, units=xunits)
    item.setLabel("left", ylabel, units=yunits)
    # an opaque light grid: semi-transparent grid lines cost ~half of a repaint
    item.showGrid(x=True, y=True, alpha=1.0)
    for name in ("left", "bottom"):
        axis = item.getAxis(name)
        axis.setTickPen(pg.mkPen("#e4e4e4"))
        axis.setTextPen(pg.mkPen("k"))
        axis.setPen(pg.mkPen("k"))
        axis.setZValue(-1)  # grid under the curves and the legend
    item.setLogMode(x=log_x, y=log_y)
    if legend:
        item.addLegend(offset=legend_offset, labelTextSize="9pt")
    return w


class CurveHover(QtCore.QObject):
    """Show the exact data point nearest to the mouse on ``plot_item``.

    Only named ``PlotDataItem``s are considered; the nearest point within
    ``radius_px`` screen pixels is marked and written to ``readout`` (a QLabel) as
    ``"<curve name>: x = …, y = …"`` using the *data* values (not log10 of them).
    """

    def __init__(self, plot_item: pg.PlotItem, readout: QtWidgets.QLabel, xname: str = "x",
                 yname: str = "y", radius_px: float = 25.0):
        super().__init__(plot_item)
        self.plot_item, self.readout = plot_item, readout
        self.xname, self.yname, self.radius_px = xname, yname, radius_px
        self.marker = pg.ScatterPlotItem(size=9, pen=pen("k", 1.0), brush=pg.mkBrush(None))
        self.marker.setZValue(1000)
        plot_item.addItem(self.marker, ignoreBounds=True)
        self._proxy = pg.SignalProxy(plot_item.scene().sigMouseMoved, rateLimit=60,
                                     slot=self._on_moved)

    def nearest(self, scene_pos):
        """``(name, x, y, view_x, view_y)`` of the nearest point, or ``None``."""
        vb = self.plot_item.getViewBox()
        if not self.plot_item.sceneBoundingRect().contains(scene_pos):
            return None
        p = vb.mapSceneToView(scene_pos)
        pw, ph = vb.viewPixelSize()
        if not (pw > 0 and ph > 0):
            return None
        best = None
        for item in self.plot_item.listDataItems():
            if not item.isVisible() or not item.name() or item.xData is None:
                continue
            x, y = np.asarray(item.xData, float), np.asarray(item.yData, float)
            lx, ly = item.opts.get("logMode", (False, False))
            with np.errstate(divide="ignore", invalid="ignore"):
                vx = np.log10(x) if lx else x
                vy = np.log10(y) if ly else y
                d = np.hypot((vx - p.x()) / pw, (vy - p.y()) / ph)
            d[~np.isfinite(d)] = np.inf
            if d.size == 0:
                continue
            i = int(np.argmin(d))
            if d[i] <= self.radius_px and (best is None or d[i] < best[0]):
                best = (d[i], item.name(), x[i], y[i], vx[i], vy[i])
        return None if best is None else best[1:]

    def _on_moved(self, event) -> None:
        hit = self.nearest(event[0])
        if hit is None:
            self.marker.setData([], [])
            return
        name, x, y, vx, vy = hit
        self.marker.setData([vx], [vy])
        self.readout.setText(f"{name}:  {self.xname} = {x:.8g},  {self.yname} = {y:.10g}")
