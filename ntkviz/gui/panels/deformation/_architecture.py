"""The editor's architecture editor: preset, patch conventions, the optional initial pooling A₀
and a table of layers.

Writes through the panel's :class:`ntkviz.models.deformation.DeformationModel`:
choosing a preset sets ``preset`` (and clears ``layers``); editing a layer sets
``preset = "custom"`` and ``layers``. A refused architecture keeps the model's
one and says why (in red below the table and in the status bar).
"""
from __future__ import annotations


from PySide6 import QtCore, QtWidgets
from PySide6.QtCore import Signal

from ntkviz import limits
from ntkviz.models.deformation import CUSTOM, map_sizes

__all__ = ["ArchitectureEditor", "LayerTable", "OFFSETS_TOOLTIP"]

OFFSETS_TOOLTIP = (
    "Which offsets an even patch side s sums. 'reference': {−s/2, …, s/2 − 1}, so s = 2 "
    "sums offsets {−1, 0} (the convention of the CKN reference code, albietz/ckn_kernel). "
    "'same': {−s/2 + 1, …, s/2}, so s = 2 sums {0, 1} (neural-tangents' 'SAME' padding). "
    "Odd patch sides are centred either way.")
PRESET_TOOLTIP = (
    "Architecture presets: M1 (3×3 patches, subsampling 2 then 5, Gaussian pooling), "
    "M2 (three 3×3 layers, subsampling 2), M3 (5×5 average pooling then 3×3 strided), "
    "M4 (as M1 with exp patch kernels: CKN only, no NTK); 'custom' after editing the layers.")
SIGMA0_TOOLTIP = (
    "The stability theorems' initial anti-aliasing pooling A₀: the image is filtered by a Gaussian "
    "of standard deviation σ₀ (px, no subsampling) before the first layer, Φ(A₀x). Off: no A₀, as "
    "the CKN reference code.")
NORM_TOOLTIP = (
    "Patch normalisation: 'sum' sums the patch's entries (the CKN reference code); 'mean' "
    "divides by the patch size |S| as in the paper (rescales the kernels; relative distances "
    "are unchanged for relu and exp layers).")


class LayerTable(QtWidgets.QTableWidget):
    """Editable layers: patch side, subsampling, pooling, patch kernel, σ (exp)."""

    edited = Signal()
    COLUMNS = ("patch", "sub", "pooling", "kernel", "σ")

    def __init__(self, parent=None):
        super().__init__(0, len(self.COLUMNS), parent)
        self.setHorizontalHeaderLabels(self.COLUMNS)
        self.verticalHeader().setDefaultSectionSize(26)
        header = self.horizontalHeader()
        header.setSectionResizeMode(QtWidgets.QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.SingleSelection)
        self.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setToolTip("One row per layer: patch side s (s×s patches), subsampling factor "
                        "(sub), pooling filter, patch kernel (relu = arc-cosine, needed for the "
                        "NTK; exp = CKN only) and the bandwidth σ of exp.")
        self._poolfactors: list = []  # per row, the field the table does not show

    def set_layers(self, specs) -> None:
        self.blockSignals(True)
        self.setRowCount(0)
        self._poolfactors = []
        for spec in specs:
            self._append(spec)
        self.blockSignals(False)
        h = self.horizontalHeader().height() + self.rowCount() * self.verticalHeader().defaultSectionSize()
        self.setFixedHeight(h + 2 * self.frameWidth() + 4)

    def _append(self, spec) -> None:
        npatch, sub, pooling, kernel, sigma, poolfactor = spec
        row = self.rowCount()
        self.insertRow(row)
        widgets = []
        for value in (npatch, sub):
            spin = QtWidgets.QSpinBox()
            spin.setRange(*limits.LAYER_INT_RANGE)
            spin.setValue(value)
            widgets.append(spin)
        for choices, value in ((limits.POOLINGS, pooling), (limits.PATCH_KERNELS, kernel)):
            combo = QtWidgets.QComboBox()
            combo.addItems(choices)
            combo.setCurrentText(value)
            widgets.append(combo)
        sig = QtWidgets.QDoubleSpinBox()
        sig.setRange(*limits.LAYER_SIGMA_RANGE)
        sig.setDecimals(3)
        sig.setSingleStep(0.05)
        sig.setValue(sigma)
        sig.setKeyboardTracking(False)
        widgets.append(sig)
        for col, w in enumerate(widgets):
            self.setCellWidget(row, col, w)
            signal = w.currentTextChanged if isinstance(w, QtWidgets.QComboBox) else w.valueChanged
            signal.connect(lambda *_: self.edited.emit())
        self._poolfactors.append(poolfactor)

    def layers(self) -> list:
        """The rows as layer specs (lists, the model's JSON form)."""
        out = []
        for row in range(self.rowCount()):
            w = [self.cellWidget(row, col) for col in range(len(self.COLUMNS))]
            out.append((w[0].value(), w[1].value(), w[2].currentText(), w[3].currentText(),
                        float(w[4].value()), self._poolfactors[row]))
        return out


class ArchitectureEditor(QtWidgets.QGroupBox):
    """Preset, patch normalisation, even-patch offsets and the layer table."""

    def __init__(self, panel, parent=None):
        super().__init__("Architecture", parent)
        self.panel, self.model = panel, panel.model
        v = QtWidgets.QVBoxLayout(self)
        row = QtWidgets.QHBoxLayout()
        self.preset_combo = QtWidgets.QComboBox()
        self.preset_combo.addItems([*limits.ARCH_PRESETS, CUSTOM])
        self.preset_combo.setToolTip(PRESET_TOOLTIP)
        self.norm_combo = QtWidgets.QComboBox()
        self.norm_combo.addItems(limits.PATCH_NORMALIZATIONS)
        self.norm_combo.setToolTip(NORM_TOOLTIP)
        self.offsets_combo = QtWidgets.QComboBox()
        self.offsets_combo.addItems(limits.EVEN_PATCH_OFFSETS)
        self.offsets_combo.setToolTip(OFFSETS_TOOLTIP)
        for text, w, tip in (("preset", self.preset_combo, PRESET_TOOLTIP),
                             ("patches", self.norm_combo, NORM_TOOLTIP),
                             ("even s", self.offsets_combo, OFFSETS_TOOLTIP)):
            label = QtWidgets.QLabel(text)
            label.setToolTip(tip)
            row.addWidget(label)
            row.addWidget(w, 1)
        v.addLayout(row)
        row = QtWidgets.QHBoxLayout()
        self.sigma0_box = QtWidgets.QCheckBox("A₀ initial pooling, σ₀")
        self.sigma0_spin = QtWidgets.QDoubleSpinBox()
        self.sigma0_spin.setRange(*limits.INITIAL_POOLING_SIGMA_RANGE)
        self.sigma0_spin.setDecimals(2)
        self.sigma0_spin.setSingleStep(0.1)
        self.sigma0_spin.setSuffix(" px")
        self.sigma0_spin.setKeyboardTracking(False)
        self.sigma0_spin.setValue(1.0)
        for w in (self.sigma0_box, self.sigma0_spin):
            w.setToolTip(SIGMA0_TOOLTIP)
        row.addWidget(self.sigma0_box)
        row.addWidget(self.sigma0_spin, 1)
        v.addLayout(row)
        self.layer_table = LayerTable()
        v.addWidget(self.layer_table)
        row = QtWidgets.QHBoxLayout()
        self.add_layer_button = QtWidgets.QPushButton("Add layer")
        self.remove_layer_button = QtWidgets.QPushButton("Remove layer")
        row.addWidget(self.add_layer_button)
        row.addWidget(self.remove_layer_button)
        v.addLayout(row)
        self.message = QtWidgets.QLabel()
        self.message.setWordWrap(True)
        v.addWidget(self.message)
        self.preset_combo.currentTextChanged.connect(self._on_preset)
        self.norm_combo.currentTextChanged.connect(
            lambda text: self._write(patch_normalization=text))
        self.offsets_combo.currentTextChanged.connect(
            lambda text: self._write(even_patch_offsets=text))
        self.sigma0_box.toggled.connect(lambda _on: self._write_sigma0())
        self.sigma0_spin.valueChanged.connect(lambda _value: self._write_sigma0())
        self.layer_table.edited.connect(lambda: self._write_layers(self.layer_table.layers()))
        self.add_layer_button.clicked.connect(self._add_layer)
        self.remove_layer_button.clicked.connect(self._remove_layer)

    def _write(self, **changes) -> None:
        if not self.panel.write(**changes):
            self.message.setStyleSheet("color: #b00020;")
            self.message.setText(f"Refused: {self.panel.last_error}")

    def _on_preset(self, name: str) -> None:
        if name == CUSTOM:
            self._write(preset=CUSTOM, layers=tuple(self.model.params.layer_specs()))
        else:
            self._write(preset=name, layers=())

    def _write_layers(self, layers) -> None:
        self._write(preset=CUSTOM, layers=tuple(layers))

    def _write_sigma0(self) -> None:
        on = self.sigma0_box.isChecked()
        self.sigma0_spin.setEnabled(on)
        self._write(initial_pooling_sigma=float(self.sigma0_spin.value()) if on else None)

    def _add_layer(self) -> None:
        self._write_layers([*self.layer_table.layers(), (3, 2, "gaussian", "relu", 1.0, None)])

    def _remove_layer(self) -> None:
        layers = self.layer_table.layers()
        if len(layers) > 1:
            row = self.layer_table.currentRow()
            del layers[row if 0 <= row < len(layers) else -1]
            self._write_layers(layers)

    def sync(self, params) -> None:
        for combo, text in ((self.preset_combo, params.preset),
                            (self.norm_combo, params.patch_normalization),
                            (self.offsets_combo, params.even_patch_offsets)):
            combo.blockSignals(True)
            combo.setCurrentText(text)
            combo.blockSignals(False)
        sigma0 = params.initial_pooling_sigma
        for w, value in ((self.sigma0_box, sigma0 is not None), (self.sigma0_spin, sigma0)):
            w.blockSignals(True)
            if isinstance(w, QtWidgets.QCheckBox):
                w.setChecked(value)
            elif value is not None:
                w.setValue(value)
            w.blockSignals(False)
        self.sigma0_spin.setEnabled(sigma0 is not None)
        specs = params.layer_specs()
        if list(specs) != self.layer_table.layers():
            self.layer_table.set_layers(specs)
        self.message.setStyleSheet("")
        text = "map sizes: " + "; ".join(f"{n}×{n} → {m}×{m}" for n, m in map_sizes(params))
        if any(spec[3] != "relu" for spec in specs):
            text += "  (exp layers: CKN only, no NTK)"
        if sigma0 is not None:
            text += f"; A₀: Gaussian σ₀ = {sigma0:g} px first"
        self.message.setText(text)
