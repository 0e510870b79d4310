"""The base class of every panel (tab) of the main window.

A panel *observes*: it holds its parameters in widgets, turns them into an
immutable request (:meth:`QtPanel.build_request`, a Qt-free callable from
:mod:`ntkviz.jobs`), hands it to the shared :class:`~ntkviz.gui.workers.Dispatcher`
(:meth:`QtPanel.refresh`) and draws the response (:meth:`QtPanel.apply_response`).
It never calls numba itself.

Writing a panel
---------------
Subclass :class:`QtPanel`, set ``key`` (unique, short: used for the dispatcher,
sessions, ``--tab`` and CLI export) and ``title`` (the tab text), then implement

* ``build_request()`` -> callable job (raise ``ValueError`` for bad parameters:
  the message goes to the status bar),
* ``apply_response(response)`` -> draw it,
* ``plot_items()``, ``csv_table(view)``, ``state()``, ``set_state(state)``,
  ``help_html()``.

Call ``self.refresh()`` whenever a parameter changes (it is throttled and
latest-wins); ``computed`` is emitted after a response has been drawn, which is
what tests and :func:`ntkviz.gui.headless.render_panel` wait for. Long jobs set
``generator = True`` (``build_request`` then returns a zero-argument callable
returning an iterator) and may override ``apply_item`` for progress/partials;
items with a ``fraction`` attribute drive the main window's progress bar.
Set ``heavy = True`` for jobs calling ``parallel=True`` numba kernels. A panel
class may define a static ``warm_up()`` (Qt-free: call its numba kernels once on
tiny inputs); the main window runs it on a worker at start-up, while the status
bar says "compiling kernels…".
"""
from __future__ import annotations

from contextlib import contextmanager

from PySide6 import QtWidgets
from PySide6.QtCore import Signal, Slot

__all__ = ["QtPanel"]


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
    #: trailing-edge throttle for parameter changes
    throttle_ms: int = 30
    _refresh_suspended: bool = False

    computed = Signal(int)  # request id, after a response was applied to the plots
    status = Signal(str)  # text for the main window's status bar (errors included)

    def __init__(self, dispatcher, parent=None):
        super().__init__(parent)
        self.dispatcher = dispatcher
        self.response = None  #: the last response drawn
        self.last_error = ""  #: the last error message ("" after a success)
        dispatcher.returned.connect(self._on_returned)
        dispatcher.yielded.connect(self._on_yielded)
        dispatcher.errored.connect(self._on_errored)

    # ------------------------------------------------------ to implement
    def build_request(self):
        """Return the job for the current parameters (a zero-argument callable)."""
        raise NotImplementedError

    def apply_response(self, response) -> None:
        """Draw ``response`` (GUI thread); ``self.response`` is already ``response``."""
        raise NotImplementedError

    def apply_item(self, item) -> None:
        """Show an intermediate item of a generator job (default: nothing)."""

    def plot_items(self) -> dict[str, object]:
        """Exportable views: name -> pyqtgraph ``PlotItem`` or ``GraphicsLayout``.
        The first one is the default view."""
        raise NotImplementedError

    def csv_table(self, view: str) -> tuple[list[str], list[list]]:
        """``(header, rows)``: exactly the data plotted in ``view``. By default the last
        response's own ``csv_table(view)``; panels whose tables need more override it."""
        if self.response is None:
            raise ValueError("nothing computed yet")
        return self.response.csv_table(view)

    def state(self) -> dict:
        """JSON-serialisable parameters and seeds (restored by :meth:`set_state`)."""
        return {}

    def set_state(self, state: dict) -> None:
        """Restore parameters saved by :meth:`state` (unknown keys are ignored) and refresh."""

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

    def refresh(self, throttle_ms: int | None = None) -> int:
        """Build a request from the widgets and submit it; returns its id (0 when the
        parameters are invalid: the message then goes to ``status``; 0 also inside
        :meth:`refresh_suspended`)."""
        if self._refresh_suspended:
            return 0
        try:
            job = self.build_request()
        except ValueError as exc:
            self._report_error(str(exc))
            return 0
        throttle = self.throttle_ms if throttle_ms is None else throttle_ms
        if self.generator:
            return self.dispatcher.submit_generator(self.key, job, heavy=self.heavy,
                                                    throttle_ms=throttle)
        return self.dispatcher.submit(self.key, job, heavy=self.heavy, throttle_ms=throttle)

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
