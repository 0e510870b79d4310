"""The base class of every panel (tab) of the main window: the view of a model.

A panel is declared by one :class:`ntkviz.panels.PanelSpec`: a Qt-free parameter
model (a :class:`ntkviz.models.ParamModel` subclass) plus a view, a subclass of
:class:`QtPanel`. The view gets its key, title and model from the spec. It
*observes*: its widgets write through :meth:`QtPanel.write`, and it redraws when the
model says so; it never holds parameters of its own and never calls numba. A change
of a field that matters for the computation submits ``model.request()`` through the
panel's :class:`~ntkviz.gui.workers.JobSlot` (throttled, latest wins); a change of a
``display_only`` field only calls :meth:`QtPanel.redraw`.

A figure never shows a result of other parameters. Every response comes back with the
parameters it was computed for; the panel draws it, and File → Export writes it, only
while those equal the model's (display-only fields aside). Otherwise the plots show an
explicit empty state with a note (:meth:`QtPanel.show_empty`): a panel that computes
on demand clears as soon as a parameter changes; a live panel keeps its last drawing
only while the job for the new parameters runs, and clears if that job fails.

Writing a view
--------------
Subclass :class:`QtPanel` (or :class:`OnDemandPanel` for one long job that runs when
asked) and implement

* ``sync_widgets(changed)``: set the widgets from ``self.model.params`` (called after
  every model change with the changed field names; block the widgets' signals while
  setting them);
* ``apply_response(response)``: draw it (using display-only fields of
  ``self.model.params`` as needed); ``redraw()`` re-applies the last response;
* ``plot_items()``: one entry per view the model declares (``model.views``), the
  pyqtgraph ``PlotItem`` or ``GraphicsLayout`` to export;
* optionally ``apply_item(item)`` (progress of an iterated job; the default draws its
  ``partial`` response), ``exporting(view, width, height)`` and ``help_html()``.

``computed`` is emitted after a response has been drawn (tests and
:func:`ntkviz.gui.headless.render_panel` wait on it). A panel class may define a static
``warm_up()`` (Qt-free: call its numba kernels once on tiny inputs); the main window
runs it on a worker at start-up.

What every panel gets from this base, with no code of its own: undo and redo of its
parameters (the model's history; a slider drag is one step, :meth:`QtPanel.hold_history`),
and, for a job that runs on demand, the Start (:data:`START_KEY`) and Cancel
(:data:`CANCEL_KEY`) shortcuts of the main window, named in the buttons' tooltips
(:meth:`QtPanel.use_job_buttons`), and a progress bar that shows the time elapsed and
the time left (:class:`~ntkviz.gui.status.ProgressClock`).
"""
from __future__ import annotations

import sys
from contextlib import contextmanager

import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtCore import Signal, Slot

from ntkviz import panels
from ntkviz.gui.plot_style import empty_note
from ntkviz.gui.status import CANCEL_KEY, START_KEY, ProgressClock
from ntkviz.gui.undo import REDO_KEY, UNDO_KEY
from ntkviz.gui.workers import JobSlot, readable_error

__all__ = ["QtPanel", "OnDemandPanel", "spec_of_view", "START_KEY", "CANCEL_KEY"]

#: the note of a panel that has drawn nothing yet
NOTHING_YET = "nothing computed yet"


def spec_of_view(view_cls) -> panels.PanelSpec:
    """The one :class:`~ntkviz.panels.PanelSpec` whose view is ``view_cls`` (``ValueError``
    if none or several: then pass ``spec=`` to the view)."""
    found = [s for s in panels.specs() if _is_view(s.view, view_cls)]
    if len(found) != 1:
        raise ValueError(f"{view_cls.__name__}: {'no' if not found else 'more than one'} panel "
                         "declares this view; give its PanelSpec (spec=...)")
    return found[0]


def _is_view(target, view_cls) -> bool:
    if not isinstance(target, str):
        return target is view_cls
    module, _, name = target.partition(":")
    if name != view_cls.__qualname__:
        return False
    if view_cls.__module__ == "__main__":  # a view module run as a script (python -m ...)
        main = getattr(sys.modules["__main__"], "__spec__", None)
        return main is not None and main.name == module
    try:
        return panels.resolve(target) is view_cls
    except (ImportError, AttributeError):
        return False


class QtPanel(QtWidgets.QWidget):
    """A tab of the main window: parameters -> request -> job slot -> plots."""

    #: parameter changes start a computation (False: only :meth:`start` does)
    auto_compute: bool = True
    #: the panel has a Cancel button of its own for its job (the window adds none)
    own_cancel: bool = False
    #: ``(start, cancel)`` buttons of the job the panel runs on demand, pressed by the
    #: window's :data:`START_KEY` and :data:`CANCEL_KEY` (:meth:`use_job_buttons`)
    job_buttons: tuple | None = None
    _refresh_suspended: bool = False

    computed = Signal(int)  # request id, after a response was applied to the plots
    status = Signal(str)  # text for the main window's status bar (errors included)

    def __init__(self, dispatcher, parent=None, model=None, spec: panels.PanelSpec | None = None):
        super().__init__(parent)
        self.spec = spec if spec is not None else spec_of_view(type(self))
        self.key, self.title = self.spec.key, self.spec.title
        self.dispatcher = dispatcher
        self.model = model if model is not None else panels.resolve(self.spec.model)()
        self.response = None  #: the last response drawn (None: the plots are empty)
        self.drawn = None  #: the parameters ``response`` was computed for
        self.last_error = ""  #: the last error message ("" after a success)
        self.empty_note = NOTHING_YET  #: what the empty plots say
        self.item_params = None  #: the parameters of the progress item being shown
        self.partial = False  #: the response drawn is a partial one (a job still runs)
        self._veiled: list = []  # items hidden by show_empty
        self._notes: list = []  # the plots' empty-view notes showing the panel's note
        self._own_notes: dict = {}  # note -> the figure's own text, while the panel's shows
        #: the panel's job: its results come back with the parameters they were computed for
        self.slot = JobSlot(dispatcher, self.key, self.title, self, own_cancel=self.own_cancel)
        self.slot.returned.connect(self._on_returned)
        self.slot.yielded.connect(self._on_yielded)
        self.slot.errored.connect(self._on_errored)
        self.model.connect(self._on_model_changed)

    # ------------------------------------------------------ to implement
    def build_request(self):
        """The request for the current parameters (default: ``self.model.request()``)."""
        return self.model.request()

    def sync_widgets(self, changed: frozenset) -> None:
        """Set the widgets from ``self.model.params`` after ``changed`` fields changed."""

    def apply_response(self, response) -> None:
        """Draw ``response`` (GUI thread); ``self.response`` is already ``response``."""
        raise NotImplementedError

    def apply_item(self, item) -> None:
        """Show a progress item of an iterated job: its ``partial`` response, if any
        (computed for ``self.item_params``)."""
        partial = getattr(item, "partial", None)
        if partial is not None:
            self._draw(partial, self.item_params, partial=True)

    def plot_items(self) -> dict[str, object]:
        """Exportable views: name -> pyqtgraph ``PlotItem`` or ``GraphicsLayout``, in the
        order of the model's ``views``."""
        raise NotImplementedError

    @contextmanager
    def exporting(self, view: str, width: int | None = None, height: int | None = None):
        """The block within which ``view`` is exported at ``width``×``height`` (the
        exporter's arguments; ``None``: on-screen size or aspect). A panel may add what
        a view exported alone needs, e.g. a legend of its own beside a plot whose legend
        is shared by the whole figure. Default: nothing."""
        yield

    def csv_table(self, view: str) -> tuple[list[str], list[list]]:
        """``(header, rows)``: exactly the data plotted in ``view`` — the model's table of
        the response drawn (:meth:`ntkviz.models.ParamModel.csv_table`, the one the
        command line writes). ``ValueError`` when no result of these parameters is drawn."""
        self.check_current()
        return self.model.csv_table(self.model.params, self.response, view)

    def help_html(self) -> str:
        """The maths behind the panel, as HTML (Help menu)."""
        return f"<h3>{self.title}</h3>"

    # ------------------------------------------------------------- sessions
    def state(self) -> dict:
        """JSON-serialisable parameters and seeds (the model's session entry)."""
        return self.model.to_session()

    def set_state(self, state: dict, label: str = "") -> None:
        """Restore parameters saved by :meth:`state`; ``ValueError`` (naming the field)
        and nothing changed if any value is invalid. Recomputes once; one undo step
        (named ``label``, e.g. "open session")."""
        self.model.restore(state, label=label)

    # ---------------------------------------------------- history, shortcuts
    def showEvent(self, event) -> None:  # noqa: N802 - Qt API
        super().showEvent(event)
        self.hold_history()

    def hold_history(self) -> None:
        """Make each slider drag one undo step (the model's history is held while a slider
        is pressed and sealed when it is released) and let :data:`UNDO_KEY` /
        :data:`REDO_KEY` reach the window's Undo and Redo from a spin box (whose own
        typing undo would take them). Called whenever the panel is shown, so widgets
        added later are included."""
        history = self.model.history
        for slider in self.findChildren(QtWidgets.QAbstractSlider):
            if isinstance(slider, QtWidgets.QScrollBar) or slider.property("_ntkviz_history"):
                continue
            slider.setProperty("_ntkviz_history", True)
            slider.sliderPressed.connect(history.hold)
            slider.sliderReleased.connect(history.release)
        for box in self.findChildren(QtWidgets.QAbstractSpinBox):
            if not box.property("_ntkviz_history"):
                box.setProperty("_ntkviz_history", True)
                box.installEventFilter(_HISTORY_KEYS)

    def use_job_buttons(self, start: QtWidgets.QAbstractButton,
                        cancel: QtWidgets.QAbstractButton) -> None:
        """``start`` and ``cancel`` run and stop the panel's on-demand job: the window's
        :data:`START_KEY` and :data:`CANCEL_KEY` press them, and their tooltips say so."""
        self.job_buttons = (start, cancel)
        for button, key in ((start, START_KEY), (cancel, CANCEL_KEY)):
            text = QtGui.QKeySequence(key).toString(QtGui.QKeySequence.SequenceFormat.NativeText)
            tip = button.toolTip()
            button.setToolTip(f"{tip} ({text})" if tip else f"{button.text()} ({text})")

    # ------------------------------------------------------------- plumbing
    def is_current(self) -> bool:
        """Whether the plots show a result of the model's current parameters."""
        return self.response is not None and self.model.same_computation(self.drawn,
                                                                         self.model.params)

    def check_current(self) -> None:
        """``ValueError`` (what the plots say instead) unless :meth:`is_current`."""
        if not self.is_current():
            note = self.empty_note if self.response is None else \
                "the plot is being computed for the new parameters"
            raise ValueError(f"{self.title}: nothing to export: {note}")

    @contextmanager
    def refresh_suspended(self):
        """Within this block :meth:`refresh` does nothing (returns 0): used to restore
        parameters before the app has started computing."""
        outer, self._refresh_suspended = self._refresh_suspended, True
        try:
            yield self
        finally:
            self._refresh_suspended = outer  # nests: an outer block stays suspended

    def refresh(self, *, immediate: bool = False) -> int:
        """Submit the request for the current parameters; returns its id (0 when no
        request can be built — the message then goes to ``status`` and the plots show
        it — and 0 inside :meth:`refresh_suspended`). Throttled unless ``immediate``.
        Keyword-only, so a widget signal connected here cannot pass a value into it."""
        if self._refresh_suspended:
            return 0
        try:
            request = self.build_request()
        except ValueError as exc:
            self._report_error(str(exc))
            if not self.is_current():
                self.show_empty(str(exc))
            return 0
        return self.slot.submit(request, immediate=immediate, tag=self.model.params)

    def start(self) -> int:
        """Compute now (the main window's start-up, ``Start`` buttons, headless export)."""
        return self.refresh(immediate=True)

    def cancel(self) -> None:
        """Stop the running job at its next step."""
        self.slot.cancel()
        if not self.is_current():
            self.show_empty(self.empty_note if self.response is None else "cancelled")

    def redraw(self) -> None:
        """Re-draw the last response with the current display-only parameters."""
        if self.is_current():
            self._draw(self.response, self.drawn, self.partial)

    def write(self, **changes) -> bool:
        """The one way a widget changes the model: ``self.model.update(**changes)``; a
        refused value is reported (status line) and the widgets are set back to the
        model's values."""
        try:
            self.model.update(**changes)
        except ValueError as exc:
            self._report_error(str(exc))
            self.sync_widgets(frozenset(changes))
            return False
        return True

    # ------------------------------------------------------------ empty state
    def show_empty(self, note: str) -> None:
        """Nothing of other parameters stays drawn: hide every drawn item and legend of
        the plots and show ``note`` in each plot (until the next response is drawn)."""
        self.response, self.drawn = None, None
        self.empty_note = note
        if not self._veiled:
            for item in _drawn_items(self.plot_items().values()):
                if item.isVisible():
                    item.hide()
                    self._veiled.append(item)
        self._show_notes(note)

    def _show_notes(self, note: str) -> None:
        """Each plot's empty-view note (:func:`~ntkviz.gui.plot_style.empty_note`, the one
        note a plot has) says ``note``; the figure's own text comes back with the next
        drawing."""
        self._notes = [empty_note(plot) for plot in _plots(self.plot_items().values())]
        for text in self._notes:
            self._own_notes.setdefault(text, text.text())
            text.set_text(note)

    def _unveil(self) -> None:
        for item in self._veiled:
            try:
                item.show()
            except RuntimeError:  # removed and deleted meanwhile
                pass
        self._veiled = []
        for text, own in self._own_notes.items():
            text.set_text(own)
        self._own_notes = {}

    def _draw(self, response, params, partial: bool = False) -> None:
        previous = (self.response, self.drawn)
        self.response, self.drawn, self.partial = response, params, partial
        self._unveil()
        try:
            self.apply_response(response)
        except Exception as exc:  # noqa: BLE001 - a drawing bug must not kill the app
            self.response, self.drawn = previous
            self._report_error(readable_error(exc))
            raise _NotDrawn() from None

    def _on_model_changed(self, changed: frozenset, recompute: bool) -> None:
        self.sync_widgets(changed)
        if recompute:
            if self.auto_compute:
                self.refresh()
            elif not self.is_current():
                # what is drawn must belong to the parameters shown: stop and clear
                self.slot.cancel()
                self.show_empty(self.changed_note())
        else:
            try:
                self.redraw()
            except _NotDrawn:
                pass

    def changed_note(self) -> str:
        """The note of the empty plots after a parameter change (on-demand panels)."""
        return "parameters changed"

    def _report_error(self, message: str) -> None:
        self.last_error = message
        self.status.emit(f"{self.title}: {message}")

    @Slot(int, object, object)
    def _on_returned(self, request_id: int, response, params) -> None:
        if not self.model.same_computation(params, self.model.params):
            return  # of parameters the model no longer has: the job for its own follows
        try:
            self._draw(response, params)
        except _NotDrawn:
            return
        self.last_error = ""
        self.computed.emit(request_id)

    @Slot(int, object, object)
    def _on_yielded(self, request_id: int, item, params) -> None:
        self.item_params = params
        try:
            self.apply_item(item)
        except _NotDrawn:
            pass

    @Slot(int, str, object)
    def _on_errored(self, request_id: int, message: str, params) -> None:
        self._report_error(message)
        if not self.is_current():
            self.show_empty(f"not computed: {message}")


class _NotDrawn(Exception):
    """A response could not be drawn (already reported)."""


class _HistoryKeys(QtCore.QObject):
    """An event filter giving :data:`UNDO_KEY` and :data:`REDO_KEY` to the window's Undo
    and Redo instead of a spin box's typing undo (a spin box's value is committed the
    moment it changes: its parameter history is the undo a user means)."""

    KEYS = (QtGui.QKeySequence(UNDO_KEY), QtGui.QKeySequence(REDO_KEY))

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt API
        if event.type() == QtCore.QEvent.Type.ShortcutOverride:
            return QtGui.QKeySequence(event.keyCombination()) in self.KEYS
        return False


_HISTORY_KEYS = _HistoryKeys()


def _plots(items) -> list:
    """The ``PlotItem`` objects in ``items`` (plot items and graphics layouts)."""
    out = []
    for item in items:
        if isinstance(item, pg.PlotItem):
            out.append(item)
        elif isinstance(item, pg.GraphicsLayout):
            out += _plots(item.items)
    return out


def _drawn_items(items) -> list:
    """What a figure draws from a response: the items of every plot's view box and every
    legend (plots and legends of graphics layouts included)."""
    out = []
    for item in items:
        if isinstance(item, pg.GraphicsLayout):
            out += _drawn_items(item.items)
            continue
        if isinstance(item, pg.LegendItem):
            out.append(item)
        if isinstance(item, pg.PlotItem):
            out += [i for i in item.getViewBox().addedItems]
            if item.legend is not None:
                out.append(item.legend)
    return out


class OnDemandPanel(QtPanel):
    """A panel whose long job starts only on demand: the model's request (iterated:
    progress items with partial results, cancellable) started by the panel's run button,
    stopped by its own Cancel button, beside a progress bar and an info line: a
    :class:`~ntkviz.gui.controls.JobControls` column given to :meth:`use_controls`. Once
    its plots exist, the view calls ``show_empty(self.idle_note())``."""

    auto_compute = False
    own_cancel = True
    #: the run button's text when idle and while the job runs (pressing it then restarts)
    run_text: str = "Start"
    restart_text: str = "Restart"

    def use_controls(self, controls) -> None:
        """Take the run and Cancel buttons, progress bar and info line of ``controls``
        (a ``JobControls``) as ``run_button``, ``cancel_button``, ``progress``, ``info``."""
        self.run_button, self.cancel_button = controls.run_button, controls.cancel_button
        self.progress, self.info = controls.progress, controls.info
        self.clock = ProgressClock(self.progress)
        self.run_button.setText(self.run_text)
        self.run_button.clicked.connect(lambda: self.start())
        self.cancel_button.clicked.connect(self.cancel)
        self.use_job_buttons(self.run_button, self.cancel_button)
        self.slot.busy.connect(self._on_busy)

    def idle_note(self) -> str:
        """What the empty plots say before a run."""
        return f"press {self.run_text} to compute"

    def show_empty(self, note: str) -> None:
        super().show_empty(note)
        self.info.setText(note)
        if not self.slot.is_busy():
            self.progress.setValue(0)

    def changed_note(self) -> str:
        return f"parameters changed: {self.idle_note()}"

    def refresh(self, *, immediate: bool = False) -> int:
        rid = super().refresh(immediate=immediate)
        if rid:
            self.progress.setValue(0)
            self.clock.start()  # a restart while the job runs starts a new clock
            self.info.setText("running…")
            self.show_empty("running…")
        return rid

    def apply_item(self, item) -> None:
        self.clock.show(float(item.fraction))
        if getattr(item, "message", ""):
            self.info.setText(f"{item.message}…")
        super().apply_item(item)

    def cancel(self) -> None:
        """Stop the running job at its next step: the partial result of these parameters
        stays, or an empty plot with a note if there is none yet."""
        busy = self.slot.is_busy()
        fraction = self.progress.value() / 10
        self.slot.cancel()
        self.progress.setValue(0)
        if not busy:
            return
        if self.is_current():
            self.info.setText(f"cancelled at {fraction:.0f} %: the partial result stays")
        else:
            self.show_empty(f"cancelled at {fraction:.0f} % before any result: "
                            f"{self.idle_note()}")

    def _on_busy(self, busy: bool) -> None:
        self.cancel_button.setEnabled(busy)
        self.run_button.setText(self.restart_text if busy else self.run_text)
        if busy:
            self.clock.start()
        else:
            self.clock.stop()
