"""Generalisation view: what kernel ridge regression learns on the sphere.

Four plots: (a) the learning curve, test MSE against n (theory lines from the Mercer
spectrum, Monte-Carlo means ± 95 % confidence intervals over seeds as points), (b) learnabilities L_k at
the current n with exact zeros marked, (c) one of: the fit along a great circle (target,
prediction, training points), GP prior samples, Funk–Hecke partial sums, or the
bounded-norm approximation error; (d) read-outs κ, E0, RKHS norms. The theory job is
light and live; the Monte-Carlo runs on the heavy worker on demand (key
``learning_mc``) with progress and cancel. Maths: :mod:`ntkviz.core.learning`.

The controls column is :class:`~ntkviz.gui.panels._generalisation_controls.GeneralisationControls`,
the plots :class:`~ntkviz.gui.panels._generalisation_plots.GeneralisationPlots`; this view
wires them to the model and the jobs.
"""
from __future__ import annotations

from PySide6 import QtWidgets

from ntkviz.gui.panels._generalisation_controls import GeneralisationControls, readout_html
from ntkviz.gui.panels._generalisation_plots import GeneralisationPlots
from ntkviz.gui.panels._kernel_controls import KernelChoicePanel, write_through
from ntkviz.models.generalisation import GeneralisationModel

__all__ = ["QtGeneralisationPanel"]

MC_KEY = "learning_mc"

HELP = """<h3>Generalisation: what a kernel learns</h3>
<p>Kernel ridge regression f̂(x) = K(x, X)(K(X, X) + δ I)^{−1} y on n uniform points of the sphere
S^{p−1}, labels y = f + σε. <b>δ is not multiplied by n.</b> Test MSE is the error against a fresh
noisy label (it includes σ²).</p>
<p>Theory (eigenlearning; Bordelon, Canatar &amp; Pehlevan 2020; Simon et al. 2021; Jacot et al.
2020): κ solves n = Σ_k N(p,k) μ_k/(μ_k+κ) + δ/κ, L_k = μ_k/(μ_k+κ), E0 = n/(n − Σ N L_k²), test MSE
= E0 (Σ_k (1−L_k)² P_k + σ²), P_k the target's power in degree k. The spectrum's tail beyond k max
enters through the trace κ(1) − Σ N μ_k. Degrees where μ_k = 0 are never learned.</p>
<p>The theory is an approximation (exact for Gaussian features as n → ∞). On low-dimensional
spheres at small δ the Monte-Carlo departs from it by a few per cent (p = 3, two-layer NTK,
δ = 1e-3: about +4 % at n = 50, −3 to −4 % for n = 400 … 3200; within 0.5 % at δ ≥ 0.01 and
n ≥ 200). Monte-Carlo points: mean over seeds ± 95 % confidence interval (Student t); every seed
draws its own training and test points, so the bars include the test-set sampling error.</p>
<p>Target: degree components k:c (c·P_k(⟨x, z_k⟩), power c²/N(p,k)), or harmonic:K, ridge:T
(max(0, ⟨x,z⟩ − T)), step:T (sign(⟨x,z⟩ − T)), abs (|⟨x,z⟩|) with exact Funk–Hecke powers.
RKHS norm² Σ_k P_k/μ_k (∞ with power on an exact zero).</p>"""


class QtGeneralisationPanel(KernelChoicePanel):
    """Learning curve, learnabilities, fit / GP samples / partial sums, read-outs."""

    key = "learning"
    title = "Generalisation"
    model_cls = GeneralisationModel
    own_cancel_jobs = (MC_KEY,)  # Monte-Carlo has the panel's Cancel button
    HELP = HELP

    def __init__(self, dispatcher, parent=None, model=None):
        super().__init__(dispatcher, parent, model)
        self.mc_response = None
        self.controls = GeneralisationControls(self._add_chooser())
        self.figures = GeneralisationPlots()
        self.plots = self.figures.plots
        self.curve_widget = self.figures.curve_widget
        lay = QtWidgets.QHBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addWidget(self.controls)
        lay.addWidget(self.figures, 1)

        self.controls.edited.connect(lambda changes: write_through(self, **changes))
        self.controls.unreadable.connect(self._unreadable)
        self.controls.mc_button.clicked.connect(self.start_monte_carlo)
        self.controls.mc_cancel.clicked.connect(self.cancel_monte_carlo)
        dispatcher.returned.connect(self._on_mc_returned)
        dispatcher.yielded.connect(self._on_mc_yielded)
        dispatcher.errored.connect(self._on_mc_errored)
        if hasattr(dispatcher, "busy"):
            dispatcher.busy.connect(self._on_busy)
        self.sync_widgets(frozenset(f for f in self.model.to_session()))

    # ------------------------------------------------------------ parameters
    def _unreadable(self, field: str, text: str) -> None:
        self._report_error(f"{field}: cannot read {text!r}")
        self.sync_widgets(frozenset({field}))

    def sync_widgets(self, changed: frozenset) -> None:
        super().sync_widgets(changed)
        self.controls.sync(self.model.params)

    # ------------------------------------------------------------ Monte-Carlo
    def start_monte_carlo(self) -> int:
        """Run the Monte-Carlo on the heavy worker (progress, cancel)."""
        try:
            job = self.model.monte_carlo_request(self.model.params)
        except ValueError as exc:
            self._report_error(str(exc))
            return 0
        self.controls.progress.setValue(0)
        return self.dispatcher.submit_generator(MC_KEY, job.iterate, heavy=True, immediate=True)

    def cancel_monte_carlo(self) -> None:
        self.dispatcher.cancel(MC_KEY)

    def _on_busy(self, key: str, busy: bool) -> None:
        if key == MC_KEY:
            self.controls.mc_cancel.setEnabled(busy)

    def _on_mc_yielded(self, key: str, request_id: int, item) -> None:
        if key == MC_KEY:
            self.controls.progress.setValue(int(1000 * item.fraction))

    def _on_mc_returned(self, key: str, request_id: int, response) -> None:
        if key == MC_KEY:
            self.mc_response = response
            self.controls.progress.setValue(1000)
            self.redraw()
            if self.model.params.n not in response.n_values:
                self.status.emit(f"{self.title}: learned fractions are drawn when n is one of the "
                                 "Monte-Carlo sizes")

    def _on_mc_errored(self, key: str, request_id: int, message: str) -> None:
        if key == MC_KEY:
            self._report_error(message)

    # ------------------------------------------------------------ drawing
    def apply_response(self, response) -> None:
        p = self.model.params
        self.figures.draw(response, self.mc_response, p.view, p.dim)
        self.controls.readout.setText(readout_html(response))

    # ------------------------------------------------------------ export
    def plot_items(self) -> dict[str, object]:
        return dict(self.plots)

    def csv_table(self, view: str) -> tuple[list[str], list[list]]:
        if self.response is None:
            raise ValueError("nothing computed yet")
        if view == "view":
            view = self.model.params.view
        if view == "curve" and self.mc_response is not None:
            head, rows = self.response.csv_table("curve")
            mh, mrows = self.mc_response.csv_table("curve")
            return head + mh[2:], [r + [""] * (len(mh) - 2) for r in rows] + \
                [[m[0], m[1]] + [""] * (len(head) - 2) + m[2:] for m in mrows]
        return self.response.csv_table(view)


if __name__ == "__main__":  # pragma: no cover - demo
    import sys

    from ntkviz.gui.app import run_standalone

    sys.exit(run_standalone(QtGeneralisationPanel))
