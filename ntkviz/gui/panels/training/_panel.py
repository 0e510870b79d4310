"""The lazy-training panel: a two-layer ReLU network trained at output scale α, beside its
linearisation and kernel regression with the tangent kernel (Chizat, Oyallon & Bach 2019).

Two pages (the model's ``page``). **Single run**: views per run (one row, or two rows side by
side for two values of α): neurons p_j = s|a_j|b_j with their trajectories coloured by sign(a_j)
and the teacher neurons; the predictors on the circle; the metrics against time on log axes;
the read-outs (with the laziness κ_α at initialisation). Frames arrive progressively from a
generator job on the heavy pool; the
:class:`~ntkviz.gui.panels.training._player.FramePlayer` plays them. **Sweep**: the
on-demand sweep over α, the width and the scaling (:mod:`~ntkviz.gui.panels.training._sweep`,
a job slot of its own) and its three figures. Parameters live in
:class:`ntkviz.models.training.TrainingModel`; this view only observes it.
"""
from __future__ import annotations

import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets
from PySide6.QtCore import Signal

from ntkviz.gui.panels._base import QtPanel
from ntkviz.gui.panels.training._controls import TrainingControls
from ntkviz.gui.panels.training._player import FramePlayer
from ntkviz.gui.panels.training._figure import TrainingFigure
from ntkviz.gui.panels.training._sweep import SweepPage, kappa_text, scrolled_controls
from ntkviz.models.training import PAGES, SWEEP_VIEWS

__all__ = ["QtTrainingPanel"]

#: smallest canvas (logical pixels): two rows of plots beside the legend column, uncut
CANVAS_MIN = (600, 440)

HELP = """
<h3>Lazy training (Chizat, Oyallon &amp; Bach, NeurIPS 2019)</h3>
<p>Student f(x) = s Σ<sub>j≤m</sub> a<sub>j</sub> max(b<sub>j</sub>·x, 0) (s = 1, or 1/√m with
“NTK scaling”), inputs uniform on the circle (d = 2) or on S<sup>d−1</sup>; teacher
y(x) = Σ<sub>k≤m₀</sub> a*<sub>k</sub> max(b*<sub>k</sub>·x, 0) with ‖b*<sub>k</sub>‖ = 1,
a*<sub>k</sub> = ±1. Symmetrised initialisation (b<sub>j+m/2</sub> = b<sub>j</sub>,
a<sub>j+m/2</sub> = −a<sub>j</sub>, weights N(0, 1)) makes f(w₀) = 0 exactly; “centered” uses
i.i.d. weights and h = f − f(w₀).</p>
<p>Gradient descent on F<sub>α</sub>(w) = α<sup>−2</sup> (1/2n) Σ (α h(w; x<sub>i</sub>) − y<sub>i</sub>)²
with the <b>same step size for every α</b>; time t = step size × steps. Because f is
2-homogeneous, output scale α is the same model as initialisation scale τ = √α
(α = τ²): the paper's τ = 0.1 is α = 0.01 (non-lazy), τ = 2 is α = 4 (lazy). Neurons are
drawn in the paper's τ-parameterisation, p<sub>j</sub> = α s |a<sub>j</sub>| b<sub>j</sub>,
coloured by the sign of a<sub>j</sub>; stars are the teacher neurons.</p>
<p><b>Curves.</b> net α h(w<sub>t</sub>); linearised: gradient descent on
α Dh(w₀)(w − w₀), which is kernel gradient descent with the empirical tangent kernel K₀ and
does not depend on α; kernel K₀ and NTK ∞: the closed-form gradient flows
u′ = −(1/n) K (u − y), u(0) = 0, with K₀ and with the infinite-width NTK
(m s²/2) κ(x·x′), κ = uκ₀ + κ₁ (one eigendecomposition, then predict(t)).</p>
<p><b>Metrics.</b> ‖w − w₀‖ in the α-parameterisation (O(1/α), Thm 2.2) and relative to
‖w₀‖; the net–linearised gap (RMS over test inputs or training inputs); the kernel drift
‖K<sub>t</sub> − K₀‖<sub>F</sub>/‖K₀‖<sub>F</sub> on the training inputs; the share of ReLU
patterns 1{b<sub>j</sub>·x<sub>i</sub> &gt; 0} changed since initialisation. Large α: weights
barely move, the net tracks its linearisation and kernel regression with K₀. Small α: neurons
travel O(1) to the teacher directions.</p>
<p><b>Step size.</b> Lazy runs need step size &lt; 2n/λ<sub>max</sub>(K₀) (shown); small α needs
roughly step size ≲ α/2. A diverging run stops with a message; the frames before stay.</p>
<p><b>Laziness</b> (read-out): κ<sub>α</sub> = (1/α)‖αh(w₀) − y‖ ‖D²h(w₀)‖/‖Dh(w₀)‖² at
initialisation (functions in the empirical L² norm over the training inputs, ‖Dh‖² =
λ<sub>max</sub>(K₀)/n, ‖D²h‖ the operator norm of the bilinear map, exact for the ReLU net):
κ<sub>α</sub> ≪ 1 means lazy. It falls like 1/α.</p>
<h3>Sweep page</h3>
<p>One run per output scale α, width m, seed and output scaling of the width (NTK: s = 1/√m;
mean field: s = 1/m with steps of lr·m; none: s = 1), each to the same time t = step size ×
steps with the same step for every α, on the data of the single run (d, n, m₀, first seed).
Points are means over the seeds that finished, bars ± one standard error s/√k; a quantity
that does not exist is a gap, never a 0. <i>Against α</i>: the test losses of the net, of
its linearisation and of the infinite-width kernel (rich end left, lazy end right) and a
chosen quantity (‖w − w₀‖/‖w₀‖, kernel drift, flipped ReLU patterns, train loss, κ<sub>α</sub>);
the crossover α* of each width is where the mean test losses of the net and of its
linearisation are the stated gap apart (10 % by default, scanning down from the largest α).
<i>Against the width</i>: the same per scaling, with an m<sup>−½</sup> guide for the
displacement under NTK scaling (mean field: it does not vanish). <i>Double descent</i>: train
the last layer alone (random features), with label noise and a small ridge in closed form:
the test loss against m/n peaks at the interpolation threshold m = n and tends to kernel ridge
regression with (m s²/2)κ₁ (drawn as a line) as m → ∞ — not on the circle (d = 2), where
bias-free ReLU features hold few harmonics and there is no peak.</p>
<p><i>Run sweep</i> starts it (it never starts by itself); figures fill in as runs finish.
Cancel keeps the partial result, labelled as partial; changing a parameter of the sweep stops
it and empties the figure.</p>
"""




class QtTrainingPanel(QtPanel):
    """Neurons, predictors and metrics of lazy vs non-lazy training, animated."""

    #: emitted after a frame was drawn: the timeline index
    frame_shown = Signal(int)

    def __init__(self, dispatcher, parent=None, model=None, spec=None):
        super().__init__(dispatcher, parent, model, spec)
        self._request = None  # the request whose frames are shown
        self._pending = None  # the request of the job being submitted
        self._data = None  # latest TrainResponse (partial or final) for _request
        self._changed = frozenset()  # fields of the last model change (for redraw)
        self._writing_frame = False  # the player is storing its frame in the model
        self.frames_drawn = 0

        self.controls = TrainingControls(self.model.params)
        self.controls.edited.connect(self._on_edited)
        scroll = scrolled_controls(self.controls, 380)

        self.canvas = pg.GraphicsLayoutWidget()
        self.canvas.setBackground("w")
        # room for two rows of plots and the legend column beside them: a smaller canvas
        # would cut the figure (the window never gets smaller than this)
        self.canvas.setMinimumSize(*CANVAS_MIN)
        self.canvas.viewport().installEventFilter(self)
        self.figure = TrainingFigure(self.canvas.ci, lambda: self.model.params.metrics,
                                     1 + self.model.params.compare)
        self.layout_item, self.views, self.legend = (self.figure.layout_item, self.figure.views,
                                                     self.figure.legend)

        # one read-out per run, under the figure, never wrapped (so never clipped: its
        # size hint is its text's)
        self.readouts = [QtWidgets.QLabel(), QtWidgets.QLabel()]
        readout_row = QtWidgets.QHBoxLayout()
        for r in self.readouts:
            r.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
            r.setTextFormat(QtCore.Qt.TextFormat.RichText)
            r.setAlignment(QtCore.Qt.AlignmentFlag.AlignLeft | QtCore.Qt.AlignmentFlag.AlignTop)
            r.setVisible(False)
            readout_row.addWidget(r, 1)
        self.player = FramePlayer(self.show_frame, self.frame_count,
                                  lambda: self._data is not None and self._data.done)
        self.player.picked.connect(self._on_picked)

        right = QtWidgets.QVBoxLayout()
        right.addWidget(self.canvas, 1)
        right.addLayout(readout_row)
        right.addWidget(self.player)
        run_page = QtWidgets.QWidget()
        run_lay = QtWidgets.QHBoxLayout(run_page)
        run_lay.setContentsMargins(0, 0, 0, 0)
        run_lay.addWidget(scroll)
        run_lay.addLayout(right, 1)

        #: the sweep page: its controls, figures and job (:class:`SweepPage`)
        self.sweep = SweepPage(self)
        self._run_views_only = False  # while the single run's empty state is shown
        self._sweep_after = False  # start the sweep once the run is drawn (headless start())
        self.computed.connect(self._start_sweep_after_run)
        self.pages = QtWidgets.QTabWidget()
        self.pages.setDocumentMode(True)
        self.pages.addTab(run_page, "Single run")
        self.pages.addTab(self.sweep, "Sweep: α, width, random features")
        self.pages.setTabToolTip(1, "lazy ↔ rich against α, NTK vs mean-field scaling against the "
                                    "width, double descent of random features (on demand)")
        self.pages.setCurrentIndex(PAGES.index(self.model.params.page))
        self.pages.currentChanged.connect(lambda i: self.write(page=PAGES[i]))
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addWidget(self.pages)

    # ------------------------------------------------------------------ model
    def _on_edited(self, changes: dict) -> None:
        self.write(**changes)

    def sync_widgets(self, changed: frozenset) -> None:
        self._changed = changed
        self.controls.show_params(self.model.params)
        if self.pages.currentIndex() != PAGES.index(self.model.params.page):
            self.pages.blockSignals(True)
            self.pages.setCurrentIndex(PAGES.index(self.model.params.page))
            self.pages.blockSignals(False)
        self.sweep.sync(changed)

    def redraw(self) -> None:
        """Display-only changes: the metrics shown, the frame, autoplay."""
        p, changed = self.model.params, self._changed
        if "metrics" in changed:
            for v in self.views:
                v.set_metrics(p.metrics)
            if self.figure.legend_fits_below() != self.figure.legend_below:  # height changed
                self.figure.arrange(self.figure.rows_shown, force=True)
            else:
                self.figure.fill_legend()
        if "autoplay" in changed and not p.autoplay:
            self.pause()
        if "frame" in changed and not self._writing_frame and self.frame_count():
            self.pause()
            self.show_frame(self._resolve(p.frame))

    def _on_picked(self, index: int) -> None:
        """The user scrubbed, stepped or paused at ``index`` (-1: the end)."""
        if index >= 0:
            self.show_frame(index)
        self._writing_frame = True
        try:
            self.write(frame=index)
        finally:
            self._writing_frame = False

    def _resolve(self, frame: int) -> int:
        return self.frame_count() - 1 if frame < 0 else frame

    # ------------------------------------------------------------------ requests
    def build_request(self):
        """The model's request (iterated: cumulative responses, cancellable)."""
        self._pending = self.model.request()
        return self._pending

    def start(self) -> int:
        """Compute the single run now; offscreen (a headless export, the gallery) with the sweep
        page shown, run the sweep too, once the run is drawn (in the app the sweep starts only
        with Run sweep)."""
        rid = super().start()
        self._sweep_after = bool(rid and self.model.params.page == "sweep"
                                 and QtWidgets.QApplication.platformName() == "offscreen")
        return rid

    def _start_sweep_after_run(self, request_id: int) -> None:
        if self._sweep_after and request_id >= self.slot.latest_id():
            self._sweep_after = False
            self.sweep.start()

    def wait_sweep(self, timeout_s: float = 1800.0, on_progress=None):
        """The finished sweep of the current parameters, once the one running has returned
        (:meth:`SweepPage.wait`)."""
        return self.sweep.wait(timeout_s, on_progress)

    def refresh(self, *, immediate: bool = False) -> int:
        """Submit the current parameters; on success the old frames are dropped at once."""
        rid = super().refresh(immediate=immediate)
        if rid:
            self._start_run(self._pending)
        return rid

    def _start_run(self, request) -> None:
        self._request, self._data = request, None
        self.player.index = 0
        self.player.stale = True
        for v in self.views:
            v.clear()
        self.controls.message.setText("")
        self.figure.arrange(len(request.configs()))
        self.player.set_count(0)
        self.player.label.setText("computing…")
        if self.player.is_playing():
            self.player.restart_clock(0)

    def apply_response(self, response) -> None:
        """Take the frames of a (partial or final) response of the run shown."""
        self._take(response)
        if self.partial:
            return
        if response.diverged:
            self.status.emit(f"{self.title}: {response.message}")
        else:
            self.status.emit(f"{self.title}: {len(response.runs[0].frames) - 1} frames after the "
                             "initial one, "
                             + ", ".join(f"α = {r.setup.config.alpha:g}" for r in response.runs))
        if not self.player.is_playing():
            self.show_frame(self._resolve(self.model.params.frame))

    def _take(self, response) -> None:
        if response is None or response.request != self._request:
            return  # a stale item of a superseded run
        first = self._data is None
        self._data = response
        for view, run in zip(self.views, response.runs):
            view.set_result(run, self.model.params.metrics)
        self.controls.lr_limit.setValue(response.runs[0].setup.lr_limit)
        self.player.set_count(self.frame_count())
        if response.diverged:
            self.controls.message.setText(response.message)
        if first:
            self.figure.fill_legend()  # the entries depend on the run (training points: d = 2)
            p = self.model.params
            if p.autoplay and p.frame < 0 and not self.player.is_playing():
                self.player.play()  # starts the clock at frame 0
            elif not self.player.is_playing():
                self.show_frame(0)

    # ------------------------------------------------------------------ timeline
    def frame_count(self) -> int:
        return 0 if self._data is None else self._data.frame_count

    def current_index(self) -> int:
        return self.player.index

    def play(self) -> None:
        self.player.play()

    def pause(self) -> None:
        self.player.pause()

    def is_playing(self) -> bool:
        return self.player.is_playing()

    def show_frame(self, index: int) -> None:
        """Draw timeline frame ``index`` (clamped) in every run."""
        n = self.frame_count()
        if n == 0:
            return
        index = max(0, min(int(index), n - 1))
        self.player.ready = False
        self.player.set_index(index)
        texts = []
        kappas = self._data.kappa_alpha or (None,) * len(self._data.runs)
        for view, run, kappa in zip(self.views, self._data.runs, kappas):
            f = view.draw(index)
            if f is None:
                continue
            m = f.metrics
            cfg = run.setup.config
            late = " (stopped)" if index >= len(run.frames) else ""
            texts.append(
                f"<b>α = {cfg.alpha:.4g}</b> (τ = {cfg.tau:.3g}){late}: step {f.step}, "
                f"t = {f.time:.4g}, {kappa_text(kappa)}<br>train loss {m['train_loss']:.3g}, test loss "
                f"{m['test_loss']:.3g}, gap {m['gap']:.3g}<br>‖w − w₀‖/‖w₀‖ "
                f"{m['relative_displacement']:.3g}, kernel drift {m['kernel_drift']:.3g}, "
                f"ReLU flips {100 * m['flip_share']:.2g}%")
        for label, text in zip(self.readouts, texts + ["", ""]):
            label.setText(text)
            label.setVisible(bool(text))
        self.player.label.setText(self._timeline_text(index))
        self.frames_drawn += 1
        self.frame_shown.emit(index)
        if not self.canvas.isVisible():
            self.player.ready = True  # nothing will be painted (hidden tab, headless)

    def _timeline_text(self, index: int) -> str:
        """``frame i/N, step s, t = …`` under the timeline: frame 0 is the initialisation and
        ``N`` the frames recorded after it, as many as asked (``frames``) unless the run has
        fewer steps (one frame per step, said in brackets); ``…`` while frames still arrive."""
        config = self._request.configs()[0]
        last = len(config.frame_steps()) - 1
        why = f" (only {config.steps} steps)" if last < config.frames else ""
        f0 = self._data.frame(0, index)
        more = "" if self._data.done else " …"
        return f"frame {index}/{last}{why}, step {f0.step}, t = {f0.time:.4g}{more}"

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt API
        """The canvas is about to paint the last frame: the next tick may draw again."""
        if event.type() == QtCore.QEvent.Type.Paint:
            self.player.ready = True
        return False

    # ------------------------------------------------------------------ export
    def plot_items(self) -> dict:
        """The single run's views, and on the sweep page the sweep's three figures."""
        items = {"figure": self.layout_item}
        for k, view in enumerate(self.views[: self.figure.rows_shown]):
            suffix = "" if k == 0 else "_2"
            items.update({f"neurons{suffix}": view.neurons, f"predictor{suffix}": view.predictor,
                          f"metrics{suffix}": view.metrics})
        if self.model.params.page == "sweep" and not self._run_views_only:
            items.update(self.sweep.plot_items())
        return items

    def show_empty(self, note: str) -> None:
        """The single run's empty state: its plots only (the sweep's figures follow the sweep's
        job and say their own note)."""
        self._run_views_only = True
        try:
            super().show_empty(note)
        finally:
            self._run_views_only = False

    def exporting(self, view: str, width: int | None = None, height: int | None = None):
        """See :meth:`TrainingFigure.exporting`; a sweep view: :meth:`SweepPage.exporting`."""
        if view in SWEEP_VIEWS.values():
            return self.sweep.exporting(view)
        return self.figure.exporting(view, width, height)

    def csv_table(self, view: str):
        """The metrics of every frame ("figure", "metrics"), or the neurons / predictors of
        the frame shown, for every run; a sweep view: the sweep's table (one row per (α, m))."""
        if view in SWEEP_VIEWS.values():
            return self.sweep.csv_table()
        self.check_current()
        return self._data.csv_table(view, self.current_index())

    @property
    def frame_ms(self) -> int:
        """Milliseconds per frame of an exported animation (the playback rate)."""
        return round(1000 / self.player.fps)

    def animation_frames(self, view: str, width: int | None = None, height: int | None = None):
        """Every frame of the timeline drawn in ``view``, as images (a GIF export); the
        frame shown before is shown again afterwards."""
        from ntkviz.gui.export import render_image

        self.pause()
        item, shown = self.plot_items()[view], self.current_index()
        try:
            for index in range(self.frame_count()):
                self.show_frame(index)
                yield render_image(item, width, height)
        finally:
            self.show_frame(shown)

    def help_html(self) -> str:
        return HELP

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt API
        self.player.stop_timer()
        super().closeEvent(event)
