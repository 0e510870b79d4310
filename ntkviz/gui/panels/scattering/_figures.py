"""The Scattering tab's figures: pure drawing of a :class:`ntkviz.jobs.ScatteringViewResponse`
(no parameters, no maths: the job lays the mosaics out and computes the contours).

* :class:`MosaicPlot` -- a grid of small images drawn as one picture (tiles separated by
  a transparent gap), a labelled colour bar, the rows and columns named on the axes: the
  wavelets in space, the coefficients of order 1 and 2;
* :class:`FrequencyFigure` -- the Littlewood-Paley sum on the frequency plane with the
  half-maximum contours of the filters, the legend below;
* :class:`LittlewoodPaleyFigure` -- the sum along the two frequency axes with the band of
  its frame bounds;
* :class:`CounterexampleFigure` -- log-log distances of the dilated Gabor probe (against s,
  per omega0; or against omega0 at the largest s), fitted exponents in the legend.
"""
from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from ntkviz.gui.panels.deformation._images import IMAGE_MARGINS
from ntkviz.gui.plot_style import (PALETTE, DecadeLogAxis, declare_quantity, empty_note,
                                   grid_below, style_legend, use_angle_axis, use_tick_style)
from ntkviz.gui.ticks import pi_text

__all__ = ["MosaicPlot", "FrequencyFigure", "LittlewoodPaleyFigure", "CounterexampleFigure",
           "omega_label"]

#: smallest pixel width of a colour bar's tick-label column
BAR_AXIS_WIDTH = 46


def omega_label(omega: float) -> str:
    """A wave number as read: ``π/4`` when it is k·π/d (d ≤ 8) to 1e-12, else 4 digits."""
    for den in range(1, 9):
        num = omega * den / math.pi
        if abs(num - round(num)) < 1e-12 * max(1.0, abs(num)) and round(num) != 0:
            return pi_text(int(round(num)), den)
    return f"{omega:.4g}"


def _image_plot(plot: pg.PlotItem) -> pg.ImageItem:
    """An aspect-locked plot (rows down) holding one image, no mouse, no menu."""
    plot.setContentsMargins(*IMAGE_MARGINS)
    plot.setAspectLocked(True)
    plot.invertY(True)
    plot.hideButtons()
    plot.setMenuEnabled(False)
    plot.setMouseEnabled(x=False, y=False)
    plot.getViewBox().setDefaultPadding(0.0)
    img = pg.ImageItem(axisOrder="row-major")
    plot.addItem(img)
    for side in ("left", "bottom"):
        axis = plot.getAxis(side)
        axis.setPen(pg.mkPen("k"))
        axis.setTextPen(pg.mkPen("k"))
    return img


def _colour_bar(img: pg.ImageItem, plot: pg.PlotItem, cmap, label: str) -> pg.ColorBarItem:
    bar = pg.ColorBarItem(values=(0, 1), colorMap=cmap, label=label, interactive=False, width=12,
                          colorMapMenu=False)
    bar.setImageItem(img, insert_in=plot)
    axis = bar.getAxis("right")
    use_tick_style(axis)
    axis.setStyle(autoExpandTextSpace=True)
    axis.setWidth(None)
    axis.setMinimumWidth(BAR_AXIS_WIDTH)
    return bar


class MosaicPlot:
    """``plot`` (a ``PlotItem`` with ``DecadeLogAxis`` axes) showing a mosaic image
    (:func:`ntkviz.jobs._scattering.mosaic`) with a colour bar; :meth:`draw` names the
    tiles' rows and columns on the left and bottom axes."""

    def __init__(self, layout: pg.GraphicsLayout, row: int, col: int, cmap: str, bar_label: str,
                 xlabel: str, ylabel: str):
        self.plot = layout.addPlot(row=row, col=col, axisItems={"left": DecadeLogAxis("left"),
                                                               "bottom": DecadeLogAxis("bottom")})
        self.image = _image_plot(self.plot)
        self.plot.setLabel("bottom", xlabel)
        self.plot.setLabel("left", ylabel)
        self.bar = _colour_bar(self.image, self.plot, pg.colormap.get(cmap), bar_label)
        self.note = empty_note(self.plot, "computing…")

    def draw(self, image, levels, tile: tuple[int, int], gap: int, rows: list[str],
             cols: list[str], title: str) -> None:
        """Draw ``image`` (a mosaic of ``tile = (h, w)`` tiles) at colour ``levels``, the
        rows named ``rows`` and the columns ``cols`` at the tiles' centres."""
        h, w = tile
        self.image.setImage(np.asarray(image), autoLevels=False)
        self.bar.setVisible(True)
        self.bar.setLevels(tuple(float(v) for v in levels))
        self.plot.getAxis("left").setTicks([[(r * (h + gap) + h / 2, t) for r, t in enumerate(rows)]])
        self.plot.getAxis("bottom").setTicks([[(c * (w + gap) + w / 2, t) for c, t in enumerate(cols)]])
        self.plot.showAxis("bottom", bool(cols))
        self.plot.setRange(xRange=(0, image.shape[1]), yRange=(0, image.shape[0]), padding=0)
        self.plot.setTitle(title)

    def clear(self, note: str) -> None:
        """No image, no colour bar (no levels to show), and ``note`` in the middle."""
        self.image.clear()
        self.bar.setVisible(False)
        self.plot.getAxis("left").setTicks([[]])
        self.plot.getAxis("bottom").setTicks([[]])
        self.note.set_text(note)


def _with_legend(layout: pg.GraphicsLayout, plot: pg.PlotItem, columns: int) -> pg.LegendItem:
    """A legend in its own row below ``plot`` (it covers no data); it scales with exports."""
    legend = style_legend(pg.LegendItem(labelTextSize="9pt", colCount=columns))
    legend.setFlag(legend.GraphicsItemFlag.ItemIgnoresTransformations, False)
    layout.addItem(legend, row=1, col=0)
    legend.setSizePolicy(QtWidgets.QSizePolicy.Policy.Preferred, QtWidgets.QSizePolicy.Policy.Maximum)
    return legend


class FrequencyFigure:
    """The Littlewood–Paley sum ``A(ω)`` on ``[−π, π)²`` (colour) with the half-maximum
    contour of each wavelet (colour of its scale j) and of the low-pass filter (black,
    dashed); ``layout`` holds the plot and, below it, the legend."""

    TITLE = "Filters in frequency"

    def __init__(self, layout: pg.GraphicsLayout):
        self.layout = layout
        self.plot = layout.addPlot(row=0, col=0)
        self.image = _image_plot(self.plot)
        self.plot.setTitle(self.TITLE)
        self.plot.setLabel("bottom", "ω₂ (rad/px, columns)")
        self.plot.setLabel("left", "ω₁ (rad/px, rows)")
        self.bar = _colour_bar(self.image, self.plot, pg.colormap.get("CET-L17"),
                               "Littlewood–Paley sum A(ω)")
        self.legend = _with_legend(layout, self.plot, 2)
        self.curves: list = []
        self._entries: tuple = ()
        self.plot.setRange(xRange=(-math.pi, math.pi), yRange=(-math.pi, math.pi), padding=0)
        for side in ("bottom", "left"):  # the frequency plane, whatever is drawn in it
            use_angle_axis(self.plot, -math.pi, math.pi, side)
        empty_note(self.plot, "computing…")

    def draw(self, f, J: int) -> None:
        """Draw :class:`ntkviz.jobs._scattering.FilterPictures` ``f`` of ``J`` scales."""
        step = float(f.frequencies[1] - f.frequencies[0])
        lo = float(f.frequencies[0]) - step / 2
        self.image.setImage(np.asarray(f.plane), autoLevels=False)
        self.image.setRect(QtCore.QRectF(lo, lo, step * f.grid, step * f.grid))
        self.bar.setLevels((0.0, max(1.0, float(np.ceil(f.frame_bounds[1] * 20) / 20))))
        for curve in self.curves:
            self.plot.removeItem(curve)
        self.curves = []
        self.legend.clear()
        for j in range(J + 1):
            parts = [c for c in f.contours if (c[0] == j and c[1] >= 0) or (j == J and c[1] < 0)]
            xs = np.concatenate([c[3] for c in parts]) if parts else np.zeros(0)
            ys = np.concatenate([c[2] for c in parts]) if parts else np.zeros(0)
            if j < J:
                pen = pg.mkPen(PALETTE[j % len(PALETTE)], width=1.6)
                name = f"ψ, j = {j} (half max)"
            else:
                pen = pg.mkPen("#000000", width=1.6, style=QtCore.Qt.PenStyle.DashLine)
                name = "low-pass φ (half max)"
            curve = pg.PlotCurveItem(xs, ys, connect="pairs", pen=pen)
            self.plot.addItem(curve)
            self.curves.append(curve)
            self.legend.addItem(pg.PlotDataItem(pen=pen), name)
        hi = float(f.frequencies[-1]) + step / 2
        self.plot.setRange(xRange=(lo, hi), yRange=(lo, hi), padding=0)
        for side in ("bottom", "left"):   # ticks of [−π, π]: the grid stops half a step short of π
            use_angle_axis(self.plot, -math.pi, math.pi, side)
        self.plot.setTitle(f"{self.TITLE}, {f.grid}×{f.grid} grid")


class LittlewoodPaleyFigure:
    """``A(ω)`` along ``ω₂`` (at ``ω₁ = 0``) and along ``ω₁`` (at ``ω₂ = 0``) against ω, the
    band between the frame bounds ``min A`` and ``max A`` (dashed lines labelled with their
    values) and the level 1 of a tight frame (dotted); the legend below."""

    TITLE = "Littlewood–Paley sum A(ω) on the axes"

    def __init__(self, layout: pg.GraphicsLayout):
        self.layout = layout
        self.plot = layout.addPlot(row=0, col=0, axisItems={"left": DecadeLogAxis("left"),
                                                           "bottom": DecadeLogAxis("bottom")})
        plot = self.plot
        plot.setTitle(self.TITLE)
        plot.setLabel("bottom", "ω (rad/px)")
        plot.setLabel("left", "A(ω)")
        plot.showGrid(x=True, y=True, alpha=0.15)
        plot.setMenuEnabled(False)
        plot.setMouseEnabled(x=False, y=False)
        plot.hideButtons()
        grid_below(plot)
        self.legend = _with_legend(layout, plot, 2)
        band_pen = pg.mkPen(PALETTE[6], width=1.2, style=QtCore.Qt.PenStyle.DashLine)
        self.bounds = [pg.InfiniteLine(angle=0, pen=band_pen, label="", labelOpts={
            "position": 0.12, "color": "#000000", "anchors": [(0.5, 1.0), (0.5, 1.0)]})
            for _ in range(2)]
        self.low, self.high = (pg.PlotDataItem(pen=pg.mkPen(None)) for _ in range(2))
        self.band = pg.FillBetweenItem(self.low, self.high, brush=pg.mkBrush(0, 0, 0, 22))
        for item in (self.low, self.high, self.band, *self.bounds):
            plot.addItem(item)
        self.tight = pg.InfiniteLine(angle=0, pos=1.0, pen=pg.mkPen(PALETTE[3], width=1.2,
                                                                     style=QtCore.Qt.PenStyle.DotLine))
        plot.addItem(self.tight)
        self.along2 = plot.plot([], [], pen=pg.mkPen(PALETTE[0], width=2.2))
        self.along1 = plot.plot([], [], pen=pg.mkPen(PALETTE[1], width=2.2,
                                                     style=QtCore.Qt.PenStyle.DashLine))
        self.legend.addItem(self.along2, "A(0, ω)")
        self.legend.addItem(self.along1, "A(ω, 0)")
        self.legend.addItem(pg.PlotDataItem(pen=band_pen), "frame bounds")
        self.legend.addItem(pg.PlotDataItem(pen=self.tight.pen), "tight frame")
        empty_note(plot, "computing…")

    def draw(self, f) -> None:
        w = np.asarray(f.frequencies)
        lo, hi = f.frame_bounds
        self.along2.setData(w, np.asarray(f.along_omega2))
        self.along1.setData(w, np.asarray(f.along_omega1))
        ends = [float(w[0]), float(w[-1])]
        self.low.setData(ends, [lo, lo])
        self.high.setData(ends, [hi, hi])
        for line, value, name in zip(self.bounds, (lo, hi), ("min A", "max A")):
            line.setValue(value)
            line.label.setFormat(f"{name} = {value:.4g}")
        declare_quantity(self.plot, "A(ω)", levels=(lo, hi, 1.0))
        top = max(1.0, hi)
        self.plot.setRange(xRange=(ends[0], ends[1]), yRange=(0.0, 1.08 * top), padding=0)
        use_angle_axis(self.plot, ends[0], ends[1], "bottom")


class CounterexampleFigure:
    """Log–log distances ‖Φ(L_τx) − Φ(x)‖/‖Φ(x)‖ of the dilated Gabor probe for the
    Fourier modulus ("Fourier": solid, circles) and the scattering transform (dashed, squares).

    ``against="s"``: one pair of curves per ω₀ (colour) against the dilation s, the fitted
    slope of each in the legend, a slope-1 guide; ``against="omega0"``: the two maps
    against ω₀ at the largest s, their fitted exponents in the legend, guides of slope 1
    (∝ ω₀) and 0 (independent of ω₀)."""

    def __init__(self, layout: pg.GraphicsLayout, against: str):
        self.layout, self.against = layout, against
        self.plot = layout.addPlot(row=0, col=0, axisItems={"left": DecadeLogAxis("left"),
                                                           "bottom": DecadeLogAxis("bottom")})
        plot = self.plot
        plot.setLogMode(x=True, y=True)
        plot.showGrid(x=True, y=True, alpha=0.15)
        plot.setMenuEnabled(False)
        plot.setMouseEnabled(x=False, y=False)
        plot.hideButtons()
        grid_below(plot)
        plot.setLabel("left", "‖Φ(L<sub>τ</sub>x) − Φ(x)‖ / ‖Φ(x)‖")
        plot.setLabel("bottom", "dilation s = ‖∇τ‖<sub>∞</sub>" if against == "s"
                      else "wave number ω₀ (rad/px)")
        self.legend = _with_legend(layout, plot, 3 if against == "s" else 2)
        self.items: list = []
        self.note = empty_note(plot, "computing…")

    def _clear(self) -> None:
        for item in self.items:
            self.plot.removeItem(item)
        self.items = []
        self.legend.clear()

    def _curve(self, x, y, color, fourier: bool, name: str):
        pen = pg.mkPen(color, width=2.2, style=QtCore.Qt.PenStyle.SolidLine if fourier
                       else QtCore.Qt.PenStyle.DashLine)
        curve = self.plot.plot(np.asarray(x, float), np.asarray(y, float), pen=pen,
                               symbol="o" if fourier else "s", symbolSize=7, symbolBrush=color,
                               symbolPen=color, name=name)
        self.items.append(curve)
        self.legend.addItem(curve, name)

    def _guide(self, x, y0, x0, slope: float, color, name: str, top: float) -> None:
        """A line of log–log ``slope`` through ``(x0, y0)`` over ``x`` (cut where it leaves
        the data's height ``top``)."""
        xs = np.array([min(x), max(x)], dtype=float)
        ys = y0 * (xs / x0) ** slope
        if slope > 0 and ys[1] > top:
            xs[1] = x0 * (top / y0) ** (1.0 / slope)
            ys[1] = top
        guide = self.plot.plot(xs, ys, pen=pg.mkPen(color, width=1.4,
                                                     style=QtCore.Qt.PenStyle.DashDotLine))
        self.items.append(guide)
        self.legend.addItem(guide, name)

    def draw(self, c) -> None:
        """Draw :class:`ntkviz.jobs._scattering.Counterexample` ``c``."""
        self._clear()
        if c.unavailable:
            self.note.set_text(f"not computed: {c.unavailable}")
            self.plot.setTitle("Mallat's counterexample: the Gabor probe under a dilation")
            self.plot.getAxis("bottom").setTicks(None)
            return
        self.note.set_text("")
        s = np.asarray(c.dilations, float)
        w = np.asarray(c.omega0s, float)
        top = 2.0 * float(max(c.fourier.max(), c.scattering.max()))
        if self.against == "s":
            for i, omega in enumerate(w):
                color = PALETTE[i % len(PALETTE)]
                self._curve(s, c.fourier[i], color, True,
                            f"Fourier {omega_label(omega)}: slope {c.fourier_slopes[i]:.2f}")
            for i, omega in enumerate(w):
                self._curve(s, c.scattering[i], PALETTE[i % len(PALETTE)], False,
                            f"scattering {omega_label(omega)}: slope {c.scattering_slopes[i]:.2f}")
            self._guide(s, float(c.scattering[0, 0]), s[0], 1.0, PALETTE[6], "slope 1 (∝ s)", top)
            self.plot.getAxis("bottom").setTicks(None)
            self.plot.setTitle("Dilated Gabor probe: distance against s, one colour per ω₀")
        else:
            k = len(s) - 1
            self._curve(w, c.fourier[:, k], PALETTE[1], True,
                        f"Fourier: exponent {c.fourier_exponent:.2f}")
            self._curve(w, c.scattering[:, k], PALETTE[0], False,
                        f"scattering: exponent {c.scattering_exponent:.2f}")
            if len(w) > 1:
                self._guide(w, float(c.fourier[0, k]), w[0], 1.0, PALETTE[6], "slope 1 (∝ ω₀)", top)
                self._guide(w, float(c.scattering[0, k]), w[0], 0.0, PALETTE[3], "slope 0 (flat)", top)
            self.plot.getAxis("bottom").setTicks([[(math.log10(v), omega_label(v)) for v in w]])
            self.plot.setTitle(f"Dilation s = {s[k]:.3g}: distance against ω₀")

