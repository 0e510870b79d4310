"""The sweep page of the lazy-training tab: its controls, its figures and its job.

The sweep is an on-demand job of the lazy-training panel with a job slot of its own
(key ``<panel key>.sweep``, :class:`ntkviz.jobs.LazySweepSetRequest` from
:meth:`ntkviz.models.training.TrainingModel.sweep_request`): *Run sweep* starts it, *Cancel*
stops it, the progress bar and the figure follow the runs as they finish (a partial result is
drawn and said to be one). A figure draws a sweep only while it answers the model's current
parameters (the request it was computed for equals the model's, as the Monte-Carlo of the
Generalisation tab); otherwise it is empty and says why. A parameter change of the sweep stops
it; Cancel keeps the partial result of these parameters, labelled as partial (as the Stability
tab does), or leaves the figure empty when no run had finished.
"""
from __future__ import annotations

import math
import time
from contextlib import contextmanager

from PySide6 import QtCore, QtWidgets

from ntkviz import limits
from ntkviz.gui.controls import JobControls, LabeledSlider, combo, form_group, int_spin, line_edit
from ntkviz.gui.panels._kernel_controls import set_checked
from ntkviz.gui.panels.training._sweep_figures import (METRIC_NAMES, SCALING_NAMES,
                                                       AlphaSweepFigure, DoubleDescentFigure,
                                                       SweepState, WidthSweepFigure)
from ntkviz.gui.workers import JobSlot
from ntkviz.models.training import (SWEEP_FIELDS, SWEEP_PLOTS, SWEEP_SHOWN_METRICS, SWEEP_VIEWS,
                                    SWEEP_INITS)

__all__ = ["SweepControls", "SweepPage", "SWEEP_KEY_SUFFIX"]

#: the sweep job's dispatcher key is the panel's key and this
SWEEP_KEY_SUFFIX = ".sweep"
#: the least time between two drawings of partial results of a running sweep, in seconds
PARTIAL_DRAW_S = 0.5
#: the figure choices shown (``sweep_plot`` values)
PLOT_NAMES = {"alpha": "against α (lazy ↔ rich)", "width": "against the width m",
              "double_descent": "double descent (random features)"}
#: the data fields the sweep shares with the single run (slider attribute -> field)
SHARED = {"dim": "dim", "samples": "samples", "teacher": "teacher", "lr": "lr", "steps": "steps"}


class SweepControls(QtWidgets.QWidget):
    """The sweep's parameters, the data it shares with the single run, what the figure shows,
    and the Run / Cancel buttons, progress bar and info line. Emits ``edited({field: value})``
    and ``unreadable(field, message)`` (a list that cannot be read)."""

    edited = QtCore.Signal(dict)
    unreadable = QtCore.Signal(str, str)

    def __init__(self, params, parent=None):
        super().__init__(parent)
        from ntkviz.core.training.sweep import SCALINGS

        self.alphas = line_edit("output scales α of the sweep, comma-separated, each in "
                                "[{:g}, {:g}]".format(*limits.ALPHA_RANGE))
        self.widths = line_edit("widths m, comma-separated, each in [{}, {}] (even with the "
                                "symmetric initialisation)".format(*limits.TRAIN_WIDTH_RANGE))
        self.scalings = {s: QtWidgets.QCheckBox(SCALING_NAMES[s]) for s in SCALINGS}
        self.scalings["ntk"].setToolTip("output × 1/√m, the same step for every m: lazy as m grows")
        self.scalings["meanfield"].setToolTip("output × 1/m, steps of lr·m (the mean-field limit): "
                                              "neurons move O(1) at every width")
        self.scalings["none"].setToolTip("output × 1 (the single run's default)")
        scaling_row = QtWidgets.QHBoxLayout()
        for box in self.scalings.values():
            scaling_row.addWidget(box)
        self.train = combo(limits.TRAIN_LAYERS, "trained layers: all, last (random features: the "
                                                "first layer frozen) or first")
        self.noise = QtWidgets.QDoubleSpinBox()
        self.noise.setRange(*limits.TRAIN_NOISE_RANGE)
        self.noise.setDecimals(3)
        self.noise.setSingleStep(0.05)
        self.noise.setKeyboardTracking(False)
        self.noise.setToolTip("std σ of the Gaussian noise on the training targets (test losses "
                              "are against the noiseless teacher)")
        self.closed_form = QtWidgets.QCheckBox("closed form, ridge δ")
        self.closed_form.setToolTip("last layer alone: min ‖Φv − y‖² + δ‖v‖² in closed form "
                                    "instead of gradient descent (δ not multiplied by n)")
        self.ridge = line_edit("ridge δ in [0, 1e6] of the closed-form last layer")
        self.ridge.setText("1e-08")
        ridge_row = QtWidgets.QHBoxLayout()
        ridge_row.addWidget(self.closed_form)
        ridge_row.addWidget(self.ridge, 1)
        self.seeds = int_spin(limits.LAZY_SEEDS_RANGE, "runs per point: seeds seed, seed + 1, …, "
                                                       "each its own teacher, data and initialisation")
        self.init = combo(SWEEP_INITS, "auto: centered (i.i.d. features) for the last layer alone, "
                                       "else symmetric (f(w₀) = 0 in pairs)")
        self.gap = QtWidgets.QDoubleSpinBox()
        self.gap.setRange(0.001, 10.0)
        self.gap.setDecimals(3)
        self.gap.setSingleStep(0.05)
        self.gap.setKeyboardTracking(False)
        self.gap.setToolTip("α*: where |L<sub>net</sub> − L<sub>lin</sub>|/L<sub>lin</sub> of the mean test losses reaches this "
                            "gap, scanning down from the largest α")
        sweep = form_group("Sweep", [("α values", self.alphas), ("widths m", self.widths),
                                     ("scaling", scaling_row), ("trained layers", self.train),
                                     ("label noise σ", self.noise), ridge_row,
                                     ("seeds", self.seeds), ("initialisation", self.init),
                                     ("α* gap", self.gap)])

        int_log = dict(mapping="log", integer=True, steps=300)
        self.data = {
            "dim": LabeledSlider("d", *limits.TRAIN_DIM_RANGE, params.dim, **int_log,
                                 tooltip="input dimension: inputs on Sᵈ⁻¹"),
            "samples": LabeledSlider("n", *limits.TRAIN_SAMPLES_RANGE, params.samples, **int_log,
                                     tooltip="training inputs"),
            "teacher": LabeledSlider("m₀", *limits.TEACHER_RANGE, params.teacher,
                                     tooltip="teacher neurons"),
            "lr": LabeledSlider("step", *limits.LR_RANGE, params.lr, decimals=6, mapping="log",
                                steps=500, tooltip="step size, the same for every α"),
            "steps": LabeledSlider("steps", *limits.STEPS_RANGE, params.steps, **int_log,
                                   tooltip="gradient steps: every run stops at t = step × steps"),
        }
        self.seed = QtWidgets.QDoubleSpinBox()  # integers up to 2³² − 1 (a QSpinBox stops at 2³¹)
        self.seed.setDecimals(0)
        self.seed.setRange(*limits.SEED_RANGE)
        self.seed.setKeyboardTracking(False)
        self.seed.setToolTip("first seed of the teacher, the data and the initialisation")
        data = form_group("Data and steps (shared with the single run)",
                          [*self.data.values(), ("first seed", self.seed)])

        self.plot = combo(PLOT_NAMES.values(), "the figure shown (every one is exported)")
        self.axis = combo(("α", "τ = √α"), "the axis of the α figure")
        self.quantity = combo([METRIC_NAMES[k] for k in SWEEP_SHOWN_METRICS],
                            "the quantity drawn beside the test losses")
        show = form_group("Show", [("figure", self.plot), ("α axis", self.axis),
                                   ("beside the losses", self.quantity)])

        box = QtWidgets.QWidget()
        column = QtWidgets.QVBoxLayout(box)
        column.setContentsMargins(0, 0, 0, 0)
        for group in (sweep, data, show):
            column.addWidget(group)
        self.job = JobControls(box, "Run sweep", max_width=380,
                               tooltip="compute the sweep of these parameters (never started by "
                                       "itself: it trains one network per α, width and seed)")
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.job)
        self.show_params(params)

        self.alphas.editingFinished.connect(lambda: self._list("sweep_alphas", self.alphas, float))
        self.widths.editingFinished.connect(lambda: self._list("sweep_widths", self.widths, int))
        for box in self.scalings.values():
            box.toggled.connect(lambda _: self._emit(sweep_scalings=self.checked_scalings()))
        self.train.currentTextChanged.connect(self._on_train)
        self.noise.valueChanged.connect(lambda v: self._emit(sweep_noise=float(v)))
        self.closed_form.toggled.connect(lambda on: self._on_ridge())
        self.ridge.editingFinished.connect(self._on_ridge)
        self.seeds.valueChanged.connect(lambda v: self._emit(sweep_seeds=int(v)))
        self.init.currentTextChanged.connect(lambda text: self._emit(sweep_init=text))
        self.gap.valueChanged.connect(lambda v: self._emit(sweep_gap=float(v)))
        for field, slider in self.data.items():
            slider.valueChanged.connect(lambda v, field=field: self._emit(**{field: v}))
        self.seed.valueChanged.connect(lambda v: self._emit(seed=int(v)))
        self.plot.currentIndexChanged.connect(lambda i: self._emit(sweep_plot=SWEEP_PLOTS[i]))
        self.axis.currentIndexChanged.connect(
            lambda i: self._emit(sweep_x=("alpha", "tau")[i]))
        self.quantity.currentIndexChanged.connect(
            lambda i: self._emit(sweep_metric=SWEEP_SHOWN_METRICS[i]))

    # ---------------------------------------------------------------- edits
    def _emit(self, **changes) -> None:
        self.edited.emit(changes)

    def _list(self, field: str, edit, kind: type) -> None:
        from ntkviz._text import parse_list

        try:
            values = parse_list(field, edit.text(), kind, allow_blank=False)
        except ValueError as exc:
            self.unreadable.emit(field, str(exc))
            return
        self._emit(**{field: values})

    def checked_scalings(self) -> tuple[str, ...]:
        return tuple(s for s, box in self.scalings.items() if box.isChecked())

    def _on_train(self, layers: str) -> None:
        if layers == "last":
            self._emit(sweep_train=layers)
        else:  # the closed form is the last layer's: it goes with it
            self._emit(sweep_train=layers, sweep_ridge=None)

    def _on_ridge(self) -> None:
        if not self.closed_form.isChecked():
            self._emit(sweep_ridge=None)
            return
        try:
            value = float(self.ridge.text())
        except ValueError:
            self.unreadable.emit("sweep_ridge", f"ridge δ must be a number in [0, 1e6], got "
                                                f"{self.ridge.text()!r}")
            return
        self._emit(sweep_ridge=value)

    # ---------------------------------------------------------------- show
    def show_params(self, p) -> None:
        """Set every control from ``p`` without emitting ``edited``."""
        widgets = [self.alphas, self.widths, *self.scalings.values(), self.train, self.noise,
                   self.closed_form, self.ridge, self.seeds, self.init, self.gap, self.seed,
                   self.plot, self.axis, self.quantity]
        for w in widgets:
            w.blockSignals(True)
        try:
            _set_text(self.alphas, ", ".join(f"{a:g}" for a in p.sweep_alphas))
            _set_text(self.widths, ", ".join(str(m) for m in p.sweep_widths))
            for s, box in self.scalings.items():
                box.setChecked(s in p.sweep_scalings)
            self.train.setCurrentText(p.sweep_train)
            self.noise.setValue(p.sweep_noise)
            self.closed_form.setChecked(p.sweep_ridge is not None)
            self.closed_form.setEnabled(p.sweep_train == "last")
            self.ridge.setEnabled(p.sweep_train == "last")
            if p.sweep_ridge is not None:
                _set_text(self.ridge, f"{p.sweep_ridge:g}")
            self.seeds.setValue(p.sweep_seeds)
            self.init.setCurrentText(p.sweep_init)
            self.gap.setValue(p.sweep_gap)
            self.seed.setValue(p.seed)
            self.plot.setCurrentIndex(SWEEP_PLOTS.index(p.sweep_plot))
            self.axis.setCurrentIndex(("alpha", "tau").index(p.sweep_x))
            self.quantity.setCurrentIndex(SWEEP_SHOWN_METRICS.index(p.sweep_metric))
        finally:
            for w in widgets:
                w.blockSignals(False)
        for field, slider in self.data.items():
            slider.setValue(getattr(p, field), emit=False)
        self.axis.setEnabled(p.sweep_plot == "alpha")


def _set_text(edit, text: str) -> None:
    if edit.text() != text:
        edit.setText(text)
        edit.setCursorPosition(0)


def scrolled_controls(controls: QtWidgets.QWidget, max_width: int) -> QtWidgets.QScrollArea:
    """``controls`` in a vertically scrolling area as wide as they need, at most ``max_width``
    pixels (the left column of each page of the tab)."""
    scroll = QtWidgets.QScrollArea()
    scroll.setWidget(controls)
    scroll.setWidgetResizable(True)
    scroll.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    scroll.setMinimumWidth(controls.sizeHint().width() + 24)
    scroll.setMaximumWidth(max_width)
    return scroll


class SweepPage(QtWidgets.QWidget):
    """The sweep page of ``panel`` (a :class:`~ntkviz.gui.panels.training.QtTrainingPanel`):
    controls on the left, the figure chosen (``sweep_plot``) on the right; the sweep's job slot
    and the response it keeps (see the module docstring)."""

    #: emitted after a sweep response (partial or final) was drawn
    drawn = QtCore.Signal()

    def __init__(self, panel, parent=None):
        super().__init__(parent)
        self.panel = panel
        self.model = panel.model
        self.slot = JobSlot(panel.dispatcher, panel.key + SWEEP_KEY_SUFFIX, f"{panel.title}: sweep",
                            self, own_cancel=True)
        self.response = None  #: the last sweep response received (partial or final)
        self.request = None  #: the request ``response`` answers (or the one running)
        self.cancelled = False  #: the sweep of ``request`` was stopped before its end
        self.error = ""  #: the last failure of the sweep ("" after a success)

        self.controls = SweepControls(self.model.params)
        self.controls.edited.connect(lambda changes: panel.write(**changes))
        self.controls.unreadable.connect(self._unreadable)
        self.job = self.controls.job
        self.job.run_button.clicked.connect(lambda: self.start())
        self.job.cancel_button.clicked.connect(self.cancel)
        scroll = scrolled_controls(self.controls, 400)

        self.figures = {"alpha": AlphaSweepFigure(), "width": WidthSweepFigure(),
                        "double_descent": DoubleDescentFigure()}
        self.stack = QtWidgets.QStackedWidget()
        for fig in self.figures.values():
            self.stack.addWidget(fig.canvas)
        lay = QtWidgets.QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(scroll)
        lay.addWidget(self.stack, 1)

        self._last_partial = -math.inf  #: when a partial result was last drawn
        self._draw_later = QtCore.QTimer(self)  # the partial result kept back, drawn later
        self._draw_later.setSingleShot(True)
        self._draw_later.timeout.connect(lambda: self.redraw())
        self.slot.yielded.connect(self._on_yielded)
        self.slot.returned.connect(self._on_returned)
        self.slot.errored.connect(self._on_errored)
        self.slot.busy.connect(self._on_busy)
        self.sync(frozenset(SWEEP_FIELDS))

    # ------------------------------------------------------------ parameters
    def _unreadable(self, field: str, message: str) -> None:
        self.panel._report_error(message)
        self.controls.show_params(self.model.params)

    def model_request(self):
        """The sweep request of the model's parameters (None if it cannot be built)."""
        try:
            return self.model.sweep_request(self.model.params)
        except ValueError:
            return None

    def current(self):
        """The sweep response of the current parameters (partial or final), or None: another
        one is never drawn nor exported."""
        if self.response is None or self.request is None:
            return None
        return self.response if self.request == self.model_request() else None

    def sync(self, changed: frozenset) -> None:
        """After a model change: show the parameters; a sweep of other parameters is stopped
        and no longer drawn (the figure says why); a display change redraws."""
        p = self.model.params
        self.controls.show_params(p)
        self.stack.setCurrentWidget(self.figures[p.sweep_plot].canvas)
        if self.request is not None and self.request != self.model_request():
            if self.slot.is_busy():
                self.slot.cancel()
                self.job.progress.setValue(0)
            if self.response is not None or self.error or self.cancelled or changed & SWEEP_FIELDS:
                self.job.info.setText("parameters changed: press Run sweep")
        self.redraw()

    # ------------------------------------------------------------ the job
    def start(self) -> int:
        """Run the sweep of the current parameters (progress, Cancel, partial results)."""
        request = self.model_request()
        if request is None:
            try:
                self.model.sweep_request(self.model.params)
            except ValueError as exc:
                self.panel._report_error(str(exc))
            return 0
        self.request, self.response = request, None
        self.cancelled, self.error = False, ""
        self._last_partial = -math.inf
        self.job.progress.setValue(0)
        self.job.info.setText(f"running: {request.run_count} runs…")
        rid = self.slot.submit(request, immediate=True, tag=request)
        self.redraw()
        return rid

    def cancel(self) -> None:
        """Stop the sweep at its next step: the partial result stays, labelled as partial, or
        the figure says that no run had finished."""
        if not self.slot.is_busy():
            return
        done = self.job.progress.value() / 10
        self.slot.cancel()
        self.job.progress.setValue(0)
        self.cancelled = True
        finished = 0 if self.response is None else self.response.finished_runs
        self.job.info.setText(f"cancelled at {done:.0f} %: " + (
            f"the partial result of {finished} runs stays" if finished else
            "no run had finished: press Run sweep"))
        self.redraw()

    def wait(self, timeout_s: float = 1800.0, on_progress=None):
        """Process events until the sweep running (or pending) has returned; returns the
        response of the current parameters. ``on_progress(fraction)`` on each progress item.
        ``ValueError`` with the job's message if it failed or no sweep of these parameters
        exists; ``TimeoutError`` after ``timeout_s`` (headless exports, the command line)."""
        if self.slot.is_busy():
            loop = QtCore.QEventLoop()
            progress = (lambda rid, item, tag: on_progress(float(item.fraction))) \
                if on_progress is not None else None
            if progress is not None:
                self.slot.yielded.connect(progress)

            def finished(busy: bool) -> None:
                if not busy:
                    loop.quit()

            self.slot.busy.connect(finished)
            timer = QtCore.QTimer()
            timer.setSingleShot(True)
            timer.timeout.connect(loop.quit)
            timer.start(int(timeout_s * 1000))
            try:
                loop.exec()
            finally:
                timer.stop()
                self.slot.busy.disconnect(finished)
                if progress is not None:
                    self.slot.yielded.disconnect(progress)
            QtWidgets.QApplication.processEvents()
            if self.slot.is_busy():
                raise TimeoutError(f"{self.panel.title}: the sweep did not finish within "
                                   f"{timeout_s:g} s")
        if self.error:
            raise ValueError(f"{self.panel.title}: the sweep failed: {self.error}")
        response = self.current()
        if response is None or not response.done:
            raise ValueError(f"{self.panel.title}: nothing to export: {self.note()}")
        if on_progress is not None:
            on_progress(1.0)
        return response

    def _mine(self, request) -> bool:
        return request is not None and request == self.request

    def _on_yielded(self, rid: int, item, request) -> None:
        if not self._mine(request):
            return
        self.job.progress.setValue(int(round(1000 * float(item.fraction))))
        partial = item.partial
        # a new drawing once per finished run (items also come within a run: progress only),
        # at most one per PARTIAL_DRAW_S: fast runs would otherwise keep the GUI thread drawing
        if partial is not None and (self.response is None
                                    or partial.finished_runs != self.response.finished_runs):
            self.response = partial
            wait_s = self._last_partial + PARTIAL_DRAW_S - time.perf_counter()
            if wait_s <= 0:
                self.redraw()
            elif not self._draw_later.isActive():
                self._draw_later.start(max(1, int(wait_s * 1000)))

    def _on_returned(self, rid: int, response, request) -> None:
        if not self._mine(request):
            return
        self.response, self.cancelled = response, False
        self.job.progress.setValue(1000)
        runs = int(sum(int(r.runs().sum()) for r in response.responses))
        self.job.info.setText(f"done: {runs} of {request.run_count} runs finished"
                              + ("" if runs == request.run_count else " (the others diverged)"))
        self.redraw()
        self.panel.status.emit(f"{self.panel.title}: sweep done, {request.run_count} runs")

    def _on_errored(self, rid: int, message: str, request) -> None:
        if not self._mine(request):
            return
        self.error = message
        self.job.progress.setValue(0)
        self.job.info.setText(f"the sweep failed: {message}")
        self.panel._report_error(f"sweep: {message}")
        self.redraw()

    def _on_busy(self, busy: bool) -> None:
        self.job.cancel_button.setEnabled(busy)
        self.job.run_button.setText("Restart sweep" if busy else "Run sweep")

    # ------------------------------------------------------------ drawing
    def state(self) -> SweepState:
        r = self.response
        done = r is not None and r.done
        return SweepState(0 if r is None else r.finished_runs,
                          self.request.run_count if self.request is not None else 0,
                          done, self.cancelled and not done)

    def note(self) -> str:
        """What an empty figure says."""
        if self.request is None or self.request != self.model_request():
            if self.response is None and not self.error and not self.cancelled:
                return "press Run sweep to compute"
            return "parameters changed: press Run sweep"
        if self.error:
            return f"not computed: {self.error}"
        if self.slot.is_busy():
            return f"running: 0 of {self.request.run_count} runs finished"
        if self.cancelled:
            return "cancelled before any run finished: press Run sweep"
        return "press Run sweep to compute"

    def redraw(self, which: str | None = None) -> None:
        """Draw the sweep of the current parameters in the figure shown (or ``which``), or
        its empty state."""
        self._draw_later.stop()
        fig = self.figures[which or self.model.params.sweep_plot]
        response = self.current()
        if response is None or response.finished_runs == 0 and not response.done:
            fig.show_nothing(self.note())
        else:
            fig.draw(response, self.model.params, self.state())
            if not response.done:
                self._last_partial = time.perf_counter()
        self.drawn.emit()

    def plot_items(self) -> dict:
        return {SWEEP_VIEWS[name]: fig.layout_item for name, fig in self.figures.items()}

    @contextmanager
    def exporting(self, view: str):
        """``view`` (a sweep view) drawn for the export: refused (``ValueError``) without a
        sweep of the current parameters; offscreen (headless export, gallery) a running sweep
        is waited for first."""
        name = next(k for k, v in SWEEP_VIEWS.items() if v == view)
        if self.slot.is_busy() and QtWidgets.QApplication.platformName() == "offscreen":
            self.wait()
        if self.current() is None:
            raise ValueError(f"{self.panel.title}: nothing to export: {self.note()}")
        self.redraw(name)
        yield

    def csv_table(self) -> tuple[list[str], list[list]]:
        """The sweep's table (one row per (α, width) of each scaling), as drawn."""
        response = self.current()
        if response is None:
            raise ValueError(f"{self.panel.title}: nothing to export: {self.note()}")
        return response.csv_table()


def kappa_text(kappa) -> str:
    """The κ_α read-out of a run: its value at initialisation, or why there is none."""
    if kappa is None:
        return "κ<sub>α</sub>: not reported (only the first layer trains: D²h(w₀) = 0)"
    if not math.isfinite(kappa):
        return "κ<sub>α</sub> = ∞ (Dh(w₀) = 0)"
    return f"κ<sub>α</sub> = {kappa:.3g}"
