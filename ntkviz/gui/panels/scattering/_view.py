"""The Scattering tab's view: controls on the left; on the right three pages, the filter bank
(wavelets in space, the frequency plane, the Littlewood–Paley sum), the coefficients of the
image (orders 0–1, the order-2 grid) and the Fourier-modulus counterexample."""
from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from ntkviz.gui.panels._base import QtPanel
from ntkviz.gui.panels._kernel_controls import scroll_column
from ntkviz.gui.panels.deformation._images import image_beside_bar
from ntkviz.gui.panels.scattering._controls import (CounterexampleControls, ImageSource,
                                                    SecondOrderChoice, TransformControls)
from ntkviz.gui.panels.scattering._figures import (CounterexampleFigure, FrequencyFigure,
                                                   LittlewoodPaleyFigure, MosaicPlot)
from ntkviz.gui.ticks import pi_text

__all__ = ["QtScatteringPanel", "help_html"]

#: smallest size (px) of each figure's widget
FIGURE_MIN = (300, 220)


#: room (px) left for the plot area itself beyond what titles, axes, bars and legends need
PLOT_AREA_MIN = (40, 100)


def _figure_widget() -> pg.GraphicsLayoutWidget:
    widget = pg.GraphicsLayoutWidget()
    widget.ci.setContentsMargins(4, 4, 8, 4)
    widget.setMinimumSize(*FIGURE_MIN)
    return widget


def fit_minimum(widget: pg.GraphicsLayoutWidget) -> None:
    """Never smaller than its figure needs (titles, axes, colour bars, legend and a plot area
    of :data:`PLOT_AREA_MIN`): pyqtgraph would draw a larger scene cut at the view's edges."""
    need = widget.ci.effectiveSizeHint(QtCore.Qt.SizeHint.MinimumSize)
    width = max(FIGURE_MIN[0], math.ceil(need.width()) + PLOT_AREA_MIN[0])
    height = max(FIGURE_MIN[1], math.ceil(need.height()) + PLOT_AREA_MIN[1])
    if (width, height) != (widget.minimumWidth(), widget.minimumHeight()):
        widget.setMinimumSize(width, height)


class QtScatteringPanel(QtPanel):
    """The filter bank, the coefficients and the counterexample of the scattering transform:
    a view of :class:`~ntkviz.models.scattering.ScatteringModel`.

    Every change submits the model's :class:`ntkviz.jobs.ScatteringViewRequest` (the filter
    bank of a grid is cached by the core, the counterexample by the job: a new image does not
    redo it); the choice of the order-2 scales (j1, j2) only redraws. The figures draw what
    the job laid out (mosaics, contours, fitted exponents): no maths here.
    """

    def __init__(self, dispatcher, parent=None, model=None, spec=None):
        super().__init__(dispatcher, parent, model, spec)
        self._build()
        self.sync_widgets(frozenset())

    # ------------------------------------------------------------------ layout
    def _build(self) -> None:
        self.source = ImageSource(self)
        self.transform = TransformControls(self)
        self.second_order = SecondOrderChoice(self)
        self.counter_controls = CounterexampleControls(self)
        scroll = scroll_column(self.source, self.transform, self.second_order, self.counter_controls)

        self.widgets = {name: _figure_widget() for name in
                        ("wavelets", "frequency", "littlewood_paley", "coefficients", "order2",
                         "dilation", "omega0")}
        w = self.widgets
        self.wavelets = MosaicPlot(w["wavelets"].ci, 0, 0, "CET-D1",
                                   "Re ψ(u) / max |ψ| (each tile)", "orientation θ", "scale j")
        self.frequency = FrequencyFigure(w["frequency"].ci)
        self.littlewood_paley = LittlewoodPaleyFigure(w["littlewood_paley"].ci)
        self.order0 = MosaicPlot(w["coefficients"].ci, 0, 0, "viridis", "S<sub>J</sub>x, order 0",
                                 "", "")
        self.order1 = MosaicPlot(w["coefficients"].ci, 0, 1, "viridis", "S<sub>J</sub>x, order 1",
                                 "orientation θ", "scale j")
        w["coefficients"].ci.layout.setColumnStretchFactor(1, 4)
        self.order2 = MosaicPlot(w["order2"].ci, 0, 0, "viridis", "S<sub>J</sub>x, order 2",
                                 "orientation θ₂", "orientation θ₁")
        self.by_s = CounterexampleFigure(w["dilation"].ci, "s")
        self.by_omega0 = CounterexampleFigure(w["omega0"].ci, "omega0")

        def page(*rows) -> QtWidgets.QSplitter:
            split = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
            for row in rows:
                if isinstance(row, tuple):
                    inner = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
                    for widget in row:
                        inner.addWidget(widget)
                    split.addWidget(inner)
                else:
                    split.addWidget(row)
            return split

        self.pages = QtWidgets.QTabWidget()
        self.pages.addTab(page(w["wavelets"], (w["frequency"], w["littlewood_paley"])), "Filter bank")
        self.pages.addTab(page(w["coefficients"], w["order2"]), "Coefficients")
        counter = page(w["dilation"], w["omega0"])
        counter.setStretchFactor(0, 4)
        counter.setStretchFactor(1, 3)
        self.pages.addTab(counter, "Counterexample")
        split = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        split.addWidget(scroll)
        split.addWidget(self.pages)
        split.setStretchFactor(1, 1)
        split.setCollapsible(0, False)
        lay = QtWidgets.QHBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addWidget(split)

    # ------------------------------------------------------------ parameters
    def sync_widgets(self, changed: frozenset) -> None:
        params = self.model.params
        for group in (self.source, self.transform, self.second_order, self.counter_controls):
            group.sync(params)

    def load_user_image(self, path) -> bool:
        """Load the user's image (see :meth:`ImageSource.load`)."""
        return self.source.load(path)

    # ------------------------------------------------------------ responses
    def apply_response(self, resp) -> None:
        params = self.model.params
        J, L, order = resp.params.J, resp.params.L, resp.params.order
        f, c = resp.filters, resp.coefficients
        thetas = [pi_text(n, L) for n in f.angle_numerators]
        side = 2 * f.half_width + 1
        self.wavelets.draw(f.wavelets, (-1.0, 1.0), (side, side), 1,
                           [f"j = {j}" for j in range(J)] + ["low-pass φ"], thetas,
                           f"Morlet wavelets Re ψ<sub>j,θ</sub> and φ<sub>J</sub> in space "
                           f"({side}×{side} px tiles)")
        self.frequency.draw(f, J)
        self.littlewood_paley.draw(f)
        tile = c.order0.shape
        self.order0.draw(c.order0, c.order0_levels, tile, 1, ["x⋆φ"], [], "order 0")
        sampled = f"sampled every 2<sup>{J}</sup> px"
        if c.order1 is None:
            self.order1.clear("order 0 only: choose order 1 or 2")
            self.order1.plot.setTitle("order 1")
        else:
            self.order1.draw(c.order1, c.order1_levels, tile, 1, [f"j = {j}" for j in range(J)], thetas,
                             f"order 1: |x⋆ψ<sub>j,θ</sub>|⋆φ<sub>J</sub>, {sampled}<br>"
                             f"{resp.caption}")
        pair = (params.j1, params.j2)
        if pair in c.order2:
            self.order2.draw(c.order2[pair], c.order2_levels, tile, 1, thetas, thetas,
                             f"order 2: ||x⋆ψ<sub>{pair[0]},θ₁</sub>|⋆ψ<sub>{pair[1]},θ₂</sub>|"
                             f"⋆φ<sub>J</sub>, {sampled}")
        else:
            why = "order 2 needs J ≥ 2" if order == 2 else f"order {order}: choose order 2"
            self.order2.clear(f"no order-2 grid: {why}" if order < 2 or J < 2 else
                              f"no scales (j1, j2) = {pair} for J = {J}")
            self.order2.plot.setTitle("order 2")
        self.by_s.draw(resp.counterexample)
        self.by_omega0.draw(resp.counterexample)
        for widget in self.widgets.values():
            fit_minimum(widget)

    # ------------------------------------------------------------ export
    def plot_items(self) -> dict[str, object]:
        w = self.widgets
        return {"wavelets": self.wavelets.plot, "frequency": w["frequency"].ci,
                "littlewood_paley": w["littlewood_paley"].ci, "coefficients": w["coefficients"].ci,
                "order2": self.order2.plot, "dilation": w["dilation"].ci, "omega0": w["omega0"].ci}

    def exporting(self, view: str, width: int | None = None, height: int | None = None):
        """A mosaic exported alone keeps its colour bar (and axes) beside the image at any
        size: the spare width goes to the margins."""
        plot = {"wavelets": self.wavelets.plot, "order2": self.order2.plot}.get(view)
        image = None if plot is None else next(
            (it for it in plot.getViewBox().addedItems if isinstance(it, pg.ImageItem)), None)
        if image is None or image.image is None:
            return super().exporting(view, width, height)
        rect = image.boundingRect()
        return image_beside_bar(plot, rect.width() / max(rect.height(), 1e-9))

    def help_html(self) -> str:
        return help_html()


def help_html() -> str:
    """The maths of the Scattering tab (Help menu)."""
    return (
        "<h3>The scattering transform: filters, coefficients, stability</h3>"
        "<p>S<sub>J</sub>x = {x⋆φ<sub>J</sub>, |x⋆ψ<sub>λ1</sub>|⋆φ<sub>J</sub>, "
        "||x⋆ψ<sub>λ1</sub>|⋆ψ<sub>λ2</sub>|⋆φ<sub>J</sub>}, λ = (j, θ), 0 ≤ j<sub>1</sub> &lt; "
        "j<sub>2</sub> &lt; J, each sampled every 2<sup>J</sup> px (Mallat 2012, <i>Group "
        "invariant scattering</i>; kymatio's Morlet filters in float64): ψ<sub>j,θ</sub> a "
        "Morlet wavelet of width σ<sub>j</sub> = 0.8·2<sup>j</sup> px and frequency "
        "ξ<sub>j</sub> = 3π/4·2<sup>−j</sup> rad/px in the direction θ, φ<sub>J</sub> a Gaussian "
        "of width 0.8·2<sup>J−1</sup> px with unit sum.</p>"
        "<p><b>Filter bank.</b> The wavelets in space (real parts; each tile scaled to its "
        "largest modulus) and in frequency: the colour is the Littlewood–Paley sum "
        "A(ω) = |φ̂<sub>J</sub>(ω)|² + ½Σ<sub>j,θ</sub>(|ψ̂<sub>j,θ</sub>(ω)|² + "
        "|ψ̂<sub>j,θ</sub>(−ω)|²), the lines the half-maximum contours of each filter. The energy "
        "of the first layer is (1/MN)Σ A|x̂|², so min A ‖x‖² ≤ ‖x⋆φ‖² + Σ‖x⋆ψ‖² ≤ max A ‖x‖²: "
        "A ≡ 1 would be a tight frame; this bank has A(0) = 1 and max A ≈ 1.</p>"
        "<p><b>Coefficients.</b> Each channel of S<sub>J</sub>x is a small image: order 1 tiled "
        "by scale j (rows) and orientation θ (columns), order 2 of the chosen scales "
        "(j<sub>1</sub>, j<sub>2</sub>) by θ<sub>1</sub> (rows) and θ<sub>2</sub> (columns); "
        "one colour scale per figure.</p>"
        "<p><b>Counterexample.</b> The Fourier modulus |x̂| is invariant to translations but "
        "not stable to deformations: for the Gabor probe x(u) = cos(ω₀⟨e, u − c⟩)"
        "e<sup>−|u−c|²/(2σ²)</sup> (64 px, σ = 8 px) and the dilation τ(u) = s(u − c), "
        "‖∇τ‖<sub>∞</sub> = s, the bumps of |x̂| at ±ω₀e move by ω₀s, so "
        "‖|x̂<sub>τ</sub>| − |x̂|‖ ≳ ω₀s. The scattering transform is Lipschitz: "
        "‖S<sub>J</sub>L<sub>τ</sub>x − S<sub>J</sub>x‖ ≤ C‖∇τ‖<sub>∞</sub>‖x‖ whatever ω₀. "
        "The figures plot both relative distances against s (one pair per ω₀; least-squares "
        "log–log slopes in the legend) and against ω₀ at the largest s (exponents in the "
        "legend: about 1 for the Fourier modulus, about 0 for scattering).</p>"
    )
