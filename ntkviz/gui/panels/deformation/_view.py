"""The deformation editor's view: controls on the left, pictures and read-outs on the right."""
from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtWidgets
from PySide6.QtCore import Signal, Slot

from ntkviz.gui.panels._base import QtPanel
from ntkviz.gui.panels._kernel_controls import scroll_column
from ntkviz.gui.panels.deformation._architecture import ArchitectureEditor
from ntkviz.gui.panels.deformation._controls import DeformationControls, DigitPicker
from ntkviz.gui.panels.deformation._images import image_beside_bar
from ntkviz.gui.panels.deformation._maps import MapChoice
from ntkviz.gui.panels.deformation._pictures import DeformationPictures
from ntkviz.gui.status import ProgressClock
from ntkviz.gui.workers import JobSlot
from ntkviz.limits import NTK_RESOLUTION

__all__ = ["QtDeformationPanel"]


class QtDeformationPanel(QtPanel):
    """Deformation editor: drag τ, watch the CKN, the NTK, the scattering transform, the
    Fourier modulus and the pixels move, live.

    The view observes a :class:`~ntkviz.models.deformation.DeformationModel`: each
    change submits its :class:`ntkviz.jobs.DeformRequest` (throttled by the
    dispatcher), and beside it, on a job slot of its own (key ``<key>.images``), the
    request's ``images``: the pictures and the read-outs of the explicit maps (pixels,
    scattering, Fourier modulus), which need no kernel, are drawn at once while the
    kernel distances are computed (the first one loads the compiled kernels: seconds
    under load). Pictures are drawn only for the current parameters, so a late result
    never replaces newer ones. The context distances (nearest / mean same-label and
    other-label digits) are the model's :class:`ntkviz.jobs.ContextRequest` (a new one
    only when the digit, the architecture or the scattering parameters change; none for
    the Gabor probe), run in the background on its own job slot with a progress bar; the
    result is cached, in memory and on disk. Which maps the read-outs and the context
    bars show is the model's display-only ``maps``: choosing them recomputes nothing.
    """

    #: emitted after a context result was drawn
    context_computed = Signal()

    def __init__(self, dispatcher, parent=None, model=None, spec=None):
        super().__init__(dispatcher, parent, model, spec)
        self.context_slot = JobSlot(dispatcher, f"{self.key}.context",
                                    f"{self.title}: context distances", self)
        self.context_key = self.context_slot.key
        #: the pictures and pixel read-outs (no kernel) of each request, drawn at once
        self.images_slot = JobSlot(dispatcher, f"{self.key}.images", f"{self.title}: pictures",
                                   self)
        self.images_key = self.images_slot.key
        self._request = None  # the last request built (its images job goes beside it)
        self._context = None
        self._context_for = None  # the context request shown (or being computed)
        self._context_stopped = False  # the context job was cancelled or failed
        #: start() computes the context distances inside the first job, so the first drawn
        #: result is complete (headless export, gallery): on by default offscreen only, where
        #: nobody waits for the images
        self.complete_on_start = QtWidgets.QApplication.platformName() == "offscreen"
        self._with_context = False
        self._build()
        self.sync_widgets(frozenset())
        self.context_slot.returned.connect(self._on_context_returned)
        self.context_slot.yielded.connect(self._on_context_yielded)
        self.context_slot.errored.connect(self._on_context_errored)
        self.context_slot.busy.connect(self._on_context_busy)
        self.images_slot.returned.connect(self._on_images_returned)

    # ------------------------------------------------------------------ layout
    def _build(self) -> None:
        self.digit_picker = DigitPicker(self)
        self.deformation_controls = DeformationControls(self)
        self.map_choice = MapChoice(self)
        self.architecture_editor = ArchitectureEditor(self)
        scroll = scroll_column(self.digit_picker, self.deformation_controls, self.map_choice,
                               self.architecture_editor)

        from ntkviz.jobs import CONTEXT_CATEGORIES

        right = self.pictures = DeformationPictures(CONTEXT_CATEGORIES)
        self.views, self.readout_box, self.context = right.views, right.readout_box, right.context
        self.readouts, self.context_progress = self.readout_box.readouts, right.context_progress
        self.context_clock = ProgressClock(self.context_progress, "context distances: ")
        self.context_widget = right.context_widget
        split = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        split.addWidget(scroll)
        split.addWidget(right)
        split.setStretchFactor(1, 1)
        split.setCollapsible(0, False)
        lay = QtWidgets.QHBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addWidget(split)
        # short names used by tests and the gallery
        self.sliders = self.deformation_controls.controls
        self.images, self.plots, self.bars = self.views.images, self.views.plots, self.views.bars
        self.context_plot = self.context.plot

    def resizeEvent(self, event):  # noqa: N802 - Qt naming
        super().resizeEvent(event)
        QtCore.QTimer.singleShot(0, self.views.fit_height)

    def showEvent(self, event):  # noqa: N802 - Qt naming
        super().showEvent(event)
        self.views.fit_height()

    # ------------------------------------------------------------ parameters
    @property
    def digit(self) -> np.ndarray:
        """The digit x the editor deforms (28×28)."""
        return self.model.params.digit()[0]

    @property
    def architecture(self):
        return self.model.params.architecture()

    def deformation(self):
        """The model's deformation (:class:`ntkviz.core.deformations.deform.Deformation`)."""
        return self.model.params.deformation()

    def load_user_image(self, path) -> bool:
        """Load the user's image (see :meth:`DigitPicker.load`)."""
        return self.digit_picker.load(path)

    def say(self, text: str) -> None:
        """A status line that is not an error."""
        self.last_error = ""
        self.status.emit(f"{self.title}: {text}")

    def sync_widgets(self, changed: frozenset) -> None:
        params = self.model.params
        self.digit_picker.sync(params)
        self.deformation_controls.sync(params)
        self.map_choice.sync(params)
        self.architecture_editor.sync(params)
        self.readout_box.show_maps(params.maps)

    def start(self) -> int:
        self._with_context = self.complete_on_start
        try:
            return super().start()
        finally:
            self._with_context = False

    def build_request(self):
        job = self._request = self.model.request()
        if not self._with_context:
            return job
        context = self.model.context_request()
        if context is None:  # the Gabor probe: no context
            return job

        def with_context():
            context()  # fills the jobs layer's cache; apply_response then draws it
            return job()

        return with_context

    def refresh(self, *, immediate: bool = False) -> int:
        """Recompute the deformation and, beside it, its pictures; start the context job
        the first time a (digit, architecture) is shown."""
        rid = super().refresh(immediate=immediate)
        if rid and not self._refresh_suspended:
            self.images_slot.submit(self._request.images, immediate=immediate,
                                    tag=self.model.params)
            self._update_context()
        return rid

    # ------------------------------------------------------------ responses
    def apply_response(self, resp) -> None:
        if self._context is None:  # computed meanwhile (start() or another panel): draw it now
            request = self._context_for
            hit = request.cached() if request is not None else None
            if hit is not None:
                self._context = hit
                self._context_stopped = False
                self.context_slot.cancel()
                self.context_progress.setVisible(False)
                self.context_computed.emit()
        if self.is_current():  # else newer pictures are drawn, or on their way
            self.pictures.show_pictures(resp)
        self.readout_box.show_distances(resp)
        self._draw_context()

    def redraw(self) -> None:
        """A display-only change (the maps shown): the context bars again (the read-outs'
        visibility follows ``sync_widgets``)."""
        super().redraw()
        if not self.is_current():
            self._draw_context()

    @Slot(int, object, object)
    def _on_images_returned(self, rid: int, pictures, params) -> None:
        """The pictures of ``params``: drawn while they are the model's parameters."""
        if self.model.same_computation(params, self.model.params):
            self.pictures.show_pictures(pictures)

    # context
    def _update_context(self) -> None:
        try:
            request = self.model.context_request()  # the same object while the digit stays
        except ValueError:
            return  # reported by refresh()
        if request is self._context_for and request is not None:
            return
        self._context_for = request
        if request is None:  # the Gabor probe has no context
            self.context_slot.cancel()
            self.context_progress.setVisible(False)
            self._context = None
            self._context_stopped = False
            self._draw_context()
            return
        hit = request.cached()
        if hit is not None:
            self.context_slot.cancel()
            self.context_progress.setVisible(False)
            self._context = hit
            self._draw_context()
            self.context_computed.emit()
            return
        self._context = None
        self._context_stopped = False
        self._draw_context()
        self.context_progress.setValue(0)
        self.context_progress.setVisible(True)
        self.context_slot.submit(request, immediate=True, tag=request)

    def context_result(self):
        return self._context

    @Slot(int, object, object)
    def _on_context_yielded(self, rid: int, item, request) -> None:
        self.context_clock.show(item.fraction)

    @Slot(int, object, object)
    def _on_context_returned(self, rid: int, result, request) -> None:
        if request is not self._context_for:
            return  # of another digit or architecture
        self.context_progress.setVisible(False)
        self._context = result
        self._draw_context()
        self.context_computed.emit()

    @Slot(int, str, object)
    def _on_context_errored(self, rid: int, message: str, request) -> None:
        self.context_progress.setVisible(False)
        self._context_for = None
        self._report_error(f"context distances: {message}")

    @Slot(bool)
    def _on_context_busy(self, busy: bool) -> None:
        if busy:
            self.context_clock.start()
        else:
            self.context_clock.stop()
        if not busy and self._context is None:
            # cancelled (or failed): say so, and start again on the next change
            self.context_progress.setVisible(False)
            self._context_for = None
            self._context_stopped = True
            self._draw_context()

    def context_values(self) -> dict[str, dict[str, float]]:
        """What the context plot shows: ``{category: {map: value}}`` (NaN = not drawn)."""
        from ntkviz.jobs import context_table

        return context_table(self.response, self._context)

    def _draw_context(self) -> None:
        params = self.model.params
        label = "class unknown: 'other' = any digit" if params.is_user_image \
            else f"{self.model.context_per_class} per class"
        state = "Gabor probe: no digits to compare" if params.is_probe else \
            label if self._context is not None else \
            "stopped: redone at the next change" if self._context_stopped else "computing…"
        reasons = {} if params.architecture().supports_ntk else \
            {"ntk": "exp layers have no NTK"}
        self.context.draw(self.context_values(), state, reasons, shown=params.maps)

    # ------------------------------------------------------------ export
    def plot_items(self) -> dict[str, object]:
        items = dict(self.plots)
        items["context"] = self.context.layout
        return items

    def exporting(self, view: str, width: int | None = None, height: int | None = None):
        """An image view keeps its colour bar beside the image at any export size."""
        if view in self.views.plots:
            return image_beside_bar(self.views.plots[view])
        return super().exporting(view, width, height)

    def csv_table(self, view: str) -> tuple[list[str], list[list]]:
        """The table of ``view``, the context distances as drawn."""
        from ntkviz.jobs import deform_csv_table

        self.check_current()
        return deform_csv_table(view, self.response, self._context, maps=self.model.params.maps)

    def help_html(self) -> str:
        return help_html(self.model.context_per_class)


def help_html(per_class: int) -> str:
    """The maths of the deformation editor (Help menu), ``per_class`` context references."""
    return (
        "<h3>Deformations: stability of five representations</h3>"
        "<p>A digit x is deformed by a displacement field τ: L<sub>τ</sub>x(u) = x(u − τ(u)) "
        "(bilinear interpolation, zero fill). The read-outs are ‖τ‖<sub>∞</sub> (pixels), "
        "‖∇τ‖<sub>∞</sub> (largest Jacobian operator norm, finite differences) and the "
        "relative distances ‖Φ(L<sub>τ</sub>x) − Φ(x)‖ / ‖Φ(x)‖ of five maps Φ: the CKN "
        "(arc-cosine kernel, only the last layer trained) and the convolutional NTK, both "
        "computed exactly through their kernels, √(k(x,x) + k(y,y) − 2k(x,y)) / √k(x,x); the "
        "scattering transform S<sub>J</sub>x = {x⋆φ<sub>J</sub>, |x⋆ψ<sub>λ1</sub>|⋆φ<sub>J</sub>, "
        "||x⋆ψ<sub>λ1</sub>|⋆ψ<sub>λ2</sub>|⋆φ<sub>J</sub>} (Morlet wavelets, J and L in "
        "<i>Maps compared</i>); the Fourier modulus |x̂| (unitary DFT); the pixels.</p>"
        "<p><b>Mallat's counterexample.</b> The <i>Gabor probe</i> x(u) = cos(ω₀⟨e, u − c⟩) "
        "e<sup>−|u − c|²/(2σ²)</sup> (deformed by exact sampling) under the <i>dilation</i> "
        "τ(u) = s(u − c), ‖∇τ‖<sub>∞</sub> = s: its spectrum's bumps at ±ω₀e move by ω₀s, so "
        "the Fourier-modulus distance grows like ω₀s although |x̂| is translation invariant; "
        "the scattering transform is Lipschitz, ‖S<sub>J</sub>L<sub>τ</sub>x − S<sub>J</sub>x‖ "
        "≤ C‖∇τ‖<sub>∞</sub>‖x‖, whatever ω₀ (the Scattering tab plots both against s and ω₀).</p>"
        "<p>Bietti &amp; Mairal (NeurIPS 2019) show that the CKN is Lipschitz-stable, "
        "‖Φ(L<sub>τ</sub>x) − Φ(x)‖ ≲ (‖∇τ‖<sub>∞</sub> + ‖τ‖<sub>∞</sub>/σ<sub>n</sub>)‖x‖, "
        "while the NTK is only Hölder-½: a term in ‖∇τ‖<sub>∞</sub><sup>1/2</sup> appears "
        "(Prop. 12). Small deformations therefore move the NTK features comparatively more: "
        "watch the ratio NTK / CKN grow as τ shrinks.</p>"
        f"<p>NTK distances below {NTK_RESOLUTION:.0e} are rounding noise "
        "(k(x,x) + k(y,y) − 2k(x,y) cancels) and are shown as <i>below numerical "
        "resolution</i>. The pixel distance ‖L<sub>τ</sub>x − x‖/‖x‖ is the baseline: it is "
        "not stable to translations. From an all-zero digit every distance is ∞.</p>"
        "<p>The context bars compare with the distance from x to the nearest and to the mean "
        f"of {per_class} bundled digits per class, same label and other "
        "labels. A feature map with no value (the NTK of exp layers) has no bars: the chart "
        "says why under its axis.</p>"
        "<p>Even patch sizes: the architecture editor's 'even s' chooses which offsets a "
        "2×2 (or 4×4 …) patch sums: {−1, 0} ('reference', the CKN reference code) or "
        "{0, 1} ('same', neural-tangents' 'SAME' padding).</p>"
    )
