"""Generalisation view: what kernel ridge regression learns on the sphere.

Four plots: (a) the learning curve, test MSE against n (theory lines from the Mercer
spectrum, Monte-Carlo means ± 95 % confidence intervals over seeds as points), (b) learnabilities L_k at
the current n with exact zeros marked, (c) one of: the fit along a great circle (target,
prediction, training points), GP prior samples, Funk–Hecke partial sums, or the
bounded-norm approximation error; (d) read-outs κ, E0, RKHS norms. The theory job is
light and live; the Monte-Carlo runs on the heavy worker on demand (its own job slot,
:data:`MC_KEY`) with progress and cancel, and is drawn only while its parameters are
the model's. Maths: :mod:`ntkviz.core.learning`.

The controls column is :class:`~ntkviz.gui.panels._learning_controls.LearningControls`,
the plots :class:`~ntkviz.gui.panels._learning_plots.LearningPlots`; this view wires
them to the model and the jobs.
"""
from __future__ import annotations

from PySide6 import QtWidgets

from ntkviz.gui.panels._kernel_controls import KernelChoicePanel
from ntkviz.gui.panels._learning_controls import LearningControls, readout_html
from ntkviz.gui.panels._learning_plots import LearningPlots
from ntkviz.gui.status import ProgressClock
from ntkviz.gui.workers import JobSlot

__all__ = ["QtLearningPanel", "MC_KEY"]

#: the Monte-Carlo's job key
MC_KEY = "learning.mc"

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


class QtLearningPanel(KernelChoicePanel):
    """Learning curve, learnabilities, fit / GP samples / partial sums, read-outs."""

    HELP = HELP

    def __init__(self, dispatcher, parent=None, model=None, spec=None):
        super().__init__(dispatcher, parent, model, spec)
        self.mc_response = None  #: the last Monte-Carlo response
        self._mc_request = None  # the request it answers
        #: the Monte-Carlo job (its Cancel button is the panel's)
        self.mc_slot = JobSlot(dispatcher, MC_KEY, f"{self.title}: Monte-Carlo", self,
                               own_cancel=True)
        self.controls = LearningControls(self._add_chooser())
        self.figures = LearningPlots()
        self.plots = self.figures.plots
        self.curve_widget = self.figures.curve_widget
        lay = QtWidgets.QHBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addWidget(self.controls)
        lay.addWidget(self.figures, 1)

        self.controls.edited.connect(lambda changes: self.write(**changes))
        self.controls.unreadable.connect(self._unreadable)
        self.controls.mc_button.clicked.connect(self.start_monte_carlo)
        self.controls.mc_cancel.clicked.connect(self.cancel_monte_carlo)
        self.use_job_buttons(self.controls.mc_button, self.controls.mc_cancel)
        self.mc_clock = ProgressClock(self.controls.progress)
        self.mc_slot.returned.connect(self._on_mc_returned)
        self.mc_slot.yielded.connect(self._on_mc_yielded)
        self.mc_slot.errored.connect(self._on_mc_errored)
        self.mc_slot.busy.connect(self._on_mc_busy)
        self.sync_widgets(frozenset(f for f in self.model.to_session()))

    # ------------------------------------------------------------ parameters
    def _unreadable(self, field: str, message: str) -> None:
        self._report_error(message)
        self.sync_widgets(frozenset({field}))

    def sync_widgets(self, changed: frozenset) -> None:
        super().sync_widgets(changed)
        if self.mc_response is not None and self.mc_current() is None \
                and not self.mc_slot.is_busy():
            self.controls.mc_note.setText("parameters changed: press Run Monte-Carlo to compute")
        self.controls.sync(self.model.params)

    # ------------------------------------------------------------ Monte-Carlo
    def start_monte_carlo(self) -> int:
        """Run the Monte-Carlo on the heavy worker (progress, cancel)."""
        try:
            request = self.model.monte_carlo_request(self.model.params)
        except ValueError as exc:
            self._report_error(str(exc))
            return 0
        self.controls.progress.setValue(0)
        self.mc_clock.start()
        self.controls.mc_note.setText("Monte-Carlo running…")
        return self.mc_slot.submit(request, immediate=True, tag=request)

    def cancel_monte_carlo(self) -> None:
        """Stop the Monte-Carlo: the bar goes back to 0 and the note says where it stopped."""
        if not self.mc_slot.is_busy():
            return
        done = self.controls.progress.value() / 10
        self.mc_slot.cancel()
        self.controls.progress.setValue(0)
        self.controls.mc_note.setText(f"Monte-Carlo cancelled at {done:.0f} %: nothing drawn; "
                                      "press Run Monte-Carlo to compute")

    def mc_current(self):
        """The Monte-Carlo response of the current parameters, or None (another one is never
        drawn nor exported)."""
        if self.mc_response is None:
            return None
        try:
            request = self.model.monte_carlo_request(self.model.params)
        except ValueError:
            return None
        return self.mc_response if request == self._mc_request else None

    def _on_mc_busy(self, busy: bool) -> None:
        self.controls.mc_cancel.setEnabled(busy)
        if not busy:
            self.mc_clock.stop()

    def _on_mc_yielded(self, request_id: int, item, request) -> None:
        self.mc_clock.show(item.fraction)

    def _on_mc_returned(self, request_id: int, response, request) -> None:
        self.mc_response, self._mc_request = response, request
        self.controls.progress.setValue(1000)
        self.controls.mc_note.setText(f"Monte-Carlo done: n = "
                                      f"{', '.join(map(str, response.n_values))}, "
                                      f"{request.seeds} seeds")
        self.redraw()
        if self.model.params.n not in response.n_values:
            self.status.emit(f"{self.title}: learned fractions are drawn when n is one of the "
                             "Monte-Carlo sizes")

    def _on_mc_errored(self, request_id: int, message: str, request) -> None:
        self.controls.progress.setValue(0)
        self.controls.mc_note.setText(f"Monte-Carlo failed: {message}")
        self._report_error(message)

    # ------------------------------------------------------------ drawing
    def apply_response(self, response) -> None:
        p = self.model.params
        self.figures.draw(response, self.mc_current(), p.view, p.dim)
        self.controls.readout.setText(readout_html(response))

    # ------------------------------------------------------------ export
    def plot_items(self) -> dict[str, object]:
        return dict(self.plots)

    def csv_table(self, view: str) -> tuple[list[str], list[list]]:
        head, rows = super().csv_table(view)
        mc = self.mc_current()
        if view == "curve" and mc is not None:
            mh, mrows = mc.csv_table("curve")
            return head + mh[2:], [r + [""] * (len(mh) - 2) for r in rows] + \
                [[m[0], m[1]] + [""] * (len(head) - 2) + m[2:] for m in mrows]
        return head, rows


if __name__ == "__main__":  # pragma: no cover - demo
    import sys

    from ntkviz.gui.app import run_standalone

    sys.exit(run_standalone(QtLearningPanel))
