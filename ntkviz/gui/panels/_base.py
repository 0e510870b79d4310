"""The base class of every panel (tab) of the main window: the view of a model.

A panel is a Qt-free parameter model (:class:`ntkviz.models.ParamModel`
subclass, ``model_cls``) plus this view. The view *observes*: its widgets
write through ``self.model.update(...)`` and it redraws when the model says
so; it never holds parameters of its own and never calls numba. A change of a
field that matters for the computation submits ``model.request()`` to the
shared :class:`~ntkviz.gui.workers.Dispatcher` (throttled there, latest wins);
a change of a ``display_only`` field only calls :meth:`QtPanel.redraw`.

Writing a panel
---------------
Subclass :class:`QtPanel`, set ``key`` (unique, short: dispatcher, sessions,
``--tab`` and CLI export name), ``title`` (tab text) and ``model_cls``, then
implement

* ``sync_widgets(changed)``: set the widgets from ``self.model.params`` (called
  after every model change with the changed field names; block the widgets'
  signals while setting them),
* ``apply_response(response)``: draw it (using display-only fields of
  ``self.model.params`` as needed); ``redraw()`` re-applies the last response,
* ``plot_items()``, optionally ``csv_table(view)`` and ``help_html()``.

``state()``/``set_state()`` are the model's session entry (``set_state``
validates everything first and raises ``ValueError`` naming the field, changing
nothing). ``computed`` is emitted after a response has been drawn (tests and
:func:`ntkviz.gui.headless.render_panel` wait on it). Long jobs set
``generator = True`` (the request is then a zero-argument callable returning an
iterator) and may override ``apply_item`` for progress/partials; items with a
``fraction`` attribute drive the main window's progress bar. Set ``heavy =
True`` for jobs calling ``parallel=True`` numba kernels; ``auto_compute =
False`` for jobs that start only on demand (:meth:`QtPanel.start`). A panel
class may define a static ``warm_up()`` (Qt-free: call its numba kernels once
on tiny inputs); the main window runs it on a worker at start-up. A panel whose
one long job runs only when asked subclasses :class:`OnDemandPanel` instead.
"""
from __future__ import annotations

from contextlib import contextmanager

from PySide6 import QtWidgets
from PySide6.QtCore import Signal, Slot

__all__ = ["QtPanel", "OnDemandPanel"]


class QtPanel(QtWidgets.QWidget):
    """A tab of the main window: parameters -> request -> dispatcher -> plots."""

    #: unique short name (dispatcher key, session key, ``--tab`` name, export view group)
    key: str = "panel"
    #: tab text
    title: str = "Panel"
    #: run requests on the one-thread heavy pool (``parallel=True`` kernels, long jobs)
    heavy: bool = False
    #: ``build_request()`` returns a generator job (progress, cancellable between items)
    generator: bool = False
    #: the panel's Qt-free parameter model class (a ``ParamModel`` subclass)
    model_cls: type | None = None
    #: parameter changes start a computation (False: only :meth:`start` does)
    auto_compute: bool = True
    #: the panel has its own Cancel button for its jobs (the main window then shows
    #: none for them: one Cancel per job)
    own_cancel: bool = False
    #: keys of the panel's other jobs (not ``key``) that its own Cancel button stops
    own_cancel_jobs: tuple[str, ...] = ()
    _refresh_suspended: bool = False

    computed = Signal(int)  # request id, after a response was applied to the plots
    status = Signal(str)  # text for the main window's status bar (errors included)

    def __init__(self, dispatcher, parent=None, model=None):
        super().__init__(parent)
        self.dispatcher = dispatcher
        self.response = None  #: the last response drawn
        self.last_error = ""  #: the last error message ("" after a success)
        if model is None and self.model_cls is not None:
            model = self.model_cls()
        self.model = model  #: the Qt-free parameter model this view observes
        if model is not None:
            model.connect(self._on_model_changed)
        dispatcher.returned.connect(self._on_returned)
        dispatcher.yielded.connect(self._on_yielded)
        dispatcher.errored.connect(self._on_errored)

    # ------------------------------------------------------ to implement
    def build_request(self):
        """Return the job for the current parameters (default: ``self.model.request()``)."""
        if self.model is None:
            raise NotImplementedError
        return self.model.request()

    def sync_widgets(self, changed: frozenset) -> None:
        """Set the widgets from ``self.model.params`` after ``changed`` fields changed."""

    def redraw(self) -> None:
        """Re-draw the last response with the current display-only parameters."""
        if self.response is not None:
            self.apply_response(self.response)

    def apply_response(self, response) -> None:
        """Draw ``response`` (GUI thread); ``self.response`` is already ``response``."""
        raise NotImplementedError

    def apply_item(self, item) -> None:
        """Show an intermediate item of a generator job (default: nothing)."""

    def plot_items(self) -> dict[str, object]:
        """Exportable views: name -> pyqtgraph ``PlotItem`` or ``GraphicsLayout``.
        The first one is the default view."""
        raise NotImplementedError

    @contextmanager
    def exporting(self, view: str, width: int | None = None, height: int | None = None):
        """The block within which ``view`` is exported at ``width``×``height`` (the
        exporter's arguments; ``None``: on-screen size or aspect). A panel may add what
        a view exported alone needs, e.g. a legend of its own beside a plot whose legend
        is shared by the whole figure. Default: nothing."""
        yield

    def csv_table(self, view: str) -> tuple[list[str], list[list]]:
        """``(header, rows)``: exactly the data plotted in ``view``. By default the last
        response's own ``csv_table(view)``; panels whose tables need more override it."""
        if self.response is None:
            raise ValueError("nothing computed yet")
        return self.response.csv_table(view)

    def state(self) -> dict:
        """JSON-serialisable parameters and seeds (restored by :meth:`set_state`)."""
        return {} if self.model is None else self.model.to_session()

    def set_state(self, state: dict) -> None:
        """Restore parameters saved by :meth:`state`; ``ValueError`` (naming the field)
        and nothing changed if any value is invalid. Recomputes once."""
        if self.model is not None:
            self.model.restore(state)

    def help_html(self) -> str:
        """The maths behind the panel, as HTML (Help menu)."""
        return f"<h3>{self.title}</h3>"

    # ------------------------------------------------------------- plumbing
    def default_view(self) -> str:
        """Name of the first exportable view."""
        return next(iter(self.plot_items()))

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
        """Submit the request for the current parameters; returns its id (0 when the
        parameters are invalid — the message then goes to ``status`` — and 0 inside
        :meth:`refresh_suspended`). Throttled by the dispatcher unless ``immediate``.
        Keyword-only, so a widget signal connected here cannot pass a value into it."""
        if self._refresh_suspended:
            return 0
        try:
            job = self.build_request()
        except ValueError as exc:
            self._report_error(str(exc))
            return 0
        if self.generator:
            return self.dispatcher.submit_generator(self.key, job, heavy=self.heavy,
                                                    immediate=immediate)
        return self.dispatcher.submit(self.key, job, heavy=self.heavy, immediate=immediate)

    def start(self) -> int:
        """Compute now (the main window's start-up, ``Start`` buttons, headless export)."""
        return self.refresh(immediate=True)

    def _on_model_changed(self, changed: frozenset, recompute: bool) -> None:
        self.sync_widgets(changed)
        if recompute:
            if self.auto_compute:
                self.refresh()
        else:
            try:
                self.redraw()
            except Exception as exc:  # noqa: BLE001 - a drawing bug must not kill the app
                from ntkviz.gui.workers import readable_error

                self._report_error(readable_error(exc))

    def write(self, **changes) -> bool:
        """``self.model.update(**changes)`` from a widget: a refused value is reported
        (status line) and the widgets are set back to the model's values."""
        try:
            self.model.update(**changes)
        except ValueError as exc:
            self._report_error(str(exc))
            self.sync_widgets(frozenset(changes))
            return False
        return True

    def _report_error(self, message: str) -> None:
        self.last_error = message
        self.status.emit(f"{self.title}: {message}")

    @Slot(str, int, object)
    def _on_returned(self, key: str, request_id: int, response) -> None:
        if key != self.key:
            return
        previous, self.response = self.response, response
        try:
            self.apply_response(response)
        except Exception as exc:  # noqa: BLE001 - a drawing bug must not kill the app
            from ntkviz.gui.workers import readable_error

            self.response = previous
            self._report_error(readable_error(exc))
            return
        self.last_error = ""
        self.computed.emit(request_id)

    @Slot(str, int, object)
    def _on_yielded(self, key: str, request_id: int, item) -> None:
        if key == self.key:
            self.apply_item(item)

    @Slot(str, int, str)
    def _on_errored(self, key: str, request_id: int, message: str) -> None:
        if key == self.key:
            self._report_error(message)


class OnDemandPanel(QtPanel):
    """A panel whose long job starts only on demand: a generator job (the model's
    request's ``iterate``: progress items, cancellable) on the heavy pool, started by
    the panel's run button, stopped by its own Cancel button (the main window adds
    none), beside a progress bar and an info line: a
    :class:`~ntkviz.gui.controls.JobControls` column given to :meth:`use_controls`."""

    heavy = True
    generator = True
    auto_compute = False
    own_cancel = True
    #: the run button's text when idle and while the job runs (pressing it then restarts)
    run_text: str = "Start"
    restart_text: str = "Restart"

    def build_request(self):
        """The generator job: the request's ``iterate``."""
        return self.model.request().iterate

    def use_controls(self, controls) -> None:
        """Take the run and Cancel buttons, progress bar and info line of ``controls``
        (a ``JobControls``) as ``run_button``, ``cancel_button``, ``progress``, ``info``."""
        self.run_button, self.cancel_button = controls.run_button, controls.cancel_button
        self.progress, self.info = controls.progress, controls.info
        self.run_button.setText(self.run_text)
        self.run_button.clicked.connect(lambda: self.start())
        self.cancel_button.clicked.connect(self.cancel)
        self.dispatcher.busy.connect(self._on_busy)

    def cancel(self) -> None:
        """Stop the running job at its next step (subclasses say what stays drawn)."""
        self.dispatcher.cancel(self.key)

    def _on_busy(self, key: str, busy: bool) -> None:
        if key == self.key:
            self.cancel_button.setEnabled(busy)
            self.run_button.setText(self.restart_text if busy else self.run_text)
