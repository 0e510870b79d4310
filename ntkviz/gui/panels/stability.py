"""Stability view: relative feature distance against deformation amplitude.

"In the spirit of Fig. 1" of Bietti & Mairal (NeurIPS 2019) -- not a
reproduction (the paper's numbers are not available). Each bundled digit is
deformed by a family of deformations at growing amplitude; the mean (and
spread over digits and seeds) of ``||Phi(L_tau x) - Phi(x)|| / ||Phi(x)||`` is
drawn on log-log axes for the CKN, the NTK and plain pixels, with the mean
distance to same-label and to any-label digits as horizontal levels and the
fitted small-amplitude slopes against guide lines of slope 1 (Lipschitz) and
1/2 (Hölder-1/2).

The view observes a :class:`~ntkviz.models.stability.StabilityModel`. A sweep
is long, so it starts only on demand (``Run sweep``); it runs on the heavy pool with progress,
cancel and partial results. What is drawn always belongs to the parameters
shown: a parameter change stops the sweep and empties the plot, legend included, with a
note (:class:`~ntkviz.gui.panels._base.OnDemandPanel`).
"""
from __future__ import annotations

import math

from PySide6 import QtWidgets

from ntkviz import limits
from ntkviz.gui.controls import JobControls, combo, form_group, int_spin, line_edit
from ntkviz.gui.panels._base import OnDemandPanel
from ntkviz.gui.panels._stability_figure import MAPS, StabilityFigure
from ntkviz.models.stability import FAMILY_AXES, family_defaults

__all__ = ["QtStabilityPanel"]


class QtStabilityPanel(OnDemandPanel):
    """Stability sweep view (see the module docstring); a sweep is long: it starts on
    demand (Run sweep)."""

    run_text = "Run sweep"
    restart_text = "Restart sweep"

    def __init__(self, dispatcher, parent=None, model=None, spec=None):
        super().__init__(dispatcher, parent, model, spec)
        self._build()
        self.sync_widgets(frozenset())
        self.show_empty(self.idle_note())

    # ------------------------------------------------------------------ layout
    def _build(self) -> None:
        self.family_combo = combo(limits.FAMILIES, "Deformation family; the amplitude is its size (largest "
                                                   "displacement in px, angle, or Infinite-MNIST α).")
        n = 10 * limits.BUNDLED_PER_CLASS
        self.digits_edit = line_edit(f"Bundled digit indices 0–{n - 1}, comma-separated. The subset "
                                     f"is sorted by label: index = {n // 10}·label + i.")
        lo, hi = limits.AMPLITUDE_RANGE
        self.amp_min = QtWidgets.QDoubleSpinBox()
        self.amp_max = QtWidgets.QDoubleSpinBox()
        for w in (self.amp_min, self.amp_max):
            w.setDecimals(4)
            w.setRange(1e-4, hi)
            w.setKeyboardTracking(False)
            w.setToolTip(f"Amplitudes are log-spaced from min to max, in (0, {hi:g}] (px, degrees "
                         "or α).")
        self.amp_count = int_spin(limits.AMPLITUDE_COUNT_RANGE,
                                  "Number of amplitudes, log-spaced between min and max.")
        self.seeds_spin = int_spin(limits.SWEEP_SEEDS_RANGE, "Deformations per digit and amplitude "
                                                             "(seeds first seed, first seed + 1, …).")
        self.seed0_spin = int_spin((0, 2**31 - 1), "First random seed.")
        self.arch_combo = combo(limits.ARCH_PRESETS, "Architecture preset (as in the deformation "
                                                     "editor); M4 (exp patch kernels) has no NTK.")
        self.refs_spin = int_spin(limits.REFERENCES_RANGE, "Reference digits per label (the first ones "
                                                           "of each class) for the same-label / "
                                                           "any-label levels.")
        box = form_group("Sweep", [
            ("family", self.family_combo), ("digits", self.digits_edit), ("amplitude min", self.amp_min),
            ("amplitude max", self.amp_max), ("amplitudes", self.amp_count), ("seeds", self.seeds_spin),
            ("first seed", self.seed0_spin), ("architecture", self.arch_combo),
            ("references / label", self.refs_spin)])
        controls = JobControls(box, self.run_text, max_width=350,
                               tooltip="Compute the sweep for these parameters (the tab never "
                                       "starts one by itself: a sweep can take minutes).")
        self.use_controls(controls)
        self.digits_edit.setMinimumWidth(170)

        self.plot_widget = StabilityFigure()
        # the figure's parts, by their names of old (tests, the gallery)
        self.figure, self.plot, self.legend = self.plot_widget.ci, self.plot_widget.plot, \
            self.plot_widget.legend
        self.curves, self.bands = self.plot_widget.curves, self.plot_widget.bands
        self.levels, self.guides = self.plot_widget.levels, self.plot_widget.guides
        lay = QtWidgets.QHBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addWidget(controls)
        lay.addWidget(self.plot_widget, 1)

        self.family_combo.currentTextChanged.connect(self._on_family)
        self.digits_edit.editingFinished.connect(self._on_digits)
        for name, w in (("amplitude_min", self.amp_min), ("amplitude_max", self.amp_max),
                        ("amplitude_count", self.amp_count), ("seeds", self.seeds_spin),
                        ("first_seed", self.seed0_spin), ("reference_per_class", self.refs_spin)):
            w.valueChanged.connect(lambda value, name=name: self.write(**{name: value}))
        self.arch_combo.currentTextChanged.connect(lambda text: self.write(architecture=text))

    # ------------------------------------------------------------ parameters
    def _on_family(self, family: str) -> None:
        self.write(family=family, **family_defaults(family))

    def _on_digits(self) -> None:
        from ntkviz.models.kernel_curves import parse_int_list

        try:
            digits = parse_int_list("digits", self.digits_edit.text().replace(";", ","))
        except ValueError as exc:
            self._report_error(str(exc))
            self.sync_widgets(frozenset({"digits"}))
            return
        self.write(digits=digits)

    def sync_widgets(self, changed: frozenset) -> None:
        p = self.model.params
        widgets = ((self.family_combo, p.family), (self.arch_combo, p.architecture),
                   (self.amp_min, p.amplitude_min), (self.amp_max, p.amplitude_max),
                   (self.amp_count, p.amplitude_count), (self.seeds_spin, p.seeds),
                   (self.seed0_spin, p.first_seed), (self.refs_spin, p.reference_per_class))
        for w, value in widgets:
            w.blockSignals(True)
            if isinstance(w, QtWidgets.QComboBox):
                w.setCurrentText(value)
            else:
                w.setValue(value)
            w.blockSignals(False)
        text = ", ".join(map(str, p.digits))
        if self.digits_edit.text() != text:
            self.digits_edit.setText(text)
            self.digits_edit.setCursorPosition(0)
        self.plot.setLabel("bottom", FAMILY_AXES[p.family][0])

    # ------------------------------------------------------------ drawing
    def show_empty(self, note: str) -> None:
        super().show_empty(note)
        self.plot_widget.show_nothing(note)

    def apply_response(self, r) -> None:
        """Draw a (partial or final) ``SweepResult`` of these parameters."""
        if r.complete:
            self.progress.setValue(1000)
            slopes = ", ".join(f"{name} {getattr(r, f'{key}_slope'):.2f}"
                               for key, name, _ in MAPS[:2]
                               if math.isfinite(getattr(r, f"{key}_slope", math.nan)))
            self.info.setText(f"done: {len(r.amplitudes)} amplitudes × {r.n_seeds} "
                              f"seed(s) per digit; small-amplitude slopes: {slopes or 'n/a'}")
        self.plot_widget.draw(r)

    # ------------------------------------------------------------ export
    def plot_items(self) -> dict[str, object]:
        return {"stability": self.figure}

    def help_html(self) -> str:
        return (
            "<h3>Stability to deformations (in the spirit of Fig. 1)</h3>"
            "<p>For each digit x and amplitude a, x is deformed (family: smooth random field, "
            "translation, rotation or Infinite-MNIST α) and the relative distance "
            "‖Φ(L<sub>τ</sub>x) − Φ(x)‖ / ‖Φ(x)‖ is averaged over digits and seeds (band: ± one "
            "standard deviation) for the CKN, the convolutional NTK and raw pixels.</p>"
            "<p>Theory (Bietti &amp; Mairal, NeurIPS 2019, §4): the CKN is Lipschitz in the "
            "deformation size (slope 1 on log–log axes for small amplitudes) while the NTK is "
            "only Hölder-½ (slope ½, Prop. 12). Dashed/dotted horizontal lines give the mean "
            "distance to same-label and to any-label digits (the 'levels'): a deformation is "
            "'small' when it stays well below them. The legend's slopes are least-squares fits "
            "of log distance against log amplitude over the three smallest amplitudes; the "
            "dash-dotted guides have slope 1 and ½.</p>"
            "<p>The paper's Figure 1 values are not available; this view is not a reproduction. "
            "NTK distances below 1e-4 are rounding noise (k(x,x) + k(y,y) − 2k(x,y) "
            "cancels).</p>"
            "<p>A sweep starts only with <i>Run sweep</i>; changing a parameter clears the "
            "plot, so what is drawn always belongs to the parameters shown.</p>"
        )


if __name__ == "__main__":  # pragma: no cover - demo / smoke test / screenshot
    import sys

    from ntkviz.gui.app import run_standalone

    sys.exit(run_standalone(QtStabilityPanel))
