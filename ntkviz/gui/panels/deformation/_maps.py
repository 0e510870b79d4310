"""The editor's choice of maps: which distances the read-outs and the context bars show, and
the scattering transform's J and L."""
from __future__ import annotations

from PySide6 import QtWidgets

from ntkviz import limits
from ntkviz.core.deformations.maps import MAPS, feature_map
from ntkviz.gui.controls import int_spin
from ntkviz.models.deformation import EDITOR_J_MAX

__all__ = ["MapChoice"]

#: check-box text of each map
MAP_TEXT = {"ckn": "CKN", "ntk": "NTK", "scattering": "scattering", "fourier": "Fourier modulus",
            "pixels": "pixels"}


class MapChoice(QtWidgets.QGroupBox):
    """One check box per map of :data:`~ntkviz.core.deformations.maps.MAPS` (the model's
    display-only ``maps``: nothing is recomputed) and the scattering read-out's J and L."""

    def __init__(self, panel, parent=None):
        super().__init__("Maps compared", parent)
        self.write = panel.write
        grid = QtWidgets.QGridLayout(self)
        self.boxes: dict[str, QtWidgets.QCheckBox] = {}
        for i, name in enumerate(MAPS):
            box = QtWidgets.QCheckBox(MAP_TEXT[name])
            box.setToolTip(f"Show the read-out and the context bars of Φ = "
                           f"{feature_map(name).formula}.")
            box.toggled.connect(self._on_toggled)
            self.boxes[name] = box
            grid.addWidget(box, i // 3, i % 3)
        tip = "of the scattering read-out (Morlet wavelets, orders 0–2, zero padding)"
        self.j_spin = int_spin((limits.SCATTERING_J_RANGE[0], EDITOR_J_MAX),
                               f"J: averaging scale 2<sup>J</sup> px {tip}; 2<sup>J</sup> at most the 28-px side.")
        self.l_spin = int_spin(limits.SCATTERING_L_RANGE, f"L: orientations in [0, π) {tip}.")
        row = QtWidgets.QHBoxLayout()
        for text, spin in (("scattering J", self.j_spin), ("L", self.l_spin)):
            label = QtWidgets.QLabel(text)
            label.setToolTip(spin.toolTip())
            row.addWidget(label)
            row.addWidget(spin)
        row.addStretch(1)
        grid.addLayout(row, 2, 0, 1, 3)
        self.j_spin.valueChanged.connect(lambda v: self.write(scattering_j=int(v)))
        self.l_spin.valueChanged.connect(lambda v: self.write(scattering_l=int(v)))

    def _on_toggled(self, _checked: bool) -> None:
        self.write(maps=tuple(m for m in MAPS if self.boxes[m].isChecked()))

    def sync(self, params) -> None:
        for widget, value in ((self.j_spin, params.scattering_j), (self.l_spin, params.scattering_l),
                              *((self.boxes[m], m in params.maps) for m in MAPS)):
            widget.blockSignals(True)
            (widget.setChecked if isinstance(widget, QtWidgets.QCheckBox) else widget.setValue)(value)
            widget.blockSignals(False)
