"""The Learning panel's controls column: kernels, regression, target editor, the
lower-right view, Monte-Carlo (run, Cancel, progress, note) and the read-outs.

:class:`LearningControls` holds no parameters: it shows a
:class:`~ntkviz.models.learning.LearningParams` (:meth:`~LearningControls.sync`)
and reports edits as ``edited({field: value})``, or ``unreadable(field, message)`` for a
text it cannot read; the panel writes them through its model.
"""
from __future__ import annotations

from PySide6 import QtCore, QtWidgets
from PySide6.QtCore import Signal

from ntkviz import limits
from ntkviz._text import parse_list
from ntkviz.gui.controls import Readout, combo, int_spin, line_edit
from ntkviz.gui.panels._kernel_controls import log_int_slider, scroll_column, set_slider
from ntkviz.models.learning import VIEWS, parse_target_text

__all__ = ["LearningControls", "readout_html", "TARGET_PRESETS", "BAR_DEGREES"]

#: degrees with a bar in the target editor
BAR_DEGREES = 9
TARGET_PRESETS = ("1:1,2:1,4:1,7:1", "harmonic:3", "ridge:0.2", "step:0", "abs")


def _sub(k: int) -> str:
    """``k`` in subscript digits (``12`` -> ``₁₂``)."""
    return str(k).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))


def _sizes(text: str) -> tuple[int, ...]:
    """The Monte-Carlo sizes: the one list rule (no empty entry, no repeat)."""
    return parse_list("mc_sizes", text)


class DegreeBars(QtWidgets.QGroupBox):
    """One vertical slider per degree k = 0..BAR_DEGREES − 1 setting c_k in [−2, 2] (steps of
    0.1) of the components target Σ c_k P_k(⟨x, z_k⟩); ``edited(text)`` gives the target."""

    edited = Signal(str)

    def __init__(self, parent=None):
        super().__init__("degree components cₖ", parent)
        grid = QtWidgets.QGridLayout(self)
        grid.setSpacing(2)
        self.bars = []
        for k in range(BAR_DEGREES):
            bar = QtWidgets.QSlider(QtCore.Qt.Orientation.Vertical)
            bar.setRange(-20, 20)
            bar.setMinimumHeight(60)
            bar.setToolTip(f"c{_sub(k)}: coefficient of P{_sub(k)}(⟨x, z{_sub(k)}⟩), −2..2 (the text field "
                           "takes any value)")
            bar.valueChanged.connect(self._on_bar)
            grid.addWidget(bar, 0, k)
            grid.addWidget(QtWidgets.QLabel(str(k)), 1, k, QtCore.Qt.AlignmentFlag.AlignHCenter)
            self.bars.append(bar)

    def _on_bar(self, _value: int) -> None:
        pairs = [(k, bar.value() / 10) for k, bar in enumerate(self.bars) if bar.value()]
        self.edited.emit(",".join(f"{k}:{c:g}" for k, c in pairs) or "0:0")

    def sync(self, target: str, kmax: int) -> None:
        """Show the coefficients of ``target`` (all 0 for a target that is not components)."""
        parsed = parse_target_text(target, kmax)
        coefs = dict(parsed["components"]) if parsed["kind"] == "components" else {}
        for k, bar in enumerate(self.bars):
            value = int(round(10 * max(-2.0, min(2.0, coefs.get(k, 0.0)))))
            if bar.value() != value:
                bar.blockSignals(True)
                bar.setValue(value)
                bar.blockSignals(False)


class LearningControls(QtWidgets.QWidget):
    """The controls column (see the module notes). ``kernels`` is the panel's kernel
    chooser, shown first. The parameters scroll (vertically only); Monte-Carlo, its Cancel,
    its progress and its note stay in view below them at every window height."""

    edited = Signal(dict)
    unreadable = Signal(str, str)

    def __init__(self, kernels: QtWidgets.QWidget, parent=None):
        super().__init__(parent)
        self.target_edit = line_edit("k:c,k:c (c·Pₖ(⟨x, zₖ⟩)), harmonic:K, ridge:T, step:T "
                                     "or abs")
        self.target_combo = combo(["presets…", *TARGET_PRESETS])
        self.degree_bars = DegreeBars()
        self.bars = self.degree_bars.bars
        self.dim = log_int_slider("dimension p", limits.DIM_RANGE, 3,
                                  "input dimension p (sphere Sᵖ⁻¹)")
        self.n = log_int_slider("n (samples)", (1, 100_000), 200, "training points n")
        self.ridge_edit = line_edit("ridge δ >= 0 (not multiplied by n), e.g. 1e-3; 0..1e6")
        self.noise_edit = line_edit("label noise σ in [0, 1000]")
        self.kmax_spin = int_spin((10, 2000), "highest degree of the spectrum (the tail above is "
                                              "analytic)")
        self.view_combo = combo(VIEWS)
        self.sizes_edit = line_edit("Monte-Carlo sample sizes, comma-separated, each in [1, 20000]")
        self.seeds_spin = int_spin((1, 1000))
        self.seed_spin = int_spin((0, 2**31 - 1))
        self.mc_button = QtWidgets.QPushButton("Run Monte-Carlo")
        self.mc_cancel = QtWidgets.QPushButton("Cancel")
        self.mc_cancel.setEnabled(False)
        self.progress = QtWidgets.QProgressBar()
        self.progress.setRange(0, 1000)
        self.mc_note = QtWidgets.QLabel("")
        self.mc_note.setWordWrap(True)
        self.readout = Readout("", tooltip="effective ridge κ, E0 and RKHS norms at the current n")
        self.readout.setWordWrap(True)
        self.readout.setTextFormat(QtCore.Qt.TextFormat.RichText)

        form_box = QtWidgets.QGroupBox("Regression")
        form = QtWidgets.QFormLayout(form_box)
        for label, widget in (("target", self.target_edit), ("", self.target_combo),
                              (None, self.degree_bars), ("ridge δ", self.ridge_edit),
                              ("noise σ", self.noise_edit), ("k max", self.kmax_spin),
                              ("lower-right view", self.view_combo)):
            if label is None:
                form.addRow(widget)
            else:
                form.addRow(label, widget)
        mc_box = QtWidgets.QGroupBox("Monte-Carlo")
        mcf = QtWidgets.QFormLayout(mc_box)
        mcf.addRow("sizes n", self.sizes_edit)
        mcf.addRow("seeds", self.seeds_spin)
        mcf.addRow("first seed", self.seed_spin)
        buttons = QtWidgets.QHBoxLayout()
        buttons.addWidget(self.mc_button)
        buttons.addWidget(self.mc_cancel)
        mcf.addRow(buttons)
        mcf.addRow(self.progress)
        mcf.addRow(self.mc_note)
        column = QtWidgets.QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(4)
        column.addWidget(scroll_column(kernels, self.dim, self.n, form_box, self.readout), 1)
        column.addWidget(mc_box)
        self.setMaximumWidth(self.minimumSizeHint().width())
        self._connect()

    def _connect(self) -> None:
        def emit(**changes):
            self.edited.emit(changes)

        self.target_edit.editingFinished.connect(
            lambda: self._read(self.target_edit, "target", str.strip))
        self.target_combo.activated.connect(self._on_preset)
        self.degree_bars.edited.connect(lambda text: emit(target=text))
        self.dim.valueChanged.connect(lambda v: emit(dim=int(v)))
        self.n.valueChanged.connect(lambda v: emit(n=int(v)))
        self.ridge_edit.editingFinished.connect(lambda: self._read(self.ridge_edit, "ridge", float))
        self.noise_edit.editingFinished.connect(lambda: self._read(self.noise_edit, "noise", float))
        self.kmax_spin.valueChanged.connect(lambda v: emit(kmax=int(v)))
        self.view_combo.currentTextChanged.connect(lambda v: emit(view=v))
        self.sizes_edit.editingFinished.connect(
            lambda: self._read(self.sizes_edit, "mc_sizes", _sizes))
        self.seeds_spin.valueChanged.connect(lambda v: emit(seeds=int(v)))
        self.seed_spin.valueChanged.connect(lambda v: emit(seed=int(v)))

    def _read(self, edit, field: str, parse) -> None:
        try:
            value = parse(edit.text())
        except ValueError as exc:  # a list parser's message names the field; float()'s does not
            text = str(exc)
            self.unreadable.emit(field, text if text.startswith(field)
                                 else f"{field}: cannot read {edit.text()!r}")
            return
        self.edited.emit({field: value})

    def _on_preset(self, index: int) -> None:
        if index > 0:
            self.edited.emit({"target": TARGET_PRESETS[index - 1]})
        self.target_combo.setCurrentIndex(0)

    def sync(self, p) -> None:
        """Show the parameters ``p`` (signals blocked: nothing is reported back)."""
        set_slider(self.dim, p.dim)
        set_slider(self.n, p.n)
        self.degree_bars.sync(p.target, p.kmax)
        for edit, text in ((self.target_edit, p.target), (self.ridge_edit, f"{p.ridge:g}"),
                           (self.noise_edit, f"{p.noise:g}"),
                           (self.sizes_edit, ",".join(str(v) for v in p.mc_sizes))):
            if edit.text() != text:
                edit.setText(text)
        for box, value in ((self.kmax_spin, p.kmax), (self.seeds_spin, p.seeds),
                           (self.seed_spin, p.seed)):
            if box.value() != value:
                box.blockSignals(True)
                box.setValue(value)
                box.blockSignals(False)
        if self.view_combo.currentText() != p.view:
            self.view_combo.blockSignals(True)
            self.view_combo.setCurrentText(p.view)
            self.view_combo.blockSignals(False)


def readout_html(r) -> str:
    """The read-outs at the current n: per kernel κ, E0, test and train MSE and the RKHS
    norm of the target (∞ with power on a degree where μ_k = 0)."""
    rows = []
    for lab, t, norm in zip(r.current.labels, r.current.theories, r.current.norms):
        if norm.zero_degrees:
            shown = ", ".join(map(str, norm.zero_degrees[:6]))
            nrm = f"∞ (power on μ<sub>k</sub> = 0 at k = {shown})"
        else:
            nrm = f"{norm.squared:.4g}" + (" (k ≤ k max)" if norm.partial else "")
        trust = "" if t.trustworthy[0] else " <b>untrusted</b> (raise k max or check the spectrum)"
        rows.append(f"<b>{lab}</b>: κ = {t.effective_ridge[0]:.4g}, E0 = {t.e0[0]:.4g}, "
                    f"test MSE = {t.test_mse[0]:.4g}, train MSE = {t.train_mse[0]:.3g}, "
                    f"‖f‖²<sub>H</sub> = {nrm}{trust}")
    return "<br>".join(rows)
