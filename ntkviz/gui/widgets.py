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
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtCore import Signal

__all__ = ["LabeledSlider", "Readout", "make_plot", "CurveHover", "DecadeLogAxis", "PALETTE", "pen",
           "html_maths", "set_item_name", "set_label", "set_title", "settle"]

#: colour-blind-safe palette (Okabe–Ito) for curves, in order
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000",
           "#F0E442")


def pen(color, width: float = 2.0, style=QtCore.Qt.PenStyle.SolidLine):
    """A cosmetic pen: ``color`` is a palette index (wraps around) or any pyqtgraph
    colour. ``width`` is in logical pixels: it is multiplied by the screen's device
    pixel ratio, since cosmetic pens count device pixels (HiDPI, docs/stack.md §5.7)."""
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
    decades are visible); the minor ticks stay, unlabelled.

    Grid lines are drawn with opaque pens whose colour is pyqtgraph's faded
    (semi-transparent) grid colour composited over the plot background (lines that
    several tick levels draw at the same place composited together): the same
    pixels, but blending long translucent lines made up to three quarters of a
    plot's repaint (~15 ms on a log axis)."""

    def setRange(self, mn: float, mx: float):  # noqa: N802 - pyqtgraph API
        """As pyqtgraph's, but the axis label (rich text) is re-laid out only when the
        automatic SI prefix changes, not on every range change (a slider drag)."""
        if self.autoSIPrefix and math.isfinite(mn) and math.isfinite(mx):
            if self._si_prefix((mn, mx)) == (self.autoSIPrefixScale, self.labelUnitPrefix):
                self.range = [mn, mx]
                self.picture = None
                self.update()
                return
        super().setRange(mn, mx)

    def _si_prefix(self, value_range) -> tuple:
        """``(scale, prefix)`` that ``updateAutoSIPrefix`` would choose for ``value_range``."""
        if not self.label.isVisible():
            return 1.0, ""
        lo, hi = (10.0 ** np.asarray(value_range, float)) if self.logMode else value_range
        value = max(abs(lo), abs(hi)) * self.scale
        if any(low <= value <= high for low, high in self.getSIPrefixEnableRanges()):
            return pg.siScale(value, power=self.unitPower)
        return 1.0, ""

    def generateDrawSpecs(self, p):  # noqa: N802 - pyqtgraph API
        specs = super().generateDrawSpecs(p)
        if specs is None or self.grid is False:
            return specs
        try:
            bg = pg.mkColor(pg.getConfigOption("background"))
        except (TypeError, ValueError):  # no colour (transparent background)
            return specs
        if bg.alpha() < 255:
            return specs
        axis_spec, tick_specs, text_specs = specs
        solid = QtCore.Qt.BrushStyle.SolidPattern
        pens: dict = {}  # id(pen) -> (pen, alpha); pyqtgraph shares one pen per tick level
        lines: dict = {}  # (x1, y1, x2, y2, width) -> [pen, 1 - composite alpha, p1, p2]
        for tick_pen, p1, p2 in tick_specs:
            level = pens.get(id(tick_pen))
            if level is None:
                if tick_pen.brush().style() != solid:
                    return specs
                level = pens[id(tick_pen)] = (tick_pen, tick_pen.color().alphaF())
            entry = lines.setdefault((p1.x(), p1.y(), p2.x(), p2.y(), tick_pen.widthF()),
                                     [tick_pen, 1.0, p1, p2])
            entry[1] *= 1.0 - level[1]
        opaque: dict = {}
        ticks = []
        for (*_, width), (tick_pen, clear, p1, p2) in lines.items():
            c, a = tick_pen.color(), 1.0 - clear
            rgb = (round(a * c.red() + clear * bg.red()), round(a * c.green() + clear * bg.green()),
                   round(a * c.blue() + clear * bg.blue()))
            pen_ = opaque.get((rgb, width))
            if pen_ is None:
                pen_ = opaque[(rgb, width)] = QtGui.QPen(tick_pen)
                pen_.setColor(QtGui.QColor(*rgb))
            ticks.append((pen_, p1, p2))
        return axis_spec, ticks, text_specs

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


def set_item_name(plot, item, name: str) -> None:
    """Rename a ``PlotDataItem`` already in ``plot`` (a ``PlotWidget`` or ``PlotItem``)
    and its legend entry in place: cheaper than removing and re-adding it, and the
    legend keeps its order."""
    if item.name() == name:
        return
    item.opts["name"] = name
    legend = getattr(plot, "getPlotItem", lambda: plot)().legend
    label = legend.getLabel(item) if legend is not None else None
    if label is not None:
        label.setText(name)


def settle(*plots) -> None:
    """Apply the auto-range and view-transform updates that pyqtgraph defers to the
    next paint, now: done during the paint they change the axes and the layout and
    so schedule another full repaint (about half the repaints while a slider moves).
    The ranges are the same either way. ``plots``: ``PlotWidget`` or ``PlotItem``."""
    for plot in plots:
        getattr(plot, "getPlotItem", lambda p=plot: p)().getViewBox().prepareForPaint()


def set_label(plot_item: pg.PlotItem, axis: str, text: str) -> None:
    """``plot_item.setLabel(axis, text)`` unless the axis already shows ``text``
    (setting a label re-lays the plot out, even to the same text)."""
    if plot_item.getAxis(axis).labelText != text:
        plot_item.setLabel(axis, text)


def set_title(plot_item: pg.PlotItem, text: str) -> None:
    """``plot_item.setTitle(text)`` unless it is already the title."""
    if plot_item.titleLabel.text != text or not plot_item.titleLabel.isVisible():
        plot_item.setTitle(text)


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
