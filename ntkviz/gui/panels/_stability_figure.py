"""The amplitude figure of the Stability tab: relative feature distance against the
deformation (or noise) amplitude on log–log axes for the maps compared (CKN, NTK,
scattering transform, Fourier modulus, pixels: mean ± one standard deviation), their
same-label and any-label levels, guides of slope 1 and 1/2 or, instead, the stability
theorems' bound forms fitted to the CKN and NTK points, and the legend below.

:class:`StabilityFigure` draws a :class:`ntkviz.core.deformations.stability.SweepResult`;
it holds no parameters. An empty figure has no ticks and a note in the middle.
"""
from __future__ import annotations

import math
import textwrap

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore

from ntkviz.gui.plot_style import (PALETTE, DecadeLogAxis, empty_note, grid_below, set_label, set_title,
                                   style_legend)
from ntkviz.gui.ticks import log_tick_strings

__all__ = ["StabilityFigure", "PowerLogAxis", "MAPS", "LEVELS"]

#: (map, legend name, colour index), in the registry's order
MAPS = (("ckn", "CKN", 0), ("ntk", "NTK", 1), ("scattering", "scattering", 4),
        ("fourier", "Fourier modulus", 5), ("pixels", "pixels", 2))
#: the levels drawn for the maps that have them: (key, dash, legend name)
LEVELS = (("same", QtCore.Qt.PenStyle.DashLine, "same-label"),
          ("any", QtCore.Qt.PenStyle.DotLine, "any-label"))
#: the maps whose bound forms are fitted
FITTED = ("ckn", "ntk")
#: smallest height of the plot area (inside the axes), in pixels
PLOT_AREA_MIN = 200
#: characters per line of the fits' note, and its most lines
NOTE_WIDTH, NOTE_LINES = 110, 3
_COLOR = {key: PALETTE[ci] for key, _, ci in MAPS}
#: the y-axis title of a deformation family (False) and of additive noise (True)
Y_TITLES = {False: "‖Φ(L<sub>τ</sub>x) − Φ(x)‖ / ‖Φ(x)‖", True: "‖Φ(x′) − Φ(x)‖ / ‖Φ(x)‖"}


class StabilityFigure(pg.GraphicsLayoutWidget):
    """The plot (``plot``) above its legend (``legend``) and the fits' note (``note``);
    ``curves``, ``bands``, ``levels``, ``guides``, ``fits`` and ``crossing`` are its
    items per map."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.figure = self.ci
        self.plot = self.figure.addPlot(row=0, col=0,
                                        axisItems={"left": PowerLogAxis(orientation="left"),
                                                   "bottom": DecadeLogAxis(orientation="bottom")})
        self.plot.setTitle("Stability to deformations: distance against amplitude")
        self.plot.setLogMode(x=True, y=True)
        self.plot.showGrid(x=True, y=True, alpha=0.15)
        # the formula alone: with "relative distance" before it the title was as long as the
        # axis of a 640×400 export and touched the top edge (the help names it)
        self.plot.setLabel("left", Y_TITLES[False])
        for side in ("left", "bottom"):
            self.plot.getAxis(side).enableAutoSIPrefix(False)
        grid_below(self.plot)
        # the legend sits below the plot, covering no data; one entry per map drawn, per kind
        # of level (in the map's colour), per guide and per fit
        self.legend = style_legend(pg.LegendItem(labelTextSize="9pt", colCount=3))
        # scale with the export (pyqtgraph's legends ignore the painter's scale by default)
        self.legend.setFlag(self.legend.GraphicsItemFlag.ItemIgnoresTransformations, False)
        self.figure.addItem(self.legend, row=1, col=0)
        self.note = self.figure.addLabel("", row=2, col=0, size="8pt", justify="left")
        self.curves, self.bands, self.levels, self.guides, self.fits = {}, {}, {}, {}, {}
        for key, name, _ in MAPS:
            color = _COLOR[key]
            lo_item = pg.PlotDataItem(pen=pg.mkPen(_with_alpha(color, 0)))  # (pen=None: no path to fill)
            hi_item = pg.PlotDataItem(pen=pg.mkPen(_with_alpha(color, 0)))
            band = pg.FillBetweenItem(lo_item, hi_item, brush=pg.mkBrush(_with_alpha(color, 50)))
            for item in (lo_item, hi_item, band):
                self.plot.addItem(item)
            self.bands[key] = (lo_item, hi_item, band)
            self.curves[key] = self.plot.plot([], [], pen=pg.mkPen(color, width=2.5),
                                              symbol="o", symbolSize=6, symbolBrush=color,
                                              symbolPen=color, name=name)
        self._level_samples = {}
        for level, style, label in LEVELS:
            for key, _, _ in MAPS:
                self.levels[(key, level)] = self.plot.plot(
                    [], [], pen=pg.mkPen(_COLOR[key], width=1.5, style=style))
            # the legend's sample of the level lines of every map (they share a dash)
            self._level_samples[level] = (pg.PlotDataItem(pen=pg.mkPen("#555555", width=1.5, style=style)),
                                          f"{label} level (map's colour)")
        self._guide_labels = {}
        for slope, ci, label in ((1.0, 6, "slope 1 (Lipschitz)"),
                                 (0.5, 3, "slope ½ (Hölder-½)")):
            self.guides[slope] = self.plot.plot(
                [], [], pen=pg.mkPen(PALETTE[ci], width=1.5, style=QtCore.Qt.PenStyle.DashDotLine))
            self._guide_labels[slope] = label
        for key in FITTED:  # dash-dot-dot: the levels are dashed and dotted in the maps' colours
            self.fits[key] = self.plot.plot([], [], pen=pg.mkPen(_COLOR[key], width=2.0,
                                                                 style=QtCore.Qt.PenStyle.DashDotDotLine))
        self._fit_sample = pg.PlotDataItem(pen=pg.mkPen("#555555", width=2.0,
                                                        style=QtCore.Qt.PenStyle.DashDotDotLine))
        self.crossing = self.plot.plot([], [], pen=None, symbol="star", symbolSize=14,
                                       symbolBrush=_COLOR["ntk"], symbolPen="k")
        self.empty = empty_note(self.plot, "")
        self._set_minimum_size()

    def _set_minimum_size(self) -> None:
        """Never narrower or shorter than the title, axes and the largest legend and note
        need (every map, level, guide and fit), plus a plot area of :data:`PLOT_AREA_MIN` px:
        a smaller view would cut the figure."""
        for key, name, _ in MAPS:  # the longest labels: with the fitted slope
            self._rename(self.curves[key], f"{name} (slope 0.00)")
        self._fill_legend(tuple(key for key, _, _ in MAPS), True, True)
        self.note.setText("<br>".join(["x"] * NOTE_LINES), size="8pt")
        self.legend.setMinimumWidth(
            self.legend.layout.effectiveSizeHint(QtCore.Qt.SizeHint.PreferredSize).width())
        need = self.figure.effectiveSizeHint(QtCore.Qt.SizeHint.MinimumSize)
        self.setMinimumSize(math.ceil(need.width()) + 4, math.ceil(need.height()) + PLOT_AREA_MIN)
        self.note.setText("", size="8pt")
        for key, name, _ in MAPS:
            self._rename(self.curves[key], name)
        self._fill_legend(("ckn", "ntk", "pixels"), False, False)  # as drawn before any result

    def _fill_legend(self, maps, fits: bool, crossing: bool, guides=None) -> None:
        """The legend's entries: the maps drawn, the levels, the guides (those of the slopes
        in ``guides``; None: both), the fits."""
        self.legend.clear()
        for key, _, _ in MAPS:
            if key in maps:
                self.legend.addItem(self.curves[key], self.curves[key].name())
        for sample, label in self._level_samples.values():
            self.legend.addItem(sample, label)
        for slope, guide in self.guides.items():
            if guides is None or slope in guides:
                self.legend.addItem(guide, self._guide_labels[slope])
        if fits:  # one entry for both fits, as for the levels
            self.legend.addItem(self._fit_sample, "bound fits (map's colour)")
        if crossing:
            self.legend.addItem(self.crossing, "NTK fit: √ → linear")

    def set_note(self, text: str) -> None:
        """The note in the middle of the plot while it shows no data ("" for none)."""
        self.empty.set_text(text)

    def show_nothing(self, note: str) -> None:
        """Nothing drawn, no amplitude ticks, and ``note`` in the middle."""
        for key, _, _ in MAPS:
            self.curves[key].setData([], [])
            for item in self.bands[key][:2]:
                item.setData([], [])
        for line in (*self.levels.values(), *self.guides.values(), *self.fits.values(), self.crossing):
            line.setData([], [])
        self.note.setText("", size="8pt")
        self.plot.getAxis("bottom").setTicks(None)  # no ticks of an amplitude range not drawn
        self.set_note(note)

    def draw(self, r, overlays=None) -> None:
        """Draw the sweep result ``r`` (partial or final): means with ± one standard
        deviation bands, the fitted slopes in the legend, the levels, the guides and, given
        ``overlays`` (``{map: BoundOverlay}``), the fitted bound forms."""
        self.set_note("")
        amps = np.asarray(r.amplitudes, dtype=float)
        noise = r.family == "noise"
        set_title(self.plot, "Stability to additive noise: distance against amplitude" if noise
                  else "Stability to deformations: distance against amplitude")
        set_label(self.plot, "left", Y_TITLES[noise])
        for key, name, _ in MAPS:
            curve = r.curve(key) if key in r.maps else None
            mean = np.asarray(curve.mean if curve else np.full(amps.size, np.nan), dtype=float)
            std = np.asarray(curve.std if curve else np.full(amps.size, np.nan), dtype=float)
            ok = np.isfinite(mean) & (mean > 0)
            if curve is None:
                label = name
            elif not np.any(ok):
                label = f"{name}: not defined (exp layers)" if key == "ntk" else f"{name}: no value > 0"
            elif math.isfinite(curve.slope):
                label = f"{name} (slope {curve.slope:.2f})"
            else:
                label = name
            self.curves[key].setData(amps[ok], mean[ok])
            self._rename(self.curves[key], label)
            lo, hi, _ = self.bands[key]
            lower = np.maximum(mean - std, mean * 0.05)
            lo.setData(amps[ok], lower[ok])
            hi.setData(amps[ok], (mean + std)[ok])
            for level in ("same", "any"):
                value = getattr(curve, f"{level}_label", math.nan) if curve else math.nan
                line = self.levels[(key, level)]
                if amps.size and math.isfinite(value) and value > 0:
                    line.setData([amps.min(), amps.max()], [value, value])
                else:
                    line.setData([], [])
        self._set_log_ticks(amps)
        self._draw_fits(overlays or {})
        fitted = any(o.fit is not None for o in (overlays or {}).values())
        # the fitted forms take the place of the slope guides (one reference to read against)
        self._draw_guides(r, amps, shown=not fitted)
        drawn = [slope for slope, guide in self.guides.items() if guide.xData is not None and len(guide.xData)]
        self._fill_legend(r.maps, fitted, bool(self.crossing.xData is not None and len(self.crossing.xData)),
                          drawn)

    def _draw_fits(self, overlays: dict) -> None:
        """The fitted forms (dashed, in the map's colour), the NTK fit's √ → linear
        crossover (a star on the fitted curve, where ‖∇τ‖∞ = (C/C′)² within the sweep) and
        the note with the fitted coefficients."""
        lines = []
        self.crossing.setData([], [])
        for key in FITTED:
            overlay = overlays.get(key)
            if overlay is None or overlay.fit is None:
                self.fits[key].setData([], [])
            else:
                keep = overlay.curve_values > 0  # (a log axis)
                self.fits[key].setData(overlay.curve_x[keep], overlay.curve_values[keep])
                if key == "ntk" and math.isfinite(overlay.crossover_x):
                    y = 2.0 * overlay.fit.coefficients[1] * overlay.crossover  # both terms equal there
                    self.crossing.setData([overlay.crossover_x], [y])
            if overlay is not None:
                lines.append(overlay.describe())
        if any(overlay.fit is not None for overlay in overlays.values()):
            lines.insert(0, "Dash-dot-dot: bound forms fitted by least squares to the plotted points (fits, "
                            "not the theorems' constants).")
        wrapped = [w for line in lines for w in textwrap.wrap(line, NOTE_WIDTH)]
        self.note.setText("<br>".join(wrapped[:NOTE_LINES]), size="8pt")

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

    def _draw_guides(self, r, amps: np.ndarray, shown: bool = True) -> None:
        """Guide lines of slope 1 and 1/2 through the smallest-amplitude point of
        CKN and NTK respectively, over the sweep's amplitude range (none unless ``shown``)."""
        if not shown:
            for guide in self.guides.values():
                guide.setData([], [])
            return
        tops = [float(np.nanmax(r.curve(k).mean)) for k in r.maps if np.any(np.isfinite(r.curve(k).mean))]
        for slope, key in ((1.0, "ckn"), (0.5, "ntk")):
            mean = np.asarray(r.curve(key).mean if key in r.maps else [], dtype=float)
            ok = np.flatnonzero(np.isfinite(mean) & (mean > 0))
            if ok.size == 0:
                self.guides[slope].setData([], [])
                continue
            a0, d0 = amps[ok[0]], mean[ok[0]]
            # end where the guide leaves the data's range (it must not set the y axis)
            top = 2.0 * max(tops)
            end = min(amps.max(), a0 * (top / d0) ** (1.0 / slope)) if d0 > 0 else amps.max()
            xs = np.array([amps.min(), max(end, amps.min())])
            self.guides[slope].setData(xs, d0 * (xs / a0) ** slope)

    def _rename(self, item, name: str) -> None:
        item.opts["name"] = name


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
