"""Classification view: kernel ridge accuracy of CKN, NTK, pixels and scattering on bundled digits,
and the spectrum & theory of their Gram matrices.

Three pages (the model's display field ``page``):

* **Accuracy** — accuracy against the training size (test digits undeformed or at the first
  amplitude) and against the amplitude of a deformation of the test digits (largest training
  size), each point with its error bar (95 % Wilson interval, or ± s.e. over random splits);
* **Per class** — the confusion matrix of one kernel (largest training size, first amplitude);
* **Spectrum & theory** — the spectra and label alignment of the pool's Gram matrices, the
  predicted and measured learning curve and the Arora et al. certificate with true and random
  labels (:mod:`ntkviz.gui.panels._theory_figure`).

Two jobs, each on demand with its own Start, Cancel and progress: the classification
(:class:`ntkviz.jobs.ClassifyRequest`, the panel's slot) and the spectrum & theory
(:class:`ntkviz.jobs.ClassifyTheoryRequest`, its own :class:`~ntkviz.gui.workers.JobSlot`,
key :data:`THEORY_KEY`). Both cache their conv Gram matrices as Zarr stores in the same
folder, so a rerun (or another ridge, training size or draw count) costs no kernel
evaluation. Each figure draws only a result of the current parameters: a change that alters
a job's request empties that job's plots (with a note); the other job's plots stay.
Maths: :mod:`ntkviz.dataset.classify`, :mod:`ntkviz.jobs._classify_theory`.
"""
from __future__ import annotations

from contextlib import contextmanager

from PySide6 import QtWidgets
from PySide6.QtCore import Slot

from ntkviz import limits
from ntkviz._text import parse_list
from ntkviz.dataset._names import ALL_KERNELS, DEFORM_FAMILIES, FAMILY_RANGES
from ntkviz.gui.controls import JobControls, combo, form_group, int_spin, line_edit
from ntkviz.gui.panels._base import OnDemandPanel
from ntkviz.gui.panels._classification_figures import STYLE, AccuracyPlots, ConfusionPlot
from ntkviz.gui.panels._theory_figure import THEORY_VIEWS, TheoryPlots
from ntkviz.gui.plot_style import empty_note
from ntkviz.gui.workers import JobSlot

__all__ = ["QtClassificationPanel", "THEORY_KEY", "STYLE"]

#: the spectrum & theory job's key
THEORY_KEY = "classification.theory"
#: page field value -> tab text
PAGE_TITLES = {"accuracy": "Accuracy", "confusion": "Per class", "theory": "Spectrum && theory"}
#: the views drawn from the classification (the others from the spectrum & theory)
CLASSIFY_VIEWS = ("train_size", "deformation", "confusion")
#: smallest size of each spectrum & theory plot (px): axes, legend and note readable
THEORY_PLOT_MIN = (420, 380)


def _ridge(text: str) -> float | None:
    """The ridge field: ``auto`` (or nothing) -> ``None`` (cross-validation), else a number."""
    if text.strip().lower() in ("auto", ""):
        return None
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"ridge must be a number or 'auto', got {text!r}") from None


def _number(name: str):
    def parse(text: str) -> float:
        try:
            return float(text)
        except ValueError:
            raise ValueError(f"{name} must be a number, got {text!r}") from None

    return parse


def theory_sizes_for(pool: int) -> tuple[int, ...]:
    """Four training sizes spread over [pool/6, 2·pool/3] (at least 1, below the pool)."""
    sizes = sorted({max(1, min(pool - 1, round(pool * f))) for f in (1 / 6, 1 / 3, 1 / 2, 2 / 3)})
    return tuple(sizes)


class QtClassificationPanel(OnDemandPanel):
    """Accuracy, confusion and spectrum & theory of the bundled digits (module docstring)."""

    def __init__(self, dispatcher, parent=None, model=None, spec=None):
        super().__init__(dispatcher, parent, model, spec)
        self.theory_response = None  #: the last spectrum & theory response drawn (or None)
        self._theory_request = None  # the request it answers
        self._theory_running = None  # the request the theory slot computes now
        self._scope = None  # while set, plot_items() lists only these views
        #: the spectrum & theory job (its Cancel button is on its page)
        self.theory_slot = JobSlot(dispatcher, THEORY_KEY, f"{self.title}: spectrum & theory", self,
                                   own_cancel=True)
        self._build()
        self.theory_slot.returned.connect(self._on_theory_returned)
        self.theory_slot.yielded.connect(self._on_theory_yielded)
        self.theory_slot.errored.connect(self._on_theory_errored)
        self.theory_slot.busy.connect(self._on_theory_busy)
        self.model.connect(self._on_params_changed)
        self.sync_widgets(frozenset())
        self.show_empty(self.idle_note())
        self._clear_theory(self.theory_idle_note())

    # ------------------------------------------------------------------ layout
    def _build(self) -> None:
        self.arch_combo = combo(limits.ARCH_PRESETS,
                                "Conv architecture of the CKN and NTK (M4: exp kernel, no NTK).")
        self.kernel_checks = {}
        kernels = QtWidgets.QGridLayout()
        tips = {"ckn": "exact convolutional kernel network (last layer trained)",
                "ntk": "exact convolutional neural tangent kernel",
                "pixels": "Gaussian kernel exp(−|x − y|²/(2h²)) on raw pixels, h the median distance",
                "scattering": "the same Gaussian kernel on the scattering coefficients S<sub>J</sub>x "
                              "(J = 2, L = 8), h the median distance"}
        for i, k in enumerate(ALL_KERNELS):
            cb = QtWidgets.QCheckBox(STYLE[k][0])
            cb.setToolTip(tips[k])
            cb.toggled.connect(self._on_kernels)
            self.kernel_checks[k] = cb
            kernels.addWidget(cb, i // 2, i % 2)
        self.sizes_edit = line_edit("Training sizes, comma-separated (nested subsets of a seeded "
                                    "permutation).")
        self.test_spin = int_spin(limits.CLASSIFY_TEST_RANGE, "Test digits (the rest of the 1,000 "
                                                              "bundled digits is the training pool).")
        self.ridge_edit = line_edit("Ridge relative to the mean kernel diagonal, or 'auto': 5-fold "
                                    "cross-validation on the training set.")
        self.family_combo = combo(["none", *DEFORM_FAMILIES])
        self.amps_edit = line_edit("Deformation amplitudes of the test digits, comma-separated.")
        self.seed_spin = int_spin((0, 2**31 - 1), "Seed of the split, the training order and the "
                                                  "cross-validation folds.")
        self.splits_spin = int_spin(limits.CLASSIFY_SPLITS_RANGE,
                                    "Random train/test splits: 1 shows each accuracy with its 95 % Wilson "
                                    "interval; more repeat the run and show mean ± s.e. over the splits.")
        self.cache_check = QtWidgets.QCheckBox("cache Gram matrices on disk")
        box = form_group("Classification of bundled digits", [
            ("architecture", self.arch_combo), ("kernels", kernels), ("training sizes", self.sizes_edit),
            ("test digits", self.test_spin), ("ridge", self.ridge_edit), ("deformation", self.family_combo),
            ("amplitudes", self.amps_edit), ("seed", self.seed_spin), ("splits", self.splits_spin),
            self.cache_check])
        controls = JobControls(box, self.run_text, max_width=300,
                               tooltip="compute (or load from the cache) the Gram matrices and "
                                       "classify; runs in the background")
        self.use_controls(controls)
        self.run_button.clicked.disconnect()
        self.run_button.clicked.connect(lambda: self.start_classification())

        self.accuracy = AccuracyPlots()
        self.plots = dict(self.accuracy.plots)
        self.curves, self.bars = self.accuracy.curves, self.accuracy.bars
        self.size_widget, self.amp_widget = self.accuracy.size_widget, self.accuracy.amp_widget
        accuracy_page = QtWidgets.QWidget()
        lay = QtWidgets.QVBoxLayout(accuracy_page)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.size_widget, 1)
        lay.addWidget(self.amp_widget, 1)

        self.confusion = ConfusionPlot()
        self.confusion_combo = combo([], "The kernel whose predictions the matrix counts.")
        confusion_page = QtWidgets.QWidget()
        lay = QtWidgets.QVBoxLayout(confusion_page)
        lay.setContentsMargins(0, 0, 0, 0)
        row = QtWidgets.QHBoxLayout()
        row.addWidget(QtWidgets.QLabel("kernel"))
        row.addWidget(self.confusion_combo)
        row.addStretch(1)
        lay.addLayout(row)
        lay.addWidget(self.confusion.widget, 1)

        self.theory = TheoryPlots()
        theory_page = QtWidgets.QWidget()
        lay = QtWidgets.QVBoxLayout(theory_page)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self._theory_controls())
        plots = QtWidgets.QWidget()
        grid = QtWidgets.QGridLayout(plots)
        grid.setContentsMargins(0, 0, 0, 0)
        for i, view in enumerate(THEORY_VIEWS):
            self.theory.widgets[view].setMinimumSize(*THEORY_PLOT_MIN)
            grid.addWidget(self.theory.widgets[view], i // 2, i % 2)
        scroll = QtWidgets.QScrollArea()  # four plots with their notes: scroll rather than squeeze
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        scroll.setWidget(plots)
        lay.addWidget(scroll, 1)

        self.pages = QtWidgets.QTabWidget()
        self.page_widgets = {"accuracy": accuracy_page, "confusion": confusion_page, "theory": theory_page}
        for page, widget in self.page_widgets.items():
            self.pages.addTab(widget, PAGE_TITLES[page])
        main = QtWidgets.QHBoxLayout(self)
        main.setContentsMargins(2, 2, 2, 2)
        main.addWidget(controls)
        main.addWidget(self.pages, 1)

        self.arch_combo.currentTextChanged.connect(lambda v: self.write(architecture=v))
        self.sizes_edit.editingFinished.connect(
            lambda: self._set_text(self.sizes_edit, "train_sizes", lambda t: parse_list("train_sizes", t)))
        self.amps_edit.editingFinished.connect(
            lambda: self._set_text(self.amps_edit, "amplitudes", lambda t: parse_list("amplitudes", t, float)))
        self.ridge_edit.editingFinished.connect(lambda: self._set_text(self.ridge_edit, "ridge", _ridge))
        self.test_spin.valueChanged.connect(lambda v: self.write(test_size=int(v)))
        self.seed_spin.valueChanged.connect(lambda v: self.write(seed=int(v)))
        self.splits_spin.valueChanged.connect(lambda v: self.write(splits=int(v)))
        self.family_combo.currentTextChanged.connect(self._on_family)
        self.cache_check.toggled.connect(lambda v: self.write(use_cache=bool(v)))
        self.confusion_combo.currentIndexChanged.connect(self._on_confusion_kernel)
        self.pages.currentChanged.connect(lambda i: self.write(page=list(self.page_widgets)[i]))

    def _theory_controls(self) -> QtWidgets.QWidget:
        """The spectrum & theory job's parameters, Start, Cancel, progress and note, in two rows."""
        self.pool_spin = int_spin(limits.THEORY_POOL_RANGE, "Labelled digits of the pool: the first N training "
                                                           "digits in the classification's seeded order.")
        self.theory_sizes_edit = line_edit("Training sizes n below the pool size, comma-separated: random "
                                           "subsets of the pool, tested on the rest of it.")
        self.theory_ridge_edit = line_edit("Ridge δ relative to the mean kernel diagonal (0: interpolation; "
                                           "a numerically singular H is pseudo-inverted, and said).")
        self.draws_spin = int_spin(limits.DATA_DRAWS_RANGE, "Random training subsets per n (mean ± s.e.).")
        self.theory_seed_spin = int_spin((0, 2**31 - 1), "Seed of the subsets and of the label permutation.")
        self.random_check = QtWidgets.QCheckBox("random labels")
        self.random_check.setToolTip("Also a seeded permutation of the labels (the same subsets): the "
                                     "certificate grows with n, the error does not fall.")
        self.theory_run = QtWidgets.QPushButton("Start theory")
        self.theory_run.setToolTip("compute (or read from the cache) the pool's Gram matrices, their "
                                   "spectra, the predicted and measured learning curves and the certificate")
        self.theory_cancel = QtWidgets.QPushButton("Cancel")
        self.theory_cancel.setEnabled(False)
        self.theory_progress = QtWidgets.QProgressBar()
        self.theory_progress.setRange(0, 1000)
        self.theory_progress.setFormat("%p%")
        self.theory_info = QtWidgets.QLabel()
        self.theory_info.setWordWrap(True)
        box = QtWidgets.QGroupBox("Spectrum && theory on a pool of labelled digits")
        grid = QtWidgets.QGridLayout(box)
        grid.setContentsMargins(6, 4, 6, 4)
        row0 = [("pool N", self.pool_spin), ("sizes n", self.theory_sizes_edit), ("ridge δ", self.theory_ridge_edit),
                ("draws", self.draws_spin), ("seed", self.theory_seed_spin)]
        col = 0
        for label, widget in row0:
            grid.addWidget(QtWidgets.QLabel(label), 0, col)
            grid.addWidget(widget, 0, col + 1)
            col += 2
        grid.addWidget(self.random_check, 0, col)
        grid.addWidget(self.theory_run, 1, 0, 1, 2)
        grid.addWidget(self.theory_cancel, 1, 2, 1, 2)
        grid.addWidget(self.theory_progress, 1, 4, 1, 2)
        grid.addWidget(self.theory_info, 1, 6, 1, col - 5)
        grid.setColumnStretch(3, 2)

        self.pool_spin.valueChanged.connect(self._on_pool)
        self.theory_sizes_edit.editingFinished.connect(
            lambda: self._set_text(self.theory_sizes_edit, "theory_sizes",
                                   lambda t: parse_list("theory_sizes", t)))
        self.theory_ridge_edit.editingFinished.connect(
            lambda: self._set_text(self.theory_ridge_edit, "theory_ridge", _number("theory_ridge")))
        self.draws_spin.valueChanged.connect(lambda v: self.write(draws=int(v)))
        self.theory_seed_spin.valueChanged.connect(lambda v: self.write(theory_seed=int(v)))
        self.random_check.toggled.connect(lambda v: self.write(random_labels=bool(v)))
        self.theory_run.clicked.connect(lambda: self.start_theory())
        self.theory_cancel.clicked.connect(self.cancel_theory)
        return box

    # ------------------------------------------------------------ parameters
    def _set_text(self, edit, field, parse) -> None:
        try:
            value = parse(edit.text())
        except ValueError as exc:  # the message names the field
            self._report_error(str(exc))
            self.sync_widgets(frozenset({field}))
            return
        self.write(**{field: value})

    def _on_kernels(self) -> None:
        kernels = tuple(k for k in ALL_KERNELS if self.kernel_checks[k].isChecked())
        changes = {"kernels": kernels}
        if self.model.params.confusion_kernel not in ("", *kernels):
            changes["confusion_kernel"] = ""  # the kernel shown is gone: show the first
        self.write(**changes)

    def _on_family(self, family: str) -> None:
        p = self.model.params
        if family == p.family:
            return
        amps = p.amplitudes if family == "none" else self._default_amplitudes(family)
        self.write(family=family, amplitudes=amps)

    def _on_pool(self, pool: int) -> None:
        """A new pool size keeps the training sizes below it (others are dropped, four new ones
        when none is left)."""
        sizes = tuple(n for n in self.model.params.theory_sizes if n < pool) or theory_sizes_for(pool)
        self.write(pool_size=int(pool), theory_sizes=sizes)

    def _on_confusion_kernel(self, index: int) -> None:
        kernels = self.model.params.kernels
        if 0 <= index < len(kernels):
            self.write(confusion_kernel="" if index == 0 else kernels[index])

    @staticmethod
    def _default_amplitudes(family: str) -> tuple[float, ...]:
        return {"rotation": (0.0, 15.0, 30.0), "translation": (0.0, 1.0, 2.0), "scale": (1.0, 1.1, 1.2),
                "shear": (0.0, 0.1, 0.2), "smooth": (0.0, 0.5, 1.0), "infimnist": (0.0, 1.0, 2.0)}[family]

    def _widgets(self) -> list:
        return [self.arch_combo, self.sizes_edit, self.test_spin, self.ridge_edit, self.family_combo,
                self.amps_edit, self.seed_spin, self.splits_spin, self.cache_check, *self.kernel_checks.values(),
                self.confusion_combo, self.pages, self.pool_spin, self.theory_sizes_edit,
                self.theory_ridge_edit, self.draws_spin, self.theory_seed_spin, self.random_check]

    def sync_widgets(self, changed: frozenset) -> None:
        p = self.model.params
        widgets = self._widgets()
        for w in widgets:
            w.blockSignals(True)
        try:
            self.arch_combo.setCurrentText(p.architecture)
            for k, cb in self.kernel_checks.items():
                cb.setChecked(k in p.kernels)
            self.sizes_edit.setText(", ".join(str(n) for n in p.train_sizes))
            self.test_spin.setValue(p.test_size)
            self.ridge_edit.setText("auto" if p.ridge is None else f"{p.ridge:g}")
            self.family_combo.setCurrentText(p.family)
            self.amps_edit.setText(", ".join(f"{a:g}" for a in p.amplitudes))
            self.amps_edit.setEnabled(p.family != "none")
            self.seed_spin.setValue(p.seed)
            self.splits_spin.setValue(p.splits)
            self.cache_check.setChecked(p.use_cache)
            names = [STYLE[k][0] for k in p.kernels]
            if [self.confusion_combo.itemText(i) for i in range(self.confusion_combo.count())] != names:
                self.confusion_combo.clear()
                self.confusion_combo.addItems(names)
            self.confusion_combo.setCurrentIndex(p.kernels.index(p.shown_confusion_kernel))
            self.pages.setCurrentIndex(list(self.page_widgets).index(p.page))
            self.pool_spin.setValue(p.pool_size)
            self.theory_sizes_edit.setText(", ".join(str(n) for n in p.theory_sizes))
            self.theory_ridge_edit.setText(f"{p.theory_ridge:g}")
            self.draws_spin.setValue(p.draws)
            self.theory_seed_spin.setValue(p.theory_seed)
            self.random_check.setChecked(p.random_labels)
        finally:
            for w in widgets:
                w.blockSignals(False)
        self.accuracy.set_family_label(p.family, FAMILY_RANGES[p.family][1] if p.family != "none" else "")

    # ------------------------------------------------------------ the classification
    def build_request(self):
        """The classification of the current parameters (the panel's own slot)."""
        return self.model.classify_request(self.model.params)

    def idle_note(self) -> str:
        """Press Start, and what the run costs."""
        try:
            pairs = self.build_request().pairs()
        except ValueError:
            return super().idle_note()
        cost = (f"about {pairs:,} conv kernel pairs the first time (M1: ~2.5 ms each), cached "
                "afterwards" if pairs else "no conv kernel: seconds")
        return f"{super().idle_note()} ({cost})"

    def start(self) -> int:
        """Compute what the page shown draws: the spectrum & theory on its page, else the
        classification (the app's start-up on this tab, headless exports)."""
        if self.model.params.page == "theory":
            return self.start_theory()
        return super().start()

    def start_classification(self) -> int:
        """The classification's Start button: run it, and show its results (leaving the
        spectrum & theory page for the accuracy page)."""
        if self.model.params.page == "theory":
            self.write(page="accuracy")
        return super().start()

    def apply_response(self, response) -> None:
        """Draw the (partial or final) accuracies and the confusion matrix of these parameters."""
        if not self.partial:
            self.progress.setValue(1000)
            ridges = "; ".join(f"{STYLE[k][0]} {lam:g}" for (k, n), lam in
                               response.result.ridges.items() if n == max(response.train_sizes))
            note = response.result.coverage_warning()
            self.info.setText(f"done. {response.n_test} test digits; ridge (relative) at n = "
                              f"{max(response.train_sizes)}: {ridges}" + (f"\nwarning: {note}" if note else ""))
        self.accuracy.draw(response)
        self._draw_confusion(response)

    def _draw_confusion(self, response) -> None:
        p = self.model.params
        kernel = p.shown_confusion_kernel
        found = response.confusion(kernel)
        if found is None:
            self.confusion.clear()
            self.confusion.note.set_html("")
            return
        matrix, classes, n, amp = found
        self.confusion.draw(kernel, matrix, classes, n, amp, response.family, response.n_test)

    @contextmanager
    def _only(self, views):
        outer, self._scope = self._scope, tuple(views)
        try:
            yield
        finally:
            self._scope = outer

    def show_empty(self, note: str) -> None:
        """Empty the classification's plots (the spectrum & theory has its own state)."""
        with self._only(CLASSIFY_VIEWS):
            super().show_empty(note)

    def _on_model_changed(self, changed: frozenset, recompute: bool) -> None:
        """As every panel, but a change of the spectrum & theory's own fields never touches the
        classification (its job, its plots); :meth:`_on_params_changed` handles them."""
        main = bool(changed - self.model.display_only - self.model.theory_only)
        super()._on_model_changed(changed, recompute and main)

    # ------------------------------------------------------------ the spectrum & theory
    def theory_request(self):
        """The spectrum & theory request of the current parameters (``ValueError`` if none)."""
        return self.model.theory_request(self.model.params)

    def theory_idle_note(self) -> str:
        try:
            request = self.theory_request()
        except ValueError as exc:
            return str(exc)
        pairs = request.pairs()
        cost = (f"about {pairs:,} conv kernel pairs the first time (M1: ~2.5 ms each), read from the "
                "cache afterwards" if pairs else "no conv kernel: seconds")
        return f"press Start theory to compute ({cost})"

    def theory_current(self):
        """The spectrum & theory response of the current parameters, or None."""
        if self.theory_response is None:
            return None
        try:
            request = self.theory_request()
        except ValueError:
            return None
        return self.theory_response if request == self._theory_request else None

    def start_theory(self) -> int:
        """Run the spectrum & theory on the heavy worker (progress, Cancel) and show its page."""
        try:
            request = self.theory_request()
        except ValueError as exc:
            self._report_error(str(exc))
            return 0
        if self.model.params.page != "theory":
            self.write(page="theory")
        self._theory_running = request
        self.theory_progress.setValue(0)
        self.theory_info.setText("running…")
        self._clear_theory("running…")
        return self.theory_slot.submit(request, immediate=True, tag=request)

    def cancel_theory(self) -> None:
        """Stop the spectrum & theory: a partial result of these parameters stays (said so)."""
        if not self.theory_slot.is_busy():
            return
        done = self.theory_progress.value() / 10
        self.theory_slot.cancel()
        self._theory_running = None
        self.theory_progress.setValue(0)
        if self.theory_current() is not None:
            self.theory_info.setText(f"cancelled at {done:.0f} %: the kernels done so far stay")
        else:
            self._clear_theory(f"cancelled at {done:.0f} % before any result: {self.theory_idle_note()}")

    def _clear_theory(self, note: str) -> None:
        self.theory_response, self._theory_request = None, None
        self.theory.clear(note)
        self.theory_info.setText(note)

    def _draw_theory(self, response, request) -> None:
        self.theory_response, self._theory_request = response, request
        pool = (f"pool: the first N = {request.pool_size} training digits of split {request.seed} "
                f"({request.test_size} test digits held out)")
        self.theory.draw(response.theories, response.ordering(), pool)

    def _on_params_changed(self, changed: frozenset, recompute: bool) -> None:
        """A change of the spectrum & theory's request empties its plots and stops its job."""
        if self._theory_running is not None:
            try:
                same = self.theory_request() == self._theory_running
            except ValueError:
                same = False
            if not same:
                self.theory_slot.cancel()
                self._theory_running = None
                self.theory_progress.setValue(0)
        if self.theory_response is not None and self.theory_current() is None:
            self._clear_theory(f"parameters changed: {self.theory_idle_note()}")
        elif self.theory_response is None and self._theory_running is None:
            self._clear_theory(self.theory_idle_note())

    @Slot(int, object, object)
    def _on_theory_yielded(self, request_id: int, item, request) -> None:
        if request != self._theory_running:
            return
        self.theory_progress.setValue(int(round(1000 * float(item.fraction))))
        if item.message:
            self.theory_info.setText(f"{item.message}…")
        if item.partial is not None:
            self._draw_theory(item.partial, request)

    @Slot(int, object, object)
    def _on_theory_returned(self, request_id: int, response, request) -> None:
        if request != self._theory_running:
            return
        self._theory_running = None
        self._draw_theory(response, request)
        self.theory_progress.setValue(1000)
        self.theory_info.setText(f"done: {', '.join(STYLE[k][0] for k in response.kernels)} on a pool of "
                                 f"N = {request.pool_size}, n = {', '.join(map(str, request.theory_sizes))}, "
                                 f"{request.draws} draws")
        self.last_error = ""
        self.computed.emit(request_id)

    @Slot(int, str, object)
    def _on_theory_errored(self, request_id: int, message: str, request) -> None:
        if request != self._theory_running:
            return
        self._theory_running = None
        self.theory_progress.setValue(0)
        self._report_error(message)
        if self.theory_current() is None:
            self._clear_theory(f"not computed: {message}")
        # whoever waits on the panel (a headless export of this page) hears of the failure
        self.slot.errored.emit(request_id, message, request)

    def _on_errored(self, request_id: int, message: str, params) -> None:
        from ntkviz.jobs._classify_theory import ClassifyTheoryRequest

        if isinstance(params, ClassifyTheoryRequest):
            return  # the spectrum & theory's failure, re-sent for waiters: already reported
        super()._on_errored(request_id, message, params)

    def _on_theory_busy(self, busy: bool) -> None:
        self.theory_cancel.setEnabled(busy)
        self.theory_run.setText("Restart theory" if busy else "Start theory")

    # ------------------------------------------------------------ export
    def plot_items(self) -> dict[str, object]:
        """The plots of the page shown (the model's views available for its ``page``)."""
        items = {**self.plots, "confusion": self.confusion.plot, **self.theory.plots}
        views = self.model.view_names(self.model.params) if self._scope is None else self._scope
        return {v: items[v] for v in views}

    def check_current(self) -> None:
        """``ValueError`` (the note of the page shown) unless one of the two jobs drew a result
        of the current parameters. An export asks this before it knows its view; the view's own
        job is then checked by :meth:`exporting` and :meth:`csv_table`, so the accuracy can be
        exported from the spectrum & theory page and the reverse."""
        theory_page = self.model.params.page == "theory"
        try:
            self._check_theory() if theory_page else super().check_current()
        except ValueError:
            if not (self.is_current() if theory_page else self.theory_current() is not None):
                raise

    def _check_theory(self) -> None:
        if self.theory_current() is None:
            note = empty_note(self.theory.plots["spectrum"]).text() or "not computed"
            raise ValueError(f"{self.title}: nothing to export: spectrum & theory: {note}")

    @contextmanager
    def exporting(self, view: str, width: int | None = None, height: int | None = None):
        """A view is exported only while its job's result is of the current parameters."""
        if view in THEORY_VIEWS:
            self._check_theory()
        else:
            super().check_current()
        yield

    def csv_table(self, view: str) -> tuple[list[str], list[list]]:
        if view in THEORY_VIEWS:
            self._check_theory()
            return self.theory_response.csv_table(view)
        super().check_current()
        return self.model.csv_table(self.model.params, self.response, view)

    def help_html(self) -> str:
        return (
            "<h3>Classification: CKN vs NTK vs pixels vs scattering</h3>"
            "<p>One-vs-rest kernel ridge regression on the bundled MNIST digits: f(x) = k(x, X) "
            "(K + λ (tr K / n) I)<sup>−1</sup> Y with one-hot targets; the predicted digit is the "
            "largest score. λ is relative to the mean kernel diagonal; 'auto' picks it by 5-fold "
            "cross-validation on the training set only.</p>"
            "<p>Kernels: the exact CKN and convolutional NTK of the chosen architecture (Bietti &amp; "
            "Mairal 2019; one pass computes both), a Gaussian kernel on pixels and one on the scattering "
            "coefficients, each with the median distance as bandwidth.</p>"
            "<p><b>Accuracy</b>: against the number of training digits (test digits at the first "
            "amplitude) and, for the largest training size, against the amplitude of a deformation of "
            "the test digits. Each accuracy counts n<sub>test</sub> test digits; its bar is the 95 % "
            "Wilson interval (the sampling of the test set). With several <i>splits</i> the whole run is "
            "repeated on other random splits: points are the mean, bars ± one standard error over "
            "the splits (training and test sampling). <b>Per class</b>: the confusion matrix of one "
            "kernel at the largest training size.</p>"
            "<p><b>Spectrum &amp; theory</b> on a pool of N labelled digits, K̃ = K / (tr K / N): the "
            "eigenvalues λ<sub>i</sub>(K̃)/N (hollow: below N·ε·λ<sub>max</sub>, not trusted) beside the "
            "sphere's Mercer spectrum of the same kernel family; the share of the labels' energy on the "
            "top eigenvectors; the eigenlearning prediction of the held-out MSE against KRR on random "
            "subsets; and the certificate √(2 YᵀH⁻¹Y / n) of Arora et al. (2019), H = (K̃<sub>SS</sub> + "
            "δI)/2, for true and randomly permuted labels. Read the certificate within one kernel: "
            "random labels give a larger one that grows faster with n. Across kernels it need not "
            "follow the accuracy: YᵀH⁻¹Y weighs the labels' energy on the smallest eigenvalues, and "
            "spectra fall at different rates.</p>"
        )


if __name__ == "__main__":  # pragma: no cover - demo
    import sys

    from ntkviz.gui.app import run_standalone

    sys.exit(run_standalone(QtClassificationPanel))
