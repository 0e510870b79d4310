"""The Scattering tab's input widgets: the image, the transform's parameters, the order-2
grid's scales and the counterexample's wave numbers and dilations.

Each group writes through the panel (``panel.write``) and shows the model's values in
``sync(params)`` with its signals blocked; a refused value is reported by the panel and the
widget shows the model's value again.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from PySide6 import QtWidgets

from ntkviz import limits
from ntkviz.core.deformations.probes import OMEGA0_RANGE
from ntkviz.gui.controls import LabeledSlider, combo, int_spin, line_edit
from ntkviz.gui.panels.deformation._controls import ask_image_path, qimage_decode, source_grid
from ntkviz.models.scattering import PADDINGS, image_shape, max_j

__all__ = ["ImageSource", "TransformControls", "SecondOrderChoice", "CounterexampleControls"]


def _quiet(widget, setter, value) -> None:
    widget.blockSignals(True)
    setter(value)
    widget.blockSignals(False)


class ImageSource(QtWidgets.QGroupBox):
    """A bundled digit (class, index, Random), the user's image (Open image…) or the Gabor
    probe (its wave number ω₀). A new image keeps J when it fits, else the largest J that does."""

    def __init__(self, panel, parent=None):
        super().__init__("Image x", parent)
        self.panel, self.model, self.write = panel, panel.model, panel.write
        self._rng = np.random.default_rng()
        g = QtWidgets.QGridLayout(self)
        self.label_spin = int_spin(limits.DIGIT_LABEL_RANGE, "Class (label) of the bundled MNIST digit.")
        self.index_spin = int_spin((0, limits.BUNDLED_PER_CLASS - 1),
                                   "Index of the digit within its class.")
        self.random_button = QtWidgets.QPushButton("Random")
        self.random_button.setToolTip("Pick a random bundled digit.")
        self.open_button = QtWidgets.QPushButton("Open image…")
        self.open_button.setToolTip(
            "Your own image: PNG, JPEG, BMP, PGM or a .npy (H, W) array, any size: grey-scaled, "
            "dark-on-light inverted, padded to a square and area-averaged to at most "
            f"{limits.SCATTERING_IMAGE_MAX} px (a smaller image keeps its size).")
        self.probe_button = QtWidgets.QPushButton("Gabor probe")
        tip = ("The 64 × 64 Gabor probe cos(ω₀⟨e, u − c⟩) exp(−|u − c|²/(2σ²)), σ = 8 px, e at "
               "22.5°: its spectrum is two bumps at ±ω₀e, which the wavelets of scale j pick up "
               "where ξ<sub>j</sub> = 3π/4·2<sup>−j</sup> is near ω₀.")
        self.probe_button.setToolTip(tip)
        self.omega0 = LabeledSlider("ω₀", OMEGA0_RANGE[0], OMEGA0_RANGE[1], math.pi / 2,
                                    mapping="float", steps=400, decimals=4, units=" rad/px",
                                    tooltip="Wave number of the Gabor probe, radians per pixel. " + tip)
        self.caption = QtWidgets.QLabel()
        self.caption.setWordWrap(True)
        source_grid(g, self.label_spin, self.index_spin, self.random_button, self.open_button,
                    self.probe_button, self.omega0, self.caption)
        self.label_spin.valueChanged.connect(self._on_spin)
        self.index_spin.valueChanged.connect(self._on_spin)
        self.random_button.clicked.connect(self.pick_random)
        self.open_button.clicked.connect(self._on_open_clicked)
        self.probe_button.clicked.connect(lambda: self.pick_probe(self.omega0.value()))
        self.omega0.valueChanged.connect(self.pick_probe)

    def _switch(self, shape, **changes) -> bool:
        """Write ``changes`` (a new image of ``shape``), with J lowered to fit it if needed."""
        J = min(self.model.params.J, max_j(shape))
        return self.write(J=J, **changes)

    def _on_spin(self, _=None) -> None:
        self._switch((28, 28), source="digit", label=self.label_spin.value(),
                     index=self.index_spin.value(), user_pixels=None, user_name="")

    def pick_random(self) -> None:
        self._switch((28, 28), source="digit", label=int(self._rng.integers(10)),
                     index=int(self._rng.integers(limits.BUNDLED_PER_CLASS)), user_pixels=None,
                     user_name="")

    def pick_probe(self, omega0) -> None:
        """The Gabor probe of wave number ``omega0`` (radians per px)."""
        from ntkviz.models.scattering import PROBE_SIDE

        self._switch((PROBE_SIDE, PROBE_SIDE), source="gabor", gabor_omega0=float(omega0),
                     user_pixels=None, user_name="")

    def load(self, path) -> bool:
        """Load the user's image ``path`` (on failure change nothing, report, return False)."""
        from ntkviz.core.deformations.digits import load_user_image

        path = Path(path)
        try:
            image, note = load_user_image(path, decode=qimage_decode,
                                          max_side=limits.SCATTERING_IMAGE_MAX)
        except (ValueError, OSError) as exc:
            self.panel._report_error(f"image not loaded, current image kept: {exc}")
            return False
        if not self._switch(image.shape, source="image", user_name=path.name,
                            user_pixels=tuple(tuple(row) for row in image.tolist())):
            return False
        self.panel.status.emit(f"{self.panel.title}: loaded {path.name} ({note})")
        return True

    def _on_open_clicked(self) -> None:
        path = ask_image_path(self, "Open an image")
        if path:
            self.load(path)

    def sync(self, params) -> None:
        _quiet(self.label_spin, self.label_spin.setValue, params.label)
        _quiet(self.index_spin, self.index_spin.setValue, params.index)
        self.omega0.setValue(params.gabor_omega0, emit=False)
        self.caption.setText(params.caption())


class TransformControls(QtWidgets.QGroupBox):
    """J (at most the image allows), L, the highest order and the padding."""

    def __init__(self, panel, parent=None):
        super().__init__("Scattering transform", parent)
        self.write = panel.write
        form = QtWidgets.QFormLayout(self)
        self.j_spin = int_spin(limits.SCATTERING_J_RANGE,
                               "J: the coefficients are averaged by φ<sub>J</sub> and sampled every 2<sup>J</sup> px; "
                               "wavelet scales j = 0 … J − 1 (σ<sub>j</sub> = 0.8·2<sup>j</sup> px, ξ<sub>j</sub> = "
                               "3π/4·2<sup>−j</sup> rad/px). 2<sup>J</sup> at most the image's side.")
        self.l_spin = int_spin(limits.SCATTERING_L_RANGE,
                               "L: wavelet orientations θ<sub>l</sub> = (⌊L/2⌋ − 1 − l)π/L in [0, π) "
                               "(kymatio's order).")
        self.order = combo(["0", "1", "2"], "Highest order: 0 (x⋆φ<sub>J</sub>), 1 (|x⋆ψ<sub>λ1</sub>|⋆φ<sub>J</sub>), "
                                            "2 (||x⋆ψ<sub>λ1</sub>|⋆ψ<sub>λ2</sub>|⋆φ<sub>J</sub>, j₁ &lt; j₂).")
        self.padding = combo(PADDINGS, "zero: the image vanishes outside its frame; reflect: "
                                       "mirrored (kymatio's); periodic: one period of a periodic "
                                       "image (sides multiples of 2<sup>J</sup>).")
        form.addRow("J", self.j_spin)
        form.addRow("L", self.l_spin)
        form.addRow("order", self.order)
        form.addRow("padding", self.padding)
        self.j_spin.valueChanged.connect(lambda v: self.write(J=int(v)))
        self.l_spin.valueChanged.connect(lambda v: self.write(L=int(v)))
        self.order.currentIndexChanged.connect(lambda i: self.write(order=int(i)))
        self.padding.currentTextChanged.connect(lambda t: self.write(padding=t))

    def sync(self, params) -> None:
        self.j_spin.blockSignals(True)
        self.j_spin.setMaximum(max_j(image_shape(params)))
        self.j_spin.setValue(params.J)
        self.j_spin.blockSignals(False)
        _quiet(self.l_spin, self.l_spin.setValue, params.L)
        _quiet(self.order, self.order.setCurrentIndex, params.order)
        _quiet(self.padding, self.padding.setCurrentText, params.padding)


class SecondOrderChoice(QtWidgets.QGroupBox):
    """The scales (j1, j2) of the order-2 grid: the pairs that exist for the current J."""

    def __init__(self, panel, parent=None):
        super().__init__("Order-2 grid", parent)
        self.write = panel.write
        form = QtWidgets.QFormLayout(self)
        self.pairs = combo([], "The order-2 coefficients ||x⋆ψ<sub>j1,θ1</sub>|⋆ψ<sub>j2,θ2</sub>|⋆φ<sub>J</sub> of these "
                               "scales, tiled by (θ1, θ2).")
        form.addRow("scales", self.pairs)
        self.pairs.currentIndexChanged.connect(self._on_pair)
        self._shown: list = []

    def _on_pair(self, i: int) -> None:
        if 0 <= i < len(self._shown):
            j1, j2 = self._shown[i]
            self.write(j1=j1, j2=j2)

    def sync(self, params) -> None:
        pairs = [(a, b) for a in range(params.J) for b in range(a + 1, params.J)] \
            if params.order == 2 else []
        self.pairs.blockSignals(True)
        if pairs != self._shown:
            self._shown = pairs
            self.pairs.clear()
            self.pairs.addItems([f"j1 = {a}, j2 = {b}" for a, b in pairs])
        if (params.j1, params.j2) in pairs:
            self.pairs.setCurrentIndex(pairs.index((params.j1, params.j2)))
        self.pairs.blockSignals(False)
        self.setEnabled(bool(pairs))
        self.setToolTip("" if pairs else "order 2 with J ≥ 2 only")


class CounterexampleControls(QtWidgets.QGroupBox):
    """The probe's wave numbers ω₀ (``pi/4, pi/2, pi``) and the dilations s (MIN, MAX, COUNT)."""

    def __init__(self, panel, parent=None):
        super().__init__("Counterexample (Gabor probe, dilation)", parent)
        self.panel, self.write = panel, panel.write
        form = QtWidgets.QFormLayout(self)
        self.omega0s = line_edit("Wave numbers ω₀ of the 64-px Gabor probe, radians per pixel, "
                                 "comma-separated: numbers or multiples of pi (pi/4, pi/2, pi).")
        self.dilations = line_edit("Dilations s = ‖∇τ‖∞ of τ(u) = s·(u − c): MIN, MAX, COUNT "
                                   "(log-spaced, in (0, 0.95]); the distances against ω₀ are at MAX.")
        form.addRow("ω₀ (rad/px)", self.omega0s)
        form.addRow("s: min, max, count", self.dilations)
        self.omega0s.editingFinished.connect(self._on_omega0s)
        self.dilations.editingFinished.connect(self._on_dilations)

    def _on_omega0s(self) -> None:
        from ntkviz.models._sources import radians_list

        try:
            values = radians_list("ω₀", self.omega0s.text())
        except ValueError as exc:
            self._refuse(str(exc))
            return
        self.write(omega0s=values)

    def _refuse(self, message: str) -> None:
        """Report a text that cannot be read and show the model's values again."""
        self.panel._report_error(message)
        self.sync(self.panel.model.params)

    def _on_dilations(self) -> None:
        from ntkviz._text import parse_list

        try:
            values = parse_list("dilations", self.dilations.text(), float)
            if len(values) != 3 or not float(values[2]).is_integer():
                raise ValueError(f"dilations must be MIN, MAX, COUNT, got {self.dilations.text()!r}")
        except ValueError as exc:
            self._refuse(str(exc))
            return
        self.write(dilation_min=values[0], dilation_max=values[1], dilation_count=int(values[2]))

    def sync(self, params) -> None:
        from ntkviz.gui.panels.scattering._figures import omega_label

        text = ", ".join(omega_label(w).replace("π", "pi") for w in params.omega0s)
        _quiet(self.omega0s, self.omega0s.setText, text)
        _quiet(self.dilations, self.dilations.setText,
               f"{params.dilation_min:g}, {params.dilation_max:g}, {params.dilation_count}")
