"""Stability view: relative feature distance against deformation amplitude.

"In the spirit of Fig. 1" of Bietti & Mairal (NeurIPS 2019) -- not a
reproduction (its numbers are unknown, ``docs/spec.md`` §6). Each bundled digit
is deformed by a family of deformations at growing amplitude; the mean (and
spread over digits and seeds) of ``||Phi(L_tau x) - Phi(x)|| / ||Phi(x)||`` is
drawn on log-log axes for the CKN, the NTK and plain pixels, with the mean
distance to same-label and to any-label digits as horizontal levels and the
fitted small-amplitude slopes against guide lines of slope 1 (Lipschitz) and
1/2 (Hölder-1/2). The sweep is a :class:`ntkviz.jobs.StabilityRequest`
generator on the heavy pool: progress, cancel, partial results drawn as they
arrive.
"""
from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from ntkviz.core.cntk import PRESETS
from ntkviz.core.digits import load_digits
from ntkviz.core.stability import FAMILIES
from ntkviz.gui.panels._base import QtPanel
from ntkviz.gui.widgets import PALETTE
from ntkviz.jobs import FAMILY_AMPLITUDES, STABILITY_DEFAULTS, StabilityRequest

__all__ = ["QtStabilityPanel", "FAMILY_AMPLITUDES", "MAPS"]

#: (key in SweepResult, legend name, colour index)
MAPS = (("ckn", "CKN", 0), ("ntk", "NTK", 1), ("pixel", "pixels", 2))
class QtStabilityPanel(QtPanel):
    """Stability sweep view (see the module docstring)."""

    key = "stability"
    title = "Stability"
    heavy = True
    generator = True
    throttle_ms = 0

    def __init__(self, dispatcher, parent=None):
        super().__init__(dispatcher, parent)
        self.result = None  #: the latest (partial or final) SweepResult drawn
        self.fraction = 0.0
        self._running = False
        self._build()
        dispatcher.busy.connect(self._on_busy)

    # ------------------------------------------------------------------ layout
    def _build(self) -> None:
        box = QtWidgets.QGroupBox("Sweep")
        form = QtWidgets.QFormLayout(box)
        self.family_combo = QtWidgets.QComboBox()
        self.family_combo.addItems(FAMILIES)
        self.family_combo.setToolTip("Deformation family; the amplitude is its size "
                                     "(largest displacement in px, angle, or Infinite-MNIST α).")
        self.digits_edit = QtWidgets.QLineEdit(", ".join(map(str, STABILITY_DEFAULTS["digits"])))
        self.digits_edit.setCursorPosition(0)
        n = len(load_digits()[1])
        self.digits_edit.setToolTip(f"Bundled digit indices 0–{n - 1}, comma-separated. The subset "
                                    f"is sorted by label: index = {n // 10}·label + i.")
        self.amp_min = QtWidgets.QDoubleSpinBox()
        self.amp_max = QtWidgets.QDoubleSpinBox()
        for w in (self.amp_min, self.amp_max):
            w.setDecimals(3)
            w.setRange(0.001, 180.0)
            w.setKeyboardTracking(False)
        self.amp_count = QtWidgets.QSpinBox()
        self.amp_count.setRange(2, 40)
        self.amp_count.setValue(STABILITY_DEFAULTS["amplitude_count"])
        self.amp_count.setToolTip("Number of amplitudes, log-spaced between min and max.")
        self.seeds_spin = QtWidgets.QSpinBox()
        self.seeds_spin.setRange(1, 50)
        self.seeds_spin.setValue(STABILITY_DEFAULTS["seeds"])
        self.seeds_spin.setToolTip("Deformations per digit and amplitude (seeds 0..n−1, "
                                   "offset by the first seed).")
        self.seed0_spin = QtWidgets.QSpinBox()
        self.seed0_spin.setRange(0, 100000)
        self.seed0_spin.setToolTip("First random seed.")
        self.arch_combo = QtWidgets.QComboBox()
        self.arch_combo.addItems(list(PRESETS))
        self.arch_combo.setToolTip("Architecture preset (docs/spec.md §3.3); M4 (exp) has no NTK.")
        self.refs_spin = QtWidgets.QSpinBox()
        self.refs_spin.setRange(1, 100)
        self.refs_spin.setValue(STABILITY_DEFAULTS["reference_per_class"])
        self.refs_spin.setToolTip("Reference digits per label for the same-label / any-label levels.")
        form.addRow("family", self.family_combo)
        form.addRow("digits", self.digits_edit)
        form.addRow("amplitude min", self.amp_min)
        form.addRow("amplitude max", self.amp_max)
        form.addRow("amplitudes", self.amp_count)
        form.addRow("seeds", self.seeds_spin)
        form.addRow("first seed", self.seed0_spin)
        form.addRow("architecture", self.arch_combo)
        form.addRow("references / label", self.refs_spin)
        self.run_button = QtWidgets.QPushButton("Run sweep")
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
        controls = QtWidgets.QWidget()
        cl = QtWidgets.QVBoxLayout(controls)
        cl.addWidget(box)
        cl.addLayout(buttons)
        cl.addWidget(self.progress)
        cl.addWidget(self.info)
        cl.addStretch(1)
        controls.setMaximumWidth(350)
        self.digits_edit.setMinimumWidth(170)

        self.plot_widget = pg.PlotWidget()
        self.plot = self.plot_widget.getPlotItem()
        self.plot.setTitle("Stability to deformations — in the spirit of Fig. 1 "
                           "(not a reproduction)")
        self.plot.setLogMode(x=True, y=True)
        self.plot.showGrid(x=True, y=True, alpha=0.15)
        self.plot.setLabel("left", "relative distance ‖Φ(L<sub>τ</sub>x) − Φ(x)‖ / ‖Φ(x)‖")
        self.legend = self.plot.addLegend(offset=(-10, -10), labelTextSize="9pt",
                                          brush=pg.mkBrush(255, 255, 255, 210))
        self.curves, self.bands, self.levels, self.guides = {}, {}, {}, {}
        for key, name, ci in MAPS:
            color = PALETTE[ci]
            lo = pg.PlotDataItem(pen=pg.mkPen(_with_alpha(color, 0)))  # (pen=None: no path to fill)
            hi = pg.PlotDataItem(pen=pg.mkPen(_with_alpha(color, 0)))
            band = pg.FillBetweenItem(lo, hi, brush=pg.mkBrush(_with_alpha(color, 50)))
            self.plot.addItem(lo)
            self.plot.addItem(hi)
            self.plot.addItem(band)
            self.bands[key] = (lo, hi, band)
            self.curves[key] = self.plot.plot([], [], pen=pg.mkPen(color, width=2.5),
                                              symbol="o", symbolSize=6, symbolBrush=color,
                                              symbolPen=color, name=name)
        for key, name, ci in MAPS[:2]:
            color = PALETTE[ci]
            for level, style, label in (("same", QtCore.Qt.PenStyle.DashLine, "same-label"),
                                        ("any", QtCore.Qt.PenStyle.DotLine, "any-label")):
                line = self.plot.plot([], [], pen=pg.mkPen(color, width=1.5, style=style),
                                      name=f"{name}: mean distance to {label} digits")
                self.levels[(key, level)] = line
        for slope, ci, label in ((1.0, 6, "guide: slope 1 (Lipschitz)"),
                                 (0.5, 3, "guide: slope 1/2 (Hölder-1/2)")):
            self.guides[slope] = self.plot.plot(
                [], [], pen=pg.mkPen(PALETTE[ci], width=1.5, style=QtCore.Qt.PenStyle.DashDotLine),
                name=label)

        lay = QtWidgets.QHBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addWidget(controls)
        lay.addWidget(self.plot_widget, 1)

        self._set_family_defaults(self.family_combo.currentText())
        self.family_combo.currentTextChanged.connect(self._set_family_defaults)
        self.run_button.clicked.connect(lambda: self.refresh())
        self.cancel_button.clicked.connect(self.cancel)

    def _set_family_defaults(self, family: str) -> None:
        label, lo, hi, top = FAMILY_AMPLITUDES[family]
        for w in (self.amp_min, self.amp_max):
            w.setMaximum(top)
        self.amp_min.setValue(lo)
        self.amp_max.setValue(hi)
        self.plot.setLabel("bottom", label)

    # ------------------------------------------------------------ parameters
    def build_request(self) -> StabilityRequest:
        return StabilityRequest.from_state(self.state())

    def refresh(self, *, immediate: bool = False) -> int:
        rid = super().refresh(immediate=immediate)
        if rid:
            self.progress.setValue(0)
            self.info.setText("running…")
        return rid

    def cancel(self) -> None:
        """Stop the running sweep (at its next yield); what was drawn stays."""
        self.dispatcher.cancel(self.key)
        self.info.setText("cancelled (partial result shown)" if self.result is not None else "cancelled")

    def _on_busy(self, key: str, busy: bool) -> None:
        if key == self.key:
            self._running = busy
            self.cancel_button.setEnabled(busy)
            self.run_button.setText("Restart sweep" if busy else "Run sweep")

    # ------------------------------------------------------------ drawing
    def apply_item(self, item) -> None:
        self.fraction = float(item.fraction)
        self.progress.setValue(int(1000 * self.fraction))
        if getattr(item, "result", None) is not None:
            self._draw(item.result)

    def apply_response(self, item) -> None:
        if item is None or getattr(item, "result", None) is None:
            raise ValueError("the sweep returned no result")
        self.progress.setValue(1000)
        self._draw(item.result)
        r = item.result
        slopes = ", ".join(f"{name} {getattr(r, f'{key}_slope'):.2f}" for key, name, _ in MAPS[:2]
                           if math.isfinite(getattr(r, f"{key}_slope", math.nan)))
        self.info.setText(f"done: {len(r.amplitudes)} amplitudes × {self.seeds_spin.value()} "
                          f"seed(s) per digit; small-amplitude slopes: {slopes or 'n/a'}")

    def _draw(self, r) -> None:
        self.result = r
        amps = np.asarray(r.amplitudes, dtype=float)
        for key, name, _ in MAPS:
            mean = np.asarray(getattr(r, f"{key}_mean"), dtype=float)
            std = np.asarray(getattr(r, f"{key}_std"), dtype=float)
            ok = np.isfinite(mean) & (mean > 0)
            slope = getattr(r, f"{key}_slope", math.nan)
            label = name if not (slope is not None and math.isfinite(slope)) else \
                f"{name} (fitted small-amplitude slope {slope:.2f})"
            self.curves[key].setData(amps[ok], mean[ok])
            self._rename(self.curves[key], label)
            lo, hi, _ = self.bands[key]
            lower = np.maximum(mean - std, mean * 0.05)
            lo.setData(amps[ok], lower[ok])
            hi.setData(amps[ok], (mean + std)[ok])
        self._set_log_ticks(amps)
        xr = (amps.min(), amps.max()) if amps.size else (1, 1)
        for (key, level), line in self.levels.items():
            value = getattr(r, f"{level}_label_{key}", math.nan)
            if value is not None and math.isfinite(value) and value > 0:
                line.setData(list(xr), [value, value])
            else:
                line.setData([], [])
        self._draw_guides(r, amps)

    def _set_log_ticks(self, amps: np.ndarray) -> None:
        """x ticks at 1, 2, 5 times powers of ten (labels in data units, not log10)."""
        if not amps.size:
            return
        lo, hi = np.log10(amps.min()), np.log10(amps.max())
        major, minor = [], []
        for e in range(int(np.floor(lo)) - 1, int(np.ceil(hi)) + 1):
            for m in range(1, 10):
                v = m * 10.0 ** e
                if lo - 0.05 <= np.log10(v) <= hi + 0.05:
                    (major if m in (1, 2, 5) else minor).append((np.log10(v), f"{v:g}"))
        self.plot.getAxis("bottom").setTicks([major, [(x, "") for x, _ in minor]])

    def _draw_guides(self, r, amps: np.ndarray) -> None:
        """Guide lines of slope 1 and 1/2 through the smallest-amplitude point of
        CKN and NTK respectively, over the sweep's amplitude range."""
        for slope, key in ((1.0, "ckn"), (0.5, "ntk")):
            mean = np.asarray(getattr(r, f"{key}_mean"), dtype=float)
            ok = np.flatnonzero(np.isfinite(mean) & (mean > 0))
            if ok.size == 0:
                self.guides[slope].setData([], [])
                continue
            a0, d0 = amps[ok[0]], mean[ok[0]]
            xs = np.array([amps.min(), amps.max()])
            self.guides[slope].setData(xs, d0 * (xs / a0) ** slope)

    def _rename(self, item, name: str) -> None:
        if item.name() == name:
            return
        item.opts["name"] = name
        for sample, label in self.legend.items:
            if sample.item is item:
                label.setText(name)

    # ------------------------------------------------------------ export, sessions
    def plot_items(self) -> dict[str, object]:
        return {"stability": self.plot}

    def csv_table(self, view: str) -> tuple[list[str], list[list]]:
        if view != "stability":
            raise ValueError(f"view must be stability; got {view!r}")
        if self.result is None:
            raise ValueError("no sweep result yet")
        header, rows = self.result.to_csv_rows()
        return list(header), [list(row) for row in rows]

    def state(self) -> dict:
        text = self.digits_edit.text()
        try:
            digits = [int(t) for t in text.replace(";", ",").split(",") if t.strip()]
        except ValueError:
            digits = text  # StabilityRequest.from_state reports it
        return {"family": self.family_combo.currentText(), "digits": digits,
                "amplitude_min": self.amp_min.value(), "amplitude_max": self.amp_max.value(),
                "amplitude_count": self.amp_count.value(),
                "seeds": self.seeds_spin.value(), "first_seed": self.seed0_spin.value(),
                "architecture": self.arch_combo.currentText(),
                "reference_per_class": self.refs_spin.value()}

    def set_state(self, state: dict) -> None:
        if state.get("family") in FAMILIES:
            self.family_combo.setCurrentText(state["family"])
        if "digits" in state:
            digits = state["digits"]
            text = digits if isinstance(digits, str) else ", ".join(str(int(d)) for d in digits)
            self.digits_edit.setText(text)
            self.digits_edit.setCursorPosition(0)
        for key, w in (("amplitude_min", self.amp_min), ("amplitude_max", self.amp_max),
                       ("amplitude_count", self.amp_count), ("seeds", self.seeds_spin),
                       ("first_seed", self.seed0_spin), ("reference_per_class", self.refs_spin)):
            if key in state:
                w.setValue(state[key])
        if state.get("architecture") in PRESETS:
            self.arch_combo.setCurrentText(state["architecture"])

    def help_html(self) -> str:
        return (
            "<h3>Stability to deformations (in the spirit of Fig. 1)</h3>"
            "<p>For each digit x and amplitude a, x is deformed (family: smooth random field, "
            "translation, rotation or Infinite-MNIST α) and the relative distance "
            "‖Φ(L<sub>τ</sub>x) − Φ(x)‖ / ‖Φ(x)‖ is averaged over digits and seeds (band: ± one "
            "standard deviation) for the CKN, the convolutional NTK and raw pixels.</p>"
            "<p>Theory (Bietti &amp; Mairal, NeurIPS 2019, §4): the CKN is Lipschitz in the "
            "deformation size (slope 1 on log–log axes for small amplitudes) while the NTK is "
            "only Hölder-1/2 (slope 1/2, Prop. 12). Dashed/dotted horizontal lines give the mean "
            "distance to same-label and to any-label digits: a deformation is 'small' when it "
            "stays well below them.</p>"
            "<p>The paper's Figure 1 values are not available; this view is not a reproduction. "
            "NTK distances below 1e-4 are rounding noise (docs: spec §3.5).</p>"
        )


def _with_alpha(hex_color: str, alpha: int):
    """A QColor from ``#rrggbb`` with ``alpha`` (0–255)."""
    c = pg.mkColor(hex_color)
    c.setAlpha(alpha)
    return c


if __name__ == "__main__":  # pragma: no cover - demo / smoke test / screenshot
    import sys

    from ntkviz.gui.app import run_standalone

    sys.exit(run_standalone(QtStabilityPanel))
