"""The kernel chooser shared by the kernel-curve and spectrum panels.

Check boxes (κ0, κ1, NTK, NNGP), an activation, a depth slider, extra depths, a
bias slider and the normalisation choice; :meth:`KernelChooser.state` feeds
:func:`ntkviz.jobs.specs_from_choice` (through the requests' ``from_state``) and
round-trips for sessions.
"""
from __future__ import annotations

import sys

from PySide6 import QtWidgets
from PySide6.QtCore import Signal

from ntkviz.gui.widgets import LabeledSlider

__all__ = ["KernelChooser", "FAMILIES"]

#: (name, check-box text, tooltip with the formula)
FAMILIES = (
    ("arccos0", "κ0", "κ0(u) = (π − arccos u)/π  — arc-cosine kernel of degree 0 "
                      "(step activation, one layer); depth and bias do not apply"),
    ("arccos1", "κ1", "κ1(u) = (√(1−u²) + u(π − arccos u))/π  — arc-cosine kernel of degree 1 "
                      "(ReLU, one layer); depth and bias do not apply"),
    ("ntk", "NTK", "NTK_L = Θ_{L−1}: Θ_k = Σ_k + Θ_{k−1}·k̂′(Σ_{k−1}), Θ_0 = Σ_0 = u + β.  "
                   "ReLU, β = 0: NTK_L(1) = L;  L = 2 gives κ(u) = u κ0(u) + κ1(u)"),
    ("nngp", "NNGP", "NNGP_L = Σ_{L−1}: Σ_k = k̂(Σ_{k−1}) + β (train the last layer only).  "
                     "ReLU, β = 0: NNGP_L = κ1∘…∘κ1 (L − 1 times), value 1 at u = 1"),
)


#: the activation shown before the numeric core is imported
DEFAULT_ACTIVATION = "relu"


class _ActivationBox(QtWidgets.QComboBox):
    """A combo box that completes its list (``fill()``) before it opens."""

    def __init__(self, fill, parent=None):
        super().__init__(parent)
        self._fill = fill

    def showPopup(self) -> None:  # noqa: N802 - Qt API
        self._fill()
        super().showPopup()


class KernelChooser(QtWidgets.QGroupBox):
    """Which kernels to draw; ``changed`` fires on any edit."""

    changed = Signal()

    def __init__(self, title: str = "Kernels", default=("ntk", "arccos1"), parent=None):
        super().__init__(title, parent)
        lay = QtWidgets.QVBoxLayout(self)
        row = QtWidgets.QHBoxLayout()
        self.checks: dict[str, QtWidgets.QCheckBox] = {}
        for name, text, tip in FAMILIES:
            cb = QtWidgets.QCheckBox(text)
            cb.setToolTip(tip)
            cb.setChecked(name in default)
            cb.toggled.connect(self.changed)
            self.checks[name] = cb
            row.addWidget(cb)
        lay.addLayout(row)

        form = QtWidgets.QFormLayout()
        self.activation = _ActivationBox(self.ensure_activations)
        self.activation.addItem(DEFAULT_ACTIVATION)
        self.ensure_activations(import_core=False)
        self.activation.setToolTip("activation σ of the deep NTK/NNGP, normalised by "
                                   "c_σ = 1/E[σ(z)²], z ~ N(0, 1) (ReLU: c = 2)")
        self.activation.currentTextChanged.connect(self.changed)
        form.addRow("activation σ", self.activation)
        lay.addLayout(form)

        self.depth = LabeledSlider("depth L", 2, 50, 2, tooltip="number of weight layers L of "
                                   "the deep NTK/NNGP (L = 2: one hidden layer)")
        self.depth.valueChanged.connect(self.changed)
        lay.addWidget(self.depth)
        self.extra = QtWidgets.QLineEdit()
        self.extra.setPlaceholderText("e.g. 3, 5, 10")
        self.extra.setToolTip("more depths to overlay for NTK/NNGP, comma-separated (2..50)")
        self.extra.editingFinished.connect(self.changed)
        form2 = QtWidgets.QFormLayout()
        form2.addRow("also depths", self.extra)
        lay.addLayout(form2)
        self.bias = LabeledSlider("bias β", 0.0, 2.0, 0.0, mapping="float", steps=200,
                                  decimals=3, tooltip="bias variance β ≥ 0 added at every "
                                  "layer: Σ_0 = u + β, Σ_k = k̂(Σ_{k−1}) + β")
        self.bias.valueChanged.connect(self.changed)
        lay.addWidget(self.bias)
        self.normalize = QtWidgets.QComboBox()
        self.normalize.addItems(["paper (NTK_L(1) = L)", "divided by κ(1) (the 1/L variant)"])
        self.normalize.setToolTip("paper: Bietti & Mairal's unnormalised kernels; divided: "
                                  "κ(u)/κ(1), value 1 at u = 1 (for ReLU, β = 0: NTK/L)")
        self.normalize.currentIndexChanged.connect(self.changed)
        form3 = QtWidgets.QFormLayout()
        form3.addRow("normalisation", self.normalize)
        lay.addLayout(form3)

    def ensure_activations(self, import_core: bool = True) -> None:
        """Offer every activation of :data:`ntkviz.core.ACTIVATIONS`. The box starts
        with the default only, so that the window can show before the numeric core
        (numba, scipy) is imported; the panels call this once they have imported it,
        and so does opening the box or restoring another activation."""
        if self.activation.count() > 1:
            return
        if not import_core and "ntkviz.core" not in sys.modules:
            return
        from ntkviz.core import ACTIVATIONS

        current = self.activation.currentText()
        self.activation.blockSignals(True)
        try:
            self.activation.clear()
            self.activation.addItems(list(ACTIVATIONS))
            self.activation.setCurrentIndex(max(0, self.activation.findText(current)))
        finally:
            self.activation.blockSignals(False)

    def state(self) -> dict:
        return {
            "kernels": [n for n, cb in self.checks.items() if cb.isChecked()],
            "activation": self.activation.currentText(),
            "depth": self.depth.value(),
            "extra_depths": self.extra.text(),
            "bias": self.bias.value(),
            "normalize": self.normalize.currentIndex() == 1,
        }

    def set_state(self, state: dict) -> None:
        """Restore :meth:`state` output without emitting ``changed`` per field."""
        self.blockSignals(True)
        try:
            if "kernels" in state:
                for n, cb in self.checks.items():
                    cb.setChecked(n in state["kernels"])
            if "activation" in state:
                if str(state["activation"]) != self.activation.currentText():
                    self.ensure_activations()
                i = self.activation.findText(str(state["activation"]))
                if i < 0:
                    raise ValueError(f"activation {state['activation']!r} is not available")
                self.activation.setCurrentIndex(i)
            if "depth" in state:
                self.depth.restore(state["depth"])
            if "extra_depths" in state and str(state["extra_depths"]) != self.extra.text():
                from ntkviz.jobs import parse_depths

                parse_depths(str(state["extra_depths"]))
                self.extra.setText(str(state["extra_depths"]))
            if "bias" in state:
                self.bias.restore(state["bias"])
            if "normalize" in state:
                self.normalize.setCurrentIndex(1 if state["normalize"] else 0)
        finally:
            self.blockSignals(False)
