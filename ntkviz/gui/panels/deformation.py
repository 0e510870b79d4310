"""Deformation editor: drag sliders, watch CKN against NTK feature distances live.

The panel observes: it holds the digit, the deformation and the architecture,
builds a :class:`ntkviz.jobs.DeformRequest` (with the reference digit's cached
per-layer norms) on every change and draws the :class:`ntkviz.jobs.DeformResponse`.
The context distances (nearest / mean same-label and other-label digits) are a
:class:`ntkviz.jobs.ContextRequest` generator run once per (digit, architecture)
in the background, with a progress bar; the jobs layer caches the result.
"""
from __future__ import annotations

import dataclasses
import hashlib
import math
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtCore import Signal, Slot

from ntkviz.core.cntk import PRESETS, Architecture, Layer, architecture_to_dict
from ntkviz.core.deform import Deformation
from ntkviz.core.digits import digit_image, load_digits, load_image_file
from ntkviz.gui.panels._base import QtPanel
from ntkviz.gui.widgets import PALETTE, LabeledSlider, Readout
from ntkviz.jobs import (CKN_RESOLUTION, CONTEXT_CATEGORIES, NTK_RESOLUTION, ContextRequest,
                         ContextResult, DeformRequest, context_table, deform_csv_table,
                         digit_from_state, editor_inputs_from_state, prepare_user_image)

__all__ = ["QtDeformationPanel", "DEFORMATION_CONTROLS", "arrow_segments",
           "nice_ceil", "nice_floor"]

#: (Deformation field, label, minimum, maximum, mapping, decimals, units, tooltip)
DEFORMATION_CONTROLS = (
    ("translate_x", "translation x", -6.0, 6.0, "float", 2, " px",
     "Horizontal shift of the digit in pixels (+ = right)."),
    ("translate_y", "translation y", -6.0, 6.0, "float", 2, " px",
     "Vertical shift of the digit in pixels (+ = down)."),
    ("rotation_deg", "rotation", -45.0, 45.0, "float", 1, " °",
     "Rotation about the image centre, in degrees."),
    ("scale", "scale", 0.6, 1.5, "float", 3, " ×",
     "Isotropic zoom about the image centre (1 = unchanged)."),
    ("shear", "shear", -0.6, 0.6, "float", 3, "",
     "Horizontal shear: a point at height y moves by shear·y (dimensionless)."),
    ("smooth_amplitude", "smooth field", 0.0, 4.0, "float", 3, " px",
     "Amplitude of a smooth random displacement field: its largest component, in pixels."),
    ("smooth_length", "correlation length", 1.0, 12.0, "float", 2, " px",
     "Correlation length (Gaussian filter width) of the smooth random field, in pixels."),
    ("smooth_seed", "field seed", 0, 999, "int", 0, "",
     "Random seed of the smooth field."),
    ("infimnist_alpha", "Infinite-MNIST α", 0.0, 6.0, "float", 2, "",
     "Strength α of an Infinite-MNIST style deformation (docs: spec §5.1); "
     "its displacement is linear in α."),
    ("infimnist_seed", "Infinite-MNIST seed", 0, 999, "int", 0, "",
     "Which pair of smooth fields the Infinite-MNIST deformation uses."),
)

IMAGE_VIEWS = ("original", "deformed", "difference", "displacement")
#: legend of each context category (keys: ntkviz.jobs.CONTEXT_CATEGORIES)
CONTEXT_LABELS = {
    "deformation": "this deformation L_τx",
    "nearest_same": "nearest same-label digit",
    "mean_same": "mean over same-label digits",
    "nearest_other": "nearest other-label digit",
    "mean_other": "mean over other-label digits",
}
CONTEXT_MAPS = (("ckn", "CKN"), ("ntk", "NTK"), ("pixel", "pixels"))
POOLINGS = ("gaussian", "average", "strided")
PATCH_KERNELS = ("relu", "exp")
CUSTOM = "custom"


def _digest(image: np.ndarray) -> str:
    return hashlib.sha1(np.ascontiguousarray(image, dtype=np.float64).tobytes()).hexdigest()


def nice_ceil(value: float) -> float:
    """The smallest of (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8) x 10^k that is >= ``value``
    (1 for ``value <= 0``): a colour-scale limit wasting at most a third of the scale."""
    if not value > 0:
        return 1.0
    e = math.floor(math.log10(value))
    for m in (1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0):
        if m * 10.0 ** e >= value * (1 - 1e-12):
            return m * 10.0 ** e
    return 10.0 ** (e + 1)


def nice_floor(value: float) -> float:
    """The largest of 1, 2, 5 x 10^k that is <= ``value`` (``value > 0``)."""
    e = math.floor(math.log10(value))
    for m in (5.0, 2.0, 1.0):
        if m * 10.0 ** e <= value * (1 + 1e-12):
            return m * 10.0 ** e
    return 10.0 ** (e - 1)


def arrow_segments(tau: np.ndarray, step: int = 2, length_px: float = 2.4):
    """Arrow line segments of a displacement field for ``PlotCurveItem(connect="pairs")``.

    Arrows start at pixel centres every ``step`` pixels; they are scaled by a
    common "nice" factor (1, 2, 5 x 10^k) so that the longest is at most
    ``length_px`` pixels (the factor is returned, to be shown beside the
    arrows). Each arrow is a shaft and two head strokes.

    Returns
    -------
    x, y : ndarray
        Segment end points in view coordinates (x right, y down).
    factor : float
        Arrow length / displacement (0 when tau is zero).
    """
    _, h, w = tau.shape
    r, c = np.mgrid[step // 2:h:step, step // 2:w:step]
    dy, dx = tau[0][r, c].ravel(), tau[1][r, c].ravel()
    mag = np.hypot(dx, dy)
    big = mag.max() if mag.size else 0.0
    if big <= 0:
        return np.zeros(0), np.zeros(0), 0.0
    factor = nice_floor(length_px / big)
    keep = mag > 0.02 * big
    x0, y0 = c.ravel()[keep] + 0.5, r.ravel()[keep] + 0.5
    ux, uy = dx[keep] * factor, dy[keep] * factor
    x1, y1 = x0 + ux, y0 + uy
    head = 0.35 * np.hypot(ux, uy)
    ang = np.arctan2(uy, ux)
    segs_x, segs_y = [x0, x1], [y0, y1]
    for turn in (2.6, -2.6):
        segs_x += [x1, x1 + head * np.cos(ang + turn)]
        segs_y += [y1, y1 + head * np.sin(ang + turn)]
    # per arrow: (start, end) of the shaft, then of the two head strokes
    return np.stack(segs_x, axis=1).ravel(), np.stack(segs_y, axis=1).ravel(), factor


def _format_distance(value: float, below: bool, resolution: float, identical: bool) -> str:
    if identical:
        return "0 (identical images)"
    if value is None or not math.isfinite(value):
        return "n/a (CKN only: exp layers)"
    if below:
        return f"below numerical resolution (< {resolution:.0e})"
    return f"{value:.4g}"


class _LayerTable(QtWidgets.QTableWidget):
    """Editable layers: patch size, subsampling, pooling, patch kernel, σ (exp)."""

    edited = Signal()
    COLUMNS = ("patch", "sub", "pooling", "kernel", "σ")

    def __init__(self, parent=None):
        super().__init__(0, len(self.COLUMNS), parent)
        self.setHorizontalHeaderLabels(self.COLUMNS)
        self.verticalHeader().setDefaultSectionSize(26)
        self.horizontalHeader().setSectionResizeMode(QtWidgets.QHeaderView.ResizeMode.ResizeToContents)
        self.horizontalHeader().setStretchLastSection(True)
        self.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.SingleSelection)
        self.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setToolTip("One row per layer: patch side s (s×s patches), subsampling factor "
                        "(sub), pooling filter, patch kernel (relu = arc-cosine, needed for the "
                        "NTK; exp = CKN only) and the bandwidth σ of exp.")
        self._extra: list[dict] = []  # per-row fields not in the table (poolfactor)

    def set_layers(self, layers) -> None:
        self.blockSignals(True)
        self.setRowCount(0)
        self._extra = []
        for layer in layers:
            self._append(layer)
        self.blockSignals(False)
        self._fit_height()

    def _fit_height(self) -> None:
        h = self.horizontalHeader().height() + self.rowCount() * self.verticalHeader().defaultSectionSize()
        self.setFixedHeight(h + 2 * self.frameWidth() + 4)

    def _append(self, layer) -> None:
        row = self.rowCount()
        self.insertRow(row)
        patch = QtWidgets.QSpinBox()
        patch.setRange(1, 15)
        patch.setValue(layer.npatch)
        sub = QtWidgets.QSpinBox()
        sub.setRange(1, 14)
        sub.setValue(layer.subsampling)
        pool = QtWidgets.QComboBox()
        pool.addItems(POOLINGS)
        pool.setCurrentText(layer.pooling)
        kern = QtWidgets.QComboBox()
        kern.addItems(PATCH_KERNELS)
        kern.setCurrentText(layer.kernel)
        sigma = QtWidgets.QDoubleSpinBox()
        sigma.setRange(0.05, 10.0)
        sigma.setDecimals(2)
        sigma.setSingleStep(0.05)
        sigma.setValue(layer.sigma)
        for col, w in enumerate((patch, sub, pool, kern, sigma)):
            self.setCellWidget(row, col, w)
            sig = w.currentTextChanged if isinstance(w, QtWidgets.QComboBox) else w.valueChanged
            sig.connect(self._on_edit)
        self._extra.append({"poolfactor": layer.poolfactor})

    def _on_edit(self, *_):
        for extra in self._extra:
            extra["poolfactor"] = None  # an edited layer pools at its subsampling scale
        self.edited.emit()

    def add_layer(self) -> None:
        self._append(Layer(npatch=3, subsampling=2))
        self._fit_height()
        self.edited.emit()

    def remove_layer(self) -> None:
        if self.rowCount() > 1:
            row = self.currentRow() if self.currentRow() >= 0 else self.rowCount() - 1
            self.removeRow(row)
            del self._extra[row]
            self._fit_height()
            self.edited.emit()

    def layers(self) -> tuple:
        out = []
        for row in range(self.rowCount()):
            w = [self.cellWidget(row, col) for col in range(len(self.COLUMNS))]
            out.append(Layer(npatch=w[0].value(), subsampling=w[1].value(),
                             pooling=w[2].currentText(), kernel=w[3].currentText(),
                             sigma=float(w[4].value()), poolfactor=self._extra[row]["poolfactor"]))
        return tuple(out)


class QtDeformationPanel(QtPanel):
    """Digit deformation editor (see the module docstring)."""

    key = "deform"
    title = "Deformations"
    heavy = False
    throttle_ms = 0  # coalescing instead of a timer: see refresh()
    #: run the context job on the heavy (one-thread) pool
    context_heavy = False
    #: reference digits per label for the context distances
    context_per_class = ContextRequest.per_class

    #: emitted after a context result was drawn
    context_computed = Signal()

    def __init__(self, dispatcher, parent=None):
        super().__init__(dispatcher, parent)
        self.context_key = f"{self.key}.context"
        self._norms: dict = {}
        self._context: ContextResult | None = None
        self._context_for = None
        self._refresh_pending = False
        self._arrow_label = ""
        self._digit = digit_image(0, 0)
        self._digit_label: int | None = 0
        self._digit_source: dict = {"kind": "bundled", "label": 0, "index": 0}
        self._arch: Architecture = PRESETS["M1"]
        self._rng = np.random.default_rng()
        self._build()
        self._show_architecture(self._arch)
        dispatcher.returned.connect(self._on_context_returned)
        dispatcher.yielded.connect(self._on_context_yielded)
        dispatcher.errored.connect(self._on_context_errored)
        dispatcher.busy.connect(self._on_busy)

    # ------------------------------------------------------------------ layout
    def _build(self) -> None:
        controls = QtWidgets.QWidget()
        cl = QtWidgets.QVBoxLayout(controls)
        cl.setContentsMargins(4, 4, 4, 4)
        cl.addWidget(self._build_digit_box())
        cl.addWidget(self._build_deformation_box())
        cl.addWidget(self._build_architecture_box())
        cl.addStretch(1)
        scroll = QtWidgets.QScrollArea()
        scroll.setWidget(controls)
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        controls.setMinimumWidth(max(controls.sizeHint().width(), 370))
        scroll.setMinimumWidth(controls.minimumWidth() + scroll.verticalScrollBar().sizeHint().width() + 6)

        right = QtWidgets.QWidget()
        rl = QtWidgets.QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        self.views = QtWidgets.QWidget()
        self.views.setMinimumHeight(230)
        self._build_image_views()
        rl.addWidget(self.views, 3)
        rl.addWidget(self._build_readouts())
        self.context_widget = pg.PlotWidget()
        self.context_widget.setMinimumHeight(200)
        self._build_context_plot(self.context_widget.getPlotItem())
        self.context_progress = QtWidgets.QProgressBar()
        self.context_progress.setRange(0, 1000)
        self.context_progress.setFormat("context distances: %p%")
        self.context_progress.setVisible(False)
        rl.addWidget(self.context_widget, 2)
        rl.addWidget(self.context_progress)

        split = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        split.addWidget(scroll)
        split.addWidget(right)
        split.setStretchFactor(1, 1)
        split.setCollapsible(0, False)
        lay = QtWidgets.QHBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addWidget(split)

    def _build_digit_box(self) -> QtWidgets.QGroupBox:
        box = QtWidgets.QGroupBox("Digit")
        g = QtWidgets.QGridLayout(box)
        self.label_spin = QtWidgets.QSpinBox()
        self.label_spin.setRange(0, 9)
        self.label_spin.setToolTip("Class (label) of the bundled MNIST digit.")
        n_per_class = int(np.bincount(load_digits()[1]).min())
        self.index_spin = QtWidgets.QSpinBox()
        self.index_spin.setRange(0, n_per_class - 1)
        self.index_spin.setToolTip(f"Index of the digit within its class (0–{n_per_class - 1}).")
        self.random_button = QtWidgets.QPushButton("Random")
        self.random_button.setToolTip("Pick a random bundled digit.")
        self.open_button = QtWidgets.QPushButton("Open image…")
        self.open_button.setToolTip("Your own image: PNG/JPEG (grey-scaled) or .npy (H, W) array, "
                                    "any size; padded to a square and resampled to 28×28.")
        self.source_label = QtWidgets.QLabel()
        self.source_label.setWordWrap(True)
        g.addWidget(QtWidgets.QLabel("class"), 0, 0)
        g.addWidget(self.label_spin, 0, 1)
        g.addWidget(QtWidgets.QLabel("index"), 0, 2)
        g.addWidget(self.index_spin, 0, 3)
        g.addWidget(self.random_button, 1, 0, 1, 2)
        g.addWidget(self.open_button, 1, 2, 1, 2)
        g.addWidget(self.source_label, 2, 0, 1, 4)
        self.label_spin.valueChanged.connect(self._on_bundled_changed)
        self.index_spin.valueChanged.connect(self._on_bundled_changed)
        self.random_button.clicked.connect(self.pick_random_digit)
        self.open_button.clicked.connect(self._on_open_clicked)
        return box

    def _build_deformation_box(self) -> QtWidgets.QGroupBox:
        box = QtWidgets.QGroupBox("Deformation τ")
        v = QtWidgets.QVBoxLayout(box)
        v.setSpacing(2)
        self.sliders: dict[str, LabeledSlider] = {}
        defaults = Deformation()
        labels = []
        for name, label, lo, hi, mapping, decimals, units, tip in DEFORMATION_CONTROLS:
            s = LabeledSlider(label, lo, hi, getattr(defaults, name), mapping=mapping, steps=240,
                              decimals=max(decimals, 1), units=units, tooltip=tip)
            s.valueChanged.connect(self._on_deformation_changed)
            self.sliders[name] = s
            labels.append(s.label)
            v.addWidget(s)
        width = max(lbl.sizeHint().width() for lbl in labels)
        for lbl in labels:
            lbl.setFixedWidth(width)
        self.reset_button = QtWidgets.QPushButton("Reset deformation")
        self.reset_button.setToolTip("Back to the identity (no deformation).")
        self.reset_button.clicked.connect(self.reset_deformation)
        v.addWidget(self.reset_button)
        return box

    def _build_architecture_box(self) -> QtWidgets.QGroupBox:
        box = QtWidgets.QGroupBox("Architecture")
        v = QtWidgets.QVBoxLayout(box)
        row = QtWidgets.QHBoxLayout()
        self.preset_combo = QtWidgets.QComboBox()
        self.preset_combo.addItems([*PRESETS, CUSTOM])
        self.preset_combo.setToolTip("Oracle models of docs/spec.md §3.3 (M4 uses exp: CKN only), "
                                     "or 'custom' after editing the layers.")
        self.norm_combo = QtWidgets.QComboBox()
        self.norm_combo.addItems(["sum", "mean"])
        self.norm_combo.setToolTip("Patch normalisation: 'sum' = reference code at HEAD (oracles); "
                                   "'mean' = the paper's 1/|S| (rescales kernels, relative distances "
                                   "unchanged for relu/exp).")
        row.addWidget(QtWidgets.QLabel("preset"))
        row.addWidget(self.preset_combo, 1)
        row.addWidget(QtWidgets.QLabel("patches"))
        row.addWidget(self.norm_combo)
        v.addLayout(row)
        self.layer_table = _LayerTable()
        v.addWidget(self.layer_table)
        row = QtWidgets.QHBoxLayout()
        self.add_layer_button = QtWidgets.QPushButton("Add layer")
        self.remove_layer_button = QtWidgets.QPushButton("Remove layer")
        row.addWidget(self.add_layer_button)
        row.addWidget(self.remove_layer_button)
        v.addLayout(row)
        self.arch_message = QtWidgets.QLabel()
        self.arch_message.setWordWrap(True)
        v.addWidget(self.arch_message)
        self.preset_combo.currentTextChanged.connect(self._on_preset_changed)
        self.norm_combo.currentTextChanged.connect(self._on_layers_edited)
        self.layer_table.edited.connect(self._on_layers_edited)
        self.add_layer_button.clicked.connect(self.layer_table.add_layer)
        self.remove_layer_button.clicked.connect(self.layer_table.remove_layer)
        return box

    def _image_plot(self, title: str) -> tuple[pg.GraphicsLayoutWidget, pg.PlotItem, pg.ImageItem]:
        widget = pg.GraphicsLayoutWidget()
        widget.ci.setContentsMargins(2, 2, 2, 2)
        plot = widget.addPlot(row=0, col=0, title=title)
        plot.setAspectLocked(True)
        plot.invertY(True)
        plot.hideButtons()
        plot.setMenuEnabled(False)
        plot.setMouseEnabled(x=False, y=False)
        plot.hideAxis("left")
        plot.hideAxis("bottom")
        plot.getViewBox().setDefaultPadding(0.0)
        img = pg.ImageItem(axisOrder="row-major")
        plot.addItem(img)
        plot.setRange(xRange=(0, 28), yRange=(0, 28), padding=0)
        return widget, plot, img

    def _build_image_views(self) -> None:
        self.plots: dict[str, pg.PlotItem] = {}
        self.images: dict[str, pg.ImageItem] = {}
        titles = {"original": "original x", "deformed": "deformed L<sub>τ</sub>x",
                  "difference": "difference L<sub>τ</sub>x − x", "displacement": "displacement τ"}
        row = QtWidgets.QHBoxLayout(self.views)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(2)
        for name in IMAGE_VIEWS:
            widget, self.plots[name], self.images[name] = self._image_plot(titles[name])
            row.addWidget(widget, 1)
        grey = pg.colormap.get("CET-L1")
        self.bars = {
            "original": pg.ColorBarItem(values=(0, 1), colorMap=grey, label="intensity",
                                        interactive=False, width=12, colorMapMenu=False),
            "deformed": pg.ColorBarItem(values=(0, 1), colorMap=grey, label="intensity",
                                        interactive=False, width=12, colorMapMenu=False),
            "difference": pg.ColorBarItem(values=(-1, 1), colorMap=pg.colormap.get("CET-D1"),
                                          label="L_τx − x", interactive=False, width=12,
                                          colorMapMenu=False),
            "displacement": pg.ColorBarItem(values=(0, 1), colorMap=pg.colormap.get("viridis"),
                                            label="|τ| (px)", interactive=False, width=12,
                                            colorMapMenu=False),
        }
        for name, bar in self.bars.items():
            bar.setImageItem(self.images[name], insert_in=self.plots[name])
            bar.getAxis("right").enableAutoSIPrefix(False)
            bar.getAxis("right").setWidth(42)
        for plot in self.plots.values():
            plot.titleLabel.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored,
                                          QtWidgets.QSizePolicy.Policy.Fixed)
        self.arrows = pg.PlotCurveItem(connect="pairs", pen=pg.mkPen("w", width=1.2))
        self.plots["displacement"].addItem(self.arrows)

    def _build_readouts(self) -> QtWidgets.QWidget:
        box = QtWidgets.QGroupBox("Read-outs (relative to the undeformed digit x)")
        g = QtWidgets.QGridLayout(box)
        specs = (
            ("tau_sup", "‖τ‖∞", " px", "Largest displacement, in pixels."),
            ("jacobian_sup", "‖∇τ‖∞", "", "Largest operator norm of the Jacobian of τ "
             "(finite differences, spec §5.2): how much the deformation stretches."),
            ("pixel", "pixels ‖L_τx − x‖/‖x‖", "", "Plain pixel distance: NOT stable to small "
             "translations; the baseline the kernels improve on."),
            ("ckn", "CKN ‖Φ(L_τx) − Φ(x)‖/‖Φ(x)‖", "", "Relative distance in the CKN feature "
             "space (last layer trained only): Lipschitz in ‖∇τ‖∞."),
            ("ntk", "NTK ‖Φ(L_τx) − Φ(x)‖/‖Φ(x)‖", "", "Relative distance in the convolutional NTK "
             "feature space: Hölder-1/2 in ‖∇τ‖∞ (Bietti & Mairal, Prop. 12). Values below "
             f"{NTK_RESOLUTION:.0e} are rounding noise (spec §3.5)."),
            ("ratio", "NTK / CKN", "", "Ratio of the two relative distances."),
        )
        self.readouts: dict[str, Readout] = {}
        font = QtGui.QFont(self.font())
        font.setPointSizeF(font.pointSizeF() * 1.15)
        for i, (key, name, units, tip) in enumerate(specs):
            r = Readout(name, fmt="{:.4g}", units=units, tooltip=tip)
            r.setFont(font)
            r.setMinimumWidth(r.fontMetrics().horizontalAdvance(
                f"{name} = below numerical resolution (< 1e-04)"))
            self.readouts[key] = r
            g.addWidget(r, i % 3, i // 3)
        return box

    def _build_context_plot(self, plot: pg.PlotItem) -> None:
        self.context_plot = plot
        plot.setTitle("Context: relative distance from x to its deformation and to other bundled digits")
        plot.setLabel("left", "relative distance")
        plot.getAxis("left").enableAutoSIPrefix(False)
        plot.setMenuEnabled(False)
        plot.setMouseEnabled(x=False, y=False)
        plot.hideButtons()
        plot.getAxis("bottom").setTicks([[(i, label) for i, (_, label) in enumerate(CONTEXT_MAPS)]])
        legend = plot.addLegend(offset=(-5, 5), labelTextSize="8pt", colCount=1)
        self.context_legend = legend
        self.context_bars: dict[str, pg.BarGraphItem] = {}
        n = len(CONTEXT_CATEGORIES)
        assert set(CONTEXT_LABELS) == set(CONTEXT_CATEGORIES)
        width = 0.8 / n
        for j, cat in enumerate(CONTEXT_CATEGORIES):
            label = CONTEXT_LABELS[cat]
            x = np.arange(len(CONTEXT_MAPS)) - 0.4 + (j + 0.5) * width
            color = PALETTE[j]
            bar = pg.BarGraphItem(x=x, height=np.zeros(len(x)), width=width * 0.9,
                                  brush=pg.mkBrush(color), pen=pg.mkPen(color), name=label)
            plot.addItem(bar)
            self.context_bars[cat] = bar
        plot.setXRange(-0.5, len(CONTEXT_MAPS) - 0.5 + 1.3, padding=0)  # room for the legend

    # ------------------------------------------------------------ parameters
    @property
    def architecture(self) -> Architecture:
        return self._arch

    @property
    def digit(self) -> np.ndarray:
        return self._digit

    def deformation(self) -> Deformation:
        """The deformation of the sliders."""
        return Deformation(**{name: s.value() for name, s in self.sliders.items()})

    def build_request(self) -> DeformRequest:
        norms = self._norms.get((_digest(self._digit), self._arch))
        return DeformRequest(self._digit, self.deformation(), self._arch, norms)

    def _on_deformation_changed(self, _value=None) -> None:
        self.refresh()

    def refresh(self, *, immediate: bool = False) -> int:
        """Recompute the deformation; start the context job the first time a
        (digit, architecture) is shown.

        Coalescing (the editor's throttle): when idle the request starts at once;
        while one is pending or running, changes only mark the panel dirty and the
        latest parameters are submitted as soon as the running one has been drawn
        (trailing edge). Every result therefore reaches the screen (a drag shows
        one update per computation, ~1/latency per second) and the final slider
        position is always computed. Returns the id the request has or will have.
        """
        if self._context_for != self._context_key():
            self._update_context()
        if self.dispatcher.is_busy(self.key):
            try:
                self.build_request()  # report bad parameters now, like the base class
            except ValueError as exc:
                self._report_error(str(exc))
                return 0
            self._refresh_pending = True
            return self.dispatcher.latest_id(self.key) + 1
        self._refresh_pending = False
        return super().refresh(immediate=True)

    def _context_key(self) -> tuple:
        return (_digest(self._digit), self._digit_label, self._arch, self.context_per_class)

    def reset_deformation(self) -> None:
        defaults = Deformation()
        for name, s in self.sliders.items():
            s.setValue(getattr(defaults, name), emit=False)
        self.refresh(immediate=True)

    def set_deformation(self, d: Deformation) -> None:
        for name, s in self.sliders.items():
            s.setValue(getattr(d, name), emit=False)
        self.refresh(immediate=True)

    # digit
    def _on_bundled_changed(self, _=None) -> None:
        self.set_bundled_digit(self.label_spin.value(), self.index_spin.value())

    def set_bundled_digit(self, label: int, index: int) -> None:
        source = {"kind": "bundled", "label": int(label), "index": int(index)}
        image, label, description = digit_from_state(source)
        for spin, val in ((self.label_spin, label), (self.index_spin, index)):
            spin.blockSignals(True)
            spin.setValue(int(val))
            spin.blockSignals(False)
        self._set_digit(image, label, source, description)

    def pick_random_digit(self) -> None:
        self.set_bundled_digit(int(self._rng.integers(10)),
                               int(self._rng.integers(self.index_spin.maximum() + 1)))

    def _set_digit(self, image: np.ndarray, label, source: dict, description: str) -> None:
        self._digit = np.ascontiguousarray(image, dtype=np.float64)
        self._digit_label = label
        self._digit_source = source
        self.source_label.setText(description)
        self.refresh(immediate=True)

    def load_user_image(self, path) -> bool:
        """Load a user image (PNG/JPEG/... via QImage, or .npy); on failure keep the
        current digit, put the reason in the status bar and return False."""
        path = Path(path)
        try:
            if path.suffix.lower() == ".npy":
                arr = load_image_file(path)
            else:
                qimg = QtGui.QImage(str(path))
                if qimg.isNull():
                    raise ValueError(f"{path.name}: not a readable image (PNG, JPEG, BMP or .npy)")
                qimg = qimg.convertToFormat(QtGui.QImage.Format.Format_Grayscale8)
                w, h, stride = qimg.width(), qimg.height(), qimg.bytesPerLine()
                buf = np.frombuffer(qimg.constBits(), dtype=np.uint8, count=stride * h)
                arr = buf.reshape(h, stride)[:, :w].astype(np.float64)
            image, note = prepare_user_image(arr, name=path.name)
        except (ValueError, OSError) as exc:
            self._report_error(f"image not loaded, current digit kept: {exc}")
            return False
        self.last_error = ""
        self._set_digit(image, None, {"kind": "user", "name": path.name,
                                      "pixels": np.round(image, 6).tolist()},
                        f"your image {path.name} ({note}); class unknown")
        self.status.emit(f"{self.title}: loaded {path.name} ({note})")
        return True

    def _on_open_clicked(self) -> None:
        path, _ = QtWidgets.QFileDialog.getOpenFileName(
            self, "Open a digit image", "", "Images (*.png *.jpg *.jpeg *.bmp *.pgm *.npy);;All files (*)")
        if path:
            self.load_user_image(path)

    # architecture
    @staticmethod
    def _preset_name(arch: Architecture) -> str:
        return next((k for k, a in PRESETS.items() if a == arch), CUSTOM)

    def _show_architecture(self, arch: Architecture, layers: bool = True) -> bool:
        """Put ``arch`` in the editor widgets (no signals); True if it is valid."""
        for combo, text in ((self.preset_combo, self._preset_name(arch)),
                            (self.norm_combo, arch.patch_normalization)):
            combo.blockSignals(True)
            combo.setCurrentText(text)
            combo.blockSignals(False)
        if layers:
            self.layer_table.set_layers(arch.layers)
        return self._arch_valid(arch)

    def _on_preset_changed(self, name: str) -> None:
        if name in PRESETS:
            self._show_architecture(PRESETS[name])
            self.set_architecture(PRESETS[name])

    def _on_layers_edited(self, *_):
        arch = Architecture(layers=self.layer_table.layers(),
                            patch_normalization=self.norm_combo.currentText())
        if self._show_architecture(arch, layers=False):
            self.set_architecture(arch)

    def _arch_valid(self, arch: Architecture) -> bool:
        try:
            sizes = arch.layer_sizes(*self._digit.shape[:2])
        except ValueError as exc:
            self.arch_message.setStyleSheet("color: #b00020;")
            self.arch_message.setText(f"Refused: {exc}")
            self._report_error(f"architecture refused: {exc}")
            return False
        self.arch_message.setStyleSheet("")
        text = "map sizes: " + "; ".join(
            f"{size[0][0]}×{size[0][1]} → {size[2][0]}×{size[2][1]}" for size in sizes)
        if not arch.supports_ntk:
            text += "  (exp layers: CKN only, no NTK)"
        self.arch_message.setText(text)
        return True

    def set_architecture(self, arch: Architecture) -> None:
        """Use ``arch`` (validated) and recompute everything."""
        if not self._arch_valid(arch):
            return
        self._arch = arch
        self.refresh(immediate=True)

    # ------------------------------------------------------------ responses
    def apply_response(self, resp) -> None:
        self._norms[(_digest(resp.original), resp.architecture)] = resp.reference_norms
        if len(self._norms) > 16:
            self._norms.pop(next(iter(self._norms)))
        self.response = resp  # (the base class sets it too)
        # only what changed is redrawn; colour scales use "nice" limits (nice_ceil)
        # so they stay put while a slider is dragged
        drawn = self.images["original"].image
        if drawn is None or not np.array_equal(drawn, resp.original):
            self.images["original"].setImage(resp.original, autoLevels=False)
            self.bars["original"].setLevels((0, 1))
            self.bars["deformed"].setLevels((0, 1))
        self.images["deformed"].setImage(resp.deformed, autoLevels=False)
        m = nice_ceil(float(np.max(np.abs(resp.difference))))
        self.images["difference"].setImage(resp.difference, autoLevels=False)
        self._set_levels("difference", (-m, m))
        mag = np.hypot(resp.tau[0], resp.tau[1])
        self.images["displacement"].setImage(mag, autoLevels=False)
        self._set_levels("displacement", (0.0, nice_ceil(float(mag.max()))))
        x, y, factor = arrow_segments(resp.tau)
        self.arrows.setData(x, y)
        label = f"|τ| (px); arrows ×{factor:g}" if factor else "|τ| (px)"
        if label != self._arrow_label:
            self._arrow_label = label
            self.bars["displacement"].getAxis("left").setLabel(label)
        r = self.readouts
        r["tau_sup"].setValue(resp.tau_sup)
        r["jacobian_sup"].setValue(resp.jacobian_sup)
        r["pixel"].setValue(resp.pixel_distance)
        r["ckn"].setValue(_format_distance(resp.ckn_distance, resp.ckn_below_resolution,
                                           CKN_RESOLUTION, resp.identical))
        r["ntk"].setValue(_format_distance(resp.ntk_distance, resp.ntk_below_resolution,
                                           NTK_RESOLUTION, resp.identical))
        r["ratio"].setValue(resp.ratio if math.isfinite(resp.ratio) else "–")
        self._draw_context()

    # context
    def _update_context(self) -> None:
        request = ContextRequest(self._digit, self._digit_label, self._arch,
                                 per_class=self.context_per_class,
                                 reference_norms=self._norms.get((_digest(self._digit), self._arch)))
        self._context_for = request.cache_key
        hit = request.cached()
        if hit is not None:
            self.dispatcher.cancel(self.context_key)
            self.context_progress.setVisible(False)
            self._context = hit
            self._draw_context()
            self.context_computed.emit()
            return
        self._context = None
        self._draw_context()
        self.context_progress.setValue(0)
        self.context_progress.setVisible(True)
        self.dispatcher.submit_generator(self.context_key, request, heavy=self.context_heavy)

    def context_result(self) -> ContextResult | None:
        return self._context

    @Slot(str, int, object)
    def _on_context_yielded(self, key: str, rid: int, item) -> None:
        if key == self.context_key:
            self.context_progress.setValue(int(1000 * item.fraction))

    @Slot(str, int, object)
    def _on_context_returned(self, key: str, rid: int, item) -> None:
        if key != self.context_key or item is None or item.result is None:
            return
        self.context_progress.setVisible(False)
        self._context = item.result
        self._draw_context()
        self.context_computed.emit()

    @Slot(str, int, str)
    def _on_context_errored(self, key: str, rid: int, message: str) -> None:
        if key == self.context_key:
            self.context_progress.setVisible(False)
            self._report_error(f"context distances: {message}")

    @Slot(str, bool)
    def _on_busy(self, key: str, busy: bool) -> None:
        if key == self.key and not busy and self._refresh_pending:
            self._refresh_pending = False
            QtPanel.refresh(self, immediate=True)  # the trailing edge: the latest parameters
        if key == self.context_key and not busy and self._context is None:
            # cancelled (or failed): say so, and start again on the next change
            self.context_progress.setVisible(False)
            self._context_for = None
            self._draw_context(stopped=True)

    def context_values(self) -> dict[str, dict[str, float]]:
        """What the context plot shows: ``{category: {map: value}}`` (NaN = not drawn)."""
        return context_table(self.response, self._context)

    def _set_levels(self, name: str, levels: tuple[float, float]) -> None:
        if tuple(self.bars[name].levels()) != levels:  # (the image keeps the bar's levels)
            self.bars[name].setLevels(levels)

    def _draw_context(self, stopped: bool = False) -> None:
        values = self.context_values()
        for cat, bar in self.context_bars.items():
            heights = np.array([values[cat][m] for m, _ in CONTEXT_MAPS], dtype=float)
            bar.setOpts(height=np.nan_to_num(heights, nan=0.0))
        label = "class unknown: 'other' = any bundled digit" if self._digit_label is None else \
            f"{self.context_per_class} bundled digits per class"
        state = label if self._context is not None else \
            "stopped: recomputed at the next change" if stopped else "computing…"
        self.context_plot.setTitle(
            f"Context: relative distance from x to L<sub>τ</sub>x and to other digits ({state})")

    # ------------------------------------------------------------ export, sessions
    def plot_items(self) -> dict[str, object]:
        items = dict(self.plots)
        items["context"] = self.context_plot
        return items

    def csv_table(self, view: str) -> tuple[list[str], list[list]]:
        if self.response is None:
            raise ValueError("nothing computed yet")
        return deform_csv_table(view, self.response, self._context)

    def state(self) -> dict:
        preset = self.preset_combo.currentText()
        return {"digit": dict(self._digit_source),
                "deformation": dataclasses.asdict(self.deformation()),
                "preset": preset,
                "architecture": architecture_to_dict(self._arch)}

    def set_state(self, state: dict) -> None:
        state = {"digit": self._digit_source, **state}
        image, label, d, arch = editor_inputs_from_state(state)  # ValueError: nothing changed
        if self._show_architecture(arch):
            self._arch = arch
        for name, s in self.sliders.items():
            s.setValue(getattr(d, name), emit=False)
        digit = state["digit"]
        if digit.get("kind", "bundled") == "bundled":
            self.set_bundled_digit(label, digit.get("index", 0))
        else:
            self._set_digit(image, None, dict(digit), digit_from_state(digit)[2])

    def help_html(self) -> str:
        return (
            "<h3>Deformations: CKN against NTK stability</h3>"
            "<p>A digit x is deformed by a displacement field τ: L<sub>τ</sub>x(u) = x(u − τ(u)) "
            "(bilinear interpolation, zero fill). The read-outs are ‖τ‖<sub>∞</sub> (pixels), "
            "‖∇τ‖<sub>∞</sub> (largest Jacobian operator norm, finite differences) and the "
            "relative distances ‖Φ(L<sub>τ</sub>x) − Φ(x)‖ / ‖Φ(x)‖ = "
            "√(k(x,x) + k(y,y) − 2k(x,y)) / √k(x,x) for the CKN (arc-cosine kernel, only the last "
            "layer trained) and the convolutional NTK, computed exactly (ntkviz follows the "
            "reference code albietz/ckn_kernel at HEAD).</p>"
            "<p>Bietti &amp; Mairal (NeurIPS 2019) show that the CKN is Lipschitz-stable, "
            "‖Φ(L<sub>τ</sub>x) − Φ(x)‖ ≲ (‖∇τ‖<sub>∞</sub> + ‖τ‖<sub>∞</sub>/σ<sub>n</sub>)‖x‖, "
            "while the NTK is only Hölder-1/2: a term in ‖∇τ‖<sub>∞</sub><sup>1/2</sup> appears "
            "(Prop. 12). Small deformations therefore move the NTK features comparatively more: "
            "watch the ratio NTK / CKN grow as τ shrinks.</p>"
            f"<p>NTK distances below {NTK_RESOLUTION:.0e} are rounding noise "
            "(k(x,x) + k(y,y) − 2k(x,y) cancels) and are shown as <i>below numerical "
            "resolution</i>. The pixel distance ‖L<sub>τ</sub>x − x‖/‖x‖ is the baseline: it is "
            "not stable to translations.</p>"
            "<p>The context bars compare with the distance from x to the nearest and to the mean "
            f"of {self.context_per_class} bundled digits per class, same label and other labels.</p>"
        )


if __name__ == "__main__":  # pragma: no cover - demo / smoke test / screenshot
    import sys

    from ntkviz.gui.app import run_standalone

    sys.exit(run_standalone(QtDeformationPanel))
