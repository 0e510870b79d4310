"""The Stability tab: two figures, each computed on demand by its own job.

* **Distance against amplitude** (view ``stability``): each bundled digit is deformed by
  a family of deformations (or additive noise) at growing amplitude; the mean (and spread
  over digits and seeds) of ``‖Φ(L_τ x) − Φ(x)‖ / ‖Φ(x)‖`` is drawn on log–log axes for
  the maps chosen (CKN, NTK, scattering transform, Fourier modulus, pixels), with the mean
  distance to same-label and to any-label digits as horizontal levels and the fitted
  small-amplitude slopes against guide lines of slope 1 (Lipschitz) and 1/2 (Hölder-1/2)
  (:class:`~ntkviz.gui.panels._stability_figure.StabilityFigure`).
* **One digit against sets** (view ``sets``, Fig. 1 of Bietti & Mairal 2019 with the
  example strip of its Fig. 2): CKN and NTK side by side, mean ± standard error over each
  set, along a sweep of the last layer's pooling/subsampling factor (or patch size,
  number of layers, deformation amplitude)
  (:class:`~ntkviz.gui.panels._stability_sets_figure.SetsFigure`).

Both figures may show the stability theorems' bound forms fitted to the measured points
(:mod:`ntkviz.jobs._stability_fits`; display only).

The view observes a :class:`~ntkviz.models.stability.StabilityModel`; ``figure`` chooses
the figure shown. Each figure has its own job slot, Run and Cancel buttons, progress bar
and info line, and keeps its result while the other's parameters change
(:data:`~ntkviz.models.stability.FIGURE_FIELDS`). Everything the base class
(:class:`~ntkviz.gui.panels._base.OnDemandPanel`) keeps about its one job -- the slot, the
response drawn and its parameters, the empty-state note, the buttons -- is kept once per
figure here (:class:`_PerFigure`): the base class's methods act on the figure *in focus*,
the figure shown unless a figure's own button or job is being handled
(:meth:`QtStabilityPanel._focus`). So what is drawn always belongs to the parameters shown:
a parameter change stops that figure's job and empties its plots, legend included, with a
note -- unless a complete result of the new parameters is kept: each figure keeps its last
:data:`KEPT_RESULTS` complete results by their parameters, so going back to earlier ones
(e.g. the architecture before) draws them at once (the sets computation's distances are
also cached per architecture by the core, so a new run through known architectures is
fast). ``ntkviz export stability --view sets``, the gallery and ``ntkviz gui --screenshot``
start and wait for the job of the figure shown.
"""
from __future__ import annotations

from contextlib import contextmanager

from PySide6 import QtWidgets

from ntkviz import limits
from ntkviz.gui.controls import JobControls, combo, form_group, int_spin, line_edit
from ntkviz.gui.panels._base import OnDemandPanel, _NotDrawn
from ntkviz.gui.panels._kernel_controls import scroll_column, set_checked
from ntkviz.gui.panels._stability_figure import StabilityFigure
from ntkviz.gui.panels._stability_sets_figure import SetsFigure
from ntkviz.gui.status import ProgressClock
from ntkviz.gui.workers import JobSlot
from ntkviz.models.stability import FAMILY_AXES, FIGURE_FIELDS, FIGURES, family_defaults, sweep_defaults

__all__ = ["QtStabilityPanel", "SETS_KEY", "VIEW_OF", "FIGURE_OF"]

#: the sets figure's job key
SETS_KEY = "stability.sets"
#: the exported view of each figure, and back
VIEW_OF = {"amplitude": "stability", "sets": "sets"}
FIGURE_OF = {view: figure for figure, view in VIEW_OF.items()}
#: the figure chooser's texts
FIGURE_TEXTS = {"amplitude": "distance against amplitude", "sets": "one digit against sets (Fig. 1)"}
#: per figure: the run button's text when idle and while its job runs
RUN_TEXTS = {"amplitude": ("Run sweep", "Restart sweep"), "sets": ("Compute sets", "Restart sets")}
#: complete results each figure keeps (drawn again at once when their parameters come back)
KEPT_RESULTS = 16
#: tooltip of the Infinite-MNIST data folder
DATA_TOOLTIP = (
    "Your Infinite-MNIST data folder (Loosli, Canu & Bottou 2007): fields_float_1522x28x28.bin, "
    "tangVec_float_60000x28x28.bin and the four MNIST IDX files. The deformation sets are then "
    "Bottou's deformations of a MNIST training digit, the label sets MNIST training digits. "
    "Empty: the bundled digits and ntkviz's own smooth fields (the figure says so).")


class _PerFigure:
    """An attribute of the base panel kept once per figure: reading or setting it reads or
    sets the value of the figure in focus (:meth:`QtStabilityPanel._focused`)."""

    def __set_name__(self, owner, name: str) -> None:
        self.name = name

    def __get__(self, panel, owner=None):
        if panel is None:
            return self
        try:
            return panel._state_of()[self.name]
        except KeyError:
            raise AttributeError(self.name) from None

    def __set__(self, panel, value) -> None:
        panel._state_of()[self.name] = value


class QtStabilityPanel(OnDemandPanel):
    """The Stability tab (see the module docstring): the amplitude figure and the sets
    figure, each with its own job, started on demand."""

    # what the base class keeps about its job, once per figure
    slot = _PerFigure()
    response = _PerFigure()
    drawn = _PerFigure()
    partial = _PerFigure()
    empty_note = _PerFigure()
    item_params = _PerFigure()
    _veiled = _PerFigure()
    _notes = _PerFigure()
    _own_notes = _PerFigure()
    run_button = _PerFigure()
    cancel_button = _PerFigure()
    progress = _PerFigure()
    clock = _PerFigure()
    info = _PerFigure()
    job_buttons = _PerFigure()

    def __init__(self, dispatcher, parent=None, model=None, spec=None):
        super().__init__(dispatcher, parent, model, spec)  # the amplitude figure's slot and state
        self._focus_stack: list[str] = []
        #: per figure, complete results by their parameters (the newest last)
        self._kept: dict[str, dict] = {figure: {} for figure in FIGURES}
        with self._focus("sets"):
            self.response, self.drawn, self.partial, self.item_params = None, None, False, None
            self.empty_note, self._veiled, self._notes, self._own_notes = "", [], [], {}
            self.slot = JobSlot(dispatcher, SETS_KEY, f"{self.title}: sets (Fig. 1)", self, own_cancel=True)
        sets_slot = self.slot_of("sets")
        sets_slot.returned.connect(lambda rid, r, p: self._on_returned(rid, r, p, "sets"))
        sets_slot.yielded.connect(lambda rid, item, p: self._on_yielded(rid, item, p, "sets"))
        sets_slot.errored.connect(lambda rid, message, p: self._on_errored(rid, message, p, "sets"))
        self._build()
        self.sync_widgets(frozenset(self.model.to_session()))
        for figure in FIGURES:
            with self._focus(figure):
                self.show_empty(self.idle_note())

    # ------------------------------------------------------------------ focus
    def _focused(self) -> str:
        """The figure the base class's state and methods refer to now: the innermost
        :meth:`_focus`, else the figure shown (the amplitude figure while the base class
        is being initialised)."""
        stack = self.__dict__.get("_focus_stack")
        if stack is None:
            return "amplitude"
        return stack[-1] if stack else self.model.params.figure

    def _state_of(self) -> dict:
        states = self.__dict__.setdefault("_figure_states", {figure: {} for figure in FIGURES})
        return states[self._focused()]

    @contextmanager
    def _focus(self, figure: str):
        """Within this block the base class's state and methods are ``figure``'s."""
        self._focus_stack.append(figure)
        try:
            yield
        finally:
            self._focus_stack.pop()

    def slot_of(self, figure: str) -> JobSlot:
        """The job slot of ``figure``."""
        with self._focus(figure):
            return self.slot

    @property
    def run_text(self) -> str:
        return RUN_TEXTS[self._focused()][0]

    @property
    def restart_text(self) -> str:
        return RUN_TEXTS[self._focused()][1]

    # ------------------------------------------------------------------ layout
    def _build(self) -> None:
        self.figure_combo = combo([FIGURE_TEXTS[f] for f in FIGURES],
                                  "The figure shown; each keeps its own result.")
        self.arch_combo = combo(limits.ARCH_PRESETS, "Architecture preset of both figures (as in the "
                                                     "deformation editor); M4 (exp patch kernels) has no NTK.")
        self.fits_box = QtWidgets.QCheckBox("fitted bound forms")
        self.fits_box.setToolTip(
            "Overlay the stability theorems' bound forms fitted by least squares to the measured points: "
            "CKN C₁‖∇τ‖∞ + C₂‖τ‖∞/σₙ, NTK C‖∇τ‖∞^½ + C′‖∇τ‖∞ (star: the √ → linear crossover "
            "‖∇τ‖∞ = (C/C′)²). Fits, not the theorems' constants; display only. Sets figure: along "
            "the deformation amplitude only.")
        common = form_group("Figure", [("figure", self.figure_combo), ("architecture", self.arch_combo),
                                       self.fits_box])
        self.amplitude_controls = self._amplitude_controls()
        self.sets_controls = self._sets_controls()
        self.pages = QtWidgets.QStackedWidget()
        for controls in (self.amplitude_controls, self.sets_controls):
            self.pages.addWidget(controls)
        column = scroll_column(common, self.pages)
        column.setMaximumWidth(360)

        self.plot_widget = StabilityFigure()
        self.sets_widget = SetsFigure()
        # the amplitude figure's parts, by their names of old (tests, the gallery)
        self.figure, self.plot, self.legend = self.plot_widget.ci, self.plot_widget.plot, \
            self.plot_widget.legend
        self.curves, self.bands = self.plot_widget.curves, self.plot_widget.bands
        self.levels, self.guides = self.plot_widget.levels, self.plot_widget.guides
        self.figures = QtWidgets.QStackedWidget()
        self.figures.addWidget(self.plot_widget)
        self.figures.addWidget(self.sets_widget)
        lay = QtWidgets.QHBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addWidget(column)
        lay.addWidget(self.figures, 1)

        self.figure_combo.currentIndexChanged.connect(lambda i: self.write(figure=FIGURES[i]))
        self.arch_combo.currentTextChanged.connect(lambda text: self.write(architecture=text))
        self.fits_box.toggled.connect(lambda on: self.write(fits=bool(on)))

    def _wire(self, figure: str, box, tooltip: str) -> JobControls:
        """``figure``'s controls column: ``box``, its Run and Cancel buttons, progress bar and
        info line, wired to its job."""
        controls = JobControls(box, RUN_TEXTS[figure][0], max_width=350, tooltip=tooltip)
        with self._focus(figure):
            self.run_button, self.cancel_button = controls.run_button, controls.cancel_button
            self.progress, self.info = controls.progress, controls.info
            self.clock = ProgressClock(self.progress)
            self.use_job_buttons(controls.run_button, controls.cancel_button)
        controls.run_button.clicked.connect(lambda: self._in(figure, self.start))
        controls.cancel_button.clicked.connect(lambda: self._in(figure, self.cancel))
        self.slot_of(figure).busy.connect(lambda busy: self._in(figure, self._on_busy, busy))
        return controls

    def _in(self, figure: str, method, *args):
        with self._focus(figure):
            return method(*args)

    def _amplitude_controls(self) -> JobControls:
        self.family_combo = combo(limits.SWEEP_FAMILIES, "Deformation family; the amplitude is its size "
                                  "(largest displacement in px, angle, Infinite-MNIST α, dilation s = "
                                  "‖∇τ‖∞) — or additive noise of relative size ‖x′ − x‖/‖x‖ in a random "
                                  "direction (smoothness: CKN slope 1, NTK slope ½).")
        n = 10 * limits.BUNDLED_PER_CLASS
        self.digits_edit = line_edit(f"Bundled digit indices 0–{n - 1}, comma-separated. The subset "
                                     f"is sorted by label: index = {n // 10}·label + i.")
        lo, hi = limits.AMPLITUDE_RANGE
        self.amp_min = QtWidgets.QDoubleSpinBox()
        self.amp_max = QtWidgets.QDoubleSpinBox()
        for w in (self.amp_min, self.amp_max):
            w.setDecimals(4)
            w.setRange(1e-4, hi)
            w.setKeyboardTracking(False)
            w.setToolTip(f"Amplitudes are log-spaced from min to max, in (0, {hi:g}] (px, degrees, α, "
                         "s or relative noise).")
        self.amp_count = int_spin(limits.AMPLITUDE_COUNT_RANGE,
                                  "Number of amplitudes, log-spaced between min and max.")
        self.seeds_spin = int_spin(limits.SWEEP_SEEDS_RANGE, "Deformations per digit and amplitude "
                                                             "(seeds first seed, first seed + 1, …).")
        self.seed0_spin = int_spin((0, 2**31 - 1), "First random seed.")
        self.refs_spin = int_spin(limits.REFERENCES_RANGE, "Reference digits per label (the first ones "
                                                           "of each class) for the same-label / "
                                                           "any-label levels.")
        self.map_boxes = {}
        maps = QtWidgets.QGridLayout()
        for i, name in enumerate(limits.MAPS):
            box = QtWidgets.QCheckBox(name)
            box.setToolTip(_MAP_TIPS[name])
            box.toggled.connect(lambda _on: self._on_maps())
            maps.addWidget(box, i // 2, i % 2)  # two columns: "scattering" fits the 350 px column
            self.map_boxes[name] = box
        self.scat_j = int_spin(limits.SCATTERING_J_RANGE, "Scattering map: averaging scale 2<sup>J</sup> (2<sup>J</sup> ≤ 28).")
        self.scat_l = int_spin(limits.SCATTERING_L_RANGE, "Scattering map: orientations in [0, π).")
        scattering = QtWidgets.QHBoxLayout()
        for text, w in (("J", self.scat_j), ("L", self.scat_l)):
            scattering.addWidget(QtWidgets.QLabel(text))
            scattering.addWidget(w, 1)
        box = form_group("Distance against amplitude", [
            ("family", self.family_combo), ("digits", self.digits_edit), ("amplitude min", self.amp_min),
            ("amplitude max", self.amp_max), ("amplitudes", self.amp_count), ("seeds", self.seeds_spin),
            ("first seed", self.seed0_spin), ("references / label", self.refs_spin), ("maps", maps),
            ("scattering", scattering)])
        self.digits_edit.setMinimumWidth(170)
        self.family_combo.currentTextChanged.connect(
            lambda family: self.write(family=family, **family_defaults(family)))
        self.digits_edit.editingFinished.connect(self._on_digits)
        for name, w in (("amplitude_min", self.amp_min), ("amplitude_max", self.amp_max),
                        ("amplitude_count", self.amp_count), ("seeds", self.seeds_spin),
                        ("first_seed", self.seed0_spin), ("reference_per_class", self.refs_spin),
                        ("scattering_j", self.scat_j), ("scattering_l", self.scat_l)):
            w.valueChanged.connect(lambda value, name=name: self.write(**{name: value}))
        return self._wire("amplitude", box, "Compute the sweep for these parameters (the tab never "
                                            "starts one by itself: a sweep can take minutes).")

    def _sets_controls(self) -> JobControls:
        self.ref_label_spin = int_spin(limits.DIGIT_LABEL_RANGE, "Label of the reference digit x (the "
                                                                 "paper's: a 5).")
        self.ref_index_spin = int_spin(limits.STABILITY_REFERENCE_INDEX_RANGE,
                                       "Which digit of that label is x (0: the first).")
        self.sets_edit = line_edit(
            "The sets x′ compared with x, comma-separated: deform:α (deformations of x with amplitude α), "
            "deform+translate:α (the same, each also moved by one pixel), same (digits of x's label), "
            "any (digits of every label). Default: the paper's deform:3, deform+translate:1, same, any.")
        self.set_size_spin = int_spin(limits.STABILITY_SET_SIZE_RANGE, "Digits per set (the mean and its "
                                                                       "standard error are over them).")
        self.sweep_combo = combo(limits.STABILITY_SWEEPS, "The x axis: the last layer's pooling/subsampling "
                                 "factor (drives the translation term ‖τ‖∞/σₙ of both stability "
                                 "theorems), every layer's patch size, the number of layers, or the "
                                 "deformation sets' α.")
        self.values_edit = line_edit("The sweep's values, comma-separated (integers for the architecture "
                                     "sweeps, α ≥ 0 for amplitude).")
        self.data_edit = line_edit(DATA_TOOLTIP)
        self.data_edit.setPlaceholderText("none: bundled digits, own fields")
        browse = QtWidgets.QPushButton("Browse…")
        browse.setToolTip(DATA_TOOLTIP)
        browse.clicked.connect(self._browse_data)
        data = QtWidgets.QHBoxLayout()
        data.addWidget(self.data_edit, 1)
        data.addWidget(browse)
        box = form_group("One digit against sets (Fig. 1)", [
            ("reference label", self.ref_label_spin), ("reference index", self.ref_index_spin),
            ("sets", self.sets_edit), ("digits / set", self.set_size_spin), ("x axis", self.sweep_combo),
            ("values", self.values_edit), ("Infinite-MNIST", data)])
        for name, w in (("reference_label", self.ref_label_spin), ("reference_index", self.ref_index_spin),
                        ("set_size", self.set_size_spin)):
            w.valueChanged.connect(lambda value, name=name: self.write(**{name: value}))
        self.sweep_combo.currentTextChanged.connect(
            lambda sweep: self.write(sweep=sweep, **sweep_defaults(sweep)))
        self.sets_edit.editingFinished.connect(self._on_sets)
        self.values_edit.editingFinished.connect(self._on_values)
        self.data_edit.editingFinished.connect(self._on_data)
        return self._wire("sets", box, "Compute the four sets' distances along the sweep (CKN and NTK; "
                                       "about half a minute the first time, results are kept per "
                                       "architecture).")

    # ------------------------------------------------------------ parameters
    def _read(self, field: str, text: str, parse) -> None:
        """Write ``field`` from the text of a line edit read by ``parse``; an unreadable text
        is reported and the edit shows the model's value again."""
        try:
            value = parse(text)
        except ValueError as exc:
            self._report_error(str(exc))
            self.sync_widgets(frozenset({field}))
            return
        if isinstance(value, dict):
            self.write(**value)
        else:
            self.write(**{field: value})

    def _on_digits(self) -> None:
        from ntkviz._text import parse_list

        self._read("digits", self.digits_edit.text().replace(";", ","),
                   lambda text: parse_list("digits", text, int, allow_blank=False))

    def _on_sets(self) -> None:
        from ntkviz._text import parse_list

        self._read("sets", self.sets_edit.text(), lambda text: parse_list("sets", text, str, allow_blank=False))

    def _on_values(self) -> None:
        from ntkviz.models.stability import parse_sweep

        sweep = self.model.params.sweep
        self._read("sweep_values", self.values_edit.text(),
                   lambda text: parse_sweep("values", f"{sweep}:{text}"))

    def _on_data(self) -> None:
        text = self.data_edit.text().strip()
        self.write(infimnist_data=text or None)

    def _browse_data(self) -> None:
        folder = QtWidgets.QFileDialog.getExistingDirectory(
            self, "Infinite-MNIST data folder", self.model.params.infimnist_data or "")
        if folder:
            self.write(infimnist_data=folder)

    def _on_maps(self) -> None:
        maps = tuple(name for name in limits.MAPS if self.map_boxes[name].isChecked())
        self.write(maps=maps)

    def sync_widgets(self, changed: frozenset) -> None:
        p = self.model.params
        widgets = ((self.family_combo, p.family), (self.arch_combo, p.architecture),
                   (self.amp_min, p.amplitude_min), (self.amp_max, p.amplitude_max),
                   (self.amp_count, p.amplitude_count), (self.seeds_spin, p.seeds),
                   (self.seed0_spin, p.first_seed), (self.refs_spin, p.reference_per_class),
                   (self.scat_j, p.scattering_j), (self.scat_l, p.scattering_l),
                   (self.ref_label_spin, p.reference_label), (self.ref_index_spin, p.reference_index),
                   (self.set_size_spin, p.set_size), (self.sweep_combo, p.sweep),
                   (self.figure_combo, FIGURE_TEXTS[p.figure]))
        for w, value in widgets:
            w.blockSignals(True)
            if isinstance(w, QtWidgets.QComboBox):
                w.setCurrentText(value)
            else:
                w.setValue(value)
            w.blockSignals(False)
        set_checked(self.fits_box, p.fits)
        for name, box in self.map_boxes.items():
            set_checked(box, name in p.maps)
        for w in (self.scat_j, self.scat_l):
            w.setEnabled("scattering" in p.maps)
        for edit, text in ((self.digits_edit, ", ".join(map(str, p.digits))),
                           (self.sets_edit, ", ".join(p.sets)),
                           (self.values_edit, ", ".join(f"{v:g}" for v in p.sweep_values)),
                           (self.data_edit, p.infimnist_data or "")):
            if edit.text() != text:
                edit.setText(text)
                edit.setCursorPosition(0)
        index = FIGURES.index(p.figure)
        self.pages.setCurrentIndex(index)
        self.figures.setCurrentIndex(index)
        self.plot.setLabel("bottom", FAMILY_AXES[p.family][0])

    # ------------------------------------------------------------ the figures' jobs
    def build_request(self):
        """The request of the figure in focus: the model's request (``build_request``) for
        the figure shown, :meth:`~ntkviz.models.stability.StabilityModel.figure_request`
        for the other."""
        params, figure = self.model.params, self._focused()
        if figure == params.figure:
            return self.model.build_request(params)
        return self.model.figure_request(params, figure)

    def is_current(self) -> bool:
        """Whether the figure in focus shows a result of the model's current parameters
        (its own fields: a change of the other figure's leaves it current)."""
        return self.response is not None and self.model.same_figure(self._focused(), self.drawn,
                                                                    self.model.params)

    def plot_items(self) -> dict[str, object]:
        """The figure in focus (the one shown): ``stability`` or ``sets``."""
        figure = self._focused()
        return {VIEW_OF[figure]: self.figure if figure == "amplitude" else self.sets_widget.ci}

    def csv_table(self, view: str) -> tuple[list[str], list[list]]:
        with self._focus(FIGURE_OF.get(view, self._focused())):
            return super().csv_table(view)

    def _on_model_changed(self, changed: frozenset, recompute: bool) -> None:
        self.sync_widgets(changed)
        redrawn = set()
        for figure, fields in FIGURE_FIELDS.items():
            if changed & set(fields):
                with self._focus(figure):
                    if not self.is_current():
                        # what is drawn must belong to the parameters shown: stop, then draw the
                        # result kept for these parameters or clear
                        self.slot.cancel()
                        if self._draw_kept():
                            redrawn.add(figure)
                        else:
                            self.show_empty(self.changed_note())
        if changed & self.model.display_only and self._focused() not in redrawn:
            try:
                self.redraw()
            except _NotDrawn:
                pass

    def _result_key(self, params) -> tuple:
        return tuple(getattr(params, f) for f in FIGURE_FIELDS[self._focused()])

    def _draw_kept(self) -> bool:
        """Draw the complete result kept for the model's parameters of the figure in focus
        (:data:`KEPT_RESULTS` per figure, e.g. the sets figure of the architecture chosen
        before); False if there is none."""
        params = self.model.params
        kept = self._kept[self._focused()].get(self._result_key(params))
        if kept is None:
            return False
        try:
            self._draw(kept, params)
        except _NotDrawn:
            return False
        self.progress.setValue(1000)
        self.info.setText(f"{self.info.text()} (kept from an earlier run of these parameters)")
        return True

    def _on_returned(self, request_id: int, response, params, figure: str = "amplitude") -> None:
        with self._focus(figure):
            super()._on_returned(request_id, response, params)
            if getattr(response, "complete", False) and self.drawn is params:
                kept = self._kept[figure]
                kept[self._result_key(params)] = response
                while len(kept) > KEPT_RESULTS:
                    kept.pop(next(iter(kept)))

    def _on_yielded(self, request_id: int, item, params, figure: str = "amplitude") -> None:
        with self._focus(figure):
            super()._on_yielded(request_id, item, params)

    def _on_errored(self, request_id: int, message: str, params, figure: str = "amplitude") -> None:
        with self._focus(figure):
            super()._on_errored(request_id, message, params)

    # ------------------------------------------------------------ drawing
    def show_empty(self, note: str) -> None:
        super().show_empty(note)
        widget = self.plot_widget if self._focused() == "amplitude" else self.sets_widget
        widget.show_nothing(note)

    def apply_response(self, r) -> None:
        """Draw a (partial or final) result of the figure in focus, with the fitted bound
        forms when ``fits`` is on (computed for the architecture of the result)."""
        from ntkviz.core.conv.architecture import PRESETS

        fits = self.model.params.fits
        arch = PRESETS[self.drawn.architecture]
        if self._focused() == "amplitude":
            from ntkviz.jobs._stability_fits import sweep_overlays

            if r.complete:
                self.progress.setValue(1000)
                slopes = ", ".join(f"{name.upper()} {r.curve(name).slope:.2f}" for name in ("ckn", "ntk")
                                   if name in r.maps and r.curve(name).slope == r.curve(name).slope)
                self.info.setText(f"done: {len(r.amplitudes)} amplitudes × {r.n_seeds} "
                                  f"seed(s) per digit; small-amplitude slopes: {slopes or 'n/a'}")
            self.plot_widget.draw(r, sweep_overlays(r, arch) if fits else None)
            return
        from ntkviz.jobs._stability_fits import sets_overlays

        if r.complete:
            self.progress.setValue(1000)
            self.info.setText(f"done: {len(r.sets)} sets × {int(r.count.max())} digits × {len(r.values)} "
                              f"{r.sweep} values, CKN and NTK; x: {r.reference_name}"
                              + (f"; {r.note}" if r.note else ""))
        self.sets_widget.draw(r, sets_overlays(r, arch) if fits else None, fits)

    # ------------------------------------------------------------ export
    def help_html(self) -> str:
        return HELP


_MAP_TIPS = {
    "ckn": "CKN: exact infinite-width kernel, last layer trained (Lipschitz to deformations).",
    "ntk": "Convolutional NTK: exact infinite-width kernel (only Hölder-½).",
    "scattering": "Scattering transform (Morlet wavelets up to the scale 2ᴶ, orders 0–2; Lipschitz to "
                  "deformations).",
    "fourier": "Fourier modulus |x̂| (translation invariant, unstable to small dilations).",
    "pixels": "The image itself (not stable to small translations).",
}

HELP = (
    "<h3>Stability to deformations</h3>"
    "<p><b>One digit against sets (Fig. 1 of Bietti &amp; Mairal, NeurIPS 2019).</b> A reference "
    "digit x (a 5) is compared with four sets x′: deformations with α = 3, translations combined "
    "with deformations at α = 1, digits of the same label, digits of any label (the strip under the "
    "plots shows examples of each, as the paper's Fig. 2). For the CKN and for the NTK the curves "
    "are the mean of ‖Φ(x) − Φ(x′)‖ / ‖Φ(x)‖ over each set, ± its standard error. α is fixed per "
    "set, so the x axis is not the deformation size: by default it is an architecture parameter "
    "swept along the curves, the last layer's pooling/subsampling factor, which drives the "
    "translation term ‖τ‖∞/σₙ of both stability theorems (patch size, number of layers and the "
    "deformation amplitude α are the other axes). Read it as: deformations stay far below the "
    "same-label level, which stays below the any-label level; a larger last pooling shrinks the "
    "deformation distances (the translation term ‖τ‖∞/σₙ falls), and the NTK's deformation "
    "distances sit relatively higher than the CKN's (it is only Hölder-½). With your "
    "Infinite-MNIST data folder the deformations are Bottou's; without it ntkviz's own smooth "
    "fields of the same form (the figure says so).</p>"
    "<p><b>Distance against amplitude.</b> For each digit x and amplitude a, x is deformed "
    "(smooth random field, translation, rotation, Infinite-MNIST α, dilation τ(u) = s·u) or "
    "perturbed by additive noise of relative size a, and ‖Φ(x′) − Φ(x)‖ / ‖Φ(x)‖ is averaged over "
    "digits and seeds (band: ± one standard deviation) for the maps chosen: CKN, convolutional "
    "NTK, scattering transform, Fourier modulus, pixels. The CKN is Lipschitz in the deformation "
    "size (slope 1 on log–log axes), the NTK only Hölder-½ (slope ½, Prop. 12); under additive "
    "noise the same slopes follow from the maps' smoothness. The dashed/dotted horizontal lines "
    "are the mean distances to same-label and any-label digits; the legend's slopes are "
    "least-squares fits of log distance against log amplitude over the three smallest "
    "amplitudes. NTK distances below 1e-4 are rounding noise.</p>"
    "<p><b>Fitted bound forms</b> (display only): CKN C₁‖∇τ‖∞ + C₂‖τ‖∞/σₙ, NTK "
    "C‖∇τ‖∞^½ + C′‖∇τ‖∞, fitted by non-negative least squares (relative residuals) to the "
    "measured points, with the NTK's √ → linear crossover ‖∇τ‖∞ = (C/C′)² marked. They are "
    "fits of the theorems' forms, not the theorems' constants.</p>"
    "<p>Each figure computes only when asked (its own Run button, progress and Cancel) and keeps "
    "its result while the other's parameters change; changing one of its own parameters clears "
    "it, so what is drawn always belongs to the parameters shown.</p>"
)


if __name__ == "__main__":  # pragma: no cover - demo / smoke test / screenshot
    import sys

    from ntkviz.gui.app import run_standalone

    sys.exit(run_standalone(QtStabilityPanel))
