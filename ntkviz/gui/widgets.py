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

from ntkviz._text import superscript
from ntkviz.gui.export import is_transient, mark_transient

__all__ = ["LabeledSlider", "Readout", "JobControls", "form_group", "int_spin", "line_edit", "combo", "make_plot", "CurveHover", "DecadeLogAxis", "PALETTE", "pen",
           "html_maths", "set_item_name", "set_label", "set_title", "settle", "place_legend", "grid_below",
           "style_legend", "log_tick_strings", "linear_tick_strings", "power_of_ten"]

#: colour-blind-safe palette (Okabe–Ito) for curves, in order
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000",
           "#F0E442")


def pen(color, width: float = 2.0, style=QtCore.Qt.PenStyle.SolidLine):
    """A cosmetic pen: ``color`` is a palette index (wraps around) or any pyqtgraph
    colour. ``width`` is in logical pixels: it is multiplied by the screen's device
    pixel ratio, since cosmetic pens count device pixels (HiDPI screens)."""
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


def int_spin(bounds: tuple[int, int], tooltip: str = "") -> QtWidgets.QSpinBox:
    """A spin box for an integer in ``bounds`` that reports a typed number once, when
    typing is done (no keyboard tracking: typing 120 does not submit 1 and 12 first)."""
    spin = QtWidgets.QSpinBox()
    spin.setRange(*bounds)
    spin.setKeyboardTracking(False)
    spin.setToolTip(tooltip)
    return spin


def line_edit(tooltip: str) -> QtWidgets.QLineEdit:
    """A one-line text field with a tooltip saying what it takes."""
    edit = QtWidgets.QLineEdit()
    edit.setToolTip(tooltip)
    return edit


def combo(items, tooltip: str = "") -> QtWidgets.QComboBox:
    """A combo box offering ``items`` (strings), with a tooltip."""
    box = QtWidgets.QComboBox()
    box.addItems(list(items))
    box.setToolTip(tooltip)
    return box


def form_group(title: str, rows) -> QtWidgets.QGroupBox:
    """A titled group box laying out ``rows`` as a form: ``(label, widget or layout)``
    pairs, or a lone widget spanning both columns."""
    box = QtWidgets.QGroupBox(title)
    form = QtWidgets.QFormLayout(box)
    for row in rows:
        if isinstance(row, tuple):
            form.addRow(*row)
        else:
            form.addRow(row)
    return box


class JobControls(QtWidgets.QWidget):
    """The controls column of a panel whose job starts on demand: its parameter
    ``box``, then a start and a Cancel button, a progress bar (0–1000, shown as %)
    and a wrapping info line. The panel connects the buttons; Cancel starts disabled."""

    def __init__(self, box: QtWidgets.QWidget, start_text: str, max_width: int = 350,
                 tooltip: str = "", parent=None):
        super().__init__(parent)
        self.run_button = QtWidgets.QPushButton(start_text)
        self.run_button.setToolTip(tooltip)
        self.cancel_button = QtWidgets.QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.progress = QtWidgets.QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setValue(0)
        self.progress.setFormat("%p%")
        self.info = QtWidgets.QLabel()
        self.info.setWordWrap(True)
        buttons = QtWidgets.QHBoxLayout()
        buttons.addWidget(self.run_button)
        buttons.addWidget(self.cancel_button)
        column = QtWidgets.QVBoxLayout(self)
        column.addWidget(box)
        column.addLayout(buttons)
        column.addWidget(self.progress)
        column.addWidget(self.info)
        column.addStretch(1)
        self.setMaximumWidth(max_width)


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

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.enableAutoSIPrefix(False)  # ticks are true values: never "(x1e+27)"

    def enableAutoSIPrefix(self, enable: bool = True) -> None:  # noqa: N802 - pyqtgraph API
        """Refused: an ntkviz axis never shows a scale factor (ticks are true values)."""
        super().enableAutoSIPrefix(False)

    def boundingRect(self):  # noqa: N802 - Qt API
        """As pyqtgraph's, but with a grid the tick labels keep their allowance to
        extend past the axis ends (pyqtgraph drops it, and so the label of a tick
        near the top, e.g. 10⁰)."""
        rect = super().boundingRect()
        if self.grid is not False and self.linkedView() is not None:
            grid, self.grid = self.grid, False
            try:
                rect = rect | super().boundingRect()
            finally:
                self.grid = grid
        return rect

    def tickSpacing(self, minVal, maxVal, size):  # noqa: N802 - pyqtgraph API
        """As pyqtgraph's, but a log axis's labelled (major) ticks are at most as far
        apart as leaves three of them in view (e.g. every 2 decades, not every 5)."""
        levels = super().tickSpacing(minVal, maxVal, size)
        if not self.logMode or not levels or self._tickLevels is not None:
            return levels
        major = levels[0][0]

        def count(step):
            return math.floor(maxVal / step + 1e-9) - math.ceil(minVal / step - 1e-9) + 1

        if major > 1 and count(major) < 3:
            for step in (10, 5, 2, 1):
                if step < major and count(step) >= 3:
                    levels = [(float(step), 0.0)] + [lv for lv in levels[1:] if lv[0] < step]
                    break
        return levels

    def tickStrings(self, values, scale, spacing):  # noqa: N802 - pyqtgraph API
        if self.logMode:
            return self.logTickStrings(values, scale, spacing)
        return linear_tick_strings([v * scale for v in values], spacing * scale)

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
        """Labels ``10ⁿ`` (and ``2·10ⁿ``, ``5·10ⁿ`` when fewer than three decades are
        visible; every minor tick when fewer than three of those are): at least three
        labelled ticks whenever pyqtgraph offers three."""
        strings = log_tick_strings(values)
        frac = [float(v) - math.floor(float(v) + 1e-9) for v in values]
        for allowed in ((0.0,), (0.0, math.log10(2), math.log10(5))):
            keep = [any(abs(f - a) < 1e-6 or abs(f - 1 - a) < 1e-6 for a in allowed)
                    for f in frac]
            if sum(keep) >= 3:
                return [t if k else "" for t, k in zip(strings, keep)]
        return strings


def power_of_ten(exponent: int) -> str:
    """``10ⁿ`` with a Unicode superscript exponent (``10⁻⁵``, ``10⁰``, ``10¹²``)."""
    return "10" + superscript(int(exponent))


def log_tick_strings(exponents) -> list[str]:
    """Labels of log-axis ticks at ``10**e``: ``10ⁿ`` at decades, ``m·10ⁿ`` between
    (one style for every tick: never ``1`` or ``0.001``)."""
    out = []
    for e in exponents:
        n = math.floor(float(e) + 1e-9)
        mantissa = 10.0 ** (float(e) - n)
        if abs(mantissa - round(mantissa)) < 1e-6:
            mantissa = round(mantissa)
        text = power_of_ten(n)
        out.append(text if mantissa == 1 else f"{mantissa:.3g}·{text}")
    return out


def linear_tick_strings(values, spacing: float) -> list[str]:
    """Labels of linear-axis ticks, one style per axis: fixed decimals (as many as
    the spacing needs, so ticks over a tiny range such as 1.6420388 … 1.6420392 stay
    distinct, with no offset and no ``·10⁰``) while every tick lies in [10⁻³, 10⁴) in
    magnitude (or is 0), else ``m·10ⁿ`` for every tick, with one exponent (the
    largest tick's decade) and as many decimals as the spacing needs."""
    values = [float(v) for v in values]
    big = [abs(v) for v in values if abs(v) > 0.5 * abs(spacing) * 1e-9]
    if all(1e-3 <= a < 1e4 for a in big) and (spacing <= 0 or spacing >= 1e-3 or big):
        places = max(0, math.ceil(-math.log10(spacing) - 1e-9)) if spacing > 0 else 0
        return [f"{v:.{places}f}" if abs(v) >= 0.5 * spacing else f"{0:.{places}f}"
                for v in values]
    n = math.floor(math.log10(max(big))) if big else 0
    step = spacing / 10.0 ** n if spacing > 0 else 1.0
    places = max(0, math.ceil(-math.log10(step) - 1e-9)) if step > 0 else 0
    out = []
    for v in values:
        if abs(v) < 0.5 * abs(spacing):
            out.append("0")
        else:
            out.append(f"{v / 10.0 ** n:.{places}f}·{power_of_ten(n)}")
    return out


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
    grid_below(item)
    item.setLogMode(x=log_x, y=log_y)
    item.layout.setContentsMargins(4, 4, 10, 8)  # room for the axis titles' descenders
    if legend:
        style_legend(item.addLegend(offset=legend_offset, labelTextSize="9pt"))
    return w


def grid_below(plot) -> None:
    """Draw the grid of ``plot`` (``PlotWidget`` or ``PlotItem``) under the curves and
    the legend, on screen and in SVG: its left and bottom axes (which draw the grid)
    stack behind the plot area."""
    item = getattr(plot, "getPlotItem", lambda: plot)()
    for name in ("left", "bottom"):
        axis = item.getAxis(name)
        axis.setZValue(-1)
        axis.setFlag(axis.GraphicsItemFlag.ItemStacksBehindParent, True)


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


def style_legend(legend) -> object:
    """An opaque white legend box with a thin frame (data under it stays readable
    only if it is not under it: see :func:`place_legend`)."""
    legend.setBrush(pg.mkBrush(255, 255, 255, 235))
    legend.setPen(pg.mkPen("#b0b0b0"))
    return legend


#: corners tried by :func:`place_legend`, in order of preference: (item anchor, parent anchor)
_CORNERS = (((1, 0), (1, 0)), ((0, 0), (0, 0)), ((1, 1), (1, 1)), ((0, 1), (0, 1)))
_MARGIN_PX = 8.0


def _data_pixels(view_box) -> np.ndarray:
    """Pixel positions (in ``view_box`` coordinates) of everything plotted in it:
    the points of curves and scatters, their segments sampled every ~4 px, and the
    area of filled bands. Shape ``(n, 2)``."""
    rect = view_box.viewRect()
    w, h = view_box.width(), view_box.height()
    if not (rect.width() > 0 and rect.height() > 0 and w > 0 and h > 0):
        return np.empty((0, 2))
    chunks = []
    for item in view_box.addedItems:
        if not item.isVisible() or is_transient(item):
            continue
        if isinstance(item, pg.FillBetweenItem):
            curves = [c for c in (getattr(item, "curves", None) or []) if c is not None]
            data = [c.getData() for c in curves]
            if len(data) == 2 and data[0][0] is not None and data[1][0] is not None:
                (x1, y1), (x2, y2) = data
                n = min(len(x1), len(x2))
                t = np.linspace(0.0, 1.0, 9)[:, None]
                xs = (x1[:n] * (1 - t) + x2[:n] * t).ravel()
                ys = (y1[:n] * (1 - t) + y2[:n] * t).ravel()
                chunks.append((xs, ys, False))
            continue
        if not hasattr(item, "getData"):
            continue
        x, y = item.getData()
        if x is None or y is None or len(x) == 0:
            continue
        joined = isinstance(item, (pg.PlotDataItem, pg.PlotCurveItem)) and (
            not isinstance(item, pg.PlotDataItem) or item.opts.get("pen") is not None)
        chunks.append((np.asarray(x, float), np.asarray(y, float), joined))
    pts = []
    for x, y, joined in chunks:
        px = (x - rect.left()) / rect.width() * w
        py = (rect.bottom() - y) / rect.height() * h  # view y grows upwards
        ok = np.isfinite(px) & np.isfinite(py)
        if joined and ok.sum() > 1:
            px, py = px[ok], py[ok]
            seg = np.hypot(np.diff(px), np.diff(py))
            steps = np.clip(np.ceil(seg / 4.0), 1, 200).astype(int)
            start = np.repeat(np.arange(len(seg)), steps)
            frac = np.concatenate([np.arange(k) / k for k in steps])
            px = np.append(px[start] + frac * np.diff(px)[start], px[-1])
            py = np.append(py[start] + frac * np.diff(py)[start], py[-1])
        else:
            px, py = px[ok], py[ok]
        pts.append(np.column_stack([px, py]))
    return np.concatenate(pts) if pts else np.empty((0, 2))


def place_legend(plot) -> tuple | None:
    """Put the legend of ``plot`` (``PlotWidget`` or ``PlotItem``) in the corner of the
    plot area where it covers the fewest plotted points (curves sampled along their
    segments, bands by their area; ties: top right, top left, bottom right, bottom
    left). Returns the chosen ``(item anchor, parent anchor)`` or ``None`` without a
    legend. Call it after the data change; exports call it again at the export size."""
    item = getattr(plot, "getPlotItem", lambda: plot)()
    legend = item.legend
    if legend is None or not legend.items:
        return None
    legend._ntkviz_auto_place = True
    vb = item.getViewBox()
    pts = _data_pixels(vb)
    lw, lh = legend.boundingRect().width(), legend.boundingRect().height()
    w, h = vb.width(), vb.height()
    best, best_count = _CORNERS[0], None
    for corner in _CORNERS:
        (ax, ay), _ = corner
        x0 = _MARGIN_PX if ax == 0 else w - _MARGIN_PX - lw
        y0 = _MARGIN_PX if ay == 0 else h - _MARGIN_PX - lh
        if len(pts):
            inside = ((pts[:, 0] >= x0 - 2) & (pts[:, 0] <= x0 + lw + 2)
                      & (pts[:, 1] >= y0 - 2) & (pts[:, 1] <= y0 + lh + 2))
            count = int(inside.sum())
        else:
            count = 0
        if best_count is None or count < best_count:
            best, best_count = corner, count
        if count == 0:
            break
    (ax, ay), parent = best
    offset = (_MARGIN_PX if ax == 0 else -_MARGIN_PX, _MARGIN_PX if ay == 0 else -_MARGIN_PX)
    legend.anchor(itemPos=(ax, ay), parentPos=parent, offset=offset)
    return best


def replace_legends(root) -> None:
    """Re-run :func:`place_legend` for every auto-placed legend under ``root`` (after
    a re-layout, e.g. at an export size)."""
    stack = [root]
    while stack:
        it = stack.pop()
        stack.extend(it.childItems())
        if isinstance(it, pg.PlotItem) and getattr(it.legend, "_ntkviz_auto_place", False):
            place_legend(it)


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
        mark_transient(self.marker)  # never in exports
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
