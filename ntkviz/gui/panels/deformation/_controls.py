"""The editor's input widgets: digit picker and deformation controls.

Each widget writes through the panel's :class:`ntkviz.models.deformation.DeformationModel`
(the panel's ``write``) and shows the model's values in ``sync(params)`` with its
signals blocked. A refused value (``ValueError``) goes to ``report`` and the
widget shows the model's value again.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtCore import Signal

from ntkviz import limits
from ntkviz.core.deformations.probes import OMEGA0_RANGE
from ntkviz.models.deformation import DEFORMATION_FIELDS

__all__ = ["DigitPicker", "DeformationControls", "ValueControl", "DEFORMATION_CONTROLS",
           "source_grid", "ask_image_path",
           "qimage_decode"]

#: (field, label, slider minimum, slider maximum, decimals, units, tooltip); the spin box
#: beside each slider accepts the model's whole range (ntkviz.limits)
DEFORMATION_CONTROLS = (
    ("translate_x", "translation x", -6.0, 6.0, 3, " px",
     "Horizontal shift of the digit in pixels (+ = right)."),
    ("translate_y", "translation y", -6.0, 6.0, 3, " px",
     "Vertical shift of the digit in pixels (+ = down)."),
    ("rotation_deg", "rotation", -45.0, 45.0, 3, " °",
     "Rotation about the image centre, in degrees (+ = counter-clockwise)."),
    ("scale", "scale", 0.6, 1.5, 4, " ×",
     "Isotropic zoom about the image centre (1 = unchanged)."),
    ("dilation", "dilation s", 0.0, 0.3, 4, "",
     "Dilation τ(u) = s·(u − c) about the centre c, so ‖∇τ‖∞ = s: the content is magnified "
     "by 1/(1 − s) (times the scale). The deformation of the Fourier-modulus counterexample: "
     "with the Gabor probe, the Fourier-modulus distance grows like ω₀·s, the scattering "
     "distance like s."),
    ("shear", "shear", -0.6, 0.6, 4, "",
     "Horizontal shear: a point at height y moves by shear·y (dimensionless)."),
    ("smooth_amplitude", "smooth field", 0.0, 4.0, 4, " px",
     "Amplitude of a smooth random displacement field: its largest component, in pixels."),
    ("smooth_length", "correlation length", 1.0, 12.0, 3, " px",
     "Correlation length (Gaussian filter width) of the smooth random field, in pixels."),
    ("smooth_seed", "field seed", 0, 999, 0, "",
     "Random seed of the smooth field."),
    ("infimnist_alpha", "Infinite-MNIST α", 0.0, 6.0, 3, "",
     "Strength α of an Infinite-MNIST style deformation x + α(F₁ ∂x/∂u₁ − F₂ ∂x/∂u₂) "
     "(two smooth random fields F); its displacement is linear in α."),
    ("infimnist_seed", "Infinite-MNIST seed", 0, 999, 0, "",
     "Which pair of smooth fields the Infinite-MNIST deformation uses."),
)
_RANGES = {name: (bounds, integer) for name, bounds, integer in DEFORMATION_FIELDS}
_RANGES["dilation"] = (limits.DILATION_RANGE, False)


class ValueControl(QtWidgets.QWidget):
    """A label, a slider over a comfortable range and a spin box over the whole allowed
    range. A value outside the slider's range pins the slider at its end; the spin box
    shows it. ``edited(value)`` is emitted for user changes only."""

    edited = Signal(object)
    STEPS = 240

    def __init__(self, label: str, slider_range: tuple, allowed: tuple, integer: bool,
                 decimals: int, units: str, tooltip: str, parent=None):
        super().__init__(parent)
        self.integer = integer
        self.lo, self.hi = slider_range
        self.label = QtWidgets.QLabel(label)
        self.slider = QtWidgets.QSlider(QtCore.Qt.Orientation.Horizontal)
        self.slider.setRange(0, int(self.hi - self.lo) if integer else self.STEPS)
        if integer:
            self.spin = QtWidgets.QSpinBox()
            self.spin.setRange(int(allowed[0]), int(min(allowed[1], 2**31 - 1)))
        else:
            self.spin = QtWidgets.QDoubleSpinBox()
            self.spin.setDecimals(decimals)
            self.spin.setRange(*allowed)
            self.spin.setSingleStep((self.hi - self.lo) / self.STEPS)
        self.spin.setKeyboardTracking(False)
        self.spin.setSuffix(units)
        self.spin.setMinimumWidth(self.spin.fontMetrics().horizontalAdvance("-1000.0000 px") + 24)
        for w in (self.label, self.slider, self.spin):
            w.setToolTip(tooltip + f" Allowed: {allowed[0]:g} to {allowed[1]:g}; the slider "
                                   f"covers {self.lo:g} to {self.hi:g}.")
        lay = QtWidgets.QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.label)
        lay.addWidget(self.slider, 1)
        lay.addWidget(self.spin)
        self.slider.valueChanged.connect(self._on_slider)
        self.spin.valueChanged.connect(lambda v: self.edited.emit(int(v) if self.integer else float(v)))

    def _on_slider(self, pos: int) -> None:
        if self.integer:
            self.edited.emit(int(self.lo + pos))
        else:
            self.edited.emit(float(self.lo + (self.hi - self.lo) * pos / self.STEPS))

    def show_value(self, value) -> None:
        """Show ``value`` (signals blocked): exactly in the spin box, clamped on the slider."""
        clamped = min(max(value, self.lo), self.hi)
        pos = int(round(clamped - self.lo)) if self.integer else \
            int(round((clamped - self.lo) / (self.hi - self.lo) * self.STEPS))
        for w, v in ((self.slider, pos), (self.spin, value)):
            w.blockSignals(True)
            w.setValue(v)
            w.blockSignals(False)


class DeformationControls(QtWidgets.QGroupBox):
    """One :class:`ValueControl` per deformation field, and a reset button."""

    def __init__(self, panel, parent=None):
        super().__init__("Deformation τ", parent)
        self.model, self.write = panel.model, panel.write
        v = QtWidgets.QVBoxLayout(self)
        v.setSpacing(2)
        self.controls: dict[str, ValueControl] = {}
        for name, label, lo, hi, decimals, units, tip in DEFORMATION_CONTROLS:
            allowed, integer = _RANGES[name]
            c = ValueControl(label, (lo, hi), allowed, integer, decimals, units, tip)
            c.edited.connect(lambda value, name=name: self.write(**{name: value}))
            self.controls[name] = c
            v.addWidget(c)
        width = max(c.label.sizeHint().width() for c in self.controls.values())
        for c in self.controls.values():
            c.label.setFixedWidth(width)
        self.reset_button = QtWidgets.QPushButton("Reset deformation")
        self.reset_button.setToolTip("Back to the identity (no deformation).")
        self.reset_button.clicked.connect(self.reset)
        v.addWidget(self.reset_button)

    def reset(self) -> None:
        defaults = type(self.model.params)()
        self.write(**defaults.deformation_values())

    def sync(self, params) -> None:
        for name, c in self.controls.items():
            c.show_value(getattr(params, name))


def qimage_decode(path: Path) -> tuple[np.ndarray, np.ndarray | None]:
    """Decode an image file with Qt: ``(grey (H, W) in [0, 1], alpha (H, W) or None)``
    (the decoder :func:`ntkviz.core.deformations.digits.load_user_image` calls in the app)."""
    reader = QtGui.QImageReader(str(path))
    reader.setAllocationLimit(0)  # any size: the core refuses what it cannot downsample
    qimg = reader.read()
    if qimg.isNull():
        raise ValueError(f"{path}: not a readable image ({reader.errorString()}); use PNG, "
                         "JPEG, BMP, PGM or .npy")
    alpha = None
    if qimg.hasAlphaChannel():
        rgba = qimg.convertToFormat(QtGui.QImage.Format.Format_RGBA8888)
        arr = _pixels(rgba, 4)
        alpha = arr[..., 3] / 255.0
        grey = arr[..., :3].mean(axis=2) / 255.0
    else:
        grey = _pixels(qimg.convertToFormat(QtGui.QImage.Format.Format_Grayscale8), 1)[..., 0] / 255.0
    return grey, alpha


def _pixels(qimg: QtGui.QImage, channels: int) -> np.ndarray:
    w, h, stride = qimg.width(), qimg.height(), qimg.bytesPerLine()
    buf = np.frombuffer(qimg.constBits(), dtype=np.uint8, count=stride * h)
    return buf.reshape(h, stride)[:, :w * channels].reshape(h, w, channels).astype(np.float64)


def source_grid(grid: QtWidgets.QGridLayout, label_spin, index_spin, random_button, open_button,
                probe_button, omega0, caption) -> None:
    """Lay out an image-source group (the editor's and the Scattering tab's): class and
    index, Random and Open image…, the Gabor probe and its ω₀, the caption."""
    grid.addWidget(QtWidgets.QLabel("class"), 0, 0)
    grid.addWidget(label_spin, 0, 1)
    grid.addWidget(QtWidgets.QLabel("index"), 0, 2)
    grid.addWidget(index_spin, 0, 3)
    grid.addWidget(random_button, 1, 0, 1, 2)
    grid.addWidget(open_button, 1, 2, 1, 2)
    grid.addWidget(probe_button, 2, 0, 1, 1)
    grid.addWidget(omega0, 2, 1, 1, 3)
    grid.addWidget(caption, 3, 0, 1, 4)


def ask_image_path(parent, title: str) -> str:
    """The image file the user picks ("" if none): images Qt reads, or a ``.npy`` array."""
    path, _ = QtWidgets.QFileDialog.getOpenFileName(
        parent, title, "",
        "Images (*.png *.jpg *.jpeg *.bmp *.pgm *.gif *.tif *.tiff *.npy);;All files (*)")
    return path


class DigitPicker(QtWidgets.QGroupBox):
    """Bundled digit (class, index, random), the user's own image file, or the Gabor probe
    (wave number ω₀)."""

    def __init__(self, panel, parent=None):
        super().__init__("Image x", parent)
        self.panel, self.model, self.write = panel, panel.model, panel.write
        self.note = ""  # what loading the user's image did (caption)
        self._rng = np.random.default_rng()
        g = QtWidgets.QGridLayout(self)
        self.label_spin = QtWidgets.QSpinBox()
        self.label_spin.setRange(*limits.DIGIT_LABEL_RANGE)
        self.label_spin.setToolTip("Class (label) of the bundled MNIST digit.")
        n = limits.BUNDLED_PER_CLASS
        self.index_spin = QtWidgets.QSpinBox()
        self.index_spin.setRange(0, n - 1)
        self.index_spin.setToolTip(f"Index of the digit within its class (0–{n - 1}).")
        self.random_button = QtWidgets.QPushButton("Random")
        self.random_button.setToolTip("Pick a random bundled digit.")
        self.open_button = QtWidgets.QPushButton("Open image…")
        self.open_button.setToolTip(
            "Your own image: PNG, JPEG, BMP, PGM (grey-scaled; a transparent background uses "
            "the alpha channel as the stroke) or a .npy (H, W) array, any size: dark-on-light "
            "is inverted, then it is padded to a square and area-averaged to 28×28.")
        self.probe_button = QtWidgets.QPushButton("Gabor probe")
        tip = ("The Gabor probe x(u) = cos(ω₀⟨e, u − c⟩) exp(−|u − c|²/(2σ²)), σ = 3.5 px, e at "
               "22.5°, of the Fourier-modulus counterexample; its deformations are sampled exactly "
               "(no interpolation). Try the dilation s: the Fourier-modulus distance grows like "
               "ω₀·s, the scattering distance like s.")
        self.probe_button.setToolTip(tip)
        lo, hi = OMEGA0_RANGE
        self.omega0 = ValueControl("ω₀", (lo, math.pi), OMEGA0_RANGE, False, 4, " rad/px",
                                   "Wave number of the Gabor probe, radians per pixel (π is the "
                                   "Nyquist frequency of each axis). " + tip)
        self.source_label = QtWidgets.QLabel()
        self.source_label.setWordWrap(True)
        source_grid(g, self.label_spin, self.index_spin, self.random_button, self.open_button,
                    self.probe_button, self.omega0, self.source_label)
        self.label_spin.valueChanged.connect(self._on_spin)
        self.index_spin.valueChanged.connect(self._on_spin)
        self.random_button.clicked.connect(self.pick_random)
        self.open_button.clicked.connect(self._on_open_clicked)
        self.probe_button.clicked.connect(lambda: self.pick_probe(self.model.params.gabor_omega0))
        self.omega0.edited.connect(self.pick_probe)

    def _bundled(self, label: int, index: int) -> None:
        self.note = ""
        self.write(source="digit", label=int(label), index=int(index), user_pixels=None,
                   user_name="")

    def pick_probe(self, omega0: float) -> None:
        """The Gabor probe of wave number ``omega0`` (radians per px) as x."""
        self.note = ""
        self.write(source="gabor", gabor_omega0=float(omega0), user_pixels=None, user_name="")

    def _on_spin(self, _=None) -> None:
        self._bundled(self.label_spin.value(), self.index_spin.value())

    def pick_random(self) -> None:
        self._bundled(int(self._rng.integers(10)), int(self._rng.integers(limits.BUNDLED_PER_CLASS)))

    def load(self, path) -> bool:
        """Load the user's image ``path``; on failure change nothing, report the reason
        and return False."""
        from ntkviz.core.deformations.digits import load_user_image

        path = Path(path)
        try:
            image, note = load_user_image(path, decode=qimage_decode)
        except (ValueError, OSError) as exc:
            self.panel._report_error(f"image not loaded, current digit kept: {exc}")
            return False
        if not self.write(source="image", user_pixels=tuple(tuple(row) for row in image.tolist()),
                          user_name=path.name):
            return False
        self.note = note
        self.sync(self.model.params)
        self.panel.say(f"loaded {path.name} ({note})")
        return True

    def _on_open_clicked(self) -> None:
        path = ask_image_path(self, "Open a digit image")
        if path:
            self.load(path)

    def sync(self, params) -> None:
        for spin, value in ((self.label_spin, params.label), (self.index_spin, params.index)):
            spin.blockSignals(True)
            spin.setValue(value)
            spin.blockSignals(False)
        self.omega0.show_value(params.gabor_omega0)
        if params.is_user_image:
            note = f"; {self.note}" if self.note else ""
            self.source_label.setText(f"your image {params.user_name or '(unnamed)'}{note}; "
                                      "class unknown")
        elif params.is_probe:
            self.source_label.setText(params.caption() + " (no class: no context distances)")
        else:
            self.source_label.setText(f"MNIST digit: class {params.label}, #{params.index} of "
                                      "the bundled subset")
