"""The lazy-training panel's parameter controls (a view of the model: no state).

:class:`TrainingControls` emits ``edited({field: value})`` when the user changes a
control and shows a :class:`ntkviz.models.training.TrainingParams` with
:meth:`TrainingControls.show_params` (signals blocked). Every control's range is
the model's, so a control never clamps a value the model holds.
"""
from __future__ import annotations

import math

from PySide6 import QtCore, QtWidgets
from PySide6.QtCore import Signal

from ntkviz import limits
from ntkviz.gui.panels.training._plots import METRIC_LABELS
from ntkviz.gui.controls import LabeledSlider, Readout
from ntkviz.limits import LR_RANGE

__all__ = ["TrainingControls"]

#: slider field name -> widget attribute
SLIDERS = {"alpha": "alpha", "alpha2": "alpha2", "width": "width_m", "samples": "samples",
           "teacher": "teacher", "dim": "dim", "lr": "lr", "steps": "steps", "frames": "frames"}


class TrainingControls(QtWidgets.QWidget):
    """α, the optional second α, the network, data and optimisation controls, and the
    metrics shown."""

    #: {field: value} the user asked for (the panel writes it into the model)
    edited = Signal(dict)

    def __init__(self, params, parent=None):
        super().__init__(parent)
        from ntkviz.core import METRICS

        log = dict(mapping="log", steps=500)
        int_log = dict(mapping="log", integer=True, steps=300)
        self.alpha = LabeledSlider("α", *limits.ALPHA_RANGE, params.alpha, decimals=5, **log,
                                   tooltip="output scale α (= τ², τ the initialisation std)")
        self.tau = Readout("τ = √α", fmt="{:.4g}")
        self.compare = QtWidgets.QGroupBox("side by side with a second α")
        self.compare.setCheckable(True)
        self.alpha2 = LabeledSlider("α₂", *limits.ALPHA_RANGE, params.alpha2, decimals=5, **log,
                                    tooltip="output scale of the second run (same data, "
                                            "initialisation and step size)")
        self.tau2 = Readout("τ₂", fmt="{:.4g}")
        cl = QtWidgets.QVBoxLayout(self.compare)
        cl.addWidget(self.alpha2)
        cl.addWidget(self.tau2)
        self.width_m = LabeledSlider("width m", *limits.TRAIN_WIDTH_RANGE, params.width, **int_log,
                                     tooltip="student width m (even: neurons come in "
                                             "symmetrised pairs)")
        self.samples = LabeledSlider("samples n", *limits.TRAIN_SAMPLES_RANGE, params.samples,
                                     **int_log, tooltip="number of training inputs")
        self.teacher = LabeledSlider("teacher m₀", *limits.TEACHER_RANGE, params.teacher,
                                     tooltip="teacher neurons (unit norm, random signs)")
        self.dim = LabeledSlider("dimension d", *limits.TRAIN_DIM_RANGE, params.dim, **int_log,
                                 tooltip="inputs on Sᵈ⁻¹; views use the first two "
                                         "coordinates (d > 2: the great circle in the "
                                         "(e₁, e₂) plane)")
        self.lr = LabeledSlider("step size", *LR_RANGE, params.lr, decimals=6, **log,
                                tooltip="gradient-descent step size, the same for every α")
        self.lr_limit = Readout("lazy stability 2n/λmax(K₀)", fmt="{:.3g}",
                                tooltip="step sizes above this make the linearised model "
                                        "(and lazy nets) diverge")
        self.steps = LabeledSlider("steps", *limits.STEPS_RANGE, params.steps, **int_log,
                                   tooltip="number of gradient steps")
        self.frames = LabeledSlider("frames", *limits.FRAMES_RANGE, params.frames, **int_log,
                                    tooltip="frames recorded after the initialisation (one per "
                                            "step when the run has fewer steps)")
        self.seed = QtWidgets.QDoubleSpinBox()  # integers up to 2³² − 1 (a QSpinBox stops at 2³¹)
        self.seed.setDecimals(0)
        self.seed.setRange(*limits.SEED_RANGE)
        self.seed.setKeyboardTracking(False)
        self.seed.setToolTip("teacher, data and initialisation (the same for every α)")
        self.init = QtWidgets.QComboBox()
        self.init.addItems(list(limits.INITS))
        self.init.setToolTip("symmetric: paired neurons, f(w₀) = 0 exactly; centered: i.i.d. "
                             "weights and h = f − f(w₀)")
        self.ntk_scaling = QtWidgets.QCheckBox("NTK scaling 1/√m")
        self.ntk_scaling.setToolTip("multiply the student by 1/√m")
        self.log_time = QtWidgets.QCheckBox("frames log-spaced in time")
        self.log_time.setToolTip("record frames at log-spaced steps (else evenly spaced)")
        self.metric_list = QtWidgets.QListWidget()
        self.metric_list.setToolTip("metrics drawn against time (log–log)")
        for key in METRICS:
            it = QtWidgets.QListWidgetItem(METRIC_LABELS[key])
            it.setData(QtCore.Qt.ItemDataRole.UserRole, key)
            it.setFlags(it.flags() | QtCore.Qt.ItemFlag.ItemIsUserCheckable)
            it.setToolTip(METRICS[key])
            self.metric_list.addItem(it)
        self.metric_list.setMaximumHeight(150)
        self.message = QtWidgets.QLabel()
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #b00000;")

        fl = QtWidgets.QVBoxLayout(self)
        for w in (self.alpha, self.tau, self.compare, self.width_m, self.samples, self.teacher,
                  self.dim, self.lr, self.lr_limit, self.steps, self.frames):
            fl.addWidget(w)
        for text, w in (("seed", self.seed), ("initialisation", self.init)):
            row = QtWidgets.QHBoxLayout()
            row.addWidget(QtWidgets.QLabel(text))
            row.addWidget(w, 1)
            fl.addLayout(row)
        fl.addWidget(self.ntk_scaling)
        fl.addWidget(self.log_time)
        fl.addWidget(QtWidgets.QLabel("metrics shown"))
        fl.addWidget(self.metric_list)
        fl.addWidget(self.message)
        fl.addStretch(1)
        self.show_params(params)

        for name, attr in SLIDERS.items():
            if name != "width":
                getattr(self, attr).valueChanged.connect(
                    lambda value, name=name: self._emit(name, value))
        self.width_m.valueChanged.connect(self._on_width)
        self.compare.toggled.connect(lambda on: self._emit("compare", bool(on)))
        self.seed.valueChanged.connect(lambda v: self._emit("seed", int(v)))
        self.init.currentTextChanged.connect(lambda text: self._emit("init", text))
        self.ntk_scaling.toggled.connect(lambda on: self._emit("ntk_scaling", bool(on)))
        self.log_time.toggled.connect(lambda on: self._emit("log_time", bool(on)))
        self.metric_list.itemChanged.connect(
            lambda _: self._emit("metrics", self.checked_metrics()))

    def _emit(self, name: str, value) -> None:
        self.edited.emit({name: value})

    def _on_width(self, value: int) -> None:
        if value % 2:  # neurons come in pairs: the nearest even width inside the range
            value = value + 1 if value < self.width_m.maximum else value - 1
            self.width_m.setValue(value, emit=False)
        self._emit("width", value)

    def checked_metrics(self) -> tuple[str, ...]:
        """The metric keys ticked, in list order."""
        out = []
        for i in range(self.metric_list.count()):
            it = self.metric_list.item(i)
            if it.checkState() == QtCore.Qt.CheckState.Checked:
                out.append(it.data(QtCore.Qt.ItemDataRole.UserRole))
        return tuple(out)

    def show_params(self, params) -> None:
        """Set every control from ``params`` without emitting ``edited``."""
        for name, attr in SLIDERS.items():
            getattr(self, attr).setValue(getattr(params, name), emit=False)
        others = (self.compare, self.seed, self.init, self.ntk_scaling, self.log_time,
                  self.metric_list)
        for w in others:
            w.blockSignals(True)
        try:
            self.compare.setChecked(params.compare)
            self.seed.setValue(params.seed)
            self.init.setCurrentText(params.init)
            self.ntk_scaling.setChecked(params.ntk_scaling)
            self.log_time.setChecked(params.log_time)
            wanted = set(params.metrics)
            for i in range(self.metric_list.count()):
                it = self.metric_list.item(i)
                on = it.data(QtCore.Qt.ItemDataRole.UserRole) in wanted
                it.setCheckState(QtCore.Qt.CheckState.Checked if on
                                 else QtCore.Qt.CheckState.Unchecked)
        finally:
            for w in others:
                w.blockSignals(False)
        self.tau.setValue(math.sqrt(params.alpha))
        self.tau2.setValue(math.sqrt(params.alpha2))
