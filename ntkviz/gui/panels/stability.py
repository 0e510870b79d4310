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
shown: a parameter change stops the sweep and clears the plot (with a note).
"""
from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from ntkviz import limits
from ntkviz.gui.panels._base import OnDemandPanel
from ntkviz.gui.controls import JobControls, combo, form_group, int_spin, line_edit
from ntkviz.gui.plot_style import PALETTE, DecadeLogAxis, ViewNote, grid_below, style_legend
from ntkviz.gui.ticks import log_tick_strings
from ntkviz.models.stability import FAMILY_AXES, StabilityModel, family_defaults

__all__ = ["QtStabilityPanel", "MAPS"]

#: (key in SweepResult, legend name, colour index)
MAPS = (("ckn", "CKN", 0), ("ntk", "NTK", 1), ("pixel", "pixels", 2))
#: the levels drawn for CKN and NTK: (key, dash, legend name)
LEVELS = (("same", QtCore.Qt.PenStyle.DashLine, "same-label"),
          ("any", QtCore.Qt.PenStyle.DotLine, "any-label"))
#: smallest height of the plot area (inside the axes), in pixels
PLOT_AREA_MIN = 200

class QtStabilityPanel(OnDemandPanel):
    """Stability sweep view (see the module docstring); a sweep is long: it starts on
    demand (Run sweep)."""

    key = "stability"
    title = "Stability"
    model_cls = StabilityModel
    run_text = "Run sweep"
    restart_text = "Restart sweep"

    def __init__(self, dispatcher, parent=None, model=None):
        super().__init__(dispatcher, parent, model)
        self.result = None  #: the latest (partial or final) SweepResult drawn, for these parameters
        self.fraction = 0.0
        self._build()
        self.sync_widgets(frozenset())
        self._clear("press Run sweep to compute")

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

        self.plot_widget = pg.GraphicsLayoutWidget()
        self.figure = self.plot_widget.ci
        self.plot = self.figure.addPlot(row=0, col=0,
                                        axisItems={"left": PowerLogAxis(orientation="left"),
                                                   "bottom": DecadeLogAxis(orientation="bottom")})
        self.plot.setTitle("Stability to deformations — in the spirit of Fig. 1 "
                           "(not a reproduction)")
        self.plot.setLogMode(x=True, y=True)
        self.plot.showGrid(x=True, y=True, alpha=0.15)
        # the formula alone: with "relative distance" before it the title was as long as the
        # axis of a 640×400 export and touched the top edge (the help names it)
        self.plot.setLabel("left", "‖Φ(L<sub>τ</sub>x) − Φ(x)‖ / ‖Φ(x)‖")
        for side in ("left", "bottom"):
            self.plot.getAxis(side).enableAutoSIPrefix(False)
        grid_below(self.plot)
        # the legend sits below the plot, covering no data; one entry per map, per kind of
        # level (in the map's colour) and per guide: three rows at 640 px
        self.legend = style_legend(pg.LegendItem(labelTextSize="9pt", colCount=3))
        # scale with the export (pyqtgraph's legends ignore the painter's scale by default)
        self.legend.setFlag(self.legend.GraphicsItemFlag.ItemIgnoresTransformations, False)
        self.figure.addItem(self.legend, row=1, col=0)
        self.curves, self.bands, self.levels, self.guides = {}, {}, {}, {}
        for key, name, ci in MAPS:
            color = PALETTE[ci]
            lo_item = pg.PlotDataItem(pen=pg.mkPen(_with_alpha(color, 0)))  # (pen=None: no path to fill)
            hi_item = pg.PlotDataItem(pen=pg.mkPen(_with_alpha(color, 0)))
            band = pg.FillBetweenItem(lo_item, hi_item, brush=pg.mkBrush(_with_alpha(color, 50)))
            for item in (lo_item, hi_item, band):
                self.plot.addItem(item)
            self.bands[key] = (lo_item, hi_item, band)
            self.curves[key] = self.plot.plot([], [], pen=pg.mkPen(color, width=2.5),
                                              symbol="o", symbolSize=6, symbolBrush=color,
                                              symbolPen=color, name=name)
            self.legend.addItem(self.curves[key], name)
        for level, style, label in LEVELS:
            for key, name, ci in MAPS[:2]:
                line = self.plot.plot([], [], pen=pg.mkPen(PALETTE[ci], width=1.5, style=style))
                self.levels[(key, level)] = line
            # the legend's sample of the level lines of every map (they share a dash)
            self.legend.addItem(pg.PlotDataItem(pen=pg.mkPen("#555555", width=1.5, style=style)),
                                f"{label} level (map's colour)")
        for slope, ci, label in ((1.0, 6, "slope 1 (Lipschitz)"),
                                 (0.5, 3, "slope 1/2 (Hölder-1/2)")):
            self.guides[slope] = self.plot.plot(
                [], [], pen=pg.mkPen(PALETTE[ci], width=1.5, style=QtCore.Qt.PenStyle.DashDotLine))
            self.legend.addItem(self.guides[slope], label)
        self.note = ViewNote(self.plot.getViewBox())
        self.legend.setMinimumWidth(
            self.legend.layout.effectiveSizeHint(QtCore.Qt.SizeHint.PreferredSize).width())
        # never narrower or shorter than the title, axes and legend need (a smaller view
        # would cut the figure), plus a plot area of PLOT_AREA_MIN px
        need = self.figure.effectiveSizeHint(QtCore.Qt.SizeHint.MinimumSize)
        self.plot_widget.setMinimumSize(math.ceil(need.width()) + 4,
                                        math.ceil(need.height()) + PLOT_AREA_MIN)

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
        if changed:
            # what is drawn must belong to the parameters shown: stop and clear
            self.dispatcher.cancel(self.key)
            self._clear("parameters changed: press Run sweep to compute")

    def _clear(self, note: str) -> None:
        self.result = None
        self.response = None
        for key, _, _ in MAPS:
            self.curves[key].setData([], [])
            for item in self.bands[key][:2]:
                item.setData([], [])
        for line in (*self.levels.values(), *self.guides.values()):
            line.setData([], [])
        self.plot.getAxis("bottom").setTicks(None)  # no ticks of an amplitude range not drawn
        self.progress.setValue(0)
        self.info.setText(note)
        self._set_note(note)

    def _set_note(self, text: str) -> None:
        self.note.set_text(text)

    def refresh(self, *, immediate: bool = False) -> int:
        rid = super().refresh(immediate=immediate)
        if rid:
            self._clear("running…")
            self._set_note("")
        return rid

    def cancel(self) -> None:
        """Stop the running sweep (at its next yield): the partial result of these
        parameters stays, or an empty plot with a note if there is none yet."""
        super().cancel()
        if self.result is not None:
            self.info.setText(f"cancelled: partial result ({len(self.result.amplitudes)} of "
                              f"{self.model.params.amplitude_count} amplitudes)")
        else:
            self._clear("cancelled before the first amplitude: nothing to show; "
                        "press Run sweep to compute")

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
        self.info.setText(f"done: {len(r.amplitudes)} amplitudes × {r.n_seeds} "
                          f"seed(s) per digit; small-amplitude slopes: {slopes or 'n/a'}")

    def _draw(self, r) -> None:
        self.result = r
        self._set_note("")
        amps = np.asarray(r.amplitudes, dtype=float)
        for key, name, _ in MAPS:
            mean = np.asarray(getattr(r, f"{key}_mean"), dtype=float)
            std = np.asarray(getattr(r, f"{key}_std"), dtype=float)
            ok = np.isfinite(mean) & (mean > 0)
            slope = getattr(r, f"{key}_slope", math.nan)
            if not np.any(ok):
                label = f"{name}: not defined (exp layers)" if key == "ntk" else name
            elif slope is not None and math.isfinite(slope):
                label = f"{name} (slope {slope:.2f} at small τ)"
            else:
                label = name
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
        powers = amps.min() < 1e-3 or amps.max() >= 1e4  # else plain decimals read best
        major, minor = [], []
        for e in range(int(np.floor(lo)) - 1, int(np.ceil(hi)) + 1):
            for m in range(1, 10):
                v = m * 10.0 ** e
                if lo - 0.05 <= np.log10(v) <= hi + 0.05:
                    text = log_tick_strings([np.log10(v)])[0] if powers else f"{v:g}"
                    (major if m in (1, 2, 5) else minor).append((np.log10(v), text))
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
            # end where the guide leaves the data's range (it must not set the y axis)
            top = 2.0 * max(float(np.nanmax(np.asarray(getattr(r, f"{k}_mean"), dtype=float)))
                            for k, _, _ in MAPS if np.any(np.isfinite(getattr(r, f"{k}_mean"))))
            end = min(amps.max(), a0 * (top / d0) ** (1.0 / slope)) if d0 > 0 else amps.max()
            xs = np.array([amps.min(), max(end, amps.min())])
            self.guides[slope].setData(xs, d0 * (xs / a0) ** slope)

    def _rename(self, item, name: str) -> None:
        if item.name() == name:
            return
        item.opts["name"] = name
        for sample, label in self.legend.items:
            if sample.item is item:
                label.setText(name)

    # ------------------------------------------------------------ export
    def plot_items(self) -> dict[str, object]:
        return {"stability": self.figure}

    def csv_table(self, view: str) -> tuple[list[str], list[list]]:
        if view != "stability":
            raise ValueError(f"view must be stability, got {view!r}")
        if self.result is None:
            raise ValueError("no sweep result for these parameters yet (press Run sweep)")
        header, rows = self.result.to_csv_rows()
        return list(header), [list(row) for row in rows]

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
            "distance to same-label and to any-label digits (the 'levels'): a deformation is "
            "'small' when it stays well below them. The legend's slopes are least-squares fits "
            "of log distance against log amplitude over the three smallest amplitudes; the "
            "dash-dotted guides have slope 1 and 1/2.</p>"
            "<p>The paper's Figure 1 values are not available; this view is not a reproduction. "
            "NTK distances below 1e-4 are rounding noise (k(x,x) + k(y,y) − 2k(x,y) "
            "cancels).</p>"
            "<p>A sweep starts only with <i>Run sweep</i>; changing a parameter clears the "
            "plot, so what is drawn always belongs to the parameters shown.</p>"
        )


class PowerLogAxis(DecadeLogAxis):
    """A log axis labelled 10ⁿ (or m·10ⁿ) everywhere: no "1" beside "10¹"."""

    def logTickStrings(self, values, scale, spacing):  # noqa: N802 - pyqtgraph API
        strings = super().logTickStrings(values, scale, spacing)
        return [text if s else "" for s, text in zip(strings, log_tick_strings(values))]


def _with_alpha(hex_color: str, alpha: int):
    """A QColor from ``#rrggbb`` with ``alpha`` (0–255)."""
    c = pg.mkColor(hex_color)
    c.setAlpha(alpha)
    return c


if __name__ == "__main__":  # pragma: no cover - demo / smoke test / screenshot
    import sys

    from ntkviz.gui.app import run_standalone

    sys.exit(run_standalone(QtStabilityPanel))
