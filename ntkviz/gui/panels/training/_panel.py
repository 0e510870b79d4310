"""The lazy-training panel: a two-layer ReLU network trained at output scale α, beside its
linearisation and kernel regression with the tangent kernel (Chizat, Oyallon & Bach 2019).

Views per run (one row, or two rows side by side for two values of α): neurons
p_j = s|a_j|b_j with their trajectories coloured by sign(a_j) and the teacher
neurons; the predictors on the circle; the metrics against time on log axes.
Frames arrive progressively from a generator job on the heavy pool; the
:class:`~ntkviz.gui.panels.training._player.FramePlayer` plays them. Parameters
live in :class:`ntkviz.models.training.TrainingModel`; this view only observes it.
"""
from __future__ import annotations

import contextlib

import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets
from PySide6.QtCore import Signal

from ntkviz.gui.panels._base import QtPanel
from ntkviz.gui.panels.training._controls import TrainingControls
from ntkviz.gui.panels.training._player import FramePlayer
from ntkviz.gui.panels.training._plots import LEGEND_GROUPS, RunView, fill_legend, make_legend
from ntkviz.models.training import TrainingModel

__all__ = ["QtTrainingPanel"]

#: a figure narrower than this (logical pixels: a small window or export) has its legend
#: under the plots, in three columns, so that the plots keep their width — when it is tall
#: enough for that (200 px per row of plots left); else the legend stays beside them
NARROW_PX = 860
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
"""




class QtTrainingPanel(QtPanel):
    """Neurons, predictors and metrics of lazy vs non-lazy training, animated."""

    key = "training"
    title = "Lazy training"
    heavy = True
    generator = True
    model_cls = TrainingModel

    #: emitted after a frame was drawn: the timeline index
    frame_shown = Signal(int)

    def __init__(self, dispatcher, parent=None, model=None):
        super().__init__(dispatcher, parent, model)
        self._request = None  # the request whose frames are shown
        self._pending = None  # the request of the job being submitted
        self._data = None  # latest TrainResponse (partial or final) for _request
        self._changed = frozenset()  # fields of the last model change (for redraw)
        self._writing_frame = False  # the player is storing its frame in the model
        self.frames_drawn = 0

        self.controls = TrainingControls(self.model.params)
        self.controls.edited.connect(self._on_edited)
        scroll = QtWidgets.QScrollArea()
        scroll.setWidget(self.controls)
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setMinimumWidth(self.controls.sizeHint().width() + 24)
        scroll.setMaximumWidth(380)

        self.canvas = pg.GraphicsLayoutWidget()
        self.canvas.setBackground("w")
        # room for two rows of plots and the legend column beside them: a smaller canvas
        # would cut the figure (the window never gets smaller than this)
        self.canvas.setMinimumSize(*CANVAS_MIN)
        self.canvas.viewport().installEventFilter(self)
        self.layout_item = self.canvas.ci
        self.views = [RunView(), RunView()]
        self.legend = make_legend()
        self._rows_shown = 0
        self._legend_below = False  # under the plots (narrow figure) or beside them
        self._arrange(1 + self.model.params.compare)
        # an export lays the figure out at its own size: the legend moves with it
        self.layout_item.geometryChanged.connect(self._on_figure_resized)

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
        lay = QtWidgets.QHBoxLayout(self)
        lay.addWidget(scroll)
        lay.addLayout(right, 1)

    # ------------------------------------------------------------------ model
    def _on_edited(self, changes: dict) -> None:
        try:
            self.model.update_run(**changes)
        except ValueError as exc:
            self._report_error(str(exc))
            self.controls.show_params(self.model.params)  # back to what the model holds

    def sync_widgets(self, changed: frozenset) -> None:
        self._changed = changed
        self.controls.show_params(self.model.params)

    def redraw(self) -> None:
        """Display-only changes: the metrics shown, the frame, autoplay."""
        p, changed = self.model.params, self._changed
        if "metrics" in changed:
            for v in self.views:
                v.set_metrics(p.metrics)
            if self._legend_fits_below() != self._legend_below:  # its height changed
                self._arrange(self._rows_shown, force=True)
            else:
                self._fill_legend()
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
            self.model.update(frame=index)
        finally:
            self._writing_frame = False

    def _resolve(self, frame: int) -> int:
        return self.frame_count() - 1 if frame < 0 else frame

    # ------------------------------------------------------------------ requests
    def build_request(self):
        """The generator job: the request's ``iterate`` (cumulative responses, cancellable)."""
        self._pending = self.model.request()
        return self._pending.iterate

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
        self._arrange(len(request.configs()))
        self.player.set_count(0)
        self.player.label.setText("computing…")
        if self.player.is_playing():
            self.player.restart_clock(0)

    def apply_item(self, item) -> None:
        self._take(item)

    def apply_response(self, response) -> None:
        self._take(response)
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
            self._fill_legend()  # the entries depend on the run (training points: d = 2)
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
        for view, run in zip(self.views, self._data.runs):
            f = view.draw(index)
            if f is None:
                continue
            m = f.metrics
            cfg = run.setup.config
            late = " (stopped)" if index >= len(run.frames) else ""
            texts.append(
                f"<b>α = {cfg.alpha:.4g}</b> (τ = {cfg.tau:.3g}){late}: step {f.step}, "
                f"t = {f.time:.4g}<br>train loss {m['train_loss']:.3g}, test loss "
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

    def _arrange(self, rows: int, force: bool = False) -> None:
        """Lay out one row of plots per run and the legend: in its own column, or in a
        row under the plots when the figure is narrower than :data:`NARROW_PX`."""
        if rows == self._rows_shown and not force:
            return
        lay = self.layout_item
        for view in self.views[: self._rows_shown]:
            for plot in view.plots():
                lay.removeItem(plot)
        if self._rows_shown:
            lay.removeItem(self.legend)
        for r, view in enumerate(self.views[:rows]):
            for c, plot in enumerate(view.plots()):
                lay.addItem(plot, row=r, col=c)
        self._rows_shown = rows
        self._legend_below = below = self._legend_fits_below()
        self._fill_legend()
        if below:
            lay.addItem(self.legend, row=rows, col=0, colspan=3)
            lay.layout.setAlignment(self.legend, QtCore.Qt.AlignmentFlag.AlignHCenter)
        else:
            lay.addItem(self.legend, row=0, col=3, rowspan=rows)
            lay.layout.setAlignment(self.legend, QtCore.Qt.AlignmentFlag.AlignTop)
        # a narrow figure gives its spare width to the metric plot (a label per decade)
        narrow = lay.geometry().width() < NARROW_PX
        for view in self.views:
            view.set_compact(narrow)
        for c, stretch in enumerate((3, 2, 4, 0) if narrow else (10, 10, 13, 0 if below else 1)):
            lay.layout.setColumnStretchFactor(c, stretch)
        for r in range(rows + 1):
            lay.layout.setRowStretchFactor(r, 0 if r == rows else 1)

    def _legend_fits_below(self) -> bool:
        """Narrow figure, and room under the plots for the legend in three columns (its
        height estimated: about 21 px per row) leaving 200 px per row of plots and at least
        twice the legend's height to the plots (else the legend squeezes them: beside
        them it takes less of the figure)."""
        size = self.layout_item.geometry().size()
        legend_rows = 1 + max(4, 6, len(self.model.params.metrics))
        legend_height = 21 * legend_rows + 20
        plots_height = size.height() - legend_height
        return (size.width() < NARROW_PX and plots_height / max(self._rows_shown, 1) >= 200
                and plots_height >= 2 * legend_height)

    def _fill_legend(self) -> None:
        # beside the plots of a narrow figure: smaller text leaves the metric plot the
        # width of a label per decade of time
        narrow = self.layout_item.geometry().width() < NARROW_PX and not self._legend_below
        self.legend.opts["labelTextSize"] = "7pt" if narrow else "8pt"
        fill_legend(self.legend, self.views[0], self.model.params.metrics,
                    columns=3 if self._legend_below else 1, compact=narrow)

    def _on_figure_resized(self) -> None:
        narrow = self.layout_item.geometry().width() < NARROW_PX
        if (self._legend_fits_below() != self._legend_below
                or narrow != self.views[0].compact):
            self._arrange(self._rows_shown, force=True)

    # ------------------------------------------------------------------ export
    def plot_items(self) -> dict:
        items = {"figure": self.layout_item}
        for k, view in enumerate(self.views[: self._rows_shown]):
            suffix = "" if k == 0 else "_2"
            items.update({f"neurons{suffix}": view.neurons, f"predictor{suffix}": view.predictor,
                          f"metrics{suffix}": view.metrics})
        return items

    @contextlib.contextmanager
    def exporting(self, view: str, width: int | None = None, height: int | None = None):
        """A plot exported alone (``neurons``, ``predictor``, ``metrics``, ``…_2``) gets
        its group of the figure's legend, off the data: in a column right of its plot
        area, or under it when the export is narrow (< 480 logical px) and tall enough
        (≥ 360, and four times the legend's height); a thumbnail (narrow and short, e.g. a
        plot's on-screen cell) has no room for one. The figure keeps its one shared legend."""
        from ntkviz.gui.export import export_geometry

        name, _, second = view.partition("_")
        if name not in LEGEND_GROUPS:
            yield
            return
        run = self.views[1 if second else 0]
        item = getattr(run, name)
        w, h, scale = export_geometry(item, width, height)
        legend = make_legend()
        fill_legend(legend, run, self.model.params.metrics, groups=(name,))
        need = legend.layout.effectiveSizeHint(QtCore.Qt.SizeHint.PreferredSize)
        # under the plot only when it leaves the plot twice the legend's height
        beside, below = w / scale >= 480, h / scale >= max(360, 4 * need.height())
        if not (beside or below):
            legend.clear()
            yield
            return
        if beside:
            item.layout.addItem(legend, 2, 3)  # right of the view box (PlotItem grid: axes 0–2)
            item.layout.setAlignment(legend, QtCore.Qt.AlignmentFlag.AlignTop)
        else:
            item.layout.addItem(legend, 4, 1)  # under the bottom axis
            item.layout.setAlignment(legend, QtCore.Qt.AlignmentFlag.AlignHCenter)
        try:
            yield
        finally:
            item.layout.removeItem(legend)
            legend.clear()
            if legend.scene() is not None:
                legend.scene().removeItem(legend)
            # the figure's grid gave the plot room for the legend: lay it out again now
            QtWidgets.QApplication.sendPostedEvents(None, QtCore.QEvent.Type.LayoutRequest)

    def csv_table(self, view: str):
        """The metrics of every frame ("figure", "metrics"), or the neurons / predictors of
        the frame shown, for every run."""
        if self._data is None:
            raise ValueError("nothing computed yet")
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
