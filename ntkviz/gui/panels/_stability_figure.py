"""The stability figure: relative feature distance against deformation amplitude on
log–log axes for the CKN, the NTK and pixels (mean ± one standard deviation), the
same-label and any-label levels, guides of slope 1 and 1/2, and the legend below.

:class:`StabilityFigure` draws a :class:`ntkviz.core.deformations.stability.SweepResult`;
it holds no parameters. An empty figure has no ticks and a note in the middle.
"""
from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore

from ntkviz.gui.plot_style import PALETTE, DecadeLogAxis, empty_note, grid_below, style_legend
from ntkviz.gui.ticks import log_tick_strings

__all__ = ["StabilityFigure", "PowerLogAxis", "MAPS", "LEVELS"]

#: (key in SweepResult, legend name, colour index)
MAPS = (("ckn", "CKN", 0), ("ntk", "NTK", 1), ("pixel", "pixels", 2))
#: the levels drawn for CKN and NTK: (key, dash, legend name)
LEVELS = (("same", QtCore.Qt.PenStyle.DashLine, "same-label"),
          ("any", QtCore.Qt.PenStyle.DotLine, "any-label"))
#: smallest height of the plot area (inside the axes), in pixels
PLOT_AREA_MIN = 200


class StabilityFigure(pg.GraphicsLayoutWidget):
    """The plot (``plot``) above its legend (``legend``); ``curves``, ``bands``,
    ``levels`` and ``guides`` are its items per map."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.figure = self.ci
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
                                 (0.5, 3, "slope ½ (Hölder-½)")):
            self.guides[slope] = self.plot.plot(
                [], [], pen=pg.mkPen(PALETTE[ci], width=1.5, style=QtCore.Qt.PenStyle.DashDotLine))
            self.legend.addItem(self.guides[slope], label)
        self.note = empty_note(self.plot, "")
        self.legend.setMinimumWidth(
            self.legend.layout.effectiveSizeHint(QtCore.Qt.SizeHint.PreferredSize).width())
        # never narrower or shorter than the title, axes and legend need (a smaller view
        # would cut the figure), plus a plot area of PLOT_AREA_MIN px
        need = self.figure.effectiveSizeHint(QtCore.Qt.SizeHint.MinimumSize)
        self.setMinimumSize(math.ceil(need.width()) + 4, math.ceil(need.height()) + PLOT_AREA_MIN)

    def set_note(self, text: str) -> None:
        """The note in the middle of the plot while it shows no data ("" for none)."""
        self.note.set_text(text)

    def show_nothing(self, note: str) -> None:
        """Nothing drawn, no amplitude ticks, and ``note`` in the middle."""
        for key, _, _ in MAPS:
            self.curves[key].setData([], [])
            for item in self.bands[key][:2]:
                item.setData([], [])
        for line in (*self.levels.values(), *self.guides.values()):
            line.setData([], [])
        self.plot.getAxis("bottom").setTicks(None)  # no ticks of an amplitude range not drawn
        self.set_note(note)

    def draw(self, r) -> None:
        """Draw the sweep result ``r`` (partial or final): means with ± one standard
        deviation bands, the fitted slopes in the legend, the levels and the guides."""
        self.set_note("")
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
