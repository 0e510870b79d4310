"""Small reusable input widgets (no business logic, no plotting).

* :class:`LabeledSlider` — a label, a slider and a spin box kept in sync, with an
  integer, linear-float or logarithmic mapping, units and a tooltip; one
  ``valueChanged(object)`` signal carrying the exact value.
* :class:`Readout` — a selectable label showing ``name = value units``.
* :class:`JobControls` — a parameter box above start / Cancel buttons, a progress
  bar and an info line (panels whose job starts on demand).
* :func:`int_spin`, :func:`line_edit`, :func:`combo`, :func:`form_group` — one-line
  builders of the usual Qt inputs with their tooltips.
* :func:`html_maths` — ``x^{a}``/``x_k`` of help texts as HTML super- and subscripts.

The look of plots (palette, pens, axes, legends) is :mod:`ntkviz.gui.plot_style`.
"""
from __future__ import annotations

import math

from PySide6 import QtCore, QtWidgets
from PySide6.QtCore import Signal

__all__ = ["LabeledSlider", "Readout", "JobControls", "form_group", "int_spin", "line_edit",
           "combo", "html_maths"]


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

