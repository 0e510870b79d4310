"""Controls shared by the kernel-curve and eigenvalue-decay panels.

:class:`KernelChooser` shows a :class:`ntkviz.models.kernel_curves.KernelChoice`
(check boxes κ0, κ1, NTK, NNGP, the activation, depth, extra depths, bias and
normalisation). It holds no parameters: an edit is emitted as ``edited({field:
value})`` for the panel to write into its model (:meth:`QtPanel.write`), and
:meth:`KernelChooser.sync` shows the model's values. :class:`KernelChoicePanel`
is the base of both panels. :class:`ExactFloat` is a slider over the usual range
beside a spin box over the whole allowed range, so a value like β = 0.12345 or 40
is shown as it is, never rounded or clamped to the slider.
"""
from __future__ import annotations

from PySide6 import QtCore, QtWidgets
from PySide6.QtCore import Signal

from ntkviz import limits
from ntkviz.gui.panels._base import QtPanel
from ntkviz.gui.controls import LabeledSlider, html_maths
from ntkviz.models.kernel_curves import CHOICE_FIELDS, parse_int_list

__all__ = ["KernelChooser", "KernelChoicePanel", "ExactFloat", "FAMILIES",
           "set_checked", "set_slider", "log_int_slider", "scroll_column"]

#: (name, check-box text, tooltip with the formula)
FAMILIES = (
    ("arccos0", "κ0", "κ0(u) = (π − arccos u)/π  — arc-cosine kernel of degree 0 "
                      "(step activation, one layer); depth and bias do not apply"),
    ("arccos1", "κ1", "κ1(u) = (√(1−u²) + u(π − arccos u))/π  — arc-cosine kernel of degree 1 "
                      "(ReLU, one layer); depth and bias do not apply"),
    ("ntk", "NTK", "NTK of depth L = Θₖ at k = L − 1: Θₖ = Σₖ + Θₖ₋₁·k̂′(Σₖ₋₁), Θ₀ = Σ₀ = u + β.  "
                   "ReLU, β = 0: NTK(1) = L;  L = 2 gives κ(u) = u κ0(u) + κ1(u)"),
    ("nngp", "NNGP", "NNGP of depth L = Σₖ at k = L − 1: Σₖ = k̂(Σₖ₋₁) + β (train the last layer "
                     "only).  ReLU, β = 0: κ1∘…∘κ1 (L − 1 times), value 1 at u = 1"),
)

#: the slider of the bias covers [0, BIAS_SLIDER_MAX]; the spin box the whole range
BIAS_SLIDER_MAX = 2.0


def log_int_slider(label: str, bounds: tuple, value: int, tooltip: str,
                   steps: int = 300) -> LabeledSlider:
    """An integer slider with logarithmic steps over ``bounds``, the range in its tooltip."""
    lo, hi = bounds
    return LabeledSlider(label, lo, hi, value, mapping="log", integer=True, steps=steps,
                         tooltip=f"{tooltip}, {lo}..{hi}")


def scroll_column(*widgets) -> QtWidgets.QScrollArea:
    """``widgets`` stacked in a vertically scrolling column as wide as they need."""
    column = QtWidgets.QWidget()
    lay = QtWidgets.QVBoxLayout(column)
    for w in widgets:
        lay.addWidget(w)
    lay.addStretch(1)
    scroll = QtWidgets.QScrollArea()
    scroll.setWidget(column)
    scroll.setWidgetResizable(True)
    scroll.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    scroll.setMinimumWidth(column.sizeHint().width() + 24)
    return scroll


def set_checked(box, value: bool) -> None:
    """Check/uncheck a check box (or checkable group box) without emitting signals."""
    if box.isChecked() != value:
        box.blockSignals(True)
        box.setChecked(value)
        box.blockSignals(False)


def set_slider(slider: LabeledSlider, value) -> None:
    """Show ``value`` on a :class:`LabeledSlider` without emitting its signal."""
    if slider.value() != value:
        slider.blockSignals(True)
        slider.setValue(value, emit=False)
        slider.blockSignals(False)


class ExactFloat(LabeledSlider):
    """A :class:`LabeledSlider` whose slider covers ``[minimum, slider_max]`` and whose
    spin box (``decimals`` decimals) the whole ``[minimum, maximum]``: a value beyond the
    slider is shown in the box with the slider at its end, never clamped to it."""

    def __init__(self, label: str, minimum: float, maximum: float, slider_max: float,
                 steps: int = 200, decimals: int = 6, tooltip: str = "", parent=None):
        self.exact_maximum = maximum
        super().__init__(label, minimum, slider_max, minimum, mapping="float", steps=steps,
                         decimals=decimals, tooltip=tooltip, parent=parent)
        self.spin.setRange(minimum, maximum)

    def _coerce(self, value: float):
        return round(min(max(float(value), self.minimum), self.exact_maximum),
                     self.spin.decimals())


class KernelChooser(QtWidgets.QGroupBox):
    """Which kernels to draw: ``edited({field: value})`` on any edit (field names of
    :class:`~ntkviz.models.kernel_curves.KernelChoice`), ``refused(message)`` when
    typed text cannot be read."""

    edited = Signal(dict)
    refused = Signal(str)

    def __init__(self, title: str = "Kernels", parent=None):
        super().__init__(title, parent)
        lay = QtWidgets.QVBoxLayout(self)
        row = QtWidgets.QHBoxLayout()
        self.checks: dict[str, QtWidgets.QCheckBox] = {}
        for name, text, tip in FAMILIES:
            cb = QtWidgets.QCheckBox(text)
            cb.setToolTip(tip)
            cb.toggled.connect(self._on_checks)
            self.checks[name] = cb
            row.addWidget(cb)
        lay.addLayout(row)

        form = QtWidgets.QFormLayout()
        self.activation = QtWidgets.QComboBox()
        self.activation.addItems(list(limits.ACTIVATIONS))
        self.activation.setToolTip("activation σ of the deep NTK/NNGP, normalised by "
                                   "c_σ = 1/E[σ(z)²], z ~ N(0, 1) (ReLU: c = 2)")
        self.activation.currentTextChanged.connect(
            lambda text: self.edited.emit({"activation": text}))
        form.addRow("activation σ", self.activation)
        lay.addLayout(form)

        lo, hi = limits.DEPTH_RANGE
        self.depth = LabeledSlider("depth L", lo, hi, 2, tooltip="number of weight layers L of "
                                   f"the deep NTK/NNGP, {lo}..{hi} (L = 2: one hidden layer)")
        self.depth.valueChanged.connect(lambda v: self.edited.emit({"depth": int(v)}))
        lay.addWidget(self.depth)
        self.extra = QtWidgets.QLineEdit()
        self.extra.setPlaceholderText("e.g. 3, 5, 10")
        self.extra.setToolTip(f"more depths to overlay for NTK/NNGP, comma-separated ({lo}..{hi})")
        self.extra.editingFinished.connect(self._on_extra)
        form2 = QtWidgets.QFormLayout()
        form2.addRow("also depths", self.extra)
        lay.addLayout(form2)
        self.bias = ExactFloat("bias β", limits.BIAS_RANGE[0], limits.BIAS_RANGE[1],
                               BIAS_SLIDER_MAX, tooltip="bias variance β ≥ 0 added at every "
                               "layer: Σ₀ = u + β, Σₖ = k̂(Σₖ₋₁) + β (the slider covers "
                               f"[0, {BIAS_SLIDER_MAX:g}], the box up to {limits.BIAS_RANGE[1]:g})")
        self.bias.valueChanged.connect(lambda v: self.edited.emit({"bias": float(v)}))
        lay.addWidget(self.bias)
        self.normalize = QtWidgets.QComboBox()
        self.normalize.addItems(["paper (depth-L NTK: κ(1) = L)", "divided by κ(1) (the 1/L variant)"])
        self.normalize.setToolTip("paper: Bietti & Mairal's unnormalised kernels; divided: "
                                  "κ(u)/κ(1), value 1 at u = 1 (for ReLU, β = 0: NTK/L)")
        self.normalize.currentIndexChanged.connect(
            lambda i: self.edited.emit({"normalize": i == 1}))
        form3 = QtWidgets.QFormLayout()
        form3.addRow("normalisation", self.normalize)
        lay.addLayout(form3)

    # ------------------------------------------------------------------ edits
    def _on_checks(self, _checked: bool) -> None:
        self.edited.emit({"kernels": tuple(n for n, cb in self.checks.items() if cb.isChecked())})

    def _on_extra(self) -> None:
        try:
            depths = parse_int_list("extra depths", self.extra.text())
        except ValueError as exc:
            self.refused.emit(str(exc))
            return
        self.edited.emit({"extra_depths": depths})

    # ------------------------------------------------------------------- view
    def sync(self, params) -> None:
        """Show the kernel choice of ``params`` (no signal is emitted)."""
        for name, cb in self.checks.items():
            set_checked(cb, name in params.kernels)
        if params.activation != self.activation.currentText():
            self.activation.blockSignals(True)
            self.activation.setCurrentIndex(self.activation.findText(params.activation))
            self.activation.blockSignals(False)
        set_slider(self.depth, params.depth)
        text = ", ".join(map(str, params.extra_depths))
        try:
            shown = parse_int_list("extra depths", self.extra.text())
        except ValueError:  # refused text: show the model's value again
            shown = None
        if shown != params.extra_depths:
            self.extra.setText(text)
        set_slider(self.bias, params.bias)
        self.normalize.blockSignals(True)
        self.normalize.setCurrentIndex(1 if params.normalize else 0)
        self.normalize.blockSignals(False)
        has_deep = any(k in limits.DEEP_KERNELS for k in params.kernels)
        for w in (self.activation, self.depth, self.extra, self.bias):
            w.setEnabled(has_deep)


class KernelChoicePanel(QtPanel):
    """Base of the panels whose model holds a
    :class:`~ntkviz.models.kernel_curves.KernelChoice`: the chooser writes through
    the model and shows it."""

    #: the help text (HTML with ``x^{…}``/``x_k`` maths, see :func:`html_maths`)
    HELP = ""

    def _add_chooser(self) -> KernelChooser:
        self.kernels = KernelChooser()
        self.kernels.edited.connect(lambda changes: self.write(**changes))
        self.kernels.refused.connect(self._refused)
        return self.kernels

    def _refused(self, message: str) -> None:
        self._report_error(message)
        self.sync_widgets(frozenset({"extra_depths"}))

    def sync_widgets(self, changed: frozenset) -> None:
        if changed & set(CHOICE_FIELDS):
            self.kernels.sync(self.model.params)

    def help_html(self) -> str:
        return html_maths(self.HELP)
