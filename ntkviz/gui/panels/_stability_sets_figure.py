"""The sets figure of the Stability tab: Bietti & Mairal (2019), Fig. 1 with the strip of Fig. 2.

One reference digit ``x`` against a few sets of digits ``x′`` (by default: deformations
with α = 3, translations and deformations with α = 1, digits of the same label, digits of
any label). Two plots side by side, CKN and NTK, share their y axis: per set the mean of
the relative distance ``‖Φ(x) − Φ(x′)‖ / ‖Φ(x)‖`` over the set, ± its standard error, along
the sweep (x axis). Under the plots: the legend (one entry per set, naming α and the
one-pixel translations), a note saying what the x axis means (by default the last layer's
pooling/subsampling factor, which drives the translation term ‖τ‖∞/σₙ of both stability
theorems) and where the digits come from, then the strip of example images of each set,
one row per set, the reference digit beside them.

:class:`SetsFigure` draws a :class:`ntkviz.core.deformations.sets.SetsResult`; it holds no
parameters. A value that does not exist is not drawn: the NTK plot of an architecture
without NTK says so and stays empty; a set of one digit has no standard error (no error
bars, and the note says so); cells not computed yet (partial results) are left out.
"""
from __future__ import annotations

import math
import textwrap

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore

from ntkviz.gui.plot_style import (PALETTE, DecadeLogAxis, SmallLegendSample, empty_note, grid_below,
                                   style_legend)

__all__ = ["SetsFigure", "MAP_TITLES", "MAX_SETS", "Y_TITLE"]

#: the two plots, left to right
MAP_TITLES = {"ckn": "CKN", "ntk": "NTK"}
#: the y-axis title (shared by both plots)
Y_TITLE = "‖Φ(x) − Φ(x′)‖ / ‖Φ(x)‖"
#: the most sets a figure draws (one colour each)
MAX_SETS = 8
#: characters per line of the notes under the plots
NOTE_WIDTH = 112
#: notes' lines the figure keeps room for (and draws at most)
NOTE_LINES = 6
#: smallest height of each plot area (inside the axes), in pixels
PLOT_AREA_MIN = 150
#: height of one row of the example strip (logical pixels)
STRIP_ROW = 18
#: examples per row of the strip (the width of a row image, in image heights, with the gaps)
STRIP_EXAMPLES = 8
_GAP = 2  # pixels between two example images in a strip row
_SPACING = 2  # logical pixels between two rows of the strip (and of its legend)
STRIP_WIDTH = (STRIP_EXAMPLES * 28 + (STRIP_EXAMPLES - 1) * _GAP) / 28


class SetsFigure(pg.GraphicsLayoutWidget):
    """Title, the CKN and NTK plots (``plots``), the legend, the notes (``note``) and the
    example strip (``strip``) of the sets figure; ``curves``, ``bars``, ``fits`` and
    ``crossings`` are its items per ``(map, set index)``."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.figure = self.ci
        self.figure.setContentsMargins(4, 4, 8, 4)
        self.title = self.figure.addLabel("", row=0, col=0, colspan=2, size="10pt")
        self.plots: dict[str, pg.PlotItem] = {}
        self.curves, self.bars, self.fits, self.crossings = {}, {}, {}, {}
        for col, (name, title) in enumerate(MAP_TITLES.items()):
            plot = self.figure.addPlot(row=1, col=col, axisItems={
                "left": DecadeLogAxis(orientation="left"), "bottom": DecadeLogAxis(orientation="bottom")})
            plot.setTitle(title, size="9pt")
            plot.showGrid(x=True, y=True, alpha=0.15)
            for side in ("left", "bottom"):
                plot.getAxis(side).enableAutoSIPrefix(False)
            grid_below(plot)
            plot.setMenuEnabled(False)
            plot.setMouseEnabled(x=False, y=False)  # both keep the one y range they are given
            plot.hideButtons()
            for s in range(MAX_SETS):
                color = PALETTE[s % len(PALETTE)]
                # error bars as one curve of segments (a curve's pen grows with an export)
                self.bars[(name, s)] = plot.plot([], [], pen=pg.mkPen(color, width=1.3), connect="pairs")
                self.curves[(name, s)] = plot.plot([], [], pen=pg.mkPen(color, width=2.2), symbol="o",
                                                   symbolSize=7, symbolBrush=color, symbolPen=color)
                self.fits[(name, s)] = plot.plot([], [], pen=pg.mkPen(color, width=1.5,
                                                                       style=QtCore.Qt.PenStyle.DashLine))
                self.crossings[(name, s)] = plot.plot([], [], pen=None, symbol="star", symbolSize=13,
                                                      symbolBrush=color, symbolPen="k")
            empty_note(plot, "")
            self.plots[name] = plot
        # the shared y axis: both plots are given the same range (a y link would make pyqtgraph
        # restyle the linked plot's curves during an export, undoing their export pens)
        self.plots["ckn"].setLabel("left", Y_TITLE)
        self.note = self.figure.addLabel("", row=2, col=0, colspan=2, size="8pt", justify="left")
        # the strip of examples (Fig. 2), one row per set; its first column is the legend of
        # both plots (one entry per set, naming α and the translations), row by row
        self.legend = style_legend(pg.LegendItem(labelTextSize="8pt", colCount=1, verSpacing=_SPACING))
        self.legend.sampleType = SmallLegendSample
        self.legend.setFlag(self.legend.GraphicsItemFlag.ItemIgnoresTransformations, False)
        self.legend.layout.setContentsMargins(2, 0, 4, 0)
        self.strip = self.figure.addLayout(row=3, col=0, colspan=2)
        self.strip.setContentsMargins(0, 4, 0, 0)
        self.strip.setSpacing(_SPACING)
        self._strip_rows = 0
        self.reference_label = None
        self.reference_view = None
        self.reference_image = None
        self.row_views, self.row_images = [], []
        self._build_strip(4)
        self.figure.layout.setRowStretchFactor(1, 3)
        self._set_minimum_size()

    # ------------------------------------------------------------------ layout
    def _set_minimum_size(self) -> None:
        """Never smaller than the title, axes, a legend of :data:`MAX_SETS` sets and
        fits, :data:`NOTE_LINES` lines of notes and a strip of :data:`MAX_SETS` rows
        need, plus plot areas of :data:`PLOT_AREA_MIN` px."""
        self._build_strip(MAX_SETS)
        for s in range(MAX_SETS):
            self.legend.addItem(self.curves[("ckn", s)], "translations + deformations, α = 1 (n = 500)")
        self._fit_legend_rows()
        self.note.setText("<br>".join(["x"] * NOTE_LINES), size="8pt")
        need = self.figure.effectiveSizeHint(QtCore.Qt.SizeHint.MinimumSize)
        self.setMinimumSize(math.ceil(need.width()) + 4, math.ceil(need.height()) + PLOT_AREA_MIN)
        self.legend.clear()
        self.note.setText("", size="8pt")
        self._build_strip(4)

    def _build_strip(self, rows: int) -> None:
        """The strip's rows (one per set): the legend's entry of the set, then one image of
        its examples side by side; the reference digit beside them (spanning every row)
        with its caption."""
        if rows == self._strip_rows:
            return
        self.strip.clear()
        self.strip.addItem(self.legend, row=0, col=0, rowspan=rows)
        self.row_views, self.row_images = [], []
        for r in range(rows):
            view, image = _image_view(STRIP_WIDTH * STRIP_ROW, STRIP_ROW)
            self.strip.addItem(view, row=r, col=1)
            self.row_views.append(view)
            self.row_images.append(image)
        side = STRIP_ROW * max(rows, 2) + _SPACING * (max(rows, 2) - 1)
        self.reference_view, self.reference_image = _image_view(side, side)
        self.strip.addItem(self.reference_view, row=0, col=2, rowspan=rows)
        self.reference_label = self.strip.addLabel("", row=0, col=3, rowspan=rows, size="8pt",
                                                   justify="left")
        layout = self.strip.layout
        for col in (0, 3):
            layout.setColumnStretchFactor(col, 1)
        layout.setColumnSpacing(1, 10)
        for r in range(rows):
            layout.setRowFixedHeight(r, STRIP_ROW if rows > 1 else side)
        self._strip_rows = rows

    def _fit_legend_rows(self) -> None:
        """The legend's rows as high as the strip's, so that each entry sits beside the
        examples of its set."""
        rows = self._strip_rows
        for _, label in self.legend.items:  # no margin around the text: it fits a strip row
            label.item.document().setDocumentMargin(0)
            label.updateMin()
        for r in range(self.legend.layout.rowCount()):
            self.legend.layout.setRowFixedHeight(r, STRIP_ROW if rows > 1 else STRIP_ROW * 2 + _SPACING)
        # as wide as its entries, beside the images (the column's extra room is on its left)
        self.legend.setMaximumWidth(self.legend.layout.effectiveSizeHint(QtCore.Qt.SizeHint.PreferredSize).width())
        self.strip.layout.setAlignment(self.legend, QtCore.Qt.AlignmentFlag.AlignRight
                                       | QtCore.Qt.AlignmentFlag.AlignVCenter)

    # ------------------------------------------------------------------ drawing
    def show_nothing(self, note: str) -> None:
        """Nothing drawn (curves, bars, fits, legend, notes, strip), no ticks, ``note`` in
        both plots."""
        for item in (*self.curves.values(), *self.bars.values(), *self.fits.values(),
                     *self.crossings.values()):
            item.setData([], [])
        self.legend.clear()
        self.title.setText("", size="10pt")
        self.note.setText("", size="8pt")
        self.reference_label.setText("", size="8pt")
        for image in (*self.row_images, self.reference_image):
            image.clear()
        for name, plot in self.plots.items():
            plot.getAxis("bottom").setTicks(None)
            empty_note(plot, note)

    def draw(self, r, overlays=None, fits_requested: bool = False) -> None:
        """Draw the ``SetsResult`` ``r`` (partial or final): per set and map the means with
        ± standard-error bars; ``overlays`` (``{(map, set index): BoundOverlay}``) the
        fitted bound forms; ``fits_requested``: the fits were asked for (the note says
        where they do not apply)."""
        overlays = overlays or {}
        n_sets = len(r.sets)
        values = np.asarray(r.values, dtype=np.float64)
        log_x = r.sweep == "amplitude" and bool(np.all(values > 0))
        ntk_missing = bool(np.all(np.isnan(r.mean["ntk"][r.count > 0]))) and bool(np.any(r.count > 0))
        tops = []
        for name, plot in self.plots.items():
            plot.setLogMode(x=log_x, y=False)
            missing = name == "ntk" and ntk_missing
            for s in range(MAX_SETS):
                shown = s < n_sets and not missing
                done = (r.count[s] > 0) if s < n_sets else np.zeros(len(values), bool)
                mean = r.mean[name][s][done] if shown else np.zeros(0)
                sem = r.sem[name][s][done] if shown else np.zeros(0)
                xs = values[done] if shown else np.zeros(0)
                self.curves[(name, s)].setData(xs, mean)
                ok = np.isfinite(sem)
                self.bars[(name, s)].setData(*_error_bars(xs[ok], mean[ok], sem[ok], _cap(values, log_x), log_x))
                if mean.size:
                    tops.append(float(np.max(mean + np.where(ok, sem, 0.0))))
                self._draw_overlay(name, s, overlays.get((name, s)) if shown else None, tops)
            empty_note(plot, _NO_NTK if missing else "")
            self._set_x_axis(plot, r, values, log_x)
        top = max(tops) if tops else 1.0
        for plot in self.plots.values():
            plot.setYRange(0.0, 1.06 * top, padding=0.0)
        sets = f"One digit against {n_sets} set{'s' if n_sets != 1 else ''}"
        self.title.setText(f"{sets}: mean ± standard error over each set" if np.max(r.count) > 1
                           else f"{sets} of one digit: the distance to each", size="10pt")
        self._build_strip(len(r.sets))
        self._draw_legend(r)
        self.note.setText(self._note_text(r, ntk_missing, overlays, fits_requested), size="8pt")
        self._draw_strip(r)

    def _draw_overlay(self, name: str, s: int, overlay, tops: list) -> None:
        fit, mark = self.fits[(name, s)], self.crossings[(name, s)]
        if overlay is None or overlay.fit is None:
            fit.setData([], [])
            mark.setData([], [])
            return
        fit.setData(overlay.curve_x, overlay.curve_values)
        tops.append(float(np.max(overlay.curve_values)))
        if math.isfinite(overlay.crossover_x):
            # at the crossover both terms are equal: the form is 2 C′ ‖∇τ‖∞
            y = 2.0 * overlay.fit.coefficients[1] * overlay.crossover
            mark.setData([overlay.crossover_x], [y])
            tops.append(y)
        else:
            mark.setData([], [])

    def _set_x_axis(self, plot, r, values: np.ndarray, log_x: bool) -> None:
        """Ticks at the sweep's values (labelled in data units), a little room beyond them."""
        coords = np.log10(values) if log_x else values
        plot.getAxis("bottom").setTicks([[(float(c), f"{v:g}") for c, v in zip(coords, values)], []])
        lo, hi = float(np.min(coords)), float(np.max(coords))
        pad = 0.08 * (hi - lo) if hi > lo else (0.3 if log_x else 0.5)
        plot.setXRange(lo - pad, hi + pad, padding=0.0)
        plot.setLabel("bottom", r.axis_label)

    def _draw_legend(self, r) -> None:
        self.legend.clear()
        for s, spec in enumerate(r.sets):
            n = int(np.max(r.count[s])) if np.any(r.count[s] > 0) else 0
            self.legend.addItem(self.curves[("ckn", s)], f"{_set_label(spec, r)} (n = {n})")
        self._fit_legend_rows()

    def _note_text(self, r, ntk_missing: bool, overlays, fits_requested: bool) -> str:
        lines = [f"x axis: {r.axis_reading}."]
        if r.note:
            lines.append(r.note[0].upper() + r.note[1:] + ".")
        if r.sweep == "amplitude" and any(spec.deforms for spec in r.sets):
            lines.append(f"Examples of the deformation sets drawn at the largest α, {max(r.values):g}.")
        if np.any(r.count == 1):
            lines.append("One digit per set: no standard error, so no error bars.")
        if ntk_missing:
            lines.append("This architecture (exp patch kernels) has no NTK: its plot stays empty.")
        if any(o.fit is not None for o in overlays.values()):
            lines.append("Dashed: the bound forms C₁α + C₂‖τ‖∞/σₙ (CKN) and C√α + C′α (NTK) fitted by "
                         "least squares to each deformation set (‖∇τ‖∞ ∝ α), not the theorems' constants"
                         + ("; ★ the NTK fit's √ → linear crossover." if any(
                             math.isfinite(o.crossover_x) for o in overlays.values()) else "."))
        elif fits_requested:
            lines.append("Bound fits: only along the deformation amplitude (α is fixed along this sweep).")
        wrapped = [w for line in lines for w in textwrap.wrap(line, NOTE_WIDTH)]
        return "<br>".join(wrapped[:NOTE_LINES])

    def _draw_strip(self, r) -> None:
        """The examples of each set (the paper's Fig. 2), the reference digit beside them."""
        for s in range(len(r.sets)):
            examples = r.examples[s] if s < len(r.examples) else np.zeros((0, 28, 28))
            self.row_images[s].setImage(_side_by_side(examples), levels=(0.0, 1.0))
            _fit_view(self.row_views[s], self.row_images[s])
        self.reference_label.setText(f"← reference x:<br>{r.reference_name}<br>(label {r.reference_label})",
                                     size="8pt")
        if r.reference is not None:
            self.reference_image.setImage(np.asarray(r.reference, dtype=np.float64), levels=(0.0, 1.0))
            _fit_view(self.reference_view, self.reference_image)


def _set_label(spec, r) -> str:
    """The legend's name of a set: its kind, α (on the x axis along the amplitude sweep) and
    the reference's label for the same-label set."""
    if spec.deforms and r.sweep == "amplitude":
        return ("translations + deformations" if spec.translates else "deformations") + ", α on the x axis"
    return spec.label(r.reference_label)


_NO_NTK = "no NTK: this architecture's exp patch kernels have none"


def _cap(values: np.ndarray, log_x: bool) -> float:
    """Half width of the error bars' caps (in decades on a log axis): 6 % of the closest
    two sweep values' distance."""
    coords = np.sort(np.log10(values) if log_x else values)
    step = float(np.min(np.diff(coords))) if coords.size > 1 else 1.0
    return 0.06 * step


def _error_bars(x, y, e, cap: float, log_x: bool) -> tuple[np.ndarray, np.ndarray]:
    """Segments (for ``connect="pairs"``) of error bars ``y ± e`` at ``x``: the bar and its
    two caps, ``cap`` wide on each side (decades when ``log_x``)."""
    x, y, e = (np.asarray(a, dtype=np.float64) for a in (x, y, e))
    left, right = (x * 10.0 ** -cap, x * 10.0 ** cap) if log_x else (x - cap, x + cap)
    xs = np.stack([x, x, left, right, left, right], axis=1).ravel()
    ys = np.stack([y - e, y + e, y + e, y + e, y - e, y - e], axis=1).ravel()
    return xs, ys


def _image_view(width: float, height: float) -> tuple[pg.ViewBox, pg.ImageItem]:
    """A frameless ``width`` × ``height`` view box that shows one grey image, square pixels,
    row 0 on top."""
    view = pg.ViewBox(lockAspect=True, invertY=True, enableMouse=False, defaultPadding=0.0)
    view.setMenuEnabled(False)
    view.setMinimumSize(width, height)
    view.setMaximumSize(width, height)
    image = pg.ImageItem(axisOrder="row-major")
    image.setLookupTable(pg.colormap.get("CET-L1").getLookupTable(nPts=256))
    view.addItem(image)
    return view, image


def _fit_view(view: pg.ViewBox, image: pg.ImageItem) -> None:
    h, w = image.image.shape[:2]
    view.setRange(xRange=(0, w), yRange=(0, h), padding=0.0)


def _side_by_side(images) -> np.ndarray:
    """Images (k, H, W) in one row, :data:`_GAP` white pixels between them."""
    images = np.asarray(images, dtype=np.float64)
    if images.ndim != 3 or images.shape[0] == 0:
        return np.ones((28, 28))
    k, h, w = images.shape
    row = np.ones((h, k * w + (k - 1) * _GAP))
    for i, im in enumerate(images):
        row[:, i * (w + _GAP): i * (w + _GAP) + w] = im
    return row
